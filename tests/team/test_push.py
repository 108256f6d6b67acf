"""The team archive on a real PostgreSQL server (a throwaway one, ``pg_url``): ``archive init``, pushes from two
members' homes, idempotent and resumed pushes, row-level security, prune, and nothing unredacted leaving."""

import json

import psycopg
import pytest
from helpers import TESTS, unflagged_as_by_rules
from psycopg import conninfo
from team_archives import as_role, fresh_archive, new_database, row

from backscroll.archive import Backscroll
from backscroll.errors import ArchiveError
from backscroll.store.archive_pg import Archive
from backscroll.store.archive_schema import SCHEMA_VERSION
from backscroll.team.marks import archive_key
from backscroll.team.push import push

FIXTURES = TESTS.parent / "fixtures" / "claude" / "projects"


@pytest.fixture
def team(pg_url, request):
    """A fresh database for this test, initialised, with members alice and bob (and carol, who only reads)."""
    name = "t_" + request.node.name.lower().replace("[", "_").replace("]", "")[:40]
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    owner = as_role(pg_url, "postgres", name)
    with Archive.connect(owner) as archive:
        archive.init(["alice", "bob", "carol"])
    return {m: as_role(pg_url, m, name) for m in ("alice", "bob", "carol", "postgres")}


def home(session_builder, backscroll_home, project: str, words: str):
    session_builder.claude(project).user(words).assistant(f"decided: {words}")
    bs = Backscroll(home=backscroll_home.data)
    bs.index(embed=False)
    return bs


def pushed(url: str, bs: Backscroll, **kw):
    with bs:
        return bs.push(url, **kw)


def test_init_is_idempotent_and_versioned(team):
    with Archive.connect(team["postgres"]) as archive:
        assert archive.init(["alice"]) == (SCHEMA_VERSION, True)  # again: nothing breaks; pgvector is bundled
        assert archive.version() == SCHEMA_VERSION


def test_two_members_push_from_two_homes_and_a_third_reads_both(team, session_builder, backscroll_home, tmp_path):
    alice = home(session_builder, backscroll_home, "shop", "queue in postgres with skip locked")
    first = pushed(team["alice"], alice)
    assert (first.member, first.pushed, first.pending, first.vectors) == ("alice", 2, 2, True)
    assert pushed(team["alice"], alice).pushed == 0, "a second push adds nothing"
    bob = Backscroll(home=tmp_path / "bob", sources=(f"claude:{FIXTURES}",))
    bob.index(embed=False)
    second = pushed(team["bob"], bob)
    assert second.member == "bob" and second.pushed > 10
    with Archive.connect(team["carol"]) as archive:
        assert archive.count("alice") == 2 and archive.count("bob") == second.pushed
        assert archive.count() == 2 + second.pushed


def test_a_push_resumes_after_its_mark_and_never_doubles(team, tmp_path):
    bob = Backscroll(home=tmp_path / "bob", sources=(f"claude:{FIXTURES}",))
    bob.index(embed=False)
    first = pushed(team["bob"], bob, batch=7)
    assert first.pushed == first.pending > 7
    with bob:
        store, _l, _f = bob._open(False, [])
        try:  # as if killed after the archive committed the first batch, before the mark moved past it
            with Archive.connect(team["bob"]) as archive:
                store.set_meta(f"archive_pushed:{archive_key(archive.identity(), 'bob')}", "0")
        finally:
            bob._release(store)
    again = pushed(team["bob"], bob, batch=7)
    assert again.pushed == first.pushed
    with Archive.connect(team["carol"]) as archive:
        assert archive.count("bob") == first.pushed, "a batch sent twice is still one row per record"


def test_a_member_cannot_write_or_delete_anothers_rows(team, session_builder, backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "retry with backoff")
    machine = pushed(team["alice"], bs).machine
    with Archive.connect(team["bob"]) as archive:
        ids = sorted(archive.pushed_ids("alice", machine))
        assert len(ids) == 2, "bob reads alice's rows"
        assert archive.delete("alice", machine, ids) == 0, "row-level security hides them from his delete"
        with pytest.raises(ArchiveError, match="row-level security"):
            archive.upsert("alice", "bob-laptop", [row("x", "forged")])
    with Archive.connect(team["carol"]) as archive:
        assert archive.count("alice") == 2


