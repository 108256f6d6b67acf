"""The record store's connection: opening (WAL, owner-only files), schema checks, migrations, transactions.

``Store`` is the open store. Its SQL on records and sessions lives in ``backscroll.store.queries``,
on source files in ``backscroll.store.files``, and its meta keys in ``backscroll.store.meta``
(mixed in here, so a caller holds one object). The derived stages (``vectors``, ``browse``, ``repeat``, ``status``)
query their own tables through ``Store.conn``. Search-time reads use the stdlib ``sqlite3``
module only; sqlite-utils is imported just to migrate.
"""

from __future__ import annotations

import math
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from backscroll.errors import (
    CORRUPT_HINT,
    CorruptStoreError,
    NewerSchemaError,
    NothingIndexedError,
    ReadOnlyStoreError,
)
from backscroll.store.echoes import EchoQueries
from backscroll.store.embeddings import EmbeddingQueries
from backscroll.store.evidence import EvidenceQueries
from backscroll.store.failures import store_failure
from backscroll.store.files import FileState, SourceQueries
from backscroll.store.lock import file_lock
from backscroll.store.meta import MetaKeys
from backscroll.store.outbox import OutboxQueries
from backscroll.store.queries import RECORD_COLUMNS, RecordQueries, content_hash
from backscroll.store.redaction import RedactionQueries
from backscroll.store.schema import schema_version
from backscroll.store.sessions import SessionQueries, folded_holds
from backscroll.store.shared_ids import SharedIds
from backscroll.store.status import StatusQueries
from backscroll.store.upgrade import failure_note, migrate_lock

__all__ = ["RECORD_COLUMNS", "FileState", "Store", "content_hash"]


def _file_state(db: Path) -> str:
    """The store's files as they stand: size and modification time of the database, and of its WAL when
    that holds anything (opening the store creates an empty one); and the lexical index beside it (its
    current generation and that generation's commit file), which every writer keeps in step with it."""
    index = db.parent / "index"
    try:
        generation = (index / "CURRENT").read_text().strip()
    except OSError:
        generation = ""
    parts = [generation]
    for path in (db, db.with_name(db.name + "-wal"), index / generation / "meta.json"):
        try:
            st = path.stat()
            parts.append(f"{st.st_size}:{st.st_mtime_ns}" if st.st_size else "-")
        except OSError:
            parts.append("-")
    return " ".join(parts)


def stamp_path(db: Path) -> Path:
    return db.with_name("verified")


def vouched(db: Path) -> bool:
    """Whether the store at ``db`` and its lexical index are as the last integrity check, or a writer that
    found them checked, left them: an ``index`` with nothing new then skips the integrity check and the
    index's count of the store's records (each reads the whole store)."""
    try:
        return stamp_path(db).read_text() == _file_state(db)
    except OSError:
        return False


def vouch(db: Path) -> None:
    """Say that the store as it now stands is sound (checked, or found so and then written by us)."""
    stamp = stamp_path(db)
    tmp = stamp.with_name(stamp.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(_file_state(db))
        os.replace(tmp, stamp)
    except OSError:
        pass  # the next index checks again


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


def _newer_schema(path: Path, version: int, current: int) -> NewerSchemaError:
    return NewerSchemaError(
        f"the store {path} was written by a newer backscroll (schema {version}, this one reads {current})",
        hint="upgrade backscroll (`git pull` in its checkout; README, \"Install\"); the store was left untouched")



BUSY_SECONDS = 30.0  # how long a statement waits for another process's write to finish

class Store(MetaKeys, SourceQueries, RecordQueries, SharedIds, EvidenceQueries, EchoQueries, EmbeddingQueries,
            SessionQueries, StatusQueries, OutboxQueries, RedactionQueries):
    """An open record store. Use ``Store.open`` (creates and migrates) or ``Store.open_existing``."""

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path = path
        self.conn = conn
        self.readonly = False  # opened by ``open_readonly``: nothing may be written
        self.full = False  # ... because the disk is full (for a while: a handle opens it again when asked next)
        self.index_copy: str | None = None  # a read-only index's copy searched instead (``access``): goes with it
        self.sound = False  # checked, or found as a check left it: vouch for it again when closed
        conn.create_function("folded_holds", 2, folded_holds, deterministic=True)  # (``list --grep``)

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
                                           hint="search, show, list and status still read it") if path.exists() \
                    else ReadOnlyStoreError(f"no store can be made in {path.parent} ({exc})", reason="cannot-create",
                                            hint="point $BACKSCROLL_HOME at a folder you can write")
            if known is None:
                raise
            raise known from None
        current = schema_version()
        if version < current:
            with file_lock(migrate_lock(path), wait=math.inf):
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version < current:
                    from backscroll.store.schema import migrate

                    migrate(conn)
                    version = current
                    failure_note(path).unlink(missing_ok=True)  # (one a hook's upgrade left: it is done now)
        if version > current:
            conn.close()
            raise _newer_schema(path, version, current)
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
        """Open a store for reading only (a backup on read-only media, a hook that must not write):
        ``mode=ro``, or ``immutable=1`` when even the WAL index (``-shm``) cannot be created. The one
        write it may make: an older store whose file can be written is upgraded first (``open``)."""
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
                said = str(exc).lower()  # (a -shm it may not create: its directory read-only, or a full disk)
                cannot_side = any(w in said for w in ("unable to open", "disk i/o error", "readonly database"))
                if not cannot_side or flags == "immutable=1":  # no -shm can be made (read-only, full): immutable
                    raise store_failure(exc, path) or exc from None
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise store_failure(exc, path) or CorruptStoreError(
                    f"the store {path} cannot be read: {exc}", hint=CORRUPT_HINT.format(db=path)) from None
        current = schema_version()
        if version > current:
            conn.close()
            raise _newer_schema(path, version, current)
        if version < current and all(os.access(p, os.W_OK) for p in (path, path.parent)):
            # An older store that may be written (the first search hook or MCP call after an upgrade):
            # upgrade it once, as any writable open would, then read it as asked.
            conn.close()
            cls.open(path).close()
            return cls.open_readonly(path)
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
        conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_SECONDS * 1000)}")
        # Switching to WAL needs a moment alone with the file and does not wait on the busy handler.
        for _attempt in range(200):
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
        if self.index_copy:
            shutil.rmtree(self.index_copy, ignore_errors=True)
        if self.sound and not self.readonly:
            vouch(self.path)  # (after the close: its checkpoint changes the files)

    def vouched(self) -> bool:
        """Whether the store's files are as a check, or a writer that found them checked, left them."""
        return vouched(self.path)

    # -- transactions ------------------------------------------------------------------------
    def begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One snapshot for several reads (a matrix written without the writer lock sees one state of the
        store); inside a transaction already, that transaction's."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("COMMIT")

    def rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def journal_in_memory(self) -> None:
        """Savepoints' journal in memory, not a temporary file."""
        self.conn.execute("PRAGMA temp_store = MEMORY")

    def savepoint(self, name: str = "source_file") -> None:
        """Mark a point (one source file's work) that ``undo_savepoint`` rolls back to, alone."""
        self.conn.execute(f"SAVEPOINT {name}")

    def release(self, name: str = "source_file") -> None:
        self.conn.execute(f"RELEASE {name}")

    def undo_savepoint(self, name: str = "source_file") -> None:
        self.conn.execute(f"ROLLBACK TO {name}")
        self.conn.execute(f"RELEASE {name}")

