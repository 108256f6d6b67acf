"""The checkpointed line reader: one line-based session file, from where the last sync stopped.

A grown file is read from its stored byte offset, never past the size ``stat`` gave; a shrunk or
rewritten one (its leading bytes or the bytes before the offset changed) is read again from the
start. A last line without a newline that does not parse yet is a session still being written: it
is left for the next sync. Gigantic lines are skipped and counted; so are lines a parser rejects. A line that was cut
short (its writer died mid-line) and then had the session's next record appended to it costs only itself.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

import orjson

from backscroll.ingest.rows import Batch, Redact, Row, safe_session, store_text, stored_session
from backscroll.ingest.sources import Agent, LineError, ParsedLine, open_regular
from backscroll.ingest.sources.jsontext import loads
from backscroll.store.db import FileState, Store, content_hash
from backscroll.types import SessionInfo

MAX_LINE_BYTES = 64 * 1024 * 1024
HEAD_BYTES = 4096
TAIL_BYTES = 256
REPARSE_REASON = "read again by a newer parser"
MAX_QUEUED = 50  # queued prompts remembered per file, to recognise them when they are sent
MAX_JOINS = 16  # places a malformed line is tried for a record appended to a cut-short one
CUT_SHORT = "cut short; the record appended to it was kept"
_FIRST_KEY = re.compile(rb'\s*(\{"[^"\\]{1,64}":)')
_ESCAPED = re.compile(rb"\\.", re.DOTALL)
# Session fields kept in a file's checkpoint and restored when it is read on from there.
_COPY_STATE = ("copy_until", "copy_below", "copy_notes")  # where a fork's copy of its parent ends (Codex)
_KEPT_FIELDS = ("cwd", "title", "is_sidechain", "parent_session_id", "history_mode", "repository", "questions",
                *_COPY_STATE)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


class FileReader:
    """Reads one line-based file from a checkpoint and turns its new lines into store rows.

    Besides a session's fields, a parser's ``session_updates`` may hold: ``title_rank`` (how sure the ``title`` is:
    0 a first slash command, 1 default, 2 AI-made, 3 the person's; a lower rank never replaces a higher one),
    ``leaf_title`` (``(uuid, title)``: a title for the session that holds record ``uuid``, often another file's),
    ``sidechain`` (the line's records belong to the file's inline sidechain, the sub-session ``<session>:sidechain``)
    and ``queued`` (the records are prompts queued while the agent worked: the same words sent later are that prompt,
    not a second one, and if another sent them, theirs).
    """

    def __init__(self, store: Store, agent: Agent, path: Path, prev: FileState | None, redactor: Redact | None,
                 reparse: bool = False):
        if agent.parse_line is None:
            raise TypeError(f"{agent.name} sessions are read whole, not line by line")
        self.store, self.agent, self.parse_line, self.path = store, agent, agent.parse_line, path
        self.key = store_text(str(path))
        self.prev, self.reparse = prev, reparse
        self.rewritten: str | None = None  # why the file is read again from the start
        self.skipped: list[tuple[int, str]] = []
        self.batch = Batch(store, self.key, redactor)
        self.rows: list[Row] = []
        self.unknown: dict[str, list[int]] = {}  # entry type -> [count, first line]
        self.leaf_titles: dict[str, str] = {}
        self.side: SessionInfo | None = None
        self.title_rank: int | None = None
        self.queued: list[str] = []
        self.queued_at: dict[str, list[int]] = {}  # (where this read put each queued prompt among its rows)
        self.human_seen = False
        self.intact_reparse = False  # re-read by a newer parser, and the file still holds what was read before
        self.line_starts: set[bytes] = set()  # how this file's lines begin (`{"key":`), to find an appended one

    @property
    def first_ts(self) -> str | None:
        return self.batch.first_ts

    @property
    def last_ts(self) -> str | None:
        return self.batch.last_ts

    def _session_from_state(self) -> SessionInfo:
        base = self.agent.session_for(self.path)
        if base.session_id != store_text(base.session_id) or self.key != str(self.path):
            base = safe_session(base)
        if self.prev is None:
            return base
        state = self.prev.session_state
        self.title_rank = state.get("title_rank", 1 if state.get("title") else None)
        self.queued = list(state.get("queued") or [])
        self.human_seen = bool(state.get("human_seen"))
        kept = {k: v for k, v in state.items() if k in _KEPT_FIELDS}
        if "questions" in kept:  # (kept as JSON lists)
            kept["questions"] = tuple(tuple(q) for q in kept["questions"] if isinstance(q, list) and len(q) == 3)
        if base.title:  # (a title the agent keeps beside the log, as Kimi does: renamed since, it is the newer)
            kept["title"] = base.title
        return replace(base, session_id=self.prev.session_id or base.session_id, **kept)

    @staticmethod
    def _intact(fh, head: bytes, size: int, prev: FileState) -> bool:
        """Whether the file still holds what was read up to the checkpoint (its head and the bytes before it)."""
        if size < prev.offset or digest(head[: min(HEAD_BYTES, prev.offset)]) != prev.head_digest:
            return False
        start = max(0, prev.offset - TAIL_BYTES)
        fh.seek(start)
        return digest(fh.read(prev.offset - start)) == prev.tail_digest

    def read(self, size: int, mtime_ns: int) -> tuple[FileState, SessionInfo]:
        """Read new lines. Returns the new checkpoint and the session (``rewritten`` says whether the
        file was read again from the start)."""
        offset, line_no = 0, 0
        with open_regular(self.path) as fh:
            head = fh.read(min(HEAD_BYTES, size))
            if first := _FIRST_KEY.match(head):
                self.line_starts.add(first.group(1))
            prev = self.prev
            if prev is not None and self.reparse:
                self.intact_reparse = self._intact(fh, head, size, prev)
                self.rewritten, self.prev = REPARSE_REASON, None
                prev = None
            if prev is not None and prev.offset > 0:
                if size < prev.offset:
                    self.rewritten = "emptied" if size == 0 else f"shrank from {prev.offset} to {size} bytes"
                elif not self._intact(fh, head, size, prev):
                    self.rewritten = "rewritten"
                if self.rewritten:
                    self.prev = prev = None
                else:
                    offset, line_no = prev.offset, prev.lines
            # Stopped after a complete line that had no newline yet: its newline is not a new line.
            ends_mid_line = False
            if offset > 0:
                fh.seek(offset - 1)
                ends_mid_line = fh.read(1) != b"\n"
            session = self._session_from_state()
            fh.seek(offset)
            while True:
                # Never past the size stat gave: what was appended since is read next time.
                raw = fh.readline(min(MAX_LINE_BYTES, size - offset)) if offset < size else b""
                if not raw:
                    break
                if ends_mid_line:
                    ends_mid_line = False
                    if raw in (b"\n", b"\r\n"):
                        offset += len(raw)
                        continue
                if not raw.endswith(b"\n"):
                    if len(raw) >= MAX_LINE_BYTES:  # a gigantic line: skip to its end
                        while raw and not raw.endswith(b"\n") and fh.tell() < size:
                            raw = fh.readline(min(MAX_LINE_BYTES, size - fh.tell()))
                        line_no += 1
                        offset = fh.tell()
                        self.skipped.append((line_no, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB"))
                        continue
                    # No newline yet: the agent may still be writing it. Take it only if it is complete.
                    try:
                        obj = loads(raw)
                    except orjson.JSONDecodeError:
                        break
                    if not isinstance(obj, dict):
                        break
                line_no += 1
                offset += len(raw)
                session = self._parse(raw, line_no, session)
            tail_start = max(0, offset - TAIL_BYTES)
            fh.seek(tail_start)
            tail = fh.read(offset - tail_start)
            head_digest = digest(head[: min(HEAD_BYTES, offset)])
        self.rows = self.batch.finish(session)
        stored = stored_session(session, self.batch.redactor)
        state = FileState(
            self.key, self.agent.name, size, mtime_ns, offset, line_no, head_digest, digest(tail),
            session.session_id,
            {"cwd": stored.cwd, "title": stored.title, "is_sidechain": session.is_sidechain,
             "parent_session_id": session.parent_session_id, "history_mode": session.history_mode,
             **({"repository": stored.repository} if stored.repository else {}),
             **{k: v for k in _COPY_STATE if (v := getattr(session, k)) not in (None, 0)},  # ("" is kept: over)
             **({"questions": [list(q) for q in stored.questions]} if stored.questions else {}),
             **({"title_rank": self.title_rank} if self.title_rank is not None else {}),
             **({"queued": self.queued[-MAX_QUEUED:]} if self.queued else {}),
             **({"human_seen": True} if self.human_seen else {})},
        )
        return state, session

    def _parse(self, raw: bytes, line_no: int, session: SessionInfo) -> SessionInfo:
        if not raw.strip():
            return session
        try:
            obj = loads(raw)
        except orjson.JSONDecodeError as exc:
            appended = self._appended(raw, line_no, session)
            if appended is not None:
                self.skipped.append((line_no, CUT_SHORT))
                return self._take(appended, line_no, session)
            reason = "not valid UTF-8" if "utf-8" in str(exc).lower() else "malformed JSON"
            self.skipped.append((line_no, reason))
            return session
        try:
            parsed = self.parse_line(obj, line_no, session)
        except LineError as exc:
            self.skipped.append((line_no, str(exc)))
            return session
        except Exception as exc:  # a parser bug must not lose the rest of the file
            self.skipped.append((line_no, f"unexpected {type(exc).__name__}: {exc}"))
            return session
        if first := _FIRST_KEY.match(raw):
            self.line_starts.add(first.group(1))
        return self._take(parsed, line_no, session)

    def _appended(self, raw: bytes, line_no: int, session: SessionInfo) -> ParsedLine | None:
        """The record a malformed line ends with, when the line is a cut-short one with the session's next
        record appended: a suffix that starts as this file's lines start, parses whole, and reads as a known
        record. (A nested object of a line that is merely broken is not one: it reads as no known record.)"""
        starts = self.line_starts | ({m.group(1)} if (m := _FIRST_KEY.match(raw)) else set())
        known = sorted({i for key in starts for i in _places(raw, key)}, reverse=True)[:MAX_JOINS]
        anywhere = [i for i in _places(raw, b'{"') if i not in known]  # (then any object's: a key not seen, NULs)
        for at in [*reversed(known), *reversed(anywhere)]:  # (the earliest that parses to the end: the whole record)
            try:
                obj = loads(raw[at:])
            except orjson.JSONDecodeError:
                continue
            if not isinstance(obj, dict):
                continue
            try:
                parsed = self.parse_line(obj, line_no, session)
            except Exception:  # noqa: BLE001 - not a record this parser knows: the line stays malformed
                continue
            if parsed.unknown is None and (parsed.records or parsed.session_updates):
                return parsed
        return None

    def _take(self, parsed: ParsedLine, line_no: int, session: SessionInfo) -> SessionInfo:
        if parsed.unknown:
            seen = self.unknown.setdefault(parsed.unknown, [0, line_no])
            seen[0] += 1
        target = session
        queued = False
        if parsed.session_updates:
            updates = {k: v for k, v in parsed.session_updates.items() if v is not None}
            rank = updates.pop("title_rank", 1)
            leaf = updates.pop("leaf_title", None)
            if leaf:
                self.leaf_titles[leaf[0]] = leaf[1]
            queued = bool(updates.pop("queued", False))
            side = bool(updates.pop("sidechain", False))
            if "title" in updates and not self._takes_title(session, rank):
                del updates["title"]
            elif "title" in updates:
                self.title_rank = rank
            if updates:
                session = replace(session, **updates)
            target = self._side(session) if side else session
        for rec in parsed.records:
            if rec.role == "user" and rec.content_type == "text" and (rec.author == "human" or self.queued):
                h = content_hash(rec.text)
                if queued:
                    self.queued.append(h)
                    self.queued_at.setdefault(h, []).append(len(self.batch.rows))
                elif h in self.queued:  # the queued prompt, sent: stored once, as queued
                    self.queued.remove(h)
                    at = self.queued_at.get(h)
                    if rec.author == "agent" and at:  # (another session sent it: theirs, when still in this read)
                        self.batch.sent_by(at.pop(0), "agent")
                    continue
                self.human_seen = self.human_seen or rec.author == "human"
            self.batch.add(rec, target)
        return session

    def _takes_title(self, session: SessionInfo, rank: int) -> bool:
        if rank == 0:  # a session that starts with a slash command is titled by it
            return session.title is None and not self.human_seen
        return self.title_rank is None or rank >= self.title_rank

    def _side(self, session: SessionInfo) -> SessionInfo:
        """The sub-session of the file's inline sidechain lines (subagents of Claude Code 1.0.x)."""
        self.side = SessionInfo(f"{session.session_id}:sidechain", session.agent, session.cwd, None, True,
                                session.session_id)
        return self.side


def _places(raw: bytes, key: bytes) -> list[int]:
    """Where ``key`` may start the appended record in ``raw``, the last ``MAX_JOINS`` of them (it ends the line):
    inside a string the line was cut in, or after anything but ``:``, ``,``, ``[`` or ``{`` (there it starts a
    nested value)."""
    found: list[int] = []
    at, structural = raw.rfind(key), 0
    while at > 0 and len(found) < MAX_JOINS and structural < MAX_JOINS:
        before = at - 1
        while before > 0 and raw[before] in b" \t\r\n":
            before -= 1
        if raw[before] not in b":,[{":
            found.append(at)
        else:
            structural += 1
            if _ESCAPED.sub(b"", raw[:at]).count(b'"') % 2:  # (cut inside a string: not a nested value)
                found.append(at)
        at = raw.rfind(key, 0, at)
    return found
