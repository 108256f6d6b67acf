"""One ranking, on any store (a ``Source``): ranked lists propose candidates (``lists``), every candidate is
scored on the same evidence and ordered (``order``: fusion, priors, near-duplicates, session evidence, verbatim
holders, echoes), then shaped into hits and judged against the weak line (``results``, ``judgement``).
docs/ranking.md, "The pipeline", tells the whole story.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.errors import SemanticUnavailableError
from backscroll.indexes.lexical_schema import LexicalQuery
from backscroll.interrupts import check
from backscroll.retrieval import results, time_window
from backscroll.retrieval.fusion import Candidate, Fused, Weights
from backscroll.retrieval.lists import (
    Proposed,
    SearchOptions,
    by_meaning,
    by_words,
    deeper,
    echoes_included,
    exchanges,
)
from backscroll.retrieval.order import ordered
from backscroll.retrieval.query import NOTHING_TO_SEARCH, QueryPlan
from backscroll.retrieval.ranking import RANKING
from backscroll.retrieval.source import Source
from backscroll.types import Filters, SearchResult

__all__ = ["SearchOptions", "run"]


def run(source: Source, plan: QueryPlan, filters: Filters, opts: SearchOptions, mode: str) -> SearchResult:
    """One ranking of ``source`` under ``filters`` in ``mode`` (lexical when it has no vectors to rank with). A call
    that is cancelled stops between its stages (``interrupts.check``)."""
    if plan.date_only:
        return dated(source, plan, filters, opts, mode)
    if plan.asks_nothing:
        return SearchResult(query=plan.text, mode=mode, filters=filters, results=(), notes=(nothing_asked(plan),))
    found = propose(source, plan, filters, opts, mode)
    check()
    w = RANKING.weights(found.plan.shape)
    fused, by_id, ranked_with, keys = ranking(source, found, w)
    check()
    first = {f.id for f in fused}  # (the judgement reads the first ranking alone, however deep a page reads)
    while (len({k[0] for k in keys.values()}) <= opts.limit if opts.by_session else len(fused) <= 2 * opts.limit) and \
            results.full(found, opts.depth) and opts.depth < 5 * opts.limit:
        # A page past the ranking's end: a deeper ranking's records follow, the ranking above them unchanged (and
        # none the same text as one above it: the collapse's key).
        opts = deeper(opts)
        found = propose(source, plan, filters, opts, mode)
        more, more_by_id, _w, more_keys = ranking(source, found, w)
        check()
        seen, said = {f.id for f in fused}, set(keys.values())
        fused += [f for f in more if f.id not in seen and more_keys.get(f.id) not in said]
        by_id, keys = {**more_by_id, **by_id}, {**more_keys, **keys}
    hidden = results.hidden_echoes(source, found.plan, filters, opts, fused, ranked_with)
    check()
    return replace(results.judge(source, found, filters, opts, fused, by_id, w, first, hidden), echoes_hidden=hidden)


def ranking(source: Source, found: Proposed, w: Weights
            ) -> tuple[list[Fused], dict[int, Candidate], Weights, dict[int, tuple[str, str]]]:
    """The ordered candidates of ``found``, each by id, the weights they ranked with, and each one's key (its
    session and its text's hash: what the near-duplicate collapse keeps one of)."""
    facts = source.facts(found.ids)
    fused, by_id, ranked_with = ordered(source, found.plan, found.ranked, facts, found.semantic, found.mode, w,
                                        found.calls)
    return fused, by_id, ranked_with, {f.id: facts[f.id].key for f in fused if f.id in facts}


def nothing_asked(plan: QueryPlan) -> str:
    words = ", ".join(f'"{t}"' for t in plan.terms[:8])
    return (f"{NOTHING_TO_SEARCH}: the query holds only question and common words ({words}); name what it was about, "
            'e.g. "what did we decide about the job queue"')


def propose(source: Source, plan: QueryPlan, filters: Filters, opts: SearchOptions, mode: str) -> Proposed:
    """What the lists propose: by meaning (lexical mode when the source has no vectors), by words (the quoted
    phrases no record holds dropped first), the tool list's outputs joined to their calls."""
    notes: list[str] = []
    semantic = by_meaning(source, plan, filters, mode, notes, opts.depth) if mode != "lexical" else None
    if semantic is None and mode == "semantic":
        raise SemanticUnavailableError("no embeddings exist yet, so semantic search cannot run",
                                       hint="run `backscroll embed` (`backscroll index` embeds too, unless "
                                            "embedding is off), or search in lexical mode",
                                       reason="no-embeddings")
    check()
    mode = mode if semantic is not None else "lexical"
    plan = respelled(source, plan, notes) if mode != "semantic" else plan
    plan, dropped = phrases_held(source, plan, filters, mode, echoes_included(filters, opts))
    ranked = by_words(source, plan, filters, opts) if mode != "semantic" else {}
    calls: dict[int, tuple[int, ...]] = {}
    if "tool" in ranked:
        joined = exchanges(source, plan, ranked["tool"], filters)
        ranked["tool"], calls = joined.ranked, joined.calls
    return Proposed(plan, mode, ranked, semantic, calls, dropped, tuple(notes))


def respelled(source: Source, plan: QueryPlan, notes: list[str]) -> QueryPlan:
    """The plan with each query word no record holds spelled as the history spells it, when that is sure: the
    other side of the Atlantic's spelling ("serialise": "serialize"), or a typo's one-edit correction
    ("transcriptrendrer": "transcriptrenderer"); a note says so. Other unheld words are left as they are (and
    named, with any "did you mean", in the answer's notes)."""
    from backscroll.retrieval.spelling import other_spellings, surely_a_typo

    if not plan.lexical_terms:
        return plan
    missing, _share = source.unheld(LexicalQuery(plan.lexical_terms))
    if not missing:
        return plan
    swap: dict[str, str] = {}
    for word in missing:
        held = [v for v in other_spellings(word) if not source.unheld(LexicalQuery((v,)))[0]]
        if held:
            swap[word] = held[0]
            notes.append(f'searched for "{held[0]}", as the history spells "{word}"')
    typos = {w: m for w, m in source.suggestions(tuple(w for w in missing if w not in swap)).items()
             if surely_a_typo(w, m)}
    for word, meant in typos.items():
        swap[word] = meant
        notes.append(f'no record holds "{word}": searched for "{meant}" instead')
    if not swap:
        return plan

    def spelled(words: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(swap.get(w, w) for w in words))

    return replace(plan, terms=spelled(plan.terms), lexical_terms=spelled(plan.lexical_terms),
                   phrases=tuple(spelled(p) for p in plan.phrases))


def phrases_held(source: Source, plan: QueryPlan, filters: Filters, mode: str, echoes: bool = False
                 ) -> tuple[QueryPlan, tuple[tuple[str, ...], ...]]:
    """The plan as ranked, and the quoted phrases dropped: a phrase no record holds (query echoes aside, unless
    ``echoes`` are searched too) is a hint, not a wall; meaning has no phrases."""
    if not plan.phrases:
        return plan, ()
    if not source.holds_phrases(LexicalQuery(plan.lexical_terms, plan.phrases), filters, echoes):
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
    shown, sessions, more = results.grouped(source, hits, opts)
    return SearchResult(query=plan.text, mode=mode, filters=filters, results=results.renumber(shown),
                        notes=(time_window.dated_note(plan.when, bool(shown)),), sessions=sessions, has_more=more)
