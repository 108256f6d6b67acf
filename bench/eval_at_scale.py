#!/usr/bin/env python3
"""Ranking as a history grows: the eval sets on their corpus alone and with generated sessions beside it.

A real history holds years of sessions that have nothing to do with a given question. They must not
change how the records that do answer it are ordered among themselves; a calibration that reads the
whole store (a mean and a spread of every similarity, say) would. This indexes the eval corpus alone
and again with ``--sessions`` sessions from bench/generate.py (software-engineering words, same
layouts), then prints hit@1 / recall@5 / MRR of lexical, semantic and hybrid search on both, for the
tuning and check sets (real model, offline):

    HF_HUB_OFFLINE=1 .venv/bin/python bench/eval_at_scale.py [--sessions 200] [--seed 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "fixtures" / "eval"
MODES = ("lexical", "semantic", None)


def with_sources(query_file: Path, extra: list[str], out: Path) -> Path:
    """A copy of ``query_file`` whose corpus is its own (made absolute, as ``load_queries`` reads it)
    plus ``extra`` sources."""
    from backscroll.eval_file import load_queries

    _queries, own = load_queries(query_file)
    text = query_file.read_text()
    line = next(x for x in text.splitlines() if x.startswith("sources"))
    out.write_text(text.replace(line, "sources = " + json.dumps([*own, *extra])))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=200, help="generated sessions beside the eval corpus")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    from backscroll.evaluate import run_eval

    rows: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="backscroll-scale-") as tmp:
        gen = Path(tmp) / "generated"
        subprocess.run([sys.executable, str(ROOT / "bench" / "generate.py"), str(gen), "--sessions",
                        str(args.sessions), "--seed", str(args.seed)], check=True, stdout=subprocess.DEVNULL)
        extra = [f"claude:{gen / 'claude' / 'projects'}", f"codex:{gen / 'codex' / 'sessions'}"]
        for corpus, sources in (("alone", []), (f"+{args.sessions}", extra)):
            home = Path(tmp) / f"home-{corpus}"
            for name in ("tune", "check"):
                path = with_sources(EVAL / f"{name}.toml", sources, Path(tmp) / f"{name}-{corpus}.toml")
                reports = run_eval(path, k=5, modes=MODES, corpus_home=home)
                for mode, report in zip(MODES, reports, strict=True):
                    figures = {k: report.overall[k] for k in ("queries", "hit1", "recall", "mrr")}
                    rows[f"{name}|{corpus}|{mode or 'hybrid'}"] = figures
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"the eval corpus alone and with {args.sessions} generated sessions (seed {args.seed}) beside it")
    print("| set | corpus | mode | queries | hit@1 | recall@5 | MRR |\n|---|---|---|---|---|---|---|")
    for key, r in rows.items():
        name, corpus, mode = key.split("|")
        print(f"| {name} | {corpus} | {mode} | {r['queries']} | {r['hit1']:.3f} | {r['recall']:.3f} | {r['mrr']:.3f} |")


if __name__ == "__main__":
    main()
