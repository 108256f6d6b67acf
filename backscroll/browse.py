"""Reading what was found: one record with its context, a whole session, and the list of sessions.

Works on an open store; ``Backscroll.show`` and ``Backscroll.sessions`` open it.
"""

from __future__ import annotations

import os

from backscroll.errors import MAX_COUNT, MAX_ID, AmbiguousIdError, NotFoundError, UsageError
from backscroll.ingest.redact_again import shown_rows
from backscroll.store.db import Store
from backscroll.types import Hit, SessionSummary, SessionView

FIND_IDS_HINT = ("`backscroll search WORDS` prints the record id of each hit (`backscroll show <record id>`); "
                 "`backscroll list` prints session ids (the first 6 or more characters of one are enough)")


def check_count(option: str, value: int | None, minimum: int) -> None:
    """A usage error for a count outside ``minimum..MAX_COUNT`` (negative, or too big for SQLite)."""
    if value is not None and not (isinstance(value, int) and minimum <= value <= MAX_COUNT):
        raise UsageError(f"{option} must be a whole number from {minimum} to {MAX_COUNT:,}, not {value!r}",
                         hint=f"e.g. {option} 20")


def _session(store: Store, session_id: str) -> dict:
    row = store.session(session_id)
    if row is not None:
        d = dict(shown_rows(store, [row])[0])
        d.pop("title_rank", None)  # how sure the title is: the store's own bookkeeping
        d["is_sidechain"] = bool(d["is_sidechain"])
        if not d.get("title"):  # as `list` titles it: the first user message
            d["title"] = " ".join((store.first_prompt(session_id) or "").split())[:120] or None
        return d
    return {"session_id": session_id, "agent": None, "project": None, "cwd": None, "title": None,
            "started_at": None, "updated_at": None, "source_path": None, "is_sidechain": False,
            "parent_session_id": None}


MIN_PREFIX = 6  # the fewest characters of a session id accepted as its prefix


def check_id(ident: str) -> None:
    """A usage error for an id longer than any real one (``MAX_ID``)."""
    if len(ident) > MAX_ID:
        raise UsageError(f"an id of {len(ident):,} characters is longer than any record or session id: ids of at "
                         f"most {MAX_ID:,} characters are looked for", hint=FIND_IDS_HINT)


def _like_prefix(ident: str) -> str:
    return ident.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _describe(store: Store, session_ids: list[str]) -> list[str]:
    lines = []
    for sid in session_ids:
        s = _session(store, sid)
        when = (s.get("started_at") or "")[:10]
        title = " ".join((s.get("title") or "").split())[:50]
        cells = (sid, s.get("agent") or "", s.get("project") or "-", when, title)
        lines.append("  " + "  ".join(x for x in cells if x))
    return lines


def resolve_session(store: Store, ident: str, *, required: bool = False) -> str | None:
    """The session ``ident`` names: the whole id, or a unique prefix of at least ``MIN_PREFIX`` characters.

    A Claude subagent's id extends its parent's (``<parent>:agent-…``), so a prefix of the parent
    also starts every subagent id: the parent is chosen when it is one of the candidates and all
    others extend it. Otherwise an ambiguous prefix lists the candidates, as git does. None (or,
    with ``required``, NotFoundError) when nothing matches.
    """
    check_id(ident)
    ident = ident.strip()
    if store.has_session(ident):
        return ident
    if len(ident) < MIN_PREFIX:
        raise UsageError(f"{ident!r} is too short to name a session: give at least {MIN_PREFIX} characters of "
                         "its id (or a whole record id)", hint=FIND_IDS_HINT)
    found = store.sessions_starting(_like_prefix(ident), 21)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        roots = [f for f in found if all(g == f or g.startswith(f) for g in found)]
        if len(roots) == 1 and len(found) <= 20:
            return roots[0]
        more = " (and more)" if len(found) > 20 else ""
        raise AmbiguousIdError(f"{ident!r} is the start of more than one session id{more}; the candidates are:\n"
                               + "\n".join(_describe(store, found[:20])), hint="give more of the id")
    if required:
        raise NotFoundError(f"no session with id {ident!r}", hint=FIND_IDS_HINT)
    return None


def _known(values: list[str], n: int = 12) -> str:
    """The first ``n`` of ``values``, and how many more there are."""
    if not values:
        return "(none)"
    more = len(values) - n
    return ", ".join(values[:n]) + (f" and {more} more (`backscroll status --json` lists them all)" if more > 0 else "")


def resolve_project(store: Store, name: str) -> str:
    """The indexed project ``name`` names: exactly, case-insensitively, as a unique prefix or a unique part,
    or as a path (``.``, ``~/src/app``, a worktree): the project of the repository there."""
    known = store.project_names()
    if name in known:
        return name
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
            raise UsageError(f"--project {name!r} matches more than one project: {_known(sorted(candidates))}",
                             hint="give more of the name")
    raise NotFoundError(f"no project {name!r} is indexed", hint=f"known: {_known(known)}")


def check_agent_indexed(store: Store, agent: str) -> None:
    """An error when no session of ``agent`` (a registered agent) is indexed: the filter could only return nothing."""
    if store.has_agent(agent):
        return
    indexed = store.agent_names()
    raise NotFoundError(f"no {agent} sessions are indexed", hint=f"indexed agents: {_known(indexed)}")


def resolve_filters(store: Store, filters):
    """``filters`` with --session and --project resolved to what is indexed; errors for values naming nothing."""
    from dataclasses import replace

    if filters.session:
        filters = replace(filters, session=resolve_session(store, filters.session, required=True))
    if filters.project:
        filters = replace(filters, project=resolve_project(store, filters.project))
    if filters.agent:
        check_agent_indexed(store, filters.agent)
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
    if place is not None:
        rid, around = place
        rows, first = store.records_around(around, rid, max(context, 0))
        return SessionView(_session(store, around), _hits(store, rows, first + 1, max_chars), ident,
                           store.session_size(around), first)
    session_id = resolve_session(store, ident)
    if session_id is None:
        raise NotFoundError(f"no record or session with id {ident!r}", hint=FIND_IDS_HINT)
    rows = store.session_records(session_id, limit, max(offset, 0))
    return SessionView(_session(store, session_id), _hits(store, rows, offset + 1, max_chars), None,
                       store.session_size(session_id), offset)


def list_sessions(store: Store, *, agent: str | None = None, project: str | None = None, since: str | None = None,
                  limit: int = 20, offset: int = 0) -> list[SessionSummary]:
    """Sessions, newest first, with a one-line title, record and echo counts."""
    check_count("--limit", limit, 1)
    check_count("--offset", offset, 0)
    out = []
    for row in store.session_list(agent, project, since, limit, offset):  # (sessions holding records)
        d = dict(row)
        first = d.pop("first_user")
        title = d["title"] or (first or "")
        d["title"] = " ".join(title.split())[:120] or None
        d["is_sidechain"] = bool(d["is_sidechain"])
        out.append(SessionSummary(**d))
    return out


def count_sessions(store: Store, *, agent: str | None = None, project: str | None = None,
                   since: str | None = None) -> int:
    return store.session_count(agent, project, since)
