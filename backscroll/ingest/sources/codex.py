"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Records come from ``response_item`` lines: messages, reasoning summaries, ``function_call`` /
``custom_tool_call`` / ``local_shell_call`` / ``tool_search_call`` / ``web_search_call`` and their
outputs (paired by ``call_id``; a JSON-string or object output is unwrapped to its inner text, and
a ``Process exited with code N`` / ``Exit code: N`` line sets ``is_error``), and messages between
agents. ``compacted`` lines give their summary, ``thread_name_updated`` the title.

``event_msg`` lines repeat the same content for the UI and are not indexed again, except in
``history_mode: "paginated"`` threads, which persist ``item_completed`` items instead of the
legacy projections: there the items are the records. Injected context (environment, AGENTS.md,
developer instructions) and encrypted reasoning are not records.

A fork (``forked_from_id``), or a subagent spawned with its parent's history, opens with the parent's
transcript copied in (already stored from the parent's file), which is skipped: the lines numbered
(``ordinal``) below the first its ``session_meta`` names as its own (``subagent_history_start_ordinal``);
else the lines stamped within ``FORK_BURST`` of the fork's own ``session_meta`` (or of the first
ancestor's copied in), for a spawned child only up to the spawn's note to it (``SPAWNED_NOTE``: a copy
of a child spawned with history holds that child's note too).
Entry types this module does not know are reported in ``ParsedLine.unknown``.

This module owns the lines (session meta, forks, events, compaction) and the ``Agent``; the
``response_item`` and ``item_completed`` shapes are read by ``codex_items`` and ``codex_calls``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    as_dict,
    as_str,
    home_root,
)
from backscroll.ingest.sources.codex_items import completed_item, response_item
from backscroll.types import Record, SessionInfo

_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE)
# Codex's shell tools over the years (any call with a ``command``/``cmd`` is stored as a shell call).
SHELL_TOOLS = {"shell", "shell_command", "exec_command", "local_shell", "container.exec"}
# A fork's copied prefix is written in one burst: lines stamped this long after the fork's own
# session_meta (or the first ancestor's copied in), or later, are the fork's own.
FORK_BURST = timedelta(seconds=1)
# What Codex answers the parent's spawn call with in the child's copy: the copy ends with it.
SPAWNED_NOTE = "You are the newly spawned agent. The prior conversation history was forked from your parent agent."
# Known lines that hold nothing to index (state, metadata, UI copies of response items).
# (a request_user_input answer kept for the model's context, ``retained_context``, is read from the call's output)
_IGNORED_TOP = {"world_state", "inter_agent_communication_metadata", "token_usage_record", "security_risk_score",
                "retained_context"}
_TURN_ENDS = {"task_complete", "turn_complete", "turn_aborted"}
# The marks newer Codex puts on a response item it copied (``CodexHarnessMetadata``): a compaction's output, a parent
# thread's turn in a subagent's, an answer kept for the model's context; the originals are read where they were written.
_COPY_MARKS = ("compaction_output", "inherited_user_message", "delivered_assistant_message")
_IGNORED_EVENTS = {
    "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break",
    "token_count", "task_started", "task_complete", "turn_started", "turn_complete", "turn_aborted",
    "exec_command_begin", "exec_command_end", "exec_command_output_delta", "patch_apply_begin", "patch_apply_end",
    "mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin", "web_search_end", "view_image_tool_call",
    "image_generation_begin", "image_generation_end", "context_compacted", "thread_settings_applied",
    "thread_goal_updated", "thread_rolled_back", "model_reroute", "model_verification", "hook_started",
    "hook_completed", "entered_review_mode", "exited_review_mode", "guardian_assessment", "error", "warning",
    "stream_error", "background_event", "undo_started", "undo_completed", "turn_diff", "plan_update",
    "collab_agent_spawn_begin", "collab_agent_spawn_end", "collab_agent_interaction_begin",
    "collab_agent_interaction_end", "collab_waiting_begin", "collab_waiting_end", "collab_close_begin",
    "collab_close_end", "sub_agent_activity", "dynamic_tool_call_request", "dynamic_tool_call_response",
    "item_started", "item_completed", "session_configured", "mcp_list_tools_response", "list_custom_prompts_response",
    "get_history_entry_response", "shutdown_complete", "deprecation_notice", "request_user_input",
    "exec_approval_request", "apply_patch_approval_request", "elicitation_request", "raw_response_item",
}


def default_root(env):
    return home_root(env, "CODEX_HOME", "sessions", ".codex/sessions")


def claims(path: Path) -> bool:
    return path.suffix == ".jsonl" and path.name.startswith("rollout-")


def session_for(path: Path) -> SessionInfo:
    m = _UUID.search(path.stem)
    return SessionInfo(m.group(1).lower() if m else path.stem, "codex")


def _stamp(value: object) -> datetime | None:
    ts = normalize_timestamp(value)
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None


def _spawn(payload: dict) -> dict | None:
    """A spawned subagent's ``source.subagent.thread_spawn``, else None."""
    source = payload.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    return spawn if isinstance(spawn, dict) else None


