"""Owner-only, durable files for the derived indexes (the lexical index, the vector matrix), the half-written ones a
killed writer left, and which entries of an index folder are the index's own."""

from __future__ import annotations

import os
import re
import time
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


STALE_TEMP_S = 3600  # a temporary file this old belongs to a writer that was killed


def sweep_stale_temp_files(folder: Path) -> None:
    """Remove the half-written files (``.*.tmp*``) of a writer killed an hour or more ago."""
    if not folder.is_dir():
        return
    cutoff = time.time() - STALE_TEMP_S
    for p in folder.glob(".*.tmp*"):
        try:
            if p.stat().st_mtime < cutoff:
                p.unlink()
        except OSError:
            pass


_TANTIVY = re.compile(r"(?:[0-9a-f]{32}(?:\.\d+)?\.(?:idx|pos|term|store|fast|fieldnorm|del)|meta\.json|"
                      r"\.managed\.json|\.tantivy-(?:meta|writer)\.lock|\.CURRENT\.\d+\.tmp|backscroll-index\.json)")


def index_entry(path: Path, generation_prefix: str) -> bool:
    """Whether an entry of the lexical index's folder is the index's (a generation, a Tantivy file of the older
    layout, a rename's leftover), not something else a person keeps there."""
    return path.name.startswith(generation_prefix) if path.is_dir() else bool(_TANTIVY.fullmatch(path.name))
