"""Continue: ``~/.continue/sessions/<uuid>.json``, rewritten whole on every save, written by the editors and ``cn``."""

import json
import os
import shutil
from pathlib import Path

from agent_homes import DATA, install_continue
from helpers import kinds, rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, continuedev
from backscroll.types import SessionInfo

CLI_ID = "40eb8123-d044-4097-8f13-636ddf7577cb"
IDE_ID = "3b0f7f8e-6c1d-4a57-9a1e-2f4f1f0c9d11"
SAVES = DATA / "continue" / "saves"


def test_continue_is_registered_with_its_default_roots(backscroll_home, monkeypatch):
    assert AGENTS["continue"] is continuedev.AGENT
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "continue"]
    assert roots == [(backscroll_home.home / ".continue/sessions", "default"),
                     (backscroll_home.home / ".continue/cli-sessions", "default")]
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(backscroll_home.root / "global"))
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "continue"]
    assert roots[0] == (backscroll_home.root / "global/sessions", "env $CONTINUE_GLOBAL_DIR")
    assert continuedev.claims(Path("/h/.continue/sessions/x.json"))
    assert not continuedev.claims(Path("/h/.continue/sessions/sessions.json"))
    assert not continuedev.claims(Path("/h/.continue/index/x.json"))


def test_a_cli_session_of_every_kind(backscroll_home, backscroll_index):
    install_continue(backscroll_home.home)
    out = backscroll_index()
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = [(r["role"], r["content_type"], r["author"], r["tool_name"], r["text"][:40])
           for r in rows(backscroll_home) if r["session_id"] == CLI_ID]
    assert got[:6] == [
        ("user", "text", "human", None, "Run a shell command, then read notes.txt"),
        ("tool", "tool", None, "Bash", "echo hello-from-bash && uname -s"),
        ("tool", "tool", None, "Bash", "hello-from-bash\nLinux"),
        ("tool", "tool", None, "Read", "Read\nfilepath: notes.txt"),
        ("tool", "tool", None, "Read", "Content of notes.txt:\nThe secret word is"),
        ("assistant", "text", None, None, "I ran a shell command and read notes.txt"),
    ]
    assert got[6] == ("user", "text", "human", None, "Do it again please.")
    assert len(got) == 12
    (session,) = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id = ?", (CLI_ID,))
    # "Untitled Session" is no title; the session starts when sessions.json says it was created
    assert session["title"] != "Untitled Session" and session["cwd"] == "/tmp/research/continue/ws"
    assert session["started_at"] == "2026-12-06T07:53:19.198Z"


def test_an_editor_session(backscroll_home, backscroll_index):
    install_continue(backscroll_home.home)
    backscroll_index()
    recs = [r for r in rows(backscroll_home) if r["session_id"] == IDE_ID]
    got = [(r["record_id"].removeprefix(IDE_ID + ":"), r["role"], r["content_type"], r["tool_name"], r["is_error"])
           for r in recs]
    assert got == [
        ("6f0e...-user-1#0", "user", "text", None, 0),
        ("a1...#r", "assistant", "reasoning", None, 0),
        ("b2...#0", "assistant", "text", None, 0),
        ("toolu_01A", "tool", "tool", "run_terminal_command", 0),
        ("toolu_01A.result", "tool", "tool", "run_terminal_command", 0),
        ("d4...#r", "assistant", "reasoning", None, 0),
        ("toolu_01B", "tool", "tool", "read_file", 0),
        ("toolu_01B.result", "tool", "tool", "read_file", 0),
        ("toolu_01C", "tool", "tool", "run_terminal_command", 0),
        ("toolu_01C.result", "tool", "tool", "run_terminal_command", 1),  # rejected
        ("g7...#0", "assistant", "text", None, 0),
        ("g7...#s", "assistant", "summary", None, 0),
    ]
    user = recs[0]["text"]
    assert user.startswith("why does retry.go fail") and "Active file" not in user  # attached files are not words
    assert recs[3]["text"] == "go test ./..."
    (session,) = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id = ?", (IDE_ID,))
    assert (session["title"], session["cwd"], session["project"]) == ("Failing retry test", "/home/alice/proj", "proj")


def test_a_file_of_the_2025_cli_is_read(backscroll_home, backscroll_index):
    install_continue(backscroll_home.home)
    backscroll_index()
    got = [(r["role"], r["author"], r["tool_name"], r["text"], r["timestamp"]) for r in rows(backscroll_home)
           if r["session_id"] == "continue-cli-ttys002"]
    at = "2025-08-01T10:00:00.000Z"
    assert got == [("user", "human", None, "list files", at), ("tool", None, "Bash", "ls", at),
                   ("tool", None, "Bash", "a.txt\nb.txt", at), ("assistant", None, None, "Two files.", at)]


