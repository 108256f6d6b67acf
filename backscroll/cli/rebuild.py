"""``backscroll rebuild``: recreate the derived search index, and the record counts, from the record store; with
``--counts``, the record counts alone."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common

COUNTS_HELP = ("Count the records again into the record counts alone (what status, stats and list count from), "
               "leaving the lexical index as it is: seconds, where a full rebuild takes minutes.")


def rebuild(counts: Annotated[bool, typer.Option("--counts", help=COUNTS_HELP)] = False,
            as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False) -> None:
    """Recreate the lexical index and the record counts from the record store (its records are never touched).

    Use it after upgrading, if the index looks wrong, or when `status --check` says so; searches rebuild a missing
    or damaged index on their own. With `--counts`, the record counts alone: the light mend when they are all that
    `status --check` found wrong. A damaged store is not written: the error says how to recover it.
    Examples: backscroll rebuild   ·   backscroll rebuild --counts
    """

    def body() -> int:
        import time

        from backscroll.cli.progress import WordsBar, wanted
        from backscroll.numbers import counted

        t0 = time.perf_counter()
        bar = WordsBar() if not as_json and wanted() and not counts else None
        with common.archive() as bs:
            n = bs.rebuild(counts=counts, notify=common.err, lexical_progress=bar)
        secs = time.perf_counter() - t0
        if as_json:
            common.emit_json({"counts_changed" if counts else "documents": n, "seconds": round(secs, 3)})
        elif counts:
            state = f"had drifted, {counted(n, 'row')} changed" if n else "was in step, no row changed"
            common.err(f"counted the store's records again: record_counts {state}, in {secs:.2f}s")
        else:
            common.err(f"rebuilt the lexical index from the store: {n:,} documents in {secs:.2f}s")
        return 0

    kept = ("the record counts are as they were; run `backscroll rebuild --counts` again" if counts else
            "searches still use the index as it was; run `backscroll rebuild` again to finish (what this one began "
            "is cleared)")
    common.run(body, as_json=as_json, stoppable=True, interrupted=f"interrupted: {kept}")


def register(app: typer.Typer) -> None:
    app.command("rebuild")(rebuild)
