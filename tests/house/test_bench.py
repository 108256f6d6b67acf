"""The benchmark still runs (on a tiny corpus: speed is measured by bench/run.py, never asserted here)."""


import json
import os
import subprocess
import sys

import pytest
from helpers import TESTS

BENCH = TESTS.parent / "bench" / "run.py"


@pytest.mark.slow  # a corpus, an index and the real model in a subprocess
def test_bench_runs_on_a_tiny_corpus(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH), "--sessions", "4", "--quick", "--embed-sample", "20",
                          "--out", str(tmp_path), "--json"], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "BACKSCROLL_EMBEDDER": "minilm"})  # (the plugin's choice is the fake)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["records"] > 50 and data["raw_jsonl_bytes"] > 0
    for key in ("index_lexical_s", "noop_index_s", "append_index_s", "search_lexical_median", "search_hybrid_median",
                "warm_lexical_ms", "index_rss", "disk_ratio", "embed_rate"):
        assert data[key] > 0, key


def test_the_long_session_variant_merges_each_projects_sessions_into_one(tmp_path):
    sys.path.insert(0, str(BENCH.parent))
    try:
        from long_sessions import merge_sessions
    finally:
        sys.path.pop(0)
    project = tmp_path / "corpus" / ".claude" / "projects" / "-home-dev-shop"
    project.mkdir(parents=True)
    (project / "b.jsonl").write_text('{"sessionId": "b", "timestamp": "2026-02-01T00:00:00.000Z", "n": 3}\n')
    (project / "a.jsonl").write_bytes(b'{"sessionId": "a", "timestamp": "2026-01-01T00:00:00.000Z", "n": 1}\n'
                                      b'{"broken\xff\n{"sessionId": "a", "n": 2}\n')
    assert merge_sessions(tmp_path / "corpus", tmp_path / "long") == 2
    files = list((tmp_path / "long" / ".claude" / "projects" / "-home-dev-shop").glob("*.jsonl"))
    assert [f.name for f in files] == ["a.jsonl"], "named after the earliest session"
    lines = files[0].read_bytes().splitlines()
    assert lines[1] == b'{"broken\xff', "a broken line is kept as it is"
    objs = [json.loads(x) for x in lines if x != lines[1]]
    assert [o["n"] for o in objs] == [1, 2, 3] and {o["sessionId"] for o in objs} == {"a"}


def test_the_judgement_is_fitted_for_each_use_on_each_corpus_alone_and_measured_on_the_other(tmp_path):
    def row(corpus: str, use: str, n: int, answered: bool) -> dict:
        # a search's answers stand out by the first feature, a hook's by the second (the first misleads it)
        evidence = [0.9 if answered else 0.1, 0.1, *[(n % 7) / 7] * 8]
        if use == "hook":
            evidence[:2] = [0.9 if not answered else 0.1, 0.9 if answered else 0.1]
        return {"set": f"{corpus}-{use}", "use": use, "mode": "hybrid", "id": f"q{n}", "category": "question",
                "nothing": not answered, "features": [f"f{i}" for i in range(10)], "evidence": evidence,
                "hits": [{"rank": 1, "right": answered, "strength": 0.5, "session": "s", "lists": ["lexical"],
                          "match": "words"}]}
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(json.dumps(row(c, u, n, n % 2 == 0)) + "\n"
                            for c in ("a", "b") for u in ("search", "hook") for n in range(40)))
    script = str(BENCH.parent / "relevance.py")
    out = subprocess.run([sys.executable, script, "cross", str(dump), "--corpus", "one=a-search,a-hook",
                          "--corpus", "two=b-search,b-hook"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(": ", 1) for line in out.stdout.splitlines())
    assert set(lines) == {f"fitted on {s} -> {t}:{c}-{u} hybrid ({u})" for t, c in (("one", "a"), ("two", "b"))
                          for s in ("all", "one", "two") if s != t for u in ("search", "hook")}
    for u in ("search", "hook"):
        transferred = json.loads(lines[f"fitted on one -> two:b-{u} hybrid ({u})"])
        assert transferred["never_empty"] == "20/20 = 100%" and transferred["right_kept"] == "20/20 = 100.0%"
    fit = subprocess.run([sys.executable, script, "fit", str(dump)], capture_output=True, text=True, timeout=120)
    model = json.loads(fit.stdout)
    assert model["search"]["hybrid"]["weights"][0] > 0 > model["hook"]["hybrid"]["weights"][0], "each its own fit"
    assert set(model["hook"]) == {"hybrid"} and 0 < model["hook"]["hybrid"]["point"] < 1


def test_a_judgement_fitted_before_uses_had_fits_of_their_own_reads_as_one_fit_for_each(tmp_path):
    sys.path.insert(0, str(BENCH.parent))
    try:
        from relevance import load_model
    finally:
        sys.path.pop(0)
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"features": ["a", "b"], "weights": [1.0, -2.0], "bias": 0.5,
                               "points": {"search": {"hybrid": 0.5, "lexical": 0.6},
                                          "hook": {"hybrid": 0.9, "lexical": 0.95}}}))
    model = load_model(old)
    assert model["hook"]["lexical"] == {"weights": [1.0, -2.0], "bias": 0.5, "point": 0.95}
    assert model["search"]["hybrid"]["point"] == 0.5 and set(model["search"]) == {"hybrid", "lexical"}


def test_one_use_is_fitted_on_the_features_it_names_and_the_other_fits_are_kept(tmp_path):
    def row(n: int, answered: bool) -> dict:
        evidence = [0.5, 0.9 if answered else 0.1, *[(n % 7) / 7] * 8]
        return {"set": "prompts", "use": "hook", "mode": "hybrid", "id": f"q{n}", "category": "prompt",
                "nothing": not answered, "features": [f"f{i}" for i in range(10)], "evidence": evidence,
                "hits": [{"rank": 1, "right": answered, "strength": 0.5, "session": "s", "lists": ["lexical"],
                          "match": "words"}]}
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(json.dumps(row(n, n % 2 == 0)) + "\n" for n in range(40)))
    one = {"weights": [1.0] * 10, "bias": 0.0, "point": 0.5}
    fits = tmp_path / "relevance.json"
    fits.write_text(json.dumps({"features": [f"f{i}" for i in range(10)], "search": {"hybrid": one},
                                "hook": {"hybrid": one, "lexical": one}}))
    out = subprocess.run([sys.executable, str(BENCH.parent / "relevance.py"), "fit", str(dump), "--use", "hook",
                          "--features", "f1", "--into", str(fits)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    model = json.loads(fits.read_text())
    weights = model["hook"]["hybrid"]["weights"]
    assert weights[1] > 0 and weights[:1] + weights[2:] == [0.0] * 9, "only the feature named"
    assert model["search"] == {"hybrid": one}
    assert model["hook"]["lexical"] == one, "a mode the dumps do not hold keeps its fit"


def test_the_benchmark_homes_name_the_mirrors_they_lack_and_build_nothing(tmp_path):
    out = subprocess.run([sys.executable, str(BENCH.parent / "homes.py"), "agent", "c3", "--mirrors",
                          str(tmp_path / "mirrors"), "--root", str(tmp_path / "bench")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert "agent: fetch github:aorwall/moatless-tools" in out.stderr
    assert "c3: fetch github:nus-apr/auto-code-rover" in out.stderr
    assert not (tmp_path / "bench").exists()
