"""OpenClaw (npm ``openclaw``; once Clawdbot and Moltbot) sessions, in its state dir (``$OPENCLAW_STATE_DIR``, else
``~/.openclaw``, ``~/.clawdbot`` or a profile's ``~/.openclaw-<name>``; ``$OPENCLAW_HOME`` stands for ``~``).

Read from openclaw 2026.7.1 and 2026.9.6 (the published builds, run offline) and their code. Each line of a
transcript is an entry of Pi's session format (``pi.parse_line``), header version 3 or 4. Where they are:

* up to 2026.7.1 (and the 2026.7.3x line): ``agents/<agent>/sessions/<id>.jsonl``, and the renamed
  ``<id>.jsonl.reset.<time>`` / ``.deleted.<time>`` that are an earlier history's only copy;
* since 2026.8.1: ``agents/<agent>/agent/openclaw-agent.sqlite``, table ``transcript_events`` (a session's
  entries by ``seq``; 2026.9.6 keeps a large entry zstd-compressed in ``event_zstd``), rewritten in place, so a
  session is read again whole when its rows change; ``session_windows`` and ``session_nodes`` give a session its
  name and the session that spawned it. A session deleted, reset or pruned for space leaves its rows as a
  compressed archive, ``sessions/<id>.jsonl.<deleted|reset>.<time>[.<generation>].zst``, read too. (Not read: the
  import archive, which repeats the database, and cold storage.)

What each entry says beyond Pi's is read by ``openclaw_entries``. A transcript file is its header's session (2026.7
named a Telegram topic's ``<id>-topic-<n>.jsonl``, a fork's ``<time>_<id>.jsonl``), so the database it was imported
into holds the same records, not a copy. The ACP stream logs beside the transcripts, run traces and half-written
archives are not transcripts.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from backscroll.ingest.sources import (
    Agent,
    ContentError,
    SourceUnit,
    WholeRead,
    as_dict,
    as_str,
    db_stat,
    file_stat,
    index_beside,
    read_db_snapshot,
    read_regular,
)
from backscroll.ingest.sources.common import NO_CODEC, zstd_decompress
from backscroll.ingest.sources.jsontext import loads
from backscroll.ingest.sources.openclaw_entries import SHELL_TOOLS, entries_records
from backscroll.types import SessionInfo

DATABASE = "openclaw-agent.sqlite"
MAX_WHOLE_BYTES = 256 * 1024 * 1024
_ARCHIVED = re.compile(r"\.jsonl\.(?:reset|deleted)\.[^/]*$")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)


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
    if name.endswith(".tmp") or any(part in name for part in (".trajectory.", ".checkpoint.", ".acp-stream.")):
        return False
    return name.endswith(".jsonl") or bool(_ARCHIVED.search(name))


def session_for(path: Path) -> SessionInfo:
    stem = path.name.split(".jsonl", 1)[0]
    found = _UUID.search(stem)
    return SessionInfo(found.group(0).lower() if found else stem, "openclaw")


def _sessions(index: object) -> dict[str, tuple[str | None, str | None, bool]]:
    """``sessions.json``'s ``{<session key>: {sessionId, label, displayName, spawnedBy}}``: session id -> its name,
    the session that spawned it, and whether it is a subagent's."""
    entries = as_dict(index)
    ids = {k: as_dict(e).get("sessionId") for k, e in entries.items()}
    out = {}
    for k, e in entries.items():
        e = as_dict(e)
        if isinstance(e.get("sessionId"), str):
            name = next((v.strip() for v in (e.get("label"), e.get("displayName")) if isinstance(v, str) and v.strip()),
                        None)
            parent = ids.get(as_str(e.get("spawnedBy")) or as_str(e.get("parentSessionKey")))
            out[e["sessionId"]] = (name, parent if isinstance(parent, str) else None, ":subagent:" in k)
    return out


