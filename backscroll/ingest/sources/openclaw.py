"""OpenClaw (npm ``openclaw``; once Clawdbot and Moltbot) sessions, in its state dir (``$OPENCLAW_STATE_DIR``, else
``~/.openclaw``, ``~/.clawdbot`` or a profile's ``~/.openclaw-<name>``; ``$OPENCLAW_HOME`` stands for ``~``).

Read from openclaw 2026.7.1 and 2026.9.6 (the published builds, run offline) and their code. Each line of a
transcript is an entry of Pi's session format (``pi.parse_line``), header version 3 or 4. Where they are:

* up to 2026.7.1 (and the 2026.7.3x line): ``agents/<agent>/sessions/<id>.jsonl``, and the renamed
  ``<id>.jsonl.reset.<time>`` / ``.deleted.<time>`` that are an earlier history's only copy;
* since 2026.8.1: ``agents/<agent>/agent/openclaw-agent.sqlite``, table ``transcript_events`` (a session's
  entries by ``seq``; 2026.9.6 keeps a large entry zstd-compressed in ``event_zstd``), rewritten in place, so a
  session is read again whole when its rows change; ``session_windows`` and ``session_nodes`` give a session its
  name and the session that spawned it. (The ``.zst`` archives and the import archive are not read: the archive
  repeats the database, the rest needs a codec for what a person deleted.)

What differs from Pi: the shell tool is ``exec``, and a command that exits non-zero is an error (2026.9 says so in
``details.exitCode`` only); a tool called through ``tool_call`` is named by its ``id``; a user turn OpenClaw wrote
itself (``provenance`` ``internal_system``: a heartbeat, a cron job) is the harness's, one another session sent
(``inter_session``) or a subagent's task (``[Subagent Context]``) the agent's; an assistant copy OpenClaw makes of a
delivered reply (provider ``openclaw``) repeats one already stored and is not stored again. ``reset`` and ``leaf``
entries hold nothing to index.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import orjson

from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    db_stat,
    file_stat,
    pi,
    read_db_snapshot,
    read_regular,
    render_input,
)
from backscroll.ingest.sources.common import NO_CODEC, zstd_decompress
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = frozenset({"exec"})
DATABASE = "openclaw-agent.sqlite"
MAX_WHOLE_BYTES = 256 * 1024 * 1024
_ARCHIVED = re.compile(r"\.jsonl\.(?:reset|deleted)\.[^/]*$")
_HOLDS_NOTHING = {"reset", "leaf"}
_MIRROR = "openclaw"  # the provider of OpenClaw's own copies of a reply (delivery-mirror, gateway-injected)


def default_root(env):
    if env.get("OPENCLAW_STATE_DIR"):
        return Path(os.path.expanduser(env["OPENCLAW_STATE_DIR"])) / "agents", "env $OPENCLAW_STATE_DIR"
    var = "OPENCLAW_HOME" if env.get("OPENCLAW_HOME") else None
    home = Path(os.path.expanduser(env.get("OPENCLAW_HOME") or env.get("HOME") or "~"))
    origin = "env $OPENCLAW_HOME" if var else "default"
    try:  # a --profile's state dir (the --dev one too)
        profiles = sorted(p.name for p in home.iterdir() if p.name.startswith(".openclaw-") and p.is_dir())
    except OSError:
        profiles = []
    return [(home / name / "agents", origin) for name in (".openclaw", ".clawdbot", *profiles)]


def claims(path: Path) -> bool:
    if path.name == DATABASE:
        return path.parent.name == "agent"
    if path.parent.name != "sessions" or path.parent.parent.parent.name != "agents":
        return False
    name = path.name
    if name.endswith(".zst") or ".trajectory." in name or ".checkpoint." in name:
        return False
    return name.endswith(".jsonl") or bool(_ARCHIVED.search(name))


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.name.split(".jsonl", 1)[0], "openclaw")


def _author(message: dict) -> str:
    provenance = as_dict(message.get("provenance")).get("kind")
    if provenance == "internal_system":
        return "harness"
    content = message.get("content")
    first = content if isinstance(content, str) else next(
        (b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)), "") \
        if isinstance(content, list) else ""
    if provenance == "inter_session" or str(first).startswith("[Subagent Context]"):
        return "agent"
    return "human"


def _nested(block: dict) -> tuple[str, object]:
    """A call through ``tool_call`` (``{id: <tool>, args}``) as the tool it called."""
    args = block.get("arguments")
    if isinstance(args, str):
        try:
            args = orjson.loads(args)
        except orjson.JSONDecodeError:
            return "tool_call", args
    inner = as_dict(args)
    if isinstance(inner.get("id"), str) and inner["id"].strip():
        return inner["id"].strip(), inner.get("args")
    return "tool_call", args


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if isinstance(obj, dict) and isinstance(obj.get("type"), str) and obj["type"] in _HOLDS_NOTHING:
        return EMPTY
    parsed = pi.parse_line(obj, line_no, session, SHELL_TOOLS)
    if not isinstance(obj, dict) or obj.get("type") != "message" or not parsed.records:
        return parsed
    message = as_dict(obj.get("message"))
    role = message.get("role")
    if role == "assistant" and message.get("provider") == _MIRROR:
        return ParsedLine([], parsed.session_updates)
    records = parsed.records
    if role == "user":
        author = _author(message)
        records = [r if r.author != "human" else replace(r, author=author) for r in records]
    elif role == "assistant":
        blocks = as_list(message.get("content"))
        out = []
        for r in records:
            i = int(r.record_id.rsplit("#", 1)[1]) if r.record_id.rsplit("#", 1)[1].isdigit() else -1
            block = blocks[i] if 0 <= i < len(blocks) and isinstance(blocks[i], dict) else {}
            if r.tool_name == "tool_call" and block.get("type") == "toolCall":
                name, args = _nested(block)
                body = render_input(args) if args not in (None, "", {}, []) else ""
                r = replace(r, tool_name=name, text=f"{name}\n{body}" if body else name)
            out.append(r)
        records = out
    elif role == "toolResult":
        code = as_dict(message.get("details")).get("exitCode")
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            records = [replace(r, is_error=True) for r in records]
    return ParsedLine(records, parsed.session_updates, parsed.unknown)


def _entries(lines: list[tuple[int, object]], info: SessionInfo) -> tuple[SessionInfo, list[Record],
                                                                        list[tuple[int, str]], dict[str, int]]:
    """A transcript's decoded entries ``(number, entry)`` read as a session."""
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    unknown: dict[str, int] = {}
    for n, obj in lines:
        try:
            parsed = parse_line(obj, n, info)
        except LineError as exc:
            skipped.append((n, str(exc)))
            continue
        if parsed.session_updates:
            updates = {k: v for k, v in parsed.session_updates.items() if k != "session_id"}
            info = replace(info, **updates)
        records.extend(parsed.records)
        if parsed.unknown:
            unknown[parsed.unknown] = unknown.get(parsed.unknown, 0) + 1
    return info, [replace(r, cwd=r.cwd or info.cwd) for r in records], skipped, unknown


