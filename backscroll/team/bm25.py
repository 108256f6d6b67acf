"""The local index's lexical order, computed on the team archive's candidate rows, so that the archive proposes
what the local store proposes. Pure.

The local lexical lists are Tantivy's BM25 (``indexes/lexical_search.py``): each query word on the plain words, on
its English stem (at 0.6) and on the capitalised pieces of identifiers (at 0.5), and the words as a loose phrase
(two to eight of them, at 1.5). Here the same sum is taken over a row's own tokens (``push.archive_words``) with the
archive's word counts. It is close, not equal: Tantivy rounds a field's length to one byte and weighs a loose
phrase by its own rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

K1, B = 1.2, 0.75  # Tantivy's
STEM_BOOST, PARTS_BOOST, PHRASE_BOOST = 0.6, 0.5, 1.5
PHRASE_SLOP = 2


def idf(n: int, df: int) -> float:
    return math.log(1 + (max(n, 1) - df + 0.5) / (df + 0.5)) if df > 0 else 0.0


def saturated(tf: int, length: int, average: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(average, 1.0))) if tf else 0.0


def phrase_count(tokens: Sequence[str], terms: Sequence[str], slop: int = PHRASE_SLOP) -> int:
    """How many times ``terms`` occur in order in ``tokens``, at most ``slop`` extra tokens apart in all."""
    if not terms:
        return 0
    found, first = 0, terms[0]
    for start, token in enumerate(tokens):
        if token != first:
            continue
        at, spare = start, slop
        for term in terms[1:]:
            window = tokens[at + 1: at + 2 + spare]
            if term not in window:
                break
            step = window.index(term)
            at, spare = at + 1 + step, spare - step
        else:
            found += 1
    return found


def score(terms: Sequence[str], dfs: Mapping[str, tuple[int, int, int]], n: int, average: float,
          tokens: Sequence[str], parts: Sequence[str], stem: Callable[[str], str]) -> float:
    """A row's BM25 for ``terms`` (each with its ``(word, stem, part)`` document frequencies in ``n`` rows); the
    row's plain ``tokens`` in order and its identifier ``parts``; ``average`` the rows' mean token count."""
    length = len(tokens)
    stems = [stem(t) for t in tokens]
    total = 0.0
    for term in terms:
        text_df, stem_df, parts_df = dfs[term]
        total += idf(n, text_df) * saturated(tokens.count(term), length, average)
        total += STEM_BOOST * idf(n, stem_df) * saturated(stems.count(stem(term)), length, average)
        total += PARTS_BOOST * idf(n, parts_df) * saturated(parts.count(term), max(len(parts), 1), 2.0)
    if 2 <= len(terms) <= 8:
        together = phrase_count(tokens, terms)
        if together:
            total += PHRASE_BOOST * sum(idf(n, dfs[t][0]) for t in terms) * saturated(together, length, average)
    return total
