"""The person's answers to Codex's ``request_user_input`` are their words, read beside the questions the call asked."""

import json

from helpers import rows

import backscroll
from backscroll.ingest.sources import codex
from backscroll.types import SessionInfo

ASKED = {"questions": [
    {"id": "database", "header": "DB", "question": "Which database should we use?",
     "options": [{"label": "PostgreSQL (Recommended)", "description": "server"},
                 {"label": "SQLite", "description": "one file"}]},
    {"id": "scope", "header": "Scope", "question": "Migrate the old data too?",
     "options": [{"label": "Yes", "description": ""}, {"label": "No", "description": ""}]}]}
ANSWERED = {"answers": {"database": {"answers": ["SQLite", "user_note: one file, no ops"]},
                        "scope": {"answers": ["No"]}}}


def item(c, second: int, payload: dict) -> None:
    c.write({"timestamp": f"2026-10-01T09:10:{second:02d}Z", "type": "response_item", "payload": payload})


def ask(c, call_id: str = "call_ask") -> None:
    item(c, 0, {"type": "function_call", "name": "request_user_input", "arguments": json.dumps(ASKED),
                "call_id": call_id})


def answer(c, call_id: str = "call_ask", output: object = None) -> None:
    item(c, 1, {"type": "function_call_output", "call_id": call_id, "output": json.dumps(output or ANSWERED)})


def test_codex_answers_to_request_user_input_are_the_persons_words(session_builder, backscroll_home,
                                                                  backscroll_index):
    c = session_builder.codex()
    c.user("plan the storage layer")
    ask(c)
    answer(c)
    item(c, 2, {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "cat a.json"}),
                "call_id": "call_cat"})
    answer(c, "call_cat")  # the same answer, in a file the agent read: the tool's output
    backscroll_index()

    got = [(r["role"], r["author"], r["text"]) for r in rows(backscroll_home)]
    assert got[2] == ("user", "human",
                      "Which database should we use? → SQLite\none file, no ops\nMigrate the old data too? → No")
    assert got[1][0] == "tool" and "Which database should we use?" in got[1][2]  # the agent's question: its call
    assert got[-1][:2] == ("tool", None) and got[-1][2].startswith('{"answers"')
    hits = backscroll.search("which database did we choose", home=backscroll_home.data, mode="lexical", role="user",
                             weak=True)
    first = [*hits.results, *hits.weak_matches][0]
    assert (first.role, first.text.splitlines()[0]) == ("user", "Which database should we use? → SQLite")


def test_an_answer_written_after_the_question_was_read_is_still_the_persons(session_builder, backscroll_home,
                                                                           backscroll_index):
    """A live session: the question is read by one sync, the answer appended and read by the next."""
    c = session_builder.codex()
    c.user("plan the storage layer")
    ask(c)
    backscroll_index()
    answer(c)
    backscroll_index()
    assert [(r["role"], r["author"]) for r in rows(backscroll_home)][-1] == ("user", "human")


def test_a_request_without_answers_stays_the_tools_output():
    info = SessionInfo("s", "codex")
    line = {"type": "response_item", "payload": {"type": "function_call", "name": "request_user_input",
                                                  "arguments": json.dumps(ASKED), "call_id": "q"}}
    asked = codex.parse_line(line, 1, info)
    info = SessionInfo("s", "codex", questions=asked.session_updates["questions"])
    assert [q[1] for q in info.questions] == ["database", "scope"]
    def output(call_id: str, text: str) -> dict:
        return {"type": "response_item", "payload": {"type": "function_call_output", "call_id": call_id,
                                                      "output": text}}

    parsed = codex.parse_line(output("q", "request_user_input was cancelled before receiving a response"), 2, info)
    assert [(r.role, r.author) for r in parsed.records] == [("tool", None)]
    assert parsed.session_updates == {"questions": ()}, "an answered or cancelled call's questions are forgotten"
    assert [r.role for r in codex.parse_line(output("other", json.dumps(ANSWERED)), 3, info).records] == ["tool"]


def lines(*payloads: dict, mode: str | None = None) -> list:
    """What ``codex.parse_line`` makes of response items read one after another (with ``history_mode`` ``mode``)."""
    from dataclasses import replace

    info, out = SessionInfo("s", "codex", history_mode=mode), []
    for n, payload in enumerate(payloads, 1):
        obj = payload if payload.get("type") == "event_msg" else {"type": "response_item", "payload": payload}
        parsed = codex.parse_line(obj, n, info)
        info = replace(info, **parsed.session_updates)
        out += [(r.role, r.author, r.text) for r in parsed.records]
    return out


def call(call_id: str, name: str = "request_user_input", arguments: object = ASKED, ptype: str = "function_call"):
    return {"type": ptype, "name": name, "arguments": json.dumps(arguments), "call_id": call_id}


def output(call_id: str, text: object = ANSWERED, ptype: str = "function_call_output") -> dict:
    return {"type": ptype, "call_id": call_id, "output": text if isinstance(text, str) else json.dumps(text)}


HUMAN = ("user", "human", "Which database should we use? → SQLite\none file, no ops\nMigrate the old data too? → No")


def test_only_the_question_calls_own_output_is_read_as_answers():
    assert lines(call("c"), output("c"))[-1] == HUMAN
    assert lines(call("c"), call("c"), output("c"))[-1] == HUMAN, "a call line read twice asks once"
    # a provider that reuses call ids: another call taking the pending id makes its output a tool's
    assert lines(call("c"), call("c", "exec_command", {"cmd": "cat a.json"}), output("c"))[-1][:2] == ("tool", None)
    assert lines(call("c"), output("c", ptype="custom_tool_call_output"))[-1][:2] == ("tool", None)
    # a question left unanswered when its turn ended never will be: a later output of that id is a tool's
    ended = {"type": "event_msg", "payload": {"type": "turn_aborted"}}
    assert lines(call("c"), ended, output("c"))[-1][:2] == ("tool", None)
    # an MCP tool of the same name is another tool
    assert lines({**call("c"), "namespace": "mcp__x"}, output("c"))[-1][:2] == ("tool", None)


def test_a_free_text_answer_is_the_answer():
    free = {"questions": [{"id": "name", "question": "What should the tool be called?"}]}
    typed = {"answers": {"name": {"answers": ["user_note: backscroll"]}}}
    assert lines(call("c", arguments=free), output("c", typed))[-1] == (
        "user", "human", "What should the tool be called? → backscroll")


def test_a_secret_answer_is_left_out():
    secret = {"questions": [{**ASKED["questions"][0], "isSecret": True}, ASKED["questions"][1]]}
    assert lines(call("c", arguments=secret), output("c"))[-1] == ("user", "human", "Migrate the old data too? → No")


def test_a_paginated_thread_keeps_the_question_and_its_answer():
    """A paginated thread persists completed items instead of response items, but none for the question tool."""
    got = lines(call("c"), output("c"), output("x", "ok"), mode="paginated")
    assert got[0][0] == "tool" and got[1:] == [HUMAN], "the question and its answer; other response items are not read"


def test_a_question_awaiting_its_answer_is_kept_redacted(session_builder, backscroll_home, backscroll_index):
    c = session_builder.codex()
    c.user("rotate the keys")
    item(c, 0, call("call_key", arguments={"questions": [
        {"id": "key", "question": "Rotate AKIAIOSFODNN7EXAMPLE now?", "options": [{"label": "Yes"}]}]}))
    backscroll_index()
    state = "".join(str(r["session_state"]) for r in rows(backscroll_home, "SELECT session_state FROM source_files"))
    assert "AKIAIOSFODNN7EXAMPLE" not in state and "Rotate" in state
