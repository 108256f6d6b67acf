"""Agents' own SQLite databases read beside their writers (``sources.databases``): no lock a writer waits for, a
read again when a commit came during it, and a bad value that costs only itself."""


import sqlite3

import pytest

from backscroll.ingest.sources.databases import read_db_snapshot


@pytest.fixture
def rollback_db(tmp_path):
    """A database in rollback-journal mode (as VS Code's storage and Goose keep theirs), no writer open."""
    path = tmp_path / "state.vscdb"
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE t (v TEXT)")
        conn.execute("INSERT INTO t VALUES ('first')")
    conn.close()
    return path


def test_a_read_takes_no_lock_that_a_writer_would_wait_for(rollback_db):
    def read(conn):
        writer = sqlite3.connect(rollback_db, timeout=0)  # (a writer that waits for nobody)
        with writer:
            writer.execute("INSERT INTO t VALUES ('meanwhile')")
        writer.close()
        return [r[0] for r in conn.execute("SELECT v FROM t ORDER BY rowid")]

    calls = []

    def counted(conn):
        calls.append(1)
        return read(conn) if len(calls) == 1 else [r[0] for r in conn.execute("SELECT v FROM t ORDER BY rowid")]

    # the commit during the first read moved the change counter: it is read again, and sees the commit
    assert read_db_snapshot(rollback_db, counted, "Test", pause=0) == ["first", "meanwhile"]
    assert len(calls) == 2
    assert sorted(p.name for p in rollback_db.parent.iterdir()) == ["state.vscdb"]  # (nothing created beside it)


def test_a_database_written_to_at_every_read_is_reported_and_read_next_time(rollback_db):
    def always_written(conn):
        writer = sqlite3.connect(rollback_db)
        with writer:
            writer.execute("INSERT INTO t VALUES ('again')")
        writer.close()
        return []

    with pytest.raises(OSError, match="written to while it was read"):
        read_db_snapshot(rollback_db, always_written, "Test", pause=0)


def test_text_that_is_not_utf8_is_read_with_a_replacement(rollback_db):
    conn = sqlite3.connect(rollback_db)
    with conn:
        conn.execute("INSERT INTO t VALUES (CAST(X'6F6BFF' AS TEXT))")
    conn.close()
    got = read_db_snapshot(rollback_db, lambda c: [r[0] for r in c.execute("SELECT v FROM t ORDER BY rowid")], "Test")
    assert got == ["first", "ok\ufffd"]
