"""Did you mean: for a query word no record holds, the indexed word a typo or two away from it.

Candidates are the words of records Tantivy's fuzzy query finds for the word; the nearest by
Damerau-Levenshtein distance (rapidfuzz) wins, then the more common one. Only plain words of a
sensible length are looked at: a token or a key pasted into a query is never echoed back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

MAX_WORD = 20


def worth_suggesting(word: str) -> bool:
    return word.isalpha() and 4 <= len(word) <= MAX_WORD


def nearest(word: str, candidates: Iterable[str], doc_freq: Callable[[str], int]) -> str | None:
    """The candidate nearest ``word`` (one edit for short words, two for long), or None. Pure but for
    ``doc_freq``, which breaks ties toward the word more records hold."""
    from rapidfuzz.distance import DamerauLevenshtein

    limit = 1 if len(word) < 6 else 2
    scored = []
    for cand in set(candidates):
        if cand == word or not cand.isalpha():
            continue
        d = DamerauLevenshtein.distance(word, cand, score_cutoff=limit)
        if d <= limit:
            scored.append((d, -doc_freq(cand), cand))
    return min(scored)[2] if scored else None


def surely_a_typo(word: str, meant: str) -> bool:
    """Whether ``meant`` is so near ``word`` (one edit, in a word of six letters or more) that the word is a
    misspelling of it rather than a name the history never saw ("harbor" for "harbour", but not "redis"
    for "reds" nor "grafana" for "grana"). Pure."""
    from rapidfuzz.distance import DamerauLevenshtein

    return len(word) >= 6 and DamerauLevenshtein.distance(word, meant, score_cutoff=1) <= 1
