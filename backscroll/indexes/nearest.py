"""A query's similarity to the int8 rows of the vector matrix, and the ``k`` records closest to it among those a
search's filters admit, read from the top of the ranking in widening slices (a broad filter costs a few look-ups,
not a pass over the store); ties by id. Pure."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ADMIT_BATCH = 500  # ids a filter is asked about at once (one SQL look-up)
# int8 rows made float32 and scored at a time: 1.5 MB, within a core's cache; at 16,384 BLAS split a block among its
# threads off its alignment, and a row's score depended in its last bit on how many cores the machine had
SCORE_ROWS = 1024

Admit = Callable[[list[int]], set[int]]  # which of these record ids a search's filters allow


def score_int8(m8: np.ndarray, scales: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The similarity of the query vector ``q`` to each int8 row of ``m8`` (a row's scale times its dot product)."""
    out = np.empty(len(m8), dtype=np.float32)
    buf = np.empty((min(SCORE_ROWS, len(m8)), m8.shape[1]), dtype=np.float32)
    for start in range(0, len(m8), SCORE_ROWS):
        chunk = m8[start:start + SCORE_ROWS]
        b = buf[: len(chunk)]
        np.copyto(b, chunk, casting="unsafe")
        out[start:start + len(chunk)] = b @ q
    return out * scales


def best_admitted(ids: np.ndarray, scores: np.ndarray, k: int, admit: Admit | None = None,
                  reach: int | None = None) -> list[tuple[int, float]] | None:
    """The ``k`` best ``(id, similarity)`` that ``admit`` lets through (all when None), best first, ties
    by id. The ranking is read from the top in widening slices, so a broad filter costs a few look-ups,
    not a pass over the store; None when fewer than ``k`` were admitted within ``reach`` rows (and more
    remain): the caller then filters the whole set."""
    finite = np.isfinite(scores)
    if not finite.all():  # a NaN (a damaged vector) ranks nowhere
        ids, scores = ids[finite], scores[finite]
    n = len(ids)
    k = min(k, n)
    if k <= 0:
        return []
    width = k if admit is None else min(n, max(4 * k, ADMIT_BATCH))
    out: list[tuple[int, float]] = []
    looked = 0
    while True:
        order = _best(ids, scores, width)
        for start in range(looked, len(order), ADMIT_BATCH):
            pos = order[start:start + ADMIT_BATCH]
            batch = [int(ids[i]) for i in pos]
            kept = admit(batch) if admit is not None else None
            out.extend((rid, float(scores[i])) for rid, i in zip(batch, pos, strict=True)
                       if kept is None or rid in kept)
            if len(out) >= k:
                return out[:k]
        looked = len(order)
        if width >= n:
            return out
        if reach is not None and width >= reach:
            return None
        width = min(n, width * 8)


def _best(ids: np.ndarray, scores: np.ndarray, width: int) -> np.ndarray:
    """Positions of the ``width`` best scores, best first, ties by id (one total order, whatever the width)."""
    if width < len(scores):
        cut = np.partition(-scores, width - 1)[width - 1]
        pos = np.flatnonzero(-scores <= cut)  # every tie at the cut, so the order below is the global one
    else:
        pos = np.arange(len(scores))
    return pos[np.lexsort((ids[pos], -scores[pos]))][:width]
