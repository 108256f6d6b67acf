"""The human page of ``backscroll status``: counts, agents, problems, indexes, paths, integrations."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from backscroll.cli import common
from backscroll.cli.terminal import clean, clean_line
from backscroll.numbers import counted, noun_for

if TYPE_CHECKING:
    from rich.console import Console

    from backscroll.status_types import StatusReport, StoreCheck


def print_status(report: StatusReport, integrations: list[dict], store_failed: bool) -> None:
    from backscroll.cli.terminal import console

    out = console(common.color_enabled(sys.stdout))
    if report.indexing:
        out.print(Text.assemble(("indexing in progress", "yellow"),
                                " (another backscroll process holds the writer lock; counts below are the last "
                                "committed state)"))
    if store_failed:
        pass  # the store could not be read: only the paths follow, then the error
    elif not report.indexed:
        out.print(Text.assemble(_bold("Nothing indexed yet."), " Run ", _bold("backscroll index"), "."))
    else:
        for section in (_counts, _agents, _projects, _problems, _indexes, _archive):
            section(out, report)
    if report.check is not None:
        _check(out, report.check)
    out.print()
    _places(out, report)
    out.print(_bold("Integrations") + Text("  (backscroll install …; --uninstall removes)"))
    for i in integrations:
        out.print(f"  {i['kind']:<13} {i['agent']:<9} {clean_line(i['path'])}")
    if not integrations:
        out.print("  none")
    out.print(_bold("Settings"))
    out.print("  " + ", ".join(f"{name} {str(s.value).lower()} (from {s.origin})"  # (as the config file spells them)
                               for name, s in report.settings.items()))


def _bold(text: str) -> Text:
    return Text(text, style="bold")


def _counts(out: Console, r: StatusReport) -> None:
    from backscroll.dates import local_time

    out.print(Text.assemble(_bold(f"{r.sessions:,}"), f" {noun_for(r.sessions, 'session')}, ", _bold(f"{r.records:,}"),
                            f" {noun_for(r.records, 'record')} ({r.echoes:,} query {noun_for(r.echoes, 'echo')})"))
    out.print(f"new session lines last looked for {local_time(r.last_index_run) or 'never'} (by an index or a "
              f"search), last read {local_time(r.last_sync) or 'never'}")
    emb = r.embeddings
    if emb.prose_records:
        line = f"embedded {emb.embedded:,} / {emb.prose_records:,} prose records"
        worker = emb.worker
        if emb.pending and emb.foreground:
            line += " — an `index` or `embed` is embedding the rest"
        elif emb.pending and worker is not None and worker.running:
            eta = f", about {_duration(worker.eta_s)} left" if worker.eta_s is not None else ""
            rate = f"{worker.rate:.0f} records/s" if worker.rate else "starting"
            line += f" — a background worker is embedding the rest ({rate}{eta})"
        elif emb.pending:
            line += " — run backscroll embed"
            if worker is not None and worker.error:
                line += f" (the background worker stopped: {clean(worker.error)})"
        out.print(line)


def _archive(out: Console, r: StatusReport) -> None:
    """The team archive configured and this store's last push to one (read without connecting)."""
    from backscroll.dates import local_time

    a = r.archive
    if a is None:
        return
    line = f"team archive {clean(a.configured)} (from {a.origin})" if a.configured else "no team archive configured"
    last = a.last_push
    if last is None:
        line += "; never pushed from this store: `backscroll push` sends its records"
    else:
        there = "" if last.archive == a.configured else f" to {clean(last.archive)}"
        line += (f"; last push{there} {local_time(last.at)} as {clean(last.member)} from {clean(last.machine)}, "
                 + (f"{counted(last.waiting, 'record')} since: `backscroll push` sends them" if last.waiting
                    else "nothing new since"))
    out.print(line)


def _duration(seconds: int | None) -> str:
    """``2 h 5 min``, ``7 min``, ``40 s``."""
    s = seconds or 0
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 60} min" if s >= 60 else f"{s} s"


