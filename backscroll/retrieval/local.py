"""The local store as a ranking ``Source``: the record store (SQLite), the lexical index (Tantivy) and the
vectors' matrix. Record ids are the store's own."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from backscroll.config import Config
from backscroll.indexes.lexical import LexicalIndex, LexicalQuery
from backscroll.ingest.redact_again import shown_rows
from backscroll.retrieval import meaning
from backscroll.retrieval.candidates import Facts, fetch_facts, fetch_neighbours
from backscroll.retrieval.query import QueryPlan
from backscroll.retrieval.source import Kinds
from backscroll.retrieval.tool_exchange import Partners
from backscroll.store.db import Store
from backscroll.types import Filters, Hit


@dataclass
class LocalSource:
    """This machine's store and indexes, for one search (``plan``, its mode, and whether this process synced)."""

    store: Store
    lex: LexicalIndex
    cfg: Config
    plan: QueryPlan
    mode: str
    fresh: bool = False
    notes: list[str] = field(default_factory=list)
    unread: bool = False  # another process is indexing: words it has not committed are not found yet
    memo: dict = field(default_factory=dict)  # the query's vector and similarities, once for every ranking

    def by_words(self, q: LexicalQuery, scope: Filters, kinds: Kinds, *, echo: bool, depth: int) -> list[int]:
        return [i for i, _s in self.lex.search(q, scope, content_type=kinds, echo=echo, limit=depth)]

    def by_meaning(self, scope: Filters, depth: int) -> list[tuple[int, float]] | None:
        return meaning.nearest(self.store, self.cfg, self.plan, scope, self.mode, depth, self.fresh, self.notes,
                               self.memo)

    def cosines(self, ids: Iterable[int]) -> dict[int, float]:
        return meaning.cosines(self.store, self.memo, ids)

    def first_prompts(self, window: Filters, limit: int) -> list[int]:
        return self.store.first_prompts(window.since or "", window.until or "", project=window.project,
                                        agent=window.agent, session=window.session, sessions=window.sessions,
                                        limit=limit)

    def held(self, q: LexicalQuery, ids: Sequence[int], echoes: bool
             ) -> tuple[dict[str, float], dict[int, frozenset[str]]]:
        return self.lex.held(q, list(ids), echoes)

    def unheld(self, q: LexicalQuery, scope: Filters | None = None, echoes: bool = False
               ) -> tuple[tuple[str, ...], float]:
        return self.lex.unheld(q, scope, echoes)

    def holding(self, words: tuple[str, ...], ids: list[int]) -> set[int]:
        return self.lex.holding(words, ids)

    def holds_phrases(self, q: LexicalQuery, scope: Filters, echoes: bool = False) -> bool:
        return self.lex.count(q, scope, content_type=None, echo=None if echoes else False) > 0

    def facts(self, ids: Sequence[int]) -> dict[int, Facts]:
        return fetch_facts(self.store, list(ids))

    def neighbours(self, facts: dict[int, Facts], ids: Iterable[int], reach: int) -> dict[int, set[int]]:
        return fetch_neighbours(self.store, facts, ids, reach)

    def tool_partners(self, ids: list[int]) -> Partners:
        return self.store.tool_partners(ids)

    def admitted(self, ids: list[int], scope: Filters) -> set[int]:
        return self.lex.within(ids, scope, content_type="tool", echo=False)

    def texts(self, ids: Iterable[int], chars: int) -> dict[int, str]:
        return self.store.texts(ids, chars)

    def suggestions(self, missing: tuple[str, ...]) -> dict[str, str]:
        from backscroll.retrieval.unheld import suggestions

        return suggestions(self.store, self.lex, missing)

    def rows(self, ids: Sequence[int]) -> dict[int, Any]:
        fetched = self.store.fetch(ids)
        return dict(zip(fetched, shown_rows(self.store, fetched.values()), strict=True))

    def hit(self, row: Any, **shape: Any) -> Hit:
        return Hit.from_row(row, **shape)

    def session_heads(self, session_ids: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        return self.store.session_heads(session_ids)
