"""How much a query word weighs and whether the history holds it: the rules every store counts by (the local
index, ``lexical_search``; the team archive, ``team.source``). Pure.

A word is held by a record as itself, as its English stem, as a capitalised piece of an identifier, or, when the
history never says the word itself, as the start of a longer word (``postgres``: postgresql). Its weight is BM25's
idf of the records holding it as itself or its stem; a word no record holds (query echoes aside) has none.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PREFIX_MIN = 4  # query words this long also match longer indexed words they begin ...
PREFIX_RARE = 3  # ... when fewer records than this hold the word itself ("bread" is not "breadcrumb")
PREFIX_EXPANSIONS = 8


@dataclass(frozen=True)
class WordCounts:
    """What a history says of one query word."""

    own: int  # records holding it as itself or its stem (the larger count)
    parts: int  # records holding it as a piece of an identifier
    expansions: tuple[str, ...]  # longer words it begins, most frequent first (only for a rare word)
    only_echoes: bool = False  # only query echoes hold it


def expands(term: str, own: int) -> bool:
    """Whether longer words ``term`` begins are looked for."""
    return len(term) >= PREFIX_MIN and not term.isdigit() and own < PREFIX_RARE


def idf(n: int, df: int) -> float:
    return math.log(1 + (max(n, 1) - df + 0.5) / (df + 0.5))


def weight(n: int, counts: WordCounts, echoes: bool = False) -> float | None:
    """The word's idf in a history of ``n`` records, or None when no record holds it (``echoes``: query echoes
    count as records)."""
    if counts.own == 0 and not counts.parts and not counts.expansions:
        return None
    if counts.only_echoes and not echoes:
        return None
    return idf(n, counts.own)


def holds(term: str, counts: WordCounts, stemmed: str, words: set[str], stems: set[str], parts: set[str]) -> bool:
    """Whether a record with these ``words``, ``stems`` and identifier ``parts`` holds ``term`` (``stemmed``)."""
    if term in words or stemmed in stems or term in parts:
        return True
    return counts.own == 0 and any(e in words for e in counts.expansions)


def unheld(weights: Mapping[str, float | None], n: int) -> tuple[tuple[str, ...], float]:
    """The words no record holds, and the idf-weighted share of the query the others make up: an unheld word
    weighs as much as the rarest word can."""
    if not weights:
        return (), 1.0
    rarest = math.log(1 + (max(n, 1) + 0.5) / 0.5)
    missing = tuple(t for t, w in weights.items() if w is None)
    held = sum(w for w in weights.values() if w is not None)
    total = held + rarest * len(missing)
    return missing, (held / total if total else 1.0)


def shares_of(weights: Mapping[str, float], held: Mapping[int, Iterable[str]]) -> dict[int, float]:
    total = sum(weights.values()) or 1.0
    return {i: min(1.0, sum(w for t, w in weights.items() if t in set(ts)) / total) for i, ts in held.items()}
