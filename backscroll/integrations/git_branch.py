"""What a hook reads of the repository it runs in: the checked-out git branch, as words.

Only small regular files are read (``projects.read_small``), never blocking: a hook holds one deadline.
"""

from __future__ import annotations

import re
from pathlib import Path

from backscroll.ingest.projects import read_small

_MAIN_BRANCHES = frozenset({"main", "master", "trunk", "develop", "dev", "head", "default"})


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
