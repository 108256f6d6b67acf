"""``backscroll stats``: sessions and records per agent, project and month, at a glance."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from backscroll.cli import common

ROWS = {"agent": 20, "project": 10, "month": 12}  # how many of each a table shows (the rest summed on one line)
BAR_WIDTH = 30
UNNAMED = {"agent": "(unknown)", "project": "-", "month": "(undated)"}  # (a project as list and status name none)


def stats(
    since: Annotated[str | None, typer.Option("--since", metavar="WHEN",
                                              help="Only records since: 2026-10-01, 2026-10, 7d, 3mo.")] = None,
    until: Annotated[str | None, typer.Option("--until", metavar="WHEN",
                                              help="Only records up to this, its day included: 2026-10-31, "
                                                   "2026-10, yesterday.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout (every row).")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
) -> None:
    """Sessions and records per agent, per project and per month, with a bar for each (query echoes left out).

    Months are UTC months; --since and --until are read on your calendar (a date is local midnight).
    """

    def body() -> int:
        with common.archive() as bs:
            tables = bs.stats(since=since, until=until, sync=not no_sync, notify=common.err)
        if as_json:
            common.emit_json({"schema_version": 1, **{by: [{by: name, "sessions": s, "records": r}
                                                           for name, s, r in rows] for by, rows in tables.items()}})
        else:
            window = " ".join(f"{word} {when}" for word, when in (("since", since), ("up to", until)) if when)
            from backscroll.cli.pager import paged

            paged(lambda: _print(tables, color=common.color_enabled(sys.stdout), window=window))
        return 0

    common.run(body, as_json=as_json)


def _print(tables: dict[str, list[tuple[str | None, int, int]]], *, color: bool, window: str = "") -> None:
    from rich.bar import Bar
    from rich.table import Column, Table

    from backscroll.cli.terminal import clean_line, console

    out = console(color)
    if not tables["agent"]:
        out.print(f"Nothing recorded {window}." if window else "Nothing indexed yet: run `backscroll index`.")
        return
    for by, rows in tables.items():
        shown, rest = rows[:ROWS[by]], rows[ROWS[by]:]
        top = max(r for _n, _s, r in shown)
        t = Table(by, Column("sessions", justify="right"), Column("records", justify="right"), "", box=None,
                  pad_edge=False)
        for name, sessions, records in shown:
            bar = Bar(top, 0, records, width=BAR_WIDTH, color="cyan")
            t.add_row(clean_line(name) if name else UNNAMED[by], f"{sessions:,}", f"{records:,}", bar)
        if rest:
            t.add_row(f"{len(rest):,} more", f"{sum(s for _n, s, _r in rest):,}", f"{sum(r for *_x, r in rest):,}",
                      "", style="dim")
        out.print(t)
        out.print()


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)
