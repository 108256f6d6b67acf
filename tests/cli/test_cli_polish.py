"""Small promises of the CLI and its agent-facing surfaces: every filter reaches every path, no
store bookkeeping in JSON, and backscroll's own value options do not hide an echo."""

import json

import pytest
from helpers import cli_env
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest import echo


def test_a_search_behind_a_global_value_option_is_an_echo():
    for command in ("backscroll --color never search job queue", "backscroll --home /tmp/x search job queue",
                    "backscroll search job queue --color=never"):
        assert echo.is_query_echo(command), command
    assert not echo.is_query_echo("backscroll --color never status")


def test_show_json_has_no_title_rank(session_builder, backscroll_index, backscroll_home):
    s = session_builder.claude(project="shop")
    s.user("which queue for background jobs?").assistant("Postgres with SKIP LOCKED.")
    s.summary("Job queue choice")
    backscroll_index(embed=False)
    r = CliRunner().invoke(app, ["show", s.session_id, "--json", "--no-sync"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    session = json.loads(r.stdout)["session"]
    assert session["title"] == "Job queue choice" and "title_rank" not in session


def test_mcp_search_takes_the_author_filter(session_builder, backscroll_index, backscroll_home):
    from backscroll.integrations.mcp_tools import Tools

    s = session_builder.claude(project="shop")
    s.user("should the retry budget be three attempts?")
    s.assistant("the retry budget stays at three attempts with jitter")
    backscroll_index(embed=False)
    args = {"query": "retry budget", "mode": "lexical", "author": "human", "strict": True}
    got = Tools(str(backscroll_home.data)).call("search", args).document
    assert got["filters"]["author"] == "human"
    assert [h["role"] for h in got["results"]] == ["user"]


def test_status_folds_agents_absent_from_their_default_places_into_one_line(session_builder, backscroll_index):
    session_builder.claude(project="shop").user("hello there")
    backscroll_index(embed=False)
    out = CliRunner().invoke(app, ["status"], catch_exceptions=False).stdout
    absent = [line for line in out.splitlines() if line.strip().startswith("not found in their default places")]
    assert len(absent) == 1 and "gemini" in absent[0] and "openhands" in absent[0] and "claude" not in absent[0]
    assert "(not found)" not in out
    assert ".claude/projects" in out, "a root that exists is listed with its path"


def test_backscroll_mcp_calls_are_echoes_however_the_agent_names_them():
    for name in ("mcp__backscroll__search", "mcp__plugin_backscroll_backscroll__show", "backscroll__search",
                 "mcp_backscroll_search", "backscroll.search", "mcp:backscroll/search", "mcp:backscroll/list_sessions"):
        assert echo.is_mcp_echo(name), name
    for name in ("mcp:github/search", "github.search", "backscroll.status", "mcp:backscroll/status", "Bash"):
        assert not echo.is_mcp_echo(name), name


def test_reflow_joins_prose_lines_and_keeps_indented_blocks():
    from backscroll.cli.app import reflow

    doc = """First line.

    A paragraph written over
    two lines.

    The format:
      key = 1
      other = 2
    """
    assert reflow(doc) == "First line.\n\nA paragraph written over two lines.\n\nThe format:\n  key = 1\n  other = 2"


def test_command_help_wraps_prose_to_the_terminal_not_to_the_source():
    r = CliRunner().invoke(app, ["index", "--help"], env={"COLUMNS": "200"}, terminal_width=200)
    assert r.exit_code == 0
    assert "grown files are read from where the last run stopped, and re-running never duplicates" in r.stdout


def test_status_of_an_empty_store_says_where_to_look_instead_of_an_empty_table(backscroll_home):
    runner = CliRunner()
    runner.invoke(app, ["index"], catch_exceptions=False)
    out = runner.invoke(app, ["status"], catch_exceptions=False).stdout
    assert "no session files found yet" in out and "by kind" not in out


def test_a_query_that_starts_with_a_dash_is_taught_and_suggested():
    """`search --skip-checks base_stealth_options` was an unknown option with no way out named."""
    import subprocess
    import sys

    from backscroll.integrations import install

    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "--skip-checks", "base_stealth_options"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "backscroll search -- --skip-checks base_stealth_options" in r.stderr, r.stderr
    j = subprocess.run([sys.executable, "-m", "backscroll", "search", "--json", "--skip-checks", "x"],
                       capture_output=True, text=True, timeout=60)
    assert "put -- before them" in j.stderr
    help_text = subprocess.run([sys.executable, "-m", "backscroll", "search", "--help"], capture_output=True,
                               text=True, timeout=60, env={"COLUMNS": "200", "PATH": ""}).stdout
    assert "-- --skip-checks" in help_text
    assert "-- --skip-checks" in install.skill_text() and "-- --skip-checks" in install.instructions_block()


def test_search_help_fits_a_screen_in_groups():
    """`search --help` was 113 lines at 80 columns; the reference is the README's."""
    import subprocess
    import sys

    env = {"COLUMNS": "80", "PATH": ""}
    out = subprocess.run([sys.executable, "-m", "backscroll", "search", "--help"], capture_output=True, text=True,
                         timeout=60, env=env).stdout
    assert len(out.splitlines()) <= 70, len(out.splitlines())
    for group in ("Filters", "Hints", "Output"):
        assert f"─ {group}" in out, group
    assert "README" in out


def test_status_says_how_many_skipped_lines_it_did_not_list(session_builder, backscroll_home):
    import subprocess
    import sys


    s = session_builder.claude(project="shop")
    s.user("a real question").assistant("a real answer")
    with open(s.path, "a") as fh:
        fh.write("not json\n" * 8)
    env = cli_env(backscroll_home, NO_COLOR="1")
    subprocess.run([sys.executable, "-m", "backscroll", "index", "--no-embed"], env=env, capture_output=True,
                   timeout=120)
    out = subprocess.run([sys.executable, "-m", "backscroll", "status"], env=env, capture_output=True, text=True,
                         timeout=120).stdout
    assert "8 lines skipped" in out and "and 3 more: `backscroll status --skipped` names them" in out, out
    every = subprocess.run([sys.executable, "-m", "backscroll", "status", "--skipped"], env=env, capture_output=True,
                           text=True, timeout=120).stdout
    assert every.count(": malformed JSON") == 8 and "more" not in every.split("skipped")[-1], every
    doc = subprocess.run([sys.executable, "-m", "backscroll", "status", "--skipped", "--json"], env=env,
                         capture_output=True, text=True, timeout=120).stdout
    assert len(json.loads(doc)["skipped_examples"]) == 8


def test_every_text_an_agent_reads_says_which_filters_are_hints():
    from backscroll.integrations import install
    from backscroll.integrations.mcp_tools import INSTRUCTIONS

    for text in (install.skill_text(), install.instructions_block(), INSTRUCTIONS):
        flat = " ".join(text.replace("**", "").split())
        assert "Filters are hints" not in flat and "are hints" in flat, flat
        assert "--project" in flat or "project" in flat
        hints = flat[:flat.index("are hints")]
        assert "project" not in hints.rsplit(".", 1)[-1], "project is a filter, not a hint"


def test_the_dash_hint_keeps_the_options_and_stays_out_of_a_misspelt_option():
    from types import SimpleNamespace

    from backscroll.cli import dash_hint

    typo = SimpleNamespace(message="No such option: --sinse", possibilities=["--ids", "--json", "--since"])
    assert dash_hint(["search", "--no-sync", "blueprint", "--sinse", "2w"], typo) is None, "Click names --since"
    word = SimpleNamespace(message="No such option: -V", possibilities=[])
    hint = dash_hint(["search", "--no-sync", "-V", "job"], word)
    assert hint is not None and hint.endswith("backscroll search --no-sync -- -V job")
    later = dash_hint(["search", "foo", "--bogus", "--json", "--since", "2w", "-n=3", "bar"],
                      SimpleNamespace(message="No such option: --bogus", possibilities=[]))
    assert later is not None and later.endswith("backscroll search foo --json --since 2w -n=3 -- --bogus bar"), \
        "options written after the word stay options"
    quoted = dash_hint(["search", "why", "--bogus", "it's", "broken;", "rm"],
                       SimpleNamespace(message="No such option: --bogus", possibilities=[]))
    assert quoted is not None and quoted.endswith("""backscroll search why -- --bogus 'it'"'"'s' 'broken;' rm""")
    joined = SimpleNamespace(message="No such option: -x", possibilities=[])
    assert dash_hint(["search", "--no-sync", "-xV", "job"], joined) is None, "no sure place for the --"


@pytest.mark.parametrize("flags", [["--json", "--format", "tsv"], ["--ids", "--json"], ["--ids", "--format", "tsv"]])
def test_output_flags_that_ask_for_different_outputs_are_a_usage_error(flags):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "--no-sync", "job", *flags],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "ask for different outputs" in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["show", "abcdef1", "--format", "markdown", "--json"],
                                  ["show", "abcdef1", "--path", "--json"],
                                  ["show", "abcdef1", "--path", "--format", "markdown"],
                                  ["list", "--member", "bob"]])
