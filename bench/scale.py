#!/usr/bin/env python3
"""Issue #50's table at several history sizes, an old checkout against this one in the same run.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/scale.py --old ../old --work /tmp/scale \\
        --size 10k=350 --size 170k=6000 --size 1m=35000 [--size 5m=175000] [--runs 5] [--json out.json]

For each ``--size NAME=SESSIONS`` a corpus is generated once (``bench/generate.py --mean-records 28``,
seed 0, kept in ``WORK/gen-NAME``); then each checkout, in turn, indexes it into a data dir of its own
(``WORK/<who>-NAME``) and every prose record gets a synthetic vector (a random unit vector written under
the shipped model's id, so the real model embeds each query and the scan covers a full-size matrix).
The rows, each a fresh process, old and new alternating, ``--runs`` rounds:

* words indexed: the first ``index --no-embed`` (wall and peak RSS; one run per checkout);
* the no-op ``index --no-embed`` (the sync every call pays; median);
* a cold lexical search (``--no-sync``; p50 over distinct queries), and with the sync it runs first;
* a cold hybrid search with the shipped model embedding the query (``--no-sync``; p50, p95, peak RSS;
  every query is new to the store's query-vector cache);
* the data dir's bytes (store, lexical index, vectors) against the raw logs'.

The old checkout runs with this checkout's interpreter from its own directory (its package first on the
path). Bytecode is written as on a user's machine, and every command runs once before it is timed.
Existing data dirs are reused unless ``--fresh``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPICS = ["the migration test", "queryset ordering", "a unicode error in the parser", "deprecation warnings",
          "admin form validation", "template rendering", "timezone handling", "retry with backoff",
          "a missing import", "the documentation example", "a slow query on a large table", "the cache key",
          "flaky integration tests", "the config loader", "the release checklist", "memory usage of the worker"]
ASKS = ["why did {} fail", "how did we fix {}", "what was decided about {}", "where is {} handled"]
# Vectors for records a checkout has to embed: the shipped model's id (as ``embed.model_id()`` says it).
FILL = r"""
import sys, numpy as np
from backscroll.config import resolve
from backscroll.indexes import embed
from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store
cfg = resolve()
store = Store.open(cfg.db_path)
model = embed.model_id()
vecs = Vectors(store, cfg.vectors_dir, model)
vecs.ensure_model()
ids = [r[0] for r in store.conn.execute(
    "SELECT id FROM records WHERE unit_hash IS NULL AND content_type IN ('text', 'summary') AND is_echo = 0")]
