"""Amp: thread files ``~/.local/share/amp/threads/T-<uuid>.json``, read whole into records."""

import json
from pathlib import Path

from agent_homes import AMP_ID, install_amp
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, amp
from backscroll.types import SessionInfo


def test_amp_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["amp"] is amp.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "amp")
    assert (root.path, root.origin) == (backscroll_home.home / ".local/share/amp/threads", "default")
    monkeypatch.setenv("XDG_DATA_HOME", str(backscroll_home.root / "xdg"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "amp")
    assert (root.path, root.origin) == (backscroll_home.root / "xdg/amp/threads", "env $XDG_DATA_HOME")
    assert amp.claims(Path(f"/x/{AMP_ID}.json")) and not amp.claims(Path("/x/history.jsonl"))


def test_amp_records_of_every_kind(backscroll_home, backscroll_index):
    install_amp(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    recs = rows(backscroll_home)
    got = [(r["record_id"].removeprefix(AMP_ID + ":"), r["role"], r["content_type"], r["tool_name"], r["text"])
           for r in recs]
    assert got == [
        ("0#0", "user", "text", None, "test_retry_backoff fails about one run in ten. Why?"),
        ("1#0", "assistant", "reasoning", None, "Probably the jitter is drawn from the global random state."),
        ("1#1", "assistant", "text", None, "Let me look at how the backoff is computed."),
        ("1#2", "tool", "tool", "Bash", "rg -n jitter relay/retry.py"),
        ("2#0", "tool", "tool", "Bash", "14:    delay = base * 2 ** n + random.uniform(0, 1)"),
        ("3#0", "tool", "tool", "Read", "Read\npath: /home/dev/relay/tests/test_retry.py"),
        ("4#0", "tool", "tool", "Read", "Error: no such file tests/test_retry.py"),
        ("5#0", "tool", "tool", "Bash", "backscroll search 'retry jitter seed'"),
        ("6#0", "tool", "tool", "Bash", "[1] 2026-09-02 · assistant · seed the jitter RNG per test"),
        ("7#0", "assistant", "summary", None, "Compacted: looked at retry jitter"),
        ("8#0", "assistant", "text", None, "The jitter uses the global random module, so the test depends on test "
                                           "order. Inject a seeded random.Random into RetryPolicy."),
    ]
    calls = {r["tool_call_id"] for r in recs if r["is_call"]}
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert {r["tool_call_id"] for r in results} == calls == {"toolu_01A", "toolu_01B", "toolu_01C"}
    assert [r["is_error"] for r in results] == [0, 1, 0]
    assert [r["is_echo"] for r in recs if r["tool_call_id"] == "toolu_01C"] == [1, 1]
    assert not any(r["is_echo"] for r in recs if r["tool_call_id"] != "toolu_01C")
    # Assistant messages have no time of their own: they take the time of the message before them.
    assert [r["timestamp"] for r in recs][:5] == ["2026-10-01T08:00:01.000Z"] * 4 + ["2026-10-01T08:00:05.000Z"]
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (session["session_id"], session["agent"], session["cwd"], session["project"], session["title"]) == (
        AMP_ID, "amp", "/home/dev/relay", "relay", "Flaky webhook retry test")


def test_amp_rewritten_thread_replaces_its_records(backscroll_home, backscroll_index):
    path = install_amp(backscroll_home.home)
    backscroll_index()
    thread = json.loads(path.read_text())
    thread["messages"].append({"role": "user", "messageId": 9,
                               "content": [{"type": "text", "text": "Also add a test."}],
                               "meta": {"sentAt": 1790841700000}})
    thread["title"] = "Seed the retry jitter"
    path.write_text(json.dumps(thread))
    out = backscroll_index()
    # only the new message is added; the eleven unchanged records are neither re-added nor replaced
    assert out.report.records_added == 1 and out.report.records_replaced == 0
    assert len(rows(backscroll_home)) == 12
    assert rows(backscroll_home, "SELECT title FROM sessions")[0]["title"] == "Seed the retry jitter"


def test_amp_half_written_file_is_unreadable_until_complete(backscroll_home, backscroll_index):
    path = install_amp(backscroll_home.home)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    out = backscroll_index()
    assert [p for p, _why in out.report.unreadable] == [str(path)] and rows(backscroll_home) == []
    path.write_bytes(whole)
    out = backscroll_index()
    assert not out.report.unreadable and len(rows(backscroll_home)) == 11


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30,
)
blocks = st.fixed_dictionaries({"type": st.sampled_from(["text", "thinking", "tool_use", "tool_result", "x"]),
                                "text": json_values, "thinking": json_values, "id": json_values, "name": json_values,
                                "input": json_values, "toolUseID": json_values, "run": json_values})
messages = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "info", 3]),
                                  "content": st.one_of(st.lists(st.one_of(blocks, json_values), max_size=4),
                                                       json_values),
                                  "meta": json_values, "messageId": json_values})


@settings(max_examples=200, deadline=None)
@given(thread=st.fixed_dictionaries({"id": json_values, "title": json_values, "env": json_values,
                                     "created": json_values, "messages": st.one_of(st.lists(messages, max_size=5),
                                                                                   json_values)}))
def test_amp_reader_never_raises_on_odd_threads(thread):
    records, skipped = amp._records(thread, SessionInfo("T-1", "amp", cwd=amp._cwd(thread)))
    for rec in records:
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")
    assert all(isinstance(why, str) for _n, why in skipped)


def test_a_threads_summary_is_kept():
    thread = {"id": "T-1", "created": 1785578400000, "messages": [
        {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "why?"}],
         "meta": {"sentAt": 1785578400000}},
        {"role": "info", "messageId": 1, "content": [{"type": "summary", "summary": {"type": "message",
                                                                                    "summary": "Lock order."}}]}]}
    records, skipped = amp._records(thread, SessionInfo("T-1", "amp"))
    assert [(r.role, r.content_type, r.text) for r in records] == [("user", "text", "why?"),
                                                                    ("assistant", "summary", "Lock order.")]
    assert not skipped


def test_newer_amp_shell_calls_failed_runs_and_inference_times_are_read():
    thread = {"id": "T-1", "created": 1791000000000, "messages": [
        {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "run the tests"}],
         "meta": {"sentAt": 1791000001000}},
        {"role": "assistant", "messageId": 1, "usage": {"timestamp": "2026-10-03T05:20:09Z"},
         "content": [{"type": "tool_use", "id": "t1", "name": "shell_command",
                      "input": {"command": "pytest -q", "workdir": "/r"}}]},
        {"role": "user", "messageId": 2, "content": [
            {"type": "tool_result", "toolUseID": "t1", "run": {"status": "error", "error": {"message": "timed out"}}}]},
    ]}
    records, _skipped = amp._records(thread, SessionInfo("T-1", "amp"))
    call, result = records[1], records[2]
    assert (call.command, call.timestamp) == ("pytest -q", "2026-10-03T05:20:09.000Z")
    assert (result.text, result.is_error) == ("timed out", True)
    partial = amp._result_text({"status": "error", "progress": ["collected 12 items"], "error": {"message": "killed"}})
    assert partial == "collected 12 items\nkilled"
