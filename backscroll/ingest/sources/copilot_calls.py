"""What a GitHub Copilot tool call reads as, shared by the CLI and VS Code readers (``copilot.py``,
``copilot_vscode.py``): shell calls as their command line, other calls as their name and arguments."""

from __future__ import annotations

import orjson

from backscroll.ingest.sources import render_input

SHELL_TOOLS = {"bash", "powershell", "run_in_terminal"}


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _call_text(name: str, args: object) -> tuple[str, str | None]:
    if isinstance(args, str):
        try:
            args = orjson.loads(args)
        except orjson.JSONDecodeError:
            pass
    command = args.get("command") if name in SHELL_TOOLS and isinstance(args, dict) else None
    if isinstance(command, str) and command.strip():
        return command, command
    return (f"{name}\n{render_input(args)}" if args not in (None, {}, "") else name), None
