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
summaries), the person's own edit of a proposed change (``user_feedback_diff``, user text) and the
agent's todo list (``task_progress``, a ``task_progress`` call). A message left ``partial: true`` is
kept as it stands (the last state of a streamed message: a complete reasoning block of Cline before
3.63 or of Roo, a reply a failed stream cut). API request bookkeeping, errors and checkpoints are not
records.
A folder with only ``api_conversation_history.json`` is read from that instead (text, ``tool_use`` and
``tool_result`` blocks). The project comes from the ``# Current Working Directory (...)`` line Cline
puts in its environment details; the title is the task's first line. The messages become records in
``cline_messages``; this module owns the folders and the agents.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    cline_sessions,
    editor_user_dirs,
    file_stat,
    jsontext,
    read_regular,
    with_stats,
)
from backscroll.ingest.sources.cline_messages import SHELL_TOOLS, api_records, ui_records
from backscroll.types import SessionInfo

_EDITORS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
# An editor's remote server (SSH, WSL, a dev container) keeps an extension's storage on the machine it works on.
_SERVERS = (".vscode-server", ".vscode-server-insiders", ".cursor-server", ".windsurf-server")
_UI, _API, _META = "ui_messages.json", "api_conversation_history.json", "task_metadata.json"
_HISTORY = "history_item.json"  # (Roo Code)
FAMILY_SHELL_TOOLS = frozenset(SHELL_TOOLS | {cline_sessions.SHELL_TOOL})  # (every agent of the family's)


def task_roots(env, extension_id: str, own: tuple[str, str] | None = None) -> list[tuple[Path, str]]:
    """The extension's task folders in every editor's storage that has them (the first editor's always)."""
    if own and env.get(own[0]):
        return [(Path(os.path.expanduser(env[own[0]])) / own[1], f"env ${own[0]}")]
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    dirs = editor_user_dirs(env, _EDITORS) + [home / server / "data" / "User" for server in _SERVERS]
    found = [(d / "globalStorage" / extension_id / "tasks", "default") for d in dirs[1:]
             if (d / "globalStorage" / extension_id).is_dir()]
    return [(dirs[0] / "globalStorage" / extension_id / "tasks", "default")] + found


def _cline_root(env):
    """Cline's own sessions (4.0 on), the task folders it kept before, and the older extension's tasks."""
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if env.get("CLINE_DATA_DIR"):
        data, origin = Path(os.path.expanduser(env["CLINE_DATA_DIR"])), "env $CLINE_DATA_DIR"
    elif env.get("CLINE_DIR"):
        data, origin = Path(os.path.expanduser(env["CLINE_DIR"])) / "data", "env $CLINE_DIR"
    else:
        data, origin = home / ".cline" / "data", "default"
    sessions = (Path(os.path.expanduser(env["CLINE_SESSION_DATA_DIR"])), "env $CLINE_SESSION_DATA_DIR") \
        if env.get("CLINE_SESSION_DATA_DIR") else (data / "sessions", origin)
    return [sessions, (data / "tasks", origin)] + task_roots(env, "saoudrizwan.claude-dev")


def claims(path: Path) -> bool:
    """``ui_messages.json`` of a task folder, or its API history when there is no UI file."""
    if path.parent.parent.name != "tasks":
        return False
    if path.name == _UI:
        return True
    return path.name == _API and not (path.parent / _UI).exists()


def _cline_claims(path: Path) -> bool:
    return claims(path) or cline_sessions.claims(path)


def session_for(agent: str):
    def session_for(path: Path) -> SessionInfo:
        if path.name.endswith(cline_sessions.MESSAGES):
            return cline_sessions.session_for(path, agent)
        return SessionInfo(path.parent.name, agent)
    return session_for


def stat(path: Path) -> tuple[int, int]:
    """The claimed file plus the task's other files (metadata and API history change too), or a session's
    manifest and compaction sidecar."""
    size, mtime = file_stat(path)  # (a regular file only: a FIFO would block the read)
    if path.name.endswith(cline_sessions.MESSAGES):
        return with_stats(size, mtime, cline_sessions.companions(path))
    others = (path.parent / name for name in (_API, _META, _HISTORY))
    return with_stats(size, mtime, (o for o in others if o != path))


def reader(agent: str):
    def read_whole(path: Path, state: dict) -> WholeRead:
        if path.name.endswith(cline_sessions.MESSAGES):  # (a classic task resumed in 4.x: its folder, if still there)
            tasks = tuple(p for p, _origin in _cline_root(os.environ)[1:]) + (path.parent.parent.parent / "tasks",)
            return cline_sessions.read_session(path, agent, tasks)
        skipped: list[tuple[int, str]] = []
        try:
            data = jsontext.loads(path.read_bytes())
        except orjson.JSONDecodeError as exc:
            data = _api_instead(path)
            if data is None:
                raise OSError(f"not a complete JSON document (being rewritten?): {exc}") from None
            skipped.append((1, f"cut short, long unchanged: the task's {_API} was read instead"))
        if not isinstance(data, list):
            raise OSError(f"expected a JSON array of messages, got {type(data).__name__}")
        parent, workspace = _history_item(path.parent)
        base = SessionInfo(path.parent.name, agent, is_sidechain=parent is not None, parent_session_id=parent)
        records, cwd, title = (api_records if skipped or path.name == _API else ui_records)(data, base)
        if cwd is None and path.name == _UI and (path.parent / _API).exists():
            try:
                api = jsontext.loads((path.parent / _API).read_bytes())
                _r, cwd, _t = api_records(api if isinstance(api, list) else [], base)
            except (OSError, orjson.JSONDecodeError):
                pass
        session = SessionInfo(base.session_id, agent, cwd=cwd or workspace, title=title,
                              is_sidechain=base.is_sidechain, parent_session_id=parent)
        return WholeRead([SourceUnit(str(path), session, records, skipped)], {})
    return read_whole


STALE_SECONDS = 3600  # a UI file cut short and unchanged this long is no write in progress: its writer died


def _api_instead(ui: Path) -> list | None:
    """The API history of a task whose ``ui_messages.json`` its writer left cut short (none while it may still be
    writing it, and none when the history cannot be read either)."""
    import time

    try:
        if ui.name != _UI or time.time() - ui.stat().st_mtime < STALE_SECONDS:
            return None
        api = jsontext.loads(read_regular(ui.parent / _API, cline_sessions.MAX_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None
    return api if isinstance(api, list) else None


def _history_item(folder: Path) -> tuple[str | None, str | None]:
    """Roo Code's ``history_item.json`` beside a task: the task that handed it its work (``parentTaskId``: it is
    that task's subtask), and its workspace."""
    try:
        item = jsontext.loads((folder / _HISTORY).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None, None
    if not isinstance(item, dict):
        return None, None
    parent, workspace = item.get("parentTaskId"), item.get("workspace")
    return (parent if isinstance(parent, str) and parent.strip() else None,
            workspace if isinstance(workspace, str) and workspace.strip() else None)


def _agent(name: str, root, claimed=claims) -> Agent:
    return Agent(name, root, claimed, session_for(name), read_whole=reader(name), stat=stat,
                 shell_tools=FAMILY_SHELL_TOOLS)


# Cline 4.0 writes sessions of its own (``cline_sessions``) and only reads the task folders it kept before.
CLINE = _agent("cline", _cline_root, _cline_claims)
ROO = _agent("roo", lambda env: task_roots(env, "rooveterinaryinc.roo-cline"))
# (Kilo Code keeps these task folders until Kilo 5, and a database of its own since: ``kilo``)
