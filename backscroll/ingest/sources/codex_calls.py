"""Codex's tool call shapes: a call's name, readable text and shell command (an argv such as
``["bash", "-lc", script]`` reads as the script), a call output's inner text (a JSON-string or
object output unwrapped) and whether it failed (``exit_code``, ``success: false``, or a
``Process exited with code N`` / ``Exit code: N`` line), and a web search's queries.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import orjson

from backscroll.ingest.sources import as_dict, as_list, as_str, block_text, jsontext, render_input

_SHELLS = {"bash", "sh", "zsh", "dash"}
_EXIT_CODE = re.compile(r"(?:^|\n)(?:Process exited with code|Exit code:)\s*(-?\d+)")


def argv_text(argv: list) -> str:
    """``["bash","-lc","script"]`` reads as the script; any other argv as a shell-quoted line."""
    if (len(argv) == 3 and isinstance(argv[2], str) and Path(str(argv[0])).name in _SHELLS
            and str(argv[1]).startswith("-") and "c" in str(argv[1])):
        return argv[2]
    return shlex.join(str(a) for a in argv)


def tool_call(payload: dict) -> tuple[str, str, str | list | None]:
    """(tool name, record text, shell command) of a tool call payload."""
    ptype = payload.get("type")
    if ptype == "local_shell_call":
        action = as_dict(payload.get("action"))
        argv = action.get("command")
        if isinstance(argv, list):
            return "local_shell", argv_text(argv), argv
        return "local_shell", render_input(action), None
    name = as_str(payload.get("name"), "tool")
    if isinstance(payload.get("namespace"), str) and payload["namespace"]:
        name = f"{payload['namespace']}__{name}"  # MCP tools: namespace "mcp__<server>", name "<tool>"
    if ptype == "custom_tool_call":
        inp = payload.get("input")
        return name, f"{name}\n{inp if isinstance(inp, str) else render_input(inp)}", None
    raw = payload.get("arguments")
    args: object = raw
    if isinstance(raw, str):
        try:
            args = jsontext.loads(raw)
        except orjson.JSONDecodeError:
            args = raw
    if isinstance(args, dict):
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list) and command:
            return name, argv_text(command), command
        if isinstance(command, str) and command.strip():
            return name, command, command
    return name, f"{name}\n{render_input(args)}" if args not in (None, "", {}) else name, None


def _exit_failed(text: str) -> bool:
    """Whether an exec output's ``Process exited with code N`` / ``Exit code: N`` line says failure."""
    m = _EXIT_CODE.search(text[:4096])
    return m is not None and int(m.group(1)) != 0


def tool_output(payload: dict) -> tuple[str, bool]:
    """Inner text of a tool output and whether it reports failure."""
    out = payload.get("output")
    failed = False
    if isinstance(out, str) and out[:1] == "{":
        try:
            decoded = jsontext.loads(out)
        except orjson.JSONDecodeError:
            decoded = None
        if isinstance(decoded, dict) and "output" in decoded:
            out = decoded
    if isinstance(out, dict) and ("output" in out or "content" in out or "metadata" in out):
        meta = as_dict(out.get("metadata"))
        code = meta.get("exit_code", out.get("exit_code"))
        failed = isinstance(code, int) and code != 0
        if out.get("success") is False:
            failed = True
        out = out.get("output", out.get("content"))
    elif isinstance(out, dict):  # one content item: {"type": "input_text", "text": ...}
        out = [out]
    text = block_text(out).strip()
    return text, failed or _exit_failed(text)


def web_search_text(action: object, query: object = None) -> str:
    action = action if isinstance(action, dict) else {}
    lines = []
    queries = as_list(action.get("queries"))
    for q in [query, action.get("query"), *queries]:
        if isinstance(q, str) and q.strip() and q.strip() not in lines:
            lines.append(q.strip())
    for key in ("url", "pattern"):
        if isinstance(action.get(key), str) and action[key].strip():
            lines.append(f"{key}: {action[key].strip()}")
    return "\n".join(lines)
