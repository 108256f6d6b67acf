"""What every human output shares: a terminal-safe console, control characters made visible, and the
words a record's kind is shown with."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import Any, Literal

from backscroll.sanitize import BIDI_CONTROLS, HIDDEN_RANGES
from backscroll.types import Hit

# C0 controls and DEL as their visible Control Pictures (ESC -> ␛), C1 controls, the bidirectional embeddings,
# overrides and isolates (which reorder what a terminal shows after them) and the other characters nobody sees but a
# model reading the output does (zero-width marks, tag characters spelling ASCII) as U+FFFD: one character for
# one, so highlight offsets stay valid. Newline and tab are kept, and so are a soft hyphen and the variation
# selectors of emoji (``⚠️``).
_CONTROLS = {c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A)}
_CONTROLS[0x7F] = 0x2421
_CONTROLS.update({c: 0xFFFD for a, b in HIDDEN_RANGES for c in range(a, b + 1) if c not in (0xAD, 0xFE0E, 0xFE0F)})
_CONTROLS.update({c: 0xFFFD for c in (*range(0x80, 0xA0), *BIDI_CONTROLS)})
# A zero-width space (and a byte-order mark inside text) is what text copied from a web page holds most ("\u200bPR"):
# shown as the space it stands for, not as U+FFFD, which reads as a byte the store broke.
_CONTROLS.update({0x200B: 0x20, 0xFEFF: 0x20})


def clean(text: str) -> str:
    """``text`` safe to print on a terminal: every control character except ``\n``/``\t``, and every bidi
    control, made visible. Pure."""
    if text.isascii() and text.isprintable():  # (most lines: a look far quicker than translate)
        return text
    return text.translate(_CONTROLS)


_LINE_CONTROLS = {**_CONTROLS, 0x09: 0x2409, 0x0A: 0x2424}


def clean_line(text: str) -> str:
    """``clean(text)`` kept on one line: a newline or tab in it made visible too (an id, a path or a folder read
    from a session, which a newline would split into a line of its own). Pure."""
    if text.isascii() and text.isprintable():
        return text
    return text.translate(_LINE_CONTROLS)


def _clean_renderable(obj):
    from rich.text import Text

    if isinstance(obj, str):
        return clean(obj)
    if isinstance(obj, Text):
        plain = obj.plain
        safe = clean(plain)
        if safe != plain:
            obj = obj.copy()
            obj.plain = safe
    return obj


def reader_gone(self) -> None:
    """A rich console's ``on_broken_pipe``: the reader stopped early (``| head``), so what is left goes nowhere and
    the caller ends quietly with status 0 (``common.run``); rich's own ends with status 1."""
    self.quiet = True
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise BrokenPipeError


PIPE_TABLE_WIDTH = 10_000  # (a table is as wide as its cells, never wider)


def console(color: bool, *, markup: bool = False):
    """A rich console on stdout: colour only when asked, user text never read as markup, and a
    reader that stops early (``| head``) ending the program quietly with status 0."""
    from rich.console import Console

    class _Console(Console):
        on_broken_pipe = reader_gone

        def print(self, *objects, **kw) -> None:
            objects = tuple(_clean_renderable(o) for o in objects)
            # Into a pipe, a table's row is one line (`status | grep tool_output`). (No table unless rich.table was
            # imported: its import is not paid by every print into a pipe, an agent's.)
            table = sys.modules.get("rich.table") if self.soft_wrap else None
            if table is not None and any(isinstance(o, table.Table) for o in objects):
                was, self._width = self._width, PIPE_TABLE_WIDTH  # (print caps its width= at the console's)
                try:
                    return super().print(*objects, **kw)
                finally:
                    self._width = was
            super().print(*objects, **kw)

    import shutil

    terminal = _is_terminal(sys.stdout)
    color_system: Literal["auto"] | None = "auto" if color else None  # no colour: no styles at all (bold, dim)
    return _Console(highlight=False, no_color=not color, force_terminal=color or None, soft_wrap=not terminal,
                    color_system=color_system, markup=markup,
                    width=shutil.get_terminal_size().columns if terminal else None,
                    file=sys.stdout)


