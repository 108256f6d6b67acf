#!/usr/bin/env python3
"""Benchmarks: index, sync, search and disk figures on a generated corpus, printed as one table.

    python bench/run.py --sessions 2000            # the reference: a year of heavy use (~200k records)
    python bench/run.py --sessions 20 --quick      # what CI runs: proves the benchmark still works

Every figure is measured here, on this machine, through the real CLI in subprocesses (cold
process start to exit) or the library in-process (warm). Embedding the whole corpus takes long on
2 cores, so by default the embedding rate is measured on a sample of ``--embed-sample`` texts and
the full pass is extrapolated from it (said so in the table); ``--full-embed`` runs all of it. For
hybrid search timings the vectors not embedded by the sample are filled with random unit vectors
(the search cost depends on their number, not their values), also said so in the table.

    python bench/run.py --sessions 300 --compare-old /path/to/old-checkout

runs the first-run figures (lexical phase, embedding rate and projected full pass, peak RSS of
``index`` and ``embed``, cold hybrid search) for an older checkout (its own ``.venv``) and for this
one, in the same run, each in child processes on its own copy of the data dir, and prints them side
by side with the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

QUERIES = [
    "what did we decide about the retry policy", "migration failed on the orders table", "flaky test timeout",
    "why is the worker slow", "postgres connection pool exhausted", "how do we deploy to staging",
    "KeyError in the serializer", "docker build cache", "rate limit for the api", "rename the settings module",
    "which library for date handling", "memory leak in the cache", "fix the import cycle",
    "pytest fixture scope", "redis eviction policy", "webhook signature verification",
    "pagination cursor bug", "upgrade to python 3.12", "index on created_at", "feature flag cleanup",
]


def cli(args: list[str], env: dict, check: bool = True, python: str = sys.executable,
        interrupt_after: float | None = None, code: str | None = None,
        cwd: Path = HERE.parent) -> tuple[float, int, subprocess.CompletedProcess]:
    """Run the CLI (or a ``code`` snippet) in a child; returns (wall seconds, peak RSS bytes of that child, result).

    ``interrupt_after``: send the child SIGINT (Ctrl-C) after that many seconds, if it still runs."""
    wrapper = (
        "import resource, subprocess, sys, time, json, signal\n"
        "t = time.perf_counter()\n"
        # a shell's background job ignores SIGINT, and so would the child: give it the default back
        "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,\n"
        "                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))\n"
        f"try:\n    p.wait({interrupt_after!r})\n"
        "except subprocess.TimeoutExpired:\n    p.send_signal(signal.SIGINT)\n"
        "o, e = p.communicate()\n"
        "p.stdout, p.stderr = o, e\n"
        "w = time.perf_counter() - t\n"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stderr.buffer.write(p.stderr)\n"
        "sys.stdout.buffer.write(json.dumps({'wall': w, 'rss_kb': r, 'rc': p.returncode}).encode()"
        " + b'\\n' + p.stdout)\n"
    )
    target = [python, "-c", code, *args] if code is not None else [python, "-m", "backscroll", *args]
    # cwd: ``python -m``/``-c`` import from the working directory first, so it must be the checkout measured
    out = subprocess.run([sys.executable, "-c", wrapper, *target], env=env, capture_output=True, cwd=cwd)
    head, _, rest = out.stdout.partition(b"\n")
    info = json.loads(head)
    result = subprocess.CompletedProcess(args, info["rc"], rest.decode(), out.stderr.decode())
    if check and info["rc"] not in (0, 4) and not (interrupt_after and info["rc"] == 130):
        raise SystemExit(f"backscroll {' '.join(args)} failed ({info['rc']}):\n{result.stderr}")
    return info["wall"], info["rss_kb"] * 1024, result


def du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

_EMBED_SAMPLE = """
import json, resource, sys, time
texts = json.load(open(sys.argv[1]))
try:
    from backscroll.indexes import embed, vectors
except ImportError:  # a checkout from before the stage packages (9bc4cea)
    from backscroll import embed, vectors
