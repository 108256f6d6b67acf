#!/usr/bin/env python3
"""Where a long text spends its tokens: embedding throughput of real prose cut at 256 tokens (today) and at
128, same texts, same process, alternating rounds.

    HF_HUB_OFFLINE=1 .venv/bin/python bench/embed_length.py STORE.db [--n 600] [--rounds 3]

``STORE.db`` is an indexed store; its assistant prose records are the texts (``long``: over 1,500
characters; ``all``: every prose text, in store order, as a first index meets them). Prints texts/s per cut
(the model loaded once per cut, outside the timing) and the tokens the cut keeps. Retrieval quality at each
cut is ``bench/agent_search.py`` on a home indexed with ``MAX_TOKENS`` changed (see docs/ranking.md).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import time


def texts(db: str, kind: str, n: int) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    where = "AND length(text) > 1500" if kind == "long" else ""
    return [r[0] for r in conn.execute(f"SELECT text FROM records WHERE content_type = 'text' AND is_echo = 0 "
                                       f"{where} ORDER BY id LIMIT ?", (n,))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    from backscroll.indexes import embed

    models = {}
    for cut in (256, 128):
        embed.MAX_TOKENS = cut  # read when the tokenizer is set up
        models[cut] = embed.MiniLM(bulk=True)
    for kind in ("long", "all"):
        batch = texts(args.db, kind, args.n)
        rates: dict[int, list[float]] = {256: [], 128: []}
        for _ in range(args.rounds):
            for cut, model in models.items():
                t0 = time.perf_counter()
                model.embed(batch)
                rates[cut].append(len(batch) / (time.perf_counter() - t0))
        tokens = {cut: sum(len(x) for x in m.tokenize(batch)) / len(batch) for cut, m in models.items()}
        for cut in (256, 128):
            print(f"{kind:5} cut {cut}: {statistics.median(rates[cut]):6.1f} texts/s (rounds: "
                  f"{', '.join(f'{r:.1f}' for r in rates[cut])}), {tokens[cut]:.0f} tokens per text")
        print(f"{kind:5} 128 / 256: {statistics.median(rates[128]) / statistics.median(rates[256]):.2f}x "
              f"({len(batch)} texts)")


if __name__ == "__main__":
    main()
