"""Cursor's message shapes turned into records: the agent CLI's JSON message blobs (AI SDK shape:
``{role, content}`` with ``text``, ``reasoning``, ``tool-call`` and ``tool-result`` parts; the user's
words are the ``<user_query>``, ``<user_info>`` gives the workspace path) and the editor's composer
bubbles (``type`` 1 user / 2 assistant, ``text``, ``thinking``, ``toolFormerData``).

This module owns those shapes and which tool names run a shell command; ``cursor`` finds and reads
the databases that hold them.
"""

from __future__ import annotations

import re

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import block_text, clean_text, jsontext, render_input
from backscroll.types import Record, SessionInfo

_SHELL = re.compile(r"^(run_terminal_(cmd|command)(_v\d+)?|Shell|shell|terminal)$")
# The names ``_SHELL`` has been seen to match (for views; ingest stores each call's own fact).
SHELL_TOOLS = {"run_terminal_cmd", "run_terminal_command", "run_terminal_command_v2", "Shell", "shell", "terminal"}
_BUBBLE_ROLES: dict[object, str] = {1: "user", 2: "assistant"}  # a bubble's ``type``
_WORKSPACE = re.compile(r"Workspace Path:\s*(\S[^\n]*)")
_CONTEXT_BLOCKS = re.compile(r"<(user_info|attached_files|system_reminder|rules|project_layout|git_status)>.*?</\1>",
                             re.DOTALL)


def user_query(text: str) -> str | None:
    """The person's words inside ``<user_query>``: from the first opening tag outside the context blocks before it
    (an attached file may hold the tag) to the last closing one (words that name the tag, ``</user_query>`` quoted in
    a question, stay words), or None when the text holds no such block. Pure."""
    blocks = [m.span() for m in _CONTEXT_BLOCKS.finditer(text)] if "<user_query>" in text else []
    start = next((m.start() for m in re.finditer("<user_query>", text)
                  if not any(a <= m.start() < b for a, b in blocks)), -1)
    end = text.rfind("</user_query>")
    return text[start + len("<user_query>"):end].strip() if 0 <= start < end else None


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _loads(raw: object) -> object:
    if isinstance(raw, memoryview):
        raw = bytes(raw)
    if not isinstance(raw, (str, bytes)) or not raw:
        return None
    try:
        return jsontext.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _args(raw: object) -> object:
    if isinstance(raw, str):
        parsed = _loads(raw)
        return parsed if parsed is not None else raw
    return raw


def _call(name: str, args: object) -> tuple[str, str | None]:
    args = _args(args)
    command = args.get("command") if _SHELL.match(name) and isinstance(args, dict) else None
    if isinstance(command, str) and command.strip():
        return command, command
    return (f"{name}\n{render_input(args)}" if args not in (None, "", {}) else name), None


def _result_text(raw: object) -> str:
    value = _args(raw)
    if isinstance(value, dict):
        for key in ("output", "contents", "content", "result", "error"):
            if value.get(key) not in (None, ""):
                return block_text(value[key])
        return render_input(value) if value else ""
    return block_text(value)


def cli_messages_records(messages: list[tuple[str, dict]], session: SessionInfo) -> tuple[list[Record], str | None]:
    """Records of the CLI's JSON message blobs, each with its blob's id (in stored order), and the workspace path.
    A record is keyed by its blob: a message's own ``id`` is "1" for every assistant message."""
    records: list[Record] = []
    cwd = None
    for n, (blob, msg) in enumerate(messages, 1):
        role = msg.get("role")
        if role not in ("user", "assistant", "tool"):
            continue
        content = msg.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        base = f"{session.session_id}:{blob or n}"
        for i, part in enumerate(parts if isinstance(parts, list) else []):
            if not isinstance(part, dict):
                continue
            rid = f"{base}#{i}"
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str) and role != "tool":
                text = part["text"]
                if role == "user":
                    found = _WORKSPACE.search(text)
                    if found and cwd is None:
                        cwd = found.group(1).strip()
                    query = user_query(text)
                    text = query if query is not None else _CONTEXT_BLOCKS.sub("", text)
                text = clean_text(text)
                if text:
                    records.append(Record(rid, role, "text", text, n, None, cwd))
            elif kind == "reasoning" and _s(part.get("text")).strip():
                records.append(Record(rid, "assistant", "reasoning", part["text"].strip(), n, None, cwd))
            elif kind == "tool-call":
                name = _s(part.get("toolName")) or "tool"
                text, command = _call(name, part.get("args", part.get("input")))
                records.append(Record(rid, "tool", "tool", text, n, None, cwd, name,
                                      _s(part.get("toolCallId")) or rid, command=command))
            elif kind == "tool-result":
                text = _result_text(part.get("result", part.get("output"))).strip()
                if text:
                    records.append(Record(rid, "tool", "tool", text, n, None, cwd, None,
                                          _s(part.get("toolCallId")) or None, is_error=part.get("isError") is True))
    return records, cwd


def bubble_records(bubbles: list[dict], session: SessionInfo, fallback_ts: str | None) -> list[Record]:
    records: list[Record] = []
    cwd = session.cwd
    for n, bubble in enumerate(bubbles, 1):
        bid = _s(bubble.get("bubbleId")) or str(n)
        rid = f"{session.session_id}:{bid}"
        ts = normalize_timestamp(bubble.get("createdAt")) or fallback_ts
        role = _BUBBLE_ROLES.get(bubble.get("type"))
        if role is None:
            continue
        thinking = bubble.get("thinking")
        thought = _s(thinking.get("text") if isinstance(thinking, dict) else thinking).strip()
        if thought:
            records.append(Record(f"{rid}#r", "assistant", "reasoning", thought, n, ts, cwd))
        text = clean_text(_s(bubble.get("text")))
        if text:
            records.append(Record(f"{rid}#0", role, "text", text, n, ts, cwd))
        tool = bubble.get("toolFormerData")
        if isinstance(tool, dict) and _s(tool.get("name")):
            name = tool["name"]
            call_id = _s(tool.get("toolCallId")) or rid
            # ``rawArgs`` is what the model asked; ``params`` is Cursor's own expansion of it, which
            # can drop the substance (``apply_patch`` keeps only the path) and adds internal ids.
            args = tool.get("rawArgs") if tool.get("rawArgs") not in (None, "", "{}") else tool.get("params")
            body, command = _call(name, args)
            records.append(Record(f"{rid}#1", "tool", "tool", body, n, ts, cwd, name, call_id, command=command))
            out = _result_text(tool.get("result")).strip()
            if out:
                records.append(Record(f"{rid}#2", "tool", "tool", out, n, ts, cwd, None, call_id,
                                      is_error=tool.get("status") == "error"))
    return records
