"""Priors: what a record's kind and length say before its words and meaning do. Pure.

They scale a candidate's fused evidence (``fusion.score``), which is why that score must be one
that means something: a prior adjusts the evidence, it never replaces it.

- a date in the query (``temporal``): records inside its window count up to ``1 + time_boost`` times,
  decaying outside it: an October record beats an equally good November one for "in October".
- ``information``: near-empty prose ("Bye!", "Let's go into more detail.") carries the little it
  says, and a one-line answer nearly all it says.
"""

from __future__ import annotations

import re

from backscroll.indexes.lexical_schema import analyze
from backscroll.retrieval.query import STOPWORDS

# "Name: " at the start of a line of a chat log (a speaker, not something the line says).
_SPEAKER = re.compile(r"^\s*[A-Z][\w.'-]{0,30}:\s")


def information(text: str, full_words: int) -> float:
    """The evidence a short prose record can carry, in (0, 1]: 1 from ``full_words`` content words up.

    Content words are the distinct words (as the index reads them, ``analyze``) that are not stopwords,
    after a leading speaker label ("Deborah: "): a name in front of a pleasantry is not content.
    ``sqrt(words / full_words)``.
    """
    body = _SPEAKER.sub("", text[:400], count=1)
    words = set(analyze(body)) - STOPWORDS
    return min(1.0, (max(len(words), 1) / full_words) ** 0.5)


def factor(content_type: str, text: str, closeness: float | None, *, full_words: int, time_boost: float) -> float:
    """How much a record's evidence counts: prose by its length, and any record by its closeness to a date
    in the query (``time_window.closeness``: 1 inside the window)."""
    f = information(text, full_words) if content_type == "text" else 1.0
    return f * (1 + time_boost * closeness) if closeness is not None else f
