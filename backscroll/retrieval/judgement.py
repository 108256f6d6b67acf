"""Which hits a search shows: the question judged as a whole (has it an answer here?), then each hit. Pure.

A search for something no session discusses still finds records that share a word or two with it, or that
are the closest of thousands by meaning without being close. The fitted judgement (``relevance``) reads the
question's evidence in the scope the filters leave and says whether it has an answer, as fitted
for a search or for a recall hook. A question without one shows nothing: its hits are *weak matches*,
held back in ``weak_matches`` unless the caller asks for them (``weak``), so that an empty ``results`` means
"nothing here" on every surface. A question with one shows its first hit and every other that holds enough of
it (``LINE_HELD`` on the ``strength`` scale, ``evidence``); the rest are weak. docs/ranking.md, "Judging
relevance", tells how it was fitted and what it keeps.
"""

from __future__ import annotations

from collections.abc import Sequence

from backscroll.types import Hit

LINE_HELD = 0.25  # once a question has an answer, a further hit needs this strength
NOTHING_STRONG = "nothing strong"  # how the note that says so begins (the CLI words its own)


def answered(evidence: Sequence[float], mode: str, point: str = "search") -> bool:
    """Whether the question's evidence (``relevance.FEATURES``) in a search of ``mode`` says it has an answer, as
    judged for ``point``'s use (a search, or a recall hook)."""
    from backscroll.retrieval import relevance

    m = relevance.model(point, mode)
    return relevance.probability(evidence, m) >= m.point


def is_strong(hit: Hit, line: float = LINE_HELD) -> bool:
    """Above ``line``; a hit without a strength (no evidence was judged) counts as strong."""
    return hit.strength is None or hit.strength >= line


def split(hits: Sequence[Hit], answered: bool) -> tuple[list[Hit], list[Hit]]:
    """The hits shown and those held back, each in rank order: none shown for a question without an answer;
    for one with an answer, the first and every other above ``LINE_HELD``."""
    if not answered:
        return [], list(hits)
    strong: list[Hit] = []
    weak: list[Hit] = []
    for n, h in enumerate(hits):
        (strong if n == 0 or is_strong(h) else weak).append(h)
    return strong, weak


def nothing_strong_note(weak: int) -> str:
    return f"{NOTHING_STRONG}: {weak} weak match{'es' if weak != 1 else ''} held back in weak_matches"
