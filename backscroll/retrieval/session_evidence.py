"""Session evidence: a record counts some of what the rest of its session found. Pure.

The cluster hypothesis, for conversations: the session that holds the answer usually holds more than
one record about the question (the question asked, the answer, the follow-up), while a record that
matches by chance stands alone in its session. So each candidate gains ``weight`` times the scores of
the ``count`` strongest *other* candidates of its session. Two bounds keep it from turning into a
session ranking: only a few siblings count (a long session with many weak matches gains no more than
one with two good ones), and near-duplicates are collapsed before (a message copied twice does not
support itself). Hybrid search only: ``--mode lexical`` and ``--mode semantic`` rank one kind of
evidence alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from backscroll.retrieval.fusion import Fused


def with_session_evidence(fused: list[Fused], session_of: Mapping[int, str], *, weight: float,
                          count: int) -> list[Fused]:
    """``fused`` re-scored with the support of each record's session and re-sorted (ties keep their order).

    A record's bonus is ``weight`` times the sum of the ``count`` best scores among the other records
    of its session in ``fused``; a record ``session_of`` does not know stands alone.
    """
    if weight <= 0 or count <= 0:
        return fused
    by_session: dict[str, list[float]] = {}
    for f in fused:
        if f.id in session_of:
            by_session.setdefault(session_of[f.id], []).append(f.score)
    for scores in by_session.values():
        scores.sort(reverse=True)

    def support(f: Fused) -> float:
        scores = by_session.get(session_of[f.id], []) if f.id in session_of else []
        others = list(scores)
        if f.score in others:
            others.remove(f.score)  # itself (one copy of its score)
        return sum(others[:count])

    scored = [(f.score + weight * support(f), n, f) for n, f in enumerate(fused)]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [replace(f, score=s) for s, _n, f in scored]
