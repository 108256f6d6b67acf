"""Crush: each project's live ``.crush/crush.db``, found through Crush's ``projects.json`` or a walk."""

import sqlite3

import pytest
from agent_homes import CRUSH_ID, crush_message, crush_project, install_crush
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, crush
from backscroll.types import SessionInfo

CHILD = "call_agent_01"


def test_crush_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["crush"] is crush.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "crush")
    assert (root.path, root.origin) == (backscroll_home.home / ".local/share/crush", "default")
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(backscroll_home.root / "c"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "crush")
    assert (root.path, root.origin) == (backscroll_home.root / "c", "env $CRUSH_GLOBAL_DATA")


def test_crush_projects_json_leads_to_each_project_database(backscroll_home):
    install_crush(backscroll_home.home)
    root = backscroll_home.home / ".local/share/crush"
    assert list(crush.AGENT.discover(root)) == [crush_project(backscroll_home.home) / ".crush/crush.db"]


def test_crush_records_of_every_kind_beside_a_live_writer(backscroll_home, backscroll_index):
    writer = install_crush(backscroll_home.home, keep_open=True)
    try:
        out = backscroll_index()
    finally:
        writer.close()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    recs = rows(backscroll_home)
    got = [(r["record_id"], r["role"], r["content_type"], r["tool_name"], r["text"]) for r in recs]
    p = CRUSH_ID + ":"
    assert got == [
        (p + "m1#0", "user", "text", None, "Saving a note on two devices loses one edit. Why?"),
        (p + "m2#0", "assistant", "reasoning", None, "Last-write-wins on the whole note would drop concurrent edits."),
        (p + "m2#1", "assistant", "text", None, "I'll look at the save path."),
        (p + "m2#2", "tool", "tool", "bash", "rg -n updated_at src/sync"),
        (p + "m3#0", "tool", "tool", "bash", "src/sync/save.go:18: if remote.UpdatedAt.After(local.UpdatedAt) {"),
        (p + "m4#0", "tool", "tool", "agent", "agent\nprompt: Find where notes are merged"),
        (p + "m4#1", "tool", "tool", "view", "view\nfile_path: src/sync/merge.go"),
        (p + "m5#0", "tool", "tool", "agent", "Notes are never merged: save.go overwrites the whole note."),
        (p + "m5#1", "tool", "tool", "view", "file not found: src/sync/merge.go"),
        (p + "m6#0.0", "tool", "tool", "bash", "backscroll search 'three-way merge'"),
        (p + "m6#0.1", "tool", "tool", "bash", "[1] merge per field with a base version"),
        (p + "m7#0", "assistant", "text", None, "Keep the base version and merge per field (three-way merge) instead "
                                                "of last-write-wins on the whole note."),
        (CHILD + ":s1#0", "user", "text", None, "Find where notes are merged"),
        (CHILD + ":s2#0", "assistant", "text", None, "Notes are never merged: save.go overwrites the whole note."),
    ]
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert [r["tool_call_id"] for r in results] == ["call_bash_01", "call_agent_01", "call_view_01", "shell:m6:0"]
    assert [r["is_error"] for r in results] == [0, 0, 1, 0]
    assert [r["record_id"] for r in recs if r["is_echo"]] == [p + "m6#0.0", p + "m6#0.1"]
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert set(sessions) == {CRUSH_ID, CHILD}, "title-generation sessions are skipped"
    cwd = str(crush_project(backscroll_home.home))
    assert (sessions[CRUSH_ID]["title"], sessions[CRUSH_ID]["cwd"], sessions[CRUSH_ID]["project"]) == (
        "Sync conflicts on save", cwd, "notes-app")
    assert (sessions[CHILD]["is_sidechain"], sessions[CHILD]["parent_session_id"]) == (1, CRUSH_ID)
    assert recs[0]["timestamp"] == "2026-10-06T15:20:00.000Z"