def _agents(out: Console, r: StatusReport) -> None:
    t = Table("agent", "files", "sessions", "records", "by kind", box=None, pad_edge=False)
    for agent, n in r.agents.items():
        if n.files or n.sessions or n.records:
            kinds = "; ".join(f"{k}={v:,}" for k, v in sorted(n.kinds.items()))  # (a kind never wraps from its count)
            t.add_row(clean(agent), f"{n.files:,}", f"{n.sessions:,}", f"{n.records:,}", clean(kinds))
    if t.row_count:
        out.print(t)
    else:
        out.print("no session files found yet: see Session roots below, or add one with --source PATH")
    for agent, n in r.agents.items():
        for u in n.unknown[:5]:
            out.print(clean_line(f"  {agent}: {counted(u.count, 'line')} of unknown type {u.entry_type!r}, "
                                 f"e.g. {u.example}"),
                      markup=False, highlight=False)
        if n.gone_from_disk:
            out.print(f"  {agent}: {counted(n.gone_from_disk, 'indexed session')} gone from disk "
                      f"(kept by backscroll; the agent keeps {n.agent_keeps_days} days)", markup=False, highlight=False)
    for w in r.warnings:
        out.print(Text(f"warning: {w}", style="yellow"))


def _projects(out: Console, r: StatusReport) -> None:
    if not r.projects:
        return
    t = Table("agent", "project", "sessions", "records", box=None, pad_edge=False, title_justify="left")
    for p in r.projects[:15]:
        t.add_row(clean_line(p.agent), clean_line(p.project or "-"), f"{p.sessions:,}", f"{p.records:,}")
    out.print(t)
    if len(r.projects) > 15:
        out.print(f"  and {len(r.projects) - 15:,} more lines (a line per agent and project): `backscroll status "
                  "--json` lists them all")


def _problems(out: Console, r: StatusReport) -> None:
    """Skipped lines, unreadable or rewritten sources, and what redaction replaced."""
    if r.skipped_lines:
        out.print(Text.assemble((f"{counted(r.skipped_lines, 'line')} skipped", "yellow"),
                                " (the rest of each file was read):"))
        for s in r.skipped_examples:
            out.print(clean_line(f"  {s.path}:{s.line}: {s.reason}"))
        if r.skipped_lines > len(r.skipped_examples):
            more = r.skipped_lines - len(r.skipped_examples)
            out.print(f"  and {more:,} more: `backscroll status --skipped` names them")
    unreadable = [i for i in r.source_issues if i.kind != "rewritten"]
    if unreadable:
        out.print(Text(f"{counted(len(unreadable), 'source')} could not be read:", style="yellow"))
        for i in unreadable[:10]:
            what = "directory " if i.kind == "directory" else ""
            out.print(clean_line(f"  {what}{i.path}: {i.reason}"), markup=False, highlight=False)
    rewritten = [i for i in r.source_issues if i.kind == "rewritten"]
    if rewritten:
        verb = "was" if len(rewritten) == 1 else "were"
        out.print(f"{counted(len(rewritten), 'file')} shrank or {verb} rewritten (nothing was removed from the store):")
        for i in rewritten[:10]:
            out.print(clean_line(f"  {i.path}: {i.reason}"), markup=False, highlight=False)
    if r.unfinished_lines:
        one = len(r.unfinished_lines) == 1
        out.print(f"{counted(len(r.unfinished_lines), 'file')} {'ends' if one else 'end'} in a line with no end yet, "
                  "left unread until it is finished (an agent that stopped mid-line never finishes it):")
        for u in r.unfinished_lines[:10]:
            out.print(clean_line(f"  {u.path}:{u.line}: {u.unread_bytes:,} bytes"), markup=False, highlight=False)
        if len(r.unfinished_lines) > 10:
            out.print(f"  and {len(r.unfinished_lines) - 10:,} more: `backscroll status --json` names them all")
    for source, n in r.older_parser.items():
        out.print(f"{counted(n, 'session file')} read by an older parser: `backscroll index --source {source}` reads "
                  "them again", markup=False, highlight=False)
    if r.redactions:
        out.print("secrets redacted at ingest: " + ", ".join(f"{k} {n}" for k, n in r.redactions.items()))