rng = np.random.default_rng(0)
seq = int(store.get_meta("vector_seq") or 0) + 1
for i in range(0, len(ids), 5000):  # stored as the checkout stores vectors (its own ``_commit``)
    chunk = ids[i:i + 5000]
    m = rng.standard_normal((len(chunk), 384)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    vecs._commit(seq, {f"synthetic-{rid}": m[j] for j, rid in enumerate(chunk)},
                 [(rid, f"synthetic-{rid}") for rid in chunk], [])
vecs.write_matrix()
store.close()
print(len(ids))
"""


def queries() -> list[str]:
    """Distinct questions, so that no search finds its query vector cached."""
    return [ask.format(topic) for topic, ask in itertools.product(TOPICS, ASKS)]


def env_for(home: Path) -> dict[str, str]:
    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(home.parent / "user"), "HF_HUB_OFFLINE": "1"}
    env.pop("BACKSCROLL_EMBEDDER", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(checkout: Path, home: Path, args: list[str], code: str | None = None) -> tuple[float, str]:
    """``(wall seconds, stdout)`` of one fresh process: ``backscroll ARGS``, or ``python -c CODE``."""
    argv = [sys.executable, "-c", code] if code else [sys.executable, "-m", "backscroll", *args]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=checkout, env=env_for(home), capture_output=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"{' '.join(argv[:6])} failed in {checkout}:\n{proc.stderr.decode()[-2000:]}")
    return wall, proc.stdout.decode()


def sources(corpus: Path) -> list[str]:
    return ["--source", f"claude:{corpus / 'claude' / 'projects'}",
            "--source", f"codex:{corpus / 'codex' / 'sessions'}"]


def forget_queries(home: Path) -> None:
    """Empty the data dir's query-vector cache: every timed hybrid search embeds its query (a data dir kept from
    an earlier run would otherwise answer from the vectors it cached then)."""
    import sqlite3

    conn = sqlite3.connect(home / "backscroll.db")
    try:
        conn.execute("DELETE FROM query_vectors")
        conn.commit()
    finally:
        conn.close()


def count(home: Path) -> int:
    """The records a data dir holds."""
    import sqlite3

    conn = sqlite3.connect(f"file:{home / 'backscroll.db'}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM records").fetchone()[0]
    finally:
        conn.close()


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True, help="an older checkout (run with this interpreter)")
    ap.add_argument("--work", type=Path, required=True, help="where corpora and data dirs are kept")
    ap.add_argument("--size", action="append", required=True, metavar="NAME=SESSIONS")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--fresh", action="store_true", help="index again even where a data dir exists")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    checkouts = {"old": args.old.resolve(), "new": ROOT}
    qs = queries()
    results: dict[str, dict] = {}
    for spec in args.size:
        name, sessions = spec.split("=", 1)
        corpus = args.work / f"gen-{name}"
        if not (corpus / "claude").exists():
            subprocess.run([sys.executable, str(ROOT / "bench" / "generate.py"), str(corpus), "--sessions", sessions,
                            "--mean-records", "28", "--seed", "0", "--force"], check=True, stdout=subprocess.DEVNULL)
        raw = du(corpus)
        src = sources(corpus)
        res: dict[str, dict] = {who: {} for who in checkouts}
        for who, checkout in checkouts.items():
            home = args.work / f"{who}-{name}"
            if args.fresh and home.exists():
                shutil.rmtree(home)
            if not (home / "backscroll.db").exists():
                home.mkdir(parents=True, exist_ok=True)
                wall, peak, _ = measured(checkout, home, ["index", "--no-embed", *src])
                filled = run(checkout, home, [], FILL)[1].strip()
                res[who]["first_index"] = {"s": round(wall, 1), "peak_mib": round(peak)}
                print(f"[{name}] {who}: indexed in {wall:.1f} s, {peak:.0f} MiB peak; {filled} synthetic vectors",
                      flush=True)
            res[who]["bytes"] = du(home)
            res[who]["records"] = count(home)
        homes = {who: (checkout, args.work / f"{who}-{name}") for who, checkout in checkouts.items()}
        timings: dict[str, dict[str, list[float]]] = {who: {"noop": [], "lexical": [], "synced": [], "hybrid": [],
                                                               "hybrid_rss": []}
                                                       for who in checkouts}
        for checkout, home in homes.values():  # settle: bytecode, a first check
            forget_queries(home)  # (first: a write behind the store's back makes the next `index` check it all)
            run(checkout, home, ["index", "--no-embed", *src])
            run(checkout, home, ["search", "settle", "--json", "--no-sync", "--rerun"])
        per_round = max(1, len(qs) // args.runs)
        for r in range(args.runs):
            round_qs = qs[r * per_round:(r + 1) * per_round][:6]
            for who, (checkout, home) in homes.items():
                timings[who]["noop"].append(run(checkout, home, ["index", "--no-embed", *src])[0])
            for q in round_qs:
                for who, (checkout, home) in homes.items():
                    timings[who]["lexical"].append(
                        run(checkout, home, ["search", q, "--mode", "lexical", "--json", "--no-sync", "--rerun"])[0])
                for who, (checkout, home) in homes.items():
                    timings[who]["synced"].append(
                        run(checkout, home, ["search", q, "--mode", "lexical", "--json", "--rerun", *src])[0])
                for who, (checkout, home) in homes.items():
                    wall, peak, _ = measured(checkout, home, ["search", q, "--json", "--no-sync", "--rerun"])
                    timings[who]["hybrid"].append(wall)
                    timings[who]["hybrid_rss"].append(peak)
        for who in checkouts:
            t = timings[who]
            res[who].update(
                noop_s=round(statistics.median(t["noop"]), 3),
                lexical_p50_s=round(statistics.median(t["lexical"]), 3),
                synced_p50_s=round(statistics.median(t["synced"]), 3),
                hybrid_p50_s=round(statistics.median(t["hybrid"]), 3),
                hybrid_p95_s=round(statistics.quantiles(t["hybrid"], n=20)[-1], 3),
                hybrid_peak_mib=round(max(t["hybrid_rss"])),
                store_vs_raw=round(res[who]["bytes"] / raw, 2), raw_mib=round(raw / 2**20), runs=t)
        results[name] = res
        report(name, res)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


def measured(checkout: Path, home: Path, args: list[str]) -> tuple[float, float, str]:
    """One process's wall time and its own peak RSS (``/usr/bin/time``-free: ``wait4``'s rusage)."""
    argv = [sys.executable, "-m", "backscroll", *args]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=checkout, env=env_for(home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(args[:3])} failed in {checkout}:\n{err.decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, err.decode()


def report(name: str, res: dict[str, dict]) -> None:
    old, new = res["old"], res["new"]

    def cell(d: dict, key: str, unit: str = "s") -> str:
        return f"{d[key]}{unit}" if key in d else "-"

    rows = [
        ("words indexed (first `index --no-embed`)",
         lambda d: f"{d['first_index']['s']} s, {d['first_index']['peak_mib']} MiB" if "first_index" in d else "-"),
        ("no-op `index --no-embed`", lambda d: cell(d, "noop_s", " s")),
        ("cold lexical search p50", lambda d: cell(d, "lexical_p50_s", " s")),
        ("cold lexical search with its sync p50", lambda d: cell(d, "synced_p50_s", " s")),
        ("cold hybrid search p50 / p95, peak", lambda d: f"{d['hybrid_p50_s']} / {d['hybrid_p95_s']} s, "
                                                          f"{d['hybrid_peak_mib']} MiB"),
        ("store + indexes vs raw logs", lambda d: f"{d['store_vs_raw']}× ({d['bytes'] / 2**20:,.0f} / "
                                                   f"{d['raw_mib']:,} MiB)"),
    ]
    print(f"\n{name}: {res['new']['records']:,} records\n| measure | old | new |\n|---|---|---|")
    for label, fmt in rows:
        print(f"| {label} | {fmt(old)} | {fmt(new)} |")
    print(flush=True)


if __name__ == "__main__":
    main()
