"""``record_counts`` (kept by triggers) counts what the records hold through every change to them, and status,
stats and list give the numbers that counting the records themselves gives; its migration, killed halfway,
loses nothing and runs again."""

import sqlite3
import subprocess
import sys

import pytest

from backscroll.store import schema
from backscroll.store.db import Store
from backscroll.store.sessions import FIRST_PROMPT

# What ``record_counts`` must hold: the records counted afresh.
FRESH = ("SELECT session_id, agent, project, substr(timestamp, 1, 7), is_echo, content_type, is_call, role, count(*), "
         "sum(id) FROM records GROUP BY 1, 2, 3, 4, 5, 6, 7, 8 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8")
KEPT = ("SELECT session_id, agent, project, month, is_echo, content_type, is_call, role, records, id_sum "
        "FROM record_counts ORDER BY 1, 2, 3, 4, 5, 6, 7, 8")
WINDOWS = [("2026-11-01T00:00:00Z", None), (None, "2026-11-03T12:00:00Z"), ("2026-10-31", "2026-11-04T09:00:00Z")]
KINDS = ("SELECT agent, CASE WHEN content_type IN ('reasoning', 'summary') THEN content_type "
         "WHEN content_type = 'tool' AND is_call = 1 THEN 'tool_call' WHEN content_type = 'tool' THEN 'tool_output' "
         "ELSE role END, count(*) FROM records GROUP BY 1, 2")


def counted_afresh(store: Store) -> dict:
    """What status and stats said when they counted the records themselves (the queries they ran)."""
    c = store.conn
    one = lambda sql: c.execute(sql).fetchone()[0]  # noqa: E731
    out: dict[object, object] = {"records": one("SELECT count(*) FROM records"),
           "echoes": one("SELECT count(*) FROM records WHERE is_echo = 1"),
           "records_by_agent": dict(c.execute("SELECT agent, count(*) FROM records GROUP BY agent").fetchall()),
           "kinds": c.execute(KINDS).fetchall(),
           "projects": c.execute("SELECT agent, project, count(DISTINCT session_id), count(*) FROM records "
                                 "GROUP BY agent, project ORDER BY count(*) DESC").fetchall(),
           "prose": one("SELECT count(*) FROM records WHERE content_type IN ('text', 'summary') AND is_echo = 0"),
           "prose_pending": one("SELECT count(*) FROM records WHERE content_type IN ('text', 'summary') AND "
                                "is_echo = 0 AND unit_hash IS NULL")}
    for by, column, order in (("agent", "agent", "3 DESC, 1"), ("project", "project", "3 DESC, 1"),
                              ("month", "substr(timestamp, 1, 7)", "1 DESC")):
        out[by] = [tuple(r) for r in c.execute(f"SELECT {column}, count(DISTINCT session_id), count(*) FROM records "
                                               f"WHERE is_echo = 0 GROUP BY 1 ORDER BY {order}")]
    for since, until in WINDOWS:
        bounds = [(op, at) for op, at in ((">=", since), ("<", until)) if at]
        where = " AND ".join(["is_echo = 0", *(f"timestamp {op} ?" for op, _ in bounds)])
        out[since, until] = [tuple(r) for r in c.execute(
            f"SELECT agent, count(DISTINCT session_id), count(*) FROM records WHERE {where} GROUP BY 1 "
            "ORDER BY 3 DESC, 1", [at for _, at in bounds])]
    out["fingerprint"] = c.execute("SELECT count(*), coalesce(sum(id), 0) FROM (SELECT id FROM records WHERE id <= 4 "
                                   "UNION SELECT id FROM tombstones WHERE id <= 4)").fetchone()
    return out


def counted_now(store: Store) -> dict:
    counts = store.counts()
    names = ("records", "echoes", "records_by_agent", "kinds", "projects", "prose", "prose_pending")
    out: dict[object, object] = {k: getattr(counts, k) for k in names}
    out |= {by: store.activity(by, None) for by in ("agent", "project", "month")}
    out |= {(since, until): store.activity("agent", since, until) for since, until in WINDOWS}
    out["fingerprint"] = store.lexical_fingerprint(4)[:2]
    return out


