"""Zed: the agent panel's ``threads/threads.db``, thread JSON stored zstd-compressed (or plain)."""

import json
import sqlite3
from pathlib import Path

import pytest
from agent_homes import ZED_CHILD, ZED_ID, install_zed, zed_blob
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, zed
from backscroll.types import SessionInfo


def _db(home):
    return home / ".local/share/zed/threads/threads.db"


def test_zed_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["zed"] is zed.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "zed")
    assert root.origin == "default" and root.path.name == "threads"
    monkeypatch.setenv("XDG_DATA_HOME", str(backscroll_home.root / "xdg"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "zed")
    assert (root.path, root.origin) == (backscroll_home.root / "xdg/zed/threads", "env $XDG_DATA_HOME")
    monkeypatch.setattr("sys.platform", "darwin")  # Zed on macOS keeps to its own place
    assert zed.default_root({"HOME": "/Users/me", "XDG_DATA_HOME": "/x"}) == (
        Path("/Users/me/Library/Application Support/Zed/threads"), "default")


@pytest.mark.parametrize("compress", [True, False], ids=["zstd", "json"])
def test_zed_records_of_every_kind(backscroll_home, backscroll_index, compress):
    if compress:
        pytest.importorskip("zstandard")
    writer = install_zed(backscroll_home.home, compress=compress, keep_open=True)
    try:
        out = backscroll_index()
    finally:
        writer.close()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    recs = rows(backscroll_home)
    got = [(r["record_id"].removeprefix(ZED_ID + ":"), r["role"], r["content_type"], r["tool_name"], r["text"])
           for r in recs if r["session_id"] == ZED_ID]
    assert got == [
        ("0#0", "user", "text", None, "Every run hits the forecast API. Cache responses for ten minutes."),
        ("1#0", "assistant", "reasoning", None, "A file cache keyed by URL with an mtime check is enough."),
        ("1#1", "assistant", "text", None, "I'll check whether requests-cache is already a dependency."),
        ("1#2", "tool", "tool", "terminal", "grep -n cache pyproject.toml"),
        ("1#2.result", "tool", "tool", "terminal", '```\n12: requests-cache = "^1.2"\n```'),
        ("1#3", "tool", "tool", "read_file", "read_file\npath: weather-cli/cache.py"),
        ("1#3.result", "tool", "tool", "read_file", "No such file: weather-cli/cache.py"),
        ("3#0", "tool", "tool", "terminal", "backscroll search 'forecast cache'"),
        ("3#0.result", "tool", "tool", "terminal", "[1] CachedSession(expire_after=600)"),
        ("3#1", "assistant", "text", None, "requests-cache is already there: install a CachedSession with "
                                           "expire_after=600 in api.fetch."),
    ]
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert [r["tool_call_id"] for r in results] == ["toolu_Z1", "toolu_Z2", "toolu_Z3"]
    assert [r["is_error"] for r in results] == [0, 1, 0]
    assert [r["tool_call_id"] for r in recs if r["is_echo"]] == ["toolu_Z3", "toolu_Z3"]
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions[ZED_ID]["title"], sessions[ZED_ID]["project"], sessions[ZED_ID]["is_sidechain"]) == (
        "Cache forecast responses", "weather-cli", 0)
    assert (sessions[ZED_CHILD]["is_sidechain"], sessions[ZED_CHILD]["parent_session_id"]) == (1, ZED_ID)


def test_zed_rereads_only_threads_that_changed(backscroll_home):
    install_zed(backscroll_home.home, compress=False)
    db = _db(backscroll_home.home)
    first = zed.read_whole(db, {})
    assert {u.session.session_id for u in first.units} == {ZED_ID, ZED_CHILD}
    assert zed.read_whole(db, first.state).units == []
    thread = {"title": "Look for existing caching", "version": "0.3.0", "updated_at": "2026-10-06T09:06:00Z",
              "messages": [{"User": {"id": "u", "content": [{"Text": "And on disk?"}]}}]}
    conn = sqlite3.connect(db)
    kind, data = zed_blob(thread, compress=False)
    conn.execute("UPDATE threads SET data_type = ?, data = ?, updated_at = ? WHERE id = ?",
                 (kind, data, "2026-10-06T09:06:00+00:00", ZED_CHILD))
    conn.commit()
    conn.close()
    again = zed.read_whole(db, first.state)
    assert [u.session.session_id for u in again.units] == [ZED_CHILD]
    assert [r.text for r in again.units[0].records] == ["And on disk?"]


