"""Cline's own sessions (4.0 on: the extension 4.x and the CLI 3.x): sessions the CLI wrote itself
(tests/data/cline-sdk-generated, see its README) and Cline's own fixture of a real fork (tests/data/real/cline/
sdk-fork, see ORIGIN.md). The counts were made from the files by reading them, not by running our reader."""


import json
import shutil
from collections import Counter

from helpers import REAL, TESTS, rows

import backscroll
from backscroll.ingest.sources import cline_sessions

GENERATED = TESTS / "data" / "cline-sdk-generated" / "sessions"
FORK = REAL / "cline" / "sdk-fork" / "1784094124598_rruoq"


def installed(backscroll_home, *folders, into=".cline/data/sessions"):
    sessions = backscroll_home.home / into
    for folder in folders:
        shutil.copytree(folder, sessions / folder.name)
    return sessions


def counted(records) -> dict:
    return dict(Counter(r.content_type if r.content_type in ("reasoning", "summary") else
                        ("call" if r.is_call else "output") if r.role == "tool" else r.role for r in records))


def test_a_session_the_cli_wrote_holds_its_prompts_replies_calls_and_compaction(backscroll_home, backscroll_index):
    installed(backscroll_home, GENERATED / "1796503563019_ekt3g")
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = backscroll.show("1796503563019_ekt3g", home=backscroll_home.data)
    # two prompts, four replies and four thoughts, two `run_commands` calls with their output, the summary
    # `/compact` left in the sidecar
    assert counted(got.records) == {"user": 2, "assistant": 4, "reasoning": 4, "call": 2, "output": 2, "summary": 1}
    assert got.session["cwd"] == "/tmp/g/r/cline4/work" and got.session["title"] == "Please list the files here"
    prompts = [r.text for r in got.records if r.role == "user"]
    assert prompts == ["Please list the files here", "Now run a failing command"]  # (out of <user_input>)
    calls = [r.text for r in got.records if r.is_call]
    assert calls == ["ls", "ls /nonexistent_dir_zz"]
    outputs = [r for r in got.records if r.role == "tool" and not r.is_call]
    assert [r.is_error for r in outputs] == [False, True]  # (the second exited 2: `success: false`)
    assert outputs[0].text == "README.md\nmain.py"
    first = got.records[0]
    assert first.timestamp == "2026-12-05T20:46:03.254Z" and first.author == "human"


def test_a_subagent_is_a_session_of_its_own_linked_to_the_one_that_spawned_it(backscroll_home, backscroll_index):
    installed(backscroll_home, GENERATED / "1796503575811_yd4y0")
    backscroll_index(embed=False)
    lead = backscroll.show("1796503575811_yd4y0", home=backscroll_home.data)
    sub = backscroll.show("1796503575811_yd4y0__agent_1796503576102_v24cub", home=backscroll_home.data)
    spawn = [r for r in lead.records if r.is_call]
    assert len(spawn) == 1 and "task: Say hi from the subagent" in spawn[0].text
    assert sub.session["parent_session_id"] == "1796503575811_yd4y0" and sub.session["is_sidechain"]
    assert sub.session["cwd"] == "/tmp/g/r/cline4/work"  # (from the lead's manifest: a subagent has none)
    brief = sub.records[0]
    assert brief.text == "Say hi from the subagent" and brief.author == "agent"  # (the lead agent's words)
    assert counted(sub.records) == {"user": 1, "reasoning": 1, "assistant": 1}


def test_errors_the_person_saw_are_the_harnesss_and_a_rejected_call_is_an_error(backscroll_home, backscroll_index):
    installed(backscroll_home, GENERATED / "1796503706010_ctr2m", GENERATED / "1796503593049_hxwkl")
    backscroll_index(embed=False)
    failed = backscroll.show("1796503706010_ctr2m", home=backscroll_home.data).records
    assert [(r.role, r.author, r.is_error) for r in failed] == [("user", "human", False), ("user", "harness", True)]
    assert failed[1].text.startswith("Anthropic API key is missing")
    rejected = backscroll.show("1796503593049_hxwkl", home=backscroll_home.data).records
    output = [r for r in rejected if r.role == "tool" and not r.is_call]
    assert len(output) == 1 and output[0].is_error and output[0].text.startswith("Tool call no_such_tool was rejected")


def test_every_session_the_cli_wrote_is_read_and_found(backscroll_home, backscroll_index):
    installed(backscroll_home, *sorted(p for p in GENERATED.iterdir() if p.is_dir()))
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = {r["session_id"] for r in rows(backscroll_home, "SELECT session_id FROM sessions WHERE agent = 'cline'")}
    assert len(got) == 7  # six sessions and a subagent's
    hits = backscroll.search("interactively", home=backscroll_home.data, mode="lexical", weak=True)
    assert {h.session_id for h in [*hits.results, *hits.weak_matches]} == {"1796503676136_pra2i"}


