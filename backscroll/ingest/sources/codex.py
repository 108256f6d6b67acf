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

A fork (``forked_from_id``) opens with the parent's transcript copied in and re-stamped at the fork
instant, with the ancestors' ``session_meta`` lines: lines stamped within ``FORK_BURST`` of the
fork's own ``session_meta`` are that copy (already stored from the parent's file) and are skipped.
Entry types this module does not know are reported in ``ParsedLine.unknown``.
"""

from __future__ import annotations

import re
import shlex
from datetime import datetime, timedelta
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    as_dict,
    as_list,
    as_str,
    block_text,
    clean_text,
    home_root,
    render_input,
)
from backscroll.types import Record, SessionInfo

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
# Codex's shell tools over the years (any call with a ``command``/``cmd`` is stored as a shell call).
SHELL_TOOLS = {"shell", "shell_command", "exec_command", "local_shell", "container.exec"}
_OUTPUT_TYPES = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
_CALL_TYPES = {"function_call", "custom_tool_call", "local_shell_call"}
# A fork's copied prefix is written in one burst: lines stamped this long after the fork's own
# session_meta (or later) are the fork's own.
FORK_BURST = timedelta(seconds=1)
_EXIT_CODE = re.compile(r"(?:^|\n)(?:Process exited with code|Exit code:)\s*(-?\d+)")
# Known lines that hold nothing to index (state, metadata, UI copies of response items).
_IGNORED_TOP = {"world_state", "inter_agent_communication_metadata"}
_IGNORED_ITEMS = {"ghost_snapshot", "compaction", "compaction_summary", "other"}
_IGNORED_EVENTS = {
    "user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content", "agent_reasoning_section_break",
    "token_count", "task_started", "task_complete", "turn_started", "turn_complete", "turn_aborted",
    "exec_command_begin", "exec_command_end", "exec_command_output_delta", "patch_apply_begin", "patch_apply_end",
    "mcp_tool_call_begin", "mcp_tool_call_end", "web_search_begin", "web_search_end", "view_image_tool_call",
    "image_generation_begin", "image_generation_end", "context_compacted", "thread_settings_applied",
    "thread_goal_updated", "entered_review_mode", "exited_review_mode", "guardian_assessment", "error", "warning",
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
        action = as_dict(payload.get("action"))
        argv = action.get("command")
        if isinstance(argv, list):
            return "local_shell", _argv_text(argv), argv
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


def _exit_failed(text: str) -> bool:
    """Whether an exec output's ``Process exited with code N`` / ``Exit code: N`` line says failure."""
    m = _EXIT_CODE.search(text[:4096])
    return m is not None and int(m.group(1)) != 0


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


def _stamp(value: object) -> datetime | None:
    ts = normalize_timestamp(value)
    if not ts:
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None


def _meta(obj: dict, payload: dict, line_no: int, session: SessionInfo) -> ParsedLine:
    """A ``session_meta`` line: the session's own, or an ancestor's copied into a fork (ignored)."""
    pid = payload.get("id")
    if line_no > 1 and isinstance(pid, str) and pid.lower() != session.session_id.lower():
        return EMPTY  # an ancestor's meta, copied in with its transcript
    updates: dict = {}
    if isinstance(payload.get("cwd"), str):
        updates["cwd"] = payload["cwd"]
    if isinstance(payload.get("history_mode"), str):
        updates["history_mode"] = payload["history_mode"]
    source = payload.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
        updates["is_sidechain"] = True
        updates["parent_session_id"] = spawn["parent_thread_id"]
    forked = payload.get("forked_from_id")
    if isinstance(forked, str) and forked.strip():
        updates.setdefault("parent_session_id", forked.strip())
        start = _stamp(obj.get("timestamp")) or _stamp(payload.get("timestamp"))
        if start is not None:
            updates["copy_until"] = (start + FORK_BURST).isoformat()
    return ParsedLine([], updates)


def _in_copy(obj: dict, session: SessionInfo) -> tuple[bool, dict]:
    """Whether a fork's line belongs to the copied parent transcript; the updates that end the copy."""
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


def _texts(content: object) -> list[str]:
    """The texts of a content list (strings or ``{"text": ...}`` blocks)."""
    if isinstance(content, str):
        return [content]
    out = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, str):
            out.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            out.append(block["text"])
    return out


def _reasoning_text(payload: dict) -> str:
    """Readable reasoning: the summary, else raw reasoning text (never ``encrypted_content``)."""
    parts = _texts(payload.get("summary")) or _texts(payload.get("summary_text"))
    if not parts:
        parts = _texts(payload.get("content")) or _texts(payload.get("raw_content"))
    return "\n\n".join(p.strip() for p in parts if p.strip())


