"""The team archive's schema versions: an archive of version 1 (as the first release made it, rows pushed by it)
is migrated by ``archive init`` to version 2, and each member's next push sends everything again with what version
2 keeps (stems, identifier parts, places, sessions), so that its search ranks as the local one does."""

from __future__ import annotations

import hashlib

import psycopg
from helpers import TESTS
from team_archives import as_role

from backscroll.archive import Backscroll
from backscroll.store.archive_pg import Archive
from backscroll.store.archive_schema import SCHEMA_VERSION, _migration_1

FIXTURES = TESTS.parent / "fixtures" / "claude" / "projects"


def test_an_archive_of_version_1_is_migrated_and_pushed_to_again_whole(pg_url, tmp_path):
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute('DROP DATABASE IF EXISTS "schema_v1"')
        admin.execute('CREATE DATABASE "schema_v1"')
    owner = as_role(pg_url, "postgres", "schema_v1")
    with psycopg.connect(owner, autocommit=True) as conn:  # what the first release's `archive init` ran
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        for statement in _migration_1(True):
            conn.execute(statement)
        conn.execute("INSERT INTO backscroll.meta VALUES ('schema_version', '1'), ('archive_id', 'v1-archive')")
        conn.execute("INSERT INTO backscroll.records (member, machine, record_id, session_id, agent, role, "
                     "content_type, text, words) VALUES ('postgres', 'old', 'r#0', 's', 'claude', 'user', 'text', "
                     "'a row the first release pushed', 'a row the first release pushed')")
    bs = Backscroll(home=tmp_path / "eve", sources=(f"claude:{FIXTURES}",))
    bs.index(embed=False)
    with Archive.connect(owner) as archive:
        assert archive.version() == 1
        assert archive.init() == (SCHEMA_VERSION, True)
        assert archive.init() == (SCHEMA_VERSION, True), "again: nothing breaks"
    with psycopg.connect(owner) as conn:
        columns = {r[0] for r in conn.execute("SELECT column_name FROM information_schema.columns "
                                              "WHERE table_schema = 'backscroll' AND table_name = 'records'")}
        assert {"stems", "parts", "seq", "source_path", "line", "is_sidechain", "parent_session_id"} <= columns
        index = conn.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'records_embedding'").fetchone()
        assert index is not None and "ef_construction='200'" in index[0].replace(" ", "")
        assert conn.execute("SELECT text FROM backscroll.records WHERE record_id = 'r#0'").fetchone() is not None, \
            "rows pushed before are kept"
    with bs:  # as if the first release had pushed everything (its mark, under the archive's id and the member)
        store, _lex, _fresh = bs._open(False, [])
        old_key = hashlib.sha1(b"v1-archive|postgres").hexdigest()[:16]
        store.set_meta(f"archive_pushed:{old_key}", str(store.max_record_id()))
        first = bs.push(owner)
        assert first.pushed == first.pending > 10, "the first push to version 2 sends everything again"
        assert bs.push(owner).pushed == 0
        result = bs.search("job queue", archive=owner, mode="lexical")
    assert result.results and result.results[0].source_path.endswith(".jsonl"), "rows carry where they were read"
    with psycopg.connect(owner) as conn:
        assert conn.execute("SELECT count(*) FROM backscroll.sessions").fetchall()[0][0] > 0


def test_an_archive_of_version_2_is_migrated_without_pushing_again(pg_url, tmp_path):
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute('DROP DATABASE IF EXISTS "schema_v2"')
        admin.execute('CREATE DATABASE "schema_v2"')
    owner = as_role(pg_url, "postgres", "schema_v2")
    with Archive.connect(owner) as archive:
        archive.init(["frank"])
    frank = as_role(pg_url, "frank", "schema_v2")
    bs = Backscroll(home=tmp_path / "frank", sources=(f"claude:{FIXTURES}",))
    bs.index(embed=False)
    with bs:
        assert bs.push(frank).pushed > 10
    with psycopg.connect(owner, autocommit=True) as conn:  # as version 2 left it: rows its member's by current_user
        conn.execute("UPDATE backscroll.meta SET value = '2' WHERE key = 'schema_version'")
        for table in ("records", "sessions"):
            conn.execute(f"ALTER POLICY own_rows_in ON backscroll.{table} WITH CHECK (member = current_user)")
    with bs:  # (before the owner migrates it: an archive of version 2 holds today's rows, and is used as it is)
        report = bs.push(frank)
        assert report.pushed == 0 and "archive init" in (report.note or "")
        found = bs.search("job queue", archive=frank, mode="lexical")
        assert found.results and any("schema is version 2" in n for n in found.notes)
    with Archive.connect(owner) as archive:
        assert archive.init() == (SCHEMA_VERSION, True)
    with psycopg.connect(owner) as conn:
        checks = [r[0] for r in conn.execute("SELECT with_check FROM pg_policies WHERE policyname = 'own_rows_in'")]
        assert len(checks) == 2 and all("session_user" in c.lower() for c in checks)
    with bs:
        again = bs.push(frank)
        assert again.pushed == 0 and again.note is None, "the rows did not change: nothing is sent again"


def test_an_archive_of_version_3_lets_in_its_members_and_no_one_else_once_migrated(pg_url):
    """Before version 4 any role could connect to an archive's database (the group, the server's, let the members of
    every archive on it in). Migrated, the database lets in the members who pushed to it, and ``init`` names the
    group's other roles it no longer lets in (a reader only, or another archive's member), who stay out."""
    from team_archives import fresh_archive, new_database, row

    from backscroll.errors import ArchiveError

    fresh_archive(pg_url, "schema_v3_other", "hank")  # (another team's archive on the same server)
    new_database(pg_url, "schema_v3")
    owner = as_role(pg_url, "postgres", "schema_v3")
    with Archive.connect(owner) as archive:
        archive.init(["gina"])
    with Archive.connect(as_role(pg_url, "gina", "schema_v3")) as archive:
        archive.upsert("gina", "laptop", [row("g#0", "gina pushed this")])
    with psycopg.connect(owner, autocommit=True) as conn:  # as version 3 left it: open to every role
        conn.execute("GRANT CONNECT ON DATABASE schema_v3 TO PUBLIC")
        conn.execute("REVOKE CONNECT ON DATABASE schema_v3 FROM gina")
        conn.execute("UPDATE backscroll.meta SET value = '3' WHERE key = 'schema_version'")
    with Archive.connect(as_role(pg_url, "gina", "schema_v3")) as archive:
        assert "lets in its own members only" in (archive.check_version() or "")
    with Archive.connect(owner) as archive:
        assert archive.init() == (SCHEMA_VERSION, True)
        assert any("; not " in n and "hank" in n and "gina" not in n for n in archive.notes), archive.notes
    with Archive.connect(as_role(pg_url, "gina", "schema_v3")) as archive:
        assert archive.role() == "gina", "a member who pushed here is let in after the migration"
    try:
        Archive.connect(as_role(pg_url, "hank", "schema_v3")).close()
    except ArchiveError as refused:
        assert "no member of this archive" in (refused.hint or "")
    else:
        raise AssertionError("another archive's member got in")
