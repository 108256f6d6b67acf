"""What each agent's session lines become: every record kind of Claude Code and Codex."""

import json
from pathlib import Path

from helpers import rows, texts

import backscroll
from backscroll.ingest.sources import LineError, claude, codex
from backscroll.types import SessionInfo


def test_claude_records_of_every_kind(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude(project="shop")
    s.user("why does checkout return 500?")
    s.assistant("Let me read the handler.", thinking="the handler probably raises")
    call = s.tool_use("Read", {"file_path": "/home/dev/shop/checkout.py"})
    s.tool_result(call, "def checkout():\n    raise KeyError('cart')")
    s.tool("pytest -q tests/test_checkout.py", "FAILED tests/test_checkout.py::test_total - KeyError", is_error=True)
    s.summary("Checkout 500 from KeyError")
    backscroll_index()

    recs = rows(backscroll_home)
    kinds = [(r["role"], r["content_type"], r["tool_name"]) for r in recs]
    assert kinds == [
        ("user", "text", None),
        ("assistant", "reasoning", None),  # thinking is kept as reasoning
        ("assistant", "text", None),
        ("tool", "tool", "Read"),
        ("tool", "tool", "Read"),  # the result is named after its call
        ("tool", "tool", "Bash"),
        ("tool", "tool", "Bash"),
    ]
    recs = [r for r in recs if r["content_type"] != "reasoning"]
    assert recs[2]["text"] == "Read\nfile_path: /home/dev/shop/checkout.py"
    assert recs[4]["text"] == "pytest -q tests/test_checkout.py"
    assert recs[5]["is_error"] == 1 and recs[3]["is_error"] == 0
    assert recs[0]["record_id"].endswith("#0") and recs[0]["project"] == "shop"
    assert recs[0]["cwd"] == "/home/dev/shop" and recs[0]["timestamp"].endswith("Z")
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert session["title"] == "Checkout 500 from KeyError" and session["agent"] == "claude"
    assert session["started_at"] <= session["updated_at"]


def test_claude_skips_meta_system_snapshots_and_injected_blocks(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.write({"type": "file-history-snapshot", "messageId": "m", "snapshot": {"trackedFileBackups": {}}})
    s.write({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted"})
    s.write(s._envelope("user", {"role": "user", "content": "Caveat: hidden"}, isMeta=True))
    s.user("<command-name>/clear</command-name>\n<command-message>clear</command-message>")
    s.user("<system-reminder>be nice</system-reminder>real question about caching")
    s.user("[Request interrupted by user]")
    backscroll_index()
    # The slash command is the person's; the interruption marker the harness's.
    got = [(r["text"], r["author"]) for r in rows(backscroll_home)]
    assert got == [("/clear", "human"), ("real question about caching", "human"),
                   ("[Request interrupted by user]", "harness")]


def test_a_bare_slash_command_leaves_the_title_to_the_prompt_and_one_with_arguments_keeps_it(
        session_builder, backscroll_home, backscroll_index):
    from backscroll import Backscroll

    bare = session_builder.claude()
    bare.user("<command-name>/model</command-name>\n<command-message>model</command-message>")
    bare.user("checkout got slow again after the cart refactor")
    argued = session_builder.claude()
    argued.user("<command-name>/orchestrator</command-name>\n<command-args>create a TODO app</command-args>")
    argued.user("and use sqlite")
    alone = session_builder.claude()
    alone.user("<command-name>/model</command-name>\n<command-message>model</command-message>")
    alone.assistant("Set model to opus")
    backscroll_index()
    with Backscroll(config=backscroll_home.config()) as bs:
        titles = {s.session_id: s.title for s in bs.sessions(all=True, sync=False)}
    assert titles[bare.session_id] == "checkout got slow again after the cart refactor"
    assert titles[argued.session_id] == "/orchestrator create a TODO app"
    assert titles[alone.session_id] == "/model", "a session of the command alone is still titled by it"


def test_claude_subagents_are_sessions_linked_to_their_parent(session_builder, backscroll_home, backscroll_index):
    parent = session_builder.claude()
    parent.user("profile the checkout")
    sub = parent.subagent()
    sub.user("Find the slow query")
    sub.assistant("The N+1 query is in CartSerializer.get_items")
    backscroll_index()
    sess = {r["session_id"]: r for r in rows(backscroll_home, "SELECT * FROM sessions")}
    child = next(s for s in sess.values() if s["is_sidechain"])
    assert child["parent_session_id"] == parent.session_id
    assert child["session_id"].startswith(parent.session_id + ":agent-")
    rec = rows(backscroll_home, "SELECT * FROM records WHERE text LIKE '%CartSerializer%'")[0]
    assert rec["is_sidechain"] == 1 and rec["parent_session_id"] == parent.session_id


def test_a_claude_workflows_subagent_is_its_sessions_too():
    """Claude Code 2.1 keeps a workflow's subagents one folder deeper (the Agent SDK's ``_collect_agent_files``)."""
    from backscroll.ingest.sources import claude

    sid = "5c0375b4-0000-4000-8000-000000000003"
    path = Path("/p/-home-dev-shop") / sid / "subagents" / "workflows" / "run1" / "agent-abc.jsonl"
    info = claude.session_for(path)
    assert (info.session_id, info.parent_session_id, info.is_sidechain) == (f"{sid}:agent-abc", sid, True)
    assert claude.session_for(path.parent.parent.parent / "agent-abc.jsonl").session_id == f"{sid}:agent-abc"


def test_claude_old_layout_subagent_learns_parent_from_records(backscroll_home, backscroll_index):
    path = backscroll_home.claude_projects / "-home-dev-shop" / "agent-1a2b3c4d.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"type": "user", "uuid": "u1", "sessionId": "parent-1", "isSidechain": True,
                                "cwd": "/home/dev/shop", "timestamp": "2026-10-01T10:00:00Z",
                                "message": {"role": "user", "content": "explore the repo"}}) + "\n")
    backscroll_index()
    s = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert s["is_sidechain"] == 1 and s["parent_session_id"] == "parent-1"


def test_codex_records_of_every_kind(session_builder, backscroll_home, backscroll_index):
    c = session_builder.codex(project="payments")
    c.user("add a retry to the payment capture")
    c.assistant("Retry with exponential backoff capped at 3 attempts.")
    c.tool("pytest -q", "E psycopg.errors.UniqueViolation: duplicate key", is_error=True)
    c.write({"timestamp": "2026-10-01T09:10:00Z", "type": "response_item", "payload": {
        "type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "rg capture src/"}),
        "call_id": "call_exec"}})
    c.write({"timestamp": "2026-10-01T09:10:01Z", "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": "call_exec", "output": "src/pay.py:12: def capture("}})
    c.write({"timestamp": "2026-10-01T09:10:02Z", "type": "response_item", "payload": {
        "type": "custom_tool_call", "name": "apply_patch", "call_id": "call_patch",
        "input": "*** Begin Patch\n*** Update File: src/pay.py\n+MAX_ATTEMPTS = 3\n*** End Patch"}})
    c.write({"timestamp": "2026-10-01T09:10:03Z", "type": "response_item", "payload": {
        "type": "custom_tool_call_output", "call_id": "call_patch",
        "output": json.dumps({"output": "Success. Updated the following files:\nM src/pay.py",
                              "metadata": {"exit_code": 0}})}})
    c.write({"timestamp": "2026-10-01T09:10:04Z", "type": "response_item", "payload": {
        "type": "local_shell_call", "call_id": "call_local", "status": "completed",
        "action": {"type": "exec", "command": ["git", "diff", "--stat"]}}})
    c.write({"timestamp": "2026-10-01T09:10:05Z", "type": "response_item", "payload": {
        "type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking"}], "encrypted_content": "gAAA"}})
    c.write({"timestamp": "2026-10-01T09:10:06Z", "type": "event_msg", "payload": {
        "type": "token_count", "info": {"total_token_usage": {"input_tokens": 5}}}})
    backscroll_index()

    recs = rows(backscroll_home)
    got = [(r["role"], r["tool_name"], r["text"]) for r in recs]
    assert got == [
        ("user", None, "add a retry to the payment capture"),
        ("assistant", None, "Retry with exponential backoff capped at 3 attempts."),
        ("tool", "shell", "pytest -q"),
        ("tool", "shell", "E psycopg.errors.UniqueViolation: duplicate key"),
        ("tool", "exec_command", "rg capture src/"),
        ("tool", "exec_command", "src/pay.py:12: def capture("),
        ("tool", "apply_patch",
         "apply_patch\n*** Begin Patch\n*** Update File: src/pay.py\n+MAX_ATTEMPTS = 3\n*** End Patch"),
        ("tool", "apply_patch", "Success. Updated the following files:\nM src/pay.py"),
        ("tool", "local_shell", "git diff --stat"),
        ("assistant", None, "thinking"),  # the reasoning summary (issue 15), never the encrypted content
    ]
    assert recs[-1]["content_type"] == "reasoning"
    assert recs[3]["is_error"] == 1, "a non-zero exit code marks the output as an error"
    assert recs[0]["session_id"] == c.session_id and recs[0]["project"] == "payments"
    assert recs[0]["record_id"].startswith(f"{c.session_id}:")