def test_options_that_cannot_go_together_are_refused_not_ignored(args, backscroll_home):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    r = CliRunner().invoke(app, ["--home", str(backscroll_home.data), *args, "--no-sync"])
    assert r.exit_code == 2 and ("ask for different outputs" in r.output or "team archive" in r.output), r.output


def test_a_search_that_catches_up_on_many_files_says_so_and_a_few_new_lines_stay_silent(session_builder,
                                                                                         backscroll_index,
                                                                                         monkeypatch):
    from backscroll.cli import search as search_cli

    session_builder.claude(project="calm").user("the ledger reconciliation")
    backscroll_index(embed=False)  # a store exists: no first-search note
    session_builder.claude(project="calm").user("the ledger audit")
    quiet = CliRunner().invoke(app, ["search", "ledger", "--mode", "lexical"])
    assert quiet.exit_code == 0 and "first" not in quiet.stderr, quiet.stderr
    monkeypatch.setattr(search_cli, "LONG_FILES", 2)  # (200 files, as after a first index cut short)
    monkeypatch.setattr(search_cli, "LONG_WORDS", 2)
    for n in range(2):
        session_builder.claude(project="calm").user(f"the ledger export {n}")
    said = CliRunner().invoke(app, ["search", "ledger", "--mode", "lexical"])
    assert "reading 2 new or changed session files first" in said.stderr, said.stderr
    assert "making 2 records searchable by words first" in said.stderr


