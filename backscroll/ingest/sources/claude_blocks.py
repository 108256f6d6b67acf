"""Claude Code's message blocks and user text turned into records.

This module owns reading one block or one piece of user text: a ``tool_use`` (``Bash`` as its
command), a ``tool_result`` (reminders stripped, documents as placeholders), an attached image or
document (``[image]``, ``[document: name]``, never its bytes), a queued prompt, who wrote a user
line (person, agent or harness: IDE context such as ``<ide_selection>`` is the harness's, and a line whose
``origin`` names no person is another session's or the harness's), and the
special user lines (slash commands, ``!`` bash mode and its output, local-command noise). ``claude``
reads the lines that hold them.
"""

from __future__ import annotations

import re
from dataclasses import replace

from backscroll.ingest.sources import as_dict, as_str, block_text, clean_text, render_input
from backscroll.types import Record

SHELL_TOOLS = {"Bash"}
HARNESS_PREFIXES = (
    "[Request interrupted", "Caveat: The messages below were generated",
    "You have exceeded the maximum number of turns", "<task-notification>",
    "API Error:", "[Request cancelled",
    "Operation stopped by hook",  # a UserPromptSubmit hook stopped the turn: Claude Code writes its reason
)
COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far"
# What Claude Code's IDE integrations put into the person's turn: the file they have open, the lines
# they selected, the editor's diagnostics. Shown to the agent, never typed: kept (it says what was being
# looked at), but a text made of nothing else is the harness's.
_IDE_CONTEXT = re.compile(r"<(ide_selection|ide_opened_file|ide_opened_files|ide_closed_file|ide_diagnostics)>"
                          r".*?</\1>", re.DOTALL)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_TAG = {name: re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL)
        for name in ("command-name", "command-args", "bash-input", "bash-stdout", "bash-stderr")}
# The ``origin`` kinds (the SDK's ``MessageOriginKind``) of a line another session or a background task sent; any
# other kind but "human", one this version does not know included, is the harness's: a notification, or what an MCP
# channel (a chat bot, a webhook) brought in, which may be anyone's.
AGENT_ORIGINS = {"peer", "coordinator", "observer", "observer-activity"}
# A helper Claude Code forks from the conversation (``createAgentId(label)``) writes ``agent-a<label>-<hex>.jsonl``.
_FORK_FILE = re.compile(r"agent-a([a-z][a-z_]*)-[0-9a-f]{6,}$")
# Forked helpers that add no words: a compaction (its summary is stored from the main file), a guess at the person's
# next prompt (older builds kept it) and a run of that guess (what the person accepts reaches the main file).
WORDLESS_FORKS = {"compact", "prompt_suggestion", "speculation"}
SIDE_QUESTION = "<system-reminder>This is a side question from the user."


def tool_use_text(name: str, inp: object) -> tuple[str, str | list | None]:
    if name in SHELL_TOOLS and isinstance(inp, dict) and isinstance(inp.get("command"), str):
        return inp["command"], inp["command"]
    body = render_input(inp) if inp not in (None, {}) else ""
    return (f"{name}\n{body}" if body else name), None


def strip_reminders(text: str) -> str:
    """``text`` without ``<system-reminder>`` blocks (tool results carry them too)."""
    return _REMINDER.sub("", text).strip() if "<system-reminder>" in text else text.strip()


def _tag(name: str, text: str) -> str | None:
    m = _TAG[name].search(text)
    return m.group(1).strip() if m else None


def slash_command(text: str) -> str | None:
    """``/name args`` of a slash-command line (``<command-name>``, ``<command-args>``), else None."""
    if "<command-name>" not in text:
        return None
    name = _tag("command-name", text)
    if not name:
        return None
    if not name.startswith("/"):
        name = "/" + name
    args = _tag("command-args", text)
    return f"{name} {args}" if args else name


def placeholder(block: dict) -> str | None:
    """What an attached image or document stands as: ``[image]``, ``[document: name.pdf]``; never its bytes."""
    btype = block.get("type")
    if btype == "image":
        return "[image]"
    if btype == "document":
        for key in ("title", "name", "filename"):
            if isinstance(block.get(key), str) and block[key]:
                return f"[document: {block[key]}]"
        source = as_dict(block.get("source"))
        media = source.get("media_type") if isinstance(source.get("media_type"), str) else ""
        return f"[document: {media}]" if media else "[document]"
    return None


