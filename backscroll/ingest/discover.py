"""Finding the session files to read, and remembering the sources that could not be read.

Every configured root is walked by the agents that may own it; a file whose size and mtime are
unchanged costs one ``stat``. Unreadable files and directories are kept in ``source_issues`` (shown
by ``status``); a file whose content could not be read is not read again until its size or mtime
changes, and the diagnostics of files that are gone are forgotten.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from backscroll.ingest.parse_version import PARSE_VERSION
from backscroll.ingest.report import IndexReport
from backscroll.ingest.rows import on_disk, store_text
from backscroll.ingest.sources import AGENTS, Agent, file_stat, walk, walks_files
from backscroll.store.db import Store
from backscroll.store.files import FileMark
from backscroll.types import SourceRoot

# ``path -> (kind, reason, size, mtime_ns)``, as ``Store.source_issues`` gives it.
Issues = dict[str, tuple[str, str, int | None, int | None]]


@dataclass
class Scan:
    """What one look at the sources found."""

    changed: list[tuple[Agent, Path, str, int, int]] = field(default_factory=list)  # agent, path, key, size, mtime
    failed: list[tuple[str, str, int | None, int | None]] = field(default_factory=list)  # unreadable, to remember
    bad_dirs: dict[str, str] = field(default_factory=dict)  # directories that cannot be listed -> why
    present: set[str] = field(default_factory=set)  # keys of every file found
    complete: bool = True  # every file was looked at (a quick sync looks at some): what is gone can be told


def discover(roots: Iterable[SourceRoot], errors: list[OSError] | None = None,
             known: Mapping[str, tuple[object, ...]] | None = None,
             walked: dict[str, list[str]] | None = None) -> list[tuple[Agent, str | Path]]:
    """Every session file under the configured roots, each claimed by one agent, without repeats.
    Directories that cannot be listed are appended to ``errors``; files ``known`` to an agent (path ->
    (agent, ...)) are taken as its own without asking it again. ``walked`` gets, per root of one agent that
    keeps plain files, the directories listed (``quick`` lists only the changed ones next time)."""
    seen: set[str] = set()
    found: list[tuple[Agent, str | Path]] = []
    for root in roots:
        agents = [AGENTS[root.agent]] if root.agent else list(AGENTS.values())
        if root.path.is_file():  # a single session file given as a source
            agent = next((a for a in agents if a.claims(root.path)), None)
            if agent is not None and str(root.path) not in seen:
                seen.add(str(root.path))
                found.append((agent, root.path))
            continue
        if not root.path.is_dir():
            continue
        for agent in agents:
            dirs = walked.setdefault(store_text(str(root.path)), []) \
                if walked is not None and root.agent and walks_files(agent) else None
            paths = walk(agent, root.path, errors, known, dirs) if dirs is not None \
                else agent.discover(root.path, errors, known)
            for path in paths:
                key = os.fspath(path)
                if key not in seen:
                    seen.add(key)
                    found.append((agent, path))
    return found


def reason(exc: BaseException) -> str:
    """Why a source could not be read, in a few words."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return f"unexpected {type(exc).__name__}: {exc}"


def scan(roots: Iterable[SourceRoot], marks: dict[str, FileMark], issues: Issues,
         report: IndexReport, walked: dict[str, list[str]] | None = None) -> Scan:
    """The files to read (new or changed since their checkpoint, or read by an older parser), and what could not be
    looked at. A file whose agent, size and mtime are as last read costs one ``stat``."""
    out = Scan()
    for root in roots:
        if root.origin == "flag" and not root.path.exists():
            report.unreadable.append((store_text(str(root.path)), "no such file or directory (given with --source)"))
    dir_errors: list[OSError] = []
    for agent, path in discover(roots, dir_errors, marks, walked):
        look(agent, path, store_text(os.fspath(path)), marks, issues, out, report)
    for error in dir_errors:
        out.bad_dirs.setdefault(store_text(str(error.filename)), reason(error))
    for key, why in out.bad_dirs.items():
        report.unreadable.append((key, f"directory cannot be listed: {why}"))
    return out