def check(store: Store) -> None:
    assert store.conn.execute(KEPT).fetchall() == store.conn.execute(FRESH).fetchall()
    assert counted_now(store) == counted_afresh(store)
    listed = store.session_list(None, None, None, None, 100, 0, everything=True)
    c = store.conn
    for row in listed:
        sid = row["session_id"]
        assert row["records"] == c.execute("SELECT count(*) FROM records WHERE session_id = ?", (sid,)).fetchone()[0]
        assert row["echoes"] == c.execute("SELECT count(*) FROM records WHERE session_id = ? AND is_echo = 1",
                                          (sid,)).fetchone()[0]
        first = c.execute(f"SELECT text FROM records r NOT INDEXED WHERE session_id = ? AND {FIRST_PROMPT}",
                          (sid,)).fetchone()
        assert row["first_user"] == (first[0] if first else None)
        assert row["subagents"] == c.execute("SELECT count(*) FROM sessions NOT INDEXED WHERE parent_session_id = ? "
                                             "AND is_sidechain = 1", (sid,)).fetchone()[0]
    assert store.session_count(None, None, None, None, everything=True) == len(listed)
    assert {r["session_id"] for r in listed} == {r[0] for r in c.execute("SELECT DISTINCT session_id FROM records")}


@pytest.fixture
def history(session_builder, backscroll_home, backscroll_index):
    """Two agents, three projects, echoes, a subagent, a summary, tool calls, sessions over two months."""
    a = session_builder.claude(project="shop", start="2026-10-30T23:00:00Z")
    a.user("/model").user("which queue for the jobs?").assistant("Postgres.", thinking="hmm")
    a.tool("ls src", "app.py").summary("Queue choice")
    a.at("2026-11-02T10:00:00Z").user("and the retry policy?")
    a.subagent().user("look up the retry docs").assistant("found them")
    session_builder.claude(project="pay", start="2026-11-03T09:00:00Z").user("refunds").assistant("ok")
    c = session_builder.codex(project="pay", start="2026-11-04T09:00:00Z")
    c.user("where are refunds handled?").search_echo("refunds", "a hit").tool("grep -r refund", "pay.py:3")
    report = backscroll_index(embed=False).report
    assert report.records_added > 15 and not report.unreadable, report
    return a


def test_the_counts_follow_every_change_to_the_records(history, backscroll_home, backscroll_index):
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        check(store)
        c = store.conn
        c.execute("UPDATE records SET is_echo = 1 WHERE role = 'assistant' AND content_type = 'text' "
                  "AND id = (SELECT min(id) FROM records WHERE role = 'assistant')")  # an echo found again
        c.execute("UPDATE records SET project = 'shop-[REDACTED]' WHERE project = 'pay' AND agent = 'codex'")
        c.execute("UPDATE records SET project = NULL, timestamp = NULL WHERE id = (SELECT max(id) FROM records)")
        c.execute("UPDATE records SET text = 'same counts' WHERE id = (SELECT min(id) FROM records)")
        check(store)
        c.execute("DELETE FROM records WHERE id IN (SELECT id FROM records ORDER BY id DESC LIMIT 2)")
        c.execute("INSERT INTO tombstones (id) VALUES (1)")
        check(store)
    finally:
        store.close()
    history.assistant("the retry policy is in docs/retry.md")  # read on, then the file rewritten shorter
    assert backscroll_index(embed=False).report.records_added == 1
    lines = history.path.read_text().splitlines(keepends=True)
    history.path.write_text("".join(lines[:3]))
    assert not backscroll_index(embed=False).report.unreadable
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        check(store)
        store.conn.execute("DELETE FROM records")
        check(store)
        assert store.conn.execute("SELECT count(*) FROM record_counts").fetchone()[0] == 0
    finally:
        store.close()


