"""Reading what was found: one record with its context, a whole session, and the list of sessions.

Works on an open store; ``Backscroll.show`` and ``Backscroll.sessions`` open it.
"""

from __future__ import annotations

import functools
import os
import posixpath

from backscroll.errors import MAX_COUNT, NotFoundError, UsageError
from backscroll.ingest.redact_again import shown_rows
from backscroll.sanitize import shorten
from backscroll.session_ids import (
    FIND_IDS_HINT,
    check_id,
    ensure_not_a_record_too,
    record_named,
    resolve_session,
    session_named,
    session_row,
)
from backscroll.store.db import Store
from backscroll.touches import FileTouches
from backscroll.types import Hit, SessionSummary, SessionView, session_title


def check_count(option: str, value: int | None, minimum: int) -> None:
    """A usage error for a count outside ``minimum..MAX_COUNT`` (negative, or too big for SQLite)."""
    if value is not None and not (isinstance(value, int) and minimum <= value <= MAX_COUNT):
        raise UsageError(f"{option} must be a whole number from {minimum} to {MAX_COUNT:,}, not {value!r}",
                         hint=f"e.g. {option} 20")


FILE_SESSIONS = 500  # --file: the latest sessions that touched the file, searched
CALLS_READ = 20_000  # the newest calls naming a file that ``files`` reads (a file touched more often: the newest)


def file_sessions(store: Store, path: str, *, agent: str | None = None, project: str | None = None,
                  since: str | None = None, until: str | None = None, limit: int = 20,
                  offset: int = 0) -> list[FileTouches]:
    """The sessions whose tool calls touched ``path`` (``touches``), the latest touched first."""
    from backscroll import touches

    check_count("--limit", limit, 1)
    check_count("--offset", offset, 0)
    name = posixpath.basename(posixpath.normpath(path))
    if not any(ch.isalnum() for ch in name):  # (``*``, ``_``, ``?``: a shell's or code's tokens, never a file)
        raise UsageError(f"{path!r} names no file", hint="e.g. backscroll files src/app/models.py")
    found: dict[str, list] = {}
    asked = _spellings(path) if path.startswith("/") else (path,)
    linked = functools.lru_cache(maxsize=1024)(_through_link)
    for row in store.calls_naming(name, agent, project, since, until, CALLS_READ):
        forms = (*asked, *linked(row["cwd"], asked))
        named = next(filter(None, (touches.touched(row["text"], row["cwd"], p) for p in forms)), None)
        if named is not None:
            found.setdefault(row["session_id"], []).append((row, named))
    out = []
    for session_id, calls in list(found.items())[offset:offset + limit]:
        s = session_row(store, session_id)
        actions: dict[str, int] = {}
        for c, _ in calls:
            a = touches.action(c["tool_name"], c["text"])
            actions[a] = actions.get(a, 0) + 1
        newest = calls[0][0]
        paths = list(dict.fromkeys(p for _, p in calls))
        out.append(FileTouches(session_id, s.get("agent"), s.get("project"), s.get("cwd"), s.get("title"),
                               newest["timestamp"], actions, newest["record_id"],
                               tuple(shorten(p) for p in paths[:touches.FILES_KEPT]),
                               max(0, len(paths) - touches.FILES_KEPT)))
    return out


def _spellings(path: str) -> tuple[str, ...]:
    """An absolute path as asked, and as this machine resolves its symlinks (a session's cwd is the physical
    path its agent's getcwd gave: ``files ~/link/app.py`` is ``/srv/app/app.py`` there)."""
    try:
        return tuple(dict.fromkeys((posixpath.normpath(path), os.path.realpath(path))))
    except (ValueError, OSError):  # (a NUL in it: no file on this machine)
        return (posixpath.normpath(path),)


def _through_link(cwd: str | None, asked: tuple[str, ...]) -> tuple[str, ...]:
    """The absolute paths ``asked`` as a session whose cwd goes through a symlink spells them (``~/link/app.py``
    for ``/srv/app/app.py``)."""
    try:
        real = os.path.realpath(cwd) if cwd and cwd.startswith("/") else cwd
    except (ValueError, OSError):  # (a log's cwd holding a NUL: no folder on this machine)
        return ()
    if not cwd or not real or real == cwd:
        return ()
    base = real.rstrip("/") + "/"
    return tuple(cwd.rstrip("/") + "/" + p[len(base):] for p in asked if p.startswith(base))


def resumable(store: Store, ident: str) -> dict:
    """The session a hit or a session id names, as ``resume`` needs it; a subagent's parent (``subagent``: the
    subagent's id), since a subagent does not resume alone."""
    check_id(ident)
    session_id = session_named(store, ident)
    row = session_row(store, session_id)
    parent = row.get("parent_session_id")
    if row.get("is_sidechain") and parent and store.has_session(parent):
        return {**session_row(store, parent), "subagent": session_id}
    if parent and session_id.startswith(f"{parent}~") and store.has_session(parent):
        return {**session_row(store, parent), "earlier_part": session_id}  # (Kimi's context before a compaction)
    return row


def known_list(values: list[str], n: int = 12) -> str:
    """The first ``n`` of ``values``, and how many more there are."""
    if not values:
        return "(none)"
    more = len(values) - n
    return ", ".join(values[:n]) + (f" and {more} more (`backscroll status --json` lists them all)" if more > 0 else "")


def resolve_project(store: Store, name: str) -> str:
    """The indexed project ``name`` names (``project_named``)."""
    return project_named(store.project_names(), name)