t = time.perf_counter()
e = embed.load(bulk=True)
load = time.perf_counter() - t
ru0 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
if hasattr(vectors, "WINDOW_RECORDS"):  # windows of pending texts, token-budget batches
    for i in range(0, len(texts), vectors.WINDOW_RECORDS):
        for _idx, _v in vectors._batches(e, texts[i:i + vectors.WINDOW_RECORDS]):
            pass
else:  # the earlier pipeline: chunks of BATCH_RECORDS records sorted by length, fastembed batches
    for i in range(0, len(texts), vectors.BATCH_RECORDS):
        e.embed(sorted(texts[i:i + vectors.BATCH_RECORDS], key=len))
secs = time.perf_counter() - t
ru1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
print(json.dumps({"load_s": load, "secs": secs, "cpu_s": cpu, "units": len(texts)}))
"""


def sample_units(db: Path, n: int, seed: int = 0) -> tuple[list[str], int]:
    """``n`` embedding units drawn at random from all prose (as the pipeline builds them), and how
    many prose records there are: both implementations embed the same texts."""
    import random

    from backscroll.indexes.vectors import MIN_EMBED_CHARS, unit_text

    con = sqlite3.connect(db)
    try:
        prose = con.execute("SELECT id, session_id, role, text FROM records WHERE content_type = 'text' "
                            "AND is_echo = 0").fetchall()
        rows = random.Random(seed).sample(prose, min(n, len(prose)))
        out = []
        for rid, session, role, text in rows:
            if len(text.strip()) < MIN_EMBED_CHARS:
                continue
            q = con.execute("SELECT text FROM records WHERE session_id = ? AND id < ? AND role = 'user' "
                            "AND content_type = 'text' ORDER BY id DESC LIMIT 1", (session, rid)).fetchone()
            out.append(unit_text(role, text, q[0] if q else None))
        return out, len(prose)
    finally:
        con.close()


_FILL = """
import sys
from pathlib import Path
import numpy as np
from backscroll.config import resolve
try:
    from backscroll.indexes import embed
    from backscroll.indexes.vectors import Vectors
    from backscroll.store.db import Store
except ImportError:  # a checkout from before the stage packages (9bc4cea)
    from backscroll import embed
    from backscroll.store import Store
    from backscroll.vectors import Vectors
cfg = resolve(home=Path(sys.argv[1]), env={"HOME": sys.argv[2]})
store = Store.open(cfg.db_path)
vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
vecs.ensure_model()
rng = np.random.default_rng(0)
ids = [r[0] for r in store.conn.execute(
    "SELECT id FROM records WHERE unit_hash IS NULL AND content_type='text' AND is_echo=0")]
seq = int(store.get_meta("vector_seq") or 0) + 1
store.begin()
for i in range(0, len(ids), 5000):
    chunk = ids[i:i + 5000]
    m = rng.standard_normal((len(chunk), 384)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    store.conn.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, 384, ?)",
                           [(f"synthetic-{rid}", vecs.model, m[j].tobytes()) for j, rid in enumerate(chunk)])
    store.conn.executemany("UPDATE records SET unit_hash = ?, vector_seq = ? WHERE id = ?",
                           [(f"synthetic-{rid}", seq, rid) for rid in chunk])
