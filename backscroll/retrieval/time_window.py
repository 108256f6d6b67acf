"""A time window a query named, and what a search does with it: a soft preference (``closeness``), the
extra candidates of its days (``within``), the days it covers and the note that says so. Read from the
query's words by ``temporal``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from backscroll.dates import format_ts, parse_ts
from backscroll.types import Filters


@dataclass(frozen=True)
class TimeWindow:
    start: datetime  # inclusive
    end: datetime  # exclusive
    text: str  # the words of the query that named it
    # Written as records hold dates (ISO ``2026-09-14``: logs, file names, partitions), so its words
    # stay search terms too; "on 14 September" is how people speak, and records rarely spell it so.
    literal: bool = False

    @property
    def days(self) -> float:
        return (self.end - self.start).total_seconds() / 86400


def closeness(ts: datetime, window: TimeWindow) -> float:
    """1 inside the window, halving with every half-life outside it (a day, or a quarter of a long window)."""
    if window.start <= ts < window.end:
        return 1.0
    gap = (window.start - ts) if ts < window.start else (ts - window.end)
    half_life = max(1.0, window.days / 4)
    return 0.5 ** (gap.total_seconds() / 86400 / half_life)


# A window longer than this proposes no candidates of its own ("in 2026", "last year"): its records are
# most of a history, which the ranked lists already draw from, and listing their ids costs 40-80 ms
# on 300,000 records. The time preference still applies.
PROPOSING_DAYS = 31


def narrowed(filters: Filters, window: TimeWindow) -> Filters | None:
    """``filters`` narrowed to ``window`` (None when they leave nothing of it)."""
    start, end = window.start.astimezone(UTC), window.end.astimezone(UTC)
    if filters.since:
        start = max(start, parse_ts(filters.since))
    if filters.until:
        end = min(end, parse_ts(filters.until))
    if start >= end:
        return None
    return replace(filters, since=format_ts(start), until=format_ts(end))


def days(window: TimeWindow) -> str:
    """The days a window covers: ``2026-10-22``, or ``2026-10-01 to 2026-10-31``."""
    last = window.end - timedelta(microseconds=1)
    return f"{window.start:%Y-%m-%d}" if last.date() == window.start.date() \
        else f"{window.start:%Y-%m-%d} to {last:%Y-%m-%d}"


def within(filters: Filters, window: TimeWindow) -> Filters | None:
    """``filters`` narrowed to ``window``, for the extra candidates a date in the query proposes (the
    records of that day or month are proposed even when their words and meaning alone would not reach
    the ranked lists' depth; the time preference then decides). None when there is nothing to
    propose: the two leave nothing, the filters already lie inside the window, or the window is longer
    than ``PROPOSING_DAYS``."""
    if window.days > PROPOSING_DAYS:
        return None
    inside = narrowed(filters, window)
    return None if inside == filters else inside


def describe(window: TimeWindow, filters: Filters) -> str:
    """The note a search gives about the date it read: which days, and that it is a preference (or
    that ``--since``/``--until`` leave those days out)."""
    read = f'read "{window.text}" as {days(window)}'
    if narrowed(filters, window) is None:
        return f"{read}, which --since/--until leave out: the records nearest it rank higher"
    return f"{read}: records from then rank higher, others still count (to filter: --since/--until)"


def dated_note(window: TimeWindow, found: bool) -> str:
    """The note of a question about a time alone: the days read, and what answers it."""
    read = f'read "{window.text}" as {days(window)}'
    return f"{read}: the sessions of then, each by what it set out to do" if found \
        else f"{read}: nothing was recorded then"
