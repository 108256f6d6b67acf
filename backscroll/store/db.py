"""The record store: SQLite, the permanent record everything else is derived from.

Owns the connection settings (WAL, owner-only files), schema checks and migrations, and the reads
and writes of sessions, records, source-file checkpoints, skipped lines and source issues (unreadable
files and directories, notices about rewritten files). The derived stages
(``vectors``, ``browse``, ``repeat``, ``status``) query their own tables through ``Store.conn``.
Search-time reads use the stdlib ``sqlite3`` module only; sqlite-utils is imported just to migrate.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import orjson

from backscroll.errors import (
    CORRUPT_HINT,
    CorruptStoreError,
    NewerSchemaError,
    NothingIndexedError,
    ReadOnlyStoreError,
    store_failure,
)
from backscroll.store.schema import schema_version

RECORD_COLUMNS = (
    "record_id", "session_id", "agent", "project", "cwd", "role", "content_type", "tool_name",
    "tool_call_id", "is_echo", "is_error", "timestamp", "source_path", "line", "text",
    "text_truncated", "content_hash", "is_sidechain", "parent_session_id", "is_call", "author",
)
_INSERT_RECORD = (
    f"INSERT OR IGNORE INTO records ({', '.join(RECORD_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in RECORD_COLUMNS)})"
)


def content_hash(text: str) -> str:
    """Hash of the text with white space folded: equal for copies that differ only in spacing."""
    return hashlib.blake2b(" ".join(text.split()).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


@dataclass(frozen=True)
class FileState:
    """How far a source file has been read, and how to tell whether it was rewritten since."""

    path: str
    agent: str
    size: int
    mtime_ns: int
    offset: int
    lines: int
    head_digest: str
    tail_digest: str
    session_id: str
    session_state: dict


@contextmanager
def _file_lock(path: Path):
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _private_dir(path: Path) -> None:
    """Create the data dir owner-only; an existing directory is the user's to set."""
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.mkdir(mode=0o700)
    except FileExistsError:  # another process made it a moment ago
        return
    os.chmod(path, 0o700)  # regardless of the umask


