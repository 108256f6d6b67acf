"""``backscroll eval``: measure hit@1, recall@k, MRR and session hit@1 of a query file; fail below a gate."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from backscroll.cli import common


def _print(report) -> None:
    from rich.table import Table
    from rich.text import Text

    from backscroll.cli.terminal import console

    out = console(common.color_enabled(sys.stdout))
    t = Table("category", "queries", "hit@1", f"recall@{report.k}", "MRR", "session hit@1", "kept", box=None,
              pad_edge=False)
    for cat, s in report.by_category().items():
        t.add_row(cat, str(s["queries"]), f"{s['hit1']:.2f}", f"{s['recall']:.2f}", f"{s['mrr']:.2f}",
                  f"{s['session_hit1']:.2f}", f"{s['kept']:.2f}")
    o = report.overall
    t.add_row(*(Text(v, style="bold") for v in ("overall", str(o["queries"]), f"{o['hit1']:.2f}", f"{o['recall']:.2f}",
                                                 f"{o['mrr']:.2f}", f"{o['session_hit1']:.2f}", f"{o['kept']:.2f}")))
    out.print(f"mode: {report.mode or 'per query (default hybrid)'}")
    out.print(t)
    out.print(f"echo rows in default results: {o['echo_leaks']}")
    misses = [x for x in report.outcomes if x.rank is None]
    if misses:
        out.print(f"\nmisses ({len(misses)}):", style="bold")
        for m in misses:
            named = f"{m.query.id}: " if m.query.id else ""
            above = "ranked above:" if m.above else "nothing was returned"
            out.print(f"  [{m.query.category}] {named}{m.query.text!r} — expected {_wanted(m.query)}; {above}")
            for line in m.above[:5]:
                out.print(f"      {line}")


def _wanted(q) -> str:
    """What a query's answer is, as a miss names it."""
    if q.nothing:
        return "no results"
    if q.expected:
        return repr(q.expected) + (f" in session {q.session}" if q.session else "")
    if q.session:
        return f"a record of session {q.session}"
    if not q.window:
        return "?"
    from datetime import date, timedelta

    last = date.fromisoformat(q.window[1][:10]) - timedelta(days=1)  # (the window's end is the day after)
    return f"a record of {q.window[0][:10]}" + (f"..{last.isoformat()}" if last.isoformat() != q.window[0][:10] else "")


def _print_side_by_side(report, others) -> None:
    """hit@1 of every mode per category, and where the fused ranking is behind one it fuses."""
    from rich.table import Table

    from backscroll.cli.terminal import console
    from backscroll.evaluate import behind, paired

    out = console(common.color_enabled(sys.stdout))
    lagging = behind(report, others)
    pairs = {str(r.mode): paired(report, r) for r in others}
    name = report.mode or "hybrid"
    t = Table("category", "queries", *(str(r.mode) for r in others), name, f"{name} behind", box=None,
              pad_edge=False)
    tables = [r.table() for r in others]
    for cat, s in report.table().items():
        theirs = [(other.get(cat) or {}).get("hit1", 0.0) for other in tables]
        why = [f"{m} {pairs[m][cat].won}/{pairs[m][cat].lost} (p {pairs[m][cat].p:.2f})"
               for m in lagging.get(cat, ())]
        t.add_row(cat, str(s["queries"]), *(f"{h:.2f}" for h in theirs), f"{s['hit1']:.2f}", ", ".join(why))
    out.print(f"\nhit@1 side by side ({name} behind: a mode that ranks the answer first more often, with "
              f"won/lost: the queries only {name} / only that mode ranks first, and p: the chance of a split "
              "that uneven if neither were better)")
    out.print(t)


