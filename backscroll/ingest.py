"""Incremental sync: discover session files, read what is new, classify it, store it.

A file whose size and mtime are unchanged costs one ``stat``. A grown file is read from its stored
byte offset; a shrunk or rewritten one (its leading bytes or the bytes before the offset changed)
is read again from the start and its records replaced. A last line without a newline that does not
parse yet is a session still being written: it is left for the next sync. Every file's records and
its checkpoint are committed together, so a killed run leaves nothing half-done and a re-run adds
no duplicates. Bad lines are skipped and counted with file:line; unreadable files are reported.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

import orjson

from . import classify
from .config import Config
from .dates import format_ts
from .records import MAX_TEXT_BYTES, Record, SessionInfo
from .sources import AGENTS, Agent, LineError
from .store import FileState, Store, content_hash

MAX_LINE_BYTES = 64 * 1024 * 1024
HEAD_BYTES = 4096
TAIL_BYTES = 256
COMMIT_EVERY_RECORDS = 20_000


@dataclass
class IndexReport:
    files_seen: int = 0
    files_changed: int = 0
    records_added: int = 0
    records_replaced: int = 0
    lines_skipped: int = 0
    unreadable: list[tuple[str, str]] = field(default_factory=list)
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
            "seconds": round(self.seconds, 3),
        }


class Progress:
    """What sync reports while it runs; the CLI draws a bar from it. The default does nothing."""

    def start(self, total_files: int) -> None: ...
    def advance(self, path: str, records: int) -> None: ...
    def finish(self) -> None: ...


def _now() -> str:
    return format_ts(datetime.now(timezone.utc))


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


def discover(cfg: Config) -> list[tuple[Agent, Path]]:
    """Every session file under the configured roots, each claimed by one agent, without repeats."""
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
            for path in agent.discover(root.path):
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

    def _row(self, rec: Record, session: SessionInfo, is_echo: bool, tool_name: str | None) -> tuple:
        text, truncated = _cap_text(rec.text)
        if self.redactor is not None:
            text = self.redactor(text)
        cwd = rec.cwd or session.cwd
        return (
            rec.record_id, session.session_id, session.agent, _project(cwd), cwd, rec.role, rec.content_type,
            tool_name, rec.tool_call_id, int(is_echo), int(rec.is_error), rec.timestamp, self.key, rec.line,
            text, int(truncated), content_hash(text), int(session.is_sidechain), session.parent_session_id,
            int(rec.tool_name is not None),
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
    """Reads one line-based file from a checkpoint and turns its new lines into store rows."""

    def __init__(self, store: Store, agent: Agent, path: Path, prev: FileState | None, redactor):
        self.store = store
        self.agent = agent
        self.path = path
        self.key = str(path)
        self.prev = prev
        self.skipped: list[tuple[int, str]] = []
        self.batch = _Batch(store, self.key, redactor)
        self.rows: list[tuple] = []

    @property
    def first_ts(self) -> str | None:
        return self.batch.first_ts

    @property
    def last_ts(self) -> str | None:
        return self.batch.last_ts

    def _session_from_state(self) -> SessionInfo:
        base = self.agent.session_for(self.path)
        if self.prev is None:
            return base
        state = self.prev.session_state
        return replace(base, session_id=self.prev.session_id or base.session_id,
                       **{k: v for k, v in state.items() if k in ("cwd", "title", "is_sidechain", "parent_session_id")})

    def read(self, size: int, mtime_ns: int) -> tuple[FileState, SessionInfo, int]:
        """Read new lines. Returns the new checkpoint, the session and the number of records replaced."""
        replaced = 0
        offset, line_no = 0, 0
        with open(self.path, "rb") as fh:
            head = fh.read(HEAD_BYTES)
            prev = self.prev
            if prev is not None and prev.offset > 0:
                rewritten = size < prev.offset or _digest(head[: min(HEAD_BYTES, prev.offset)]) != prev.head_digest
                if not rewritten:
                    start = max(0, prev.offset - TAIL_BYTES)
                    fh.seek(start)
                    rewritten = _digest(fh.read(prev.offset - start)) != prev.tail_digest
                if rewritten:
                    replaced = self.store.forget_file_records(self.key)
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
                raw = fh.readline(MAX_LINE_BYTES)
                if not raw:
                    break
                if ends_mid_line:
                    ends_mid_line = False
                    if raw in (b"\n", b"\r\n"):
                        offset += len(raw)
                        continue
                if not raw.endswith(b"\n"):
                    if len(raw) >= MAX_LINE_BYTES:  # a gigantic line: skip to its end
                        while raw and not raw.endswith(b"\n"):
                            raw = fh.readline(MAX_LINE_BYTES)
                        line_no += 1
                        offset = fh.tell()
                        self.skipped.append((line_no, f"line longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB"))
                        continue
                    # No newline yet: the agent may still be writing it. Take it only if it is complete.
                    try:
                        obj = orjson.loads(raw)
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
        state = FileState(
            self.key, self.agent.name, size, mtime_ns, offset, line_no, head_digest, _digest(tail),
            session.session_id,
            {"cwd": session.cwd, "title": session.title, "is_sidechain": session.is_sidechain,
             "parent_session_id": session.parent_session_id},
        )
        return state, session, replaced

    def _parse(self, raw: bytes, line_no: int, session: SessionInfo) -> SessionInfo:
        if not raw.strip():
            return session
        try:
            obj = orjson.loads(raw)
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
        if parsed.session_updates:
            updates = {k: v for k, v in parsed.session_updates.items() if v is not None}
            if updates:
                session = replace(session, **updates)
        for rec in parsed.records:
            self.batch.add(rec, session)
        return session


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
                skipped: list[tuple[int, str]], report: IndexReport, now: str) -> int:
    """Insert one unit's rows, its session and its skipped lines; returns records added."""
    added = store.insert_records(rows)
    if rows or session.title or session.cwd:
        store.upsert_session({
            "session_id": session.session_id, "agent": session.agent, "project": _project(session.cwd),
            "cwd": session.cwd, "title": session.title, "started_at": first_ts, "updated_at": last_ts,
            "source_path": key, "is_sidechain": int(session.is_sidechain),
            "parent_session_id": session.parent_session_id,
        })
    if skipped:
        store.add_skipped(key, skipped, now)
        report.lines_skipped += len(skipped)
        report.skipped_examples.extend((key, ln, why) for ln, why in skipped[:3])
    report.records_added += added
    return added


