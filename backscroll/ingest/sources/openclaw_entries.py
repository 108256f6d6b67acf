"""What OpenClaw's transcript entries say beyond Pi's (``openclaw`` owns the files; ``pi`` reads the rest). Pure.

Read from openclaw 2026.7.1 and 2026.9.6 (their code and transcripts they wrote). The shell tool is ``exec``; a
command that exits non-zero, or that failed or was denied (``details.status``), is an error
(2026.9 says so in ``details`` only). A tool called through ``tool_call`` (``{id, args}``) is the tool it called. A
user turn OpenClaw wrote itself (``provenance`` ``internal_system``: a heartbeat, a cron job; the approval follow-up;
2026.7's heartbeat and new-session placeholders) is the harness's, one another session sent (``inter_session``) or a
subagent's task (``[Subagent Context]``) the agent's. A failure before the model was asked (``openclaw:prompt-error``)
is an error the harness reports. A copy OpenClaw makes of a reply it delivered (``delivery-mirror``) is not stored
again when the reply it repeats is; what it injects itself (``gateway-injected``: a stopped reply's part, a command's
reply) is the agent's. ``reset`` and ``leaf`` entries hold nothing to index.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    LineError,
    ParsedLine,
    as_dict,
    as_list,
    as_str,
    call_text,
    failed_exit,
    json_object,
    pi,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = frozenset({"exec"})
_HOLDS_NOTHING = {"reset", "leaf"}
_OWN_TURN = re.compile(r"\[OpenClaw (?:heartbeat poll|session (?:new|reset))\]")
_HARNESS_SOURCES = {"exec_approval_followup"}
_FAILED = {"failed", "denied"}


def _first_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return next((b["text"] for b in as_list(content) if isinstance(b, dict) and isinstance(b.get("text"), str)), "")


def _author(message: dict) -> str:
    provenance = as_dict(message.get("provenance"))
    first = _first_text(message.get("content"))
    if provenance.get("kind") == "internal_system" or provenance.get("sourceTool") in _HARNESS_SOURCES or \
            _OWN_TURN.fullmatch(first.strip()):
        return "harness"
    if provenance.get("kind") == "inter_session" or first.startswith("[Subagent Context]"):
        return "agent"
    return "human"


def _nested(block: dict) -> tuple[str, object]:
    """A call through ``tool_call`` as the tool it called (a catalog id ``openclaw:core:<tool>``: the tool)."""
    args = block.get("arguments")
    inner = as_dict(json_object(args) if isinstance(args, str) else args)
    name = as_str(inner.get("id")).strip()
    return (name.rsplit(":", 1)[-1] or name, inner.get("args")) if name else ("tool_call", args)


def is_mirror(entry: object) -> bool:
    """A copy OpenClaw wrote of a reply it delivered to a channel."""
    message = as_dict(as_dict(entry).get("message"))
    return message.get("role") == "assistant" and (
        message.get("model") == "delivery-mirror" or "openclawDeliveryMirror" in message)


def _prompt_error(obj: dict, line_no: int, session: SessionInfo) -> ParsedLine:
    data = as_dict(obj.get("data"))
    error = data.get("error")
    text = (as_str(error) or as_str(as_dict(error).get("message")) or render_input(error)).strip() if error else ""
    if not text:
        return EMPTY
    eid = as_str(obj.get("id")) or f"line{line_no}"
    return ParsedLine([Record(f"{session.session_id}:{eid}#e", "user", "text", text, line_no,
                              normalize_timestamp(obj.get("timestamp")), session.cwd, is_error=True,
                              author="harness")], {})


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if isinstance(obj, dict) and isinstance(obj.get("type"), str):
        if obj["type"] in _HOLDS_NOTHING:
            return EMPTY
        if obj["type"] == "custom" and obj.get("customType") == "openclaw:prompt-error":
            return _prompt_error(obj, line_no, session)
    parsed = pi.parse_line(obj, line_no, session, SHELL_TOOLS)
    if not isinstance(obj, dict) or obj.get("type") != "message" or not parsed.records:
        return parsed
    message = as_dict(obj.get("message"))
    role = message.get("role")
    records = parsed.records
    if role == "user":
        author = _author(message)
        records = [r if r.author != "human" else replace(r, author=author) for r in records]
    elif role == "assistant":
        blocks = as_list(message.get("content"))
        out = []
        for r in records:
            tail = r.record_id.rsplit("#", 1)[1]
            block = as_dict(blocks[int(tail)]) if tail.isdigit() and int(tail) < len(blocks) else {}
            if r.tool_name == "tool_call" and block.get("type") == "toolCall":
                name, args = _nested(block)
                text, command = call_text(name, args if args is not None else "", SHELL_TOOLS)
                r = replace(r, tool_name=name, text=text, command=command)
            out.append(r)
        records = out
    elif role == "toolResult":
        details = as_dict(message.get("details"))
        if details.get("status") in _FAILED or failed_exit(details.get("exitCode")):
            records = [replace(r, is_error=True) for r in records]
    return ParsedLine(records, parsed.session_updates, parsed.unknown)


def entries_records(lines: Sequence[tuple[int, object]], info: SessionInfo) -> tuple[
        SessionInfo, list[Record], list[tuple[int, str]], dict[str, int]]:
    """A transcript's decoded entries ``(number, entry)`` read as a session: its records, skipped and unknown ones."""
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    unknown: dict[str, int] = {}
    said: set[str] = set()  # the assistant's texts so far: what a delivery's copy repeats
    for n, obj in lines:
        try:
            parsed = parse_line(obj, n, info)
        except LineError as exc:
            skipped.append((n, str(exc)))
            continue
        if parsed.session_updates:
            info = replace(info, **{k: v for k, v in parsed.session_updates.items() if k != "session_id"})
        texts = [r.text for r in parsed.records if r.role == "assistant" and r.content_type == "text"]
        if is_mirror(obj) and texts and all(t in said for t in texts):
            continue
        said.update(texts)
        records.extend(parsed.records)
        if parsed.unknown:
            unknown[parsed.unknown] = unknown.get(parsed.unknown, 0) + 1
    return info, [replace(r, cwd=r.cwd or info.cwd) for r in records], skipped, unknown
