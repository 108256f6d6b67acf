"""How a hit matched and how strongly: ``match`` (exact | words | meaning) and ``strength`` in [0, 1]. Pure.

``exact``: the record holds the query as typed (case and spacing aside). ``words``: it holds some of
the query's words (lexical lists). ``meaning``: only the semantic list found it, by similarity.
``strength`` is the evidence the ranking used: 1 for an exact match, otherwise the larger of the
lexical quality (idf-weighted share of the query's words, squared) and the semantic quality
(cosine / 0.6, clipped). Unlike ``score`` it means the same thing from one query to the next.
"""

from __future__ import annotations

from dataclasses import replace

from backscroll.types import Hit

LEXICAL_LISTS = ("prose", "tool", "echo")


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def classify(hit: Hit, query: str, lists: dict[str, list[tuple[int, float]]]) -> Hit:
    """``hit`` with ``match`` and ``strength`` set from the quality lists the fusion ranked."""
    lexical = max((q for name in LEXICAL_LISTS for i, q in lists.get(name, ()) if i == hit.rowid), default=None)
    semantic = max((q for i, q in lists.get("semantic", ()) if i == hit.rowid), default=None)
    flat_query = _flat(query).strip('"')
    if lexical is not None and flat_query and flat_query in _flat(hit.text):
        return replace(hit, match="exact", strength=1.0)
    if lexical is not None:
        return replace(hit, match="words", strength=round(max(lexical, semantic or 0.0), 3))
    if semantic is not None:
        return replace(hit, match="meaning", strength=round(semantic, 3))
    return hit