store.set_meta("vector_seq", str(seq))
store.commit()
vecs.write_matrix()
print(len(ids))
"""


def _embedded(home: Path) -> int:
    con = sqlite3.connect(home / "backscroll.db")
    try:
        return con.execute("SELECT count(*) FROM embeddings").fetchone()[0]
    finally:
        con.close()


def measure_first_run(name: str, python: str, out: Path, sources: list[str], base_env: dict, fake_home: Path,
                      sample: list[str], prose: int, index_seconds: float, queries: list[str], root: Path) -> dict:
    """One implementation's first-run figures, every one in child processes of its own python."""
    d: dict = {}
    home = out / f"home-{name}"
    shutil.rmtree(home, ignore_errors=True)
    env = {**base_env, "BACKSCROLL_HOME": str(home)}
    print(f"[{name}] lexical index …", file=sys.stderr)
    wall, rss, res = cli(["index", "--no-embed", "--json", *sources], env, python=python, cwd=root)
    d.update(lexical_s=wall, lexical_rss=rss, records=json.loads(res.stdout)["records_added"])
    print(f"[{name}] embedding {len(sample)} sampled texts …", file=sys.stderr)
    sample_file = out / "sample.json"
    _w, rss, res = cli([str(sample_file)], env, python=python, code=_EMBED_SAMPLE, cwd=root)
    e = json.loads(res.stdout.strip().splitlines()[-1])
    d.update(embed_rss=rss, embed_load_s=e["load_s"], embed_units=e["units"], embed_s=e["secs"],
             embed_cpu_s=e["cpu_s"], prose=prose)
    d["embed_rate"] = e["units"] / e["secs"] if e["secs"] else 0.0
    d["embed_cpu_ms_per_unit"] = 1000 * e["cpu_s"] / max(e["units"], 1)
    d["embed_full_projected_s"] = prose / d["embed_rate"] if d["embed_rate"] else float("nan")
    print(f"[{name}] cold hybrid searches …", file=sys.stderr)
    cli([str(home), str(fake_home)], env, python=python, code=_FILL, cwd=root)
    times, srss = [], 0
    for q in queries:
        w, r, found = cli(["search", *q.split(), "--json", *sources], env, python=python, cwd=root)
        if json.loads(found.stdout)["mode"] != "hybrid":
            raise SystemExit(f"[{name}] the search did not run hybrid: {found.stderr}")
        times.append(w)
        srss = max(srss, r)
    d.update(search_p50=statistics.median(times), search_p95=pct(times, 95), search_rss=srss)
    print(f"[{name}] `index` with embedding, Ctrl-C after {index_seconds:.0f} s …", file=sys.stderr)
    home2 = out / f"home-{name}-index"
    shutil.rmtree(home2, ignore_errors=True)
    env2 = {**base_env, "BACKSCROLL_HOME": str(home2)}
    wall, rss, res = cli(["index", *sources], env2, python=python, interrupt_after=index_seconds, cwd=root)
    con = sqlite3.connect(home2 / "backscroll.db")
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'vectors_model'").fetchone()
    finally:
        con.close()
    d["model"] = row[0] if row else None
    d.update(index_rss=rss, index_wall=wall, index_rc=res.returncode, index_units_kept=_embedded(home2),
             index_stderr=res.stderr.strip().splitlines()[:3])
    return d


