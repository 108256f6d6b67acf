"""``backscroll show``: a record with the conversation around it, or a whole session."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.request import ShowRequest, option


def show(
    ident: Annotated[str, typer.Argument(metavar="ID", help=option("id", ShowRequest).brief)],
    context: Annotated[int | None, common.option_of(ShowRequest, "context")] = None,
    limit: Annotated[int | None, common.option_of(ShowRequest, "limit")] = None,
    offset: Annotated[int, common.option_of(ShowRequest, "offset")] = 0,
    max_chars: Annotated[int | None, common.option_of(ShowRequest, "max_chars")] = None,
    full: Annotated[bool, typer.Option("--full", help="Do not fold long tool outputs.")] = False,
    as_json: Annotated[bool, typer.Option("--json",
                                          help="Print JSON on stdout (records in the search-hit shape).")] = False,
    fmt: Annotated[str | None, typer.Option("--format", "-f", metavar="human|json|markdown",
                                            help="markdown: the conversation to paste into an issue or a PR "
                                                 "(tool calls, outputs and reasoning folded).",
                                            autocompletion=common.complete_from(("human", "json", "markdown")))] = None,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
    show_path: Annotated[bool, typer.Option("--path",
                                            help="Print only the source file (path:line for a record).")] = False,
    archive: Annotated[str | None, common.option_of(ShowRequest, "archive")] = None,
    member: Annotated[str | None, common.option_of(ShowRequest, "member")] = None,
) -> None:
    """Open a search hit in its conversation, or print a whole session.

    Examples: backscroll show 84ba7daa-…#0 -C 5   ·   backscroll show 5b0e7a52 --limit 50   ·
    backscroll show 5b0e7a52 --format markdown > session.md
    """
    if fmt not in (None, "human", "json", "markdown"):
        from backscroll.errors import UsageError

        common.fail(UsageError(f"unknown --format {fmt!r}", hint="use one of: human, json, markdown"), as_json)
    asked = [name for name, on in (("--json", as_json), (f"--format {fmt}", fmt not in (None, "human")),
                                   ("--path", show_path)) if on]
    if len(asked) > 1 and asked != ["--json", "--format json"]:
        from backscroll.errors import UsageError

        common.fail(UsageError(f"{' and '.join(asked)} ask for different outputs", hint="choose one"), as_json)
    as_json = as_json or fmt == "json"

    def body() -> int:
        from backscroll.cli import agent_page
        from backscroll.cli.render_session import print_session_view

        common.STATE.archive = archive
        bounded = not show_path and agent_page.into_context(os.environ, sys.stdout, fmt)
        with common.archive() as bs:
            view = bs.show(ident, context=3 if context is None else context,
                           limit=agent_page.AGENT_PAGE if bounded and limit is None else limit, offset=offset,
                           max_chars=agent_page.MAX_TEXT_CHARS if bounded and max_chars is None else max_chars or 0,
                           sync=not no_sync and archive is None, archive=archive, member=member, notify=common.err)
        if bounded:
            shown = len(view.records)
            view = agent_page.fitted(view, pretty=common.STATE.pretty or common.is_terminal(sys.stdout))
            if note := agent_page.page_note(view, shown, cut_at=agent_page.MAX_TEXT_CHARS if max_chars is None
                                            else max_chars):
                common.err(note)
        if context is not None and not view.focus:
            from backscroll.errors import UsageError

            raise UsageError("-C/--context applies to a record id, not to a whole session",
                             hint="page through a session with --limit N --offset M")
        if (limit is not None or offset) and view.focus:
            from backscroll.errors import UsageError

            raise UsageError("--limit and --offset page a whole session, not a record",
                             hint="-C N shows N records before and after it; `backscroll show "
                                  f"{view.session.get('session_id') or 'SESSION'}` shows its session")
        if show_path:
            s = view.session
            focus = next((h for h in view.records if h.record_id == view.focus), None)
            from backscroll.cli.render import openable
            from backscroll.cli.terminal import clean_line
            from backscroll.ingest.rows import on_disk

            if focus:
                path, line = openable(focus.source_path, focus.line)
                sys.stdout.write(clean_line(f"{path}:{line}") + "\n")
            else:  # (a session read from part of a file, aider's chat history: the file)
                path = openable(s.get('source_path') or '', 1)[0]
                sys.stdout.write(clean_line(path) + "\n")
            if archive is None and path and not on_disk(path):  # (the store outlives its agent's log)
                common.err(clean_line(f"{path} is no longer on disk (its agent removed it); backscroll show "
                                      "prints what the store kept"))
        elif as_json:
            common.emit_json(view.to_dict())
        elif fmt == "markdown":
            from backscroll.cli.render_markdown import session_markdown

            sys.stdout.write(session_markdown(view, full=full))
        else:
            from backscroll.cli.pager import paged

            paged(lambda: print_session_view(view, full=full, color=common.color_enabled(sys.stdout)))
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("show")(show)
