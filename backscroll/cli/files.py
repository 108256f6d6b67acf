"""``backscroll files``: the sessions whose tool calls touched a file, and what they did to it."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.request import MAX_LIMIT, ListRequest


def files(
    path: Annotated[str, typer.Argument(metavar="PATH", help="The file: absolute (or ./relative: that file), or a "
                                                              "relative path any project's file ends with.")],
    agent: Annotated[str | None, common.option_of(ListRequest, "agent")] = None,
    project: Annotated[str | None, common.option_of(ListRequest, "project")] = None,
    since: Annotated[str | None, typer.Option("--since", metavar="WHEN", help="Only touches since: 2026-10-01, "
                                              "2026-10, 7d, 2w, today (the forms of search --since).")] = None,
    until: Annotated[str | None, typer.Option("--until", metavar="WHEN", help="Only touches up to this, its day "
                                              "included: 2026-10-31, 2026-10, yesterday.")] = None,
    limit: Annotated[int, common.option_of(ListRequest, "limit")] = 20,
    offset: Annotated[int, common.option_of(ListRequest, "offset")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
) -> None:
    """Which sessions read, edited, wrote or ran a command on a file, the latest first, across agents.

    "Why is this line like this?": the sessions that changed the file, and a hit to open in its
    conversation. A path starting with / or ./ names that file (a session's relative paths are
    read from its working directory); any other, every file that ends with it
    (models.py, app/models.py).

    Examples: backscroll files ./src/app/models.py   ·   backscroll files payments/capture.py -p pay
    """

    def body() -> int:
        from backscroll.cli.render_session import print_file_sessions

        target = os.path.abspath(path) if path.startswith(("./", "../")) or path in (".", "..") else path
        filters = {"agent": agent, "project": project, "since": since, "until": until}
        with common.archive() as bs:
            asked = min(limit + 1, MAX_LIMIT)  # (one more than shown tells whether others wait; at 1,000, a call)
            found = bs.files(target, **filters, limit=asked, offset=offset, sync=not no_sync, notify=common.err)
            more = len(found) > limit or (len(found) == limit == asked
                                          and bool(bs.files(target, **filters, limit=1, offset=offset + limit)))
            found = found[:limit]
            touched = bool(found) or bool(offset and bs.files(target, **filters, limit=1))  # (on an earlier page)
            outside = not touched and any(filters.values()) and bool(bs.files(target, limit=1))
        if as_json:
            common.emit_json({"schema_version": 1, "path": target, "offset": offset,
                              "sessions": [f.to_dict() for f in found], "has_more": more})
        elif touched and not found:
            common.err(f"--offset {offset} is past the last session that touched it")
        else:
            from backscroll.cli.pager import paged

            paged(lambda: print_file_sessions(found, target, color=common.color_enabled(sys.stdout)))
        if more:
            common.err(f"more sessions touched it: --offset {offset + limit} lists the next ones")
        if outside:
            named = [f"--{f}" for f, v in filters.items() if v]
            undated = " (or at no recorded time)" if since or until else ""
            common.err(f"note: sessions outside {' and '.join(named)} touched it{undated}; without "
                       f"{'that filter' if len(named) == 1 else 'those filters'}, `files` lists them")
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("files")(files)
