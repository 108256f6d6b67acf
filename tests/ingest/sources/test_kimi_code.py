"""Kimi Code (the TypeScript CLI after kimi-cli): sessions Kimi Code 2.1.0 wrote itself (tests/data/kimi-code-generated,
see its README). The counts were made from the files by reading them, not by running our reader."""


import json
import shutil
from collections import Counter

from helpers import TESTS, rows

import backscroll
from backscroll.ingest.sources import kimi_code
from backscroll.types import SessionInfo

GENERATED = TESTS / "data" / "kimi-code-generated" / "sessions"
TUI = "wd_work_92d5dfd13985/session_62d2f19d-df79-49ba-85a2-15b78d025179"
PRINTED = "wd_work_92d5dfd13985/session_853f69aa-c2d5-4f23-8b38-848728f5e1a4"
DELEGATED = "wd_work2_d385df090ab2/session_6650ced2-72e8-44cf-b8d7-b18e5d9d04a3"


def installed(backscroll_home, *sessions):
    root = backscroll_home.home / ".kimi-code" / "sessions"
    for s in sessions:
        shutil.copytree(GENERATED / s, root / s)
    return root


def counted(records) -> dict:
    return dict(Counter(r.content_type if r.content_type in ("reasoning", "summary") else
                        ("call" if r.is_call else "output") if r.role == "tool" else r.role for r in records))


def session_id(folder: str) -> str:
    return folder.split("/")[1]


def test_a_session_kimi_code_wrote_holds_what_its_log_holds(backscroll_home, backscroll_index):
    installed(backscroll_home, TUI)
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = backscroll.show(session_id(TUI), home=backscroll_home.data)
    # four prompts (the one /undo took back stays, as it stays in the log); four replies and four thoughts;
    # `ls` and `false` with their output (the second an error); the summary /compact wrote. The runtime's
    # <system-reminder> messages and the log's copies for people (`agent.*`) are not records.
    assert counted(got.records) == {"user": 4, "reasoning": 4, "assistant": 4, "call": 2, "output": 2, "summary": 1}
    assert got.session["title"] == "Demo session" and got.session["cwd"] == "/tmp/g/r/kimicode/work"
    assert [r.text for r in got.records if r.is_call] == ["ls", "false"]
    assert [r.is_error for r in got.records if r.role == "tool" and not r.is_call] == [False, True]
    first = got.records[0]
    assert (first.text, first.author, first.timestamp) == ("hello there", "human", "2026-12-05T20:51:21.268Z")


def test_a_subagent_is_a_session_linked_to_its_own_and_notifications_are_the_harnesss(backscroll_home,
                                                                                      backscroll_index):
    installed(backscroll_home, DELEGATED, PRINTED)
    backscroll_index(embed=False)
    lead = backscroll.show(session_id(DELEGATED), home=backscroll_home.data)
    sub = backscroll.show(f"{session_id(DELEGATED)}:agent-0", home=backscroll_home.data)
    assert sub.session["parent_session_id"] == session_id(DELEGATED) and sub.session["is_sidechain"]
    brief = sub.records[0]
    assert brief.text.startswith("SUBTASK: count the entries") and brief.author == "agent"
    assert [r.text for r in sub.records if r.is_call] == ["ls | wc -l"]
    notices = [r for r in lead.records if r.role == "user" and r.author == "harness"]
    assert len(notices) == 1 and notices[0].text.startswith('<notification id="task:bash-5s7rqoks:completed"')
    assert counted(lead.records) == {"user": 5, "assistant": 6, "reasoning": 1, "call": 2, "output": 2, "summary": 1}
    printed = backscroll.show(session_id(PRINTED), home=backscroll_home.data)
    assert printed.session["title"] == "hello there"  # (print mode writes none: the first prompt)


def test_kimi_code_searching_backscroll_leaves_an_echo(backscroll_home, backscroll_index):
    root = installed(backscroll_home, PRINTED)
    wire = root / PRINTED / "agents" / "main" / "wire.jsonl"
    call = {"type": "tool.call", "uuid": "u1", "turnId": "9", "step": 1, "toolCallId": "call_echo", "name": "Bash",
            "args": {"command": "backscroll search 'job queue decision'"}}
    result = {"type": "tool.result", "parentUuid": "u1", "toolCallId": "call_echo", "result": {"output": "[hits]"}}
    with wire.open("a") as fh:
        for event in (call, result):
            fh.write(json.dumps({"type": "context.append_loop_event", "agentId": "main", "event": event,
                                 "time": 1796504000000}) + "\n")
    backscroll_index(embed=False)
    echoes = rows(backscroll_home, "SELECT text FROM records WHERE is_echo = 1 ORDER BY id")
    assert [r["text"] for r in echoes] == ["backscroll search 'job queue decision'", "[hits]"]


