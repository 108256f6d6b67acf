"""Candidates and their evidence: what each record a ranked list proposed carries into fusion.

Words: the idf-weighted share of the query's words it holds (the lexical index's ``coverage``),
whichever list proposed it. Meaning: its calibrated similarity to the query
(``ranking.semantic_quality``), looked up for every embedded candidate, also those only the lexical
lists found; ``None`` for rows that are never embedded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from backscroll.indexes.lexical import LexicalIndex, LexicalQuery
from backscroll.retrieval.fusion import Candidate
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.ranking import semantic_quality
from backscroll.store.db import Store

EMBEDDED_TYPES = ("text", "summary")  # the kinds that have vectors (meaning.EMBEDDED_TYPES_SQL)


@dataclass(frozen=True)
class Similarity:
    """The query's cosine to every embedded record: a lookup, and the mean and spread of all of them."""

    cosines: Callable[[Iterable[int]], dict[int, float]]  # record ids -> cosine (the embedded ones)
    mean: float
    std: float


@dataclass(frozen=True)
class Facts:
    """What the priors and the evidence need to know of a candidate record."""

    timestamp: str | None
    content_type: str
    head: str  # the first 400 characters of its text


def fetch_facts(store: Store, ids: list[int]) -> dict[int, Facts]:
    out = {}
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for rid, ts, ctype, text in store.conn.execute(
                f"SELECT id, timestamp, content_type, substr(text, 1, 400) FROM records WHERE id IN ({marks})", chunk):
            out[rid] = Facts(ts, ctype, text or "")
    return out


def candidates(lex: LexicalIndex, plan: QueryPlan, ranked: dict[str, list[int]], facts: dict[int, Facts],
               semantic: list[tuple[int, float]] | None, similarity: Similarity | None,
               mode: str) -> dict[str, list[Candidate]]:
    """Every proposed record with its evidence, by kind: ``main`` (prose and tool rows) and ``echo``.

    Words: the idf-weighted share of the query's words the record holds (``coverage``), whichever
    list proposed it; none in semantic mode. Meaning: the calibrated cosine of every embedded
    candidate, also those only the lexical lists found (``similarity``); ``None`` for rows that are
    never embedded and in lexical mode.
    """
    main_order = [*ranked.get("prose", ()), *(i for i, _c in semantic or ()), *ranked.get("tool", ())]
    ids = sorted(set(main_order) | set(ranked.get("echo", ())))
    words = lex.coverage(LexicalQuery(plan.lexical_terms), ids) if mode != "semantic" else dict.fromkeys(ids, 0.0)
    cosines: dict[int, float] = {}
    if semantic is not None:
        cosines = dict(semantic)
        if similarity is not None:
            cosines.update(similarity.cosines([i for i in ids if i not in cosines]))
    mean, std = (similarity.mean, similarity.std) if similarity is not None else (None, None)
    found: dict[int, list[str]] = {}
    for name, items in (("lexical", [*ranked.get("prose", ()), *ranked.get("tool", ()), *ranked.get("echo", ())]),
                        ("semantic", [i for i, _c in semantic or ()])):
        for i in items:
            if name not in found.setdefault(i, []):
                found[i].append(name)

    def candidate(i: int) -> Candidate:
        fact = facts.get(i)
        embedded = semantic is not None and fact is not None and fact.content_type in EMBEDDED_TYPES
        meaning = semantic_quality(cosines[i], mean, std) if embedded and i in cosines else 0.0 if embedded else None
        return Candidate(i, words.get(i, 0.0), meaning, tuple(found.get(i, ())))

    return {"main": [candidate(i) for i in dict.fromkeys(main_order)],
            "echo": [candidate(i) for i in dict.fromkeys(ranked.get("echo", ()))]}
