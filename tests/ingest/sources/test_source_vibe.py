"""Mistral Vibe: Vibe 2's ``session_*/messages.jsonl`` and Vibe 3's unified store, in ``~/.vibe/logs/session``."""

import json
import shutil
from pathlib import Path

from agent_homes import DATA, install_vibe
from helpers import rows
from hypothesis import given, settings
from hypothesis import strategies as st

import backscroll
from backscroll.ingest.sources import AGENTS, vibe, vibe_unified
from backscroll.types import SessionInfo

V3 = "c5ccd4a5-3e7d-a6b6-8d26-3a136fa11c04"
V2 = "2f757d01-0872-"  # (the first characters: the id is meta.json's)


def _got(home, sid: str) -> list[tuple]:
    return [(r["role"], r["content_type"], r["author"], r["tool_name"], r["is_error"], r["text"][:24])
            for r in rows(home) if r["session_id"].startswith(sid)]


def test_vibe_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["vibe"] is vibe.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "vibe")
    assert (root.path, root.origin) == (backscroll_home.home / ".vibe/logs/session", "default")
    monkeypatch.setenv("VIBE_HOME", str(backscroll_home.root / "vh"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "vibe")
    assert (root.path, root.origin) == (backscroll_home.root / "vh/logs/session", "env $VIBE_HOME")
    (backscroll_home.root / "vh").mkdir()
    (backscroll_home.root / "vh/config.toml").write_text('[session_logging]\nsave_dir = "~/vibe-logs"\n')
    roots = [r.path for r in backscroll_home.config().roots if r.agent == "vibe"]
    assert roots == [backscroll_home.root / "vh/logs/session", backscroll_home.home / "vibe-logs"]
    monkeypatch.setenv("VIBE_SESSION_LOGGING__SAVE_DIR", str(backscroll_home.root / "saved"))
    roots = [r.path for r in backscroll_home.config().roots if r.agent == "vibe"]
    # (what was written before the variable was set stays where it was)
    assert roots == [backscroll_home.root / "vh/logs/session", backscroll_home.root / "saved"]
    logs = Path("/h/.vibe/logs")
    assert vibe.claims(logs / "session/session_20261206_075918_2f757d01/messages.jsonl")
    assert vibe.claims(logs / "session/session_20261206_075930_d300687c/agents/explore_20261206_075930_7a091322"
                       "/messages.jsonl")
    assert vibe.claims(logs / f"session/unified/{V3}/CURRENT")
    assert not vibe.claims(logs / "acp/messages.jsonl"), "the ACP wire log is no session"
    assert not vibe.claims(logs / f"session/unified/{V3}/journal/0000000000000001.jsonl")


def test_vibe_3_sessions(backscroll_home, backscroll_index):
    install_vibe(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    assert _got(backscroll_home, V3) == [
        ("user", "text", "human", None, 0, "List the files here and "),
        ("assistant", "reasoning", None, None, 0, "The user wants the direc"),
        ("assistant", "text", None, None, 0, "Let me look around."),
        ("tool", "tool", None, "file_system.bash", 0, "ls -la"),
        ("tool", "tool", None, "file_system.bash", 0, "total 16\ndrwxr-xr-x  3 r"),
        ("tool", "tool", None, "file_system.read_file", 0, "file_system.read_file\npa"),
        ("tool", "tool", None, "file_system.read_file", 0, "hello from the test file"),
        ("assistant", "text", None, None, 0, "The directory has hello."),
        ("user", "text", "human", None, 0, "Second prompt after resu"),
        ("assistant", "text", None, None, 0, "Resumed reply number 4."),
    ]
    first = rows(backscroll_home, "SELECT timestamp FROM records WHERE session_id = ? ORDER BY id LIMIT 1", (V3,))
    assert first[0]["timestamp"] == "2026-12-06T07:55:46.271Z"  # each entry's own time
    assert _got(backscroll_home, "a0e087f7")[2] == (
        "tool", "tool", None, "file_system.bash", 1, "Tool execution denied by")  # refused
    assert _got(backscroll_home, "c0f70b9c")[3] == (
        "tool", "tool", None, "file_system.bash", 1, "cancelled: client interr")  # interrupted
    assert ("user", "text", "human", None, 0, "Which colour? → blue") in _got(backscroll_home, "27baff87")
    child = _got(backscroll_home, "child-302bca0a")
    assert child[0] == ("user", "text", "agent", None, 0, "Run ls and report back.")
    (session,) = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id LIKE 'child-%'")
    assert (session["is_sidechain"], session["parent_session_id"], session["cwd"]) == (
        1, "15a2bc32-4842-9f8d-d845-584050ec241c", "/tmp/research/vibe/work")


def test_vibe_2_sessions(backscroll_home, backscroll_index):
    install_vibe(backscroll_home.home)
    backscroll_index()
    got = _got(backscroll_home, V2)
    assert got[:5] == [
        ("user", "text", "human", None, 0, "List the files here and "),
        ("assistant", "reasoning", None, None, 0, "The user wants the direc"),
        ("assistant", "text", None, None, 0, "Let me look around."),
        ("tool", "tool", None, "bash", 0, "ls -la"),
        ("tool", "tool", None, "bash", 0, "command: ls -la\nshell: \n"),
    ]
    assert got[-2:] == [("user", "text", "human", None, 0, "Second prompt after resu"),
                        ("assistant", "text", None, None, 0, "Resumed reply number 4.")]
    assert _got(backscroll_home, "c1890584")[-1] == ("tool", "tool", None, "bash", 1, "<user_cancellation>User ")
    assert ("user", "text", "human", None, 0, "Which colour? → green") in _got(backscroll_home, "79c72527")
    compacted = _got(backscroll_home, "e53bed61")
    assert ("assistant", "summary", None, None, 0, "You are continuing a tra") in compacted
    sessions = {s["session_id"][:8]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions["7a091322"]["is_sidechain"], sessions["7a091322"]["parent_session_id"][:8]) == (1, "d300687c")
    child = _got(backscroll_home, "7a091322")
    assert child[:2] == [("user", "text", "harness", None, 0, "Scratchpad directory: /t"),  # Vibe's notice
                         ("user", "text", "agent", None, 0, "Run ls and report back.")]  # the task its parent gave
    listed = backscroll.sessions(config=backscroll_home.config(), all=True, agent="vibe")
    assert next(x.title for x in listed if x.session_id.startswith("7a091322")) == "Run ls and report back."
    assert sessions["79c72527"]["title"] == "Listing files and reading hello"


def _store(name: str):
    (unit,) = vibe.read_whole(DATA / "vibe/session/unified" / name / "CURRENT", {}).units
    return unit


def test_what_a_vibe_3_store_holds_besides():
    imported = _store("2548133d-6aed-362c-7a4d-4464829a29b5")  # a Vibe 2 session resumed in Vibe 3: a copy
    assert [r.text for r in imported.records] == ["Continue the imported legacy session", "Resumed reply number 4."]
    large = _store("050cb9ff-787a-f6ee-375f-b5dcc7b6139a")  # a large output the store kept apart
    output = next(r for r in large.records if r.role == "tool" and r.tool_name is None)
    assert "\n2500\n" in output.text and "<system>" not in output.text
    (summary,) = [r for r in large.records if r.content_type == "summary"]  # (from the model's context)
    assert summary.text.startswith("Goal: count to 5000") and summary.timestamp == "2026-12-06T08:01:22.004Z"
    warned = _store("c7426b03-9b6b-18d7-3273-83b72762e097")  # the model was shown a directory's AGENTS.md instead
    assert [r.text for r in warned.records if r.role == "tool"][-1] == "bonjour"
    child = _store("child-302bca0a8784db22f1beb2c2")  # read before its parent: its work dir is its own
    assert (child.session.cwd, child.session.is_sidechain) == ("/tmp/research/vibe/work", True)


def test_a_skill_the_prompt_names_is_the_harness_and_a_subagent_prompts_are_its_parent():
    skill = {"type": "text", "text": "<skill_content name=\"review\">Read the diff line by line.</skill_content>"}
    entries = [{"type": "message", "id": "u1", "role": "user", "source": "turn_start",
                "content": [{"type": "text", "text": "/review the diff"}, skill]},
               {"type": "message", "id": "u2", "role": "user", "source": "turn_steer",
                "content": [{"type": "text", "text": "now also hello.txt"}]}]
    records, _ = vibe_unified.entry_records(entries, SessionInfo("s", "vibe"))
    assert [(r.author, r.text[:16]) for r in records] == [
        ("human", "/review the diff"), ("harness", "<skill_content n"), ("human", "now also hello.t")]
    records, _ = vibe_unified.entry_records(entries, SessionInfo("child-1", "vibe", is_sidechain=True))
    assert [r.author for r in records] == ["agent", "harness", "agent"]
    lines = [(1, {"role": "user", "content": "list the files"}), (2, {"role": "user", "content": "and hello.txt"})]
    records = vibe.line_records(lines, SessionInfo("c", "vibe", parent_session_id="p", is_sidechain=True), [])
    assert [r.author for r in records] == ["agent", "agent"]


def test_a_turn_cut_off_by_a_crash_is_read_from_the_journal(tmp_path):
    """During a turn only the journal changes: what the crashed turn did is there and nowhere else."""
    store = DATA / "vibe/crashed/unified/e9178b67-0a9f-a1f9-89e4-ab2f5a2c5dab"
    (unit,) = vibe.read_whole(store / "CURRENT", {}).units
    assert [(r.role, r.tool_name, r.text) for r in unit.records] == [
        ("user", None, "Run the long command then crash"), ("assistant", None, "Running a long command."),
        ("tool", "file_system.bash", "sleep 20; echo done")]
    copy = tmp_path / "unified" / store.name
    shutil.copytree(store, copy)
    before = vibe.AGENT.stat(copy / "CURRENT")
    with open(next((copy / "journal").iterdir()), "a") as journal:
        journal.write(json.dumps({"type": "projection_delta", "payload": {"delta": [
            {"op": "remove_entry", "id": unit.records[1].record_id.split(":", 1)[1].rsplit("#", 1)[0]}]}}) + "\n")
        journal.write('{"type": "projection_delta", "payload"')  # a torn last write
    assert vibe.AGENT.stat(copy / "CURRENT") != before, "a journal that grew is a change"
    (again,) = vibe.read_whole(copy / "CURRENT", {}).units
    assert [r.text for r in again.records] == ["Run the long command then crash", "sleep 20; echo done"]


def test_a_store_of_a_format_not_known_is_reported(tmp_path):
    store = tmp_path / "unified" / "s1"
    store.mkdir(parents=True)
    import pytest

    from backscroll.ingest.sources import ContentError

    for current in ({"store_format": "mistral.vibe.unified-session-store/v2"},
                    {"store_format": vibe_unified.FORMAT, "store_format_minor": vibe_unified.NEWEST_MINOR + 1}):
        (store / "CURRENT").write_text(json.dumps(current))
        with pytest.raises(ContentError, match="minor"):
            vibe.read_whole(store / "CURRENT", {})


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(
                          st.sampled_from(["type", "role", "content", "text", "id", "detail", "state", "toolName",
                                           "input", "output", "outputText", "status", "error", "message",
                                           "structured_content", "answers", "_meta", "createdAt"]), c, max_size=4),
                      max_leaves=25)


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(values, max_size=5), lines=st.lists(st.dictionaries(st.sampled_from(
    ["role", "content", "tool_calls", "tool_call_id", "name", "tool_result", "injected", "manual_shell",
     "message_id", "reasoning_content", "context_boundary"]), values, max_size=5), max_size=5))
def test_the_readers_never_raise(entries, lines):
    info = SessionInfo("s", "vibe")
    records, _unknown = vibe_unified.entry_records(entries, info)
    records += vibe.line_records(list(enumerate(lines, 1)), info, [])
    assert all(r.text and r.role in ("user", "assistant", "tool") for r in records)


def test_a_compaction_of_vibe_before_2_10_began_its_new_folder_with_the_summary():
    info = SessionInfo("s2", "vibe", parent_session_id="s1")  # (the folder a compaction started)
    lines = [(1, {"role": "user", "content": "Summary: we cached the forecast."}),
             (2, {"role": "user", "content": "go on"})]
    records = vibe.line_records(lines, info, [])
    assert [(r.role, r.content_type, r.author) for r in records] == [
        ("assistant", "summary", None), ("user", "text", "human")]
