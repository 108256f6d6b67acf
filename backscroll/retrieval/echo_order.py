"""Where query echoes go when a search asks for them: among the results by their evidence, never two in a
row while results remain, first only when no result comes close. Pure.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.retrieval.fusion import Fused
from backscroll.retrieval.ranking import RANKING
from backscroll.types import Hit


def interleave(main: list[Fused], echoes: list[Fused]) -> list[Fused]:
    """Echoes among the results, by their evidence (at ``echo_weight``): never two in a row while results
    remain, so a pile of earlier searches that all quote the query cannot crowd out the original rows, and
    an echo that holds one common word stays down; first only when no result has comparable evidence. An
    echo is weighed against a result's own evidence (``Fused.evidence``), not the support its neighbours
    lend it. A score is capped by the one above it, so scores still fall with the rank."""
    if not echoes:
        return main
    rest = [replace(e, score=RANKING.echo_weight * e.score) for e in echoes]
    out: list[Fused] = []
    i = j = 0
    last_was_echo = False
    while i < len(main) or j < len(rest):
        last_was_echo = j < len(rest) and (i >= len(main) or (not last_was_echo and rest[j].score > main[i].evidence))
        if last_was_echo:
            f, j = rest[j], j + 1
        else:
            f, i = main[i], i + 1
        out.append(replace(f, score=min(f.score, out[-1].score)) if out else f)
    return out


def apart(hits: list[Hit]) -> list[Hit]:
    """``hits`` in order, but an echo right after an echo waits behind the next result (``interleave``'s rule)."""
    out: list[Hit] = []
    waiting: list[Hit] = []
    for h in hits:
        if h.is_echo and (waiting or (out and out[-1].is_echo)):
            waiting.append(h)
            continue
        out.append(h)
        if not h.is_echo and waiting:
            out.append(waiting.pop(0))
    return out + waiting
