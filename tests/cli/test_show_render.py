"""``show``'s human output, byte for byte: a session of hostile text (control characters, markup, bidi and
zero-width marks, wide characters, tabs, long lines, trailing spaces) in colour and without, wrapped on a narrow
and a wide terminal and whole into a pipe, folded and ``--full``, paged, and around a record.

The golden file was written by the renderer that printed each piece of a record on its own (``out.print(Text(…))``);
``print_texts``, which prints a page at once, must print the same bytes, and is checked against rich itself too."""

from __future__ import annotations

import io
import json
import os
import sys
from importlib.metadata import version

import pytest
from helpers import TESTS, in_zone
from hypothesis import example, given, settings
from hypothesis import strategies as st

from backscroll.cli.render_session import print_session_view
from backscroll.types import Hit, SessionView

GOLDEN = TESTS / "golden" / "show_hostile.json"

# Lines a session may hold: each is a case where rich changes a line (expands a tab, wraps it, strips spaces past
# the width) or where the text could drive or fool the terminal.
HOSTILE = ["bell\x07 back\x08 esc\x1b[31mred\x1b[0m", "[bold]not bold[/] and [/] and [red]x[/red]",
           "tab\there\tand\t\tmore", "rtl \u202eevil\u202c zw\u200bsp bom\ufeff tag\U000e0041", "cr\rline",
           "wide 漢字漢字漢字 emoji ⚠️🙂 " * 4, "a" * 130, "word " * 30, "", "   leading and trailing   ",
           "del\x7f nul\x00 c1\x85 nel", "soft\xadhyphen", ":smile: and \\[escaped] [link=http://x]y[/link]",
           "spaces past the width" + " " * 70, "e\u0301" * 66 + "   ", "tab\tthen 漢字\tand ⚠️\tend",
           "x" * 59 + "漢", "x" * 58 + "⚠️ ", "\tleading tab " + "b" * 60 + "\t", "  " * 35,
           "nbsp\u00a0\u00a0" + "n" * 64 + "\u00a0\u3000", "e\u0301" * 40 + "   "]
KINDS = [("user", "text", None, False), ("assistant", "text", None, False), ("assistant", "tool", "Bash", True),
         ("tool", "tool", "Bash", False), ("assistant", "reasoning", None, False),
         ("assistant", "summary", None, False), ("assistant", "tool", "Read", True),
         ("u\x07ser[b]", "text", None, False)]


def hostile_view(*, focus: int | None = None, member: str | None = None) -> SessionView:
    hits = []
    for i in range(16):
        role, content_type, tool, call = KINDS[i % len(KINDS)]
        text = "\n".join(f"{i}.{j} {HOSTILE[(i + j) % len(HOSTILE)]}" for j in range([1, 3, 15, 70, 2][i % 5]))
        hits.append(Hit(rank=4 + i, score=None, record_id=f"rec-{i}", session_id="s", agent="claude", project="p",
                        cwd="/w", role=role, content_type=content_type, tool_name=tool, is_echo=i % 6 == 3,
                        timestamp=None if i % 7 == 0 else f"2026-10-0{1 + i % 9}T0{i % 10}:1{i % 10}:00Z",
                        source_path="/x", line=i, text=text, text_truncated=i % 9 == 4, snippet="", matched_by=(),
                        is_error=i % 5 == 2, is_sidechain=i % 8 == 5, is_call=call))
    session = {"session_id": "sess[/]\x1b\tid", "agent": "claude", "project": "p[red]\x07", "cwd": "/w\n[bold]",
               "started_at": "2026-10-01T00:00:00Z", "title": "T[i]tle\x08\u202e", "is_sidechain": member is None,
               "parent_session_id": None, "member": member, "machine": "lap\x07" if member else None}
    return SessionView(session=session, records=tuple(hits), focus=None if focus is None else hits[focus].record_id,
                       total=40, offset=3)


