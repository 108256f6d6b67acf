"""Filters are hints; repeated searches in one agent turn are not run again."""

import shlex
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.dates import format_ts
from backscroll.retrieval.policy.repeat import key_from_args, make_key

ANSWER = "The flaky checkout test was a timezone bug: freeze time at noon UTC, not midnight local."


@pytest.fixture
def tagged_story(session_builder):
    s = session_builder.claude(project="shop")
    s.user("why does test_checkout_total flake on CI?")
    s.assistant(ANSWER)  # the answer is assistant prose
    s.user("does the checkout test still flake after the timezone change?")  # user rows that match too
    other = session_builder.claude(project="infra")
    other.assistant("The flaky checkout test in infra is unrelated: it is a DNS timeout.")
    return s


def test_guessed_filter_adds_unfiltered_extras_and_keeps_project(tagged_story, backscroll_index, backscroll_search):
    backscroll_index()
    res = backscroll_search("flaky checkout test timezone", role="user", project="shop", mode="lexical")
    assert all(h.role == "user" for h in res.results)  # (no user row says "flaky": judged in that scope, weak)
    assert ANSWER in [h.text for h in res.also_matching]
    assert res.dropped_filters == ("role",)
    assert all(h.project == "shop" for h in res.also_matching), "--project is kept"
    assert len(res.also_matching) <= 3
    assert [h.rank for h in res.also_matching] == list(range(1, len(res.also_matching) + 1))


def test_peer_live_case_answer_only_in_untagged_records(session_builder, backscroll_index, backscroll_search):
    """A small model guessed --agent codex; the answer lives only in Claude sessions."""
    c = session_builder.claude(project="api")
    c.assistant("Rate limits: 600 requests per minute per token, enforced in the gateway.")
    x = session_builder.codex(project="api")
    x.user("add a limit on upload size")  # what the filtered search returns instead
    backscroll_index()
    res = backscroll_search("rate limits per minute", agent="codex", mode="lexical")
    assert "600 requests per minute" not in " ".join(h.text for h in res.results)
    assert any("600 requests per minute" in h.text for h in res.also_matching)
    assert res.dropped_filters == ("agent",)


def test_unfiltered_search_runs_once_unchanged(tagged_story, backscroll_index, backscroll_search):
    backscroll_index()
    res = backscroll_search("flaky checkout test", mode="lexical")
    assert res.also_matching == () and res.dropped_filters == ()