def test_zed_without_a_zstd_codec_skips_compressed_threads_with_the_reason(backscroll_home, monkeypatch):
    pytest.importorskip("zstandard")
    install_zed(backscroll_home.home, compress=True)
    monkeypatch.setattr(zed, "zstd_decompress", lambda data: None)
    out = zed.read_whole(_db(backscroll_home.home), {})
    assert all(u.records == [] and "pip install zstandard" in u.skipped[0][1] for u in out.units)
    assert out.state["threads"] == {}, "read again once a codec is installed"


def test_zed_older_segment_threads_are_skipped():
    old = json.dumps({"summary": "old", "messages": [{"id": 0, "role": "user", "segments": [{"type": "text"}]}]})
    assert "older Zed" in zed.decode_thread("json", old.encode())


def test_zed_missing_database_is_not_created(tmp_path):
    missing = tmp_path / "threads.db"
    with pytest.raises(OSError):
        zed.read_whole(missing, {})
    assert not missing.exists()


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=15),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(
                          st.sampled_from(["User", "Agent", "Text", "Thinking", "ToolUse", "text", "id", "name",
                                           "input", "content", "tool_results", "is_error", "command"]), c, max_size=4),
                      max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(thread=st.fixed_dictionaries({"messages": st.one_of(st.lists(st.one_of(values, st.just("Resume")), max_size=5),
                                                           values)}))
def test_zed_thread_reader_never_raises(thread):
    records, skipped = zed.thread_records(thread, SessionInfo("t", "zed"), [])
    for rec in records:
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")


def test_a_tool_results_content_as_a_list_is_read():
    """Zed writes ``LanguageModelToolResult.content`` as a list of parts since 2026 (``[{"Text": …}]``)."""
    assert zed._tool_text([{"Text": "test result: FAILED"}, {"Image": {}}, {"Text": ""}]) == (
        "test result: FAILED\n[image]")
    assert zed._tool_text({"Text": "older shape"}) == "older shape"


def test_a_message_keeps_the_time_of_the_save_that_first_held_it(backscroll_home):
    """Zed keeps no time per message: on a first read the thread's first message takes its creation and the rest its
    last save; a later save dates only the messages it added (they were restamped with every save)."""
    install_zed(backscroll_home.home, compress=False)
    db = _db(backscroll_home.home)
    first = zed.read_whole(db, {})
    unit = next(u for u in first.units if u.session.session_id == ZED_CHILD)
    before = {r.record_id: r.timestamp for r in unit.records}
    conn = sqlite3.connect(db)
    thread = json.loads(conn.execute("SELECT data FROM threads WHERE id = ?", (ZED_CHILD,)).fetchone()[0])
    thread["messages"].append({"User": {"id": "u2", "content": [{"Text": "And on disk?"}]}})
    kind, data = zed_blob(thread, compress=False)
    conn.execute("UPDATE threads SET data_type = ?, data = ?, updated_at = ? WHERE id = ?",
                 (kind, data, "2026-11-20T09:00:00+00:00", ZED_CHILD))
    conn.commit()
    conn.close()
    again = next(u for u in zed.read_whole(db, first.state).units if u.session.session_id == ZED_CHILD)
    times = {r.record_id: r.timestamp for r in again.records}
    assert {k: times[k] for k in before} == before, "what was there keeps its time"
    assert [t for k, t in times.items() if k not in before] == ["2026-11-20T09:00:00.000Z"]
    assert zed.first_seen([], 3, "2026-10-01T09:00:00Z", "2026-10-02T09:00:00Z") == [
        [1, "2026-10-01T09:00:00Z"], [3, "2026-10-02T09:00:00Z"]]


def test_a_compactions_summary_is_a_summary_and_a_providers_own_is_passed_over():
    thread = {"messages": [{"User": {"id": "u1", "content": [{"Text": "why is the build slow?"}]}},
                           {"Compaction": {"Summary": "The person asked why the build is slow; cache misses."}},
                           {"Compaction": {"ProviderNative": {"provider": "anthropic", "items": ["…"]}}}]}
    records, skipped = zed.thread_records(thread, SessionInfo("t", "zed"), [])
    assert [(r.role, r.content_type, r.text) for r in records] == [
        ("user", "text", "why is the build slow?"),
        ("assistant", "summary", "The person asked why the build is slow; cache misses.")]
    assert skipped == []