def test_no_member_writes_under_the_group_roles_name(team, session_builder, backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "deploy on friday is fine")
    machine = pushed(team["bob"], bs).machine
    with psycopg.connect(team["alice"], autocommit=True) as conn:
        conn.execute("SET ROLE backscroll_member")  # (every member may: it is their group)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO backscroll.records (member, machine, record_id, session_id, agent, role, "
                         "content_type, text, words) VALUES ('backscroll_member', 'x', 'r#0', 's', 'claude', "
                         "'user', 'text', 'bob said: deploy friday', 'bob said')")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO backscroll.sessions (member, machine, session_id, agent) "
                         "VALUES ('backscroll_member', 'x', 's', 'claude')")
        assert conn.execute("DELETE FROM backscroll.records WHERE member = 'bob'").rowcount == 0
    with Archive.connect(team["carol"]) as archive:
        assert archive.count("bob") == 2 and archive.pushed_ids("bob", machine)


def test_a_member_named_otherwise_than_their_role_is_told(team, session_builder, backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "hello")
    with Archive.connect(team["alice"]) as archive, bs:
        store, _l, _f = bs._open(False, [])
        try:
            with pytest.raises(ArchiveError, match="not your database role"):
                push(store, archive, "m", member="bob")
        finally:
            bs._release(store)


def test_prune_removes_what_the_store_no_longer_holds(team, session_builder, backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "keep me")
    machine = pushed(team["alice"], bs).machine
    with Archive.connect(team["alice"]) as archive:
        session = next(iter(archive.pushed_ids("alice", machine).values()))
        archive.upsert("alice", machine, [row("gone#0", "old", session_id=session),
                                          row("elsewhere#0", "another data dir's", session_id="other")])
    report = pushed(team["alice"], bs, prune=True, dry_run=True)
    assert report.pruned == 1
    with Archive.connect(team["alice"]) as archive:
        assert archive.count("alice") == 4, "a dry run removes nothing"
    assert pushed(team["alice"], bs, prune=True).pruned == 1
    with Archive.connect(team["alice"]) as archive:
        assert set(archive.pushed_ids("alice", machine)) - {"elsewhere#0"} == bs_ids(bs)
        assert "elsewhere#0" in archive.pushed_ids("alice", machine), "a session this store never held is left"


def test_a_second_data_dir_on_the_machine_prunes_none_of_the_firsts_sessions(team, session_builder, backscroll_home,
                                                                              tmp_path):
    first = Backscroll(home=tmp_path / "first", sources=(f"claude:{FIXTURES}",))
    first.index(embed=False)
    sent = pushed(team["alice"], first).pushed
    second = home(session_builder, backscroll_home, "infra", "a new laptop's one session")
    assert pushed(team["alice"], second, prune=True).pruned == 0
    with Archive.connect(team["alice"]) as archive:
        assert archive.count("alice") == sent + 2


def reply_given_a_new_id(backscroll_home, bs: Backscroll, new: str) -> str:
    """The session's log rewritten with its last reply under the id ``new``, and read again; the reply's old id."""
    log = next(backscroll_home.claude_projects.rglob("*.jsonl"))
    lines = log.read_text().splitlines()
    old = json.loads(lines[-1])["uuid"]
    log.write_text("\n".join([*lines[:-1], lines[-1].replace(old, new)]) + "\n")
    bs.index(embed=False)
    return old


def test_a_record_a_re_read_gave_a_new_id_leaves_the_archive_with_the_next_push(team, session_builder,
                                                                                backscroll_home):
    """A log rewritten with the same reply under another id (or a newer parser's ids): the store keeps one copy, and
    so does the archive after the next push, with no --prune."""
    bs = home(session_builder, backscroll_home, "shop", "the queue stays in postgres")
    machine = pushed(team["alice"], bs).machine
    old = reply_given_a_new_id(backscroll_home, bs, "0f0f0f0f-0000-4000-8000-000000000001")
    assert f"{old}#0" not in bs_ids(bs)
    assert pushed(team["alice"], bs, dry_run=True).departed == 1
    report = pushed(team["alice"], bs)
    assert (report.pushed, report.departed) == (1, 1)
    with Archive.connect(team["alice"]) as archive:
        assert set(archive.pushed_ids("alice", machine)) == bs_ids(bs), "one row per record, as the store holds"
        assert archive.count("alice") == 2
    assert pushed(team["alice"], bs).departed == 0, "taken out once"


