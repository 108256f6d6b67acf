"""The command line through Typer's runner: stdout carries only data, hints and errors go to stderr."""


import json
import os

import pytest
from helpers import TESTS
from typer.testing import CliRunner

from backscroll.cli.app import app

GOLDEN = TESTS / "golden"
HIT_FIELDS = ["rank", "score", "record_id", "session_id", "agent", "project", "cwd", "role", "content_type",
              "tool_name", "is_echo", "timestamp", "source_path", "line", "text", "text_truncated", "snippet",
              "matched_by"]


@pytest.fixture
def cli(backscroll_home):
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


@pytest.fixture
def corpus(session_builder):
    a = session_builder.claude(project="shop", session_id="5b0e7a52-0000-4000-8000-000000000001")
    a.user("Which queue should the background jobs use?")
    a.assistant("Postgres with SKIP LOCKED; we already run Postgres and enqueue with the order insert.")
    b = session_builder.claude(project="shop", session_id="5b0e7a52-0000-4000-8000-000000000002")
    b.user("what did we decide about the job queue?")
    b.search_echo("job queue", "Postgres with SKIP LOCKED; we already run Postgres and enqueue with the order insert.")
    c = session_builder.codex(project="payments", session_id="0199f0c1-0000-7000-8000-000000000003")
    c.tool("pytest -q", "E   psycopg.errors.UniqueViolation: duplicate key value violates unique constraint",
           is_error=True)
    return a


def test_index_json_summary_and_status(cli, corpus):
    r = cli("index", "--json")
    assert r.exit_code == 0
    summary = json.loads(r.stdout)
    assert summary["records_added"] == 7 and summary["files_changed"] == 3 and summary["lines_skipped"] == 0
    r = cli("status", "--json")
    info = json.loads(r.stdout)
    assert info["sessions"] == 3 and info["records"] == 7 and info["echoes"] == 2
    assert info["agents"]["claude"]["sessions"] == 2 and info["agents"]["codex"]["records"] == 2
    from backscroll.ingest.sources import AGENTS

    # aider: configured roots only
    assert {root["agent"]: root["from"] for root in info["roots"]} == {
        name: "default" for name in AGENTS if name != "aider"}
    assert info["paths"]["home"]["from"] == "env $BACKSCROLL_HOME"


def test_index_human_output_goes_to_stderr(cli, corpus):
    r = cli("index")
    assert r.exit_code == 0 and r.stdout == ""
    assert "7 new records" in r.stderr


def test_search_json_is_pure_data_with_every_field(cli, corpus):
    cli("index")
    r = cli("search", "job", "queue", "--json", "--mode", "lexical")
    assert r.exit_code == 0
    data = json.loads(r.stdout)  # stdout parses as one JSON document: nothing else is printed there
    assert list(data) == ["schema_version", "query", "mode", "filters", "results", "also_matching", "weak_matches",
                          "sessions", "dropped_filters", "repeated", "notes", "echoes_hidden", "has_more",
                          "omitted_for_budget"]
    assert data["schema_version"] == 1 and data["query"] == "job queue" and data["mode"] == "lexical"
    assert data["also_matching"] == [] and data["dropped_filters"] == [] and data["repeated"] is None
    for hit in data["results"]:
        assert list(hit)[: len(HIT_FIELDS)] == HIT_FIELDS
        assert hit["is_echo"] is False
    assert "query echo" in r.stderr


SCORE = "<score>"  # the golden file pins the order and the contract (keys, types, nulls), not the floats


def _unscored(data: dict) -> dict:
    """The document with each hit's score checked (a number, best first) and replaced by a placeholder."""
    for group in ("results", "also_matching"):
        scores = [hit["score"] for hit in data[group]]
        assert all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores), scores
        assert scores == sorted(scores, reverse=True), f"{group} not best first: {scores}"
        for hit in data[group]:
            hit["score"] = SCORE
    return data


