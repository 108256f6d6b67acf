"""How a count reads everywhere backscroll says one: ``15,792 records``, ``1 record``. Pure."""

from __future__ import annotations

_IRREGULAR = {"echo": "echoes", "match": "matches", "entry": "entries", "directory": "directories",
              "was": "were", "is": "are"}


def counted(n: int, noun: str) -> str:
    """``n`` with thousands separators and ``noun`` in the number it takes (``counted(2, "file")``: 2 files)."""
    return f"{n:,} {noun_for(n, noun)}"


def noun_for(n: int, noun: str) -> str:
    """``noun`` in the number ``n`` takes (``noun_for(2, "echo")``: echoes)."""
    return noun if n == 1 else _IRREGULAR.get(noun, noun + "s")


def page_span(first: int, last: int, total: int, noun: str = "record") -> str:
    """Which of ``total`` a page holds: ``records 3–7 of 19``, or ``record 5 of 19`` for one."""
    return f"{noun} {first:,} of {total:,}" if first == last else f"{noun}s {first:,}–{last:,} of {total:,}"
