r"""OpenCode's messages and parts turned into records, for both generations (the database and the
older storage tree, read by ``opencode`` and ``opencode_db``).

This module owns the decoded shapes (``_Message`` holding its ``_Part``\ s, each the decoded JSON
object or the reason it could not be read) and one session's unit: ``text`` parts as user or
assistant text (a compaction summary as ``summary``; user text is the human's, or in a subagent
session the parent agent's), ``reasoning`` parts, and ``tool`` parts as a call (``bash`` as its
command) plus a result (the ``question`` tool's: the person's answers, as their text). Ids are
``<session>:<part>#0`` / ``#1``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import SourceUnit, as_dict, as_str, block_text, clean_text, render_input
from backscroll.ingest.sources.answers import opencode_answers
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"bash"}
# Parts that hold nothing to index (or only what the tool parts already hold).
_IGNORED_PARTS = {"text", "tool", "step-start", "step-finish", "snapshot", "patch", "file", "agent", "subtask",
                  "retry", "compaction"}
# Placeholder titles OpenCode gives a session before it names it.
_DEFAULT_TITLE = re.compile(r"^(New|Child) session - \d{4}-\d{2}-\d{2}T")


@dataclass
class _Part:
    part_id: str
    data: dict | str  # the decoded object, or why it could not be read
    created: object = None


@dataclass
class _Message:
    message_id: str
    data: dict | str
    created: object
    parts: list[_Part]


def _decode(raw: object) -> dict | str:
    """A JSON object from the text/bytes OpenCode stored, or the reason it is not one."""
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, (str, bytes)):
        return f"data is {type(raw).__name__}, not JSON text"
    try:
        obj = loads(raw)
    except orjson.JSONDecodeError as exc:
        return "not valid UTF-8" if "utf-8" in str(exc).lower() else "malformed JSON"
    return obj if isinstance(obj, dict) else f"expected a JSON object, got {type(obj).__name__}"


def _get(obj: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _title(value: object) -> str | None:
    title = _str(value)
    if title is None or _DEFAULT_TITLE.match(title):
        return None
    return title.strip() or None


def _tool_records(base: str, part_id: str, data: dict, line: int, fallback_ts: str | None,
                  cwd: str | None) -> list[Record]:
    name = _str(data.get("tool")) or "tool"
    call_id = _str(data.get("callID")) or part_id
    state = as_dict(data.get("state"))
    inp = state.get("input")
    start = normalize_timestamp(_get(state, "time", "start")) or fallback_ts
    end = normalize_timestamp(_get(state, "time", "end")) or start
    if name in SHELL_TOOLS and isinstance(inp, dict) and _str(inp.get("command")) and inp["command"].strip():
        text, command = inp["command"], inp["command"]
    else:
        body = render_input(inp) if inp not in (None, {}, "", []) else ""
        text, command = (f"{name}\n{body}" if body else name), None
    records = [Record(f"{base}#0", "tool", "tool", text, line, start, cwd, name, call_id, command=command)]
    status = state.get("status")
    output = state.get("output")
    result = block_text(output).strip() if output is not None else ""
    if not result and status == "error":  # (an interrupted tool's partial output comes first: ``toModelMessages``)
        partial = _get(state, "metadata", "output") if _get(state, "metadata", "interrupted") is True else None
        result = "\n".join(t for t in (block_text(partial).strip() if partial else "",
                                       block_text(state.get("error")).strip()) if t)
    said = opencode_answers(inp, state.get("metadata")) if name == "question" and status == "completed" else ""
    if said:  # the person's choices: their words (answers.py)
        records.append(Record(f"{base}#1", "user", "text", said, line, end, cwd, author="human"))
    elif result:
        records.append(Record(f"{base}#1", "tool", "tool", result, line, end, cwd, None, call_id,
                              is_error=status == "error"))
    return records


def _unit(key: str, session: SessionInfo, messages: list[_Message],
          skipped: list[tuple[int, str]] | None = None) -> SourceUnit:
    """One session's records; ``line`` is the 1-based position of a part in the session."""
    records: list[Record] = []
    skipped = list(skipped or [])
    unknown: dict[str, int] = {}
    line = 0
    for msg in messages:
        if isinstance(msg.data, str):
            skipped.append((line + 1, f"message {msg.message_id}: {msg.data}"))
            line += len(msg.parts)
            continue
        role = msg.data.get("role") if msg.data.get("role") in ("user", "assistant") else None
        # A subagent (child) session's user text is the prompt its parent agent wrote with the task tool.
        author = ("agent" if session.is_sidechain else "human") if role == "user" else None
        compaction_summary = role == "assistant" and msg.data.get("summary") is True
        cwd = _str(_get(msg.data, "path", "cwd")) or session.cwd
        msg_ts = normalize_timestamp(_get(msg.data, "time", "created")) or normalize_timestamp(msg.created)
        for part in msg.parts:
            line += 1
            data = part.data
            if isinstance(data, str):
                skipped.append((line, f"part {part.part_id}: {data}"))
                continue
            base = f"{session.session_id}:{part.part_id}"
            ts = normalize_timestamp(part.created) or msg_ts
            kind = data.get("type")
            kind = kind if isinstance(kind, str) else str(kind)  # a malformed part: counted as unknown
            if kind == "text":
                if role is None or data.get("synthetic") or data.get("ignored"):
                    continue
                text = clean_text(data["text"]) if isinstance(data.get("text"), str) else ""
                if text:
                    ts = normalize_timestamp(_get(data, "time", "start")) or ts
                    if compaction_summary:  # the only copy of the context it replaced
                        records.append(Record(f"{base}#0", "assistant", "summary", text, line, ts, cwd))
                    else:
                        records.append(Record(f"{base}#0", role, "text", text, line, ts, cwd, author=author))
            elif kind == "reasoning":
                text = as_str(data.get("text")).strip()
                if text and role == "assistant":
                    ts = normalize_timestamp(_get(data, "time", "start")) or ts
                    records.append(Record(f"{base}#0", "assistant", "reasoning", text, line, ts, cwd))
            elif kind not in _IGNORED_PARTS:
                unknown[kind] = unknown.get(kind, 0) + 1
            if kind == "tool":
                try:
                    records.extend(_tool_records(base, part.part_id, data, line, ts, cwd))
                except Exception as exc:  # one odd part must not cost the session or the database
                    skipped.append((line, f"part {part.part_id}: unexpected {type(exc).__name__}: {exc}"))
        failed = as_dict(msg.data.get("error")) if role == "assistant" else {}
        said = _str(_get(failed, "data", "message")) or _str(failed.get("name"))
        if said:  # what the person saw instead of (the rest of) a reply: the harness's
            records.append(Record(f"{session.session_id}:{msg.message_id}#error", "user", "text", said.strip(), line,
                                  msg_ts, cwd, author="harness"))
    return SourceUnit(key, session, records, skipped, unknown)