def _shape(value):
    """The JSON types of a document, keys in order, recursively (a missing key is not a null one)."""
    if isinstance(value, dict):
        return ("object", [(k, _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return type(value).__name__


def test_search_json_golden(cli, corpus, backscroll_home):
    cli("index")
    r = cli("search", "Postgres", "queue", "--json", "--mode", "lexical", "--include-echoes")
    got = _unscored(json.loads(r.stdout.replace(str(backscroll_home.root), "[ROOT]")))
    golden = GOLDEN / "search_include_echoes.json"
    if os.environ.get("BACKSCROLL_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(got, indent=2, ensure_ascii=False) + "\n")
    want = json.loads(golden.read_text())
    assert [h["record_id"] for h in got["results"]] == [h["record_id"] for h in want["results"]], "order"
    assert _shape(got) == _shape(want), "keys, their order and their types"
    assert got == want


def test_human_search_output_is_plain_when_piped(cli, corpus):
    cli("index")
    r = cli("search", "SKIP", "LOCKED")
    assert r.exit_code == 0
    assert "\x1b[" not in r.stdout
    assert "backscroll show " in r.stdout and "SKIP LOCKED" in r.stdout
    assert "1 query echo hidden" in r.stderr and "--include-echoes" in r.stderr


def test_errors_are_messages_with_exit_codes(cli, corpus):
    r = cli("search", "anything")
    assert r.exit_code == 0  # the pre-search sync indexes the corpus first
    r = cli("search", "!!!")
    assert r.exit_code == 2 and "hint:" in r.stderr and r.stdout == ""
    r = cli("search", "!!!", "--json")
    err = json.loads(r.stderr)
    assert err["error"]["kind"] == "bad-query" and err["error"]["hint"]
    r = cli("search", "queue", "--role", "robot")
    assert r.exit_code == 2 and "unknown role" in r.stderr
    r = cli("search", "queue", "--since", "next blursday")
    assert r.exit_code == 2 and "cannot read the date" in r.stderr


def test_nothing_indexed_exit_code(cli):
    r = cli("search", "anything", "--no-sync")
    assert r.exit_code == 3 and "backscroll index" in r.stderr


def test_help_teaches(cli):
    r = cli("search", "--help")
    assert r.exit_code == 0
    for word in ("--content-type", "--include-echoes", "--since", "--json", "Examples"):
        assert word in r.stdout


def test_python_dash_m_runs_the_cli():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "backscroll", "--help"], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "100"})
    assert out.returncode == 0 and "search" in out.stdout


def test_option_errors_follow_the_json_error_contract(backscroll_home):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run([sys.executable, "-m", "backscroll", *args], capture_output=True, text=True)

    bad = run("search", "queue", "--limit", "0", "--json")
    assert bad.returncode == 2 and bad.stdout == ""
    assert json.loads(bad.stderr)["error"]["kind"] == "usage"
    plain = run("search", "queue", "--bogus")
    assert plain.returncode == 2 and "No such option" in plain.stderr
    dates = run("search", "queue", "--since", "2026-02-30", "--json")
    assert dates.returncode == 2 and "cannot read the date" in json.loads(dates.stderr)["error"]["message"]


def test_status_survives_markup_in_paths(backscroll_home, tmp_path):
    odd = tmp_path / "[/bold]proj"
    (odd / "-x").mkdir(parents=True)
    (odd / "-x" / "6c3f1b2a-0d4e-4f5a-9b8c-7d6e5f4a3b2c.jsonl").write_text("{broken\n")
    r = CliRunner().invoke(app, ["status", "--source", f"claude:{odd}"])
    assert r.exit_code == 0 and "[/bold]proj" in r.stdout


def test_missing_source_is_reported_and_single_files_are_read(cli, session_builder, backscroll_home, tmp_path):
    r = cli("index", "--source", str(tmp_path / "nowhere"))
    assert r.exit_code == 4 and "no such file or directory" in r.stderr
    s = session_builder.claude()
    s.user("a single file given as a source")
    elsewhere = tmp_path / s.path.name
    s.path.rename(elsewhere)
    r = cli("index", "--json", "--source", f"claude:{elsewhere}")
    assert r.exit_code == 0 and json.loads(r.stdout)["records_added"] == 1



def test_a_source_folder_says_which_of_its_session_files_were_not_read(cli, session_builder, tmp_path):
    """A session file renamed by hand is not taken for Claude Code's (a shared root holds other tools' JSONL), so
    ``index --source`` names what it left: a file the person gave it is never passed over in silence."""
    folder = tmp_path / "shared" / "proj"
    folder.mkdir(parents=True)
    for n, name in enumerate(("kept", "renamed")):
        s = session_builder.claude()
        s.user(f"session number {n}")
        s.path.rename(folder / (s.path.name if name == "kept" else "my session with spaces.jsonl"))
    (folder / "notes.txt").write_text("not a session")
    r = cli("index", "--source", f"claude:{tmp_path / 'shared'}")
    assert r.exit_code == 0, r.stderr
    assert "1 .jsonl file not read, named otherwise than claude names its session files (e.g. my session with " \
           "spaces.jsonl)" in r.stderr, r.stderr
    assert "notes.txt" not in r.stderr, "only files of the kind its sessions are"

def test_list_rejects_unknown_agents_and_a_corrupt_store_says_what_to_do(cli, corpus, backscroll_home):
    cli("index")
    r = cli("list", "--agent", "bogus")
    assert r.exit_code == 2 and "unknown agent" in r.stderr
    (backscroll_home.data / "backscroll.db").write_bytes(b"this is not a database" * 100)
    for name in ("backscroll.db-wal", "backscroll.db-shm"):
        (backscroll_home.data / name).unlink(missing_ok=True)
    r = cli("search", "queue", "--json")
    err = json.loads(r.stderr)["error"]
    assert r.exit_code == 1 and err["kind"] == "corrupt-store"
    assert ".recover" in err["hint"] and "move it aside" not in err["hint"]
