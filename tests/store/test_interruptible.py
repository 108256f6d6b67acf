"""Ctrl-C during a long SQLite statement (``status --check``'s integrity_check and count, at millions of records a
minute or more): felt at once, as Ctrl-C, not when the statement ends, nor as a damaged store."""

import os
import signal
import sqlite3

import pytest

from backscroll.interrupts import interruptible

LONG = ("INSERT INTO t WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) "
        "SELECT CASE WHEN x = 1000 THEN ctrl_c() ELSE x END FROM c")


def _press() -> int:
    os.kill(os.getpid(), signal.SIGINT)
    return 0


def _conn() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t(x)")
    conn.create_function("ctrl_c", 0, _press)  # (pressed at row 1,000)
    return conn


def test_ctrl_c_ends_a_long_statement_at_once_and_is_felt_as_ctrl_c():
    conn = _conn()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # (a process's own, as the CLI has it)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interruptible(conn):
                conn.execute(LONG)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0, "the statement ended there, not at its end"
    conn.execute("DELETE FROM t")
    conn.create_function("ctrl_c", 0, lambda: 0)
    with interruptible(conn):  # (not pressed: the statement runs to its end)
        conn.execute(LONG.replace("3000000", "5000"))
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 5000


def test_the_integrity_check_is_not_said_to_find_damage_when_it_was_interrupted(tmp_path, monkeypatch):
    """SQLite's "interrupted" would be read as the check's complaint (a sound store reported damaged), and without
    the progress handler Ctrl-C came only once the whole check was done."""
    from backscroll.store.integrity import integrity_problems

    db = tmp_path / "big.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE t(x, y)")
    conn.execute("CREATE INDEX t_y ON t(y)")
    conn.execute("INSERT INTO t WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) "
                 "SELECT x, hex(randomblob(16)) FROM c")
    conn.commit()
    conn.close()
    assert integrity_problems(db) == []
    real = sqlite3.connect

    def connect(*args, **kwargs):  # (Ctrl-C pressed as the check starts)
        c = real(*args, **kwargs)
        c.set_trace_callback(lambda sql: os.kill(os.getpid(), signal.SIGINT) if "integrity" in sql else None)
        return c

    monkeypatch.setattr(sqlite3, "connect", connect)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            integrity_problems(db)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_stop_during_a_long_statement_is_felt_as_ctrl_c_not_as_sqlites_error():
    """``index`` and ``embed`` make SIGTERM raise as Ctrl-C does: its handler, run inside SQLite's progress handler,
    stopped the statement, and the integrity check read SQLite's "interrupted" as the store's damage."""
    import threading

    def stop(_signum, _frame):
        raise KeyboardInterrupt

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t(x)")
    previous = signal.signal(signal.SIGTERM, stop)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            with interruptible(conn):
                conn.execute(LONG.replace("3000000", "50000000").replace("CASE WHEN x = 1000 THEN ctrl_c() ELSE x END",
                                                                         "x"))
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, previous)
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0


def test_a_cancelled_call_ends_its_long_statement_at_once_felt_as_the_cancel():
    """The MCP server's cancel, set from another thread while the call's thread runs a statement: the statement
    ends at once, raised as ``Cancelled`` (not SQLite's "interrupted", which a store-failure handler would read as
    damage); a statement outside a call that can be cancelled runs to its end."""
    import threading
    import time

    from backscroll.interrupts import Cancelled, cancellable, check, stoppable

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t(x)")
    endless = LONG.replace("3000000", "50000000").replace("CASE WHEN x = 1000 THEN ctrl_c() ELSE x END", "x")
    cancel = threading.Event()
    timer = threading.Timer(0.2, cancel.set)
    started = time.monotonic()
    try:
        timer.start()
        with pytest.raises(Cancelled), cancellable(cancel), stoppable(conn):
            conn.execute(endless)
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5, "ended at once, not after 50 million rows"
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0
    check()  # (outside the call: no cancel to feel)
    with stoppable(conn):  # (nor here: not a call that can be cancelled)
        conn.execute(LONG.replace("3000000", "5000").replace("CASE WHEN x = 1000 THEN ctrl_c() ELSE x END", "x"))
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 5000


def test_a_guard_inside_another_leaves_the_outer_one_guarded():
    """A sync inside a search (each guards its statements): the inner guard, ending, took the progress handler away,
    and a long statement after it, still inside the outer guard, ran to its end whatever was pressed."""
    conn = _conn()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interruptible(conn):
                with interruptible(conn):
                    conn.execute("SELECT 1")
                conn.execute(LONG)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0, "ended there, not at its end"


def test_a_statement_ended_inside_an_inner_guard_is_felt_as_ctrl_c_there():
    """Between the two guards a handler of errors (a sync's, of one file's failure) must not take Ctrl-C for SQLite's
    "interrupted": the inner guard says what it is."""
    conn = _conn()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with interruptible(conn):
                try:
                    with interruptible(conn):
                        conn.execute(LONG)
                except Exception as exc:
                    pytest.fail(f"Ctrl-C taken for an error: {exc!r}")
    finally:
        signal.signal(signal.SIGINT, previous)

