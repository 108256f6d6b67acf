"""``backscroll search``: find what was said, decided or run in earlier sessions.

The command runs under Typer, or, for a plain call (``backscroll.cli.search_call``), straight from ``run_plain``:
Typer is imported only to build the command.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any

from backscroll import search_command
from backscroll.cli import common
from backscroll.errors import MAX_COUNT, UsageError
from backscroll.request import option

if TYPE_CHECKING:
    from collections.abc import Callable

    import typer

FILTERS = "Filters (if nothing inside, up to 3 from outside are 'also matching')"
HINTS, OUTPUT = "Hints (what they hide comes back as 'also matching')", "Output"
EPILOG = (
    "Examples:  backscroll search what did we decide about the job queue  ·  "
    "backscroll search \"UniqueViolation\" -t tool --since 2w  ·  "
    "backscroll search --json -- --skip-checks (words that start with - go after --).  "
    "Earlier backscroll searches and their output are hidden unless --include-echoes or -t tool. "
    "Every option: README, \"Searching\"."
)


FIRST_INDEX = "nothing indexed yet: indexing your sessions first (once; `backscroll index` does it ahead)"
LONG_FILES, LONG_WORDS = 200, 20_000  # a catch-up a search says it makes first (a few seconds, or more)


class _SayIfLong:
    """The progress of a search's sync: silent for a few new lines, but a long catch-up (the first search, a first
    index cut short, weeks away) says so once the sync starts (after the request was checked: an error stays one
    JSON line), with a bar on a terminal. Nothing of rich loads before."""

    def __init__(self, least: int, said: str, bar: Callable[[], Any]):
        self.least, self.said, self.bar = least, said, bar
        self.shown: Any = None

    def start(self, total: int) -> None:
        if total >= self.least:
            from backscroll.cli.progress import wanted

            common.err(self.said.format(n=total))
            if wanted():
                self.shown = self.bar()
                self.shown.start(total)

    def advance(self, *args: Any) -> None:
        if self.shown is not None:
            self.shown.advance(*args)

    def add(self, n: int) -> None:
        if self.shown is not None:
            self.shown.add(n)

    def finish(self) -> None:
        if self.shown is not None:
            self.shown.finish()


def catching_up(first: bool) -> dict[str, Any]:
    """A search's sync progress (``_SayIfLong``); ``first``: the first search, which indexes everything."""
    from backscroll.cli.progress import FilesBar, WordsBar

    files = (0, FIRST_INDEX) if first else (LONG_FILES, "reading {n:,} new or changed session files first "
                                                        "(`backscroll index` does it ahead)")
    return {"progress": _SayIfLong(*files, FilesBar),
            "lexical_progress": _SayIfLong(LONG_WORDS, "making {n:,} records searchable by words first", WordsBar)}


PANELS = {"filter": FILTERS, "hint": HINTS, "output": OUTPUT, "archive": "Team archive (PostgreSQL)"}