def forked(root, source: str, *, source_there: bool) -> str:
    """A /fork of ``source``: its log copied up to a ``forked`` line, then a turn of its own."""
    fork = f"{source.split('/')[0]}/session_fork"
    (root / fork / "agents" / "main").mkdir(parents=True)
    state = json.loads((GENERATED / source / "state.json").read_text())
    (root / fork / "state.json").write_text(json.dumps({**state, "id": "session_fork",
                                                        "forkedFrom": session_id(source)}))
    own = [{"type": "forked", "agentId": "main", "time": 1796504000000},
           {"type": "context.append_message", "agentId": "main", "time": 1796504000001,
            "message": {"role": "user", "content": [{"type": "text", "text": "and now the fork"}],
                        "origin": {"kind": "user"}}}]
    copy = (GENERATED / source / "agents" / "main" / "wire.jsonl").read_text()
    (root / fork / "agents" / "main" / "wire.jsonl").write_text(copy + "".join(json.dumps(x) + "\n" for x in own))
    if not source_there:
        shutil.rmtree(root / source)
    return "session_fork"


def test_a_forks_copy_of_its_source_is_stored_once(backscroll_home, backscroll_index):
    root = installed(backscroll_home, PRINTED)
    fork = forked(root, PRINTED, source_there=True)
    backscroll_index(embed=False)
    got = backscroll.show(fork, home=backscroll_home.data)
    assert [r.text for r in got.records] == ["and now the fork"]
    assert got.session["parent_session_id"] == session_id(PRINTED)
    wire = root / PRINTED.split("/")[0] / fork / "agents" / "main" / "wire.jsonl"
    with wire.open("a") as fh:  # (read on from where it stopped: past the copy)
        fh.write(json.dumps({"type": "context.append_message", "agentId": "main", "time": 1796504000002,
                             "message": {"role": "user", "content": "one more", "origin": {"kind": "user"}}}) + "\n")
    backscroll_index(embed=False)
    assert [r.text for r in backscroll.show(fork, home=backscroll_home.data).records] == ["and now the fork",
                                                                                         "one more"]


def test_a_fork_whose_source_is_gone_keeps_its_copy(backscroll_home, backscroll_index):
    root = installed(backscroll_home, PRINTED)
    fork = forked(root, PRINTED, source_there=False)
    backscroll_index(embed=False)
    got = backscroll.show(fork, home=backscroll_home.data)
    assert [r.text for r in got.records if r.role == "user"] == [
        "hello there", "please list files in this directory", "and now the fork"]


