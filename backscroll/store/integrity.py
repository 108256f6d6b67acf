"""``PRAGMA integrity_check`` of a store, read-only: shared by the store and by the error mapping (which must
not import the store itself)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from backscroll.interrupts import interruptible


def integrity_problems(db_path) -> list[str]:
    """``PRAGMA integrity_check`` of the store, read-only: its complaints, or [] when the store is sound.
    (Not ``quick_check``: it passes a store whose indexes lost rows, which fails later reads and writes;
    the full check costs about the same, ~1.3 s for a 90 MB store on a loaded machine.)"""
    uri = Path(db_path).resolve().as_uri()
    last: Exception | None = None
    for flags in ("mode=ro", "immutable=1"):
        try:
            conn = sqlite3.connect(f"{uri}?{flags}", uri=True)
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            with interruptible(conn):  # (a minute or more at millions of records: Ctrl-C ends it at once)
                rows = [r[0] for r in conn.execute("PRAGMA integrity_check(20)")]
            return [] if rows == ["ok"] else rows
        except sqlite3.OperationalError as exc:
            if "unable to open" in str(exc):  # no -shm and cannot create one: read it as immutable
                last = exc
                continue
            return [str(exc)]
        except sqlite3.DatabaseError as exc:
            return [str(exc)]
        finally:
            conn.close()
    return [f"cannot be read: {last}"]
