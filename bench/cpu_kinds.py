#!/usr/bin/env python3
"""The same texts embedded on two kinds of x86 CPU: does the int8 graph give the same meaning everywhere?

    python bench/cpu_kinds.py embed DB OUT.npy [--graph GRAPH.onnx] [--texts 96]
    qemu-x86_64 -cpu Haswell .venv/bin/python bench/cpu_kinds.py embed DB OUT-avx2.npy ...   # an AVX2-only CPU
    python bench/cpu_kinds.py compare REF.npy A.npy [B.npy ...]

``embed`` embeds the first ``--texts`` prose records (over 40 characters) of a store with the shipped graph,
or with ``--graph`` (e.g. the float graph or a ``reduce_range`` one from ``scripts/derive_model.py``), and
saves the vectors. Under ``qemu-x86_64 -cpu Haswell`` (Debian's ``qemu-user``, 7.2 or later, emulates AVX2)
ONNX Runtime sees a CPU without AVX-512 or VNNI and runs its AVX2 int8 kernels, whose u8×s8 products
saturate; natively, here, it runs the VNNI ones. Emulation is slow (about 6 minutes for 96 texts on 2 cores).
``compare`` prints each file's cosine to ``REF`` per text (mean, 10th percentile, minimum) and, for each pair
of the others, to each other.
"""

from __future__ import annotations

import argparse
import itertools
import sqlite3
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def embed(db: Path, out: Path, graph: Path | None, n: int) -> None:
    from backscroll.indexes import embed as embed_mod

    if graph is not None:
        embed_mod.model_path = lambda verify=False: graph  # type: ignore[assignment]
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    texts = [r[0] for r in conn.execute("SELECT text FROM records WHERE content_type = 'text' AND is_echo = 0 "
                                        "AND length(text) > 40 ORDER BY id LIMIT ?", (n,))]
    model = embed_mod.MiniLM(bulk=False)
    np.save(out, np.vstack([model.embed(texts[i:i + 16]) for i in range(0, len(texts), 16)]))
    print(f"{len(texts)} texts -> {out}")


def compare(ref: Path, others: list[Path]) -> None:
    base = np.load(ref)
    vecs = {p.name: np.load(p) for p in others}
    for name, v in vecs.items():
        c = (v * base).sum(axis=1)
        print(f"{name:40} to {ref.name}: mean {c.mean():.4f}  p10 {np.percentile(c, 10):.4f}  min {c.min():.4f}")
    for (a, va), (b, vb) in itertools.combinations(vecs.items(), 2):
        c = (va * vb).sum(axis=1)
        print(f"{a} vs {b}: mean {c.mean():.4f}  min {c.min():.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("embed")
    e.add_argument("db", type=Path)
    e.add_argument("out", type=Path)
    e.add_argument("--graph", type=Path)
    e.add_argument("--texts", type=int, default=96)
    c = sub.add_parser("compare")
    c.add_argument("ref", type=Path)
    c.add_argument("others", type=Path, nargs="+")
    args = ap.parse_args()
    if args.cmd == "embed":
        embed(args.db, args.out, args.graph, args.texts)
    else:
        compare(args.ref, args.others)


if __name__ == "__main__":
    main()