def _meta(obj: dict, payload: dict, line_no: int, session: SessionInfo) -> ParsedLine:
    """A ``session_meta`` line: the session's own, or an ancestor's copied into a fork (where the copy begins)."""
    pid = payload.get("id")
    if line_no > 1 and isinstance(pid, str) and pid.lower() != session.session_id.lower():
        updates: dict = {}
        if session.copy_notes and _spawn(payload) is not None and as_str(payload.get("forked_from_id")).strip():
            updates["copy_notes"] = session.copy_notes + 1  # a child spawned with history: its note is copied too
        start = _stamp(obj.get("timestamp"))  # (a spawned child's copy without ``forked_from_id`` begins here)
        if session.copy_notes and session.copy_until is None and not session.copy_below and start is not None:
            updates["copy_until"] = (start + FORK_BURST).isoformat()
        return ParsedLine([], updates)
    updates = {}
    if isinstance(payload.get("cwd"), str):
        updates["cwd"] = payload["cwd"]
    if isinstance(payload.get("history_mode"), str):
        updates["history_mode"] = payload["history_mode"]
    git = payload.get("git")
    if isinstance(git, dict) and isinstance(git.get("repository_url"), str):
        updates["repository"] = git["repository_url"]
    spawn = _spawn(payload)
    if spawn is not None:
        updates["copy_notes"] = 1  # a copy of its parent's history, if any, ends with the spawn's note to it
    parent = as_str((spawn or {}).get("parent_thread_id")).strip() or as_str(payload.get("parent_thread_id")).strip()
    if parent and payload.get("thread_source") in (None, "subagent"):
        updates["is_sidechain"] = True
        updates["parent_session_id"] = parent
    forked = as_str(payload.get("forked_from_id")).strip()
    if forked:
        updates.setdefault("parent_session_id", forked)
    below = payload.get("subagent_history_start_ordinal")
    if type(below) is int and below > 0:
        updates["copy_below"] = below  # the copy's lines are numbered: exact, where a burst is a guess
    elif forked:
        start = _stamp(obj.get("timestamp")) or _stamp(payload.get("timestamp"))
        if start is not None:
            updates["copy_until"] = (start + FORK_BURST).isoformat()
    return ParsedLine([], updates)


def _in_copy(obj: dict, session: SessionInfo) -> tuple[bool, dict]:
    """Whether a fork's line belongs to the copied parent transcript; the updates that end the copy."""
    if session.copy_below:
        ordinal = obj.get("ordinal")
        return type(ordinal) is int and ordinal < session.copy_below, {}
    if not session.copy_until:
        return False, {}
    when = _stamp(obj.get("timestamp"))
    try:
        until = datetime.fromisoformat(session.copy_until)
    except ValueError:
        return False, {"copy_until": ""}
    if when is not None and when < until:
        return True, {}
    return False, {"copy_until": ""}  # the copy is over for good


def _spawned_note(obj: dict) -> bool:
    """The output Codex gives the parent's spawn call in a child's copy, to tell it the copy is over."""
    payload = as_dict(obj.get("payload"))
    output = payload.get("output") if payload.get("type") == "function_call_output" else None
    text = as_str(as_dict(output).get("content") if isinstance(output, dict) else output)
    return text.startswith(SPAWNED_NOTE)


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    payload = obj.get("payload")
    if kind == "session_meta":
        if not isinstance(payload, dict):
            raise LineError(f"{kind} without a payload object")
        return _meta(obj, payload, line_no, session)
    if _spawned_note(obj):  # the harness's, and (the last one a spawned child's copy holds) the end of the copy
        if not session.copy_until or not session.copy_notes:
            return EMPTY
        left = session.copy_notes - 1
        return ParsedLine([], {"copy_notes": left} if left else {"copy_notes": 0, "copy_until": ""})
    copied, ended = _in_copy(obj, session)
    if copied:
        return EMPTY  # the parent's transcript, stored from the parent's own file
    parsed = _parse(obj, kind, payload, line_no, session)
    if ended:
        return ParsedLine(parsed.records, {**parsed.session_updates, **ended}, parsed.unknown)
    return parsed


def _parse(obj: dict, kind: object, payload: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if kind == "turn_context":
        if not isinstance(payload, dict):
            raise LineError(f"{kind} without a payload object")
        return ParsedLine([], {"cwd": payload["cwd"]} if isinstance(payload.get("cwd"), str) else {})
    ts = normalize_timestamp(obj.get("timestamp"))
    if kind == "response_item":
        if not isinstance(payload, dict):
            raise LineError("response_item without a payload object")
        marks = as_dict(obj.get("metadata"))
        if any(marks.get(mark) not in (None, False, "") for mark in _COPY_MARKS):
            return EMPTY
        return response_item(payload, line_no, ts, session)
    if kind == "compacted":
        message = payload.get("message") if isinstance(payload, dict) else None
        if isinstance(message, str) and message.strip():
            return ParsedLine([Record(f"{session.session_id}:{line_no}#0", "assistant", "summary", message.strip(),
                                      line_no, ts, session.cwd)], {})
        return EMPTY  # replacement_history repeats turns already indexed
    if kind == "event_msg":
        event = as_dict(payload)
        etype = event.get("type")
        if etype == "thread_name_updated":
            name = event.get("thread_name")
            return ParsedLine([], {"title": name.strip()}) if isinstance(name, str) and name.strip() else EMPTY
        if etype == "item_completed":
            item = event.get("item")
            if session.history_mode != "paginated" or not isinstance(item, dict):
                return EMPTY  # in a default thread the response_item lines hold the same items
            return completed_item(item, line_no, ts, session)
        if etype in _TURN_ENDS and session.questions:
            return ParsedLine([], {"questions": ()})  # a question unanswered when its turn ended never will be
        if etype in _IGNORED_EVENTS:
            return EMPTY
        return ParsedLine([], {}, unknown=f"event_msg/{etype}")
    if kind == "inter_agent_communication":  # a message between agents, as a line of its own
        text = as_str(as_dict(payload).get("content")).strip()
        return ParsedLine([Record(f"{session.session_id}:{line_no}#0", "user", "text", text, line_no, ts, session.cwd,
                                  author="agent")], {}) if text else EMPTY
    if kind in _IGNORED_TOP:
        return EMPTY
    return ParsedLine([], {}, unknown=str(kind))


AGENT = Agent("codex", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS))
