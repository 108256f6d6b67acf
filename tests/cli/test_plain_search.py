"""A plain ``backscroll search`` (the call an agent makes every turn) is read without Typer: the command gets exactly
what Typer would have given it, anything else still goes through Typer, and Typer is never imported for it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import cli_env

from backscroll import search_command
from backscroll.cli import hoist_globals, search_call

EVERY_OPTION = [
    "q", "--since", "2w", "--agent", "codex", "--role", "user", "--include-echoes", "--by-session", "--weak",
    "--strict", "--rerun", "--no-sync", "--format", "jsonl", "--fields", "a,b", "--max-bytes", "100", "--pretty",
    "--no-pager", "--offset", "10", "--max-chars", "0", "--max-tokens", "50", "-p", "proj", "--session", "abc123",
    "--file", "src/x.py", "--until", "today", "--author", "human", "-t", "text", "--member", "m", "--archive",
    "default", "--ids", "--json", "-n", "7", "--mode", "lexical", "--source", "claude:/a", "--source", "codex:/b",
    "more", "words",
]
PLAIN = [
    ["x"],
    ["what", "did", "we", "decide", "--json"],
    ["-n", "5", "flaky", "test", "-t", "tool"],
    ["--limit=3", "q", "--mode=semantic"],
    ["--", "--skip-checks", "-n", "x"],
    ["-", "q"],
    EVERY_OPTION,
]
NOT_PLAIN = [
    [], ["--json"], ["--help"], ["x", "-h"], ["x", "-n", "0"], ["x", "-n"], ["x", "--limit", "-5"],
    ["x", "-n", "5", "-n", "6"], ["x", "--bogus"], ["x", "--json=1"], ["x", "-n5"], ["x", "--limit", "５"],
    ["x", "--project", "--json"], ["x", "--limit", "1001"],
]


def typer_gives(args: list[str]) -> dict:
    """What Typer passes the command for ``backscroll search ARGS`` (its conversions: lists, not tuples)."""
    import typer

    from backscroll.cli.app import build

    command = typer.main.get_command(build("search")).commands["search"]  # type: ignore[attr-defined]
    params = command.make_context("search", list(args)).params
    multiple = {p.name for p in search_command.params() if p.multiple}
    return {k: (list(v) or None if k in multiple else list(v)) if isinstance(v, tuple) else v
            for k, v in params.items()}


def test_every_option_is_covered_here():
    used = {a.split("=")[0] for a in EVERY_OPTION if a.startswith("-")}
    assert all(set(p.flags) & used for p in search_command.params())


@pytest.mark.parametrize("args", PLAIN)
def test_a_plain_call_is_read_as_typer_reads_it(args):
    assert search_command.read(args) == typer_gives(args)


@pytest.mark.parametrize("args", NOT_PLAIN)
def test_anything_else_is_left_to_typer(args):
    assert search_command.read(args) is None


def test_global_options_around_a_plain_call():
    argv = hoist_globals(["--home", "/h", "search", "x", "--color", "never", "--pretty"])
    globals_, given = search_call(argv) or ({}, {})
    assert globals_ == {"home": "/h", "color": "never", "pretty": False, "no_pager": False}
    assert given["query"] == ["x"] and given["pretty"] is True  # search declares --pretty itself
    assert search_call(hoist_globals(["search", "x", "--color", "purple"])) is None
    assert search_call(["--version"]) is None and search_call(["status", "x"]) is None


def test_an_agents_search_never_imports_typer(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("why does the importer drop rows")
    s.assistant("the importer drops rows whose date column is empty")
    backscroll_index()
    code = ("import sys\nsys.argv = ['backscroll', 'search', 'importer', 'rows', '--json', '-n', '2']\n"
            "from backscroll.cli import main\ntry:\n    main()\nfinally:\n"
            "    print('LOADED', [m for m in ('typer', 'click') if m in sys.modules], file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], env=cli_env(backscroll_home), capture_output=True, text=True)
    assert r.returncode == 0 and "LOADED []" in r.stderr, r.stderr
    assert json.loads(r.stdout)["results"][0]["text"].startswith("the importer drops rows")
    bad = subprocess.run([sys.executable, "-m", "backscroll", "search", "x", "-n", "0", "--json"],
                         env=cli_env(backscroll_home), capture_output=True, text=True)
    assert bad.returncode == 2 and json.loads(bad.stderr)["error"]["kind"] == "usage"


def test_ctrl_c_before_a_plain_search_starts_is_an_abort_not_a_traceback(monkeypatch, capsys):
    from backscroll.cli import main
    from backscroll.cli import search as search_module

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(search_module, "run_plain", interrupted)
    monkeypatch.setattr(sys, "argv", ["backscroll", "search", "x", "--json"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 130 and capsys.readouterr().err == "aborted\n"


def test_the_repeat_rule_reads_a_plain_call_without_click_and_as_click_does():
    """An agent's search is matched against its own call in the session log (``search_command.parse``): a plain
    call is read without Click, to the same request."""
    code = ("import sys\nfrom backscroll.search_command import parse\n"
            "print(parse(['search', 'why', 'flaky', '-n', '3', '--json', '-t', 'tool']), 'click' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith("False"), r.stderr
    from backscroll.retrieval.policy.repeat import key_from_args, make_key

    plain = key_from_args(["search", "why", "flaky", "-n", "3", "--json", "-t", "tool"])
    by_click = key_from_args(["search", "why", "flaky", "-n", "3", "--json", "-t", "tool", "--home", "/h"])
    assert plain == by_click == (make_key("why flaky", limit=3, content_type="tool"), False)


def test_ctrl_c_while_the_command_line_loads_is_an_abort_not_a_traceback(monkeypatch, capsys):
    """Ctrl-C in the first half second (Typer and the command's modules importing) exits 130 with "aborted"."""
    from backscroll.cli import app as app_module
    from backscroll.cli import main

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(app_module, "build", interrupted)
    monkeypatch.setattr(sys, "argv", ["backscroll", "list"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 130 and capsys.readouterr().err == "aborted\n"


def test_a_search_of_the_team_archive_refuses_source_as_it_refuses_file(backscroll_home):
    """``--source`` names files to read on this machine: with ``--archive`` it would be ignored without a word."""
    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "x", "--archive", "postgresql://u@h/db",
                        "--source", "claude:/tmp", "--no-sync"], env=cli_env(backscroll_home), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and "--source names session files to read here" in r.stderr, r.stderr


def test_source_with_no_sync_says_that_nothing_is_read(backscroll_home):
    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "x", "--source", "claude:/nonexistent",
                        "--no-sync"], env=cli_env(backscroll_home), capture_output=True, text=True, timeout=60)
    assert "--no-sync reads none" in r.stderr and "Traceback" not in r.stderr, r.stderr