def test_crush_rereads_only_sessions_that_changed(backscroll_home):
    install_crush(backscroll_home.home)
    db = crush_project(backscroll_home.home) / ".crush/crush.db"
    first = crush.read_whole(db, {})
    assert {u.session.session_id for u in first.units} == {CRUSH_ID, CHILD}
    assert crush.read_whole(db, first.state).units == []
    conn = sqlite3.connect(db)
    crush_message(conn, {"id": "s3", "session_id": CHILD, "role": "assistant", "created_at": 1791300095,
                         "is_summary_message": 0, "parts": [{"type": "text", "data": {"text": "Done."}}]})
    conn.commit()
    conn.close()
    again = crush.read_whole(db, first.state)
    assert [u.session.session_id for u in again.units] == [CHILD]


def test_crush_missing_database_is_not_created(tmp_path):
    missing = tmp_path / ".crush" / "crush.db"
    missing.parent.mkdir()
    with pytest.raises(OSError):
        crush.read_whole(missing, {})
    assert not missing.exists()


parts = st.fixed_dictionaries({"type": st.sampled_from(["text", "reasoning", "tool_call", "tool_result",
                                                        "shell_command", "finish", "x"]),
                               "data": st.one_of(st.dictionaries(
                                   st.sampled_from(["text", "thinking", "id", "name", "input", "tool_call_id",
                                                    "content", "is_error", "command", "output", "exit_code"]),
                                   st.one_of(st.text(max_size=20), st.integers(), st.booleans(), st.none()),
                                   max_size=6), st.text(max_size=4))})


@settings(max_examples=200, deadline=None)
@given(ps=st.lists(st.one_of(parts, st.integers(), st.none()), max_size=5),
       role=st.sampled_from(["user", "assistant", "tool", "system"]))
def test_crush_message_reader_never_raises(ps, role):
    for rec in crush._message_records("m", role, ps, 1, None, SessionInfo("s", "crush")):
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")


def test_a_summary_and_a_refusal_are_kept(backscroll_home, backscroll_index):
    """A summarised session's summary (``is_summary_message``) is a summary record; a reply the provider's content
    filter stopped leaves what Crush showed, not nothing."""
    writer = install_crush(backscroll_home.home, keep_open=True)
    crush_message(writer, {"id": "m8", "session_id": CRUSH_ID, "role": "assistant", "created_at": 1791300200,
                           "is_summary_message": 1, "parts": [{"type": "text", "data": {"text": "Notes sync: merge per "
                                                                                         "field with a base."}}]})
    crush_message(writer, {"id": "m9", "session_id": CRUSH_ID, "role": "assistant", "created_at": 1791300300,
                           "is_summary_message": 0,
                           "parts": [{"type": "finish", "data": {"reason": "content_filter"}}]})
    writer.commit()
    writer.close()
    backscroll_index()
    got = [(r["role"], r["content_type"], r["author"], r["text"]) for r in rows(backscroll_home)
           if r["record_id"].startswith((CRUSH_ID + ":m8", CRUSH_ID + ":m9"))]
    assert got == [("assistant", "summary", None, "Notes sync: merge per field with a base."),
                   ("user", "text", "harness", "Refused: the provider's content filter stopped the reply")]


def test_status_says_crushs_own_place_holds_sessions_when_roots_leave_it_out(backscroll_home, backscroll_index):
    """Crush's place holds no database of its own, only ``projects.json`` naming them: still, they are sessions."""
    import backscroll

    install_crush(backscroll_home.home)
    elsewhere = backscroll_home.root / "code"
    elsewhere.mkdir()
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    (backscroll_home.data / "config.toml").write_text(f'[roots]\ncrush = "{elsewhere}"\n')
    backscroll_index(embed=False)
    warnings = [w for w in backscroll.status(home=backscroll_home.data).warnings if w.startswith("crush: ")]
    assert warnings == [f"crush: {backscroll_home.home / '.local/share/crush'} holds sessions too, but [roots] crush "
                        "does not name it; they are not indexed"]
