"""OpenCode sessions: the SQLite database ``opencode.db`` (v1.2+) and the older ``storage/`` JSON tree.

This module owns finding OpenCode's data dir (``$OPENCODE_DATA_DIR``, else ``$XDG_DATA_HOME/opencode``,
else ``~/.local/share/opencode``), claiming its session sources, and reading them whole into one
unit per session (the records are made by ``opencode_records``). Both generations hold the same
shapes: a session, its messages (role, times, model, ``path.cwd``) and their parts, where the content
lives:

- **Database**: tables ``session``, ``message(data JSON)`` and ``part(data JSON)``, written live by
  OpenCode in WAL mode. It is opened read-only with a busy timeout, read in one snapshot, and read
  incrementally: the file state keeps each session's ``time_updated`` and the highest ``message`` and
  ``part`` rowids seen, so a sync re-reads only sessions that were touched or gained messages or
  parts. Each session is a unit keyed ``<db path>#<session id>``. ``stat`` adds the ``-wal`` file, so
  commits that have not been checkpointed into the main file are noticed.
- **Older storage**: ``storage/session/<projectID>/<sessionID>.json`` is the claimed file; its messages
  (``storage/message/<sessionID>/*.json``) and their parts (``storage/part/<messageID>/*.json``) are
  read with it, and ``stat`` covers all of them.

Records, per part in message then part order: ``text`` parts become user or assistant text (not the
``synthetic`` or ``ignored`` ones OpenCode adds itself; the summary an assistant writes when the
conversation is compacted is a ``summary``); ``tool`` parts become a call (the ``bash`` command as written, other
tools as name plus input) and, when there is output or an error, a result; ``reasoning`` parts become
reasoning records. Step, snapshot,
patch (only a hash and file names; the edits are already in the tool calls), file, agent, subtask,
retry and compaction parts are not records. Record ids are ``<session>:<part>#0`` for a text or call
and ``#1`` for a result, so a session copied from the older storage into the database is stored once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from backscroll.ingest.sources import (
    Agent,
    ContentError,
    WholeRead,
    _collect,
    db_stat,
    file_stat,
    home_root,
    read_db_snapshot,
    read_regular,
)
from backscroll.ingest.sources.opencode_db import read_snapshot
from backscroll.ingest.sources.opencode_records import SHELL_TOOLS, _decode, _Message, _Part, _str, _title, _unit
from backscroll.types import SessionInfo

# ``opencode.db``; other release channels write ``opencode-<channel>.db`` beside it.
_DB_NAME = re.compile(r"^opencode(-[A-Za-z0-9._-]+)?\.db$")
# A live writer can hold the database briefly: wait this long per attempt, this many attempts.
BUSY_TIMEOUT = 1.0
BUSY_ATTEMPTS = 3
BUSY_PAUSE = 0.1
MAX_JSON_BYTES = 256 * 1024 * 1024  # one file of the older storage tree, read whole


def default_root(env):
    if env.get("OPENCODE_DATA_DIR"):
        return Path(os.path.expanduser(env["OPENCODE_DATA_DIR"])), "env $OPENCODE_DATA_DIR"
    return home_root(env, "XDG_DATA_HOME", "opencode", ".local/share/opencode")


def _is_db(path: Path) -> bool:
    return bool(_DB_NAME.match(path.name)) and not in_kilo(path.parent)


def in_kilo(data_dir: Path) -> bool:
    """Kilo Code 7's data dir (named ``kilo`` wherever it is), whose OpenCode-named files are Kilo's."""
    return data_dir.name == "kilo"


def is_session_file(path: Path) -> bool:
    """``storage/session/<projectID>/<sessionID>.json`` (not message, part or other storage files)."""
    up = path.parent.parent
    return path.suffix == ".json" and up.name == "session" and up.parent.name == "storage"


def _is_own_session_file(path: Path) -> bool:
    return is_session_file(path) and not in_kilo(path.parents[3])


def claims(path: Path) -> bool:
    return _is_db(path) or _is_own_session_file(path)


def session_for(path: Path) -> SessionInfo:
    # A database holds many sessions; read_whole names each of them.
    return SessionInfo(path.stem if is_session_file(path) else path.name, "opencode")


# -- stat --------------------------------------------------------------------------------------

def _scan(directory: Path) -> Iterator[os.DirEntry]:
    """The ``*.json`` entries of a directory (none when it is missing or vanishes)."""
    try:
        with os.scandir(directory) as it:
            entries = [e for e in it if e.name.endswith(".json")]
    except (FileNotFoundError, NotADirectoryError):
        return
    yield from entries


def storage_stat(path: Path) -> tuple[int, int]:
    """Size and newest mtime over the session file, its messages and their parts (and their dirs)."""
    size, mtime = file_stat(path)
    storage = path.parents[2]
    dirs = [storage / "message" / path.stem]
    while dirs:
        directory = dirs.pop()
        try:
            mtime = max(mtime, os.stat(directory).st_mtime_ns)
        except FileNotFoundError:
            continue
        for entry in _scan(directory):
            try:
                est = entry.stat()
            except FileNotFoundError:
                continue
            size += est.st_size
            mtime = max(mtime, est.st_mtime_ns)
            if directory.parent.name == "message":
                dirs.append(storage / "part" / entry.name[:-5])
    return size, mtime


def stat(path: Path) -> tuple[int, int]:
    return db_stat(path) if _is_db(path) else storage_stat(path)


# -- the database (its snapshot is read by ``opencode_db``) ---------------------------------------

def read_db(path: Path, state: dict, agent: str = "opencode", label: str = "OpenCode") -> WholeRead:
    """An OpenCode-format database's changed sessions, as ``agent``'s (Kilo Code 7 keeps one of its own)."""
    return read_db_snapshot(path, lambda conn: read_snapshot(conn, path, state, agent), label,
                            attempts=BUSY_ATTEMPTS, timeout=BUSY_TIMEOUT, pause=BUSY_PAUSE)


# -- the older storage tree --------------------------------------------------------------------

def _read_json(path: Path) -> dict | str | None:
    """A storage file's object, the reason it is unreadable, or None when it vanished."""
    try:
        raw = read_regular(path, MAX_JSON_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    return _decode(raw)


def read_storage(path: Path, state: dict, agent: str = "opencode", label: str = "OpenCode") -> WholeRead:
    obj = _decode(read_regular(path, MAX_JSON_BYTES))
    if isinstance(obj, str):
        raise ContentError(f"{label} session file unreadable: {obj}")
    sid = _str(obj.get("id")) or path.stem
    parent = _str(obj.get("parentID"))
    info = SessionInfo(sid, agent, cwd=_str(obj.get("directory")), title=_title(obj.get("title")),
                       is_sidechain=parent is not None, parent_session_id=parent)
    storage = path.parents[2]
    messages = []
    for entry in sorted(_scan(storage / "message" / path.stem), key=lambda e: e.name):
        data = _read_json(Path(entry.path))
        if data is None:
            continue
        mid = entry.name[:-5]
        parts = []
        for pentry in sorted(_scan(storage / "part" / mid), key=lambda e: e.name):
            pdata = _read_json(Path(pentry.path))
            if pdata is not None:
                parts.append(_Part(pentry.name[:-5], pdata))
        messages.append(_Message(mid, data, None, parts))
    return WholeRead([_unit(str(path), info, messages)], {})


def read_whole(path: Path, state: dict) -> WholeRead:
    return read_db(path, state) if _is_db(path) else read_storage(path, state)


# -- discovery ---------------------------------------------------------------------------------

class _OpenCodeAgent(Agent):
    """Walks only what can hold sessions: not snapshots (git repos), logs, binaries, or the message
    and part trees (read with their session)."""

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None) -> Iterator[Path]:
        return walk_data_dir(self, root, errors, _DB_NAME)


