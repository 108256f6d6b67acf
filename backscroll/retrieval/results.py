"""From an order to what a search answers: hits with their snippets and evidence, the weak line, sessions
(``--by-session``), the echoes a search hid, and the notes that say what the answer rests on.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace

from backscroll.indexes.lexical_schema import LexicalQuery, stem
from backscroll.retrieval import by_session, judgement
from backscroll.retrieval.candidates import candidates
from backscroll.retrieval.echo_order import apart, interleave
from backscroll.retrieval.evidence import classify
from backscroll.retrieval.fusion import Candidate, Fused, Weights
from backscroll.retrieval.lists import PROSE_TYPES, Proposed, SearchOptions, echoes_included
from backscroll.retrieval.order import ranked_echoes, topical
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.snippet import make_snippet
from backscroll.retrieval.source import Source
from backscroll.retrieval.spelling import surely_a_typo
from backscroll.retrieval.unheld import unheld_note
from backscroll.types import Filters, Hit, SearchResult, SessionHits


def hits(source: Source, plan: QueryPlan, fused: list[Fused], opts: SearchOptions, limit: int,
         exclude: Set[int] = frozenset()) -> list[Hit]:
    """The first ``limit`` of ``fused`` (near-duplicates already collapsed) as hits, with their snippets."""
    chosen = [f for f in fused if f.id not in exclude][: max(limit * 4, limit + 20)]
    rows = source.rows([f.id for f in chosen])
    stems = tuple(stem(t) for t in plan.terms)
    out: list[Hit] = []
    for f in chosen:
        row = rows.get(f.id)
        if row is None:
            continue
        snippet, spans = make_snippet(row["text"], plan.terms, stems)
        hit = source.hit(row, rank=len(out) + 1, score=round(f.score, 6), snippet=snippet, highlights=spans,
                         matched_by=tuple(dict.fromkeys(f.lists)), max_chars=opts.max_chars)
        out.append(replace(hit, rowid=f.id))
        if len(out) >= limit:
            break
    return out


def judge(source: Source, found: Proposed, filters: Filters, opts: SearchOptions, fused: list[Fused],
          by_id: dict[int, Candidate], w: Weights) -> SearchResult:
    """The ranking as a search's answer: hits, judged against the weak line, grouped by session when asked, with
    the notes that say what the answer rests on."""
    plan, mode, semantic = found.plan, found.mode, found.semantic
    # (words only echoes hold count as held when echoes are searched too)
    missing, held = (source.unheld(topical(plan)) if mode != "semantic" and not echoes_included(filters, opts)
                     else ((), 1.0))
    wanted = opts.limit * 10 if opts.by_session else opts.limit * (1 if opts.weak else 2)  # (one session's many)
    asked = (semantic is not None and filters.role != "tool"
             and filters.content_type not in ("tool", "reasoning"))  # a meaning ranking could speak
    suggested = source.suggestions(missing) if missing else {}
    known = known_share(source, topical(plan), held, suggested, mode)
    cosines = [c for _i, c in semantic or ()] if asked else None
    shaped = with_evidence(source, hits(source, plan, fused, opts, wanted), plan, by_id, held, cosines)
    strong, weak = judged(shaped, plan, by_id, w, held, cosines, known, opts.weak)
    shown, sessions = grouped(source, apart(strong), opts)  # (the weak ones gone, two echoes may meet)
    weak = weak[:opts.limit]
    said = notes(plan, filters, shown, weak, missing, suggested, found.dropped)
    return SearchResult(query=plan.text, mode=mode, filters=filters, results=renumber(shown),
                        weak_matches=renumber(weak), sessions=sessions,
                        dropped_filters=("phrase",) if found.dropped else (), notes=(*found.notes, *said))


def with_evidence(source: Source, found: list[Hit], plan: QueryPlan, by_id: dict[int, Candidate], held: float,
                  cosines: list[float] | None) -> list[Hit]:
    """The hits with the relevance judgement's features (``relevance``)."""
    from backscroll.retrieval import relevance

    if not found:
        return found
    q = LexicalQuery(plan.lexical_terms)
    weights = source.held(q, [found[0].rowid], False)[0] if q.terms else {}
    question = relevance.Question(held, weights, cosines, {})
    return [replace(h, evidence=relevance.features(by_id.get(h.rowid), h.match, n, question))
            for n, h in enumerate(found, start=1)]


