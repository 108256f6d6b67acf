"""``backscroll index``: read new session lines into the store and update the indexes."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.cli.terminal import clean_line
from backscroll.numbers import counted
from backscroll.sanitize import shorten

SOURCE_HELP = ("Also read sessions under this directory (repeatable). Prefix with the agent to say "
               "which format it holds, e.g. codex:/mnt/old/sessions.")


NO_EMBED_HELP = ("Skip embedding for now: words are searchable at once, and a later search embeds what waits in "
                 "the background (`background = false` turns that off).")


def index(
    source: Annotated[list[str] | None, typer.Option("--source", metavar="PATH", help=SOURCE_HELP)] = None,
    no_embed: Annotated[bool, typer.Option("--no-embed", help=NO_EMBED_HELP)] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary on stdout.")] = False,
) -> None:
    """Read every new line of every session into the record store, then update the search index.

    Safe to run at any time: unchanged files cost one stat, grown files are read from where the
    last run stopped, and re-running never duplicates a record. Records stay in the store after the
    agents delete their own logs. New prose is then embedded for semantic search (the slow part;
    --no-embed or `embed = false` in the config file skips it, `backscroll embed` catches up).
    """

    def body() -> int:
        import contextlib

        from backscroll.cli.progress import EmbedBar, FilesBar, WordsBar, wanted
        from backscroll.errors import ExitCode, NothingIndexedError

        cfg = common.config(source)
        bars = not as_json and wanted()
        with common.archive(cfg) as bs:
            outcome = bs.index(embed=False if no_embed else None, progress=FilesBar() if bars else None,
                               lexical_progress=WordsBar() if bars else None,
                               embed_progress=EmbedBar() if bars else None, notify=common.err)
            kept = 0
            if outcome.report.files_seen == 0 and not source:
                with contextlib.suppress(NothingIndexedError):  # (an empty machine: nothing was ever read)
                    kept = bs.count_sessions(all=True)
        report = outcome.report
        notes = _given_sources(cfg) + ([NONE_FOUND + (f" (the store keeps the {counted(kept, 'session')} read "
                                                      "before: still searchable)" if kept else "")]
                                       if report.files_seen == 0 and not source else [])
        if as_json:
            doc = outcome.to_dict()
            common.emit_json({**doc, "notes": [*doc["notes"], *notes]})
        else:
            common.err(
                f"indexed {counted(report.files_changed, 'changed file')} of {report.files_seen:,}: "
                f"{counted(report.records_added, 'new record')}"
                + (f", {report.records_replaced} replaced" if report.records_replaced else "")
                + f" in {report.seconds:.2f}s"
                + (f"; embedded {counted(outcome.embedded, 'prose record')} in {outcome.embed_seconds:.1f}s"
                   if outcome.embedded else "")
            )
            if report.lines_skipped:
                common.err(f"skipped {counted(report.lines_skipped, 'unreadable line')}, e.g.:")
                for path, line, why in report.skipped_examples[:3]:
                    common.err(clean_line(f"  {shorten(path)}:{line}: {shorten(why)}"))
                common.err("  (`backscroll status` lists them; the rest of each file was read)")
        for path, note in report.notices:
            common.err(clean_line(f"note: {shorten(path)}: {shorten(note)}"))
        for path, why in report.unreadable:
            common.err(clean_line(f"cannot read {shorten(path)}: {shorten(why)}"))
        if not as_json:
            for note in notes:  # (a --source that holds none has its own)
                common.err(f"note: {note}")
        return ExitCode.UNREADABLE_SOURCES if report.unreadable else ExitCode.OK

    common.run(body, as_json=as_json, stoppable=True, interrupted=common.KEPT)


NONE_FOUND = ("no session files were found: `backscroll status` shows where sessions are looked for, and "
              "`backscroll index --source AGENT:PATH` reads others")


def _given_sources(cfg) -> list[str]:
    """Notes on the ``--source`` paths not configured otherwise: that a path given this way is read now, not by the
    syncs of later searches; and where the agent named finds no sessions, whose they look like."""
    from dataclasses import replace

    from backscroll.ingest.discover import discover

    roots = cfg.find_roots()
    kept = {r.path for r in roots if r.origin != "flag"}
    given = [r for r in roots if r.origin == "flag" and r.path.exists() and r.path not in kept]
    notes = []
    for root in given:
        if next(iter(discover([root])), None) is not None:
            continue
        others = sorted({a.name for a, _p in discover([replace(root, agent=None)])}) if root.agent else []
        look = f"; they look like {' and '.join(others)} sessions (--source {others[0]}:PATH)" if others else ""
        notes.append(f"no {root.agent + ' ' if root.agent else ''}session files under {shorten(str(root.path))}" + look)
    if given:
        notes.append("--source paths are read when given; to keep them in step with every search, add them to "
                     f"[[sources]] in {shorten(str(cfg.config_file.value))}")
    return notes


def register(app: typer.Typer) -> None:
    app.command("index")(index)
