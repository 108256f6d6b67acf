"""Codex's item shapes: one ``response_item`` payload, or one ``item_completed`` item of a ``history_mode:
"paginated"`` thread, turned into records.

This module owns messages (injected context left out, hook context kept only as backscroll's own recall echoes),
reasoning summaries, tool calls and their outputs (``function_call`` / ``custom_tool_call`` / ``local_shell_call``
and the ``*_output`` lines; their shapes are read by ``codex_calls``), web and tool searches, image generation and
messages between agents. ``codex.py`` reads the lines around them (session meta, forks, events).
"""

from __future__ import annotations

import orjson

from backscroll.ingest.sources import (
    EMPTY,
    LineError,
    ParsedLine,
    as_dict,
    as_list,
    block_text,
    clean_text,
    jsontext,
    render_input,
)
from backscroll.ingest.sources.answers import codex_answered, codex_asked, codex_asking
from backscroll.ingest.sources.codex_calls import argv_text, tool_call, tool_output, web_search_text
from backscroll.types import Record, SessionInfo

_INJECTED_PREFIXES = ("<environment_context>", "<user_instructions>", "<permissions instructions>",
                      "# AGENTS.md instructions", "<INSTRUCTIONS>", "<turn_aborted>")
# The rest of what Codex counts as context it added to the person's turn (``contextual_user_message.rs``): kept, as
# the harness's (a skill's body, a ``!`` command and its output, a subagent's report, a hook's prompt, warnings).
_HARNESS_PREFIXES = (
    "<skill>", "<user_shell_command>", "<subagent_notification>", "<hook_prompt", "<external_", "<extension_context>",
    "<goal_context>", "Warning: apply_patch was requested via ",
    "Warning: The maximum number of unified exec processes you can keep open is",
    "Warning: Your account was flagged for potentially high-risk cyber activity",
)
_OUTPUT_TYPES, _CALL_TYPES = ({"function_call_output", "custom_tool_call_output", "local_shell_call_output"},
                              {"function_call", "custom_tool_call", "local_shell_call"})
_IGNORED_ITEMS = {"ghost_snapshot", "compaction", "compaction_summary", "context_compaction", "compaction_trigger",
                  "configuration_update", "additional_tools", "other"}
_PROJECTED = {"message", "reasoning", "web_search_call", "function_call", "function_call_output", "local_shell_call",
              "local_shell_call_output"}  # what a paginated thread persists as completed items too


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


def _inter_agent(content: list) -> str | None:
    """The words of a message between agents as builds before the ``agent_message`` item wrote it: an assistant
    message whose one text is ``InterAgentCommunication`` as JSON (``{author, recipient, content, …}``)."""
    if len(content) != 1 or not isinstance(content[0], dict) or not str(content[0].get("text", "")).startswith("{"):
        return None
    try:
        sent = jsontext.loads(content[0]["text"])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(sent, dict) or not isinstance(sent.get("content"), str) or not all(
            str(sent.get(k, "")).startswith("/") for k in ("author", "recipient")):  # (agent paths: "/root/worker")
        return None
    return clean_text(sent["content"]) or None


def _author(session: SessionInfo) -> str:
    """Who wrote a user message: the parent agent in a spawned subagent, else the person."""
    return "agent" if session.is_sidechain else "human"


# The Codex IDE extension and desktop app put what the person was looking at before their words,
# under one of these headings (the active file and open tabs, the page open in the app's browser,
# files attached), then ``REQUEST_MARKER`` on a line of its own, then what the person typed.
CLIENT_HEADINGS = ("# Context from my IDE setup:", "# In app browser:", "# Files mentioned by the user:")
REQUEST_MARKER = "## My request for Codex:"


def split_request(text: str) -> tuple[str, str] | None:
    """``(context, request)`` when an IDE or desktop client wrapped the person's words in its own
    context (``CLIENT_HEADINGS``, then ``REQUEST_MARKER``); else None: a person's own Markdown that
    happens to hold the marker stays theirs. A context that is only its heading (no file open) is
    ``""``. Pure."""
    if not text.startswith(CLIENT_HEADINGS):
        return None
    at = text.find("\n" + REQUEST_MARKER)
    if at < 0:
        return None
    context = text[:at].strip()
    return ("" if context in CLIENT_HEADINGS else context), text[at + 1 + len(REQUEST_MARKER):].strip()


def _user_records(base: str, texts: list[str], line_no: int, ts, session: SessionInfo) -> list[Record]:
    """The person's (or, in a subagent, the parent agent's) words; injected context left out, and a
    client's context around the words kept apart, as the harness's."""
    records = []
    for i, raw in enumerate(texts):
        text = clean_text(raw)
        if not text or text.startswith(_INJECTED_PREFIXES):
            continue
        parts = split_request(text)
        if parts is not None:
            context, text = parts
            if context:
                records.append(Record(f"{base}#{i}~context", "user", "text", context, line_no, ts, session.cwd,
                                      author="harness"))
        if text:
            records.append(Record(f"{base}#{i}", "user", "text", text, line_no, ts, session.cwd,
                                  author="harness" if text.startswith(_HARNESS_PREFIXES) else _author(session)))
    return records


def response_item(payload: dict, line_no: int, ts, session: SessionInfo) -> ParsedLine:
    cwd = session.cwd
    base = f"{session.session_id}:{line_no}"
    ptype = payload.get("type")
    if session.history_mode == "paginated" and ptype in _PROJECTED and not codex_asking(payload, session.questions):
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
            texts = [b["text"] if isinstance(b, dict) and isinstance(b.get("text"), str) else "" for b in content]
            return ParsedLine(_user_records(base, texts, line_no, ts, session), {})
        if (brief := _inter_agent(content)) is not None:  # (builds before ``agent_message``: the same, as JSON)
            return ParsedLine([Record(f"{base}#0", "user", "text", brief, line_no, ts, cwd, author="agent")], {})
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
        name, text, command = tool_call(payload)
        call_id = payload.get("call_id") or payload.get("id")
        call_id = call_id if isinstance(call_id, str) else None
        updates = codex_asked(session.questions, call_id, name, payload.get("arguments"))
        return ParsedLine([Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, name, call_id,
                                  command=command)], updates)
    if ptype in _OUTPUT_TYPES:
        text, failed = tool_output(payload)
        call_id = payload.get("call_id") if isinstance(payload.get("call_id"), str) else None
        said, updates = codex_answered(session.questions, payload)
        if said:  # the person's answers to the question tool (answers.py)
            return ParsedLine([Record(f"{base}#0", "user", "text", said, line_no, ts, cwd, author="human")], updates)
        if not text:
            return ParsedLine([], updates)
        return ParsedLine([Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, None, call_id,
                                  is_error=failed)], updates)
    if ptype == "web_search_call":
        query = web_search_text(payload.get("action"), payload.get("query"))
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


def completed_item(item: dict, line_no: int, ts, session: SessionInfo) -> ParsedLine:
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
            text, command = argv_text(argv), argv
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
        query = web_search_text(item.get("action"), item.get("query"))
        return ParsedLine([Record(f"{base}#0", "tool", "tool", f"web_search\n{query}" if query else "web_search",
                                  line_no, ts, cwd, "web_search", iid)], {})
    if itype in ("ContextCompaction", "HookPrompt", "ImageView", "EnteredReviewMode", "ExitedReviewMode"):
        return EMPTY
    return ParsedLine([], {}, unknown=f"item_completed/{itype}")
