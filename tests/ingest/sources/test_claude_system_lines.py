"""Claude Code 2.1's ``system`` lines that hold words: a slash command the person typed (``local_command``) and the
recap written while they were away (``away_summary``); the rest are notices and timings."""

from __future__ import annotations

import json

from helpers import rows

from backscroll.ingest.sources import claude
from backscroll.types import SessionInfo

SESSION = SessionInfo("5c0375b4-0000-4000-8000-000000000002", "claude")


def parsed(line: dict):
    return claude.parse_line({"type": "system", "uuid": "s1", "sessionId": SESSION.session_id,
                              "timestamp": "2026-09-14T15:49:46.000Z", **line}, 3, SESSION)


def test_a_slash_command_written_as_a_system_line_is_the_persons():
    out = parsed({"subtype": "local_command", "isMeta": False, "content": "<command-name>/rename</command-name>\n"
                  "            <command-message>rename</command-message>\n<command-args>parser fixes</command-args>"})
    assert [(r.role, r.author, r.text) for r in out.records] == [("user", "human", "/rename parser fixes")]
    assert out.session_updates["title"] == "/rename parser fixes"
    for noise in ("<local-command-stdout>Session renamed to: parser fixes</local-command-stdout>", "plain"):
        assert parsed({"subtype": "local_command", "content": noise}).records == []


def test_the_recap_written_while_the_person_was_away_is_a_summary():
    out = parsed({"subtype": "away_summary",
                  "content": "Fixed the flaky login test; PR #42 is open. (disable recaps in /config)"})
    assert [(r.role, r.content_type, r.text) for r in out.records] == [
        ("assistant", "summary", "Fixed the flaky login test; PR #42 is open.")]
    for other in ({"subtype": "turn_duration", "durationMs": 5}, {"subtype": "api_error", "content": "529"},
                  {"subtype": "from-the-future", "content": "words"}):
        assert parsed(other).records == [] and parsed(other).unknown is None


def test_a_command_written_both_as_a_system_line_and_a_user_line_is_stored_once(session_builder, backscroll_home,
                                                                                  backscroll_index):
    s = session_builder.claude()
    s.user("check the parser")
    for line in ({"type": "system", "subtype": "local_command", "uuid": "lc1",
                  "content": "<command-name>/model</command-name>\n<command-args>opus</command-args>"},
                 {"type": "user", "uuid": "u9", "message": {"role": "user", "content": (
                     "<command-name>/model</command-name>\n<command-args>opus</command-args>")}}):
        s.raw(json.dumps({"sessionId": s.session_id, "timestamp": "2026-10-02T09:00:00.000Z", **line}))
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home, "SELECT text FROM records WHERE text LIKE '/model%'")] == [
        "/model opus"]


def test_an_api_error_written_as_the_assistants_turn_is_the_harnesss_error():
    line = {"type": "assistant", "uuid": "a2", "isApiErrorMessage": True, "message": {
        "id": "m2", "role": "assistant", "model": "<synthetic>",
        "content": [{"type": "text", "text": "API Error: 529 overloaded"}]}}
    out = parsed(line)
    assert [(r.role, r.author, r.is_error, r.text) for r in out.records] == [
        ("user", "harness", True, "API Error: 529 overloaded")]
    answer = {**line, "isApiErrorMessage": False}
    assert [(r.role, r.author) for r in parsed(answer).records] == [("assistant", None)]
