"""What the corpus scripts that write Claude Code transcripts share: stable hashes and ids, Claude Code's cut of a long
tool output, and its timestamps. Pure."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime


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
