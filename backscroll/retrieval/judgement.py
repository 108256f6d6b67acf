"""The weak line: which hits are strong enough to show, on the ``strength`` scale (``evidence``). Pure.

A search for something no session discusses still finds records that share a word or two with it,
or that are the closest of thousands by meaning without being close. Those are *weak matches*: held
back in ``weak_matches`` unless the caller asks for them (``weak``), so that an empty ``results``
means "nothing here" on every surface (CLI, library, MCP; the recall hooks are stricter still).

Where the line lies depends on whether the query is about something the history holds. It is when
meaning singles some records out (the best cosine stands ``STANDS_OUT`` above the tenth best) or
when every word of the query is in the history: then a hit needs
``LINE_HELD``, for a paraphrase's answer holds few of the question's words and is only modestly close.
Otherwise (a word the history never saw, "terraform", and nothing close in meaning) a hit needs
``LINE``: most of the query's words, counting the unknown ones, or an exact match. Without meaning
to ask (lexical mode, tool rows, no vectors yet) words alone decide, at ``LINE_WORDS``. Once one hit
clears the line, the query has an answer, and the others need only ``LINE_HELD``. How the
numbers were chosen is in docs/ranking.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from backscroll.types import Hit

STANDS_OUT = 0.1  # the best cosine this far above the tenth best singles records out
LINE_HELD = 0.25  # the weak line for a query about something the history holds
LINE = 0.6  # the weak line otherwise
LINE_WORDS = 0.4  # the weak line without meaning (lexical mode, tool rows, no vectors)
NOTHING_STRONG = "nothing strong"  # how the note that says so begins (the CLI words its own)


def line(cosines: Sequence[float] | None, known: float) -> float:
    """The weak line for a search whose meaning ranking gave ``cosines`` (the query's best, best first,
    above the similarity floor; None: there was no meaning ranking) and whose words are ``known`` to the
    history (the idf-weighted share some record holds). Fewer than ten cosines count the floor for the
    missing ones."""
    from backscroll.retrieval.ranking import SEMANTIC_FLOOR

    if cosines is None:
        return LINE_WORDS
    tenth = cosines[9] if len(cosines) > 9 else SEMANTIC_FLOOR
    singled = bool(cosines) and cosines[0] - tenth >= STANDS_OUT
    return LINE_HELD if singled or known >= 1.0 else LINE


def is_strong(hit: Hit, line: float) -> bool:
    """Above the weak line; a hit without a strength (no evidence was judged) counts as strong."""
    return hit.strength is None or hit.strength >= line


def split(hits: Iterable[Hit], line: float) -> tuple[list[Hit], list[Hit]]:
    """The hits above the weak line and those below it, each in rank order. Once one hit clears
    ``line``, the query is about something the history holds, and the others need only ``LINE_HELD``."""
    hits = list(hits)
    if any(is_strong(h, line) for h in hits):
        line = min(line, LINE_HELD)
    strong: list[Hit] = []
    weak: list[Hit] = []
    for h in hits:
        (strong if is_strong(h, line) else weak).append(h)
    return strong, weak


def nothing_strong_note(weak: int) -> str:
    return f"{NOTHING_STRONG}: {weak} weak match{'es' if weak != 1 else ''} held back in weak_matches"
