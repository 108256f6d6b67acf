"""What a read made when it was pointed at a data dir that did not exist, taken away again when it found nothing to
fill a store with: a mistyped ``--home`` is left as it was. Only a folder the call itself made goes (a folder that
was there before keeps the empty store, never a byte of its own), and never while another backscroll process
writes there."""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path


def made_from(where: Path) -> Path | None:
    """The outermost folder of ``where`` (an absolute, normalised path) that does not exist yet: what opening a store
    there makes. None when ``where`` exists."""
    if os.path.lexists(where):
        return None
    top = where
    while not os.path.lexists(top.parent) and top.parent != top:
        top = top.parent
    return top


def unmade(where: Path, made: Path | None) -> None:
    """Take away ``made`` (``made_from(where)``, before the call) with what the call put in it, unless another
    backscroll process holds the writer lock of ``where``."""
    if made is None or not where.is_relative_to(made):
        return
    lock = where / "write.lock"
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        fd = None
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino != os.stat(lock).st_ino:  # (another process made the lock anew meanwhile)
                return
        shutil.rmtree(made)
    except OSError:
        pass
    finally:
        if fd is not None:
            os.close(fd)
