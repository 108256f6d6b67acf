"""Auggie: ``~/.augment/sessions/<id>.json``, rewritten whole, one exchange a round with the model."""

import json
from pathlib import Path

from agent_homes import install_auggie as install
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, auggie
from backscroll.types import SessionInfo

MAIN = "0f3b6c1e-5d2a-4e8b-9c41-7a2f1e0d9b35"


def test_auggie_is_registered_with_its_default_root(backscroll_home):
    assert AGENTS["auggie"] is auggie.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "auggie")
    assert (root.path, root.origin) == (backscroll_home.home / ".augment/sessions", "default")
    sessions = Path("/h/.augment/sessions")
    assert auggie.claims(sessions / f"{MAIN}.json") and auggie.claims(sessions / f"{MAIN}-backup1.json")
    assert not auggie.claims(sessions / f"{MAIN}.json.1765000000000.tmp")
    assert not auggie.claims(Path("/h/.augment/session.json")), "the login is no session"
    assert auggie.session_for(sessions / f"{MAIN}-backup1.json").session_id == MAIN


def test_a_session_of_every_kind(backscroll_home, backscroll_index):
    install(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = [(r["role"], r["content_type"], r["author"], r["tool_name"], r["is_error"], r["text"][:26])
           for r in rows(backscroll_home) if r["session_id"] == MAIN]
    assert got[:10] == [
        ("user", "text", "human", None, 0, "Run the tests and tell me "),
        ("assistant", "reasoning", None, None, 0, "The user wants the failing"),
        ("assistant", "text", None, None, 0, "I'll run the test suite fi"),
        ("tool", "tool", None, "launch-process", 0, "python -m pytest -q"),
        ("tool", "tool", None, "view", 0, "view\npath: tests/test_math"),
        ("tool", "tool", None, "launch-process", 1, "Here are the results from "),  # a non-zero exit
        ("tool", "tool", None, "view", 0, "Here's the result of runni"),
        ("assistant", "text", None, None, 0, "`test_div` fails: ZeroDivi"),
        ("tool", "tool", None, "str-replace-editor", 0, "str-replace-editor\ncommand"),
        ("tool", "tool", None, "str-replace-editor", 0, "Successfully edited the fi"),
    ]
    assert ("user", "text", "human", None, 0, "why did it divide by zero?") in got  # out of ask mode's wrapper
    assert any(kind == "summary" for _role, kind, *_rest in got)
    echo = [r for r in rows(backscroll_home) if r["tool_name"] == "launch-process" and r["is_call"]]
    assert echo and echo[0]["text"] == "python -m pytest -q"
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions[MAIN]["title"], sessions[MAIN]["cwd"]) == ("Fix failing div test", "/home/user/proj")
    (sub,) = [s for s in sessions.values() if s["parent_session_id"] == MAIN]
    assert sub["is_sidechain"] == 1
    assert [r["author"] for r in rows(backscroll_home) if r["session_id"] == sub["session_id"]
            and r["role"] == "user"][:1] == ["agent"]


def test_a_backup_keeps_what_the_session_lost_and_adds_nothing_twice(backscroll_home, backscroll_index):
    sessions = install(backscroll_home.home)
    main = sessions / f"{MAIN}.json"
    doc = json.loads(main.read_text())
    doc["chatHistory"] = doc["chatHistory"][:1]  # the server's shorter history won on a resume
    main.write_text(json.dumps(doc))
    backscroll_index()
    stored = [r["record_id"] for r in rows(backscroll_home) if r["session_id"] == MAIN]
    backup = auggie.read_whole(sessions / f"{MAIN}-backup1.json", {}).units[0]
    assert sorted(stored) == sorted(r.record_id for r in backup.records if r.record_id not in backup.subsessions)
    assert "why did it divide by zero?" in [r["text"] for r in rows(backscroll_home)]


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(
                          st.sampled_from(["exchange", "request_message", "response_text", "request_id",
                                           "request_nodes", "response_nodes", "type", "tool_use", "tool_use_id",
                                           "tool_name", "input_json", "tool_result_node", "content", "is_error",
                                           "thinking", "summary", "history_summary_node", "summary_text",
                                           "finishedAt"]), c, max_size=4),
                      max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(history=st.lists(values, max_size=5))
def test_the_reader_never_raises(history):
    records = auggie.history_records(history, SessionInfo("s", "auggie"))
    assert all(r.text and r.role in ("user", "assistant", "tool") for r in records)
    assert len({r.record_id for r in records}) == len(records)