def print_texts(out, pieces: Iterable[tuple[str, str]]) -> None:
    """``out.print(Text(clean(text), style=style))`` for each ``(text, style)``, byte for byte, in one print: a line
    rich prints as it is goes out as a segment of its own, any other is rendered by rich. (A print a piece took
    most of the time of a session of 20,000 records.)"""
    from rich.cells import cell_len
    from rich.segment import Segment, Segments
    from rich.text import Text

    width, soft = out.width, out.soft_wrap
    options = out.options.update(overflow="ignore", no_wrap=True) if soft else out.options
    newline = Segment("\n")
    segments: list[Segment] = []
    for text, style in pieces:
        look = out.get_style(style) if style else None
        for line in text.split("\n"):
            line = clean(line)
            if "\t" in line and not look and line.isascii():  # (a character a cell: rich's tab stops are Python's;
                line = line.expandtabs(out.tab_size)         # in a styled line rich styles each stop's spaces apart)
            if _as_is(line, width, soft, cell_len):
                if line:
                    segments.append(Segment(line, look))
                segments.append(newline)
            else:
                segments.extend(out.render(Text(line, style=style, end="\n"), options))
    if segments:
        out.print(Segments(segments))


def _as_is(line: str, width: int, soft: bool, cell_len: Callable[[str], int]) -> bool:
    """Whether rich prints ``line`` unchanged: no tab to expand, no spaces past ``width`` to strip (rich 14 strips
    them into a pipe too) and, on a terminal, nothing to wrap at ``width`` (rich's ``Text.wrap``)."""
    if "\t" in line or (len(line) > width and line[-1].isspace()):
        return False
    return soft or len(line) * 2 <= width or cell_len(line) <= width  # (no character is wider than two cells)


def one_line(out, line) -> None:
    """``line`` on one line of a terminal, cut with … at its width; whole into a pipe (``console``'s soft wrap)."""
    if out.soft_wrap:
        out.print(line)
    else:
        out.print(line, no_wrap=True, overflow="ellipsis")


def print_lines(out, lines: Iterable[tuple[Any, bool]]) -> None:
    """Each ``(text, whole)`` as ``one_line`` prints it, or with ``whole`` as ``out.print(text, soft_wrap=True)``
    does (never cut), byte for byte, in one print: rich's set-up of each print was most of ``list -n 1000``'s time."""
    from rich.segment import Segment, Segments

    whole_options = out.options.update(overflow="ignore", no_wrap=True)  # (what print gives a soft-wrapped print)
    cut_options = out.options.update(overflow="ellipsis", no_wrap=True)
    segments: list[Segment] = []
    for text, whole in lines:
        text = _clean_renderable(text)
        if whole or out.soft_wrap:
            segments.extend(out.render(text, whole_options))
        else:  # (as print crops a line that is not soft-wrapped)
            for line in Segment.split_and_crop_lines(out.render(text, cut_options), out.width, pad=False):
                segments.extend(line)
    if segments:
        out.print(Segments(segments), crop=False)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def label(hit: Hit, *, subagent: bool = True) -> str:
    """``assistant``, ``reasoning``, ``summary``, ``tool Bash``, ``output of Bash``, with ``[echo, error,
    subagent]`` flags: what JSON's ``content_type`` says, in words."""
    if hit.content_type == "tool":
        what = f"tool {hit.tool_name}" if hit.is_call else f"output of {hit.tool_name or 'a tool'}"
    elif hit.content_type == "reasoning":
        what = "reasoning"
    elif hit.content_type == "summary":
        what = "summary (compaction)"
    else:
        what = hit.role
    flags = [name for name, on in (("echo", hit.is_echo), ("error", hit.is_error),
                                   ("subagent", subagent and hit.is_sidechain)) if on]
    return what + (f" [{', '.join(flags)}]" if flags else "")
