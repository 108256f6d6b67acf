"""The candidates of an archive search and their evidence, gathered as the local pipeline gathers them
(``pipeline.lexical_lists``, ``tool_exchanges``, ``meaning.semantic_list``, ``candidates.candidates``).

Lists: prose and tool rows ranked apart by the idf-weighted share of the query's words (the archive's
``lexical``), each with the best of a date's own days, the prose with what each session of those days set out
to do; the tool list with the outputs of its calls behind them (``tool_exchange``, receipts left out); the
nearest rows by meaning. Evidence: a row's idf-weighted share of the query's words (a tool output's counting
its call's too) and the calibrated cosine of every candidate with a vector. Rows get small integer ids, in the
order they were read, so the pure local steps run on them unchanged.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

from backscroll.request import SearchRequest
from backscroll.retrieval import fusion, pipeline, time_window, tool_exchange
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.ranking import SEMANTIC_FLOOR, semantic_quality
from backscroll.store.archive_filters import where_sql
from backscroll.store.archive_pg import Archive
from backscroll.types import EMBEDDED_TYPES, Filters

Key = tuple[str, str, str]  # (member, machine, record_id)
COMMON = 0.02  # a word in more than this share of the archive's rows (and more than CHEAP rows) proposes
CHEAP = 5000  # no candidates of its own: ranking that many rows is what a search can afford


@dataclass
class Pool:
    """Every row a search read (``rows``, by id), the lists that proposed the candidates among them, in the
    local order (prose, meaning, tool), the query's cosine to those with a vector (``semantic``: those the
    meaning list proposed itself), and each tool output's calls."""

    rows: list[dict] = field(default_factory=list)
    ids: dict[Key, int] = field(default_factory=dict)
    lists: dict[int, list[str]] = field(default_factory=dict)
    cosines: dict[int, float] = field(default_factory=dict)
    semantic: set[int] = field(default_factory=set)
    calls: dict[int, tuple[int, ...]] = field(default_factory=dict)
    quoted: bool = False  # a quoted phrase is held by the lexical candidates (they must hold it)

    def know(self, row: dict) -> int:
        key = row["member"], row["machine"], row["record_id"]
        if key not in self.ids:
            self.ids[key] = len(self.rows)
            self.rows.append(row)
        return self.ids[key]

    def add(self, i: int, proposed_by: str) -> None:
        if proposed_by not in self.lists.setdefault(i, []):
            self.lists[i].append(proposed_by)

    def key(self, i: int) -> Key:
        r = self.rows[i]
        return r["member"], r["machine"], r["record_id"]


@dataclass(frozen=True)
class Words:
    """The query's words as the archive counts them: each one's idf, and about how many rows it holds."""

    terms: tuple[str, ...]
    idf: list[float]
    frequency: list[int]
    total: int

    @classmethod
    def of(cls, archive: Archive, plan: QueryPlan, where: str, params: list) -> Words:
        terms = tuple(plan.lexical_terms)
        total, frequency = archive.frequencies(terms, where, params) if terms else (0, [])
        return cls(terms, [math.log(1 + total / (1 + df)) for df in frequency], frequency, total)

    @property
    def held(self) -> float:
        """The idf-weighted share of the query that some row holds (``judgement``'s ``known``)."""
        if not self.terms:
            return 1.0
        return sum(w for w, df in zip(self.idf, self.frequency, strict=True) if df) / (sum(self.idf) or 1.0)

    def proposing(self) -> tuple[str, ...]:
        """The words whose rows the lexical lists rank: all but those held by more than ``COMMON`` of the
        archive's rows and more than ``CHEAP`` rows (ranking every row that holds "test" costs seconds at a
        million rows; such a word still counts in each candidate's share); the rarest held word when every word
        is that common."""
        limit = max(COMMON * self.total, CHEAP)
        pairs = list(zip(self.terms, self.frequency, strict=True))
        rare = tuple(t for t, df in pairs if 0 < df <= limit)
        held = [(df, t) for t, df in pairs if df > 0]
        return rare or ((min(held)[1],) if held else self.terms)


def gather(archive: Archive, req: SearchRequest, plan: QueryPlan, f: Filters, words: Words,
           vector: list[float] | None, notes: list[str]) -> Pool:
    """The candidates of one ranking under the filters ``f`` (a note joins ``notes`` when a quoted phrase no row
    holds is searched without its quotes)."""
    pool = Pool()
    echoes = req.include_echoes or f.content_type == "tool"
    window = time_window.within(f, plan.when) if plan.when is not None else None
    scopes = [s for s in (f, window) if s is not None]  # a date in the query proposes its own days' best too
    depth = pipeline.depth(pipeline.SearchOptions(limit=req.limit + req.offset))
    prose: list[int] = []
    tool: list[int] = []
    if words.terms and req.mode != "semantic":
        prose, tool = _lexical(archive, req, plan, f, words, scopes, depth, pool, notes)
        if window is not None and not plan.phrases:  # a date proposes what its sessions set out to do
            prose += [pool.know(r) for r in archive.first_prompts(*first_prompts_where(window, req.member), depth)]
    nearest: list[int] = []
    if vector is not None and f.content_type not in ("tool", "reasoning") and f.role != "tool":
        for s in scopes:
            for row in archive.nearest(vector, *where_sql(s, include_echoes=echoes, member=req.member), depth):
                if row["cosine"] >= SEMANTIC_FLOOR:
                    nearest.append(pool.know(row))
                    pool.cosines[nearest[-1]] = row["cosine"]
    if tool:
        tool = _with_outputs(archive, plan, f, req.member, tool, pool)
    for name, ids in (("lexical", prose), ("semantic", nearest), ("lexical", tool)):
        for i in ids:
            pool.add(i, name)
    pool.semantic = set(pool.cosines)
    if vector is not None:  # the meaning of the candidates only the words proposed
        found = archive.cosines(vector, [pool.key(i) for i in pool.lists if i not in pool.cosines])
        pool.cosines.update({pool.ids[k]: c for k, c in found.items()})
    return pool


