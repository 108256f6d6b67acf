"""Kilo Code: the task folders its VS Code extension kept until Kilo 5 (Cline's format, read by ``cline``), and,
since Kilo 7 (April 2026: rebuilt on OpenCode), OpenCode's database and storage tree in Kilo's own data dir,
``$XDG_DATA_HOME/kilo``, else ``~/.local/share/kilo`` (``kilo.db``; a preview channel's ``kilo-<channel>.db``, and
before the rename ``opencode[-<channel>].db`` there), read by ``opencode``'s reader as Kilo's.

Kilo 7 imports the older tasks into its database as sessions of its own (new ids): such a task is stored twice, from
its folder and from the database, rather than judged a copy on guesses that could lose one (the folder may be outside
the roots indexed, or the session continued).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from backscroll.ingest.sources import Agent, WholeRead, cline, db_stat, home_root, opencode, walk
from backscroll.types import SessionInfo

NAME = "kilo"
EXTENSION = "kilocode.kilo-code"
_DB_NAME = re.compile(r"^(?:kilo|opencode)(?:-[A-Za-z0-9._-]+)?\.db$")


def default_root(env) -> list[tuple[Path, str]]:
    # (``$XDG_DATA_HOME`` is every program's: it moves Kilo's data dir but is no Kilo setting: ``[roots]`` still wins)
    data = home_root(env, "XDG_DATA_HOME", "kilo", ".local/share/kilo")[0]
    return [*cline.task_roots(env, EXTENSION), (data, "default")]


def _is_db(path: Path) -> bool:
    """``kilo[-<channel>].db`` anywhere; an OpenCode-named database only in Kilo's data dir."""
    return bool(_DB_NAME.match(path.name)) and (path.name.startswith("kilo") or opencode.in_kilo(path.parent))


def _is_session_file(path: Path) -> bool:
    return opencode.is_session_file(path) and opencode.in_kilo(path.parents[3])


def claims(path: Path) -> bool:
    return _is_db(path) or _is_session_file(path) or cline.claims(path)


def session_for(path: Path) -> SessionInfo:
    if _is_db(path):
        return SessionInfo(path.name, NAME)
    return SessionInfo(path.stem, NAME) if _is_session_file(path) else cline.session_for(NAME)(path)


def stat(path: Path) -> tuple[int, int]:
    if _is_db(path):
        return db_stat(path)
    return opencode.storage_stat(path) if _is_session_file(path) else cline.stat(path)


def read_whole(path: Path, state: dict) -> WholeRead:
    if _is_db(path):
        return opencode.read_db(path, state, NAME, "Kilo Code")
    if _is_session_file(path):
        return opencode.read_storage(path, state, NAME, "Kilo Code")
    return cline.reader(NAME)(path, state)


class _KiloAgent(Agent):
    """A task root is walked as Cline's; Kilo's data dir as OpenCode's (not its snapshots, logs or binaries)."""

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None) -> Iterator[str | Path]:
        if root.name == "tasks":
            return walk(self, root, errors, known)
        return opencode.walk_data_dir(self, root, errors, _DB_NAME)


AGENT = _KiloAgent(NAME, default_root, claims, session_for, read_whole=read_whole, stat=stat,
                   shell_tools=cline.FAMILY_SHELL_TOOLS | opencode.AGENT.shell_tools, shares_root=True)
