"""``list --archive`` and ``show --archive``: the team archive's sessions, and a record or a session from it,
in the shapes the local ``list`` and ``show`` give, each saying whose it is (``member``, ``machine``)."""

from __future__ import annotations

from collections.abc import Callable

from backscroll.config import Config
from backscroll.errors import AmbiguousIdError, NotFoundError
from backscroll.store.archive_filters import sessions_where
from backscroll.store.archive_pg import Archive
from backscroll.team.source import hit_of, iso, shown
from backscroll.types import Filters, Notify, SessionSummary, SessionView, quiet, session_title


def member_named(members: Callable[[], list[str]], name: str | None) -> str | None:
    """``name`` when a member of the team archive (``members``, asked only for a name) has that name: an unknown one
    is named, not searched for in silence."""
    from backscroll.browse import known_list
    from backscroll.sanitize import shorten

    if name is None:
        return None
    known = members()
    if name in known:
        return name
    raise NotFoundError(f"no member {shorten(name, 80)!r} has pushed to the team archive",
                        hint=f"members who have: {known_list(known)}")


def _open(cfg: Config, archive: str) -> Archive:
    from backscroll.team.push import settings

    url, _member = settings(cfg, archive)
    found = Archive.connect(url)
    found.check_version()
    return found


def sessions(cfg: Config, archive: str, filters: Filters, member: str | None, limit: int,
             offset: int, *, grep: str | None = None, everything: bool = False) -> tuple[list[SessionSummary], int]:
    """The archive's sessions the filters admit, latest first, and how many there are in all (its sessions table),
    chosen as the local ``list`` chooses (``browse.list_sessions``)."""
    from dataclasses import replace

    from backscroll.browse import grep_words, project_named

    with _open(cfg, archive) as a:
        member = member_named(a.member_names, member)
        if filters.project:
            filters = replace(filters, project=project_named(a.project_names(), filters.project))
        where, params = sessions_where(filters, member, words=grep_words(grep), everything=everything)
        rows = a.session_rows(where, params, limit, offset)
        total = a.session_count(where, params)
    return [summary(r) for r in rows], total


def summary(r: dict) -> SessionSummary:
    """A sessions-table row as ``list`` shows a session: titled as locally (its first prompt when untitled)."""
    r = shown(r)
    title = session_title(r["title"], r["first_prompt"])
    return SessionSummary(r["session_id"], r["agent"], r["project"], r["cwd"], title, iso(r["started_at"]),
                          iso(r["updated_at"]), r["is_sidechain"], r["parent_session_id"], r["records"], r["echoes"],
                          r["member"], r["machine"], r.get("subagents") or 0)


def show(cfg: Config, archive: str, ident: str, *, context: int, limit: int | None, offset: int,
         max_chars: int, member: str | None = None, notify: Notify = quiet) -> SessionView:
    """A record with ``context`` records either side, or a page of a session, named as locally (``browse.show``):
    a record's id or a session's, or a unique start of one. A session two members pushed is opened as the first of
    them pushed it, or as ``member`` did (the copies may differ: a hit names whose it is, the command it prints
    says so, and ``notify`` hears whose other copies there are)."""
    ident = ident.strip()
    with _open(cfg, archive) as a:
        member = member_named(a.member_names, member)
        focus, key = _named(a, ident, member, "no record or session")
        rows = a.session_records(*key)
        head = a.session_row(*key)
        others = [] if member else [(m, h) for m, h in a.session_copies(key[2]) if (m, h) != key[:2]]
    if others:
        how = " (--member NAME opens theirs)" if any(m != key[0] for m, _h in others) else ""
        notify(f"note: this is {key[0]}@{key[1]}'s copy of session {key[2]}; "
               f"{', '.join(f'{m}@{h}' for m, h in others)} pushed it too{how}")
    if focus is not None:
        at = next(i for i, r in enumerate(rows) if r["record_id"] == focus["record_id"])
        start, end = max(0, at - context), at + context + 1
    else:
        start, end = offset, offset + limit if limit else len(rows)
    hits = tuple(hit_of(shown(r), start + i + 1, max_chars=max_chars) for i, r in enumerate(rows[start:end]))
    first = shown({k: v for k, v in rows[0].items() if k != "text"})  # (its names: the session's head)
    session = {"session_id": key[2], "agent": first["agent"], "project": first["project"], "cwd": first["cwd"],
               "title": first["title"], "member": key[0], "machine": key[1], "is_sidechain": first["is_sidechain"],
               "parent_session_id": first["parent_session_id"]}
    if head is not None:
        s = summary(head)
        session.update(title=s.title, started_at=head["started_at"] and iso(head["started_at"]),
                       updated_at=head["updated_at"] and iso(head["updated_at"]))
    return SessionView(session, hits, focus["record_id"] if focus is not None else None, len(rows), start)


