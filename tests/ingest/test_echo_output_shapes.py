"""A tool's output that is backscroll's own search or show output is a query echo, whatever ran it: a background
shell read later by another tool, backscroll's MCP server registered under another name, a script (echo rules 6;
7: the by-session tsv row and a one-record show).
The outputs here are printed by the real CLI from a real store."""

import inspect
import json

import pytest
from helpers import rows, unflagged_as_by_rules
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest import echo_output
from backscroll.ingest.echo_output import is_retrieval_output

SECRET = "zanzibar quokka"
runner = CliRunner(env={"COLUMNS": "200", "NO_COLOR": "1"})


@pytest.fixture
def printed(session_builder, backscroll_index, backscroll_home) -> dict[str, str]:
    """Every output of ``search`` and ``show`` (and of commands that retrieve nothing) for a store holding the
    decision, keyed by the command."""
    s = session_builder.claude(project="shop")
    s.user(f"which plan for the {SECRET} migration?")
    s.assistant(f"We chose the {SECRET} plan: copy in batches, then switch reads.")
    backscroll_index(embed=False)
    record = rows(backscroll_home, "SELECT record_id FROM records WHERE role = 'assistant'")[0]["record_id"]
    out = {}
    for args in (["search", SECRET, "--mode", "lexical"], ["search", SECRET, "--mode", "lexical", "--by-session"],
                 ["search", SECRET, "--json"], ["search", SECRET, "--format", "jsonl"],
                 ["search", SECRET, "--format", "tsv"], ["show", s.session_id], ["show", record],
                 ["show", s.session_id, "--json"], ["show", s.session_id, "--format", "markdown"],
                 ["search", SECRET, "--by-session", "--format", "tsv"], ["show", record, "-C", "0"],
                 ["list"], ["status"], ["status", "--json"], ["stats"], ["search", SECRET, "--format", "ids"]):
        res = runner.invoke(app, ["--no-pager", *args])
        assert res.exit_code == 0 and res.stdout.strip(), (args, res.output)
        out[" ".join(args)] = res.stdout
    return out


def test_what_search_and_show_print_is_their_output_and_nothing_else_is(printed):
    shaped = {command for command, text in printed.items() if is_retrieval_output(text)}
    assert shaped == {c for c in printed if c.split()[0] in ("search", "show") and not c.endswith("ids")}
    wrapped = '[{"type": "text", "text": "' + printed[f"search {SECRET} --json"].replace('"', '\\"') + '"}]'
    assert is_retrieval_output(wrapped), "an MCP answer inside the agent's own JSON"
    assert is_retrieval_output("\x1b[1m" + printed[f"search {SECRET} --mode lexical"].replace(
        "backscroll show", "\x1b[2mbackscroll show\x1b[0m")), "in colour"
    saved = printed[f"search {SECRET} --mode lexical"]
    numbered = "".join(f"{n:>6}→{line}\n" for n, line in enumerate(saved.splitlines(), 1))
    assert is_retrieval_output(numbered), "saved to a file and read back with Claude Code's Read"
    assert not is_retrieval_output(json.dumps(json.loads(printed[f"search {SECRET} --json"]), indent=2)), \
        "backscroll writes JSON compact: a document laid out (the README's sample) was written by a person"
    assert is_retrieval_output("".join(f"{n:>6}\t{line}\n" for n, line in enumerate(saved.splitlines(), 1)))
    assert not is_retrieval_output(inspect.getsource(echo_output)), "the rules' own source, read"
    narrow = saved.replace("    We chose", "    We\n    chose\n    the\n    plan\n    and\n   ")
    assert is_retrieval_output(narrow), "a snippet wrapped on a narrow terminal"
    for text in ('    return {"schema_version": 1, "kind": "experiment", "results": rows}',
                 '{"schema_version": 2, "kind": "observe"}', 'E   assert {"schema_version": 1, "query": "foo"} == {}',
                 "acme/api#123\tOPEN\tFix login\tbug\t2024-01-02", "1. a · b\n  backscroll show X",
                 "run#1\t0.93\t0.91\t0.88\t12.3",
                 "session \n" + " " * 262144, "1. " + " ·" * 131072,
                 "src/a.py:12: # backscroll show is run by the hook\nREADME.md:3: `backscroll show ID` opens a hit",
                 "1. Install · pip install backscroll\n   then run `backscroll show`", "session 4 · records 1–3 of 9",
                 "web-1\t3d ago\tnginx\tup\t", "session 4 · record 1 of 9",
                 "a\tb#1\tc\td\te", '{"schema_version": 1, "error": {"kind": "usage"}}', ""):
        assert not is_retrieval_output(text), text


