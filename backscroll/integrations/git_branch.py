"""What a hook reads of the repository it runs in: the checked-out git branch, as words.

Only small regular files are read (``read_small``), never blocking: a hook holds one deadline.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

READ_MAX = 4096  # bytes read from a git file (HEAD, a worktree's .git pointer)
_MAIN_BRANCHES = frozenset({"main", "master", "trunk", "develop", "dev", "head", "default"})


def read_small(path: Path, limit: int = READ_MAX) -> str | None:
    """A regular file of at most ``limit`` bytes, as text; None for anything else (a FIFO, a device, a
    directory, a larger file, one that cannot be read). Never blocks: a FIFO is opened non-blocking and refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, limit + 1)
        return None if len(data) > limit else data.decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def branch_words(cwd: str | None) -> str | None:
    """The checked-out git branch of ``cwd`` as words (``fix/queue-deadlock`` -> ``fix queue deadlock``)."""
    if not cwd:
        return None
    d = Path(cwd)
    for p in (d, *d.parents):
        git = p / ".git"
        if git.is_file():  # a worktree: "gitdir: …"
            pointer = read_small(git)
            if pointer is None or ":" not in pointer:
                return None
            git = Path(pointer.split(":", 1)[1].strip())
        if git.is_dir():
            head = read_small(git / "HEAD")
            if head is None or not head.startswith("ref: refs/heads/"):
                return None
            name = head.strip()[len("ref: refs/heads/"):]
            if name.lower() in _MAIN_BRANCHES:
                return None
            words = [w for w in re.split(r"[^A-Za-z0-9]+", name) if w and not w.isdigit()]
            return " ".join(words) or None
    return None