def test_nothing_added_when_filters_left_nothing_out(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("zebra crossing near the office")
    s.assistant("noted")
    backscroll_index()
    res = backscroll_search("zebra crossing", role="user", mode="lexical")
    assert [h.text for h in res.results] == ["zebra crossing near the office"]
    assert res.also_matching == () and res.dropped_filters == ()


def test_extras_never_include_echoes_by_default(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("which port does the staging gateway use?")
    for _ in range(3):
        s.search_echo("staging gateway port", "staging gateway port is 8443")
    backscroll_index()
    res = backscroll_search("staging gateway port", role="assistant", mode="lexical")
    assert res.also_matching and not any(h.is_echo for h in res.also_matching)
    with_echoes = backscroll_search("staging gateway port", role="assistant", mode="lexical", include_echoes=True)
    assert any(h.is_echo for h in with_echoes.also_matching)


def test_strict_turns_extras_off(tagged_story, backscroll_index, backscroll_search):
    backscroll_index()
    res = backscroll_search("flaky checkout test timezone", role="user", strict=True, mode="lexical")
    assert res.also_matching == () and res.dropped_filters == ()


def test_human_output_shows_the_extras_under_a_heading(tagged_story, backscroll_home, session_builder):
    r = CliRunner().invoke(app, ["search", "flaky", "checkout", "test", "timezone", "--role", "user",
                                 "--project", "shop", "--mode", "lexical"])
    assert r.exit_code == 0
    assert "Also matching without --role user (these records are not tagged that way):" in r.stdout
    assert "freeze time at noon UTC" in r.stdout.split("Also matching")[1]
    session_builder.codex(project="shop").user("the deploy script").assistant("renamed")
    r = CliRunner().invoke(app, ["search", "flaky", "checkout", "test", "timezone", "--agent", "codex",
                                 "--mode", "lexical"])
    assert "Also matching without --agent codex (other agents' records):" in r.stdout, r.stdout


# -- repeated searches -------------------------------------------------------------------------

NOW = datetime(2026, 11, 3, 14, 0, tzinfo=UTC)  # the clock these searches run at, not the wall clock


@pytest.fixture
def backscroll_search(backscroll_search):
    def at_now(query, **kw):
        return backscroll_search(query, **{"now": NOW, **kw})

    return at_now


def _recent(seconds_ago: int, now: datetime = NOW) -> str:
    return format_ts(now - timedelta(seconds=seconds_ago))


def _turn(session_builder, now: datetime):
    old = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    old.assistant("Use Postgres SKIP LOCKED for the job queue.")
    s = session_builder.claude(project="shop", start=_recent(60, now))
    s.clock.step = timedelta(seconds=2)
    s.user("what did we decide about the job queue?")
    s.search_echo("job queue", "1. Use Postgres SKIP LOCKED for the job queue.")
    return s


@pytest.fixture
def agent_turn(session_builder):
    """A session in which the agent already searched once and is now running a search."""
    return _turn(session_builder, NOW)


def running(session, command: str) -> None:
    """The agent's current call: in the log, its output not yet."""
    session.tool_use("Bash", {"command": command, "description": "search history"})


def test_repeated_search_in_one_turn_returns_the_note(agent_turn, backscroll_index, backscroll_search):
    running(agent_turn, "backscroll search 'job queue'")
    res = backscroll_search("job queue", caller_argv=["search", "job queue"])
    assert res.results == () and res.repeated is not None
    assert res.repeated["session_id"] == agent_turn.session_id
    assert res.notes[0].startswith("[repeated search] this session already ran this search at ")
    assert "rerun=True" in res.notes[0]  # the library's words (the CLI says --rerun: test_library_api)


@pytest.mark.parametrize("earlier,current,kw", [
    ("backscroll search \"job queue\" --limit 5 --json", "backscroll search --limit=5 job queue", {"limit": 5}),
    ("cd /x && backscroll search job   queue --no-sync", "backscroll search 'Job Queue'", {}),
    ("backscroll search --role user job queue", "backscroll search job queue --role=user --json", {"role": "user"}),
])
def test_same_search_whatever_the_order_or_quoting(session_builder, backscroll_search, earlier, current, kw):
    s = session_builder.claude(start=_recent(30))
    s.clock.step = timedelta(seconds=2)  # calls logged in the past: a future timestamp is ignored
    s.user("find it")
    s.tool(earlier, "results")
    running(s, current)
    res = backscroll_search("job queue", caller_argv=shlex.split(current)[1:], **kw)
    assert res.repeated is not None


@pytest.mark.parametrize("current,kw", [
    ("backscroll search job queue postgres", {"query": "job queue postgres"}),
    ("backscroll search job queue --role user", {"role": "user"}),
    ("backscroll search job queue --limit 20", {"limit": 20}),
    ("backscroll search job queue --mode semantic", {"mode": "semantic"}),
])
def test_different_query_or_filters_run_normally(agent_turn, backscroll_index, backscroll_search, current, kw):
    running(agent_turn, current)
    query = kw.pop("query", "job queue")
    res = backscroll_search(query, caller_argv=shlex.split(current)[1:], **kw)
    assert res.repeated is None and res.results


def test_a_new_user_message_resets_the_turn(agent_turn, backscroll_search):
    agent_turn.user("search again please, I added notes")
    running(agent_turn, "backscroll search 'job queue'")
    res = backscroll_search("job queue", caller_argv=["search", "job queue"])
    assert res.repeated is None and res.results


def test_rerun_always_runs(agent_turn, backscroll_search):
    running(agent_turn, "backscroll search 'job queue' --rerun")
    res = backscroll_search("job queue", rerun=True)
    assert res.repeated is None and res.results


def test_no_calling_session_means_normal_results(session_builder, backscroll_search):
    s = session_builder.claude(start="2026-10-01T09:00:00Z")  # echoes long ago, not this call
    s.user("what about the queue?")
    s.search_echo("job queue", "old output")
    s.search_echo("job queue", "old output")
    s.assistant("Use Postgres SKIP LOCKED for the job queue.")
    res = backscroll_search("job queue")
    assert res.repeated is None and res.results


def test_session_id_from_the_environment(agent_turn, backscroll_search, monkeypatch):
    agent_turn.at("2026-10-05T10:00:00Z")  # timestamps too old for the two-minute window
    running(agent_turn, "backscroll search 'job queue'")
    assert backscroll_search("job queue", caller_argv=["search", "job queue"]).repeated is None
    res = backscroll_search("job queue", caller_session=agent_turn.session_id)
    assert res.repeated is not None


def test_cli_prints_the_note_and_json_names_the_earlier_call(session_builder, backscroll_home, monkeypatch):
    agent_turn = _turn(session_builder, datetime.now(UTC))  # the CLI judges by the wall clock
    running(agent_turn, "backscroll search 'job queue' --json")
    monkeypatch.setattr("sys.argv", ["backscroll", "search", "job queue", "--json"])  # this process's argv
    r = CliRunner().invoke(app, ["search", "job", "queue", "--json"])
    import json

    data = json.loads(r.stdout)
    assert r.exit_code == 0 and data["results"] == [] and data["repeated"]["record_id"]
    running(agent_turn, "backscroll search 'job queue'")
    monkeypatch.setattr("sys.argv", ["backscroll", "search", "job queue"])
    r = CliRunner().invoke(app, ["search", "job queue"])
    assert r.stdout.startswith("[repeated search]")


def test_key_parsing():
    assert key_from_args(["search", "a", "b", "--limit", "5", "--json"]) == (make_key("a b", limit=5), False)
    assert key_from_args(["search", "--rerun", "x"]) == (make_key("x"), True)
    assert key_from_args(["search", "--unknown", "x"]) is None
    assert key_from_args(["search", "--limit"]) is None
    assert key_from_args(["show", "x"]) is None
    # Asking for weak matches or for sessions asks for something else: not a repeat of the plain search.
    assert key_from_args(["search", "x", "--weak"])[0] != make_key("x")  # type: ignore[index]
    assert key_from_args(["search", "x", "--by-session"])[0] != make_key("x")  # type: ignore[index]
    assert key_from_args(["search", "-n5", "x", "--since=2W"]) == (make_key("x", limit=5, since="2w"), False)


def test_a_person_is_not_told_about_an_agents_finished_searches(session_builder, backscroll_search):
    """An agent searched twice a minute ago (both calls have their output): the person's search runs."""
    s = session_builder.claude(start=_recent(60))
    s.user("what did we decide about redis?")
    s.search_echo("redis decision", "1. Use Redis only as a cache")
    s.search_echo("redis decision", "1. Use Redis only as a cache")
    s.assistant("Redis stays a cache only.")
    res = backscroll_search("redis decision")
    assert res.repeated is None and res.results


def test_the_repeat_check_runs_on_the_given_clock(agent_turn, backscroll_search):
    """The same log, judged at two moments: in the turn's window it is a repeat, an hour on it is not."""
    running(agent_turn, "backscroll search 'job queue'")
    assert backscroll_search("job queue", caller_argv=["search", "job queue"], now=NOW).repeated is not None
    later = backscroll_search("job queue", caller_argv=["search", "job queue"], now=NOW + timedelta(hours=1))
    assert later.repeated is None and later.results


@pytest.mark.parametrize("agent_var", ["CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_THREAD_ID", "CLAUDECODE", None])
def test_an_agent_shell_on_a_pseudo_terminal_is_still_an_agent(session_builder, backscroll_home, agent_var):
    """Codex runs commands on a pseudo-terminal, which looks like a person; the variables an agent's shell
    tool sets say otherwise, so the repeat check applies. Without them a terminal is a person's."""
    from helpers import cli_env, run_tty

    agent_turn = _turn(session_builder, datetime.now(UTC))  # the CLI judges by the wall clock
    running(agent_turn, "backscroll search 'job queue'")
    env = cli_env(backscroll_home, NO_COLOR="1", **({agent_var: "1"} if agent_var else {}))  # (no other agent's)
    code, out = run_tty(backscroll_home, "search", "job queue", env=env)  # the exact argv of the call in flight
    assert code == 0, out
    if agent_var:
        assert "[repeated search]" in out, out
    else:
        assert "[repeated search]" not in out and "SKIP LOCKED" in out, out


def test_agent_shell_variables():
    from backscroll.cli.common import run_by_agent

    assert run_by_agent({"CLAUDECODE": "1"}) and run_by_agent({"CODEX_SANDBOX": "seatbelt"})
    assert run_by_agent({"CODEX_THREAD_ID": "019a0000-0000-7000-8000-000000000002"}), "Codex unsandboxed, on Linux"
    assert not run_by_agent({"CLAUDECODE": "", "TERM": "xterm"}) and not run_by_agent({})


def test_a_search_the_person_typed_into_the_session_is_never_told_it_repeats(agent_turn, backscroll_search):
    """Claude Code's ``!`` bash mode: the person types `! backscroll search …` after the agent ran the
    same search; the command runs in the agent's shell (CLAUDECODE set, no terminal), and its in-flight
    call is in the log as the person's. The person gets results, never the note."""
    agent_turn.write(agent_turn._envelope("user", {"role": "user", "content":
                                                    "<bash-input>backscroll search 'job queue'</bash-input>"}))
    res = backscroll_search("job queue", caller_argv=["search", "job queue"])
    assert res.repeated is None and res.results, res.notes


def test_an_agent_the_question_names_is_a_hint(session_builder, backscroll_index, backscroll_search):
    """Issue #36: "what did codex do in March" read "codex" as a word to find."""
    session_builder.claude(start="2026-03-10T09:00:00Z").user("the retry backoff for the webhook").assistant(
        "Claude: exponential retry backoff with jitter, capped at a minute.")
    session_builder.codex(start="2026-03-12T09:00:00Z").user("the retry backoff for the webhook").assistant(
        "Codex: a fixed retry backoff of five seconds.")
    session_builder.claude(start="2026-04-02T09:00:00Z").user("codex config.toml: where does the model go?")
    backscroll_index(embed=False)
    asked = backscroll_search("what did codex do for the webhook retry backoff?", mode="lexical")
    assert asked.filters.agent == "codex" and asked.results, (asked.notes, asked.weak_matches)
    assert asked.results[0].agent == "codex"
    assert {h.agent for h in asked.also_matching} == {"claude"} and "agent" in asked.dropped_filters
    assert any("--agent codex" in n for n in asked.notes)
    march = backscroll_search("what did codex do in March?", mode="lexical", now="2026-11-30T12:00:00Z")
    assert [h.agent for h in march.results] == ["codex"], march.results
    topic = backscroll_search("codex config.toml", mode="lexical")
    assert topic.filters.agent is None and "config.toml" in topic.results[0].text
    none = backscroll_search("what did gemini do for the webhook retry backoff?", mode="lexical")
    assert none.filters.agent is None and none.results, "no gemini sessions: the others' matches, and a note"
    assert any("no gemini sessions are indexed" in n for n in none.notes), none.notes


def test_the_new_agents_named_as_the_subject_are_hints_and_vibe_stays_a_word():
    from backscroll.retrieval.spoken_agent import find

    assert find("what did kiro change in the deploy script") == ("kiro", "what did change in the deploy script")
    assert find("auggie sessions about the cache") == ("auggie", "about the cache")
    assert find("what did openclaw say about invoices")[0] == "openclaw"
    assert find("the vibe of the release notes") == (None, "the vibe of the release notes")


def test_empty_results_under_a_hint_say_where_the_answers_went(session_builder, backscroll_index, backscroll_search):
    """An agent reads empty `results` as "nothing found": when the hint held the answers back, a note says so."""
    s = session_builder.claude(project="shop")
    s.user("why is the checkout test flaky?")
    s.assistant("It depended on the wall clock: we froze time at noon UTC with freezegun.")
    backscroll_index()
    res = backscroll_search("froze time noon UTC freezegun", role="user", mode="lexical")
    assert res.results == () and len(res.also_matching) == 1 and res.dropped_filters == ("role",)
    assert "nothing strong with --role user; 1 match without it follows in also_matching" in res.notes, res.notes
    found = backscroll_search("froze time noon UTC freezegun", mode="lexical", rerun=True)
    assert not any(n.startswith("nothing strong with") for n in found.notes)