def bs_ids(bs: Backscroll) -> set[str]:
    with bs:
        store, _l, _f = bs._open(False, [])
        try:
            return store.held_record_ids()
        finally:
            bs._release(store)


def test_nothing_unredacted_reaches_the_archive(team, session_builder, backscroll_home):
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    bs = home(session_builder, backscroll_home, "shop", f"use token {secret} for the deploy")
    pushed(team["alice"], bs)
    with psycopg.connect(team["postgres"]) as conn:
        dump = " ".join(str(v) for row in conn.execute("SELECT * FROM backscroll.records") for v in row)
    assert "ghp_A1b2" not in dump and "for the deploy" in dump


def test_a_store_filled_with_redaction_off_pushes_its_sessions_redacted(team, session_builder, backscroll_home,
                                                                         monkeypatch):
    """A member who turned redaction off locally still sends nothing unredacted: not the records, and not the
    session rows (title, first prompt) every teammate lists."""
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    monkeypatch.setenv("BACKSCROLL_REDACT", "0")
    bs = home(session_builder, backscroll_home, "shop", f"use token {secret} for the deploy")
    pushed(team["alice"], bs)
    with psycopg.connect(team["postgres"]) as conn:
        dump = " ".join(str(v) for table in ("records", "sessions")
                        for row in conn.execute(f"SELECT * FROM backscroll.{table}") for v in row)
    assert "ghp_A1b2" not in dump and dump.count("for the deploy") >= 2, dump


def test_an_archive_never_initialised_says_what_to_do(pg_url):
    new_database(pg_url, "bare")
    with Archive.connect(as_role(pg_url, "postgres", "bare")) as archive:
        with pytest.raises(ArchiveError, match="archive init"):
            archive.check_version()


def test_an_unreachable_archive_is_a_clear_error_without_the_password():
    with pytest.raises(ArchiveError) as err:
        Archive.connect("postgresql://alice:s3cret@127.0.0.1:1/team", timeout=2)
    assert "s3cret" not in str(err.value) and "alice@127.0.0.1:1/team" in str(err.value)


