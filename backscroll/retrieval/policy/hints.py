"""Filters as hints: what ``role``, ``author``, ``agent`` and ``content_type`` left out comes back.

Unless the search is strict, a search with one of these filters also runs without them; up to
``ALSO_MATCHING`` results the filtered search did not return (nor repeat the text of, nor held back as weak), and
that the filters do not hold, are kept in ``also_matching``, and ``dropped_filters`` names those filters.

Project, session and dates filter: what they leave is the scope, judged on its own. When nothing in it
answers, the same search outside it may: its first results come as ``also_matching`` (the scope's answer
stays "nothing strong"), with a note.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from backscroll.types import Filters, Hit, SearchResult

ALSO_MATCHING = 3  # extras a hinted filter may add
HINT_FILTERS = ("role", "author", "agent", "content_type")
SCOPE_FILTERS = ("project", "session", "file", "since", "until")


def hinted(filters: Filters) -> tuple[str, ...]:
    """The hint filters that ``filters`` sets."""
    return tuple(name for name in HINT_FILTERS if getattr(filters, name))


def also_matching(result: SearchResult, filters: Filters, run: Callable[[Filters], SearchResult],
                  *, strict: bool) -> SearchResult:
    """``result`` with the extras a search without the hint filters finds (``run`` ranks with given filters)."""
    names = hinted(filters)
    if not names or strict:
        return result
    wide = run(replace(filters, role=None, author=None, agent=None, content_type=None))
    shown = {h.rowid for h in (*result.results, *result.weak_matches)}  # (the hinted scope's own, judged weak too)
    keys = {(h.session_id, h.text) for h in result.results}
    extras = [h for h in wide.results if h.rowid not in shown and (h.session_id, h.text) not in keys
              and not all(getattr(h, n) == getattr(filters, n) for n in names)][:ALSO_MATCHING]
    if not extras:
        return result
    renumbered = tuple(replace(h, rank=i + 1) for i, h in enumerate(extras))
    named = ", ".join(f"--{n.replace('_', '-')} {getattr(filters, n)}" for n in names)
    note = () if result.results else (  # (empty results are not "nothing found" when the hint held the answers back)
        f"nothing strong with {named}; {_follow(len(extras), 'without it' if len(names) == 1 else 'without them')} "
        "in also_matching",)
    return replace(result, also_matching=renumbered, dropped_filters=(*result.dropped_filters, *names),
                   notes=(*result.notes, *note))


def outside_scope(result: SearchResult, filters: Filters, run: Callable[[Filters], SearchResult],
                  *, strict: bool) -> SearchResult:
    """``result`` with what the same search finds outside the scope, when nothing in the scope answers."""
    names = tuple(name for name in SCOPE_FILTERS if getattr(filters, name))
    if not names or strict or result.results or result.also_matching or result.repeated is not None:
        return result
    wide = run(replace(filters, project=None, session=None, file=None, sessions=None, since=None, until=None))
    if not wide.results:
        return result
    inside = {h.rowid for h in result.weak_matches}  # (the scope's own, already judged weak)
    outside = [h for h in wide.results if h.rowid not in inside and not in_scope(h, filters)][:ALSO_MATCHING]
    if not outside:
        return result
    extras = tuple(replace(h, rank=i + 1) for i, h in enumerate(outside))
    named = ", ".join("--" + n for n in names)
    note = (f"nothing strong where {named} look{'s' if len(names) == 1 else ''}; {_follow(len(extras), 'outside')} "
            "in also_matching")
    return replace(result, also_matching=extras, dropped_filters=(*result.dropped_filters, *names),
                   notes=(*result.notes, note))


def _follow(n: int, where: str) -> str:
    return f"1 match {where} follows" if n == 1 else f"{n} matches {where} follow"


def in_scope(hit: Hit, scope: Filters) -> bool:
    """Whether ``hit`` lies in what the scope filters leave (a wide search's hit there is no match outside,
    though the scope's judgement found it weak)."""
    at = (hit.timestamp or "")[:19]  # (to the second: the stores write their times alike that far)
    return ((scope.project is None or hit.project == scope.project)
            and (scope.session is None or hit.session_id.startswith(scope.session))  # (its subagents too)
            and (scope.sessions is None or hit.session_id in scope.sessions)
            and (scope.since is None or bool(at) and at >= scope.since[:19])
            and (scope.until is None or bool(at) and at < scope.until[:19]))  # (no time: no date filter holds it)
