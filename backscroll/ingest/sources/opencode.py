"""OpenCode sessions: the SQLite database ``opencode.db`` (v1.2+) and the older ``storage/`` JSON tree.

This module owns finding OpenCode's data dir (``$OPENCODE_DATA_DIR``, else ``$XDG_DATA_HOME/opencode``,
else ``~/.local/share/opencode``), claiming its session sources, and reading them whole into one
unit per session. Both generations hold the same shapes: a session, its messages (role, times, model,
``path.cwd``) and their parts, where the content lives:

- **Database**: tables ``session``, ``message(data JSON)`` and ``part(data JSON)``, written live by
  OpenCode in WAL mode. It is opened read-only with a busy timeout, read in one snapshot, and read
  incrementally: the file state keeps each session's ``time_updated`` and the highest ``message`` and
  ``part`` rowids seen, so a sync re-reads only sessions that were touched or gained messages or
  parts. Each session is a unit keyed ``<db path>#<session id>``. ``stat`` adds the ``-wal`` file, so
  commits that have not been checkpointed into the main file are noticed.
- **Older storage**: ``storage/session/<projectID>/<sessionID>.json`` is the claimed file; its messages
  (``storage/message/<sessionID>/*.json``) and their parts (``storage/part/<messageID>/*.json``) are
  read with it, and ``stat`` covers all of them.

Records, per part in message then part order: ``text`` parts become user or assistant text (not the
``synthetic`` or ``ignored`` ones OpenCode adds itself; the summary an assistant writes when the
conversation is compacted is a ``summary``); ``tool`` parts become a call (the ``bash`` command as written, other
tools as name plus input) and, when there is output or an error, a result; ``reasoning`` parts become
reasoning records. Step, snapshot,
patch (only a hash and file names; the edits are already in the tool calls), file, agent, subtask,
retry and compaction parts are not records. Record ids are ``<session>:<part>#0`` for a text or call
and ``#1`` for a result, so a session copied from the older storage into the database is stored once.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    ContentError,
    SourceUnit,
    WholeRead,
    _collect,
    as_dict,
    as_str,
    block_text,
    clean_text,
    file_stat,
    home_root,
    read_regular,
    render_input,
)
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"bash"}
# Parts that hold nothing to index (or only what the tool parts already hold).
_IGNORED_PARTS = {"text", "tool", "step-start", "step-finish", "snapshot", "patch", "file", "agent", "subtask",
                  "retry", "compaction"}
# ``opencode.db``; other release channels write ``opencode-<channel>.db`` beside it.
_DB_NAME = re.compile(r"^opencode(-[A-Za-z0-9._-]+)?\.db$")
# Placeholder titles OpenCode gives a session before it names it.
_DEFAULT_TITLE = re.compile(r"^(New|Child) session - \d{4}-\d{2}-\d{2}T")
# A live writer can hold the database briefly: wait this long per attempt, this many attempts.
BUSY_TIMEOUT = 1.0
BUSY_ATTEMPTS = 3
BUSY_PAUSE = 0.1
MAX_JSON_BYTES = 256 * 1024 * 1024  # one file of the older storage tree, read whole


def default_root(env):
    if env.get("OPENCODE_DATA_DIR"):
        return Path(os.path.expanduser(env["OPENCODE_DATA_DIR"])), "env $OPENCODE_DATA_DIR"
    return home_root(env, "XDG_DATA_HOME", "opencode", ".local/share/opencode")


def _is_db(path: Path) -> bool:
    return bool(_DB_NAME.match(path.name))


def _is_session_file(path: Path) -> bool:
    """``storage/session/<projectID>/<sessionID>.json`` (not message, part or other storage files)."""
    up = path.parent.parent
    return path.suffix == ".json" and up.name == "session" and up.parent.name == "storage"


def claims(path: Path) -> bool:
    return _is_db(path) or _is_session_file(path)


def session_for(path: Path) -> SessionInfo:
    # A database holds many sessions; read_whole names each of them.
    return SessionInfo(path.stem if _is_session_file(path) else path.name, "opencode")


# -- stat --------------------------------------------------------------------------------------

def _db_stat(path: Path) -> tuple[int, int]:
    size, mtime = file_stat(path)
    try:
        wal = os.stat(f"{path}-wal")
    except FileNotFoundError:
        return size, mtime
    # An empty WAL is the one a read-only open leaves behind: it holds no change.
    if wal.st_size:
        size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
    return size, mtime


def _scan(directory: Path) -> Iterator[os.DirEntry]:
    """The ``*.json`` entries of a directory (none when it is missing or vanishes)."""
    try:
        with os.scandir(directory) as it:
            entries = [e for e in it if e.name.endswith(".json")]
    except (FileNotFoundError, NotADirectoryError):
        return
    yield from entries


def _storage_stat(path: Path) -> tuple[int, int]:
    """Size and newest mtime over the session file, its messages and their parts (and their dirs)."""
    size, mtime = file_stat(path)
    storage = path.parents[2]
    dirs = [storage / "message" / path.stem]
    while dirs:
        directory = dirs.pop()
        try:
            mtime = max(mtime, os.stat(directory).st_mtime_ns)
        except FileNotFoundError:
            continue
        for entry in _scan(directory):
            try:
                est = entry.stat()
            except FileNotFoundError:
                continue
            size += est.st_size
            mtime = max(mtime, est.st_mtime_ns)
            if directory.parent.name == "message":
                dirs.append(storage / "part" / entry.name[:-5])
    return size, mtime


def stat(path: Path) -> tuple[int, int]:
    return _db_stat(path) if _is_db(path) else _storage_stat(path)


# -- turning messages and parts into records ---------------------------------------------------

@dataclass
class _Part:
    part_id: str
    data: dict | str  # the decoded object, or why it could not be read
    created: object = None


@dataclass
class _Message:
    message_id: str
    data: dict | str
    created: object
    parts: list[_Part]


def _decode(raw: object) -> dict | str:
    """A JSON object from the text/bytes OpenCode stored, or the reason it is not one."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, (str, bytes)):
        return f"data is {type(raw).__name__}, not JSON text"
    try:
        obj = loads(raw)
    except orjson.JSONDecodeError as exc:
        return "not valid UTF-8" if "utf-8" in str(exc).lower() else "malformed JSON"
    return obj if isinstance(obj, dict) else f"expected a JSON object, got {type(obj).__name__}"


