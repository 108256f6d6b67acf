"""``python -m backscroll.store DB``: open the store at DB, and so upgrade it to this version's schema (what
``upgrade.upgrade_apart`` starts for a recall hook, which cannot wait for it). A failure is noted beside the store
for the hooks (exit 1); a success clears an earlier note."""

import json
import sys
import time
from pathlib import Path

from backscroll.store.db import Store
from backscroll.store.upgrade import failure_note


def upgrade(db: Path) -> int:
    try:
        Store.open(db).close()
    except Exception as exc:  # noqa: BLE001 - whatever it was, the hooks must know, and not start it again at once
        why = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        try:
            failure_note(db).write_text(json.dumps({"at": time.time(), "error": why}), encoding="utf-8")
        except OSError:
            pass
        return 1
    failure_note(db).unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(upgrade(Path(sys.argv[1])))
