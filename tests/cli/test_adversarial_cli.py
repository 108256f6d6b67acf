"""Adversarial input at the command line: huge queries, terminal escapes in session text, a full
disk, read-only and damaged stores, out-of-range counts, and repeated-search notes that must reach
only the agent session that repeated itself."""

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest
from helpers import cli_env, run_cli
from typer.testing import CliRunner

from backscroll.cli.app import app

SESSION = "5b0e7a52-1111-4222-8333-444455556666"
ESCAPES = ("\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J", "\x1b]0;pwned\x07", "\x9b31m")


def cli(*args):
    return CliRunner().invoke(app, list(args))


def error_of(stderr: str) -> dict:
    return json.loads(stderr.strip().splitlines()[-1])["error"]


@pytest.fixture
def hostile_session(session_builder):
    s = session_builder.claude(project="shop", session_id=SESSION)
    s.summary("deploy notes " + ESCAPES[2])
    s.user("how do we deploy the hello service? " + " ".join(ESCAPES))
    s.assistant("deploy hello with make release " + ESCAPES[0] + " then \x1b[31mcheck\x1b[0m")
    s.tool("cat deploy.log", "hello deployed " + ESCAPES[1])
    return s


# -- item 22: counts out of range are usage errors -------------------------------------------------

@pytest.mark.parametrize("args", [
    ["show", SESSION, "--limit", "99999999999999999999"],
    ["show", SESSION, "--offset", "99999999999999999999"],
    ["show", SESSION, "--context", "99999999999999999999"],
    ["show", SESSION, "--offset", "-1"],
    ["show", SESSION, "-C", "-5"],
    ["list", "--limit", "99999999999999999999"],
    ["list", "--offset", "99999999999999999999"],
    ["list", "--limit", "-3"],
])
def test_out_of_range_counts_are_usage_errors(hostile_session, backscroll_index, args):
    backscroll_index(embed=False)
    r = cli(*args)
    assert r.exit_code == 2, (r.exit_code, r.output)
    assert "internal error" not in r.output


def test_library_rejects_out_of_range_counts(hostile_session, backscroll_index, backscroll_home):
    import backscroll
    from backscroll.errors import UsageError

    backscroll_index(embed=False)
    cfg = backscroll_home.config()
    with pytest.raises(UsageError):
        backscroll.show(SESSION, config=cfg, limit=10**20, sync=True)
    with pytest.raises(UsageError):
        backscroll.show(SESSION, config=cfg, offset=-1, sync=True)
    with pytest.raises(UsageError):
        backscroll.show(SESSION, config=cfg, context=10**20, sync=True)
    with pytest.raises(UsageError):
        backscroll.sessions(offset=10**20, config=cfg, sync=True)


@pytest.mark.parametrize("args", [["search", b"deploy \xff hello", "--json"], ["show", b"\xff\xfe\xfd\xfc\xfb\xfa"],
                                  ["list", "--grep", b"\xff"], ["files", b"src/\xff.py"]])
def test_bytes_that_are_not_utf8_in_an_argument_are_no_internal_error(hostile_session, backscroll_index,
                                                                       backscroll_home, args):
    """A shell passes bytes: one that is not UTF-8 reaches Python as a lone surrogate, and is read as U+FFFD."""
    backscroll_index(embed=False)
    r = subprocess.run([sys.executable, "-m", "backscroll", *args], env=cli_env(backscroll_home),
                       capture_output=True, timeout=120)
    assert r.returncode in (0, 2), r.stderr  # (found, or no such id)
    assert b"internal error" not in r.stderr and b"Traceback" not in r.stderr


def test_the_library_reads_lone_surrogates_as_replacement_characters(hostile_session, backscroll_index,
                                                                     backscroll_home):
    import backscroll

    backscroll_index(embed=False)
    cfg = backscroll_home.config()
    assert backscroll.search("\ud800 deploy hello", config=cfg, mode="lexical").query == "\ufffd deploy hello"
    assert backscroll.sessions(grep="\udcff", config=cfg) == []
    assert backscroll.files("src/\udcff.py", config=cfg) == []


def test_the_librarys_search_refuses_an_unknown_option_and_a_bad_clock_as_usage(hostile_session, backscroll_index,
                                                                               backscroll_home):
    import backscroll
    from backscroll.errors import UsageError

    backscroll_index(embed=False)
    with pytest.raises(UsageError, match="no option 'bogus'"):
        backscroll.search("deploy", config=backscroll_home.config(), bogus=1)
    with pytest.raises(UsageError, match="now must be an ISO date"):
        backscroll.search("deploy", config=backscroll_home.config(), now="garbage")


@pytest.mark.parametrize("option", ["--project", "--since", "--until"])
def test_an_error_echoes_a_long_value_shortened(hostile_session, backscroll_index, option):
    backscroll_index(embed=False)
    r = cli("search", "deploy", option, "a" * 5000, "--no-sync")
    assert r.exit_code == 2 and len(r.output) < 1000 and "aaaa" in r.output, r.output[:300]


