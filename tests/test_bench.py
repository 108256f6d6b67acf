"""The benchmark still runs (on a tiny corpus: speed is measured by bench/run.py, never asserted here)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "run.py"


@pytest.mark.slow  # a corpus, an index and the real model in a subprocess
def test_bench_runs_on_a_tiny_corpus(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH), "--sessions", "4", "--quick", "--embed-sample", "20",
                          "--out", str(tmp_path), "--json"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["records"] > 50 and data["raw_jsonl_bytes"] > 0
    for key in ("index_lexical_s", "noop_index_s", "append_index_s", "search_lexical_median", "search_hybrid_median",
                "warm_lexical_ms", "index_rss", "disk_ratio", "embed_rate"):
        assert data[key] > 0, key
