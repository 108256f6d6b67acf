#!/usr/bin/env python3
"""What an agent pays on every call, old checkout against this one in the same run: a no-op ``index``
(nothing new on disk) and a lexical search with its sync, each a fresh process, alternating old and new.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/per_call.py HOME --sources claude:DIR codex:DIR \\
        --old /path/to/old-checkout [--runs 7]

``HOME`` is a data dir already indexed from ``--sources`` (``bench/generate.py`` makes a corpus). Each
checkout gets its own copy of it, so neither sees the other's files. The old checkout runs with this
checkout's interpreter from its own directory (its package comes first on the path), so both share the
same Python and libraries. Prints the medians, the ratio new / old and every run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cwd: Path, home: Path, args: list[str]) -> float:
    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(home.parent / "user"), "HF_HUB_OFFLINE": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "backscroll", *args], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("home", type=Path)
    ap.add_argument("--sources", nargs="+", required=True)
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    src = [a for s in args.sources for a in ("--source", s)]
    cases = {"no-op index": ["index", "--no-embed", *src],
             "lexical search with its sync": ["search", "retry backoff", "--mode", "lexical", "--rerun", *src]}
    with tempfile.TemporaryDirectory() as tmp:
        homes = {}
        for name, checkout in (("old", args.old.resolve()), ("new", ROOT)):
            homes[name] = (checkout, Path(tmp) / name / "data")
            shutil.copytree(args.home, homes[name][1])
            timed(checkout, homes[name][1], cases["no-op index"])  # settle: the first run may migrate or check
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs):
            for case, argv in cases.items():
                for name, (checkout, home) in homes.items():
                    times.setdefault((case, name), []).append(timed(checkout, home, argv))
    print(f"{args.runs} runs each, alternating; medians in seconds")
    for case in cases:
        old, new = statistics.median(times[(case, "old")]), statistics.median(times[(case, "new")])
        print(f"{case:32} old {old:.3f}  new {new:.3f}  new/old {new / old:.2f}")
        print(f"  old runs: {' '.join(f'{t:.3f}' for t in times[(case, 'old')])}")
        print(f"  new runs: {' '.join(f'{t:.3f}' for t in times[(case, 'new')])}")


if __name__ == "__main__":
    main()
