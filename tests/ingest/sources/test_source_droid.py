"""Factory Droid: append-only ``~/.factory/sessions/<slug>/<uuid>.jsonl``, read line by line."""

from pathlib import Path

from agent_homes import DROID_ID, install_droid
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, LineError, ParsedLine, droid
from backscroll.types import SessionInfo


def test_droid_is_registered_with_its_default_root(backscroll_home, tmp_path):
    assert AGENTS["droid"] is droid.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "droid")
    assert (root.path, root.origin) == (backscroll_home.home / ".factory/sessions", "default")
    assert droid.claims(Path(f"/h/.factory/sessions/-w/{DROID_ID}.jsonl"))
    assert not droid.claims(Path(f"/h/elsewhere/{DROID_ID}.jsonl")), "outside .factory it needs its settings file"
    (tmp_path / f"{DROID_ID}.settings.json").write_text("{}")
    assert droid.claims(tmp_path / f"{DROID_ID}.jsonl")


def test_droid_records_of_every_kind(backscroll_home, backscroll_index):
    install_droid(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    recs = rows(backscroll_home)
    got = [(r["record_id"].removeprefix(DROID_ID + ":"), r["role"], r["content_type"], r["tool_name"], r["text"])
           for r in recs]
    assert got == [
        ("m-0001#0", "user", "text", None, "The invoice PDF shows a total that differs from the API total."),
        ("m-0002#0", "assistant", "reasoning", None, "The PDF template may round each line before summing."),
        ("m-0002#1", "assistant", "text", None, "I'll compare the template and the API serializer."),
        ("m-0002#2", "tool", "tool", "Execute", "grep -rn total templates/invoice.html"),
        ("m-0003#0", "tool", "tool", "Execute", "templates/invoice.html:31: {{ line.total|round(2) }}"),
        ("m-0004#0", "tool", "tool", "Read", "Read\nfile_path: /home/dev/billing/api/serializers.py"),
        ("m-0005#0", "tool", "tool", "Read", "Error: permission denied"),
        ("m-0006#0", "tool", "tool", "Execute", 'backscroll search "invoice rounding"'),
        ("m-0007#0", "tool", "tool", "Execute", "[1] round the sum, not the lines"),
        ("m-0008#0", "assistant", "text", None, "The template rounds every line with round(2) before the sum; sum "
                                                "the exact line totals and round once, like the API does."),
    ]
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert {r["tool_call_id"] for r in results} == {r["tool_call_id"] for r in recs if r["is_call"]}
    assert [r["is_error"] for r in results] == [0, 1, 0]
    assert [r["tool_call_id"] for r in recs if r["is_echo"]] == ["toolu_D3", "toolu_D3"]
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (session["session_id"], session["cwd"], session["project"], session["title"]) == (
        DROID_ID, "/home/dev/billing", "billing", "Invoice PDF totals")
    assert recs[0]["timestamp"] == "2026-10-02T08:00:01.000Z" and recs[0]["line"] == 2


def test_droid_appended_lines_are_read_incrementally(backscroll_home, backscroll_index):
    path = install_droid(backscroll_home.home)
    backscroll_index()
    with path.open("a") as fh:
        fh.write('{"type":"message","id":"m-0009","timestamp":"2026-10-02T08:01:00.000Z","message":'
                 '{"role":"user","content":[{"type":"text","text":"Ship it."}]}}\n')
    out = backscroll_index()
    assert out.report.records_added == 1 and out.report.records_replaced == 0


@settings(max_examples=300, deadline=None)
@given(obj=st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "message", "role", "content", "text", "thinking", "id", "name", "input",
                         "tool_use_id", "is_error", "cwd", "title", "timestamp"]) | st.text(max_size=6), c, max_size=6),
    max_leaves=30))
def test_droid_parser_never_raises_anything_but_line_errors(obj):
    try:
        out = droid.parse_line(obj, 3, SessionInfo(DROID_ID, "droid"))
    except LineError:
        return
    assert isinstance(out, ParsedLine)
    for rec in out.records:
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")


def test_a_compactions_summary_is_kept():
    session = SessionInfo("d", "droid")
    for obj in ({"type": "compaction_state", "timestamp": "2026-10-01T09:00:00Z", "summaryText": "Lock order."},
                {"type": "compaction_state", "timestamp": "2026-10-01T09:00:00Z", "summary": {"body": "Lock order."}}):
        parsed = droid.parse_line(obj, 7, session)
        assert [(r.role, r.content_type, r.text, r.timestamp) for r in parsed.records] == [
            ("assistant", "summary", "Lock order.", "2026-10-01T09:00:00.000Z")]
    assert droid.parse_line({"type": "compaction_state"}, 8, session).records == []


def test_an_entry_type_not_known_is_counted():
    session = SessionInfo("d", "droid")
    assert droid.parse_line({"type": "brand_new_entry"}, 3, session).unknown == "brand_new_entry"
    assert droid.parse_line({"type": "todo_state"}, 4, session).unknown is None


def test_a_worker_session_is_linked_to_the_session_that_called_it_and_droids_title_wins():
    start = {"type": "session_start", "id": "w1", "cwd": "/r", "title": "# Task Tool Invocation\nSubagent type: worker",
             "sessionTitle": "worker: audit the tests", "callingSessionId": "s1", "callingToolUseId": "toolu_9"}
    updates = droid.parse_line(start, 1, SessionInfo("w1", "droid")).session_updates
    assert (updates["is_sidechain"], updates["parent_session_id"], updates["title"]) == (
        True, "s1", "worker: audit the tests")
    own = droid.parse_line({"type": "session_start", "id": "s2", "title": "why is the build slow?\nmore",
                            "sessionTitle": "New Session"}, 1, SessionInfo("s2", "droid")).session_updates
    assert ("is_sidechain" not in own, own["title"]) == (True, "why is the build slow?")
    untitled = droid.parse_line({**start, "sessionTitle": "new session"}, 1, SessionInfo("w1", "droid")).session_updates
    assert untitled["title"] is None  # (not the brief's heading)


def test_factory_home_override_moves_the_sessions(tmp_path):
    assert droid.default_root({"HOME": "/h", "FACTORY_HOME_OVERRIDE": str(tmp_path)}) == (
        tmp_path / ".factory" / "sessions", "env $FACTORY_HOME_OVERRIDE")  # (Droid appends .factory, as its SDK)
