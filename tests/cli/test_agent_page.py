"""``show`` run by an agent's shell: a session comes a page at a time, each text cut, unless asked otherwise."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import cli_env, run_cli


def _long_session(session_builder, backscroll_index, turns=60, words="about the queue"):
    s = session_builder.claude(project="shop")
    for n in range(turns):
        s.user(f"question {n} {words}").assistant(f"answer {n}: Postgres")
    backscroll_index(embed=False)
    return s.session_id


def test_an_agent_reads_a_long_session_a_page_at_a_time(session_builder, backscroll_index, backscroll_home, tmp_path):
    """A 7.5 MB session went whole into the context of the agent that ran `backscroll show`."""
    sid = _long_session(session_builder, backscroll_index)
    agent = cli_env(backscroll_home, CLAUDECODE="1")
    r = run_cli(backscroll_home, "show", sid, "--no-sync", env=agent)
    assert r.returncode == 0 and "answer 24: Postgres" in r.stdout and "question 25 " not in r.stdout, r.stdout[-300:]
    assert f"70 more: backscroll show {sid} --offset 50 --limit 50" in r.stdout
    assert "records 1–50 of 120; --offset 50 reads on" in r.stderr, r.stderr
    page = json.loads(run_cli(backscroll_home, "show", sid, "--json", "--no-sync", env=agent).stdout)
    assert len(page["records"]) == 50 and page["total"] == 120
    asked = run_cli(backscroll_home, "show", sid, "--limit", "100", "--no-sync", env=agent)
    assert "answer 49: Postgres" in asked.stdout and "records 1–100 of 120" in asked.stderr
    for form in (["--format", "markdown"], ["--path"]):  # (an export, a path: as they were)
        assert "a page at a time" not in run_cli(backscroll_home, "show", sid, *form, "--no-sync", env=agent).stderr
    assert "answer 59: Postgres" in run_cli(backscroll_home, "show", sid, "--no-sync").stdout  # (a person: whole)
    with open(tmp_path / "session.txt", "w") as out:  # (into a file nobody reads whole: whole)
        subprocess.run([sys.executable, "-m", "backscroll", "show", sid, "--no-sync"], env=agent, stdout=out,
                       check=True, timeout=120)
    assert "answer 59: Postgres" in (tmp_path / "session.txt").read_text()


def test_an_agents_page_fits_its_budget_and_cuts_each_text(session_builder, backscroll_index, backscroll_home):
    long = "lorem ipsum " * 3_000  # (36,000 characters)
    sid = _long_session(session_builder, backscroll_index, turns=6, words=long)
    agent = cli_env(backscroll_home, CLAUDECODE="1")
    page = json.loads(run_cli(backscroll_home, "show", sid, "--json", "--no-sync", env=agent).stdout)
    texts = [len(r["text"]) for r in page["records"]]
    assert max(texts) <= 20_000 and sum(texts) <= 80_000 and len(texts) == 6, texts  # (3 questions cut, 3 answers)
    assert page["records"][0]["text_truncated"] is True
    whole = json.loads(run_cli(backscroll_home, "show", sid, "--json", "--max-chars", "0", "--no-sync",
                               env=agent).stdout)
    assert [len(r["text"]) > 36_000 for r in whole["records"]] == [True, False, True, False], whole["total"]


def test_the_next_pages_command_keeps_the_budget(session_builder, backscroll_index, backscroll_home):
    """The line that says how to read on names --limit, which turned the budget off: its page printed 800,000
    characters."""
    s = session_builder.claude(project="shop")
    for n in range(30):
        s.user(f"short question {n}").assistant(f"short answer {n}")
    for n in range(30):
        s.user(f"long question {n} " + "lorem ipsum " * 2_500).assistant(f"long answer {n} " + "dolor sit " * 3_000)
    backscroll_index(embed=False)
    agent = cli_env(backscroll_home, CLAUDECODE="1")
    first = run_cli(backscroll_home, "show", s.session_id, "--json", "--no-sync", env=agent)
    assert len(json.loads(first.stdout)["records"]) == 50
    human = run_cli(backscroll_home, "show", s.session_id, "--no-sync", env=agent).stdout
    [line] = [x for x in human.splitlines() if " more: backscroll show " in x]
    command = line.split("more: ", 1)[1].split()  # backscroll show ID --offset 50 --limit 50
    assert command[3:] == ["--offset", "50", "--limit", "50"], command
    page = json.loads(run_cli(backscroll_home, *command[1:], "--json", "--no-sync", env=agent).stdout)
    assert 0 < sum(len(r["text"]) for r in page["records"]) <= 80_000 and len(page["records"]) < 50


def test_a_record_comes_with_the_context_that_fits(session_builder, backscroll_index, backscroll_home):
    s = session_builder.claude(project="shop")
    for n in range(12):
        s.user(f"question {n} " + "lorem ipsum " * 2_500).assistant(f"answer {n}: Postgres")
    backscroll_index(embed=False)
    rid = json.loads(run_cli(backscroll_home, "show", s.session_id, "--json", "--no-sync").stdout)["records"][12]
    agent = cli_env(backscroll_home, CLAUDECODE="1")
    r = run_cli(backscroll_home, "show", rid["record_id"], "-C", "10", "--json", "--no-sync", env=agent)
    got = json.loads(r.stdout)
    texts = [len(h["text"]) for h in got["records"]]
    assert sum(texts) <= 80_000 and rid["record_id"] in [h["record_id"] for h in got["records"]], texts
    ranks = [h["rank"] for h in got["records"]]
    assert ranks == list(range(ranks[0], ranks[-1] + 1)) and ranks[0] <= 13 <= ranks[-1], ranks
    assert abs((13 - ranks[0]) - (ranks[-1] - 13)) <= 1, "the context nearest the record, either side"
    assert "the context is what fits" in r.stderr, r.stderr
    alone = run_cli(backscroll_home, "show", rid["record_id"], "-C", "0", "--no-sync", env=agent)
    assert "texts are cut at 20,000 characters (--max-chars 0: whole)" in alone.stderr, "a cut text says so too"
    whole = json.loads(run_cli(backscroll_home, "show", rid["record_id"], "-C", "10", "--json", "--no-sync").stdout)
    assert len(whole["records"]) == 21  # (a person: all of it)



def test_what_an_agents_page_prints_fits_the_budget_not_only_its_texts(session_builder, backscroll_index,
                                                                       backscroll_home):
    """Only the texts were counted: 2,000 short records, each with its long directory, printed 5 MB of JSON."""
    s = session_builder.codex(project="shop", cwd="/srv/" + "d" * 900 + "/shop")
    for n in range(600):
        s.user(f"hi {n}").assistant(f"ok {n}")
    backscroll_index(embed=False)
    agent = cli_env(backscroll_home, CLAUDECODE="1")
    asked = run_cli(backscroll_home, "show", s.session_id, "--json", "--limit", "1200", "--no-sync", env=agent)
    page = json.loads(asked.stdout)
    assert len(asked.stdout) <= 80_000 and 10 < len(page["records"]) < 1200, len(asked.stdout)
    assert f"of 1,200; --offset {len(page['records'])} reads on" in asked.stderr, asked.stderr
    human = run_cli(backscroll_home, "show", s.session_id, "--limit", "1200", "--no-sync", env=agent)
    assert len(human.stdout) <= 80_000 and "hi 0" in human.stdout, len(human.stdout)
    rid = page["records"][0]["record_id"]
    around = run_cli(backscroll_home, "show", rid, "-C", "1000", "--json", "--no-sync", env=agent)
    assert len(around.stdout) <= 80_000 and rid in around.stdout, len(around.stdout)
    assert len(run_cli(backscroll_home, "show", s.session_id, "--json", "--limit", "1200", "--no-sync").stdout) > 1e6
    pretty = run_cli(backscroll_home, "show", s.session_id, "--json", "--pretty", "--limit", "1200", "--no-sync",
                     env=agent)
    assert len(pretty.stdout) <= 80_000 and json.loads(pretty.stdout)["records"], len(pretty.stdout)


def test_the_note_names_the_length_texts_were_cut_at(session_builder, backscroll_index, backscroll_home):
    sid = _long_session(session_builder, backscroll_index, turns=3, words="lorem ipsum " * 100)
    agent = cli_env(backscroll_home, CLAUDECODE="1")
    r = run_cli(backscroll_home, "show", sid, "--max-chars", "500", "--no-sync", env=agent)
    assert "texts are cut at 500 characters" in r.stderr and "20,000" not in r.stderr, r.stderr
