"""One read-only snapshot of OpenCode's ``opencode.db``: which sessions changed since the last read
(their ``time_updated``, and the highest ``message``, ``part`` and ``session_message`` rowids seen) and their units.
A session's turns in the newer ``session_message`` table are read from it too (``v2_message``): OpenCode's newer core
writes only there and copies a session's older turns there (``evt_legacy_backfill_`` rows), so a session's ``message``
rows are read, then the newer table's rows but those copies and the ones written beside a ``message`` row (its id,
or its very time: the dual writes of OpenCode's experimental event system). A
fork's rows copied from its parent (``…_<seq>``) are left out and the fork is linked to its parent.

``opencode`` opens the database (busy retries) and calls ``read_snapshot`` inside one transaction;
the columns are looked up per table, since OpenCode's schema has moved between releases.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import SourceUnit, WholeRead, as_dict
from backscroll.ingest.sources.opencode_records import _decode, _get, _Message, _Part, _str, _title, _unit
from backscroll.types import SessionInfo

IN_PLACE_ROWS = 5000  # the newest rows of message and part whose updates in place are noticed


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _pick(cols: set[str], *names: str) -> str:
    return next((n for n in names if n in cols), "NULL")


def _unless_busy(exc: sqlite3.DatabaseError) -> None:
    """Raise ``exc`` again when the writer holds the database (the whole read is tried again), not a damaged page."""
    if any(word in str(exc).lower() for word in ("locked", "busy")):
        raise exc


def _fingerprint(value: object) -> object:
    """A session's ``time_updated`` as stored in the file state (JSON: a number or text)."""
    if value is None or isinstance(value, (int, float, str)):
        return value
    return str(value)


def read_snapshot(conn: sqlite3.Connection, path: Path, state: dict, agent: str = "opencode") -> WholeRead:
    """The changed sessions, as ``agent``'s (Kilo Code 7 keeps a database of OpenCode's format)."""
    scols, mcols, pcols = _columns(conn, "session"), _columns(conn, "message"), _columns(conn, "part")
    if not scols or not mcols or not pcols:
        raise OSError("no session, message and part tables: not an OpenCode database")
    s_updated = _pick(scols, "time_updated", "updated_at")
    m_created = _pick(mcols, "time_created", "created_at")
    p_created = _pick(pcols, "time_created", "created_at")
    parent = _pick(scols, "parent_id")
    fork = _pick(scols, "fork_session_id")
    directory = _pick(scols, "directory")
    if "session_id" in pcols:
        part_session = "session_id"
        parts_of_session = f"SELECT id, message_id, {p_created}, data FROM part WHERE session_id = ?"
    else:  # an early schema: parts reach their session through their message
        part_session = "(SELECT session_id FROM message WHERE message.id = part.message_id)"
        parts_of_session = (f"SELECT id, message_id, {p_created}, data FROM part WHERE message_id IN "
                            f"(SELECT id FROM message WHERE session_id = ?)")

    sessions = conn.execute(
        f"SELECT id, title, {directory}, {parent}, {s_updated}, {fork} FROM session").fetchall()
    prev: dict = as_dict(state.get("sessions"))

    # Messages and parts are updated in place without always touching their session, but new ones
    # get higher rowids: sessions that gained rows since the last read are read again too.
    touched: set[str] = set()
    reread_all = False
    high: dict[str, int] = {}
    v2cols = _columns(conn, "session_message")  # (the newer projection: ``v2_message``)
    v2 = "session_id" in v2cols
    for table, session_col in (("message", "session_id"), ("part", part_session),
                               *((("session_message", "session_id"),) if v2 else ())):
        seen = state.get(f"{table}_rowid")
        try:
            high[table] = top = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
            if isinstance(seen, int) and top > seen:
                touched.update(r[0] for r in conn.execute(
                    f"SELECT DISTINCT {session_col} FROM {table} WHERE rowid > ?", (seen,)))
        except sqlite3.DatabaseError as exc:  # (a damaged page among the newest rows: which sessions gained them?)
            _unless_busy(exc)
            high[table] = seen if isinstance(seen, int) else 0
            reread_all = True  # (each session's own read then says which one the page keeps out)
            continue
        if isinstance(seen, int) and top < seen:  # rows deleted at the end, or rowids renumbered by a VACUUM
            reread_all = True
    # Rows grow in place too (a session_message row: an assistant's step; a part: a tool completed or interrupted),
    # moving their time_updated and nothing of their session's: the newest rows are looked at (a whole table's scan
    # on every sync would read a large history again; session_message's rows are few)
    newest: dict[str, object] = {}
    for table, cols, session_col, rows in (("message", mcols, "session_id", IN_PLACE_ROWS),
                                           ("part", pcols, part_session, IN_PLACE_ROWS),
                                           ("session_message", v2cols, "session_id", None)):
        if "time_updated" not in cols:
            continue
        recent = f"rowid > {max(0, high.get(table, 0) - rows)}" if rows else "1"
        try:
            newest[table] = top = conn.execute(f"SELECT max(time_updated) FROM {table} WHERE {recent}").fetchone()[0]
            changed = state.get(f"{table}_updated")
            if type(changed) is type(top) and isinstance(top, (int, float, str)) and top > changed:  # type: ignore
                touched.update(r[0] for r in conn.execute(
                    f"SELECT DISTINCT {session_col} FROM {table} WHERE {recent} AND time_updated > ?", (changed,)))
        except sqlite3.DatabaseError as exc:  # (a damaged page among them: the sessions' own reads say which)
            _unless_busy(exc)
            continue

    units: list[SourceUnit] = []
    fingerprints: dict[str, object] = {}
    watermark: str | None = None
    for sid, title, cwd, parent_id, updated, forked in sessions:
        if not isinstance(sid, str):
            continue
        fp = _fingerprint(updated)
        fingerprints[sid] = fp
        ts = normalize_timestamp(updated)
        if ts and (watermark is None or ts > watermark):
            watermark = ts
        if not reread_all and sid in prev and prev[sid] == fp and sid not in touched:
            continue
        info = SessionInfo(sid, agent, cwd=_str(cwd), title=_title(title),
                           is_sidechain=bool(_str(parent_id)), parent_session_id=_str(parent_id) or _str(forked))
        try:
            units.append(_db_session(conn, path, info, m_created, parts_of_session,
                                     ("seq" if "seq" in v2cols else "rowid") if v2 else None, bool(_str(forked))))
        except sqlite3.DatabaseError as exc:  # (a damaged page: this session alone, tried again every sync)
            _unless_busy(exc)
            fingerprints[sid] = None
            if sid not in prev:  # (one read before keeps its records; its failure is said once, at its first read)
                units.append(SourceUnit(f"{path}#{sid}", info, [], [(0, f"session could not be read: {exc}")]))
    new_state = {"watermark": watermark, "sessions": fingerprints,
                 "message_rowid": high["message"], "part_rowid": high["part"],
                 **{f"{table}_updated": top for table, top in newest.items()}}
    if v2:
        new_state["session_message_rowid"] = high["session_message"]
    return WholeRead(units, new_state)


