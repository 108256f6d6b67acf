"""The types of the fixtures that are calls, for a test's annotations (``backscroll_index: IndexRun``): mypy then
checks each call's arguments and knows what it returns."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from backscroll.archive import IndexOutcome
    from backscroll.types import Hit, SearchResult


class IndexRun(Protocol):
    """``backscroll_index(**options)``: index what was written so far (``embed=False``: words only)."""

    def __call__(self, **options: Any) -> IndexOutcome: ...


class SearchRun(Protocol):
    """``backscroll_search(query, **options)``: ``backscroll.search`` in the test's home, syncing first."""

    def __call__(self, query: str, **options: Any) -> SearchResult: ...


class RecallCheck(Protocol):
    """``assert_recalled(query, marker, k=5, **options)``: the top-k result that holds ``marker``, or a failure that
    says what came instead."""

    def __call__(self, query: str, marker: str, k: int = 5, **options: Any) -> Hit: ...
