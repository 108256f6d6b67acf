"""Kiro 3's sessions (and the Kiro IDE's, which writes the same): ``~/.kiro/sessions/<workspace>/<session>/``.

Not in any published source: read from the layout several public readers of Kiro 3 agree on and a real Kiro IDE 1.0
capture one of them published. ``<workspace>`` is a hash of the workspace's path (``_global`` without one);
``session.json`` gives the session's id, title, workspace and parent; ``messages.jsonl`` is an append-only log of
``{id, timestamp, payload: {type, …}}`` records, read whole when it changes (with its ``session.json``); a subagent's
log is ``sub-executions/<name>.jsonl`` inside its parent's folder, a session linked to it.

Records: ``user`` (the person's; a subagent's, its parent's), ``assistant`` by ``operationType`` (``Say`` and
``Print`` its text, ``Summary`` a summary, ``Reasoning`` whose text Kiro keeps, not the ``...`` it writes in its
place), ``tool_call`` (``execute_bash`` and ``execute_pwsh`` as their command), ``tool_result`` (``success: false``, or
a shell's non-zero ``Exit Code``, an error) and ``error`` (the harness's). Turn, usage and other lifecycle records,
and ``session_start`` (some builds put the whole system prompt there), hold nothing to store. Ids are the records' own.
"""

from __future__ import annotations

import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    call_text,
    clean_text,
    failed_exit,
    first_of_each_id,
    json_lines,
    read_regular,
)
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = frozenset({"execute_bash", "execute_pwsh"})
_SILENT = {"session_start", "turn_start", "turn_end", "usage_summary", "session_metadata", "pending_interaction",
           "interaction_resolved", "session_event", "tombstone", "mode_change", "tool_revert", "steering_inclusion",
           "sub_agent_start", "sub_agent_complete", "system", "agent_note"}
_LIMIT = 256 * 1024 * 1024
_EXIT_CODE = re.compile(r"\nExit Code: (-?\d+)\s*\Z")  # how a shell call's result ends


def is_log(path: Path) -> bool:
    """``sessions/<workspace>/<session>/messages.jsonl``, or a subagent's ``…/sub-executions/<name>.jsonl``."""
    if path.name == "messages.jsonl":
        return path.parent.parent.parent.name == "sessions" and path.parent.parent.name != "cli"
    return path.suffix == ".jsonl" and path.parent.name == "sub-executions"


def _text(content: object) -> str:
    if isinstance(content, str):
        return clean_text(content)
    return clean_text("\n".join(as_str(as_dict(p).get("text")) for p in as_list(content)))


def records_of(lines: list[tuple[int, dict]], info: SessionInfo) -> tuple[list[Record], dict[str, int]]:
    """Records of a log's lines ``(number, record)``, and the payload types not known. Pure."""
    out: list[Record] = []
    unknown: dict[str, int] = {}
    for n, line in lines:
        payload = as_dict(line.get("payload"))
        kind, key = payload.get("type"), f"{info.session_id}:{as_str(line.get('id')) or f'l{n}'}"
        ts, cwd = normalize_timestamp(line.get("timestamp")), info.cwd
        if kind == "user":
            text = _text(payload.get("content"))
            if text:
                out.append(Record(key, "user", "text", text, n, ts, cwd,
                                  author="agent" if info.is_sidechain else "human"))
        elif kind == "assistant":
            text, operation = _text(payload.get("content")), payload.get("operationType")
            if text and not (operation == "Reasoning" and text.strip(". ") == ""):
                content_type = {"Reasoning": "reasoning", "Summary": "summary"}.get(as_str(operation), "text")
                out.append(Record(key, "assistant", content_type, text, n, ts, cwd))
        elif kind == "tool_call":
            name, call_id = as_str(payload.get("toolName")) or "tool", as_str(payload.get("toolCallId"))
            body, command = call_text(name, payload.get("args"), SHELL_TOOLS)
            out.append(Record(key, "tool", "tool", body, n, ts, cwd, name, call_id or None, command=command))
        elif kind == "tool_result":
            said = _text(payload.get("content"))
            code = _EXIT_CODE.search(said)
            failed = payload.get("success") is False or bool(code and failed_exit(code.group(1)))
            if said:
                out.append(Record(key, "tool", "tool", said, n, ts, cwd, None,
                                  as_str(payload.get("toolCallId")) or None, is_error=failed))
        elif kind == "error":
            said = clean_text(as_str(payload.get("message")))
            if said:
                out.append(Record(key, "user", "text", said, n, ts, cwd, is_error=True, author="harness"))
        elif not (isinstance(kind, str) and kind in _SILENT):
            unknown[str(kind)] = unknown.get(str(kind), 0) + 1
    return first_of_each_id(out), unknown


def read_log(path: Path) -> WholeRead:
    folder = path.parent.parent if path.parent.name == "sub-executions" else path.parent
    try:
        meta = as_dict(loads(read_regular(folder / "session.json", 64 * 1024 * 1024)))
    except (OSError, ValueError):
        meta = {}
    sid = as_str(meta.get("id")).strip() or folder.name
    cwd = as_str(next(iter(as_list(meta.get("workspacePaths"))), "")).strip() or None
    if path.parent.name == "sub-executions":
        info = SessionInfo(f"{sid}-{path.stem}", "kiro", cwd=cwd, parent_session_id=sid, is_sidechain=True)
    else:
        parent = as_str(meta.get("parentSessionId")).strip() or None
        info = SessionInfo(sid, "kiro", cwd=cwd, title=as_str(meta.get("title")).strip() or None,
                           parent_session_id=parent, is_sidechain=parent is not None)
    lines, skipped = json_lines(read_regular(path, _LIMIT), lambda line: isinstance(line.get("payload"), dict),
                                "a record with a payload")
    records, unknown = records_of(lines, info)
    return WholeRead([SourceUnit(str(path), info, records, skipped, unknown)], {})
