"""A new vector matrix starts from the old one's rows when none of them changed: only the rows embedded since are
read from the store, and the files are the same, byte for byte, as a matrix written from scratch."""

from __future__ import annotations

import pytest

from backscroll.store.db import Store


def _session(session_builder, words: str, n: int = 3) -> None:
    s = session_builder.claude()
    for i in range(n):
        s.user(f"{words} question number {i} about the queue")
        s.assistant(f"{words} answer number {i} about the queue")


def _vectors(backscroll_home):
    from backscroll.indexes import embed as embed_mod
    from backscroll.indexes.vectors import Vectors

    store = Store.open(backscroll_home.data / "backscroll.db")
    return store, Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())


@pytest.fixture
def embedded(session_builder, backscroll_home, backscroll_index):
    """A store with one session embedded and its matrix written: ``(store, vectors)``."""
    _session(session_builder, "lighthouse", 4)
    backscroll_index(embed=True)
    store, vecs = _vectors(backscroll_home)
    yield store, vecs
    store.close()


def _reads_after(monkeypatch) -> list[int]:
    """The passes the store's vector rows are read after (0: every row) by any store of this process."""
    asked: list[int] = []
    real = Store.vector_rows

    def spy(self, model, after_seq, chunk):
        asked.append(after_seq)
        return real(self, model, after_seq, chunk)

    monkeypatch.setattr(Store, "vector_rows", spy)
    return asked


def _files(vecs) -> list[bytes]:
    mpath, spath, ipath, meta = vecs._paths()
    return [mpath.read_bytes(), spath.read_bytes(), ipath.read_bytes(), meta.read_bytes()]


def _same_but_stat(a: list[bytes], b: list[bytes]) -> bool:
    import json

    def meta(raw: bytes) -> dict:
        return {k: v for k, v in json.loads(raw).items() if k != "int8_stat"}

    return a[:3] == b[:3] and meta(a[3]) == meta(b[3])


def test_only_the_new_rows_are_read_and_the_matrix_is_as_if_written_afresh(embedded, session_builder,
                                                                            backscroll_index, monkeypatch):
    from backscroll.indexes import matrix

    monkeypatch.setattr(matrix, "SCORE_CHUNK", 3)  # the old rows are copied in several chunks
    monkeypatch.setattr(matrix, "MATRIX_REBUILD_TAIL", 1)  # (a few new rows are otherwise left to the tail)
    store, vecs = embedded
    first_seq = vecs._meta()["seq"]
    _session(session_builder, "harbour", 3)
    asked = _reads_after(monkeypatch)
    backscroll_index(embed=True)  # embeds the new rows and writes the matrix again
    assert asked == [first_seq] and vecs._meta()["seq"] > first_seq
    assert vecs._meta()["rows"] == store.vector_row_count(vecs.model)
    appended = _files(vecs)
    vecs._drop_matrix()
    vecs.write_matrix()
    assert asked == [first_seq, 0]
    assert _same_but_stat(appended, _files(vecs))
    ids, base, _scales, tail_ids, _tail = vecs.load()
    assert base is not None and len(tail_ids) == 0 and not vecs.cache_damaged
    assert sorted(ids.tolist()) == sorted(r[0] for part in store.vector_rows(vecs.model, 0, 100) for r in part)


def test_a_few_new_vectors_leave_the_matrix_alone_and_a_search_reads_them_from_the_store(embedded, session_builder,
                                                                                        backscroll_index):
    """An agent's every turn adds a few prose records: rewriting a matrix of a million rows for them cost seconds and
    hundreds of MB on every ``index``."""
    store, vecs = embedded
    before = _files(vecs)
    _session(session_builder, "harbour", 3)
    backscroll_index(embed=True)
    assert _files(vecs) == before
    base_ids, base, _scales, tail_ids, _tail = vecs.load()
    assert base is not None and len(tail_ids) == 6 and not vecs.cache_damaged
    every = sorted(r[0] for part in store.vector_rows(vecs.model, 0, 100) for r in part)
    assert sorted(base_ids.tolist() + tail_ids.tolist()) == every


def test_a_vector_replaced_since_means_every_row_is_read_again(embedded, backscroll_index, monkeypatch):
    store, vecs = embedded
    rid = int(vecs.load()[0][0])
    store.conn.execute("UPDATE records SET unit_hash = NULL, vector_seq = NULL WHERE id = ?", (rid,))
    store.conn.commit()
    asked = _reads_after(monkeypatch)
    backscroll_index(embed=True)  # the record gets a vector again, in a later pass, and the matrix is written
    assert asked == [0]
    ids = vecs.load()[0]
    assert len(ids) == len(set(ids.tolist())) == store.vector_row_count(vecs.model)


def test_a_damaged_matrix_is_written_afresh_not_copied(embedded, monkeypatch):
    store, vecs = embedded
    clean = _files(vecs)
    mpath = vecs._paths()[0]
    raw = bytearray(mpath.read_bytes())
    raw[-64:] = bytes(64)  # the last rows zeroed: the size stays, the checksum does not hold
    mpath.write_bytes(bytes(raw))
    asked = _reads_after(monkeypatch)
    vecs.write_matrix()
    assert asked == [0] and not vecs.cache_damaged
    assert _same_but_stat(clean, _files(vecs))


def test_a_vector_gone_from_the_store_leaves_a_consistent_matrix(embedded, monkeypatch):
    """A record whose text's vector is gone (a store recovered by hand) still counts in the fingerprint: the copied
    matrix keeps its row (the vector of its unchanged text) and stays whole, and one written afresh leaves it out."""
    store, vecs = embedded
    gone = int(vecs.load()[0][0])
    store.conn.execute("DELETE FROM embeddings WHERE content_hash = (SELECT unit_hash FROM records WHERE id = ?)",
                       (gone,))
    store.conn.commit()
    asked = _reads_after(monkeypatch)
    rows = vecs.write_matrix()
    assert asked == [vecs._meta()["seq"]]
    ids = vecs.load()[0]
    assert rows == len(ids) == store.vector_row_count(vecs.model) + 1
    assert gone in ids.tolist() and not vecs.cache_damaged
    vecs._drop_matrix()
    asked.clear()
    rows = vecs.write_matrix()
    assert asked == [0] and rows == store.vector_row_count(vecs.model) == len(vecs.load()[0])
    assert gone not in vecs.load()[0].tolist()


def test_a_texts_first_vector_stays(embedded):
    """Records given a text's vector in earlier passes keep their rows in a copied matrix: a later save of the same
    text (another writer's, computed meanwhile) must not change the vector under them."""
    import numpy as np

    from backscroll.indexes.packing import pack, unpack

    store, vecs = embedded
    rid, unit = store.conn.execute("SELECT id, unit_hash FROM records WHERE vector_seq IS NOT NULL LIMIT 1").fetchone()
    before = store.vectors_of([rid], vecs.model)[rid]
    other = np.ones(len(unpack(before, 384)), dtype=np.float32) / np.sqrt(384)
    store.begin()
    store.save_vectors(vecs.model, 99, [(unit, len(other), pack(other))], [(rid, unit)], [])
    store.commit()
    assert store.vectors_of([rid], vecs.model)[rid] == before
