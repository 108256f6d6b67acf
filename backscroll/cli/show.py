"""``backscroll show``: a record with the conversation around it, or a whole session."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ..errors import MAX_COUNT
from . import common


def show(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A record id (from search results) or a session id.")],
    context: Annotated[int, typer.Option("--context", "-C", min=0, max=MAX_COUNT, help="Records shown before and after a record.")] = 3,
    limit: Annotated[Optional[int], typer.Option("--limit", "-n", min=1, max=MAX_COUNT, help="For a session: how many records.")] = None,
    offset: Annotated[int, typer.Option("--offset", min=0, max=MAX_COUNT, help="For a session: skip this many records.")] = 0,
    full: Annotated[bool, typer.Option("--full", help="Do not fold long tool outputs.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout (records in the search-hit shape).")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
) -> None:
    """Open a search hit in its conversation, or print a whole session.

    Examples: backscroll show 84ba7daa-…#0 -C 5   ·   backscroll show 5b0e7a52 --limit 50
    """

    def body() -> int:
        from .. import api
        from ..render import print_session_view

        view = api.show(ident, context=context, limit=limit, offset=offset, sync=not no_sync, cfg=common.config(),
                        notify=common.err)
        if as_json:
            common.emit_json(view.to_dict())
        else:
            print_session_view(view, full=full, color=common.color_enabled(sys.stdout))
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("show")(show)
