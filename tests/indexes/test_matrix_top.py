"""The semantic list's best rows under a filter: read from the top in widening slices, the same answer as
filtering everything first."""

from __future__ import annotations

import numpy as np
import pytest

from backscroll.indexes.matrix import MatrixCache


def _brute(ids, scores, k, allowed):
    rows = sorted(((float(s), int(i)) for i, s in zip(ids, scores, strict=True) if int(i) in allowed),
                  key=lambda r: (-r[0], r[1]))
    return [(i, s) for s, i in rows[:k]]


@pytest.mark.parametrize("share", [1.0, 0.3, 0.02, 0.0])
def test_the_best_admitted_rows_are_the_best_of_the_allowed_set(share):
    rng = np.random.default_rng(7)
    ids = rng.permutation(20_000).astype(np.int64) + 1
    scores = np.round(rng.standard_normal(20_000).astype(np.float32), 2)  # many ties: ids break them
    allowed = {int(i) for i in ids if rng.random() < share}
    asked: list[int] = []

    def admit(batch):
        asked.append(len(batch))
        return allowed.intersection(batch)

    got = MatrixCache.top(ids, scores, 50, admit)
    assert got == _brute(ids, scores, 50, allowed)
    if share == 1.0:
        assert sum(asked) <= 500  # a broad filter asks about a slice, not the store


def test_a_narrow_scope_past_reach_asks_for_the_whole_set():
    ids = np.arange(1, 10_001, dtype=np.int64)
    scores = np.linspace(1, 0, 10_000).astype(np.float32)
    assert MatrixCache.top(ids, scores, 10, lambda batch: {10_000} & set(batch), reach=1000) is None
    assert MatrixCache.top(ids, scores, 10, lambda batch: {10_000} & set(batch)) == [(10_000, 0.0)]


def test_without_a_filter_ties_come_in_id_order():
    ids = np.array([9, 3, 7, 1], dtype=np.int64)
    scores = np.array([0.5, 0.5, 0.9, 0.5], dtype=np.float32)
    assert [i for i, _s in MatrixCache.top(ids, scores, 3) or []] == [7, 1, 3]


def test_nan_scores_rank_nowhere_and_nothing_comes_twice():
    ids = np.arange(1, 5001, dtype=np.int64)
    scores = np.full(5000, np.nan, dtype=np.float32)
    scores[:600] = np.linspace(1, 0, 600)
    got = MatrixCache.top(ids, scores, 50, lambda batch: {i for i in batch if i % 7 == 0})
    assert got is not None and len(got) == len({i for i, _s in got}) == 50
    assert all(i % 7 == 0 and np.isfinite(s) for i, s in got)
