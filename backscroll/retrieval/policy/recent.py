"""Searches a long-lived handle answered lately (the MCP server's): when the calling session cannot be
told, the repeat rule (``repeat``) cannot withhold anything, so the search runs, and if the same search
was answered within ``SAME_SEARCH_WINDOW`` a note says so. Only hashes of the searches are kept, at most
``RECENT_MAX`` of them, none older than the window.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace

from backscroll.types import SearchResult

SAME_SEARCH_WINDOW = 600.0  # seconds an identical search is remembered when its caller cannot be told
RECENT_MAX = 256


class RecentSearches:
    """Hashes of the searches answered lately, bounded by count and age."""

    def __init__(self, max_entries: int = RECENT_MAX, window: float = SAME_SEARCH_WINDOW):
        self.max_entries = max_entries
        self.window = window
        self._seen: OrderedDict[bytes, float] = OrderedDict()

    @staticmethod
    def digest(key: object) -> bytes:
        return hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).digest()

    def seconds_since(self, key: object) -> float | None:
        """How long ago the same search was answered, within the window, else None."""
        self._expire()
        t = self._seen.get(self.digest(key))
        return None if t is None else time.monotonic() - t

    def remember(self, key: object) -> None:
        d = self.digest(key)
        self._seen.pop(d, None)
        self._seen[d] = time.monotonic()
        self._expire()

    def _expire(self) -> None:
        cutoff = time.monotonic() - self.window
        while self._seen and (len(self._seen) > self.max_entries or next(iter(self._seen.values())) < cutoff):
            self._seen.popitem(last=False)

    def __len__(self) -> int:
        return len(self._seen)


def same_search_note(seconds: float) -> str:
    return (f"[same search again] this server answered the same search {seconds:.0f} s ago. The calling session "
            "could not be identified, so it ran again; if those results are above, use them instead of searching "
            "again.")


def noted(recent: RecentSearches, key: object, result: SearchResult, rerun: bool,
          caller_known: Callable[[], bool]) -> SearchResult:
    """``result``, with the note when the same search was answered lately and its caller cannot be told."""
    if result.repeated is None and not rerun:
        seconds = recent.seconds_since(key)
        if seconds is not None and not caller_known():
            result = replace(result, notes=(same_search_note(seconds), *result.notes))
    recent.remember(key)
    return result
