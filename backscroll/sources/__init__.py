"""The registry of session formats. A new agent is one module here and one line in ``AGENTS``.

Each format module exposes an ``AGENT`` describing how to find its files and a pure
``parse_line(obj, line_no, session)`` that turns one decoded JSON line into records.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping

from ..records import Record, SessionInfo


class LineError(ValueError):
    """A line that is valid JSON but not a record this format can read; it is skipped and counted."""


@dataclass(frozen=True)
class ParsedLine:
    records: list[Record]
    # Fields of the session that this line sets (cwd, title, parent_session_id, ...).
    session_updates: dict


EMPTY = ParsedLine([], {})


@dataclass(frozen=True)
class Agent:
    name: str
    default_root: Callable[[Mapping[str, str]], tuple[Path, str]]
    claims: Callable[[Path], bool]
    session_for: Callable[[Path], SessionInfo]
    parse_line: Callable[[object, int, SessionInfo], ParsedLine]

    def discover(self, root: Path) -> Iterator[Path]:
        """Every file under ``root`` this agent claims, in a stable order."""
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames):
                path = Path(dirpath, name)
                if self.claims(path):
                    yield path


def home_root(env: Mapping[str, str], var: str, sub: str, default: str) -> tuple[Path, str]:
    """``$VAR/sub`` when the agent's own variable is set, else ``~/default``."""
    if env.get(var):
        return Path(os.path.expanduser(env[var])) / sub, f"env ${var}"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / default, "default"


# Blocks agents inject into user turns that are not what the person wrote.
_INJECTED_BLOCK = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout|"
    r"local-command-stderr|local-command-caveat|user-prompt-submit-hook)>.*?</\1>",
    re.DOTALL,
)


def clean_text(text: str) -> str:
    """Drop injected reminder/command blocks and surrounding blank space."""
    if "<" in text:
        text = _INJECTED_BLOCK.sub("", text)
    return text.strip()


def render_input(value: object) -> str:
    """A tool input as readable ``key: value`` lines (strings verbatim, others as compact JSON)."""
    import orjson

    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            parts.append(f"{k}: {v if isinstance(v, str) else orjson.dumps(v).decode()}")
        return "\n".join(parts)
    if isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def block_text(content: object) -> str:
    """Text of a tool result: a string, or the text blocks of a list joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for block in content:
            if isinstance(block, str):
                out.append(block)
            elif isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    out.append(block["text"])
                elif block.get("type") == "image":
                    out.append("[image]")
        return "\n".join(out)
    if content is None:
        return ""
    return render_input(content)


def _registry() -> dict[str, Agent]:
    from . import claude, codex

    return {a.name: a for a in (claude.AGENT, codex.AGENT)}


AGENTS: dict[str, Agent] = _registry()