_INDEXES: dict[tuple[str, int, int], dict[str, tuple[str | None, str | None, bool]]] = {}


def _file_sessions(folder: Path) -> dict[str, tuple[str | None, str | None, bool]]:
    """Each session's name, the session that spawned it and whether it is a subagent's, from the folder's
    ``sessions.json`` (``{<session key>: {sessionId, label, displayName, spawnedBy}}``), read once per state."""
    index = folder / "sessions.json"
    try:
        st = os.stat(index)
        key = (str(index), st.st_size, st.st_mtime_ns)
        if key not in _INDEXES:
            entries = as_dict(orjson.loads(read_regular(index, 64 * 1024 * 1024)))
            ids = {k: as_dict(e).get("sessionId") for k, e in entries.items()}
            _INDEXES.clear()
            _INDEXES[key] = {}
            for k, e in entries.items():
                e = as_dict(e)
                if isinstance(e.get("sessionId"), str):
                    name = next((v.strip() for v in (e.get("displayName"), e.get("label"))
                                 if isinstance(v, str) and v.strip()), None)
                    parent = ids.get(as_str(e.get("spawnedBy")) or as_str(e.get("parentSessionKey")))
                    _INDEXES[key][e["sessionId"]] = (name, parent if isinstance(parent, str) else None,
                                                     ":subagent:" in k)
    except (OSError, ValueError):
        return {}
    return _INDEXES[key]


