"""Cline, Roo Code and Kilo Code tasks: one folder per task, ``tasks/<task id>/ui_messages.json``.

Read from Cline 4.1.13 (cline/cline ``apps/vscode/src/shared/ExtensionMessage.ts`` and
``core/storage/disk.ts``, Aug 2026); Roo Code and Kilo Code are forks that keep the same task folder
and message shapes. Each task folder holds ``ui_messages.json`` (the conversation as shown: an array
of ``{ts, type: "say"|"ask", say?, ask?, text?, reasoning?, partial?}``), ``api_conversation_history.json``
(what was sent to the model, Anthropic message shape) and ``task_metadata.json`` (files and models).
Both JSON files are rewritten on every change, so a task is read whole.

Where: the extension's VS Code global storage ``<editor>/User/globalStorage/<extension id>/tasks``
(``saoudrizwan.claude-dev``, ``rooveterinaryinc.roo-cline``, ``kilocode.kilo-code``); Cline 4 and its
CLI keep tasks in ``~/.cline/data/tasks`` (``$CLINE_DATA_DIR``, or ``$CLINE_DIR/data``).

Records from ``ui_messages.json``: the task and user feedback (user), text and completion results
(assistant), reasoning (``content_type="reasoning"``), commands (``execute_command`` calls whose output
is the ``command_output`` messages that follow), other tool and MCP requests (calls; what a tool
found or wrote, and MCP responses, are their results). A command, tool or MCP request is an ``ask``
when it waited for approval and a ``say`` when it was auto-approved; both are calls. The task is the
first message: ``say: "task"`` since Cline 3.57 (Feb 2026), before that (and in Roo and Kilo)
``say: "text"``, told from the assistant's texts by being first and written before any API request
(``conversationHistoryIndex`` -1; Cline's webview likewise takes ``messages[0]`` as the task). Also:
browser actions (calls; the page address and console logs their results, never the screenshot),
subagents a task spawns (``use_subagents``; what they returned, from the ``subagent`` status), a new
task handed its context (``new_task``, a call), condensed context (``condense``, ``summarize_task``:
summaries), and the person's own edit of a proposed change (``user_feedback_diff``, user text). API
request bookkeeping, errors, checkpoints and partial messages are not records.
A folder with only ``api_conversation_history.json`` is read from that instead (text, ``tool_use`` and
``tool_result`` blocks). The project comes from the ``# Current Working Directory (...)`` line Cline
puts in its environment details; the title is the task's first line.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    block_text,
    clean_text,
    editor_user_dirs,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOL = "execute_command"
SHELL_TOOLS = {SHELL_TOOL}
_EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
_CWD = re.compile(r"# Current (?:Working Directory|Workspace Directory) \(([^)\n]+)\)")
_UI, _API, _META = "ui_messages.json", "api_conversation_history.json", "task_metadata.json"


def _roots(env, extension_id: str, own: tuple[str, str] | None = None) -> list[tuple[Path, str]]:
    if own and env.get(own[0]):
        return [(Path(os.path.expanduser(env[own[0]])) / own[1], f"env ${own[0]}")]
    dirs = editor_user_dirs(env, _EDITORS)
    found = [(d / "globalStorage" / extension_id / "tasks", "default") for d in dirs[1:]
             if (d / "globalStorage" / extension_id).is_dir()]
    return [(dirs[0] / "globalStorage" / extension_id / "tasks", "default")] + found


def _cline_root(env):
    if env.get("CLINE_DATA_DIR"):
        own = [(Path(os.path.expanduser(env["CLINE_DATA_DIR"])) / "tasks", "env $CLINE_DATA_DIR")]
    elif env.get("CLINE_DIR"):
        own = [(Path(os.path.expanduser(env["CLINE_DIR"])) / "data" / "tasks", "env $CLINE_DIR")]
    else:
        home = Path(env.get("HOME") or os.path.expanduser("~"))
        own = [(home / ".cline" / "data" / "tasks", "default")]
    return own + _roots(env, "saoudrizwan.claude-dev")


def claims(path: Path) -> bool:
    """``ui_messages.json`` of a task folder, or its API history when there is no UI file."""
    if path.parent.parent.name != "tasks":
        return False
    if path.name == _UI:
        return True
    return path.name == _API and not (path.parent / _UI).exists()


def _session_for(agent: str):
    def session_for(path: Path) -> SessionInfo:
        return SessionInfo(path.parent.name, agent)
    return session_for


def stat(path: Path) -> tuple[int, int]:
    """The claimed file plus the task's other files (metadata and API history change too)."""
    st = os.stat(path)
    size, mtime = st.st_size, st.st_mtime_ns
    for name in (_API, _META):
        other = path.parent / name
        if other != path:
            try:
                ost = os.stat(other)
            except OSError:
                continue
            size, mtime = size + ost.st_size, max(mtime, ost.st_mtime_ns)
    return size, mtime


def _json(text: object) -> dict | None:
    if not isinstance(text, str) or not text.lstrip().startswith("{"):
        return None
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


# A tool message's fields that are not its arguments: its name, what it read, found or wrote (stored as
# its output: a file's text, search results, a diff) and Cline's own bookkeeping.
_NOT_ARGUMENTS = ("tool", "content", "diff", "operationIsLocatedInWorkspace")
_CONTENT_IS_PATH = {"readFile"}  # its ``content`` is the file's absolute path, not what was read


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


