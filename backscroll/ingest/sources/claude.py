"""Claude Code sessions: ``~/.claude/projects/<slug>/<session>.jsonl`` and subagent transcripts.

Subagents live in ``<slug>/<session>/subagents/agent-<id>.jsonl`` (older builds: ``<slug>/agent-<id>.jsonl``)
and become sessions of their own, linked to the parent; Claude Code 1.0.x wrote them inline instead,
as lines marked ``isSidechain``, which go to the sub-session ``<session>:sidechain``. One record per
text block, thinking block (``reasoning``), ``tool_use`` and ``tool_result``.

Who wrote a user line (``author``): the person (their prompts, queued prompts, slash commands with
their arguments), the agent (a subagent's task prompt) or the harness (interruption markers, turn
limits, background-task notices). Compaction summaries are stored once, as ``summary``; the expanded
body of a slash command and the local-command noise are not records. ``summary`` lines title the
session that holds their ``leafUuid``; ``custom-title`` beats ``ai-title`` beats both.
"""

from __future__ import annotations

import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    as_dict,
    as_str,
    block_text,
    clean_text,
    home_root,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"Bash"}
HARNESS_PREFIXES = (
    "[Request interrupted", "Caveat: The messages below were generated",
    "You have exceeded the maximum number of turns", "<task-notification>",
    "API Error:", "[Request cancelled",
)
COMPACT_PROMPT = "Your task is to create a detailed summary of the conversation so far"
# Entry types that hold no conversation text, read and deliberately left out.
KNOWN_SKIPPED = {
    "system", "file-history-snapshot", "file-history-delta", "progress", "last-prompt", "permission-mode",
    "mode", "worktree-state", "agent-name", "pr-link", "frame-link", "tag",
}
# Attachments the harness adds to a turn (reminders, hook output, file contents): not the person's words.
KNOWN_ATTACHMENTS = {
    "hook_success", "hook_non_blocking_error", "hook_blocking_error", "hook_additional_context", "hook_progress",
    "todo_reminder", "task_reminder", "task_status", "deferred_tools_delta", "auto_mode", "plan_mode",
    "plan_mode_exit", "agent_listing_delta", "command_permissions", "edited_text_file", "mcp_instructions_delta",
    "nested_memory", "skill_listing", "date_change", "read_truncation_notice", "file", "compact_file_reference",
    "invoked_skills", "dynamic_skill", "ultra_effort_enter", "ultra_effort_exit", "budget_usd",
    "total_tokens_reminder", "batching_reminder_sent", "silent_turn_reminder", "critical_system_reminder",
    "diagnostics", "selected_lines_in_ide", "opened_file_in_ide", "output_style", "memory",
}
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
_TAG = {name: re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL)
        for name in ("command-name", "command-args", "bash-input", "bash-stdout", "bash-stderr")}


def default_root(env):
    return home_root(env, "CLAUDE_CONFIG_DIR", "projects", ".claude/projects")


_SESSION_FILE = re.compile(r"^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|agent-[\w-]+)\.jsonl$",
                           re.I)


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


def _result_text(content: object) -> str:
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict) and block.get("type") == "document":
                parts.append(placeholder(block) or "[document]")
            else:
                parts.append(block_text([block]))
        return "\n".join(p for p in parts if p)
    return block_text(content)


def _user_author(text: str, sidechain: bool) -> str:
    if text.startswith(HARNESS_PREFIXES) or text.startswith(COMPACT_PROMPT):
        return "harness"
    return "agent" if sidechain else "human"


def _title_updates(obj: dict, kind: str) -> ParsedLine:
    if kind == "summary":
        summary = obj.get("summary")
        if not (isinstance(summary, str) and summary.strip()):
            return EMPTY
        leaf = obj.get("leafUuid")
        if isinstance(leaf, str) and leaf:  # describes the conversation ending at that record, often another file's
            return ParsedLine([], {"leaf_title": (leaf, summary.strip())})
        return ParsedLine([], {"title": summary.strip(), "title_rank": 1})
    key, rank = ("customTitle", 3) if kind == "custom-title" else ("aiTitle", 2)
    title = obj.get(key) if isinstance(obj.get(key), str) else obj.get("title")
    if isinstance(title, str) and title.strip():
        return ParsedLine([], {"title": title.strip(), "title_rank": rank})
    return EMPTY


