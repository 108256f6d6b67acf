"""Sessions as the unit people remember: a few hits per session in a list, and the list by session. Pure.

"Which session was it?" needs the runner-up session in sight, so in a result list a session's hits
beyond its first ``PER_SESSION`` count half their score (another session's good hit comes first), and
``--by-session`` lists distinct sessions, each with its best hits.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

from backscroll.types import Hit, SessionHits

PER_SESSION = 3  # hits of one session before the other sessions' come
BEYOND = 0.5  # what the score of a hit beyond those counts

T = TypeVar("T")


def few_per_session(items: Sequence[T], session_of: Callable[[T], Hashable], score_of: Callable[[T], float],
                    most: int = PER_SESSION, beyond: float = BEYOND) -> list[T]:
    """``items`` re-sorted with each hit beyond the ``most``-th of its session counting ``beyond`` of its
    score: a list of ten shows another session's good hit before a fourth hit of the first one, but not
    a poor one (ties keep their order)."""
    seen: dict[Hashable, int] = {}
    keyed = []
    for n, item in enumerate(items):
        key = session_of(item)
        seen[key] = seen.get(key, 0) + 1
        keyed.append((-(score_of(item) * (beyond if seen[key] > most else 1.0)), n, item))
    return [item for _s, _n, item in sorted(keyed, key=lambda x: (x[0], x[1]))]


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
