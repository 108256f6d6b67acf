"""Vectors are kept as float16: half the bytes, the same cosines to well under 0.001, and the float32
vectors of an older store still read (a store may hold both)."""

from __future__ import annotations

import numpy as np

from backscroll.indexes.packing import pack, unpack, unpack_rows
from backscroll.store.db import Store


def _unit(rng, n, dim=384):
    m = rng.standard_normal((n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_half_the_bytes_and_the_same_cosines():
    rng = np.random.default_rng(3)
    vecs, query = _unit(rng, 200), _unit(rng, 1)[0]
    blobs = [pack(v) for v in vecs]
    assert {len(b) for b in blobs} == {384 * 2}
    assert np.abs(unpack_rows(blobs, 384) @ query - vecs @ query).max() < 1e-3


def test_float32_rows_of_an_older_store_read_beside_new_ones():
    rng = np.random.default_rng(4)
    vecs = _unit(rng, 4)
    blobs = [vecs[0].tobytes(), pack(vecs[1]), vecs[2].tobytes(), pack(vecs[3])]
    rows = unpack_rows(blobs, 384)
    assert rows.dtype == np.float32 and rows.shape == (4, 384)
    assert np.array_equal(rows[0], vecs[0]) and np.array_equal(unpack(blobs[2], 384), vecs[2])
    assert np.abs(rows[1] - vecs[1]).max() < 1e-3


def test_an_embedded_store_keeps_float16_and_its_matrix_reads_an_older_row_too(session_builder, backscroll_home,
                                                                            backscroll_index, backscroll_search):
    from backscroll.indexes import embed as embed_mod
    from backscroll.indexes.vectors import Vectors

    for i in range(3):
        session_builder.claude(project=f"p{i}").user(f"the quarterly report number {i} about lighthouse {i}")
    backscroll_index(embed=True)
    store = Store.open(backscroll_home.config().db_path)
    try:
        sizes = {r[0] for r in store.conn.execute("SELECT length(vector) FROM embeddings")}
        assert sizes == {2 * 384}
        first = store.conn.execute("SELECT content_hash, vector FROM embeddings LIMIT 1").fetchone()
        as_before = unpack(first[1], 384).tobytes()  # as an older version stored it
        store.conn.execute("UPDATE embeddings SET vector = ? WHERE content_hash = ?", (as_before, first[0]))
        store.conn.commit()
        vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
        assert vecs.write_matrix() == 3
        assert backscroll_search("lighthouse report", mode="semantic", rerun=True).results
    finally:
        store.close()