def _read_lines(store: Store, agent: Agent, path: Path, prev: FileState | None, size: int, mtime_ns: int,
                redactor, report: IndexReport, now: str) -> int:
    """A line-based file from its checkpoint. Returns the rows written."""
    reader = _FileReader(store, agent, path, prev, redactor)
    state, session, replaced = reader.read(size, mtime_ns)
    _store_unit(store, str(path), session, reader.rows, reader.first_ts, reader.last_ts, reader.skipped, report, now)
    store.save_file_state(state, now)
    report.records_replaced += replaced
    return len(reader.rows)


def _read_whole(store: Store, agent: Agent, path: Path, prev: FileState | None, size: int, mtime_ns: int,
                redactor, report: IndexReport, now: str) -> int:
    """A rewritten file or a database, read whole: each unit's records replace its earlier ones."""
    try:
        result = agent.read_whole(path, dict(prev.session_state) if prev else {})
    except OSError:
        raise
    except Exception as exc:  # a parser bug must not stop the other files
        raise OSError(f"could not be read as {agent.name} sessions: {type(exc).__name__}: {exc}") from None
    written = 0
    for unit in result.units:
        report.records_replaced += store.forget_file_records(unit.key)
        batch = _Batch(store, unit.key, redactor)
        for rec in unit.records:
            batch.add(rec, unit.session)
        rows = batch.finish(unit.session)
        _store_unit(store, unit.key, unit.session, rows, batch.first_ts, batch.last_ts, unit.skipped, report, now)
        written += len(rows)
    store.save_file_state(FileState(str(path), agent.name, size, mtime_ns, size, 0, "", "", "",
                                    result.state), now)
    return written


def sync(store: Store, cfg: Config, progress: Progress | None = None,
         redactor: Callable[[str], str] | None = None) -> IndexReport:
    """Bring the store up to date with every session file. The caller holds the writer lock."""
    started = time.perf_counter()
    progress = progress or Progress()
    report = IndexReport()
    reclassify(store)
    states = store.file_states()
    changed: list[tuple[Agent, Path, int, int]] = []
    for root in cfg.roots:
        if root.origin == "flag" and not root.path.exists():
            report.unreadable.append((str(root.path), "no such file or directory (given with --source)"))
    for agent, path in discover(cfg):
        report.files_seen += 1
        try:
            size, mtime_ns = agent.stat(path)
        except OSError as exc:
            report.unreadable.append((str(path), exc.strerror or str(exc)))
            continue
        prev = states.get(str(path))
        if prev is not None and prev.size == size and prev.mtime_ns == mtime_ns:
            continue
        changed.append((agent, path, size, mtime_ns))

    progress.start(len(changed))
    pending = 0
    now = _now()
    store.begin()
    try:
        for agent, path, size, mtime_ns in changed:
            read = _read_whole if agent.read_whole is not None else _read_lines
            before = report.records_added
            try:
                pending += read(store, agent, path, states.get(str(path)), size, mtime_ns, redactor, report, now)
            except OSError as exc:
                report.unreadable.append((str(path), exc.strerror or str(exc)))
                progress.advance(str(path), 0)
                continue
            report.files_changed += 1
            if pending >= COMMIT_EVERY_RECORDS:
                _flush_redactions(store, redactor)
                store.commit()
                store.begin()
                pending = 0
            progress.advance(str(path), report.records_added - before)
        _flush_redactions(store, redactor)
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
