"""The pytest plugin as a downstream project uses it, and `backscroll eval`."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from helpers import run_cli
from typer.testing import CliRunner

from backscroll.cli.app import app

DOWNSTREAM_TEST = '''
def test_our_agent_remembers_the_queue_decision(session_builder, backscroll_index, assert_recalled):
    first = session_builder.claude(project="shop")
    first.user("Which queue should the background jobs use?")
    first.assistant("Postgres with SKIP LOCKED: we already run Postgres and enqueue inside the order transaction.")
    later = session_builder.codex(project="shop")
    later.search_echo("queue decision", "Postgres with SKIP LOCKED: we already run Postgres ...")
    backscroll_index()
    hit = assert_recalled("which queue for background jobs", "SKIP LOCKED", k=3)
    assert not hit.is_echo and hit.agent == "claude"


def test_the_failure_message_shows_the_top_k(session_builder, assert_recalled):
    session_builder.claude().user("nothing about queues here")
    try:
        assert_recalled("zeppelin", "airship", k=2)
    except AssertionError as exc:
        assert "not in the top 2" in str(exc)
    else:
        raise AssertionError("a miss must fail")


def test_the_home_is_isolated(backscroll_home):
    import os
    assert os.environ["HOME"] == str(backscroll_home.home)
    assert not backscroll_home.data.exists() or not any(backscroll_home.data.iterdir())
'''


@pytest.mark.slow  # a whole pytest run in a temporary project, with the real model
def test_a_downstream_project_uses_the_fixtures(tmp_path):
    project = tmp_path / "downstream"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_memory.py").write_text(textwrap.dedent(DOWNSTREAM_TEST))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BACKSCROLL", "PYTEST", "PYTHONPATH"))}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                         cwd=project, capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout


def write_queries(tmp_path, corpus_root, queries):
    lines = ['[corpus]', f'sources = ["claude:{corpus_root}/.claude/projects", "codex:{corpus_root}/.codex/sessions"]']
    for q in queries:
        lines.append("[[query]]")
        lines.extend(f"{k} = {json.dumps(v)}" for k, v in q.items())
    path = tmp_path / "queries.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_eval_reports_recall_and_fails_below_the_threshold(session_builder, backscroll_home, tmp_path):
    s = session_builder.claude(project="shop")
    s.user("which date library?")
    s.assistant("we chose pendulum over arrow for DST handling")
    s.tool("pytest -q", "E   ZeroDivisionError: division by zero in tax_rate()")
    later = session_builder.claude(project="shop")
    for _ in range(3):
        later.search_echo("date library", "we chose pendulum over arrow for DST handling")
    path = write_queries(tmp_path, backscroll_home.home, [
        {"text": "date library pendulum", "expected": "pendulum over arrow", "category": "lexical"},
        {"text": "ZeroDivisionError tax_rate", "expected": "division by zero", "category": "tool-output",
         "content_type": "tool"},
        {"text": "kubernetes ingress timeout", "expected": "nginx ingress", "category": "lexical"},
    ])
    # (in a child process: nothing another test left in this process's CLI state can reach it)
    r = run_cli(backscroll_home, "eval", path, "--json", "--mode", "lexical", "--min-recall", "0.9")
    assert r.stdout, r.stderr
    report = json.loads(r.stdout)
    assert report["overall"]["queries"] == 3 and report["overall"]["found"] == 2
    assert report["categories"]["tool-output"]["recall"] == 1.0
    assert report["overall"]["echo_leaks"] == 0
    assert [m["text"] for m in report["misses"]] == ["kubernetes ingress timeout"]
    assert r.returncode == 1 and "eval failed" in r.stderr
    ok = run_cli(backscroll_home, "eval", path, "--mode", "lexical", "--min-recall", "0.6")
    assert ok.returncode == 0 and "overall" in ok.stdout and "misses" in ok.stdout, (ok.stdout, ok.stderr)


def test_eval_rejects_a_malformed_query_file(tmp_path):
    bad = tmp_path / "q.toml"
    bad.write_text("[[query]]\ntext = 'x'\n")
    r = CliRunner().invoke(app, ["eval", str(bad)])
    assert r.exit_code == 2 and "needs text and expected" in r.stderr
    bad.write_text("[[query]]\ntext = 'x'\nexpectd = 'y'\n")
    r = CliRunner().invoke(app, ["eval", str(bad)])
    assert r.exit_code == 2 and "unknown keys ['expectd']" in r.stderr and "known keys: " in r.stderr
    bad.write_text("[[query]]\ntext = 'x'\nexpected = 'y'\nnothing = true\n")
    r = CliRunner().invoke(app, ["eval", str(bad)])
    assert r.exit_code == 2 and "says nothing answers it and names an answer too" in r.stderr, r.stderr
    bad.write_text("[corpus]\nsources = ['claude:nowhere/projects']\n[[query]]\ntext = 'x'\nexpected = 'y'\n")
    r = CliRunner().invoke(app, ["eval", str(bad)])
    assert r.exit_code == 2 and f"no corpus source exists: claude:{tmp_path / 'nowhere' / 'projects'}" in r.stderr
    assert "query file's folder" in r.stderr


def test_eval_queries_may_filter_by_author(session_builder, backscroll_home, tmp_path):
    s = session_builder.claude(project="shop")
    s.user("should the retry budget be three attempts?")
    s.assistant("three attempts with jitter keeps the retry budget small")
    path = write_queries(tmp_path, backscroll_home.home, [
        {"text": "retry budget", "expected": "should the retry budget", "author": "human", "category": "author"},
    ])
    r = CliRunner().invoke(app, ["eval", str(path), "--json", "--mode", "lexical", "--min-recall", "1.0"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["overall"]["found"] == 1 and report["categories"]["author"]["hit1"] == 1.0


def test_eval_says_where_the_fused_ranking_is_behind_a_list_it_fuses():
    from backscroll.eval_file import EvalQuery
    from backscroll.evaluate import EvalReport, QueryOutcome, behind

    def report(mode, ranks):
        qs = [EvalQuery("q", "x", category=c) for c in ("a", "a", "b")]
        return EvalReport(5, mode, [QueryOutcome(q, r, [], 0) for q, r in zip(qs, ranks, strict=True)])

    hybrid = report(None, [1, 2, 1])
    lexical = report("lexical", [1, 1, None])  # better on "a"
    semantic = report("semantic", [2, 2, 1])
    assert behind(hybrid, [lexical, semantic]) == {"a": ["lexical"]}
    assert behind(hybrid, [semantic]) == {}


def test_eval_measures_finding_and_judging_apart_and_gates_the_share_kept():
    from backscroll.eval_file import EvalQuery, Gate
    from backscroll.evaluate import EvalReport, QueryOutcome

    qs = [EvalQuery("q", "x", category=c) for c in ("a", "a", "a", "b")]
    outcomes = [QueryOutcome(qs[0], 1, [], 0), QueryOutcome(qs[1], 2, [], 0, kept=False),
                QueryOutcome(qs[2], None, [], 0), QueryOutcome(qs[3], 1, [], 0, kept=False)]
    report = EvalReport(5, None, outcomes, Gate(floors={"overall": {"kept": 0.6}, "a": {"recall": 0.6}}))
    a = report.by_category()["a"]
    assert (a["found"], a["weak_only"], a["kept"]) == (2, 1, 0.5), "held back is found, but not kept"
    assert report.overall["kept"] == round(1 / 3, 4)
    assert report.gate_failures() == ["overall: kept 0.33 < floor 0.60 - slack 0.00"]


def test_eval_pairs_the_modes_query_by_query_with_a_sign_test():
    from backscroll.eval_file import EvalQuery
    from backscroll.evaluate import EvalReport, Paired, QueryOutcome, paired

    def report(mode, ranks):
        qs = [EvalQuery("q", "x", category=c) for c in ("a", "a", "a", "b")]
        return EvalReport(5, mode, [QueryOutcome(q, r, [], 0) for q, r in zip(qs, ranks, strict=True)])

    pairs = paired(report(None, [1, 2, None, 1]), report("semantic", [2, 1, 1, 1]))
    assert (pairs["a"].won, pairs["a"].lost) == (1, 2), "only hybrid first once, only semantic first twice"
    assert (pairs["b"].won, pairs["b"].lost) == (0, 0) and pairs["b"].p == 1.0, "both first: a tie"
    assert (pairs["overall"].won, pairs["overall"].lost) == (1, 2)
    assert Paired(0, 2).p == 0.5 and Paired(1, 2).p == 1.0
    assert round(Paired(0, 8).p, 4) == 0.0078 and Paired(10, 0).p < 0.01 and Paired(5, 5).p == 1.0


def test_eval_compare_reports_every_mode_and_the_pairs(session_builder, backscroll_home, tmp_path):
    s = session_builder.claude(project="shop")
    s.user("which date library?")
    s.assistant("we chose pendulum over arrow for DST handling")
    s.tool("pytest -q", "E   ZeroDivisionError: division by zero in tax_rate()")
    path = write_queries(tmp_path, backscroll_home.home, [
        {"text": "date library pendulum", "expected": "pendulum over arrow", "category": "lexical"},
        {"text": "ZeroDivisionError tax_rate", "expected": "division by zero", "category": "tool-output"},
    ])
    r = CliRunner().invoke(app, ["eval", str(path), "--compare", "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert set(report["compare"]) == {"lexical", "semantic"}
    tool_pair = report["paired"]["semantic"]["tool-output"]
    assert report["compare"]["semantic"]["categories"]["tool-output"]["hit1"] == 0.0, "tool rows have no vectors"
    assert tool_pair == {"won": 1, "lost": 0, "p": 1.0}, "only hybrid ranks the tool output first"
    assert report["behind"] == {}
    text = CliRunner().invoke(app, ["eval", str(path), "--compare"])
    assert text.exit_code == 0 and "hit@1 side by side" in text.stdout
    lexical = json.loads(CliRunner().invoke(app, ["eval", str(path), "--compare", "--mode", "lexical",
                                                  "--json"]).stdout)
    assert lexical["mode"] == "lexical" and set(lexical["compare"]) == {"semantic"}, "each mode once"


def test_eval_shows_its_progress_on_a_terminal(session_builder, backscroll_home, tmp_path, monkeypatch):
    """A CI's 2,000 queries ran with no sign of life."""
    session_builder.claude(project="shop").user("which date library?").assistant("we chose pendulum over arrow")
    path = write_queries(tmp_path, backscroll_home.home, [{"text": "date library", "expected": "pendulum"}])
    monkeypatch.setenv("BACKSCROLL_PROGRESS", "1")
    r = CliRunner().invoke(app, ["eval", str(path), "--compare"])
    assert r.exit_code == 0 and "asking queries" in r.stderr and "3/3" in r.stderr, r.stderr
