"""Goose (block/goose) sessions: ``sessions/sessions.db`` (v1.10+) and the older ``sessions/*.jsonl``.

Format read from block/goose ``crates/goose/src/session/session_manager.rs`` (schema version 9),
``session/legacy.rs`` and ``conversation/message.rs`` (main branch, Dec 2025). The data dir is
``$GOOSE_PATH_ROOT/data`` when set, else ``$XDG_DATA_HOME/goose``, else ``~/.local/share/goose``.

- **Database**: ``sessions(id, name, description, session_type, working_dir, created_at,
  updated_at, ...)`` and ``messages(id INTEGER, message_id, session_id, role, content_json,
  created_timestamp, metadata_json)``, written by Goose in WAL mode. Opened read-only; the file state
  keeps each session's ``updated_at`` and the highest message rowid, so a sync re-reads only the
  sessions that changed. Each session is a unit keyed ``<db path>#<session id>``.
- **Older JSONL** (imported into the database by Goose on first start): line 1 is the session
  metadata (``working_dir``, ``description``/``name``), every other line one message.

A message is ``{role, created, content: [...], metadata: {userVisible}}``; content items are tagged
``type``: ``text``; ``thinking`` (reasoning records); ``toolRequest`` ``{id, toolCall: {status,
value: {name, arguments}}}``; ``toolResponse`` ``{id, toolResult: {status, value: {content,
isError} | [content]}}`` paired with its request. Images, redacted thinking, confirmations, system
notifications and messages hidden from the user (compaction summaries) are not records. The shell
tool is ``developer__shell`` (``shell`` in newer builds). Record ids are
``<session>:<message position>#<item>`` in both generations, so an imported session is stored once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    as_dict,
    block_text,
    clean_text,
    db_stat,
    file_stat,
    jsontext,
    read_db_snapshot,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"developer__shell", "shell"}
_SUBAGENT_TYPES = {"sub_agent", "subagent"}


def default_root(env):
    if env.get("GOOSE_PATH_ROOT"):
        return Path(os.path.expanduser(env["GOOSE_PATH_ROOT"])) / "data" / "sessions", "env $GOOSE_PATH_ROOT"
    if env.get("XDG_DATA_HOME"):
        return Path(os.path.expanduser(env["XDG_DATA_HOME"])) / "goose" / "sessions", "env $XDG_DATA_HOME"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local/share/goose/sessions", "default"


def _is_db(path: Path) -> bool:
    return path.name == "sessions.db"


def claims(path: Path) -> bool:
    if _is_db(path):
        return True
    # ``<data dir>/sessions/*.jsonl``: the data dir is ``.../goose`` or ``$GOOSE_PATH_ROOT/data``.
    return path.suffix == ".jsonl" and path.parent.name == "sessions" and path.parent.parent.name in ("goose", "data")


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.name if _is_db(path) else path.stem, "goose")


def stat(path: Path) -> tuple[int, int]:
    return db_stat(path) if _is_db(path) else file_stat(path)


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _decode(raw: object) -> object:
    if isinstance(raw, (str, bytes)):
        try:
            return jsontext.loads(raw)
        except orjson.JSONDecodeError:
            return None
    return raw


def _call(item: dict) -> tuple[str, str, str | None]:
    call = as_dict(item.get("toolCall"))
    value = as_dict(call.get("value"))
    name = _str(value.get("name")) or "tool"
    args = value.get("arguments")
    if call.get("status") == "error" and not value:
        return name, f"{name}\n{block_text(call.get('error'))}".strip(), None
    if name in SHELL_TOOLS and isinstance(args, dict) and _str(args.get("command")):
        return name, args["command"].strip(), args["command"]
    body = render_input(args) if args not in (None, "", {}, []) else ""
    return name, (f"{name}\n{body}" if body else name), None


def _response(item: dict) -> tuple[str, bool]:
    result = as_dict(item.get("toolResult"))
    if result.get("status") == "error":
        return block_text(result.get("error")).strip(), True
    value = result.get("value")
    if isinstance(value, dict):  # an MCP CallToolResult
        return block_text(_for_assistant(value.get("content"))).strip(), value.get("isError") is True
    return block_text(_for_assistant(value)).strip(), False


def _for_assistant(content: object) -> object:
    """Drop content items addressed only to the user interface (``audience: ["user"]``)."""
    if not isinstance(content, list):
        return content
    kept = []
    for c in content:
        audience = c.get("annotations", {}).get("audience") if isinstance(c, dict) and isinstance(
            c.get("annotations"), dict) else None
        if isinstance(audience, list) and audience and "assistant" not in audience:
            continue
        kept.append(c)
    return kept


def _texts(msg: object) -> tuple[str, ...]:
    content = msg.get("content") if isinstance(msg, dict) else None
    return tuple(c["text"].strip() for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)) \
        if isinstance(content, list) else ()


def _message_records(msg: object, pos: int, info: SessionInfo, summary: bool = True) -> list[Record] | str:
    """The records of one message (its position in the session is ``pos``), or why it is unreadable. ``summary``: an
    agent-only message in the user's role is a compaction's summary (not a copy of the person's prompt)."""
    if not isinstance(msg, dict):
        return "message is not a JSON object"
    role = msg.get("role")
    content = msg.get("content")
    if role not in ("user", "assistant") or not isinstance(content, list):
        return "message without a role and a content list"
    meta = as_dict(msg.get("metadata"))
    if meta.get("userVisible") is False:
        # agent-only: a compaction's summary (in the user's role) is kept as one; its nudge and the hidden copies (the
        # originals it replaced, the person's prompt put back after it) are not records
        if meta.get("agentVisible") is False or role != "user" or not summary or meta.get("turnContext") is True:
            return []  # (newer Goose's per-turn ``<turn-context>``, kept for the model, is no summary either)
        return [Record(f"{info.session_id}:{pos}#{i}", "assistant", "summary", clean_text(item["text"]), pos,
                       normalize_timestamp(msg.get("created")), info.cwd)
                for i, item in enumerate(content) if isinstance(item, dict) and item.get("type") == "text"
                and isinstance(item.get("text"), str) and clean_text(item["text"])
                and not item["text"].lstrip().startswith("<turn-context>")]
    ts = normalize_timestamp(msg.get("created"))
    base = f"{info.session_id}:{pos}"
    records: list[Record] = []
    for i, item in enumerate(content):
        if not isinstance(item, dict):
            continue
        kind, rid = item.get("type"), f"{base}#{i}"
        if kind == "text" and isinstance(item.get("text"), str):
            text = clean_text(item["text"])
            if text:
                records.append(Record(rid, role, "text", text, pos, ts, info.cwd))
        elif kind in ("thinking", "reasoning") and (said := next((item[k].strip() for k in ("thinking", "text")
                                                                   if isinstance(item.get(k), str)), "")):
            records.append(Record(rid, "assistant", "reasoning", said, pos, ts, info.cwd))
        elif kind in ("toolRequest", "frontendToolRequest"):
            name, text, command = _call(item)
            records.append(Record(rid, "tool", "tool", text, pos, ts, info.cwd, name, _str(item.get("id")),
                                  command=command))
        elif kind == "toolResponse":
            text, failed = _response(item)
            if text:
                records.append(Record(rid, "tool", "tool", text, pos, ts, info.cwd, None, _str(item.get("id")),
                                      is_error=failed))
    return records


# Content types with nothing to search (an image, a confirmation or notice the UI showed, encrypted thinking); any
# other one is counted for ``status`` as not understood.
_KNOWN_TYPES = {"text", "thinking", "reasoning", "toolRequest", "frontendToolRequest", "toolResponse", "image",
                "redactedThinking", "toolConfirmationRequest", "actionRequired", "systemNotification"}


def _unit(key: str, info: SessionInfo, messages: Sequence[object]) -> SourceUnit:
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    unknown: dict[str, int] = {}
    said: set[tuple[str, ...]] = set()  # what the person's visible messages said (a copy of one is no summary)
    for pos, msg in enumerate(messages, 1):
        out = _message_records(msg, pos, info, summary=_texts(msg) not in said)
        if isinstance(msg, dict) and msg.get("role") == "user" and as_dict(msg.get("metadata")).get("userVisible") \
                is not False:
            said.add(_texts(msg))
        if isinstance(out, str):
            skipped.append((pos, out))
            continue
        records.extend(out)
        for item in msg["content"] if isinstance(msg, dict) and isinstance(msg.get("content"), list) else []:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind not in _KNOWN_TYPES:
                unknown[str(kind)] = unknown.get(str(kind), 0) + 1
    return SourceUnit(key, info, records, skipped, unknown)


# -- the database ------------------------------------------------------------------------------

def _read_snapshot(conn, path: Path, state: dict) -> WholeRead:
    scols = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    mcols = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
    if not {"id", "working_dir"} <= scols or not {"session_id", "content_json"} <= mcols:
        raise OSError("no sessions and messages tables: not a Goose database")
    name = "name" if "name" in scols else "description"
    stype = "session_type" if "session_type" in scols else "NULL"
    desc = "description" if "description" in scols else "NULL"
    parent = "parent_session_id" if "parent_session_id" in scols else "NULL"  # (schema 15 on)
    sessions = conn.execute(
        f"SELECT id, {name}, {desc}, working_dir, {stype}, updated_at, {parent} FROM sessions").fetchall()
    prev = as_dict(state.get("sessions"))
    top = conn.execute("SELECT max(rowid) FROM messages").fetchone()[0] or 0
    seen = state.get("message_rowid")
    touched: set[str] = set()
    reread_all = isinstance(seen, int) and top < seen
    if isinstance(seen, int) and top > seen:
        touched = {r[0] for r in conn.execute("SELECT DISTINCT session_id FROM messages WHERE rowid > ?", (seen,))}
    units, fingerprints = [], {}
    for sid, title, description, cwd, kind, updated, parent_id in sessions:
        if not isinstance(sid, str):
            continue
        fp = updated if isinstance(updated, (int, float, str)) or updated is None else str(updated)
        fingerprints[sid] = fp
        if not reread_all and prev.get(sid, object()) == fp and sid not in touched:
            continue
        info = SessionInfo(sid, "goose", cwd=_str(cwd), title=_str(title) or _str(description),
                           is_sidechain=kind in _SUBAGENT_TYPES, parent_session_id=_str(parent_id))
        rows = conn.execute("SELECT content_json, role, created_timestamp, metadata_json FROM messages "
                            "WHERE session_id = ? ORDER BY created_timestamp, id", (sid,)).fetchall()
        messages = []
        for content, role, created, meta in rows:
            decoded = _decode(content)
            messages.append({"role": role, "content": decoded, "created": created,
                             "metadata": _decode(meta) or {}} if decoded is not None else None)
        units.append(_unit(f"{path}#{sid}", info, messages))
    return WholeRead(units, {"sessions": fingerprints, "message_rowid": top})


def _read_jsonl(path: Path) -> WholeRead:
    lines = path.read_bytes().splitlines()
    header = _decode(lines[0]) if lines else None
    if not isinstance(header, dict):
        raise OSError("Goose session file without its metadata line")
    info = SessionInfo(path.stem, "goose", cwd=_str(header.get("working_dir")),
                       title=_str(header.get("name")) or _str(header.get("description")))
    return WholeRead([_unit(str(path), info, [_decode(line) for line in lines[1:] if line.strip()])], {})


def read_whole(path: Path, state: dict) -> WholeRead:
    if _is_db(path):
        return read_db_snapshot(path, lambda conn: _read_snapshot(conn, path, state), "Goose")
    return _read_jsonl(path)


AGENT = Agent("goose", default_root, claims, session_for,
              read_whole=read_whole, stat=stat, shell_tools=frozenset(SHELL_TOOLS))
