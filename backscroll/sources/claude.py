"""Claude Code sessions: ``~/.claude/projects/<slug>/<session>.jsonl`` and subagent transcripts.

Subagents live in ``<slug>/<session>/subagents/agent-<id>.jsonl`` (older builds: ``<slug>/agent-<id>.jsonl``)
and become sessions of their own, linked to the parent. One record per text block, ``tool_use`` and
``tool_result``; thinking, images, snapshots, meta and system lines are not records; ``summary`` lines
title the session.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..dates import normalize_timestamp
from ..records import Record, SessionInfo
from . import EMPTY, Agent, LineError, ParsedLine, block_text, clean_text, home_root, render_input

SHELL_TOOLS = {"Bash"}
_SKIP_USER_PREFIXES = ("[Request interrupted", "Caveat: The messages below were generated")


def default_root(env):
    return home_root(env, "CLAUDE_CONFIG_DIR", "projects", ".claude/projects")


_SESSION_FILE = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|agent-[\w-]+)\.jsonl$", re.I)


def claims(path: Path) -> bool:
    """``<session uuid>.jsonl`` and ``agent-<id>.jsonl`` files (not other agents' JSONL in a shared root)."""
    return bool(_SESSION_FILE.match(path.name))


def session_for(path: Path) -> SessionInfo:
    stem = path.stem
    if stem.startswith("agent-"):
        if path.parent.name == "subagents":
            parent = path.parent.parent.name
            return SessionInfo(f"{parent}:{stem}", "claude", is_sidechain=True, parent_session_id=parent)
        return SessionInfo(stem, "claude", is_sidechain=True)
    return SessionInfo(stem, "claude")


def _tool_use_text(name: str, inp: object) -> tuple[str, str | list | None]:
    if name in SHELL_TOOLS and isinstance(inp, dict) and isinstance(inp.get("command"), str):
        return inp["command"], inp["command"]
    body = render_input(inp) if inp not in (None, {}) else ""
    return (f"{name}\n{body}" if body else name), None


def _hook_context(obj: dict, line_no: int) -> ParsedLine:
    """A hook's injected context: only backscroll's own recall blocks are kept, as echoes."""
    att = obj.get("attachment")
    if not isinstance(att, dict) or att.get("type") != "hook_additional_context":
        return EMPTY
    content = att.get("content")
    texts = [content] if isinstance(content, str) else [c for c in content if isinstance(c, str)] \
        if isinstance(content, list) else []
    uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else f"attachment:{line_no}"
    ts = normalize_timestamp(obj.get("timestamp"))
    cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
    return ParsedLine([Record(f"{uuid}#{i}", "tool", "tool", clean_text(t), line_no, ts, cwd, echo=True)
                       for i, t in enumerate(texts) if "<backscroll-recall" in t], {})


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "summary":
        summary = obj.get("summary")
        return ParsedLine([], {"title": summary.strip()}) if isinstance(summary, str) and summary.strip() else EMPTY
    if kind == "attachment":
        return _hook_context(obj, line_no)
    if kind not in ("user", "assistant") or obj.get("isMeta"):
        return EMPTY

    updates: dict = {}
    cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
    if cwd and session.cwd is None:
        updates["cwd"] = cwd
    if session.is_sidechain and session.parent_session_id is None and isinstance(obj.get("sessionId"), str):
        updates["parent_session_id"] = obj["sessionId"]

    message = obj.get("message")
    if not isinstance(message, dict):
        raise LineError("message is missing or not an object")
    content = message.get("content")
    role = message.get("role") if message.get("role") in ("user", "assistant") else kind
    uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else f"{session.session_id}:{line_no}"
    ts = normalize_timestamp(obj.get("timestamp"))

    if isinstance(content, str):
        blocks: list = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        raise LineError(f"message.content is {type(content).__name__}, expected text or a list of blocks")

    records: list[Record] = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        rid = f"{uuid}#{i}"
        if btype == "text" and isinstance(block.get("text"), str):
            text = clean_text(block["text"])
            if not text or (role == "user" and text.startswith(_SKIP_USER_PREFIXES)):
                continue
            records.append(Record(rid, role, "text", text, line_no, ts, cwd))
        elif btype == "tool_use":
            name = block.get("name") if isinstance(block.get("name"), str) else "tool"
            text, command = _tool_use_text(name, block.get("input"))
            call_id = block.get("id") if isinstance(block.get("id"), str) else None
            records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, name, call_id, command=command))
        elif btype == "tool_result":
            text = block_text(block.get("content")).strip()
            call_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None
            if text:
                records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, None, call_id,
                                      is_error=block.get("is_error") is True))
    return ParsedLine(records, updates)


AGENT = Agent("claude", default_root, claims, session_for, parse_line)
