"""``backscroll index``: read new session lines into the store and update the indexes."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from . import common

SOURCE_HELP = ("Also read sessions under this directory (repeatable). Prefix with the agent to say "
               "which format it holds, e.g. codex:/mnt/old/.codex/sessions.")


class _BarProgress:
    """A rich progress bar on stderr: files read and records added."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.records = 0
        self.bar = Progress(
            TextColumn("[bold]reading sessions"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[records]} records"), TimeElapsedColumn(),
            console=Console(stderr=True), transient=True,
        )
        self.task = None

    def start(self, total_files: int) -> None:
        if total_files:
            self.bar.start()
            self.task = self.bar.add_task("read", total=total_files, records=0)

    def advance(self, path: str, records: int) -> None:
        if self.task is not None:
            self.records += records
            self.bar.update(self.task, advance=1, records=self.records)

    def finish(self) -> None:
        if self.task is not None:
            self.bar.stop()


def index(
    source: Annotated[Optional[list[str]], typer.Option("--source", metavar="PATH", help=SOURCE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
) -> None:
    """Read every new line of every session into the record store, then update the search index.

    Safe to run at any time: unchanged files cost one stat, grown files are read from where the
    last run stopped, and re-running never duplicates a record. Records stay in the store after the
    agents delete their own logs.
    """

    def body() -> int:
        from .. import api
        from ..errors import ExitCode

        cfg = common.config(source)
        show_bar = not as_json and sys.stderr.isatty()
        outcome = api.index(cfg=cfg, progress=_BarProgress() if show_bar else None, notify=common.err)
        report = outcome.report
        if as_json:
            common.emit_json(outcome.to_dict())
        else:
            common.err(
                f"indexed {report.files_changed} changed file(s) of {report.files_seen}: "
                f"{report.records_added} new record(s)"
                + (f", {report.records_replaced} replaced" if report.records_replaced else "")
                + f" in {report.seconds:.2f}s"
            )
            if report.lines_skipped:
                common.err(f"skipped {report.lines_skipped} unreadable line(s), e.g.:")
                for path, line, why in report.skipped_examples[:3]:
                    common.err(f"  {path}:{line}: {why}")
                common.err("  (`backscroll status` lists them; the rest of each file was read)")
        for path, why in report.unreadable:
            common.err(f"cannot read {path}: {why}")
        return ExitCode.UNREADABLE_SOURCES if report.unreadable else ExitCode.OK

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("index")(index)