def project_named(known: list[str], name: str) -> str:
    """The project of ``known`` (the local store's or the team archive's) that ``name`` names: exactly,
    case-insensitively, as a unique prefix or a unique part, or as a path (``.``, ``~/src/app``, a worktree):
    the project of the repository there."""
    if name in known:
        return name
    named = None
    if "/" in name or name in (".", "..", "~"):
        from backscroll.ingest.projects import project

        named = project(os.path.abspath(os.path.expanduser(name)))
        if named is not None and named in known:
            return named
    low = name.lower()
    for candidates in ([p for p in known if p.lower() == low], [p for p in known if p.lower().startswith(low)],
                       [p for p in known if low in p.lower()]):
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            raise UsageError(f"--project {name!r} matches more than one project: {known_list(sorted(candidates))}",
                             hint="give more of the name")
    where = f" (the project at {name} is {named!r})" if named else ""
    raise NotFoundError(f"no project {shorten(name, 80)!r} is indexed{where}", hint=f"known: {known_list(known)}")


def check_agent_indexed(store: Store, agent: str) -> None:
    """An error when no session of ``agent`` (a registered agent) is indexed: the filter could only return nothing."""
    if store.has_agent(agent):
        return
    indexed = store.agent_names()
    raise NotFoundError(f"no {agent} sessions are indexed", hint=f"indexed agents: {known_list(indexed)}")


def resolve_filters(store: Store, filters):
    """``filters`` with --session and --project resolved to what is indexed; errors for values naming nothing."""
    from dataclasses import replace

    if filters.session:
        filters = replace(filters, session=session_named(store, filters.session))
    if filters.project:
        filters = replace(filters, project=resolve_project(store, filters.project))
    if filters.agent:
        check_agent_indexed(store, filters.agent)
    if filters.file:
        target = os.path.abspath(filters.file) if filters.file.startswith(("./", "../")) else filters.file
        touched = file_sessions(store, target, limit=FILE_SESSIONS)
        if not touched:
            raise NotFoundError(f"no session's tool calls touched {filters.file}",
                                hint="`backscroll files PATH` lists the sessions that did; a relative path "
                                     "matches any file ending with it")
        filters = replace(filters, file=target, sessions=tuple(t.session_id for t in touched))
    return filters


def _hits(store: Store, rows, start_rank: int, max_chars: int = 0) -> tuple[Hit, ...]:
    return tuple(Hit.from_row(r, rank=start_rank + i, max_chars=max_chars)
                 for i, r in enumerate(shown_rows(store, rows)))


def show(store: Store, ident: str, *, context: int = 3, limit: int | None = None, offset: int = 0,
         max_chars: int = 0) -> SessionView:
    """A record with ``context`` records either side, or (given a session id) the session's records;
    ``max_chars`` cuts each record's text (0: whole)."""
    check_count("--context", context, 0)
    check_count("--limit", limit, 1)
    check_count("--offset", offset, 0)
    ident = ident.strip()
    place = store.record_place(ident)
    session_id = resolve_session(store, ident) if place is None else None
    ensure_not_a_record_too(store, ident, session_id)
    if place is None and session_id is None:
        ident = record_named(store, ident) or ident
        place = store.record_place(ident)
    if place is None and session_id is None:  # (an id as a log wrote it, no plain word: stored as a digest since v26)
        from backscroll.ingest.rows import stored_id

        if (stored := stored_id(ident)) != ident:
            ident, place = stored, store.record_place(stored)
    if place is not None:
        rid, around = place
        rows, first = store.records_around(around, rid, max(context, 0))
        return SessionView(session_row(store, around), _hits(store, rows, first + 1, max_chars), ident,
                           store.session_size(around), first)
    if session_id is None:
        raise NotFoundError(f"no record or session with id {ident!r}", hint=FIND_IDS_HINT)
    rows = store.session_records(session_id, limit, max(offset, 0))
    return SessionView(session_row(store, session_id), _hits(store, rows, offset + 1, max_chars), None,
                       store.session_size(session_id), offset)


def grep_words(grep: str | None) -> tuple[str, ...]:
    """The words of ``list --grep`` (each must be in a session's title or first prompt)."""
    # (any letter's case is folded, "ärzte" holds "ÄRZTE"; a NUL would end the pattern there: a space)
    return tuple(dict.fromkeys((grep or "").replace("\x00", " ").split()))


def list_sessions(store: Store, *, agent: str | None = None, project: str | None = None, since: str | None = None,
                  until: str | None = None, limit: int = 20, offset: int = 0, grep: str | None = None,
                  everything: bool = False) -> list[SessionSummary]:
    """Sessions, newest first, with a one-line title, record, echo and subagent counts (``everything``: also
    those of fewer than two records, and subagents on their own lines)."""
    check_count("--limit", limit, 1)
    check_count("--offset", offset, 0)
    out = []
    for row in store.session_list(agent, project, since, until, limit, offset, words=grep_words(grep),
                                  everything=everything):
        d = dict(row)
        d["title"] = session_title(d["title"], d.pop("first_user"))
        d["is_sidechain"] = bool(d["is_sidechain"])
        out.append(SessionSummary(**d))
    return out


def count_sessions(store: Store, *, agent: str | None = None, project: str | None = None,
                   since: str | None = None, until: str | None = None, grep: str | None = None,
                   everything: bool = False) -> int:
    """How many sessions ``list_sessions`` pages through."""
    return store.session_count(agent, project, since, until, words=grep_words(grep), everything=everything)