def test_an_id_longer_than_any_real_one_is_a_usage_error_everywhere(hostile_session, backscroll_index,
                                                                    backscroll_home):
    """A 60,000-character id made SQLite say "LIKE or GLOB pattern too complex": an internal error (#46)."""
    import backscroll
    from backscroll.errors import MAX_ID, NotFoundError, UsageError
    from backscroll.integrations.mcp_tools import Tools

    backscroll_index(embed=False)
    long_id = SESSION + "%_" * 30_000
    r = run_cli(backscroll_home, "show", long_id, "--json", "--no-sync")
    assert r.returncode == 2, r.stderr[-500:]
    error = error_of(r.stderr)
    assert error["kind"] == "usage" and f"{MAX_ID:,}" in error["message"] and error["hint"], error
    assert len(error["message"]) < 400, "the message does not echo the id"
    r = run_cli(backscroll_home, "search", "deploy", "--session", long_id, "--json", "--no-sync")
    assert r.returncode == 2 and error_of(r.stderr)["kind"] == "usage", r.stderr[-500:]
    with pytest.raises(UsageError, match=f"{MAX_ID:,}"):
        backscroll.show(long_id, config=backscroll_home.config())
    answer = Tools(str(backscroll_home.data)).call("show", {"id": long_id})
    assert answer.is_error and answer.document["error"]["kind"] == "usage", answer.document
    with pytest.raises(NotFoundError):  # an id at the bound is still looked for
        backscroll.show(SESSION + "x" * (MAX_ID - len(SESSION)), config=backscroll_home.config())


def test_a_file_or_words_too_long_to_look_for_are_usage_errors_over_mcp_and_in_the_library(
        hostile_session, backscroll_index, backscroll_home):
    """50,000 characters of ``file`` or ``grep`` made SQLite say "LIKE or GLOB pattern too complex": internal."""
    import backscroll
    from backscroll.errors import UsageError
    from backscroll.integrations.mcp_tools import Tools

    backscroll_index(embed=False)
    tools = Tools(str(backscroll_home.data))
    for tool, args in (("search", {"query": "deploy", "file": "x" * 50_000}),
                       ("list_sessions", {"grep": "中" * 17_000})):
        answer = tools.call(tool, args)
        assert answer.is_error and answer.document["error"]["kind"] == "usage", answer.document
    cfg = backscroll_home.config()
    for call in (lambda: backscroll.files("x" * 60_000, config=cfg),
                 lambda: backscroll.files(5, config=cfg),  # type: ignore[arg-type]
                 lambda: backscroll.count_sessions(grep="x" * 5000, config=cfg),
                 lambda: backscroll.count_sessions(since=5, config=cfg),
                 lambda: backscroll.show(SESSION, config=cfg, bogus=1),
                 lambda: backscroll.show(5, config=cfg),  # type: ignore[arg-type]
                 lambda: backscroll.resume(None, config=cfg),  # type: ignore[arg-type]
                 lambda: backscroll.Backscroll(home=5),  # type: ignore[arg-type]
                 lambda: backscroll.Backscroll(home=backscroll_home.data, sources=5),  # type: ignore[arg-type]
                 lambda: backscroll.Backscroll(config=cfg).index(wait="x"),  # type: ignore[arg-type]
                 lambda: backscroll.Backscroll(config=cfg).index(embed="x")):  # type: ignore[arg-type]
        with pytest.raises(UsageError):
            call()
    plain = tools.call("list_sessions", {}).document["total"]
    assert tools.call("list_sessions", {"grep": "\u0000"}).document["total"] == plain, "a NUL is a space, no pattern"


# -- item 18: terminal escapes never reach the terminal raw ----------------------------------------

