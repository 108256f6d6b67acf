"""The Kiro CLI (and the Amazon Q Developer CLI before it): its ``data.sqlite3`` conversations and its
``~/.kiro/sessions/cli`` event logs."""

import json
import sqlite3
from pathlib import Path

from agent_homes import install_kiro
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, kiro, kiro_records, kiro_v3
from backscroll.types import SessionInfo

Q = "6c1d4f0e-2b7a-4e8a-9c55-0d2f3a1b4c5d"
OLD_Q = "0a1b2c3d-1111-4222-8333-444455556666"
KIRO = "5e1f0c2a-7b3d-4c8e-9f10-2a3b4c5d6e7f"
LOG = "0b6f6d3e-aaaa-4bbb-8ccc-000000000001"
V3 = "sess_7c2e9a41-3d5b-4f08-b6a2-1e9d4c8f0b37"


def _got(home, sid):
    return [(r["role"], r["content_type"], r["author"], r["tool_name"], r["is_error"], r["text"][:24])
            for r in rows(home) if r["session_id"] == sid]


def test_kiro_is_registered_with_its_places(backscroll_home, monkeypatch):
    assert AGENTS["kiro"] is kiro.AGENT
    home = backscroll_home.home
    monkeypatch.setattr("sys.platform", "linux")
    assert kiro.default_root({"HOME": str(home)}) == [
        (home / ".kiro/sessions", "default"), (home / ".local/share/kiro-cli", "default"),
        (home / ".local/share/amazon-q", "default")]
    assert kiro.default_root({"HOME": "/h", "KIRO_HOME": "/k"})[:2] == [
        (Path("/k/sessions"), "env $KIRO_HOME"), (Path("/h/.kiro/sessions"), "default")]
    assert kiro.claims(Path("/h/.local/share/amazon-q/data.sqlite3"))
    assert kiro.claims(Path(f"/h/.kiro/sessions/cli/{LOG}.jsonl"))
    assert not kiro.claims(Path(f"/h/.kiro/sessions/cli/{LOG}.json")), "the session file goes with its log"
    assert not kiro.claims(Path("/h/.local/share/other/data.sqlite3"))
    assert kiro.claims(Path(f"/h/.kiro/sessions/5d1e0c9a3b7f2468/{V3}/messages.jsonl"))
    assert kiro.claims(Path(f"/h/.kiro/sessions/5d1e0c9a3b7f2468/{V3}/sub-executions/sub-0001.jsonl"))
    assert not kiro.claims(Path("/h/.kiro/session-index/5d1e0c9a3b7f2468.jsonl"))


def test_the_database_and_the_event_log(backscroll_home, backscroll_index):
    writer = install_kiro(backscroll_home.home, keep_open=True)
    try:
        out = backscroll_index()
    finally:
        writer.close()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    assert _got(backscroll_home, Q) == [
        ("user", "text", "human", None, 0, "why does the invoice tot"),
        ("assistant", "text", None, None, 0, "Checking how totals are "),
        ("tool", "tool", None, "execute_bash", 0, "grep -rn round billing/"),
        ("tool", "tool", None, "execute_bash", 0, "billing/total.py:12: rou"),
        ("assistant", "text", None, None, 0, "Each line is rounded bef"),
    ]
    assert _got(backscroll_home, OLD_Q)[0] == ("user", "text", "human", None, 0, "set up the cron job for ")  # Q 1.10
    refused = _got(backscroll_home, KIRO)
    assert ("tool", "tool", None, "execute_bash", 1, "Tool use was cancelled b") in refused
    assert ("user", "text", "human", None, 0, "no, keep dist, delete bu") in refused  # typed instead of approving
    assert ("assistant", "reasoning", None, None, 0, "The build folder is dist") in refused
    assert ("assistant", "summary", None, None, 0, "## OBJECTIVE\nClean the b") in refused
    assert not any("hook output" in r["text"] for r in rows(backscroll_home)), "a hook's context is not the person's"
    assert _got(backscroll_home, LOG) == [
        ("user", "text", "human", None, 0, "why is the deploy script"),
        ("assistant", "reasoning", None, None, 0, "Time each step."),
        ("assistant", "text", None, None, 0, "Timing each step."),
        ("tool", "tool", None, "shell", 0, "time ./deploy.sh --dry-r"),
        ("tool", "tool", None, "shell", 1, "npm ci: 94s\nerror: missi"),  # "exit status: 1"
        ("assistant", "text", None, None, 0, "npm ci takes 94 s: cache"),
        ("assistant", "summary", None, None, 0, "Deploy is slow because n"),
    ]
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions[LOG]["cwd"], sessions[KIRO]["cwd"]) == ("/home/dev/deploy", "/home/dev/site")


def test_kiro_3_and_its_subagents(backscroll_home, backscroll_index):
    install_kiro(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    assert _got(backscroll_home, V3) == [
        ("user", "text", "human", None, 0, "why is the thumbnail job"),
        ("tool", "tool", None, "execute_bash", 0, "time python resize.py"),
        ("tool", "tool", None, "execute_bash", 0, "Output:\nreal 41.2s\n\nExit"),
        ("tool", "tool", None, "read_file", 0, "read_file\npath: resize.p"),
        ("tool", "tool", None, "read_file", 1, "interrupted"),
        ("assistant", "text", None, None, 0, "Each image is decoded at"),  # (the "..." Kiro writes for reasoning: not)
        ("user", "text", "harness", None, 1, "The model is overloaded."),
        ("assistant", "summary", None, None, 0, "Thumbnails are slow beca"),
    ]
    sub = _got(backscroll_home, f"{V3}-sub-0001")
    assert sub[0] == ("user", "text", "agent", None, 0, "Find where images are op")
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions[V3]["title"], sessions[V3]["cwd"]) == ("Speed up the image resize", "/home/dev/gallery")
    assert (sessions[f"{V3}-sub-0001"]["parent_session_id"], sessions[f"{V3}-sub-0001"]["is_sidechain"]) == (V3, 1)
    records, _unknown = kiro_v3.records_of([(1, {"id": "r", "payload": {
        "type": "tool_result", "toolCallId": "t", "content": "Output:\n\nExit Code: 2", "success": True}})],
        SessionInfo("s", "kiro"))
    assert [r.is_error for r in records] == [True]


