"""What a GitHub Copilot tool call reads as, shared by the CLI and VS Code readers (``copilot.py``,
``copilot_vscode.py``): shell calls as their command line, other calls as their name and arguments."""

from __future__ import annotations

from backscroll.ingest.sources import call_text

SHELL_TOOLS = {"bash", "powershell", "run_in_terminal"}


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def _call_text(name: str, args: object) -> tuple[str, str | None]:
    return call_text(name, args, SHELL_TOOLS)
