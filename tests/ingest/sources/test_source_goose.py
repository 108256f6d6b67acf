"""Goose: the live ``sessions/sessions.db`` (schema 9) and the older ``sessions/*.jsonl``."""

import json
import sqlite3

import pytest
from agent_homes import GOOSE_LEGACY_ID, goose_dir, goose_message, install_goose_db, install_goose_legacy
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, goose
from backscroll.types import SessionInfo

NEW = "20261005_1"
SUB = "20261005_2"


def test_goose_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["goose"] is goose.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "goose")
    assert (root.path, root.origin) == (backscroll_home.home / ".local/share/goose/sessions", "default")
    monkeypatch.setenv("GOOSE_PATH_ROOT", str(backscroll_home.root / "g"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "goose")
    assert (root.path, root.origin) == (backscroll_home.root / "g/data/sessions", "env $GOOSE_PATH_ROOT")
    assert goose.claims(root.path / "20250101_1.jsonl") and goose.claims(root.path / "sessions.db")
    assert not goose.claims(backscroll_home.home / ".factory/sessions/20250101_1.jsonl")


def test_goose_database_records_of_every_kind(backscroll_home, backscroll_index):
    writer = install_goose_db(backscroll_home.home, keep_open=True)  # Goose still running
    try:
        out = backscroll_index()
    finally:
        writer.close()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    recs = [r for r in rows(backscroll_home) if r["session_id"] == NEW]
    got = [(r["record_id"].removeprefix(NEW + ":"), r["role"], r["content_type"], r["tool_name"], r["text"])
           for r in recs]
    assert got == [
        ("1#0", "user", "text", None, "Importing the 2 GB orders CSV takes forty minutes."),
        ("2#0", "assistant", "reasoning", None, "Row-by-row INSERTs with autocommit would explain it."),
        ("2#1", "tool", "tool", "shell", "python -m cProfile -s cumtime import_orders.py sample.csv | head"),
        ("3#0", "tool", "tool", "shell", "ncalls tottime  cumtime\n 50000  31.2  38.9 sqlite3.Connection.commit"),
        ("4#0", "tool", "tool", "developer__text_editor",
         "developer__text_editor\ncommand: view\npath: /home/dev/warehouse/missing.py"),
        ("5#0", "tool", "tool", "developer__text_editor", "File '/home/dev/warehouse/missing.py' does not exist"),
        ("6#0", "tool", "tool", "developer__shell", "backscroll search 'bulk insert sqlite'"),
        ("7#0", "tool", "tool", "developer__shell", "[1] executemany inside one transaction"),
        ("8#0", "assistant", "summary", None, "Summary of the conversation so far: profiling the import"),
        ("9#0", "assistant", "text", None, "Commit once per 10,000 rows with executemany: the import drops from "
                                           "forty minutes to under two."),
    ]
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert [r["tool_call_id"] for r in results] == ["call_G2", "call_G3", "call_G4"]
    assert [r["is_error"] for r in results] == [0, 1, 0]
    assert [r["tool_call_id"] for r in recs if r["is_echo"]] == ["call_G4", "call_G4"]
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions[NEW]["title"], sessions[NEW]["project"], sessions[NEW]["is_sidechain"]) == (
        "Speed up the CSV import", "warehouse", 0)
    assert sessions[SUB]["is_sidechain"] == 1
    assert sessions[GOOSE_LEGACY_ID]["title"] == "Rate limit the scraper", "description is the older title"
    assert recs[0]["timestamp"] == "2026-10-05T14:00:00.000Z"


def test_goose_legacy_jsonl_and_its_imported_copy_are_stored_once(backscroll_home, backscroll_index):
    install_goose_legacy(backscroll_home.home)
    backscroll_index()
    legacy = [(r["record_id"], r["text"]) for r in rows(backscroll_home)]
    assert [t for _id, t in legacy] == [
        "The scraper gets HTTP 429 from the catalog site. Add a rate limit.",
        "I'll check how requests are sent.",
        "rg -n 'session.get' scraper/",
        "scraper/fetch.py:22:    resp = session.get(url, timeout=10)",  # the user-only item is dropped
        "Wrap session.get in a token bucket of 2 requests per second and honour Retry-After on 429.",
    ]
    install_goose_db(backscroll_home.home)  # Goose imports the JSONL session into its database
    out = backscroll_index()
    assert not out.report.unreadable
    assert [(r["record_id"], r["text"]) for r in rows(backscroll_home) if r["session_id"] == GOOSE_LEGACY_ID] == legacy


