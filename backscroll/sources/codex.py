"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Records come from ``response_item`` lines: messages, ``function_call`` / ``custom_tool_call`` /
``local_shell_call`` and their outputs (paired by ``call_id``; a JSON-string output is unwrapped to
its inner text). ``event_msg`` lines repeat the same messages for the UI and are not indexed again;
injected context (environment, AGENTS.md, developer instructions) and encrypted reasoning are not
records.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import orjson

from ..dates import normalize_timestamp
from ..records import Record, SessionInfo
from . import EMPTY, Agent, LineError, ParsedLine, block_text, clean_text, home_root, render_input

_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE)
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<turn_aborted>",
)
_SHELLS = {"bash", "sh", "zsh", "dash"}
_OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}


def default_root(env):
    return home_root(env, "CODEX_HOME", "sessions", ".codex/sessions")


def claims(path: Path) -> bool:
    return path.suffix == ".jsonl" and path.name.startswith("rollout-")


def session_for(path: Path) -> SessionInfo:
    m = _UUID.search(path.stem)
    return SessionInfo(m.group(1).lower() if m else path.stem, "codex")


def _argv_text(argv: list) -> str:
    """``["bash","-lc","script"]`` reads as the script; any other argv as a shell-quoted line."""
    if (len(argv) == 3 and isinstance(argv[2], str) and Path(str(argv[0])).name in _SHELLS
            and str(argv[1]).startswith("-") and "c" in str(argv[1])):
        return argv[2]
    return shlex.join(str(a) for a in argv)


def _call(payload: dict) -> tuple[str, str, str | list | None]:
    """(tool name, record text, shell command) of a tool call payload."""
    ptype = payload.get("type")
    if ptype == "local_shell_call":
        action = payload.get("action") if isinstance(payload.get("action"), dict) else {}
        argv = action.get("command")
        if isinstance(argv, list):
            return "local_shell", _argv_text(argv), argv
        return "local_shell", render_input(action), None
    name = payload.get("name") if isinstance(payload.get("name"), str) else "tool"
    if isinstance(payload.get("namespace"), str) and payload["namespace"]:
        name = f"{payload['namespace']}__{name}"  # MCP tools: namespace "mcp__<server>", name "<tool>"
    if ptype == "custom_tool_call":
        inp = payload.get("input")
        return name, f"{name}\n{inp if isinstance(inp, str) else render_input(inp)}", None
    raw = payload.get("arguments")
    args: object = raw
    if isinstance(raw, str):
        try:
            args = orjson.loads(raw)
        except orjson.JSONDecodeError:
            args = raw
    if isinstance(args, dict):
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list) and command:
            return name, _argv_text(command), command
        if isinstance(command, str) and command.strip():
            return name, command, command
    return name, f"{name}\n{render_input(args)}" if args not in (None, "", {}) else name, None


def _output(payload: dict) -> tuple[str, bool]:
    """Inner text of a tool output and whether it reports failure."""
    out = payload.get("output")
    failed = False
    if isinstance(out, str) and out[:1] == "{":
        try:
            decoded = orjson.loads(out)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict) and "output" in decoded:
            out = decoded
    if isinstance(out, dict):
        meta = out.get("metadata") if isinstance(out.get("metadata"), dict) else {}
        code = meta.get("exit_code", out.get("exit_code"))
        failed = isinstance(code, int) and code != 0
        if out.get("success") is False:
            failed = True
        out = out.get("output", out.get("content"))
    return block_text(out).strip(), failed


def _hook_context(payload: dict, base: str, line_no: int, ts, cwd) -> ParsedLine:
    """A developer message a hook added (``hooks.additional_context``): backscroll's recall blocks are echoes."""
    content = payload.get("content")
    if isinstance(content, str):
        content = [{"text": content}]
    if not isinstance(content, list):
        return EMPTY
    return ParsedLine([Record(f"{base}#{i}", "tool", "tool", clean_text(b["text"]), line_no, ts, cwd, echo=True)
                       for i, b in enumerate(content)
                       if isinstance(b, dict) and isinstance(b.get("text"), str) and "<backscroll-recall" in b["text"]],
                      {})


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    payload = obj.get("payload")
    if kind in ("session_meta", "turn_context"):
        if not isinstance(payload, dict):
            raise LineError(f"{kind} without a payload object")
        updates: dict = {}
        if isinstance(payload.get("cwd"), str):
            updates["cwd"] = payload["cwd"]
        if kind == "session_meta":
            source = payload.get("source")
            spawn = source.get("subagent") if isinstance(source, dict) else None
            spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
            if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
                updates["is_sidechain"] = True
                updates["parent_session_id"] = spawn["parent_thread_id"]
        return ParsedLine([], updates)
    if kind != "response_item":
        return EMPTY
    if not isinstance(payload, dict):
        raise LineError("response_item without a payload object")

    ts = normalize_timestamp(obj.get("timestamp"))
    cwd = session.cwd
    base = f"{session.session_id}:{line_no}"
    ptype = payload.get("type")
    if ptype == "message":
        role = payload.get("role")
        if role == "developer":
            return _hook_context(payload, base, line_no, ts, cwd)
        if role not in ("user", "assistant"):
            return EMPTY
        content = payload.get("content")
        if isinstance(content, str):
            content = [{"type": "input_text", "text": content}]
        if not isinstance(content, list):
            raise LineError(f"message content is {type(content).__name__}, expected a list")
        records = []
        for i, block in enumerate(content):
            if not isinstance(block, dict) or not isinstance(block.get("text"), str):
                continue
            text = clean_text(block["text"])
            if not text or (role == "user" and text.startswith(_INJECTED_PREFIXES)):
                continue
            records.append(Record(f"{base}#{i}", role, "text", text, line_no, ts, cwd))
        return ParsedLine(records, {})
    if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
        name, text, command = _call(payload)
        call_id = payload.get("call_id") or payload.get("id")
        call_id = call_id if isinstance(call_id, str) else None
        return ParsedLine([Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, name, call_id,
                                  command=command)], {})
    if ptype in _OUTPUT_TYPES:
        text, failed = _output(payload)
        call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
        if not text:
            return EMPTY
        return ParsedLine([Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, None, call_id,
                                  is_error=failed)], {})
    return EMPTY


AGENT = Agent("codex", default_root, claims, session_for, parse_line)
