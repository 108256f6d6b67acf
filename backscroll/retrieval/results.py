"""From an order to what a search answers: hits with their snippets and evidence, the weak line, sessions
(``--by-session``), the echoes a search hid, and the notes that say what the answer rests on.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace

from backscroll.indexes.lexical_schema import LexicalQuery, stem
from backscroll.retrieval import by_session, judgement
from backscroll.retrieval.candidates import candidates, words_evidence
from backscroll.retrieval.echo_order import apart, interleave
from backscroll.retrieval.evidence import classify
from backscroll.retrieval.fusion import Candidate, Fused, Weights
from backscroll.retrieval.lists import PROSE_TYPES, Proposed, SearchOptions, echoes_included
from backscroll.retrieval.order import ranked_echoes, topical
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.snippet import make_snippet
from backscroll.retrieval.source import Source
from backscroll.retrieval.unheld import unheld_note
from backscroll.types import Filters, Hit, SearchResult, SessionHits

EVIDENCE_HITS = 20  # the judgement reads the first 20 hits, however many are shown: alike on every surface


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
          by_id: dict[int, Candidate], w: Weights, first: set[int] | None = None, echoes_hidden: int = 0
          ) -> SearchResult:
    """The ranking as a search's answer: hits with their match and strength, judged (``relevance``: has the
    question an answer here, in the scope the filters leave?), grouped by session when asked, with the notes
    that say what the answer rests on."""
    plan, mode, semantic = found.plan, found.mode, found.semantic
    # (words only echoes hold count as held when echoes are searched too)
    echoes = echoes_included(filters, opts)
    everywhere = source.unheld(topical(plan), echoes=echoes) if mode != "semantic" else None
    missing = everywhere[0] if everywhere else ()
    in_scope = held_in_scope(source, topical(plan), filters, everywhere, echoes)
    # (by session, every candidate: one busy session's many records must not keep the next sessions out)
    wanted = len(fused) if opts.by_session else opts.limit * (1 if opts.weak else 2)
    asked = (semantic is not None and filters.role != "tool"
             and filters.content_type not in ("tool", "reasoning"))  # a meaning ranking could speak
    cosines = [c for _i, c in semantic or ()] if asked else None
    # (one hit more than is read, to know whether a later page has any)
    read = [classify(h, plan.text, by_id.get(h.rowid), w, in_scope, quoted=bool(plan.phrases))
            for h in hits(source, plan, fused, opts, max(wanted, EVIDENCE_HITS) + 1)]
    judged = read if first is None else [h for h in read if h.rowid in first]  # (``first``: the first ranking's)
    evidence = question_evidence(source, judged[:EVIDENCE_HITS], plan, by_id, in_scope, cosines, mode)
    shaped = read[:wanted]  # (what is shown is as many as asked; only the judgement reads more)
    answered = opts.weak or judgement.answered(evidence, mode, opts.point)
    strong, weak = (shaped, []) if opts.weak else judgement.split(shaped, answered)
    strong = apart(strong)  # (the weak ones gone, two echoes may meet)
    shown, sessions, more = grouped(source, strong, opts)
    more = more or (not opts.by_session and opts.weak and len(read) > wanted)  # (--weak pages the rest too)
    # (by session, the weak matches of as many sessions as asked, as the results would be)
    weak = [h for g in by_session.group(weak, {}, opts.limit) for h in g.hits] if opts.by_session else weak[:opts.limit]
    suggested = source.suggestions(missing) if missing else {}
    said = notes(plan, filters, shown, weak, missing, suggested, found.dropped, mode, echoes_hidden > 0,
                 source.unread)
    later = opts.page is not None and opts.limit > opts.page  # (a later page: page 1 needs no word on depth)
    if later and strong and not more and len(read) <= max(wanted, EVIDENCE_HITS) and full(found, opts.depth):
        said += (ranking_ends(opts.depth, opts.page or opts.limit),)
    return SearchResult(query=plan.text, mode=mode, filters=filters, results=renumber(shown),
                        weak_matches=renumber(weak), sessions=sessions, evidence=evidence, has_more=more,
                        dropped_filters=("phrase",) if found.dropped else (), notes=(*found.notes, *said))


def full(found: Proposed, n: int) -> bool:
    """Whether a list was read to its depth ``n``: deeper, more records would have been proposed."""
    return any(len(ids) >= n for ids in found.ranked.values()) or len(found.semantic or ()) >= n


def ranking_ends(n: int, page: int) -> str:
    """The note of a last page that ends with the ranking, whose lists were read ``n`` deep (more were there)."""
    return f"the results end with the ranking, which read the best {n} records of each list: -n {max(2 * page, 20)} " \
           "reads deeper"


def held_in_scope(source: Source, q: LexicalQuery, scope: Filters,
                  everywhere: tuple[tuple[str, ...], float] | None = None, echoes: bool = False) -> float:
    """The idf-weighted share of the question some record in ``scope`` holds (query echoes too, with ``echoes``),
    its words of plain English that none holds left out ("instead": a small history says few words).
    ``everywhere``: ``source.unheld(q)``, when already asked (a scope of no filters is the whole history)."""
    from backscroll.retrieval.everyday import plain_english

    missing, held = everywhere if everywhere is not None and scope == Filters() else source.unheld(q, scope, echoes)
    plain = {t for t in missing if plain_english(t)}
    if not plain or len(plain) == len(set(q.terms)):
        return held
    return source.unheld(LexicalQuery(tuple(t for t in q.terms if t not in plain)), scope, echoes)[1]


def question_evidence(source: Source, found: list[Hit], plan: QueryPlan, by_id: dict[int, Candidate],
                      held: float, cosines: list[float] | None, mode: str) -> tuple[float, ...]:
    """The relevance judgement's features of the question and its hits (``relevance.FEATURES``); ``held``: the
    idf-weighted share of the question the scope holds. (A semantic search ranks without words, but its hits'
    words are evidence all the same.)"""
    from backscroll.retrieval import relevance

    q = LexicalQuery(plan.lexical_terms)
    weights = source.held(q, [found[0].rowid], False)[0] if q.terms and found else {}
    ids = [h.rowid for h in found if h.rowid is not None]
    words, _by_call, terms = (words_evidence(source, plan, ids, {}) if mode == "semantic" and ids else
                              ({i: c.words for i, c in by_id.items()}, set(), {i: c.held for i, c in by_id.items()}))

    def of(h: Hit) -> relevance.HitEvidence:
        c = by_id.get(h.rowid)
        return relevance.HitEvidence(words.get(h.rowid, 0.0) * held, terms.get(h.rowid, frozenset()),
                                     c.cosine if c and cosines is not None else None, h.match == "exact")

    return relevance.features([of(h) for h in found], relevance.Question(weights, 1 - held, cosines,
                                                                         dated(plan, found[0] if found else None)))


def dated(plan: QueryPlan, first: Hit | None) -> float:
    """How near the date the question names its first hit lies (0 when it names none)."""
    from backscroll.indexes.lexical_schema import to_datetime
    from backscroll.retrieval.time_window import closeness

    at = to_datetime(first.timestamp) if first is not None else None
    if plan.when is None or at is None:
        return 0.0
    return closeness(at if at.tzinfo else at.replace(tzinfo=plan.when.start.tzinfo), plan.when)


def grouped(source: Source, hits: list[Hit], opts: SearchOptions
            ) -> tuple[list[Hit], tuple[SessionHits, ...], bool]:
    """The page of ``hits``: the results list, with ``by_session`` the sessions it is made of
    (``by_session.numbered``), and whether more hits (or sessions) follow it (``has_more``)."""
    if not opts.by_session:
        return hits[:opts.limit], (), len(hits) > opts.limit
    shown, sessions = by_session.numbered(hits, source.session_heads(h.session_id for h in hits), opts.limit)
    return shown, sessions, len({h.session_id for h in hits}) > len(sessions)


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
          suggested: dict[str, str], dropped: tuple[tuple[str, ...], ...], mode: str = "hybrid",
          echoes: bool = False, unread: bool = False) -> tuple[str, ...]:
    """What the answer rests on: a date read, words no record holds (outside query echoes, when ``echoes`` hold
    some; ``unread``: perhaps in lines an index is still reading), results by meaning only (when words were
    searched too: not in semantic mode), nothing strong, a quoted phrase searched without its quotes
    (``dropped``)."""
    from backscroll.retrieval import time_window

    out: tuple[str, ...] = (time_window.describe(plan.when, filters),) if plan.when is not None else ()
    every = bool(missing) and len(missing) == len(set(plan.lexical_terms))
    if missing:
        out += (unheld_note(missing, every, suggested, echoes, unread),)
    if mode != "semantic" and hits and not every and all(h.match == "meaning" for h in hits):
        out += ("no result holds the query's words: every result matches by meaning only",)
    if weak and not hits:
        out += (judgement.nothing_strong_note(len(weak)),)
    if dropped:
        shown = ", ".join(f'"{" ".join(p)}"' for p in dropped)
        out += (f"no record holds the quoted phrase {shown}: searched for its words without the quotes",)
    return out


def renumber(hits: list[Hit], start: int = 1) -> tuple[Hit, ...]:
    return tuple(replace(h, rank=start + i) for i, h in enumerate(hits))
