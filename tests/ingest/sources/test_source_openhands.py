"""OpenHands: the local file store ``~/.openhands/sessions/<id>/events/<n>.json``, read whole."""

import json
from pathlib import Path

from agent_homes import OH_ID, install_openhands
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, openhands


def test_openhands_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["openhands"] is openhands.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "openhands")
    assert (root.path, root.origin) == (backscroll_home.home / ".openhands/sessions", "default")
    monkeypatch.setenv("FILE_STORE_PATH", str(backscroll_home.root / "store"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "openhands")
    assert (root.path, root.origin) == (backscroll_home.root / "store/sessions", "env $FILE_STORE_PATH")
    assert openhands.claims(Path("/s/abc/events/0.json")) and not openhands.claims(Path("/s/abc/events/1.json"))


def test_openhands_records_of_every_kind(backscroll_home, backscroll_index):
    install_openhands(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    recs = rows(backscroll_home)
    got = [(r["record_id"].removeprefix(OH_ID + ":"), r["role"], r["content_type"], r["tool_name"], r["text"])
           for r in recs]
    assert got == [
        ("1#0", "user", "text", None, "The CSV export drops rows with a comma in the memo."),
        ("4#0", "assistant", "text", None, "Let me see how rows are split."),
        ("4#1", "tool", "tool", "execute_bash", "grep -n split ledger/export.py"),
        ("5#0", "tool", "tool", "execute_bash", "41:        fields = line.split(',')"),
        ("6#0", "assistant", "reasoning", None, "Splitting on commas ignores quoting; the csv module handles quoted "
                                                "fields."),
        ("7#1", "tool", "tool", "str_replace_editor",
         "str_replace_editor\npath: /workspace/ledger/tests/test_export.py\nstart: 0\nend: -1"),
        ("8#0", "tool", "tool", "str_replace_editor",
         "ERROR:\nInvalid `path` parameter: /workspace/ledger/tests/test_export.py. The path does not exist."),
        ("9#1", "tool", "tool", "execute_bash", "backscroll search 'csv quoting'"),
        ("10#0", "tool", "tool", "execute_bash", "[1] use csv.reader, never str.split"),
        ("11#0", "assistant", "text", None, "Export now parses rows with csv.reader, so quoted memos with commas "
                                            "survive."),
    ]
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert [r["tool_call_id"] for r in results] == ["event:4", "event:7", "event:9"], "paired by the action's id"
    assert [r["is_error"] for r in results] == [0, 1, 0]
    assert [r["record_id"] for r in recs if r["is_echo"]] == [f"{OH_ID}:9#1", f"{OH_ID}:10#0"]
    everything = "\n".join(r["text"] for r in recs)
    assert "OpenHands agent" not in everything and "Retrieving content" not in everything
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (session["session_id"], session["project"], session["title"]) == (OH_ID, "ledger", "Fix ledger CSV export")
    assert recs[0]["timestamp"] == "2026-10-04T12:00:01.000Z"


def test_openhands_new_event_rereads_the_conversation(backscroll_home, backscroll_index):
    folder = install_openhands(backscroll_home.home)
    backscroll_index()
    (folder / "events/12.json").write_text(json.dumps({
        "id": 12, "timestamp": "2026-10-04T12:01:00", "source": "user", "action": "message",
        "args": {"content": "Thanks, please open a PR."}}))
    out = backscroll_index()
    assert out.report.files_changed == 1 and out.report.records_added == 1  # only the new event
    assert rows(backscroll_home)[-1]["text"] == "Thanks, please open a PR."


def test_openhands_unreadable_event_is_skipped_and_counted(backscroll_home, backscroll_index):
    folder = install_openhands(backscroll_home.home)
    (folder / "events/5.json").write_text('{"id": 5, "timestamp": ')
    out = backscroll_index()
    assert out.report.lines_skipped == 1 and len(rows(backscroll_home)) == 9


events = st.fixed_dictionaries({
    "id": st.one_of(st.integers(0, 5), st.text(max_size=3), st.none()),
    "source": st.sampled_from(["user", "agent", "environment", None]),
    "timestamp": st.one_of(st.text(max_size=26), st.none()),
}, optional={
    "action": st.sampled_from(["message", "run", "read", "think", "finish", "system", "x"]),
    "observation": st.sampled_from(["run", "error", "read", "x"]),
    "args": st.dictionaries(st.sampled_from(["content", "command", "thought", "final_thought", "path"]),
                            st.one_of(st.text(max_size=20), st.integers(), st.none(), st.lists(st.text(max_size=5))),
                            max_size=4),
    "cause": st.one_of(st.integers(0, 5), st.text(max_size=3)),
    "content": st.one_of(st.text(max_size=20), st.integers(), st.none()),
    "extras": st.one_of(st.dictionaries(st.just("metadata"), st.dictionaries(st.just("exit_code"), st.integers())),
                        st.text(max_size=3)),
    "tool_call_metadata": st.one_of(st.dictionaries(st.just("function_name"), st.text(max_size=8)), st.integers()),
})


@settings(max_examples=200, deadline=None)
@given(evs=st.lists(st.one_of(events, st.integers(), st.text(max_size=5)), max_size=6))
def test_openhands_reader_never_raises_on_odd_events(evs, tmp_path_factory):
    folder = tmp_path_factory.mktemp("oh") / "sessions" / "abc" / "events"
    folder.mkdir(parents=True)
    for n, ev in enumerate(evs):
        (folder / f"{n}.json").write_text(json.dumps(ev))
    (folder / "0.json").touch()
    out = openhands.read_whole(folder / "0.json", {})
    for rec in out.units[0].records:
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")