def _get(obj: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _title(value: object) -> str | None:
    title = _str(value)
    if title is None or _DEFAULT_TITLE.match(title):
        return None
    return title.strip() or None


def _tool_records(base: str, part_id: str, data: dict, line: int, fallback_ts: str | None,
                  cwd: str | None) -> list[Record]:
    name = _str(data.get("tool")) or "tool"
    call_id = _str(data.get("callID")) or part_id
    state = as_dict(data.get("state"))
    inp = state.get("input")
    start = normalize_timestamp(_get(state, "time", "start")) or fallback_ts
    end = normalize_timestamp(_get(state, "time", "end")) or start
    if name in SHELL_TOOLS and isinstance(inp, dict) and _str(inp.get("command")) and inp["command"].strip():
        text, command = inp["command"], inp["command"]
    else:
        body = render_input(inp) if inp not in (None, {}, "", []) else ""
        text, command = (f"{name}\n{body}" if body else name), None
    records = [Record(f"{base}#0", "tool", "tool", text, line, start, cwd, name, call_id, command=command)]
    status = state.get("status")
    output = state.get("output")
    result = block_text(output).strip() if output is not None else ""
    if not result and status == "error":
        result = block_text(state.get("error")).strip()
    if result:
        records.append(Record(f"{base}#1", "tool", "tool", result, line, end, cwd, None, call_id,
                              is_error=status == "error"))
    return records


def _unit(key: str, session: SessionInfo, messages: list[_Message],
          skipped: list[tuple[int, str]] | None = None) -> SourceUnit:
    """One session's records; ``line`` is the 1-based position of a part in the session."""
    records: list[Record] = []
    skipped = list(skipped or [])
    unknown: dict[str, int] = {}
    line = 0
    for msg in messages:
        if isinstance(msg.data, str):
            skipped.append((line + 1, f"message {msg.message_id}: {msg.data}"))
            line += len(msg.parts)
            continue
        role = msg.data.get("role") if msg.data.get("role") in ("user", "assistant") else None
        author = "human" if role == "user" else None
        compaction_summary = role == "assistant" and msg.data.get("summary") is True
        cwd = _str(_get(msg.data, "path", "cwd")) or session.cwd
        msg_ts = normalize_timestamp(_get(msg.data, "time", "created")) or normalize_timestamp(msg.created)
        for part in msg.parts:
            line += 1
            data = part.data
            if isinstance(data, str):
                skipped.append((line, f"part {part.part_id}: {data}"))
                continue
            base = f"{session.session_id}:{part.part_id}"
            ts = normalize_timestamp(part.created) or msg_ts
            kind = data.get("type")
            kind = kind if isinstance(kind, str) else str(kind)  # a malformed part: counted as unknown
            if kind == "text":
                if role is None or data.get("synthetic") or data.get("ignored"):
                    continue
                text = clean_text(data["text"]) if isinstance(data.get("text"), str) else ""
                if text:
                    ts = normalize_timestamp(_get(data, "time", "start")) or ts
                    if compaction_summary:  # the only copy of the context it replaced
                        records.append(Record(f"{base}#0", "assistant", "summary", text, line, ts, cwd))
                    else:
                        records.append(Record(f"{base}#0", role, "text", text, line, ts, cwd, author=author))
            elif kind == "reasoning":
                text = as_str(data.get("text")).strip()
                if text and role == "assistant":
                    ts = normalize_timestamp(_get(data, "time", "start")) or ts
                    records.append(Record(f"{base}#0", "assistant", "reasoning", text, line, ts, cwd))
            elif kind not in _IGNORED_PARTS:
                unknown[kind] = unknown.get(kind, 0) + 1
            if kind == "tool":
                try:
                    records.extend(_tool_records(base, part.part_id, data, line, ts, cwd))
                except Exception as exc:  # one odd part must not cost the session or the database
                    skipped.append((line, f"part {part.part_id}: unexpected {type(exc).__name__}: {exc}"))
    return SourceUnit(key, session, records, skipped, unknown)


# -- the database ------------------------------------------------------------------------------

def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _pick(cols: set[str], *names: str) -> str:
    return next((n for n in names if n in cols), "NULL")


def _fingerprint(value: object) -> object:
    """A session's ``time_updated`` as stored in the file state (JSON: a number or text)."""
    if value is None or isinstance(value, (int, float, str)):
        return value
    return str(value)


def _connect(path: Path) -> sqlite3.Connection:
    uri = f"file:{quote(os.fsencode(path.as_posix()))}?mode=ro"  # undecodable bytes of a path kept as they are
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT, isolation_level=None)