def test_archive_errors_say_what_to_do(team, pg_url):
    """Each way of not getting in names its fix: a role that is no member, a database that is not there, a
    server that is not listening; a user name is not a password, so it is shown."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP ROLE IF EXISTS eve")
        admin.execute("CREATE ROLE eve LOGIN")
    eve = team["alice"].replace("user=alice", "user=eve")
    with pytest.raises(ArchiveError) as err:  # (the archive's database lets in its members only)
        Archive.connect(eve)
    assert "--member NAME" in (err.value.hint or ""), err.value
    with pytest.raises(ArchiveError) as err:
        Archive.connect(as_role(pg_url, "alice", "no_such_db"))
    assert "database name" in (err.value.hint or "") and "alice@" in err.value.message, err.value
    with pytest.raises(ArchiveError) as err:
        Archive.connect("postgresql://alice@127.0.0.1:1/team", timeout=2)
    assert "host and port" in (err.value.hint or ""), err.value


def test_the_command_line_sets_up_and_pushes(team, pg_url, session_builder, backscroll_home, monkeypatch):
    import json

    from typer.testing import CliRunner

    from backscroll.cli.app import app

    session_builder.claude("shop").user("the nightly export times out").assistant("stream it with a cursor")
    runner = CliRunner()
    owner = team["postgres"]
    for bad in ("", "x" * 64):
        refused = runner.invoke(app, ["archive", "init", owner, "--member", bad])
        assert refused.exit_code == 2 and "cannot be a member" in refused.output, refused.output
    out = runner.invoke(app, ["archive", "init", owner, "--member", "dave", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["schema_version"] == 1 and doc["archive_schema"] == SCHEMA_VERSION  # (the JSON's own, the archive's)
    dave = team["alice"].replace("user=alice", "user=dave")
    home = ["--home", str(backscroll_home.data)]
    dry = runner.invoke(app, [*home, "push", "--to", dave, "--dry-run", "--json"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["pending"] == 2 and json.loads(dry.stdout)["pushed"] == 0
    monkeypatch.setenv("BACKSCROLL_ARCHIVE_URL", dave)
    done = runner.invoke(app, [*home, "push", "--json"])
    assert done.exit_code == 0 and json.loads(done.stdout)["pushed"] == 2
    session_builder.claude("shop").user("one more, not pushed yet")
    runner.invoke(app, [*home, "index"])
    status = json.loads(runner.invoke(app, [*home, "status", "--json"]).stdout)["archive"]
    assert status["configured"] == status["last_push"]["archive"] and status["from"] == "env $BACKSCROLL_ARCHIVE_URL"
    assert status["last_push"]["member"] == "dave" and status["last_push"]["waiting"] == 1
    said = runner.invoke(app, [*home, "status"]).stdout
    assert "as dave" in said and "1 record since: `backscroll push` sends them" in said
    gone = runner.invoke(app, [*home, "push", "--to", "postgresql://dave:pw@127.0.0.1:1/x", "--json"])
    assert gone.exit_code == 6 and "pw@" not in gone.output and '"kind":"archive"' in gone.stderr.replace(" ", "")
    monkeypatch.delenv("BACKSCROLL_ARCHIVE_URL")  # (pushed to once, none configured now: status still reports)
    unset = runner.invoke(app, [*home, "status", "--json"])
    assert unset.exit_code == 0 and json.loads(unset.stdout)["archive"]["configured"] is None, unset.output
    assert json.loads(unset.stdout)["archive"]["last_push"]["member"] == "dave"


def test_an_archive_made_anew_under_the_same_name_is_pushed_to_whole(team, pg_url, session_builder, backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "remember me")
    assert pushed(team["alice"], bs).pushed == 2
    name = conninfo.conninfo_to_dict(team["alice"])["dbname"]
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    with Archive.connect(team["postgres"]) as archive:
        archive.init(["alice"])
    assert pushed(team["alice"], bs).pushed == 2, "the old mark belongs to the old archive"


def test_a_store_another_process_keeps_locked_is_a_clear_error_and_the_next_push_finishes(
        team, session_builder, backscroll_home, monkeypatch):
    import sqlite3

    from backscroll.errors import LockedError
    from backscroll.store import db

    alice = home(session_builder, backscroll_home, "shop", "queue in postgres with skip locked")
    monkeypatch.setattr(db, "BUSY_SECONDS", 0.2)
    writer = sqlite3.connect(alice.config.db_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process's long write: an index of a big new history
    try:
        with pytest.raises(LockedError, match="locked by another process") as caught:
            pushed(team["alice"], alice)
        assert "run this again" in (caught.value.hint or "")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    again = pushed(team["alice"], alice)
    assert again.pending == 2
    with Archive.connect(team["alice"]) as archive:
        assert archive.count("alice") == 2, "the batch sent before the lock is there once"


def test_records_pushed_before_their_vector_get_it_and_deleted_rows_stay_deleted(team, session_builder,
                                                                                  backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "queue in postgres with skip locked")
    assert pushed(team["alice"], bs).pushed == 2  # read, not yet embedded: the archive holds no vector
    with psycopg.connect(team["postgres"]) as conn:
        assert conn.execute("SELECT count(embedding) FROM backscroll.records").fetchone() == (0,)
    with psycopg.connect(team["alice"], autocommit=True) as conn:  # alice takes one of her rows back
        conn.execute("DELETE FROM backscroll.records WHERE text LIKE 'decided:%'")
    assert bs.embed()[0] == 2
    again = pushed(team["alice"], bs)
    assert (again.pending, again.pushed, again.vectors_added) == (0, 0, 1), "the vector alone, of the row held"
    with psycopg.connect(team["postgres"]) as conn:
        assert conn.execute("SELECT count(embedding), count(*) FROM backscroll.records").fetchone() == (1, 1)
    assert pushed(team["alice"], bs).vectors_added == 0, "and only once"


def test_a_push_moves_its_mark_while_another_process_writes_between_batches(team, tmp_path):
    """An embedding worker commits vectors while a push sends: the push held one read open across its batches,
    so moving its mark after another's commit failed at once ("database is locked"), whatever the wait."""
    import sqlite3

    bob = Backscroll(home=tmp_path / "bob", sources=(f"claude:{FIXTURES}",))
    bob.index(embed=False)
    other = sqlite3.connect(tmp_path / "bob" / "backscroll.db", isolation_level=None)

    def another_writer(_n: int) -> None:
        other.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('elsewhere', ?)", (str(_n),))

    try:
        report = pushed(team["bob"], bob, batch=7, advance=another_writer)
    finally:
        other.close()
    assert report.pushed == report.pending > 7
    assert pushed(team["bob"], bob).pushed == 0, "every mark moved"


