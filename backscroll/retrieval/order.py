"""The order of the candidates: fused on their evidence (``fusion``), scaled by the priors (kind, length, a date
in the query), near-duplicates collapsed, supported by their session neighbours (hybrid), the records holding
the query word for word first, and echoes interleaved when they were proposed. Every constant is in
``ranking.RANKING``; docs/ranking.md, "The pipeline", tells the whole story.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.dates import parse_ts
from backscroll.indexes.lexical_schema import LexicalQuery, analyze
from backscroll.retrieval import priors, time_window
from backscroll.retrieval.candidates import candidates
from backscroll.retrieval.echo_order import interleave
from backscroll.retrieval.fusion import Candidate, Fused, Weights, fuse, word_confidence
from backscroll.retrieval.query import ASKING, STOPWORDS, QueryPlan
from backscroll.retrieval.ranking import RANKING
from backscroll.retrieval.session_evidence import with_session_evidence
from backscroll.retrieval.source import Facts, Source

VERBATIM_DEPTH = 50  # how far down the fused list a verbatim holder is looked for
VERBATIM_WORDS = 4  # a pasted message is this long; three keywords in a row are no quote


def ordered(source: Source, plan: QueryPlan, ranked: dict[str, list[int]], facts: dict[int, Facts],
            semantic: list[tuple[int, float]] | None, mode: str, w: Weights,
            calls: dict[int, tuple[int, ...]] | None = None) -> tuple[list[Fused], dict[int, Candidate], Weights]:
    """The fused ranking, every candidate by id, and the weights it ranked with (``w`` with this query's word
    confidence, in hybrid mode). ``calls``: each tool output's calls (``lists.exchanges``)."""
    cands = candidates(source, plan, ranked, facts, semantic, mode, calls)
    if mode == "hybrid":
        w = replace(w, words=word_confidence(cands["main"], full=RANKING.words_full, power=RANKING.words_confidence))
    main = collapse(with_priors(plan, fuse(cands["main"], w), facts), facts)
    if mode == "hybrid":
        near = source.neighbours(facts, [f.id for f in main], RANKING.session_reach)
        main = with_session_evidence(main, near, weight=RANKING.session_weight, count=RANKING.session_records)
    if mode != "semantic":
        main = verbatim_first(source, plan, main)
    by_id = {c.id: c for kind in cands.values() for c in kind}
    return interleave(main, ranked_echoes(plan, cands["echo"], facts, w)), by_id, w


def with_priors(plan: QueryPlan, fused: list[Fused], facts: dict[int, Facts]) -> list[Fused]:
    """Scale fused scores by the record's kind and length and its closeness to a date in the query; re-sort."""
    r = RANKING
    scored = []
    for n, f in enumerate(fused):
        fact = facts.get(f.id, Facts(None, "tool", "", ("", "")))
        closeness = (time_window.closeness(parse_ts(fact.timestamp), plan.when)
                     if plan.when is not None and fact.timestamp else None)
        factor = priors.factor(fact.content_type, fact.head, closeness, full_words=r.filler_words,
                               time_boost=r.time_boost)
        scored.append((-f.score * factor, n, replace(f, score=f.score * factor)))
    return [f for _s, _n, f in sorted(scored, key=lambda x: (x[0], x[1]))]


def topical(plan: QueryPlan) -> LexicalQuery:
    """The query's words without its stopwords and asking words: "of" or "decide" missing from a history says
    nothing of its topics."""
    return LexicalQuery(tuple(t for t in plan.lexical_terms if t not in STOPWORDS and t not in ASKING)
                        or plan.lexical_terms)


def verbatim_first(source: Source, plan: QueryPlan, fused: list[Fused]) -> list[Fused]:
    """The records that hold the query word for word (an error message, a path, identifiers in their order)
    before those that hold fewer of its words plus meaning. Not for a few keywords, nor for questions:
    their wording is the asker's own, and a record that repeats it is an earlier asking, not the answer."""
    words = tuple(analyze(plan.meaning or plan.text))
    if plan.question or len(words) < (2 if plan.shape == "identifier" else VERBATIM_WORDS):
        return fused
    held = source.holding(words, [f.id for f in fused[:VERBATIM_DEPTH]])
    if not held:
        return fused
    return [f for f in fused if f.id in held] + [f for f in fused if f.id not in held]


def ranked_echoes(plan: QueryPlan, echoes: list[Candidate], facts: dict[int, Facts], w: Weights) -> list[Fused]:
    """Echo candidates by their evidence and priors, near-duplicates collapsed (no session support)."""
    return collapse(with_priors(plan, fuse(echoes, w), facts), facts)


def collapse(fused: list[Fused], facts: dict[int, Facts]) -> list[Fused]:
    """The first of each near-duplicate (the same text twice in a session: Codex message copies)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for f in fused:
        key = facts[f.id].key if f.id in facts else ("", str(f.id))
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
