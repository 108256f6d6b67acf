"""``backscroll search``: find what was said, decided or run in earlier sessions."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer

from backscroll.cli import common
from backscroll.cli.index import SOURCE_HELP
from backscroll.errors import UsageError

FILTERS, HINTS, OUTPUT = "Filters", "Hints (what they hide comes back as 'also matching')", "Output"
EPILOG = (
    "Examples:  backscroll search what did we decide about the job queue  ·  "
    "backscroll search \"UniqueViolation\" -t tool --since 2w  ·  "
    "backscroll search --json -- --skip-checks (words that start with - go after --).  "
    "Earlier backscroll searches and their output are hidden unless --include-echoes or -t tool. "
    "Every option: README, \"Searching\"."
)


FIRST_INDEX = "nothing indexed yet: indexing your sessions first (once; `backscroll index` does it ahead)"


class _SayOnStart:
    """A progress that only says, once, that the first search indexes everything first."""

    def start(self, _total_files: int) -> None:
        common.err(FIRST_INDEX)

    def advance(self, _path: str, _records: int) -> None: ...

    def finish(self) -> None: ...


def search(
    query: Annotated[list[str], typer.Argument(metavar="WORDS...", help="Words to look for (\"quoted\" = a phrase).",
                                               show_default=False)],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, metavar="N",
                                       help="How many results (1-1000).", show_default=False)] = 10,
    since: Annotated[str | None, typer.Option("--since", metavar="WHEN", rich_help_panel=FILTERS,
                                                 help="Newer than: 2026-10-01, 7d, 2w, 12h, today.")] = None,
    until: Annotated[str | None, typer.Option("--until", metavar="WHEN", rich_help_panel=FILTERS,
                                              help="Older than (same forms).")] = None,
    project: Annotated[str | None, typer.Option("--project", "-p", metavar="NAME", rich_help_panel=FILTERS,
                                                   help="Only this project (a unique prefix).")] = None,
    session: Annotated[str | None, typer.Option("--session", metavar="ID", rich_help_panel=FILTERS,
                                                help="Only this session.")] = None,
    agent: Annotated[str | None, typer.Option("--agent", metavar="NAME", rich_help_panel=HINTS,
                                              help="claude, codex, gemini, cursor, … (status lists all).")] = None,
    role: Annotated[str | None, typer.Option("--role", metavar="user|assistant|tool", rich_help_panel=HINTS,
                                                help="Records of this role.")] = None,
    author: Annotated[str | None, typer.Option("--author", metavar="human|agent|harness", rich_help_panel=HINTS,
                                                  help="Who wrote the user text.")] = None,
    content_type: Annotated[str | None, typer.Option(
        "--content-type", "-t", metavar="text|tool|reasoning|summary", rich_help_panel=HINTS,
        help="Prose, commands and outputs, thinking, compaction summaries.")] = None,
    strict: Annotated[bool, typer.Option("--strict", rich_help_panel=HINTS,
                                         help="Make these hard filters (no 'also matching').")] = False,
    mode: Annotated[str, typer.Option("--mode", metavar="hybrid|lexical|semantic",
                                      help="Rank by words, meaning, or both.", show_default=False)] = "hybrid",
    include_echoes: Annotated[bool, typer.Option(
        "--include-echoes", help="Also earlier backscroll searches and their output.")] = False,
    rerun: Annotated[bool, typer.Option(
        "--rerun", help="Run even if this agent session just ran it.")] = False,
    by_session: Annotated[bool, typer.Option(
        "--by-session", rich_help_panel=OUTPUT,
        help="One entry per session (up to -n).")] = False,
    weak: Annotated[bool, typer.Option(
        "--weak", help="Also show weak matches.")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
    source: Annotated[list[str] | None, typer.Option("--source", metavar="PATH", help=SOURCE_HELP,
                                                     hidden=True)] = None,
    as_json: Annotated[bool, typer.Option("--json", rich_help_panel=OUTPUT, help="One JSON document.")] = False,
    fmt: Annotated[str | None, typer.Option(
        "--format", "-f", metavar="human|json|jsonl|tsv|ids", rich_help_panel=OUTPUT, help="Output format.")] = None,
    ids: Annotated[bool, typer.Option("--ids", rich_help_panel=OUTPUT, help="Only record ids.")] = False,
    fields: Annotated[str | None, typer.Option("--fields", metavar="A,B", rich_help_panel=OUTPUT,
                                                  help="JSON: only these hit fields.")] = None,
    max_bytes: Annotated[int | None, typer.Option("--max-bytes", metavar="N", min=1, rich_help_panel=OUTPUT,
                                                  help="JSON: whole hits within N bytes.")] = None,
    max_chars: Annotated[int, typer.Option("--max-chars", metavar="N", min=0, rich_help_panel=OUTPUT,
                                           help="Cut text to N characters (0: all).", show_default=False)] = 2000,
    pretty: Annotated[bool, typer.Option("--pretty", rich_help_panel=OUTPUT, help="Indented JSON.")] = False,
    no_pager: Annotated[bool, typer.Option("--no-pager", rich_help_panel=OUTPUT, help="Never page.")] = False,
) -> None:
    """Search every indexed session by words and by meaning, each hit scored on both.

    A quick incremental sync runs first (skip it with --no-sync),
    so what was said a moment ago is already findable.
    """

    from backscroll.cli.render import FORMATS

    out_format = "json" if as_json else ("ids" if ids else (fmt or "human"))
    if out_format not in FORMATS:
        common.fail(UsageError(f"unknown --format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}"), False)
    machine = out_format in ("json", "jsonl")
    common.STATE.pretty = common.STATE.pretty or pretty
    common.STATE.pager = common.STATE.pager and not no_pager

    def body() -> int:
        from backscroll.cli.render import check_fields

        wanted = check_fields(fields)
        text = " ".join(query)
        caller_session = os.environ.get("BACKSCROLL_SESSION_ID") or None
        # A terminal means a person, never told about repeats unless $BACKSCROLL_SESSION_ID names a
        # session; but an agent's shell tool that runs commands on a pseudo-terminal (Codex) says so in
        # the environment it gives them.
        person = ((common.is_terminal(sys.stdin) or common.is_terminal(sys.stdout))
                  and not common.run_by_agent(os.environ))
        cfg = common.config(source)
        bars: dict[str, Any] = {}
        if not no_sync and not cfg.db_path.exists():  # the first search indexes everything: say so, show it
            from backscroll.cli.progress import FilesBar, WordsBar
            from backscroll.cli.progress import wanted as progress_wanted

            if progress_wanted():
                common.err(FIRST_INDEX)
                bars = {"progress": FilesBar(), "lexical_progress": WordsBar()}
            else:  # said once the sync starts, after the request was checked (an error stays one JSON line)
                bars = {"progress": _SayOnStart()}
        from backscroll.cli.hints import RERUN

        with common.archive(cfg) as bs:
            result = bs.search(
                text, limit=limit, role=role, author=author, agent=agent, content_type=content_type,
                project=project, session=session, since=since, until=until, include_echoes=include_echoes,
                mode=mode, sync=not no_sync, max_chars=max_chars, strict=strict, rerun=rerun, weak=weak,
                by_session=by_session, caller_session=caller_session,
                caller_argv=None if person else sys.argv[1:], rerun_hint=RERUN, **bars,
            )
        from backscroll.cli import render

        hints = render.stderr_hints(result)
        if out_format == "json":
            sys.stdout.buffer.write(render.search_document(result, wanted, max_bytes, common.json_bytes) + b"\n")
        elif out_format == "jsonl":
            lines, omitted = render.jsonl_lines(result, wanted, max_bytes)
            sys.stdout.buffer.write(b"".join(lines))
            if omitted:
                hints.append(f"{omitted} hit(s) left out to stay within --max-bytes {max_bytes}")
        elif out_format in ("tsv", "ids"):
            rows = render.tsv_lines(result) if out_format == "tsv" else [
                h.record_id for h in (*result.results, *result.also_matching)]
            sys.stdout.write("".join(r + "\n" for r in rows))
            if not rows:
                hints.insert(0, result.notes[0] if result.repeated and result.notes else "No matches.")
        else:
            common.paged(lambda: render.print_result(result, color=common.color_enabled(sys.stdout)))
        sys.stdout.flush()
        render.write_stderr(hints)
        return 0

    common.run(body, as_json=machine)


def register(app: typer.Typer) -> None:
    app.command("search", epilog=EPILOG)(search)
