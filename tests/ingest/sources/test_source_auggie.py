"""Auggie: ``~/.augment/sessions/<id>.json``, rewritten whole, one exchange a round with the model."""

import json
from pathlib import Path

from agent_homes import DATA
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


def _exchange(rid: str, asked: str = "", answer: str = "", calls=(), results=(), **entry) -> dict:
    nodes = [{"id": 1, "type": 5, "tool_use": {"tool_use_id": i, "tool_name": name, "input_json": json.dumps(inp)}}
             for i, name, inp in calls]
    given = [{"id": 1, "type": 1, "tool_result_node": {"tool_use_id": i, "content": text, "is_error": False}}
             for i, text in results]
    return {"exchange": {"request_id": rid, "request_message": asked, "response_text": answer,
                         "request_nodes": given, "response_nodes": nodes},
            "finishedAt": "2026-03-01T10:00:00.000Z", **entry}


def test_what_auggie_writes_in_the_persons_place_and_in_the_models():
    plan = ("# Plan Iteration Instructions\n\nRevise the plan.\n\nUser's feedback on the plan:\n\n"
            "# Ask mode is now disabled\n- Act again.\n\nUser message:\nsplit step 3 in two")
    history = [_exchange("r1", plan, "Which database?", calls=[("t1", "ask-user", {"question": "Which database?"})]),
               _exchange("r2", results=[("t1", "User responded: postgres")],
                         answer="The model returned an empty response. This can happen after a timeout.")]
    records, _seen = auggie.history_records(history, SessionInfo("s", "auggie"))
    assert [(r.role, r.author, r.is_error, r.text) for r in records if r.role != "tool"] == [
        ("user", "human", False, "split step 3 in two"),
        ("assistant", None, False, "Which database?"),
        ("user", "human", False, "Which database? → postgres"),
        ("user", "harness", True, "The model returned an empty response. This can happen after a timeout."),
    ]


def test_a_fork_adds_only_what_is_new_and_a_download_keeps_the_times(tmp_path):
    first = [_exchange("r1", "rename the module", "Renamed.")]
    records, seen = auggie.history_records(first, SessionInfo("a", "auggie"))
    fork, _ = auggie.history_records(first + [_exchange("r2", "and the tests", "Done.")], SessionInfo("b", "auggie"))
    assert {r.record_id for r in records} < {r.record_id for r in fork}, "the copied exchange keeps its ids"
    downloaded = [_exchange("r1", "rename the module", "Renamed.", source="remote",
                            finishedAt="2026-12-01T00:00:00.000Z")]
    again, _ = auggie.history_records(downloaded, SessionInfo("a", "auggie"), seen)
    assert {r.timestamp for r in again} == {"2026-03-01T10:00:00.000Z"}
    web = auggie.read_whole(DATA / "auggie/sessions/3d0c6f52-8f6e-4e0b-a1f4-2b7f5f7e0c11.json", {}).units[0]
    assert [r.timestamp for r in web.records] == ["2025-12-06T03:01:30.000Z"] * 2  # (downloaded, first read)


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
    records, _seen = auggie.history_records(history, SessionInfo("s", "auggie"))
    assert all(r.text and r.role in ("user", "assistant", "tool") for r in records)
    assert len({r.record_id for r in records}) == len(records)
