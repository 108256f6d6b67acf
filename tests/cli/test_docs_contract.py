"""What the README promises, said where a user reads it: the defaults in --help, and messages that name the real
problem."""


import json

from typer.testing import CliRunner

from backscroll.cli.app import app


def cli(*args, **kw):
    return CliRunner().invoke(app, [str(a) for a in args], **kw)


def test_help_states_the_defaults_the_readme_documents(backscroll_home):
    search = cli("search", "--help", env={"COLUMNS": "200"}, terminal_width=200).stdout
    show = cli("show", "--help", env={"COLUMNS": "200"}, terminal_width=200).stdout
    assert "Both by default (hybrid)." in search
    assert "Records shown before and after a record (3)." in show


def test_status_json_has_store_error_null_when_the_store_reads(session_builder, backscroll_index):
    """README: absent values are null, never omitted; `store_error` was there only when the store failed."""
    session_builder.claude(project="shop").user("which queue for the background jobs?")
    backscroll_index(embed=False)
    doc = json.loads(cli("status", "--json").stdout)
    assert "store_error" in doc and doc["store_error"] is None and "integrations" in doc


def test_an_unknown_format_is_named_first_with_json_too(backscroll_home):
    r = cli("search", "go", "--format", "xml", "--json", "--no-sync")
    assert r.exit_code == 2
    error = json.loads(r.stderr.strip().splitlines()[-1])["error"]
    assert error["message"] == "unknown --format 'xml'" and "jsonl" in error["hint"]
    assert "different outputs" in cli("search", "go", "--format", "tsv", "--json", "--no-sync").stderr



def test_an_eval_miss_with_no_results_says_so(session_builder, backscroll_index, tmp_path):
    """It printed `ranked above:` with nothing under it."""
    session_builder.claude(project="shop").user("the cart endpoint is slow").assistant("prefetch the lines")
    backscroll_index(embed=False)
    (tmp_path / "q.toml").write_text('[[query]]\nid = "z-1"\ntext = "zanzibar"\nexpected = "zanzibar"\n'
                                     '[[query]]\nid = "c-1"\ntext = "cart endpoint"\nexpected = "no such answer"\n')
    out = cli("eval", str(tmp_path / "q.toml"), "--mode", "lexical", env={"COLUMNS": "200"}).stdout
    assert "z-1: 'zanzibar' — expected 'zanzibar'; nothing was returned" in out, out
    assert "c-1: 'cart endpoint' — expected 'no such answer'; ranked above:" in out, out
