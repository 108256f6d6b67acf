"""A recall hook on a store behind this version's schema: the upgrade runs apart, not inside the hook's 3 s."""

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from backscroll.store.lock import file_lock
from backscroll.store.schema import schema_version
from backscroll.store.upgrade import behind, migrate_lock

BIN = str(Path(sys.executable).with_name("backscroll"))
PROMPT = "why does the invoice reconciliation deadlock in reconcile_worker?"


def _hook(backscroll_home, session: str = "b5e0c7a2-0000-4000-8000-000000000001") -> tuple[str, str]:
    env = {**os.environ, "HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data)}
    payload = {"session_id": session, "cwd": "/home/dev/billing",
               "hook_event_name": "UserPromptSubmit", "prompt": PROMPT}
    r = subprocess.run([BIN, "hook", "claude", "prompt"], input=json.dumps(payload), capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout, r.stderr


def _version(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _set_version(db: Path, version: int) -> None:
    conn = sqlite3.connect(db)
    try:
        conn.execute(f"PRAGMA user_version = {version}")
    finally:
        conn.close()


def _history(session_builder, backscroll_index):
    past = session_builder.claude(project="billing")
    past.user("the invoice reconciliation job deadlocks again in reconcile_worker.py")
    past.assistant("We fixed the invoice reconciliation deadlock by taking the ledger advisory lock before the "
                   "SKIP LOCKED batch in reconcile_worker.py.")
    for i in range(12):
        session_builder.claude(project=f"p{i % 3}").user(f"fix the failing test {i}").assistant(f"Fixed test {i}.")
    backscroll_index()


def test_a_hook_hands_an_older_stores_upgrade_to_a_process_of_its_own(session_builder, backscroll_index,
                                                                         backscroll_home):
    """At millions of records the upgrade outlasts the hook's deadline: killed there, it was rolled back and begun
    again at every prompt, each costing 3 s, and a person who only uses the hooks never got recall back."""
    _history(session_builder, backscroll_index)
    db = backscroll_home.config().db_path
    assert "advisory lock" in _hook(backscroll_home)[0], "recall fires on the store as it is"
    assert not behind(db)
    _set_version(db, schema_version() - 1)
    assert behind(db)
    with file_lock(migrate_lock(db)):  # (an upgrade under way: the hook waits for nothing and starts none)
        out, err = _hook(backscroll_home)
        assert out == "" and "being upgraded" in err, err
        time.sleep(0.5)
        assert _version(db) == schema_version() - 1
    out, err = _hook(backscroll_home)
    assert out == "" and "being upgraded" in err, err
    deadline = time.monotonic() + 60
    while _version(db) != schema_version() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _version(db) == schema_version(), "the upgrade ran on after the hook had answered"
    assert "advisory lock" in _hook(backscroll_home, session="another-session")[0]  # (a record goes in once a session)


def test_the_upgrade_apart_imports_nothing_from_the_data_dir(session_builder, backscroll_index, backscroll_home):
    """The detached upgrade runs in the data dir; ``python -m`` imports from its working directory first, so a
    ``backscroll`` package there was run in place of ours."""
    _history(session_builder, backscroll_index)
    db = backscroll_home.config().db_path
    impostor = db.parent / "backscroll"
    impostor.mkdir()
    marker = db.parent / "impostor-ran"
    (impostor / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (impostor / "store").mkdir()
    (impostor / "store" / "__init__.py").write_text("")
    (impostor / "store" / "__main__.py").write_text("")
    _set_version(db, schema_version() - 1)
    _hook(backscroll_home)
    deadline = time.monotonic() + 60
    while _version(db) != schema_version() and time.monotonic() < deadline and not marker.exists():
        time.sleep(0.1)
    assert not marker.exists() and _version(db) == schema_version()


def test_a_store_that_cannot_be_read_is_not_behind(tmp_path):
    (tmp_path / "backscroll.db").write_bytes(b"not a database at all" * 100)
    assert not behind(tmp_path / "backscroll.db") and not behind(tmp_path / "missing.db")


def test_an_upgrade_that_failed_is_not_begun_again_at_every_prompt(session_builder, backscroll_index,
                                                                   backscroll_home, tmp_path):
    """A failed detached upgrade (a disk full, a store kept locked) was started again by every prompt, and the hook
    kept saying it was under way."""
    from backscroll.store.__main__ import upgrade
    from backscroll.store.upgrade import failure_note, last_failure

    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    assert upgrade(garbage) == 1 and "is damaged" in (last_failure(garbage) or (0, ""))[1]
    _history(session_builder, backscroll_index)
    db = backscroll_home.config().db_path
    _set_version(db, schema_version() - 1)
    failure_note(db).write_text(json.dumps({"at": time.time(), "error": "the disk is full"}))
    out, err = _hook(backscroll_home)
    assert out == "" and "could not be upgraded" in err and "the disk is full" in err, err
    time.sleep(1.0)
    assert _version(db) == schema_version() - 1, "no upgrade begun again within the hour"
    failure_note(db).write_text(json.dumps({"at": time.time() - 7200, "error": "the disk is full"}))
    _hook(backscroll_home)
    deadline = time.monotonic() + 60
    while _version(db) != schema_version() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _version(db) == schema_version() and not failure_note(db).exists(), "tried again after the hour"


def test_a_hooks_reason_reaches_its_terminal_inert_and_bounded(session_builder, backscroll_index, backscroll_home):
    """The failure note's text went to the agent's terminal as it was: a title set, a screen clear, a bidi override."""
    from backscroll.store.upgrade import failure_note

    _history(session_builder, backscroll_index)
    db = backscroll_home.config().db_path
    _set_version(db, schema_version() - 1)
    hostile = "disk I/O error \x1b]0;PWNED\x07\x1b[2J\u202eevil\x9b31m " + "x" * 5_000
    failure_note(db).write_text(json.dumps({"at": time.time(), "error": hostile}))
    out, err = _hook(backscroll_home)
    assert out == "" and "could not be upgraded" in err and "disk I/O error" in err, err
    assert not any(c in err for c in "\x1b\x07\u202e\x9b") and len(err) < 2_000, err[:300]


def test_a_resumed_sessions_start_begins_no_upgrade_in_the_hook(session_builder, backscroll_index, backscroll_home):
    """A session start of a resumed session noted it in the store first, and so upgraded the store in the hook."""
    _history(session_builder, backscroll_index)
    db = backscroll_home.config().db_path
    _set_version(db, schema_version() - 1)
    env = {**os.environ, "HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data)}
    payload = {"session_id": "b5e0c7a2-0000-4000-8000-000000000009", "cwd": "/home/dev/billing",
               "hook_event_name": "SessionStart", "source": "resume",
               "transcript_path": str(backscroll_home.home / "t.jsonl")}
    with file_lock(migrate_lock(db)):  # (an upgrade under way elsewhere: the hook neither waits nor begins one)
        r = subprocess.run([BIN, "hook", "claude", "session-start"], input=json.dumps(payload), capture_output=True,
                           text=True, env=env, timeout=60)
        assert r.returncode == 0 and "no answer within" not in r.stderr, r.stderr
        assert _version(db) == schema_version() - 1
