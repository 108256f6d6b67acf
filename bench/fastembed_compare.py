#!/usr/bin/env python3
"""The shipped int8 MiniLM graph through fastembed and through backscroll's own onnxruntime + tokenizers
path, in the same run: texts/s on long and short prose, peak RSS, cold query latency, and how alike the
vectors are.

    python -m venv /tmp/fe && /tmp/fe/bin/pip install -e . fastembed
    /tmp/fe/bin/python bench/fastembed_compare.py STORE.db [--n 400] [--rounds 3]

``STORE.db`` is an indexed store (``backscroll.db``): its prose records are the texts (long: the longest
assistant texts, over 1,500 characters; short: under 300). fastembed loads the graph from the package's
model directory as a custom model (``add_custom_model`` + ``specific_model_path``): nothing is downloaded.
Each figure is a fresh process (so peak RSS is the path's own), the two paths alternating, ``--rounds``
times; medians are printed. Both paths use two threads and batches of up to 32 texts (backscroll's own
bulk path batches by token budget instead; its figure is printed too).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import time

MODEL_NAME = "backscroll/minilm-l6-dynint8pc"


def texts(db: str, kind: str, n: int) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    where = "length(text) > 1500" if kind == "long" else "length(text) BETWEEN 20 AND 300"
    rows = conn.execute(f"SELECT text FROM records WHERE content_type = 'text' AND role = 'assistant' AND {where} "
                        "ORDER BY id LIMIT ?", (n,)).fetchall()
    return [r[0] for r in rows]


def fastembed_model():
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    from backscroll.indexes.embed import MODEL_DIR, MODEL_FILE

    os.environ["HF_HUB_OFFLINE"] = "1"
    if MODEL_NAME not in {m["model"] for m in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(model=MODEL_NAME, pooling=PoolingType.MEAN, normalization=True,
                                       sources=ModelSource(hf=MODEL_NAME), dim=384, model_file=MODEL_FILE.name)
    return TextEmbedding(model_name=MODEL_NAME, specific_model_path=str(MODEL_DIR), threads=2, lazy_load=False)


def embed(path: str, batch: list[str], size: int):
    import numpy as np

    if path == "fastembed":
        model = fastembed_model()
        return np.array(list(model.embed(batch, batch_size=size)))
    from backscroll.indexes.embed import MiniLM

    model = MiniLM(bulk=True, threads=2)
    if path == "ours-budget":
        return model.embed(batch)
    out = [model.run(model.tokenize(batch[i:i + size])) for i in range(0, len(batch), size)]
    return np.concatenate(out)


def child(args) -> None:
    """One measurement in this process: load, embed, report seconds and peak RSS."""
    batch = texts(args.db, args.kind, args.n) if args.kind != "query" else ["why did the retry loop stop?"]
    t0 = time.perf_counter()
    vecs = embed(args.path, batch, 32)
    seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.save:
        import numpy as np

        np.save(args.save, vecs)
    print(json.dumps({"seconds": seconds, "texts": len(batch), "rss_mib": rss}))


def run(args, path: str, kind: str, save: str | None = None) -> dict:
    cmd = [sys.executable, __file__, args.db, "--child", path, "--kind", kind, "--n", str(args.n)]
    if save:
        cmd += ["--save", save]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--child")
    ap.add_argument("--kind", default="long")
    ap.add_argument("--save")
    args = ap.parse_args()
    if args.child:
        args.path = args.child
        child(args)
        return
    import tempfile

    import numpy as np

    paths = ("ours", "fastembed", "ours-budget")
    results: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for kind in ("long", "short", "query"):
                for path in paths if kind != "query" else paths[:2]:
                    results.setdefault((path, kind), []).append(run(args, path, kind))
        saved = {p: f"{tmp}/{p}.npy" for p in paths[:2]}
        for p, f in saved.items():
            run(args, p, "long", f)
        a, b = np.load(saved["ours"]), np.load(saved["fastembed"])
        cos = np.sum(a * b, axis=1)
    print(f"{args.rounds} rounds, fresh process each, medians; 2 threads; {args.n} texts per set")
    print(f"{'path':12} {'set':6} {'texts/s (incl. load)':>21} {'peak RSS MiB':>13}")
    for (path, kind), rs in results.items():
        rate = statistics.median(r["texts"] / r["seconds"] for r in rs)
        secs = statistics.median(r["seconds"] for r in rs)
        shown = f"{secs * 1000:.0f} ms" if kind == "query" else f"{rate:.1f}"
        print(f"{path:12} {kind:6} {shown:>21} {statistics.median(r['rss_mib'] for r in rs):>13.0f}")
    print(f"vectors, long set, same batches of 32: cosine min {cos.min():.4f}, median {np.median(cos):.4f}")


if __name__ == "__main__":
    main()