def test_codex_event_messages_are_not_indexed_twice(session_builder, backscroll_home, backscroll_index):
    c = session_builder.codex()
    c.user("rename the flag")  # writes response_item + event_msg user_message
    c.assistant("Renamed it to --dry-run.")  # response_item + event_msg agent_message
    backscroll_index()
    assert texts(backscroll_home) == ["rename the flag", "Renamed it to --dry-run."]


def test_codex_client_context_around_the_persons_words_is_the_harness(session_builder, backscroll_home,
                                                                     backscroll_index, backscroll_search):
    # The Codex desktop app and IDE extension wrap the prompt (seen in real 2026 sessions): what the
    # person was looking at, then "## My request for Codex:", then what they typed.
    c = session_builder.codex()
    c.user("\n# In app browser:\n- The user has the in-app browser open.\n- Current URL: http://127.0.0.1:5174/\n\n"
           "## My request for Codex:\ncommit the leaderboard route but not the booth guide\n")
    c.assistant("Committed the route; the booth guide stays untracked.")
    c.user("# Context from my IDE setup:\n\n## My request for Codex:\nnow push it")  # no file open: a heading only
    c.user("Why does the log say\n## My request for Codex:\nthere?")  # the person's own words, quoting it
    c.user("# Release notes draft\n- fixed the login race\n\n## My request for Codex:\nturn this into an entry")
    backscroll_index()
    users = [(r["text"], r["author"]) for r in rows(backscroll_home) if r["role"] == "user"]
    assert users == [
        ("# In app browser:\n- The user has the in-app browser open.\n- Current URL: http://127.0.0.1:5174/",
         "harness"),
        ("commit the leaderboard route but not the booth guide", "human"),
        ("now push it", "human"),
        ("Why does the log say\n## My request for Codex:\nthere?", "human"),
        ("# Release notes draft\n- fixed the login race\n\n## My request for Codex:\nturn this into an entry", "human"),
    ]
    hits = backscroll_search("browser leaderboard", author="human", mode="lexical", strict=True, weak=True).results
    assert [h.text for h in hits] == ["commit the leaderboard route but not the booth guide"]
    (listed,) = backscroll.sessions(home=backscroll_home.data)
    assert listed.title == "commit the leaderboard route but not the booth guide"


