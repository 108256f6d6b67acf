"""What a read made in a data dir that held no store, taken away again when it found nothing to fill one with:
a mistyped ``--home`` is left as it was. Only the names backscroll itself makes there go, only those that were
not there before, and only while no other backscroll process writes there."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

# What opening a store makes in its data dir (``Config``, ``store.db``).
OURS = ("backscroll.db", "backscroll.db-wal", "backscroll.db-shm", "backscroll.db.migrate.lock", "verified", "index",
        "vectors", "write.lock")


def entries(where: Path) -> set[str] | None:
    """Our names already in a data dir (empty: there is no such dir yet); None when it cannot be read, which
    leaves everything as it is."""
    try:
        return {name for name in OURS if os.path.lexists(where / name)} if where.exists() else set()
    except OSError:
        return None


def made_from(where: Path) -> Path | None:
    """The outermost folder of ``where`` that does not exist yet (what opening a store there would make), or None."""
    if where.exists():
        return None
    top = where
    while not top.parent.exists() and top.parent != top:
        top = top.parent
    return top


def unmade(where: Path, before: set[str] | None, made: Path | None) -> None:
    """Take away our names made in ``where`` since ``entries`` said which were there, and the folders the call made
    (``made_from``) when they are empty again; nothing while another backscroll process holds the writer lock."""
    if before is None:
        return
    try:
        fd = os.open(where / "write.lock", os.O_RDONLY)
    except OSError:
        fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (another process at work here: leave it be)
        for name in OURS:
            path = where / name
            if name in before or not os.path.lexists(path):
                continue
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        folder = where
        while made is not None and folder.is_relative_to(made):
            folder.rmdir()  # (not empty: OSError, and the rest stays)
            folder = folder.parent
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)
