"""Measure where MiniLM's cosine similarity stops meaning anything (issue #18: the semantic floor).

Indexes fixtures/eval/corpus with the real model into a temporary home, then for every eval query
compares the cosine of its target unit (a related pair) with the cosine of every other unit
(mostly unrelated pairs), and the best cosine nonsense queries reach. Prints percentiles.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/semantic_floor.py [HOME]
"""

from __future__ import annotations

import sys
import tempfile
import tomllib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
NONSENSE = ["xyzzyplugh", "qwertyuiop asdf", "blorft zingle wump", "frobnicate the quux", "lorem ipsum dolor sit amet",
            "purple elephant banana", "zzzz", "kjhgf lkjh", "the", "mxyzptlk", "glarb fnord", "1234567"]


def main() -> None:
    import backscroll
    from backscroll.config import resolve
    from backscroll.indexes import embed
    from backscroll.indexes.vectors import Vectors
    from backscroll.store.db import Store

    home = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    spec = tomllib.loads((ROOT / "fixtures/eval/tune.toml").read_text())
    base = ROOT / "fixtures/eval"
    sources = tuple(s.split(":", 1)[0] + ":" + str(base / s.split(":", 1)[1]) for s in spec["corpus"]["sources"])
    cfg = resolve(home=str(home), sources=sources)
    if not cfg.db_path.exists():
        backscroll.index(config=cfg)
    store = Store.open(cfg.db_path)
    vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
    model = embed.load(bulk=False)
    factory = lambda: model  # noqa: E731
    target_cos: list[float] = []
    other_cos: list[float] = []
    for q in spec["query"]:
        ids, scores = vecs.similarities(vecs.query_vector(q["text"], factory))
        rows = {r[0] for r in store.conn.execute("SELECT id FROM records WHERE text LIKE ? AND is_echo = 0",
                                                 (f"%{q['expected']}%",))}
        mask = np.isin(ids, list(rows))
        if mask.any():
            target_cos.append(float(scores[mask].max()))
        other_cos.extend(scores[~mask].tolist())
    nonsense_best = []
    for text in NONSENSE:
        _ids, scores = vecs.similarities(vecs.query_vector(text, factory))
        nonsense_best.append((float(scores.max()), text))
    pct = lambda xs, p: float(np.percentile(xs, p))  # noqa: E731
    print(f"units: {len(ids)}; queries with an embedded target: {len(target_cos)}")
    print(f"related (query, target):   min {min(target_cos):.3f}  p5 {pct(target_cos, 5):.3f}"
          f"  p10 {pct(target_cos, 10):.3f}  median {pct(target_cos, 50):.3f}")
    print(f"unrelated (query, other):  median {pct(other_cos, 50):.3f}  p90 {pct(other_cos, 90):.3f}"
          f"  p99 {pct(other_cos, 99):.3f}  max {max(other_cos):.3f}")
    print("nonsense queries, best unit:", ", ".join(f"{t!r} {c:.3f}" for c, t in sorted(nonsense_best, reverse=True)))
    store.close()


if __name__ == "__main__":
    main()