def test_a_row_sent_again_in_place_is_not_brought_back_once_deleted(team):
    with Archive.connect(team["alice"]) as archive:
        archive.upsert("alice", "laptop", [row("kept#0", "first"), row("taken#0", "second")])
        with psycopg.connect(team["alice"], autocommit=True) as conn:
            conn.execute("DELETE FROM backscroll.records WHERE record_id = 'taken#0'")
        archive.upsert("alice", "laptop", [row("kept#0", "first, redacted again"), row("taken#0", "second again")],
                       insert=False)
        assert archive.pushed_ids("alice", "laptop") == {"kept#0": "s"}
    with psycopg.connect(team["alice"]) as conn:
        assert conn.execute("SELECT text FROM backscroll.records").fetchall() == [("first, redacted again",)]


def test_a_push_refused_is_told_from_a_connection_lost(team):
    with Archive.connect(team["alice"]) as archive:
        refused = archive._push_failed(psycopg.errors.QueryCanceled("canceling statement due to statement timeout"))
        lost = archive._push_failed(psycopg.errors.AdminShutdown("terminating connection"))
    assert "refused the push" in str(refused) and "lost mid-push" in str(lost)


def test_a_nul_in_a_session_goes_to_the_archive_as_shown_and_blocks_nothing(team, session_builder, backscroll_home):
    """PostgreSQL's text holds no NUL; a tool output may (a binary file printed). It goes as ``␀`` (its id, no plain
    word, is stored as a digest), and the push, its vectors and a prune go on."""
    from backscroll.ingest.rows import stored_id

    s = session_builder.claude("shop").user("the okapi header")
    s.write(s._envelope("user", {"role": "user", "content": "okapi \x00\x00 magic bytes"}, uuid="nul\x00id"))
    s.assistant("decided: keep the okapi header")
    bs = Backscroll(home=backscroll_home.data)
    bs.index(embed=False)
    report = pushed(team["alice"], bs)
    assert report.pushed == 3
    bs.embed()
    again = pushed(team["alice"], bs, prune=True)
    assert (again.pushed, again.vectors_added, again.pruned) == (0, 3, 0)
    with Archive.connect(team["alice"]) as archive:
        assert archive._run("SELECT record_id FROM backscroll.records WHERE text = %s",
                            ("okapi \u2400\u2400 magic bytes",)) == [(stored_id("nul\x00id#0"),)]
        assert archive._run("SELECT count(*) FROM backscroll.records WHERE embedding IS NULL") == [(0,)]


def test_the_last_words_of_the_longest_output_the_store_keeps_are_found_in_the_archive(team, session_builder,
                                                                                       backscroll_home):
    log = "".join(f"step {n} compiled fine\n" for n in range(10_500)) + "error: quokkafinale"
    assert 200_000 < len(log) < 256 * 1024
    session_builder.claude("shop").user("build it").assistant(log)
    bs = Backscroll(home=backscroll_home.data)
    bs.index(embed=False)
    pushed(team["alice"], bs)
    found = bs.search("quokkafinale", archive=team["carol"], mode="lexical")
    assert found.results and found.results[0].match == "words"


