"""``backscroll status``: what is indexed, from where, and what was skipped."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.cli.index import SOURCE_HELP
from backscroll.numbers import counted

CHECK_HELP = ("Also check the store and its indexes in full: SQLite's integrity_check, record counts, the lexical "
              "index and the vector matrix against the store (a minute or two at 2.6 million records). Exits 7 when "
              "it finds a problem.")
PARTS = {"store": "the store's pages (integrity_check)", "record_counts": "record counts",
         "lexical_index": "the lexical index", "vectors": "the vector matrix"}


def status(
    source: Annotated[list[str] | None, typer.Option("--source", metavar="PATH", help=SOURCE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
    skipped: Annotated[bool, typer.Option("--skipped", help="Name every line skipped, not the first five.")] = False,
    check: Annotated[bool, typer.Option("--check", help=CHECK_HELP)] = False,
) -> None:
    """Show what is indexed, where sessions are read from (and why), and which lines were skipped."""

    def body() -> int:
        from backscroll.cli.progress import StepsBar, wanted
        from backscroll.errors import BackscrollError
        from backscroll.integrations.install import installed

        failure: BackscrollError | None = None
        bar = StepsBar("checking", PARTS) if check and not as_json and wanted() else None
        try:
            report = common.archive(common.config(source)).status(skipped=-1 if skipped else 5, check=check, step=bar)
        except BackscrollError as exc:  # a damaged store: print the paths first, then the error
            if exc.partial_status is None:
                raise
            report, failure = exc.partial_status, exc
        finally:
            if bar is not None:
                bar.finish()
        integrations = installed()  # what `backscroll install` put in place
        if as_json:
            store_error = None if failure is None else failure.to_dict()["error"]
            common.emit_json({**report.to_dict(), "integrations": integrations, "store_error": store_error})
        else:
            from backscroll.cli.render_status import print_status

            print_status(report, integrations, store_failed=failure is not None)
        if report.check is not None and not report.check.sound:
            raise _check_failed(report.check, failure, as_json)
        if report.check is not None and not report.check.complete and failure is None:
            from backscroll.errors import LockedError

            raise LockedError("the check could not finish: another backscroll process was writing (an index, a "
                              "search's sync, the embedding worker)",
                              hint="run `backscroll status --check` again when it has finished")
        if failure is not None:
            raise failure
        return 0

    common.run(body, as_json=as_json)


def _check_failed(result, failure, as_json: bool):
    """The error ``status --check`` ends with when it found a problem (exit 7), after the store's own error."""
    from backscroll.errors import CheckFailedError

    if failure is not None and not as_json:  # (with --json, it is the document's store_error)
        common.err(f"backscroll: {failure.message}")
    problems = [p.part for p in result.problems()]
    return CheckFailedError(f"the check found {counted(len(problems), 'problem')}: {', '.join(problems)}",
                            hint="`check.parts` names what to run for each" if as_json
                            else "each problem above says what to run")


def register(app: typer.Typer) -> None:
    app.command("status")(status)
