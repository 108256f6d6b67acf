"""How much an MCP answer may hold: it lands whole in a model's context (Claude Code warns past 10,000 tokens of a
tool's answer and cuts it at 25,000), whatever ``limit`` and ``max_chars`` a model asked for.

A search fits its own answer (``max_tokens``, at most ``SEARCH_TOKENS``: its best hits whole, a note for the rest);
each text is cut at ``MAX_TEXT_CHARS``; any other answer longer than ``MAX_ANSWER_CHARS`` keeps the first entries of
its longest list that fit, and a note says how many were left out and how to page. Pure.
"""

from __future__ import annotations

from typing import Any

import orjson

SEARCH_TOKENS = 20_000  # (four characters a token, as ``retrieval.budget`` counts them)
MAX_ANSWER_CHARS = SEARCH_TOKENS * 4
MAX_TEXT_CHARS = 20_000  # a record's text at most (``max_chars`` 0 or more asks for it whole)
NOTE_CHARS = 300  # room kept for the note saying what was left out


def search_budget(args: dict[str, Any]) -> dict[str, Any]:
    """A search's arguments within the budget: ``max_tokens`` and ``max_chars`` at most this module's."""
    return {**args, "max_tokens": min(args.get("max_tokens") or SEARCH_TOKENS, SEARCH_TOKENS),
            "max_chars": text_chars(args.get("max_chars") or 0)}


def text_chars(max_chars: int) -> int:
    """The ``max_chars`` a tool reads records with: the one asked for, within ``MAX_TEXT_CHARS`` (0: that many)."""
    return min(max_chars or MAX_TEXT_CHARS, MAX_TEXT_CHARS)


def within(document: dict[str, Any], paging: str) -> dict[str, Any]:
    """``document`` within ``MAX_ANSWER_CHARS`` of JSON: the first entries of its longest list that fit, and a note
    (``paging`` says how to read the rest). A document that fits, or holds no list to shorten, is as it was."""
    if _size(document) <= MAX_ANSWER_CHARS:
        return document
    lists = [k for k, v in document.items() if isinstance(v, list) and len(v) > 1 and k != "notes"]
    if not lists:
        return document
    key = max(lists, key=lambda k: _size(document[k]))
    items, low, high = document[key], 1, len(document[key]) - 1  # (at least one entry stays)
    while low < high:  # the most entries that fit
        mid = (low + high + 1) // 2
        if _size({**document, key: items[:mid]}) <= MAX_ANSWER_CHARS - NOTE_CHARS:
            low = mid
        else:
            high = mid - 1
    note = (f"{len(items) - low:,} of the {len(items):,} {key} left out to keep this answer within about "
            f"{SEARCH_TOKENS:,} tokens: {paging}")
    return {**document, key: items[:low], "notes": [*document.get("notes", []), note]}


def _size(value: Any) -> int:
    return len(orjson.dumps(value))
