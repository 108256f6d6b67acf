"""``backscroll rebuild``: recreate the derived search index from the record store."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common


def rebuild(as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False) -> None:
    """Recreate the lexical index and the record counts from the record store (its records are never touched).

    Use it after upgrading, if the index looks wrong, or when `status --check` says so; searches rebuild a missing
    or damaged index on their own. A damaged store is not written: the error says how to recover it.
    """

    def body() -> int:
        import time

        from backscroll.cli.progress import WordsBar, wanted

        t0 = time.perf_counter()
        bar = WordsBar() if not as_json and wanted() else None
        with common.archive() as bs:
            n = bs.rebuild(notify=common.err, lexical_progress=bar)
        secs = time.perf_counter() - t0
        if as_json:
            common.emit_json({"documents": n, "seconds": round(secs, 3)})
        else:
            common.err(f"rebuilt the lexical index from the store: {n:,} documents in {secs:.2f}s")
        return 0

    common.run(body, as_json=as_json, interrupted="interrupted: searches still use the index as it was; run "
               "`backscroll rebuild` again to finish (what this one began is cleared)")


def register(app: typer.Typer) -> None:
    app.command("rebuild")(rebuild)
