#!/usr/bin/env python3
"""Ranking on long sessions: the eval sets against a variant of their corpus where each project's Claude
sessions are merged into one long session (up to ~340 turns, timestamps kept).

The eval corpus's sessions are short and on one topic, so evidence a record draws from its session could
look better there than on a real history, where one session runs for hours over many topics. This
prints hit@1 / recall@5 / MRR of hybrid search on both corpora, side by side (real model, offline):

    HF_HUB_OFFLINE=1 .venv/bin/python bench/long_sessions.py [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "fixtures" / "eval"


def _first_timestamp(path: Path) -> str:
    for line in path.read_bytes().splitlines():
        try:
            ts = json.loads(line).get("timestamp")
        except (ValueError, AttributeError):
            continue
        if ts:
            return str(ts)
    return ""


def merge_sessions(corpus: Path, out: Path) -> int:
    """Copy ``corpus`` to ``out`` with each Claude project's sessions in one file under one session id
    (lines that are not JSON objects, the corpus's broken lines, are kept as they are). Returns the
    number of files merged."""
    shutil.copytree(corpus, out)
    merged = 0
    for project in sorted((out / ".claude" / "projects").iterdir()):
        files = sorted(project.glob("*.jsonl"), key=_first_timestamp)
        if len(files) < 2:
            continue
        session = files[0].stem
        lines: list[bytes] = []
        for path in files:
            for line in path.read_bytes().splitlines():
                try:
                    obj = json.loads(line)
                except ValueError:
                    lines.append(line)
                    continue
                if isinstance(obj, dict) and "sessionId" in obj:
                    obj["sessionId"] = session
                lines.append(json.dumps(obj).encode())
            path.unlink()
            merged += 1
        (project / f"{session}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return merged


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    from backscroll.evaluate import run_eval

    rows = {}
    with tempfile.TemporaryDirectory(prefix="backscroll-long-") as tmp:
        long_dir = Path(tmp) / "long"
        long_dir.mkdir()
        merged = merge_sessions(EVAL / "corpus", long_dir / "corpus")
        for name in ("tune", "check"):
            shutil.copy(EVAL / f"{name}.toml", long_dir / f"{name}.toml")  # its [corpus] is relative to the file
            for corpus, path in (("short", EVAL / f"{name}.toml"), ("long", long_dir / f"{name}.toml")):
                overall = run_eval(path, k=5).overall
                rows[f"{name} {corpus}"] = {k: overall[k] for k in ("queries", "hit1", "recall", "mrr")}
    if args.json:
        print(json.dumps({"files_merged": merged, **rows}, indent=2))
        return
    print(f"hybrid search, short sessions (the eval corpus) and long ones ({merged} session files merged, one "
          "session per project)")
    print("| set | sessions | queries | hit@1 | recall@5 | MRR |\n|---|---|---|---|---|---|")
    for key, r in rows.items():
        name, corpus = key.split()
        print(f"| {name} | {corpus} | {r['queries']} | {r['hit1']:.3f} | {r['recall']:.3f} | {r['mrr']:.3f} |")


if __name__ == "__main__":
    main()
