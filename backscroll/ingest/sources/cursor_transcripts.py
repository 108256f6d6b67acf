"""Cursor's plain agent transcripts (Feb 2026 on): ``~/.cursor/projects/<slug>/agent-transcripts/``.

Layouts seen: ``<id>/<id>.jsonl`` (current), ``<id>.jsonl`` and ``<id>.txt`` (older, flat) and a
subagent's ``<parent id>/subagents/<child id>.jsonl``. The id is Cursor's conversation id (the CLI's
chat id, the editor's composer id). Cursor publishes no schema; the shapes were learnt from a real
file (git-ai's ``tests/fixtures/cursor-session-simple.jsonl``) and public readers' notes.

A JSONL line is ``{"role": "user"|"assistant", "message": {"content": text | [blocks]}}`` (blocks
``text``, ``thinking``/``reasoning``, ``tool_use {name, input}``, rarely ``tool_result``;
``redacted`` and unknown blocks are left out); ``{"type": "turn_ended", ...}`` lines mark turn ends.
Lines carry no timestamps, ids or cwd: a user text may start with ``<timestamp>...</timestamp>``,
which dates it and the replies after it, and wraps the person's words in ``<user_query>``. Cursor
leaves ``[REDACTED]`` where it withheld the model's thinking; those markers are dropped.

The project comes from a shell call's ``working_directory``, a ``Workspace Path:`` line, or the
slug (the workspace path with ``/`` turned into ``-``), decoded against the absolute paths the
transcript's tool calls name, else against the directories on this machine.

This module owns the lines and the project; ``cursor_text`` reads the older ``.txt`` transcripts
and ``cursor`` decides which files are transcripts and whether a database already holds them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from backscroll.dates import format_ts, normalize_timestamp
from backscroll.ingest.sources import ParsedLine, block_text, clean_text
from backscroll.ingest.sources.cursor_records import _CONTEXT_BLOCKS, _WORKSPACE, _call, _s, user_query
from backscroll.types import Record, SessionInfo

_TIMESTAMP = re.compile(r"<timestamp>\s*(.*?)\s*</timestamp>", re.DOTALL)
_REDACTED = re.compile(r"(?:^|\n)[ \t]*\[REDACTED\][ \t]*(?=\n|$)")
# "Sunday, Aug 2, 2026, 3:51 AM (UTC-7)": the form Cursor writes in ``<timestamp>``.
_HUMAN_TS = re.compile(r"([A-Z][a-z]{2,8}\.? \d{1,2},? \d{4}),? (\d{1,2}:\d{2}(?::\d{2})?) ?([AP]M)?"
                       r"(?: ?\((?:UTC|GMT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?\))?")
KNOWN_SKIPPED = {"turn_ended"}


def is_transcript(path: Path) -> bool:
    """``agent-transcripts/<id>.jsonl|.txt``, ``agent-transcripts/<id>/<id>.jsonl|.txt`` or a subagent's
    ``agent-transcripts/<id>/subagents/<child>.jsonl``."""
    if path.suffix not in (".jsonl", ".txt"):
        return False
    up = path.parent
    if up.name == "agent-transcripts":
        return True
    if up.parent.name == "agent-transcripts" and path.stem == up.name:
        return True
    return up.name == "subagents" and up.parent.parent.name == "agent-transcripts"


def transcript_session(path: Path) -> SessionInfo:
    if path.parent.name == "subagents":
        parent = path.parent.parent.name
        return SessionInfo(path.stem, "cursor", is_sidechain=True, parent_session_id=parent)
    return SessionInfo(path.stem, "cursor")


def project_slug(path: Path) -> str | None:
    """The ``<slug>`` directory above ``agent-transcripts``."""
    for up in path.parents:
        if up.name == "agent-transcripts":
            return up.parent.name or None
    return None


def parse_when(text: str) -> str | None:
    """A ``<timestamp>`` value: ISO-8601 or epoch, or Cursor's ``Sunday, Aug 2, 2026, 3:51 AM (UTC-7)``."""
    found = normalize_timestamp(text)
    if found or not text:
        return found
    m = _HUMAN_TS.search(text)
    if m is None:
        return None
    day, clock, half, sign, hours, minutes = m.groups()
    try:
        date = datetime.strptime(day.replace(".", "").replace(",", ""), "%b %d %Y")
    except ValueError:
        try:
            date = datetime.strptime(day.replace(".", "").replace(",", ""), "%B %d %Y")
        except ValueError:
            return None
    parts = [int(p) for p in clock.split(":")]
    hour, minute, second = parts[0], parts[1], parts[2] if len(parts) > 2 else 0
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "PM" else 0)
    offset = timedelta(hours=int(hours or 0), minutes=int(minutes or 0)) * (-1 if sign == "-" else 1)
    try:
        when = date.replace(hour=hour, minute=minute, second=second, tzinfo=timezone(offset))
    except ValueError:
        return None
    return format_ts(when)