def test_a_fork_whose_parent_is_gone_keeps_its_copy_of_it(backscroll_home, backscroll_index):
    installed(backscroll_home, FORK)
    backscroll_index(embed=False)
    fork = backscroll.show("1784094124598_rruoq", home=backscroll_home.data)
    assert fork.session["parent_session_id"] == "1784094053271_p8pzo" and not fork.session["is_sidechain"]
    # the copy is all there is of the parent, and it is kept: 5 prompts and the @-mentioned file (a placeholder,
    # never its text), 14 replies, 11 calls and their results
    assert counted(fork.records) == {"user": 6, "assistant": 14, "call": 11, "output": 11}
    attached = [r.text for r in fork.records if r.text.startswith("[file: ")]
    assert attached == ["[file: /Users/example/dev/cline/apps/examples/desktop-app/webview/components/"
                        "agent-sidebar.tsx]"]


def test_a_forks_copy_of_its_parent_is_stored_once(backscroll_home, backscroll_index):
    """With the parent beside it, what the fork copied (every message before ``forkedAt``) is the parent's alone."""
    sessions = installed(backscroll_home, FORK)
    messages = json.loads((FORK / "1784094124598_rruoq.messages.json").read_text())
    parent = sessions / "1784094053271_p8pzo"
    parent.mkdir()
    (parent / "1784094053271_p8pzo.messages.json").write_text(json.dumps({**messages, "sessionId": parent.name}))
    typed = {"type": "text", "text": '<user_input mode="act">now the icons</user_input>'}
    messages["messages"].append({"id": "own", "role": "user", "ts": 1784094200000, "content": [typed]})
    (sessions / FORK.name / "1784094124598_rruoq.messages.json").write_text(json.dumps(messages))
    backscroll_index(embed=False)
    fork = backscroll.show("1784094124598_rruoq", home=backscroll_home.data)
    assert [r.text for r in fork.records] == ["now the icons"]
    assert counted(backscroll.show(parent.name, home=backscroll_home.data).records)["call"] == 11


def test_a_session_searching_backscroll_leaves_an_echo(backscroll_home, backscroll_index):
    folder = backscroll_home.home / ".cline/data/sessions/1796600000000_abcde"
    folder.mkdir(parents=True)
    call = {"type": "tool_use", "id": "c1", "name": "run_commands",
            "input": {"commands": ["backscroll search 'job queue decision' --json"]}}
    result = {"type": "tool_result", "tool_use_id": "c1", "name": "run_commands",
              "content": [{"query": "backscroll search 'job queue decision' --json", "result": "[hits]",
                           "success": True}]}
    mcp = {"type": "tool_use", "id": "c2", "name": "backscroll__search", "input": {"query": "job queue"}}
    messages = [{"id": "u", "role": "user", "ts": 1796600000001, "content": "what did we decide about the job queue?"},
                {"id": "a", "role": "assistant", "ts": 1796600000002, "content": [call, mcp]},
                {"id": "r", "role": "user", "ts": 1796600000003, "content": [result]}]
    session = {"version": 1, "agent": "lead", "messages": messages}
    (folder / f"{folder.name}.messages.json").write_text(json.dumps(session))
    backscroll_index(embed=False)
    got = rows(backscroll_home, "SELECT tool_name, is_call, is_echo FROM records WHERE role = 'tool' ORDER BY id")
    assert [(r["tool_name"], r["is_call"], r["is_echo"]) for r in got] == [
        ("run_commands", 1, 1), ("backscroll__search", 1, 1), ("run_commands", 0, 1)]


def test_what_the_person_typed_comes_out_of_clines_wrappers():
    text = cline_sessions.prompt_text
    assert text('<user_input mode="plan">fix the <b>parser</b></user_input>') == "fix the <b>parser</b>"
    assert text('<mode_notice>The user switched from plan mode to act mode before sending this message.</mode_notice>'
                '<user_input mode="act">go ahead</user_input>') == "go ahead"
    assert text('<user_command slash="team">spawn a team</user_command>') == "/team spawn a team"
    assert text('<user_input mode="act">see this</user_input>\n<file_content path="/a/b.py">\nsecret = 1\n'
                '</file_content>') == "see this\n[file: /a/b.py]"