def _web_search_text(action: object, query: object = None) -> str:
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


def _author(session: SessionInfo) -> str:
    """Who wrote a user message: the parent agent in a spawned subagent, else the person."""
    return "agent" if session.is_sidechain else "human"


def _user_records(base: str, texts: list[str], line_no: int, ts, session: SessionInfo) -> list[Record]:
    records = []
    for i, raw in enumerate(texts):
        text = clean_text(raw)
        if text and not text.startswith(_INJECTED_PREFIXES):
            records.append(Record(f"{base}#{i}", "user", "text", text, line_no, ts, session.cwd,
                                  author=_author(session)))
    return records


def _response_item(payload: dict, line_no: int, ts, session: SessionInfo) -> ParsedLine:
    cwd = session.cwd
    base = f"{session.session_id}:{line_no}"
    ptype = payload.get("type")
    paginated = session.history_mode == "paginated"
    if paginated and ptype in ("message", "reasoning", "web_search_call", "function_call", "function_call_output",
                               "local_shell_call", "local_shell_call_output"):
        return EMPTY  # legacy projections of the items this thread persists as item_completed
    if ptype == "message":
        role = payload.get("role")
        if role == "developer":
            return _hook_context(payload, base, line_no, ts, cwd)
        if role not in ("user", "assistant"):
            return EMPTY  # developer / system instructions
        content = payload.get("content")
        if isinstance(content, str):
            content = [{"type": "input_text", "text": content}]
        if not isinstance(content, list):
            raise LineError(f"message content is {type(content).__name__}, expected a list")
        if role == "user":
            records = []
            for i, block in enumerate(content):
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    text = clean_text(block["text"])
                    if text and not text.startswith(_INJECTED_PREFIXES):
                        records.append(Record(f"{base}#{i}", "user", "text", text, line_no, ts, cwd,
                                              author=_author(session)))
            return ParsedLine(records, {})
        records = []
        for i, block in enumerate(content):
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                text = clean_text(block["text"])
                if text:
                    records.append(Record(f"{base}#{i}", "assistant", "text", text, line_no, ts, cwd))
        return ParsedLine(records, {})
    if ptype == "reasoning":
        text = _reasoning_text(payload)
        return ParsedLine([Record(f"{base}#0", "assistant", "reasoning", text, line_no, ts, cwd)] if text else [], {})
    if ptype == "agent_message":  # a message between agents, persisted in the recipient's history
        text = "\n".join(t.strip() for t in _texts(payload.get("content")) if t.strip())
        if not text:
            return EMPTY
        return ParsedLine([Record(f"{base}#0", "user", "text", text, line_no, ts, cwd, author="agent")], {})
    if ptype in _CALL_TYPES:
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
    if ptype == "web_search_call":
        query = _web_search_text(payload.get("action"), payload.get("query"))
        call_id = payload.get("call_id") or payload.get("id")
        return ParsedLine([Record(f"{base}#0", "tool", "tool", f"web_search\n{query}" if query else "web_search",
                                  line_no, ts, cwd, "web_search", call_id if isinstance(call_id, str) else None)], {})
    if ptype == "tool_search_call":
        args = payload.get("arguments")
        body = render_input(args) if args not in (None, "", {}) else ""
        call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
        return ParsedLine([Record(f"{base}#0", "tool", "tool", f"tool_search\n{body}" if body else "tool_search",
                                  line_no, ts, cwd, "tool_search", call_id)], {})
    if ptype == "tool_search_output":
        names = []
        stack = list(as_list(payload.get("tools")))
        while stack:
            tool = stack.pop(0)
            if isinstance(tool, dict):
                if isinstance(tool.get("name"), str):
                    names.append(tool["name"])
                if isinstance(tool.get("tools"), list):
                    stack.extend(tool["tools"])
        call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
        if not names:
            return EMPTY
        return ParsedLine([Record(f"{base}#0", "tool", "tool", "\n".join(names), line_no, ts, cwd, None, call_id)], {})
    if ptype == "image_generation_call":
        prompt = payload.get("revised_prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return EMPTY
        call_id = payload.get("call_id") or payload.get("id")
        return ParsedLine([Record(f"{base}#0", "tool", "tool", f"image_generation\n{prompt.strip()}", line_no, ts,
                                  cwd, "image_generation", call_id if isinstance(call_id, str) else None)], {})
    if ptype in _IGNORED_ITEMS:
        return EMPTY
    return ParsedLine([], {}, unknown=f"response_item/{ptype}")


def _item(item: dict, line_no: int, ts, session: SessionInfo) -> ParsedLine:
    """An ``item_completed`` item of a paginated thread."""
    cwd = session.cwd
    base = f"{session.session_id}:{line_no}"
    itype = item.get("type")
    iid = item.get("id") if isinstance(item.get("id"), str) else None
    if itype == "UserMessage":
        return ParsedLine(_user_records(base, _texts(item.get("content")), line_no, ts, session), {})
    if itype in ("AgentMessage", "Plan"):
        texts = _texts(item.get("content")) or _texts(item.get("text"))
        return ParsedLine([Record(f"{base}#{i}", "assistant", "text", clean_text(t), line_no, ts, cwd)
                           for i, t in enumerate(texts) if clean_text(t)], {})
    if itype == "Reasoning":
        text = _reasoning_text(item)
        return ParsedLine([Record(f"{base}#0", "assistant", "reasoning", text, line_no, ts, cwd)] if text else [], {})
    if itype == "CommandExecution":
        argv = item.get("command")
        command: str | list
        if isinstance(argv, list):
            text, command = _argv_text(argv), argv
        else:
            text = command = argv if isinstance(argv, str) else "exec"
        records = [Record(f"{base}#0", "tool", "tool", text, line_no, ts, item.get("cwd") if isinstance(
            item.get("cwd"), str) else cwd, "exec_command", iid, command=command)]
        out = next((item[k] for k in ("aggregated_output", "formatted_output", "stdout")
                    if isinstance(item.get(k), str) and item[k].strip()), "")
        code = item.get("exit_code")
        if out.strip():
            records.append(Record(f"{base}#1", "tool", "tool", out.strip(), line_no, ts, cwd, None, iid,
                                  is_error=(isinstance(code, int) and code != 0) or item.get("status") == "failed"))
        return ParsedLine(records, {})
    if itype == "McpToolCall":
        name = ".".join(str(item[k]) for k in ("server", "tool") if isinstance(item.get(k), str)) or "mcp"
        args = item.get("arguments")
        body = render_input(args) if args not in (None, "", {}) else ""
        records = [Record(f"{base}#0", "tool", "tool", f"{name}\n{body}" if body else name, line_no, ts, cwd,
                          name, iid)]
        result = as_dict(item.get("result"))
        out = block_text(result.get("content")).strip() if result else ""
        err = item.get("error")
        if not out and err:
            out = block_text(err).strip()
        if out:
            records.append(Record(f"{base}#1", "tool", "tool", out, line_no, ts, cwd, None, iid,
                                  is_error=result.get("isError") is True or bool(err)))
        return ParsedLine(records, {})
    if itype == "FileChange":
        changes = as_dict(item.get("changes"))
        text = "apply_patch\n" + "\n".join(str(k) for k in changes) if changes else "apply_patch"
        records = [Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, "apply_patch", iid)]
        out = "\n".join(item[k].strip() for k in ("stdout", "stderr") if isinstance(item.get(k), str)
                        and item[k].strip())
        if out:
            records.append(Record(f"{base}#1", "tool", "tool", out, line_no, ts, cwd, None, iid,
                                  is_error=item.get("status") == "failed"))
        return ParsedLine(records, {})
    if itype in ("Extension", "WebSearch"):
        query = _web_search_text(item.get("action"), item.get("query"))
        return ParsedLine([Record(f"{base}#0", "tool", "tool", f"web_search\n{query}" if query else "web_search",
                                  line_no, ts, cwd, "web_search", iid)], {})
    if itype in ("ContextCompaction", "HookPrompt", "ImageView", "EnteredReviewMode", "ExitedReviewMode"):
        return EMPTY
    return ParsedLine([], {}, unknown=f"item_completed/{itype}")


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    payload = obj.get("payload")
    if kind == "session_meta":
        if not isinstance(payload, dict):
            raise LineError(f"{kind} without a payload object")
        return _meta(obj, payload, line_no, session)
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
        return _response_item(payload, line_no, ts, session)
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
            return _item(item, line_no, ts, session)
        if etype in _IGNORED_EVENTS:
            return EMPTY
        return ParsedLine([], {}, unknown=f"event_msg/{etype}")
    if kind in _IGNORED_TOP:
        return EMPTY
    return ParsedLine([], {}, unknown=str(kind))


AGENT = Agent("codex", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS))