def test_a_background_search_read_by_another_tool_and_a_renamed_server_are_echoes(
        printed, session_builder, backscroll_index, backscroll_search, backscroll_home):
    s = session_builder.claude(project="shop")
    s.user("pick up the migration where we left it")
    started = s.tool_use("Bash", {"command": f"backscroll search '{SECRET}'", "run_in_background": True})
    s.tool_result(started, "Command running in background with ID: b7")
    polled = s.tool_use("BashOutput", {"bash_id": "b7"})
    s.tool_result(polled, "<status>completed</status>\n<stdout>\n" + printed[f"search {SECRET} --mode lexical"]
                  + "</stdout>")
    renamed = s.tool_use("mcp__history__search", {"query": f"{SECRET} plan"})
    s.tool_result(renamed, printed[f"search {SECRET} --json"])
    script = s.tool_use("Bash", {"command": "python3 scripts/recall.py migration"})
    s.tool_result(script, next(text for command, text in printed.items() if command.endswith("markdown")))
    plain = s.tool_use("Bash", {"command": "ls"})
    s.tool_result(plain, "README.md\nsrc")
    backscroll_index(embed=False)
    flags = {(r["tool_name"], r["is_call"]): r["is_echo"] for r in rows(backscroll_home, "SELECT * FROM records "
                                                                        "WHERE session_id = ?", (s.session_id,))
             if r["tool_name"] and r["tool_name"] != "Bash"}
    assert flags == {("BashOutput", 1): 1, ("BashOutput", 0): 1, ("mcp__history__search", 1): 1,
                     ("mcp__history__search", 0): 1}
    python = rows(backscroll_home, "SELECT is_echo, text FROM records WHERE tool_call_id = ?", (script,))
    assert [r["is_echo"] for r in python] == [1, 1]
    assert rows(backscroll_home, "SELECT is_echo FROM records WHERE tool_call_id = ?", (plain,))[0]["is_echo"] == 0
    found = backscroll_search(SECRET, mode="lexical", limit=20)
    assert found.results and {h.session_id for h in found.results} != {s.session_id}
    assert not any(h.is_echo for h in found.results)
    assert any(h.is_echo for h in backscroll_search(SECRET, mode="lexical", limit=20, include_echoes=True).results)


def test_an_output_read_after_its_call_and_a_store_classified_by_older_rules(
        printed, session_builder, backscroll_index, backscroll_search, backscroll_home):
    """The MCP server under another name syncs the session that calls it, so the call is read before its output:
    once the output shows it was backscroll's answer, the stored call is flagged too, and the index hides it."""
    s = session_builder.claude(project="shop")
    asked = s.tool_use("mcp__history__search", {"query": "okapi ledger reconciliation"})
    backscroll_index(embed=False)  # the call alone: still running
    assert backscroll_search("okapi ledger reconciliation", mode="lexical").results, "a call of another tool"
    s.tool_result(asked, printed[f"search {SECRET} --format tsv"])
    backscroll_index(embed=False)
    flags = sorted((r["is_call"], r["is_echo"]) for r in rows(backscroll_home, "SELECT * FROM records WHERE "
                                                                "tool_call_id = ?", (asked,)))
    assert flags == [(0, 1), (1, 1)]
    assert not backscroll_search("okapi ledger reconciliation", mode="lexical").results
    assert backscroll_search("okapi ledger reconciliation", mode="lexical", include_echoes=True).results
    unflagged_as_by_rules(backscroll_home, 5)
    backscroll_index(embed=False)
    flags = sorted((r["is_call"], r["is_echo"]) for r in rows(backscroll_home, "SELECT * FROM records WHERE "
                                                                "tool_call_id = ?", (asked,)))
    assert flags == [(0, 1), (1, 1)], "classified again by the rules of today"


def test_a_store_classified_by_older_rules_finds_every_shape_again(printed, session_builder, backscroll_index,
                                                                   backscroll_home):
    """Classifying a store again looked only at outputs holding a ``#`` beside a tab, so the rows of
    ``search --by-session -f tsv`` (a session id, no ``#``) stayed unflagged in a store classified before."""
    s = session_builder.claude(project="shop")
    shown = {c: text for c, text in printed.items() if c.split()[0] in ("search", "show") and not c.endswith("ids")}
    calls = {c: s.tool_use("mcp__history__search", {"query": c}) for c in shown}
    for command, call in calls.items():
        s.tool_result(call, shown[command])
    s.tool("./notes.sh", "session 4 is what we chose · not an answer of backscroll")  # (a look-alike stays)
    backscroll_index(embed=False)
    unflagged_as_by_rules(backscroll_home, 5)
    backscroll_index(embed=False)
    flagged = {c for c, call in calls.items() if rows(backscroll_home, "SELECT is_echo FROM records WHERE "
                                                      "tool_call_id = ? AND is_call = 0", (call,))[0]["is_echo"]}
    assert flagged == set(shown), set(shown) - flagged
    assert not rows(backscroll_home, "SELECT 1 FROM records WHERE text LIKE './notes.sh%' AND is_echo = 1")


def test_a_search_the_person_ran_with_codexs_shell_escape_is_an_echo(printed, session_builder, backscroll_index,
                                                                     backscroll_home):
    """Codex logs ``!backscroll search …`` typed by the person as a message of its own, the output inside."""
    s = session_builder.codex(project="shop")
    s.user(f"<user_shell_command>\n<command>backscroll search {SECRET}</command>\n<result>\n"
           f"{printed[f'search {SECRET} --mode lexical']}</result>\n</user_shell_command>")
    s.user("<user_shell_command>\n<command>ls</command>\n<result>\nREADME.md\n</result>\n</user_shell_command>")
    backscroll_index(embed=False)
    flags = [r["is_echo"] for r in rows(backscroll_home, "SELECT is_echo FROM records WHERE session_id = ? "
                                                        "ORDER BY id", (s.session_id,))]
    assert flags == [1, 0]
