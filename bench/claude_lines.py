"""What the corpus scripts that write Claude Code transcripts share: stable hashes and ids, Claude Code's cut of a long
tool output, its timestamps, where a transcript goes and its lines as bytes. Pure."""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def stable_hash(*parts: object) -> int:
    """A number that depends only on ``parts`` (Python's own ``hash`` changes between runs)."""
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


def base62(seed: str, n: int) -> str:
    """``n`` letters and digits that depend only on ``seed`` (ids shaped like a tool's own)."""
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    value = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(n):
        value, r = divmod(value, 62)
        out.append(alphabet[r])
    return "".join(out)


def cap(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters the way Claude Code cuts long tool output."""
    if len(text) <= limit:
        return text
    rest = text[limit:]
    return f"{text[:limit]}\n\n... [{rest.count(chr(10)) + 1} lines truncated] ..."


def format_ts(t: datetime) -> str:
    """A time as Claude Code writes one: UTC, to the millisecond."""
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def transcript_path(out: Path, cwd: str, session_id: str) -> Path:
    """Where Claude Code keeps the transcript of a session that worked in ``cwd``, under a home ``out``."""
    return out / ".claude" / "projects" / cwd.replace("/", "-") / f"{session_id}.jsonl"


def write_transcript(file: Path, lines: list[dict[str, Any]]) -> int:
    """Write the lines as a transcript file holds them (compact JSON, one a line); the bytes written."""
    data = b"".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for line in lines)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(data)
    return len(data)


class NumberedLines:
    """A transcript writer's line ids: one uuid5 a line, from the session and a count (the same on every run)."""

    session_id: str
    n: int

    def _id(self, kind: str) -> str:
        self.n += 1
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}:{kind}:{self.n}"))
