"""Everyday requests: a prompt that names nothing a past session could be about ("yes", "try again", "run the
tests", "fix the lint errors"). A recall hook speaks unasked, and a history holds such words somewhere ("Yes, it
works", ``k_means``), so such a prompt recalls nothing. It is one when it names no identifier, path, flag or number,
and it says one word alone or only words that are question words, everyday words of coding work (``everyday.tsv``)
or plain English. Pure, but for reading the word lists once. docs/recall-hooks.md tells how it was measured.
"""

from __future__ import annotations

import re

from backscroll.retrieval.everyday import everyday, plain_english
from backscroll.retrieval.query import ASKING, STOPWORDS

_NAMES = re.compile(r"\d|[/\\]|\w[_.:]\w|[a-z][A-Z]|[A-Z]{2}[a-z]|^-")  # a number, path, identifier, flag
_LEADING = "\"'`([{<*"
_TRAILING = "\"'`)]}>*.,;:!?"
_WORD = re.compile(r"[a-z]{2,}")  # (a letter alone, "k" or the f of "f-strings", says nothing)


def is_everyday(prompt: str) -> bool:
    """Whether ``prompt`` names nothing a past session could be about. A word in another script than Latin, which
    the word lists do not know, counts as naming something."""
    said: list[str] = []
    for raw in prompt.split():
        word = raw.lstrip(_LEADING).rstrip(_TRAILING)
        if not word:
            continue
        if not word.isascii() or _NAMES.search(word):
            return False
        said += [w for w in _WORD.findall(word.lower()) if w not in STOPWORDS and w not in ASKING]
    return len(said) <= 1 or all(everyday(w) > 0 or plain_english(w) for w in said)
