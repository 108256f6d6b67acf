#!/usr/bin/env python3
"""The agent-session benchmark: blind queries over real public agent trajectories, by mode and query style.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/agent_search.py CORPUS [--queries FILE] [--home DIR]
        [--half tune|check] [--modes lexical,semantic,hybrid] [--json]

``CORPUS`` is the output of ``bench/agent_corpus.py`` (Claude Code files converted from SWE-bench
trajectories: nothing of them is committed). ``--home`` keeps the index between runs (the first run
indexes and embeds the corpus: about ten minutes on two cores). The queries (default
``bench/queries/agent-search-v1.toml``) were written blind and are frozen; odd ids are the tuning half,
even ids the held-out half (``--half``).

For each mode it prints, per query style, what a person feels: session hit@1 (the first session in the
results is the one that answers), session hit@5, session MRR, and for questions about things no session
discusses (``never``) the share that came back with empty results. Then the paired sign test of hybrid
against each single mode, per style: queries only one of them ranks first, and the two-sided p.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_QUERIES = ROOT / "bench" / "queries" / "agent-search-v1.toml"


def toml_value(value: object) -> str:
    """A TOML value for the plain types a query holds (JSON strings are TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def write_queries(source: Path, corpus: Path, half: str | None, out: Path) -> int:
    """``source``'s queries (one half of them, or all) with the corpus named, as a query file at ``out``."""
    data = tomllib.loads(source.read_text())
    queries = data.get("query", [])
    if half is not None:
        odd = half == "tune"
        queries = [q for q in queries if (int("".join(c for c in q["id"] if c.isdigit())) % 2 == 1) == odd]
    lines = [f"now = {toml_value(data['now'])}"] if "now" in data else []
    lines += ["[corpus]", f"sources = [{toml_value('claude:' + str(corpus / '.claude' / 'projects'))}]"]
    for q in queries:
        lines.append("\n[[query]]")
        lines += [f"{key} = {toml_value(value)}" for key, value in q.items()]
    out.write_text("\n".join(lines) + "\n")
    return len(queries)


def table(report) -> dict[str, dict]:
    stats = report.table()
    return {cat: {"n": s["queries"], "hit1": s["session_hit1"], "hit5": s["session_recall"], "mrr": s["session_mrr"],
                  "weak_only": s["weak_only"]} for cat, s in stats.items()}


def session_first(report) -> list[bool]:
    return [o.session_rank == 1 for o in report.outcomes]


def sign_test(mine: list[bool], theirs: list[bool]) -> tuple[int, int, float]:
    from backscroll.evaluate import Paired

    won = sum(1 for a, b in zip(mine, theirs, strict=True) if a and not b)
    lost = sum(1 for a, b in zip(mine, theirs, strict=True) if b and not a)
    return won, lost, Paired(won, lost).p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    ap.add_argument("--home", type=Path, help="keep the index here between runs")
    ap.add_argument("--half", choices=("tune", "check"))
    ap.add_argument("--modes", default="lexical,semantic,hybrid")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    from backscroll.evaluate import run_eval

    modes = tuple(None if m == "hybrid" else m for m in args.modes.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        qfile = Path(tmp) / "queries.toml"
        n = write_queries(args.queries, args.corpus.resolve(), args.half, qfile)
        home = args.home or Path(tmp) / "home"
        reports = run_eval(qfile, k=args.k, modes=modes, corpus_home=home,
                           notify=lambda m: print(m, file=sys.stderr))
    by_mode = {str(r.mode or "hybrid"): r for r in reports}
    out: dict[str, Any] = {"queries": n, "half": args.half or "all", "modes": {m: table(r) for m, r in by_mode.items()},
           "misses": {m: [{"id": o.query.id, "category": o.query.category, "text": o.query.text,
                           "session_rank": o.session_rank} for o in r.outcomes if o.session_rank != 1]
                      for m, r in by_mode.items()}}
    if "hybrid" in by_mode:
        paired: dict[str, dict[str, dict[str, Any]]] = {}
        hybrid = by_mode["hybrid"]
        for m, r in by_mode.items():
            if m == "hybrid":
                continue
            cats = sorted({o.query.category for o in hybrid.outcomes}) + ["overall"]
            paired[m] = {}
            for cat in cats:
                keep = [i for i, o in enumerate(hybrid.outcomes) if cat in ("overall", o.query.category)]
                mine, theirs = session_first(hybrid), session_first(r)
                won, lost, p = sign_test([mine[i] for i in keep], [theirs[i] for i in keep])
                paired[m][cat] = {"won": won, "lost": lost, "p": round(p, 4)}
        out["hybrid_against"] = paired
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{n} queries ({out['half']}), session-level, k = {args.k}")
    for m, rows in out["modes"].items():
        print(f"\n{m:<10} {'n':>4} {'hit@1':>6} {'hit@5':>6} {'MRR':>6} {'weak':>5}")
        for cat, s in rows.items():
            print(f"  {cat:<12} {s['n']:>4} {s['hit1']:>6.3f} {s['hit5']:>6.3f} {s['mrr']:>6.3f} {s['weak_only']:>5}")
    for m, cats in out.get("hybrid_against", {}).items():
        print(f"\nhybrid against {m} at hit@1 (won/lost, sign-test p):")
        print("  " + "  ".join(f"{c} {v['won']}/{v['lost']} p={v['p']:.3f}" for c, v in cats.items()))


if __name__ == "__main__":
    main()