@pytest.mark.parametrize("args", [
    ["search", "deploy", "hello", "--mode", "lexical"],
    ["search", "hello", "deployed", "--content-type", "tool", "--mode", "lexical"],
    ["show", SESSION],
    ["show", SESSION, "--full"],
    ["list"],
    ["status"],
])
def test_human_output_has_no_control_characters(hostile_session, backscroll_index, args):
    backscroll_index(embed=False)
    r = cli(*args)
    assert r.exit_code == 0, r.output
    bad = [c for c in r.output if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    assert not bad, f"raw control characters reached the terminal: {bad!r}"
    if args[0] != "status":
        assert "␛" in r.output, "the escape is shown, not silently dropped"


def test_a_bell_and_a_backspace_read_alike_in_search_show_and_files(session_builder, backscroll_index):
    s = session_builder.claude(project="shop", cwd="/home/dev/shop")
    s.user("the zebra back\x07\x08\x08XX rollout")
    s.tool_result(s.tool_use("Read", {"file_path": "/home/dev/shop/c\x07/zebra.py"}), "...")
    backscroll_index(embed=False)
    for args in (["search", "zebra", "--mode", "lexical"], ["show", s.session_id], ["files", "zebra.py"]):
        r = CliRunner(env={"COLUMNS": "200"}).invoke(app, [*args, "--no-sync"])
        shown = "c␇/zebra.py" if args[0] == "files" else "the zebra back␇␈␈XX rollout"
        assert r.exit_code == 0 and any(line.strip().startswith(shown) or f"  {shown}" in line
                                        for line in r.output.splitlines() if "title:" not in line), (args, r.output)


def test_an_id_a_path_or_an_entry_type_from_a_log_stays_on_its_line_bounded_and_redacted(session_builder,
                                                                                        backscroll_index):
    """Identifiers read from a log are printed on lines of their own: a newline in one must not print a line of its
    own (a forged line after a path), an escape must not reach the terminal, and an unknown entry type is bounded
    (one once made ``status`` print 3 MB) and redacted."""
    s = session_builder.claude(cwd="/home/dev/gannet\nFAKE LINE")
    line = s._envelope("user", {"role": "user", "content": "gannet rollout checklist"})
    line["uuid"] = "\x1b]0;TITLE\x07\nFAKE LINE"
    s.write(line)
    s.assistant("gannet rollout: canary first")
    call = s.tool_use("Read\nFAKE LINE", {"file_path": "/home/dev/gannet/rollout.md"})
    s.tool_result(call, "step 1: canary")
    s.raw('{"type": "\x1b[2Jghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri", "x": 1}')
    s.raw('{"type": "huge-' + "B" * 100_000 + '"}')
    s.raw("{not json")
    indexed = cli("index", "--no-embed")
    outputs = [indexed.output]
    for args in (["search", "gannet", "rollout", "--ids"], ["search", "gannet", "rollout"], ["status"],
                 ["show", s.session_id], ["resume", s.session_id, "--print"], ["list"], ["files", "rollout.md"],
                 ["stats"]):
        r = cli(*args, "--no-sync") if args[0] == "search" else cli(*args)
        outputs.append(r.output)
        assert r.exit_code == 0, (args, r.output)
    for out in outputs:
        assert not any(line.startswith("FAKE LINE") for line in out.splitlines()), out  # (a body is indented)
        assert "\x1b" not in out and "\x07" not in out and "Zr8Mq3" not in out
    from backscroll.ingest.rows import stored_id

    assert stored_id(line["uuid"] + "#0") in outputs[1].splitlines(), "the id is stored as a digest, on its line"
    assert len(outputs[3]) < 20_000 and "huge-BBB" in outputs[3]


def test_json_keeps_the_text_exactly(hostile_session, backscroll_index):
    backscroll_index(embed=False)
    r = cli("show", SESSION, "--json")
    texts = " ".join(rec["text"] for rec in json.loads(r.stdout)["records"])
    assert all(e in texts for e in ESCAPES[:3])


def test_clean_is_one_for_one():
    from backscroll.cli.terminal import clean

    raw = "a\x1b[2Jb\tc\nd\x07\x7f\x9b\r"
    assert len(clean(raw)) == len(raw)
    assert clean(raw) == "a␛[2Jb\tc\nd␇␡\ufffd␍"
    hidden = "copied\u200bPR\ufeff with a tag \U000e0041 and a joiner\u2060"
    assert clean(hidden) == "copied PR  with a tag \ufffd and a joiner\ufffd", "a zero-width space is a space"


# -- item 8: a huge query is cut to a size that can be searched -----------------------------------

def _huge_query(n_words: int = 20000) -> str:
    import random

    rnd = random.Random(7)
    words = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
             for _ in range(n_words)]
    return "deploy hello " + " ".join(words)


def test_plan_caps_length_and_terms():
    from backscroll.indexes.lexical import analyze
    from backscroll.retrieval.query import MAX_QUERY_CHARS, MAX_QUERY_TERMS, plan

    p = plan(_huge_query()[:100_000], analyze)
    assert len(p.text) <= MAX_QUERY_CHARS
    assert len(p.terms) <= MAX_QUERY_TERMS and p.terms[:2] == ("deploy", "hello")
    assert len(p.lexical_terms) <= MAX_QUERY_TERMS
    assert any("characters" in n for n in p.notes) and any("different words" in n for n in p.notes)
    short = plan("deploy the hello service", analyze)
    assert short.notes == ()


def test_a_query_whose_words_the_cut_left_out_says_the_cut_did_it():
    """`x*2500 go` said the query held no word to search, with nothing about the 2,000-character cut."""
    from backscroll.errors import QueryError
    from backscroll.indexes.lexical import analyze
    from backscroll.retrieval.query import plan

    with pytest.raises(QueryError, match=r"none to search in its first 2,000 characters \(of 2,503\)") as err:
        plan("x" * 2500 + " go", analyze)
    assert "before the long one" in (err.value.hint or "")
    with pytest.raises(QueryError, match=r"none to search$"):
        plan("x" * 100, analyze)


def test_many_short_words_are_capped_too():
    from backscroll.indexes.lexical import analyze
    from backscroll.retrieval.query import MAX_QUERY_TERMS, plan

    p = plan(" ".join(f"w{i}" for i in range(300)), analyze)  # < 2,000 characters, 300 words
    assert len(p.terms) == MAX_QUERY_TERMS and len(p.notes) == 1


def test_huge_query_searches_with_a_note(hostile_session, backscroll_index):
    backscroll_index(embed=False)
    query = _huge_query()[:100_000]
    r = cli("search", "--mode", "lexical", "--json", "--", query)
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert any("only its first 2,000 were searched" in n for n in data["notes"])
    assert any("only the first 64 were searched" in n for n in data["notes"])
    assert len(data["query"]) <= 2000
    human = cli("search", "--mode", "lexical", "--", query)
    assert "only the first 64 were searched" in human.stderr
    assert "only the first 64" not in human.stdout