def test_output_options_that_shape_only_json_say_so_in_human_output(session_builder, backscroll_index):
    session_builder.claude(project="calm").user("the ledger reconciliation")
    backscroll_index(embed=False)
    r = CliRunner().invoke(app, ["search", "ledger", "--fields", "record_id", "--mode", "lexical", "--no-sync"])
    assert r.exit_code == 0 and "note: --fields shapes JSON and JSONL output" in r.stderr, r.stderr
    r = CliRunner().invoke(app, ["search", "ledger", "--fields", "record_id", "--json", "--mode", "lexical",
                                 "--no-sync"])
    assert "note: --fields" not in r.stderr
    r = CliRunner().invoke(app, ["search", "ledger", "-f", "ids", "--fields", "nosuch", "--mode", "lexical",
                                 "--no-sync"])
    assert r.exit_code == 0 and "--format ids ignores it" in r.stderr and "unknown field" not in r.stderr, r.stderr
    r = CliRunner().invoke(app, ["search", "ledger", "--json", "--fields", "nosuch", "--mode", "lexical", "--no-sync"])
    assert r.exit_code == 2 and "unknown field(s) for --fields: nosuch" in r.stdout + r.stderr


@pytest.mark.parametrize(("word", "meant"), [("sessions", "backscroll list"), ("export", "--format markdown"),
                                             ("sync", "backscroll index")])