def search(**given: Any) -> None:
    """Search every indexed session by words and by meaning, each hit scored on both.

    A quick incremental sync runs first (skip it with --no-sync),
    so what was said a moment ago is already findable.
    """
    asked = {p.name: given.pop(p.name) for p in search_command.request_params()}
    query, no_sync, source, as_json, fmt, ids, fields, max_bytes, pretty, no_pager = (given.pop(name) for name in (
        "query", "no_sync", "source", "as_json", "fmt", "ids", "fields", "max_bytes", "pretty", "no_pager"))
    from backscroll.cli.render_machine import FORMATS

    if fmt and fmt not in FORMATS:  # (first: with --json too, a misspelt format is the problem)
        common.fail(UsageError(f"unknown --format {fmt!r}", hint=f"use one of: {', '.join(FORMATS)}"), as_json)
    chosen = [name for name, on in (("--json", as_json), ("--ids", ids), (f"--format {fmt}", fmt)) if on]
    if len(chosen) > 1 and not (chosen[1:] == ["--format json"] and as_json):
        common.fail(UsageError(f"{' and '.join(chosen)} ask for different outputs", hint="give one of them"),
                    as_json)
    out_format = "json" if as_json else ("ids" if ids else (fmt or "human"))
    machine = out_format in ("json", "jsonl")
    if not machine:  # (an option that would shape nothing: said, not silently ignored)
        for flag, value in (("--fields", fields), ("--max-bytes", max_bytes)):
            if value is not None:
                shown = "--ids" if ids else f"--format {fmt}" if fmt else "the human output"
                common.err(f"note: {flag} shapes JSON and JSONL output (--json, --format jsonl); {shown} ignores it")
    common.STATE.pretty = common.STATE.pretty or pretty
    common.STATE.pager = common.STATE.pager and not no_pager

    def body() -> int:
        from backscroll.cli.render_machine import check_fields

        wanted = check_fields(fields) if machine else None  # (an output that ignores --fields does not check it)
        text = " ".join(query)
        # Codex names its thread (the rollout's id) in every shell it starts; a name only points the way
        # (``repeat``: a session whose log does not hold this call in flight is not taken for the caller).
        caller_session = (os.environ.get("BACKSCROLL_SESSION_ID") or os.environ.get("CODEX_THREAD_ID", "").lower()
                          or None)
        # A terminal means a person, never told about repeats unless $BACKSCROLL_SESSION_ID names a
        # session; but an agent's shell tool that runs commands on a pseudo-terminal (Codex) says so in
        # the environment it gives them.
        person = ((common.is_terminal(sys.stdin) or common.is_terminal(sys.stdout))
                  and not common.run_by_agent(os.environ))
        if source and no_sync and not asked.get("archive"):
            common.err("note: --source names session files to read first, and --no-sync reads none")
        if source and asked.get("archive"):  # (as --file is: said, not silently ignored)
            raise UsageError("--source names session files to read here, not the team archive's",
                             hint="search the archive without --source, or this machine's history with it")
        cfg = common.config(source)
        bars = {} if no_sync else catching_up(first=not cfg.db_path.exists())
        from backscroll.cli.hints import RERUN

        common.STATE.archive = asked.get("archive")
        with common.archive(cfg) as bs:
            result = bs.search(text, **asked, sync=not no_sync, caller_session=caller_session,
                               caller_argv=None if person else sys.argv[1:], rerun_hint=RERUN, **bars)
        from backscroll.cli import render, render_machine

        offset = asked.get("offset") or 0
        first: list[str] = []
        hints: list[str] = []
        if out_format == "json":
            data, sent = render_machine.search_document(result, wanted, max_bytes, common.json_bytes)
            if refused := render_machine.too_small_a_budget(result, sent, max_bytes, wanted, False, common.json_bytes):
                raise refused
            sys.stdout.buffer.write(data + b"\n")
            result = sent
        elif out_format == "jsonl":
            lines, omitted, sent = render_machine.jsonl_lines(result, wanted, max_bytes)
            if refused := render_machine.too_small_a_budget(result, sent, max_bytes, wanted, True, common.json_bytes):
                raise refused
            sys.stdout.buffer.write(b"".join(lines))
            result = sent
            if omitted:
                hints.append(f"{omitted} hit(s) left out to stay within --max-bytes {max_bytes}")
            if not lines and result.repeated and result.notes:  # (no line to carry it: say why there is none)
                first.append(result.notes[0])
        elif out_format in ("tsv", "ids"):
            rows = render_machine.tsv_lines(result) if out_format == "tsv" else render_machine.id_lines(result)
            sys.stdout.write("".join(r + "\n" for r in rows))
            if result.also_matching:
                hints.append(render_machine.left_out_of_lines(result, asked))
            if not rows and render.says_no_matches(result):
                first.append(result.notes[0] if result.repeated and result.notes else
                             f"No matches past --offset {offset}." if offset else
                             "No matches with those filters." if result.also_matching else "No matches.")
        else:
            from backscroll.cli.pager import paged

            paged(lambda: render.print_result(result, color=common.color_enabled(sys.stdout), offset=offset,
                                                     given=asked))
        sys.stdout.flush()
        said = render.stderr_hints(result, offset)  # (of the result as sent)
        render.write_stderr([*first, *said, *hints])
        return 0

    common.run(body, as_json=machine)


def run_plain(global_options: dict[str, Any], given: dict[str, Any]) -> None:
    """Run a plain call without Typer: the global options as the application's callback sets them, then the
    command with what Typer would have given it (``search_command.read``). Exits with the command's code."""
    common.STATE.home = global_options["home"]
    common.STATE.color = global_options["color"]
    common.STATE.pretty = global_options["pretty"]
    common.STATE.pager = not global_options["no_pager"]
    search(**given)


def _parameter(p: search_command.Param) -> inspect.Parameter:
    """The Typer parameter of one option of the command (``search_command.params()``)."""
    import typer

    kind: Any = list[str] | None if p.multiple else p.kind if p.kind is bool or p.default is not None else p.kind | None
    from backscroll.request import option as request_option

    choices = request_option(p.name).choices if p.asks else None
    if choices is None and p.metavar and "|" in p.metavar:
        choices = tuple(p.metavar.split("|"))
    complete = common.complete_projects if p.name == "project" else common.complete_from(choices) if choices else None
    option = typer.Option(*p.flags, help=p.brief, metavar=p.metavar, rich_help_panel=PANELS.get(p.group or ""),
                          min=p.minimum, max=p.maximum if p.maximum != MAX_COUNT else None,  # (no bound to show)
                          show_default=False, autocompletion=complete)
    return inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default,
                             annotation=Annotated[kind, option])


def _signature() -> inspect.Signature:
    """``search``'s parameters as Typer reads them: the words, then every option of the command."""
    import typer

    query = option("query")
    words = inspect.Parameter("query", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Annotated[
        list[str], typer.Argument(metavar=query.metavar, help=query.brief, show_default=False)])
    return inspect.Signature([words, *(_parameter(p) for p in search_command.params())], return_annotation=None)


def register(app: typer.Typer) -> None:
    search.__signature__ = _signature()  # type: ignore[attr-defined]
    search.__annotations__ = {p.name: p.annotation for p in search.__signature__.parameters.values()}  # type: ignore[attr-defined]
    app.command("search", epilog=EPILOG)(search)