def compare(args, corpus: Path, old: Path) -> int:
    """Old checkout vs this one, same corpus, same run (see the module docstring)."""
    old_python = old / ".venv" / "bin" / "python"
    if not old_python.exists():
        raise SystemExit(f"{old_python} is missing: run `make .venv/.installed-stamp` in {old}")
    fake_home = args.out / "fakehome"
    fake_home.mkdir(parents=True, exist_ok=True)
    base_env = {**os.environ, "HOME": str(fake_home), "NO_COLOR": "1", "HF_HUB_OFFLINE": "1",
                "BACKSCROLL_CONFIG": str(args.out / "no-config.toml")}
    base_env.pop("BACKSCROLL_EMBEDDER", None)
    sources = ["--source", f"claude:{corpus}/claude/projects", "--source", f"codex:{corpus}/codex/sessions"]
    queries = QUERIES[:args.queries]
    print("choosing the texts both embed …", file=sys.stderr)
    home = args.out / "home-sample"
    shutil.rmtree(home, ignore_errors=True)
    cli(["index", "--no-embed", *sources], {**base_env, "BACKSCROLL_HOME": str(home)})
    sample, prose = sample_units(home / "backscroll.db", args.embed_sample)
    (args.out / "sample.json").write_text(json.dumps(sample))
    res = {}
    for name, python, root in (("old", str(old_python), old), ("new", sys.executable, HERE.parent)):
        res[name] = measure_first_run(name, python, args.out, sources, base_env, fake_home, sample, prose,
                                      args.index_seconds, queries, root)
        if res[name]["model"] is None:
            raise SystemExit(f"[{name}] no model id recorded")
    o, n = res["old"], res["new"]
    mb = 1e6

    def ratio(a, b):
        return f"{a / b:.2f}×" if b else "–"

    rows = [
        ("lexical phase (`index --no-embed`)", f"{o['lexical_s']:.1f} s", f"{n['lexical_s']:.1f} s",
         ratio(o["lexical_s"], n["lexical_s"])),
        ("embedding rate (texts/s, wall)", f"{o['embed_rate']:.1f}", f"{n['embed_rate']:.1f}",
         ratio(n["embed_rate"], o["embed_rate"])),
        ("embedding CPU per text (ms)", f"{o['embed_cpu_ms_per_unit']:.1f}", f"{n['embed_cpu_ms_per_unit']:.1f}",
         ratio(o["embed_cpu_ms_per_unit"], n["embed_cpu_ms_per_unit"])),
        (f"projected full embedding ({o['prose']:,} texts)", f"{o['embed_full_projected_s'] / 60:.1f} min",
         f"{n['embed_full_projected_s'] / 60:.1f} min",
         ratio(o["embed_full_projected_s"], n["embed_full_projected_s"])),
        ("peak RSS, embed", f"{o['embed_rss'] / mb:.0f} MB", f"{n['embed_rss'] / mb:.0f} MB",
         ratio(o["embed_rss"], n["embed_rss"])),
        (f"peak RSS, `index` (Ctrl-C after {args.index_seconds:.0f} s)", f"{o['index_rss'] / mb:.0f} MB",
         f"{n['index_rss'] / mb:.0f} MB", ratio(o["index_rss"], n["index_rss"])),
        ("texts embedded and kept by that `index`", f"{o['index_units_kept']:,}", f"{n['index_units_kept']:,}",
         ratio(n["index_units_kept"], max(o["index_units_kept"], 1))),
        ("cold hybrid search p50 / p95", f"{o['search_p50']:.2f} / {o['search_p95']:.2f} s",
         f"{n['search_p50']:.2f} / {n['search_p95']:.2f} s", ratio(o["search_p50"], n["search_p50"])),
        ("peak RSS, hybrid search", f"{o['search_rss'] / mb:.0f} MB", f"{n['search_rss'] / mb:.0f} MB",
         ratio(o["search_rss"], n["search_rss"])),
    ]
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(f"first run, old ({old}) vs new — {args.sessions} sessions, {n['records']:,} records, "
              f"{n['prose']:,} prose texts; rates on the same {n['embed_units']} texts drawn at random; "
              f"{os.cpu_count()} CPUs; "
              f"{date.today().isoformat()}\n")
        print("| measure | old | new | new vs old |\n|---|---|---|---|")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |")
        print(f"\nmodels: old {o['model']}, new {n['model']}")
        print("stderr of the new `index`:", *n["index_stderr"], sep="\n  ")
    return 0



