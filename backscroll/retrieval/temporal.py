"""Dates in a query ("on 9 April 2026", "in July", "last week", "yesterday") as a soft time preference.

Pure: ``find(text, now)`` reads the first temporal expression of a small grammar and returns the
time window it names plus the query text without it. Search then *boosts* records near that window
(it never filters: ``--since``/``--until`` do that), has the window propose its own best matches
(``within``) beside the ranked lists, and leaves the date words out of the lexical terms
(but an ISO date, ``2026-09-14``, stays: records write dates that way). ``describe`` words the note
that tells the person or agent which days the date was read as.

The grammar, case-insensitive (``D`` a day 1-31 with an optional st/nd/rd/th, ``M`` a month name or
its three-letter abbreviation, ``Y`` a year 1900-2099, ``W`` a weekday name):

- ISO ``Y-MM-DD``; ``D M Y`` / ``D of M, Y`` / ``M D, Y`` (a day); ``D M`` / ``M D`` (a day, the
  latest one not after today);
- ``M Y`` / ``M of Y`` (a month); ``in|during|since|before|after|early|late|mid|this|last M`` (a month:
  the latest one not after this month; a bare month name is not a date: "march", "may");
- ``in|during Y`` (a year);
- ``today``, ``yesterday``, ``tonight``, ``last night``; ``N days|weeks|months|years ago`` (``a week
  ago``); ``this|last|past week|month|year``; ``on|last|this|past W`` (the latest such day not after
  today; "last W" one before today).

Relative expressions are read against ``now`` (a parameter, so tests fix it). Windows are in the
time zone of ``now`` (UTC when it has none), ``start`` inclusive and ``end`` exclusive.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from backscroll.dates import format_ts, parse_ts
from backscroll.types import Filters

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}

_M = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_D = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_Y = r"(?P<year>(?:19|20)\d\d)"
_W = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"
_N = r"(?P<n>\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month|year)s?"

# (kind, pattern), tried in order; the first match in the text wins (earliest position, then order).
PATTERNS = [
    ("iso", rf"\b{_Y}-(?P<mnum>[01]\d)-(?P<dnum>[0-3]\d)\b"),
    ("dmy", rf"\b(?:the\s+)?{_D}\s+(?:of\s+)?{_M},?\s+{_Y}\b"),
    ("mdy", rf"\b{_M}\s+{_D},?\s+{_Y}\b"),
    ("my", rf"\b{_M},?\s+(?:of\s+)?{_Y}\b"),
    ("dm", rf"\b(?:the\s+)?{_D}\s+(?:of\s+)?{_M}\b"),
    ("md", rf"\b{_M}\s+{_D}\b(?!\s*(?:am|pm|:|%|\.\d))"),
    ("ago", rf"\b{_N}\s+{_UNIT}\s+ago\b"),
    ("rel", r"\b(?P<which>this|last|past|previous)\s+(?P<unit>week|month|year)\b"),
    ("day", r"\b(?P<word>today|tonight|yesterday|last night)\b"),
    ("wd", rf"\b(?P<pre>on|last|this|past)\s+{_W}\b"),
    ("m", rf"\b(?P<pre>in|during|since|before|after|early|late|mid|this|last)[\s-]+{_M}(?:,?\s+(?:of\s+)?{_Y})?\b"),
    ("y", rf"\b(?:in|during)\s+{_Y}\b"),
]
_COMPILED = [(kind, re.compile(p, re.IGNORECASE)) for kind, p in PATTERNS]
_PREPOSITION = re.compile(r"\b(?:on|in|during|from|of)\s*$", re.IGNORECASE)


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


def _at(d: date, tz: tzinfo) -> datetime:
    return datetime.combine(d, time(), tzinfo=tz)


def _month(year: int, month: int, tz: tzinfo) -> tuple[datetime, datetime]:
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return _at(date(year, month, 1), tz), _at(nxt, tz)


def _latest_day(month: int, day: int, today: date) -> date | None:
    """The latest ``month``/``day`` not after today (this year, else last year)."""
    for year in (today.year, today.year - 1):
        try:
            d = date(year, month, day)
        except ValueError:
            continue
        if d <= today:
            return d
    return None


def _window(kind: str, m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    tz: tzinfo = now.tzinfo or UTC
    today = now.astimezone(tz).date() if now.tzinfo else now.date()
    g = m.groupdict()
    # The patterns naming a month match only names MONTHS holds; 0 (no month) is never used as one.
    month = MONTHS.get((g.get("month") or "").lower().rstrip("."), 0)
    try:
        if kind == "iso":
            d = date(int(g["year"]), int(g["mnum"]), int(g["dnum"]))
            return _at(d, tz), _at(d + timedelta(days=1), tz)
        if kind in ("dmy", "mdy"):
            d = date(int(g["year"]), month, int(g["day"]))
            return _at(d, tz), _at(d + timedelta(days=1), tz)
        if kind in ("dm", "md"):
            latest = _latest_day(month, int(g["day"]), today)
            return (_at(latest, tz), _at(latest + timedelta(days=1), tz)) if latest else None
        if kind == "my":
            return _month(int(g["year"]), month, tz)
        if kind == "m" and g.get("year"):
            return _month(int(g["year"]), month, tz)
        if kind == "m":
            year = today.year if month <= today.month else today.year - 1
            if g["pre"].lower() == "last" and month == today.month:
                year -= 1
            return _month(year, month, tz)
        if kind == "y":
            return _at(date(int(g["year"]), 1, 1), tz), _at(date(int(g["year"]) + 1, 1, 1), tz)
    except ValueError:  # 31 April, month 13
        return None
    if kind == "day":
        back = 0 if g["word"].lower() in ("today", "tonight") else 1
        d = today - timedelta(days=back)
        return _at(d, tz), _at(d + timedelta(days=1), tz)
    if kind == "ago":
        raw = g["n"].lower()
        n = int(raw) if raw.isdigit() else NUMBERS[raw]
        unit = g["unit"].lower()
        if unit == "day":
            d = today - timedelta(days=n)
            return _at(d, tz), _at(d + timedelta(days=1), tz)
        span = {"week": 7, "month": 30, "year": 365}[unit]
        centre = today - timedelta(days=n * span)  # "two weeks ago": the week around that day
        half = timedelta(days=span // 2)
        return _at(centre - half, tz), _at(centre + half + timedelta(days=1), tz)
    if kind == "rel":
        unit, last = m.group("unit").lower(), m.group("which").lower() != "this"
        if unit == "week":
            monday = today - timedelta(days=today.weekday()) - timedelta(weeks=last)
            return _at(monday, tz), _at(monday + timedelta(days=7), tz)
        if unit == "month":
            y, mo = (today.year, today.month - 1) if last else (today.year, today.month)
            if mo == 0:
                y, mo = y - 1, 12
            return _month(y, mo, tz)
        y = today.year - last
        return _at(date(y, 1, 1), tz), _at(date(y + 1, 1, 1), tz)
    if kind == "wd":
        wd = WEEKDAYS[g["weekday"].lower()]
        back = (today.weekday() - wd) % 7
        if back == 0 and g["pre"].lower() in ("last", "past"):
            back = 7
        d = today - timedelta(days=back)
        return _at(d, tz), _at(d + timedelta(days=1), tz)
    return None


def find(text: str, now: datetime) -> tuple[TimeWindow | None, str]:
    """The first temporal expression in ``text`` and the text without it (and its preposition)."""
    best: tuple[str, re.Match[str]] | None = None
    for kind, rx in _COMPILED:
        for m in rx.finditer(text):
            if best is None or m.start() < best[1].start():
                best = (kind, m)
            break
    if best is None:
        return None, text
    kind, m = best
    span = _window(kind, m, now)
    if span is None:
        return None, text
    before = _PREPOSITION.sub("", text[: m.start()])
    rest = re.sub(r"\s+", " ", f"{before} {text[m.end():]}").strip()
    rest = re.sub(r"\s+([?.!,;:])", r"\1", rest)
    return TimeWindow(span[0], span[1], m.group(0), literal=kind == "iso"), rest


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


def _narrowed(filters: Filters, window: TimeWindow) -> Filters | None:
    start, end = window.start.astimezone(UTC), window.end.astimezone(UTC)
    if filters.since:
        start = max(start, parse_ts(filters.since))
    if filters.until:
        end = min(end, parse_ts(filters.until))
    if start >= end:
        return None
    return replace(filters, since=format_ts(start), until=format_ts(end))


def within(filters: Filters, window: TimeWindow) -> Filters | None:
    """``filters`` narrowed to ``window``, for the extra candidates a date in the query proposes (the
    records of that day or month are proposed even when their words and meaning alone would not reach
    the ranked lists' depth; the time preference then decides). None when there is nothing to
    propose: the two leave nothing, the filters already lie inside the window, or the window is longer
    than ``PROPOSING_DAYS``."""
    if window.days > PROPOSING_DAYS:
        return None
    narrowed = _narrowed(filters, window)
    return None if narrowed == filters else narrowed


def describe(window: TimeWindow, filters: Filters) -> str:
    """The note a search gives about the date it read: which days, and that it is a preference (or
    that ``--since``/``--until`` leave those days out)."""
    last = window.end - timedelta(microseconds=1)
    days = f"{window.start:%Y-%m-%d}" if last.date() == window.start.date() \
        else f"{window.start:%Y-%m-%d} to {last:%Y-%m-%d}"
    read = f'read "{window.text}" as {days}'
    if _narrowed(filters, window) is None:
        return f"{read}, which --since/--until leave out: the records nearest it rank higher"
    return f"{read}: records from then rank higher, others still count (to filter: --since/--until)"
