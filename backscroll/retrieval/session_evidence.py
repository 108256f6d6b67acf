"""Session evidence: a record counts some of what its neighbours in the session found. Pure.

The cluster hypothesis, for conversations: the answer usually sits among other records about the
question (the question asked, the follow-up, the tool output it came from), while a record that
matches by chance stands alone. So each candidate gains ``weight`` times the scores of the ``count``
strongest *other* candidates of its own session that lie within ``reach`` records of it (record ids
are consecutive within a session file, so the distance counts records, tool rows included).

The bounds keep it from turning into a session ranking: only near neighbours count (a long session
that touches the words here and there gains nothing from that), only a few of them (a busy stretch
gains no more than two good neighbours give), and near-duplicates are collapsed before (a message
copied twice does not support itself). Each result keeps its own evidence beside the new score
(``Fused.own``): echoes, which get no support, are weighed against that. Hybrid search only:
``--mode lexical`` and ``--mode semantic`` rank one kind of evidence alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from backscroll.retrieval.fusion import Fused


def with_session_evidence(fused: list[Fused], session_of: Mapping[int, str], *, weight: float, count: int,
                          reach: int) -> list[Fused]:
    """``fused`` re-scored with the support of each record's neighbours and re-sorted (ties keep their order).

    A record's bonus is ``weight`` times the sum of the ``count`` best scores among the other records of
    ``fused`` in its session whose id is within ``reach`` of its own; a record ``session_of`` does not
    know stands alone.
    """
    if weight <= 0 or count <= 0 or reach <= 0:
        return fused
    by_session: dict[str, list[Fused]] = {}
    for f in fused:
        if f.id in session_of:
            by_session.setdefault(session_of[f.id], []).append(f)

    def support(f: Fused) -> float:
        if f.id not in session_of:
            return 0.0
        near = sorted((g.score for g in by_session[session_of[f.id]] if g.id != f.id and abs(g.id - f.id) <= reach),
                      reverse=True)
        return sum(near[:count])

    scored = [(f.score + weight * support(f), n, f) for n, f in enumerate(fused)]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [replace(f, score=s, own=f.evidence) for s, _n, f in scored]
