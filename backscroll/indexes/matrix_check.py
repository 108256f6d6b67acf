"""The vector matrix checked in full against the store (``status --check``): the checks a query makes before it
trusts the files (``MatrixCache``: shapes, types, checksums), the int8 rows' checksum read whole (a query skips it
while the file is the one written), and the record ids it holds against the store's vectors up to its pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from backscroll.indexes import matrix
from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store

MATRIX_FIX = ("its files are a cache of the store's vectors: delete the folder {dir} and run `backscroll embed`, which "
              "writes them again (searches by meaning read the store's vectors meanwhile)")


def matrix_problem(store: Store, directory: Path) -> tuple[str, str | None]:
    """``(what was found, the problem or None)`` for the matrix of the store's embedding model under ``directory``."""
    model = store.get_meta("vectors_model")
    if model is None:
        return "no vectors", None
    vecs = Vectors(store, directory, model)
    seq = int(store.get_meta("vector_seq") or 0)
    meta = vecs._meta()
    if meta is None:
        if vecs.cache_damaged:
            return "", f"its meta file {vecs._paths()[3]} cannot be read"
        return f"no matrix written yet ({store.vectored_fingerprint(seq)[0]:,} records with a vector)", None
    loaded = vecs._load_base(meta) if isinstance(meta.get("seq"), int) else None
    if loaded is None:
        return "", f"its files in {directory} fail their checks (shapes, types or checksums)"
    ids, base, _scales = loaded
    if matrix._crc(base) != meta["crc32"]["int8"]:  # (read whole: a query trusts a file its meta saw written)
        return "", f"its int8 rows ({vecs._paths()[0]}) fail their checksum"
    stored = np.fromiter(store.vectored_ids(meta["seq"]), dtype=np.int64)
    missing = np.setdiff1d(stored, ids, assume_unique=True)
    if len(missing):
        return "", (f"{len(missing):,} of the {len(stored):,} records with a vector when it was written are not in it "
                    "(searches by meaning never find them)")
    gone = len(ids) - (len(stored) - len(missing))  # (records deleted since: dropped when it is written next)
    later = store.vectored_after(meta["seq"])
    found = f"{len(ids):,} rows, as the store's vectors" + (f"; {later:,} vectors since, read from the store"
                                                              if later else "")
    return found + (f"; {gone:,} rows of records deleted since (dropped when it is next written)" if gone else ""), None
