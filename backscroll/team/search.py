"""``search --archive``: the team archive searched with the local search's rules.

The archive proposes candidates from two lists, the rows holding the largest idf-weighted share of the query's
words (PostgreSQL full-text search over the words backscroll's own analyzer gave each record,
``push.archive_words``) and the nearest by meaning (pgvector, else an exact scan); a date in the query adds its
own days' best and what each session of then set out to do. Every candidate carries a local one's evidence and
is ranked by the local pipeline's pure steps (fusion, priors, near-duplicates, session evidence, verbatim
holders first). Then the local policies: query echoes left out unless asked for; role, author, agent and
content type, and an agent the question names, as hints (``policy.hints``); the weak line (``judgement``); a
search the calling agent session already ran this turn is not run again (the repeat rule reads this machine's
store, where that session's log is). Every hit says its ``member`` and ``machine``.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import UTC

from backscroll.config import Config
from backscroll.request import SearchRequest
from backscroll.retrieval import evidence, fusion, judgement, pipeline, time_window
from backscroll.retrieval.candidates import Facts
from backscroll.retrieval.pipeline import with_priors
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.ranking import RANKING
from backscroll.retrieval.session_evidence import neighbours_by_place, with_session_evidence
from backscroll.store.archive_filters import where_sql
from backscroll.store.archive_pg import Archive
from backscroll.team.browse import hit_of
from backscroll.team.pool import Pool, Words, candidates, first_prompts_where, gather, holding
from backscroll.types import Filters, Hit, SearchResult

SNIPPET_SCAN = 20_000  # a snippet is found in the start of a long output (a 2,000-line log takes ~10 ms whole)


def search_archive(cfg: Config, req: SearchRequest, plan: QueryPlan, filters: Filters,
                   rerun_hint: str | None = None) -> SearchResult:
    """The archive's answer to ``req`` (its filters and plan already checked)."""
    from backscroll.retrieval.policy import hints
    from backscroll.retrieval.searching import spoken_agent_hint
    from backscroll.team.push import settings

    url, _member = settings(cfg, None if req.archive == "default" else req.archive)
    notes: list[str] = []
    again = _repeated(cfg, req, plan, filters, rerun_hint)
    if again is not None:
        return again
    with Archive.connect(url) as archive:
        archive.check_version()
        filters = spoken_agent_hint(archive.has_agent, plan, filters, notes)
        vector = None if plan.date_only else _query_vector(plan, req, notes)
        if vector is not None and not archive.has_vector():
            notes.append("meaning was searched by an exact scan: this archive keeps no pgvector index")

        def run(f: Filters) -> SearchResult:
            return _rank(archive, req, plan, f, vector, notes)

        result = hints.also_matching(run(filters), filters, run, strict=req.strict)
    return replace(result, notes=tuple(dict.fromkeys([*plan.notes, *notes, *result.notes])))


def _repeated(cfg: Config, req: SearchRequest, plan: QueryPlan, filters: Filters,
              rerun_hint: str | None) -> SearchResult | None:
    """The repeat rule, read from this machine's store (the calling session's log is there, not in the archive)."""
    if req.rerun or not cfg.db_path.exists() or not (req.caller_session or req.caller_argv or req.caller_mcp):
        return None
    from backscroll.retrieval.searching import repeated
    from backscroll.store.db import Store

    store = Store.open_readonly(cfg.db_path)
    try:
        return repeated(store, req, plan, filters, list(plan.notes), rerun_hint)
    finally:
        store.close()


def _query_vector(plan: QueryPlan, req: SearchRequest, notes: list[str]) -> list[float] | None:
    if req.mode == "lexical":
        return None
    from backscroll.errors import SemanticUnavailableError
    from backscroll.indexes.embed import load

    try:
        return [float(v) for v in load(bulk=False).embed([plan.meaning or plan.text])[0]]
    except SemanticUnavailableError as exc:
        if req.mode == "semantic":
            raise
        notes.append(f"semantic ranking unavailable ({exc.message}); used lexical search")
        return None


