"""OpenHands V1 conversations (the agent SDK and the CLI): ``conversations/<id>/events/event-*.json``.

Format read from OpenHands/software-agent-sdk at 611629e (``openhands-sdk/openhands/sdk/conversation/
persistence_const.py``, ``event_store.py``, ``event/llm_convertible/*.py``, ``event/condenser.py``; the
tools in ``openhands-tools``) and OpenHands/OpenHands-CLI at 6b3838c (``openhands_cli/locations.py``). The
CLI keeps conversations in ``$OPENHANDS_PERSISTENCE_DIR/conversations`` (default ``~/.openhands``); each is
a folder named by its 32-hex id with ``base_state.json`` (the working directory among it) and one file per
event, ``events/event-<index, 5+ digits>-<event id>.json`` (``event-00000.json`` in September 2025), written
with ``model_dump_json(exclude_none=True)``: absent fields were None. The claimed file is the first event.

Every event has ``kind`` (its class), ``id``, ``timestamp``, ``source``. Records: ``MessageEvent``
(``llm_message.content`` text of the user or the agent; its ``reasoning_content`` and ``thinking_blocks``
are reasoning); ``ActionEvent`` (its ``thought`` is assistant text, its reasoning reasoning; the ``action``
is a call of ``tool_name`` with ``tool_call_id``: a terminal command is its command line, a file edit keeps
the code written, ``FinishAction``'s message is assistant text); ``ObservationEvent`` (the output of the
call it answers: its ``content`` text, or for a command with no output its exit code; ``is_error`` or a
non-zero exit code is an error; a ``FinishObservation`` repeats the finish message and is no record);
``UserRejectObservation`` and ``AgentErrorEvent`` (an error output of their call); ``Condensation``'s
summary (a summary record). The system prompt, state updates, pauses and token events are not records.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    block_text,
    clean_text,
    jsontext,
    render_input,
    with_stats,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"terminal", "execute_bash", "bash"}
_EVENT = re.compile(r"^event-(\d{5,})(?:-[0-9a-fA-F-]+)?\.json$")
_COMMANDS = {"TerminalAction", "ExecuteBashAction"}
_NOT_INPUT = {"kind", "security_risk", "summary", "is_input", "reset", "timeout"}


def claims(path: Path) -> bool:
    m = _EVENT.match(path.name)
    return m is not None and int(m.group(1)) == 0 and path.parent.name == "events"


def _event_files(events: Path) -> list[tuple[int, Path]]:
    found = []
    try:
        with os.scandir(events) as it:
            for entry in it:
                m = _EVENT.match(entry.name)
                if m:
                    found.append((int(m.group(1)), Path(entry.path)))
    except FileNotFoundError:
        pass
    return sorted(found)


def files_stat(events: Path, files: list[Path]) -> tuple[int, int]:
    """Total size and newest mtime of ``files`` and the ``events`` directory (a new file shows in its mtime);
    files gone meanwhile count for nothing. Both layouts' conversations are folders of files."""
    return with_stats(0, os.stat(events).st_mtime_ns, files)


def stat(path: Path) -> tuple[int, int]:
    """Size and newest mtime over the events directory, its event files and ``base_state.json``."""
    events = path.parent
    return files_stat(events, [p for _n, p in _event_files(events)] + [events.parent / "base_state.json"])


def load(path: Path) -> object:
    """A JSON file's value; None when it is gone or not JSON."""
    try:
        return jsontext.loads(path.read_bytes())
    except (orjson.JSONDecodeError, FileNotFoundError):
        return None


def _text(items: object) -> str:
    """The text of a list of content items (``{type: "text", text}``); images are left out."""
    return "\n".join(block_text(i.get("text")) for i in as_list(items)
                     if isinstance(i, dict) and i.get("type", "text") == "text").strip()


def _reasoning(ev: dict) -> str:
    blocks = [block_text(b.get("thinking")) for b in as_list(ev.get("thinking_blocks")) if isinstance(b, dict)]
    return "\n\n".join(t.strip() for t in [block_text(ev.get("reasoning_content")), *blocks] if t.strip())


