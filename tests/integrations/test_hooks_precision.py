"""Recall-hook precision on the evaluation corpus (bench/hooks.py): unrelated prompts inject nothing."""


import importlib.util

from helpers import TESTS

BENCH = TESTS.parent / "bench" / "hooks.py"


def test_hook_precision_on_related_and_unrelated_pairs(tmp_path):
    spec = importlib.util.spec_from_file_location("bench_hooks", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.index(tmp_path)
    out = bench.precision(tmp_path)
    assert out["unrelated_injection_rate"] == 0.0, out
    assert out["word_hit_rate"] >= 0.65, out  # 0.69 with the 228 worded tuning queries (0.53 over every category)
    assert out["bytes_injected"]["max"] <= 1536
