"""backscroll: a permanent, searchable record of coding agents' sessions.

The library API (importing it is cheap: the search stack loads on the first call)::

    from backscroll import Backscroll
    with Backscroll(home="~/.local/share/backscroll") as bs:
        bs.index()                                   # read new session lines
        result = bs.search("job queue decision")     # -> SearchResult
        for hit in result.results:
            print(hit.rank, hit.snippet)

The module-level functions (``backscroll.search``, ``index``, ``embed``, ``show``, ``sessions``
(alias ``list_sessions``), ``count_sessions``, ``files``, ``resume``, ``status``, ``stats``, ``rebuild``) open a
``Backscroll`` for one call. Reads do not read new session lines unless asked (``sync=True``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from backscroll.archive import Backscroll, IndexOutcome
    from backscroll.errors import BackscrollError
    from backscroll.integrations.resume import Resumption
    from backscroll.request import SearchRequest
    from backscroll.status_types import StatusReport
    from backscroll.touches import FileTouches
    from backscroll.types import (
        Filters,
        Hit,
        RepeatedSearch,
        SearchResult,
        SessionHits,
        SessionSummary,
        SessionView,
    )

__all__ = [
    "Backscroll", "search", "index", "embed", "show", "sessions", "list_sessions", "count_sessions", "files", "resume",
    "status", "stats", "rebuild",
    "Hit", "SearchResult", "Filters", "RepeatedSearch", "SessionHits", "SessionSummary", "SessionView", "StatusReport",
    "IndexOutcome", "BackscrollError", "FileTouches", "Resumption", "SearchRequest",
]

_TYPES = ("Hit", "SearchResult", "Filters", "RepeatedSearch", "SessionHits", "SessionSummary", "SessionView")
_HOMES = {"Backscroll": "archive", "IndexOutcome": "archive", "StatusReport": "status_types",
          "BackscrollError": "errors", "FileTouches": "touches", "Resumption": "integrations.resume",
          "SearchRequest": "request", **dict.fromkeys(_TYPES, "types")}


def _open(home, config) -> Backscroll:
    from backscroll.archive import Backscroll

    return Backscroll(home=home, config=config)


def search(query: str | SearchRequest, *, home=None, config=None, **options: Any) -> SearchResult:
    """``Backscroll(home, config).search(query, **options)``: no sync unless ``sync=True``."""
    with _open(home, config) as bs:
        return bs.search(query, **options)


def index(*, home=None, config=None, **options: Any) -> IndexOutcome:
    """``Backscroll(home, config).index(**options)``: read new session lines, update the indexes."""
    with _open(home, config) as bs:
        return bs.index(**options)


def embed(*, home=None, config=None, **options: Any) -> tuple[int, float]:
    """``Backscroll(home, config).embed(**options)``: embed what has no vector yet."""
    with _open(home, config) as bs:
        return bs.embed(**options)


def show(ident: str, *, home=None, config=None, **options: Any) -> SessionView:
    """``Backscroll(home, config).show(ident, **options)``: a record in context, or a session."""
    with _open(home, config) as bs:
        return bs.show(ident, **options)


def sessions(*, home=None, config=None, **options: Any) -> list[SessionSummary]:
    """``Backscroll(home, config).sessions(**options)``: sessions, newest first."""
    with _open(home, config) as bs:
        return bs.sessions(**options)


list_sessions = sessions


def count_sessions(*, home=None, config=None, **options: Any) -> int:
    """``Backscroll(home, config).count_sessions(**options)``: how many sessions ``sessions`` pages through."""
    with _open(home, config) as bs:
        return bs.count_sessions(**options)


def files(path: str, *, home=None, config=None, **options: Any) -> list[FileTouches]:
    """``Backscroll(home, config).files(path, **options)``: the sessions whose tool calls touched a file."""
    with _open(home, config) as bs:
        return bs.files(path, **options)


def resume(ident: str, *, home=None, config=None, **options: Any) -> Resumption:
    """``Backscroll(home, config).resume(ident, **options)``: how to go back into a session in its own agent."""
    with _open(home, config) as bs:
        return bs.resume(ident, **options)


def status(*, home=None, config=None, **options: Any) -> StatusReport:
    """``Backscroll(home, config).status(**options)``: what is indexed, from where, what was skipped."""
    with _open(home, config) as bs:
        return bs.status(**options)


def stats(*, home=None, config=None, **options: Any) -> dict[str, list[tuple[str | None, int, int]]]:
    """``Backscroll(home, config).stats(**options)``: sessions and records per agent, project and month."""
    with _open(home, config) as bs:
        return bs.stats(**options)


def rebuild(*, home=None, config=None, **options: Any) -> int:
    """``Backscroll(home, config).rebuild(**options)``: recreate the lexical index and the record counts from the
    store (``counts=True``: the counts alone)."""
    with _open(home, config) as bs:
        return bs.rebuild(**options)


def __getattr__(name: str) -> Any:
    """The public types, each imported from its module on first use (``import backscroll`` stays cheap)."""
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'backscroll' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"backscroll.{module}"), name)
