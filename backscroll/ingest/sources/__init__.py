"""The registry of session formats. A new agent is one module here and one line in ``AGENTS``.

Each format module exposes an ``AGENT`` describing how to find its files and a pure
``parse_line(obj, line_no, session)`` that turns one decoded JSON line into records. This module
owns the shared types (``ParsedLine``, ``SourceUnit``, ``Agent``), safe file and database reads and
the registry; the shared text helpers live in ``common`` and are re-exported here.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

# The shared text helpers, re-exported: the formats import them from this package.
from backscroll.ingest.sources.common import as_dict as as_dict
from backscroll.ingest.sources.common import as_list as as_list
from backscroll.ingest.sources.common import as_str as as_str
from backscroll.ingest.sources.common import block_text as block_text
from backscroll.ingest.sources.common import call_text as call_text
from backscroll.ingest.sources.common import clean_text as clean_text
from backscroll.ingest.sources.common import decoded as decoded
from backscroll.ingest.sources.common import failed_exit as failed_exit
from backscroll.ingest.sources.common import first_of_each_id as first_of_each_id
from backscroll.ingest.sources.common import first_seen as first_seen
from backscroll.ingest.sources.common import index_beside as index_beside
from backscroll.ingest.sources.common import json_lines as json_lines
from backscroll.ingest.sources.common import json_object as json_object
from backscroll.ingest.sources.common import render_input as render_input
from backscroll.ingest.sources.common import time_of as time_of
from backscroll.ingest.sources.common import title_line as title_line
from backscroll.ingest.sources.databases import db_stat as db_stat
from backscroll.ingest.sources.databases import db_tables as db_tables
from backscroll.ingest.sources.databases import read_db_snapshot as read_db_snapshot
from backscroll.types import Record, SessionInfo


class LineError(ValueError):
    """A line that is valid JSON but not a record this format can read; it is skipped and counted."""


class ContentError(OSError):
    """A source whose content cannot be read as sessions (not JSON, too large): unlike a passing OS
    error (busy, permission) it is not read again until its size or mtime changes."""


@dataclass(frozen=True)
class ParsedLine:
    records: list[Record]
    # Fields of the session that this line sets (cwd, title, parent_session_id, ...).
    session_updates: dict
    # The entry type of a line the parser did not understand (records may still be empty).
    unknown: str | None = None


EMPTY = ParsedLine([], {})


@dataclass(frozen=True)
class SourceUnit:
    """Everything one session holds, read whole (for formats that rewrite their files).

    ``key`` identifies the unit's records in the store (the file path, or ``<db path>#<session id>``
    for a database holding many sessions): when a unit is read again its old records are replaced.
    ``records`` are in conversation order; ``skipped`` lists ``(line or item number, reason)``.
    ``subsessions`` gives the session of records that belong to another one than ``session`` (a
    subagent's turns, which a format interleaves with its parent's in one file), by record id: they
    stay the unit's records, so a re-read moves them there.
    """

    key: str
    session: SessionInfo
    records: list[Record]
    skipped: list[tuple[int, str]] = field(default_factory=list)
    # Entry types seen but not understood -> how many.
    unknown: dict[str, int] = field(default_factory=dict)
    subsessions: dict[str, SessionInfo] = field(default_factory=dict)


@dataclass(frozen=True)
class WholeRead:
    units: list[SourceUnit]
    state: dict  # what the agent wants back next time (e.g. a watermark), JSON-serialisable


def file_stat(path: str | Path) -> tuple[int, int]:
    """Size and mtime of a regular file (following a symlink); ``OSError`` for anything else (a FIFO,
    a device, a socket), which is never opened: reading one could block forever or never end."""
    st = os.stat(path)
    if not stat_module.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, f"not a regular file ({_kind(st.st_mode)})")
    return st.st_size, st.st_mtime_ns


def _kind(mode: int) -> str:
    for test, name in ((stat_module.S_ISFIFO, "a FIFO"), (stat_module.S_ISCHR, "a character device"),
                       (stat_module.S_ISBLK, "a block device"), (stat_module.S_ISSOCK, "a socket"),
                       (stat_module.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a file"


def open_regular(path: Path):
    """Open ``path`` for binary reading only if it is a regular file (checked on the open descriptor,
    so a file swapped for a FIFO after ``stat`` cannot block the open or the reads)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat_module.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"not a regular file ({_kind(mode)})")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them (``OSError`` when it is larger)."""
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise ContentError(errno.EFBIG, f"larger than {limit // (1024 * 1024)} MiB ({size} bytes); not read")
        return fh.read(size)


@dataclass(frozen=True)
class Agent:
    """A session format. Line-based formats give ``parse_line``; formats whose files are rewritten
    (or that live in a database) give ``read_whole`` instead, and may give ``stat`` when a change
    is not visible in the file's own size and mtime (a database's WAL)."""

    name: str
    # ``(path, origin)``, or a list of them for an agent that keeps sessions in several places
    default_root: Callable[[Mapping[str, str]], tuple[Path, str] | list[tuple[Path, str]]]
    claims: Callable[[Path], bool]
    session_for: Callable[[Path], SessionInfo]
    parse_line: Callable[[object, int, SessionInfo], ParsedLine] | None = None
    read_whole: Callable[[Path, dict], WholeRead] | None = None
    stat: Callable[[Path], tuple[int, int]] = file_stat
    # The names of this agent's tools that run a shell command (views mark their calls with ``$``).
    # Which stored calls ran one is kept per call at ingest (a ``Record.command``), not by name.
    shell_tools: frozenset[str] = frozenset()
    # Whether its root also holds the agent's settings, logs and caches, or other programs' files (``~/.qwen``, an
    # editor's storage): there only the files it claims tell of sessions.
    shares_root: bool = False

    def discover(self, root: Path, errors: list[OSError] | None = None,
                 known: Mapping[str, tuple[object, ...]] | None = None) -> Iterator[str | Path]:
        """Every file under ``root`` this agent claims, in a stable order; directories that cannot
        be listed are appended to ``errors``. A path ``known`` to be this agent's (path -> (agent, ...))
        is yielded as it is, a string: a history of thousands of files is not asked again, file by file."""
        return walk(self, root, errors, known)


def walk(agent: Agent, root: Path, errors: list[OSError] | None = None,
         known: Mapping[str, tuple[object, ...]] | None = None, dirs: list[str] | None = None) -> Iterator[str | Path]:
    """``Agent.discover``'s walk; the directories it lists are appended to ``dirs``."""
    known = known or {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
        dirnames.sort()
        if dirs is not None:
            dirs.append(dirpath)
        for name in sorted(filenames):
            # os.path.join, without its cost per file
            path = f"{dirpath}{name}" if dirpath.endswith(os.sep) else f"{dirpath}{os.sep}{name}"
            mark = known.get(path)
            if (mark is not None and mark[0] == agent.name) or agent.claims(Path(path)):
                yield path


def walks_files(agent: Agent) -> bool:
    """Whether ``agent`` keeps plain session files that ``Agent.discover`` walks to (not a database or a
    layout of its own): the files a sync can skip while their directory is unchanged."""
    return type(agent).discover is Agent.discover and agent.stat is file_stat


def _collect(errors: list[OSError] | None):
    return None if errors is None else errors.append


def home_root(env: Mapping[str, str], var: str, sub: str, default: str) -> tuple[Path, str]:
    """``$VAR/sub`` when the agent's own variable is set, else ``~/default``."""
    if env.get(var):
        return Path(os.path.expanduser(env[var])) / sub, f"env ${var}"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / default, "default"


def editor_user_dirs(env: Mapping[str, str], apps: tuple[str, ...]) -> list[Path]:
    """The ``User`` data dirs of VS Code-family editors (``Code``, ``Cursor``, ...) on this platform."""
    import sys

    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    elif sys.platform.startswith("win"):
        base = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        base = Path(os.path.expanduser(env["XDG_CONFIG_HOME"])) if env.get("XDG_CONFIG_HOME") else home / ".config"
    return [base / app / "User" for app in apps]


def with_stats(size: int, mtime: int, paths: Iterable[Path]) -> tuple[int, int]:
    """``(size, mtime)`` with the files of ``paths`` added (sizes summed, the newest mtime); files gone or
    unreadable count for nothing: a session kept in several files changes when any of them does."""
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        size, mtime = size + st.st_size, max(mtime, st.st_mtime_ns)
    return size, mtime


def _registry() -> dict[str, Agent]:
    from backscroll.ingest.sources import (
        aider,
        amp,
        auggie,
        claude,
        cline,
        codex,
        continuedev,
        copilot,
        crush,
        cursor,
        droid,
        gemini,
        goose,
        hermes,
        kilo,
        kimi,
        kiro,
        omp,
        openclaw,
        opencode,
        openhands,
        pi,
        qwen,
        vibe,
        zed,
    )

    return {a.name: a for a in (claude.AGENT, codex.AGENT, gemini.AGENT, opencode.AGENT, pi.AGENT,
                                cursor.AGENT, copilot.AGENT, cline.CLINE, cline.ROO, kilo.AGENT, aider.AGENT,
                                omp.AGENT, qwen.AGENT, kimi.AGENT,
                                amp.AGENT, goose.AGENT, droid.AGENT, crush.AGENT, zed.AGENT, openhands.AGENT,
                                hermes.AGENT, continuedev.AGENT, openclaw.AGENT,
                                vibe.AGENT, auggie.AGENT, kiro.AGENT)}


AGENTS: dict[str, Agent] = _registry()


def shell_tool_names() -> frozenset[str]:
    """Every registered agent's shell tool names (each source module declares its own)."""
    return frozenset().union(*(agent.shell_tools for agent in AGENTS.values()))
