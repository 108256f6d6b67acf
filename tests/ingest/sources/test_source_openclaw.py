"""OpenClaw: Pi-format transcripts, in ``agents/<agent>/agent/openclaw-agent.sqlite`` (2026.8 on; large rows
zstd-compressed since 2026.9.6) or, before, ``agents/<agent>/sessions/<id>.jsonl``."""

import json
import sqlite3
from pathlib import Path

import pytest
from agent_homes import install_clawdbot, install_openclaw
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, LineError, openclaw, openclaw_entries
from backscroll.types import SessionInfo

MAIN = "be52a329-7cce-4c47-992c-00355c084f79"
PARENT = "f4ce7d7f-52bf-4f22-867f-9d600f7dfdf1"
CHILD = "4a4ce886-4cb2-4915-853c-64e69dca2f4a"
OLD_PARENT = "76820385-449f-49ce-9b21-f667eb068dd5"
OLD_CHILD = "ece96682-90f5-4f5d-ad7a-941fe980fff7"


DATA_SESSIONS = Path(__file__).parents[2] / "data/openclaw/sessions"


def _db(home: Path) -> Path:
    return home / ".openclaw/agents/main/agent/openclaw-agent.sqlite"


def test_openclaw_is_registered_with_its_state_dirs(backscroll_home, monkeypatch):
    assert AGENTS["openclaw"] is openclaw.AGENT
    (backscroll_home.home / ".openclaw-work").mkdir()  # a --profile's
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "openclaw"]
    home = backscroll_home.home
    assert roots == [(home / ".openclaw/agents", "default"), (home / ".clawdbot/agents", "default"),
                     (home / ".openclaw-work/agents", "default")]
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(backscroll_home.root / "state"))
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "openclaw"]
    assert roots == [(backscroll_home.root / "state/agents", "env $OPENCLAW_STATE_DIR")]
    sessions = Path("/h/.openclaw/agents/main/sessions")
    assert openclaw.claims(sessions / f"{MAIN}.jsonl")
    assert openclaw.claims(sessions / f"{MAIN}.jsonl.reset.2026-07-01T10-00-00.000Z")
    assert not openclaw.claims(sessions / f"{MAIN}.trajectory.jsonl")
    assert openclaw.claims(sessions / f"{MAIN}.jsonl.deleted.2026-12-06T08-04-53.988Z.fc7e.zst")
    assert not openclaw.claims(sessions / f"{MAIN}.jsonl.deleted.2026-12-06T08-04-53.988Z.fc7e.zst.1f2e.tmp")
    assert not openclaw.claims(sessions / f"{MAIN}.acp-stream.jsonl")
    assert openclaw.session_for(sessions / f"{MAIN}-topic-42.jsonl").session_id == MAIN
    assert not openclaw.claims(Path("/h/.openclaw/agents/main/session-sqlite-import-archive/x.jsonl.imported-1"))
    assert openclaw.claims(Path("/h/.openclaw/agents/main/agent/openclaw-agent.sqlite"))
    assert not openclaw.claims(Path("/h/.openclaw/agents/main/agent/openclaw-agent.sqlite-wal"))


