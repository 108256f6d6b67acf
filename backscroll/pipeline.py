"""The search pipeline: ranked lists, echo policy, fusion, near-duplicate collapse, hits.

By default the query runs as separate ranked lists, prose and tool rows, each filtered and with
echoes removed *before* fusion. Where echoes are asked for (``--include-echoes``, or
``--content-type tool``) they enter as a list of their own with a lower weight, so a pile of earlier
searches interleaves with the original rows instead of burying them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .fusion import rrf
from .lexical import LexicalIndex, LexicalQuery, stem
from .query import QueryPlan
from .records import Filters, Hit, SearchResult
from .snippet import make_snippet
from .store import Store

# List weights by query shape: questions lean on prose, identifiers and paths on tool rows. RRF with
# k = 60 is flat (1/61 against 1/70), so weights stay near 1: at 0.9 a list's first hit lands near
# the other list's eighth, which interleaves the lists instead of burying one.
LIST_WEIGHTS = {
    "natural": {"prose": 1.0, "tool": 0.9, "echo": 0.93, "semantic": 1.0},
    "keywords": {"prose": 1.0, "tool": 0.97, "echo": 0.95, "semantic": 0.95},
    "identifier": {"prose": 0.97, "tool": 1.0, "echo": 0.95, "semantic": 0.9},
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


def lexical_lists(lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions,
                  depth: int) -> dict[str, list[int]]:
    q = LexicalQuery(plan.lexical_terms, plan.phrases)
    ct = filters.content_type
    lists: dict[str, list[int]] = {}
    if ct in (None, "text"):
        lists["prose"] = [i for i, _s in lex.search(q, filters, content_type="text", echo=False, limit=depth)]
    if ct in (None, "tool"):
        lists["tool"] = [i for i, _s in lex.search(q, filters, content_type="tool", echo=False, limit=depth)]
        if echoes_included(filters, opts):
            lists["echo"] = [i for i, _s in lex.search(q, filters, content_type="tool", echo=True, limit=depth)]
    return lists


def hidden_echo_count(lex: LexicalIndex, plan: QueryPlan, filters: Filters, opts: SearchOptions) -> int:
    if echoes_included(filters, opts) or filters.content_type == "text":
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
        semantic_list: list[int] | None = None, mode: str = "lexical") -> SearchResult:
    lists = lexical_lists(lex, plan, filters, opts, depth(opts)) if mode != "semantic" else {}
    if semantic_list is not None:
        lists["semantic"] = semantic_list
    fused = rrf(lists, LIST_WEIGHTS[plan.shape])
    hits = build_hits(store, plan, fused, opts, opts.limit)
    return SearchResult(
        query=plan.text, mode=mode, filters=filters, results=tuple(hits),
        echoes_hidden=hidden_echo_count(lex, plan, filters, opts),
        include_echoes=echoes_included(filters, opts),
    )


def renumber(hits: list[Hit], start: int = 1) -> tuple[Hit, ...]:
    return tuple(replace(h, rank=start + i) for i, h in enumerate(hits))