def judged(hits: list[Hit], plan: QueryPlan, by_id: dict[int, Candidate], w: Weights, held: float,
           cosines: list[float] | None, known: float, weak: bool) -> tuple[list[Hit], list[Hit]]:
    """The hits with their match and strength (``evidence``), split at the weak line (``judgement``): those
    shown and those held back (none with ``weak``)."""
    hits = [classify(h, plan.text, by_id.get(h.rowid), w, held, quoted=bool(plan.phrases)) for h in hits]
    if weak:
        return hits, []
    return judgement.split(hits, judgement.line(cosines, known))


def known_share(source: Source, q: LexicalQuery, held: float, suggested: dict[str, str], mode: str) -> float:
    """The idf-weighted share of the query the history holds, a misspelt word counted as its correction (no
    topic the history lacks)."""
    known = held if mode != "semantic" else source.unheld(q)[1]
    typos = {w: m for w, m in suggested.items() if surely_a_typo(w, m)}
    if typos:
        known = source.unheld(LexicalQuery(tuple(typos.get(t, t) for t in q.terms)))[1]
    return known


def grouped(source: Source, hits: list[Hit], opts: SearchOptions) -> tuple[list[Hit], tuple[SessionHits, ...]]:
    """The results list and, with ``by_session``, the sessions it is made of (``by_session.numbered``)."""
    if not opts.by_session:
        return hits[:opts.limit], ()
    return by_session.numbered(hits, source.session_heads(h.session_id for h in hits), opts.limit)


def hidden_echoes(source: Source, plan: QueryPlan, filters: Filters, opts: SearchOptions, main: list[Fused],
                  w: Weights) -> int:
    """How many echoes the same search would have returned with --include-echoes (not every echo holding one
    of the words): the echo list interleaved with the results, counted in the top. (``main`` holds no
    echoes: a search that proposes them counts none hidden.)"""
    if echoes_included(filters, opts) or filters.content_type in PROSE_TYPES:
        return 0
    echo_ids = source.by_words(LexicalQuery(plan.lexical_terms, plan.phrases), filters, "tool", echo=True,
                               depth=opts.limit)
    if not echo_ids:
        return 0
    facts = source.facts(echo_ids)
    cands = candidates(source, plan, {"echo": echo_ids}, facts, None, "lexical")["echo"]
    shown = set(echo_ids)
    return sum(1 for f in interleave(main, ranked_echoes(plan, cands, facts, w))[: opts.limit] if f.id in shown)


def notes(plan: QueryPlan, filters: Filters, hits: list[Hit], weak: list[Hit], missing: tuple[str, ...],
          suggested: dict[str, str], dropped: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """What the answer rests on: a date read, words no record holds, results by meaning only, nothing strong,
    a quoted phrase searched without its quotes (``dropped``)."""
    from backscroll.retrieval import time_window

    out: tuple[str, ...] = (time_window.describe(plan.when, filters),) if plan.when is not None else ()
    every = bool(missing) and len(missing) == len(set(plan.lexical_terms))
    if missing:
        out += (unheld_note(missing, every, suggested),)
    if hits and not every and all(h.match == "meaning" for h in hits):
        out += ("no result holds the query's words: every result matches by meaning only",)
    if weak and not hits:
        out += (judgement.nothing_strong_note(len(weak)),)
    if dropped:
        shown = ", ".join(f'"{" ".join(p)}"' for p in dropped)
        out += (f"no record holds the quoted phrase {shown}: searched for its words without the quotes",)
    return out


def renumber(hits: list[Hit], start: int = 1) -> tuple[Hit, ...]:
    return tuple(replace(h, rank=start + i) for i, h in enumerate(hits))
