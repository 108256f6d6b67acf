"""One Cursor agent transcript read whole: the JSONL lines (``cursor_transcripts``) or an older ``.txt``.

The ``.txt`` form, as public readers describe it: a ``user:`` or ``assistant:`` (or ``A:``) line
starts a message; in an assistant message ``[Thinking] ...`` starts a thought (to a blank line),
``[Tool call] <name>`` a call whose indented ``key: value`` lines are its arguments, and
``[Tool result] <name>`` that call's output (to the next marker); other lines are the answer. A result carries
no call id: it answers the first call of its name in the turn not yet answered (calls made together are answered
in their order).

A transcript is only ever appended to, so re-reading it re-emits the same record ids (``<id>:<line>#<n>``)
and stores only what is new; a last line still being written (no newline, not yet JSON) is left for
the next read.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from glob import escape as glob_escape
from pathlib import Path

import orjson

from backscroll.ingest.sources import (
    SourceUnit,
    WholeRead,
    editor_user_dirs,
    read_db_snapshot,
    read_regular,
    title_line,
)
from backscroll.ingest.sources.cursor_records import _call, _loads
from backscroll.ingest.sources.cursor_transcripts import (
    TranscriptState,
    _note_paths,
    _user_text,
    decode_slug,
    parse_transcript_line,
    project_slug,
    transcript_session,
)
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
_ROLE = re.compile(r"^(user|assistant|A):\s*$")
_MARK = re.compile(r"^\[(Thinking|Tool call|Tool result)\]\s?(.*)$")
_ARG = re.compile(r"^\s{2,}([A-Za-z_][\w.-]*):\s?(.*)$")


def _has_messages(conn: sqlite3.Connection) -> bool:
    """Whether a chat's database holds its messages, every blob read: one that cannot be read whole (a damaged
    page) holds nothing the transcript beside it need give way to."""
    held = False
    for (data,) in conn.execute("SELECT data FROM blobs"):
        obj = None if held else _loads(data)
        held = held or isinstance(obj, dict) and isinstance(obj.get("role"), str)
    return held


def _has_bubbles(sid: str) -> Callable[[sqlite3.Connection], bool]:
    def read(conn: sqlite3.Connection) -> bool:
        return conn.execute("SELECT 1 FROM cursorDiskKV WHERE key >= ? AND key < ? LIMIT 1",
                            (f"bubbleId:{sid}:", f"bubbleId:{sid};")).fetchone() is not None
    return read


def held_elsewhere(path: Path) -> Path | None:
    """The database that already holds a transcript's conversation, with its tool outputs: the CLI's
    ``chats/*/<id>/store.db`` (beside ``projects``) or the editor's global ``state.vscdb``."""
    session = transcript_session(path)
    above = next((p for p in path.parents if p.name == "agent-transcripts"), None)
    candidates: list[tuple[Path, Callable[[sqlite3.Connection], bool]]] = []
    if above is not None and not session.is_sidechain:  # (a subagent's is in the editor's database, not the CLI's)
        try:
            dbs = sorted((above.parent.parent.parent / "chats").glob(f"*/{glob_escape(session.session_id)}/store.db"))
        except (OSError, ValueError):
            dbs = []
        candidates += [(db, _has_messages) for db in dbs]
    editor = editor_user_dirs(os.environ, ("Cursor",))[0] / "globalStorage" / "state.vscdb"
    candidates.append((editor, _has_bubbles(session.session_id)))
    for db, check in candidates:
        try:
            if db.is_file() and read_db_snapshot(db, check, "Cursor"):
                return db
        except (OSError, sqlite3.Error):
            continue
    return None


def transcript_read(path: Path) -> WholeRead:
    """A transcript, unless a database already holds its conversation (then it is stored once, from there)."""
    held = held_elsewhere(path)
    if held is not None:
        return WholeRead([], {"held_by": str(held)})
    return WholeRead([read_transcript(path)], {})