class Store:
    """An open record store. Use ``Store.open`` (creates and migrates) or ``Store.open_existing``."""

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path = path
        self.conn = conn
        self.readonly = False  # opened by ``open_readonly``: nothing may be written

    # -- opening -----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path) -> Store:
        path = Path(path)
        try:
            _private_dir(path.parent)
            fresh = not path.exists()
            if fresh:
                fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
            conn = cls._connect(path)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except (OSError, sqlite3.DatabaseError) as exc:
            known = store_failure(exc, path)
            if known is None and not all(os.access(p, os.W_OK) for p in (path, path.parent)):
                known = ReadOnlyStoreError(f"the store {path} cannot be written ({exc})",
                                           hint="search, show, list and status still read it")
            if known is None:
                raise
            raise known from None
        current = schema_version()
        if version < current:
            with _file_lock(path.with_name(path.name + ".migrate.lock")):
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version < current:
                    from backscroll.store.schema import migrate

                    migrate(conn)
                    version = current
        if version > current:
            conn.close()
            raise NewerSchemaError(
                f"the store {path} was written by a newer backscroll (schema {version}, this one reads {current})",
                hint="upgrade backscroll (pip install -U backscroll); the store was left untouched",
            )
        for suffix in ("-wal", "-shm"):
            side = Path(str(path) + suffix)
            if side.exists():
                try:
                    os.chmod(side, 0o600)
                except OSError:
                    pass
        return cls(path, conn)

    @classmethod
    def open_existing(cls, path: Path) -> Store:
        if not Path(path).exists():
            raise NothingIndexedError(
                f"nothing is indexed yet (no store at {path})",
                hint="run `backscroll index` first; `backscroll status` shows where sessions are looked for",
            )
        return cls.open(path)

    @classmethod
    def open_readonly(cls, path: Path) -> Store:
        """Open a store that cannot be written (a backup on read-only media) without writing anything:
        ``mode=ro``, or ``immutable=1`` when even the WAL index (``-shm``) cannot be created."""
        path = Path(path)
        if not path.exists():
            return cls.open_existing(path)
        uri = path.resolve().as_uri()
        for flags in ("mode=ro", "immutable=1"):
            conn = sqlite3.connect(f"{uri}?{flags}", uri=True, isolation_level=None, check_same_thread=False)
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                conn.close()
                if "unable to open" not in str(exc) or flags == "immutable=1":
                    raise store_failure(exc, path) or exc from None
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise store_failure(exc, path) or CorruptStoreError(
                    f"the store {path} cannot be read: {exc}", hint=CORRUPT_HINT.format(db=path)) from None
        current = schema_version()
        if version != current:
            conn.close()
            raise ReadOnlyStoreError(
                f"the store {path} cannot be written, and it has schema {version} where this backscroll "
                f"reads {current} (it cannot upgrade a store it may not write)",
                hint="copy the data dir somewhere writable and point $BACKSCROLL_HOME (or --home) at the copy")
        conn.execute("PRAGMA query_only=ON")
        store = cls(path, conn)
        store.readonly = True
        return store

    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=30000")
        # Switching to WAL needs a moment alone with the file and does not wait on the busy handler.
        for attempt in range(200):
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    conn.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise  # a read-only file or directory: waiting would not help
                time.sleep(0.05)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=OFF")
        return conn

    def close(self) -> None:
        self.conn.close()

    # -- transactions ------------------------------------------------------------------------
    def begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    # -- meta --------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str | None) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- source files --------------------------------------------------------------------------
    def file_states(self) -> dict[str, FileState]:
        out = {}
        for row in self.conn.execute(
            "SELECT path, agent, size, mtime_ns, offset, lines, head_digest, tail_digest, session_id, session_state "
            "FROM source_files"
        ):
            out[row[0]] = FileState(*row[:9], orjson.loads(row[9]) if row[9] else {})
        return out

    def save_file_state(self, st: FileState, indexed_at: str) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO source_files (path, agent, size, mtime_ns, offset, lines, head_digest, "
            "tail_digest, session_id, session_state, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (st.path, st.agent, st.size, st.mtime_ns, st.offset, st.lines, st.head_digest, st.tail_digest,
             st.session_id, orjson.dumps(st.session_state).decode(), indexed_at),
        )

    def source_records(self, path: str) -> int:
        """How many stored records were read from ``path`` (a file, or a unit key)."""
        return self.conn.execute("SELECT count(*) FROM records WHERE source_path = ?", (path,)).fetchone()[0]

    def forget_skipped(self, path: str) -> None:
        self.conn.execute("DELETE FROM skipped_lines WHERE path = ?", (path,))

    # -- source issues: unreadable files and directories, and notices about rewritten files ----------
    def source_issues(self) -> dict[str, tuple[str, str, int | None, int | None]]:
        """``path -> (kind, reason, size, mtime_ns)``; kinds: ``unreadable``, ``directory``, ``rewritten``."""
        return {p: (k, r, sz, mt) for p, k, r, sz, mt in self.conn.execute(
            "SELECT path, kind, reason, size, mtime_ns FROM source_issues")}

    def set_source_issue(self, path: str, kind: str, reason: str, seen_at: str,
                         size: int | None = None, mtime_ns: int | None = None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO source_issues (path, kind, reason, size, mtime_ns, seen_at) VALUES (?,?,?,?,?,?)",
            (path, kind, reason, size, mtime_ns, seen_at))

    def clear_source_issue(self, path: str, kinds: tuple[str, ...] = ("unreadable",)) -> None:
        self.conn.execute(f"DELETE FROM source_issues WHERE path = ? AND kind IN ({','.join('?' * len(kinds))})",
                          (path, *kinds))

    def diagnosed_paths(self) -> set[str]:
        """Paths with skipped lines or source issues (to drop the ones whose file is gone)."""
        return {r[0] for r in self.conn.execute("SELECT path FROM skipped_lines UNION SELECT path FROM source_issues")}

    def forget_diagnostics(self, path: str) -> None:
        self.conn.execute("DELETE FROM skipped_lines WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM source_issues WHERE path = ?", (path,))

    # -- writes --------------------------------------------------------------------------------
    def insert_records(self, rows: list[tuple]) -> int:
        before = self.conn.total_changes
        self.conn.executemany(_INSERT_RECORD, rows)
        return self.conn.total_changes - before

    def upsert_records(self, rows: list[tuple], source: str) -> tuple[int, int, int]:
        """Store the rows of a re-read ``source``: a record id it stored before is replaced when its
        content changed (the old row tombstoned for the derived indexes) and left alone when not; a
        record id stored from another source is never touched. An earlier record of ``source`` whose
        id is not emitted again but whose text is (the file was migrated to new ids) is replaced too:
        no text is lost. Returns (added, replaced, matched), ``matched`` counting the earlier records
        of ``source`` that the rows account for."""
        added = replaced = matched = 0
        cols = ", ".join(RECORD_COLUMNS)
        line_at = RECORD_COLUMNS.index("line")
        source_at = RECORD_COLUMNS.index("source_path")
        for row in rows:
            old = self.conn.execute(f"SELECT id, {cols} FROM records WHERE record_id = ?", (row[0],)).fetchone()
            if old is None:
                self.conn.execute(_INSERT_RECORD, row)
                added += 1
                continue
            rid, old_row = old[0], old[1:]
            if old_row[source_at] != source:
                continue  # another file's record (a resumed session copies its parent's lines)
            matched += 1
            if old_row == row:
                continue
            if old_row[:line_at] + old_row[line_at + 1:] == row[:line_at] + row[line_at + 1:]:
                self.conn.execute("UPDATE records SET line = ? WHERE id = ?", (row[line_at], rid))
                continue
            self.conn.execute("INSERT OR IGNORE INTO tombstones (id) VALUES (?)", (rid,))
            self.conn.execute("DELETE FROM records WHERE id = ?", (rid,))
            self.conn.execute(_INSERT_RECORD, row)
            replaced += 1
        if added:
            ids = {row[0] for row in rows}
            hash_at = RECORD_COLUMNS.index("content_hash")
            texts = {(row[5], row[hash_at]) for row in rows}  # (role, content hash)
            earlier = self.conn.execute(
                "SELECT id, record_id, role, content_hash FROM records WHERE source_path = ?", (source,)).fetchall()
            for rid, record_id, role, chash in earlier:
                if record_id not in ids and (role, chash) in texts:
                    self.conn.execute("INSERT OR IGNORE INTO tombstones (id) VALUES (?)", (rid,))
                    self.conn.execute("DELETE FROM records WHERE id = ?", (rid,))
                    replaced += 1
                    matched += 1
        return added, replaced, matched

    def upsert_session(self, s: dict) -> None:
        self.conn.execute(
            """INSERT INTO sessions (session_id, agent, project, cwd, title, started_at, updated_at, source_path,
                                     is_sidechain, parent_session_id, title_rank)
               VALUES (:session_id, :agent, :project, :cwd, :title, :started_at, :updated_at, :source_path,
                       :is_sidechain, :parent_session_id, :title_rank)
               ON CONFLICT(session_id) DO UPDATE SET
                 project = coalesce(excluded.project, project), cwd = coalesce(excluded.cwd, cwd),
                 title = CASE WHEN excluded.title IS NOT NULL AND excluded.title_rank >= coalesce(title_rank, 1)
                              THEN excluded.title ELSE title END,
                 title_rank = CASE WHEN excluded.title IS NOT NULL AND excluded.title_rank >= coalesce(title_rank, 1)
                                   THEN excluded.title_rank ELSE title_rank END,
                 started_at = CASE WHEN started_at IS NULL OR excluded.started_at < started_at
                                   THEN excluded.started_at ELSE started_at END,
                 updated_at = CASE WHEN updated_at IS NULL OR excluded.updated_at > updated_at
                                   THEN excluded.updated_at ELSE updated_at END,
                 is_sidechain = excluded.is_sidechain,
                 parent_session_id = coalesce(excluded.parent_session_id, parent_session_id)""",
            s,
        )

    def add_skipped(self, path: str, items: Iterable[tuple[int, str]], seen_at: str) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO skipped_lines (path, line, reason, seen_at) VALUES (?, ?, ?, ?)",
            [(path, line, reason, seen_at) for line, reason in items],
        )

    def add_unknown(self, path: str, agent: str, counts: dict[str, tuple[int, int]]) -> None:
        """Add ``entry type -> (count, example line)`` seen in ``path`` (kept per file: a re-read
        calls ``forget_unknown`` first)."""
        self.conn.executemany(
            "INSERT INTO unknown_entries (path, agent, entry_type, count, example_line) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(path, entry_type) DO UPDATE SET count = count + excluded.count",
            [(path, agent, t, n, line) for t, (n, line) in counts.items()])

    def forget_unknown(self, path: str) -> None:
        self.conn.execute("DELETE FROM unknown_entries WHERE path = ?", (path,))

    def add_leaf_titles(self, titles: dict[str, str], seen_at: str) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO leaf_titles (leaf_uuid, title, seen_at) VALUES (?, ?, ?)",
                              [(leaf, title, seen_at) for leaf, title in titles.items()])

    def apply_leaf_titles(self) -> int:
        """Title the sessions holding the leaf records of pending summaries; returns how many were
        applied (each is forgotten once its leaf is found; a title the person or the agent gave wins)."""
        done = 0
        for leaf, title in self.conn.execute("SELECT leaf_uuid, title FROM leaf_titles").fetchall():
            row = self.conn.execute("SELECT session_id FROM records WHERE record_id >= ? AND record_id < ? LIMIT 1",
                                    (leaf + "#", leaf + "$")).fetchone()
            if row is None:
                continue
            self.conn.execute("UPDATE sessions SET title = ?, title_rank = 1 WHERE session_id = ? "
                              "AND coalesce(title_rank, 1) <= 1", (title, row[0]))
            self.conn.execute("DELETE FROM leaf_titles WHERE leaf_uuid = ?", (leaf,))
            done += 1
        return done

    def add_redactions(self, counts: dict[str, int]) -> None:
        self.conn.executemany(
            "INSERT INTO redactions (kind, count) VALUES (?, ?) ON CONFLICT(kind) DO UPDATE SET count = count + excluded.count",
            list(counts.items()))

    def call_info(self, session_id: str, call_ids: list[str]) -> dict[str, tuple[str | None, bool]]:
        """``tool_call_id -> (tool_name, is_echo)`` of tool calls already stored for a session."""
        if not call_ids:
            return {}
        out = {}
        for i in range(0, len(call_ids), 500):
            chunk = call_ids[i:i + 500]
            q = ",".join("?" for _ in chunk)
            for cid, name, echo in self.conn.execute(
                f"SELECT tool_call_id, tool_name, is_echo FROM records WHERE tool_call_id IN ({q}) "
                f"AND session_id = ? AND tool_name IS NOT NULL", (*chunk, session_id)
            ):
                out[cid] = (name, bool(echo))
        return out

    # -- reads ---------------------------------------------------------------------------------
    def has_records(self) -> bool:
        return self.conn.execute("SELECT EXISTS (SELECT 1 FROM records)").fetchone()[0] == 1

    def records_after(self, last_id: int, batch: int = 5000) -> Iterator[list[sqlite3.Row]]:
        """Records with ``id > last_id`` in id order, in batches (for building derived indexes)."""
        cur = self.conn.execute(
            "SELECT id, agent, project, role, content_type, session_id, is_echo, timestamp, text, tool_name, author "
            "FROM records WHERE id > ? ORDER BY id", (last_id,)
        )
        while True:
            rows = cur.fetchmany(batch)
            if not rows:
                return
            yield rows

    def records_by_ids(self, ids: list[int], batch: int = 500) -> Iterator[list[sqlite3.Row]]:
        """The same columns as ``records_after`` for the given ids (repairing a derived index)."""
        for i in range(0, len(ids), batch):
            chunk = ids[i:i + batch]
            yield self.conn.execute(
                "SELECT id, agent, project, role, content_type, session_id, is_echo, timestamp, text, tool_name, author "
                f"FROM records WHERE id IN ({','.join('?' * len(chunk))}) ORDER BY id", chunk).fetchall()

    def id_summary(self, up_to: int | None = None) -> tuple[int, int]:
        """``(records, sum of their ids)``, optionally of ids up to ``up_to``: a cheap fingerprint."""
        n, total = self.conn.execute("SELECT count(*), coalesce(sum(id), 0) FROM records WHERE id <= ?",
                                     (up_to if up_to is not None else 2**62,)).fetchone()
        return n, total

    def max_record_id(self) -> int:
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]

    def tombstones(self) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM tombstones")]

    def clear_tombstones(self, ids: list[int]) -> None:
        self.conn.executemany("DELETE FROM tombstones WHERE id = ?", [(i,) for i in ids])

    def ids_with_role(self, ids: list[int], role: str) -> set[int]:
        out: set[int] = set()
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            out.update(r[0] for r in self.conn.execute(
                f"SELECT id FROM records WHERE role = ? AND id IN ({','.join('?' * len(chunk))})", (role, *chunk)))
        return out

    def _rows(self) -> sqlite3.Cursor:
        """A cursor yielding ``sqlite3.Row``s; the shared connection's own row factory is never touched."""
        cur = self.conn.cursor()
        cur.row_factory = sqlite3.Row
        return cur

    def fetch(self, ids: Iterable[int]) -> dict[int, sqlite3.Row]:
        ids = list(ids)
        out: dict[int, sqlite3.Row] = {}
        cur = self._rows()
        try:
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                q = ",".join("?" for _ in chunk)
                for row in cur.execute(f"SELECT * FROM records WHERE id IN ({q})", chunk):
                    out[row["id"]] = row
        finally:
            cur.close()
        return out

    def query(self, sql: str, params: tuple | dict = ()) -> list[sqlite3.Row]:
        cur = self._rows()
        try:
            return cur.execute(sql, params).fetchall()
        finally:
            cur.close()
