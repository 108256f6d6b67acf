"""The single-writer lock of a data dir (``flock`` on ``cfg.lock_path``): one process writes the store
and the indexes at a time; readers never take it for long."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

from backscroll.config import Config


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