def test_the_runtimes_own_prompts_are_the_harnesss():
    from backscroll.types import SessionInfo

    messages = [{"role": "user", "content": "[TASK RESUMPTION] This task was interrupted 2 minutes ago."},
                {"role": "user", "content": "hook context", "metadata": {"displayRole": "system"}},
                {"role": "user", "content": "you stopped early", "metadata": {"kind": "completion_reminder"}},
                {"role": "user", "content": "Context summary:\n\nwe fixed it",
                 "metadata": {"kind": "compaction_summary", "summary": "we fixed it"}},
                {"role": "user", "content": [{"type": "redacted_thinking", "data": "opaque"},
                                             {"type": "text", "text": "hi"}]}]
    records, title = cline_sessions.message_records(messages, SessionInfo("s", "cline"), None)
    assert [(r.content_type, r.author, r.text) for r in records] == [
        ("text", "harness", "[TASK RESUMPTION] This task was interrupted 2 minutes ago."),
        ("text", "harness", "hook context"), ("text", "harness", "you stopped early"),
        ("summary", None, "we fixed it"), ("text", None, "hi")]
    assert title == "hi"


def test_the_persons_answer_to_ask_question_is_their_words():
    """The harness resolves ``ask_question`` with what the person answered (the SDK persists the string as its
    result): stored beside the question as their text; an empty answer (the session torn down) or a failed call is
    not, and neither is another call's output under an id used again."""
    from backscroll.types import SessionInfo

    def ask(call, question):
        return {"role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "ask_question",
                                                  "input": {"question": question, "options": ["SQLite", "Postgres"]}}]}

    def answer(call, content, **extra):
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "name": "ask_question",
                                             "content": content, **extra}]}

    messages = [ask("q1", "Which database should we use?"), answer("q1", "SQLite, one file is enough"),
                ask("q2", "Deploy now?"), answer("q2", ""),
                ask("q3", "Which region?"), answer("q3", '{"error":"aborted"}', is_error=True),
                answer("other", "a tool's output"),
                # a provider that uses an id again: the second call's output is not an answer to the first question
                ask("call_0", "Deploy?"), answer("call_0", "yes, deploy"),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "call_0", "name": "read_files",
                                                   "input": {"paths": ["notes.md"]}}]},
                answer("call_0", "the file's text")]
    records, _ = cline_sessions.message_records(messages, SessionInfo("s", "cline"), None)
    assert [(r.role, r.author, r.text) for r in records if r.role == "user"] == [
        ("user", "human", "Which database should we use? → SQLite, one file is enough"),
        ("user", "human", "Deploy? → yes, deploy")]
    assert [r.text for r in records if r.role == "tool" and r.tool_name is None] == [
        "aborted", "a tool's output", "the file's text"]
    # without a terminal the CLI picks the first option itself: the harness's answer
    records, _ = cline_sessions.message_records(messages[:2], SessionInfo("s", "cline"), None, answered_by="harness")
    assert [(r.role, r.author) for r in records if r.role == "user"] == [("user", "harness")]


def test_a_file_caught_mid_write_is_read_when_it_is_whole(backscroll_home, backscroll_index):
    sessions = installed(backscroll_home, GENERATED / "1796503676136_pra2i")
    path = sessions / "1796503676136_pra2i" / "1796503676136_pra2i.messages.json"
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    out = backscroll_index(embed=False)
    assert rows(backscroll_home, "SELECT COUNT(*) AS n FROM records")[0]["n"] == 0
    assert [why for _path, why in out.report.unreadable] == [
        "1796503676136_pra2i.messages.json: not a complete JSON document (being rewritten?): unexpected end of data: "
        "line 50 column 1595 (char 2737)"]
    path.write_bytes(whole)
    backscroll_index(embed=False)
    assert len(backscroll.show("1796503676136_pra2i", home=backscroll_home.data).records) == 3


def test_a_manifest_caught_mid_write_is_read_again_and_a_string_cut_mid_emoji_is_read(backscroll_home,
                                                                                        backscroll_index):
    sessions = installed(backscroll_home, FORK)
    folder = sessions / FORK.name
    manifest = (folder / f"{FORK.name}.json").read_text()
    (folder / f"{FORK.name}.json").write_text(manifest[:200])  # (Cline rewrites it in place)
    out = backscroll_index(embed=False)
    assert [p for p, _why in out.report.unreadable] == [str(folder / f"{FORK.name}.messages.json")]
    assert rows(backscroll_home, "SELECT COUNT(*) AS n FROM records")[0]["n"] == 0
    # Node cuts strings by UTF-16 units: a title cut mid-emoji is a lone surrogate escape, which JSON parsers refuse
    (folder / f"{FORK.name}.json").write_text(manifest.replace('"title": "can you', '"title": "\\ud83d can you'))
    messages = (folder / f"{FORK.name}.messages.json").read_text()
    (folder / f"{FORK.name}.messages.json").write_text(messages.replace("Sessions text button", "Sessions \\ud83d"))
    out = backscroll_index(embed=False)
    assert not out.report.unreadable
    fork = backscroll.show(FORK.name, home=backscroll_home.data)
    assert fork.session["parent_session_id"] == "1784094053271_p8pzo" and fork.session["title"].startswith("\ufffd can")
    assert fork.records[0].text.endswith("Sessions \ufffd")


