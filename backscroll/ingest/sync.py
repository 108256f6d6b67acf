"""Incremental sync: discover session files, read what is new, classify it, store it.

A file whose size and mtime are unchanged costs one ``stat``. A grown file is read from its stored
byte offset, never past the size ``stat`` gave; a shrunk or rewritten one (its leading bytes or the
bytes before the offset changed) is read again from the start: a record id it emits again replaces
its earlier version, and the records it no longer holds stay in the store (the store is the
permanent record; a notice says so). A last line without a newline that does not parse yet is a
session still being written: it is left for the next sync. Each file's records and its checkpoint
are stored together (a savepoint per file, committed in groups), so a killed run leaves nothing
half-done, a re-run adds no duplicates, and a file that fails (unreadable, not a regular file, too
large, a parser bug) is rolled back alone and reported: it never costs the other files their records. Bad lines are skipped and counted with
file:line. Unreadable files and directories are kept in ``source_issues`` (shown by ``status``); a
file whose content could not be read is not read again until its size or mtime changes. A path
that is not valid UTF-8 is stored with ``\\xNN`` escapes.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path

import orjson

from backscroll.config import Config
from backscroll.dates import format_ts
from backscroll.errors import DiskFullError, ReadOnlyStoreError, store_failure
from backscroll.ingest import echo as classify
from backscroll.ingest.sources import AGENTS, Agent, ContentError, LineError, open_regular
from backscroll.ingest.sources.jsontext import loads
from backscroll.store.db import FileState, Store, content_hash
from backscroll.types import MAX_TEXT_BYTES, Record, SessionInfo

MAX_LINE_BYTES = 64 * 1024 * 1024
HEAD_BYTES = 4096
TAIL_BYTES = 256
COMMIT_EVERY_RECORDS = 20_000  # files are committed in groups this large (each file a savepoint of its own)
# Bumped when a parser reads the same lines differently: every file is read again from the start,
# re-emitted records replace their earlier versions (2: authors, reasoning, summaries, sidechains).
PARSE_VERSION = 2
REPARSE_REASON = "read again by a newer parser"
MAX_QUEUED = 50  # queued prompts remembered per file, to recognise them when they are sent


@dataclass
class IndexReport:
    files_seen: int = 0
    files_changed: int = 0
    records_added: int = 0
    records_replaced: int = 0
    lines_skipped: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    notices: list[tuple[str, str]] = field(default_factory=list)  # (path, what happened): nothing lost
    skipped_examples: list[tuple[str, int, str]] = field(default_factory=list)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "files_scanned": self.files_seen,
            "files_changed": self.files_changed,
            "records_added": self.records_added,
            "records_replaced": self.records_replaced,
            "lines_skipped": self.lines_skipped,
            "unreadable": [{"path": p, "reason": r} for p, r in self.unreadable],
            "notices": [{"path": p, "notice": n} for p, n in self.notices],
            "seconds": round(self.seconds, 3),
        }


class Progress:
    """What sync reports while it runs; the CLI draws a bar from it. The default does nothing."""

    def start(self, total_files: int) -> None: ...
    def advance(self, path: str, records: int) -> None: ...
    def finish(self) -> None: ...


def _now() -> str:
    return format_ts(datetime.now(UTC))


@contextmanager
def writer_lock(cfg: Config, wait: float = 0.0) -> Iterator[bool]:
    """Hold the single-writer lock; yields False when another process holds it past ``wait`` seconds."""
    cfg.lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(cfg.lock_path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(0.05)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def store_text(text: str) -> str:
    """``text`` as SQLite can store it: a path's undecodable bytes (surrogate escapes) as ``\\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _store_value(value):
    return store_text(value) if isinstance(value, str) else value


def _safe_session(session: SessionInfo) -> SessionInfo:
    return replace(session, session_id=store_text(session.session_id),
                   parent_session_id=_store_value(session.parent_session_id),
                   cwd=_store_value(session.cwd), title=_store_value(session.title))


