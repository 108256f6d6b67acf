"""``backscroll search``: find what was said, decided or run in earlier sessions."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from . import common
from .index import SOURCE_HELP

EPILOG = (
    "Examples:\n\n"
    "  backscroll search what did we decide about the job queue\n\n"
    "  backscroll search \"UniqueViolation\" --content-type tool --since 2w\n\n"
    "  backscroll search retry backoff --project payments --json\n\n"
    "Query words are plain text (quotes around words make a phrase). Earlier backscroll searches "
    "and their output are hidden unless you pass --include-echoes or --content-type tool. "
    "--role, --agent and --content-type are hints: up to three results they left out are listed "
    "after the others (--strict turns that off). An agent that repeats a search it already ran in "
    "the same turn is told so instead of getting the same results again (--rerun runs it anyway)."
)


def search(
    query: Annotated[list[str], typer.Argument(metavar="WORDS...", help="Words to look for; \"quoted words\" must appear together.",
                                               show_default=False)],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="How many results.")] = 10,
    content_type: Annotated[Optional[str], typer.Option(
        "--content-type", "-t", metavar="text|tool|reasoning|summary",
        help="Only prose (text), tool calls and outputs (tool; includes query echoes), the agent's "
             "reasoning, or compaction summaries.")] = None,
    include_echoes: Annotated[bool, typer.Option(
        "--include-echoes", help="Also return earlier backscroll searches and their output.")] = False,
    role: Annotated[Optional[str], typer.Option("--role", metavar="user|assistant|tool",
                                                help="Only records of this role.")] = None,
    author: Annotated[Optional[str], typer.Option("--author", metavar="human|agent|harness",
                                                  help="Only user text written by a person (human), by an agent "
                                                       "for its subagent (agent), or by the harness.")] = None,
    agent: Annotated[Optional[str], typer.Option("--agent", metavar="NAME", help="Only this agent: claude, codex, gemini, opencode, pi.")] = None,
    project: Annotated[Optional[str], typer.Option("--project", "-p", metavar="NAME",
                                                   help="Only this project (last part of the working directory).")] = None,
    session: Annotated[Optional[str], typer.Option("--session", metavar="ID", help="Only this session.")] = None,
    since: Annotated[Optional[str], typer.Option("--since", metavar="WHEN",
                                                 help="Newer than a date or an age: 2026-10-01, 7d, 2w, 12h.")] = None,
    until: Annotated[Optional[str], typer.Option("--until", metavar="WHEN", help="Older than a date or an age.")] = None,
    mode: Annotated[str, typer.Option("--mode", metavar="hybrid|lexical|semantic",
                                      help="Ranking: words, meaning, or both fused.")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout (see README, JSON output).")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
    max_chars: Annotated[int, typer.Option("--max-chars", metavar="N", min=0,
                                           help="Cut each hit's text to N characters in JSON (0: whole text).")] = 2000,
    strict: Annotated[bool, typer.Option(
        "--strict", help="Treat --role/--agent/--content-type as hard filters: no 'also matching' extras.")] = False,
    rerun: Annotated[bool, typer.Option(
        "--rerun", help="Run even if this agent session already ran the same search in this turn.")] = False,
    source: Annotated[Optional[list[str]], typer.Option("--source", metavar="PATH", help=SOURCE_HELP)] = None,
) -> None:
    """Search every indexed session: prose and tool rows ranked separately, then fused.

    A quick incremental sync runs first (skip it with --no-sync), so what was said a moment ago is
    already findable.
    """

    def body() -> int:
        from .. import api

        text = " ".join(query)
        caller_session = os.environ.get("BACKSCROLL_SESSION_ID") or None
        # A terminal means a person (Claude Code's and Codex's shell tools capture output through
        # pipes; Codex's PTY exec looks like a person and simply gets no note): never told about
        # repeats unless $BACKSCROLL_SESSION_ID names a session.
        person = common.is_terminal(sys.stdin) or common.is_terminal(sys.stdout)
        result = api.search(
            text, limit=limit, role=role, author=author, agent=agent, content_type=content_type, project=project,
            session=session, since=since, until=until, include_echoes=include_echoes, mode=mode,
            sync=not no_sync, max_chars=max_chars, strict=strict, rerun=rerun,
            caller_session=caller_session, caller_argv=None if person else sys.argv[1:],
            cfg=common.config(source),
        )
        from ..render import print_result, stderr_hints, write_stderr

        if as_json:
            common.emit_json(result.to_dict())
        else:
            print_result(result, color=common.color_enabled(sys.stdout))
        write_stderr(stderr_hints(result))
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("search", epilog=EPILOG)(search)
