"""Snippets: the part of a record's text where the query's words are densest, with their offsets. Pure."""

from __future__ import annotations

import re

from backscroll.indexes.unspaced import unspaced
from backscroll.sanitize import REDACTION_MARK, composed, short_of_marks

WIDTH = 240


def _pattern(terms: tuple[str, ...], stems: tuple[str, ...]) -> re.Pattern | None:
    words = sorted({w for w in (*terms, *stems) if w}, key=len, reverse=True)
    if not words:
        return None
    # A word as the index reads it (letters and digits, so ``_`` and punctuation split): a hit is a word that
    # begins with a query word or its stem; a word of a script written without spaces is a hit where it stands.
    spaced = [re.escape(w) for w in words if not unspaced(w)]
    as_written = [re.escape(w) for w in words if unspaced(w)]
    either = ([r"(?<![^\W_])(?:" + "|".join(spaced) + r")[^\W_]*"] if spaced else []) + as_written
    return re.compile("|".join(either), re.IGNORECASE)


def make_snippet(text: str, terms: tuple[str, ...], stems: tuple[str, ...] = (), width: int = WIDTH
                 ) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A one-line excerpt of ``text`` around the densest cluster of query words, and highlight spans.

    Falls back to the start of the text when no word matches (a semantic-only hit).
    """
    flat = " ".join(composed(text).split())  # (as words are read)
    if len(flat) <= width + width // 3:  # it fits (near enough): the whole text, nothing cut
        pat = _pattern(terms, stems)
        return flat, tuple((m.start(), m.end()) for m in pat.finditer(flat)) if pat else ()
    pat = _pattern(terms, stems)
    matches = list(pat.finditer(flat)) if pat else []
    if not matches:
        cut = short_of_marks(flat[:width]) if len(flat) > width else flat
        return (cut + "…" if len(flat) > len(cut) else cut), ()
    start = _densest(matches, width)
    if start > 0:  # never start mid-word: back to the word's start when near, else on to the next word
        space = flat.rfind(" ", 0, start + 1)
        if space >= 0 and start - space < 20:
            start = space + 1
        elif flat[start - 1] != " ":
            nxt = flat.find(" ", start)
            start = nxt + 1 if 0 <= nxt < start + 40 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    start = _mark_start(flat, start)
    end = start + len(short_of_marks(flat[start:end])) if end < len(flat) else end
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(flat) else ""
    body = flat[start:end]
    spans = tuple((m.start() - start + len(prefix), m.end() - start + len(prefix))
                  for m in matches if m.start() >= start and m.end() <= end)
    return prefix + body + suffix, spans


def _mark_start(flat: str, start: int) -> int:
    """``start``, or the start of the redaction mark it falls inside (``ACTED:aws-key]`` reads as a secret's end)."""
    before = flat.rfind(REDACTION_MARK, max(0, start - 64), start + len(REDACTION_MARK) - 1)
    return before if 0 <= before < start and "]" not in flat[before:start] else start


def _densest(matches: list[re.Match], width: int) -> int:
    """Where the window of ``width`` that holds the most distinct query words (then the most words) starts, tried a
    little before each of the first 200 matches; the first such window wins. One pass over sliding bounds (the
    matches are in order and do not overlap), where counting each window anew took a second on -n 1000."""
    starts, ends = [m.start() for m in matches], [m.end() for m in matches]
    words = [m.group(0).lower() for m in matches]
    held: dict[str, int] = {}
    lo = hi = 0  # the window: matches[lo:hi], those that begin at its start or after and end inside it
    best_start, best_score = 0, -1
    for i in range(min(len(matches), 200)):
        start = max(0, starts[i] - width // 5)
        while lo < len(matches) and starts[lo] < start:
            if lo < hi:
                held[words[lo]] -= 1
                if not held[words[lo]]:
                    del held[words[lo]]
            lo += 1
        hi = max(hi, lo)
        while hi < len(matches) and ends[hi] <= start + width:
            held[words[hi]] = held.get(words[hi], 0) + 1
            hi += 1
        score = len(held) * 10 + (hi - lo)
        if score > best_score:
            best_start, best_score = start, score
    return best_start