@pytest.mark.parametrize("compress", [True, False], ids=["zstd", "json"])
def test_the_agent_database(backscroll_home, backscroll_index, compress):
    if compress:
        pytest.importorskip("zstandard")
    writer = install_openclaw(backscroll_home.home, compress=compress, keep_open=True)
    try:
        out = backscroll_index()
    finally:
        writer.close()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = [(r["role"], r["author"], r["tool_name"], r["is_error"], r["text"][:20])
           for r in rows(backscroll_home) if r["session_id"] == MAIN]
    assert got == [
        ("user", "human", None, 0, "Please run a shell c"),
        ("tool", None, "exec", 0, "seq 1 400; echo done"),
        ("tool", None, "exec", 0, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"),  # compressed in 2026.9.6
        ("assistant", None, None, 0, "FINAL ANSWER: saw 14"),
        ("user", "human", None, 0, "Now please run somet"),
        ("tool", None, "exec", 0, "echo going to fail; "),
        ("tool", None, "exec", 1, "going to fail\nls: ca"),  # exit 3: only details.exitCode says so
        ("assistant", None, None, 0, "FINAL ANSWER: saw 11"),
        ("user", "harness", None, 0, "[OpenClaw heartbeat "),  # provenance internal_system
        ("tool", None, "exec", 0, "seq 1 400; echo done"),
        ("tool", None, "exec", 0, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10"),
        ("assistant", None, None, 0, "FINAL ANSWER: saw 14"),
    ]
    spawn = [r for r in rows(backscroll_home) if r["session_id"] == PARENT and r["tool_name"] == "sessions_spawn"]
    assert spawn[0]["text"].startswith("sessions_spawn\ntask: Subagent task")  # called through tool_call
    child = [r for r in rows(backscroll_home) if r["session_id"] == CHILD]
    assert (child[0]["author"], child[0]["text"][:18]) == ("agent", "[Subagent Context]")
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions[CHILD]["title"], sessions[CHILD]["is_sidechain"], sessions[CHILD]["parent_session_id"]) == (
        "numbers-helper", 1, PARENT)
    assert sessions[MAIN]["cwd"] == "/tmp/research/openclaw/workspace"


def test_only_sessions_that_changed_are_read_again(backscroll_home):
    install_openclaw(backscroll_home.home, compress=False)
    db = _db(backscroll_home.home)
    first = openclaw.read_whole(db, {})
    assert {u.session.session_id for u in first.units} == {MAIN, PARENT, CHILD}
    assert openclaw.read_whole(db, first.state).units == []
    conn = sqlite3.connect(db)
    seq = conn.execute("SELECT max(seq) FROM transcript_events WHERE session_id = ?", (MAIN,)).fetchone()[0]
    entry = {"type": "message", "id": "u-new", "parentId": None, "timestamp": "2026-12-06T09:00:00.000Z",
             "message": {"role": "user", "content": "and the logs?"}}
    conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                 (MAIN, seq + 1, json.dumps(entry), 1796547600000))
    # a rewrite in place keeps the rows' number: OpenClaw draws a new generation
    conn.execute("UPDATE transcript_rewrite_watermarks SET generation = 'g2' WHERE session_id = ?", (PARENT,))
    conn.commit()
    conn.close()
    again = openclaw.read_whole(db, first.state)
    assert sorted(u.session.session_id for u in again.units) == sorted([MAIN, PARENT])
    assert next(u for u in again.units if u.session.session_id == MAIN).records[-1].text == "and the logs?"


def test_without_a_zstd_codec_compressed_rows_wait_for_one(backscroll_home, monkeypatch):
    pytest.importorskip("zstandard")
    install_openclaw(backscroll_home.home, compress=True)
    monkeypatch.setattr(openclaw, "zstd_decompress", lambda data: None)
    out = openclaw.read_whole(_db(backscroll_home.home), {})
    main = next(u for u in out.units if u.session.session_id == MAIN)
    assert main.skipped and all("pip install zstandard" in why for _n, why in main.skipped)
    assert main.records, "the plain rows are read"
    assert MAIN not in out.state["sessions"], "read again once a codec is installed"


def test_the_transcripts_of_2026_7_in_the_state_dir_of_before_the_rename(backscroll_home, backscroll_index):
    sessions = install_clawdbot(backscroll_home.home)
    (sessions / f"{OLD_PARENT}.trajectory.jsonl").write_text('{"type": "run.start"}\n')  # a run trace: not read
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    found = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert len(found) == 3
    assert (found[OLD_CHILD]["is_sidechain"], found[OLD_CHILD]["parent_session_id"], found[OLD_CHILD]["title"]) == (
        1, OLD_PARENT, "numbers-helper")
    fail = [r for r in rows(backscroll_home) if r["text"].startswith("going to fail")]
    assert [r["is_error"] for r in fail] == [1]  # 2026.7.1 said isError itself


def _message(message: dict) -> dict:
    return {"type": "message", "id": "e1", "parentId": None, "timestamp": "2026-12-06T09:00:00.000Z",
            "message": message}


