"""Candidates and their evidence: what each record a ranked list proposed carries into fusion.

Words: the idf-weighted share of the query's words it holds (the lexical index's ``coverage``),
whichever list proposed it; a tool output also counts the words of its call (``tool_exchange``).
Meaning: its calibrated similarity to the query (``ranking.semantic_quality``: by its cosine and its
place among the closest records), looked up for every embedded candidate, also those only the lexical
lists found; ``None`` for rows that are never embedded. The local store's facts and neighbours are read
here too (``fetch_facts``, ``fetch_neighbours``: ``local.LocalSource``).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping

from backscroll.indexes.lexical import LexicalQuery
from backscroll.indexes.lexical_search import shares
from backscroll.retrieval.fusion import Candidate
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.ranking import semantic_quality
from backscroll.retrieval.source import Facts, Source
from backscroll.store.db import Store
from backscroll.types import EMBEDDED_TYPES


def fetch_facts(store: Store, ids: list[int]) -> dict[int, Facts]:
    out = {}
    for rid, ts, ctype, text, session, digest, size, record_id in store.record_facts(ids):
        out[rid] = Facts(ts, ctype, text or "", (session, digest), size, record_id)
    return out


def fetch_neighbours(store: Store, facts: dict[int, Facts], ids: Iterable[int], reach: int) -> dict[int, set[int]]:
    """For each of ``ids``, the others of its session at most ``reach`` records away in the session's
    order (time, then id: ids alone would put a live session's new records after those of every
    session synced beside it, and a record re-read later at the end). Records without a time fall
    back to their ids."""
    by_session: dict[str, list[int]] = {}
    for i in ids:
        if i in facts:
            by_session.setdefault(facts[i].key[0], []).append(i)
    near: dict[int, set[int]] = {}
    for session, members in by_session.items():
        if len(members) < 2:
            continue
        members.sort(key=lambda i: (facts[i].timestamp or "", i))
        for n, a in enumerate(members):
            for b in members[n + 1:]:
                ta, tb = facts[a].timestamp, facts[b].timestamp
                if ta is None or tb is None:
                    close = abs(a - b) <= reach
                else:
                    between = store.records_between(session, (ta, a), (tb, b), reach)
                    close = between < reach
                if not close:
                    break  # the next ones are farther still
                near.setdefault(a, set()).add(b)
                near.setdefault(b, set()).add(a)
    return near


def words_evidence(source: Source, plan: QueryPlan, ids: list[int], calls: Mapping[int, tuple[int, ...]],
                   echoes: bool = False) -> tuple[dict[int, float], set[int], dict[int, frozenset[str]]]:
    """Each record's idf-weighted share of the query's words, a tool output's counting what its call holds
    too (as if the output held them); the outputs whose share is all their call's (they hold none of
    the words); and the words each holds. ``echoes``: words that only query echoes hold count (echoes are
    searched too)."""
    q = LexicalQuery(plan.lexical_terms)
    made_by = {i: calls[i] for i in ids if i in calls}
    if not q.terms:
        return dict.fromkeys(ids, 1.0), set(), {}
    weights, held = source.held(q, sorted({*ids, *(c for cs in made_by.values() for c in cs)}), echoes)
    also = {i: frozenset().union(*(held.get(c, frozenset()) for c in cs)) for i, cs in made_by.items()}
    by_call = {i for i in made_by if also[i] and not held.get(i)}
    every = {i: held.get(i, frozenset()) | also.get(i, frozenset()) for i in ids}
    return shares(weights, held, ids, also, 1.0), by_call, every


def candidates(source: Source, plan: QueryPlan, ranked: dict[str, list[int]], facts: dict[int, Facts],
               semantic: list[tuple[int, float]] | None, mode: str,
               calls: Mapping[int, tuple[int, ...]] | None = None) -> dict[str, list[Candidate]]:
    """Every proposed record with its evidence, by kind: ``main`` (prose and tool rows) and ``echo``.

    Words: the idf-weighted share of the query's words the record holds (``coverage``), whichever
    list proposed it, for a tool output also what the call that produced it holds (``calls``: output
    -> its calls, ``tool_exchange``); none in semantic mode. Meaning: the calibrated cosine of every embedded
    candidate, also those only the lexical lists found (``Source.cosines``), by its place among all of them;
    ``None`` without a meaning ranking and for records without a vector (tool rows and reasoning, which are
    never embedded, and prose not embedded yet).
    """
    def own(i: int) -> tuple[int, str]:
        return (facts[i].size, facts[i].record_id) if i in facts else (0, "")

    def canonical(ids: Iterable[int]) -> list[int]:
        # Equal evidence is ordered alike in every store: the shorter record first (as BM25 prefers it), then by id,
        # an output found by its call's words alone right behind it; a store's own proposing order never decides
        # (docs/ranking.md, "Ties").
        def key(i: int) -> tuple:
            made = [c for c in (calls or {}).get(i, ()) if c in facts] if i in by_call else []
            return (*min(map(own, made)), 1, *own(i)) if made else (*own(i), 0, 0, "")

        return sorted(ids, key=key)

    ids = sorted({*(i for items in ranked.values() for i in items), *(i for i, _c in semantic or ())})
    words, by_call, terms = (words_evidence(source, plan, ids, calls or {}, echoes=bool(ranked.get("echo")))
                             if mode != "semantic" else (dict.fromkeys(ids, 0.0), set(), {}))
    main_order = [*canonical(ranked.get("prose", ())), *(i for i, _c in semantic or ()),
                  *canonical(ranked.get("tool", ()))]
    cosines = dict(semantic or ())
    if semantic is not None:
        embeddable = [i for i in ids if i not in cosines and i in facts and facts[i].content_type in EMBEDDED_TYPES]
        cosines.update(source.cosines(embeddable))
    closest = sorted(-c for c in cosines.values())  # negated: bisect counts the closer ones
    found: dict[int, list[str]] = {}
    for name, items in (("lexical", [*ranked.get("prose", ()), *ranked.get("tool", ()), *ranked.get("echo", ())]),
                        ("semantic", [i for i, _c in semantic or ()])):
        for i in items:
            if name not in found.setdefault(i, []):
                found[i].append(name)

    def meaning(i: int) -> float | None:
        fact = facts.get(i)
        if semantic is None or fact is None or fact.content_type not in EMBEDDED_TYPES or i not in cosines:
            return None
        return semantic_quality(cosines[i], rank=bisect.bisect_left(closest, -cosines[i]) + 1)

    def candidate(i: int) -> Candidate:
        return Candidate(i, words.get(i, 0.0), meaning(i), tuple(found.get(i, ())), cosines.get(i), i in by_call,
                         terms.get(i, frozenset()))

    return {"main": [candidate(i) for i in dict.fromkeys(main_order)],
            "echo": [candidate(i) for i in dict.fromkeys(canonical(ranked.get("echo", ())))]}
