"""Which record or session an id names: a whole id, or a unique prefix of one, as git takes a commit's.

Lookups on an open store (``browse`` shows what they name); an ambiguous prefix is an error listing the ids it
starts, never a guess.
"""

from __future__ import annotations

from backscroll.errors import MAX_ID, AmbiguousIdError, NotFoundError, UsageError
from backscroll.ingest.redact_again import shown_rows
from backscroll.store.db import Store
from backscroll.types import session_title

FIND_IDS_HINT = ("`backscroll search WORDS` prints the record id of each hit (`backscroll show <record id>`); "
                 "`backscroll list` prints session ids (the first 6 or more characters of either id are enough)")


def session_row(store: Store, session_id: str) -> dict:
    """The session's row as ``show`` and ``resume`` give it (redacted again, its title chosen); blanks when gone."""
    row = store.session(session_id)
    if row is not None:
        d = dict(shown_rows(store, [row])[0])
        d.pop("title_rank", None)  # how sure the title is: the store's own bookkeeping
        d["is_sidechain"] = bool(d["is_sidechain"])
        d["title"] = session_title(d.get("title"), None if d.get("title") else store.first_prompt(session_id))
        return d
    return {"session_id": session_id, "agent": None, "project": None, "cwd": None, "title": None,
            "started_at": None, "updated_at": None, "source_path": None, "is_sidechain": False,
            "parent_session_id": None}


MIN_PREFIX = 6  # the fewest characters of a session id accepted as its prefix


def check_id(ident: str) -> None:
    """A usage error for an id that is not text, or longer than any real one (``MAX_ID``)."""
    if not isinstance(ident, str):
        raise UsageError(f"an id is text, not {type(ident).__name__}", hint=FIND_IDS_HINT)
    if len(ident) > MAX_ID:
        raise UsageError(f"an id of {len(ident):,} characters is longer than any record or session id: ids of at "
                         f"most {MAX_ID:,} characters are looked for", hint=FIND_IDS_HINT)


def _describe(store: Store, session_ids: list[str]) -> list[str]:
    lines = []
    for sid in session_ids:
        s = session_row(store, sid)
        when = (s.get("started_at") or "")[:10]
        title = " ".join((s.get("title") or "").split())[:50]
        cells = (sid, s.get("agent") or "", s.get("project") or "-", when, title)
        lines.append("  " + "  ".join(x for x in cells if x))
    return lines


def resolve_session(store: Store, ident: str, *, required: bool = False) -> str | None:
    """The session ``ident`` names: the whole id, or a unique prefix of at least ``MIN_PREFIX`` characters.

    A Claude subagent's id extends its parent's (``<parent>:agent-…``): the parent is chosen when all the other
    candidates extend it (``sole_root``). Otherwise an ambiguous prefix lists the candidates, as git does. None (or,
    with ``required``, NotFoundError) when nothing matches.
    """
    check_id(ident)
    ident = ident.strip()
    if store.has_session(ident):
        return ident
    if len(ident) < MIN_PREFIX:
        raise UsageError(f"{ident!r} is too short to name a session: give at least {MIN_PREFIX} characters of "
                         "its id (or a whole record id)", hint=FIND_IDS_HINT)
    found = store.sessions_starting(ident, 21)
    if found and (root := sole_root(found)) is not None and len(found) <= 20:
        return root
    if found:
        many = f"{len(found)} session ids; they are" if len(found) <= 20 else "over 20 session ids; the first 20 are"
        raise AmbiguousIdError(f"{ident!r} is the start of {many}:\n" + "\n".join(_describe(store, found[:20])),
                               hint="give more of the id")
    if required:
        raise NotFoundError(f"no session with id {ident!r}", hint=FIND_IDS_HINT)
    return None


def sole_root(found: list[str]) -> str | None:
    """The one of ``found`` every other id extends (a session among its subagents' ids), else None."""
    roots = [f for f in found if all(g == f or g.startswith(f) for g in found)]
    return roots[0] if len(roots) == 1 else None


def ensure_not_a_record_too(store: Store, ident: str, session_id: str | None) -> None:
    """A prefix of a session's id that also starts a record of another session names neither: say so."""
    if session_id is not None and session_id != ident:
        named_twice(ident, session_id, store.record_elsewhere(ident, session_id))


def named_twice(ident: str, session_id: str, other: str | None, where: str = "") -> None:
    """The ambiguity of a prefix that starts ``session_id`` and the record ``other`` of another session (``where``:
    which store, when it is not this machine's), if there is such a record."""
    if other is not None:
        raise AmbiguousIdError(f"{ident!r} is the start of session {session_id} and of record {other}{where}",
                               hint=f"give more of the id: {session_id} or {other}")


def session_named(store: Store, ident: str) -> str:
    """The session an id names: a record's (a hit's id, or the start of one) or its own (or the start of it)."""
    ident = ident.strip()
    place = store.record_place(ident)
    session_id = place[1] if place else resolve_session(store, ident)
    ensure_not_a_record_too(store, ident, None if place else session_id)
    if session_id is None and (rid := record_named(store, ident)) and (place := store.record_place(rid)):
        session_id = place[1]
    if session_id is None:
        raise NotFoundError(f"no session with id {ident!r}", hint=FIND_IDS_HINT)
    return session_id


def record_named(store: Store, ident: str) -> str | None:
    """The record a unique prefix of its id names (of at least ``MIN_PREFIX`` characters; a message's id without its
    block: its first block), or None; a prefix of several messages' ids lists them."""
    if "#" not in ident and (blocks := store.records_starting(ident + "#", 1)):
        return blocks[0]  # (a message's id without its block: its first block)
    if len(ident) < MIN_PREFIX:
        return None
    found = store.records_starting(ident, 21)
    if len({rid.split("#")[0] for rid in found}) > 1:
        many = "more than 20 record ids; the first 20 are" if len(found) > 20 else f"{len(found)} record ids; they are"
        raise AmbiguousIdError(f"{ident!r} is the start of {many}:\n" + "\n".join(f"  {r}" for r in found[:20]),
                               hint="give more of the id")
    return found[0] if found else None