def session_named(a: Archive, ident: str, member: str | None = None) -> str:
    """The archive's session ``ident`` names, as ``--session`` names one locally (``session_ids.session_named``): a
    record's id (or the start of one) or its own (or the start of it)."""
    return _named(a, ident.strip(), member, "no session with id")[1][2]


def _named(a: Archive, ident: str, member: str | None, missing: str) -> tuple[dict | None, tuple[str, str, str]]:
    """The record ``ident`` names (None when it names a session) and its session's ``(member, machine, session)``:
    a record's whole id, a session's whole id or unique start, a record's unique start, in that order."""
    focus = a.record_row(ident, member)
    key = None if focus is not None else _session_key(a, ident, member)
    if focus is None and key is None:
        focus = _record_named(a, ident, member)
    elif key is not None and key[2] != ident:  # (the start of another session's record too?)
        from backscroll.session_ids import named_twice

        named_twice(ident, key[2], a.record_elsewhere(ident, key[2], member), " in the team archive")
    if focus is not None:
        key = (focus["member"], focus["machine"], focus["session_id"])
    if key is None:
        raise NotFoundError(f"{missing} {ident!r} in the team archive" + (f" pushed by {member}" if member else ""))
    return focus, key


def _session_key(a: Archive, ident: str, member: str | None) -> tuple[str, str, str] | None:
    """``(member, machine, session)`` of the session ``ident`` names: its whole id, or a unique start of it of at
    least ``MIN_PREFIX`` characters (a prefix of a session and its subagents names the session); None when none."""
    from backscroll.errors import UsageError
    from backscroll.session_ids import FIND_IDS_HINT, MIN_PREFIX, sole_root

    found = a.sessions_like(ident, member)
    ids = list(dict.fromkeys(s for _m, _h, s in found))  # (one session pushed twice is one session)
    if ident not in ids and len(ident) < MIN_PREFIX:
        raise UsageError(f"{ident!r} is too short to name a session: give at least {MIN_PREFIX} characters of its "
                         "id (or a whole record id)", hint=FIND_IDS_HINT)
    chosen = ident if ident in ids else sole_root(ids)
    if ids and chosen is None:
        raise AmbiguousIdError(f"{ident!r} names {len(ids)} sessions in the team archive",
                               hint="give more of the id: " + ", ".join(ids[:5]))
    return next((k for k in found if k[2] == chosen), None)


def _record_named(a: Archive, ident: str, member: str | None) -> dict | None:
    """The record a unique start of its id names (a message's id without its block: its first block), as locally
    (``session_ids.record_named``); None when none."""
    from backscroll.session_ids import MIN_PREFIX

    if "#" not in ident and (blocks := a.records_like(ident + "#", member, 1)):
        return a.record_row(blocks[0], member)
    if len(ident) < MIN_PREFIX:
        return None
    found = a.records_like(ident, member)
    if len({rid.split("#")[0] for rid in found}) > 1:
        raise AmbiguousIdError(f"{ident!r} is the start of {len(found)}{'+' if len(found) > 20 else ''} record ids "
                               "in the team archive", hint="give more of the id: " + ", ".join(found[:5]))
    return a.record_row(found[0], member) if found else None
