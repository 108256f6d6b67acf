"""Dates in a query ("on 9 April 2026", "in July", "last week", "yesterday") as a soft time preference.

Pure: ``find(text, now)`` reads the first temporal expression of a small grammar and returns the
time window it names plus the query text without it. Search then *boosts* records near that window
(it never filters: ``--since``/``--until`` do that), has the window propose its own best matches
(``time_window.within``) beside the ranked lists, and leaves the date words out of the lexical terms
(but an ISO date, ``2026-09-14``, stays: records write dates that way).

The grammar (days, months, years, relative days and weeks, weekends, seasons, quarters, ranges of
months, numeric dates that read one way only) is listed in docs/ranking.md, "Dates in a query".

Relative expressions are read against ``now`` (a parameter, so tests fix it). Windows are in the
time zone of ``now`` (UTC when it has none), ``start`` inclusive and ``end`` exclusive.
"""

from __future__ import annotations

import calendar
import functools
import re
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from backscroll.retrieval.time_window import TimeWindow

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}  # the month each one starts
PARTS = {"early": 1, "mid": 5, "middle of": 5, "late": 9}  # the four months of a year each one names
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}

_M = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_D = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_Y = r"(?P<year>(?:19|20)\d\d)"
_W = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")"
_N = r"(?P<n>\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|fortnight|week|month|year)s?"
_M2 = _M.replace("(?P<month>", "(?P<month2>")
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"

# a bare month name is no date; "the end of", "the last days of", "the start of" name a part of it
_MONTH_PRE = (r"in|during|from|since|before|after|early|late|mid|this|last"
              r"|(?:the\s+)?(?:end|beginning|start|middle|(?:last|first)\s+(?:few\s+)?days)\s+of")

# (kind, pattern); the earliest match in the text that names a window wins (then the earlier pattern).
PATTERNS = [
    ("iso", rf"\b{_Y}-(?P<mnum>[01]\d)-(?P<dnum>[0-3]\d)\b"),
    ("dmy", rf"\b(?:the\s+)?{_D}\s+(?:of\s+)?{_M},?\s+{_Y}\b"),
    ("mdy", rf"\b{_M}\s+{_D},?\s+{_Y}\b"),
    ("my", rf"\b{_M},?\s+(?:of\s+)?{_Y}\b"),
    ("dm", rf"\b(?:the\s+)?{_D}\s+(?:of\s+)?{_M}\b"),
    ("md", rf"\b{_M}\s+{_D}\b(?!\s*(?:am|pm|:|%|\.\d))"),
    ("ago", rf"\b{_N}\s+{_UNIT}\s+ago\b"),
    ("rel", r"\b(?P<which>this|last|past|previous)\s+(?P<unit>week|month|year)\b"),
    ("day", r"\b(?P<word>today|tonight|yesterday|last night|this (?:morning|afternoon|evening))\b"),
    ("wd", rf"\b(?P<pre>on|last|this|past|previous|since)\s+{_W}\b"),
    ("range", rf"\b(?:between|from)\s+{_M}\s+(?:and|to|until|till|through)\s+{_M2}(?:,?\s+(?:of\s+)?{_Y})?\b"),
    ("m", rf"\b(?P<pre>{_MONTH_PRE})[\s-]+{_M}(?:,?\s+(?:of\s+)?{_Y})?\b"),
    ("numeric", rf"\b(?:(?P<a>[0-3]?\d)(?P<sep>/)(?P<b>[0-3]?\d)/|(?P<a2>[0-3]\d)\.(?P<b2>[01]\d)\.){_Y}\b"),
    ("weekend", r"\b(?P<which>this|last|past|previous)\s+weekend\b"),
    ("weekends", rf"\b{_N}\s+weekends?\s+ago\b"),
    ("season", rf"\b(?P<pre>in|during|this|last|early|late|mid)[\s-]+(?:the\s+)?{_SEASON}(?:,?\s+(?:of\s+)?{_Y})?\b"),
    ("season", rf"\b(?:the\s+)?{_SEASON},?\s+(?:of\s+)?{_Y}\b"),
    ("part", rf"\b(?P<part>early|mid|middle of|late)[\s-]+{_Y}\b"),
    ("quarter", rf"\b(?:q(?P<q>[1-4])|the\s+(?P<ord>first|second|third|fourth)\s+quarter\s+of)\s+{_Y}\b"),
    ("y", rf"\b(?:in|during)\s+{_Y}\b"),
]
# Before a date: a span next to it ("the week before 9 June", "the day before yesterday") or around it
# ("the week of 2 February").
_RELATIVE_TO = re.compile(r"\b(?:the\s+)?(?P<span>day|week|weekend|month)\s+(?P<rel>before|after|of)\s+$",
                          re.IGNORECASE)