def test_goose_rereads_only_sessions_that_changed(backscroll_home):
    install_goose_db(backscroll_home.home)
    db = goose_dir(backscroll_home.home) / "sessions.db"
    first = goose.read_whole(db, {})
    assert {u.session.session_id for u in first.units} == {GOOSE_LEGACY_ID, NEW, SUB}
    assert goose.read_whole(db, first.state).units == []
    conn = sqlite3.connect(db)
    goose_message(conn, {"session_id": SUB, "message_id": "msg_c2", "role": "assistant",
                         "created_timestamp": 1791208870,
                         "content": [{"type": "text", "text": "commit() dominates: 31 s of 39."}],
                         "metadata": {"userVisible": True}})
    conn.commit()
    conn.close()
    again = goose.read_whole(db, first.state)
    assert [u.session.session_id for u in again.units] == [SUB]
    assert again.units[0].records[-1].text == "commit() dominates: 31 s of 39."


def test_goose_missing_database_is_not_created(tmp_path):
    missing = tmp_path / "sessions.db"
    with pytest.raises(OSError):
        goose.read_whole(missing, {})
    assert not missing.exists()


_ITEM_TYPES = st.sampled_from(["text", "thinking", "toolRequest", "toolResponse", "image", "x"])
_CALL_KEYS = st.sampled_from(["status", "value", "name", "arguments", "command", "error"])
_RESULT_KEYS = st.sampled_from(["status", "value", "content", "isError", "text", "annotations", "audience"])
items = st.fixed_dictionaries({"type": _ITEM_TYPES},
                              optional={"text": st.one_of(st.text(max_size=20), st.integers()),
                                        "thinking": st.one_of(st.text(max_size=20), st.none()),
                                        "id": st.one_of(st.text(max_size=5), st.integers()),
                                        "toolCall": st.recursive(
                                            st.text(max_size=8) | st.none(),
                                            lambda c: st.dictionaries(_CALL_KEYS, c, max_size=4), max_leaves=8),
                                        "toolResult": st.recursive(
                                            st.text(max_size=8) | st.booleans(),
                                            lambda c: st.lists(c, max_size=3)
                                            | st.dictionaries(_RESULT_KEYS, c, max_size=4),
                                            max_leaves=10)})
_METADATA = st.one_of(st.dictionaries(st.just("userVisible"), st.booleans()), st.none())


@settings(max_examples=200, deadline=None)
@given(msg=st.one_of(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system"]),
                                            "content": st.one_of(st.lists(st.one_of(items, st.integers()), max_size=4),
                                                                 st.text(max_size=4)),
                                            "created": st.one_of(st.integers(), st.text(max_size=10), st.none()),
                                            "metadata": _METADATA}),
                     st.integers(), st.text(max_size=5), st.none()))
def test_goose_message_reader_never_raises(msg):
    out = goose._message_records(msg, 1, SessionInfo("s", "goose"))
    if isinstance(out, list):
        for rec in out:
            assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")
    else:
        assert isinstance(out, str)


def test_goose_legacy_file_without_metadata_is_unreadable(backscroll_home, backscroll_index):
    path = goose_dir(backscroll_home.home) / "20260101_1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps([1, 2]) + "\n")
    out = backscroll_index()
    assert [p for p, _why in out.report.unreadable] == [str(path)]