def _indexes(out: Console, r: StatusReport) -> None:
    lex = r.lexical
    if r.read_only:
        out.print(Text.assemble(("the store cannot be written", "yellow"),
                                ": searches answer from it as it is, without reading new session lines"))
    if lex.in_step:
        out.print(f"lexical index: {counted(lex.documents or 0, 'document')}, in step with the store"
                  + (f" up to its last {lex.pending:,} changes, which the next sync adds" if lex.pending else ""))
    elif not lex.readable and r.read_only and r.sizes.lexical_index_bytes:
        out.print("lexical index: not opened in place on a store that cannot be written (a search reads a copy)")
    elif lex.older:
        out.print("lexical index: made by an earlier version (a search or `backscroll index` rebuilds it)")
    elif not lex.readable:
        out.print(Text.assemble(("lexical index: missing or unreadable", "yellow"),
                                " (`backscroll index` or a search rebuilds it)"))
    else:
        docs = counted(lex.documents or 0, "document")
        out.print(Text.assemble((f"lexical index: out of step with the store ({docs}, {lex.expected:,} expected)",
                                 "yellow"), " (`backscroll index` repairs it)"))
    sizes = r.sizes
    out.print(f"store {_mb(sizes.store_bytes)}, lexical index {_mb(sizes.lexical_index_bytes)}, "
              f"vectors {_mb(sizes.vectors_bytes)}")


def _check(out: Console, c: StoreCheck) -> None:
    """``status --check``: each part's verdict, and what to run for a problem."""
    problems = c.problems()
    skipped = sum(p.state == "skipped" for p in c.parts)
    verdict = (Text(f"{counted(len(problems), 'problem')}", style="bold red") if problems else
               Text("sound", style="green") if c.complete else
               Text(f"no problem in the {len(c.parts) - skipped} parts checked; {skipped} could not be checked",
                    style="yellow"))
    out.print(Text.assemble(_bold("Check"), f" ({c.seconds:.1f} s): the store and its indexes: ", verdict))
    for p in c.parts:
        style = {"ok": "green", "problem": "bold red"}.get(p.state, "yellow")
        out.print(Text.assemble(f"  {p.part:<14} ", (p.state, style), f": {clean_line(p.found)}"))
        if p.fix:
            out.print(Text(f"  {'':<14} fix: {clean_line(p.fix)}"))


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _places(out: Console, r: StatusReport) -> None:
    """The data paths and the session roots, each with where it came from."""
    out.print(_bold("Paths"))
    for name, p in r.paths.items():
        origin = f"  (from {p.origin})" if p.origin else ""
        out.print(clean_line(f"  {name:<14} {p.path}{origin}"))
    out.print(_bold("Session roots"))
    absent: list[str] = []  # default places with nothing there: one line, not one per agent
    for root in r.roots:
        if not root.exists and root.origin == "default":
            if root.agent not in absent:
                absent.append(root.agent or "any")
            continue
        missing = "" if root.exists else "  (not found)"
        out.print(clean_line(f"  {(root.agent or 'any'):<14} {root.path}  (from {root.origin}){missing}"))
    found = {root.agent for root in r.roots if root.exists}
    indexed = {a for a, v in r.agents.items() if v.sessions}
    elsewhere = [a for a in absent if a not in found and a in indexed]  # read from --source paths
    absent = [a for a in absent if a not in found and a not in indexed]
    if elsewhere:
        read = [f"{a} ({clean(r.agents[a].read_from or '')})" if r.agents[a].read_from else a for a in elsewhere]
        out.print(f"  indexed from paths given with --source: {', '.join(read)}", markup=False, highlight=False)
    if absent:
        out.print(f"  not found in their default places (status --json lists the paths): {', '.join(absent)}",
                  markup=False, highlight=False)
