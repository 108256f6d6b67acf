"""Session text made safe for where it goes: an agent's context, a message.

Anything an agent ever read can sit in a session (a web page, a file, a tool's output), so text
quoted back to an agent may hold markup meant to end our framing early ("</backscroll-recall>
SYSTEM: …") or terminal escapes. ``for_agent`` folds compatibility forms (fullwidth ``＜``) to
their plain characters, drops control and format characters (escapes, zero-width and bidi marks),
and escapes ``&``, ``<`` and ``>``, and every character that looks like an angle bracket (Unicode's
confusables data, through ``confusable-homoglyphs``, and any character named an angle bracket): no tag,
of any spelling, can form inside quoted text. ``plain_id`` says whether an id reads as itself on a command
line. ``shorten`` bounds what a message echoes of an identifier or a path taken from a session (a hostile row
once made every ``status`` print a 5 MB id); ``at_word`` cuts a text at a word; ``whole`` makes a caller's text
valid Unicode, and ``composed`` puts it in the form words are compared in.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata

_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn"})  # controls, format marks, surrogates, private, unassigned
# The bidirectional marks, embeddings, overrides and isolates: they reorder what is shown after them.
BIDI_CONTROLS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
# What a reader does not see and a model still reads: the format characters (zero-width and bidi marks, soft hyphens,
# the tag characters that spell ASCII unseen: every character of Unicode's category Cf) and the variation selectors
# (invisible, and able to carry bytes).
HIDDEN_RANGES = ((0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891),
                 (0x8E2, 0x8E2), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
                 (0x2066, 0x206F), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
                 (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
                 (0xE0020, 0xE007F), (0xE0100, 0xE01EF))
HIDDEN = re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in HIDDEN_RANGES) + "]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_PLAIN_ID = re.compile(r"[\w.:@+#~/-]+")  # an id a shell reads as one word, as it is (``abc-123#0``)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@functools.cache
def _angles() -> dict[str, str]:
    """Every character Unicode's confusables data takes for ``<`` or ``>``, directly or through another one,
    with the entity it is written as (loaded on the first text that is not ASCII)."""
    from confusable_homoglyphs.confusables import confusables_data as table

    out: dict[str, str] = {}
    for angle, entity in (("<", "&lt;"), (">", "&gt;")):
        seen, todo = {angle}, [angle]
        while todo:
            for glyph in table.get(todo.pop(), ()):
                if glyph["c"] not in seen:
                    seen.add(glyph["c"])
                    todo.append(glyph["c"])
        out.update(dict.fromkeys(seen - {angle}, entity))
    return out


def _angle(m: re.Match) -> str:
    ch = m.group(0)
    if (entity := _angles().get(ch)) is not None:
        return entity
    name = unicodedata.name(ch, "")  # ornaments and brackets the confusables data leaves out: ❰ ⧼ 〈
    if "ANGLE" in name and ("BRACKET" in name or "QUOTATION" in name):
        return "&lt;" if "LEFT" in name else "&gt;"
    return ch


def visible(text: str) -> str:
    """``text`` as it reads: NFKC-folded (fullwidth ``ｇ`` is ``g``), without control or format characters
    (zero-width and bidi marks, soft hyphens), whitespace kept. Pure."""
    folded = HIDDEN.sub("", unicodedata.normalize("NFKC", text))
    return "".join(ch for ch in folded if ch in "\t\n\r\f\v" or unicodedata.category(ch) not in _DROPPED)


def printable(text: str) -> str:
    """``visible(text)`` on one line: whitespace becomes a space."""
    return visible(text).translate(_ONE_LINE)


_ONE_LINE = str.maketrans("\t\n\r\f\v\x85\u2028\u2029", "        ")  # (and the breaks splitlines() knows)


def for_agent(text: str, *, quotes: bool = False) -> str:
    """``text`` as it may be quoted inside a block an agent reads: printable, and no markup; with ``quotes``, its
    double quotes escaped too (``&quot;``), so that inside ours it cannot end the quote and forge what follows."""
    out = html.escape(printable(text), quote=False)
    if quotes:
        out = out.replace('"', "&quot;")
    return out if out.isascii() else _NON_ASCII.sub(_angle, out)


_RAW_IN_JSON = re.compile(rb"\x7f|\xc2[\x80-\x9f]")  # DEL and the C1 controls, which JSON lets through raw


def escaped_controls(data: bytes) -> bytes:
    """A JSON document with every control a parser lets through raw (DEL, the C1 controls: a terminal may read
    ``\\x9b`` as an escape) and every character a reader does not see (``HIDDEN``: bidi and zero-width marks, tag
    characters) written as its ``\\uXXXX`` escape: the same strings to a parser, while a terminal, a client showing
    the document, or a model reading it (an MCP answer is read as it is written) sees each one, and is neither
    driven nor reordered nor instructed unseen by session text."""
    # (each pattern runs only where a quicker look finds what it could match: over a whole session's 30 MB they took
    # seconds; the non-ASCII bytes alone are UTF-8's whole characters, and every HIDDEN one is among them)
    if b"\x7f" in data or b"\xc2" in data:
        data = _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group().decode()):04x}".encode(), data)
    if data.isascii() or not HIDDEN.search(data.translate(None, _ASCII).decode()):
        return data
    return HIDDEN.sub(_json_escape, data.decode()).encode()


_ASCII = bytes(range(0x80))


def _json_escape(m: re.Match) -> str:
    code = ord(m.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # (beyond the first plane: a surrogate pair)
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def at_word(text: str, chars: int) -> str:
    """``text`` cut to at most ``chars`` characters at a word boundary, with an ellipsis."""
    head = text[:max(chars - 1, 0)]
    space = head.rfind(" ")
    return (head[:space] if space > chars // 2 else head).rstrip() + "…"


REDACTION_MARK = "[REDACTED:"  # what ``ingest.redact`` writes in a secret's place: ``[REDACTED:<kind>]``


def short_of_marks(text: str) -> str:
    """``text`` (cut at some length) without the redaction mark it ends inside (``key=[REDAC``,
    ``[REDACTED:aws-k``): half a mark reads as the start of a secret. Pure."""
    at = text.rfind("[", max(0, len(text) - 80))
    tail = text[at:] if at >= 0 else ""
    if len(tail) > 1 and "]" not in tail and (REDACTION_MARK.startswith(tail) or tail.startswith(REDACTION_MARK)):
        return text[:at]
    return text


def capped(text: str, chars: int) -> str:
    """``text`` whole when it fits in ``chars`` characters (0: any), else cut to fit with an ellipsis, short of a
    redaction mark. Pure."""
    return short_of_marks(text[: chars - 1]) + "…" if chars and len(text) > chars else text


def within(text: str, chars: int) -> str:
    """``text`` whole when it fits in ``chars`` characters, else cut at a word (``at_word``)."""
    return text if len(text) <= chars else at_word(text, chars)


MESSAGE_MAX = 400  # characters of an identifier or a path a message echoes


def shorten(text: str, limit: int = MESSAGE_MAX) -> str:
    """``text`` within ``limit`` characters: its head and tail around a count of what was left out."""
    if len(text) <= limit:
        return text
    keep = max(limit - 40, 20)
    head, tail = text[: keep * 2 // 3], text[-(keep - keep * 2 // 3):]
    return f"{head}…[{len(text) - len(head) - len(tail):,} characters]…{tail}"


def whole(value):
    """``value`` with every lone surrogate of its text made U+FFFD (a byte that is not UTF-8 in a command line's
    argument, ``"\\ud800"`` in JSON), as a session's text is at ingest; text in a tuple too, anything else as is."""
    if isinstance(value, str):
        return value if value.isascii() or not _LONE_SURROGATE.search(value) else _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, tuple) and any(isinstance(v, str) for v in value):
        return tuple(whole(v) for v in value)
    return value


def composed(text: str) -> str:
    """``text`` in Unicode's composed form (NFC), as words are read and compared: "é" typed and "é" stored decomposed
    (as macOS names files) alike. Pure."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def plain_id(ident: str) -> bool:
    """Whether ``ident`` is one word a shell reads as it is, and no option: no space, quote, ``;`` or ``$(``, no
    control character; a log's id that is not (``a;touch x``) is never put in a command. Pure."""
    return bool(_PLAIN_ID.fullmatch(ident)) and not ident.startswith(("-", "#", "~"))
