"""The sync before every search, flat in the history's size: what changed since the last look, without
looking at every file.

A directory's mtime changes when an entry is added, removed or renamed in it, so a directory whose mtime
is as last listed holds the same files: only changed directories are listed again (a new session is
found at once). Appends do not touch the directory, so the newest files written in the last day are
looked at on every call (the sessions agents are writing), and so are those ``backscroll resume`` went
back into in the last day; ``ROTATE`` others in turn (an old session resumed otherwise is read within
files / ROTATE calls), and the files that could not be read last time. A file that
is gone is not a failure (agents prune their logs; the store keeps the records). The agents that keep
their sessions in a database or a layout of their own are looked at whole, as ``discover.scan`` does, and
a directory whose name is not UTF-8 is listed by ``index`` only (the files it found there are looked at as
others are: ``rows.disk_path``). ``index`` walks everything (``scan``) and
remembers every directory; a directory that changed while it was walked is listed again next time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from backscroll.ingest.discover import Issues, Scan, look, passed_over, reason, scan
from backscroll.ingest.report import IndexReport
from backscroll.ingest.rows import disk_path, store_text
from backscroll.ingest.sources import AGENTS, Agent, walks_files
from backscroll.store.db import Store
from backscroll.store.files import FileMark
from backscroll.types import SourceRoot

RACY_NS = 2_000_000_000  # a directory changed this close to its listing is listed again next time
HOT_NS = 24 * 3600 * 10**9  # files written this recently are looked at on every sync,
HOT_LIMIT = 256  # the newest this many of them (a history copied in today is all recent)
ROTATE = 256  # other known files looked at per sync, in turn
CURSOR_KEY = "quick_sync_cursor"


@dataclass
class Dirs:
    """What a sync learnt about one root's directories: mtimes to remember, and directories gone."""

    root: str
    seen: dict[str, int] = field(default_factory=dict)
    gone: list[str] = field(default_factory=list)


@dataclass
class Look:
    """One sync's look at the sources: the files to read, the marks it read, what it learnt about directories,
    and where the next quick sync's turn through the known files starts (None: unchanged)."""

    found: Scan
    marks: dict[str, FileMark]
    dirs: list[Dirs]
    cursor: str | None = None

    def remember(self, store: Store) -> None:
        """Keep what was learnt (inside the sync's transaction)."""
        for learnt in self.dirs:
            store.save_source_dirs(learnt.root, learnt.seen, learnt.gone)
        if self.cursor is not None:
            store.set_meta(CURSOR_KEY, self.cursor)


def dir_mtimes(paths: Iterable[str], since_ns: int) -> dict[str, int]:
    """Each listed directory's mtime, or -1 (list it again) when it changed after ``since_ns`` (while
    or just before it was listed)."""
    out: dict[str, int] = {}
    for d in paths:
        if store_text(d) != d:  # a name that is not UTF-8 cannot be stat'ed from its stored form: index reads it
            continue
        try:
            mtime = os.stat(d).st_mtime_ns
        except OSError:
            continue
        out[d] = -1 if mtime > since_ns - RACY_NS else mtime
    return out


def full_scan(store: Store, roots: list[SourceRoot], issues: Issues, report: IndexReport) -> Look:
    """``scan`` of everything, and every walked directory's mtime (what the next quick sync starts from)."""
    started = time.time_ns()
    marks = store.file_marks()
    walked: dict[str, list[str]] = {}
    found = scan(roots, marks, issues, report, walked)
    for root in roots:  # (a folder given by hand holds what its owner takes for sessions: say what was left)
        if root.origin == "flag" and root.agent and root.path.is_dir():
            note = passed_over(root.path, root.agent, found.present)
            if note:
                report.notices.append((store_text(str(root.path)), note))
    return Look(found, marks, [_changes(store, root, dir_mtimes(paths, started)) for root, paths in walked.items()])


def _changes(store: Store, root: str, now: dict[str, int]) -> Dirs:
    """What differs from the directories remembered under ``root`` (a walk that found nothing new writes nothing)."""
    before = store.source_dirs(root)
    return Dirs(root, {d: m for d, m in now.items() if before.get(d) != m}, [d for d in before if d not in now])


