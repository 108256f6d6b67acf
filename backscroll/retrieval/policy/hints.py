"""Filters as hints: what ``role``, ``author``, ``agent`` and ``content_type`` left out comes back.

Unless the search is strict, a search with one of these filters also runs without them; up to
``ALSO_MATCHING`` results the filtered search did not return (nor repeat the text of) are kept in
``also_matching``, and ``dropped_filters`` names the filters they do not satisfy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from backscroll.types import Filters, SearchResult

ALSO_MATCHING = 3  # extras a hinted filter may add
HINT_FILTERS = ("role", "author", "agent", "content_type")


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
    shown = {h.rowid for h in result.results}
    keys = {(h.session_id, h.text) for h in result.results}
    extras = [h for h in wide.results if h.rowid not in shown and (h.session_id, h.text) not in keys][:ALSO_MATCHING]
    if not extras:
        return result
    renumbered = tuple(replace(h, rank=i + 1) for i, h in enumerate(extras))
    return replace(result, also_matching=renumbered, dropped_filters=(*result.dropped_filters, *names))