def test_an_archive_row_is_shown_redacted_and_bounded_whoever_wrote_it(team, session_builder, backscroll_home):
    """A row an older client pushed, or one a member wrote by hand, reaches a teammate's screen and agent only
    redacted with today's rules, and no longer than a local store keeps a text."""
    bs = home(session_builder, backscroll_home, "shop", "okapi deploy notes")
    machine = pushed(team["alice"], bs).machine
    secret = "ghp_" + "R8kM2vXq9LtY4wZp7NcB3hJd6FsA1uGe5TnQ"
    with Archive.connect(team["alice"]) as archive:
        session = next(iter(archive.pushed_ids("alice", machine).values()))
        text = f"okapi token {secret} " + " ".join("x" * 200_000)
        archive.upsert("alice", machine, [row("raw#0", text, session_id=session, title=f"okapi {secret}")])
    found = bs.search("okapi token", archive=team["carol"], mode="lexical", limit=5)
    shown = [h for h in (*found.results, *found.weak_matches) if h.record_id == "raw#0"]
    assert shown and secret not in shown[0].text + shown[0].snippet and "[REDACTED:" in shown[0].text
    view = bs.show("raw#0", archive=team["carol"], context=0)
    assert secret not in repr(view)
    first = view.records[0]
    assert secret not in first.text and len(first.text) <= 256 * 1024 and first.text_truncated
    assert secret not in repr(bs.sessions(archive=team["carol"]))


def test_push_again_fills_an_archive_restored_from_a_backup(team, session_builder, backscroll_home):
    """A restored archive keeps its id, so the marks say its rows were sent: ``again`` sends every record."""
    bs = home(session_builder, backscroll_home, "shop", "okapi restore drill")
    first = pushed(team["alice"], bs)
    with psycopg.connect(team["postgres"], autocommit=True) as owner:  # (as the backup had it: nothing of alice's)
        owner.execute("DELETE FROM backscroll.records WHERE member = 'alice'")
    assert pushed(team["alice"], bs).pushed == 0
    assert pushed(team["alice"], bs, again=True, dry_run=True).pending == first.pushed
    assert pushed(team["alice"], bs, again=True).pushed == first.pushed
    assert pushed(team["alice"], bs, again=True).pushed == first.pushed  # (replaced: none doubles)
    with Archive.connect(team["carol"]) as archive:
        assert archive.count("alice") == first.pushed
    assert pushed(team["alice"], bs).pushed == 0


def test_records_classified_again_as_echoes_reach_the_archive_with_their_new_flag(team, session_builder,
                                                                                 backscroll_home):
    """New echo rules flag stored rows in place: the next push sends them again, so the archive hides them too."""
    s = session_builder.claude("shop").user("where did we leave the okapi header?")
    call = s.tool_use("mcp__history__search", {"query": "okapi header"})
    s.tool_result(call, '{"schema_version":1,"query":"okapi header","mode":"hybrid","results":[{"text":"the okapi"}]}')
    bs = Backscroll(home=backscroll_home.data)
    bs.index(embed=False)
    unflagged_as_by_rules(backscroll_home, 5)
    assert pushed(team["alice"], bs).pushed == 3
    with Archive.connect(team["alice"]) as archive:
        assert archive._run("SELECT count(*) FROM backscroll.records WHERE is_echo") == [(0,)]
    bs.index(embed=False)
    pushed(team["alice"], bs)
    with Archive.connect(team["alice"]) as archive:
        assert archive._run("SELECT count(*) FROM backscroll.records WHERE is_echo") == [(2,)]


def test_a_copy_of_the_archive_is_another_archive_to_a_push(team, session_builder, backscroll_home, pg_url):
    """A staging copy (``CREATE DATABASE … TEMPLATE``) holds the archive's id: a push to it is a push to another
    archive, so the original still gets what was pushed to the copy."""
    bs = home(session_builder, backscroll_home, "shop", "the queue stays in postgres")
    pushed(team["alice"], bs)
    original = psycopg.conninfo.conninfo_to_dict(team["alice"])["dbname"]
    new_database(pg_url, "copy_of_the_archive", f'TEMPLATE "{original}"')
    session_builder.claude("shop").user("the okapi tables move on friday").assistant("noted: okapi on friday")
    bs.index(embed=False)
    assert pushed(as_role(pg_url, "alice", "copy_of_the_archive"), bs).pushed == 4, "another archive: all of it"
    assert pushed(team["alice"], bs).pushed == 2, "the original still lacks the two new records"
    with Archive.connect(team["alice"]) as archive:
        assert archive.count("alice") == 4