def _db_session(conn: sqlite3.Connection, path: Path, info: SessionInfo, m_created: str,
                parts_sql: str, v2_order: str | None = None, forked: bool = False) -> SourceUnit:
    parts: dict[str, list[_Part]] = {}
    for pid, mid, created, data in conn.execute(parts_sql, (info.session_id,)):
        parts.setdefault(mid, []).append(_Part(str(pid), _decode(data), created))
    messages = []
    for mid, created, data in conn.execute(
            f"SELECT id, {m_created}, data FROM message WHERE session_id = ?", (info.session_id,)):
        own = sorted(parts.get(mid, []), key=lambda p: p.part_id)
        messages.append(_Message(str(mid), _decode(data), created, own))
    # OpenCode's own order: by creation time, then id (ids grow with time).
    messages.sort(key=lambda m: (normalize_timestamp(m.created) or "", m.message_id))
    if v2_order:
        newer = [(str(mid), kind, created, data) for mid, kind, created, data, seq in conn.execute(
            f"SELECT id, type, time_created, data, {v2_order} FROM session_message WHERE session_id = ? "
            f"ORDER BY {v2_order}", (info.session_id,)) if not (forked and str(mid).endswith(f"_{seq}"))]
        if messages:  # (the ``message`` rows are read: the newer table's copies of them are not)
            ids = {m.message_id for m in messages}
            times = {normalize_timestamp(m.created) for m in messages} - {None}
            newer = [row for row in newer if not row[0].startswith("evt_legacy_backfill_") and row[0] not in ids
                     and normalize_timestamp(row[2]) not in times]
        messages += [m for mid, kind, created, data in newer
                     if (m := v2_message(mid, kind, _decode(data), created)) is not None]
    return _unit(f"{path}#{info.session_id}", info, messages)


def v2_message(mid: str, kind: object, data: dict | str, created: object) -> _Message | None:
    """A ``session_message`` row (OpenCode's ``SessionMessage``, its ``type`` and ``id`` left out of ``data``) in the
    shape of the older message and parts: the person's text, the assistant's text, reasoning and tools (a tool's
    ``content`` its output), a ``!`` command as a bash call, a compaction's summary, an error the person saw. What
    OpenCode adds itself (``synthetic``, ``system``) and switches of agent or model are not records."""
    if isinstance(data, str):
        return _Message(mid, data, created, [])
    when = {"created": _get(data, "time", "created") or created}
    if kind == "user":
        return _Message(mid, {"role": "user", "time": when}, created, [_Part(f"{mid}.0", {"type": "text",
                                                                                         "text": data.get("text")})])
    if kind == "compaction":
        return _Message(mid, {"role": "assistant", "summary": True, "time": when}, created,
                        [_Part(f"{mid}.0", {"type": "text", "text": data.get("summary")})])
    if kind == "shell":
        state = {"status": "completed", "input": {"command": data.get("command")}, "output": data.get("output")}
        tool = {"type": "tool", "tool": "bash", "callID": data.get("callID"), "state": state}
        return _Message(mid, {"role": "assistant", "time": when}, created, [_Part(f"{mid}.0", tool)])
    if kind != "assistant":
        return None
    parts = []
    content = data.get("content")
    for i, item in enumerate(c for c in (content if isinstance(content, list) else []) if isinstance(c, dict)):
        if item.get("type") == "tool":
            state = as_dict(item.get("state"))
            item = {"type": "tool", "tool": item.get("name"), "callID": item.get("id"), "state": {
                "status": state.get("status"), "input": state.get("input"), "output": state.get("content"),
                "error": _get(state, "error", "message")}}
        parts.append(_Part(f"{mid}.{i}", item))
    error = {"data": {"message": _get(data, "error", "message")}} if isinstance(data.get("error"), dict) else None
    return _Message(mid, {"role": "assistant", "time": when, "error": error}, created, parts)