# What an OpenCode-format data dir holds beside its sessions: git snapshots, logs, checkouts, binaries.
_NOT_SESSIONS = {"snapshot", "log", "worktree", "bin", "tool-output"}


def walk_data_dir(agent: Agent, root: Path, errors: list[OSError] | None, db_name: re.Pattern) -> Iterator[Path]:
    """The files ``agent`` claims in an OpenCode-format data dir (databases named ``db_name``, the storage tree)."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
        here = Path(dirpath)
        if here.name == "storage":
            dirnames[:] = ["session"] if "session" in dirnames else []
        elif here.name == "session" and here.parent.name == "storage":
            dirnames.sort()
        elif here.parent.name == "session" and here.parent.parent.name == "storage":
            dirnames[:] = []
        elif "storage" in dirnames or any(db_name.match(f) for f in filenames):
            dirnames[:] = [d for d in ("storage", "tasks") if d in dirnames]  # (a copy may keep task folders too)
        else:
            dirnames[:] = sorted(d for d in dirnames if d not in _NOT_SESSIONS)
        for name in sorted(filenames):
            path = here / name
            if agent.claims(path):
                yield path


AGENT = _OpenCodeAgent("opencode", default_root, claims, session_for,
                       read_whole=read_whole, stat=stat, shell_tools=frozenset(SHELL_TOOLS), shares_root=True)
