"""Cline's messages (``ui_messages.json``, or ``api_conversation_history.json``) into records: what each
message kind is, which are calls and which their results, the task that opens it, and the project its
environment details name. Pure; where the files are is ``cline``.
"""

from __future__ import annotations

import re

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import block_text, clean_text, json_object, render_input, title_line
from backscroll.ingest.sources.answers import answer_text
from backscroll.types import Record, SessionInfo

SHELL_TOOL = "execute_command"
SHELL_TOOLS = {SHELL_TOOL}
_CWD = re.compile(r"# Current (?:Working Directory|Workspace Directory) \(([^)\n]+)\)")


# A tool message's fields that are not its arguments: its name, what it read, found or wrote (stored as
# its output: a file's text, search results, a diff) and Cline's own bookkeeping.
_NOT_ARGUMENTS = ("tool", "content", "diff", "operationIsLocatedInWorkspace",
                  "originalContent", "diffStats", "isProtected", "isOutsideWorkspace", "imageData")  # (Roo's edits)
CHANGES_FLAG = "HAS_CHANGES"  # what Cline appends to a completion that changed the workspace (its UI cuts it off)
_CONTENT_IS_PATH = {"readFile"}  # its ``content`` is the file's absolute path, not what was read


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


# Messages that are calls (by the tool name they are stored under): the browser, subagents a task
# spawns, and a new task handed its context. And the messages holding a result, by the kind of call
# whose result is still to come (an MCP request's response, a browser action's page, subagents' answers).
_CALLS = {"browser_action_launch": "browser_action", "browser_action": "browser_action",
          "use_subagents": "use_subagents", "new_task": "new_task"}
_RESULTS = {"mcp_server_response": "use_mcp_server", "browser_action_result": "browser_action",
            "subagent": "use_subagents", "subtask_result": "new_task"}
_NEW_TASK_TOOLS = {"newTask", "new_task"}  # Roo's and Kilo's subtask tool: its ``content`` is the brief (an argument)


def _call_text(kind: str, text: str) -> str:
    """What a browser action, a subagent spawn or a new task asked for. Pure."""
    obj = json_object(text)
    if kind == "use_subagents":
        prompts = obj.get("prompts") if isinstance(obj, dict) else None
        if not isinstance(prompts, list):
            return ""
        return "\n\n".join(p.strip() for p in prompts if isinstance(p, str) and p.strip())
    if kind == "browser_action" and isinstance(obj, dict):
        return render_input(obj)
    return clean_text(text)  # the URL a browser is launched at; a new task's context


def _result_text(kind: str, text: str) -> str:
    """An MCP response, a browser action's page and console logs (never its screenshot), what the subagents
    returned, or a subtask's result. Pure."""
    if kind in ("mcp_server_response", "subtask_result"):  # (a subtask's completion, as it reported it)
        return text.strip()
    obj = json_object(text)
    if not isinstance(obj, dict):
        return ""
    if kind == "browser_action_result":
        parts = [_str(obj.get("currentUrl")), _str(obj.get("logs"))]
    else:
        items = obj.get("items")
        parts = [_str(i.get("result")) or _str(i.get("error"))
                 for i in (items if isinstance(items, list) else []) if isinstance(i, dict)]
    return "\n\n".join(p.strip() for p in parts if p.strip())


def _opens_task(n: int, msg: dict, kind: str) -> bool:
    """Whether message ``n`` (1-based) is the task's opening prompt: a ``task`` message, or the first
    message written as ``text`` before the first API request (the assistant's texts answer one, so
    their ``conversationHistoryIndex`` is 0 or more; files older than that field lack it)."""
    if kind == "task":
        return True
    return (n == 1 and kind == "text" and msg.get("type") == "say"
            and msg.get("conversationHistoryIndex", -1) == -1)


