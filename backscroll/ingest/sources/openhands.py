"""OpenHands conversations in its local file store: ``~/.openhands/sessions/<id>/events/<n>.json``.

Format read from All-Hands-AI/OpenHands at 156d068 (Nov 2025, the V0 event stream):
``openhands/storage/locations.py``, ``events/serialization/event.py``, ``events/action/*``,
``events/observation/*`` and ``storage/data_models/conversation_metadata.py``. The file store is
``file_store_path`` (``$FILE_STORE_PATH``, default ``~/.openhands``); each conversation is a directory
``sessions/<id>/`` with ``metadata.json`` (title, selected repository) and one JSON file per event.
The conversation is read whole whenever one of its files changes; the claimed file is its first
event, ``events/0.json``. Current OpenHands (V1: the agent SDK and the CLI) keeps conversations in
``conversations/<id>/events/event-*.json`` instead, read by ``openhands_v1``; both are default roots.

Events are actions ``{id, timestamp, source, action, args, tool_call_metadata}`` or observations
``{id, timestamp, source, observation, content, extras, cause}``. Records: ``message`` actions (user
or agent text); ``finish`` (its final thought, assistant text); the ``thought`` an agent attaches to
a tool action (assistant text); ``think`` actions (reasoning records); tool actions (``run`` is the
``execute_bash`` tool with its command, others are named by their function) and the observation
that answers each, paired by the action's id (``cause``); an ``error`` observation or a non-zero
exit code is an error, and a command with no output answers with its exit code. A file edit keeps the
code written: the ``file_editor`` call OpenHands records in ``translated_ipython_code`` (its own args
then say only ``path, start, end``), else its ``file_text``/``old_str``/``new_str`` or ``content``.
System prompts, recalls, state changes and condensation events are not records. The project is the
selected repository (``owner/repo``) when there is one. Delegated agents run inside the same event
stream. Record ids are ``<conversation>:<event id>#<n>``.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    as_dict,
    block_text,
    clean_text,
    openhands_v1,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"execute_bash"}
_TOOL_ACTIONS = {"run": "execute_bash", "run_ipython": "execute_ipython_cell", "read": "read", "write": "write",
                 "edit": "edit", "browse": "browse", "browse_interactive": "browser", "call_tool_mcp": "mcp",
                 "delegate": "delegate", "task_tracking": "task_tracker"}
_NOT_INPUT = {"thought", "security_risk", "confirmation_state", "hidden", "is_input", "blocking", "is_static",
              "impl_source", "include_extra", "translated_ipython_code", "kernel_init_code"}
_EDITOR_CALL = re.compile(r"file_editor\(\*\*(\{.*\})\)\)?\s*$", re.DOTALL)
_MAX_LITERAL = 4 * 1024 * 1024  # a file an agent wrote is seldom larger; a larger literal is not parsed


def default_root(env):
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if env.get("FILE_STORE_PATH"):
        v0 = Path(os.path.expanduser(env["FILE_STORE_PATH"])) / "sessions", "env $FILE_STORE_PATH"
    else:
        v0 = home / ".openhands" / "sessions", "default"
    if env.get("OPENHANDS_PERSISTENCE_DIR"):
        v1 = Path(os.path.expanduser(env["OPENHANDS_PERSISTENCE_DIR"])) / "conversations", \
            "env $OPENHANDS_PERSISTENCE_DIR"
    else:
        v1 = home / ".openhands" / "conversations", "default"
    return [v0, v1]


def claims(path: Path) -> bool:
    return (path.name == "0.json" and path.parent.name == "events") or openhands_v1.claims(path)


def _session_dir(path: Path) -> Path:
    return path.parent.parent


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(_session_dir(path).name, "openhands")


def _event_files(events: Path) -> list[tuple[int, Path]]:
    found = []
    try:
        with os.scandir(events) as it:
            for entry in it:
                stem, dot, ext = entry.name.partition(".")
                if ext == "json" and stem.isdigit():
                    found.append((int(stem), Path(entry.path)))
    except FileNotFoundError:
        pass
    return sorted(found)


def stat(path: Path) -> tuple[int, int]:
    """Size and newest mtime over the events directory, its event files and ``metadata.json``."""
    if path.name != "0.json":
        return openhands_v1.stat(path)
    return openhands_v1.files_stat(path.parent, [p for _n, p in _event_files(path.parent)]
                                   + [_session_dir(path) / "metadata.json"])


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _action(ev: dict, n: int, info: SessionInfo, base: str, ts: str | None, calls: set[int]) -> list[Record]:
    kind, source = ev.get("action"), ev.get("source")
    args = as_dict(ev.get("args"))
    cwd = info.cwd
    if kind == "message":
        text = clean_text(args["content"]) if isinstance(args.get("content"), str) else ""
        role = "user" if source == "user" else "assistant"
        return [Record(f"{base}#0", role, "text", text, n, ts, cwd)] if text else []
    if kind == "think":
        thought = _str(args.get("thought"))
        return [Record(f"{base}#0", "assistant", "reasoning", thought, n, ts, cwd)] if thought else []
    if kind == "finish":
        final = _str(args.get("final_thought")) or _str(args.get("thought"))
        return [Record(f"{base}#0", "assistant", "text", final, n, ts, cwd)] if final else []
    if kind not in _TOOL_ACTIONS:
        return []  # system, recall, change_agent_state, condensation, null, ...
    records = []
    thought = _str(args.get("thought"))
    if thought:
        records.append(Record(f"{base}#0", "assistant", "text", thought, n, ts, cwd))
    meta = as_dict(ev.get("tool_call_metadata"))
    name = _str(meta.get("function_name")) or _TOOL_ACTIONS[kind]
    eid = ev.get("id")
    call_id = f"event:{eid}"
    if kind == "run" and _str(args.get("command")):
        text, command = args["command"].strip(), args["command"]
        name = "execute_bash" if name not in SHELL_TOOLS else name
    else:
        inp = _editor_call(args) if kind == "edit" else None
        inp = inp or {k: v for k, v in args.items() if k not in _NOT_INPUT and v not in (None, "", [], {})}
        body = render_input(inp) if inp else ""
        text, command = (f"{name}\n{body}" if body else name), None
    records.append(Record(f"{base}#1", "tool", "tool", text, n, ts, cwd, name, call_id, command=command))
    if isinstance(eid, int):
        calls.add(eid)
    return records


def _editor_call(args: dict) -> dict | None:
    """The ``file_editor`` arguments of an edit (the code written among them), from the call OpenHands
    recorded as ``translated_ipython_code``: ``print(file_editor(**{...}))``, a Python literal."""
    code = _str(args.get("translated_ipython_code"))
    found = _EDITOR_CALL.search(code or "")
    if not found or len(found.group(1)) > _MAX_LITERAL:
        return None
    try:
        call = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return {k: v for k, v in call.items() if v not in (None, "", [], {})} if isinstance(call, dict) else None


def _observation(ev: dict, n: int, info: SessionInfo, base: str, ts: str | None, calls: set[int]) -> list[Record]:
    cause = ev.get("cause")
    if not isinstance(cause, int) or cause not in calls:
        return []
    extras = as_dict(ev.get("extras"))
    metadata = as_dict(extras.get("metadata"))
    code = metadata.get("exit_code")
    text = block_text(ev.get("content")).strip()
    if not text and ev.get("observation") == "run" and isinstance(code, int):  # a command with no output
        text = _str(metadata.get("suffix")) or f"[The command completed with exit code {code}.]"
    if not text:
        return []
    failed = ev.get("observation") == "error" or (isinstance(code, int) and code not in (0, -1))
    return [Record(f"{base}#0", "tool", "tool", text, n, ts, info.cwd, None, f"event:{cause}", is_error=failed)]


def read_whole(path: Path, state: dict) -> WholeRead:
    if path.name != "0.json":
        return openhands_v1.read_whole(path, state)
    folder = _session_dir(path)
    meta = openhands_v1.load(folder / "metadata.json")
    meta = meta if isinstance(meta, dict) else {}
    info = SessionInfo(_str(meta.get("conversation_id")) or folder.name, "openhands",
                       cwd=_str(meta.get("selected_repository")), title=_str(meta.get("title")))
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    calls: set[int] = set()
    for n, file in _event_files(path.parent):
        ev = openhands_v1.load(file)
        if not isinstance(ev, dict):
            skipped.append((n, "event file is not a JSON object"))
            continue
        base = f"{info.session_id}:{ev.get('id', n)}"
        ts = normalize_timestamp(ev.get("timestamp"))
        if "action" in ev:
            records.extend(_action(ev, n, info, base, ts, calls))
        elif "observation" in ev:
            records.extend(_observation(ev, n, info, base, ts, calls))
    return WholeRead([SourceUnit(str(folder), info, records, skipped)], {})


AGENT = Agent("openhands", default_root, claims, session_for,
              read_whole=read_whole, stat=stat, shell_tools=frozenset(SHELL_TOOLS | openhands_v1.SHELL_TOOLS))