def test_a_command_another_tool_names_so_points_to_backscroll_s(backscroll_home, word, meant):
    from helpers import run_cli

    r = run_cli(backscroll_home, word)
    assert r.returncode == 2 and f"No such command '{word}'" in r.stderr and meant in r.stderr, r.stderr
    assert "hint:" not in run_cli(backscroll_home, "frobnicate").stderr


def test_a_closed_vocabulary_s_value_in_another_case_is_read_as_written():
    from backscroll.errors import UsageError
    from backscroll.request import SearchRequest
    from backscroll.retrieval.searching import check

    req = SearchRequest(query="retry", agent="Claude", role="USER", content_type="Tool", mode="Lexical")
    assert (req.agent, req.role, req.content_type, req.mode) == ("claude", "user", "tool", "lexical")
    with pytest.raises(UsageError, match="unknown agent 'Claud'"):
        check(SearchRequest(query="retry", agent="Claud"))


def test_a_reader_that_stops_early_is_no_error_for_help_or_a_command(session_builder, backscroll_index,
                                                                      backscroll_home):
    """`backscroll --help | head` exited 1: Typer's help console is rich's, which ends so on a closed pipe."""
    import os
    import subprocess
    import sys


    session_builder.claude(project="shop").user("which queue for background jobs?").assistant("Postgres.")
    backscroll_index(embed=False)
    for args in (["--help"], ["search", "--help"], ["list", "-h"], ["list", "--no-sync"]):
        read_end, write_end = os.pipe()
        os.close(read_end)  # (the reader is gone before the first byte)
        with os.fdopen(write_end, "wb") as stdout:
            done = subprocess.run([sys.executable, "-m", "backscroll", *args], stdout=stdout, stderr=subprocess.PIPE,
                                  env=cli_env(backscroll_home), timeout=120)
        assert done.returncode == 0 and not done.stderr, (args, done.returncode, done.stderr[-300:])


def test_a_terminal_that_is_not_utf8_gets_question_marks_not_a_crash(session_builder, backscroll_index,
                                                                     backscroll_home):
    """On a latin-1 or ASCII locale every human command (and most --help) ended in a UnicodeEncodeError."""
    from helpers import run_cli

    s = session_builder.claude(project="shop")
    s.user("la file d'attente → Postgres, décidé ✓").assistant("队列: Postgres with SKIP LOCKED…")
    backscroll_index(embed=False)
    for encoding in ("ascii", "latin-1"):
        env = {**cli_env(backscroll_home), "PYTHONIOENCODING": encoding}
        for args in (["--help"], ["search", "--help"], ["list"], ["search", "attente", "Postgres"], ["stats"],
                     ["status"], ["show", s.session_id]):
            done = run_cli(backscroll_home, *args, env=env, errors="replace")  # (latin-1 bytes)
            assert done.returncode == 0 and "Error" not in done.stderr, (encoding, args, done.stderr[-300:])
        assert "Postgres" in run_cli(backscroll_home, "list", env=env, errors="replace").stdout
    from helpers import run_tty  # (a terminal, and a session longer than its screen: the pager gets it)

    status, out = run_tty(backscroll_home, "show", s.session_id, lines=4,
                          env={**cli_env(backscroll_home), "PYTHONIOENCODING": "latin-1"})
    assert status == 0 and "attente ? Postgres" in out and "→" not in out, out[-500:]


