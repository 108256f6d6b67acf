"""Factory Droid sessions: ``~/.factory/sessions/<cwd slug>/<session uuid>.jsonl``.

Format read from: Factory publishes no schema and Droid is closed source; the shape here is what
Droid CLI 0.2x writes (as read by public third-party readers of ``~/.factory/sessions``, Dec 2025,
and the ``.settings.json`` beside each session: model, autonomy, token usage, not indexed). Files
are append-only JSONL, read line by line. Older builds keep files directly in ``sessions/``.

Line 1 is ``{"type": "session_start", "id", "title", "sessionTitle", "owner", "cwd", "version"}`` (the title is
Droid's own ``sessionTitle`` unless it is still "New Session", else the first prompt's line; a worker, the session a
Task subagent runs as, names the session that called it, ``callingSessionId``, and is linked to it); then
``{"type": "message", "id", "timestamp", "message": {"role", "content": [blocks]}}``, where blocks
are Anthropic-shaped: ``text``, ``thinking`` (reasoning records), ``tool_use`` ``{id, name, input}``
and, in user messages, ``tool_result`` ``{tool_use_id, content, is_error}`` paired with its call.
The shell tool is ``Execute`` (``input.command``). A ``compaction_state``'s summary is a summary record;
``todo_state`` and other entry types are not records. Record ids are ``<session>:<message id>#<block>``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    block_text,
    clean_text,
    render_input,
    title_line,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"Execute"}
# Entry types that hold nothing to search (the plan, settings, a turn's outcome), as public readers list them.
KNOWN_SKIPPED = {"todo_state", "session_settings", "agent_turn_outcome"}
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


def default_root(env):
    if env.get("FACTORY_HOME_OVERRIDE"):  # (the home ``.factory`` is in, as the desktop app sets it for its daemon)
        return Path(os.path.expanduser(env["FACTORY_HOME_OVERRIDE"])) / ".factory" / "sessions", \
            "env $FACTORY_HOME_OVERRIDE"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".factory" / "sessions", "default"


def claims(path: Path) -> bool:
    """``<uuid>.jsonl`` inside a ``.factory`` tree, or beside its ``<uuid>.settings.json``."""
    if path.suffix != ".jsonl" or not _UUID.match(path.stem):
        return False
    return ".factory" in path.parts or path.with_name(f"{path.stem}.settings.json").is_file()


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.stem.lower(), "droid")


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _call(block: dict) -> tuple[str, str, str | None]:
    name = _str(block.get("name")) or "tool"
    inp = block.get("input")
    if name in SHELL_TOOLS and isinstance(inp, dict) and _str(inp.get("command")):
        return name, inp["command"], inp["command"]
    body = render_input(inp) if inp not in (None, "", {}, []) else ""
    return name, (f"{name}\n{body}" if body else name), None


def _message(obj: dict, line_no: int, session: SessionInfo) -> list[Record]:
    message = obj.get("message")
    if not isinstance(message, dict):
        raise LineError("message entry without a message object")
    role = message.get("role")
    if role not in ("user", "assistant"):
        return []
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise LineError(f"message content is {type(content).__name__}, expected a list of blocks")
    mid = _str(obj.get("id")) or f"line{line_no}"
    base = f"{session.session_id}:{mid}"
    ts = normalize_timestamp(obj.get("timestamp"))
    records: list[Record] = []
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        rid = f"{base}#{i}"
        if kind == "text" and isinstance(block.get("text"), str):
            text = clean_text(block["text"])
            if text:
                records.append(Record(rid, role, "text", text, line_no, ts, session.cwd))
        elif kind == "thinking" and role == "assistant" and isinstance(block.get("thinking"), str):
            text = block["thinking"].strip()
            if text:
                records.append(Record(rid, "assistant", "reasoning", text, line_no, ts, session.cwd))
        elif kind == "tool_use" and role == "assistant":
            name, text, command = _call(block)
            records.append(Record(rid, "tool", "tool", text, line_no, ts, session.cwd, name,
                                  _str(block.get("id")), command=command))
        elif kind == "tool_result":
            text = block_text(block.get("content")).strip()
            if text:
                records.append(Record(rid, "tool", "tool", text, line_no, ts, session.cwd, None,
                                      _str(block.get("tool_use_id")), is_error=block.get("is_error") is True))
    return records


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "session_start":
        named = _str(obj.get("sessionTitle"))  # (Droid's own title; ``title`` is the first prompt, or a brief)
        prompt = _str(obj.get("title")) or ""
        parent = _str(obj.get("callingSessionId"))  # a worker (a Task subagent) runs as a session of its own
        worker = bool(parent) or prompt.startswith("# Task Tool Invocation")
        own = named if named and named.lower() != "new session" else None
        updates: dict = {"cwd": _str(obj.get("cwd")), "title": own or (None if worker else title_line(prompt))}
        sid = _str(obj.get("id"))
        if sid:
            updates["session_id"] = sid
        if worker:
            updates.update(is_sidechain=True, parent_session_id=parent)
        return ParsedLine([], updates)
    if kind == "message":
        return ParsedLine(_message(obj, line_no, session), {})
    if not isinstance(kind, str):
        raise LineError("entry without a type")
    if kind == "compaction_state":  # its summary (``summaryText``, or ``summary.body`` in other builds)
        summary = obj.get("summary")
        text = clean_text(_str(obj.get("summaryText")) or (_str(summary.get("body")) if isinstance(summary, dict)
                                                              else _str(summary)) or "")
        return ParsedLine([Record(f"{session.session_id}:{line_no}#s", "assistant", "summary", text, line_no,
                                  normalize_timestamp(obj.get("timestamp")), session.cwd)] if text else [], {})
    return EMPTY if kind in KNOWN_SKIPPED else ParsedLine([], {}, unknown=kind)  # (counted for ``status``)


AGENT = Agent("droid", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS))