# -- item 24: the repeated-search note reaches only the agent session that repeated itself -------

def _ago(seconds: float) -> str:
    from datetime import datetime, timedelta

    from backscroll.dates import format_ts

    return format_ts(datetime.now(UTC) - timedelta(seconds=seconds))


def _agent_searching(session_builder, command: str, *, start: str, project: str = "shop"):
    """An agent session that ran ``command`` once (with output) and is running it again now."""
    from datetime import timedelta

    s = session_builder.claude(project=project, start=start)
    s.clock.step = timedelta(seconds=2)
    s.user("what did we decide about the job queue?")
    s.tool(command, "1. Use Postgres SKIP LOCKED for the job queue.")
    s.tool_use("Bash", {"command": command})  # in flight: no output yet
    return s


@pytest.fixture
def decision(session_builder):
    old = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    old.assistant("Use Postgres SKIP LOCKED for the job queue.")


def test_future_timestamps_never_block(decision, session_builder, backscroll_search):
    """A log from a machine whose clock runs an hour ahead: its calls look in flight forever."""
    _agent_searching(session_builder, "backscroll search 'job queue'", start=_ago(-3600))
    res = backscroll_search("job queue", caller_argv=["search", "job queue"])
    assert res.repeated is None and res.results


def test_another_sessions_search_is_not_ours(decision, session_builder, backscroll_search):
    """Session A repeats a search; B's own different-looking command for the same words runs."""
    _agent_searching(session_builder, "backscroll search job queue", start=_ago(30))
    res = backscroll_search("job queue", caller_argv=["search", "job queue", "--json"])
    assert res.repeated is None and res.results
    mine = backscroll_search("job queue", caller_argv=["search", "job", "queue"])
    assert mine.repeated is not None, "the session that did repeat itself is still told"


def test_two_sessions_running_the_same_command_are_ambiguous(decision, session_builder, backscroll_search):
    _agent_searching(session_builder, "backscroll search 'job queue'", start=_ago(30))
    _agent_searching(session_builder, "backscroll search 'job queue'", start=_ago(20), project="infra")
    res = backscroll_search("job queue", caller_argv=["search", "job queue"])
    assert res.repeated is None and res.results


def test_an_explicit_session_id_wins(decision, session_builder, backscroll_search):
    a = _agent_searching(session_builder, "backscroll search 'job queue'", start=_ago(30))
    _agent_searching(session_builder, "backscroll search 'job queue'", start=_ago(20), project="infra")
    res = backscroll_search("job queue", caller_argv=["search", "job queue"], caller_session=a.session_id)
    assert res.repeated is not None and res.repeated["session_id"] == a.session_id


def _codex_searching(session_builder, command: str, *, start: str, project: str = "shop"):
    """A Codex session that ran ``command`` once (with output) and is running it again now."""
    from datetime import timedelta

    s = session_builder.codex(project=project, start=start)
    s.clock.step = timedelta(seconds=2)
    s.user("what did we decide about the job queue?")
    s.tool(command, "1. Use Postgres SKIP LOCKED for the job queue.")
    s.tool_call(command)  # in flight: no output yet
    return s


def test_codex_names_its_thread_so_two_sessions_running_one_command_are_told_apart(decision, session_builder,
                                                                                   backscroll_home):
    command = "backscroll search --mode lexical --json 'job queue'"
    _codex_searching(session_builder, command, start=_ago(100))  # (a rollout's first lines take a minute)
    b = _codex_searching(session_builder, command, start=_ago(90), project="infra")
    args = ("search", "--mode", "lexical", "--json", "job queue")
    unnamed = json.loads(run_cli(backscroll_home, *args).stdout)
    assert unnamed["repeated"] is None and unnamed["results"], "two sessions ran it: neither is guessed"
    named = run_cli(backscroll_home, *args, env=cli_env(backscroll_home, CODEX_THREAD_ID=b.session_id.upper()))
    data = json.loads(named.stdout)
    assert data["results"] == [] and data["repeated"]["session_id"] == b.session_id


def test_a_thread_id_naming_a_session_without_this_call_falls_back_to_the_log(decision, session_builder,
                                                                              backscroll_home):
    """A nested ``codex exec`` inherits its parent's thread id: the parent runs ``codex exec``, not this search."""
    command = "backscroll search --mode lexical --json 'job queue'"
    parent = session_builder.codex(project="shop", start=_ago(110))
    parent.user("ask a fresh codex about the queue")
    parent.tool_call("codex exec 'what did we decide about the job queue?'")
    nested = _codex_searching(session_builder, command, start=_ago(100))
    r = run_cli(backscroll_home, "search", "--mode", "lexical", "--json", "job queue",
                env=cli_env(backscroll_home, CODEX_THREAD_ID=parent.session_id))
    data = json.loads(r.stdout)
    assert data["results"] == [] and data["repeated"]["session_id"] == nested.session_id


def test_library_caller_without_identity_is_never_told(decision, session_builder, backscroll_search):
    _agent_searching(session_builder, "backscroll search 'job queue'", start=_ago(30))
    assert backscroll_search("job queue").repeated is None


