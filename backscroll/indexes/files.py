"""Owner-only, durable files for the derived indexes (the lexical index, the vector matrix)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def private_files() -> Iterator[None]:
    """Create files owner-only (0600, directories 0700) inside the block, whatever the umask."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def fsync_dir(path: Path) -> None:
    """Make a rename inside ``path`` durable (best effort: a directory that cannot be opened is skipped)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
