"""A store behind this version's schema, seen without upgrading it, and its upgrade run in a process of its own
(``python -m backscroll.store DB``): a recall hook has 3 s, and at millions of records an upgrade takes
longer, so one begun inside a hook was ended at the deadline, rolled back, and begun again at the next prompt."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from backscroll.store.lock import lock_held
from backscroll.store.schema import schema_version


def migrate_lock(db: Path) -> Path:
    """The lock file held while the store at ``db`` is upgraded (one upgrade at a time; the others wait for it)."""
    return db.with_name(db.name + ".migrate.lock")


def behind(db: Path) -> bool:
    """Whether the store at ``db`` has an older schema than this version's and may be written (one that may not
    is read as it is, or refused, when it is opened)."""
    try:
        conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:  # (damaged, or unreadable: opening it says so)
        return False
    return 0 < version < schema_version() and all(os.access(p, os.W_OK) for p in (db, db.parent))


def upgrade_apart(db: Path) -> None:
    """Start the upgrade of the store at ``db`` in a detached process (none when an upgrade is under way): it
    outlives its caller, and the next ``Store.open`` finds the store up to date or waits for it."""
    if lock_held(migrate_lock(db)):
        return
    # (run from the data dir: ``-m`` imports from its working directory first, and a project may hold a backscroll)
    subprocess.Popen([sys.executable, "-m", "backscroll.store", str(db.resolve())], cwd=db.parent,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True)
