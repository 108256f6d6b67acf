"""Reciprocal Rank Fusion over named, weighted ranked lists. Pure.

Each list is ranked ids, or ``(id, quality)`` pairs where quality in [0, 1] scales that entry's
contribution (a lexical hit that matches only part of the query counts for part).
"""

from __future__ import annotations

from dataclasses import dataclass

RRF_K = 60

Ranked = list  # list[int] | list[tuple[int, float]]


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    lists: tuple[str, ...]  # names of the lists that found it, best contribution first


def _entries(items: Ranked):
    for item in items:
        if isinstance(item, tuple):
            yield item[0], item[1]
        else:
            yield item, 1.0


def rrf(lists: dict[str, Ranked], weights: dict[str, float] | None = None, k: int = RRF_K) -> list[Fused]:
    """Fuse ranked lists: score = sum over lists of weight * quality / (k + rank), rank from 1.

    Ties keep the order of first appearance (lists in the order given), so results are deterministic.
    """
    weights = weights or {}
    scores: dict[int, float] = {}
    found: dict[int, list[tuple[float, str]]] = {}
    for name, items in lists.items():
        w = weights.get(name, 1.0)
        seen: set[int] = set()
        for rank, (rid, quality) in enumerate(_entries(items), start=1):
            if rid in seen:
                continue
            seen.add(rid)
            contribution = w * quality / (k + rank)
            scores[rid] = scores.get(rid, 0.0) + contribution
            found.setdefault(rid, []).append((contribution, name))
    order = {rid: i for i, rid in enumerate(scores)}
    ranked = sorted(scores, key=lambda rid: (-scores[rid], order[rid]))
    return [Fused(rid, scores[rid], tuple(n for _c, n in sorted(found[rid], key=lambda x: -x[0]))) for rid in ranked]
