"""Sessions as the unit people remember: ``--by-session`` lists distinct sessions, each with its best hits. Pure.

"Which session was it?" needs the runner-up session in sight: in a plain list one session's records
can fill the top ten. (Letting a session's fourth hit count half in plain lists too cost four queries
the check set must keep in its top 5, and gained one on the agent-session benchmark: docs/ranking.md.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from backscroll.types import Hit, SessionHits

PER_SESSION = 3  # the hits shown of each session

def group(hits: Sequence[Hit], heads: Mapping[str, tuple[str | None, str | None]], sessions: int,
          most: int = PER_SESSION) -> tuple[SessionHits, ...]:
    """The first ``sessions`` distinct sessions of ``hits`` (rank order), each with up to ``most`` of its
    hits; ``heads``: each session's (title, started_at)."""
    order: dict[str, list[Hit]] = {}
    for h in hits:
        if h.session_id in order or len(order) < sessions:
            order.setdefault(h.session_id, []).append(h)
    out = []
    for sid, items in order.items():
        title, started = heads.get(sid, (None, None))
        first = items[0]
        out.append(SessionHits(sid, first.agent, first.project, title, started, tuple(items[:most])))
    return tuple(out)


def numbered(hits: Sequence[Hit], heads: Mapping[str, tuple[str | None, str | None]], sessions: int
             ) -> tuple[list[Hit], tuple[SessionHits, ...]]:
    """``group``'s sessions and the hits they hold, ranked 1, 2, ... in session order (the results list)."""
    groups = group(hits, heads, sessions)
    rank = iter(range(1, len(hits) + 1))
    groups = tuple(replace(g, hits=tuple(replace(h, rank=next(rank)) for h in g.hits)) for g in groups)
    return [h for g in groups for h in g.hits], groups
