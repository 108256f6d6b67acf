"""Kilo Code 7 (rebuilt on OpenCode, April 2026): its own OpenCode-format database beside the older task folders."""

import json
from pathlib import Path

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


def test_kilo7_sessions_are_read_from_its_database_beside_its_task_folders(backscroll_home, backscroll_index):
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
    # an imported task is stored from both (never lost on a guess that it is a copy)
    assert sorted(r["session_id"] == TASK for r in recs if r["text"] == "rename the upload bucket") == [False, True]
    assert "the task whose folder is gone" in texts
    sessions = {r["session_id"]: r for r in rows(backscroll_home, "SELECT session_id, project FROM sessions")}
    assert sessions[s.session_id]["project"] == "shop"
    db.close()


@pytest.mark.parametrize("name", ["kilo.db", "kilo-fix-upload.db", "opencode-dev.db", "opencode.db"])
def test_kilo_and_opencode_each_claim_their_own_databases(tmp_path, name):
    """An OpenCode-named database is Kilo's in Kilo's data dir (named ``kilo``) and OpenCode's elsewhere."""
    kilo, opencode = AGENTS["kilo"], AGENTS["opencode"]
    assert kilo.claims(tmp_path / "kilo" / name) and not opencode.claims(tmp_path / "kilo" / name)
    session = tmp_path / "kilo" / "storage" / "session" / "proj" / "ses_1.json"
    assert kilo.claims(session) and not opencode.claims(session)
    if name.startswith("opencode"):
        assert opencode.claims(tmp_path / "opencode" / name) and not kilo.claims(tmp_path / "opencode" / name)
    assert kilo.claims(tmp_path / "tasks" / TASK / "ui_messages.json")
    assert not kilo.claims(tmp_path / "kilo" / "kilo.db-wal")
    assert not kilo.claims(tmp_path / "kilo" / "log" / "2026-10-01.log")


def test_kilo_data_dir_walk_skips_snapshots_and_keeps_task_folders_beside_a_database(tmp_path):
    data = tmp_path / "kilo"
    (data / "snapshot" / "repo" / "tasks" / TASK).mkdir(parents=True)
    (data / "snapshot" / "repo" / "tasks" / TASK / "ui_messages.json").write_text("[]")
    (data / "kilo.db").write_bytes(b"")
    (data / "tasks" / TASK).mkdir(parents=True)
    (data / "tasks" / TASK / "ui_messages.json").write_text("[]")
    found = sorted(str(Path(p).relative_to(data)) for p in AGENTS["kilo"].discover(data))
    assert found == ["kilo.db", f"tasks/{TASK}/ui_messages.json"]


def test_a_kilo_config_root_wins_when_xdg_data_home_is_set(tmp_path):
    from backscroll.config import default_roots

    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    roots = default_roots(env, {"kilo": str(tmp_path / "k")})
    assert [(str(r.path), r.origin) for r in roots if r.agent == "kilo"] == [(str(tmp_path / "k"), "config")]


def test_a_task_on_an_editors_remote_server_is_found(backscroll_home, backscroll_index):
    """Over SSH, in WSL or a dev container the extension runs on the remote machine: its storage is the server's."""
    folder = backscroll_home.home / ".vscode-server" / "data" / "User" / "globalStorage" / "rooveterinaryinc.roo-cline"
    (folder / "tasks" / TASK).mkdir(parents=True)
    (folder / "tasks" / TASK / "ui_messages.json").write_text(json.dumps([
        {"ts": 1791234567890, "type": "say", "say": "text", "text": "profile the import on the build box"}]))
    backscroll_index(embed=False)
    assert [(r["agent"], r["text"]) for r in rows(backscroll_home, "SELECT agent, text FROM records")] == [
        ("roo", "profile the import on the build box")]


def test_status_does_not_call_kilos_logs_sessions_left_out(backscroll_home, backscroll_index):
    """A ``[roots] kilo`` naming the task folders leaves Kilo's data dir out: its logs alone are no sessions."""
    import backscroll

    logs = backscroll_home.home / ".local" / "share" / "kilo" / "log"
    logs.mkdir(parents=True)
    (logs / "2026-10-01T120000.log").write_text("started\n")
    tasks = backscroll_home.root / "kilo-tasks"
    tasks.mkdir()
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    (backscroll_home.data / "config.toml").write_text(f'[roots]\nkilo = "{tasks}"\n')
    backscroll_index(embed=False)
    assert not [w for w in backscroll.status(home=backscroll_home.data).warnings if w.startswith("kilo: ")]
    OpenCodeDB(logs.parent / "kilo.db").close()
    assert [w for w in backscroll.status(home=backscroll_home.data).warnings if w.startswith("kilo: ")] == [
        f"kilo: {logs.parent} holds sessions too, but [roots] kilo does not name it; they are not indexed"]