def _rank(archive: Archive, req: SearchRequest, plan: QueryPlan, f: Filters, vector: list[float] | None,
          notes: list[str]) -> SearchResult:
    """One ranking of the archive under the filters ``f``: the local pipeline's steps on its candidates."""
    if plan.date_only:
        return _dated(archive, req, plan, f)
    include_echoes = req.include_echoes or f.content_type == "tool"
    words = Words.of(archive, plan, *where_sql(f, include_echoes=include_echoes, member=req.member))
    notes = list(notes)
    pool = gather(archive, req, plan, f, words, vector, notes)
    found = candidates(pool, words, by_words=req.mode != "semantic", meaning=vector is not None)
    by_id = {c.id: c for c in found}
    weights = RANKING.weights(plan.shape)
    if vector is not None and req.mode == "hybrid":
        weights = replace(weights, words=fusion.word_confidence(found, full=RANKING.words_full,
                                                                power=RANKING.words_confidence))
    main = _ranked(archive, req, plan, pool, found, weights, hybrid=vector is not None and req.mode == "hybrid")
    wanted = req.offset + req.limit * (1 if req.weak else 2)
    hits = [evidence.classify(_hit(pool.rows[c.id], rank, c, words.terms, req.max_chars), plan.text, by_id[c.id],
                              weights, words.held, quoted=pool.quoted)
            for rank, c in enumerate(main[:wanted], 1)]
    asked = vector is not None and f.role != "tool" and f.content_type not in ("tool", "reasoning")
    line = judgement.line(sorted((pool.cosines[i] for i in pool.semantic), reverse=True) if asked else None,
                          words.held)
    strong, weak = (hits, []) if req.weak else judgement.split(hits, line)
    if weak and not strong:
        notes.append(judgement.nothing_strong_note(len(weak)))
    if plan.when is not None:
        notes.insert(0, time_window.describe(plan.when, f))
    mode = req.mode if vector is not None or req.mode == "lexical" else "lexical"
    return SearchResult(query=req.query, mode=mode, filters=f, results=tuple(strong[req.offset:req.offset + req.limit]),
                        weak_matches=tuple(weak[:req.limit]), notes=tuple(notes))


def _ranked(archive: Archive, req: SearchRequest, plan: QueryPlan, pool: Pool, found: list[fusion.Candidate],
            weights: fusion.Weights, *, hybrid: bool) -> list[fusion.Fused]:
    """The local pipeline's order (``pipeline.rank``): fused, the priors, near-duplicates collapsed, session
    evidence in hybrid mode, the records holding the query word for word first."""
    facts = {c.id: Facts(_iso(r["ts"]), r["content_type"], r["text"][:400],
                         (f"{r['member']}|{r['machine']}|{r['session_id']}", _digest(r["text"])))
             for c in found for r in (pool.rows[c.id],)}
    main = pipeline.collapse(with_priors(plan, fusion.fuse(found, weights), facts), facts)
    if hybrid:
        places = archive.places([(*pool.key(m.id), pool.rows[m.id]["session_id"]) for m in main])
        near = neighbours_by_place({m.id: (facts[m.id].key[0], places[pool.key(m.id)]) for m in main
                                    if pool.key(m.id) in places}, RANKING.session_reach)
        main = with_session_evidence(main, near, weight=RANKING.session_weight, count=RANKING.session_records)
    return main if req.mode == "semantic" else pipeline.verbatim_first(holding(pool), plan, main)


def _dated(archive: Archive, req: SearchRequest, plan: QueryPlan, f: Filters) -> SearchResult:
    """A question about a time alone ("what did I do yesterday?"): what each session of that time set out to do,
    the most recent first, as locally (``pipeline.dated``)."""
    assert plan.when is not None
    window = time_window.narrowed(f, plan.when)
    found = [] if window is None else archive.first_prompts(*first_prompts_where(window, req.member),
                                                              req.offset + req.limit)
    hits = [replace(_hit(r, n, fusion.Fused(n, 1.0, ("date",)), (), req.max_chars), match="date", strength=1.0)
            for n, r in enumerate(found, 1)]  # (the snippet: how the prompt begins)
    return SearchResult(query=req.query, mode=req.mode, filters=f, results=tuple(hits[req.offset:]),
                        notes=(time_window.dated_note(plan.when, bool(hits)),))


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def _iso(ts) -> str | None:
    return ts.astimezone(UTC).isoformat().replace("+00:00", "Z") if ts is not None else None


def _hit(row: dict, rank: int, c: fusion.Fused, terms: tuple[str, ...], max_chars: int) -> Hit:
    from backscroll.retrieval.snippet import make_snippet

    snippet, spans = make_snippet(row["text"][:SNIPPET_SCAN], terms)
    return hit_of(row, rank, score=round(c.score, 6), snippet=snippet, highlights=spans, matched_by=c.lists,
                  max_chars=max_chars)