def _run_on_terminal(home, args, **env) -> tuple[int, str]:
    """Run the CLI with stdin and stdout on a pseudo-terminal, as a person at a terminal does."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "backscroll", *args], env=cli_env(home, **env),
                            stdin=slave, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    assert proc.stderr is not None
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    proc.stderr.read()
    return proc.wait(timeout=120), out.decode(errors="replace")


def test_a_person_typing_the_agents_command_gets_results(decision, session_builder, backscroll_home):
    _agent_searching(session_builder, "backscroll search --mode lexical 'job queue'", start=_ago(30))
    code, out = _run_on_terminal(backscroll_home, ["search", "--mode", "lexical", "job queue"])
    assert code == 0 and "[repeated search]" not in out and "SKIP LOCKED" in out
    piped = run_cli(backscroll_home, "search", "--mode", "lexical", "job queue")
    assert piped.stdout.startswith("[repeated search]"), "through a pipe (an agent's shell tool) it is the agent"


@pytest.mark.parametrize("fmt", ["jsonl", "tsv", "ids"])
def test_a_repeat_in_a_line_format_says_so_on_stderr(decision, session_builder, backscroll_home, fmt):
    """No line to carry the repeat's note: an agent must not take the empty answer for "no matches"."""
    command = f"backscroll search --mode lexical --format {fmt} 'job queue'"
    _agent_searching(session_builder, command, start=_ago(30))
    r = run_cli(backscroll_home, "search", "--mode", "lexical", "--format", fmt, "job queue")
    assert r.returncode == 0 and r.stdout == "" and "[repeated search]" in r.stderr, r.stderr


def test_a_terminal_with_a_session_id_is_an_agent(decision, session_builder, backscroll_home):
    s = _agent_searching(session_builder, "backscroll search --mode lexical 'job queue'", start=_ago(30))
    code, out = _run_on_terminal(backscroll_home, ["search", "--mode", "lexical", "job queue"],
                                 BACKSCROLL_SESSION_ID=s.session_id)
    assert code == 0 and "[repeated search]" in out


# -- item 21: a damaged store is reported as such, and nothing more is written to it --------------

def _corrupt_page_holding(db, marker: bytes) -> None:
    """Checkpoint the WAL, then overwrite the b-tree page header of the page that holds ``marker``."""
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(db.read_bytes())
    at = data.find(marker)
    assert at > page_size, "the marker is in a page past the header"
    page = at // page_size
    data[page * page_size: page * page_size + 12] = b"\xff" * 12
    db.write_bytes(bytes(data))


@pytest.fixture
def damaged_store(session_builder, backscroll_index, backscroll_home):
    for i in range(40):
        s = session_builder.claude(project=f"p{i % 4}")
        s.user(("MIDDLE-MARKER-7f3a " if i == 20 else "") + f"session {i}: what about module {i}? " + "lorem " * 60)
        s.assistant(f"module {i} is fine " + "ipsum " * 80)
    backscroll_index(embed=False)
    db = backscroll_home.data / "backscroll.db"
    _corrupt_page_holding(db, b"MIDDLE-MARKER-7f3a")
    return db


