"""``backscroll status``: what is indexed, from where, and what was skipped."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.cli.index import SOURCE_HELP


def _human(info: dict) -> None:
    from rich.table import Table
    from rich.text import Text

    from backscroll.cli.terminal import clean, console
    from backscroll.dates import local_time

    out = console(common.color_enabled(__import__("sys").stdout))
    bold = lambda text: Text(text, style="bold")  # noqa: E731
    if info.get("indexing"):
        out.print(Text.assemble(("indexing in progress", "yellow"),
                                " (another backscroll process holds the writer lock; counts below are the last "
                                "committed state)"))
    if info.get("store_error"):
        pass  # the store could not be read: only the paths follow, then the error
    elif not info["indexed"]:
        out.print(Text.assemble(bold("Nothing indexed yet."), " Run ", bold("backscroll index"), "."))
    else:
        out.print(Text.assemble(bold(str(info["sessions"])), " sessions, ", bold(str(info["records"])), " records ",
                                f"({info['echoes']} query echoes)"))
        out.print(f"last index run {local_time(info.get('last_index_run')) or 'never'}, "
                  f"last new record {local_time(info['last_sync']) or 'never'}")
        emb = info.get("embeddings") or {}
        if emb.get("prose_records"):
            line = f"embedded {emb['embedded']:,} / {emb['prose_records']:,} prose records"
            out.print(line + (" — run backscroll embed" if emb["pending"] else ""))
        t = Table("agent", "files", "sessions", "records", "by kind", box=None, pad_edge=False)
        for agent, n in info["agents"].items():
            if not (n.get("files") or n["sessions"] or n["records"]):
                continue
            kinds = ", ".join(f"{k} {v}" for k, v in sorted((n.get("kinds") or {}).items()))
            t.add_row(clean(agent), str(n.get("files", 0)), str(n["sessions"]), str(n["records"]), clean(kinds))
        if t.row_count:
            out.print(t)
        else:
            out.print("no session files found yet: see Session roots below, or add one with --source PATH")
        for agent, n in info["agents"].items():
            for u in (n.get("unknown") or [])[:5]:
                out.print(f"  {agent}: {u['count']} line(s) of unknown type {u['entry_type']!r}, e.g. {u['example']}",
                          markup=False, highlight=False)
            if n.get("gone_from_disk"):
                out.print(f"  {agent}: {n['gone_from_disk']} indexed session(s) are gone from disk "
                          f"(kept by backscroll; the agent keeps {n.get('agent_keeps_days')} days)",
                          markup=False, highlight=False)
        for w in info.get("warnings") or []:
            out.print(Text(f"warning: {w}", style="yellow"))
        if info["projects"]:
            t = Table("agent", "project", "sessions", "records", box=None, pad_edge=False, title_justify="left")
            for p in info["projects"][:15]:
                t.add_row(clean(p["agent"]), clean(p["project"] or "-"), str(p["sessions"]), str(p["records"]))
            out.print(t)
            if len(info["projects"]) > 15:
                more = len(info["projects"]) - 15
                out.print(f"  and {more} more project(s): `backscroll status --json` lists them all")
        if info["skipped_lines"]:
            out.print(Text.assemble((f"{info['skipped_lines']} line(s) skipped", "yellow"),
                                    " (the rest of each file was read):"))
            for s in info["skipped_examples"]:
                out.print(f"  {s['path']}:{s['line']}: {s['reason']}")
        issues = info.get("source_issues") or []
        unreadable = [i for i in issues if i["kind"] != "rewritten"]
        if unreadable:
            out.print(Text(f"{len(unreadable)} source(s) could not be read:",
                           style="yellow"))
            for i in unreadable[:10]:
                what = "directory " if i["kind"] == "directory" else ""
                out.print(f"  {what}{i['path']}: {i['reason']}", markup=False, highlight=False)
        rewritten = [i for i in issues if i["kind"] == "rewritten"]
        if rewritten:
            out.print(f"{len(rewritten)} file(s) shrank or were rewritten (nothing was removed from the store):")
            for i in rewritten[:10]:
                out.print(f"  {i['path']}: {i['reason']}", markup=False, highlight=False)
        if info["redactions"]:
            out.print("secrets redacted at ingest: " + ", ".join(f"{k} {n}" for k, n in info["redactions"].items()))
        lex = info.get("lexical") or {}
        if lex.get("in_step"):
            out.print(f"lexical index: {lex['documents']} documents, in step with the store"
                      + (f" ({lex['pending']} change(s) pending)" if lex["pending"] else ""))
        elif not lex.get("readable"):
            out.print(Text.assemble(("lexical index: missing or unreadable", "yellow"),
                                    " (`backscroll index` or a search rebuilds it)"))
        else:
            out.print(Text.assemble((f"lexical index: out of step with the store ({lex['documents']} documents, "
                                     f"{lex['expected']} expected)", "yellow"), " (`backscroll index` repairs it)"))
        sizes = info["sizes"]
        mb = lambda b: f"{b / 1e6:.1f} MB"  # noqa: E731
        out.print(f"store {mb(sizes['store_bytes'])}, lexical index {mb(sizes['lexical_index_bytes'])}, "
                  f"vectors {mb(sizes['vectors_bytes'])}")
    out.print()
    out.print(bold("Paths"))
    for name, p in info["paths"].items():
        origin = f"  (from {p['from']})" if "from" in p else ""
        out.print(f"  {name:<14} {p['path']}{origin}")
    out.print(bold("Session roots"))
    absent: list[str] = []  # default places with nothing there: one line, not one per agent
    for r in info["roots"]:
        if not r["exists"] and r["from"] == "default":
            if r["agent"] not in absent:
                absent.append(r["agent"])
            continue
        missing = "" if r["exists"] else "  (not found)"
        out.print(f"  {(r['agent'] or 'any'):<14} {r['path']}  (from {r['from']}){missing}")
    found = {r["agent"] for r in info["roots"] if r["exists"]}
    indexed = {a for a, v in (info.get("agents") or {}).items() if v.get("sessions")}
    elsewhere = [a for a in absent if a not in found and a in indexed]  # read from --source paths
    absent = [a for a in absent if a not in found and a not in indexed]
    if elsewhere:
        out.print(f"  indexed from paths given with --source: {', '.join(elsewhere)}", markup=False, highlight=False)
    if absent:
        out.print(f"  not found in their default places (status --json lists the paths): {', '.join(absent)}",
                  markup=False, highlight=False)
    out.print(bold("Integrations") + Text("  (backscroll install …; --uninstall removes)"))
    for i in info.get("integrations") or []:
        out.print(f"  {i['kind']:<13} {i['agent']:<9} {clean(i['path'])}")
    if not info.get("integrations"):
        out.print("  none")
    s = info["settings"]
    out.print(bold("Settings"))
    out.print(f"  embed {s['embed']['value']} (from {s['embed']['from']}), "
              f"redact {s['redact']['value']} (from {s['redact']['from']})")


def status(
    source: Annotated[list[str] | None, typer.Option("--source", metavar="PATH", help=SOURCE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Show what is indexed, where sessions are read from (and why), and which lines were skipped."""

    def body() -> int:
        from backscroll.errors import BackscrollError
        from backscroll.integrations.install import installed

        try:
            info, failure = common.archive(common.config(source)).status().to_dict(), None
        except BackscrollError as exc:  # a damaged store: print the paths first, then the error
            if exc.partial_status is None:
                raise
            info, failure = exc.partial_status, exc
            info["store_error"] = exc.to_dict()["error"]
        info["integrations"] = installed()  # what `backscroll install` put in place
        if as_json:
            common.emit_json(info)
        else:
            _human(info)
        if failure is not None:
            raise failure
        return 0

    common.run(body, as_json=as_json)


def register(app: typer.Typer) -> None:
    app.command("status")(status)