def test_a_conversation_a_new_one_overwrote_stays_and_only_changed_rows_are_read(backscroll_home, backscroll_index):
    install_kiro(backscroll_home.home)
    backscroll_index()
    db = backscroll_home.home / ".local/share/kiro-cli/data.sqlite3"
    first = kiro.read_whole(db, {})
    assert kiro.read_whole(db, first.state).units == []
    conn = sqlite3.connect(db)
    answer = {"Response": {"message_id": "m9", "content": "Done."}}
    new = {"conversation_id": "77777777-7777-4777-8777-777777777777",
           "history": [{"user": {"content": {"Prompt": {"prompt": "rotate the API keys"}}}, "assistant": answer}]}
    conn.execute("UPDATE conversations SET value = ? WHERE key = '/home/dev/ops'", (json.dumps(new),))
    conn.commit()
    conn.close()
    again = kiro.read_whole(db, first.state)
    assert [u.session.session_id for u in again.units] == [new["conversation_id"]]
    backscroll_index()
    said = {r["text"] for r in rows(backscroll_home)}
    assert {"set up the cron job for the nightly export", "rotate the API keys"} <= said


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(
                          st.sampled_from(["history", "user", "assistant", "content", "Prompt", "prompt",
                                           "ToolUseResults", "tool_use_results", "tool_use_id", "Response",
                                           "ToolUse", "tool_uses", "message_id", "args", "name", "id", "Json",
                                           "Text", "exit_status", "latest_summary", "kind", "data", "text",
                                           "toolUse", "toolResult", "toolUseId", "input", "status", "meta",
                                           "timestamp"]), c, max_size=4),
                      max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(state=values, lines=st.lists(st.dictionaries(st.sampled_from(["kind", "data"]), values), max_size=4))
def test_the_readers_never_raise(state, lines):
    info = SessionInfo("s", "kiro")
    records = kiro_records.state_records(state if isinstance(state, dict) else {}, info, None)
    records += kiro_records.log_records(list(enumerate(lines, 1)), info, None)
    assert all(r.text and r.role in ("user", "assistant", "tool") for r in records)


def _entry(prompt, message_id, when=None, calls=(), results=()):
    content = {"Prompt": {"prompt": prompt}} if prompt else {"ToolUseResults": {"tool_use_results": [
        {"tool_use_id": i, "content": [{"Json": out}], "status": "Success"} for i, out in results]}}
    said = {"message_id": message_id, "content": f"answer {message_id}", "tool_uses": [
        {"id": i, "name": "dummy", "orig_name": "execute_bash", "args": {}, "orig_args": {"command": c}}
        for i, c in calls]}
    return {"user": {"content": content, "timestamp": when}, "assistant": {"ToolUse": said}}


def test_a_compactions_copy_a_resume_and_kiros_own_prompts(backscroll_home, backscroll_index):
    """A compaction continues under a new conversation id with the kept tail copied (Kiro's message ids kept); the
    first entry it keeps may be turned into a prompt with no time, which is Kiro's, not the person's."""
    first = {"conversation_id": "c-1", "history": [
        _entry("count the lines", "m1", "2026-03-01T10:00:00Z", calls=[("t1", "wc -l *.py")]),
        _entry("", "m2", results=[("t1", {"exit_status": "signal: 9 (SIGKILL)", "stdout": "", "stderr": ""})])]}
    kept = [_entry("(tool results)", "m2"), _entry("now the tests", "m3", "2026-03-01T11:00:00Z")]
    fork = {"conversation_id": "c-2", "history": kept, "latest_summary": ["Counted lines; wc was killed.", {}]}
    writer = install_kiro(backscroll_home.home, keep_open=True)
    resumed = {**fork, "history": [*kept, _entry("and docs", "m4", "2026-03-02T09:00:00Z")]}
    writer.executemany("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)", [
        ("/w", "c-1", json.dumps(first), 1, 1), ("/w", "c-2", json.dumps(fork), 2, 2),
        ("/elsewhere", "c-2", json.dumps(resumed), 3, 3)])
    writer.close()
    backscroll_index()
    texts = [r["text"] for r in rows(backscroll_home) if r["session_id"] in ("c-1", "c-2")]
    assert texts.count("answer m2") == 1, "the kept tail is stored once"
    assert "and docs" in texts, "the same conversation resumed in another directory"
    call = next(r for r in rows(backscroll_home) if r["tool_call_id"] == "t1" and r["is_call"])
    assert (call["tool_name"], call["text"]) == ("execute_bash", "wc -l *.py")  # not the resume's "dummy"
    result = next(r for r in rows(backscroll_home) if r["tool_call_id"] == "t1" and not r["is_call"])
    assert (result["is_error"], result["text"]) == (1, "signal: 9 (SIGKILL)")
    own = next(r for r in rows(backscroll_home) if r["text"] == "(tool results)")
    assert own["author"] == "harness"
