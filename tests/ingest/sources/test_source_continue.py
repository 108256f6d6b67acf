"""Continue: ``~/.continue/sessions/<uuid>.json``, rewritten whole on every save, written by the editors and ``cn``."""

import json
import os
import re
import shutil
from pathlib import Path

from agent_homes import DATA, install_continue
from helpers import kinds, rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, continuedev, continuedev_history
from backscroll.types import SessionInfo

CLI_ID = "40eb8123-d044-4097-8f13-636ddf7577cb"
IDE_ID = "3b0f7f8e-6c1d-4a57-9a1e-2f4f1f0c9d11"
ECHO_ID = "0e5b4b51-0000-4000-8000-00000000e540"
OTHER_ID = "9a7b0000-0000-4000-8000-000000000001"
SAVES = DATA / "continue" / "saves"


def test_continue_is_registered_with_its_default_roots(backscroll_home, monkeypatch):
    assert AGENTS["continue"] is continuedev.AGENT
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "continue"]
    assert roots == [(backscroll_home.home / ".continue/sessions", "default"),
                     (backscroll_home.home / ".continue/cli-sessions", "default")]
    monkeypatch.setenv("CONTINUE_GLOBAL_DIR", str(backscroll_home.root / "global"))
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "continue"]
    # (the 2025 CLI kept its files in the home whatever the variable said)
    assert roots == [(backscroll_home.root / "global/sessions", "env $CONTINUE_GLOBAL_DIR"),
                     (backscroll_home.home / ".continue/cli-sessions", "default")]
    assert continuedev.claims(Path(f"/h/.continue/sessions/{CLI_ID}.json"))
    assert not continuedev.claims(Path("/h/.continue/sessions/sessions.json"))
    assert not continuedev.claims(Path("/h/.augment/sessions/notes.json")), "another program's sessions folder"
    assert not continuedev.claims(Path(f"/h/.continue/index/{CLI_ID}.json"))


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
    # (a prompt's id holds its text's hash: the editor keeps the id of a prompt edited and sent again)
    got = [(re.sub(r"\.[0-9a-f]{8}#", "#", r["record_id"].removeprefix(IDE_ID + ":")), r["role"], r["content_type"],
            r["tool_name"], r["is_error"]) for r in recs]
    assert got == [
        ("6f0e...-user-1#0", "user", "text", None, 0),
        ("a1...#r", "assistant", "reasoning", None, 0),
        ("b2...#0", "assistant", "text", None, 0),
        ("toolu_01A", "tool", "tool", "run_terminal_command", 0),
        ("toolu_01A.result", "tool", "tool", "run_terminal_command", 1),  # "Command failed with exit code 1"
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
    assert recs[3]["text"] == "go test ./..." and recs[4]["text"].endswith("Command failed with exit code 1")
    (session,) = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id = ?", (IDE_ID,))
    assert (session["title"], session["cwd"], session["project"]) == ("Failing retry test", "/home/alice/proj", "proj")


def test_a_file_of_the_2025_cli_is_read(backscroll_home, backscroll_index):
    install_continue(backscroll_home.home)
    backscroll_index()
    got = [(r["role"], r["author"], r["tool_name"], r["text"], r["timestamp"]) for r in rows(backscroll_home)
           if r["session_id"].startswith("continue-cli-ttys002-")]
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
    doc["sessionId"] = ECHO_ID
    state = doc["history"][1]["toolCallStates"][0]
    # (an empty parsedArgs, as the CLI writes for arguments it could not parse, leaves the arguments to be read)
    state["parsedArgs"], state["toolCall"]["function"]["arguments"] = {}, '{"command": "backscroll search secret"}'
    (sessions / f"{ECHO_ID}.json").write_text(json.dumps(doc))
    backscroll_index()
    echoes = [r["tool_name"] for r in rows(backscroll_home) if r["session_id"] == ECHO_ID and r["is_echo"]]
    assert echoes == ["Bash", "Bash"]


def test_unreadable_files_cost_only_themselves(backscroll_home, backscroll_index):
    sessions = install_continue(backscroll_home.home)
    (sessions / f"{ECHO_ID}.json").write_bytes(b"")  # caught mid-write
    shutil.copyfile(SAVES / "python-2023.json", sessions / f"{OTHER_ID}.json")
    out = backscroll_index()
    assert [Path(u).name for u, _ in out.report.unreadable] == [f"{ECHO_ID}.json"]
    assert {r["session_id"] for r in rows(backscroll_home)} >= {CLI_ID, IDE_ID}
    skipped = continuedev.read_whole(sessions / f"{OTHER_ID}.json", {}).units[0].skipped
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
    records, skipped = continuedev_history.history_records(history, SessionInfo("s", "continue"), [])
    for rec in records:
        assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")
    assert len({r.record_id for r in records}) == len(records)


def _item(role, content, **more):
    return {"message": {"role": role, "content": content, **more.pop("message", {})}, "contextItems": [], **more}


def _session(history):
    return {"sessionId": OTHER_ID, "title": "t", "workspaceDirectory": "vscode-remote://[fe80::1/home/u",
            "history": history}


def test_an_edited_prompt_keeps_what_it_first_said_and_dates_only_what_changed(tmp_path):
    """The editor keeps a prompt's id when it is edited and sent again; a history that shrinks keeps its times."""
    path = tmp_path / ".continue/sessions" / f"{OTHER_ID}.json"
    path.parent.mkdir(parents=True)
    first = [_item("user", "raise the timeout in client.go", message={"id": "U1"}),
             _item("assistant", "Raised it to 30 s.", message={"id": "A1"}),
             _item("user", "now the retries", message={"id": "U2"}), _item("assistant", "Three.", message={"id": "A2"})]
    path.write_text(json.dumps(_session(first)))
    os.utime(path, ns=(1_796_544_000_000_000_000,) * 2)
    one = continuedev.read_whole(path, {})
    assert one.units[0].session.cwd == "vscode-remote://[fe80::1/home/u"  # (not a URL Python can parse)
    edited = first[:2] + [_item("user", "actually: rename client.go", message={"id": "U2"})]
    path.write_text(json.dumps(_session(edited)))
    os.utime(path, ns=(1_796_547_600_000_000_000,) * 2)
    two = continuedev.read_whole(path, one.state)
    before = {r.record_id: (r.text, r.timestamp) for r in one.units[0].records}
    after = {r.record_id: (r.text, r.timestamp) for r in two.units[0].records}
    assert [after[k] for k in list(before)[:2]] == list(before.values())[:2], "the shared start keeps its times"
    (new,) = set(after) - set(before)
    assert after[new] == ("actually: rename client.go", "2026-12-06T09:00:00.000Z")
    assert new.startswith(f"{OTHER_ID}:U2.") and new not in before, "the first wording keeps its own record"


def test_a_question_answered_and_a_call_refused(tmp_path):
    ask = {"toolCallId": "c1", "status": "done", "parsedArgs": {"question": "Which database?"},
           "toolCall": {"id": "c1", "function": {"name": "AskQuestion", "arguments": ""}},
           "output": [{"content": 'User provided custom answer: "postgres, keep sqlite for tests"'}]}
    refused = {"toolCallId": "c2", "status": "canceled", "parsedArgs": {"command": "rm -rf build"},
               "toolCall": {"id": "c2", "function": {"name": "Bash", "arguments": ""}}}
    history = [_item("user", "set up the store"), _item("assistant", "", toolCallStates=[ask, refused])]
    records, _ = continuedev_history.history_records(history, SessionInfo("s", "continue"), [])
    assert [(r.record_id, r.role, r.author, r.text, r.is_error) for r in records[1:]] == [
        ("s:c1", "tool", None, "AskQuestion\nquestion: Which database?", False),
        ("s:c1.result", "tool", None, 'User provided custom answer: "postgres, keep sqlite for tests"', False),
        ("s:c1.answer", "user", "human", "Which database? → postgres, keep sqlite for tests", False),
        ("s:c2", "tool", None, "rm -rf build", False),
        ("s:c2.result", "tool", None, "canceled: the call did not run", True),
    ]


def test_a_person_saying_continue_is_the_person():
    """Only the CLI's own prompt after a compaction (the first prompt of a history that starts with the summary, and
    without an editor's id) is the harness's; a person's later "continue", or one an editor wrote, is theirs."""
    summary = _item("assistant", "we fixed it", conversationSummary="we fixed it")
    cli = [summary, _item("user", "continue"), _item("assistant", "Done."), _item("user", "continue")]
    records, _ = continuedev_history.history_records(cli, SessionInfo("s", "continue"), [])
    assert [r.author for r in records if r.role == "user"] == ["harness", "human"]
    editor = [summary, _item("user", "continue", message={"id": "U9"})]
    records, _ = continuedev_history.history_records(editor, SessionInfo("s", "continue"), [])
    assert [r.author for r in records if r.role == "user"] == ["human"]


def test_each_conversation_of_a_2025_cli_file_is_a_session(tmp_path):
    folder = tmp_path / "cli-sessions"
    folder.mkdir()
    path = folder / "continue-cli-ttys002.json"
    shutil.copyfile(DATA / "continue/cli-sessions" / path.name, path)
    one = continuedev.read_whole(path, {})
    doc = json.loads(path.read_text())
    doc["chatHistory"][1]["content"] = "what is in b.txt?"
    path.write_text(json.dumps(doc))
    two = continuedev.read_whole(path, one.state)
    (a,), (b,) = one.units, two.units
    assert a.key != b.key and a.session.session_id != b.session.session_id