def _prompt_records(prompt: object, rid: str, line_no: int, ts, cwd) -> list[Record]:
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


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind in ("summary", "custom-title", "ai-title"):
        return _title_updates(obj, kind)
    ts = normalize_timestamp(obj.get("timestamp"))
    cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
    if kind == "queue-operation":
        content = obj.get("content")
        if (obj.get("operation") != "enqueue" or not isinstance(content, str)
                or content.startswith("<task-notification>")):
            return EMPTY
        recs = _prompt_records(content, f"{session.session_id}:queued:{line_no}", line_no, ts, cwd)
        return ParsedLine(recs, {"queued": True}) if recs else EMPTY
    if kind == "attachment":
        att = as_dict(obj.get("attachment"))
        atype = att.get("type")
        if atype == "hook_additional_context":
            return _hook_context(obj, line_no)
        if atype == "queued_command":
            uuid = obj.get("uuid") if isinstance(obj.get("uuid"), str) else f"{session.session_id}:{line_no}"
            prompt = att.get("prompt")
            if isinstance(prompt, str) and prompt.lstrip().startswith("<task-notification>"):
                return EMPTY
            recs = _prompt_records(prompt, f"{uuid}:{line_no}", line_no, ts, cwd)
            return ParsedLine(recs, {"cwd": cwd} if cwd and session.cwd is None else {})
        return EMPTY if atype in KNOWN_ATTACHMENTS else ParsedLine([], {}, unknown=f"attachment/{atype}")
    if kind not in ("user", "assistant"):
        return EMPTY if kind in KNOWN_SKIPPED else ParsedLine([], {}, unknown=str(kind))
    if obj.get("isMeta") and not obj.get("isCompactSummary"):
        return EMPTY  # a slash command's expanded body, a caveat: written by the harness

    updates: dict = {}
    if cwd and session.cwd is None:
        updates["cwd"] = cwd
    sid = obj.get("sessionId") if isinstance(obj.get("sessionId"), str) else None
    if session.is_sidechain:
        if session.parent_session_id is None and sid:
            updates["parent_session_id"] = sid
    elif session.parent_session_id is None:
        forked = obj.get("forkedFrom")
        origin = forked.get("sessionId") if isinstance(forked, dict) else None
        origin = origin if isinstance(origin, str) else (sid if sid and sid != session.session_id else None)
        if origin and origin != session.session_id:  # resumed or forked: the lines copied from the origin
            updates["parent_session_id"] = origin
    inline_side = obj.get("isSidechain") is True and not session.is_sidechain
    if inline_side:
        updates["sidechain"] = True
    sidechain = session.is_sidechain or inline_side
    if "agent-acompact" in session.session_id:
        return ParsedLine([], updates)  # the compaction's own run: its summary is stored once, in the main file

    message = obj.get("message")
    if not isinstance(message, dict):
        raise LineError("message is missing or not an object")
    content = message.get("content")
    role = str(message.get("role") if message.get("role") in ("user", "assistant") else kind)  # both "user"|"assistant"
    uuid = given if isinstance(given := obj.get("uuid"), str) else f"{session.session_id}:{line_no}"

    if isinstance(content, str):
        blocks: list = [{"type": "text", "text": content}]
    elif isinstance(content, list):
        blocks = content
    else:
        raise LineError(f"message.content is {type(content).__name__}, expected text or a list of blocks")

    if role == "user" and (obj.get("isCompactSummary") or obj.get("isVisibleInTranscriptOnly")):
        text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)).strip()
        recs = [Record(f"{uuid}#0", "assistant", "summary", text, line_no, ts, cwd)] if text else []
        return ParsedLine(recs, updates)

    records: list[Record] = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        rid = f"{uuid}#{i}"
        if btype == "text" and isinstance(block.get("text"), str):
            raw = block["text"]
            if role == "user" and "<" in raw:
                special = _special_user_text(raw, rid, uuid, obj, line_no, ts, cwd, sidechain)
                if special is not None:
                    records.extend(special[0])
                    if special[1] and not sidechain:
                        updates.setdefault("title", special[1])
                        updates["title_rank"] = 0
                    continue
            text = clean_text(raw)
            if not text:
                continue
            if role == "user":
                records.append(Record(rid, role, "text", text, line_no, ts, cwd, author=_user_author(text, sidechain)))
            else:
                records.append(Record(rid, role, "text", text, line_no, ts, cwd))
        elif btype == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"].strip():
            records.append(Record(rid, "assistant", "reasoning", block["thinking"].strip(), line_no, ts, cwd))
        elif btype == "tool_use":
            name = as_str(block.get("name"), "tool")
            text, command = _tool_use_text(name, block.get("input"))
            call_id = block.get("id") if isinstance(block.get("id"), str) else None
            records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, name, call_id, command=command))
        elif btype == "tool_result":
            text = strip_reminders(_result_text(block.get("content")))
            call_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None
            if text:
                records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, None, call_id,
                                      is_error=block.get("is_error") is True))
        elif role == "user" and btype in ("image", "document"):
            records.append(Record(rid, "user", "text", placeholder(block) or "[attachment]", line_no, ts, cwd,
                                  author="agent" if sidechain else "human"))
    return ParsedLine(records, updates)


def _special_user_text(raw: str, rid: str, uuid: str, obj: dict, line_no: int, ts, cwd,
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


AGENT = Agent("claude", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS))
