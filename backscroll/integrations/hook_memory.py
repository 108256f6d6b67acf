"""What a recall hook already injected into an agent session: it is not told the same thing twice.

One small JSON file per agent session under ``<data>/hooks/`` (named by a hash of the session id), written
atomically. Files untouched for ``MEMORY_TTL`` are removed by ``prune``, which the hook runs after its answer
is written: at most ``PRUNE_MAX`` files and ``PRUNE_BUDGET`` seconds a call, a whole pass at most once a day
(``.pruned`` marks the last one), so a folder of 60,000 stale files costs no prompt its recall (#46).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

MEMORY_TTL = 7 * 86400
PRUNE_EVERY = 86400  # seconds between whole passes over the folder
PRUNE_MAX = 1000  # files one call removes at most (a slow disk meets PRUNE_BUDGET first)
PRUNE_BUDGET = 0.2  # seconds one call spends pruning at most


def _memory_path(home: Path, agent: str, session_id: str) -> Path:
    h = hashlib.sha256(session_id.encode()).hexdigest()[:20]
    return home / "hooks" / f"{agent}-{h}.json"


def injected_before(home: Path, agent: str, session_id: str | None) -> set[str]:
    if not session_id:
        return set()
    try:
        data = json.loads(_memory_path(home, agent, session_id).read_text())
        return {x for x in data.get("record_ids", []) if isinstance(x, str)}
    except (OSError, ValueError, AttributeError):
        return set()


def remember(home: Path, agent: str, session_id: str | None, record_ids: list[str]) -> None:
    if not session_id or not record_ids:
        return
    path = _memory_path(home, agent, session_id)
    ids = sorted(injected_before(home, agent, session_id) | set(record_ids))
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)  # (owner-only, as the rest of the data dir)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(json.dumps({"session_id": session_id, "record_ids": ids}))
    os.replace(tmp, path)


def prune(home: Path, budget: float = PRUNE_BUDGET) -> int:
    """Remove memory files (and temporary files a killed hook left) untouched for ``MEMORY_TTL``; returns how
    many. A pass cut short by ``PRUNE_MAX`` or ``budget`` goes on at the next call: ``.pruned`` is touched only
    when a pass has seen the whole folder."""
    folder = home / "hooks"
    stamp = folder / ".pruned"
    now = time.time()
    try:
        if now - stamp.stat().st_mtime < PRUNE_EVERY:
            return 0
    except OSError:
        pass
    end = time.monotonic() + budget
    removed = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if removed >= PRUNE_MAX or time.monotonic() > end:
                    return removed
                if not entry.name.endswith((".json", ".tmp")):
                    continue
                try:
                    if now - entry.stat(follow_symlinks=False).st_mtime > MEMORY_TTL:
                        os.unlink(entry.path)
                        removed += 1
                except OSError:  # one file that cannot go (a directory, a permission) costs only itself
                    continue
        stamp.touch(mode=0o600)
    except OSError:
        pass
    return removed


def note_resumed(cfg, transcript: str | None) -> None:
    """A session its agent resumed (a session start from ``resume``): its file is looked at by every search's sync
    for a day, as after ``backscroll resume`` (an old file is otherwise looked at only in turn, ``ingest.quick``).
    Skipped, never waited for, when the store cannot be written at once."""
    from backscroll.store.upgrade import behind

    if not transcript or not cfg.db_path.exists() or behind(cfg.db_path):  # (an upgrade is never begun in a hook)
        return
    from backscroll.ingest.rows import store_text
    from backscroll.store.db import Store
    from backscroll.store.lock import writer_lock

    try:
        with writer_lock(cfg, 0.0) as acquired:
            if not acquired:
                return
            store = Store.open(cfg.db_path)
            try:
                store.sound = store.vouched()  # (vouched for again when it is closed, if it was)
                store.note_resumed(store_text(os.path.abspath(transcript)), time.time_ns())
            finally:
                store.close()
    except Exception:  # noqa: BLE001 - record-keeping never costs the hook its answer (a read-only data dir)
        return