def test_a_compactions_summary_is_kept_and_its_nudge_and_hidden_copies_are_not():
    """Goose's compaction (``context_mgmt``): the summary, in the user's role and seen by the agent only, is a summary
    record; the continuation nudge (the assistant's, agent-only) and a copy hidden from both are not records."""
    info = SessionInfo("s", "goose")

    def said(role, text, user_visible, agent_visible):
        msg = {"role": role, "created": 1785578400, "content": [{"type": "text", "text": text}],
               "metadata": {"userVisible": user_visible, "agentVisible": agent_visible}}
        found = goose._message_records(msg, 3, info)
        assert isinstance(found, list)
        return [(r.role, r.content_type, r.text) for r in found]

    assert said("user", "The user is fixing a deadlock.", False, True) == [
        ("assistant", "summary", "The user is fixing a deadlock.")]
    assert said("assistant", "Your context was compacted. The previous message contains a summary", False, True) == []
    assert said("user", "why does it deadlock?", False, False) == []
    assert said("user", "why does it deadlock?", True, False) == [("user", "text", "why does it deadlock?")]
    # newer Goose's per-turn context for the model (time, folder, todo) is no summary
    assert said("user", "<turn-context>\n<current-time>2026-10-01 09:00</current-time>\n</turn-context>",
                False, True) == []
    flagged = {"role": "user", "created": 1785578400, "content": [{"type": "text", "text": "09:00, in /r"}],
               "metadata": {"userVisible": False, "agentVisible": True, "turnContext": True}}
    assert goose._message_records(flagged, 3, info) == []


def test_a_subagents_prompt_is_its_parent_agents(backscroll_home, backscroll_index):
    """A ``sub_agent`` session's user text is the brief its parent agent wrote, not the person's words (as every
    reader files a subagent's prompts)."""
    install_goose_db(backscroll_home.home)
    backscroll_index()
    authors = {(r["is_sidechain"], r["author"]) for r in rows(backscroll_home) if r["role"] == "user"}
    assert authors == {(0, "human"), (1, "agent")}


def test_reasoning_is_read_and_a_content_type_not_known_is_counted():
    info = SessionInfo("s", "goose")
    msg = {"role": "assistant", "created": 1785578400, "metadata": {}, "content": [
        {"type": "reasoning", "text": "Lock order first."}, {"type": "hologram", "x": 1}, {"type": "image"}]}
    unit = goose._unit("k", info, [msg])
    assert [(r.content_type, r.text) for r in unit.records] == [("reasoning", "Lock order first.")]
    assert unit.unknown == {"hologram": 1}


def test_the_persons_prompt_put_back_after_a_compaction_is_no_summary():
    """A newer Goose may put the person's latest prompt back as an agent-only message after the compaction: a copy
    of what they said is no summary (their prompt is stored where they typed it)."""
    info = SessionInfo("s", "goose")

    def msg(role, text, user_visible=False):
        return {"role": role, "created": 1785578400, "content": [{"type": "text", "text": text}],
                "metadata": {"userVisible": user_visible, "agentVisible": True}}

    unit = goose._unit("k", info, [msg("user", "why does it deadlock?", True), msg("user", "The user asks why."),
                                   msg("assistant", "Your context was compacted. The previous message ..."),
                                   msg("user", "why does it deadlock?")])
    assert [(r.content_type, r.text) for r in unit.records] == [("text", "why does it deadlock?"),
                                                                 ("summary", "The user asks why.")]


def test_a_subagent_session_names_its_parent_since_schema_15(backscroll_home, backscroll_index):
    import sqlite3

    install_goose_db(backscroll_home.home)
    with sqlite3.connect(goose_dir(backscroll_home.home) / "sessions.db") as conn:
        conn.execute("ALTER TABLE sessions ADD COLUMN parent_session_id TEXT")
        parent = conn.execute("SELECT id FROM sessions WHERE session_type = 'user' LIMIT 1").fetchone()[0]
        conn.execute("UPDATE sessions SET parent_session_id = ? WHERE session_type = 'sub_agent'", (parent,))
    conn.close()
    backscroll_index(embed=False)
    linked = rows(backscroll_home, "SELECT is_sidechain, parent_session_id FROM sessions WHERE is_sidechain = 1")
    assert linked and {r["parent_session_id"] for r in linked} == {parent}
