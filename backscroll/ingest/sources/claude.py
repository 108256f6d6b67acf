"""Claude Code sessions: ``~/.claude/projects/<slug>/<session>.jsonl`` and subagent transcripts.

Subagents live in ``<slug>/<session>/subagents/agent-<id>.jsonl`` (a workflow's one folder deeper,
``subagents/workflows/<run>/``; older builds: ``<slug>/agent-<id>.jsonl``) and become sessions of their own, linked
to the parent; Claude Code 1.0.x wrote them inline instead, as lines marked ``isSidechain``, which go to the
sub-session ``<session>:sidechain``. One record per text block, thinking block (``reasoning``), ``tool_use`` and
``tool_result``.

Who wrote a user line (``author``): the person (their prompts, queued prompts, slash commands with their arguments,
their answers to ``AskUserQuestion``, stored in place of its result, and the reason they gave for refusing a tool
call), the agent (a subagent's task prompt) or the harness (interruption markers, turn limits, background-task
notices, and an API error Claude Code writes as the assistant's turn, ``isApiErrorMessage``); a line's ``origin``
(Claude Code 2.1) names a sender that is no person: another session or a background task (the agent), or the harness
(a notification, a message an MCP channel brought in, any kind this version does not know). Compaction summaries are
stored once, as ``summary``; the recap Claude Code writes while the person is away (``away_summary``) is one too; a
slash command written as a ``system`` line (Claude Code 2.1) is the person's; the expanded body of a slash command
and the local-command noise are not records. ``summary`` lines title the session that holds their ``leafUuid``;
``custom-title`` beats ``ai-title`` beats both.

A helper forked from the conversation (``agent-a<label>-<hex>``) begins with its lines (stored from the main file);
of its user text only a side question (``/btw``) is kept, as the person's; a compaction or a prompt guess adds nothing.

This module owns the lines (their types, sessions, titles, sidechains, forks); the blocks and user
text within a message are read by ``claude_blocks``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    as_dict,
    as_str,
    clean_text,
    home_root,
    json_object,
)
from backscroll.ingest.sources.answers import claude_answers, claude_refusal
from backscroll.ingest.sources.claude_blocks import (
    SHELL_TOOLS,
    WORDLESS_FORKS,
    fork_label,
    placeholder,
    prompt_records,
    result_text,
    sender,
    side_question,
    slash_command,
    special_user_text,
    strip_reminders,
    told,
    tool_use_text,
    user_author,
)
from backscroll.types import Record, SessionInfo

# Entry types that hold no conversation text, read and deliberately left out.
KNOWN_SKIPPED = {
    "system", "file-history-snapshot", "file-history-delta", "progress", "last-prompt", "permission-mode",
    "mode", "worktree-state", "agent-name", "pr-link", "frame-link", "tag",
}
_RECAP_HINT = re.compile(r"\s*\(disable recaps in /config\)\s*$")  # (the hint Claude Code ends a recap with)
# Attachments the harness adds to a turn (reminders, hook output, file contents): not the person's words.
KNOWN_ATTACHMENTS = {
    "hook_success", "hook_non_blocking_error", "hook_blocking_error", "hook_additional_context", "hook_progress",
    "hook_system_message", "hook_cancelled",
    "todo_reminder", "task_reminder", "task_status", "deferred_tools_delta", "auto_mode", "plan_mode",
    "plan_mode_exit", "agent_listing_delta", "command_permissions", "edited_text_file", "mcp_instructions_delta",
    "nested_memory", "skill_listing", "date_change", "read_truncation_notice", "file", "compact_file_reference",
    "invoked_skills", "dynamic_skill", "ultra_effort_enter", "ultra_effort_exit", "budget_usd",
    "total_tokens_reminder", "batching_reminder_sent", "silent_turn_reminder", "critical_system_reminder",
    "diagnostics", "selected_lines_in_ide", "opened_file_in_ide", "output_style", "memory",
}


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
        # (<session>/subagents/agent-<id>.jsonl, or a workflow's: <session>/subagents/workflows/<run>/agent-<id>.jsonl)
        subagents = next((p for p in path.parents[:3] if p.name == "subagents"), None)
        if subagents is not None:
            parent = subagents.parent.name
            return SessionInfo(f"{parent}:{stem}", "claude", is_sidechain=True, parent_session_id=parent)
        return SessionInfo(stem, "claude", is_sidechain=True)
    return SessionInfo(stem, "claude")


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


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str):  # (no entry of the format lacks one: a broken line, not a new kind)
        raise LineError("the entry has no type" if kind is None else f"type is {type(kind).__name__}, expected text")
    if kind in ("summary", "custom-title", "ai-title"):
        return _title_updates(obj, kind)
    ts = normalize_timestamp(obj.get("timestamp"))
    cwd = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
    if kind == "queue-operation":
        content = obj.get("content")
        if (obj.get("operation") != "enqueue" or not isinstance(content, str)
                or content.startswith(("<task-notification>", "<channel")) or _task_record(content)):
            return EMPTY  # (what the harness queues is written again as the line it sends; a task's is no prompt)
        recs = prompt_records(content, f"{session.session_id}:queued:{line_no}", line_no, ts, cwd)
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
            recs = told(prompt_records(prompt, f"{uuid}:{line_no}", line_no, ts, cwd), sender(att))
            return ParsedLine(recs, {"cwd": cwd} if cwd and session.cwd is None else {})
        return EMPTY if atype in KNOWN_ATTACHMENTS else ParsedLine([], {}, unknown=f"attachment/{atype}")
    if kind == "system":
        return _system(obj, line_no, session, ts, cwd)
    if kind not in ("user", "assistant"):
        return EMPTY if kind in KNOWN_SKIPPED else ParsedLine([], {}, unknown=str(kind))
    sent_by = sender(obj)
    if (obj.get("isMeta") and not obj.get("isCompactSummary")
            and as_dict(obj.get("origin")).get("kind") not in ("channel", "peer")):
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
    if (fork := fork_label(session.session_id) if session.is_sidechain else None) in WORDLESS_FORKS:
        return ParsedLine([], updates)  # (a helper forked from the conversation that adds no words)

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

    # An AskUserQuestion's answers sit beside its one result, in the harness's own field
    results = sum(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks)
    said = claude_answers(obj.get("toolUseResult")) if role == "user" and results == 1 else ""
    records: list[Record] = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        rid = f"{uuid}#{i}"
        if btype == "text" and isinstance(block.get("text"), str):
            raw = block["text"]
            if role == "user" and fork:  # (its user text: the conversation's, copied, or the harness's prompt)
                records.extend([Record(rid, role, "text", asked, line_no, ts, cwd, author="human")]
                               if (asked := side_question(fork, raw)) else [])
                continue
            if role == "user" and "<" in raw and sent_by is None:  # (a command or shell mode only the person types)
                special = special_user_text(raw, rid, uuid, obj, line_no, ts, cwd, sidechain)
                if special is not None:
                    records.extend(special[0])
                    if special[1] and not sidechain and len(special[1].split()) > 1:  # ("/model" alone says
                        updates.setdefault("title", special[1])                      # nothing: the prompt will)
                        updates["title_rank"] = 0
                    continue
            text = clean_text(raw)
            if not text:
                continue
            if role == "user":
                records.append(Record(rid, role, "text", text, line_no, ts, cwd, author=user_author(text, sidechain)))
            else:
                records.append(Record(rid, role, "text", text, line_no, ts, cwd))
        elif btype == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"].strip():
            records.append(Record(rid, "assistant", "reasoning", block["thinking"].strip(), line_no, ts, cwd))
        elif btype == "tool_use":
            name = as_str(block.get("name"), "tool")
            text, command = tool_use_text(name, block.get("input"))
            call_id = block.get("id") if isinstance(block.get("id"), str) else None
            records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, name, call_id, command=command))
        elif btype == "tool_result" and said:  # the person's choices: their words (answers.py)
            records.append(Record(rid, "user", "text", said, line_no, ts, cwd, author="human"))
        elif btype == "tool_result":
            text = strip_reminders(result_text(block.get("content")))
            call_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else None
            refused = claude_refusal(obj, text) if results == 1 and block.get("is_error") is True else None
            if refused:  # the notice stays the call's error; the reason the person typed is their words
                text, reason = refused
            if text:
                records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, None, call_id,
                                      is_error=block.get("is_error") is True))
            if refused:
                records.append(Record(f"{rid}:said", "user", "text", reason, line_no, ts, cwd, author="human"))
        elif role == "user" and btype in ("image", "document"):
            records.append(Record(rid, "user", "text", placeholder(block) or "[attachment]", line_no, ts, cwd,
                                  author="agent" if sidechain else "human"))
    if role == "assistant" and obj.get("isApiErrorMessage") is True:  # ("API Error: 529 ...": the harness wrote it)
        records = [replace(r, role="user", author="harness", is_error=True) if r.content_type == "text" else r
                   for r in records]
    return ParsedLine(told(records, sent_by), updates)


def _system(obj: dict, line_no: int, session: SessionInfo, ts, cwd) -> ParsedLine:
    """The system lines that hold words: a slash command the person typed (Claude Code 2.1 writes ``local_command``; a
    user line repeating it is dropped, as a queued prompt's is) and the recap written while they were away
    (``away_summary``), a summary. The others are the harness's notices and timings."""
    content, subtype = obj.get("content"), obj.get("subtype")
    if not isinstance(content, str):
        return EMPTY
    uuid = given if isinstance(given := obj.get("uuid"), str) else f"{session.session_id}:{line_no}"
    rid = f"{uuid}#0"
    if subtype == "away_summary" and (text := clean_text(_RECAP_HINT.sub("", content))):
        return ParsedLine([Record(rid, "assistant", "summary", text, line_no, ts, cwd)], {})
    command = slash_command(content) if subtype == "local_command" and not session.is_sidechain else None
    if not command:
        return EMPTY
    titled = {"title": command, "title_rank": 0} if len(command.split()) > 1 else {}
    return ParsedLine([Record(rid, "user", "text", command, line_no, ts, cwd, author="human")],
                      {"queued": True, **titled})


def _task_record(text: str) -> bool:
    """A background task's record queued as JSON (``{"task_id": ..., "task_type": ...}``)."""
    return "task_id" in (json_object(text) or {})


AGENT = Agent("claude", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS))
