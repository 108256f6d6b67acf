"""What a recall hook already injected into an agent session: it is not told the same thing twice.

One small JSON file per agent session under ``<data>/hooks/`` (named by a hash of the session id), written
atomically; files untouched for ``MEMORY_TTL`` are removed.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

MEMORY_TTL = 7 * 86400


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
    tmp.write_text(json.dumps({"session_id": session_id, "record_ids": ids}))
    os.replace(tmp, path)
    now = time.time()
    try:
        for old in path.parent.glob("*.json"):
            if now - old.stat().st_mtime > MEMORY_TTL:
                old.unlink(missing_ok=True)
    except OSError:
        pass
