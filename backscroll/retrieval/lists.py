"""The ranked lists that propose candidates: by words (prose, tool rows with the outputs of their calls, echoes
when asked for), by meaning, and, for a date in the query, its own window's best and what each session of then
set out to do. Each asks a ``Source``; which lists run, and how deep, is decided here for every store.
"""

from __future__ import annotations

from dataclasses import dataclass

from backscroll.indexes.lexical_schema import LexicalQuery
from backscroll.retrieval import time_window, tool_exchange
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.ranking import SEMANTIC_FLOOR
from backscroll.retrieval.source import Source
from backscroll.types import Filters

PROSE_TYPES = ("text", "summary", "reasoning")  # the kinds the prose list ranks together
DEPTH = 50  # how deep each ranked list is read: a search's depth, whatever its page's size (a deeper one reorders)
HOOK_DEPTH = 100  # a recall hook's (its 20 candidates, 5 deep each): the depth its judgement was fitted at


@dataclass(frozen=True)
class SearchOptions:
    limit: int = 10
    page: int | None = None  # the page's size, when ``limit`` reaches past earlier pages
    depth: int = DEPTH  # how deep each ranked list is read (``pipeline.run`` reads deeper for a page past its end)
    include_echoes: bool = False
    max_chars: int = 2000  # text returned per hit; 0 = all of it
    weak: bool = False  # weak matches stay in the results (``judgement``)
    by_session: bool = False  # the results grouped by session too (``by_session``)
    point: str = "search"  # whose judgement: a search's, or a recall hook's ("hook": its own fit and point)


@dataclass(frozen=True)
class Proposed:
    """What the lists proposed for one ranking: the plan as ranked (quoted phrases no record holds dropped), the
    mode it ranks in, the lexical lists, the meaning list (None: no meaning ranking), each tool output's calls."""

    plan: QueryPlan
    mode: str
    ranked: dict[str, list[int]]
    semantic: list[tuple[int, float]] | None
    calls: dict[int, tuple[int, ...]]
    dropped: tuple[tuple[str, ...], ...]  # the quoted phrases no record holds
    notes: tuple[str, ...] = ()

    @property
    def ids(self) -> list[int]:
        return sorted({*(i for items in self.ranked.values() for i in items), *(i for i, _c in self.semantic or ())})


def depth_for(point: str) -> int:
    """How deep the lists are read for a caller: a search's depth, or a recall hook's."""
    return HOOK_DEPTH if point == "hook" else DEPTH


def deeper(opts: SearchOptions) -> SearchOptions:
    """The options of the ranking that follows one read ``opts.depth`` deep, for a page past its end: four times
    as deep, so that every page past it is cut from the same one."""
    from dataclasses import replace

    return replace(opts, depth=4 * opts.depth)


def echoes_included(filters: Filters, opts: SearchOptions) -> bool:
    """The echo policy: hidden unless asked for, or unless the search is about tool rows."""
    return opts.include_echoes or filters.content_type == "tool"


def scopes(filters: Filters, plan: QueryPlan) -> list[Filters]:
    """Where the lists look: the filters, and a date in the query's own window (it proposes its own best too)."""
    window = time_window.within(filters, plan.when) if plan.when is not None else None
    return [filters] if window is None else [filters, window]


def by_words(source: Source, plan: QueryPlan, filters: Filters, opts: SearchOptions) -> dict[str, list[int]]:
    """Lexical prose, tool and (when included) echo rankings, best first. The tool list carries the outputs of
    its calls behind them (``exchanges``); a date in the query adds its sessions' first prompts to the prose."""
    q = LexicalQuery(plan.lexical_terms, plan.phrases)
    ct, n = filters.content_type, opts.depth

    def search(kinds: str | tuple[str, ...]) -> list[int]:
        return list(dict.fromkeys(i for s in scopes(filters, plan) for i in source.by_words(q, s, kinds, echo=False,
                                                                                             depth=n)))

    ranked: dict[str, list[int]] = {}
    if ct is None or ct in PROSE_TYPES:
        ranked["prose"] = search(ct or PROSE_TYPES)
    if ct in (None, "tool"):
        ranked["tool"] = search("tool")
        if echoes_included(filters, opts):
            ranked["echo"] = source.by_words(q, filters, "tool", echo=True, depth=n)
    if plan.when is not None and "prose" in ranked:  # a date proposes what its sessions set out to do
        window = time_window.within(filters, plan.when)
        if window is not None:
            ranked["prose"] += source.first_prompts(window, n)
    return ranked


def exchanges(source: Source, plan: QueryPlan, tool: list[int], filters: Filters) -> tool_exchange.Exchanges:
    """The lexical tool list with the outputs of its calls (those the filters let through), and every output's
    calls, receipts left out (``tool_exchange``). A quoted phrase must be in every result, so then no output
    joins through its call."""
    partners = source.tool_partners(tool)
    joining = tool_exchange.outputs_to_add(tool, partners) if not plan.phrases else []
    shown = source.admitted(joining, filters)
    found = tool_exchange.with_outputs(tool, partners, shown)
    texts = source.texts({i for o, cs in found.calls.items() for i in (o, *cs)}, tool_exchange.CALL_CHARS)
    return tool_exchange.without(found, tool, tool_exchange.receipts(found, texts))


def by_meaning(source: Source, plan: QueryPlan, filters: Filters, mode: str, notes: list[str],
               n: int) -> list[tuple[int, float]] | None:
    """The records closest in meaning above the similarity floor (a date's window proposes its closest too), or
    None when the source has no vectors. Tool rows and reasoning are never embedded: nothing to rank for them."""
    if filters.content_type in ("tool", "reasoning") or filters.role == "tool":
        if mode == "semantic":
            notes.append("reasoning is not embedded: semantic search has nothing to rank for --content-type reasoning"
                         if filters.content_type == "reasoning" else
                         "tool rows are never embedded: semantic search has nothing to rank for --content-type tool")
        return []
    found: dict[int, float] = {}
    for scope in scopes(filters, plan):
        near = source.by_meaning(scope, n)
        if near is None:
            return None
        found.update((i, c) for i, c in near if c >= SEMANTIC_FLOOR and i not in found)
    return sorted(found.items(), key=lambda x: -x[1])
