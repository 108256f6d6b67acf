"""An answer that must fit an agent's budget (``--max-tokens``): the best hits whole, the last one cut at a word
boundary, the rest left out and counted in a note. Pure.

A token is taken as four characters (English prose and code, for the tokenizers agents use: an estimate, never a
count). What a hit costs is all of it as JSON writes it, its fields with its text and snippet (twice by session,
where a hit is listed in its session too), and the answer's frame a little more; results come first, then what the
hint filters hid (``also_matching``), then the weak matches. Results left out make ``has_more`` true: the next page
holds them.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.sanitize import at_word
from backscroll.types import Hit, SearchResult

CHARS_PER_TOKEN = 4
MIN_CUT = 200  # characters a cut hit keeps at least: less says nothing, so the hit is left out instead
FRAME = 600  # characters of an answer besides its hits (the query, filters, notes, counts), about


def chars_of(hit: Hit, times: int = 1) -> int:
    """The characters ``hit`` takes in the JSON answer, listed ``times`` times."""
    import orjson

    return len(orjson.dumps(hit.to_dict()).decode()) * times


def fitted(result: SearchResult, max_tokens: int) -> SearchResult:
    """``result`` within about ``max_tokens`` tokens, with a note when anything was cut or left out. Each list
    keeps a prefix (a page ends where the next one starts), and the first result is kept even when no result
    fits, cut short: an empty page whose next page starts where it did would never end an agent's loop."""
    room = max_tokens * CHARS_PER_TOKEN - FRAME
    lists: dict[str, tuple[Hit, ...]] = {}
    cut = left = 0
    for name in ("results", "also_matching", "weak_matches"):
        hits = getattr(result, name)
        times = 2 if name == "results" and result.sessions else 1
        kept: list[Hit] = []
        for hit in hits:
            size = chars_of(hit, times)
            if size <= room:
                kept.append(hit)
                room -= size
                continue
            first = name == "results" and not kept
            frame = size - len(hit.text) * times  # (the hit without its text)
            if (room - frame) // times >= MIN_CUT or first:
                chars = max((room - frame) // times, MIN_CUT)
                kept.append(hit if len(hit.text) <= chars else
                            replace(hit, text=at_word(hit.text, chars), text_truncated=True))
                room, cut = 0, cut + (len(hit.text) > chars)
            break
        left += len(hits) - len(kept)
        lists[name] = tuple(kept)
    if not (cut or left):
        return result
    said = f"to fit --max-tokens {max_tokens}: " + ", ".join(
        part for part in (f"{left} hit{'s' if left != 1 else ''} left out" if left else "",
                          "the last one cut" if cut else "") if part)
    return replace(with_results(result, lists["results"]), also_matching=lists["also_matching"],
                   weak_matches=lists["weak_matches"], notes=(*result.notes, said),
                   omitted_for_budget=result.omitted_for_budget + left)


def with_results(result: SearchResult, kept: tuple[Hit, ...]) -> SearchResult:
    """``result`` with only its first results ``kept`` (as kept: the last may be cut), its sessions listing those
    alone. What is left out waits on the next page (``has_more``), which starts after the last result, or
    session, kept."""
    shown = {h.record_id: h for h in kept}
    sessions = (replace(s, hits=tuple(shown[h.record_id] for h in s.hits if h.record_id in shown))
                for s in result.sessions)
    listed = tuple(s for s in sessions if s.hits)
    more = result.has_more or (len(listed) < len(result.sessions) if result.sessions else
                               len(kept) < len(result.results))
    return replace(result, results=kept, sessions=listed, has_more=more)