PASSED_OVER_DIRS = 10_000  # folders of a --source looked through for the note on transcripts it did not read
_NOT_SESSIONS = frozenset({".git", "node_modules"})


def passed_over(root: Path, agent: str, read: set[str]) -> str | None:
    """The note for JSON-lines transcripts under a ``--source`` folder its agent did not claim, when it claimed
    some there (``read``: the stored keys of the files found): a session file renamed by hand is not taken for one,
    and the person who gave the folder should hear of it. Run by a full index only (a walk of the folder)."""
    kinds, left, example = set(), 0, ""
    for folder, dirs, files in itertools.islice(os.walk(root), PASSED_OVER_DIRS):
        dirs[:] = [d for d in dirs if d not in _NOT_SESSIONS]
        for name in files:
            if store_text(os.path.join(folder, name)) in read:
                kinds.add(os.path.splitext(name)[1])
            elif name.endswith(".jsonl"):
                left, example = left + 1, example or name
    if not left or ".jsonl" not in kinds:
        return None
    return (f"{left:,} .jsonl file{'s' if left != 1 else ''} not read, named otherwise than {agent} names its "
            f"session files (e.g. {example})")


def look(agent: Agent, path: str | Path, key: str, marks: Mapping[str, FileMark], issues: Issues,
         out: Scan, report: IndexReport) -> None:
    """One file: ``stat`` it and add it to ``out.changed`` unless it is as last read by this parser (or remembered
    unreadable at this size and mtime)."""
    report.files_seen += 1
    out.present.add(key)
    try:  # the plain stat takes the path as found; an agent's own (a database, a folder) a Path
        size, mtime_ns = file_stat(path) if agent.stat is file_stat else agent.stat(Path(path))
    except OSError as exc:
        report.unreadable.append((key, reason(exc)))
        out.failed.append((key, reason(exc), None, None))
        return
    prev = marks.get(key)
    if prev is not None and prev[1] == size and prev[2] == mtime_ns and prev[3] >= PARSE_VERSION:
        return
    issue = issues.get(key)
    if issue is not None and issue[0] == "unreadable" and issue[2:] == (size, mtime_ns):
        report.unreadable.append((key, issue[1]))  # remembered: not read again until it changes
        return
    out.changed.append((agent, Path(path), key, size, mtime_ns))


def file_gone(key: str) -> bool:
    """Whether the file behind a stored path (or ``<db>#<session>`` unit key) no longer exists."""
    return not on_disk(key) and not ("#" in key and on_disk(key.rsplit("#", 1)[0]))


def _note_issue(store: Store, issues: Issues, key: str, kind: str, why: str, now: str,
                size: int | None = None, mtime_ns: int | None = None) -> None:
    """Keep an unreadable source in ``source_issues`` (written only when something changed)."""
    old = issues.get(key)
    if old is None or old[:4] != (kind, why, size, mtime_ns):
        store.set_source_issue(key, kind, why, now, size, mtime_ns)
        issues[key] = (kind, why, size, mtime_ns)


def remember_issues(store: Store, found: Scan, issues: Issues, now: str) -> None:
    """What is kept about unreadable sources, and diagnostics of files that are gone."""
    for key, why, size, mtime_ns in found.failed:
        _note_issue(store, issues, key, "unreadable", why, now, size, mtime_ns)
    for key, why in found.bad_dirs.items():
        _note_issue(store, issues, key, "directory", why, now)
    if not found.complete:  # a quick sync did not look everywhere: what it did not see may still be there
        return
    for key, issue in list(issues.items()):
        if issue[0] == "directory" and key not in found.bad_dirs:
            store.forget_diagnostics(key)
    for key in store.diagnosed_paths() - found.present - set(found.bad_dirs):
        if file_gone(key):
            store.forget_diagnostics(key)
