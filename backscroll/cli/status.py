"""``backscroll status``: what is indexed, from where, and what was skipped."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.cli.index import SOURCE_HELP


def status(
    source: Annotated[list[str] | None, typer.Option("--source", metavar="PATH", help=SOURCE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
    skipped: Annotated[bool, typer.Option("--skipped", help="Name every line skipped, not the first five.")] = False,
) -> None:
    """Show what is indexed, where sessions are read from (and why), and which lines were skipped."""

    def body() -> int:
        from backscroll.errors import BackscrollError
        from backscroll.integrations.install import installed

        failure: BackscrollError | None = None
        try:
            report = common.archive(common.config(source)).status(skipped=-1 if skipped else 5)
        except BackscrollError as exc:  # a damaged store: print the paths first, then the error
            if exc.partial_status is None:
                raise
            report, failure = exc.partial_status, exc
        integrations = installed()  # what `backscroll install` put in place
        if as_json:
            store_error = None if failure is None else failure.to_dict()["error"]
            common.emit_json({**report.to_dict(), "integrations": integrations, "store_error": store_error})
        else:
            from backscroll.cli.render_status import print_status

            print_status(report, integrations, store_failed=failure is not None)
        if failure is not None:
            raise failure
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("status")(status)
