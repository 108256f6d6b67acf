#!/usr/bin/env python3
"""`backscroll mcp` through the official SDK client: start-up, first and warm search, bytes per answer.

    python bench/mcp_latency.py                                  # this checkout, on the bundled fixtures
    python bench/mcp_latency.py --compare-old /path/to/checkout  # an older checkout too, in the same run
    python bench/mcp_latency.py --home DATA_DIR                  # an existing data dir instead of the fixtures

Each run spawns the server as an agent does (``python -m backscroll mcp``, the checkout first on
``PYTHONPATH``) and times: spawn + ``initialize`` (the client's handshake), the first search (cold:
imports, store, index and model), then warm searches (median over distinct queries, then repeated
ones with ``rerun``). ``bytes`` is the size of the text a 5-hit search returns (the default limit;
what lands in the model's context). Rounds alternate old and new, ``--rounds`` times, and medians
are printed. The data dir is indexed once with the real model and copied for each checkout.
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

import anyio

ROOT = Path(__file__).resolve().parents[1]
QUERIES = ["job queue postgres skip locked", "why did the webhook retries fail", "flaky test in the worker",
           "which library for the date parsing", "docker compose healthcheck", "migration on the orders table",
           "rate limit the api", "what did we decide about redis", "timeout in the deploy script",
           "the invoice pdf rendering"]


def index_fixtures(home: Path) -> None:
    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(home / "home")}
    env.pop("BACKSCROLL_EMBEDDER", None)
    sources = [f"claude:{ROOT / 'fixtures/claude/projects'}", f"codex:{ROOT / 'fixtures/codex/sessions'}"]
    subprocess.run([sys.executable, "-m", "backscroll", "index", *(a for s in sources for a in ("--source", s))],
                   env=env, check=True, capture_output=True)


def _text(result) -> str:
    block = result.content[0]
    return block.text if getattr(block, "type", None) == "text" else ""


async def _measure(checkout: Path, home: Path, limit_warm: int) -> dict:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(home / "home"), "PYTHONPATH": str(checkout)}
    env.pop("BACKSCROLL_EMBEDDER", None)
    params = StdioServerParameters(command=sys.executable, args=["-m", "backscroll", "mcp"], env=env,
                                   cwd=str(checkout))
    t0 = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        init = time.perf_counter() - t0
        t = time.perf_counter()
        first = await client.call_tool("search", {"query": QUERIES[0]})
        cold = time.perf_counter() - t
        warm, sizes = [], [len(_text(first).encode())]
        for q in QUERIES[1:limit_warm + 1]:
            t = time.perf_counter()
            res = await client.call_tool("search", {"query": q})
            warm.append(time.perf_counter() - t)
            sizes.append(len(_text(res).encode()))
        hits = len(json.loads(_text(first)).get("results", []))
    return {"initialize_s": init, "first_search_s": cold, "warm_search_ms": 1000 * statistics.median(warm),
            "bytes_per_search": statistics.median(sizes), "hits_first": hits}


def measure(checkout: Path, home: Path, warm: int) -> dict:
    return anyio.run(_measure, checkout, home, warm)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--compare-old", type=Path, help="an older checkout, measured in the same run")
    ap.add_argument("--home", type=Path, help="an indexed data dir (default: index the bundled fixtures)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warm", type=int, default=9, help="distinct warm queries per round")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="backscroll-mcp-bench-") as tmp:
        base = args.home
        if base is None:
            base = Path(tmp) / "base"
            index_fixtures(base)
        runs = {"new": ROOT, **({"old": args.compare_old.resolve()} if args.compare_old else {})}
        results: dict[str, list[dict]] = {name: [] for name in runs}
        for r in range(args.rounds):
            for name, checkout in runs.items():
                home = Path(tmp) / f"{name}-{r}"
                shutil.copytree(base, home, ignore=shutil.ignore_patterns("*.lock"))
                results[name].append(measure(checkout, home, args.warm))
                shutil.rmtree(home)
        table = {name: {k: round(statistics.median(x[k] for x in rs), 3) for k in rs[0]}
                 for name, rs in results.items()}
        if "old" in table:
            table["new/old"] = {k: round(table["new"][k] / table["old"][k], 2) if table["old"][k] else None
                                for k in table["new"]}
        print(json.dumps({"rounds": args.rounds, "medians": table}, indent=2))


if __name__ == "__main__":
    main()
