"""Issue #18, a daily tool: honest match strength, ids and filters that explain themselves, local
time, output for agents (compact JSON, jsonl, fields, byte budgets) and for people (path:line,
pager, colour, tsv), and the smaller surprises."""

import json
import re
from datetime import UTC

import pytest
from helpers import cli_env, in_zone, run_cli, run_tty
from typer.testing import CliRunner

from backscroll.cli.app import app

PARENT = "34c6be73-9152-4f55-9572-3f0c5df10f7e"


def cli(*args, **kw):
    return CliRunner().invoke(app, [str(a) for a in args], **kw)


def error_of(stderr: str) -> dict:
    return json.loads(stderr.strip().splitlines()[-1])["error"]


@pytest.fixture
def corpus(session_builder, backscroll_index, backscroll_home):
    """Two projects, a Claude session with a subagent, and a Codex session."""
    s = session_builder.claude(project="acme-api", session_id=PARENT)
    s.user("why is the cart endpoint slow?")
    s.assistant("the cart endpoint runs an N+1 query over the line items; prefetch_related fixes it")
    sub = s.subagent()
    sub.user("profile the cart endpoint")
    sub.assistant("profiling shows 240 queries per cart request")
    c = session_builder.codex(project="infra")
    c.user("bump pgbouncer pool size")
    c.assistant("raised default_pool_size to 40 in pgbouncer.ini and reloaded it")
    backscroll_index(embed=True)
    return backscroll_home


# -- 1. honest match strength ---------------------------------------------------------------------

def test_a_nonsense_query_returns_nothing_and_says_so_on_stderr(corpus):
    r = cli("search", "xyzzyplugh", "--json", "--no-sync")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["results"] == [] and out["mode"] == "hybrid"
    r = cli("search", "xyzzyplugh", "--no-sync")
    assert r.exit_code == 0 and r.stdout == ""
    assert "No matches." in r.stderr


def test_every_hit_says_how_it_matched_and_how_strongly(corpus):
    out = json.loads(cli("search", "pgbouncer pool size", "--json", "--no-sync").stdout)
    hit = out["results"][0]
    assert "pgbouncer" in hit["text"]
    assert hit["match"] in ("exact", "words") and 0 < hit["strength"] <= 1
    results = json.loads(cli("search", "bump pgbouncer pool size", "--json", "--no-sync").stdout)["results"]
    holding = [h for h in results if "bump pgbouncer pool size" in h["text"].lower()]
    assert holding and all(h["match"] == "exact" and h["strength"] == 1.0 for h in holding)
    assert all(h["match"] != "exact" for h in results if h not in holding)


def test_a_meaning_only_hit_is_marked_in_human_output():
    from backscroll.cli.render import _entry
    from backscroll.types import Hit

    hit = Hit(rank=1, score=0.01, record_id="r#0", session_id="s", agent="claude", project="p", cwd=None,
              role="assistant", content_type="text", tool_name=None, is_echo=False, timestamp=None,
              source_path="/x/s.jsonl", line=3, text="t", text_truncated=False, snippet="t",
              matched_by=("semantic",), match="meaning", strength=0.4)
    assert "(meaning only)" in _entry(hit)[0].plain


