"""What ``status`` says of the places sessions are read from: a folder that holds files, an agent's default place
that ``[roots]`` leaves out, and the layouts this version does not read."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from backscroll.config import Config
from backscroll.ingest.agent_names import NOT_READ
from backscroll.ingest.sources import AGENTS, open_regular
from backscroll.sanitize import shorten


def has_files(path, limit: int = 2000, counts: Callable[[str, str], bool] | None = None) -> bool:
    """Whether a directory holds any regular file (looks at ``limit`` directories at most), or any file
    ``counts(folder, name)`` counts."""
    seen = 0
    for dirpath, _dirs, files in os.walk(path):
        if any(counts is None or counts(dirpath, name) for name in files):
            return True
        seen += 1
        if seen >= limit:
            return False
    return False


def read_in_vain(agent: str, root: Path, read: list[str]) -> bool:
    """Whether ``root`` holds files that should have given ``agent`` sessions: files its reader read (``read``, those
    under ``root``) that are not a database, or, in a root kept for sessions alone, a file it does not claim (a layout
    this version does not know). A database read may hold no session yet: agents make theirs when they start, and
    most readers report one whose tables they do not know as a file they could not read (Cursor's finds nothing in
    it). A root the agent shares with its settings and logs says nothing by them (``Agent.shares_root``)."""
    if any(not _sqlite(path) for path in read):
        return True
    reader = AGENTS[agent]
    return not reader.shares_root and has_files(root, counts=lambda folder, name: not reader.claims(
        Path(folder, _beside(name))))


def _beside(name: str) -> str:
    """The database a side file is of (its ``-wal``, ``-shm`` or ``-journal``, while its agent writes), or ``name``."""
    for side in ("-wal", "-shm", "-journal"):
        if name.endswith(side):
            return name[: -len(side)]
    return name


def _sqlite(path: str) -> bool:
    try:  # (a regular file only: a FIFO in its place held `status`, and an MCP server's every call, for good)
        with open_regular(Path(path)) as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def left_out(cfg: Config) -> list[str]:
    """An agent's default place that holds files though ``[roots]`` names others (a config older than the layout)."""
    named: dict[str, set[Path]] = {}
    for r in cfg.roots:
        if r.origin == "config" and r.agent:
            named.setdefault(r.agent, set()).add(r.path)
    out = []
    for name, paths in named.items():
        agent = AGENTS[name]
        found = agent.default_root(cfg.env)
        for path, _origin in found if isinstance(found, list) else [found]:
            if path in paths or not path.is_dir():
                continue
            # (where the agent keeps its settings and logs too, only what it would read is sessions)
            if next(iter(agent.discover(path)), None) is not None if agent.shares_root else has_files(path):
                out.append(f"{name}: {shorten(str(path))} holds sessions too, but [roots] {name} does not name it; "
                           "they are not indexed")
    return out


def unread_layouts(home: Path) -> list[str]:
    """A warning for each layout this version does not read that is there under ``home`` (``NOT_READ``): an agent it
    does not read, or a layout of one it does."""
    out = []
    said: set[str] = set()
    for name, pattern, what in NOT_READ:
        if what in said:
            continue
        found = next(home.glob(pattern), None)
        if found is not None:
            said.add(what)
            out.append(f"{name}: {shorten(str(found))} is one of the {what} this version does not read; "
                       "they are not indexed")
    return out
