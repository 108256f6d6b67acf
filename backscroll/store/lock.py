"""The single-writer lock of a data dir (``flock`` on its lock file, ``Config.lock_path``): one process writes the
store and the indexes at a time; readers never take it for long."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from backscroll.errors import UsageError


class HasLock(Protocol):
    """What names a data dir's lock file (a ``Config``)."""

    @property
    def lock_path(self) -> Path: ...


INDEX_LOCK_WAIT = 10.0  # seconds a writer waits for another one; $BACKSCROLL_LOCK_WAIT overrides


def lock_wait(wait: float | None, env: Mapping[str, str] = os.environ) -> float:
    """``wait`` when given, else ``$BACKSCROLL_LOCK_WAIT`` seconds (of ``env``: the one a config was resolved in),
    else ``INDEX_LOCK_WAIT``."""
    if wait is not None:
        if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not 0 <= wait < float("inf"):
            raise UsageError(f"wait must be a number of seconds, not {wait!r}", hint="e.g. wait=30")
        return wait
    raw = env.get("BACKSCROLL_LOCK_WAIT", "").strip()
    if not raw:
        return INDEX_LOCK_WAIT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise UsageError(f"$BACKSCROLL_LOCK_WAIT must be a number of seconds, not {raw!r}",
                         hint="unset it for the default of 10 seconds")
    return value


@contextmanager
def writer_lock(cfg: HasLock, wait: float = 0.0, waiting: Callable[[], None] | None = None) -> Iterator[bool]:
    """Hold the single-writer lock of ``cfg``'s data dir; yields False when another process holds it past
    ``wait`` seconds (``waiting`` is called once when it starts to wait)."""
    with file_lock(cfg.lock_path, wait, waiting) as held:
        yield held


@contextmanager
def file_lock(path: Path, wait: float = 0.0, waiting: Callable[[], None] | None = None) -> Iterator[bool]:
    """Hold an exclusive lock on the file at ``path`` (created owner-only); yields False when another process
    holds it past ``wait`` seconds (``waiting`` is called once when it starts to wait)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
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
                if waiting is not None:
                    waiting()
                    waiting = None
                time.sleep(0.05)
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def writer_busy(cfg: HasLock) -> bool:
    """Whether a backscroll process holds the writer lock now (an index or a sync is running)."""
    return lock_held(cfg.lock_path)


def lock_held(path: Path) -> bool:
    """Whether a process holds the lock file at ``path`` now. Creates nothing (no file: no holder ever ran here),
    and asks for a shared lock only: it never keeps out another holder."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
