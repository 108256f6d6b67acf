#!/usr/bin/env python3
"""A binary first pass over the vector matrix (one sign bit per dimension, Hamming distance), with the best
candidates rescored from the int8 rows: its recall against the exact int8 scan, and the time of each.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/binary_pass.py DATA_DIR [--real-queries] [--candidates 1000 4000]

``DATA_DIR`` is an embedded data dir (its matrix is read as a search reads it). ``--real-queries`` embeds the
agent benchmark's 260 questions with the shipped model (recall means something only with real vectors and
real questions); otherwise 50 random unit vectors (timings only). Recall@10 and @100 are the shares of the
exact scan's top 10 and 100 that the first pass plus rescoring also returns; times are per query, in this
process, after the matrix is loaded.
"""

from __future__ import annotations

import argparse
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("home", type=Path)
    ap.add_argument("--real-queries", action="store_true")
    ap.add_argument("--candidates", type=int, nargs="+", default=[1000, 4000])
    args = ap.parse_args()

    from backscroll.config import resolve
    from backscroll.indexes import embed
    from backscroll.indexes.nearest import score_int8
    from backscroll.indexes.vectors import Vectors
    from backscroll.store.db import Store

    cfg = resolve(home=args.home)
    store = Store.open_readonly(cfg.db_path)
    vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
    _ids, base, scales, _tail_ids, _tail = vecs.load()
    if base is None or scales is None:
        raise SystemExit(f"{args.home}: no vector matrix")
    m8 = np.asarray(base)
    bits = np.packbits(m8 > 0, axis=1)
    if args.real_queries:
        texts = [q["text"] for q in tomllib.loads((ROOT / "bench/queries/agent-search-v1.toml").read_text())["query"]]
        queries = embed.load(bulk=False).embed(texts).astype(np.float32)
    else:
        queries = np.random.default_rng(1).standard_normal((50, m8.shape[1])).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    print(f"{len(m8):,} rows, {len(queries)} queries ({'real' if args.real_queries else 'random'})")
    for n in args.candidates:
        found10 = found100 = 0.0
        exact_s = binary_s = 0.0
        for q in queries:
            t = time.perf_counter()
            top = np.argsort(-score_int8(m8, scales, q))[:100]
            exact_s += time.perf_counter() - t
            t = time.perf_counter()
            distance = np.bitwise_count(np.bitwise_xor(bits, np.packbits(q > 0))).sum(axis=1, dtype=np.uint16)
            cand = np.argpartition(distance, min(n, len(m8) - 1))[:n]
            rescored = (m8[cand].astype(np.float32) @ q) * scales[cand]
            best = cand[np.argsort(-rescored)[:100]]
            binary_s += time.perf_counter() - t
            found10 += len(set(top[:10]) & set(best[:10])) / 10
            found100 += len(set(top) & set(best)) / 100
        k = len(queries)
        print(f"{n:,} candidates: recall@10 {found10 / k:.3f}, recall@100 {found100 / k:.3f}; "
              f"exact {1000 * exact_s / k:.1f} ms, binary + rescore {1000 * binary_s / k:.1f} ms per query")
    store.close()


if __name__ == "__main__":
    main()