def discover(cfg: Config, errors: list[OSError] | None = None) -> list[tuple[Agent, Path]]:
    """Every session file under the configured roots, each claimed by one agent, without repeats.
    Directories that cannot be listed are appended to ``errors``."""
    seen: set[str] = set()
    found: list[tuple[Agent, Path]] = []
    for root in cfg.roots:
        agents = [AGENTS[root.agent]] if root.agent else list(AGENTS.values())
        if root.path.is_file():  # a single session file given as a source
            agent = next((a for a in agents if a.claims(root.path)), None)
            if agent is not None and str(root.path) not in seen:
                seen.add(str(root.path))
                found.append((agent, root.path))
            continue
        if not root.path.is_dir():
            continue
        for agent in agents:
            for path in agent.discover(root.path, errors):
                key = str(path)
                if key not in seen:
                    seen.add(key)
                    found.append((agent, path))
    return found


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _cap_text(text: str) -> tuple[str, bool]:
    if len(text) * 4 <= MAX_TEXT_BYTES:
        return text, False
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_TEXT_BYTES:
        return text, False
    return data[:MAX_TEXT_BYTES].decode("utf-8", "ignore"), True


def _redact_field(redactor, value: str | None) -> str | None:
    return redactor(value) if value and redactor is not None else value


def _redacted_session(session: SessionInfo, redactor) -> SessionInfo:
    """The session with its stored strings (title, cwd) redacted."""
    if redactor is None or not (session.title or session.cwd):
        return session
    return replace(session, title=_redact_field(redactor, session.title), cwd=_redact_field(redactor, session.cwd))


def _project(cwd: str | None) -> str | None:
    """The last part of the working directory (POSIX or Windows separators)."""
    if not cwd:
        return None
    name = cwd.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
    return name or cwd


class _Batch:
    """Store rows for the records of one source key: capped, redacted, hashed and echo-classified.

    A tool call is an echo when its command runs backscroll retrieval; a tool result takes its
    call's name and echo flag (from this batch, or from the store when the call came earlier).
    """

    def __init__(self, store: Store, key: str, redactor):
        self.store = store
        self.key = key
        self.redactor = redactor
        self.rows: list[tuple | None] = []
        self.pending_results: list[Record] = []
        self.calls: dict[str, tuple[str | None, bool]] = {}
        self.first_ts: str | None = None
        self.last_ts: str | None = None
        self._sessions: list[SessionInfo] = []
        self._fields: dict[str, str] = {}

    def _field(self, value: str | None) -> str | None:
        """A cwd or tool name, redacted once per batch (they repeat on every record)."""
        if not value:
            return value
        out = self._fields.get(value)
        if out is None:
            out = self._fields[value] = self.redactor(value)
        return out

    def _row(self, rec: Record, session: SessionInfo, is_echo: bool, tool_name: str | None) -> tuple:
        text, truncated = _cap_text(rec.text)
        cwd = rec.cwd or session.cwd
        home = session.cwd or cwd  # a session belongs to one project: its first cwd; each line keeps its own
        if self.redactor is not None:
            text = self.redactor(text)
            cwd, tool_name, home = self._field(cwd), self._field(tool_name), self._field(home)
        author = rec.author or ("human" if rec.role == "user" else None)
        return (
            rec.record_id, session.session_id, session.agent, _project(home), cwd, rec.role, rec.content_type,
            tool_name, rec.tool_call_id, int(is_echo), int(rec.is_error), rec.timestamp, self.key, rec.line,
            text, int(truncated), content_hash(text), int(session.is_sidechain), session.parent_session_id,
            int(rec.tool_name is not None), author,
        )

    def add(self, rec: Record, session: SessionInfo) -> None:
        if rec.timestamp:
            if self.first_ts is None or rec.timestamp < self.first_ts:
                self.first_ts = rec.timestamp
            if self.last_ts is None or rec.timestamp > self.last_ts:
                self.last_ts = rec.timestamp
        if rec.tool_name is not None:  # a tool call
            echo = (rec.echo or classify.is_mcp_echo(rec.tool_name)
                    or (classify.is_query_echo(rec.command) if rec.command is not None else False))
            if rec.tool_call_id:
                self.calls[rec.tool_call_id] = (rec.tool_name, echo)
            self.rows.append(self._row(rec, session, echo, rec.tool_name))
        elif rec.tool_call_id:  # a tool result: named and classified by its call
            if rec.tool_call_id in self.calls:
                name, echo = self.calls[rec.tool_call_id]
                self.rows.append(self._row(rec, session, echo, name))
            else:
                self.pending_results.append(rec)
                self._sessions.append(session)
                self.rows.append(None)  # placeholder keeps the order; filled in finish()
        else:
            self._add_text(rec, session)

    def _add_text(self, rec: Record, session: SessionInfo) -> None:
        """Prose; ``<backscroll-recall>`` blocks inside it are recalled context: split off as echo rows."""
        rest, blocks = classify.split_recall(rec.text) if not rec.echo else (rec.text, [])
        if rec.echo or not blocks:
            self.rows.append(self._row(rec, session, rec.echo, None))
            return
        if rest:
            self.rows.append(self._row(replace(rec, text=rest), session, False, None))
        for k, block in enumerate(blocks):
            self.rows.append(self._row(replace(rec, record_id=f"{rec.record_id}~recall{k}", text=block,
                                               role="tool", content_type="tool"), session, True, None))

    def finish(self, session: SessionInfo) -> list[tuple]:
        """The rows, with results whose call was not in this batch resolved from the store."""
        if self.pending_results:
            missing = sorted({r.tool_call_id for r in self.pending_results if r.tool_call_id not in self.calls})
            self.calls.update(self.store.call_info(session.session_id, missing))
            pending = iter(zip(self.pending_results, self._sessions))
            for i, row in enumerate(self.rows):
                if row is None:
                    rec, rec_session = next(pending)
                    name, echo = self.calls.get(rec.tool_call_id, (None, False))
                    self.rows[i] = self._row(rec, rec_session, echo, name)
        return [r for r in self.rows if r is not None]


