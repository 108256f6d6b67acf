"""What a ``--since`` or ``--until`` value means: a date, a timestamp, an age, today or yesterday, or a date as a
query names one (``last August``: ``retrieval.temporal``'s grammar), as a stored UTC timestamp."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from backscroll.dates import EARLIEST, LATEST, format_ts, held, normalize_timestamp
from backscroll.errors import UsageError
from backscroll.sanitize import shorten

_RELATIVE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w|mo|y)\s*$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "mo": 30 * 86400, "y": 365 * 86400}

_WHEN_HINT = ("use a date (2026-10-01) or a month (2026-10), a timestamp (2026-10-01T09:30:00Z), an age (30m, 12h, 7d, "
              "2w, 3mo), today, yesterday, or a date as a query names one (last August, last week, 3 days ago)")


def parse_when(value: str, *, now: datetime | None = None, end: bool = False) -> str | None:
    """``7d``, ``2w``, ``3h``, ``today``, ``yesterday``, ``2026-10-01``, a full timestamp or a date as a query
    names one (``last August``: ``retrieval.temporal``) -> ISO UTC.

    With ``end=True`` (an ``until``) a bare date means the end of that day (so ``--until 2026-10-01`` includes it).
    A date past the times the index holds (``dates.held``) on the side it bounds is no bound (None: ``--until
    9999-12-31``, ``--since 1500-01-01``), and on the other its edge (``--since 9999-12-31`` finds nothing).
    """
    try:
        return _parse_when(value, now or datetime.now(UTC), end)
    except _Edge as edge:
        return None if (edge.at == EARLIEST) != end else format_ts(edge.at)
    except (ValueError, OverflowError):
        raise UsageError(f"cannot read the date {shorten(value, 80)!r}", hint=_WHEN_HINT) from None


def window(since: str | None, until: str | None, *, now: datetime | None = None) -> tuple[str | None, str | None]:
    """``--since`` and ``--until`` as stored UTC times (``parse_when``); a window nothing can fall in (``since``
    not before ``until``) is a usage error."""
    since_ts = parse_when(since, now=now) if since else None
    until_ts = parse_when(until, now=now, end=True) if until else None
    if since_ts and until_ts and since_ts >= until_ts:
        raise UsageError(f"--since {shorten(since or '', 80)} is not before --until {shorten(until or '', 80)}: "
                         "nothing can match", hint="swap them: `since` is the older end of the range",
                         reason="empty-range")
    return since_ts, until_ts


class _Edge(Exception):
    """A date past what the index holds: its edge (``dates.EARLIEST`` or ``LATEST``)."""

    def __init__(self, at: datetime):
        self.at = at


def _within(dt: datetime) -> None:
    if held(dt) is None:
        raise _Edge(EARLIEST if dt.replace(tzinfo=dt.tzinfo or UTC) < EARLIEST else LATEST)


def _parse_when(value: str, now: datetime, end: bool) -> str:
    v = value.strip().lower()
    m = _RELATIVE.match(v)
    if m:
        seconds = int(m.group(1)) * _UNITS[m.group(2).lower()]
        if seconds > (now - EARLIEST).total_seconds():
            raise _Edge(EARLIEST)
        return format_ts(now - timedelta(seconds=seconds))
    # Dates are days on the user's calendar: local midnight ($TZ honoured), stored as UTC.
    if v in {"today", "yesterday"}:
        day = now.astimezone().date() - timedelta(days=1 if v == "yesterday" else 0)
        return format_ts(_local_midnight(day + timedelta(days=1) if end else day))
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
        day = datetime.fromisoformat(v).date()
        if not EARLIEST.date() < day < LATEST.date():  # (a day inside them, and the day after it)
            raise _Edge(EARLIEST if day <= EARLIEST.date() else LATEST)
        return format_ts(_local_midnight(day + timedelta(days=1) if end else day))
    if re.fullmatch(r"\d{4}-\d{2}", v):  # a month, as ``2026-10`` (its first day; with ``end``, the next month's)
        year, month = map(int, v.split("-"))
        first = datetime(year, month, 1).date()
        if end:
            first = datetime(year + month // 12, month % 12 + 1, 1).date()
        if not EARLIEST.date() < first < LATEST.date():
            raise _Edge(EARLIEST if first <= EARLIEST.date() else LATEST)
        return format_ts(_local_midnight(first))
    ts = normalize_timestamp(value)
    if ts is None and v.isascii() and v.isdigit():  # (epoch seconds or milliseconds past what the index holds)
        raise _Edge(LATEST)
    if ts is None:
        try:  # (a timestamp the index cannot hold: its edge)
            _within(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            pass
        ts = _phrase(value, now, end)
    if ts is None:
        raise ValueError(value)
    return ts


def _phrase(value: str, now: datetime, end: bool) -> str | None:
    """A date as a query names one ("last August", "last week", "3 days ago"), the whole value: the start of
    its window on the user's calendar (its end with ``end``)."""
    from backscroll.retrieval.temporal import find

    named, rest = find(value.strip(), now.astimezone())
    if named is None or rest.strip(" ,."):
        return None
    return format_ts(named.end if end else named.start)


def _local_midnight(day) -> datetime:
    return datetime(day.year, day.month, day.day).astimezone()  # naive -> local time zone
