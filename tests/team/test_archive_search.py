"""``search --archive``: the team archive searched with the local rules, on a real PostgreSQL (``pg_url``).

Alice pushes a session of her own and Bob the bundled Claude Code ones (which hold query echoes: earlier ``backscroll
search`` calls and their output); Carol, who has no local store at all, searches what both pushed."""


import json
from typing import Any

import psycopg
import pytest
from helpers import TESTS
from team_archives import as_role, fresh_archive

from backscroll.archive import Backscroll
from backscroll.errors import NotFoundError, UsageError
from backscroll.store.archive_pg import Archive
from backscroll.store.archive_schema import SCHEMA_VERSION

FIXTURES = TESTS.parent / "fixtures" / "claude" / "projects"
CODEX = TESTS.parent / "fixtures" / "codex" / "sessions"


@pytest.fixture(scope="module")
def archive(pg_url, tmp_path_factory):
    """An archive with alice's and bob's pushes; carol's URL to search it."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute('DROP DATABASE IF EXISTS "team_search"')
        admin.execute('CREATE DATABASE "team_search"')
    with Archive.connect(as_role(pg_url, "postgres", "team_search")) as a:
        a.init(["alice", "bob", "carol"])
    root = tmp_path_factory.mktemp("members")
    for member, source in (("alice", f"codex:{CODEX}"), ("bob", f"claude:{FIXTURES}")):
        bs = Backscroll(home=root / member, sources=(source,))
        bs.index(embed=member == "bob")  # bob's vectors go too (the fake embedder's 384 dimensions)
        with bs:
            bs.push(as_role(pg_url, member, "team_search"))
    return as_role(pg_url, "carol", "team_search"), root


def test_a_third_member_with_no_store_finds_both_members_records(archive):
    url, root = archive
    carol = Backscroll(home=root / "carol")
    mine = carol.search("capture_payment double-charged", archive=url, mode="lexical")
    assert mine.results and mine.results[0].member == "alice" and mine.results[0].machine
    assert "capture_payment" in mine.results[0].text
    queue = carol.search("job queue postgres", archive=url, mode="lexical", limit=5)
    assert queue.results and queue.results[0].member == "bob"


def test_query_echoes_stay_out_unless_asked_for(archive):
    url, root = archive
    carol = Backscroll(home=root / "carol")
    plain = carol.search("job queue postgres", archive=url, mode="lexical", limit=20)
    assert plain.results and not any(h.is_echo for h in plain.results)
    echoes = carol.search("job queue postgres", archive=url, mode="lexical", limit=20, include_echoes=True)
    assert any(h.is_echo for h in echoes.results)


def test_filters_are_hints_and_member_filters(archive):
    url, root = archive
    carol = Backscroll(home=root / "carol")
    hinted = carol.search("job queue postgres", archive=url, mode="lexical", role="user", limit=3)
    assert all(h.role == "user" for h in hinted.results) and hinted.also_matching, "what the hint hid comes back"
    assert all(h.role != "user" for h in hinted.also_matching)
    only_alice = carol.search("job queue capture_payment", archive=url, mode="lexical", member="alice")
    assert only_alice.results and {h.member for h in only_alice.results} == {"alice"}
    with pytest.raises(UsageError, match="archive"):
        carol.search("job queue", member="alice")


def test_a_member_who_never_pushed_is_named_not_searched_for(archive):
    """``--member`` for a name with no row says so and names those who pushed, on search, list and show alike
    (a mistyped name once read as "No matches")."""
    from backscroll.errors import NotFoundError

    url, root = archive
    carol = Backscroll(home=root / "carol")
    for call in (lambda: carol.search("job queue", archive=url, mode="lexical", member="alcie"),
                 lambda: carol.sessions(archive=url, member="alcie"),
                 lambda: carol.show("anything", archive=url, member="alcie")):
        with pytest.raises(NotFoundError, match="no member 'alcie'") as err:
            call()
        assert "alice, bob" in str(err.value.hint)


def test_a_project_is_named_on_the_archive_as_locally(archive):
    """A unique prefix or part names one project; a name for none is an error naming those there (not an
    empty scope with matches "outside" it), as a local search's is."""
    url, root = archive
    carol = Backscroll(home=root / "carol")
    found = carol.search("capture_payment", archive=url, mode="lexical", project="PAY")
    assert found.results and {h.project for h in found.results} == {"payments"}
    local = Backscroll(home=root / "alice").search("capture_payment", mode="lexical", project="pay")
    assert {h.timestamp for h in local.results} >= {h.timestamp for h in found.results}, "times written alike"
    assert {s.project for s in carol.sessions(archive=url, project="pay", limit=50)} == {"payments"}
    for asked in (lambda: carol.search("capture_payment", archive=url, project="nosuch"),
                  lambda: carol.sessions(archive=url, project="nosuch")):
        with pytest.raises(NotFoundError, match="no project 'nosuch' is indexed") as err:
            asked()
        assert "payments" in (err.value.hint or "")


