"""Agents' own SQLite databases, read beside their live writers: one read-only snapshot per read, nothing created
beside them, and the change a sync can see without opening one (its size and its WAL's)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path


def read_db_snapshot(path: Path, read: Callable, what: str, attempts: int = 3, timeout: float = 1.0,
                     pause: float = 0.1):
    """``read(conn)`` inside one read-only snapshot of the SQLite database at ``path``.

    Nothing is created beside a database no writer has open: a WAL database without ``-wal`` and ``-shm`` files
    there is opened with ``immutable=1``, which creates none; while a writer keeps its ``-wal`` there, and a
    database in rollback-journal mode (written in place, where WAL is not supported) always, it is opened with
    ``mode=ro`` and takes its locks (a writer holding the database alone is reported, and
    read on the next sync). A missing file is never created; undecodable bytes of a path are kept as
    they are. A busy database is retried ``attempts`` times, ``pause`` seconds apart and more each
    time. Failures become ``OSError`` naming ``what`` (the agent).
    """
    import sqlite3
    import time
    from urllib.parse import quote

    for attempt in range(attempts):
        conn = None
        if not path.is_file():
            raise OSError(f"{what} database missing: {path}")
        live = any(os.path.exists(f"{path}{side}") for side in ("-wal", "-shm", "-journal")) or not _wal(path)
        flags = "mode=ro" if live else "mode=ro&immutable=1"
        try:
            conn = sqlite3.connect(f"file:{quote(os.fsencode(path.as_posix()))}?{flags}", uri=True,
                                   timeout=timeout, isolation_level=None)
            conn.text_factory = lambda raw: raw.decode("utf-8", "replace")  # (one bad value costs only itself)
            conn.execute("BEGIN")  # one snapshot for every query, whatever the writer does meanwhile
            return read(conn)
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


def _wal(path: Path) -> bool:
    """Whether a SQLite database is in WAL mode (its header's read and write versions are 2)."""
    try:
        with open(path, "rb") as fh:  # (a regular file: checked before)
            header = fh.read(20)
    except OSError:
        return True
    return header[18:20] == b"\x02\x02"


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


