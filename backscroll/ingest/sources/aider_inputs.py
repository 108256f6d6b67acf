"""When each input of an Aider chat was typed, from the input history beside the chat log. Pure.

Aider's chat log (``.aider.chat.history.md``) gives a time only to each session's start. Its input history
(``.aider.input.history``, prompt_toolkit's file history, in the same folder) holds every input typed at its
prompt, each under the local time it was typed (``# 2025-07-15 11:41:32.156157``, then its lines, each after a
``+``). The inputs of a session and the entries typed between its start and the next one's are matched in order;
an input takes its entry's time, and the replies and notes after it take that time too (a lower bound: a reply
comes after its question). Answers typed to a question (``y``, ``n``) are entries too and match no input; an input
no entry holds (the history keeps one entry for an input repeated at once) keeps the time before it.
"""

from __future__ import annotations

import re
from datetime import datetime

from backscroll.dates import format_ts, held

FILE_NAME = ".aider.input.history"
MAX_BYTES = 64 * 1024 * 1024  # a larger input history is not read (its chat keeps the session's start time)
_ENTRY = re.compile(r"^# (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?)\s*$")

Typed = tuple[datetime, str]  # an entry: when (local, naive, as Aider wrote it) and what was typed


def entries(text: str) -> list[Typed]:
    """The entries of an input history, in the file's order (lines outside an entry are skipped)."""
    out: list[Typed] = []
    when: datetime | None = None
    lines: list[str] = []
    for line in [*text.split("\n"), "# end"]:
        m = _ENTRY.match(line)
        if m or line == "# end":
            if when is not None:
                out.append((when, "\n".join(lines)))
            when, lines = (_when(m.group(1)) if m else None), []
        elif when is not None and line.startswith("+"):
            lines.append(line[1:].rstrip("\r"))
    return out


def _when(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:  # (no such day: the entry is skipped)
        return None


def within(typed: list[Typed], start: datetime | None, end: datetime | None) -> list[Typed]:
    """The entries typed from ``start`` up to ``end`` (None: no bound), for one session."""
    return [e for e in typed if (start is None or e[0] >= start) and (end is None or e[0] < end)]


def is_time(when: str) -> bool:
    """Whether a session header's ``YYYY-MM-DDTHH:MM:SS`` is a time a clock gives (not 9999-99-99, nor one this
    machine's zone or the index cannot hold: 0001-01-01, 9999-12-31)."""
    try:
        return held(datetime.fromisoformat(when).astimezone()) is not None
    except (ValueError, OverflowError, OSError):
        return False


def header_time(when: str | None) -> str | None:
    """A session header's time (Aider writes the local time, with no zone) as a stored UTC timestamp."""
    return format_ts(datetime.fromisoformat(when).astimezone()) if when else None


def _words(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


def same_text(a: str, b: str) -> bool:
    """Whether two messages hold the same lines (trailing spaces and blank ends aside)."""
    return _words(a) == _words(b)


class Clock:
    """The time of one session's records as its inputs are met. A first reading only collects the inputs (each
    keeps the session's start); ``aligned`` then gives the clock for a second: the inputs and the entries matched
    in order (difflib's matching blocks, so that one input no entry holds cannot pull the rest to a later one of
    the same text), each input at its entry's time or, with none, at the time before it."""

    def __init__(self, typed: list[Typed], start: str | None, times: list[str | None] | None = None):
        self.typed = typed
        self.start = self.now = start
        self.asked: list[str] = []  # the inputs met, in order
        self.times = times  # once aligned: each input's time

    def at(self, text: str) -> str | None:
        """The stored timestamp of the input ``text`` (in order of the log), and of what follows it."""
        self.asked.append(text)
        if self.times is not None and len(self.asked) <= len(self.times):
            self.now = self.times[len(self.asked) - 1]
        return self.now

    def aligned(self) -> Clock:
        """A clock for reading the same inputs again, each at the time it was typed."""
        from difflib import SequenceMatcher

        wanted = ["\n".join(_words(text)) for text in self.asked]
        # (an input repeated at once has no entry of its own: prompt_toolkit keeps no repeat of the last entry)
        own = [i for i, text in enumerate(wanted) if i == 0 or text != wanted[i - 1]]
        entries = ["\n".join(_words(text)) for _when, text in self.typed]
        when: dict[int, str] = {}
        for block in SequenceMatcher(None, [wanted[i] for i in own], entries, autojunk=False).get_matching_blocks():
            for k in range(block.size):
                when[own[block.a + k]] = format_ts(self.typed[block.b + k][0].astimezone())
        times: list[str | None] = []
        now = self.start
        for i in range(len(wanted)):
            now = when.get(i, now)
            times.append(now)
        return Clock(self.typed, self.start, times)