def test_meaning_only_results_get_a_note():
    from backscroll.retrieval import evidence
    from backscroll.types import Hit

    hit = Hit(rank=1, score=0.01, record_id="r#0", session_id="s", agent="claude", project="p", cwd=None,
              role="assistant", content_type="text", tool_name=None, is_echo=False, timestamp=None,
              source_path="/x/s.jsonl", line=3, text="a thing", text_truncated=False, snippet="t",
              matched_by=("semantic",), rowid=7)
    from backscroll.retrieval.fusion import Candidate, Weights

    got = evidence.classify(hit, "other words", Candidate(7, 0.0, 0.5, ("semantic",)), Weights(0.8, 0.5))
    assert (got.match, got.strength) == ("meaning", 0.5)
    found = evidence.classify(hit, "thing else", Candidate(7, 0.64, 0.5, ("lexical", "semantic")),
                               Weights(0.8, 0.5))
    assert (found.match, found.strength) == ("words", 0.64), "the stronger evidence"
    # a modest cosine that stands out for its query ranks high, but its strength stays on the absolute scale
    standout = evidence.classify(hit, "other words", Candidate(7, 0.0, 1.0, ("semantic",), cosine=0.33),
                                 Weights(0.8, 0.5))
    assert standout.match == "meaning" and standout.strength == 0.25
    # meaning alone proposed it (a common word has more records than the lexical list proposes), but it holds words
    held = evidence.classify(hit, "thing else", Candidate(7, 0.64, 0.5, ("semantic",)), Weights(0.8, 0.5))
    assert (held.match, held.strength) == ("words", 0.64), "holding the words, it is no meaning-only hit"
    whole = evidence.classify(hit, "a thing", Candidate(7, 1.0, 0.5, ("semantic",)), Weights(0.8, 0.5))
    assert (whole.match, whole.strength) == ("exact", 1.0)
    # the quoted phrases filtered what the lexical lists found, not what meaning proposed
    quoted = evidence.classify(hit, '"other words" thing', Candidate(7, 0.5, 0.5, ("semantic",)), Weights(0.8, 0.5),
                               quoted=True)
    assert quoted.match == "words", "meaning proposed it: it need not hold the quoted phrase"



def test_a_word_no_record_holds_lowers_the_strength_and_is_named_but_leaves_the_order(session_builder,
                                                                                    backscroll_index,
                                                                                    backscroll_search):
    s = session_builder.claude(project="deploy")
    s.user("the helm rollback failed half way, what now?")
    s.assistant("Ran helm rollback to revision 41: the release is healthy again.")
    s.assistant("The rollback of the database migration has to wait for the release window.")
    s.assistant("Helm charts for the worker now pin the image digest.")
    s.tool('backscroll search "kuberntes helm rollback"', "no results")  # an earlier search: a query echo
    backscroll_index()
    plain = backscroll_search("helm rollback revision", mode="lexical", limit=5, weak=True)
    assert plain.echoes_hidden == 1
    typo = backscroll_search("kuberntes helm rollback revision", mode="lexical", limit=5, weak=True)
    assert [h.text for h in typo.results] == [h.text for h in plain.results], "an unheld word changes no rank"
    top, top_typo = plain.results[0], typo.results[0]
    assert top.strength == 1.0 and "revision 41" in top.text
    assert 0 < top_typo.strength < top.strength, "the record holds three of the four words asked for"
    assert all(b.strength < a.strength for a, b in zip(plain.results, typo.results, strict=True))
    assert any('"kuberntes"' in n and "did not count" in n for n in typo.notes), "only an echo holds it"
    assert not any("no record holds" in n for n in plain.notes)
    pasted = backscroll_search("kuberntes helm rollback 9f8e7d6c5b4a3f2e1d0c", mode="lexical", limit=5)
    note = next(n for n in pasted.notes if "no record holds" in n)
    assert '"kuberntes" and 1 token not repeated here' in note and "9f8e7d6c5b4a3f2e1d0c" not in note, \
        "a pasted token is not printed"
    alone = backscroll_search("9f8e7d6c5b4a3f2e1d0c", mode="lexical")
    assert alone.notes[0].startswith("no record holds any of the query's words (1 token not repeated here):")
    nothing = backscroll_search("kuberntes xyzzyplugh", mode="lexical")
    assert nothing.results == ()
    assert any(n.startswith("no record holds any of the query's words") and '"xyzzyplugh"' in n
               for n in nothing.notes)