@dataclass
class TranscriptState:
    """What one read carries from line to line: the last ``<timestamp>`` and the paths seen."""

    ts: str | None = None
    cwd: str | None = None  # from a shell call's ``working_directory`` or a ``Workspace Path:``
    paths: list[str] = field(default_factory=list)  # absolute paths the tool calls name (to decode the slug)


def _user_text(raw: str, state: TranscriptState) -> str:
    stamp = _TIMESTAMP.search(raw)
    if stamp:
        state.ts = parse_when(stamp.group(1)) or state.ts
        raw = _TIMESTAMP.sub("", raw)
    found = _WORKSPACE.search(raw)
    if found and state.cwd is None:
        state.cwd = found.group(1).strip()
    query = user_query(raw)
    return clean_text(query if query is not None else _CONTEXT_BLOCKS.sub("", raw))


def _note_paths(args: object, state: TranscriptState, depth: int = 0) -> None:
    if isinstance(args, dict) and depth < 3:
        wd = args.get("working_directory") or args.get("cwd")
        if isinstance(wd, str) and wd.strip() and state.cwd is None:
            state.cwd = wd.strip()
        for value in list(args.values())[:20]:
            _note_paths(value, state, depth + 1)
    elif isinstance(args, str) and len(state.paths) < 50 and 1 < len(args) < 1024 and "\n" not in args:
        if args.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", args):
            state.paths.append(args)


def parse_transcript_line(obj: object, line_no: int, session: SessionInfo, state: TranscriptState) -> ParsedLine:
    """Records of one decoded JSONL line; ``state`` carries the timestamp and the paths seen."""
    if not isinstance(obj, dict):
        return ParsedLine([], {}, unknown=type(obj).__name__)
    role = obj.get("role")
    if role not in ("user", "assistant"):
        kind = _s(obj.get("type")) or "no role"
        return ParsedLine([], {}) if kind in KNOWN_SKIPPED else ParsedLine([], {}, unknown=kind)
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else obj.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return ParsedLine([], {}, unknown=f"{role}/no content")
    base = f"{session.session_id}:{line_no}"
    records: list[Record] = []
    for i, block in enumerate(blocks):
        if not isinstance(block, dict):
            continue
        rid, btype = f"{base}#{i}", block.get("type")
        if btype == "text" and isinstance(block.get("text"), str):
            if role == "user":
                text = _user_text(block["text"], state)
                author = "agent" if session.is_sidechain else "human"
                if text:
                    records.append(Record(rid, "user", "text", text, line_no, state.ts, state.cwd, author=author))
            else:
                text = clean_text(_REDACTED.sub("", block["text"]))
                if text:
                    records.append(Record(rid, "assistant", "text", text, line_no, state.ts, state.cwd))
        elif btype in ("thinking", "reasoning"):
            thought = _s(block.get("thinking")) or _s(block.get("text"))
            thought = _REDACTED.sub("", thought).strip()
            if thought:
                records.append(Record(rid, "assistant", "reasoning", thought, line_no, state.ts, state.cwd))
        elif btype == "tool_use":
            name = _s(block.get("name")) or "tool"
            args = block.get("input")
            _note_paths(args, state)
            text, command = _call(name, args)
            call_id = _s(block.get("id")) or rid
            records.append(Record(rid, "tool", "tool", text, line_no, state.ts, state.cwd, name, call_id,
                                  command=command))
        elif btype == "tool_result":
            text = block_text(block.get("content")).strip()
            if text:
                records.append(Record(rid, "tool", "tool", text, line_no, state.ts, state.cwd, None,
                                      _s(block.get("tool_use_id")) or None, is_error=block.get("is_error") is True))
    return ParsedLine(records, {})


def decode_slug(slug: str, paths: list[str]) -> str | None:
    """The workspace path behind a ``projects/<slug>``: a prefix of a path the transcript names whose
    parts, joined with ``-``, are the slug; else the directories on this machine that spell it."""
    for raw in paths:
        norm = raw.replace("\\", "/")
        drive = re.match(r"^([A-Za-z]):/", norm)
        parts = [p for p in norm.split("/") if p]
        if drive:
            parts[0] = drive.group(1).lower()
        for n in range(1, len(parts) + 1):
            if "-".join(parts[:n]) == slug:
                head = f"{parts[0].upper()}:/" if drive else "/"
                return head + "/".join(parts[1:n] if drive else parts[:n])
    return _on_disk(Path("/"), slug.split("-"), 0)


def _on_disk(base: Path, tokens: list[str], depth: int) -> str | None:
    if not tokens:
        return str(base)
    if depth > 24:
        return None
    for n in range(len(tokens), 0, -1):
        name = "-".join(tokens[:n])
        if not name or name in (".", ".."):
            continue
        try:
            here = base / name
            if here.is_dir():
                found = _on_disk(here, tokens[n:], depth + 1)
                if found:
                    return found
        except (OSError, ValueError):
            continue
    return None
