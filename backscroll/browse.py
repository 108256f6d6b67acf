"""Reading what was found: one record with its context, a whole session, and the list of sessions."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import MAX_COUNT, NotFoundError, UsageError
from .records import Hit
from .store import Store

FIND_IDS_HINT = ("`backscroll search WORDS` prints the record id of each hit (`backscroll show <record id>`); "
                 "`backscroll list` prints session ids (the first 6 or more characters of one are enough)")
def check_count(option: str, value: int | None, minimum: int) -> None:
    """A usage error for a count outside ``minimum..MAX_COUNT`` (negative, or too big for SQLite)."""
    if value is not None and not (isinstance(value, int) and minimum <= value <= MAX_COUNT):
        raise UsageError(f"{option} must be a whole number from {minimum} to {MAX_COUNT:,}, not {value!r}",
                         hint=f"e.g. {option} 20")


@dataclass(frozen=True)
class SessionView:
    session: dict
    records: tuple[Hit, ...]
    focus: str | None  # the record asked for, when a record id was given
    total: int  # records in the session
    offset: int  # position of the first record shown (0-based)

    def to_dict(self) -> dict:
        return {"schema_version": 1, "kind": "record" if self.focus else "session", "session": self.session,
                "focus": self.focus, "total": self.total, "offset": self.offset,
                "records": [h.to_dict() for h in self.records]}


def _session(store: Store, session_id: str) -> dict:
    rows = store.query("SELECT * FROM sessions WHERE session_id = ?", (session_id,))
    if rows:
        d = dict(rows[0])
        d["is_sidechain"] = bool(d["is_sidechain"])
        return d
    return {"session_id": session_id, "agent": None, "project": None, "cwd": None, "title": None,
            "started_at": None, "updated_at": None, "source_path": None, "is_sidechain": False, "parent_session_id": None}


def _resolve_session(store: Store, ident: str) -> str | None:
    if store.conn.execute("SELECT 1 FROM sessions WHERE session_id = ?", (ident,)).fetchone():
        return ident
    if len(ident) >= 6:
        found = [r[0] for r in store.conn.execute(
            "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' LIMIT 2",
            (ident.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%",))]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise NotFoundError(f"{ident!r} is the start of more than one session id", hint="give more of it")
    return None


def _hits(rows, start_rank: int) -> tuple[Hit, ...]:
    return tuple(Hit.from_row(r, rank=start_rank + i) for i, r in enumerate(rows))


def show(store: Store, ident: str, *, context: int = 3, limit: int | None = None, offset: int = 0) -> SessionView:
    """A record with ``context`` records either side, or (given a session id) the session's records."""
    check_count("--context", context, 0)
    check_count("--limit", limit, 1)
    check_count("--offset", offset, 0)
    ident = ident.strip()
    rec = store.query("SELECT id, session_id, record_id FROM records WHERE record_id = ?", (ident,))
    if rec:
        rid, session_id, record_id = rec[0]["id"], rec[0]["session_id"], rec[0]["record_id"]
        before = store.query("SELECT * FROM records WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                             (session_id, rid, max(context, 0)))[::-1]
        here_after = store.query("SELECT * FROM records WHERE session_id = ? AND id >= ? ORDER BY id LIMIT ?",
                                 (session_id, rid, max(context, 0) + 1))
        position = store.conn.execute("SELECT count(*) FROM records WHERE session_id = ? AND id < ?",
                                      (session_id, rid)).fetchone()[0]
        total = store.conn.execute("SELECT count(*) FROM records WHERE session_id = ?", (session_id,)).fetchone()[0]
        first = position - len(before)
        return SessionView(_session(store, session_id), _hits(before + here_after, first + 1), record_id, total, first)
    session_id = _resolve_session(store, ident)
    if session_id is None:
        raise NotFoundError(f"no record or session with id {ident!r}", hint=FIND_IDS_HINT)
    total = store.conn.execute("SELECT count(*) FROM records WHERE session_id = ?", (session_id,)).fetchone()[0]
    rows = store.query("SELECT * FROM records WHERE session_id = ? ORDER BY id LIMIT ? OFFSET ?",
                       (session_id, -1 if limit is None else limit, max(offset, 0)))
    return SessionView(_session(store, session_id), _hits(rows, offset + 1), None, total, offset)


def list_sessions(store: Store, *, agent: str | None = None, project: str | None = None, since: str | None = None,
                  limit: int = 20, offset: int = 0) -> list[dict]:
    """Sessions, newest first, with a one-line title, record and echo counts."""
    check_count("--limit", limit, 1)
    check_count("--offset", offset, 0)
    # A session row without records (a file that held only a title or a header) has nothing to show.
    where, params = ["EXISTS (SELECT 1 FROM records r WHERE r.session_id = s.session_id)"], []
    for col, value in (("s.agent", agent), ("s.project", project)):
        if value:
            where.append(f"{col} = ?")
            params.append(value)
    if since:
        where.append("coalesce(s.updated_at, s.started_at) >= ?")
        params.append(since)
    sql = f"""
        SELECT s.session_id, s.agent, s.project, s.cwd, s.title, s.started_at, s.updated_at, s.is_sidechain,
               s.parent_session_id,
               (SELECT count(*) FROM records r WHERE r.session_id = s.session_id) AS records,
               (SELECT count(*) FROM records r WHERE r.session_id = s.session_id AND r.is_echo = 1) AS echoes,
               (SELECT text FROM records r WHERE r.session_id = s.session_id AND r.role = 'user'
                  AND r.content_type = 'text' ORDER BY r.id LIMIT 1) AS first_user
        FROM sessions s {'WHERE ' + ' AND '.join(where) if where else ''}
        ORDER BY coalesce(s.started_at, s.updated_at) DESC, s.session_id LIMIT ? OFFSET ?"""
    out = []
    for row in store.query(sql, (*params, limit, offset)):
        d = dict(row)
        first = d.pop("first_user")
        title = d["title"] or (first or "")
        d["title"] = " ".join(title.split())[:120] or None
        d["is_sidechain"] = bool(d["is_sidechain"])
        out.append(d)
    return out
