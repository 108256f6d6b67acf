"""The library API people import: ``backscroll.Backscroll``, the module-level functions, typed
results, error kinds worded for the CLI only in ``cli/``, and the repeat parser kept in step with
the ``search`` command."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import backscroll
from backscroll import Backscroll
from backscroll.errors import NothingIndexedError, SemanticUnavailableError
from backscroll.status_types import StatusReport
from backscroll.types import RepeatedSearch, SearchResult, SessionSummary, SessionView


def _corpus(session_builder) -> None:
    s = session_builder.claude("shop")
    s.user("Should the job queue use Postgres advisory locks?")
    s.assistant("We decided to keep the job queue on Postgres with SKIP LOCKED.")
    session_builder.codex("infra").user("rotate the deploy keys for the staging cluster")


def test_importing_backscroll_stays_cheap():
    code = ("import sys, backscroll; backscroll.Backscroll; "
            "print([m for m in ('tantivy', 'numpy', 'onnxruntime', 'typer', 'sqlite_utils') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_package_exports_the_whole_api():
    for name in ("Backscroll", "search", "index", "embed", "show", "sessions", "list_sessions", "status",
                 "stats", "files", "count_sessions", "resume", "rebuild", "SearchResult", "Hit", "Filters",
                 "RepeatedSearch", "SessionSummary", "SessionView",
                 "StatusReport", "IndexOutcome", "BackscrollError",
                 "FileTouches", "Resumption", "SearchRequest", "SessionHits"):  # (what files, resume, search take)
        assert name in backscroll.__all__ and getattr(backscroll, name) is not None, name
    assert all(hasattr(backscroll, name) for name in backscroll.__all__)
    assert backscroll.list_sessions is backscroll.sessions


def test_status_answers_twice_and_after_a_search(session_builder, backscroll_home):
    _corpus(session_builder)
    home = backscroll_home.data
    first = backscroll.status(home=home)
    second = backscroll.status(home=home)
    assert isinstance(first, StatusReport) and isinstance(second, StatusReport)
    assert first.indexed is False and callable(backscroll.status)
    backscroll.index(home=home, embed=False)
    assert backscroll.search("job queue", home=home, mode="lexical").results
    for submodule in ("backscroll.status_report", "backscroll.cli.status", "backscroll.retrieval.searching"):
        importlib.import_module(submodule)  # a submodule import must not shadow a function

    after = backscroll.status(home=home)
    assert callable(backscroll.status) and after.sessions == 2 and after.records == 3
    assert after["sessions"] == 2 and after.to_dict()["records"] == 3


def test_the_listing_calls_check_what_they_are_given_alike(session_builder, backscroll_home):
    """``count_sessions`` counted what ``sessions`` refused; ``files`` took any agent and a limit of 0 as words of
    the CLI; ``status(skipped="x")`` was a database error."""
    from backscroll.errors import BackscrollError, UsageError

    _corpus(session_builder)
    home = backscroll_home.data
    backscroll.index(home=home, embed=False)
    for call in (backscroll.sessions, backscroll.count_sessions):
        with pytest.raises(UsageError, match="--member needs --archive"):
            call(home=home, member="bob")
        with pytest.raises(BackscrollError, match="no gemini sessions are indexed"):
            call(home=home, agent="gemini")
    with pytest.raises(UsageError, match="unknown agent 'chatgpt'"):
        backscroll.files("tax.py", home=home, agent="chatgpt")
    with pytest.raises(UsageError, match="limit must be a whole number from 1 to 1,000,"):
        backscroll.files("tax.py", home=home, limit=0)
    for wrong in ("x", None, -2, True):
        with pytest.raises(UsageError, match="skipped must be a whole number"):
            backscroll.status(home=home, skipped=wrong)
    assert backscroll.status(home=home, skipped=-1).sessions == 2
    assert {row[0] for row in backscroll.stats(home=home, until="2999-01-01")["agent"]} == {"claude", "codex"}
    with pytest.raises(UsageError, match="since must be a string"):
        backscroll.stats(home=home, since=5)
    assert [s.agent for s in backscroll.sessions(home=home, agent="Codex", all=True)] == ["codex"], "as search does"
    assert backscroll.count_sessions(home=home, agent="CLAUDE") == 1


def test_a_handle_serves_many_calls_from_one_open_store(session_builder, backscroll_home):
    _corpus(session_builder)
    with Backscroll(home=backscroll_home.data) as bs:
        outcome = bs.index(embed=False)
        assert outcome.report.records_added == 3
        res = bs.search("job queue postgres", mode="lexical")
        assert isinstance(res, SearchResult) and res.results
        assert bs._held is not None
        store = bs._held[0]
        listed = bs.sessions(all=True)  # (one session of one record)
        assert all(isinstance(s, SessionSummary) for s in listed) and len(listed) == 2
        assert {s.project for s in listed} == {"shop", "infra"} and listed[0]["records"] == listed[0].records
        view = bs.show(res.results[0].record_id, context=1)
        assert isinstance(view, SessionView) and view.focus == res.results[0].record_id
        assert bs.show(res.results[0].session_id).total == 2
        assert bs.count_sessions(project="infra", all=True) == 1
        assert bs._held is not None and bs._held[0] is store, "reads reuse the store the handle opened"
        assert bs.rebuild() == 3
        assert bs.search("deploy keys", mode="lexical").results
    assert bs._held is None


def test_a_handle_finds_words_indexed_after_its_first_search(session_builder, backscroll_home):
    """A long-lived handle (a program keeps one open across calls) must see what a later index adds, also the longer
    words a query word begins ("zebra" -> "zebrafish")."""
    _corpus(session_builder)
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        assert bs.search("zebra", mode="lexical").results == ()
        session_builder.claude("lab").user("the zebrafish tank needs a new heater")
        bs.index(embed=False)
        assert [h.text for h in bs.search("zebra", mode="lexical", rerun=True).results] == [
            "the zebrafish tank needs a new heater"]
        bs.rebuild()  # a new generation, published by another index object
        again = bs.search("zebrafish tank", mode="lexical", rerun=True)
        assert again.results and not any("rebuilding" in n for n in again.notes), "the new generation is read"


def test_a_handle_reads_a_data_dir_deleted_and_made_again_under_it(session_builder, backscroll_home):
    """A long-lived handle (the MCP server's) whose data dir was deleted and indexed again by another process opens
    what is there now; it failed every search until restarted ("Failed to acquire Lockfile")."""
    import shutil

    _corpus(session_builder)
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        assert bs.search("job queue postgres", mode="lexical").results
        shutil.rmtree(backscroll_home.data)
        with Backscroll(home=backscroll_home.data) as other:
            other.index(embed=False)
        assert bs.search("job queue postgres", mode="lexical", sync=True).results
        shutil.rmtree(backscroll_home.data)  # (and gone, not made again: a search indexes it afresh)
        assert bs.search("deploy keys", mode="lexical", sync=True).results


def test_reads_do_not_sync_unless_asked(session_builder, backscroll_home):
    _corpus(session_builder)
    home = backscroll_home.data
    with pytest.raises(NothingIndexedError):
        backscroll.search("job queue", home=home)
    backscroll.index(home=home, embed=False)
    session_builder.claude("shop").user("a brand new zebra crossing question")
    assert backscroll.search("zebra crossing", home=home, mode="lexical").results == ()
    assert backscroll.search("zebra crossing", home=home, mode="lexical", sync=True).results
    assert any("zebra" in (s.title or "") for s in backscroll.sessions(home=home, all=True))


def test_library_hints_name_no_flags_and_the_cli_words_them(session_builder, backscroll_home):

    _corpus(session_builder)
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        with pytest.raises(SemanticUnavailableError) as lib:
            bs.search("job queue", mode="semantic")
    assert lib.value.kind == "semantic-unavailable" and "--" not in (lib.value.hint or "")
    from helpers import cli_env
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    cli = CliRunner().invoke(app, ["search", "job queue", "--mode", "semantic", "--no-sync", "--json"],
                             env=cli_env(backscroll_home))
    error = json.loads(cli.stderr.strip().splitlines()[-1])["error"]
    assert error["kind"] == "semantic-unavailable" and "--mode lexical" in error["hint"]


def test_a_repeated_search_is_typed_and_its_note_fits_the_caller(session_builder, backscroll_home):
    import backscroll

    s = session_builder.claude("shop")
    s.user("how do we run the job queue?")
    s.tool_use("Bash", {"command": "backscroll search 'job queue'"})
    s.assistant("checking")
    s.tool_use("Bash", {"command": "backscroll search 'job queue'"})
    backscroll.index(home=backscroll_home.data, embed=False)
    lib = backscroll.search("job queue", home=backscroll_home.data, caller_session=s.session_id)
    assert isinstance(lib.repeated, RepeatedSearch) and lib.repeated.session_id == s.session_id
    assert "rerun=True" in lib.notes[0] and "--rerun" not in lib.notes[0]
    assert lib.to_dict()["repeated"] == lib.repeated.to_dict()
    assert set(lib.to_dict()["repeated"]) == {"session_id", "record_id", "timestamp", "command"}
    from helpers import cli_env
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    cli = CliRunner().invoke(app, ["search", "job queue", "--json"],
                             env=cli_env(backscroll_home, BACKSCROLL_SESSION_ID=s.session_id))
    assert "add --rerun" in json.loads(cli.stdout)["notes"][0]
    assert backscroll.search("job queue", home=backscroll_home.data, caller_session=s.session_id,
                             rerun=True).repeated is None


def test_the_cli_json_of_list_and_status_keeps_its_shape(session_builder, backscroll_home):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    _corpus(session_builder)
    backscroll.index(home=backscroll_home.data, embed=False)
    runner = CliRunner()
    listed = json.loads(runner.invoke(app, ["--home", str(backscroll_home.data), "list", "--json", "--all"]).stdout)
    assert list(listed["sessions"][0]) == ["session_id", "agent", "project", "cwd", "title", "started_at",
                                           "updated_at", "is_sidechain", "parent_session_id", "records", "echoes",
                                           "subagents"]
    status = json.loads(runner.invoke(app, ["--home", str(backscroll_home.data), "status", "--json"]).stdout)
    assert status["sessions"] == 2 and "integrations" in status and "paths" in status
    library = backscroll.status(home=backscroll_home.data).to_dict()
    assert {**library, "integrations": status["integrations"], "store_error": None}.keys() == status.keys(), \
        "the same document, less what README says it leaves out"
    assert library["schema_version"] == status["schema_version"] == 1


def _search_command():
    import typer.main

    from backscroll.cli.app import app

    return typer.main.get_command(app)


def test_every_request_field_is_an_option_of_the_command_and_the_repeat_parser_reads_it():
    """The CLI's options and the repeat rule's parser are both generated from SearchRequest: a field is
    an option on the command line, and a call that sets it is parsed into the key (if it asks)."""
    from backscroll.request import options
    from backscroll.retrieval.policy import repeat

    command = _search_command().commands["search"]  # type: ignore[attr-defined]
    declared = {p.name: set(p.opts) for p in command.params if p.param_type_name == "option"}
    for name, annotation, _default, opt in options():
        if name == "query":
            continue
        assert declared[name] == set(opt.flags(name)), name
        value = {"int": "7", "bool": None}.get(annotation.split(" |")[0], (opt.choices or ("x",))[-1])
        parsed = repeat.key_from_args(["search", "words", opt.flags(name)[-1], *([value] if value else [])])
        assert parsed is not None, name
        key, rerun = parsed
        if name == "rerun":
            assert rerun
        elif opt.asks:
            assert getattr(key, name) not in (None, False, 10, "hybrid"), name
        else:
            assert key == repeat.make_key("words"), name


def test_every_output_option_still_leaves_a_call_parseable():
    from backscroll.retrieval.policy.repeat import key_from_args, make_key

    args = ["search", "job", "queue", "--format", "tsv", "--fields", "record_id", "--max-bytes", "900", "--ids",
            "--pretty", "--no-pager", "--json", "--no-sync", "--max-chars", "0", "--home", "/tmp/x", "-n", "5"]
    assert key_from_args(args) == (make_key("job queue", limit=5), False)


def test_offset_reads_the_next_page_on_every_surface(session_builder, backscroll_home):
    """``offset`` is one SearchRequest field: the library, the CLI and the MCP schema take it, ranks keep
    counting, and a page further on is not a repeat of the first."""
    from typer.testing import CliRunner

    from backscroll.cli.app import app
    from backscroll.integrations.mcp_tools import TOOLS
    from backscroll.retrieval.policy.repeat import key_from_args

    for n in range(6):
        session_builder.claude(f"p{n}").user(f"the flaky retry test number {n} failed again on CI")
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        whole = bs.search("flaky retry test", mode="lexical", limit=4, weak=True).results
        page = bs.search("flaky retry test", mode="lexical", limit=2, offset=2, weak=True).results
    assert len(whole) == 4 and [(h.rank, h.record_id) for h in page] == [(h.rank, h.record_id) for h in whole[2:]]
    out = CliRunner().invoke(app, ["--home", str(backscroll_home.data), "search", "flaky retry test", "--mode",
                                   "lexical", "--weak", "-n", "2", "--offset", "2", "--no-sync", "--ids"])
    assert out.exit_code == 0 and out.stdout.split() == [h.record_id for h in whole[2:]]
    assert TOOLS["search"].input_schema()["properties"]["offset"]["minimum"] == 0
    assert key_from_args(["search", "x", "--offset", "10"]) != key_from_args(["search", "x"])


def test_a_page_of_a_search_with_nothing_strong_holds_the_next_weak_matches(session_builder, backscroll_home):
    for n in range(6):
        session_builder.claude(f"p{n}").user(f"the flaky retry test number {n} failed again on CI")
    asked = "terraform state lock retry in the s3 backend"  # (shares one word with every session)
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        whole = bs.search(asked, mode="lexical", limit=4)
        page = bs.search(asked, mode="lexical", limit=2, offset=2)
    assert whole.results == page.results == () and len(whole.weak_matches) == 4
    assert [(h.rank, h.record_id) for h in page.weak_matches] == [(h.rank, h.record_id)
                                                                  for h in whole.weak_matches[2:]]
    assert "nothing strong: 2 weak matches held back in weak_matches" in page.notes


def test_by_session_a_page_of_weak_matches_skips_whole_sessions(session_builder, backscroll_home):
    """With nothing strong, ``--by-session`` pages the weak matches by session too, as ``--weak`` pages them."""
    for n in range(5):
        s = session_builder.claude(f"p{n}")
        for k in range(3):  # (a session's records rank together: each says the word as often)
            s.user(f"the flaky {'retry ' * (5 - n)}test number {n}.{k} failed again on CI")
    asked = "terraform state lock retry in the s3 backend"  # (shares one word with every session)
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        shown = bs.search(asked, mode="lexical", limit=2, offset=2, by_session=True, weak=True)
        page = bs.search(asked, mode="lexical", limit=2, offset=2, by_session=True)
    assert not page.results and len(shown.sessions) == 2
    assert list(dict.fromkeys(h.session_id for h in page.weak_matches)) == [g.session_id for g in shown.sessions]


def test_sessions_within_a_token_budget_list_only_the_hits_kept(session_builder, backscroll_home):
    for n in range(4):
        s = session_builder.claude(f"p{n}")
        for k in range(3):
            s.user(f"the flaky retry test {n}.{k} failed again on CI: " + "the runner log says more. " * 12)
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        fitted = bs.search("flaky retry test", mode="lexical", limit=4, weak=True, by_session=True,
                           max_chars=0, max_tokens=300)
    listed = [h for g in fitted.sessions for h in g.hits]
    assert 0 < len(fitted.results) < 12 and all(g.hits for g in fitted.sessions)
    assert [(h.record_id, h.text) for h in listed] == [(h.record_id, h.text) for h in fitted.results]


def test_a_page_of_sessions_holds_those_sessions_hits(session_builder, backscroll_home):
    """With --by-session, ``offset`` counts sessions, and the results are the hits of the sessions shown."""
    for n in range(5):
        s = session_builder.claude(f"p{n}")
        for k in range(3):
            s.user(f"the flaky retry test number {n}.{k} failed again on CI")
    with Backscroll(home=backscroll_home.data) as bs:
        bs.index(embed=False)
        whole = bs.search("flaky retry test", mode="lexical", limit=4, weak=True, by_session=True)
        page = bs.search("flaky retry test", mode="lexical", limit=2, offset=2, weak=True, by_session=True)
    assert [g.session_id for g in page.sessions] == [g.session_id for g in whole.sessions[2:]]
    assert [h.record_id for h in page.results] == [h.record_id for g in whole.sessions[2:] for h in g.hits]
