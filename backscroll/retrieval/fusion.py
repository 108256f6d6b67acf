"""Fusion: one score per candidate from calibrated evidence. Pure.

The ranked lists (lexical prose, lexical tool rows, semantic prose) only *propose* candidates. Every
candidate is then scored on the same two pieces of evidence, whichever list found it:

- ``words`` in [0, 1]: the idf-weighted share of the query's words the record holds (so the one
  rare, telling word counts for more than two common ones);
- ``meaning`` in [0, 1]: its cosine similarity to the query, calibrated from "no evidence" (the
  noise floor) to "a close match"; ``None`` for records without a vector (tool rows and reasoning are
  never embedded; prose may not be embedded yet).

``score = confidence * words + meaning_weight * meaning``, where the confidence
(``word_confidence``) is 1 unless no candidate holds even half of the query's words (hybrid search).
Scores, not ranks, are added: rank fusion (RRF, k = 60) is so flat that the rank-1 record of *both*
lists lost to the rank-3 of one once a 6 % prior was applied, and two weak appearances (rank 21 and
rank 9) beat one strong one. A row that has no vector counts its words as if meaning agreed in part
(``unembedded_meaning``), so a tool output holding every query word is not buried by prose that is
merely found twice.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    id: int
    words: float  # idf-weighted share of the query's words the record holds, 0..1
    meaning: float | None  # calibrated similarity 0..1; None when the record has no vector
    lists: tuple[str, ...]  # the lists that proposed it, in the order given: "lexical", "semantic"
    cosine: float | None = None  # the raw similarity behind ``meaning`` (for the hit's ``strength``)
    by_call: bool = False  # a tool output whose words evidence is all its call's (it holds none itself)
    held: frozenset[str] = frozenset()  # the query's words it holds (its call's too, for a tool output)


@dataclass(frozen=True)
class Weights:
    """How the evidence adds up (the values and why are in ``ranking.Ranking``)."""

    meaning: float  # weight of meaning against words (words count 1)
    unembedded_meaning: float  # share of ``meaning`` a row without a vector is credited, from its words
    words: float = 1.0  # how much the words evidence counts for this query (``word_confidence``)


@dataclass(frozen=True)
class Fused:
    id: int
    score: float
    lists: tuple[str, ...]  # the lists that found it, the stronger evidence first
    own: float | None = None  # its own evidence, when ``score`` also holds its neighbours' support

    @property
    def evidence(self) -> float:
        """What the record itself carries (echoes are weighed against this, not against the support)."""
        return self.score if self.own is None else self.own


def words_evidence(c: Candidate, w: Weights) -> float:
    """The candidate's share of the query's words times how much words count for this query
    (``Weights.words``)."""
    return w.words * c.words


def word_confidence(candidates: list[Candidate], *, full: float, power: float) -> float:
    """How much the words evidence counts for this query, in [0, 1]: 1 when some candidate holds at
    least ``full`` of the query's words, else ``(best / full) ** power``. When no record holds even half
    of a question's words, the shares the candidates do hold come from its everyday words ("how long",
    "keep", "old"), which tell a paraphrase's answer from nothing: meaning decides."""
    best = max((c.words for c in candidates), default=0.0)
    return min(1.0, best / full) ** power if full > 0 else 1.0


def score(c: Candidate, w: Weights) -> float:
    """The evidence a candidate carries (see the module docstring)."""
    words = words_evidence(c, w)
    if c.meaning is None:
        return words * (1 + w.unembedded_meaning * w.meaning)
    return words + w.meaning * c.meaning


def _lists(c: Candidate, w: Weights) -> tuple[str, ...]:
    if len(c.lists) < 2:
        return c.lists
    words = words_evidence(c, w)
    meaning = w.meaning * (c.meaning or 0.0)
    return tuple(sorted(c.lists, key=lambda n: -(words if n == "lexical" else meaning)))


def fuse(candidates: list[Candidate], w: Weights) -> list[Fused]:
    """Candidates by score, best first; ties keep the order given (so results are deterministic)."""
    scored = [(-score(c, w), n, c) for n, c in enumerate(candidates)]
    return [Fused(c.id, -s, _lists(c, w)) for s, _n, c in sorted(scored, key=lambda x: (x[0], x[1]))]
