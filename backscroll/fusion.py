"""Reciprocal Rank Fusion over named, weighted ranked lists. Pure."""

from __future__ import annotations

from dataclasses import dataclass

RRF_K = 60


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    lists: tuple[str, ...]  # names of the lists that found it, best contribution first


def rrf(lists: dict[str, list[int]], weights: dict[str, float] | None = None, k: int = RRF_K) -> list[Fused]:
    """Fuse ranked id lists: score = sum over lists of weight / (k + rank), rank starting at 1.

    Ties keep the order of first appearance (lists in the order given), so results are deterministic.
    """
    weights = weights or {}
    scores: dict[int, float] = {}
    found: dict[int, list[tuple[float, str]]] = {}
    for name, ids in lists.items():
        w = weights.get(name, 1.0)
        seen: set[int] = set()
        for rank, rid in enumerate(ids, start=1):
            if rid in seen:
                continue
            seen.add(rid)
            contribution = w / (k + rank)
            scores[rid] = scores.get(rid, 0.0) + contribution
            found.setdefault(rid, []).append((contribution, name))
    order = {rid: i for i, rid in enumerate(scores)}
    ranked = sorted(scores, key=lambda rid: (-scores[rid], order[rid]))
    return [Fused(rid, scores[rid], tuple(n for _c, n in sorted(found[rid], key=lambda x: -x[0]))) for rid in ranked]
