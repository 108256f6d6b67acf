"""``backscroll push``: send this machine's records to the team archive."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.numbers import counted


def push(
    to: Annotated[str | None, typer.Option("--to", metavar="URL", show_default=False,
                                           help="The archive: postgresql://USER@HOST/DB (default: "
                                                "$BACKSCROLL_ARCHIVE_URL, else \\[archive] url in the config file). "
                                                "Keep the password out of it: PGPASSWORD, ~/.pgpass or a service "
                                                "file.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would go; send nothing.")] = False,
    prune: Annotated[bool, typer.Option("--prune", help="Also remove from the archive this machine's records "
                                                        "of this store's sessions that the store no longer holds "
                                                        "(those of sessions it never held are left: another data "
                                                        "dir on this machine pushes under its name).")] = False,
    again: Annotated[bool, typer.Option("--again", help="Send every record again, as to a new archive: after the "
                                                        "archive was restored from a backup (it lacks what was "
                                                        "sent since), or to put back rows removed from it. Rows "
                                                        "it holds are replaced; none doubles.")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
) -> None:
    """Send this machine's records to the team archive: redacted and echo-tagged as stored here, with their
    embeddings, as your database role from this machine.

    Only what came since the last push goes, in batches; a second push sends nothing, and a push that was
    killed picks up where it stopped without doubling a row. Safe from a cron job or a hook. Records pushed
    before they were embedded get their vectors from a later push.
    The archive's owner sets it up once with `backscroll archive init URL`.
    """

    def body() -> int:
        from backscroll.cli.progress import wanted

        bar = None
        if not as_json and wanted():
            from rich.progress import Progress

            bar = Progress(transient=True)
        with common.archive() as bs:
            if bar is not None:
                with bar:
                    task = bar.add_task("pushing records", total=None)
                    report = bs.push(to, dry_run=dry_run, prune=prune, again=again, sync=not no_sync, notify=common.err,
                                     advance=lambda n: bar.advance(task, n))
            else:
                report = bs.push(to, dry_run=dry_run, prune=prune, again=again, sync=not no_sync, notify=common.err)
        if report.note and not as_json:
            common.err(f"note: {report.note}")
        if as_json:
            common.emit_json(report.to_dict())
        elif dry_run:
            common.err(f"would push {counted(report.pending, 'record')} to {report.archive} as {report.member} from "
                       f"{report.machine}" + (f", and remove {report.pruned:,}" if prune else "")
                       + (f", and take out {counted(report.departed, 'record')} a re-read replaced here"
                          if report.departed else "")
                       + (f", and the vectors of {counted(report.vectors_added, 'record')} pushed before them"
                          if report.vectors_added else ""))
        else:
            common.err(f"pushed {counted(report.pushed, 'record')} to {report.archive} as {report.member} from "
                       f"{report.machine}" + (f"; removed {report.pruned:,}" if prune else "")
                       + (f"; took out {counted(report.departed, 'record')} a re-read replaced here"
                          if report.departed else "")
                       + (f"; added the vectors of {counted(report.vectors_added, 'record')} pushed before them"
                          if report.vectors_added else "")
                       + ("" if report.vectors or not report.pushed else
                          " (no pgvector there: meaning is searched by an exact scan)"))
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("push")(push)
