"""Timestamps: normalising what agents write, and local times and ages for people (``--since``/``--until``:
``when``).

All timestamps backscroll stores are UTC ISO-8601 strings with milliseconds and a ``Z``, so they
sort as text.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

WHEN = ("since", "until")  # the options ``as_when`` reads a ``datetime`` or ``date`` for
# The times the lexical index can hold (nanoseconds from 1970 in 64 bits): a session's time outside them is a clock
# gone wrong, read as no time; a ``--since``/``--until`` outside them is no bound, or the edge (``when.parse_when``).
EARLIEST = datetime(1678, 1, 1, tzinfo=UTC)
LATEST = datetime(2262, 1, 1, tzinfo=UTC)
_YEARS = (f"{EARLIEST.year:04d}", f"{LATEST.year:04d}")  # (the years held whole, as a canonical timestamp begins)


def held(dt: datetime) -> datetime | None:
    """``dt`` (naive: UTC) when the index can hold it, else None."""
    dt = dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)
    return dt if EARLIEST <= dt <= LATEST else None


def as_when(value: object) -> object:
    """A ``datetime`` or ``date`` given for ``since=``/``until=`` as the text those take (a naive time is local, as a
    person means it); anything else as it is."""
    if isinstance(value, datetime):
        try:
            return value.astimezone().isoformat()
        except (ValueError, OverflowError):  # (``datetime.max`` in a zone ahead of UTC: as written)
            return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def format_ts(dt: datetime) -> str:
    dt = dt.astimezone(UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def normalize_timestamp(value: object) -> str | None:
    """ISO-8601 text, epoch seconds or epoch milliseconds -> ``2026-03-02T10:15:00.000Z``; else None (also for
    a time the index cannot hold, ``held``, and an epoch of 0 or less)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, (int, float)):
            if not value > 0:  # (0, -1, NaN: a clock never set, not a time in 1969)
                return None
            seconds = value / 1000 if value > 1e11 else value
            at = held(datetime.fromtimestamp(seconds, tz=UTC))
            return format_ts(at) if at else None
        if isinstance(value, str):
            if len(value) == 24 and value[10] == "T" and value[19] == "." and value[23] == "Z" and value[:4].isdigit():
                return value if _YEARS[0] <= value[:4] < _YEARS[1] else None  # the canonical form (Claude Code's)
            s = value.strip()
            if not s:
                return None
            if s.isdigit():
                return normalize_timestamp(int(s))
            at = held(datetime.fromisoformat(s.replace("Z", "+00:00").replace("z", "+00:00")))
            return format_ts(at) if at else None
    except (ValueError, OverflowError, OSError):
        return None
    return None


def parse_ts(value: str) -> datetime:
    """A stored timestamp as an aware datetime. Stored times are UTC; one written without an offset (an
    older reader's Aider header time) is read as UTC too, so it compares with the rest."""
    dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


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
