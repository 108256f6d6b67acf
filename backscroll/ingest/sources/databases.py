"""Agents' own SQLite databases, read beside their live writers: one read-only snapshot per read, nothing created
beside them, and the change a sync can see without opening one (its size and its WAL's)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path


def read_db_snapshot(path: Path, read: Callable, what: str, attempts: int = 3, timeout: float = 1.0,
                     pause: float = 0.1):
    """``read(conn)`` inside one read-only snapshot of the SQLite database at ``path``.

    Nothing is created beside a database no writer has open, and no writer waits for a read: without ``-wal`` and
    ``-shm`` files there (a database in rollback-journal mode, or a WAL one no writer has open) it is opened with
    ``immutable=1``, which creates none and takes no lock, and it is read again when a writer committed meanwhile
    (its header's change counter moved); while a writer keeps its ``-wal`` there it is opened with ``mode=ro`` and
    takes its locks (a writer holding the database alone is reported, and read on the next sync); a ``-wal`` no
    writer keeps (no ``-shm`` beside it) or one in a folder this process cannot write is read from a temporary
    copy in the data dir (``scratch_in``), since SQLite would make the ``-shm`` in the agent's folder, or fail. A
    missing file is never created; undecodable bytes of a path are kept as they are, and text that is not UTF-8 is
    read with U+FFFD. A busy database is retried ``attempts`` times, ``pause`` seconds apart and more each time.
    Failures become ``OSError`` naming ``what`` (the agent).
    """
    if path.is_file() and _left_wal(path):
        try:
            with _copied(path) as copy:
                return _read(copy, read, what, attempts, timeout, pause)
        except BlockingIOError:
            raise OSError(f"{what} database unreadable: database is locked") from None
    return _read(path, read, what, attempts, timeout, pause)


def _read(path: Path, read: Callable, what: str, attempts: int, timeout: float, pause: float):
    import sqlite3
    import time
    from urllib.parse import quote

    for attempt in range(attempts):
        conn = None
        if not path.is_file():
            raise OSError(f"{what} database missing: {path}")
        live = any(os.path.exists(f"{path}{side}") for side in ("-wal", "-shm"))
        flags = "mode=ro" if live else "mode=ro&immutable=1"
        try:
            before = None if live else _change_counter(path)
            conn = sqlite3.connect(f"file:{quote(os.fsencode(path.as_posix()))}?{flags}", uri=True,
                                   timeout=timeout, isolation_level=None)
            conn.text_factory = lambda raw: raw.decode("utf-8", "replace")  # (one bad value costs only itself)
            conn.execute("BEGIN")  # one snapshot for every query, whatever the writer does meanwhile
            result = read(conn)
            after = None if before is None else _change_counter(path)
            if after is not None and (after != before or after.endswith(b"j")):
                if attempt + 1 < attempts:  # (written while read without a lock: what was read may be torn)
                    time.sleep(pause * (attempt + 1))
                    continue
                raise sqlite3.OperationalError("written to while it was read")
            return result
        except sqlite3.OperationalError as exc:
            text = str(exc).lower()
            if ("locked" in text or "busy" in text) and attempt + 1 < attempts:
                time.sleep(pause * (attempt + 1))
                continue
            raise OSError(f"{what} database unreadable: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise OSError(f"not a readable {what} database: {exc}") from None
        finally:
            if conn is not None:
                conn.close()
    raise OSError(f"{what} database busy")  # pragma: no cover


def _left_wal(path: Path) -> bool:
    """A ``-wal`` that no writer has open (none keeps its ``-shm`` there: a copy, a backup, a writer killed before
    it made one) or in a folder this process cannot write: SQLite would make the ``-shm`` beside it, or fail."""
    return os.path.exists(f"{path}-wal") and (not os.path.exists(f"{path}-shm") or not os.access(path.parent,
                                                                                                   os.W_OK))


# Where a database is copied to be read: the data dir's ``scratch`` folder while a sync runs (``scratch_in``),
# never a shared temporary folder (the copy holds what the agent logged, secrets and all).
SCRATCH: ContextVar[Path | None] = ContextVar("backscroll_scratch", default=None)
_LEFT_AFTER_S = 3600  # a copy older than this was left by a run killed while reading it


@contextmanager
def scratch_in(data_dir: Path) -> Iterator[None]:
    """Copies of agents' databases go to ``data_dir/scratch`` while this lasts (made, owner-only, by the first)."""
    token = SCRATCH.set(data_dir / "scratch")
    try:
        yield
    finally:
        SCRATCH.reset(token)


def _scratch() -> Path | None:
    """The scratch folder, made owner-only, without the copies a run killed mid-read left there."""
    import shutil
    import time

    folder = SCRATCH.get()
    if folder is None:
        return None
    folder.mkdir(mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)  # (whatever the umask, or whoever made it)
    for left in folder.glob("backscroll-db-*"):
        try:
            if time.time() - left.stat().st_mtime > _LEFT_AFTER_S:
                shutil.rmtree(left, ignore_errors=True)
        except OSError:
            continue
    return folder


@contextmanager
def _copied(path: Path) -> Iterator[Path]:
    """The database and its ``-wal`` copied into a temporary folder of their own (removed after), to read there,
    under the shared lock a SQLite reader takes (``BlockingIOError``: a writer holds the database alone, as one in
    exclusive locking mode does, which keeps no ``-shm``)."""
    import fcntl
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory(prefix="backscroll-db-", dir=_scratch()) as folder, open(path, "rb") as db:
        fcntl.lockf(db, fcntl.LOCK_SH | fcntl.LOCK_NB, _SHARED_SIZE, _SHARED_FIRST)
        copy = Path(folder) / "copy.db"
        shutil.copyfile(path, copy)
        try:
            shutil.copyfile(f"{path}-wal", f"{copy}-wal")
        except FileNotFoundError:  # (checkpointed meanwhile: the database alone holds it all)
            pass
        yield copy


_SHARED_FIRST, _SHARED_SIZE = 0x40000002, 510  # the bytes SQLite's readers lock and a writer alone locks whole


def _change_counter(path: Path) -> bytes:
    """A SQLite database's file change counter (its header's bytes 24-27: a commit in rollback-journal mode moves it),
    and whether a write is under way (its ``-journal``)."""
    try:
        with open(path, "rb") as fh:  # (a regular file: checked before)
            header = fh.read(28)
    except OSError:
        return b""
    return header[24:28] + (b"j" if os.path.exists(f"{path}-journal") else b"")


def db_tables(conn) -> set[str]:
    """The names of the tables of an agent's database (read inside ``read_db_snapshot``)."""
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def db_stat(path: Path) -> tuple[int, int]:
    """Size and mtime of a SQLite database plus its ``-wal`` file (uncheckpointed commits count)."""
    st = os.stat(path)
    size, mtime = st.st_size, st.st_mtime_ns
    try:
        wal = os.stat(f"{path}-wal")
    except FileNotFoundError:
        return size, mtime
    if wal.st_size:  # an empty WAL is the one a read-only open leaves behind: it holds no change
        size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
    return size, mtime
