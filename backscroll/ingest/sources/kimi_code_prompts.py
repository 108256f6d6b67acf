"""What Kimi Code writes in the person's place (``kimi_code``'s ``context.append_message`` of the user's role), and
whose words it is. Read from the ``@moonshot-ai/kimi-code`` 2.1.0 bundle: ``appendShellInput``/``appendShellOutput``
(a ``!`` command), ``recordActivation`` (a ``/skill``), ``promptMetadataFromTurnRecord``. Pure.

The person's prompt is theirs, and a subagent's brief is its parent agent's (the author its session gives). A ``!``
command is the person's shell call and what it printed its output. A ``/skill`` or a plugin's command the person
typed is theirs as they typed it (``/name args``), and the skill's body the runtime renders after it the harness's.
Everything else (reminders, notifications, a stop hook's reason, a goal's continuation) is the harness's.
"""

from __future__ import annotations

import html
import re

from backscroll.ingest.sources import clean_text
from backscroll.types import Record

_SHELL = re.compile(r"<bash-(input|stdout|stderr)>\n?(.*?)\n?</bash-\1>", re.S)


def records(origin: dict, raw: str, base: str, line_no: int, ts: str | None, cwd: str | None) -> list[Record]:
    kind = origin.get("kind", "user")
    if kind == "compaction_summary":  # (the summary: ``context.apply_compaction``'s)
        return []
    if kind == "shell_command":
        return shell(raw, origin, base, line_no, ts, cwd)
    out = []
    typed = slash(origin)
    if typed:
        out.append(Record(f"{base}#t", "user", "text", typed, line_no, ts, cwd))
    text = clean_text(raw)
    spoken = not typed and (kind == "user" or (kind == "system_trigger" and origin.get("name") == "subagent"))
    if text:
        out.append(Record(f"{base}#0", "user", "text", text, line_no, ts, cwd, author=None if spoken else "harness"))
    return out


def slash(origin: dict) -> str | None:
    """The ``/skill args`` or ``/plugin:command args`` the person typed, when the runtime rendered one."""
    if origin.get("kind") == "skill_activation" and origin.get("trigger") == "user-slash":
        name, args = origin.get("skillName"), origin.get("skillArgs")
    elif origin.get("kind") == "plugin_command" and isinstance(origin.get("pluginId"), str):
        name, args = f"{origin['pluginId']}:{origin.get('commandName')}", origin.get("commandArgs")
    else:
        return None
    if not isinstance(name, str) or not name:
        return None
    return f"/{name} {args.strip()}".strip() if isinstance(args, str) else f"/{name}"


def shell(raw: str, origin: dict, base: str, line_no: int, ts: str | None, cwd: str | None) -> list[Record]:
    said = {m.group(1): html.unescape(m.group(2)) for m in _SHELL.finditer(raw)}
    if origin.get("phase") == "input" and said.get("input", "").strip():
        command = said["input"].strip()
        return [Record(f"{base}#0", "tool", "tool", command, line_no, ts, cwd, "Bash", f"{base}#0", command=command)]
    text = "\n".join(p for p in (said.get("stdout", "").strip(), said.get("stderr", "").strip()) if p)
    return [Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, None, None,
                   is_error=origin.get("isError") is True)] if text else []
