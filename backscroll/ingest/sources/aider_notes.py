"""Aider's own notes: the lines that report a change Aider made to a file, and what a person typed at its /run
prompt. Pure.

Aider applies the edits a model's reply asks for and says so in a note, a line per file: "Applied edit to
PATH" (``EditBlockCoder.apply_edits`` and the other coders; a new file too) and "Creating empty file PATH"
(``/add`` of a file that does not exist). Those lines are the calls of Aider's edits, so that ``files`` finds
them as it finds another agent's ``Edit``; the note's other lines stay one note, in order.
"""

from __future__ import annotations

import re

# What a note's line says Aider did to a file, as the tool name ``touches.action`` reads.
_CHANGED = re.compile(r"^(?P<what>Applied edit to|Creating empty file) \S")
TOOL_OF = {"Applied edit to": "edit", "Creating empty file": "write"}
# The /run prompt where a person may type instructions instead of y/n (aider 0.46-0.63), then the answer.
_INSTRUCTIONS = re.compile(r"(?:\([yY]/n/instructions\):?|\[Y/n/instructions\]|\(Y\)es/\(n\)o/message with "
                           r"instructions:)[ \t]*(?P<answer>.*?)\s*$")
_PLAIN_ANSWERS = {"", "y", "n", "yes", "no"}


def parts(lines: list[str]) -> list[tuple[int, str, str | None]]:
    """A note's lines as ``(index of the first line, text, tool)``: each line reporting a change to a file, with
    the tool it counts as (``TOOL_OF``), and each run of other lines around them with None (blank runs left
    out)."""
    out: list[tuple[int, str, str | None]] = []
    run: list[str] = []
    start = 0

    def close() -> None:
        text = "\n".join(run).strip()
        if text:
            out.append((start, text, None))

    for i, line in enumerate(lines):
        changed = _CHANGED.match(line)
        if changed is None:
            if not run:
                start = i
            run.append(line)
            continue
        close()
        run = []
        out.append((i, line.strip(), TOOL_OF[changed.group("what")]))
    close()
    return out


def typed_instructions(note: str) -> tuple[str, str | None]:
    """``(note, instructions)``: what a person typed at the /run "(y/n/instructions)" prompt in place of y or
    n, taken out of Aider's note; None when the note holds no such answer."""
    lines = note.split("\n")
    for i, line in enumerate(lines):
        m = _INSTRUCTIONS.search(line)
        if m and m.group("answer").lower() not in _PLAIN_ANSWERS:
            lines[i] = line[:m.start("answer")].rstrip()
            return "\n".join(lines), m.group("answer")
    return note, None