def test_a_compaction_keeps_what_it_replaced_and_its_continue_is_the_harness(backscroll_home, backscroll_index):
    sessions = install_continue(backscroll_home.home)
    backscroll_index()
    before = [r for r in rows(backscroll_home) if r["session_id"] == CLI_ID]
    shutil.copyfile(SAVES / "compacted.json", sessions / f"{CLI_ID}.json")
    backscroll_index()
    after = [r for r in rows(backscroll_home) if r["session_id"] == CLI_ID]
    assert {r["text"] for r in before} < {r["text"] for r in after}, "what the compaction dropped stays stored"
    assert "Do it again please." in [r["text"] for r in after]
    said = {r["text"] for r in before}
    new = [(r["content_type"], r["author"], r["text"][:8]) for r in after if r["text"] not in said]
    assert new == [("summary", None, "SUMMARY:"), ("text", "harness", "continue")]


def test_items_are_dated_by_the_save_that_first_held_them(tmp_path):
    folder = tmp_path / ".continue" / "sessions"
    folder.mkdir(parents=True)
    shutil.copyfile(DATA / "continue/sessions/sessions.json", folder / "sessions.json")
    path = folder / f"{CLI_ID}.json"
    shutil.copyfile(SAVES / "first.json", path)
    os.utime(path, ns=(1_796_544_000_000_000_000,) * 2)
    first = continuedev.read_whole(path, {})
    dates = [r.timestamp for r in first.units[0].records]
    assert dates[0] == "2026-12-06T07:53:19.198Z" and set(dates[1:]) == {"2026-12-06T08:00:00.000Z"}
    shutil.copyfile(DATA / "continue/sessions" / path.name, path)  # the session resumed
    os.utime(path, ns=(1_796_547_600_000_000_000,) * 2)
    again = continuedev.read_whole(path, first.state)
    dated = {r.record_id: r.timestamp for r in again.units[0].records}
    assert [dated[r.record_id] for r in first.units[0].records] == dates
    assert {t for k, t in dated.items() if k not in {r.record_id for r in first.units[0].records}} == {
        "2026-12-06T09:00:00.000Z"}


def test_failed_calls_and_think_tags(tmp_path):
    errored = continuedev.read_whole(SAVES / "errored.json", {}).units[0].records
    assert [(r.text[:22], r.is_error) for r in errored if r.role == "tool" and r.command is None][-1] == (
        "Error executing tool R", True)
    assert kinds(errored)["call"] == 2
    think = continuedev.read_whole(SAVES / "think.json", {}).units[0].records
    assert [(r.content_type, r.text[:18]) for r in think if r.role == "assistant"] == [
        ("reasoning", "inline think-tag r"), ("text", "I ran a shell comm")]


def test_a_bash_call_that_searched_backscroll_is_an_echo(backscroll_home, backscroll_index):
    sessions = install_continue(backscroll_home.home)
    doc = json.loads((SAVES / "first.json").read_text())
    doc["sessionId"] = "echo-session"
    state = doc["history"][1]["toolCallStates"][0]
    state["parsedArgs"] = {"command": "backscroll search 'secret word'"}
    (sessions / "echo-session.json").write_text(json.dumps(doc))
    backscroll_index()
    echoes = [r["tool_name"] for r in rows(backscroll_home) if r["session_id"] == "echo-session" and r["is_echo"]]
    assert echoes == ["Bash", "Bash"]


def test_unreadable_files_cost_only_themselves(backscroll_home, backscroll_index):
    sessions = install_continue(backscroll_home.home)
    (sessions / "caught-mid-write.json").write_bytes(b"")
    shutil.copyfile(SAVES / "python-2023.json", sessions / "9a7b.json")
    out = backscroll_index()
    assert [Path(u).name for u, _ in out.report.unreadable] == ["caught-mid-write.json"]
    assert {r["session_id"] for r in rows(backscroll_home)} >= {CLI_ID, IDE_ID}
    skipped = continuedev.read_whole(sessions / "9a7b.json", {}).units[0].skipped
    assert skipped == [(0, "a session of Continue's 2023 Python server")]


values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(
                          st.sampled_from(["message", "role", "content", "text", "type", "id", "toolCalls",
                                           "toolCallStates", "toolCallState", "toolCallId", "toolCall", "function",
                                           "name", "arguments", "parsedArgs", "output", "status", "reasoning",
                                           "conversationSummary", "tool_calls", "tool_call_id"]), c, max_size=4),
                      max_leaves=25)
roles = st.sampled_from(["user", "assistant", "thinking", "tool", "system", "other"])


@settings(max_examples=300, deadline=None)
@given(history=st.lists(st.one_of(values, st.builds(lambda role, rest: {"message": {"role": role, **rest}},
                                                                   roles, st.dictionaries(st.sampled_from(
                                                                       ["content", "toolCalls", "id"]), values))),
                        max_size=5))
def test_the_history_reader_never_raises(history):
    records, skipped = continuedev.history_records(history, SessionInfo("s", "continue"), [])
    for rec in records:
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")
    assert len({r.record_id for r in records}) == len(records)
