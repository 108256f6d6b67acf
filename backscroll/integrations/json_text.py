"""Editing JSON text in place: insert or remove one member or element, leaving every other byte as it was.

An agent's settings file is the user's: re-serialising it would respell numbers (``1E3`` becomes
``1000.0``), reorder nothing but lose line endings, indentation, spacing and comments. ``loads`` reads JSON
that may hold comments (``//`` and ``/* */``, which Gemini CLI's settings allow); ``parse`` reads text it
has accepted into nodes that know their spans, a comment read as white space; ``insert_member`` and
``append_item`` return the new text and the exact text inserted, so that removing that text gives
the original bytes back; ``entry_at`` tells whether a text found in the file is one whole entry (and
which); ``cut_at`` removes an entry with the comma that joined it to a neighbour, keeping the rest as it
stands (for an inserted text that no longer comes out cleanly: the user wrote beside it, or reformatted), and
the comments the entry's span held.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_SPACE = " \t\n\r"
# A string or a comment (``/*``: unclosed); a ``//`` comment ends at a line feed, as Gemini CLI reads it.
_LEXEME = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|/\*', re.S)


def comments(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """The spans of the comments that start in ``text[start:end]`` (``start`` outside a string); a ``/*`` never
    closed is a ValueError."""
    out = []
    for m in _LEXEME.finditer(text, start):
        if end is not None and m.start() >= end:
            break
        if m.group() == "/*":
            raise ValueError(f"a comment opened at character {m.start()} is never closed")
        if m.group()[0] == "/":
            out.append(m.span())
    return out


def loads(text: str):
    """``json.loads`` of ``text`` with its comments read as white space, refusing a key held twice (``once_each``)."""
    return json.loads(_blanked(text), object_pairs_hook=once_each)


def _blanked(text: str) -> str:
    """``text`` with each comment's characters but its line breaks made spaces."""
    chars = list(text)
    for start, end in comments(text):
        chars[start:end] = (c if c in "\r\n" else " " for c in text[start:end])
    return "".join(chars)


@dataclass
class Node:
    kind: str  # object | array | string | number | literal
    start: int
    end: int
    members: list[tuple[str, int, Node]] = field(default_factory=list)  # object: (key, key start, value)
    items: list[Node] = field(default_factory=list)  # array

    def get(self, key: str) -> Node | None:
        return next((v for k, _s, v in self.members if k == key), None)

    def member_start(self, key: str) -> int:
        return next(s for k, s, _v in self.members if k == key)


class _Reader:
    def __init__(self, text: str):
        self.text = text

    def space(self, i: int) -> int:
        """Past the white space and comments at ``i``."""
        while i < len(self.text):
            if self.text[i] in _SPACE:
                i += 1
            elif self.text.startswith("//", i):
                line_end = self.text.find("\n", i)
                i = len(self.text) if line_end < 0 else line_end
            elif self.text.startswith("/*", i):
                i = self.text.index("*/", i + 2) + 2
            else:
                break
        return i

    def string_end(self, i: int) -> int:
        i += 1
        while self.text[i] != '"':
            i += 2 if self.text[i] == "\\" else 1
        return i + 1

    def value(self, i: int) -> Node:
        i = self.space(i)
        c = self.text[i]
        if c == "{":
            node = Node("object", i, i)
            i = self.space(i + 1)
            while self.text[i] != "}":
                key_end = self.string_end(i)
                key = json.loads(self.text[i:key_end])
                value = self.value(self.space(key_end) + 1)
                node.members.append((key, i, value))
                i = self.space(value.end)
                if self.text[i] == ",":
                    i = self.space(i + 1)
            node.end = i + 1
            return node
        if c == "[":
            node = Node("array", i, i)
            i = self.space(i + 1)
            while self.text[i] != "]":
                item = self.value(i)
                node.items.append(item)
                i = self.space(item.end)
                if self.text[i] == ",":
                    i = self.space(i + 1)
            node.end = i + 1
            return node
        if c == '"':
            return Node("string", i, self.string_end(i))
        j = i
        while j < len(self.text) and self.text[j] not in _SPACE + ",]}/":
            j += 1
        return Node("number" if c in "-0123456789" else "literal", i, j)


def once_each(pairs: list[tuple[str, object]]) -> dict:
    """``json.loads``'s ``object_pairs_hook`` that refuses an object holding a key twice: an agent reads only
    the last of them, where an edit in place would find the first."""
    seen: set[str] = set()
    for key, _value in pairs:
        if key in seen:
            raise ValueError(f"the key {json.dumps(key[:60])} appears twice in one object, and an agent reads only "
                             "the last")
        seen.add(key)
    return dict(pairs)


def parse(text: str) -> Node:
    """The top-level value of ``text`` (which ``loads`` must have read) with the spans of everything in it."""
    return _Reader(text).value(0)


def newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def indent_unit(text: str) -> str:
    """The file's indentation step: a tab, or its smallest run of leading spaces (2 when it has none); a comment's
    lines (`` * doc`` in a block comment) are not read."""
    widths = []
    for line in _blanked(text).splitlines():
        stripped = line.lstrip(" \t")
        lead = line[: len(line) - len(stripped)]
        if stripped and lead:
            if "\t" in lead:
                return "\t"
            widths.append(len(lead))
    return " " * (min(widths) if widths else 2)


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    line = text[start:at]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _render(value, text: str, indent: str, multiline: bool) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    unit = indent_unit(text)
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", newline(text) + indent)


