"""What a test checks of a search: that some top result holds a marker (``recalled``, which ``assert_recalled``
runs), and, when none does, what the search answered instead, for the assertion's message."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from backscroll.types import Hit, SearchResult


def format_hits(hits: Iterable[Hit]) -> str:
    """Hits one per line (rank, agent, project, time, role, echo mark, snippet), for an assertion's message."""
    lines = [f"  {h.rank}. [{h.agent} {h.project or '-'} {(h.timestamp or '')[:16]} {h.role}"
             f"{' echo' if h.is_echo else ''}] {h.snippet[:160]}" for h in hits]
    return "\n".join(lines) or "  (none)"


def recalled(query: str, marker: str, k: int = 5, *, search: Callable[..., SearchResult] | None = None,
             **kw: Any) -> Hit:
    """``assert_recalled`` outside the fixtures (a history built once for a module, ``BackscrollHome.at``): some
    top-k result's whole text holds ``marker``; ``search`` (else ``backscroll.search``) gets ``config=`` in ``kw``."""
    __tracebackhide__ = True
    if "limit" in kw:
        raise TypeError("assert_recalled takes k=N (how many top results may hold the marker), not limit=")
    if "max_chars" in kw:
        raise TypeError("assert_recalled reads each hit's whole text: it takes no max_chars=")
    if not isinstance(marker, str) or not marker:
        raise ValueError(f"assert_recalled needs a marker to look for, as text (an empty one is in every text), "
                         f"not {marker!r}"[:200])
    from backscroll.request import MAX_LIMIT

    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_LIMIT:
        raise ValueError(f"k must be a whole number from 1 to {MAX_LIMIT:,}, not {k!r}"[:200])
    if search is None:
        import backscroll

        search = backscroll.search
    result = search(query, limit=k, max_chars=0, **kw)  # (the whole text: a marker at its end)
    for hit in result.results[:k]:
        if marker in hit.text:
            return hit
    raise AssertionError(f"{marker!r} not in the top {k} results for {query!r}\n{explain(result)}")


def explain(result: SearchResult) -> str:
    """What a search answered, for an assertion's message: each list of hits, the filters, notes, embedder."""
    parts = [f"results:\n{format_hits(result.results)}"]
    if result.also_matching:
        parts.append(f"also matching (a hinted filter left them out: {', '.join(result.dropped_filters) or '-'}):\n"
                     f"{format_hits(result.also_matching)}")
    if result.weak_matches:
        parts.append(f"weak matches (held back: nothing strong answers it):\n{format_hits(result.weak_matches)}")
    parts += [f"note: {n}" for n in result.notes]
    filters = {k: v for k, v in result.filters.to_dict().items() if v not in (None, False, (), [])}
    parts.append(f"mode {result.mode}, filters {filters or 'none'}, embedder "
                 f"{os.environ.get('BACKSCROLL_EMBEDDER') or 'minilm'}")
    return "\n".join(parts)