def test_codex_subagent_rollout_is_linked_to_parent(backscroll_home, backscroll_index):
    path = (backscroll_home.codex_sessions / "2026/10/02"
            / "rollout-2026-10-02T10-00-00-0199aaaa-bbbb-cccc-dddd-eeeeffff0000.jsonl")
    path.parent.mkdir(parents=True)
    lines = [
        {"timestamp": "2026-10-02T10:00:00Z", "type": "session_meta", "payload": {
            "id": "0199aaaa-bbbb-cccc-dddd-eeeeffff0000", "cwd": "/w/api",
            "source": {"subagent": {"thread_spawn": {"parent_thread_id": "parent-thread", "depth": 1}}}}},
        {"timestamp": "2026-10-02T10:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "found it"}]}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    backscroll_index()
    s = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (s["is_sidechain"], s["parent_session_id"], s["project"]) == (1, "parent-thread", "api")


def test_parsers_reject_non_objects_and_wrong_types():
    info = SessionInfo("s", "claude")
    for parse in (claude.parse_line, codex.parse_line):
        for bad in ([1, 2], "text", 3, None):
            try:
                parse(bad, 1, info)
            except LineError:
                pass
            else:
                raise AssertionError(f"{parse.__module__} accepted {bad!r}")
    try:
        claude.parse_line({"type": "user", "message": {"role": "user", "content": 42}}, 1, info)
    except LineError as exc:
        assert "content" in str(exc)
    else:
        raise AssertionError("wrong content type accepted")


def test_codex_context_it_adds_to_the_persons_turn_is_the_harnesss_and_a_brief_is_an_agents():
    """What Codex counts as context it added (``contextual_user_message.rs``: a skill's body, a ``!`` command, a
    subagent's report, a hook's prompt, a warning) is the harness's; a message between agents written as JSON in
    an assistant message (builds before ``agent_message``) is the sending agent's words, not the reply."""
    from backscroll.ingest.sources.codex_items import response_item

    session = SessionInfo("s", "codex")

    def said(role, text):
        kind = "input_text" if role == "user" else "output_text"
        payload = {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}
        return [(r.role, r.author, r.text) for r in response_item(payload, 1, None, session).records]

    for text in ("<skill>\n<name>release</name>\nbody\n</skill>", "<user_shell_command>\nls\n</user_shell_command>",
                 '<subagent_notification>\n{"agent_path": "/root/w"}\n</subagent_notification>',
                 '<hook_prompt hook_run_id="stop:1">keep going</hook_prompt>', "<external_ide>x</external_ide>",
                 "Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead."):
        assert said("user", text) == [("user", "harness", text)]
    assert said("user", "why does <skill> render twice?") == [("user", "human", "why does <skill> render twice?")]
    brief = json.dumps({"author": "/root", "recipient": "/root/worker", "other_recipients": [],
                        "content": "audit the auth module", "trigger_turn": True})
    assert said("assistant", brief) == [("user", "agent", "audit the auth module")]
    assert said("assistant", '{"plan": "not a message between agents"}')[0][:2] == ("assistant", None)
    chat = '{"author": "alice", "recipient": "bob", "content": "hi"}'  # (a reply that is a chat app's payload)
    assert said("assistant", chat) == [("assistant", None, chat)]


def test_claude_answers_to_ask_user_question_are_the_persons_words(session_builder, backscroll_home,
                                                                   backscroll_index):
    """The options picked and notes typed in ``AskUserQuestion`` are read from Claude Code's ``toolUseResult``
    (never from a result's text, which a file the agent read can imitate) and stored as the person's turn."""
    s = session_builder.claude()
    s.user("set up the new storage layer")
    asked = [{"question": "Which database should we use?", "header": "DB", "multiSelect": False,
              "options": [{"label": "PostgreSQL", "description": "server"},
                          {"label": "SQLite", "description": "file"}]},
             {"question": "Which features?", "header": "Features", "multiSelect": True,
              "options": [{"label": "Backups"}, {"label": "Replication"}, {"label": "Metrics"}]}]
    call = s.tool_use("AskUserQuestion", {"questions": asked})
    text = ('User has answered your questions: "Which database should we use?"="SQLite", "Which features?"='
            '"Backups, Metrics". You can now continue with the user\'s answers in mind.')
    s.write(s._envelope("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call,
                                                              "content": text}]},
                        toolUseResult={"questions": asked,
                                       "answers": {"Which database should we use?": "SQLite",
                                                   "Which features?": ["Backups", "Metrics"]},
                                       "annotations": {
                                           "Which database should we use?": {"notes": "one file, no ops"}}}))
    s.tool_result(s.tool_use("Read", {"file_path": "/tmp/notes.md"}), text)  # imitated by a file: a tool output
    backscroll_index()

    got = [(r["role"], r["content_type"], r["author"], r["text"]) for r in rows(backscroll_home)]
    assert got[2] == ("user", "text", "human",
                      "Which database should we use? → SQLite\none file, no ops\nWhich features? → Backups, Metrics")
    assert got[1][:2] == ("tool", "tool") and "AskUserQuestion" in got[1][3]  # the agent's question stays its call
    assert got[-1] == ("tool", "tool", None, text)
    # what the person chose is found as their words: a search hinted to the person's turns finds it first
    hits = backscroll.search("which database did we choose", home=backscroll_home.data, mode="lexical", role="user",
                             weak=True)
    first = [*hits.results, *hits.weak_matches][0]
    assert (first.role, first.text.splitlines()[0]) == ("user", "Which database should we use? → SQLite")
    # a result holding no answers (Escape, or an unanswered form) is the tool's output, as before
    info = SessionInfo("s", "claude")
    line = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "q", "content": "User declined to answer questions"}]},
            "toolUseResult": {"questions": asked, "answers": {}}}
    assert [(r.role, r.text) for r in claude.parse_line(line, 1, info).records] == [
        ("tool", "User declined to answer questions")]


