"""Did you mean: for a query word no record holds, the indexed word a typo or two away from it, and the other
spelling of a word British and American English spell apart ("serialise", "serialize").

Candidates are the words of records Tantivy's fuzzy query finds for the word; the nearest by
Damerau-Levenshtein distance (rapidfuzz) wins, then the more common one: one edit away for a word of up to six
letters, two for a longer one ("spiked" is not "speed", nor "outage" "usage").
Only plain words of a sensible length that are no word of English ("leap" is not a typo of "lead") nor of Chinese or
Japanese (a run of kana is no typo of another) are looked at: a
token or a key pasted into a query is never echoed back. A word with accents is no typo of a plain-ASCII word but
itself without them, and letters of a hash are no correction.
The British and American spellings come from breame's word list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

MAX_WORD = 20
SHORT = 6  # a word of up to this many letters is one edit from its correction; a longer one, two at most


def worth_suggesting(word: str) -> bool:
    """A plain word of a sensible length that is no word of English: "leap" is not a typo of "lead"."""
    from backscroll.indexes.unspaced import unspaced
    from backscroll.retrieval.everyday import english

    return word.isalpha() and 4 <= len(word) <= MAX_WORD and not unspaced(word) and not english(word)


def nearest(word: str, candidates: Iterable[str], doc_freq: Callable[[str], int]) -> str | None:
    """The candidate nearest ``word`` (one edit for short words, two for long), or None. Pure but for
    ``doc_freq``, which breaks ties toward the word more records hold."""
    from rapidfuzz.distance import DamerauLevenshtein

    limit = 1 if len(word) <= SHORT else 2
    plain = None if word.isascii() else unaccented(word)  # ("café" may mean "cafe", never "cafd"; "zürichh" "zürich")
    scored = []
    for cand in set(candidates):
        if cand == word or not cand.isalpha() or (plain and cand.isascii() and cand != plain) or hex_fragment(cand):
            continue
        d = DamerauLevenshtein.distance(word, cand, score_cutoff=limit)
        if d <= limit:
            scored.append((d, -doc_freq(cand), cand))
    return min(scored)[2] if scored else None


def unaccented(word: str) -> str:
    """``word`` without its accents ("naïve": "naive"). Pure."""
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def hex_fragment(word: str) -> bool:
    """Whether ``word`` is letters of a hash or an id cut apart by the tokenizer ("cafd", "bdef"), no word of
    English ("face", "decade" are). Pure but for the word list, read once."""
    from backscroll.retrieval.everyday import english

    return set(word) <= set("abcdef") and not english(word)


def other_spellings(word: str) -> tuple[str, ...]:
    """The word as the other side of the Atlantic spells it ("optimising": "optimizing"), or nothing."""
    from breame.data.spelling_constants import AMERICAN_ENGLISH_SPELLINGS, BRITISH_ENGLISH_SPELLINGS

    found = (BRITISH_ENGLISH_SPELLINGS.get(word), AMERICAN_ENGLISH_SPELLINGS.get(word))
    return tuple(dict.fromkeys(w.lower() for w in found if w and w.lower() != word))


def surely_a_typo(word: str, meant: str) -> bool:
    """Whether ``meant`` is so near ``word`` (one edit, in a word of six letters or more) that the word is a
    misspelling of it rather than a name the history never saw ("harbor" for "harbour", but not "redis"
    for "reds" nor "grafana" for "grana"). Pure."""
    from rapidfuzz.distance import DamerauLevenshtein

    return len(word) >= 6 and DamerauLevenshtein.distance(word, meant, score_cutoff=1) <= 1