def _to_schema_13(db) -> None:
    """The store as the backscroll before ``record_counts`` left it."""
    conn = sqlite3.connect(db)
    for name in ("delete", "update"):
        conn.execute(f"DROP TRIGGER record_counts_{name}")
    conn.execute("DROP TABLE record_counts")
    conn.execute("DROP INDEX records_first_prompt")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm014_record_counts'")
    conn.execute("PRAGMA user_version = 13")
    conn.commit()
    conn.close()


KILLED = """
import os, sys
from pathlib import Path
from backscroll.store import tally
from backscroll.store.db import Store
def create(conn):
    real(conn)
    os._exit(9)  # as a hook's deadline ends the process: mid-migration, nothing committed
real, tally.create = tally.create, create
Store.open(Path(sys.argv[1]))
"""


def test_a_migration_killed_halfway_loses_nothing_and_runs_again(history, backscroll_home):
    db = backscroll_home.data / "backscroll.db"
    _to_schema_13(db)
    conn = sqlite3.connect(db)
    before = conn.execute("SELECT * FROM records ORDER BY id").fetchall()
    conn.close()
    killed = subprocess.run([sys.executable, "-c", KILLED, str(db)], capture_output=True, text=True)
    assert killed.returncode == 9, killed.stderr
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 13
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name LIKE 'record_counts%'").fetchone() == (0,)
        assert conn.execute("SELECT * FROM records ORDER BY id").fetchall() == before
    finally:
        conn.close()
    store = Store.open(db)  # the next command migrates it
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == schema.schema_version()
        check(store)
    finally:
        store.close()


def test_the_first_prompt_is_found_through_its_index(history, backscroll_home):
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        plan = " ".join(r[3] for r in store.conn.execute(
            f"EXPLAIN QUERY PLAN SELECT text FROM records r WHERE session_id = ? AND {FIRST_PROMPT}", ("x",)))
        assert "records_first_prompt" in plan and "TEMP B-TREE" not in plan, plan
    finally:
        store.close()


def test_records_are_inserted_only_where_they_are_counted():
    """``record_counts`` counts inserts in ``insert_records`` (a trigger per row doubled an insert's cost): an insert
    anywhere else would go uncounted."""
    import re
    from pathlib import Path

    import backscroll

    inserts = re.compile(r"\bINSERT\b[^\"']*?\bINTO\s+records\b", re.IGNORECASE)
    found = sorted(str(p.relative_to(Path(backscroll.__file__).parent)) for p in
                   Path(backscroll.__file__).parent.rglob("*.py") if inserts.search(p.read_text()))
    assert found == ["store/queries.py", "store/tally.py"], found  # (the statement, and the docstring of its count)


def test_the_cli_says_it_upgrades_an_older_store_and_only_then(history, backscroll_home):
    """At millions of records the upgrade to ``record_counts`` takes seconds: a command that would sit silent
    says why, once; a new store's first index says nothing of it."""
    from helpers import run_cli

    _to_schema_13(backscroll_home.data / "backscroll.db")
    first = run_cli(backscroll_home, "status")
    again = run_cli(backscroll_home, "status")
    assert first.returncode == again.returncode == 0, first.stderr
    assert "upgrading the store" in first.stderr and "upgrading the store" not in again.stderr


def test_a_new_stores_first_index_says_nothing_of_an_upgrade(session_builder, backscroll_home):
    from helpers import run_cli

    session_builder.claude().user("which queue for the jobs?")
    done = run_cli(backscroll_home, "index", "--no-embed")
    assert done.returncode == 0 and "upgrading" not in done.stderr, done.stderr


def _drifted(store: Store) -> None:
    """``record_counts`` out of step three ways: a count too high, a key gone, a key no record has."""
    c = store.conn
    c.execute("UPDATE record_counts SET records = records + 2 WHERE rowid = (SELECT min(rowid) FROM record_counts)")
    c.execute("DELETE FROM record_counts WHERE rowid = (SELECT max(rowid) FROM record_counts)")
    c.execute("INSERT INTO record_counts SELECT 'no-such-session', agent, project, month, is_echo, content_type, "
              "is_call, role, 5, 55 FROM record_counts LIMIT 1")
    c.commit()