def test_the_json_of_an_archive_search_keeps_the_contract_and_says_whose(archive):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    url, root = archive
    out = CliRunner().invoke(app, ["--home", str(root / "carol"), "search", "capture_payment", "--archive", url,
                                   "--mode", "lexical", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    hit = doc["results"][0]
    assert hit["member"] == "alice" and hit["machine"] and hit["record_id"] and hit["snippet"]
    assert set(doc) >= {"schema_version", "query", "mode", "filters", "results", "also_matching", "notes"}
    local = CliRunner().invoke(app, ["--home", str(root / "alice"), "search", "capture_payment", "--no-sync",
                                     "--mode", "lexical", "--json"])
    assert "member" not in json.loads(local.stdout)["results"][0], "a local hit's JSON is unchanged"


def test_meaning_comes_from_pgvector_and_is_fused_with_words(archive):
    url, root = archive
    with Archive.connect(url) as a:
        assert a.has_vector() and a.count("bob") > 0
    result = Backscroll(home=root / "carol").search("job queue postgres decision", archive=url, mode="hybrid")
    assert result.mode == "hybrid" and result.results
    assert any("semantic" in h.matched_by for h in result.results)


def test_the_mcp_tool_searches_only_the_configured_archive():
    from backscroll.integrations.mcp_tools import TOOLS, Tools

    assert "archive" in TOOLS["search"].input_schema()["properties"]
    answer = Tools(None).call("search", {"query": "x", "archive": "postgresql://evil.example/x"})
    assert answer.is_error and "default" in answer.text() and "evil" not in answer.text()



def test_the_mcp_tool_asks_for_no_url_when_no_archive_is_configured(session_builder, backscroll_index,
                                                                    backscroll_home):
    from backscroll.integrations.mcp_tools import Tools

    session_builder.claude().user("the retry loop").assistant("capped at five")
    backscroll_index(embed=False)
    answer = Tools(str(backscroll_home.data)).call("search", {"query": "retry", "archive": "default"})
    assert answer.is_error and "no team archive is configured here" in answer.text()
    assert "URL" not in answer.document["error"]["hint"], "a URL is never taken from a model"


def test_a_question_about_nothing_anyone_discussed_returns_no_results(archive):
    url, root = archive
    result = Backscroll(home=root / "carol").search("terraform helm chart for the worker", archive=url, mode="lexical")
    assert result.results == () and result.weak_matches, "a word or two in common is a weak match, held back"
    assert any(n.startswith("nothing strong") for n in result.notes)
    shown = Backscroll(home=root / "carol").search("terraform helm chart for the worker", archive=url, mode="lexical",
                                                   weak=True)
    assert [h.record_id for h in shown.results][:1] == [result.weak_matches[0].record_id]


def test_without_pgvector_meaning_is_an_exact_scan(pg_url, tmp_path, monkeypatch):
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute('DROP DATABASE IF EXISTS "team_exact"')
        admin.execute('CREATE DATABASE "team_exact"')
    with Archive.connect(as_role(pg_url, "postgres", "team_exact")) as a:
        assert a.init(["erin", "carol"], pgvector=False) == (SCHEMA_VERSION, False)
    erin = Backscroll(home=tmp_path / "erin", sources=(f"claude:{FIXTURES}",))
    erin.index(embed=True)
    with erin:
        report = erin.push(as_role(pg_url, "erin", "team_exact"))
    assert report.pushed > 0 and report.vectors is False
    url = as_role(pg_url, "carol", "team_exact")
    with Archive.connect(url) as a:
        assert not a.has_vector()
    result = Backscroll(home=tmp_path / "carol").search("job queue postgres decision", archive=url, mode="semantic",
                                                        weak=True)
    assert result.results and all(h.matched_by == ("semantic",) for h in result.results)
    assert not any("exact scan" in n for n in result.notes), "a small archive's scan is quick: nothing to say"
    from backscroll.team import search as team_search

    monkeypatch.setattr(team_search, "EXACT_SCAN_NOTED", 0)
    again = Backscroll(home=tmp_path / "carol").search("job queue postgres decision", archive=url, mode="semantic",
                                                       weak=True, rerun=True)
    assert any("exact scan" in n for n in again.notes)


def test_list_and_show_read_the_archive_and_say_whose(archive):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    url, root = archive
    carol = Backscroll(home=root / "carol")
    listed = carol.sessions(archive=url, limit=50)
    assert {s.member for s in listed} == {"alice", "bob"} and all(s.machine and s.records for s in listed)
    assert carol.count_sessions(archive=url) == len(listed)
    assert {s.member for s in carol.sessions(archive=url, member="bob", limit=50)} == {"bob"}
    starts = sorted({s.started_at for s in listed if s.started_at})
    middle = starts[len(starts) // 2]  # (a timestamp: an until is exclusive)
    before = carol.sessions(archive=url, until=middle, limit=50)
    began = {s.session_id for s in listed if (s.started_at or s.updated_at or "") < middle}
    assert {s.session_id for s in before} == began
    assert 0 < len(before) < len(listed) and carol.count_sessions(archive=url, until=middle) == len(before)
    hit = carol.search("capture_payment double-charged", archive=url, mode="lexical").results[0]
    around = carol.show(hit.record_id, archive=url, context=1)
    assert around.focus == hit.record_id and around.session["member"] == "alice"
    assert hit.record_id in [r.record_id for r in around.records] and len(around.records) <= 3
    whole = carol.show(hit.session_id[:8], archive=url, limit=5)
    assert whole.focus is None and whole.total >= len(whole.records) > 0
    runner = CliRunner()
    out = runner.invoke(app, ["--home", str(root / "carol"), "list", "--archive", url, "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["total"] == len(listed) and doc["sessions"][0]["member"] in ("alice", "bob")
    shown = runner.invoke(app, ["--home", str(root / "carol"), "show", hit.record_id, "--archive", url, "--json"])
    assert shown.exit_code == 0 and json.loads(shown.stdout)["records"][0]["member"] == "alice"
    pasted = runner.invoke(app, ["--home", str(root / "carol"), "show", hit.session_id, "--archive", url, "-f",
                                 "markdown"])
    assert pasted.exit_code == 0 and pasted.stdout.splitlines()[2].startswith("_alice@"), "a transcript says whose"


def test_ids_name_records_and_sessions_as_locally(archive):
    """``--session`` and ``show`` take a record's id, a session's, or a unique start of one, as the local ones do;
    too short a start, or one that names nothing, is an error, not a search of every session."""
    url, root = archive
    carol = Backscroll(home=root / "carol")
    hit = carol.search("capture_payment double-charged", archive=url, mode="lexical").results[0]
    for ident in (hit.record_id, hit.record_id.split("#")[0], hit.session_id, hit.session_id[:8]):
        scoped = carol.search("payment", archive=url, mode="lexical", session=ident, weak=True)
        assert {h.session_id for h in (*scoped.results, *scoped.weak_matches)} == {hit.session_id}, ident
        assert not scoped.also_matching and not scoped.dropped_filters, ident
    assert carol.show(hit.record_id.split("#")[0], archive=url, context=0).focus == hit.record_id.split("#")[0] + "#0"
    claude = carol.search("job queue postgres", archive=url, mode="lexical", member="bob").results[0]
    assert carol.show(claude.record_id[:13], archive=url, context=0).focus == claude.record_id  # (a uuid's start)
    with pytest.raises(UsageError, match="too short"):
        carol.search("payment", archive=url, session=hit.session_id[:1])
    with pytest.raises(NotFoundError, match="no session with id '12345678'"):
        carol.search("payment", archive=url, session="12345678")


def test_a_quoted_phrase_must_be_held_together(archive):
    url, root = archive
    carol = Backscroll(home=root / "carol")
    together = carol.search('"skip locked"', archive=url, mode="lexical", weak=True, limit=20, max_chars=0)
    from backscroll.indexes.lexical_schema import analyze

    # as the index reads words: `skip_locked=True` holds the phrase too
    assert together.results and all(" skip locked " in f" {' '.join(analyze(h.text))} " for h in together.results)
    apart = carol.search('"locked skip"', archive=url, mode="lexical", weak=True)
    assert any("without the quotes" in n for n in apart.notes)
    assert all(h.match != "exact" for h in apart.results), "a phrase no record holds makes no hit exact"


def test_dates_and_agents_in_questions_are_read_as_locally(archive):
    url, root = archive
    bob = Backscroll(home=root / "bob")
    now = "2026-11-25T12:00:00Z"
    local = bob.search("what did I do on October 21?", now=now, mode="lexical")
    remote = bob.search("what did I do on October 21?", now=now, mode="lexical", archive=url, member="bob")
    assert local.results and [h.match for h in remote.results] == ["date"] * len(remote.results)
    assert [h.record_id for h in remote.results] == [h.record_id for h in local.results]
    assert remote.notes[0] == local.notes[0] and "the sessions of then" in remote.notes[0]
    words = bob.search("job queue decision on October 21", now=now, mode="lexical").notes[0]
    assert words.startswith('read "October 21" as 2026-10-21: records from then rank higher')
    assert words in bob.search("job queue decision on October 21", now=now, archive=url, mode="lexical").notes
    spoken = bob.search("what did codex do about capture_payment", archive=url, mode="lexical", limit=3)
    assert spoken.filters.agent == "codex" and any("--agent codex" in n for n in spoken.notes)


def test_word_weights_count_every_row_at_once_after_a_push(pg_url, archive):
    """idf needs the archive's size: the planner's count is -1 until PostgreSQL first analyzes the table."""
    _url, root = archive
    url = fresh_archive(pg_url, "team_fresh", "bob")
    with Backscroll(home=root / "bob") as bob:
        bob.push(url)
    with Archive.connect(url) as a:
        total, counts = a.word_counts([("queue", "queue")])
        assert total == a.count() and 0 < counts["queue"][0] < total


def test_a_tool_output_is_found_by_its_calls_words_as_locally(pg_url, session_builder, backscroll_home):
    """The commit listing holds none of "git log oneline webhooks": on the archive too it comes right behind
    the call whose words it carries (the local tool exchange)."""
    from helpers import webhook_session

    webhook_session(session_builder)
    dan = Backscroll(home=backscroll_home.data)
    dan.index(embed=False)
    url = fresh_archive(pg_url, "team_tools", "dan")
    with dan:
        dan.push(url)
    asked: dict[str, Any] = dict(mode="lexical", content_type="tool", limit=5, max_chars=0)
    local = dan.search("git log oneline webhooks", **asked).results
    remote = dan.search("git log oneline webhooks", archive=url, **asked).results
    assert remote[0].text.startswith("git log --oneline") and remote[1].text.startswith("a41c9d2 refactor")
    assert [(h.record_id, h.match) for h in remote[:2]] == [(h.record_id, h.match) for h in local[:2]]
    assert [h.match for h in remote[:2]] == ["words", "command"]


def test_the_same_archive_search_again_over_mcp_gets_the_note_a_local_one_gets(archive):
    """A server's handle lives on: the same search again, from a caller it cannot identify, is answered with
    the note, on the archive as locally."""
    url, root = archive
    carol = Backscroll(home=root / "carol")
    first = carol.search("job queue postgres", archive=url, mode="lexical", caller_mcp=True)
    again = carol.search("job queue  POSTGRES", archive=url, mode="lexical", caller_mcp=True)
    assert again.results == first.results != () and again.repeated is None
    assert again.notes[0].startswith("[same search again]")
    assert not any(n.startswith("[same search again]") for n in first.notes)


def test_the_commands_an_archive_answer_prints_can_be_run_as_printed(archive):
    """Every ``backscroll show`` an archive answer prints names the archive it read (never a password)."""
    import shlex

    from typer.testing import CliRunner

    from backscroll.cli.app import app

    url, root = archive
    home = ["--home", str(root / "carol"), "--no-pager"]
    runner = CliRunner(env={"COLUMNS": "300"})
    printed = []
    for args in (["search", "capture_payment", "--mode", "lexical", "--archive", url],
                 ["search", "capture_payment", "--mode", "lexical", "--by-session", "--archive", url],
                 ["list", "--archive", url, "-n", "2"]):
        out = runner.invoke(app, [*home, *args])
        assert out.exit_code == 0, out.output
        printed += [ln[ln.index("backscroll show"):] for ln in out.stdout.splitlines() if "backscroll show" in ln]
    assert printed and all("--archive" in line and "…" not in line for line in printed), printed
    for line in printed[:3]:
        shown = runner.invoke(app, [*home, *shlex.split(line)[1:]])
        assert shown.exit_code == 0 and shown.stdout.startswith("session "), shown.output
        follow = [ln[ln.index("backscroll show"):] for ln in shown.stdout.splitlines() if "backscroll show" in ln]
        assert all("--archive" in ln for ln in follow), follow


def test_a_printed_archive_argument_never_holds_a_password():
    from backscroll.store.archive_url import for_command

    assert for_command("default") == "default"
    assert for_command("postgresql://alice@db.example/team") == "postgresql://alice@db.example/team"
    assert "s3cret" not in for_command("postgresql://alice:s3cret@db.example:5433/team?sslmode=require")
    assert "sslmode=require" in for_command("postgresql://alice:s3cret@db.example:5433/team?sslmode=require")
    assert "s3cret" not in for_command("host=db user=alice password=s3cret dbname=team")


def each_pushed_the_codex_fixtures(pg_url: str, tmp_path, dbname: str, members: tuple[str, ...]) -> None:
    """A new archive ``dbname`` to which each of ``members`` pushed the same Codex sessions from a home of theirs."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}"')
        admin.execute(f'CREATE DATABASE "{dbname}"')
    with Archive.connect(as_role(pg_url, "postgres", dbname)) as a:
        a.init(list(members))
    for member in members:
        bs = Backscroll(home=tmp_path / member, sources=(f"codex:{CODEX}",))
        bs.index(embed=False)
        with bs:
            bs.push(as_role(pg_url, member, dbname))


def test_one_session_pushed_by_two_members_is_found_once(pg_url, tmp_path):
    """The same session pushed twice (a home synced between two machines, logs a teammate copied) is one
    session: each of its records is one hit, and ``show`` opens it by its id."""
    each_pushed_the_codex_fixtures(pg_url, tmp_path, "team_copies", ("alice", "bob"))
    url = as_role(pg_url, "alice", "team_copies")
    found = Backscroll(home=tmp_path / "alice").search("capture_payment", archive=url, mode="lexical", weak=True,
                                                       limit=20)
    ids = [(h.session_id, h.record_id) for h in (*found.results, *found.weak_matches)]
    assert ids and len(ids) == len(set(ids)), ids
    session = found.results[0].session_id
    whole = Backscroll(home=tmp_path / "alice").show(session[:8], archive=url)
    assert whole.session["session_id"] == session and whole.total > 0


def test_a_session_two_members_pushed_differently_opens_as_the_hit_says(pg_url, tmp_path):
    """Carol's copy of Alice's session, its project changed: her hit says carol, and the command it prints opens
    her copy, not Alice's."""
    import shlex

    from typer.testing import CliRunner

    from backscroll.cli.app import app

    each_pushed_the_codex_fixtures(pg_url, tmp_path, "team_differing", ("alice", "carol"))
    with psycopg.connect(as_role(pg_url, "carol", "team_differing"), autocommit=True) as conn:
        conn.execute("UPDATE backscroll.records SET project = 'payments-copy' WHERE member = 'carol'")
    url = as_role(pg_url, "carol", "team_differing")
    runner = CliRunner(env={"COLUMNS": "300"})
    home = ["--home", str(tmp_path / "carol"), "--no-pager"]
    out = runner.invoke(app, [*home, "search", "capture_payment", "--mode", "lexical", "--member", "carol",
                              "--archive", url])
    assert out.exit_code == 0, out.output
    line = next(ln[ln.index("backscroll show"):] for ln in out.stdout.splitlines() if "backscroll show" in ln)
    assert "--member carol" in line
    shown = runner.invoke(app, [*home, *shlex.split(line)[1:]])
    assert shown.exit_code == 0 and "carol@" in shown.stdout.splitlines()[0], shown.output
    alices = runner.invoke(app, [*home, *shlex.split(line.replace("--member carol", "--member alice"))[1:]])
    assert alices.exit_code == 0 and "alice@" in alices.stdout.splitlines()[0], alices.output
    nobody = runner.invoke(app, [*home, *shlex.split(line.replace("--member carol", "--member dave"))[1:]])
    assert nobody.exit_code != 0 and "no member 'dave'" in nobody.output
    without = runner.invoke(app, [*home, "show", line.split()[2], "--member", "carol"])
    assert without.exit_code == 2 and "archive" in without.output
    unnamed = runner.invoke(app, [*home, *shlex.split(line.replace(" --member carol", ""))[1:]])
    first = unnamed.stdout.splitlines()[0]
    other = "carol" if "alice@" in first else "alice"
    assert unnamed.exit_code == 0 and f"{other}@" in unnamed.stderr and "--member" in unnamed.stderr, unnamed.output
    named = runner.invoke(app, [*home, *shlex.split(line)[1:]])
    assert "pushed it too" not in named.stderr
    tsv = runner.invoke(app, [*home, "search", "capture_payment", "--mode", "lexical", "--format", "tsv",
                              "--archive", url])
    rows = [row.split("\t") for row in tsv.stdout.splitlines()]
    assert tsv.exit_code == 0 and rows and all(len(r) == 6 and "@" in r[5] for r in rows), tsv.output


def test_a_hand_made_row_neither_fails_a_read_nor_floods_it(pg_url, tmp_path):
    """A teammate may write rows by hand: a time Python cannot hold ('infinity') must not fail every search and list
    that meets it, and megabytes of project or path must not reach a reader (or an agent's context) whole."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute('DROP DATABASE IF EXISTS "team_hostile"')
        admin.execute('CREATE DATABASE "team_hostile"')
    with Archive.connect(as_role(pg_url, "postgres", "team_hostile")) as a:
        a.init(["alice", "carol"])
    alice = Backscroll(home=tmp_path / "alice", sources=(f"codex:{CODEX}",))
    alice.index(embed=False)
    with alice:
        alice.push(as_role(pg_url, "alice", "team_hostile"))
    with psycopg.connect(as_role(pg_url, "alice", "team_hostile"), autocommit=True) as conn:
        conn.execute("UPDATE backscroll.records SET ts = 'infinity', project = repeat('p', 1000000), "
                     "cwd = repeat('c', 1000000), source_path = repeat('s', 1000000)")
        conn.execute("UPDATE backscroll.sessions SET started_at = 'infinity', project = repeat('p', 1000000)")
    carol = Backscroll(home=tmp_path / "carol")
    url = as_role(pg_url, "carol", "team_hostile")
    found = carol.search("capture_payment double-charged", archive=url, mode="lexical")
    assert found.results and found.results[0].timestamp is None
    assert len(json.dumps(found.to_dict())) < 200_000, "bounded"
    listed = carol.sessions(archive=url, limit=50)
    assert listed and all(len(s.project or "") <= 400 for s in listed)


def test_no_server_on_the_local_socket_says_what_to_do(tmp_path):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    out = CliRunner().invoke(app, ["--home", str(tmp_path / "h"), "search", "job", "--archive",
                                   f"postgresql://carol@/team?host={tmp_path}"])
    assert out.exit_code != 0 and "name the server's host in the URL" in out.output, out.output
    assert "Traceback" not in out.output


def test_a_start_of_a_session_id_and_of_another_sessions_record_names_neither_as_locally(pg_url, session_builder,
                                                                                         backscroll_home):
    from backscroll.errors import AmbiguousIdError

    first = session_builder.claude()
    first.user("the record whose id another session's starts as")
    dan = Backscroll(home=backscroll_home.data)
    dan.index(embed=False)
    rid = dan.search("record whose id another session", mode="lexical").results[0].record_id
    session_builder.claude(session_id=rid[:8] + "-0000-4000-8000-000000000000").user("the other session")
    dan.index(embed=False)
    url = fresh_archive(pg_url, "team_prefixes", "dan")
    with dan:
        dan.push(url)
    for where in ({}, {"archive": url}):  # (the local store, then the archive)
        with pytest.raises(AmbiguousIdError, match=f"start of session {rid[:8]}-0000-.* and of record {rid}"):
            dan.show(rid[:8], archive=where.get("archive"))
        assert dan.show(rid[:13], context=0, archive=where.get("archive")).focus == rid