# Words without which no pattern can match: a query holding none of them (and no digit) is not read for a
# date, and the patterns are compiled only for one that does (most queries name no date; compiling costs
# about 15 ms of every search's start).
TRIGGERS = frozenset([*MONTHS, *WEEKDAYS, *SEASONS, "today", "tonight", "yesterday", "night", "morning",
                      "afternoon", "evening", "ago", "day", "days", "week", "weeks", "weekend", "weekends",
                      "fortnight", "fortnights", "month", "months", "year", "years"])
_WORDS = re.compile(r"[a-z]+")


def _maybe_dated(text: str) -> bool:
    return any(c.isdigit() for c in text) or not TRIGGERS.isdisjoint(_WORDS.findall(text.lower()))


@functools.cache
def _compiled() -> list[tuple[str, re.Pattern[str]]]:
    return [(kind, re.compile(p, re.IGNORECASE)) for kind, p in PATTERNS]

_PREPOSITION = re.compile(r"\b(?:on|in|during|from|of)\s*$", re.IGNORECASE)


def _at(d: date, tz: tzinfo) -> datetime:
    return datetime.combine(d, time(), tzinfo=tz)


def _months(year: int, month: int, tz: tzinfo, count: int = 1) -> tuple[datetime, datetime]:
    """``count`` calendar months from the first of ``month``, which may run past the year (13 is the next
    January, 0 the last December)."""
    first = year * 12 + month - 1

    def day_one(n: int) -> date:
        return date(n // 12, n % 12 + 1, 1)

    return _at(day_one(first), tz), _at(day_one(first + count), tz)


MONTH_THIRDS = {"early": 0, "mid": 1, "late": 2}  # "late October": its last third, the 21st to the end
# "the end of August", "the last days of March": as "late August"
_THIRD_WORDS = {"end": "late", "last": "late", "beginning": "early", "start": "early", "first": "early",
                "middle": "mid"}


def _part_of_month(span: tuple[datetime, datetime], pre: str) -> tuple[datetime, datetime]:
    """The first, middle or last third of a month (days 1-10, 11-20, 21 to the end) for "early", "mid"
    and "late" (and "the start of", "the end of", "the last days of"); the whole month otherwise."""
    if " of" in pre:
        pre = next((_THIRD_WORDS[w] for w in pre.split() if w in _THIRD_WORDS), pre)
    if pre not in MONTH_THIRDS:
        return span
    start, end = span
    third = MONTH_THIRDS[pre]
    first = start + timedelta(days=10 * third)
    return first, (end if third == 2 else first + timedelta(days=10))


def _saturday_begun(today: date) -> date:
    """The Saturday of the latest weekend begun by ``today`` (today's, on a Saturday or a Sunday)."""
    return today - timedelta(days=(today.weekday() - 5) % 7)


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
            return _months(int(g["year"]), month, tz)
        if kind == "m":
            if g.get("year"):
                year = int(g["year"])
            else:
                year = today.year if month <= today.month else today.year - 1
                if g["pre"].lower() == "last" and month == today.month:
                    year -= 1
            part = _part_of_month(_months(year, month, tz), g["pre"].lower())
            if not g.get("year") and part[0] > now:  # "late November" on the 20th: last year's
                part = _part_of_month(_months(year - 1, month, tz), g["pre"].lower())
            return part
        if kind == "y":
            return _at(date(int(g["year"]), 1, 1), tz), _at(date(int(g["year"]) + 1, 1, 1), tz)
        if kind == "numeric":
            if g.get("a2"):  # 14.07.2026: day first, wherever dots are written
                day, mon = int(g["a2"]), int(g["b2"])
            else:
                a, b = int(g["a"]), int(g["b"])
                if a <= 12 and b <= 12:
                    return None  # 3/4/2026: March 4 or 3 April
                day, mon = (b, a) if b > 12 else (a, b)
            d = date(int(g["year"]), mon, day)
            return _at(d, tz), _at(d + timedelta(days=1), tz)
        if kind == "range":
            first, second = month, MONTHS[g["month2"].lower().rstrip(".")]
            # A year names where the range ends (from November to February 2026); without one, the
            # latest range begun.
            start_year = (int(g["year"]) - (first > second) if g.get("year")
                          else today.year - (first > today.month))
            return _months(start_year, first, tz, (second - first) % 12 + 1)
        if kind == "season":
            if g["season"][0].isupper() and not g.get("year"):
                return None  # "in Spring", "Spring Boot": a name (seasons are written in lower case)
            begins = SEASONS[g["season"].lower()]
            if g.get("year"):  # winter 2026: the one its January falls in
                return _months(int(g["year"]) - (begins == 12), begins, tz, 3)
            year = today.year - (begins > today.month)  # the latest one begun
            if (g.get("pre") or "").lower() == "last" and _months(year, begins, tz, 3)[1].date() > today:
                year -= 1  # "last summer" while it is summer: the one before
            return _months(year, begins, tz, 3)
        if kind == "part":
            return _months(int(g["year"]), PARTS[" ".join(g["part"].lower().split())], tz, 4)
        if kind == "quarter":
            q = int(g["q"]) if g.get("q") else ORDINALS[g["ord"].lower()]
            return _months(int(g["year"]), 3 * q - 2, tz, 3)
    except ValueError:  # 31 April, month 13
        return None
    if kind in ("weekend", "weekends"):
        saturday = _saturday_begun(today)
        if kind == "weekend" and g["which"].lower() != "this" and today.weekday() >= 5:
            saturday -= timedelta(weeks=1)  # "last weekend" on a Sunday: the one before
        if kind == "weekends":
            raw = g["n"].lower()
            saturday -= timedelta(weeks=(int(raw) if raw.isdigit() else NUMBERS[raw]) - (today.weekday() < 5))
        return _at(saturday, tz), _at(saturday + timedelta(days=2), tz)
    if kind == "day":
        back = 1 if g["word"].lower() in ("yesterday", "last night") else 0
        d = today - timedelta(days=back)
        return _at(d, tz), _at(d + timedelta(days=1), tz)
    if kind == "ago":
        raw = g["n"].lower()
        n = int(raw) if raw.isdigit() else NUMBERS[raw]
        unit = g["unit"].lower()
        if unit == "day":
            d = today - timedelta(days=n)
            return _at(d, tz), _at(d + timedelta(days=1), tz)
        span = {"week": 7, "fortnight": 14, "month": 30, "year": 365}[unit]
        centre = today - timedelta(days=n * span)  # "two weeks ago": the week around that day
        half = timedelta(days=span // 2)
        return _at(centre - half, tz), _at(centre + half + timedelta(days=1), tz)
    if kind == "rel":
        unit, last = m.group("unit").lower(), m.group("which").lower() != "this"
        if unit == "week":
            monday = today - timedelta(days=today.weekday()) - timedelta(weeks=last)
            return _at(monday, tz), _at(monday + timedelta(days=7), tz)
        if unit == "month":
            return _months(today.year, today.month - last, tz)
        y = today.year - last
        return _at(date(y, 1, 1), tz), _at(date(y + 1, 1, 1), tz)
    if kind == "wd":
        wd = WEEKDAYS[g["weekday"].lower()]
        back = (today.weekday() - wd) % 7
        if back == 0 and g["pre"].lower() in ("last", "past"):
            back = 7
        d = today - timedelta(days=back)
        return _at(d, tz), (now if g["pre"].lower() == "since" else _at(d + timedelta(days=1), tz))
    return None


def find(text: str, now: datetime) -> tuple[TimeWindow | None, str]:
    """The first temporal expression in ``text`` and the text without it (and its preposition): the
    earliest match that names a window (not "31 April", nor "Spring Boot")."""
    if not _maybe_dated(text):
        return None, text
    found = sorted(((m.start(), n, kind, m) for n, (kind, rx) in enumerate(_compiled()) for m in rx.finditer(text)),
                   key=lambda x: (x[0], x[1]))
    windows = ((kind, m, _window(kind, m, now)) for _s, _n, kind, m in found)
    kind, m, span = next(((k, m, w) for k, m, w in windows if w is not None), ("", None, None))
    if m is None or span is None:
        return None, text
    begin = m.start()
    near = _RELATIVE_TO.search(text[:begin])
    if near is not None:
        span = _next_to(span, near.group("span").lower(), near.group("rel").lower())
        begin = near.start()
    if span[0] < now < span[1]:  # "this week" on a Thursday: nothing after now was recorded yet
        span = (span[0], now)
    before = _PREPOSITION.sub("", text[:begin])
    rest = re.sub(r"\s+", " ", f"{before} {text[m.end():]}").strip()
    rest = re.sub(r"\s+([?.!,;:])", r"\1", rest)
    return TimeWindow(span[0], span[1], text[begin:m.end()], literal=kind == "iso" and near is None), rest


def _next_to(span: tuple[datetime, datetime], unit: str, rel: str) -> tuple[datetime, datetime]:
    """The day, week (seven days), weekend (Saturday and Sunday) or calendar month just before or after
    ``span``, or the one around its start ("the week of": Monday to Sunday)."""
    start, end = span
    tz = start.tzinfo or UTC
    first, last = start.date(), (end - timedelta(microseconds=1)).date()
    if unit in ("day", "week") and rel != "of":
        length = timedelta(days=1 if unit == "day" else 7)
        return (start - length, start) if rel == "before" else (end, end + length)
    if unit == "day":
        return span
    if unit == "week":
        monday = first - timedelta(days=first.weekday())
        return _at(monday, tz), _at(monday + timedelta(days=7), tz)
    if unit == "weekend":
        if rel == "before":
            saturday = _saturday_begun(first - timedelta(days=2))
        elif rel == "after":
            saturday = last + timedelta(days=(5 - last.weekday()) % 7 or 7)
        else:
            saturday = first - timedelta(days=first.weekday()) + timedelta(days=5)
        return _at(saturday, tz), _at(saturday + timedelta(days=2), tz)
    anchor = first if rel != "after" else last
    return _months(anchor.year, anchor.month + {"before": -1, "of": 0, "after": 1}[rel], tz)