def test_the_reason_the_person_gave_for_refusing_a_claude_tool_call_is_their_words():
    """Claude Code marks a call the person refused (``toolDenialKind: user-rejected``) and writes its result as an
    error holding its notice and what the person typed: the notice stays the call's error, the reason is the
    person's (without the memory hint Claude Code may append). Unmarked lines, a tool's own error imitating the
    notice, the classifier's refusals and the "clarify" template stay the tool's output."""
    notice = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
              "edit, the new_string was NOT written to the file).")
    hint = ("\n\nNote: The user's next message may contain a correction or preference. Pay close attention - if "
            "they explain what went wrong, consider saving that to memory.")
    text = f"{notice} To tell you how to proceed, the user said:\nrun only the unit tests, not the integration ones"

    def result(content, **marks):
        line = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": content, "is_error": True}]},
                "toolUseResult": f"Error: {content}", **marks}
        return [(r.role, r.author, r.is_error, r.text) for r in claude.parse_line(line, 1, SessionInfo("s", "claude"))
                .records]

    reason = "run only the unit tests, not the integration ones"
    assert result(text + hint, toolDenialKind="user-rejected") == [
        ("tool", None, True, notice), ("user", "human", False, reason)]
    assert result(text, toolDenialKind="user-rejected", userFeedback="  use the fixtures instead ") == [
        ("tool", None, True, notice), ("user", "human", False, "use the fixtures instead")]
    other = ("The user doesn't want to proceed with this tool use. The tool use was rejected. The user provided the "
             "following reason for the rejection:  keep the branch")
    assert result(other, toolDenialKind="user-rejected")[1] == ("user", "human", False, "keep the branch")
    denied = ("Permission for this tool use was denied. The tool use was rejected (eg. if it was a file edit, the "
              "new_string was NOT written to the file).")
    assert result(f"{denied} The user said:\nnot in prod", toolDenialKind="user-rejected") == [  # (a subagent's)
        ("tool", None, True, denied), ("user", "human", False, "not in prod")]
    assert result(text) == [("tool", None, True, text)]  # unmarked: a tool's own error could say as much
    assert result(text, toolDenialKind="automode-blocked") == [("tool", None, True, text)]
    clarify = f"{notice} To tell you how to proceed, the user said:\nThe user wants to clarify these questions.\n..."
    assert result(clarify, toolDenialKind="user-rejected") == [("tool", None, True, clarify)]
    bare = "The user doesn't want to proceed with this tool use. The tool use was rejected."  # no reason typed
    assert result(bare, toolDenialKind="user-rejected") == [("tool", None, True, bare)]


def test_a_note_the_person_typed_without_picking_an_option_is_kept_in_the_order_asked():
    asked = [{"question": "Which cache?"}, {"question": "Which queue?"}]
    line = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "q", "content": "User has answered your questions: ..."}]},
            "toolUseResult": {"questions": asked, "answers": {"Which queue?": "SQS"},
                              "annotations": {"Which cache?": {"notes": "none, we drop caching"},
                                              "Which queue?": {"preview": "the agent's preview, not theirs"}}}}
    recs = claude.parse_line(line, 1, SessionInfo("s", "claude")).records
    assert [(r.role, r.author, r.text) for r in recs] == [
        ("user", "human", "Which cache?\nnone, we drop caching\nWhich queue? → SQS")]