def quick_scan(store: Store, roots: list[SourceRoot], issues: Issues, report: IndexReport) -> Look:
    """The files that changed, looking at changed directories, recent files and a few others in turn;
    with the marks it read and what it learnt about directories. A root never walked is walked whole, as
    are single files, roots every agent may own and the agents that keep a database or a layout of their
    own (a few files)."""
    started = time.time_ns()
    out = Scan(complete=False)
    marks: dict[str, FileMark] = {}
    dirs: list[Dirs] = []
    whole: list[SourceRoot] = []
    walkers: list[tuple[SourceRoot, Agent]] = []
    known: dict[str, dict[str, int]] = {}  # root -> its directories' mtimes, for the roots walked before
    for root in roots:
        key = store_text(str(root.path))
        agent = AGENTS[root.agent] if root.agent else None
        if agent is not None and walks_files(agent) and root.path.is_dir():
            known[key] = store.source_dirs(key)
        if agent is None or not known.get(key):
            whole.append(root)
        else:
            walkers.append((root, agent))
    if whole:
        for root in whole:
            path = store_text(str(root.path))
            marks.update(store.file_marks_under(path) if root.path.is_dir() else store.marks_of([path]))
        walked: dict[str, list[str]] = {}
        _merge(out, scan(whole, marks, issues, report, walked))
        dirs.extend(_changes(store, r, dir_mtimes(p, started)) for r, p in walked.items())
    bad_before = set(out.bad_dirs)
    for root, agent in walkers:
        key = store_text(str(root.path))
        known_dirs = known[key]
        learnt = Dirs(key)
        candidates: list[str] = []
        for d, mtime in known_dirs.items():
            try:
                now = os.stat(d).st_mtime_ns
            except FileNotFoundError:
                learnt.gone.append(d)
                continue
            except OSError as exc:
                out.bad_dirs.setdefault(d, reason(exc))
                continue
            if now != mtime:
                _relist(d, now, started, known_dirs, learnt, candidates, out)
        dirs.append(learnt)
        for d in learnt.seen:
            marks.update(store.file_marks_under(d))
        for path in sorted(candidates):
            name = store_text(path)
            mark = marks.get(name)
            if (mark is not None and mark[0] == agent.name) or agent.claims(Path(path)):
                look(agent, path, name, marks, issues, out, report)
    for key in set(out.bad_dirs) - bad_before:
        report.unreadable.append((key, f"directory cannot be listed: {out.bad_dirs[key]}"))
    cursor = _recent_and_in_turn(store, walkers, marks, out, report, issues)
    return Look(out, marks, dirs, cursor)


def _merge(into: Scan, found: Scan) -> None:
    into.changed.extend(found.changed)
    into.failed.extend(found.failed)
    into.bad_dirs.update(found.bad_dirs)
    into.present |= found.present


def _relist(d: str, mtime: int, started: int, known_dirs: dict[str, int], learnt: Dirs, candidates: list[str],
            out: Scan) -> None:
    """List a changed directory: its files become candidates, new subdirectories are listed too."""
    stack = [(d, mtime)]
    while stack:
        path, mt = stack.pop()
        if store_text(path) != path:  # not UTF-8: read by index only (see dir_mtimes)
            continue
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError as exc:
            out.bad_dirs.setdefault(path, reason(exc))
            learnt.seen[path] = -1  # listed again next time
            continue
        learnt.seen[path] = -1 if mt > started - RACY_NS else mt
        for entry in entries:  # as os.walk sorts them: a link to a directory is not followed, anything else is a file
            try:
                if not entry.is_dir():
                    candidates.append(entry.path)
                elif not entry.is_symlink() and entry.path not in known_dirs:
                    stack.append((entry.path, entry.stat(follow_symlinks=False).st_mtime_ns))
            except OSError:
                continue


def _recent_and_in_turn(store: Store, walkers: list[tuple[SourceRoot, Agent]], marks: dict[str, FileMark],
                        out: Scan, report: IndexReport, issues: Issues) -> str | None:
    """Look at the known files written in the last day, and the next ``ROTATE`` others after the cursor;
    returns where the next turn starts."""
    if not walkers:
        return None
    owners = {a.name: a for _root, a in walkers}
    prefixes = tuple(store_text(str(root.path)).rstrip(os.sep) + os.sep for root, _a in walkers)
    recent = store.recent_marks(time.time_ns() - HOT_NS, HOT_LIMIT)
    cursor = store.get_meta(CURSOR_KEY) or ""
    turn = store.marks_after(cursor, ROTATE)
    if len(turn) < ROTATE:  # wrap around
        turn += store.marks_after("", ROTATE - len(turn))
    rows: dict[str, FileMark | None] = {**{p: (a, size, mtime, v) for p, a, size, mtime, v in turn}, **recent}
    resumed = [p for p in store.resumed_files(time.time_ns() - HOT_NS) if p not in rows]  # (written again now)
    rows.update(store.marks_of(resumed))
    failed = [k for k, issue in issues.items() if issue[0] == "unreadable" and k.startswith(prefixes)]
    rows.update((k, marks.get(k) or store.marks_of([k]).get(k)) for k in failed if k not in rows)
    for key, mark in sorted(rows.items()):
        path = disk_path(key)  # (a path that is not UTF-8 is stored escaped)
        if key in out.present or not key.startswith(prefixes) or not os.path.lexists(path):
            continue  # a file gone (agents prune their logs) is not a failure: its records stay
        root_agent = next(a for (root, a), prefix in zip(walkers, prefixes, strict=True) if key.startswith(prefix))
        agent = owners.get(mark[0]) if mark is not None else (root_agent if root_agent.claims(Path(key)) else None)
        if agent is None:
            continue
        if mark is not None:
            marks[key] = mark
        look(agent, path, key, marks, issues, out, report)
    return turn[-1][0] if turn else None
