#!/usr/bin/env python3
"""The read commands (status, stats, list, files, show) of an old checkout against this one, on a history already
indexed: wall time and peak RSS of each, and whether the two print the same.

    .venv/bin/python bench/read_commands.py --old ../old --home /tmp/scale/20k/home \\
        --old-data /tmp/20k-old --data /tmp/20k-new [--runs 5] [--grep retry] [--project shop] \\
        [--file /home/dev/shop/src/wire/local.rs] [--session ID] [--json out.json]

``--old-data`` and ``--data`` are two copies of one data dir (``cp -a``): a checkout that migrates its store
leaves it unreadable to an older one. ``--home`` is the HOME whose logs were indexed. Each command runs once
per checkout untimed (the new one migrates its copy then), then ``--runs`` rounds, old and new in turn, each a
fresh process with ``--no-sync`` where the command has it. Prints a table of medians: wall seconds and peak
RSS (``wait4``, as /usr/bin/time -v says it) old → new, their ratio, and "same" when both printed the same
bytes once the data dir's path is left out (``status`` also prints the store's size, which a migration changes).
A data dir indexed with ``BACKSCROLL_EMBEDDER=fake`` is read with the same set in the environment.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commands(args: argparse.Namespace) -> dict[str, list[str]]:
    listing = ["list", "--no-sync"]
    rows = {"status": ["status"], "status --json": ["status", "--json"], "stats": ["stats", "--no-sync"],
            "stats --json": ["stats", "--json", "--no-sync"], "list": listing, "list --json": [*listing, "--json"],
            f"list --grep {args.grep}": [*listing, "--grep", args.grep],
            f"list -p {args.project}": [*listing, "-p", args.project],
            "list --since 30d": [*listing, "--since", "30d"], f"list --agent {args.agent}": [*listing, "--agent",
                                                                                           args.agent]}
    if args.file:
        rows["files PATH"] = ["files", args.file, "--no-sync"]
    if args.session:
        rows["show SESSION"] = ["show", args.session, "--no-sync"]
    return rows


def run(checkout: Path, data: Path, home: Path, argv: list[str]) -> tuple[float, int, bytes]:
    """``(wall seconds, peak RSS in KiB, stdout with the data dir's path left out)`` of one fresh process."""
    env = {**os.environ, "HOME": str(home), "BACKSCROLL_HOME": str(data), "PYTHONPATH": str(checkout),
           "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "backscroll", *argv], cwd=checkout, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout else b""
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"backscroll {' '.join(argv)} failed in {checkout}")
    out = re.sub(rb'"store_bytes": ?\d+', b'"store_bytes": 0', out.replace(str(data).encode(), b"DATA"))
    return wall, usage.ru_maxrss, b"\n".join(line for line in out.splitlines() if not line.startswith(b"store "))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True, help="an older checkout (run with this interpreter)")
    ap.add_argument("--home", type=Path, required=True, help="the HOME whose agent logs were indexed")
    ap.add_argument("--old-data", type=Path, required=True, help="the old checkout's copy of the data dir")
    ap.add_argument("--data", type=Path, required=True, help="this checkout's copy of the data dir")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--grep", default="retry")
    ap.add_argument("--project", default="shop")
    ap.add_argument("--agent", default="codex")
    ap.add_argument("--file", help="a path for `files`")
    ap.add_argument("--session", help="a session id for `show`")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    sides = {"old": (args.old.resolve(), args.old_data.resolve()), "new": (ROOT, args.data.resolve())}
    table: dict[str, dict] = {}
    for name, argv in commands(args).items():
        seen = {who: run(checkout, data, args.home, argv)[2] for who, (checkout, data) in sides.items()}
        times: dict[str, list[tuple[float, int]]] = {"old": [], "new": []}
        for _ in range(args.runs):
            for who, (checkout, data) in sides.items():
                wall, rss, _out = run(checkout, data, args.home, argv)
                times[who].append((wall, rss))
        table[name] = {who: {"wall": statistics.median(w for w, _ in t), "rss_kib": statistics.median(r for _, r in t)}
                       for who, t in times.items()} | {"same": seen["old"] == seen["new"]}
        print(f"{name}: done", file=sys.stderr)
    print(f"| command ({args.runs} runs, median) | old | new | new ÷ old | output |\n|---|---|---|---|---|")
    for name, row in table.items():
        old, new = row["old"], row["new"]
        print(f"| {name} | {old['wall']:.2f} s, {old['rss_kib'] / 1024:.0f} MiB | {new['wall']:.2f} s, "
              f"{new['rss_kib'] / 1024:.0f} MiB | {new['wall'] / old['wall']:.2f} | "
              f"{'same' if row['same'] else 'DIFFERS'} |")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
