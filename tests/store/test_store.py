"""The store's house rules: the schema version follows the migration list, and reads never
change the shared connection's settings."""

import sqlite3
from pathlib import Path

import pytest

from backscroll.errors import NewerSchemaError
from backscroll.store import schema as migrations
from backscroll.store.db import Store


def _user_version(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture
def extra_migration():
    """Register a throwaway migration after the real ones; unregister it afterwards."""
    registered = []

    def add():
        @migrations.migrations()
        def m999_throwaway_notes(db) -> None:
            db.execute("CREATE TABLE IF NOT EXISTS throwaway_notes (id INTEGER PRIMARY KEY, note TEXT)")

        registered.append(m999_throwaway_notes)
        return m999_throwaway_notes

    yield add
    for fn in registered:
        migrations.migrations.functions.remove(fn)


def test_adding_a_migration_is_all_it_takes(tmp_path, extra_migration):
    db = tmp_path / "data" / "backscroll.db"
    before = migrations.schema_version()
    Store.open(db).close()  # a store at the current version
    assert _user_version(db) == before

    extra_migration()
    assert migrations.schema_version() == before + 1
    store = Store.open(db)  # upgraded: the new migration ran and the version followed
    try:
        assert _user_version(db) == before + 1
        store.conn.execute("INSERT INTO throwaway_notes (note) VALUES ('kept')")
    finally:
        store.close()
    again = Store.open(db)  # re-opening an up-to-date store runs nothing and keeps the data
    try:
        assert again.conn.execute("SELECT note FROM throwaway_notes").fetchall() == [("kept",)]
        assert _user_version(db) == before + 1
    finally:
        again.close()
    fresh = tmp_path / "fresh" / "backscroll.db"
    Store.open(fresh).close()  # a new store gets every migration, the new one included
    assert _user_version(fresh) == before + 1


def test_a_store_from_a_later_migration_list_is_newer(tmp_path, extra_migration):
    db = tmp_path / "data" / "backscroll.db"
    fn = extra_migration()
    Store.open(db).close()
    migrations.migrations.functions.remove(fn)  # this backscroll knows one migration less
    try:
        with pytest.raises(NewerSchemaError):
            Store.open(db)
    finally:
        migrations.migrations.functions.append(fn)


def test_a_read_only_open_upgrades_an_older_store_it_may_write(tmp_path, extra_migration):
    """The first recall hook or MCP call after an upgrade reads an older store: it is upgraded once
    (as any writable open would), not refused with "cannot be written" until an index runs."""
    db = tmp_path / "data" / "backscroll.db"
    Store.open(db).close()
    extra_migration()  # this backscroll knows one migration more than the store has
    store = Store.open_readonly(db)
    try:
        assert store.readonly
        assert _user_version(db) == migrations.schema_version()
        assert store.conn.execute("SELECT count(*) FROM throwaway_notes").fetchone() == (0,)
    finally:
        store.close()


def test_a_read_only_open_of_a_newer_store_says_to_upgrade_backscroll(tmp_path, extra_migration):
    db = tmp_path / "data" / "backscroll.db"
    fn = extra_migration()
    Store.open(db).close()
    migrations.migrations.functions.remove(fn)
    try:
        with pytest.raises(NewerSchemaError, match="newer backscroll"):
            Store.open_readonly(db)
    finally:
        migrations.migrations.functions.append(fn)
    assert _user_version(db) == migrations.schema_version()  # left untouched


def test_a_migration_name_cannot_be_registered_twice():
    with pytest.raises(ValueError, match="already registered"):
        @migrations.migrations()
        def m001_initial(db) -> None:  # noqa: F811 (the clash is the point)
            pass


def _store_with_records(tmp_path) -> tuple[Store, list[int]]:
    store = Store.open(tmp_path / "data" / "backscroll.db")
    store.conn.execute("INSERT INTO records (record_id, session_id, agent, role, content_type, source_path, line, "
                       "text, content_hash) VALUES ('r1', 's1', 'claude', 'user', 'text', '/x', 1, 'hello', 'h1')")
    return store, [r[0] for r in store.conn.execute("SELECT id FROM records")]


def test_fetch_and_query_leave_the_connections_row_factory_alone(tmp_path):
    store, ids = _store_with_records(tmp_path)
    try:
        def as_tuple(cursor, row):
            return ("mine", *row)

        store.conn.row_factory = as_tuple  # what another thread sharing the connection relies on
        rows = store.fetch(ids)
        assert rows[ids[0]]["text"] == "hello"
        assert store.conn.row_factory is as_tuple
        [row] = store.query("SELECT text FROM records WHERE id = ?", (ids[0],))
        assert row["text"] == "hello"
        assert store.conn.row_factory is as_tuple
        assert store.conn.execute("SELECT 1").fetchone() == ("mine", 1)
    finally:
        store.close()


def test_a_read_between_fetches_gets_plain_tuples(tmp_path):
    store, ids = _store_with_records(tmp_path)
    try:
        store.query("SELECT * FROM records")
        assert type(store.conn.execute("SELECT id FROM records").fetchone()) is tuple
    finally:
        store.close()


def test_a_read_only_store_is_reported_without_retrying_the_wal_switch(tmp_path, monkeypatch):
    """The WAL switch is retried while another process holds the file, never on a read-only filesystem
    (that waited 200 x 50 ms before every read-only error)."""

    from helpers import read_only_filesystem

    from backscroll.errors import BackscrollError
    from backscroll.store import db as store_mod

    def a_copied_backup(at: Path) -> None:
        created = Store.open(at / "data" / "backscroll.db")
        created.conn.execute("PRAGMA journal_mode=DELETE")  # as a copied backup would be
        created.close()
        for side in ("-wal", "-shm"):
            Path(str(at / "data" / "backscroll.db") + side).unlink(missing_ok=True)

    with read_only_filesystem(tmp_path / "fs", a_copied_backup) as mnt:
        db = mnt / "data" / "backscroll.db"

        def no_waiting(seconds):
            raise AssertionError("waited for a filesystem that will stay read-only")

        monkeypatch.setattr(store_mod.time, "sleep", no_waiting)
        with pytest.raises((BackscrollError, sqlite3.DatabaseError)):
            Store.open(db)
        Store.open_readonly(db).close()  # what search falls back to