def result_text(content: object) -> str:
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "document":
                parts.append(placeholder(block) or "[document]")
            else:
                parts.append(block_text([block]))
        return "\n".join(p for p in parts if p)
    return block_text(content)


def ide_context_only(text: str) -> bool:
    """Whether ``text`` is only IDE context (``<ide_selection>`` and its kin), nothing the person wrote."""
    return text.startswith("<ide_") and not _IDE_CONTEXT.sub("", text).strip()


def sender(line: dict) -> str | None:
    """Who sent a user line (or a queued prompt) by its ``origin``, when no person did: None for a person's."""
    origin = as_dict(line.get("origin"))
    kind = as_str(origin.get("kind"))
    if kind in ("", "human"):
        return None
    return "agent" if kind in AGENT_ORIGINS or origin.get("subkind") == "peer-send-message" else "harness"


def told(records: list[Record], sender: str | None) -> list[Record]:
    """``records`` with the person's turns given to ``sender``, when another sent them."""
    if sender is None:
        return records
    return [replace(r, author=sender) if r.role == "user" and r.author == "human" else r for r in records]


def user_author(text: str, sidechain: bool) -> str:
    if text.startswith(HARNESS_PREFIXES) or text.startswith(COMPACT_PROMPT) or ide_context_only(text):
        return "harness"
    return "agent" if sidechain else "human"


def fork_label(session_id: str) -> str | None:
    """What a helper Claude Code forked from the conversation was for (``agent-a<label>-<hex>``: ``compact``,
    ``side_question``, ``session_memory``, …), or None for a subagent the agent asked for (``agent-a<hex>``)."""
    m = _FORK_FILE.search(session_id)
    return m.group(1) if m else None


def side_question(label: str, raw: str) -> str:
    """The person's question in a side question's (``/btw``) prompt, else "": a forked helper's other user text is the
    conversation's, copied (stored from the main file, or dropped there as a repeat), or the harness's prompt."""
    return clean_text(raw) if label == "side_question" and raw.startswith(SIDE_QUESTION) else ""


def prompt_records(prompt: object, rid: str, line_no: int, ts, cwd) -> list[Record]:
    """A queued prompt (a string, or blocks with images) as the person's records."""
    if isinstance(prompt, str):
        text = clean_text(prompt)
        return [Record(f"{rid}#0", "user", "text", text, line_no, ts, cwd, author="human")] if text else []
    out = []
    if isinstance(prompt, list):
        for i, block in enumerate(prompt):
            if not isinstance(block, dict):
                continue
            body = clean_text(block["text"]) if isinstance(block.get("text"), str) else placeholder(block)
            if body:
                out.append(Record(f"{rid}#{i}", "user", "text", body, line_no, ts, cwd, author="human"))
    return out


def special_user_text(raw: str, rid: str, uuid: str, obj: dict, line_no: int, ts, cwd,
                       sidechain: bool) -> tuple[list[Record], str | None] | None:
    """Slash commands, bash mode, local-command output: ``(records, title)``, or None for plain text."""
    command = slash_command(raw)
    if command is not None:
        author = "agent" if sidechain else "human"
        return [Record(rid, "user", "text", command, line_no, ts, cwd, author=author)], command
    if "<local-command-" in raw and not clean_text(raw):
        return [], None  # /mcp, /exit and the like print "(no content)": noise
    bash = _tag("bash-input", raw)
    if bash is not None:  # "! cmd" typed in bash mode: a shell call the person made
        return [Record(rid, "tool", "tool", bash, line_no, ts, cwd, "bash", f"bash:{uuid}", command=bash)], None
    if "<bash-stdout>" in raw or "<bash-stderr>" in raw:
        out, err = _tag("bash-stdout", raw) or "", _tag("bash-stderr", raw) or ""
        text = "\n".join(p for p in (out, err) if p)
        parent = obj.get("parentUuid") if isinstance(obj.get("parentUuid"), str) else uuid
        recs = [Record(rid, "tool", "tool", text, line_no, ts, cwd, None, f"bash:{parent}",
                       is_error=bool(err) and not out)]
        return (recs if text else []), None
    return None