def test_a_closed_or_full_output_is_said_plainly(session_builder, backscroll_index, backscroll_home):
    """`>&-` gave "internal error: AttributeError" (or a success that printed nothing), `2>&-` a status of 1 after
    the answer, and `--help > /dev/full` a traceback."""
    import os
    import subprocess
    import sys

    session_builder.claude(project="shop").user("which queue for background jobs?").assistant("Postgres.")
    backscroll_index(embed=False)
    env = cli_env(backscroll_home)

    def run(args, **kw):
        return subprocess.run([sys.executable, "-m", "backscroll", *args], env=env, timeout=120, **kw)

    for args in (["search", "queue"], ["list"], ["search", "queue", "--json"]):
        done = run(args, stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1))
        assert done.returncode == 1 and done.stderr == ("backscroll: standard output is closed (>&-): there is "
                                                        "nowhere to print the answer\n"), (args, done.stderr[-300:])
    done = run(["search", "queue"], stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(2))
    assert done.returncode == 0 and "which queue for background jobs" in done.stdout
    if os.path.exists("/dev/full"):
        for args in (["--help"], ["-V"], ["completion", "bash"]):
            with open("/dev/full", "w") as full:
                done = run(args, stdout=full, stderr=subprocess.PIPE, text=True)
            assert done.returncode == 1, (args, done.stderr[-300:])
            assert done.stderr == "backscroll: cannot write the output: No space left on device\n", done.stderr[-300:]


def test_a_tables_row_piped_is_one_line(session_builder, backscroll_index, backscroll_home):
    """`status | grep tool_output` found a line without its agent: a piped table wrapped its cells at 80 columns."""
    from helpers import run_cli

    s = session_builder.claude(project="shop")
    s.user("which queue?").assistant("Postgres.", thinking="they run Postgres already")
    s.tool("pytest -q", "5 passed")
    backscroll_index(embed=False)
    out = run_cli(backscroll_home, "status", env={**cli_env(backscroll_home), "COLUMNS": "80"}).stdout
    row = next(line for line in out.splitlines() if "tool_output=" in line)
    assert row.startswith("claude") and "user=" in row and len(row) > 80, out


@pytest.mark.parametrize("argv", [["--color", "never", "--help"], ["--color", "never", "search", "--help"],
                                  ["search", "--help", "--color", "never"]])
def test_color_never_leaves_help_plain_where_colour_was_forced(argv, backscroll_home):
    import subprocess
    import sys

    env = cli_env(backscroll_home, FORCE_COLOR="1", COLUMNS="100")
    env.pop("NO_COLOR", None)
    coloured = subprocess.run([sys.executable, "-m", "backscroll", *[a for a in argv if a not in ("--color", "never")]],
                              env=env, capture_output=True, text=True, timeout=60)
    assert "\x1b[" in coloured.stdout + coloured.stderr, "FORCE_COLOR styles typer's output"
    plain = subprocess.run([sys.executable, "-m", "backscroll", *argv], env=env, capture_output=True, text=True,
                           timeout=60)
    assert "Usage:" in plain.stdout + plain.stderr and "\x1b[" not in plain.stdout + plain.stderr, plain


def test_color_never_in_one_run_leaves_the_next_run_of_the_process_as_it_asks(backscroll_home):
    from typer import rich_utils

    CliRunner().invoke(app, ["--color", "never", "search", "--help"])
    assert rich_utils.COLOR_SYSTEM is None
    CliRunner().invoke(app, ["--color", "auto", "search", "--help"])
    assert rich_utils.COLOR_SYSTEM == "auto", "a later run of the same process is not left without colour"
    CliRunner().invoke(app, ["search", "--help"])
    assert rich_utils.COLOR_SYSTEM == "auto"


def test_status_counts_one_session_in_the_singular(session_builder, backscroll_index):
    session_builder.claude().user("which queue for the jobs?")
    backscroll_index(embed=False)
    out = CliRunner().invoke(app, ["status"], catch_exceptions=False).stdout
    assert out.startswith("1 session, 1 record (0 query echoes)\n"), out
    assert "lexical index: 1 document, in step" in out, out
