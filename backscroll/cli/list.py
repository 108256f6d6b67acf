"""``backscroll list``: sessions, newest first."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.request import ListRequest


def list_sessions(
    agent: Annotated[str | None, common.option_of(ListRequest, "agent")] = None,
    project: Annotated[str | None, common.option_of(ListRequest, "project")] = None,
    since: Annotated[str | None, common.option_of(ListRequest, "since")] = None,
    until: Annotated[str | None, common.option_of(ListRequest, "until")] = None,
    limit: Annotated[int, common.option_of(ListRequest, "limit")] = 20,
    offset: Annotated[int, common.option_of(ListRequest, "offset")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
    archive: Annotated[str | None, common.option_of(ListRequest, "archive")] = None,
    member: Annotated[str | None, common.option_of(ListRequest, "member")] = None,
    grep: Annotated[str | None, common.option_of(ListRequest, "grep")] = None,
    show_all: Annotated[bool, common.option_of(ListRequest, "all")] = False,
) -> None:
    """List sessions, newest first: agent, project, title, start, records and query echoes.

    Sessions of fewer than two records are left out, and a subagent is counted under its parent
    ("+2 subagents"); --all lists them all. --grep "job queue" keeps the sessions whose title or
    first prompt holds every word.
    """

    def body() -> int:
        from backscroll.cli.render_session import print_sessions

        common.STATE.archive = archive
        with common.archive() as bs:
            sessions = bs.sessions(agent=agent, project=project, since=since, until=until, limit=limit, offset=offset,
                                   sync=not no_sync and archive is None, archive=archive, member=member, grep=grep,
                                   all=show_all, notify=common.err)
            total = bs.count_sessions(agent=agent, project=project, since=since, until=until, archive=archive,
                                      member=member, grep=grep, all=show_all)
        if as_json:
            common.emit_json({"schema_version": 1, "total": total, "offset": offset,
                              "sessions": [s.to_dict() for s in sessions]})
        else:
            from backscroll.cli.pager import paged

            paged(lambda: print_sessions(sessions, color=common.color_enabled(sys.stdout)))
            more = total - offset - len(sessions)
            if more > 0:
                common.err(f"{more:,} more session{'s' if more != 1 else ''}: --offset {offset + len(sessions)} "
                           "shows the next ones")
            elif not sessions and offset and total:
                common.err(f"{total:,} session{'s' if total != 1 else ''} in all: --offset {offset} is past the "
                           "last of them")
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("list")(list_sessions)