class _FileReader:
    """Reads one line-based file from a checkpoint and turns its new lines into store rows.

    Besides a session's fields, a parser's ``session_updates`` may hold: ``title_rank`` (how sure the
    ``title`` is: 0 a first slash command, 1 default, 2 AI-made, 3 the person's; a lower rank never
    replaces a higher one), ``leaf_title`` (``(uuid, title)``: a title for the session that holds
    record ``uuid``, often another file's), ``sidechain`` (the line's records belong to the file's
    inline sidechain, the sub-session ``<session>:sidechain``) and ``queued`` (the records are prompts
    queued while the agent worked: the same words sent later are that prompt, not a second one).
    """

    def __init__(self, store: Store, agent: Agent, path: Path, prev: FileState | None, redactor,
                 reparse: bool = False):
        self.store = store
        self.agent = agent
        self.path = path
        self.key = store_text(str(path))
        self.prev = prev
        self.reparse = reparse
        self.rewritten: str | None = None  # why the file is read again from the start
        self.skipped: list[tuple[int, str]] = []
        self.batch = _Batch(store, self.key, redactor)
        self.rows: list[tuple] = []
        self.unknown: dict[str, list[int]] = {}  # entry type -> [count, first line]
        self.leaf_titles: dict[str, str] = {}
        self.side: SessionInfo | None = None
        self.title_rank: int | None = None
        self.queued: list[str] = []
        self.human_seen = False

    @property
    def first_ts(self) -> str | None:
        return self.batch.first_ts

    @property
    def last_ts(self) -> str | None:
        return self.batch.last_ts

    def _session_from_state(self) -> SessionInfo:
        base = self.agent.session_for(self.path)
        if base.session_id != store_text(base.session_id) or self.key != str(self.path):
            base = _safe_session(base)
        if self.prev is None:
            return base
        state = self.prev.session_state
        self.title_rank = state.get("title_rank", 1 if state.get("title") else None)
        self.queued = list(state.get("queued") or [])
        self.human_seen = bool(state.get("human_seen"))
        return replace(base, session_id=self.prev.session_id or base.session_id,
                       **{k: v for k, v in state.items() if k in ("cwd", "title", "is_sidechain", "parent_session_id", "history_mode")})

    def read(self, size: int, mtime_ns: int) -> tuple[FileState, SessionInfo]:
        """Read new lines. Returns the new checkpoint and the session (``rewritten`` says whether the
        file was read again from the start)."""
        offset, line_no = 0, 0
        with open_regular(self.path) as fh:
            head = fh.read(min(HEAD_BYTES, size))
            prev = self.prev
            if prev is not None and self.reparse:
                self.rewritten, self.prev = REPARSE_REASON, None
                prev = None
            if prev is not None and prev.offset > 0:
                if size < prev.offset:
                    self.rewritten = "emptied" if size == 0 else f"shrank from {prev.offset} to {size} bytes"
                elif _digest(head[: min(HEAD_BYTES, prev.offset)]) != prev.head_digest:
                    self.rewritten = "rewritten"
                else:
                    start = max(0, prev.offset - TAIL_BYTES)
                    fh.seek(start)
                    if _digest(fh.read(prev.offset - start)) != prev.tail_digest:
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
            head_digest = _digest(head[: min(HEAD_BYTES, offset)])
        self.rows = self.batch.finish(session)
        stored = _redacted_session(session, self.batch.redactor)
        state = FileState(
            self.key, self.agent.name, size, mtime_ns, offset, line_no, head_digest, _digest(tail),
            session.session_id,
            {"cwd": stored.cwd, "title": stored.title, "is_sidechain": session.is_sidechain,
             "parent_session_id": session.parent_session_id, "history_mode": session.history_mode,
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
            reason = "not valid UTF-8" if "utf-8" in str(exc).lower() else "malformed JSON"
            self.skipped.append((line_no, reason))
            return session
        try:
            parsed = self.agent.parse_line(obj, line_no, session)
        except LineError as exc:
            self.skipped.append((line_no, str(exc)))
            return session
        except Exception as exc:  # a parser bug must not lose the rest of the file
            self.skipped.append((line_no, f"unexpected {type(exc).__name__}: {exc}"))
            return session
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
            if rec.role == "user" and rec.author == "human" and rec.content_type == "text":
                h = content_hash(rec.text)
                if queued:
                    self.queued.append(h)
                elif h in self.queued:  # the queued prompt, sent: stored once, as queued
                    self.queued.remove(h)
                    continue
                self.human_seen = True
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


def reclassify(store: Store) -> int:
    """Apply the current echo rules to every stored tool call and its results; returns rows changed.

    Runs when the store was classified by another version of the rules. The lexical index holds
    ``is_echo`` too, so it is rebuilt afterwards.
    """
    if store.get_meta("classifier_version") == str(classify.VERSION):
        return 0
    store.begin()
    try:
        changed = 0
        shells = sorted(classify.SHELL_TOOLS)
        calls = store.conn.execute(
            f"SELECT id, session_id, tool_call_id, text, is_echo, tool_name FROM records WHERE is_call = 1 "
            f"AND (tool_name IN ({','.join('?' * len(shells))}) OR tool_name LIKE '%backscroll%')", shells).fetchall()
        for rid, session, call_id, text, was, tool in calls:
            echo = int(classify.is_mcp_echo(tool) or (tool in classify.SHELL_TOOLS and classify.is_query_echo(text)))
            if echo != was:
                changed += 1
                store.conn.execute("UPDATE records SET is_echo = ? WHERE id = ?", (echo, rid))
                if call_id:
                    store.conn.execute("UPDATE records SET is_echo = ? WHERE session_id = ? AND tool_call_id = ? "
                                       "AND is_call = 0", (echo, session, call_id))
        if changed:
            store.set_meta("lexical_generation", None)  # the index is rebuilt with the new flags
        store.set_meta("classifier_version", str(classify.VERSION))
        store.commit()
    except BaseException:
        store.rollback()
        raise
    return changed


def _flush_redactions(store: Store, redactor) -> None:
    """Record the redaction counts in the same transaction as the records they came from."""
    take = getattr(redactor, "take_counts", None)
    if take is not None:
        counts = take()
        if counts:
            store.add_redactions(counts)


def _store_unit(store: Store, key: str, session: SessionInfo, rows: list[tuple], first_ts, last_ts,
                skipped: list[tuple[int, str]], report: IndexReport, now: str, redactor=None, *,
                reread: str | None = None, title_rank: int | None = None,
                unknown: dict[str, tuple[int, int]] | None = None) -> int:
    """Insert one unit's rows, its session and its skipped lines (all redacted); returns records added.

    ``reread`` (why a unit is read again from the start) makes re-emitted record ids replace their
    earlier versions; earlier records it no longer holds are kept, and a notice says how many.
    """
    session = _redacted_session(session, redactor)
    if redactor is not None:
        skipped = [(ln, _redact_field(redactor, why)) for ln, why in skipped]
    if reread is None:
        added = store.insert_records(rows)
    else:
        before = store.source_records(key)
        store.forget_skipped(key)
        added, replaced, matched = store.upsert_records(rows, key)
        report.records_replaced += replaced
        if replaced:  # their embeddings may now belong to no unit (vectors.prune_orphans)
            store.set_meta("embeddings_prune", "1")
        kept = before - matched
        store.forget_unknown(key)
        if reread == REPARSE_REASON:
            kept = 0  # a parser that now reads less of a file is not news about the file
        if kept > 0:
            note = f"{reread}; {kept} earlier record(s) no longer in it were kept in the store"
            report.notices.append((key, note))
            store.set_source_issue(key, "rewritten", note, now)
    if rows or session.title or session.cwd:
        store.upsert_session({
            "session_id": session.session_id, "agent": session.agent, "project": _project(session.cwd),
            "cwd": session.cwd, "title": session.title, "started_at": first_ts, "updated_at": last_ts,
            "source_path": key, "is_sidechain": int(session.is_sidechain),
            "parent_session_id": session.parent_session_id, "title_rank": 1 if title_rank is None else title_rank,
        })
    if unknown:
        store.add_unknown(key, session.agent, unknown)
    if skipped:
        store.add_skipped(key, skipped, now)
        report.lines_skipped += len(skipped)
        report.skipped_examples.extend((key, ln, why) for ln, why in skipped[:3])
    report.records_added += added
    return added


def _safe_rows(rows: list[tuple]) -> list[tuple]:
    return [tuple(_store_value(v) for v in row) for row in rows]


def _read_lines(store: Store, agent: Agent, path: Path, prev: FileState | None, size: int, mtime_ns: int,
                redactor, report: IndexReport, now: str, reparse: bool = False) -> int:
    """A line-based file from its checkpoint. Returns the rows written."""
    reader = _FileReader(store, agent, path, prev, redactor, reparse=reparse)
    state, session = reader.read(size, mtime_ns)
    rows = reader.rows if reader.key == str(path) else _safe_rows(reader.rows)
    _store_unit(store, reader.key, session, rows, reader.first_ts, reader.last_ts, reader.skipped, report, now,
                redactor, reread=reader.rewritten, title_rank=reader.title_rank,
                unknown={t: (n, line) for t, (n, line) in reader.unknown.items()})
    if reader.side is not None:
        side = _redacted_session(reader.side, redactor)
        store.upsert_session({
            "session_id": side.session_id, "agent": side.agent, "project": _project(side.cwd), "cwd": side.cwd,
            "title": None, "started_at": reader.first_ts, "updated_at": reader.last_ts, "source_path": reader.key,
            "is_sidechain": 1, "parent_session_id": side.parent_session_id, "title_rank": None})
    if reader.leaf_titles:
        store.add_leaf_titles({uuid: _redact_field(redactor, title) for uuid, title in reader.leaf_titles.items()}, now)
    store.save_file_state(state, now)
    return len(rows)


def _read_whole(store: Store, agent: Agent, path: Path, prev: FileState | None, size: int, mtime_ns: int,
                redactor, report: IndexReport, now: str, reparse: bool = False) -> int:
    """A rewritten file or a database, read whole: each unit's re-emitted records replace their earlier
    versions; records a unit no longer holds are kept."""
    try:
        result = agent.read_whole(path, dict(prev.session_state) if prev and not reparse else {})
    except OSError:
        raise
    except Exception as exc:  # a parser bug must not stop the other files
        raise ContentError(f"could not be read as {agent.name} sessions: {type(exc).__name__}: {exc}") from None
    written = 0
    key = store_text(str(path))
    dirty = key != str(path)
    for unit in result.units:
        unit_key, session = unit.key, unit.session
        if dirty or session.session_id != store_text(session.session_id):
            unit_key, session = store_text(unit_key), _safe_session(session)
        batch = _Batch(store, unit_key, redactor)
        for rec in unit.records:
            batch.add(rec, session)
        rows = batch.finish(session)
        if dirty:
            rows = _safe_rows(rows)
        _store_unit(store, unit_key, session, rows, batch.first_ts, batch.last_ts, unit.skipped, report, now,
                    redactor, reread=REPARSE_REASON if reparse else "rewritten",
                    unknown={t: (n, 0) for t, n in unit.unknown.items()})
        written += len(rows)
    store.save_file_state(FileState(key, agent.name, size, mtime_ns, size, 0, "", "", "",
                                    result.state), now)
    return written


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return f"unexpected {type(exc).__name__}: {exc}"


def _file_gone(key: str) -> bool:
    """Whether the file behind a stored path (or ``<db>#<session>`` unit key) no longer exists."""
    return not os.path.lexists(key) and not ("#" in key and os.path.lexists(key.rsplit("#", 1)[0]))


def _note_issue(store: Store, issues: dict, key: str, kind: str, reason: str, now: str,
                size: int | None = None, mtime_ns: int | None = None) -> None:
    """Keep an unreadable source in ``source_issues`` (written only when something changed)."""
    old = issues.get(key)
    if old is None or old[:4] != (kind, reason, size, mtime_ns):
        store.set_source_issue(key, kind, reason, now, size, mtime_ns)
        issues[key] = (kind, reason, size, mtime_ns)


def sync(store: Store, cfg: Config, progress: Progress | None = None,
         redactor: Callable[[str], str] | None = None) -> IndexReport:
    """Bring the store up to date with every session file. The caller holds the writer lock.

    Each file is a savepoint of its own, committed in groups of about ``COMMIT_EVERY_RECORDS``
    records: a file that fails is rolled back alone, reported unreadable (kept in ``source_issues``)
    and the sync goes on with the others' records intact.
    """
    started = time.perf_counter()
    progress = progress or Progress()
    report = IndexReport()
    reclassify(store)
    reparse = store.get_meta("parse_version") != str(PARSE_VERSION)
    states = store.file_states()
    issues = store.source_issues()
    now = _now()
    changed: list[tuple[Agent, Path, str, int, int]] = []
    failed: list[tuple[str, str, int | None, int | None]] = []  # unreadable sources to remember
    for root in cfg.roots:
        if root.origin == "flag" and not root.path.exists():
            report.unreadable.append((store_text(str(root.path)), "no such file or directory (given with --source)"))
    dir_errors: list[OSError] = []
    present: set[str] = set()
    for agent, path in discover(cfg, dir_errors):
        report.files_seen += 1
        key = store_text(str(path))
        present.add(key)
        try:
            size, mtime_ns = agent.stat(path)
        except OSError as exc:
            report.unreadable.append((key, _reason(exc)))
            failed.append((key, _reason(exc), None, None))
            continue
        prev = states.get(key)
        if prev is not None and prev.size == size and prev.mtime_ns == mtime_ns and not reparse:
            continue
        issue = issues.get(key)
        if issue is not None and issue[0] == "unreadable" and issue[2:] == (size, mtime_ns):
            report.unreadable.append((key, issue[1]))  # remembered: not read again until it changes
            continue
        changed.append((agent, path, key, size, mtime_ns))
    bad_dirs: dict[str, str] = {}
    for exc in dir_errors:
        bad_dirs.setdefault(store_text(str(exc.filename)), _reason(exc))
    for key, why in bad_dirs.items():
        report.unreadable.append((key, f"directory cannot be listed: {why}"))

    progress.start(len(changed))
    pending = 0
    store.conn.execute("PRAGMA temp_store = MEMORY")  # the per-file savepoints' journal: no temp file
    store.begin()
    try:
        for agent, path, key, size, mtime_ns in changed:
            read = _read_whole if agent.read_whole is not None else _read_lines
            before = report.records_added
            mark = (report.records_added, report.records_replaced, report.lines_skipped,
                    len(report.skipped_examples), len(report.notices))
            store.conn.execute("SAVEPOINT source_file")
            try:
                pending += read(store, agent, path, states.get(key), size, mtime_ns, redactor, report, now,
                                reparse=reparse and key in states)
                if key in issues and issues[key][0] == "unreadable":
                    store.clear_source_issue(key)
                    del issues[key]
                if key != str(path):
                    report.notices.append((key, "the path is not valid UTF-8: stored with \\x escapes"))
                _flush_redactions(store, redactor)
                store.conn.execute("RELEASE source_file")
            except Exception as exc:  # this file alone is rolled back; the others keep their records
                if not store.conn.in_transaction or (isinstance(exc, sqlite3.Error) and isinstance(
                        store_failure(exc, store.path), (DiskFullError, ReadOnlyStoreError))):
                    raise  # the store itself failed (a full disk, a read-only mount): not this file's fault
                store.conn.execute("ROLLBACK TO source_file")
                store.conn.execute("RELEASE source_file")
                if hasattr(redactor, "take_counts"):
                    redactor.take_counts()  # those records were not stored
                (report.records_added, report.records_replaced, report.lines_skipped) = mark[:3]
                del report.skipped_examples[mark[3]:], report.notices[mark[4]:]
                report.unreadable.append((key, _reason(exc)))
                # Content that cannot be read (or a parser bug) is remembered until the file changes;
                # a passing error (busy, permission) is tried again next time.
                remember = isinstance(exc, ContentError) or not isinstance(exc, OSError)
                failed.append((key, _reason(exc), size if remember else None, mtime_ns if remember else None))
                progress.advance(str(path), 0)
                continue
            report.files_changed += 1
            if pending >= COMMIT_EVERY_RECORDS:
                store.commit()
                store.begin()
                pending = 0
            progress.advance(str(path), report.records_added - before)
        # What is kept about unreadable sources, and diagnostics of files that are gone.
        for key, why, size, mtime_ns in failed:
            _note_issue(store, issues, key, "unreadable", why, now, size, mtime_ns)
        for key, why in bad_dirs.items():
            _note_issue(store, issues, key, "directory", why, now)
        for key, issue in list(issues.items()):
            if issue[0] == "directory" and key not in bad_dirs:
                store.forget_diagnostics(key)
        for key in store.diagnosed_paths() - present - set(bad_dirs):
            if _file_gone(key):
                store.forget_diagnostics(key)
        store.set_meta("last_index_run", _now())  # `status`: when the sources were last looked at
        store.apply_leaf_titles()
        if reparse:
            if states:
                report.notices.append(("(all sources)", f"{len(states)} session file(s) {REPARSE_REASON}"))
            store.set_meta("parse_version", str(PARSE_VERSION))
        store.commit()
    except BaseException:
        store.rollback()
        if hasattr(redactor, "take_counts"):
            redactor.take_counts()  # those records were not stored
        raise
    finally:
        progress.finish()
    report.seconds = time.perf_counter() - started
    return report