def _insert(text: str, container: Node, entry_start: str, entry) -> tuple[str, str]:
    """Insert one entry (``entry_start`` is ``"key": `` or empty) as the container's last (its first when a comment
    follows the last on its line: the comment stays beside the entry it was written for)."""
    nl = newline(text)
    entries = container.members or container.items
    if entries:
        last = entries[-1]
        last_node = last[2] if isinstance(last, tuple) else last
        first = entries[0]
        first_at = first[1] if isinstance(first, tuple) else first.start
        multiline = "\n" in text[container.start:first_at]
        if multiline and comments(text, last_node.end, _line_end(text, last_node.end)):
            indent = _line_indent(text, first_at)
            opening = comments(text, container.start + 1, _line_end(text, container.start))  # stay on their line
            at = _without_cr(text, opening[-1][1]) if opening else container.start + 1
            ins = nl + indent + entry_start + _render(entry, text, indent, True) + ","
            return text[:at] + ins + text[at:], ins
        if multiline:
            indent = _line_indent(text, first_at)
            ins = "," + nl + indent + entry_start + _render(entry, text, indent, True)
        else:
            ins = ", " + entry_start + _render(entry, text, "", False)
        at = last_node.end
    else:  # after the comments on the opening line; the line that closes it, or a comment's, ends ours
        outer = _line_indent(text, container.start)
        indent = outer + indent_unit(text)
        opening = comments(text, container.start + 1, min(_line_end(text, container.start), container.end - 1))
        at = _without_cr(text, opening[-1][1]) if opening else container.start + 1
        closed = "\n" in text[at:container.end] or comments(text, at, container.end - 1)
        ins = nl + indent + entry_start + _render(entry, text, indent, True) + ("" if closed else nl + outer)
    return text[:at] + ins + text[at:], ins


def insert_member(text: str, obj: Node, key: str, value) -> tuple[str, str]:
    """``text`` with ``"key": value`` added as the object's last member, and the text inserted."""
    return _insert(text, obj, json.dumps(key, ensure_ascii=False) + ": ", value)


def append_item(text: str, arr: Node, value) -> tuple[str, str]:
    """``text`` with ``value`` added as the array's last element, and the text inserted."""
    return _insert(text, arr, "", value)


def _entries(node: Node) -> list[tuple[str | int, int, Node]]:
    """(key or index, where the entry starts, its value) for each entry of a container."""
    if node.kind == "object":
        return [(k, s, v) for k, s, v in node.members]
    return [(i, n.start, n) for i, n in enumerate(node.items)]


def entry_at(text: str, start: int, end: int) -> tuple[list[str | int], Node, int, Node] | None:
    """The one entry that ``text[start:end]`` holds whole, with nothing but commas and white space around it:
    (the keys that lead to it, its container, its index there, its value); None for anything else."""
    node, keys = parse(text), list[str | int]()
    while node.kind in ("object", "array"):
        for key, at, value in _entries(node):
            if start <= at and value.end <= end:
                if text[start:at].strip(_SPACE + ",") or text[value.end:end].strip(_SPACE + ","):
                    return None
                return [*keys, key], node, _entries(node).index((key, at, value)), value
            if value.start <= start and end <= value.end:
                node, keys = value, [*keys, key]
                break
        else:
            return None
    return None


def cut_at(text: str, container: Node, index: int) -> str:
    """``text`` without the container's entry at ``index`` (and the comma that joined it to its neighbour), the
    comments its span held kept."""
    spans = [(at, value.end) for _k, at, value in _entries(container)]
    start, end = spans[index]
    if index > 0:
        return _cut(text, spans[index - 1][1], end)
    if len(spans) > 1:
        return _cut(text, start, spans[1][0])
    return _cut(text, container.start + 1, end)  # (what follows the only entry closes the container: it stays)


def _cut(text: str, start: int, end: int) -> str:
    """``text`` without ``text[start:end]`` but for the comments in it, each with the white space before it, and a
    line break after a ``//`` comment where something would follow on its line."""
    kept, last, open_line = "", start, False  # (open_line: the kept text ends in a // comment)
    for c_start, c_end in comments(text, start, end):
        lead = c_start
        while lead > last and text[lead - 1] in _SPACE:
            lead -= 1
        gap = text[lead:c_start]
        if open_line:  # (after a // comment: its line ends, with no white space left at its end)
            breaks = gap.find("\n")
            gap = gap[_without_cr(gap, breaks):] if breaks >= 0 else newline(text) + _line_indent(text, c_start)
        open_line = text.startswith("//", c_start)
        c_end = _without_cr(text, c_end) if open_line else c_end
        kept += gap + text[c_start:c_end]
        last = c_end
    if re.search(r"\n[ \t]*\Z", text[:start]):  # (the cut starts a line: the comments start it)
        kept = kept.lstrip(_SPACE)
    if open_line and not re.match(r"[ \t\r]*(\n|\Z)", text[end:]):
        kept += newline(text) + _line_indent(text, end)
    return text[:start] + kept + text[end:]


def _without_cr(text: str, end: int) -> int:
    """``end``, before the carriage return a ``//`` comment of a CRLF line holds."""
    return end - 1 if text[end - 1:end] == "\r" else end


def cut_member(text: str, obj: Node, key: str) -> str:
    """``text`` without the member ``key``."""
    return cut_at(text, obj, [k for k, _s, _v in obj.members].index(key))


def cut_item(text: str, arr: Node, index: int) -> str:
    """``text`` without the array's element at ``index``."""
    return cut_at(text, arr, index)