def imported(backscroll_home, *, original_there: bool):
    """A session Kimi Code imported from kimi-cli (as its migration writes one): messages without times."""
    original = backscroll_home.home / ".kimi" / "sessions" / "bd81" / "0f1e"
    if original_there:
        original.mkdir(parents=True)
    folder = backscroll_home.home / ".kimi-code" / "sessions" / "wd_myproj_f1022b97b4d9" / "ses_0f1e"
    (folder / "agents" / "main").mkdir(parents=True)
    (folder / "state.json").write_text(json.dumps({
        "id": "ses_0f1e", "version": 2, "cwd": "/home/user/myproj", "agents": {"main": {"type": "main"}},
        "custom": {"imported_from_kimi_cli": True, "kimi_cli_source_path": str(original),
                   "kimi_cli_session_id": "0f1e"}}))
    lines = [{"type": "metadata", "protocol_version": "1.0", "created_at": 1780000000000},
             {"type": "turn.prompt", "agentId": "main", "input": [{"type": "text", "text": "list the files"}],
              "origin": {"kind": "user"}, "time": 1780000000000},
             {"type": "context.append_message", "message": {"role": "user", "content": "list the files"}},
             {"type": "context.append_message", "message": {
                 "role": "assistant", "content": [{"type": "think", "think": "Run ls."}],
                 "toolCalls": [{"type": "function", "id": "Shell:0",
                                "function": {"name": "Shell", "arguments": "{\"command\": \"ls\"}"}}]}},
             {"type": "context.append_message", "message": {"role": "tool", "content": "README.md\nsrc\n",
                                                            "toolCallId": "Shell:0"}},
             {"type": "context.append_message", "agentId": "main", "time": 1790000000000,
              "message": {"role": "user", "content": "resumed in Kimi Code", "origin": {"kind": "user"}}}]
    (folder / "agents" / "main" / "wire.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_a_session_imported_from_kimi_cli_is_stored_once(backscroll_home, backscroll_index):
    imported(backscroll_home, original_there=True)
    backscroll_index(embed=False)
    # kimi-cli's own files hold the imported part (its reader stores it): only what Kimi Code added is new
    got = backscroll.show("ses_0f1e", home=backscroll_home.data)
    assert [r.text for r in got.records] == ["resumed in Kimi Code"]
    assert got.session["parent_session_id"] == "0f1e"


def test_a_session_imported_from_kimi_cli_whose_files_are_gone_is_read_whole(backscroll_home, backscroll_index):
    imported(backscroll_home, original_there=False)
    backscroll_index(embed=False)
    got = backscroll.show("ses_0f1e", home=backscroll_home.data).records
    assert [(r.role, r.content_type, r.text) for r in got] == [
        ("user", "text", "list the files"), ("assistant", "reasoning", "Run ls."), ("tool", "tool", "ls"),
        ("tool", "tool", "README.md\nsrc"), ("user", "text", "resumed in Kimi Code")]
    assert got[0].timestamp == "2026-05-28T20:26:40.000Z"  # (dated by the last time before it: its turn's)
    calls = rows(backscroll_home, "SELECT tool_call_id FROM records WHERE role = 'tool' ORDER BY id")
    assert got[2].is_call and [r["tool_call_id"] for r in calls] == ["Shell:0", "Shell:0"]  # (the call and its output)


def test_an_agent_a_fork_started_after_it_and_a_fork_of_a_fork_keep_their_own(backscroll_home, backscroll_index):
    root = installed(backscroll_home, PRINTED)
    fork = forked(root, PRINTED, source_there=True)
    bucket = root / PRINTED.split("/")[0]
    helper = bucket / fork / "agents" / "agent-1" / "wire.jsonl"  # (no copy of anything: no ``forked`` line)
    helper.parent.mkdir(parents=True)
    brief = {"type": "context.append_message", "agentId": "agent-1", "time": 1796504000005,
             "message": {"role": "user", "content": "count the files", "id": "msg_brief_000001",
                         "origin": {"kind": "system_trigger", "name": "subagent"}}}
    helper.write_text(json.dumps(brief) + "\n")
    again = bucket / "session_fork2" / "agents" / "main"  # (a fork of the fork: its log holds both forked lines)
    again.mkdir(parents=True)
    (bucket / "session_fork2" / "state.json").write_text(json.dumps({"cwd": "/w", "forkedFrom": fork}))
    second = {"type": "context.append_message", "agentId": "main", "time": 1796504000009,
              "message": {"role": "user", "content": "and the second fork", "origin": {"kind": "user"}}}
    own = (bucket / fork / "agents" / "main" / "wire.jsonl").read_text()
    (again / "wire.jsonl").write_text(own + json.dumps({"type": "forked", "agentId": "main"}) + "\n" +
                                      json.dumps(second) + "\n")
    backscroll_index(embed=False)
    assert [r.text for r in backscroll.show(f"{fork}:agent-1", home=backscroll_home.data).records] == [
        "count the files"]
    assert [r.text for r in backscroll.show("session_fork2", home=backscroll_home.data).records] == [
        "and the second fork"]


def test_a_log_rewritten_with_its_lines_moved_stores_nothing_twice(backscroll_home, backscroll_index):
    """Kimi Code rewrites an older log when it opens it (a metadata line put in front): records keep their ids."""
    root = installed(backscroll_home, PRINTED)
    wire = root / PRINTED / "agents" / "main" / "wire.jsonl"
    lines = wire.read_text().splitlines(keepends=True)
    wire.write_text("".join(lines[1:]))  # (as an older build wrote it: no metadata line)
    backscroll_index(embed=False)
    before = rows(backscroll_home, "SELECT COUNT(*) AS n FROM records")[0]["n"]
    wire.write_text("".join(lines))
    backscroll_index(embed=False)
    assert rows(backscroll_home, "SELECT COUNT(*) AS n FROM records")[0]["n"] == before


def test_the_persons_shell_commands_are_calls_and_the_runtimes_prompts_are_the_harnesss():
    session = SessionInfo("s", "kimi", history_mode=kimi_code.READ)

    def said(message: dict) -> list[tuple]:
        line = {"type": "context.append_message", "agentId": "main", "time": 1796504000000, "message": message}
        return [(r.role, r.author, r.tool_name, r.command, r.text, r.is_error)
                for r in kimi_code.parse_line(line, 5, session).records]

    assert said({"role": "user", "content": "<bash-input>\nbackscroll search &quot;job queue&quot;\n</bash-input>",
                 "origin": {"kind": "shell_command", "phase": "input"}}) == [
        ("tool", None, "Bash", 'backscroll search "job queue"', 'backscroll search "job queue"', False)]
    assert said({"role": "user", "content": "<bash-stdout></bash-stdout><bash-stderr>no such file</bash-stderr>",
                 "origin": {"kind": "shell_command", "phase": "output", "isError": True}}) == [
        ("tool", None, None, None, "no such file", True)]
    for origin in ({"kind": "system_trigger", "name": "stop_hook"}, {"kind": "system_trigger",
                                                                     "name": "goal_continuation"},
                   {"kind": "task"}, {"kind": ["not", "a", "kind"]}):
        assert [a for _r, a, *_ in said({"role": "user", "content": "keep going", "origin": origin})] == ["harness"]
    assert [a for _r, a, *_ in said({"role": "user", "content": "fix it", "origin": {"kind": "user"}})] == [None]
    skill = said({"role": "user", "content": "# Review\nRead every changed file.\n\nARGUMENTS: the parser",
                  "origin": {"kind": "skill_activation", "trigger": "user-slash", "skillName": "review",
                             "skillArgs": "the parser"}})
    assert [(text, author) for _r, author, _t, _c, text, _e in skill] == [
        ("/review the parser", None), ("# Review\nRead every changed file.\n\nARGUMENTS: the parser", "harness")]
    failed = {"type": "turn.ended", "agentId": "main", "turnId": 3, "reason": "failed", "time": 1796504000000,
              "error": {"code": "provider_error", "message": "429 Too Many Requests"}}
    assert [(r.role, r.author, r.is_error, r.text) for r in kimi_code.parse_line(failed, 7, session).records] == [
        ("user", "harness", True, "429 Too Many Requests")]


def test_a_session_renamed_after_it_was_indexed_takes_its_new_title(backscroll_home, backscroll_index):
    root = installed(backscroll_home, TUI)
    backscroll_index(embed=False)
    state = json.loads((root / TUI / "state.json").read_text())
    (root / TUI / "state.json").write_text(json.dumps({**state, "title": "Renamed"}))
    with (root / TUI / "agents" / "main" / "wire.jsonl").open("a") as fh:
        fh.write(json.dumps({"type": "turn.ended", "agentId": "main", "turnId": 9, "reason": "completed",
                             "time": 1796504000000}) + "\n")
    backscroll_index(embed=False)
    assert backscroll.show(session_id(TUI), home=backscroll_home.data).session["title"] == "Renamed"


def test_the_work_dir_of_an_older_state_comes_from_the_log():
    session = SessionInfo("s", "kimi", history_mode=kimi_code.READ)
    parsed = kimi_code.parse_line({"type": "config.update", "cwd": "/tmp/work", "time": 1}, 2, session)
    assert parsed.session_updates == {"cwd": "/tmp/work"} and not parsed.records
    parsed = kimi_code.parse_line({"type": "a.new.kind", "time": 1}, 3, session)
    assert parsed.unknown == "a.new.kind"


def test_status_names_a_default_place_the_configured_roots_leave_out(backscroll_home, backscroll_index):
    """A ``[roots] kimi`` written for kimi-cli replaces Kimi Code's place too: status says what is not indexed."""
    installed(backscroll_home, PRINTED)
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    moved = backscroll_home.root / "kimi-sessions"
    moved.mkdir()
    (backscroll_home.data / "config.toml").write_text(f'[roots]\nkimi = "{moved}"\n')
    backscroll_index(embed=False)
    warnings = backscroll.status(home=backscroll_home.data).warnings
    code = backscroll_home.home / ".kimi-code" / "sessions"
    assert [w for w in warnings if w.startswith("kimi: ")] == [
        f"kimi: {code} holds sessions too, but [roots] kimi does not name it; they are not indexed"]


def test_kimi_code_home_moves_the_sessions(backscroll_home, monkeypatch):
    monkeypatch.setenv("KIMI_CODE_HOME", str(backscroll_home.root / "kc"))
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "kimi"]
    assert roots == [(backscroll_home.home / ".kimi" / "sessions", "default"),
                     (backscroll_home.root / "kc" / "sessions", "env $KIMI_CODE_HOME")]


def test_a_subagents_own_subagent_is_linked_to_it(tmp_path):
    folder = tmp_path / "sessions" / "wd_x_0123456789ab" / "session_n"
    (folder / "agents" / "agent-1").mkdir(parents=True)
    (folder / "state.json").write_text(json.dumps({"cwd": "/w", "agents": {
        "main": {"type": "main"}, "agent-0": {"type": "sub", "parentAgentId": "main"},
        "agent-1": {"type": "sub", "parentAgentId": "agent-0"}}}))
    nested = kimi_code.session_for(folder / "agents" / "agent-1" / "wire.jsonl")
    first = kimi_code.session_for(folder / "agents" / "agent-0" / "wire.jsonl")
    assert (nested.parent_session_id, first.parent_session_id) == ("session_n:agent-0", "session_n")
