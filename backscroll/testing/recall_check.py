"""What a test checks of a search: that some top result holds a marker (``recalled``, which ``assert_recalled``
runs), and, when none does, what the search answered instead, for the assertion's message."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from backscroll.sanitize import printable

if TYPE_CHECKING:
    from backscroll.types import Hit, SearchResult


def format_hits(hits: Iterable[Hit]) -> str:
    """Hits one per line (rank, agent, project, time, role, echo mark, snippet), for an assertion's message; session
    text printable (a tool's colours or a hostile title never drive the terminal showing the failure)."""
    lines = [f"  {h.rank}. [{h.agent} {printable(h.project or '-')[:60]} {(h.timestamp or '')[:19]} {h.role}"
             f"{' echo' if h.is_echo else ''}] {printable(h.snippet)[:160]}" for h in hits]
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
    where = ranked_deeper(search, query, marker, k, kw)
    raise AssertionError(f"{marker!r} not in the top {k} results for {query!r}{where}\n{explain(result, kw)}")


DEEPER = 50  # how far a failed check looks for the marker, to say how near it came


def ranked_deeper(search: Callable[..., SearchResult], query: str, marker: str, k: int, kw: dict) -> str:
    """Where the marker ranks past the top ``k``, for a failure's message: a near miss reads apart from a record
    never indexed, and one the filters or the echo rule kept out, or written in another case, from both."""
    from backscroll.request import MAX_LIMIT

    depth = min(MAX_LIMIT, max(DEEPER, 2 * k))
    deeper = search(query, **{**kw, "limit": depth, "max_chars": 0, "rerun": True})
    for name, hits in (("results", deeper.results), ("weak matches", deeper.weak_matches),
                       ("also matching", deeper.also_matching)):
        rank = next((h.rank for h in hits if marker in h.text), None)
        if rank is not None:
            return f" (it is {name} rank {rank} of the top {depth})"
    unfiltered = {name: value for name, value in kw.items() if name not in _FILTERS}
    wide = search(query, **{**unfiltered, "limit": depth, "max_chars": 0, "rerun": True, "include_echoes": True,
                            "weak": True}).results
    said = []
    hit = next((h for h in wide if marker in h.text), None)
    if hit is not None:
        echo = ", an echo: include_echoes=True lets echoes in" if hit.is_echo and not kw.get("include_echoes") else ""
        said.append(f"not within what was asked; with no filters and echoes let in it is rank {hit.rank}{echo}")
    folded = marker.casefold()
    for name, hits in (("results", deeper.results), ("weak matches", deeper.weak_matches), ("with no filters", wide)):
        h, at = next(((h, h.text.casefold().find(folded)) for h in hits
                      if marker not in h.text and folded in h.text.casefold()), (None, -1))
        if h is not None:
            written = printable(h.text[at:at + len(marker)] if len(h.text.casefold()) == len(h.text) else "")
            said.append(f"{name} rank {h.rank} holds it written otherwise{f' ({written[:80]!r})' if written else ''}: "
                        "the marker is matched case for case")
            break
    if said:
        return f" ({'; '.join(said)})"
    cut = [h.rank for h in deeper.results[:depth] if h.text_truncated]
    if cut:
        return (f" (nor anywhere in the top {depth}; the text of rank {', '.join(map(str, cut[:5]))} was cut when it "
                "was stored, and a marker past the cut is not kept)")
    return f" (nor anywhere in the top {depth}: is it indexed, and written so?)"


# What the deeper search leaves out to tell a marker outside the filters asked from one never indexed.
_FILTERS = frozenset({"project", "session", "file", "since", "until", "role", "author", "agent", "content_type",
                      "member", "strict"})


def explain(result: SearchResult, asked: dict[str, Any] | None = None) -> str:
    """What a search answered, for an assertion's message: each list of hits, the filters, notes, embedder."""
    parts = [f"results:\n{format_hits(result.results)}"]
    if result.also_matching:
        parts.append(f"also matching (outside {', '.join(result.dropped_filters) or '-'}; strict=True leaves them "
                     f"out):\n{format_hits(result.also_matching)}")
    if result.weak_matches:
        parts.append(f"weak matches (held back: nothing strong answers it):\n{format_hits(result.weak_matches)}")
    parts += [f"note: {n}" for n in result.notes]
    filters = {k: v for k, v in result.filters.to_dict().items() if v not in (None, False, (), [])}
    filters.update({k: True for k in ("strict", "weak", "include_echoes") if (asked or {}).get(k)})
    parts.append(f"mode {result.mode}, filters {filters or 'none'}, embedder "
                 f"{os.environ.get('BACKSCROLL_EMBEDDER') or 'minilm'}")
    return "\n".join(parts)
