"""``backscroll embed``: compute embeddings for prose indexed without them."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.numbers import counted


def embed(as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
          background: Annotated[bool, typer.Option(
              "--background", help="Work as the background worker a search starts: quietly, at low priority, "
                                   "taking the store's write lock only to save each step, and stop when another "
                                   "writer needs it for long.")] = False) -> None:
    """Embed every prose record that has no vector yet (after `index --no-embed`, or a model change).

    Newest sessions first. Resumes where an interrupted run stopped (Ctrl-C keeps everything
    committed, at most about a second of work is lost); identical texts are embedded once.
    A search that leaves many records without vectors starts `embed --background` itself
    (`background = false` in the config file turns that off); `status` shows its progress.
    """
    if background:
        from backscroll import background as worker
        from backscroll.config import resolve

        worker.work(resolve())
        return

    def body() -> int:
        from backscroll.cli.progress import EmbedBar, wanted

        with common.archive() as bs:
            n, secs = bs.embed(progress=EmbedBar() if not as_json and wanted() else None, notify=common.err)
        if as_json:
            common.emit_json({"records_embedded": n, "units_embedded": n, "seconds": round(secs, 3)})
        else:
            rate = f" ({n / secs:.0f}/s)" if n and secs else ""
            common.err(f"embedded {counted(n, 'prose record')} in {secs:.1f}s{rate}")
        return 0

    common.run(body, as_json=as_json, stoppable=True, interrupted=common.KEPT)


def register(app: typer.Typer) -> None:
    app.command("embed")(embed)