def test_a_recount_mends_counts_that_drifted_and_says_how_many_rows_changed(history, backscroll_home):
    """``rebuild --counts``: the rows counted again, their triggers made again, and the number that changed (what
    ``status --check`` counted as differing)."""
    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        _drifted(store)
        assert store.tally_drift()[0] == 3
        store.conn.execute("DROP TRIGGER record_counts_delete")  # (lost: made again too)
        assert store.recount() == 3
        check(store)
        assert store.tally_drift()[0] == 0 and store.recount() == 0
        store.conn.execute("DELETE FROM records WHERE id = (SELECT max(id) FROM records)")
        check(store)  # (the trigger counts again)
    finally:
        store.close()


def test_a_recount_interrupted_keeps_the_counts_as_they_were(history, backscroll_home, monkeypatch):
    from backscroll.store import tally

    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        _drifted(store)
        before = store.conn.execute(KEPT).fetchall()
        real = tally.create

        def pressed(conn):  # Ctrl-C as the count ends, before it is committed
            real(conn)
            raise KeyboardInterrupt

        monkeypatch.setattr(tally, "create", pressed)
        with pytest.raises(KeyboardInterrupt):
            store.recount()
        assert not store.conn.in_transaction, "rolled back, not left open for the next write to commit"
        assert store.conn.execute(KEPT).fetchall() == before and store.tally_drift()[0] == 3
    finally:
        store.close()


def _plan(store: Store, sql: str, params=()) -> str:
    return " ".join(r[3] for r in store.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params))


def test_list_and_status_read_their_indexes_not_every_row(history, backscroll_home, monkeypatch):
    """At 20,000 sessions ``list`` sorted every session for a page of 20, and status sorted ``record_counts`` by kind
    (schema m016)."""
    from backscroll.store import status

    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        asked: list = []

        def query(sql: str, params: tuple = ()) -> list:
            asked.append((sql, params))
            return []

        monkeypatch.setattr(store, "query", query)
        store.session_list(None, "shop", "2026-10-01", None, 20, 0)
        page = _plan(store, *asked[0]).split(" SCAN l ")[0]  # (the page; then its 20 rows are counted and sorted)
        assert "SCAN s USING INDEX sessions_newest" in page and "TEMP B-TREE" not in page, page
        assert "INDEX record_counts_key" not in _plan(store, *asked[0]), "a session's counts from its own index"
        kinds = _plan(store, status._KINDS)
        assert "COVERING INDEX record_counts_kinds" in kinds and kinds.count("TEMP B-TREE") == 1, kinds  # (by kind)
        assert "COVERING INDEX" in _plan(store, status._TOTALS)
    finally:
        store.close()


def test_a_store_from_before_the_list_indexes_gains_them_and_answers_the_same(history, backscroll_home):
    import backscroll

    db, cfg = backscroll_home.data / "backscroll.db", backscroll_home.config()
    listed, counted = backscroll.sessions(config=cfg, all=True), backscroll.count_sessions(config=cfg)
    before = backscroll.status(config=cfg).to_dict()
    conn = sqlite3.connect(db)  # (as backscroll's schema 15 left it)
    for name in ("record_counts_session", "record_counts_kinds", "sessions_newest"):
        conn.execute(f"DROP INDEX {name}")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm016_list_and_status'")
    conn.execute("PRAGMA user_version = 15")
    conn.commit()
    assert backscroll.sessions(config=cfg, all=True) == listed and backscroll.count_sessions(config=cfg) == counted
    assert {**backscroll.status(config=cfg).to_dict(), "sizes": None} == {**before, "sizes": None}
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name IN ('record_counts_session', "
                        "'record_counts_kinds', 'sessions_newest')").fetchone() == (3,)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.schema_version()
    conn.close()
    store = Store.open(db)
    try:
        store.recount()  # (``rebuild`` makes the table anew: its indexes with it)
        indexes = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND "
                                                    "tbl_name = 'record_counts'")}
        assert indexes == {"record_counts_key", "record_counts_session", "record_counts_kinds"}
        check(store)
    finally:
        store.close()