def _call(ev: dict, action: dict) -> tuple[str, str, str | None]:
    """``(tool name, call text, command)`` of an action: a command line, or the tool and its input."""
    name = block_text(ev.get("tool_name")).strip() or block_text(action.get("kind")).strip() or "tool"
    if action.get("kind") in _COMMANDS and block_text(action.get("command")).strip():
        return name, action["command"].strip(), action["command"]
    inp = {k: v for k, v in action.items() if k not in _NOT_INPUT and v not in (None, "", [], {})}
    body = render_input(inp) if inp else ""
    return name, (f"{name}\n{body}" if body else name), None


def _output(obs: dict) -> tuple[str, bool]:
    """An observation's text (a command with no output: its exit code) and whether it is an error."""
    code = obs.get("exit_code")
    text = _text(obs.get("content"))
    if not text and isinstance(code, int):
        suffix = block_text(as_dict(obs.get("metadata")).get("suffix")).strip()
        text = suffix or f"[The command completed with exit code {code}.]"
    failed = obs.get("is_error") is True or (isinstance(code, int) and code not in (0, -1))
    return text, failed


def _records(ev: dict, n: int, sid: str, cwd: str | None) -> list[Record]:
    kind, source = ev.get("kind"), ev.get("source")
    base = f"{sid}:{block_text(ev.get('id')) or n}"
    ts = normalize_timestamp(ev.get("timestamp"))
    out: list[Record] = []
    reasoning = _reasoning(as_dict(ev.get("llm_message")) if kind == "MessageEvent" else ev)
    if reasoning and kind in ("MessageEvent", "ActionEvent"):
        out.append(Record(f"{base}#r", "assistant", "reasoning", reasoning, n, ts, cwd))
    call_id = block_text(ev.get("tool_call_id")).strip() or None
    if kind == "MessageEvent":
        message = as_dict(ev.get("llm_message"))
        text = clean_text(_text(message.get("content")))
        if text:
            out.append(Record(f"{base}#0", "user" if source == "user" else "assistant", "text", text, n, ts, cwd))
    elif kind == "ActionEvent":
        thought = clean_text(_text(ev.get("thought")))
        if thought:
            out.append(Record(f"{base}#0", "assistant", "text", thought, n, ts, cwd))
        action = as_dict(ev.get("action"))
        if action.get("kind") == "FinishAction":
            final = clean_text(block_text(action.get("message")))
            if final:
                out.append(Record(f"{base}#1", "assistant", "text", final, n, ts, cwd))
        elif action:
            name, text, command = _call(ev, action)
            out.append(Record(f"{base}#1", "tool", "tool", text, n, ts, cwd, name, call_id, command=command))
    elif kind == "ObservationEvent":
        obs = as_dict(ev.get("observation"))
        if obs.get("kind") != "FinishObservation":
            text, failed = _output(obs)
            if text:
                out.append(Record(f"{base}#0", "tool", "tool", text, n, ts, cwd, None, call_id, is_error=failed))
    elif kind in ("UserRejectObservation", "AgentErrorEvent"):
        text = block_text(ev.get("rejection_reason") or ev.get("error")).strip()
        if text:
            out.append(Record(f"{base}#0", "tool", "tool", text, n, ts, cwd, None, call_id, is_error=True))
    elif kind in ("Condensation", "CondensationSummaryEvent"):
        summary = block_text(ev.get("summary")).strip()
        if summary:
            out.append(Record(f"{base}#0", "assistant", "summary", summary, n, ts, cwd))
    return out


def read_whole(path: Path, _state: dict) -> WholeRead:
    folder = path.parent.parent
    state = load(folder / "base_state.json")
    state = state if isinstance(state, dict) else {}
    cwd = block_text(as_dict(state.get("workspace")).get("working_dir")).strip() or None
    sid = block_text(state.get("id")).replace("-", "").strip() or folder.name
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    for n, file in _event_files(path.parent):
        ev = load(file)
        if not isinstance(ev, dict):
            skipped.append((n, "event file is not a JSON object"))
            continue
        records.extend(_records(ev, n, sid, cwd))
    return WholeRead([SourceUnit(str(folder), SessionInfo(sid, "openhands", cwd=cwd), records, skipped)], {})
