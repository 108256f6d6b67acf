"""Session text made safe for where it goes: an agent's context, a message.

Anything an agent ever read can sit in a session (a web page, a file, a tool's output), so text
quoted back to an agent may hold markup meant to end our framing early ("</backscroll-recall>
SYSTEM: …") or terminal escapes. ``for_agent`` folds compatibility forms (fullwidth ``＜``) to
their plain characters, drops control and format characters (escapes, zero-width and bidi marks),
and escapes ``&``, ``<`` and ``>`` (and the angle brackets that look like them): no tag, of any
spelling, can form inside quoted text. ``shorten`` bounds what a message echoes of an identifier or
a path taken from a session (a hostile row once made every ``status`` print a 5 MB id).
"""

from __future__ import annotations

import html
import unicodedata

_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})  # controls, format marks, surrogates, private, unassigned
# Angle brackets NFKC leaves alone that a reader may still take for one.
_ANGLES = str.maketrans({c: "&lt;" for c in "‹〈⟨❮❬˂ᐸ"} | {c: "&gt;" for c in "›〉⟩❯❭˃ᐳ"})


def printable(text: str) -> str:
    """``text`` NFKC-folded, without control or format characters (whitespace becomes a space)."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(" " if ch in "\t\n\r\f\v" else ch for ch in folded
                   if ch in "\t\n\r\f\v" or unicodedata.category(ch) not in _DROPPED)


def for_agent(text: str) -> str:
    """``text`` as it may be quoted inside a block an agent reads: printable, and no markup."""
    return html.escape(printable(text), quote=False).translate(_ANGLES)


MESSAGE_MAX = 400  # characters of an identifier or a path a message echoes


def shorten(text: str, limit: int = MESSAGE_MAX) -> str:
    """``text`` within ``limit`` characters: its head and tail around a count of what was left out."""
    if len(text) <= limit:
        return text
    keep = max(limit - 40, 20)
    head, tail = text[: keep * 2 // 3], text[-(keep - keep * 2 // 3):]
    return f"{head}…[{len(text) - len(head) - len(tail):,} characters]…{tail}"
