"""Session evidence: a record counts some of what its neighbours in the session found. Pure.

The cluster hypothesis, for conversations: the answer usually sits among other records about the
question (the question asked, the follow-up, the tool output it came from), while a record that
matches by chance stands alone. So each candidate gains ``weight`` times the scores of the ``count``
strongest of its *neighbours*: the other candidates of its own session within a few records of it
in the session's order (``candidates.fetch_neighbours``: by time, so records of other sessions
indexed in between, or a record re-read later, do not move it away).

The bounds keep it from turning into a session ranking: only near neighbours count (a long session
that touches the words here and there gains nothing from that), only a few of them (a busy stretch
gains no more than two good neighbours give), and near-duplicates are collapsed before (a message
copied twice does not support itself). Each result keeps its own evidence beside the new score
(``Fused.own``): echoes, which get no support, are weighed against that. Hybrid search only:
``--mode lexical`` and ``--mode semantic`` rank one kind of evidence alone.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from backscroll.retrieval.fusion import Fused


def with_session_evidence(fused: list[Fused], neighbours: Mapping[int, Collection[int]], *, weight: float,
                          count: int) -> list[Fused]:
    """``fused`` re-scored with the support of each record's neighbours and re-sorted (ties keep their order).

    A record's bonus is ``weight`` times the sum of the ``count`` best scores among its ``neighbours``
    that are in ``fused``; a record without neighbours stands alone.
    """
    if weight <= 0 or count <= 0:
        return fused
    score = {f.id: f.score for f in fused}

    def support(f: Fused) -> float:
        near = sorted((score[n] for n in neighbours.get(f.id, ()) if n in score and n != f.id), reverse=True)
        return sum(near[:count])

    scored = [(f.score + weight * support(f), n, f) for n, f in enumerate(fused)]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [replace(f, score=s, own=f.evidence) for s, _n, f in scored]


def neighbours_by_place(places: Mapping[int, tuple[object, int]], reach: int) -> dict[int, set[int]]:
    """The neighbours of each record given its session and its place there (``(session, n)``): the others of its
    session at most ``reach`` places away (no more than ``reach - 1`` records between them)."""
    by_session: dict[object, list[tuple[int, int]]] = {}
    for i, (session, n) in places.items():
        by_session.setdefault(session, []).append((n, i))
    near: dict[int, set[int]] = {}
    for members in by_session.values():
        members.sort()
        for k, (na, a) in enumerate(members):
            for nb, b in members[k + 1:]:
                if nb - na > reach:
                    break
                near.setdefault(a, set()).add(b)
                near.setdefault(b, set()).add(a)
    return near
