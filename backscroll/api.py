"""The calls the CLI, the MCP server, the pytest plugin and the eval make, with the CLI's ways.

Thin over ``Backscroll`` (``archive.py``): each call opens the archive named by ``cfg`` (or
``home`` and ``sources``), does one thing and closes it. Unlike the library functions of
``backscroll`` (``backscroll.search`` & co.), reads read new session lines first unless
``sync=False``, as the CLI does, and hints are worded for the command line (``cli/hints.py``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from backscroll.access import (  # noqa: F401  (the names tests and tools reach through api)
    EMBED_NOTICE_MIN,
    INDEX_LOCK_WAIT,
    config_for,
    embed_pending,
    prepare,
)
from backscroll.archive import Backscroll, IndexOutcome
from backscroll.config import Config
from backscroll.errors import BackscrollError
from backscroll.ingest.report import Progress
from backscroll.types import Notify, SearchResult, SessionSummary, SessionView, StatusReport, quiet

F = TypeVar("F", bound=Callable[..., Any])


def _cli_worded(fn: F) -> F:
    """Errors leave with their hints in the CLI's words."""

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            return fn(*args, **kw)
        except BackscrollError as exc:
            from backscroll.cli.hints import worded

            worded(exc)
            raise

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature F promises


def _open(cfg: Config | None, home, sources=()) -> Backscroll:
    return Backscroll(config=config_for(cfg, home, sources))


@_cli_worded
def index(*, cfg: Config | None = None, home=None, sources=(), embed: bool | None = None,
          progress: Progress | None = None, lexical_progress=None, embed_progress=None,
          wait: float | None = None, notify: Notify = quiet) -> IndexOutcome:
    """``Backscroll.index``: read every new session line, bring the derived indexes up to date."""
    with _open(cfg, home, sources) as bs:
        return bs.index(embed=embed, progress=progress, lexical_progress=lexical_progress,
                        embed_progress=embed_progress, wait=wait, notify=notify)


@_cli_worded
def embed(*, cfg: Config | None = None, home=None, progress=None, wait: float | None = None,
          notify: Notify = quiet) -> tuple[int, float]:
    """``Backscroll.embed``: embed everything in the store that has no vector yet."""
    with _open(cfg, home) as bs:
        return bs.embed(progress=progress, wait=wait, notify=notify)


@_cli_worded
def rebuild(*, cfg: Config | None = None, home=None, notify: Notify = quiet, lexical_progress=None) -> int:
    """``Backscroll.rebuild``: recreate the lexical index from the store alone."""
    with _open(cfg, home) as bs:
        return bs.rebuild(notify=notify, lexical_progress=lexical_progress)


@_cli_worded
def search(query: str, *, limit: int = 10, role: str | None = None, author: str | None = None,
           agent: str | None = None, content_type: str | None = None, project: str | None = None,
           session: str | None = None, since: str | None = None, until: str | None = None,
           include_echoes: bool = False, mode: str = "hybrid", sync: bool = True, max_chars: int = 2000,
           strict: bool = False, rerun: bool = False, weak: bool = False, by_session: bool = False,
           caller_session: str | None = None,
           caller_argv: list[str] | None = None, cfg: Config | None = None, home=None, sources=(),
           notify: Notify = quiet, now: str | datetime | None = None, progress: Progress | None = None,
           lexical_progress=None) -> SearchResult:
    """``Backscroll.search``, syncing first unless ``sync=False``; a repeat's note says ``--rerun``."""
    from backscroll.cli.hints import RERUN

    with _open(cfg, home, sources) as bs:
        return bs.search(query, limit=limit, role=role, author=author, agent=agent, content_type=content_type,
                         project=project, session=session, since=since, until=until, include_echoes=include_echoes,
                         mode=mode, sync=sync, max_chars=max_chars, strict=strict, rerun=rerun, weak=weak,
                         by_session=by_session, caller_session=caller_session, caller_argv=caller_argv, now=now,
                         notify=notify, progress=progress, lexical_progress=lexical_progress, rerun_hint=RERUN)


@_cli_worded
def show(ident: str, *, context: int = 3, limit: int | None = None, offset: int = 0, sync: bool = True,
         cfg: Config | None = None, home=None, notify: Notify = quiet) -> SessionView:
    """``Backscroll.show``: a record with its context, or a whole session."""
    with _open(cfg, home) as bs:
        return bs.show(ident, context=context, limit=limit, offset=offset, sync=sync, notify=notify)


@_cli_worded
def list_sessions(*, agent: str | None = None, project: str | None = None, since: str | None = None,
                  limit: int = 20, offset: int = 0, sync: bool = True, cfg: Config | None = None, home=None,
                  notify: Notify = quiet) -> list[SessionSummary]:
    """``Backscroll.sessions``: sessions, newest first."""
    with _open(cfg, home) as bs:
        return bs.sessions(agent=agent, project=project, since=since, limit=limit, offset=offset, sync=sync,
                           notify=notify)


@_cli_worded
def count_sessions(*, agent: str | None = None, project: str | None = None, since: str | None = None,
                   cfg: Config | None = None, home=None) -> int:
    """How many sessions ``list_sessions`` could page through (no sync: it just ran)."""
    with _open(cfg, home) as bs:
        return bs.count_sessions(agent=agent, project=project, since=since)


@_cli_worded
def status(*, cfg: Config | None = None, home=None, sources=()) -> StatusReport:
    """``Backscroll.status``: what is indexed, from where, and what was skipped."""
    return _open(cfg, home, sources).status()