def test_openclaws_copies_of_a_reply_and_its_own_turns():
    info = SessionInfo("s", "openclaw")
    said = [{"type": "text", "text": "Sent to the channel."}]
    lines = list(enumerate([
        _message({"role": "assistant", "provider": "mock", "content": said}),
        _message({"role": "assistant", "provider": "openclaw", "model": "delivery-mirror", "content": said}),
        _message({"role": "assistant", "provider": "openclaw", "model": "delivery-mirror",
                  "content": [{"type": "text", "text": "Sent from another session."}]}),
        _message({"role": "assistant", "provider": "openclaw", "model": "gateway-injected",
                  "content": [{"type": "text", "text": "a reply stopped half-way"}]}),
        _message({"role": "user", "content": "status?", "provenance": {"kind": "inter_session"}}),
        _message({"role": "user", "content": "[OpenClaw heartbeat poll]"}),  # 2026.7: no provenance
        {"type": "custom", "customType": "openclaw:prompt-error", "id": "p1", "data": {"error": "HTTP 401: bad key"}},
        {"type": "reset", "id": "r1", "parentId": None, "reason": "new"},
        {"type": "leaf", "id": "l1", "parentId": None},
    ], 1))
    _info, records, skipped, unknown = openclaw_entries.entries_records(lines, info)
    assert [(r.role, r.author, r.is_error, r.text) for r in records] == [
        ("assistant", None, False, "Sent to the channel."),  # its delivered copy is not stored again
        ("assistant", None, False, "Sent from another session."),  # the only copy
        ("assistant", None, False, "a reply stopped half-way"),
        ("user", "agent", False, "status?"),
        ("user", "harness", False, "[OpenClaw heartbeat poll]"),
        ("user", "harness", True, "HTTP 401: bad key"),
    ]
    assert skipped == [] and unknown == {}


def test_a_tool_called_through_tool_call_and_a_command_that_never_ran():
    info = SessionInfo("s", "openclaw")
    shell = {"id": "exec", "args": {"command": "backscroll search 'queue'"}}
    search = '{"id": "openclaw:core:web_search", "args": {"query": "x"}}'
    call = _message({"role": "assistant", "content": [
        {"type": "toolCall", "id": "c1", "name": "tool_call", "arguments": shell},
        {"type": "toolCall", "id": "c2", "name": "tool_call", "arguments": search}]})
    records = openclaw_entries.parse_line(call, 1, info).records
    assert [(r.tool_name, r.text, r.command) for r in records] == [
        ("exec", "backscroll search 'queue'", "backscroll search 'queue'"),
        ("web_search", "web_search\nquery: x", None)]
    denied = _message({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "content": [
        {"type": "text", "text": "exec denied by auto-review"}], "details": {"status": "denied", "exitCode": None}})
    assert [r.is_error for r in openclaw_entries.parse_line(denied, 2, info).records] == [True]


def test_a_damaged_row_costs_only_itself_and_a_subagent_links_to_the_window_that_spawned_it(backscroll_home):
    pytest.importorskip("zstandard")
    install_openclaw(backscroll_home.home, compress=True)
    db = _db(backscroll_home.home)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE transcript_events SET event_zstd = X'28b52ffd00' WHERE session_id = ? AND event_zstd IS NOT "
                 "NULL", (MAIN,))
    # the parent rolled over to a new window after the spawn; the child names its spawner only in spawned_by
    conn.execute("UPDATE session_windows SET parent_session_key = NULL, spawned_by = 'agent:main:parent' "
                 "WHERE session_id = ?", (CHILD,))
    conn.execute("INSERT INTO session_windows (session_id, session_key, created_at, updated_at) "
                 "VALUES ('p-new', 'agent:main:parent', 1796600000000, 1796600000000)")
    conn.execute("UPDATE session_nodes SET current_session_id = 'p-new' WHERE session_key = 'agent:main:parent'")
    conn.commit()
    conn.close()
    units = {u.session.session_id: u for u in openclaw.read_whole(db, {}).units}
    main = units[MAIN]
    assert main.records and len(main.skipped) == 2  # (the two damaged rows alone)
    assert units[CHILD].session.parent_session_id == PARENT


def test_a_deleted_sessions_archive_is_read(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    sessions = tmp_path / "agents/main/sessions"
    sessions.mkdir(parents=True)
    lines = (DATA_SESSIONS / f"{OLD_PARENT}.jsonl").read_bytes()
    archive = sessions / f"{OLD_PARENT}.jsonl.deleted.2026-12-06T08-04-53.988Z.fc7e.zst"
    archive.write_bytes(zstandard.ZstdCompressor().compress(lines))
    (unit,) = openclaw.read_whole(archive, {}).units
    assert unit.session.session_id == OLD_PARENT and unit.records


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(
                          st.sampled_from(["type", "message", "role", "content", "text", "id", "name", "arguments",
                                           "provider", "provenance", "kind", "details", "exitCode", "toolCallId",
                                           "args", "command"]), c, max_size=4),
                      max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(entry=st.one_of(values, st.fixed_dictionaries({"type": st.sampled_from(["message", "session", "reset"]),
                                                       "message": values, "id": values})))
def test_a_line_never_raises_anything_but_a_line_error(entry):
    try:
        parsed = openclaw_entries.parse_line(entry, 1, SessionInfo("s", "openclaw"))
    except LineError:
        return
    assert all(r.text for r in parsed.records)