def read_transcript(path: Path) -> SourceUnit:
    """Every record of one transcript, with its session (project and title)."""
    data = read_regular(path, MAX_TRANSCRIPT_BYTES)
    session = transcript_session(path)
    state = TranscriptState()
    skipped: list[tuple[int, str]] = []
    unknown: dict[str, int] = {}
    if path.suffix == ".txt":
        records = text_records(data.decode("utf-8", "replace"), session, state)
    else:
        records = []
        lines = data.split(b"\n")
        for n, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                obj = loads(raw)
            except orjson.JSONDecodeError as exc:
                if n == len(lines):
                    break  # no newline yet: still being written
                skipped.append((n, "not valid UTF-8" if "utf-8" in str(exc).lower() else "malformed JSON"))
                continue
            parsed = parse_transcript_line(obj, n, session, state)
            records.extend(parsed.records)
            if parsed.unknown:
                unknown[parsed.unknown] = unknown.get(parsed.unknown, 0) + 1
    slug = project_slug(path)
    cwd = state.cwd or (decode_slug(slug, state.paths) if slug else None)
    title = next((t for r in records if r.role == "user" and (t := title_line(r.text))), None)
    info = SessionInfo(session.session_id, "cursor", cwd=cwd, title=title, is_sidechain=session.is_sidechain,
                       parent_session_id=session.parent_session_id)
    return SourceUnit(str(path), info, records, skipped, unknown)


def text_records(text: str, session: SessionInfo, state: TranscriptState) -> list[Record]:
    """Records of an older ``.txt`` transcript."""
    records: list[Record] = []
    role: str | None = None
    kind: str | None = None  # text | thinking | call | result
    name = ""
    start = 0
    body: list[str] = []
    args: dict[str, str] = {}
    last_arg = ""
    unanswered: list[tuple[str, str]] = []  # (name, record id) of this turn's calls, in their order

    def answered(result_name: str) -> str | None:
        """The id of the call a result of ``result_name`` answers (any name: the first unanswered call)."""
        for i, (call_name, call_rid) in enumerate(unanswered):
            if not result_name or call_name == result_name:
                del unanswered[i]
                return call_rid
        return None

    def flush() -> None:
        nonlocal kind, body, args, last_arg
        last_arg = ""  # (an argument's indented lines never run on into the next call's)
        if role is None or kind is None:
            kind, body, args = None, [], {}
            return
        rid = f"{session.session_id}:{start}#0"
        joined = "\n".join(body).strip()
        if kind == "call":
            _note_paths(args, state)
            call, command = _call(name or "tool", args or None)
            records.append(Record(rid, "tool", "tool", call, start, state.ts, state.cwd, name or "tool", rid,
                                  command=command))
            unanswered.append((name or "tool", rid))
        elif kind == "result":
            call_rid = answered(name)  # (an empty output answers its call too)
            if joined:
                records.append(Record(rid, "tool", "tool", joined, start, state.ts, state.cwd, None, call_rid))
        elif kind == "thinking" and joined:
            records.append(Record(rid, "assistant", "reasoning", joined, start, state.ts, state.cwd))
        elif kind == "text" and role == "user":
            said = _user_text(joined, state)
            if said:
                records.append(Record(rid, "user", "text", said, start, state.ts, state.cwd,
                                      author="agent" if session.is_sidechain else "human"))
        elif kind == "text" and joined and joined != "[REDACTED]":
            records.append(Record(rid, "assistant", "text", joined, start, state.ts, state.cwd))
        kind, body, args = None, [], {}

    for n, line in enumerate(text.splitlines(), 1):
        found_role = _ROLE.match(line)
        mark = _MARK.match(line) if role == "assistant" else None
        if found_role:
            flush()
            role = "user" if found_role.group(1) == "user" else "assistant"
            if role == "user":
                unanswered.clear()  # (a call left unanswered when the person spoke is answered by nothing after)
            continue
        if mark:
            flush()
            kind = {"Thinking": "thinking", "Tool call": "call", "Tool result": "result"}[mark.group(1)]
            start, name = n, mark.group(2).strip() if kind != "thinking" else ""
            if kind == "thinking" and mark.group(2).strip():
                body.append(mark.group(2))
            continue
        if kind == "call":
            arg = _ARG.match(line) if last_arg != "input" else None  # (an unnamed input's lines are its own)
            if arg:
                last_arg = arg.group(1)
                args[last_arg] = arg.group(2)
                continue
            if line.startswith("  "):  # an argument's next line, or a call's input written without a name
                last_arg = last_arg or "input"
                more = line[2:] if last_arg == "input" else line.strip()  # (a patch keeps its indentation)
                args[last_arg] = f"{args[last_arg]}\n{more}" if last_arg in args else more
                continue
            if not line.strip():
                continue
            flush()
        if kind == "thinking" and not line.strip():
            flush()
            continue
        if role is None:
            continue
        if kind is None:
            if not line.strip():
                continue
            kind, start = "text", n
        body.append(line)
    flush()
    return records