def _read_db(path: Path, state: dict) -> WholeRead:
    for attempt in range(BUSY_ATTEMPTS):
        conn = None
        try:
            conn = _connect(path)
            conn.execute("BEGIN")  # one snapshot for every query, whatever the writer does meanwhile
            return _read_snapshot(conn, path, state)
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" in text or "busy" in text) and attempt + 1 < BUSY_ATTEMPTS:
                time.sleep(BUSY_PAUSE * (attempt + 1))
                continue
            raise OSError(f"OpenCode database unreadable: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise OSError(f"not a readable OpenCode database: {exc}") from None
        finally:
            if conn is not None:
                conn.close()
    raise OSError("OpenCode database busy")  # pragma: no cover (the loop returns or raises)


def _read_snapshot(conn: sqlite3.Connection, path: Path, state: dict) -> WholeRead:
    scols, mcols, pcols = _columns(conn, "session"), _columns(conn, "message"), _columns(conn, "part")
    if not scols or not mcols or not pcols:
        raise OSError("no session, message and part tables: not an OpenCode database")
    s_updated = _pick(scols, "time_updated", "updated_at")
    m_created = _pick(mcols, "time_created", "created_at")
    p_created = _pick(pcols, "time_created", "created_at")
    parent = _pick(scols, "parent_id")
    directory = _pick(scols, "directory")
    if "session_id" in pcols:
        part_session = "session_id"
        parts_of_session = f"SELECT id, message_id, {p_created}, data FROM part WHERE session_id = ?"
    else:  # an early schema: parts reach their session through their message
        part_session = "(SELECT session_id FROM message WHERE message.id = part.message_id)"
        parts_of_session = (f"SELECT id, message_id, {p_created}, data FROM part WHERE message_id IN "
                            f"(SELECT id FROM message WHERE session_id = ?)")

    sessions = conn.execute(
        f"SELECT id, title, {directory}, {parent}, {s_updated} FROM session").fetchall()
    prev: dict = as_dict(state.get("sessions"))

    # Messages and parts are updated in place without always touching their session, but new ones
    # get higher rowids: sessions that gained rows since the last read are read again too.
    touched: set[str] = set()
    reread_all = False
    high: dict[str, int] = {}
    for table, session_col in (("message", "session_id"), ("part", part_session)):
        top = conn.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0] or 0
        high[table] = top
        seen = state.get(f"{table}_rowid")
        if not isinstance(seen, int):
            continue  # first read: every session is new anyway
        if top < seen:  # rows deleted at the end, or rowids renumbered by a VACUUM
            reread_all = True
        elif top > seen:
            touched.update(r[0] for r in conn.execute(
                f"SELECT DISTINCT {session_col} FROM {table} WHERE rowid > ?", (seen,)))

    units: list[SourceUnit] = []
    fingerprints: dict[str, object] = {}
    watermark: str | None = None
    for sid, title, cwd, parent_id, updated in sessions:
        if not isinstance(sid, str):
            continue
        fp = _fingerprint(updated)
        fingerprints[sid] = fp
        ts = normalize_timestamp(updated)
        if ts and (watermark is None or ts > watermark):
            watermark = ts
        if not reread_all and sid in prev and prev[sid] == fp and sid not in touched:
            continue
        info = SessionInfo(sid, "opencode", cwd=_str(cwd), title=_title(title),
                           is_sidechain=bool(_str(parent_id)), parent_session_id=_str(parent_id))
        units.append(_db_session(conn, path, info, m_created, parts_of_session))
    new_state = {"watermark": watermark, "sessions": fingerprints,
                 "message_rowid": high["message"], "part_rowid": high["part"]}
    return WholeRead(units, new_state)


