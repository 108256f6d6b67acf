"""The CLI's wording of library hints: where the library says what to do, the CLI names its flags.

Keyed by an error's ``kind`` and ``reason`` (``errors.BackscrollError``); the JSON error document
keeps its shape, with the hint worded for the command line.
"""

from __future__ import annotations

from backscroll.errors import BackscrollError

HINTS: dict[tuple[str, str], str] = {
    ("semantic-unavailable", "no-embeddings"):
        "run `backscroll embed` (`backscroll index` embeds too, unless embedding is off), or search with --mode "
        "lexical",
    ("usage", "empty-range"): "swap them: --since is the older end of the range",
    ("read-only-store", "read-only"):
        "search, show, list and status still read it; to index, make the data dir writable or "
        "copy it somewhere writable and point $BACKSCROLL_HOME (or --home) at the copy",
    ("read-only-store", "cannot-create"):
        "point $BACKSCROLL_HOME (or --home) at a folder you can write, or make this one writable",
    ("read-only-store", "index-unreadable"):
        "copy the data dir somewhere writable and run `backscroll --home COPY rebuild`",
    ("nothing-indexed", "no-files"):
        "`backscroll status` shows where sessions are looked for; `backscroll index --source AGENT:PATH` reads "
        "others",
}
RERUN = "add --rerun"  # how a repeated search is run anyway, in the note that replaces its results


def worded(exc: BackscrollError) -> BackscrollError:
    """``exc`` with its hint in the CLI's words (the same object, changed in place)."""
    hint = HINTS.get((exc.kind, exc.reason or ""))
    if hint is not None:
        exc.hint = hint
    return exc
