"""The vector matrix checked in full against the store (``status --check``): its files checked whole
(``Vectors.verify``: what a query checks before it trusts them, and the int8 rows' checksum read whole), and the
record ids it holds against the store's vectors up to its pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store

MATRIX_FIX = ("its files are a cache of the store's vectors: delete the folder {dir} and run `backscroll embed`, which "
              "writes them again (searches by meaning read the store's vectors meanwhile)")


def matrix_problem(store: Store, directory: Path) -> tuple[str, str | None]:
    """``(what was found, the problem or None)`` for the matrix of the store's embedding model under ``directory``."""
    model = store.get_meta("vectors_model")
    if model is None:
        return "no vectors", None
    seq = store.meta_count("vector_seq")
    verdict = Vectors(store, directory, model).verify()
    if verdict.problem is not None:
        return "", verdict.problem
    if verdict.ids is None:
        return f"no matrix written yet ({store.vectored_fingerprint(seq)[0]:,} records with a vector)", None
    ids = verdict.ids
    stored = np.fromiter(store.vectored_ids(verdict.seq), dtype=np.int64)
    missing = np.setdiff1d(stored, ids, assume_unique=True)
    if len(missing):
        return "", (f"{len(missing):,} of the {len(stored):,} records with a vector when it was written are not in it "
                    "(searches by meaning never find them)")
    gone = len(ids) - (len(stored) - len(missing))  # (records deleted since: dropped when it is written next)
    later = store.vectored_after(verdict.seq)
    found = f"{len(ids):,} rows, as the store's vectors" + (f"; {later:,} vectors since, read from the store"
                                                              if later else "")
    return found + (f"; {gone:,} rows of records deleted since (dropped when it is next written)" if gone else ""), None
