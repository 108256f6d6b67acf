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