def test_a_copy_is_stored_once_whichever_is_read_and_whether_its_source_stays(backscroll_home, backscroll_index):
    """A fork or a restored checkpoint copies its source's messages, ids and all: they are one record each."""
    sessions = installed(backscroll_home, GENERATED / "1796503563019_ekt3g")
    source = sessions / "1796503563019_ekt3g"
    data = json.loads((source / "1796503563019_ekt3g.messages.json").read_text())
    restored = sessions / "1796503900000_rstrd"
    restored.mkdir()
    typed = {"type": "text", "text": '<user_input mode="act">Now run a passing command</user_input>'}
    copy = {**data, "sessionId": restored.name, "messages": data["messages"][:4] + [
        {"id": "new-1", "role": "user", "ts": 1796503900100, "content": [typed]}]}
    (restored / f"{restored.name}.messages.json").write_text(json.dumps(copy))
    backscroll_index(embed=False)
    assert [r.text for r in backscroll.show(restored.name, home=backscroll_home.data).records] == [
        "Now run a passing command"]
    shutil.rmtree(source)  # (the source goes; the copy grows: still stored once)
    copy["messages"].append({"id": "new-2", "role": "assistant", "ts": 1796503900200, "content": "Done."})
    (restored / f"{restored.name}.messages.json").write_text(json.dumps(copy))
    backscroll_index(embed=False)
    calls = rows(backscroll_home, "SELECT text, COUNT(*) AS n FROM records WHERE is_call = 1 GROUP BY text")
    assert [(r["text"], r["n"]) for r in calls] == [("ls", 1), ("ls /nonexistent_dir_zz", 1)]


def test_a_classic_task_resumed_in_cline_4_is_not_stored_twice(backscroll_home, backscroll_index):
    """The extension 4.x resumes a classic task as a session of the same id, its history converted in front of a
    warning; the task folder holds that history (and is read), so only what follows the warning is new."""
    task = backscroll_home.home / ".cline/data/tasks/1780000000000"
    shutil.copytree(TESTS / "data" / "cline-generated" / "1780000000000", task)
    folder = backscroll_home.home / ".cline/data/sessions/1780000000000"
    folder.mkdir(parents=True)
    converted = [{"id": "c1", "role": "user", "content": [{"type": "text", "text": "<task>\nFix the failing unit "
                                                                                   "test in calc.py\n</task>"}]},
                 {"id": "c2", "role": "assistant", "content": [{"type": "text", "text": "Running the tests now."}]},
                 {"id": "w", "role": "user", "content": [{"type": "text", "text": "Warning: this is a legacy "
                                                          "conversation, which means tool names may have changed."}]},
                 {"id": "n1", "role": "user", "ts": 1796600000000,
                  "content": [{"type": "text", "text": '<user_input mode="act">and the docs too</user_input>'}]}]
    (folder / "1780000000000.messages.json").write_text(json.dumps({"version": 1, "agent": "lead",
                                                                     "messages": converted}))
    (folder / "1780000000000.json").write_text(json.dumps({"session_id": "1780000000000", "cwd": "/w",
                                                            "started_at": "2026-12-05T20:00:00.000Z"}))
    backscroll_index(embed=False)
    from_session = rows(backscroll_home, "SELECT text FROM records WHERE source_path LIKE '%sessions/%.messages.json'")
    assert [r["text"] for r in from_session] == ["and the docs too"]
    shutil.rmtree(task.parent)  # (without the task folder, the converted history is all there is of it)
    kept = cline_sessions.read_session(folder / "1780000000000.messages.json", "cline", (task.parent,)).units[0].records
    assert [r.text for r in kept][:2] == ["<task>\nFix the failing unit test in calc.py\n</task>",
                                          "Running the tests now."]


def test_every_shape_of_a_run_commands_input_is_its_command_line():
    script = cline_sessions.shell_script
    assert script({"commands": ["ls", "pwd"]}) == script(["ls", "pwd"]) == "ls\npwd"
    assert script({"cmd": "make"}) == script("make") == script({"command": "make"}) == "make"
    assert script({"commands": {"command": "backscroll", "args": ["search", "job queue"]}}) == \
        "backscroll search 'job queue'"
    assert script([{"command": "git", "args": ["log"]}, "ls"]) == "git log\nls"
    assert script({}) is None and script(5) is None


def test_cline_session_data_dir_moves_the_sessions(backscroll_home, monkeypatch):
    monkeypatch.setenv("CLINE_SESSION_DATA_DIR", str(backscroll_home.root / "elsewhere"))
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "cline"]
    assert roots[0] == (backscroll_home.root / "elsewhere", "env $CLINE_SESSION_DATA_DIR")
    assert (backscroll_home.home / ".cline/data/tasks", "default") in roots