def first_prompts_where(window: Filters, member: str | None) -> tuple[str, list]:
    """The WHERE of a window's first prompts: its project, agent and session, as locally (``Store.first_prompts``)."""
    only = Filters(project=window.project, agent=window.agent, session=window.session, since=window.since,
                   until=window.until)
    return where_sql(only, include_echoes=False, member=member)


def _lexical(archive: Archive, req: SearchRequest, plan: QueryPlan, f: Filters, words: Words, scopes: list[Filters],
             depth: int, pool: Pool, notes: list[str]) -> tuple[list[int], list[int]]:
    """The prose and the tool lists (``pipeline.lexical_lists``): query echoes join the tool list when asked for."""
    echoes = req.include_echoes or f.content_type == "tool"
    ct = f.content_type
    kinds = {"prose": (ct,) if ct in pipeline.PROSE_TYPES else pipeline.PROSE_TYPES if ct is None else None,
             "tool": ("tool",) if ct in (None, "tool") else None}
    weights = dict(zip(words.terms, words.idf, strict=True))
    wanted = {name: types for name, types in kinds.items() if types is not None}
    found: dict[str, list[dict]] = {name: [] for name in wanted}
    for s in scopes:
        for name, rows in archive.lexical(weights, words.proposing(), *where_sql(s, include_echoes=echoes,
                                                                                  member=req.member),
                                          depth, wanted, per_word=CHEAP).items():
            found[name] += rows
    every = [r for rows in found.values() for r in rows]
    pool.quoted = bool(plan.phrases) and any(_holds_phrases(r["words"], plan.phrases) for r in every)
    if plan.phrases and not pool.quoted and every:  # a quoted phrase no record holds is a hint, not a wall
        notes.append("no record holds the quoted phrase: searched for its words without the quotes")
    lists = {name: list(dict.fromkeys(pool.know(r) for r in rows
                                      if not pool.quoted or _holds_phrases(r["words"], plan.phrases)))
             for name, rows in found.items()}
    return lists.get("prose", []), lists.get("tool", [])


def _with_outputs(archive: Archive, plan: QueryPlan, f: Filters, member: str | None, tool: list[int],
                  pool: Pool) -> list[int]:
    """The tool list with the outputs of its calls behind them (those the filters admit), receipts left out, and
    each output's calls in ``pool.calls`` (``pipeline.tool_exchanges``)."""
    partners: tool_exchange.Partners = {}
    for row in archive.tool_partners([pool.key(i) for i in tool]):
        a = pool.ids[(row["member"], row["machine"], row["partner_of"])]
        partners.setdefault(a, (bool(pool.rows[a]["is_call"]), []))[1].append((pool.know(row), bool(row["is_call"])))
    joining = tool_exchange.outputs_to_add(tool, partners) if not plan.phrases else []
    where, params = where_sql(f, include_echoes=False, member=member, kinds=("tool",))
    allowed = {pool.ids[k] for k in archive.admitted([pool.key(i) for i in joining], where, params)}
    exchanges = tool_exchange.with_outputs(tool, partners, allowed)
    texts = {i: pool.rows[i]["text"] for o, cs in exchanges.calls.items() for i in (o, *cs)}
    exchanges = tool_exchange.without(exchanges, tool, tool_exchange.receipts(exchanges, texts))
    pool.calls = exchanges.calls
    return exchanges.ranked


def candidates(pool: Pool, words: Words, *, by_words: bool, meaning: bool) -> list[fusion.Candidate]:
    """Each proposed row's evidence, as a local candidate's (``retrieval.candidates``): its idf-weighted share of
    the query's words (a tool output's counting its calls' words too) and its calibrated cosine (by its place
    among all the candidates' cosines)."""
    closest = sorted(-c for c in pool.cosines.values())  # negated: bisect counts the closer ones

    def calibrated(i: int) -> float | None:
        if not meaning or i not in pool.cosines or pool.rows[i]["content_type"] not in EMBEDDED_TYPES:
            return None
        return semantic_quality(pool.cosines[i], rank=bisect.bisect_left(closest, -pool.cosines[i]) + 1)

    def share(i: int) -> tuple[float, bool]:
        own = _share(pool.rows[i]["words"], words)
        if not by_words or i not in pool.calls:
            return (own if by_words else 0.0), False
        with_calls = _share(" ".join(pool.rows[j]["words"] for j in (i, *pool.calls[i])), words)
        return with_calls, own == 0 and with_calls > 0

    out = []
    for i, lists in pool.lists.items():
        held, by_call = share(i)
        out.append(fusion.Candidate(i, held, calibrated(i), tuple(lists), pool.cosines.get(i), by_call))
    return out


def _holds_phrases(words: str, phrases: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a row's words (``push.archive_words``: the analyzer's tokens in order) hold every quoted phrase."""
    padded = f" {words} "
    return all(f" {' '.join(p)} " in padded for p in phrases)


def holding(pool: Pool):
    """``pipeline.verbatim_first``'s question: those of ``ids`` whose words hold ``words`` in this order."""
    return lambda words, ids: {i for i in ids if _holds_phrases(pool.rows[i]["words"], (words,))}


def _share(text_words: str, words: Words) -> float:
    """The idf-weighted share of the query's words that ``text_words`` (a row's ``words``) hold."""
    held = set(text_words.split())
    whole = sum(words.idf) or 1.0
    return sum(w for t, w in zip(words.terms, words.idf, strict=True) if t in held) / whole
