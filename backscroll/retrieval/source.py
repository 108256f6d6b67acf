"""What ranking asks of a store: one interface, two stores (the local store with its indexes, ``local``;
the team archive, ``team.source``). The pipeline (``pipeline``) runs on it alone, so a ranking rule is
written once and holds on both.

A source names records by integer ids of its own. It proposes candidates (by words, by meaning, a date's
first prompts) and answers questions about them (their words, meaning, facts, neighbours, tool partners);
everything that turns those answers into a ranking is the pipeline's, in pure functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from backscroll.indexes.lexical_schema import LexicalQuery
from backscroll.retrieval.tool_exchange import Partners
from backscroll.types import Filters, Hit

Kinds = str | tuple[str, ...]  # a content type, or several (prose: text, summaries, reasoning)


@dataclass(frozen=True)
class Facts:
    """What the priors, the evidence and the near-duplicate collapse need to know of a candidate record."""

    timestamp: str | None
    content_type: str
    head: str  # the first 400 characters of its text
    key: tuple[str, str]  # (session, content hash): the same text twice in a session is one hit
    size: int = 0  # the length of its text, in characters
    record_id: str = ""  # its id in every store


class Source(Protocol):
    """A store as ranking sees it. ``notes`` collects what the source has to say about the search; ``unread``:
    lines may be written that it has not read yet (another process is indexing them)."""

    notes: list[str]
    unread: bool

    # -- candidates ----------------------------------------------------------------------------
    def by_words(self, q: LexicalQuery, scope: Filters, kinds: Kinds, *, echo: bool, depth: int) -> list[int]:
        """Up to ``depth`` records of ``kinds`` in ``scope`` that hold the query's words, best first."""
        ...

    def by_meaning(self, scope: Filters, depth: int) -> list[tuple[int, float]] | None:
        """Up to ``depth`` prose records in ``scope`` closest in meaning (``(id, cosine)``, closest first); None
        when the source has no vectors to rank with."""
        ...

    def cosines(self, ids: Iterable[int]) -> dict[int, float]:
        """The query's cosine to each of ``ids`` that has a vector (after a ``by_meaning`` call)."""
        ...

    def first_prompts(self, window: Filters, limit: int) -> list[int]:
        """The first prompt of each session with a record in ``window``, the session busy most recently first."""
        ...

    # -- what the candidates hold ----------------------------------------------------------------
    def held(self, q: LexicalQuery, ids: Sequence[int], echoes: bool
             ) -> tuple[dict[str, float], dict[int, frozenset[str]]]:
        """The query's words with their idf (a word no record holds is left out), and the words each of ``ids``
        holds (plain, stemmed, as a part of an identifier, or a longer word it begins when the history never
        says the word itself). ``echoes``: words only query echoes hold count."""
        ...

    def unheld(self, q: LexicalQuery, scope: Filters | None = None, echoes: bool = False
               ) -> tuple[tuple[str, ...], float]:
        """The query's words no record holds, and the idf-weighted share of the query the others make up; with
        ``scope``, no record the filters admit (query echoes aside, unless ``echoes`` are searched too)."""
        ...

    def holding(self, words: tuple[str, ...], ids: list[int]) -> set[int]:
        """Those of ``ids`` that hold ``words`` in this order."""
        ...

    def holds_phrases(self, q: LexicalQuery, scope: Filters, echoes: bool = False) -> bool:
        """Whether any record in ``scope`` holds every quoted phrase of ``q`` (query echoes aside, unless
        ``echoes`` are searched too)."""
        ...

    def facts(self, ids: Sequence[int]) -> dict[int, Facts]:
        ...

    def neighbours(self, facts: dict[int, Facts], ids: Iterable[int], reach: int) -> dict[int, set[int]]:
        """For each of ``ids``, the others of its session at most ``reach`` records away."""
        ...

    def tool_partners(self, ids: list[int]) -> Partners:
        ...

    def admitted(self, ids: list[int], scope: Filters) -> set[int]:
        """Those of ``ids`` (tool rows, never echoes) that ``scope`` admits."""
        ...

    def texts(self, ids: Iterable[int], chars: int) -> dict[int, str]:
        ...

    def suggestions(self, missing: tuple[str, ...]) -> dict[str, str]:
        """For words no record holds, the held word each may have meant (did you mean)."""
        ...

    # -- results -------------------------------------------------------------------------------
    def rows(self, ids: Sequence[int]) -> dict[int, Any]:
        """The records to show, by id (what ``hit`` takes)."""
        ...

    def hit(self, row: Any, **shape: Any) -> Hit:
        """A result from a row of ``rows`` (``shape``: rank, score, snippet, highlights, matched_by, max_chars)."""
        ...

    def session_heads(self, session_ids: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        """``(title, started_at)`` of each session."""
        ...