def ui_records(messages: list, session: SessionInfo) -> tuple[list[Record], str | None, str | None]:
    """Records, the working directory and the title of a ``ui_messages.json`` array."""
    records: list[Record] = []
    cwd = title = None
    last_command: str | None = None  # the command whose output messages follow
    waiting: dict[str, str] = {}  # kind of call -> the call whose result is still to come (``_RESULTS``)
    outputs: list[tuple[int, str | None, str]] = []

    def flush() -> None:
        nonlocal last_command
        text = "\n".join(t for _n, _ts, t in outputs).strip()
        if text and last_command:
            n, when, _t = outputs[-1]
            records.append(Record(f"{last_command}#1", "tool", "tool", text, n, when, cwd, None, last_command))
        outputs.clear()
        last_command = None

    for n, msg in enumerate(messages, 1):
        # A message still marked ``partial`` is kept: Cline rewrites a streamed message in place, so the one
        # on disk is its last state; a reasoning block before a tool call (Cline < 3.63, Roo) or a reply
        # cut by a failed stream stays marked although its text is all there was.
        if not isinstance(msg, dict):
            continue
        kind = msg.get("say") if msg.get("type") == "say" else msg.get("ask") if msg.get("type") == "ask" else None
        if not isinstance(kind, str):
            continue
        ts = normalize_timestamp(msg.get("ts"))
        text = _str(msg.get("text"))
        rid = f"{session.session_id}:{msg.get('ts') if isinstance(msg.get('ts'), int) else n}"
        if kind == "command_output":
            if last_command and text.strip():
                outputs.append((n, ts, text))
            continue
        flush()
        if kind == "api_req_started":
            found = _CWD.search(_str((json_object(text) or {}).get("request")))
            if found and cwd is None:
                cwd = found.group(1).strip()
        elif _opens_task(n, msg, kind) or kind == "user_feedback":
            body = clean_text(text)
            if body:
                if kind != "user_feedback" and title is None:
                    title = title_line(body)
                # (the task a subtask opens with is its parent agent's: the author its session gives)
                records.append(Record(f"{rid}#0", "user", "text", body, n, ts, cwd,
                                      author="human" if kind == "user_feedback" else None))
        elif kind in ("text", "completion_result", "plan_completion_result", "plan_mode_respond", "act_mode_respond",
                      "followup"):
            obj = json_object(text)
            if obj is not None:
                text = _str(obj.get("response") or obj.get("question") or obj.get("text")) or text
            if kind == "completion_result" and text.endswith(CHANGES_FLAG):
                text = text[:-len(CHANGES_FLAG)]
            body = clean_text(text)
            if body:
                records.append(Record(f"{rid}#0", "assistant", "text", body, n, ts, cwd))
            picked = _str((obj or {}).get("selected")).strip()  # an option the person clicked: no feedback follows
            if picked and kind in ("followup", "plan_mode_respond"):
                asked = body if kind == "followup" else ""  # (not a whole plan again: the option taken)
                records.append(Record(f"{rid}#s", "user", "text", answer_text([(asked, picked, None)]), n, ts, cwd,
                                      author="human"))
            reasoning = _str(msg.get("reasoning")).strip()
            if reasoning:
                records.append(Record(f"{rid}#r", "assistant", "reasoning", reasoning, n, ts, cwd))
        elif kind == "task_progress":  # the agent's todo list, whole each time: a call, as Claude's TodoWrite
            if text.strip():
                records.append(Record(f"{rid}#0", "tool", "tool", text.strip(), n, ts, cwd, "task_progress", rid))
        elif kind == "reasoning":
            if text.strip():
                records.append(Record(f"{rid}#0", "assistant", "reasoning", text.strip(), n, ts, cwd))
        elif kind == "command":
            command = text.strip()
            if command:
                records.append(Record(f"{rid}#0", "tool", "tool", command, n, ts, cwd, SHELL_TOOL, rid,
                                      command=command))
                last_command = rid
        elif kind in ("tool", "use_mcp_server"):
            obj = json_object(text) or {}
            if kind == "use_mcp_server":
                name = f"mcp:{_str(obj.get('serverName'))}/{_str(obj.get('toolName'))}"
                body = _str(obj.get("arguments"))
            else:
                name = _str(obj.get("tool")) or "tool"
                if name == "summarizeTask" and _str(obj.get("content")).strip():  # (Cline's compaction)
                    records.append(Record(f"{rid}#0", "assistant", "summary", clean_text(obj["content"]), n, ts, cwd))
                    continue
                arguments = ("tool",) if name in _NEW_TASK_TOOLS else _NOT_ARGUMENTS
                body = render_input({k: v for k, v in obj.items() if k not in arguments})
            records.append(Record(f"{rid}#0", "tool", "tool", f"{name}\n{body}".strip(), n, ts, cwd, name, rid))
            result = "" if kind != "tool" or name in _CONTENT_IS_PATH or name in _NEW_TASK_TOOLS else \
                (_str(obj.get("content")) or _str(obj.get("diff"))).strip()
            if name in _NEW_TASK_TOOLS:
                waiting["new_task"] = rid
            if result:  # what the tool read, found or wrote: its output
                records.append(Record(f"{rid}#1", "tool", "tool", result, n, ts, cwd, None, rid))
            if kind == "use_mcp_server":
                waiting[kind] = rid
        elif kind == "user_feedback_diff":  # the person's own edit of a change the agent proposed
            obj = json_object(text) or {}
            body = "\n".join(x for x in (_str(obj.get("path")), _str(obj.get("diff")).strip()) if x)
            if body:
                records.append(Record(f"{rid}#0", "user", "text", body, n, ts, cwd, author="human"))
        elif kind in ("condense", "summarize_task", "condense_context"):  # what replaces the conversation so far
            condensed = msg.get("contextCondense")  # (Roo's: the summary is there, its text empty)
            body = clean_text(_str(condensed.get("summary")) if isinstance(condensed, dict) else text)
            if body:
                records.append(Record(f"{rid}#0", "assistant", "summary", body, n, ts, cwd))
        elif kind in _CALLS:
            call = _call_text(kind, text)
            if call:
                records.append(Record(f"{rid}#0", "tool", "tool", f"{_CALLS[kind]}\n{call}", n, ts, cwd, _CALLS[kind],
                                      rid))
                waiting[_CALLS[kind]] = rid
        elif kind in _RESULTS and waiting.get(_RESULTS[kind]):
            result = _result_text(kind, text)
            if result:
                call_id = waiting.pop(_RESULTS[kind])
                records.append(Record(f"{call_id}#1", "tool", "tool", result, n, ts, cwd, None, call_id))
    flush()
    return records, cwd, title