def _db_session(conn: sqlite3.Connection, path: Path, info: SessionInfo, m_created: str,
                parts_sql: str) -> SourceUnit:
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
    return _unit(f"{path}#{info.session_id}", info, messages)


# -- the older storage tree --------------------------------------------------------------------

def _read_json(path: Path) -> dict | str | None:
    """A storage file's object, the reason it is unreadable, or None when it vanished."""
    try:
        raw = read_regular(path, MAX_JSON_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    return _decode(raw)


def _read_storage(path: Path, state: dict) -> WholeRead:
    obj = _decode(read_regular(path, MAX_JSON_BYTES))
    if isinstance(obj, str):
        raise ContentError(f"OpenCode session file unreadable: {obj}")
    sid = _str(obj.get("id")) or path.stem
    parent = _str(obj.get("parentID"))
    info = SessionInfo(sid, "opencode", cwd=_str(obj.get("directory")), title=_title(obj.get("title")),
                       is_sidechain=parent is not None, parent_session_id=parent)
    storage = path.parents[2]
    messages = []
    for entry in sorted(_scan(storage / "message" / path.stem), key=lambda e: e.name):
        data = _read_json(Path(entry.path))
        if data is None:
            continue
        mid = entry.name[:-5]
        parts = []
        for pentry in sorted(_scan(storage / "part" / mid), key=lambda e: e.name):
            pdata = _read_json(Path(pentry.path))
            if pdata is not None:
                parts.append(_Part(pentry.name[:-5], pdata))
        messages.append(_Message(mid, data, None, parts))
    return WholeRead([_unit(str(path), info, messages)], {})


def read_whole(path: Path, state: dict) -> WholeRead:
    return _read_db(path, state) if _is_db(path) else _read_storage(path, state)


# -- discovery ---------------------------------------------------------------------------------

class _OpenCodeAgent(Agent):
    """Walks only what can hold sessions: not snapshots (git repos), logs, binaries, or the message
    and part trees (read with their session)."""

    def discover(self, root: Path, errors: list[OSError] | None = None) -> Iterator[Path]:
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
            here = Path(dirpath)
            if here.name == "storage":
                dirnames[:] = ["session"] if "session" in dirnames else []
            elif here.name == "session" and here.parent.name == "storage":
                dirnames.sort()
            elif here.parent.name == "session" and here.parent.parent.name == "storage":
                dirnames[:] = []
            elif "storage" in dirnames or any(_DB_NAME.match(f) for f in filenames):
                dirnames[:] = ["storage"] if "storage" in dirnames else []
            else:
                dirnames.sort()
            for name in sorted(filenames):
                path = here / name
                if self.claims(path):
                    yield path


AGENT = _OpenCodeAgent("opencode", default_root, claims, session_for,
                       read_whole=read_whole, stat=stat, shell_tools=frozenset(SHELL_TOOLS))