def test_a_member_of_one_archive_is_no_member_of_another_on_the_same_server(team, pg_url):
    """The member group is the server's; each archive's database lets in the members ``init`` named for it."""
    other = fresh_archive(pg_url, "t_another_team", "dave")
    with pytest.raises(ArchiveError) as refused:
        Archive.connect(as_role(pg_url, "bob", "t_another_team"))
    assert "no member of this archive" in (refused.value.hint or ""), refused.value.hint
    with Archive.connect(other) as archive:
        assert archive.role() == "dave"
    with Archive.connect(team["bob"]) as archive:
        assert archive.role() == "bob", "bob's own archive still lets him in"


def test_a_machine_keeps_the_name_it_first_pushed_under(team, session_builder, backscroll_home, monkeypatch):
    """A laptop's host name follows its network: its sessions stay under the name of its first push."""
    import socket

    bs = home(session_builder, backscroll_home, "shop", "the queue stays in postgres")
    first = pushed(team["alice"], bs)
    monkeypatch.setattr(socket, "gethostname", lambda: "renamed-on-the-train")
    session_builder.claude("shop").user("the okapi tables move on friday").assistant("noted: okapi on friday")
    bs.index(embed=False)
    assert pushed(team["alice"], bs).machine == first.machine
    with Archive.connect(team["alice"]) as archive:
        assert len(archive.pushed_ids("alice", first.machine)) == 4
        assert not archive.pushed_ids("alice", "renamed-on-the-train")


def test_an_archive_needs_a_utf8_database(pg_url):
    new_database(pg_url, "latin", "ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")
    with Archive.connect(as_role(pg_url, "postgres", "latin")) as archive:
        with pytest.raises(ArchiveError, match="encoded LATIN1: an archive needs UTF8"):
            archive.init(["alice"])
        assert archive.version() is None, "nothing was made"


def test_a_database_owner_without_createrole_makes_an_archive_and_is_told_what_adding_members_takes(team, pg_url):
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DO $$ BEGIN CREATE ROLE owner_only LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    new_database(pg_url, "owned", "OWNER owner_only")
    with Archive.connect(as_role(pg_url, "owner_only", "owned")) as archive:
        assert archive.init()[0] == SCHEMA_VERSION, "the group exists on this server (the team's archive made it)"
        assert archive.init(["alice"])[0] == SCHEMA_VERSION, "a role in the group already is let in, no more"
        with pytest.raises(ArchiveError) as refused:
            archive.init(["newcomer"])
    assert "CREATEROLE" in (refused.value.hint or ""), refused.value.hint


def test_a_push_in_batches_of_none_is_refused():
    from backscroll.errors import UsageError

    with pytest.raises(UsageError, match="batches of at least 1"):
        push(None, None, "m", batch=0)  # type: ignore[arg-type]


