"""Timestamps: normalising what agents write, reading ``--since``/``--until``, and human ages.

All timestamps backscroll stores are UTC ISO-8601 strings with milliseconds and a ``Z``, so they
sort as text.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from backscroll.errors import UsageError

_RELATIVE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w|mo|y)\s*$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "mo": 30 * 86400, "y": 365 * 86400}


def format_ts(dt: datetime) -> str:
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def normalize_timestamp(value: object) -> str | None:
    """ISO-8601 text, epoch seconds or epoch milliseconds -> ``2026-03-02T10:15:00.000Z``; else None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            seconds = value / 1000 if value > 1e11 else value
            return format_ts(datetime.fromtimestamp(seconds, tz=UTC))
        if isinstance(value, str):
            if len(value) == 24 and value[10] == "T" and value[19] == "." and value[23] == "Z" and value[:4].isdigit():
                return value  # already the canonical form (what Claude Code and Codex write)
            s = value.strip()
            if not s:
                return None
            if s.isdigit():
                return normalize_timestamp(int(s))
            dt = datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00"))
            if dt.tzinfo is None:
                dt = dt.replace(tzinfo=UTC)
            return format_ts(dt)
    except (ValueError, OverflowError, OSError):
        return None
    return None


def parse_ts(value: str) -> datetime:
    """A stored timestamp as an aware datetime. Stored times are UTC; one written without an offset (an
    older reader's Aider header time) is read as UTC too, so it compares with the rest."""
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


_WHEN_HINT = ("use a date (2026-10-01), a timestamp (2026-10-01T09:30:00Z), an age (30m, 12h, 7d, 2w, 3mo), today, "
              "yesterday, or a date as a query names one (last August, last week, 3 days ago)")


def parse_when(value: str, *, now: datetime | None = None, end: bool = False) -> str:
    """``7d``, ``2w``, ``3h``, ``today``, ``yesterday``, ``2026-10-01``, a full timestamp or a date as a query
    names one (``last August``: ``retrieval.temporal``) -> ISO UTC.

    With ``end=True`` a bare date means the end of that day (so ``--until 2026-10-01`` includes it).
    """
    try:
        return _parse_when(value, now or datetime.now(UTC), end)
    except (ValueError, OverflowError):
        raise UsageError(f"cannot read the date {value!r}", hint=_WHEN_HINT) from None


def _parse_when(value: str, now: datetime, end: bool) -> str:
    v = value.strip().lower()
    m = _RELATIVE.match(v)
    if m:
        return format_ts(now - timedelta(seconds=int(m.group(1)) * _UNITS[m.group(2).lower()]))
    # Dates are days on the user's calendar: local midnight ($TZ honoured), stored as UTC.
    if v in {"today", "yesterday"}:
        day = now.astimezone().date() - timedelta(days=1 if v == "yesterday" else 0)
        return format_ts(_local_midnight(day + timedelta(days=1) if end else day))
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
        day = datetime.fromisoformat(v).date()
        return format_ts(_local_midnight(day + timedelta(days=1) if end else day))
    ts = normalize_timestamp(value) or _phrase(value, now, end)
    if ts is None:
        raise ValueError(value)
    return ts


def _phrase(value: str, now: datetime, end: bool) -> str | None:
    """A date as a query names one ("last August", "last week", "3 days ago"), the whole value: the start of
    its window on the user's calendar (its end with ``end``)."""
    from backscroll.retrieval.temporal import find

    window, rest = find(value.strip(), now.astimezone())
    if window is None or rest.strip(" ,."):
        return None
    return format_ts(window.end if end else window.start)


def _local_midnight(day) -> datetime:
    return datetime(day.year, day.month, day.day).astimezone()  # naive -> local time zone


def local_time(ts: str | None, *, seconds: bool = False) -> str:
    """A stored UTC timestamp as local time for people: ``2026-10-21 16:05`` ('' when unknown)."""
    if not ts:
        return ""
    try:
        dt = parse_ts(ts).astimezone()
    except ValueError:
        return ts
    return dt.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")


def human_age(ts: str | None, *, now: datetime | None = None) -> str:
    """How long ago, always in one form (``40s ago``, ``12min ago``, ``5h ago``, ``34d ago``, ``4mo ago``,
    ``2y ago``), so that a column of ages reads at a glance; the exact time is in JSON and ``show``."""
    if not ts:
        return "unknown time"
    now = now or datetime.now(UTC)
    try:
        seconds = (now - parse_ts(ts)).total_seconds()
    except ValueError:
        return ts
    if seconds < 0:
        return "in the future"
    for limit, unit, div in ((90, "s", 1), (5400, "min", 60), (129600, "h", 3600), (86400 * 45, "d", 86400),
                             (86400 * 548, "mo", 86400 * 30.44)):
        if seconds < limit:
            return f"{int(seconds // div)}{unit} ago"
    return f"{int(seconds // (86400 * 365.25))}y ago"
    for limit, unit, div in ((90, "s", 1), (5400, "min", 60), (129600, "h", 3600), (86400 * 45, "d", 86400)):
        if seconds < limit:
            return f"{int(seconds // div)}{unit} ago"
    return local_time(ts)[:10]