# name: (colour, --full, terminal, columns, focus, member)
VARIANTS = {
    "pipe": (False, False, False, 80, None, None),
    "pipe-colour-full": (True, True, False, 200, None, None),
    "pipe-record": (False, False, False, 60, 6, None),
    "terminal-60-colour": (True, False, True, 60, None, None),
    "terminal-60-full": (False, True, True, 60, None, "al[b]ice"),
    "terminal-200-colour-record": (True, False, True, 200, 3, None),
    "terminal-13": (True, False, True, 13, None, None),
}

zone = in_zone("UTC")


@pytest.fixture
def screen(monkeypatch):
    """``screen(terminal, columns)``: stdout as ``show`` finds it (a pipe, or a terminal as the pager's buffer
    poses as one), in a terminal that takes colour; returns what was printed."""
    for name in ("NO_COLOR", "FORCE_COLOR", "COLORTERM", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")

    def setup(terminal: bool, columns: int) -> io.StringIO:
        class Screen(io.StringIO):
            def isatty(self) -> bool:
                return terminal

        monkeypatch.setenv("COLUMNS", str(columns))
        buf = Screen()
        monkeypatch.setattr(sys, "stdout", buf)
        return buf

    return setup


def test_show_prints_every_variant_as_it_did_byte_for_byte(zone, screen):
    got = {}
    for name, (colour, full, terminal, columns, focus, member) in VARIANTS.items():
        buf = screen(terminal, columns)
        print_session_view(hostile_view(focus=focus, member=member), full=full, color=colour)
        got[name] = buf.getvalue()
    for name, out in got.items():  # (safe whatever the golden holds: nothing drives the terminal but colour)
        assert ("\x1b[" in out) == VARIANTS[name][0], name
        assert not set(out) & {"\x07", "\x08", "\x00", "\x7f", "\x85", "\r", "\u202e", "\u200b"}, name
        assert "\x1b" not in out.replace("\x1b[", ""), name
        if VARIANTS[name][3] >= 60:  # (narrower, the line is wrapped at its spaces)
            assert "[bold]not bold[/] and [/] and [red]x[/red]" in out, name
    rich = ".".join(version("rich").split(".")[:2])
    if os.environ.get("BACKSCROLL_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps({"rich": rich, **got}, indent=1, ensure_ascii=False) + "\n")
    want = json.loads(GOLDEN.read_text())
    written = want.pop("rich")
    if written != rich:  # (each rich wraps, and strips spaces past the width, in its own way)
        pytest.skip(f"the golden file is rich {written}'s output, not rich {rich}'s")
    assert set(got) == set(want)
    for name in VARIANTS:
        assert got[name] == want[name], name

LINE = st.lists(st.sampled_from(["a", "b", " ", "\t", "\u00a0", "\u3000", "漢", "⚠", "\ufe0f", "e\u0301", "\x07",
                                 "\u202e", "[b]", "[/]", "-", "."]), max_size=40).map("".join)


@settings(max_examples=150, deadline=None)
@given(pieces=st.lists(st.tuples(st.lists(LINE, max_size=4).map("\n".join), st.sampled_from(["", "cyan", "dim"])),
                       max_size=5),
       terminal=st.booleans(), columns=st.integers(min_value=2, max_value=50))
@example(pieces=[("e\u0301" * 20 + "  ", "")], terminal=True, columns=30)  # (narrow in cells, long in characters)
@example(pieces=[("\ta\tb", "cyan")], terminal=False, columns=40)  # (rich styles a tab stop's spaces apart)
def test_print_texts_prints_what_rich_prints_for_each_piece(pieces, terminal, columns):
    from rich.text import Text

    from backscroll.cli.terminal import clean, console, print_texts

    was = sys.stdout, os.environ.get("COLUMNS")
    try:
        os.environ["COLUMNS"] = str(columns)
        outs = []
        for batched in (False, True):
            class Screen(io.StringIO):
                def isatty(self) -> bool:
                    return terminal

            sys.stdout = Screen()
            out = console(True)
            if batched:
                print_texts(out, pieces)
            else:
                for text, style in pieces:
                    out.print(Text(clean(text), style=style))  # (Text() alone would drop a BEL: clean first)
            outs.append(sys.stdout.getvalue())
    finally:
        sys.stdout = was[0]
        if was[1] is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = was[1]
    assert outs[1] == outs[0]