@pytest.mark.parametrize("command", [["list", "--no-sync", "--json"], ["status", "--json"]])
def test_damaged_store_is_corrupt_store_not_internal_error(damaged_store, backscroll_home, command):
    if command[0] == "status":  # (status counts records without reading them: a page of the sessions it counts)
        conn = sqlite3.connect(damaged_store)
        page_size, root = (conn.execute("PRAGMA page_size").fetchone()[0],
                           conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sessions'").fetchone()[0])
        conn.close()
        data = bytearray(damaged_store.read_bytes())
        data[(root - 1) * page_size: (root - 1) * page_size + 12] = b"\xff" * 12
        damaged_store.write_bytes(bytes(data))
    r = run_cli(backscroll_home, *command)
    assert r.returncode == 1
    err = error_of(r.stderr)
    assert err["kind"] == "corrupt-store", err
    assert ".recover" in err["hint"] and "move it aside" not in err["hint"]


def test_index_refuses_to_write_into_a_damaged_store(damaged_store, backscroll_home, session_builder):
    before = damaged_store.read_bytes()
    s = session_builder.claude(project="new")
    s.user("a new session that must not be written into a damaged store")
    r = run_cli(backscroll_home, "index", "--no-embed", "--json")
    assert r.returncode == 1, r.stderr
    assert error_of(r.stderr)["kind"] == "corrupt-store"
    assert damaged_store.read_bytes() == before
    wal = damaged_store.with_name("backscroll.db-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_sound_store_never_gets_the_discard_hint(hostile_session, backscroll_index, backscroll_home):
    from backscroll.store.failures import store_failure

    backscroll_index(embed=False)
    exc = sqlite3.DatabaseError("database disk image is malformed")  # raised, but integrity_check finds nothing
    assert store_failure(exc, backscroll_home.data / "backscroll.db") is None


# -- item 20: a full disk and a read-only store are reported as what they are --------------------

@pytest.fixture
def small_fs(tmp_path):
    """A real small filesystem (tmpfs), mounted for the test: ``mount(size, ro=False)`` -> its path."""
    mounted: list[Path] = []

    def mount(size: str):
        where = tmp_path / f"fs{len(mounted)}"
        where.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a small filesystem here (needs root): {r.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def _run_in(home, data, *args) -> subprocess.CompletedProcess:
    env = cli_env(home, BACKSCROLL_HOME=str(data))
    return subprocess.run([sys.executable, "-m", "backscroll", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def _many_sessions(session_builder, n: int) -> None:
    for i in range(n):
        s = session_builder.claude(project=f"bulk{i % 5}")
        for t in range(20):
            s.user(f"bulk session {i} turn {t} about module_{i}_{t} " + "lorem ipsum dolor " * 30)
            s.assistant(f"answer {i} {t} " + "sit amet consectetur " * 40)


def test_disk_full_during_index(session_builder, backscroll_home, small_fs):
    data = small_fs("1m") / "data"
    first = session_builder.claude(project="kept")
    first.user("the retry budget is seven attempts")
    assert _run_in(backscroll_home, data, "index", "--no-embed").returncode == 0
    _many_sessions(session_builder, 60)  # about 3 MB of sessions for 1 MB of disk
    r = _run_in(backscroll_home, data, "index", "--no-embed", "--json")
    assert r.returncode == 1
    err = error_of(r.stderr)
    assert err["kind"] == "disk-full", err
    assert "corrupt" not in r.stderr and "move it aside" not in r.stderr
    assert not [p.name for p in data.rglob("*") if ".tmp" in p.name], "temp files are removed"
    found = _run_in(backscroll_home, data, "search", "retry", "budget", "--no-sync", "--json", "--mode", "lexical")
    assert found.returncode == 0, found.stderr
    assert "seven attempts" in found.stdout, "what was stored before is intact"


def _read_only_store(session_builder, backscroll_home, small_fs):
    mnt = small_fs("20m")
    data = mnt / "data"
    s = session_builder.claude(project="backup", session_id=SESSION)
    s.user("where do the nightly backups go?")
    s.assistant("Nightly backups go to the cold bucket, kept for ninety days.")
    assert _run_in(backscroll_home, data, "index").returncode == 0
    later = session_builder.claude(project="backup")
    later.user("a session written after the backup was taken")
    r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
    return data


def test_read_only_store_is_searched_as_it_is(session_builder, backscroll_home, small_fs, tmp_path, monkeypatch):
    data = _read_only_store(session_builder, backscroll_home, small_fs)
    r = _run_in(backscroll_home, data, "search", "nightly", "backups", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "cold bucket" in out["results"][0]["text"]
    assert any("cannot be written" in n for n in out["notes"])
    human = _run_in(backscroll_home, data, "search", "nightly", "backups")
    assert human.returncode == 0 and "cannot be written" in human.stderr
    quiet = _run_in(backscroll_home, data, "search", "--no-sync", "nightly", "backups")
    assert quiet.returncode == 0 and "cold bucket" in quiet.stdout and "cannot be written" not in quiet.stderr
    for args in (["list"], ["show", SESSION], ["status", "--json"]):
        r = _run_in(backscroll_home, data, *args)
        assert r.returncode == 0, (args, r.stderr)
    assert json.loads(_run_in(backscroll_home, data, "status", "--json").stdout)["read_only"] is True
    said = _run_in(backscroll_home, data, "status").stdout
    assert "the store cannot be written" in said and "missing or unreadable" not in said, said
    import tempfile

    import backscroll

    # (a temp dir of this test's own: another worker's test makes and removes copies in the shared one meanwhile)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()

    def copies() -> set[str]:
        return {p.name for p in Path(tempfile.gettempdir()).glob("backscroll-index-*")}

    before = copies()
    for _ in range(3):  # (a library's calls, one process: each call's copy of the index went only at its exit)
        assert backscroll.search("nightly backups", home=data, mode="lexical").results
    assert copies() == before == set(), "each call's copy of the read-only index goes with the call"


def test_a_data_dir_its_owner_made_read_only_is_read_as_it_is(tmp_path):
    """``chmod -R a-w`` on the data dir (a backup kept read-only): no ``-shm`` can be made and the index cannot
    be locked, yet search, list, show and status answer, as on read-only media. Run as an unprivileged user
    (root ignores file modes)."""
    import shutil
    import tempfile

    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root, to run backscroll as an unprivileged user")
    shared = Path(tempfile.mkdtemp(prefix="bs-readonly-", dir="/tmp"))
    try:
        shared.chmod(0o777)
        home, data = shared / "home", shared / "data"
        shutil.copytree(Path(__file__).parents[2] / "fixtures" / "claude" / "projects", home / ".claude" / "projects")
        subprocess.run(["chown", "-R", "65534:65534", str(home)], check=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("BACKSCROLL_")}
        env.update(HOME=str(home), BACKSCROLL_HOME=str(data), BACKSCROLL_EMBEDDER="fake", BACKSCROLL_BACKGROUND="0",
                   HF_HUB_OFFLINE="1", PYTHONDONTWRITEBYTECODE="1")

        def run(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                   "-m", "backscroll", *args], env=env, capture_output=True, text=True, timeout=120)

        assert run("index").returncode == 0
        subprocess.run(["chmod", "-R", "a-w", str(data)], check=True)
        found = run("search", "pgbouncer", "--format", "tsv")
        assert found.returncode == 0 and "pgbouncer" in found.stdout and "cannot be written" in found.stderr, found
        for args in (["list"], ["stats"], ["show", found.stdout.split("\t")[0]]):
            r = run(*args)
            assert r.returncode == 0 and r.stdout, (args, r.stderr)
        status = json.loads(run("status", "--json").stdout)
        assert status["read_only"] is True and status["records"] > 0
        subprocess.run(["chmod", "-R", "u+w", str(data)], check=True)
        with sqlite3.connect(data / "backscroll.db") as db:  # (an index cut short: words behind the store)
            db.execute("UPDATE meta SET value = '1' WHERE key = 'lexical_watermark'")
        subprocess.run(["chmod", "-R", "a-w", str(data)], check=True)
        behind = run("search", "--no-sync", "pgbouncer", "--format", "tsv")
        assert behind.returncode == 0 and "the newest records are not searched by words" in behind.stderr, behind
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(shared)], capture_output=True)
        shutil.rmtree(shared, ignore_errors=True)


def test_index_into_a_read_only_store_says_read_only(session_builder, backscroll_home, small_fs):
    data = _read_only_store(session_builder, backscroll_home, small_fs)
    r = _run_in(backscroll_home, data, "index", "--json")
    assert r.returncode == 1
    err = error_of(r.stderr)
    assert err["kind"] == "read-only-store", err
    assert "corrupt" not in r.stderr and "move it aside" not in r.stderr


def test_a_read_only_data_dir_that_holds_no_store_says_to_choose_another(session_builder, backscroll_home, small_fs):
    """Nothing was ever indexed and nothing can be: search says to index, and index must not answer that search,
    show, list and status read the store (there is none) but where to put one."""
    mnt = small_fs("1m")
    session_builder.claude(project="backup").user("where do the nightly backups go?")
    r = subprocess.run(["mount", "-o", "remount,ro", str(mnt)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
    r = _run_in(backscroll_home, mnt / "data", "index")
    assert r.returncode != 0 and "no store can be made in" in r.stderr and "BACKSCROLL_HOME" in r.stderr, r.stderr
    assert "still read it" not in r.stderr and "Traceback" not in r.stderr


def test_search_on_a_terminal_never_writes_session_escapes(session_builder, backscroll_index, backscroll_home):
    """On a terminal the snippet is padded, not printed as text: it must be made safe all the same."""
    from helpers import run_tty

    s = session_builder.claude(project="shop\x1b[2J")
    s.user("how do we deploy the hello service?")
    s.assistant("deploy hello with make release \x1b]52;c;cm0gLXJmIH4= then \x1b[2J\x1b[H and \x9b31m done")
    backscroll_index(embed=False)
    code, out = run_tty(backscroll_home, "search", "deploy", "hello", "release", "--mode", "lexical", "--no-sync",
                        "--color", "never")
    assert code == 0 and "release" in out
    assert "\x1b]" not in out and "\x1b[2J" not in out and "\x9b" not in out, repr(out)
    assert "␛]52" in out, "shown, made visible"


def test_a_full_disk_still_answers_searches_and_status(session_builder, backscroll_home, small_fs):
    """Reading needs no space: SQLite's bare "disk I/O error" (no room for its -wal and -shm files) is
    a full disk, and search and status answer from the store as it is."""
    mnt = small_fs("4m")
    data = mnt / "data"
    s = session_builder.claude(project="kept")
    s.user("what is the retry budget?")
    s.assistant("the retry budget is seven attempts")
    assert _run_in(backscroll_home, data, "index", "--no-embed").returncode == 0
    try:  # fill the disk to its last byte (already full, the open itself fails: the state wanted all the same)
        with open(mnt / "filler", "wb") as fh:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
    except OSError:
        pass
    for args in (["search", "retry", "budget", "--no-sync", "--json", "--mode", "lexical"],
                 ["search", "retry", "budget", "--json", "--mode", "lexical"]):
        r = _run_in(backscroll_home, data, *args)
        assert r.returncode == 0, r.stderr
        assert "seven attempts" in r.stdout and "internal" not in r.stderr
        assert "disk holding" in r.stderr and "is full" in r.stderr
    st = _run_in(backscroll_home, data, "status", "--json")
    assert st.returncode == 0 and json.loads(st.stdout)["records"] == 2, st.stderr


def _checkpoint(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _index_page(db: Path, name: str) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,)).fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        return (root - 1) * size, size
    finally:
        conn.close()


def test_interior_damage_is_found_before_a_write_and_reported_as_corrupt(session_builder, backscroll_home):
    """An index that lost rows (its page from an older state of the file, as a torn write leaves it):
    ``quick_check`` passes, ``integrity_check`` does not, and reads fail in odd ways later."""
    data = backscroll_home.data
    db = data / "backscroll.db"
    for i in range(2):
        session_builder.claude(project=f"early{i}").user(f"early question {i} about the ledger")
    assert _run_in(backscroll_home, data, "index", "--no-embed").returncode == 0
    _checkpoint(db)
    at, size = _index_page(db, "sqlite_autoindex_source_files_1")
    old_page = db.read_bytes()[at:at + size]
    for i in range(2):
        session_builder.claude(project=f"late{i}").user(f"late question {i} about the ledger")
    assert _run_in(backscroll_home, data, "index", "--no-embed").returncode == 0
    _checkpoint(db)
    assert _index_page(db, "sqlite_autoindex_source_files_1")[0] == at
    b = bytearray(db.read_bytes())
    b[at:at + size] = old_page
    db.write_bytes(bytes(b))
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] != "ok"
    conn.close()
    session_builder.claude(project="later").user("a new session after the damage")
    r = _run_in(backscroll_home, data, "index", "--no-embed", "--json")
    assert r.returncode == 1 and error_of(r.stderr)["kind"] == "corrupt-store", r.stderr
    assert ".recover" in r.stderr and "nothing was written" in r.stderr
    for args in (["rebuild", "--json"], ["status", "--json"], ["search", "ledger", "--no-sync", "--json"]):
        out = _run_in(backscroll_home, data, *args)
        assert "internal" not in out.stderr, (args, out.stderr)


def test_a_data_dir_and_a_config_together_or_a_config_that_is_none_are_usage_errors(backscroll_home, tmp_path):
    import backscroll
    from backscroll import Backscroll
    from backscroll.errors import UsageError

    with pytest.raises(UsageError, match="not both"):
        backscroll.search("deploy", home=tmp_path / "elsewhere", config=backscroll_home.config())
    with pytest.raises(UsageError, match="takes a backscroll Config, not object"):
        Backscroll(config=object())  # type: ignore[arg-type]
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("ident", ["$(touch /tmp/x)#0", "s1;touch x;#", "a b#0", "-rf", "y1\ntouch x\n#0", "ok-123#0"])
def test_a_printed_show_command_reads_back_as_the_id(ident):
    """An id is a log's (or a teammate's) text: the command printed to paste is one a shell reads as that id, on one
    line, never as a command of its own."""
    import shlex

    from backscroll.cli.common import show_command
    from backscroll.cli.terminal import clean_line

    line = show_command(ident)
    assert "\n" not in line
    words = shlex.split(line)
    assert words[:2] == ["backscroll", "show"] and words[-1] == clean_line(ident)
    if ident == "ok-123#0":
        assert line == f"backscroll show {ident}", "a plain id is printed as it is"


def test_an_archive_s_show_command_keeps_its_options_before_the_id():
    import shlex

    from backscroll.cli.common import show_command

    assert shlex.split(show_command("-rf", "bob")) == ["backscroll", "show", "--archive", "URL", "--member", "bob",
                                                       "--", "-rf"]


def test_a_disk_that_fills_while_new_lines_are_read_still_answers(session_builder, backscroll_home, small_fs):
    """With a little room left, a search's sync filled the disk and every search, list and show failed with
    disk-full (a disk with no room at all answered from the store)."""
    mnt = small_fs("16m")  # (room for the new lines' store and journal once the filler goes)
    data = mnt / "data"
    s = session_builder.claude(project="kept")
    s.user("what is the retry budget?").assistant("the retry budget is seven attempts")
    assert _run_in(backscroll_home, data, "index", "--no-embed").returncode == 0
    _many_sessions(session_builder, 60)  # new lines for the search to read: more than the room left
    with open(mnt / "filler", "wb") as fh:
        while os.statvfs(mnt).f_bavail * os.statvfs(mnt).f_frsize > 300_000:
            fh.write(b"\0" * 65536)
            fh.flush()
    for args in (["search", "retry", "budget", "--json", "--mode", "lexical"], ["list", "--json"]):
        r = _run_in(backscroll_home, data, *args)
        assert r.returncode == 0, (args, r.stderr[-500:])
        assert "disk holding" in r.stderr and "is full" in r.stderr, r.stderr[-500:]
    assert "seven attempts" in _run_in(backscroll_home, data, "search", "retry", "budget", "--mode",
                                       "lexical").stdout
    import backscroll

    with backscroll.Backscroll(home=data) as handle:  # (an MCP server's: it keeps its store open between calls)
        for _ in range(2):
            found = handle.search("retry budget", mode="lexical", sync=True)
            assert "the retry budget is seven attempts" in [h.text for h in found.results]
            assert any("is full" in n for n in found.notes), found.notes
        (mnt / "filler").unlink()  # room again: the same handle reads the new lines
        found = handle.search("module_59_19", mode="lexical", sync=True)
        assert found.results and not any("is full" in n for n in found.notes), found.notes


def test_status_never_opens_a_fifo_that_took_a_session_files_place(backscroll_home, backscroll_index):
    """A FIFO where a session file read in vain had been held `status` (and an MCP server's every call) for good."""
    project = backscroll_home.claude_projects / "-home-dev-shop"
    project.mkdir(parents=True)
    path = project / "0b1f5850-1b86-4902-976b-627265ff8472.jsonl"
    path.write_text('{"type": "summary", "summary": "Job queue", "leafUuid": "x"}\n')
    backscroll_index(embed=False)
    path.unlink()
    os.mkfifo(path)
    for args in (["status"], ["status", "--json"]):
        r = _run_in(backscroll_home, backscroll_home.data, *args)  # (a hang is the failure: its timeout)
        assert r.returncode == 0, r.stderr[-300:]