def _read_file(path: Path) -> WholeRead:
    lines: list[tuple[int, object]] = []
    skipped: list[tuple[int, str]] = []
    for n, raw in enumerate(read_regular(path, MAX_WHOLE_BYTES).splitlines(), 1):
        if raw.strip():
            try:
                lines.append((n, orjson.loads(raw)))
            except orjson.JSONDecodeError:
                skipped.append((n, "not JSON"))
    sid = session_for(path).session_id
    title, parent, sub = _file_sessions(path.parent).get(sid, (None, None, False))
    info = SessionInfo(sid, "openclaw", title=title, parent_session_id=parent, is_sidechain=sub)
    info, records, more, unknown = _entries(lines, info)
    return WholeRead([SourceUnit(str(path), info, records, skipped + more, unknown)], {})


def _columns(conn, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _windows(conn) -> dict[str, tuple[str | None, str | None, bool]]:
    """Each session's name, the session that spawned it and whether it is a subagent's, from the windows and nodes."""
    cols = _columns(conn, "session_windows")
    if not {"session_id", "session_key"} <= cols:
        return {}
    name = "display_name" if "display_name" in cols else "NULL"
    parent = "parent_session_key" if "parent_session_key" in cols else "NULL"
    current = {}
    if {"session_key", "current_session_id"} <= _columns(conn, "session_nodes"):
        current = dict(conn.execute("SELECT session_key, current_session_id FROM session_nodes"))
    out = {}
    for sid, key, title, parent_key in conn.execute(
            f"SELECT session_id, session_key, {name}, {parent} FROM session_windows"):
        out[sid] = (title if isinstance(title, str) and title.strip() else None,
                    current.get(parent_key) if parent_key else None, ":subagent:" in str(key))
    return out


def _read_database(conn, path: Path, state: dict) -> WholeRead:
    cols = _columns(conn, "transcript_events")
    if not {"session_id", "seq", "event_json"} <= cols:
        raise OSError("no transcript_events table: not an OpenClaw agent database")
    packed = "event_zstd" if "event_zstd" in cols else "NULL"
    # A session is read again when its rows change: their number, last seq and newest insert, and the generation
    # OpenClaw draws anew on every rewrite in place.
    marks = {sid: [n, last, newest] for sid, n, last, newest in conn.execute(
        "SELECT session_id, count(*), max(seq), max(created_at) FROM transcript_events GROUP BY session_id")}
    if {"session_id", "generation"} <= _columns(conn, "transcript_rewrite_watermarks"):
        for sid, generation in conn.execute("SELECT session_id, generation FROM transcript_rewrite_watermarks"):
            if sid in marks:
                marks[sid].append(generation)
    prev = as_dict(state.get("sessions"))
    windows = _windows(conn)
    units, kept = [], {}
    for sid, mark in marks.items():
        if prev.get(sid) == mark:
            kept[sid] = mark
            continue
        lines: list[tuple[int, object]] = []
        problems: list[tuple[int, str]] = []
        codec_missing = False
        for seq, text, blob in conn.execute(f"SELECT seq, event_json, {packed} FROM transcript_events "
                                            "WHERE session_id = ? ORDER BY seq", (sid,)):
            raw = text.encode() if isinstance(text, str) else zstd_decompress(blob) if isinstance(blob, bytes) else b""
            if raw is None:
                codec_missing = True
                problems.append((seq + 1, NO_CODEC))
                continue
            try:
                lines.append((seq + 1, orjson.loads(raw)))
            except orjson.JSONDecodeError:
                problems.append((seq + 1, "not JSON"))
        title, parent, sub = windows.get(sid, (None, None, False))
        info = SessionInfo(sid, "openclaw", title=title, parent_session_id=parent, is_sidechain=sub)
        info, records, skipped, unknown = _entries(lines, info)
        units.append(SourceUnit(f"{path}#{sid}", info, records, problems + skipped, unknown))
        if not codec_missing:  # (read again once a codec is installed)
            kept[sid] = mark
    return WholeRead(units, {"sessions": kept})


def read_whole(path: Path, state: dict) -> WholeRead:
    if path.name == DATABASE:
        return read_db_snapshot(path, lambda conn: _read_database(conn, path, state), "OpenClaw")
    return _read_file(path)


def _stat(path: Path) -> tuple[int, int]:
    return db_stat(path) if path.name == DATABASE else file_stat(path)


AGENT = Agent("openclaw", default_root, claims, session_for, read_whole=read_whole, stat=_stat,
              shell_tools=SHELL_TOOLS, shares_root=True)
