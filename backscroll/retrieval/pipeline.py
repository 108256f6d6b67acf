"""The search pipeline: ranked lists propose candidates, every candidate is scored on the same evidence
(``candidates``, ``fusion``), priors scale it (``priors``), neighbours in the session lend support
(``session_evidence``), echoes join only when asked for (``echo_order``), near-duplicates collapse, and the
weak line holds back what the evidence does not single out (``judgement``). Every constant is in
``ranking.RANKING``; docs/ranking.md, "The pipeline", tells the whole story.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass, replace

from backscroll.dates import parse_ts
from backscroll.indexes.lexical import LexicalIndex, LexicalQuery, analyze, stem
from backscroll.ingest.redact_again import shown_rows
from backscroll.retrieval import by_session, judgement, priors, time_window, tool_exchange
from backscroll.retrieval.candidates import Facts, Similarity, candidates, fetch_facts, fetch_neighbours
from backscroll.retrieval.echo_order import apart, interleave
from backscroll.retrieval.evidence import classify as classify_evidence
from backscroll.retrieval.fusion import Candidate, Fused, Weights, fuse, word_confidence
from backscroll.retrieval.query import STOPWORDS, QueryPlan
from backscroll.retrieval.ranking import RANKING
from backscroll.retrieval.session_evidence import with_session_evidence
from backscroll.retrieval.snippet import make_snippet
from backscroll.retrieval.spelling import surely_a_typo
from backscroll.retrieval.unheld import suggestions, unheld_note
from backscroll.store.db import Store
from backscroll.types import Filters, Hit, SearchResult, SessionHits


@dataclass(frozen=True)
class SearchOptions:
    limit: int = 10
    include_echoes: bool = False
    max_chars: int = 2000  # text returned per hit; 0 = all of it
    weak: bool = False  # weak matches stay in the results (``judgement``)
    by_session: bool = False  # the results grouped by session too (``by_session``)


def depth(opts: SearchOptions) -> int:
    """How deep each ranked list goes before fusion."""
    return max(50, opts.limit * 5)


def echoes_included(filters: Filters, opts: SearchOptions) -> bool:
    """The echo policy: hidden unless asked for, or unless the search is about tool rows."""
    return opts.include_echoes or filters.content_type == "tool"


PROSE_TYPES = ("text", "summary", "reasoning")  # the kinds the prose list ranks together


def lexical_lists(lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions,
                  depth: int) -> dict[str, list[int]]:
    """Lexical prose, tool and (when included) echo rankings (record ids, best first). A date in the
    query adds the best of its own window to the prose and tool lists (``time_window.within``)."""
    q = LexicalQuery(plan.lexical_terms, plan.phrases)
    ct = filters.content_type
    window = time_window.within(filters, plan.when) if plan.when is not None else None
    scopes = [filters] if window is None else [filters, window]  # a date in the query proposes its own too

    def search(content_type: str | tuple[str, ...]) -> list[int]:
        found = (i for f in scopes for i, _s in lex.search(q, f, content_type=content_type, echo=False, limit=depth))
        return list(dict.fromkeys(found))

    ranked: dict[str, list[int]] = {}
    if ct is None or ct in PROSE_TYPES:
        ranked["prose"] = search(ct or PROSE_TYPES)
    if ct in (None, "tool"):
        ranked["tool"] = search("tool")
        if echoes_included(filters, opts):
            ranked["echo"] = [i for i, _s in lex.search(q, filters, content_type="tool", echo=True, limit=depth)]
    return ranked


def tool_exchanges(store: Store, lex: LexicalIndex, plan: QueryPlan, tool: list[int],
                   filters: Filters) -> tool_exchange.Exchanges:
    """The lexical tool list with the outputs of its calls (those the filters let through), and every
    output's calls, receipts left out (``tool_exchange``). A quoted phrase must be in every result, so
    then no output joins through its call."""
    partners = store.tool_partners(tool)
    joining = tool_exchange.outputs_to_add(tool, partners) if not plan.phrases else []
    shown = lex.within(joining, filters, content_type="tool", echo=False)
    exchanges = tool_exchange.with_outputs(tool, partners, shown)
    texts = store.texts({i for o, cs in exchanges.calls.items() for i in (o, *cs)}, tool_exchange.CALL_CHARS)
    return tool_exchange.without(exchanges, tool, tool_exchange.receipts(exchanges, texts))


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


def rank(store: Store, lex: LexicalIndex, plan: QueryPlan, ranked: dict[str, list[int]], facts: dict[int, Facts],
         semantic: list[tuple[int, float]] | None, similarity: Similarity | None, mode: str,
         w: Weights, calls: dict[int, tuple[int, ...]] | None = None,
         ) -> tuple[list[Fused], dict[int, Candidate], Weights]:
    """The fused ranking (near-duplicates collapsed, session evidence in hybrid mode, verbatim holders
    first, echoes interleaved when proposed), every candidate by id, and
    the weights it ranked with (``w`` with this query's word confidence, in hybrid mode). ``calls``: each
    tool output's calls (``tool_exchanges``)."""
    cands = candidates(lex, plan, ranked, facts, semantic, similarity, mode, calls)
    if mode == "hybrid":
        w = replace(w, words=word_confidence(cands["main"], full=RANKING.words_full, power=RANKING.words_confidence))
    main = collapse(with_priors(plan, fuse(cands["main"], w), facts), facts)
    if mode == "hybrid":
        near = fetch_neighbours(store, facts, [f.id for f in main], RANKING.session_reach)
        main = with_session_evidence(main, near, weight=RANKING.session_weight, count=RANKING.session_records)
    if mode != "semantic":
        main = verbatim_first(lex.holding, plan, main)
    by_id = {c.id: c for kind in cands.values() for c in kind}
    return interleave(main, ranked_echoes(plan, cands["echo"], facts, w)), by_id, w


def topical(plan: QueryPlan) -> LexicalQuery:
    """The query's words without its stopwords: "of" missing from a history says nothing of its topics."""
    return LexicalQuery(tuple(t for t in plan.lexical_terms if t not in STOPWORDS) or plan.lexical_terms)


VERBATIM_DEPTH = 50  # how far down the fused list a verbatim holder is looked for
VERBATIM_WORDS = 4  # a pasted message is this long; three keywords in a row are no quote


def verbatim_first(holding: Callable[[tuple[str, ...], list[int]], Set[int]], plan: QueryPlan,
                   fused: list[Fused]) -> list[Fused]:
    """The records that hold the query word for word (an error message, a path, identifiers in their order)
    before those that hold fewer of its words plus meaning. Not for a few keywords, nor for questions:
    their wording is the asker's own, and a record that repeats it is an earlier asking, not the answer.
    ``holding(words, ids)``: those of ``ids`` that hold ``words`` in this order (``LexicalIndex.holding``)."""
    words = tuple(analyze(plan.meaning or plan.text))
    if plan.question or len(words) < (2 if plan.shape == "identifier" else VERBATIM_WORDS):
        return fused
    held = holding(words, [f.id for f in fused[:VERBATIM_DEPTH]])
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


def hidden_echo_count(lex: LexicalIndex, store: Store, plan: QueryPlan, filters: Filters, opts: SearchOptions,
                      main: list[Fused], w: Weights) -> int:
    """How many echoes the same search would have returned with --include-echoes (issue #18: not
    every echo holding one of the words): the echo list interleaved with the results, counted in the top.
    (``main`` holds no echoes: a search that proposes them counts none hidden.)"""
    if echoes_included(filters, opts) or filters.content_type in PROSE_TYPES:
        return 0
    q = LexicalQuery(plan.lexical_terms, plan.phrases)
    echo_ids = [i for i, _s in lex.search(q, filters, content_type="tool", echo=True, limit=opts.limit)]
    if not echo_ids:
        return 0
    facts = fetch_facts(store, echo_ids)
    cands = candidates(lex, plan, {"echo": echo_ids}, facts, None, None, "lexical")["echo"]
    shown = set(echo_ids)
    return sum(1 for f in interleave(main, ranked_echoes(plan, cands, facts, w))[: opts.limit] if f.id in shown)


def build_hits(store: Store, plan: QueryPlan, fused: list[Fused], opts: SearchOptions, limit: int,
               exclude: Set[int] = frozenset()) -> list[Hit]:
    """Fetch fused ids (near-duplicates already collapsed, ``rank``) from the store and shape them into hits."""
    chosen = [f for f in fused if f.id not in exclude][: max(limit * 4, limit + 20)]
    fetched = store.fetch(f.id for f in chosen)
    rows = dict(zip(fetched, shown_rows(store, fetched.values()), strict=True))
    stems = tuple(stem(t) for t in plan.terms)
    hits: list[Hit] = []
    for f in chosen:
        row = rows.get(f.id)
        if row is None:
            continue
        snippet, spans = make_snippet(row["text"], plan.terms, stems)
        matched = tuple(dict.fromkeys(f.lists))
        hits.append(Hit.from_row(row, rank=len(hits) + 1, score=round(f.score, 6), snippet=snippet,
                                 highlights=spans, matched_by=matched, max_chars=opts.max_chars))
        if len(hits) >= limit:
            break
    return hits


def drop_phrases(lex: LexicalIndex, plan: QueryPlan, filters: Filters) -> tuple[QueryPlan, bool]:
    """A quoted phrase no record holds is a hint, not a wall: drop it."""
    if not plan.phrases:
        return plan, False
    found = lex.count(LexicalQuery(plan.lexical_terms, plan.phrases), filters, content_type=None, echo=False)
    if found:
        return plan, False
    return replace(plan, phrases=()), True


def run(store: Store, lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions,
        semantic_list: list[tuple[int, float]] | None = None, mode: str = "lexical",
        similarity: Similarity | None = None) -> SearchResult:
    """One ranking: ``semantic_list`` is the meaning-based list (None: no vectors), ``similarity`` the
    cosine of any other embedded candidate (without it, only the listed ones have a meaning score)."""
    if plan.date_only:
        return dated(store, plan, filters, opts, mode)
    phrased, dropped = drop_phrases(lex, plan, filters)
    quoted = plan.phrases
    plan = replace(phrased, phrases=()) if mode == "semantic" else phrased
    ranked = lexical_lists(lex, plan, filters, opts, depth(opts)) if mode != "semantic" else {}
    calls: dict[int, tuple[int, ...]] = {}
    if "tool" in ranked:
        exchanges = tool_exchanges(store, lex, plan, ranked["tool"], filters)
        ranked["tool"], calls = exchanges.ranked, exchanges.calls
    if plan.when is not None and "prose" in ranked:  # a date proposes what its sessions set out to do
        window = time_window.within(filters, plan.when)
        if window is not None:
            ranked["prose"] += store.first_prompts(window.since or "", window.until or "", project=filters.project,
                                                   agent=filters.agent, session=filters.session, limit=depth(opts))
    proposed = {*(i for items in ranked.values() for i in items), *(i for i, _c in semantic_list or ())}
    facts = fetch_facts(store, sorted(proposed))
    w = RANKING.weights(plan.shape)
    fused, by_id, ranked_with = rank(store, lex, plan, ranked, facts, semantic_list, similarity, mode, w, calls)
    # (words only echoes hold count as held when echoes are searched too)
    missing, held = (lex.unheld(topical(plan)) if mode != "semantic" and not echoes_included(filters, opts)
                     else ((), 1.0))
    wanted = opts.limit * 10 if opts.by_session else opts.limit * (1 if opts.weak else 2)  # (one session's many)
    hits = [classify_evidence(h, plan.text, by_id.get(h.rowid), w, held, quoted=bool(plan.phrases))  # one scale
            for h in build_hits(store, plan, fused, opts, wanted)]
    asked = (semantic_list is not None and mode != "lexical" and filters.role != "tool"
             and filters.content_type not in ("tool", "reasoning"))  # a meaning ranking could speak
    suggested = suggestions(store, lex, missing) if missing else {}
    known = held if mode != "semantic" else lex.unheld(topical(plan))[1]
    typos = {w: m for w, m in suggested.items() if surely_a_typo(w, m)}
    if typos:  # a misspelt word is no topic the history lacks
        known = lex.unheld(LexicalQuery(tuple(typos.get(t, t) for t in topical(plan).terms)))[1]
    line = judgement.line([c for _i, c in semantic_list or ()] if asked else None, known)
    strong, weak = (hits, []) if opts.weak else judgement.split(hits, line)
    strong = apart(strong)  # the weak ones gone, two echoes may have come together
    hits, sessions = grouped(store, strong, opts)
    weak = weak[:opts.limit]
    notes: tuple[str, ...] = (time_window.describe(plan.when, filters),) if plan.when is not None else ()
    every = bool(missing) and len(missing) == len(set(plan.lexical_terms))
    if missing:
        notes += (unheld_note(missing, every, suggested),)
    if hits and not every and all(h.match == "meaning" for h in hits):
        notes += ("no result holds the query's words: every result matches by meaning only",)
    if weak and not hits:
        notes += (judgement.nothing_strong_note(len(weak)),)
    if dropped:
        shown = ", ".join(f'"{" ".join(p)}"' for p in quoted)
        notes += (f"no record holds the quoted phrase {shown}: searched for its words without the quotes",)
    return SearchResult(
        query=plan.text, mode=mode, filters=filters, results=renumber(hits), weak_matches=renumber(weak),
        sessions=sessions,
        echoes_hidden=hidden_echo_count(lex, store, plan, filters, opts, fused, ranked_with),
        dropped_filters=("phrase",) if dropped else (), notes=notes,
    )


def grouped(store: Store, hits: list[Hit], opts: SearchOptions) -> tuple[list[Hit], tuple[SessionHits, ...]]:
    """The results list and, with ``by_session``, the sessions it is made of (``by_session.numbered``)."""
    if not opts.by_session:
        return hits[:opts.limit], ()
    return by_session.numbered(hits, store.session_heads(h.session_id for h in hits), opts.limit)


def dated(store: Store, plan: QueryPlan, filters: Filters, opts: SearchOptions, mode: str) -> SearchResult:
    """A question about a time alone ("what did I do yesterday?"): what each session of that time set out to
    do (its first prompt in the window), the most recent first; the date is the whole evidence."""
    assert plan.when is not None
    window = time_window.narrowed(filters, plan.when)
    ids = [] if window is None else store.first_prompts(
        window.since or "", window.until or "", project=filters.project, agent=filters.agent,
        session=filters.session, limit=opts.limit * (by_session.PER_SESSION + 1))
    fused = [Fused(i, 1.0, ("date",)) for i in ids]
    hits = [replace(h, match="date", strength=1.0)  # the snippet: how the prompt begins
            for h in build_hits(store, replace(plan, terms=()), fused, opts, len(ids))]
    hits, sessions = grouped(store, hits, opts)
    notes = (time_window.dated_note(plan.when, bool(hits)),)
    return SearchResult(query=plan.text, mode=mode, filters=filters, results=renumber(hits), notes=notes,
                        sessions=sessions)


def renumber(hits: list[Hit], start: int = 1) -> tuple[Hit, ...]:
    return tuple(replace(h, rank=start + i) for i, h in enumerate(hits))
