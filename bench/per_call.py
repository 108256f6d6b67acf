#!/usr/bin/env python3
"""What an agent pays on every call, an old checkout against this one in the same run.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/per_call.py --old /path/to/old-checkout \\
        --curve /tmp/gen1000=/tmp/h1000 /tmp/gen6000=/tmp/h6000 /tmp/gen20000=/tmp/h20000 \\
        --embedded /tmp/agent-home=claude:/tmp/agent-corpus/.claude/projects [--runs 7]

Rows (each a fresh process, old and new alternating, medians of ``--runs``):

* the sync curve: ``index --no-embed`` with nothing new, for every ``--curve CORPUS=HOME`` (a
  ``bench/generate.py`` corpus and a data dir already indexed from it), so that its growth with the
  history's size shows; then, on the largest, a cold lexical search without and with its sync;
* on ``--embedded HOME=SOURCE`` (a data dir indexed *with* embeddings, e.g. ``bench/agent_search.py``'s
  ``--home``): cold hybrid searches over distinct queries (p50), ``hook claude prompt`` (process wall,
  as ``/usr/bin/time`` sees it), and ``backscroll mcp`` through the official client (spawn + initialize,
  first search, warm searches; ``bench/mcp_latency.py``).

Each checkout gets its own copy of every data dir, so neither sees what the other wrote. The old
checkout runs with this checkout's interpreter from its own directory (its package first on the path).
Bytecode is written and used as on a user's machine (``PYTHONDONTWRITEBYTECODE`` is dropped) and every
command runs once before it is timed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["why did the test fail after the migration", "where is the queryset ordering handled",
           "the fix for the unicode error in the parser", "how were the deprecation warnings silenced",
           "what broke in the admin form validation", "the regression in the template rendering",
           "timezone handling in date parsing", "retry the failed request with backoff",
           "a missing import in the module", "the documentation example that was wrong", "slow query on a large table"]
PROMPT = {"prompt": "how did we fix the failing migration test last time?", "session_id": "bench", "cwd": "/tmp"}


def env_for(home: Path) -> dict[str, str]:
    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(home.parent / "user"), "HF_HUB_OFFLINE": "1"}
    env.pop("BACKSCROLL_EMBEDDER", None)
    return env


def timed(cwd: Path, home: Path, args: list[str], stdin: bytes | None = None) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "backscroll", *args], cwd=cwd, env=env_for(home), check=True,
                   input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def sources_of(corpus: Path) -> list[str]:
    return ["--source", f"claude:{corpus / 'claude' / 'projects'}",
            "--source", f"codex:{corpus / 'codex' / 'sessions'}"]


def compare(name: str, checkouts: dict[str, tuple[Path, Path]], argvs: list[list[str]], runs: int,
            stdin: bytes | None = None, rows: list | None = None) -> None:
    """Time each argv for old and new, alternating; several argvs (distinct queries) pool into one median."""
    times: dict[str, list[float]] = {k: [] for k in checkouts}
    for checkout, home in checkouts.values():
        timed(checkout, home, argvs[0], stdin)  # settle: bytecode, a first migration or check
    for _ in range(runs):
        for argv in argvs:
            for who, (checkout, home) in checkouts.items():
                times[who].append(timed(checkout, home, argv, stdin))
    report(name, times, rows)


def report(name: str, times: dict[str, list[float]], rows: list | None) -> None:
    """Print one row; an old checkout without the command (no hooks, no MCP server yet) shows ``-``."""
    new = statistics.median(times["new"])
    old = statistics.median(times["old"]) if times.get("old") else None
    vs = f"old {old:.3f}  new {new:.3f}  new/old {new / old:.2f}" if old else f"old -  new {new:.3f}"
    print(f"{name:56} {vs}", flush=True)
    for who, ts in times.items():
        print(f"    {who}: {' '.join(f'{t:.3f}' for t in ts)}")
    if rows is not None:
        rows.append({"row": name, "old": old and round(old, 3), "new": round(new, 3),
                     "ratio": old and round(new / old, 2)})


def copies(tmp: Path, home: Path, checkouts: dict[str, Path],
           build_old: list[str] | None = None) -> dict[str, tuple[Path, Path]]:
    """A data dir per checkout: a copy of ``home``, or for an old checkout whose store schema is older, one
    it indexes itself with ``build_old`` (an ``index`` argv)."""
    out = {}
    for who, checkout in checkouts.items():
        dest = tmp / f"{who}-{home.name}" / "data"
        if who == "old" and build_old:
            dest.mkdir(parents=True)
            print(f"  (the old checkout indexes its own copy: {timed(checkout, dest, build_old):.0f} s)", flush=True)
        else:
            shutil.copytree(home, dest, ignore=shutil.ignore_patterns("*.lock"))
        out[who] = (checkout, dest)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--curve", nargs="*", default=[], metavar="CORPUS=HOME")
    ap.add_argument("--embedded", metavar="HOME=SOURCE")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--mcp-rounds", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument("--old-indexes", action="store_true",
                    help="the old checkout indexes each curve corpus itself (an older store schema)")
    args = ap.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as on a user's machine (the MCP rows read os.environ too)
    checkouts = {"old": args.old.resolve(), "new": ROOT}
    rows: list[dict] = []
    print(f"{args.runs} runs each, old and new alternating; medians", flush=True)
    for spec in args.curve:
        corpus, home = (Path(p) for p in spec.split("=", 1))
        with tempfile.TemporaryDirectory(prefix="per-call-") as tmp:
            src = sources_of(corpus)
            homes = copies(Path(tmp), home, checkouts, ["index", "--no-embed", *src] if args.old_indexes else None)
            files = sum(1 for _ in corpus.rglob("*.jsonl"))
            compare(f"no-op index --no-embed, {files:,} files", homes, [["index", "--no-embed", *src]], args.runs,
                    rows=rows)
            if spec == args.curve[-1]:
                lexical = [["search", q, "--json", "--mode", "lexical", "--rerun", "--no-sync"] for q in QUERIES[:3]]
                compare(f"cold lexical search, no sync, {files:,} files", homes, lexical, args.runs, rows=rows)
                compare(f"cold lexical search with its sync, {files:,} files", homes,
                        [[*a[:-1], *src] for a in lexical], args.runs, rows=rows)
    if args.embedded:
        home_s, source = args.embedded.split("=", 1)
        with tempfile.TemporaryDirectory(prefix="per-call-") as tmp:
            homes = copies(Path(tmp), Path(home_s), checkouts)
            hybrid = [["search", q, "--json", "--rerun", "--source", source] for q in QUERIES]
            compare("cold hybrid search with its sync (p50, distinct queries)", homes, hybrid, max(1, args.runs // 3),
                    rows=rows)
            # the hooks and the MCP server came after the last release: such an old checkout shows "-"
            agent_doors = {who: v for who, v in homes.items() if (v[0] / "backscroll" / "cli" / "hook.py").exists()}
            compare("hook claude prompt (process wall)", agent_doors, [["hook", "claude", "prompt"]], args.runs,
                    stdin=json.dumps(PROMPT).encode(), rows=rows)
            sys.path.insert(0, str(ROOT / "bench"))
            import mcp_latency

            mcp: dict[str, list[dict]] = {who: [] for who in agent_doors}
            for _ in range(args.mcp_rounds):
                for who, (checkout, home) in agent_doors.items():
                    mcp[who].append(mcp_latency.measure(checkout, home, 9))
            for key, label in (("initialize_s", "mcp spawn + initialize"), ("first_search_s", "mcp first search"),
                               ("warm_search_ms", "mcp warm search (ms, distinct queries)")):
                report(label, {who: [m[key] for m in ms] for who, ms in mcp.items()}, rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