def test_the_first_push_after_an_upgrade_sends_nothing_again_and_keeps_its_machine(team, session_builder,
                                                                                    backscroll_home, monkeypatch,
                                                                                    pg_url):
    """An older release kept a push's marks under the archive's id alone: taken over, the first push after the
    upgrade sends nothing again (a row a member deleted stays deleted) and names the machine as its last push did,
    whatever the host is called now."""
    import socket

    from backscroll.store.outbox import LAST_PUSH

    bs = home(session_builder, backscroll_home, "shop", "the queue stays in postgres")
    first = pushed(team["alice"], bs)
    with Archive.connect(team["alice"]) as archive:
        identity = archive.identity()
        assert archive.delete("alice", first.machine, sorted(archive.pushed_ids("alice", first.machine))[:1]) == 1
    new, old = archive_key(identity, "alice"), archive_key(identity.rpartition("@")[0], "alice")
    with bs:
        store, _l, _f = bs._open(False, [])
        try:  # as an older release left them: under the archive's id alone, the machine named by the last push only
            for k in ("pushed", "revised", "vectored", "departed", "machine"):
                store.set_meta(f"archive_{k}:{old}", None if k == "machine" else store.get_meta(f"archive_{k}:{new}"))
                store.set_meta(f"archive_{k}:{new}", None)
            store.set_meta(LAST_PUSH, json.dumps({**json.loads(store.get_meta(LAST_PUSH) or "{}"), "key": old}))
        finally:
            bs._release(store)
    monkeypatch.setattr(socket, "gethostname", lambda: "renamed-on-the-train")
    assert pushed(team["alice"], bs, dry_run=True).pending == 0
    with bs:
        store, _l, _f = bs._open(False, [])
        try:
            assert store.get_meta(f"archive_pushed:{old}") and not store.get_meta(f"archive_pushed:{new}"), \
                "a dry run writes nothing"
        finally:
            bs._release(store)
    again = pushed(team["alice"], bs)
    assert (again.pushed, again.machine) == (0, first.machine)
    with Archive.connect(team["alice"]) as archive:
        assert archive.count("alice") == 1, "the row alice deleted stays deleted"
    original = conninfo.conninfo_to_dict(team["alice"])["dbname"]
    new_database(pg_url, "copy_after_the_upgrade", f'TEMPLATE "{original}"')
    assert pushed(as_role(pg_url, "alice", "copy_after_the_upgrade"), bs).pushed == 2, \
        "the earlier marks, taken over once, are no later copy's"


def test_push_again_takes_out_a_record_a_re_read_replaced(team, session_builder, backscroll_home):
    bs = home(session_builder, backscroll_home, "shop", "the queue stays in postgres")
    machine = pushed(team["alice"], bs).machine
    reply_given_a_new_id(backscroll_home, bs, "0f0f0f0f-0000-4000-8000-000000000002")
    assert pushed(team["alice"], bs, again=True).departed == 1
    with Archive.connect(team["alice"]) as archive:
        assert set(archive.pushed_ids("alice", machine)) == bs_ids(bs), "none doubles"


def test_a_session_whose_records_all_moved_away_leaves_the_archive(team, session_builder, backscroll_home):
    """A newer reader names a session otherwise (its id held a secret, say): the push moves its records to the new
    session, and the old session's row, with its title, goes instead of being listed twice."""
    from backscroll.store.archive_schema import SESSION_COLUMNS

    bs = home(session_builder, backscroll_home, "shop", "the queue stays in postgres")
    machine = pushed(team["alice"], bs).machine
    stale = {"session_id": "older-name", "agent": "claude", "title": "as an older reader named it",
             "is_sidechain": False, "records": 2, "echoes": 0}
    with Archive.connect(team["alice"]) as archive:
        archive.upsert("alice", machine, [], [tuple(stale.get(c) for c in SESSION_COLUMNS)])
    session_builder.claude("infra").user("pgbouncer in transaction mode").assistant("noted")
    bs.index(embed=False)
    assert pushed(team["alice"], bs).pushed == 2
    with psycopg.connect(team["alice"]) as conn:
        names = {r[0] for r in conn.execute("SELECT session_id FROM backscroll.sessions WHERE member = 'alice'")}
    assert "older-name" not in names and len(names) == 2


def test_a_secret_in_a_session_files_name_does_not_reach_the_archive(team, session_builder, backscroll_home):
    """A Codex rollout's name is its session's id: a token in it is redacted in every row's ``source_path``."""
    s = session_builder.codex("shop")
    s.user("where do the nightly backups go?").assistant("to the cold bucket")
    s.path.rename(s.path.with_name("rollout-2026-10-01T09-00-00-ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri.jsonl"))
    bs = Backscroll(home=backscroll_home.data)
    bs.index(embed=False)
    pushed(team["alice"], bs)
    with psycopg.connect(team["postgres"]) as conn:
        dump = " ".join(str(v) for table in ("records", "sessions")
                        for row in conn.execute(f"SELECT * FROM backscroll.{table}") for v in row)
    assert "ghp_Zr8M" not in dump and "cold bucket" in dump
