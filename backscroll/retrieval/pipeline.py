"""One ranking, on any store (a ``Source``): ranked lists propose candidates (``lists``), every candidate is
scored on the same evidence and ordered (``order``: fusion, priors, near-duplicates, session evidence, verbatim
holders, echoes), then shaped into hits and judged against the weak line (``results``, ``judgement``).
docs/ranking.md, "The pipeline", tells the whole story.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.errors import SemanticUnavailableError
from backscroll.indexes.lexical_schema import LexicalQuery
from backscroll.retrieval import results, time_window
from backscroll.retrieval.echo_order import apart
from backscroll.retrieval.fusion import Fused
from backscroll.retrieval.lists import SearchOptions, by_meaning, by_words, depth, echoes_included, exchanges
from backscroll.retrieval.order import ordered, topical
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.ranking import RANKING
from backscroll.retrieval.source import Source
from backscroll.types import Filters, SearchResult

__all__ = ["SearchOptions", "depth", "run"]


def run(source: Source, plan: QueryPlan, filters: Filters, opts: SearchOptions, mode: str) -> SearchResult:
    """One ranking of ``source`` under ``filters`` in ``mode`` (lexical when it has no vectors to rank with)."""
    if plan.date_only:
        return dated(source, plan, filters, opts, mode)
    notes: list[str] = []
    semantic = by_meaning(source, plan, filters, mode, notes, depth(opts)) if mode != "lexical" else None
    if semantic is None and mode == "semantic":
        raise SemanticUnavailableError("no embeddings exist yet, so semantic search cannot run",
                                       hint="run `backscroll index` (or `backscroll embed`), or search in lexical mode",
                                       reason="no-embeddings")
    mode = mode if semantic is not None else "lexical"
    plan, dropped = phrases_held(source, plan, filters, mode)
    ranked = by_words(source, plan, filters, opts) if mode != "semantic" else {}
    calls: dict[int, tuple[int, ...]] = {}
    if "tool" in ranked:
        found = exchanges(source, plan, ranked["tool"], filters)
        ranked["tool"], calls = found.ranked, found.calls
    proposed = {*(i for items in ranked.values() for i in items), *(i for i, _c in semantic or ())}
    facts = source.facts(sorted(proposed))
    w = RANKING.weights(plan.shape)
    fused, by_id, ranked_with = ordered(source, plan, ranked, facts, semantic, mode, w, calls)
    # (words only echoes hold count as held when echoes are searched too)
    missing, held = (source.unheld(topical(plan)) if mode != "semantic" and not echoes_included(filters, opts)
                     else ((), 1.0))
    wanted = opts.limit * 10 if opts.by_session else opts.limit * (1 if opts.weak else 2)  # (one session's many)
    asked = (semantic is not None and filters.role != "tool"
             and filters.content_type not in ("tool", "reasoning"))  # a meaning ranking could speak
    suggested = source.suggestions(missing) if missing else {}
    known = results.known_share(source, topical(plan), held, suggested, mode)
    strong, weak = results.judged(results.hits(source, plan, fused, opts, wanted), plan, by_id, w, held,
                                  [c for _i, c in semantic or ()] if asked else None, known, opts.weak)
    hits, sessions = results.grouped(source, apart(strong), opts)  # (the weak ones gone, two echoes may meet)
    weak = weak[:opts.limit]
    said = results.notes(plan, filters, hits, weak, missing, suggested, dropped)
    return SearchResult(
        query=plan.text, mode=mode, filters=filters, results=results.renumber(hits),
        weak_matches=results.renumber(weak), sessions=sessions,
        echoes_hidden=results.hidden_echoes(source, plan, filters, opts, fused, ranked_with),
        dropped_filters=("phrase",) if dropped else (), notes=(*notes, *said),
    )


def phrases_held(source: Source, plan: QueryPlan, filters: Filters, mode: str
                 ) -> tuple[QueryPlan, tuple[tuple[str, ...], ...]]:
    """The plan as ranked, and the quoted phrases dropped: a phrase no record holds is a hint, not a wall;
    meaning has no phrases."""
    if not plan.phrases:
        return plan, ()
    if not source.holds_phrases(LexicalQuery(plan.lexical_terms, plan.phrases), filters):
        return replace(plan, phrases=()), plan.phrases
    return (replace(plan, phrases=()) if mode == "semantic" else plan), ()


def dated(source: Source, plan: QueryPlan, filters: Filters, opts: SearchOptions, mode: str) -> SearchResult:
    """A question about a time alone ("what did I do yesterday?"): what each session of that time set out to
    do (its first prompt in the window), the most recent first; the date is the whole evidence."""
    from backscroll.retrieval import by_session

    assert plan.when is not None
    window = time_window.narrowed(filters, plan.when)
    ids = [] if window is None else source.first_prompts(window, opts.limit * (by_session.PER_SESSION + 1))
    fused = [Fused(i, 1.0, ("date",)) for i in ids]
    hits = [replace(h, match="date", strength=1.0)  # the snippet: how the prompt begins
            for h in results.hits(source, replace(plan, terms=()), fused, opts, len(ids))]
    hits, sessions = results.grouped(source, hits, opts)
    return SearchResult(query=plan.text, mode=mode, filters=filters, results=results.renumber(hits),
                        notes=(time_window.dated_note(plan.when, bool(hits)),), sessions=sessions)
