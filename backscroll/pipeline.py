"""The search pipeline: ranked lists, echo policy, fusion, near-duplicate collapse, hits.

The query runs as separate ranked lists, each filtered and with echoes removed *before* fusion:
lexical prose, lexical tool rows, and semantic prose. Fusion has two levels:

1. prose = RRF(lexical prose, semantic prose), weighted by the query's shape (a natural-language
   question leans on meaning, an identifier on exact words);
2. result = RRF(prose, tool rows[, echoes]): the kinds interleave as peers, so prose found by both
   lexical and semantic search does not bury every tool output (which is never embedded).

Every lexical hit counts by the share of the query's words it holds (idf-weighted, squared), and
every semantic hit by its similarity, discounted when it lacks the query's rare words: when a
paraphrase shares one common word with many rows, those rows barely count and the semantic list
decides. Where echoes are asked for
(``--include-echoes``, or ``--content-type tool``) they enter as a list of their own, slightly
behind, so a pile of earlier searches interleaves with the original rows instead of burying them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .fusion import rrf
from .lexical import LexicalIndex, LexicalQuery, stem
from .query import QueryPlan
from .records import Filters, Hit, SearchResult
from .snippet import make_snippet
from .store import Store

# Weights by query shape. RRF with k = 60 is flat (1/61 against 1/70), so weights near 1 interleave
# lists (at 0.9 one list's first hit lands near the other's eighth) and weights near 0.5 subordinate.
PROSE_WEIGHTS = {  # level 1: how lexical and semantic prose rankings combine
    "natural": {"prose": 0.8, "semantic": 1.0},
    "keywords": {"prose": 1.0, "semantic": 0.9},
    "identifier": {"prose": 1.0, "semantic": 0.6},
}
KIND_WEIGHTS = {  # level 2: how prose, tool rows and echoes interleave
    "natural": {"prose": 1.0, "tool": 0.93, "echo": 0.9},
    "keywords": {"prose": 1.0, "tool": 0.98, "echo": 0.93},
    "identifier": {"prose": 0.98, "tool": 1.0, "echo": 0.93},
}
LIST_SOURCE = {"prose": "lexical", "tool": "lexical", "echo": "lexical", "semantic": "semantic"}


@dataclass(frozen=True)
class SearchOptions:
    limit: int = 10
    include_echoes: bool = False
    max_chars: int = 2000  # text returned per hit; 0 = all of it


def depth(opts: SearchOptions) -> int:
    """How deep each ranked list goes before fusion."""
    return max(50, opts.limit * 5)


def echoes_included(filters: Filters, opts: SearchOptions) -> bool:
    """The echo policy: hidden unless asked for, or unless the search is about tool rows."""
    return opts.include_echoes or filters.content_type == "tool"


SEMANTIC_FULL = 0.6  # cosine similarity at which a semantic match counts fully (MiniLM: 0.6 is a close match)
SEMANTIC_WORDS = 0.6  # how much of a semantic match's strength depends on holding the query's words
USER_PRIOR = 0.85  # questions and topic words: user messages count this much against answers
PRIOR_SHAPES = ("natural", "keywords")  # not identifiers: a path or an error string is looked up as such
PROSE_TYPES = ("text", "summary", "reasoning")  # the kinds the prose list ranks together
REASONING_WEIGHT = 0.6  # the agent's thinking helps find a session but counts less than what it said or did


def semantic_quality(cosine: float) -> float:
    """How strong a semantic match is, in [0, 1]: cosine / 0.6, clipped."""
    return max(0.0, min(1.0, cosine / SEMANTIC_FULL))


def lexical_lists(lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions,
                  depth: int) -> dict[str, list[int]]:
    """Lexical prose, tool and (when included) echo rankings (record ids, best first)."""
    q = LexicalQuery(plan.lexical_terms, plan.phrases)
    ct = filters.content_type
    ranked: dict[str, list[int]] = {}
    if ct is None or ct in PROSE_TYPES:
        ranked["prose"] = [i for i, _s in lex.search(q, filters, content_type=ct or PROSE_TYPES, echo=False,
                                                     limit=depth)]
    if ct in (None, "tool"):
        ranked["tool"] = [i for i, _s in lex.search(q, filters, content_type="tool", echo=False, limit=depth)]
        if echoes_included(filters, opts):
            ranked["echo"] = [i for i, _s in lex.search(q, filters, content_type="tool", echo=True, limit=depth)]
    return ranked


def with_quality(lex: LexicalIndex, plan: QueryPlan, ranked: dict[str, list[int]],
                 semantic: list[tuple[int, float]] | None,
                 user_ids: set[int] = frozenset(),
                 reasoning_ids: set[int] = frozenset()) -> dict[str, list[tuple[int, float]]]:
    """Attach to every ranked entry the strength of its evidence, in [0, 1].

    Lexical: the squared share of the query the record holds (idf-weighted), so a hit with every
    word counts fully and one with half of them a quarter. Semantic: the cosine similarity (full at
    0.6), scaled down when the record lacks the query's words, rare ones most: a query naming
    ``ProductGrid`` is not answered by text that only resembles it. A question is after an answer:
    for natural-language queries, user messages (often the same question asked again) count a
    little less than what was answered.
    """
    ids = {i for items in ranked.values() for i in items} | {i for i, _c in semantic or ()}
    cov = lex.coverage(LexicalQuery(plan.lexical_terms, plan.phrases), sorted(ids))
    prior = {i: USER_PRIOR for i in user_ids} if plan.shape in PRIOR_SHAPES else {}
    prior.update({i: REASONING_WEIGHT for i in reasoning_ids})
    out = {name: [(i, cov[i] ** 2 * prior.get(i, 1.0)) for i in items] for name, items in ranked.items()}
    if semantic is not None:
        out["semantic"] = [(i, semantic_quality(c) * (1 - SEMANTIC_WORDS + SEMANTIC_WORDS * cov[i]) * prior.get(i, 1.0))
                           for i, c in semantic]
    return out


def fuse(lists: dict[str, list], shape: str):
    """Two-level RRF (see the module docstring). Returns fused entries, best first.

    Every entry is ``(id, quality)``; a prose entry's quality at level 2 is the stronger of its
    lexical coverage and its semantic quality, so prose and tool rows compete on evidence.
    """
    inner = {name: lists[name] for name in ("prose", "semantic") if name in lists}
    outer: dict[str, list] = {}
    sources: dict[int, tuple[str, ...]] = {}
    if inner:
        prose = rrf(inner, PROSE_WEIGHTS[shape])
        best: dict[int, float] = {}
        for items in inner.values():
            for rid, quality in items:
                best[rid] = max(best.get(rid, 0.0), quality)
        outer["prose"] = [(f.id, best[f.id]) for f in prose]
        sources.update({f.id: f.lists for f in prose})
    for name in ("tool", "echo"):
        if name in lists:
            outer[name] = lists[name]
    fused = rrf(outer, KIND_WEIGHTS[shape])
    return [replace(f, lists=sources.get(f.id, f.lists)) for f in fused]


def hidden_echo_count(lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions) -> int:
    if echoes_included(filters, opts) or filters.content_type in PROSE_TYPES:
        return 0
    return lex.count(LexicalQuery(plan.lexical_terms, plan.phrases), filters, content_type="tool", echo=True)


def build_hits(store: Store, plan: QueryPlan, fused, opts: SearchOptions, limit: int,
               exclude: set[int] = frozenset()) -> list[Hit]:
    """Fetch fused ids from the store, collapse near-duplicates, and shape them into hits."""
    candidates = [f for f in fused if f.id not in exclude][: max(limit * 4, limit + 20)]
    rows = store.fetch(f.id for f in candidates)
    stems = tuple(stem(t) for t in plan.terms)
    hits: list[Hit] = []
    seen: set[tuple[str, str]] = set()
    for f in candidates:
        row = rows.get(f.id)
        if row is None:
            continue
        key = (row["session_id"], row["content_hash"])
        if key in seen:
            continue
        seen.add(key)
        snippet, spans = make_snippet(row["text"], plan.terms, stems)
        matched = tuple(dict.fromkeys(LIST_SOURCE[n] for n in f.lists))
        hits.append(Hit.from_row(row, rank=len(hits) + 1, score=round(f.score, 6), snippet=snippet,
                                 highlights=spans, matched_by=matched, max_chars=opts.max_chars))
        if len(hits) >= limit:
            break
    return hits


def run(store: Store, lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions,
        semantic_list: list[tuple[int, float]] | None = None, mode: str = "lexical") -> SearchResult:
    ranked = lexical_lists(lex, plan, filters, opts, depth(opts)) if mode != "semantic" or plan.phrases else {}
    if plan.phrases and semantic_list:  # "quoted words" must appear together: meaning alone is not enough
        with_phrase = set(ranked.get("prose", ()))
        semantic_list = [(i, c) for i, c in semantic_list if i in with_phrase]
    if mode == "semantic":
        ranked = {}
    user_ids: set[int] = set()
    if plan.shape in PRIOR_SHAPES:
        candidates = sorted({i for items in ranked.values() for i in items} | {i for i, _c in semantic_list or ()})
        user_ids = store.ids_with_role(candidates, "user")
    reasoning_ids = _reasoning(store, ranked.get("prose", ())) if filters.content_type != "reasoning" else set()
    fused = fuse(with_quality(lex, plan, ranked, semantic_list, user_ids, reasoning_ids), plan.shape)
    hits = build_hits(store, plan, fused, opts, opts.limit)
    return SearchResult(
        query=plan.text, mode=mode, filters=filters, results=tuple(hits),
        echoes_hidden=hidden_echo_count(lex, plan, filters, opts),
    )


def _reasoning(store: Store, ids) -> set[int]:
    ids = list(ids)
    out: set[int] = set()
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        out.update(r[0] for r in store.conn.execute(
            f"SELECT id FROM records WHERE content_type = 'reasoning' AND id IN ({','.join('?' * len(chunk))})", chunk))
    return out


def renumber(hits: list[Hit], start: int = 1) -> tuple[Hit, ...]:
    return tuple(replace(h, rank=start + i) for i, h in enumerate(hits))
