"""When each input of an Aider chat was typed, from the input history beside the chat log. Pure.

Aider's chat log (``.aider.chat.history.md``) gives a time only to each session's start. Its input history
(``.aider.input.history``, prompt_toolkit's file history, in the same folder) holds every input typed at its
prompt, each under the local time it was typed (``# 2025-07-15 11:41:32.156157``, then its lines, each after a
``+``). An input of a session takes the time of the next entry, among those typed between the session's start
and the next one's, that holds the same text; the replies and notes after it take that time too (a lower bound:
a reply comes after its question). Answers typed to a question (``y``, ``n``) are entries too and are passed
over; an input no entry holds (one Aider logs again itself) keeps the time before it.
"""

from __future__ import annotations

import re
from datetime import datetime

from backscroll.dates import format_ts

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


def _words(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


class Clock:
    """The time of one session's records as its inputs are met: each input's own when an entry holds it."""

    def __init__(self, typed: list[Typed], start: str | None):
        self.typed = typed
        self.next = 0
        self.now = start

    def at(self, text: str) -> str | None:
        """The stored timestamp of the input ``text`` (in order of the log), and of what follows it."""
        wanted = _words(text)
        for i in range(self.next, len(self.typed)):
            if _words(self.typed[i][1]) == wanted:
                self.next = i + 1
                self.now = format_ts(self.typed[i][0].astimezone())
                break
        return self.now
