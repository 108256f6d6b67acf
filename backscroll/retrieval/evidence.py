"""How a hit matched and how strongly: ``match`` (exact | words | command | meaning) and ``strength`` in [0, 1]. Pure.

``exact``: the record holds the query as typed (case and spacing aside), or every phrase it quotes.
``words``: it holds some of the query's words, whichever list proposed it (a common word has more records than the
lexical list proposes, and meaning finds some of the rest). ``command``: a tool output that holds none of the query's
words itself, found by the command that printed it (``tool_exchange``). ``meaning``: only the semantic list found it,
by similarity, and it holds none of the query's words. ``strength`` is the evidence the ranking used, on one scale for
every query: 1 for an exact match, otherwise the larger of the words evidence (the idf-weighted share of the query's
words, before hybrid search's per-query word confidence) and the meaning evidence on the absolute scale (the cosine
from the noise floor to a close match: the ranking also credits a modest cosine by its place among the query's
closest records, which says nothing across queries). Unlike ``score`` it means the same thing from one query to the
next, so the words evidence here also counts the query's words that no record holds (``held``: the share the others
make up), which the ranking leaves out: a record holding "helm rollback" is a full match for ranking "kubernetes helm
rollback" in a history that never mentions kubernetes, but not a full match of the query.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.retrieval.fusion import Candidate, Weights, words_evidence
from backscroll.retrieval.ranking import semantic_quality
from backscroll.types import Hit


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def classify(hit: Hit, query: str, candidate: Candidate | None, weights: Weights, held: float = 1.0,
             quoted: bool = False) -> Hit:
    """``hit`` with ``match`` and ``strength`` set from the evidence its candidate carried; ``held`` is
    the idf-weighted share of the query made up of words some record holds; ``quoted``: the query's
    quoted phrases are held by every record the lexical lists found (what was quoted is what is asked)."""
    if candidate is None or not candidate.lists:
        return hit
    words = words_evidence(replace(candidate, words=candidate.words * held), weights)
    meaning = semantic_quality(candidate.cosine) if candidate.cosine is not None else candidate.meaning or 0.0
    flat_query = _flat(query).strip('"')
    lexical = "lexical" in candidate.lists
    if lexical or candidate.words > 0:  # (only meaning proposed it, but it holds words too)
        if quoted and lexical or flat_query and flat_query in _flat(hit.text):  # (what meaning proposed: unfiltered)
            return replace(hit, match="exact", strength=1.0)
        return replace(hit, match="command" if candidate.by_call else "words", strength=round(max(words, meaning), 3))
    return replace(hit, match="meaning", strength=round(meaning, 3))