# Messages that are calls (by the tool name they are stored under): the browser, subagents a task
# spawns, and a new task handed its context. And the messages holding a result, by the kind of call
# whose result is still to come (an MCP request's response, a browser action's page, subagents' answers).
_CALLS = {"browser_action_launch": "browser_action", "browser_action": "browser_action",
          "use_subagents": "use_subagents", "new_task": "new_task"}
_RESULTS = {"mcp_server_response": "use_mcp_server", "browser_action_result": "browser_action",
            "subagent": "use_subagents"}


def _call_text(kind: str, text: str) -> str:
    """What a browser action, a subagent spawn or a new task asked for. Pure."""
    obj = _json(text)
    if kind == "use_subagents":
        prompts = obj.get("prompts") if isinstance(obj, dict) else None
        if not isinstance(prompts, list):
            return ""
        return "\n\n".join(p.strip() for p in prompts if isinstance(p, str) and p.strip())
    if kind == "browser_action" and isinstance(obj, dict):
        return render_input(obj)
    return clean_text(text)  # the URL a browser is launched at; a new task's context


def _result_text(kind: str, text: str) -> str:
    """An MCP response, a browser action's page and console logs (never its screenshot), or what the
    subagents returned. Pure."""
    if kind == "mcp_server_response":
        return text.strip()
    obj = _json(text)
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
        if not isinstance(msg, dict) or msg.get("partial") is True:
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
            found = _CWD.search(_str((_json(text) or {}).get("request")))
            if found and cwd is None:
                cwd = found.group(1).strip()
        elif _opens_task(n, msg, kind) or kind == "user_feedback":
            body = clean_text(text)
            if body:
                if kind != "user_feedback" and title is None:
                    title = body.splitlines()[0][:120]
                records.append(Record(f"{rid}#0", "user", "text", body, n, ts, cwd))
        elif kind in ("text", "completion_result", "plan_completion_result", "plan_mode_respond", "act_mode_respond",
                      "followup"):
            obj = _json(text)
            if obj is not None:
                text = _str(obj.get("response") or obj.get("question") or obj.get("text")) or text
            body = clean_text(text)
            if body:
                records.append(Record(f"{rid}#0", "assistant", "text", body, n, ts, cwd))
            reasoning = _str(msg.get("reasoning")).strip()
            if reasoning:
                records.append(Record(f"{rid}#r", "assistant", "reasoning", reasoning, n, ts, cwd))
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
            obj = _json(text) or {}
            if kind == "use_mcp_server":
                name = f"mcp:{_str(obj.get('serverName'))}/{_str(obj.get('toolName'))}"
                body = _str(obj.get("arguments"))
            else:
                name = _str(obj.get("tool")) or "tool"
                body = render_input({k: v for k, v in obj.items() if k not in _NOT_ARGUMENTS})
            records.append(Record(f"{rid}#0", "tool", "tool", f"{name}\n{body}".strip(), n, ts, cwd, name, rid))
            result = "" if kind != "tool" or name in _CONTENT_IS_PATH else \
                (_str(obj.get("content")) or _str(obj.get("diff"))).strip()
            if result:  # what the tool read, found or wrote: its output
                records.append(Record(f"{rid}#1", "tool", "tool", result, n, ts, cwd, None, rid))
            if kind == "use_mcp_server":
                waiting[kind] = rid
        elif kind == "user_feedback_diff":  # the person's own edit of a change the agent proposed
            obj = _json(text) or {}
            body = "\n".join(x for x in (_str(obj.get("path")), _str(obj.get("diff")).strip()) if x)
            if body:
                records.append(Record(f"{rid}#0", "user", "text", body, n, ts, cwd))
        elif kind in ("condense", "summarize_task"):  # the summary that replaces the conversation so far
            body = clean_text(text)
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
                        title = text.splitlines()[0][:120]
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


def _reader(agent: str):
    def read_whole(path: Path, state: dict) -> WholeRead:
        try:
            data = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            raise OSError(f"not a complete JSON document (being rewritten?): {exc}") from None
        if not isinstance(data, list):
            raise OSError(f"expected a JSON array of messages, got {type(data).__name__}")
        base = SessionInfo(path.parent.name, agent)
        records, cwd, title = (ui_records if path.name == _UI else api_records)(data, base)
        if cwd is None and path.name == _UI and (path.parent / _API).exists():
            try:
                api = orjson.loads((path.parent / _API).read_bytes())
                _r, cwd, _t = api_records(api if isinstance(api, list) else [], base)
            except (OSError, orjson.JSONDecodeError):
                pass
        session = SessionInfo(base.session_id, agent, cwd=cwd, title=title)
        return WholeRead([SourceUnit(str(path), session, records)], {})
    return read_whole


def _agent(name: str, root) -> Agent:
    return Agent(name, root, claims, _session_for(name), read_whole=_reader(name), stat=stat,
                 shell_tools=frozenset(SHELL_TOOLS))


CLINE = _agent("cline", _cline_root)
ROO = _agent("roo", lambda env: _roots(env, "rooveterinaryinc.roo-cline"))
KILO = _agent("kilo", lambda env: _roots(env, "kilocode.kilo-code"))