def _file_sessions(folder: Path) -> dict[str, tuple[str | None, str | None, bool]]:
    return index_beside(folder / "sessions.json", _sessions) or {}


def _read_file(path: Path) -> WholeRead:
    lines: list[tuple[int, object]] = []
    skipped: list[tuple[int, str]] = []
    data = read_regular(path, MAX_WHOLE_BYTES)
    if path.suffix == ".zst":  # an archive 2026.8 on rebuilt from a deleted or pruned session's rows
        try:
            unpacked = zstd_decompress(data)
        except Exception as exc:  # (each codec raises its own error on a damaged frame)
            raise ContentError(f"an archive that does not decompress: {type(exc).__name__}") from None
        if unpacked is None:
            raise OSError(NO_CODEC)  # (read again once a codec is installed)
        data = unpacked
    for n, raw in enumerate(data.splitlines(), 1):
        if raw.strip():
            try:
                lines.append((n, loads(raw)))
            except ValueError:
                skipped.append((n, "not JSON"))
    header = as_dict(lines[0][1]) if lines else {}
    own = as_str(header.get("id")).strip() if header.get("type") == "session" else ""
    sid = own or session_for(path).session_id
    title, parent, sub = _file_sessions(path.parent).get(sid, (None, None, False))
    info = SessionInfo(sid, "openclaw", title=title, parent_session_id=parent, is_sidechain=sub)
    info, records, more, unknown = entries_records(lines, info)
    return WholeRead([SourceUnit(str(path), info, records, skipped + more, unknown)], {})


def _columns(conn, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _windows(conn) -> dict[str, tuple[str | None, str | None, bool]]:
    """Each session's name, the session that spawned it (the parent's window open when it was made) and whether it is
    a subagent's, from the windows and nodes."""
    cols = _columns(conn, "session_windows")
    if not {"session_id", "session_key", "created_at"} <= cols:
        return {}
    name = "display_name" if "display_name" in cols else "NULL"
    parent = f"COALESCE({', '.join(c for c in ('parent_session_key', 'spawned_by') if c in cols) or 'NULL'}, NULL)"
    node_cols = _columns(conn, "session_nodes")
    labels = dict(conn.execute("SELECT session_key, COALESCE(label, display_name) FROM session_nodes")) \
        if {"session_key", "label", "display_name"} <= node_cols else {}
    rows = list(conn.execute(f"SELECT session_id, session_key, {name}, {parent}, created_at FROM session_windows "
                             "ORDER BY created_at"))
    opened: dict[str, list[tuple[object, str]]] = {}
    for sid, key, _title, _parent, made in rows:
        opened.setdefault(key, []).append((made, sid))
    out = {}
    for sid, key, title, parent_key, made in rows:
        windows = opened.get(parent_key, []) if parent_key else []
        before = [w for at, w in windows if isinstance(at, int) and isinstance(made, int) and at <= made]
        spawner = before[-1] if before else (windows[-1][1] if windows else None)
        named = title if isinstance(title, str) and title.strip() else labels.get(key)
        out[sid] = (named if isinstance(named, str) and named.strip() else None, spawner, ":subagent:" in str(key))
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
            try:
                raw = text if isinstance(text, str) else zstd_decompress(blob) if isinstance(blob, bytes) else b""
            except Exception as exc:  # (each codec raises its own error on a damaged frame: that row alone is lost)
                problems.append((seq + 1, f"a compressed row that does not decompress: {type(exc).__name__}"))
                continue
            if raw is None:
                codec_missing = True
                problems.append((seq + 1, NO_CODEC))
                continue
            try:
                lines.append((seq + 1, loads(raw)))
            except ValueError:
                problems.append((seq + 1, "not JSON"))
        title, parent, sub = windows.get(sid, (None, None, False))
        info = SessionInfo(sid, "openclaw", title=title, parent_session_id=parent, is_sidechain=sub)
        info, records, skipped, unknown = entries_records(lines, info)
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