def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--embed-sample", type=int, default=2000, help="texts embedded to measure the rate")
    ap.add_argument("--full-embed", action="store_true", help="embed the whole corpus instead of a sample")
    ap.add_argument("--quick", action="store_true", help="few repetitions (CI)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--compare-old", type=Path, metavar="CHECKOUT",
                    help="compare the first-run figures with an older checkout (with its own .venv)")
    ap.add_argument("--index-seconds", type=float, default=60.0,
                    help="with --compare-old: Ctrl-C each `index` after this long")
    ap.add_argument("--queries", type=int, default=10, help="with --compare-old: cold hybrid searches")
    args = ap.parse_args(argv)

    import compileall

    import generate

    import backscroll
    from backscroll.config import resolve

    # Cold-start figures must not include compiling backscroll's own modules (an editable install
    # under PYTHONDONTWRITEBYTECODE never caches them; a normal install ships them compiled).
    compileall.compile_dir(Path(backscroll.__file__).parent, quiet=1)

    reps = 3 if args.quick else 20
    corpus = args.out / f"corpus-{args.sessions}-{args.seed}"
    if not (corpus / "claude").exists():
        print(f"generating {args.sessions} sessions into {corpus} …", file=sys.stderr)
        generate.generate(corpus, args.sessions, seed=args.seed)
    if args.compare_old:
        return compare(args, corpus, args.compare_old.resolve())
    raw_bytes = du(corpus / "claude") + du(corpus / "codex")
    home = args.out / "home"
    shutil.rmtree(home, ignore_errors=True)
    fake_home = args.out / "fakehome"
    fake_home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(fake_home), "NO_COLOR": "1",
           "HF_HUB_OFFLINE": "1", "BACKSCROLL_CONFIG": str(args.out / "no-config.toml")}
    env.pop("BACKSCROLL_EMBEDDER", None)
    sources = ["--source", f"claude:{corpus}/claude/projects", "--source", f"codex:{corpus}/codex/sessions"]
    rows: list[tuple[str, str, str]] = []
    data: dict = {"sessions": args.sessions, "raw_jsonl_bytes": raw_bytes, "date": date.today().isoformat(),
                  "cpus": os.cpu_count()}

    # 1. full lexical index
    print("full index (lexical) …", file=sys.stderr)
    wall, rss, res = cli(["index", "--no-embed", "--json", *sources], env)
    summary = json.loads(res.stdout)
    records = summary["records_added"]
    data.update(records=records, index_lexical_s=wall, index_rss=rss)
    rows.append(("full index, lexical only", f"{wall:.1f} s, {records / wall:,.0f} records/s",
                 f"{records:,} records, {summary['files_scanned']:,} files"))

    # 2. embeddings
    cfg = resolve(home=home, env={"HOME": str(fake_home)})
    from backscroll.indexes import embed as embed_mod
    from backscroll.indexes.vectors import Vectors
    from backscroll.store.db import Store

    store = Store.open(cfg.db_path)
    vecs = Vectors(store, cfg.vectors_dir, embed_mod.model_id())
    vecs.ensure_model()
    pending = vecs.pending()
    print(f"embedding {'all' if args.full_embed else args.embed_sample} of {pending} prose records …",
          file=sys.stderr)
    t0 = time.perf_counter()
    embedder = embed_mod.load(bulk=True)
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    done = {"records": 0}
    vecs.embed_pending(lambda: embedder, limit=None if args.full_embed else args.embed_sample,
                       progress=lambda r, _u, _w: done.update(records=r))
    embed_s = time.perf_counter() - t0
    rate = done["records"] / embed_s if embed_s else 0.0
    units_total = pending  # upper bound: identical texts are embedded once
    if args.full_embed:
        vecs.write_matrix()
        rows.append(("full index, embeddings", f"{embed_s / 60:.1f} min ({rate:.0f} texts/s)",
                     f"{pending:,} prose records, model load {load_s:.1f} s"))
    else:
        est = units_total / rate if rate else float("nan")
        rows.append(("embedding pass (extrapolated)", f"≈{est / 60:.1f} min at {rate:.0f} texts/s",
                     f"rate measured on {done['records']:,} of {pending:,} prose records; model load {load_s:.1f} s"))
        # fill the rest with random unit vectors so that search timings see a full-size matrix
        import numpy as np

        rng = np.random.default_rng(0)
        ids = [r[0] for r in store.conn.execute(
            "SELECT id FROM records WHERE unit_hash IS NULL AND content_type='text' AND is_echo=0")]
        seq = int(store.get_meta("vector_seq") or 0) + 1
        store.begin()
        for i in range(0, len(ids), 5000):
            chunk = ids[i:i + 5000]
            m = rng.standard_normal((len(chunk), 384)).astype(np.float32)
            m /= np.linalg.norm(m, axis=1, keepdims=True)
            store.conn.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, 384, ?)",
                                   [(f"synthetic-{rid}", vecs.model, m[j].tobytes()) for j, rid in enumerate(chunk)])
            store.conn.executemany("UPDATE records SET unit_hash = ?, vector_seq = ? WHERE id = ?",
                                   [(f"synthetic-{rid}", seq, rid) for rid in chunk])
        store.set_meta("vector_seq", str(seq))
        store.commit()
        vecs.write_matrix()
        data["synthetic_vectors"] = len(ids)
    data.update(embed_rate=rate, embed_sample=done["records"], prose_records=pending)
    store.close()

    # 3. no-op index and append
    noop = [cli(["index", *sources], env)[0] for _ in range(min(reps, 10))]
    rows.append(("no-op `index` (nothing changed)", f"median {statistics.median(noop):.3f} s", "CLI wall time"))
    files = sorted((corpus / "claude" / "projects").rglob("*.jsonl"))
    target = max(files[: min(len(files), 200)], key=lambda p: p.stat().st_size)
    appends = []
    for i in range(min(reps, 5)):
        generate.append_lines(target, 10, seed=1000 + i)
        appends.append(cli(["index", "--no-embed", *sources], env)[0])
    rows.append(("`index` after appending 10 lines", f"median {statistics.median(appends):.3f} s",
                 "CLI wall time, lexical (embedding of 10 new records adds the model load)"))
    data.update(noop_index_s=statistics.median(noop), append_index_s=statistics.median(appends))

    # 4. cold CLI search
    qs = QUERIES[:reps]
    lexical, lexical_rss = [], 0
    for q in qs:
        w, r, _ = cli(["search", *q.split(), "--mode", "lexical", *sources], env)
        lexical.append(w)
        lexical_rss = max(lexical_rss, r)
    hybrid, hybrid_rss = [], 0
    for q in qs:  # every query new: none is answered from the query-vector cache
        w, r, _ = cli(["search", *q.split(), *sources], env)
        hybrid.append(w)
        hybrid_rss = max(hybrid_rss, r)
    cached = [cli(["search", *q.split(), *sources], env)[0] for q in qs]
    rows.append(("cold CLI search, lexical", f"median {statistics.median(lexical):.3f} s, p95 {pct(lexical, 95):.3f} s",
                 f"{len(qs)} queries, process start to exit, incl. the pre-search sync"))
    rows.append(("cold CLI search, hybrid", f"median {statistics.median(hybrid):.3f} s, p95 {pct(hybrid, 95):.3f} s",
                 "new queries (model loaded); " f"repeated query {statistics.median(cached):.3f} s (cached vector)"))
    data.update(search_lexical_median=statistics.median(lexical), search_lexical_p95=pct(lexical, 95),
                search_hybrid_median=statistics.median(hybrid), search_hybrid_p95=pct(hybrid, 95),
                search_hybrid_cached_median=statistics.median(cached))

    # 5. warm library search
    warm: dict[str, list[float]] = {"lexical": [], "hybrid": []}
    backscroll.search("warm up", config=cfg, sync=False)
    for mode in warm:
        for _ in range(3):
            for q in qs:
                t0 = time.perf_counter()
                backscroll.search(q, config=cfg, mode=mode, sync=False, rerun=True)
                warm[mode].append(time.perf_counter() - t0)
    rows.append(("warm library search", f"lexical median {statistics.median(warm['lexical']) * 1000:.1f} ms, "
                 f"hybrid {statistics.median(warm['hybrid']) * 1000:.1f} ms", "in-process, --no-sync, cached vectors"))
    data.update(warm_lexical_ms=statistics.median(warm["lexical"]) * 1000,
                warm_hybrid_ms=statistics.median(warm["hybrid"]) * 1000)

    # 6. memory and disk
    rows.append(("peak RSS", f"index {data['index_rss'] / 1e6:.0f} MB; search lexical {lexical_rss / 1e6:.0f} MB, "
                 f"hybrid {hybrid_rss / 1e6:.0f} MB", "full lexical index; cold CLI searches"))
    store_b = sum(du(home / n) for n in ("backscroll.db", "backscroll.db-wal", "backscroll.db-shm"))
    index_b, vectors_b = du(home / "index"), du(home / "vectors")
    total = store_b + index_b + vectors_b
    rows.append(("disk: store + index + vectors", f"{total / 1e6:.0f} MB = {total / raw_bytes:.2f}× raw JSONL",
                 f"store {store_b / 1e6:.0f} MB, index {index_b / 1e6:.0f} MB, vectors {vectors_b / 1e6:.0f} MB; "
                 f"raw {raw_bytes / 1e6:.0f} MB"))
    data.update(search_lexical_rss=lexical_rss, search_hybrid_rss=hybrid_rss, store_bytes=store_b,
                index_bytes=index_b, vectors_bytes=vectors_b, disk_ratio=total / raw_bytes)

    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(f"backscroll benchmark — {args.sessions} sessions, {records:,} records, "
              f"{raw_bytes / 1e6:.0f} MB JSONL; {os.cpu_count()} CPUs; {data['date']}\n")
        print("| measure | result | notes |\n|---|---|---|")
        for row in rows:
            print(f"| {row[0]} | {row[1]} | {row[2]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
