"""backscroll: a permanent, searchable record of coding agents' sessions.

Library API (imported lazily so that ``import backscroll`` stays cheap)::

    import backscroll
    backscroll.index()                                  # read new session lines
    result = backscroll.search("job queue decision")   # -> SearchResult
    for hit in result.results: print(hit.rank, hit.snippet)
"""

from __future__ import annotations

__all__ = ["index", "search", "status", "rebuild", "Hit", "SearchResult", "Filters", "BackscrollError"]


def __getattr__(name: str):
    if name in ("index", "search", "status", "rebuild"):
        from backscroll import api

        return getattr(api, name)
    if name in ("Hit", "SearchResult", "Filters"):
        from backscroll import types as records

        return getattr(records, name)
    if name == "BackscrollError":
        from backscroll.errors import BackscrollError

        return BackscrollError
    raise AttributeError(name)
