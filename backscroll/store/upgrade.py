"""A store behind this version's schema, seen without upgrading it, and its upgrade run in a process of its own
(``python -m backscroll.store DB``): a recall hook has 3 s, and at millions of records an upgrade takes longer, so one
begun inside a hook was ended at the deadline, rolled back, and begun again at the next prompt. An upgrade that
failed leaves a note beside the store (``<db>.upgrade-failed``: when, and why); none is started again for an hour,
and the hook says why."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from backscroll.store.lock import lock_held
from backscroll.store.schema import schema_version

RETRY_AFTER_S = 3600  # after an upgrade failed (a disk full, a store another process kept locked)


def migrate_lock(db: Path) -> Path:
    """The lock file held while the store at ``db`` is upgraded (one upgrade at a time; the others wait for it)."""
    return db.with_name(db.name + ".migrate.lock")


def failure_note(db: Path) -> Path:
    return db.with_name(db.name + ".upgrade-failed")


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


def upgrade_apart(db: Path) -> str | None:
    """Start the upgrade of the store at ``db`` in a detached process that outlives its caller (none when an upgrade
    is under way, or one failed within the hour); returns why the last one failed, when it did."""
    if lock_held(migrate_lock(db)):
        return None
    if (failed := last_failure(db)) and time.time() - failed[0] < RETRY_AFTER_S:
        return failed[1]
    # (-P: ``-m`` would import from its working directory first, and a project may hold a backscroll)
    subprocess.Popen([sys.executable, "-P", "-m", "backscroll.store", str(db.resolve())], cwd=db.parent,
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True, close_fds=True)
    return None


def last_failure(db: Path) -> tuple[float, str] | None:
    """``(when, why)`` the last upgrade begun apart failed, if it did."""
    try:
        note = json.loads(failure_note(db).read_text(encoding="utf-8"))
        return float(note["at"]), str(note["error"])[:500]
    except (OSError, ValueError, KeyError, TypeError):
        return None

