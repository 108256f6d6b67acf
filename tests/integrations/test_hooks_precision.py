"""Recall-hook precision on the evaluation corpus (bench/hooks.py), with the real model: a hook judges by meaning
too, and its operating point was placed for that model's similarities."""

import importlib.util

import pytest
from helpers import TESTS

BENCH = TESTS.parent / "bench" / "hooks.py"


@pytest.mark.slow
def test_hook_precision_on_related_and_unrelated_pairs(tmp_path, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minilm")
    spec = importlib.util.spec_from_file_location("bench_hooks", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.index(tmp_path)
    out = bench.precision(tmp_path)
    assert out["unrelated_injection_rate"] == 0.0, out
    assert out["word_hit_rate"] >= 0.45, out  # 0.548 of the 228 worded tuning queries (issue #48's operating point)
    assert out["bytes_injected"]["max"] <= 1536