def eval_queries(
    queries: Annotated[Path, typer.Argument(metavar="QUERIES.toml", help="The query file (TOML, format above).")],
    k: Annotated[int, typer.Option("--k", min=1, help="A query counts as found when its answer is in the top k.")] = 5,
    min_recall: Annotated[float | None, typer.Option("--min-recall", min=0.0, max=1.0,
                                                        help="Exit 1 when overall recall@k is below this.")] = None,
    mode: Annotated[str | None, typer.Option("--mode", metavar="hybrid|lexical|semantic",
                                                help="Override every query's mode.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON on stdout.")] = False,
    gate: Annotated[bool, typer.Option("--gate", help="Exit 1 when the file's \\[gate] fails: a category "
                                                      "below its floors (less the slack), or a ratchet query lost "
                                                      "(a file without one is an error).")] = False,
    compare: Annotated[bool, typer.Option("--compare", help="Also report lexical-only and semantic-only "
                                                            "ranking over the same index.")] = False,
) -> None:
    """Measure how well search recalls what it must: hit@1, recall@k, MRR and session hit@1, per category.

    QUERIES.toml lists queries, each with a piece of the record it must find.
    Finding is measured on the ranked list (the results, then the weak matches, as
    --weak shows them); "kept" is the share of answers found that the relevance
    judgement keeps in the results, and a never-discussed question (nothing = true)
    is right when the results come back empty.
    A \\[corpus] table names sources to index into a temporary home first
    (a relative path is read from the query file's folder); without one, your
    own history is brought up to date (as `backscroll index` does) and used.
    Echo rows in results fail the run.

    The query file (TOML):
      now = "2026-11-18T12:00:00Z"  # optional: the clock for "yesterday"
      \\[corpus]                      # optional: index these into a temp home
      sources = ["claude:corpus/.claude/projects", "codex:corpus/.codex"]
      \\[gate]                        # optional: what --gate enforces
      slack = 0.05                  # a category may fall this far below
      ratchet = ["lexical-1"]       # query ids that must stay in the top k
      floors.lexical = { hit1 = 0.75, mrr = 0.8, recall = 1.0 }
      floors.overall = { kept = 0.8 }   # "overall": every query
      \\[\\[query]]                     # one per query
      id = "lexical-1"              # optional: names it for the ratchet
      text = "what did we pick for calendar arithmetic"
      expected = "pendulum over arrow"  # a piece of the target record, as written
      category = "paraphrase"       # optional (default "default"; not "overall")
      session = "..."               # optional: the hit's session
      window = "2026-03-09..2026-03-15"  # or: any record of these days
      nothing = true                # or: right when results are empty
      now = "2026-11-21T12:00:00Z"  # optional: this query's own clock
      # optional: role author agent content_type project since until
      #   include_echoes mode allow_also_matching
    """

    def body() -> int:
        from backscroll.evaluate import run_eval

        if gate:
            from backscroll.errors import UsageError
            from backscroll.eval_file import load_gate

            if load_gate(queries)[0] is None:  # (a gate misspelt or left out would pass every run)
                raise UsageError(f"--gate: {queries} has no [gate] table",
                                 hint="add one (floors, slack, ratchet: see `backscroll eval --help`), or leave "
                                      "--gate out")
        from backscroll.cli.progress import CountBar, EmbedBar, FilesBar, WordsBar, wanted

        bars = {"progress": FilesBar(), "lexical_progress": WordsBar(), "embed_progress": EmbedBar(),
                "queries": CountBar("asking queries", "queries")} if wanted() else None
        if compare:
            *others, report = run_eval(queries, k=k, home=common.STATE.home, notify=common.err, bars=bars,
                                       modes=(*(m for m in ("lexical", "semantic") if m != mode), mode))
        else:
            others, report = [], run_eval(queries, k=k, mode=mode, home=common.STATE.home, notify=common.err,
                                          bars=bars)
        from backscroll.evaluate import behind, paired

        if as_json:
            common.emit_json({**report.to_dict(), "compare": {r.mode: r.to_dict() for r in others},
                              "behind": behind(report, others),
                              "paired": {str(r.mode): {c: x.to_dict() for c, x in paired(report, r).items()}
                                         for r in others}} if others else report.to_dict())
        else:
            for r in (*others, report):
                _print(r)
            if others:
                _print_side_by_side(report, others)
        o = report.overall
        gate_failures = report.gate_failures() if gate else []
        for line in gate_failures:
            common.err(f"gate: {line}")
        failed = (min_recall is not None and o["recall"] < min_recall) or o["echo_leaks"] > 0 or bool(gate_failures)
        if failed:
            common.err(f"eval failed: recall@{k} {o['found']}/{o['queries']} = {o['recall']:.3g}" +
                       (f" < {min_recall:g}" if min_recall is not None and o["recall"] < min_recall else "") +
                       (f", {o['echo_leaks']} echo rows in default results" if o["echo_leaks"] else "") +
                       (f", {len(gate_failures)} gate failure(s)" if gate_failures else ""))
        return 1 if failed else 0

    common.run(body, as_json=as_json, stoppable=True)  # (a CI's timeout: the temporary home is removed too)


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_queries)