def api_records(messages: list, session: SessionInfo) -> tuple[list[Record], str | None, str | None]:
    """Records of an ``api_conversation_history.json`` array (Anthropic message shape)."""
    records: list[Record] = []
    cwd = title = None
    for n, msg in enumerate(messages, 1):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            continue
        role = msg["role"]
        ts = normalize_timestamp(msg.get("ts"))
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for i, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            rid = f"{session.session_id}:api{n}#{i}"
            btype = block.get("type")
            if btype == "text" and isinstance(block.get("text"), str):
                text = block["text"]
                found = _CWD.search(text)
                if found and cwd is None:
                    cwd = found.group(1).strip()
                text = clean_text(re.sub(r"<environment_details>.*?(</environment_details>|\Z)", "", text,
                                         flags=re.DOTALL))
                text = re.sub(r"^<task>\s*(.*?)\s*</task>$", r"\1", text, flags=re.DOTALL)
                if text:
                    if role == "user" and title is None:
                        title = title_line(text)
                    records.append(Record(rid, role, "text", text, n, ts, cwd))
            elif btype in ("thinking", "reasoning") and isinstance(thought := block.get("thinking", block.get("text")),
                                                                   str):
                text = thought.strip()
                if text:
                    records.append(Record(rid, "assistant", "reasoning", text, n, ts, cwd))
            elif btype == "tool_use":
                name = _str(block.get("name")) or "tool"
                inp = block.get("input")
                call_id = _str(block.get("id")) or rid
                command = inp.get("command") if name == SHELL_TOOL and isinstance(inp, dict) else None
                if isinstance(command, str) and command.strip():
                    text = command
                else:
                    command = None
                    text = f"{name}\n{render_input(inp)}".strip() if inp not in (None, {}, "") else name
                records.append(Record(rid, "tool", "tool", text, n, ts, cwd, name, call_id, command=command))
            elif btype == "tool_result":
                text = block_text(block.get("content")).strip()
                if text:
                    records.append(Record(rid, "tool", "tool", text, n, ts, cwd, None,
                                          _str(block.get("tool_use_id")) or None,
                                          is_error=block.get("is_error") is True))
    return records, cwd, title