@pytest.mark.slow
def test_real_model_nonsense_query_finds_nothing_and_a_paraphrase_is_a_weak_match(session_builder, backscroll_index,
                                                                                   backscroll_search, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minilm")
    answer = "we chose pendulum over arrow because its timezone-aware date maths handles DST transitions"
    s = session_builder.claude(project="calendar")
    s.user("which library should the scheduler use?")
    s.assistant(answer)
    for text in ("the retry queue now uses exponential backoff with jitter",
                 "the CSS grid breaks on narrow screens, switched to flexbox",
                 "upgraded postgres to 16 and reran the migrations"):
        d = session_builder.claude(project="calendar")
        d.user("status update?")
        d.assistant(text)
    backscroll_index()
    nonsense = backscroll_search("xyzzyplugh")
    assert nonsense.results == ()
    para = backscroll_search("what did we pick for calendar arithmetic", limit=5)
    # none of its words in the history, and only modestly close: the judgement holds it back, but offers it
    assert para.results == ()
    hit = next(h for h in para.weak_matches if h.text == answer)
    assert hit.match == "meaning" and hit.strength > 0
    # no record holds "pick", "calendar" or "arithmetic": one note says so, not a second on meaning-only hits
    assert [n for n in para.notes if "no record holds" in n or "by meaning only" in n] == [
        'no record holds any of the query\'s words ("pick", "calendar", "arithmetic"): misspelled, or never discussed']


# -- 2. ids ---------------------------------------------------------------------------------------

def test_show_prefix_of_a_session_with_subagents_opens_the_parent(corpus):
    r = cli("show", PARENT[:8], "--json", "--no-sync")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["session"]["session_id"] == PARENT


def test_an_ambiguous_prefix_lists_the_candidates(session_builder, backscroll_index):
    for sid in ("abcdef01-0000-4000-8000-000000000001", "abcdef02-0000-4000-8000-000000000002"):
        session_builder.claude(project="acme-api", session_id=sid).user("hello there")
    backscroll_index(embed=False)
    r = cli("show", "abcdef0", "--no-sync")
    assert r.exit_code == 2
    assert "abcdef01-0000-4000-8000-000000000001" in r.stderr and "abcdef02-0000-4000-8000-000000000002" in r.stderr
    assert "'abcdef0' is the start of 2 session ids; they are:" in r.stderr
    r = cli("show", "abcdef0", "--no-sync", "--json")
    assert error_of(r.stderr)["kind"] == "ambiguous-id"


def test_show_a_too_short_id_says_so(corpus):
    r = cli("show", "6513", "--no-sync")
    assert r.exit_code == 2 and "too short" in r.stderr


def test_search_session_accepts_a_prefix_and_rejects_an_unknown_id(corpus):
    out = json.loads(cli("search", "cart", "--session", PARENT[:8], "--json", "--no-sync").stdout)
    assert out["results"] and {h["session_id"] for h in out["results"]} == {PARENT}
    assert out["filters"]["session"] == PARENT
    r = cli("search", "cart", "--session", "ffffffff", "--json", "--no-sync")
    assert r.exit_code == 2 and error_of(r.stderr)["kind"] == "not-found"
    hit = out["results"][0]["record_id"]  # a hit's record id names its session
    by_hit = json.loads(cli("search", "cart", "--session", hit, "--json", "--no-sync").stdout)
    assert by_hit["filters"]["session"] == PARENT and by_hit["results"] == out["results"]


# -- 3. filters that find nothing explain why -----------------------------------------------------

def test_project_matches_case_insensitively_and_by_unique_prefix(corpus):
    for name, query in (("ACME-API", "slow cart endpoint"), ("acme", "slow cart endpoint"), ("Inf", "pgbouncer pool")):
        r = cli("search", query, "--project", name, "--json", "--no-sync")
        assert r.exit_code == 0, (name, r.output)
        projects = {h["project"] for h in json.loads(r.stdout)["results"]}
        assert projects and len(projects) == 1 and next(iter(projects)).lower().startswith(name.lower())


def test_an_unknown_project_fails_listing_the_known_ones(corpus):
    r = cli("search", "cart", "--project", "payments", "--no-sync")
    assert r.exit_code == 2
    assert "known: " in r.stderr and "acme-api" in r.stderr and "infra" in r.stderr
    r = cli("list", "--project", "payments", "--no-sync")
    assert r.exit_code == 2 and "acme-api" in r.stderr


def test_an_inverted_date_range_is_a_usage_error(corpus):
    r = cli("search", "cart", "--since", "2026-11-01", "--until", "2026-10-01", "--json", "--no-sync")
    assert r.exit_code == 2 and error_of(r.stderr)["kind"] == "usage"


def test_an_agent_with_nothing_indexed_is_an_error(corpus):
    r = cli("search", "cart", "--agent", "gemini", "--no-sync")
    assert r.exit_code == 2 and "no gemini sessions" in r.stderr and "claude" in r.stderr


# -- 4. time --------------------------------------------------------------------------------------

tokyo = in_zone("Asia/Tokyo")


def test_dates_and_today_are_local_midnight(tokyo):
    from datetime import datetime

    from backscroll.when import parse_when

    assert parse_when("2026-10-01") == "2026-09-30T15:00:00.000Z"
    assert parse_when("2026-10-01", end=True) == "2026-10-01T15:00:00.000Z"
    now = datetime(2026, 10, 1, 16, 0, tzinfo=UTC)  # already 2 October in Tokyo
    assert parse_when("today", now=now) == "2026-10-01T15:00:00.000Z"
    assert parse_when("yesterday", now=now) == "2026-09-30T15:00:00.000Z"
    assert parse_when("2026-10") == "2026-09-30T15:00:00.000Z"  # a month: its first day
    assert parse_when("2026-12", end=True) == "2026-12-31T15:00:00.000Z"  # up to the next month's


def test_a_date_as_a_query_names_one_is_a_filter_too(tokyo):
    from datetime import datetime

    from backscroll.errors import UsageError
    from backscroll.when import parse_when

    now = datetime(2026, 10, 1, 16, 0, tzinfo=UTC)  # Friday 2 October in Tokyo
    assert parse_when("last August", now=now) == "2026-07-31T15:00:00.000Z"  # 1 August, Tokyo midnight
    assert parse_when("last August", now=now, end=True) == "2026-08-31T15:00:00.000Z"
    assert parse_when("3 days ago", now=now) == "2026-09-28T15:00:00.000Z"
    with pytest.raises(UsageError, match="cannot read the date") as e:
        parse_when("last August and bananas", now=now)
    assert "last August" in (e.value.hint or "")


def test_people_see_local_time_and_json_keeps_utc(session_builder, backscroll_home):
    s = session_builder.claude(project="acme-api", start="2026-10-06T09:00:00.000Z")
    s.user("what time is it in Tokyo")
    env = {**cli_env(backscroll_home), "TZ": "Asia/Tokyo"}
    r = run_cli(backscroll_home, "list", "--all", env=env)
    assert r.returncode == 0 and "2026-10-06 18:00" in r.stdout, r.stdout + r.stderr
    r = run_cli(backscroll_home, "show", s.session_id, env=env)
    assert "2026-10-06 18:00:00" in r.stdout
    out = json.loads(run_cli(backscroll_home, "list", "--json", "--all", env=env).stdout)
    assert out["sessions"][0]["started_at"] == "2026-10-06T09:00:00.000Z"


# -- 5. output for agents -------------------------------------------------------------------------

def test_json_is_compact_when_piped_and_pretty_when_asked(corpus):
    r = cli("search", "cart endpoint", "--json", "--no-sync")
    assert r.stdout.count("\n") == 1 and json.loads(r.stdout)["results"]
    r = cli("search", "cart endpoint", "--json", "--pretty", "--no-sync")
    assert r.stdout.count("\n") > 10


def test_jsonl_fields_and_a_byte_budget(corpus):
    r = cli("search", "cart endpoint", "--format", "jsonl", "--fields", "record_id,match,strength", "--no-sync")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines and all(set(x) == {"schema_version", "list", "record_id", "match", "strength"} for x in lines)
    full = cli("search", "cart endpoint", "--json", "--no-sync").stdout.encode()
    n_full = len(json.loads(full)["results"])
    budget = len(full) - 50
    r = cli("search", "cart endpoint", "--json", "--max-bytes", budget, "--no-sync")
    doc = json.loads(r.stdout)
    assert len(r.stdout.encode()) <= budget and len(doc["results"]) == n_full - doc["omitted_for_budget"] > 0
    assert doc["has_more"] and f"more results: --offset {len(doc['results'])}" in r.stderr, "the next page starts there"
    left = doc["omitted_for_budget"]
    assert f"to fit --max-bytes {budget}: {left} hit{'s' if left != 1 else ''} left out" in doc["notes"], "said in JSON"
    ids = [h["record_id"] for h in json.loads(full)["results"]]
    every = cli("search", "cart endpoint", "--format", "jsonl", "--no-sync").stdout.encode().splitlines(keepends=True)
    lines = cli("search", "cart endpoint", "--format", "jsonl", "--max-bytes", len(every[0]) + len(every[1]) + 9,
                "--no-sync")
    sent = [json.loads(x)["record_id"] for x in lines.stdout.splitlines()]
    assert sent == ids[:2] and "more results: --offset 2" in lines.stderr, "whole lines, in order"
    for form in ("--json", "--format=jsonl"):  # (an empty answer with exit 0 read as no match)
        none = cli("search", "cart endpoint", form, "--max-bytes", 300, "--no-sync")
        error = error_of(none.stderr)
        assert none.exit_code == 2 and none.stdout == "" and error["kind"] == "usage", none.stderr
        assert "--max-bytes 300 holds not even the first hit" in error["message"]
        enough = int(error["hint"].split()[1])
        fits = cli("search", "cart endpoint", form, "--max-bytes", enough, "--no-sync")
        assert fits.exit_code == 0 and len(fits.stdout.encode()) <= enough and '"record_id"' in fits.stdout
    r = cli("search", "cart endpoint", "--json", "--fields", "nope", "--no-sync")
    assert r.exit_code == 2 and "known: " in error_of(r.stderr)["hint"]


def test_every_json_command_carries_schema_version(corpus):
    for args in (["status", "--json"], ["list", "--json", "--no-sync"], ["show", PARENT, "--json", "--no-sync"],
                 ["index", "--json", "--no-embed"], ["rebuild", "--json"], ["embed", "--json"]):
        r = cli(*args)
        assert r.exit_code == 0, (args, r.output)
        assert json.loads(r.stdout)["schema_version"] == 1, args


def test_list_json_has_a_total_and_people_hear_how_many_more(corpus):
    out = json.loads(cli("list", "--json", "--limit", "1", "--no-sync", "--all").stdout)
    assert out["total"] == 3 and len(out["sessions"]) == 1
    r = cli("list", "--limit", "1", "--no-sync", "--all")
    assert "2 more sessions" in r.stderr


def test_show_json_titles_a_codex_session_as_list_does(corpus):
    listed = {s["session_id"]: s["title"] for s in json.loads(cli("list", "--json", "--no-sync").stdout)["sessions"]}
    codex = next(sid for sid in listed if sid != PARENT and not sid.startswith(PARENT))
    shown = json.loads(cli("show", codex, "--json", "--no-sync").stdout)["session"]
    assert shown["title"] and shown["title"] == listed[codex]


def test_max_chars_cuts_the_snippet_too(corpus):
    out = json.loads(cli("search", "cart endpoint", "--json", "--max-chars", "20", "--no-sync").stdout)
    assert all(len(h["snippet"]) <= 20 and len(h["text"]) <= 20 for h in out["results"])


def test_echoes_hidden_counts_only_echoes_the_query_would_return(session_builder, backscroll_index):
    s = session_builder.claude(project="acme-api")
    s.user("what did we decide about the retry queue")
    s.assistant("the retry queue uses exponential backoff")
    s.search_echo("retry queue", "1. the retry queue uses exponential backoff")
    for i in range(12):  # echoes holding one common word of the query, nothing else of it
        s.search_echo(f"queue depth {i}", f"nothing about it {i}")
    backscroll_index(embed=False)
    out = json.loads(cli("search", "retry", "queue", "--json", "-n", "3", "--no-sync").stdout)
    assert 0 < out["echoes_hidden"] <= 3


# -- 6. output for people -------------------------------------------------------------------------

def test_hits_show_path_and_line_and_show_path_prints_it(corpus):
    r = cli("search", "pgbouncer", "--no-sync")
    assert ".jsonl:" in r.stdout
    rid = json.loads(cli("search", "pgbouncer", "--json", "--no-sync").stdout)["results"][0]
    r = cli("show", rid["record_id"], "--path", "--no-sync")
    assert r.stdout.strip() == f"{rid['source_path']}:{rid['line']}"


def test_tsv_and_ids_for_fzf(corpus):
    r = cli("search", "pgbouncer", "--format", "tsv", "--no-sync")
    first = r.stdout.splitlines()[0].split("\t")
    assert len(first) == 5 and first[2] == "codex" and first[3] == "infra"
    assert cli("show", first[0], "--no-sync").exit_code == 0
    ids = cli("search", "pgbouncer", "--ids", "--no-sync").stdout.split()
    assert ids[0] == first[0]
    r = cli("search", "xyzzyplugh", "--format", "tsv", "--no-sync")
    assert r.stdout == "" and "No matches." in r.stderr


def test_by_session_ids_and_tsv_give_a_line_per_session(corpus):
    """``--by-session`` is one entry per session in every format: a session id per line, which ``show`` opens."""
    data = json.loads(cli("search", "pgbouncer", "--by-session", "--json", "--no-sync").stdout)
    sessions = [s["session_id"] for s in data["sessions"]]
    assert sessions
    assert cli("search", "pgbouncer", "--by-session", "--ids", "--no-sync", "--rerun").stdout.split() == sessions
    rows = [line.split("\t") for line in
            cli("search", "pgbouncer", "--by-session", "-f", "tsv", "--no-sync", "--rerun").stdout.splitlines()]
    assert [r[0] for r in rows] == sessions and all(len(r) == 5 for r in rows)
    assert rows[0][4] == " ".join((data["sessions"][0]["title"] or "(untitled)").split())
    assert cli("show", sessions[0], "--no-sync").exit_code == 0


def test_version_names_the_model_and_schema():
    from backscroll.store.schema import schema_version

    r = cli("-V")
    assert r.exit_code == 0 and f"store schema {schema_version()}" in r.stdout and "model " in r.stdout


def test_a_snippet_never_cuts_inside_a_redaction_mark():
    from backscroll.retrieval.snippet import make_snippet

    for before in range(0, 120, 3):
        for after in range(0, 300, 9):
            text = ("alpha " * 50 + "z" * 60 + "[REDACTED:aws-secret-key]" + "q" * before + " needle " + "w" * after
                    + "[REDACTED:github-token]" + "v" * 80 + " gamma" * 60)
            snip, spans = make_snippet(text, ("needle",))
            body = snip.strip("…")
            marks = body.count("[REDACTED:")
            assert marks == body.count("-key]") + body.count("-token]") and "ACTED:" not in body.replace(
                "[REDACTED:", "") and ("[RED" not in body or marks), snip
            assert [snip[a:b] for a, b in spans] == ["needle"], (snip, spans)
    for at in range(200, 260):  # (a hit by meaning alone: the text's start, cut)
        snip = make_snippet("w " * (at // 2) + "[REDACTED:aws-secret-key] tail " * 20, ("absent",))[0]
        assert snip.count("[REDACTED:") == snip.count("-key]"), snip


def test_a_text_cut_by_max_chars_never_ends_inside_a_redaction_mark(session_builder, backscroll_index,
                                                                    backscroll_search):
    from backscroll.sanitize import short_of_marks

    assert short_of_marks("deploy with key=[REDAC") == short_of_marks("deploy with key=[REDACTED:aws-k") == \
        "deploy with key="
    assert short_of_marks("a [REDACTED:aws-key] b [x") == "a [REDACTED:aws-key] b [x", "whole marks and brackets stay"
    session_builder.claude().user("the pelican deploy uses ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + " always")
    backscroll_index()
    whole = backscroll_search("pelican deploy", mode="lexical").results[0].text
    at = whole.index("[REDACTED:")
    for cut in range(at + 2, whole.index("]", at) + 1):  # (a lone "[" may be anything)
        hit = backscroll_search("pelican deploy", mode="lexical", max_chars=cut, rerun=True).results[0]
        assert hit.text == whole[:at] and "[RED" not in hit.snippet, (cut, hit.text, hit.snippet)


def test_snippets_never_start_mid_word_and_whole_text_when_it_fits():
    from backscroll.retrieval.snippet import make_snippet

    short = "a short answer about the cart endpoint that fits"
    assert make_snippet(short, ("cart",))[0] == short
    text = "x" * 50 + " " + "loremipsumdolorsitamet " * 30 + "cart endpoint " + "filler words " * 40
    snip = make_snippet(text, ("cart",))[0]
    first = snip.lstrip("…").split()[0]
    assert first in text.split() and "cart" in snip
    # the window that holds the most distinct query words (ten a word, one a match) wins: 3 of them, not 1 five times
    text = ("cart " * 5 + "filler " * 80 + "the cart endpoint times out " + "filler " * 80
            + "cart endpoint timeout again " + "filler " * 40)
    snip, spans = make_snippet(text, ("cart", "endpoint", "timeout"))
    assert "cart endpoint timeout again" in snip and "times out" not in snip, snip
    assert [snip[a:b] for a, b in spans] == ["cart", "endpoint", "timeout"]


def test_global_options_after_the_command_and_color(corpus, tmp_path):
    r = run_cli(corpus, "status", "--json", "--home", str(corpus.data),
                env={**cli_env(corpus), "BACKSCROLL_HOME": str(tmp_path / "elsewhere")})
    assert r.returncode == 0 and json.loads(r.stdout)["paths"]["home"]["path"] == str(corpus.data)
    r = run_cli(corpus, "search", "pgbouncer", "--no-sync", "--color", "always")
    assert "\x1b[" in r.stdout
    assert "\x1b[" not in run_cli(corpus, "search", "pgbouncer", "--no-sync").stdout


def test_terminal_output_wraps_to_the_width_and_no_matches_goes_to_stderr(corpus):
    code, out = run_tty(corpus, "search", "cart", "endpoint", "--no-sync", "--color", "never", columns=60)
    assert code == 0
    lines = out.splitlines()
    # path:line and the show command are never folded (a terminal selection copies them whole); the rest fits
    whole = [line for line in lines if line.strip().startswith("backscroll show ") or ".jsonl:" in line]
    assert whole and all(re.search(r"\.jsonl:\d+\s*$", line) for line in whole if ".jsonl:" in line), out
    assert max(len(line) for line in lines if line not in whole) <= 60, out
    code, out = run_tty(corpus, "status", "--json", columns=80)
    assert code == 0 and out.count("\n") > 5  # pretty on a terminal


def test_show_session_rejects_context(corpus):
    r = cli("show", PARENT, "-C", "2", "--no-sync")
    assert r.exit_code == 2 and "--context" in r.stderr


def test_an_index_that_found_no_session_file_says_so_and_reads_after_it_say_why(backscroll_home):
    """An empty machine: `index` succeeds with nothing, and says where to look; the reads that follow say that no
    file was found, not to run the `index` just run."""
    r = run_cli(backscroll_home, "index", "--no-embed")
    assert r.returncode == 0 and "note: no session files were found" in r.stderr, r.stderr
    for command in (["stats"], ["list"], ["files", "src/app.py"], ["show", "abcdef1"]):
        r = run_cli(backscroll_home, *command)
        assert r.returncode == 3 and "no session files were found" in r.stderr, r.stderr
        assert "run `backscroll index` first" not in r.stderr and "index --source AGENT:PATH" in r.stderr
    assert "the store keeps" not in run_cli(backscroll_home, "index", "--no-embed").stderr


def test_an_index_after_the_agent_deleted_every_log_says_the_sessions_read_before_stay(session_builder,
                                                                                    backscroll_home):
    """The record outlives the agents' own pruning: "no session files were found" alone read as if all was lost."""
    session_builder.claude().user("where does the retry queue live?")
    assert run_cli(backscroll_home, "index", "--no-embed").returncode == 0
    for f in (backscroll_home.home / ".claude").rglob("*.jsonl"):
        f.unlink()
    r = run_cli(backscroll_home, "index", "--no-embed")
    assert r.returncode == 0 and "the store keeps the 1 session read before: still searchable" in r.stderr, r.stderr


@pytest.mark.parametrize("command", [["list"], ["show", "abcdef1"], ["files", "src/app.py"], ["stats"]])
def test_a_home_with_nothing_to_index_is_named_and_keeps_its_own_files(backscroll_home, tmp_path, command):
    """A read pointed at a folder of the person's (an `index` folder of their own in it too) says nothing is indexed
    there, naming it, and leaves every byte of theirs."""
    existing = tmp_path / "notes"
    (existing / "index").mkdir(parents=True)
    (existing / "mine.txt").write_text("mine")
    (existing / "index" / "todo.txt").write_text("my index of things")
    for home in (existing, tmp_path / "nope" / ".." / "notes"):
        r = run_cli(backscroll_home, "--home", home, *command)
        assert r.returncode == 3 and f"nothing is indexed in {existing} yet" in r.stderr, r.stderr
    assert not (tmp_path / "nope").exists(), "a/../b is b"
    assert (existing / "mine.txt").read_text() == "mine" and (existing / "index" / "todo.txt").exists()


def test_a_date_past_what_the_index_holds_means_no_bound(session_builder, backscroll_home):
    from backscroll.errors import UsageError
    from backscroll.when import parse_when

    assert parse_when("9999-12-31", end=True) is None and parse_when("3000-01-01T00:00:00Z", end=True) is None
    assert parse_when("1500-01-01") is None and parse_when("99999y") is None  # (no bound: an undated record too)
    assert parse_when("9999-12-31") == "2262-01-01T00:00:00.000Z"  # (since then: nothing)
    # epoch seconds and milliseconds alike: 11 digits of seconds, 13 of milliseconds past 2262
    assert parse_when("1700000000") == parse_when("1700000000000") == "2023-11-14T22:13:20.000Z"
    for far in ("99999999999", "9999999999999", "9" * 30):
        assert parse_when(far, end=True) is None and parse_when(far) == "2262-01-01T00:00:00.000Z", far
    with pytest.raises(UsageError, match="cannot read the date"):
        parse_when("\u00b2")  # (a digit to Python, not a number of seconds)
    s = session_builder.claude(project="acme-api")
    s.user("the orchestrator drops retries")
    s.raw(json.dumps({"type": "user", "message": {"role": "user", "content": "the orchestrator clock gone wrong"},
                      "uuid": "u-2999", "timestamp": "2999-01-01T00:00:00Z", "sessionId": s.session_id, "cwd": "/x"}))
    r = run_cli(backscroll_home, "search", "--json", "orchestrator", "--mode", "lexical", "--since", "1600-01-01",
                "--until", "9999-12-31")
    assert r.returncode == 0 and len(json.loads(r.stdout)["results"]) == 2, r.stdout + r.stderr
    r = run_cli(backscroll_home, "search", "--json", "orchestrator retries", "--since", "9999-12-31")
    assert r.returncode == 0 and json.loads(r.stdout)["results"] == [], r.stdout + r.stderr
