"""A text as it is shown, for redaction: what can hide a secret from the rules and vanish when the text reaches a
terminal or an agent.

Colour codes split a token (``gh``, ``kubectl``, ``grep --color`` colour its parts apart); zero-width, bidi and
tag characters, soft hyphens, private-use and unassigned characters sit inside one; fullwidth, circled, script or
mathematical letters spell one in look-alikes. A terminal shows the token whole, and the recall hook, which folds
and drops them (``sanitize.visible``), would hand an agent the working secret. ``redact`` looks for secrets where
they are shown, and keeps the rest of a text as it was written: only the tokens whose shown form holds a secret are
rewritten. Pure functions.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from backscroll.sanitize import visible

# Terminal escape sequences (colours, cursor moves, OSC titles and links), raw or written as a JSON, shell
# or C escape.
_ESC = r"(?:\x1b|\\u001[bB]|\\x1[bB]|\\033|\\e(?=\[))"
_TERMINAL = re.compile(_ESC + r"(?:\[[0-?]{0,32}[ -/]{0,4}[@-~]|\][^\x07\x1b\n]{0,2048}?(?:\x07|\x1b\\|\\u0007|\\a)"
                       r"|[@-Z\\^_])")
_ESC_MARKS = ("\x1b", "\\u001", "\\x1", "\\033", "\\e[")
_ASCII_HIDING = re.compile("[\x00-\x08\x0e-\x1f\x7f]")  # what ``visible`` drops of ASCII
_WHITESPACE = re.compile(r"[\t\n\r\f\v]+")
_TOKENS = re.compile(r"(\s+)")


def without_terminal_codes(text: str) -> str:
    """``text`` with terminal escape sequences removed."""
    if not any(mark in text for mark in _ESC_MARKS):
        return text
    return _TERMINAL.sub("", text)


def may_hide(text: str) -> bool:
    """Whether ``visible`` would change ``text`` (or may: a non-breaking space is kept, but answers True): a
    control, format, private-use or unassigned character, or one NFKC folds."""
    if text.isascii():
        return _ASCII_HIDING.search(text) is not None
    # (``isprintable`` is false for Cc, Cf, Cs, Co, Cn, and separators but the space: whitespace taken out first)
    return not unicodedata.is_normalized("NFKC", text) or not _WHITESPACE.sub("", text).isprintable()


def shown(text: str, secrets: Callable[[str], int]) -> str:
    """``text`` with each whitespace-delimited token whose shown form holds more secrets (``secrets`` counts them)
    written as shown; the whole text as shown when that finds more still (a secret across tokens: ``password is
    hun\u200bter2``)."""
    parts = _TOKENS.split(text)
    changed = False
    for i in range(0, len(parts), 2):
        token = parts[i]
        if token and may_hide(token) and (found := secrets(folded := visible(token))) and found > secrets(token):
            parts[i], changed = folded, True
    out = "".join(parts) if changed else text
    whole = visible(text)
    return whole if whole != out and secrets(whole) > secrets(out) else out
