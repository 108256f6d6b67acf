"""Everyday words: the words every coding project uses whatever it is about ("test", "error", "commit", "fix"),
from public data (``everyday.tsv``, written by ``bench/everyday_words.py`` from agent sessions and commit messages
of many repositories). A word that is everyday tells little of what a question is about, however rare it is in
one history. Pure, but for reading the list once.
"""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def shares() -> dict[str, float]:
    """How everyday each word of coding work is, by its English stem, 0..1 (the share of repositories whose
    sessions or commit messages say it often)."""
    text = resources.files("backscroll.retrieval").joinpath("everyday.tsv").read_text()
    pairs = (line.split("\t") for line in text.splitlines() if line and not line.startswith("#"))
    return {word: float(share) for word, share in pairs}


def everyday(word: str) -> float:
    """How everyday ``word`` is, 0..1."""
    from backscroll.indexes.lexical_schema import stem

    return shares().get(stem(word), 0.0)


PLAIN_ENGLISH = 5000  # the shipped model's vocabulary lists whole English words most common first from about 2,000


@functools.cache
def _vocabulary() -> str:
    """The shipped model's vocabulary as its tokenizer file writes it (``"word": id``, in id order)."""
    text = resources.files("backscroll.indexes").joinpath("model", "tokenizer.json").read_text()
    return text[text.index('"vocab"') + len('"vocab"'):]


@functools.cache
def common_words() -> frozenset[str]:
    """The shipped model's first ``PLAIN_ENGLISH`` vocabulary entries. Its tokenizer file lists them in id order,
    so the read stops there (a search pays ~10 ms for it, not the ~40 of parsing the whole file)."""
    import json
    import re

    out = set()
    entry = re.compile(r'"((?:[^"\\]|\\.)*)":\s*(\d+)')
    for m in entry.finditer(_vocabulary()):
        if int(m.group(2)) >= PLAIN_ENGLISH:
            break
        out.add(json.loads(f'"{m.group(1)}"') if "\\" in m.group(1) else m.group(1))
    return frozenset(out)


def plain_english(word: str) -> bool:
    """One of the three thousand or so most common words of English ("instead", "guide"): a history that never
    says it may still be about what a question asks (a small one says few words), where a history that never
    says "terraform" is not."""
    return word in common_words()


def english(word: str) -> bool:
    """A word of English ("leap", "spiked"), a whole word of the shipped model's vocabulary (about 21,700 with common
    names): one a history lacks is not a typo of a word it holds ("lead")."""
    return word.isascii() and word.isalpha() and f'"{word}":' in _vocabulary()
