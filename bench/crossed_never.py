#!/usr/bin/env python3
"""Never-discussed questions, made by asking one history the questions written blind for another.

    python bench/crossed_never.py OUT.toml --target NAME=HOME --source NAME=QUERIES.toml [...] [--per 40] [--seed 0]

For each target history (an indexed backscroll home) and each source query file written for another history,
the source's answerable questions (not its ``nothing`` or date questions) are drawn in a seeded order and kept when
the target holds no accidental answer: no record of the target holds 60% or more of the question's content words
(idf-weighted by the target), and no identifier, path or quoted phrase of the question appears in the target at
all. The kept questions are written as ``nothing = true`` queries, each naming its target and where it came from,
for ``bench/judgement.py``. The output is frozen once written: a new draw is a new file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tomllib
from pathlib import Path

ACCIDENTAL = 0.6  # a record holding this share of a question's words may answer it
_CODE = re.compile(r"[A-Za-z_][A-Za-z0-9]*(?:[_.][A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+|\S*/\S+")


def questions(spec: str) -> list[dict]:
    """The answerable questions of a query file (each with an id: its own, else its place in the file); ``FILE@odd``
    or ``FILE@even``: one half, by the digits of the id (the agent benchmark's tuning and held-out halves)."""
    path, _, half = spec.partition("@")
    data = tomllib.loads(Path(path).read_text())
    out = [{**q, "id": q.get("id") or f"q{n}"} for n, q in enumerate(data.get("query", []), start=1)
           if not q.get("nothing") and q.get("category") not in ("date", "dates") and not q.get("window")]
    if half:
        odd = half == "odd"
        out = [q for q in out if (int("".join(c for c in q["id"] if c.isdigit()) or 0) % 2 == 1) == odd]
    return out


def accidental(bs, text: str) -> str | None:
    """Why the target may answer ``text``, or None."""
    from backscroll.indexes.lexical import analyze

    for token in _CODE.findall(text):
        words = analyze(token)
        if len(words) >= 2:
            found = bs.search(f'"{" ".join(words)}"', mode="lexical", limit=1, weak=True, rerun=True)
            if found.results and not found.dropped_filters:
                return f"holds {token!r}"
    result = bs.search(text, mode="lexical", limit=5, weak=True, rerun=True)
    best = max((h.strength or 0.0 for h in result.results if h.match != "meaning"), default=0.0)
    if best >= ACCIDENTAL or any(h.match == "exact" for h in result.results):
        return f"a record holds {best:.2f} of its words"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--target", action="append", required=True, help="NAME=HOME: an indexed history")
    ap.add_argument("--source", action="append", required=True,
                    help="TARGET:NAME=QUERIES.toml[@odd|@even]: questions written for another history, to ask TARGET")
    ap.add_argument("--per", type=int, default=40, help="questions kept per target and source")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from backscroll.archive import Backscroll

    homes = dict(t.split("=", 1) for t in args.target)
    lines = ["# Never-discussed questions: one history asked another's blind questions (bench/crossed_never.py).",
             f"# {' '.join(sys.argv[1:])}",
             "# frozen: never edit; write a new file instead", ""]
    for spec in args.source:
        target, rest = spec.split(":", 1)
        name, path = rest.split("=", 1)
        pool = questions(path)
        random.Random(f"{args.seed}|{target}|{name}").shuffle(pool)
        kept = 0
        with Backscroll(home=homes[target]) as bs:
            for q in pool:
                if kept >= args.per:
                    break
                why = accidental(bs, q["text"])
                if why is not None:
                    print(f"{target} <- {name}:{q.get('id')}: left out ({why})", file=sys.stderr)
                    continue
                kept += 1
                qid = q["id"]
                lines += ["[[query]]", f"id = {json.dumps(f'{target}~{name}~{qid}')}", f"target = {json.dumps(target)}",
                          f"source = {json.dumps(f'{name}:{qid}')}", 'category = "never-crossed"',
                          f"text = {json.dumps(q['text'])}", "nothing = true", ""]
        print(f"{target} <- {name}: {kept} kept", file=sys.stderr)
    args.out.write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
