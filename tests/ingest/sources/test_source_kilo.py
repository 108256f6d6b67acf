"""Kilo Code 7 (rebuilt on OpenCode, April 2026): its own OpenCode-format database beside the older task folders."""

import json

import pytest
from helpers import rows
from opencode_db import OpenCodeDB

from backscroll.ingest.sources import AGENTS

TASK = "1791234567890"  # an older task's folder, which Kilo 7 imported into its database


def _legacy_task(home, task: str, words: str) -> None:
    folder = home / ".config" / "Code" / "User" / "globalStorage" / "kilocode.kilo-code" / "tasks" / task
    folder.mkdir(parents=True)
    (folder / "ui_messages.json").write_text(json.dumps([
        {"ts": 1791234567890, "type": "say", "say": "text", "text": words},
        {"ts": 1791234567990, "type": "say", "say": "completion_result", "text": "Done."}]))


def _imported(db: OpenCodeDB, slug: str, words: str) -> None:
    """A session Kilo 7's migration wrote: the task's id as its slug, created and updated at the task's time."""
    s = db.session("imported")
    s.user(words)
    db.conn.execute("UPDATE session SET slug = ?, time_updated = time_created WHERE id = ?", (slug, s.session_id))


def test_kilo7_sessions_are_read_from_its_database_and_an_imported_task_once(backscroll_home, backscroll_index):
    home = backscroll_home.home
    db = OpenCodeDB(home / ".local" / "share" / "kilo" / "kilo.db")
    s = db.session("Flaky upload test", "/home/dev/shop")
    s.user("why does test_upload fail on CI only?")
    turn = s.assistant()
    turn.bash("pytest -q tests/test_upload.py", "1 failed: tmp dir not writable")
    turn.text("CI mounts /tmp read-only; the test now uses tmp_path.")
    turn.finish()
    _legacy_task(home, TASK, "rename the upload bucket")
    _imported(db, TASK, "rename the upload bucket")
    _imported(db, "1791234500000", "the task whose folder is gone")  # its copy is all there is: kept
    (home / ".local" / "share" / "kilo" / "snapshot" / "x").mkdir(parents=True)  # (OpenCode's git snapshots)
    backscroll_index(embed=False)
    recs = rows(backscroll_home, "SELECT agent, session_id, role, text FROM records ORDER BY id")
    assert {r["agent"] for r in recs} == {"kilo"}
    texts = [r["text"] for r in recs]
    assert "CI mounts /tmp read-only; the test now uses tmp_path." in texts
    assert "pytest -q tests/test_upload.py" in texts
    assert texts.count("rename the upload bucket") == 1  # from the task's folder
    assert [r["session_id"] for r in recs if r["text"] == "rename the upload bucket"] == [TASK]
    assert "the task whose folder is gone" in texts
    sessions = {r["session_id"]: r for r in rows(backscroll_home, "SELECT session_id, project FROM sessions")}
    assert sessions[s.session_id]["project"] == "shop"
    db.close()


@pytest.mark.parametrize("name", ["kilo.db", "kilo-beta.db", "opencode-dev.db"])
def test_kilo_claims_its_databases_and_task_folders_not_other_files(tmp_path, name):
    kilo = AGENTS["kilo"]
    assert kilo.claims(tmp_path / "kilo" / name)
    assert kilo.claims(tmp_path / "tasks" / TASK / "ui_messages.json")
    assert not kilo.claims(tmp_path / "kilo" / "kilo.db-wal")
    assert not kilo.claims(tmp_path / "kilo" / "log" / "2026-10-01.log")
