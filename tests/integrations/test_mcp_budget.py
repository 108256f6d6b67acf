"""An MCP answer lands whole in a model's context: whatever ``limit`` and ``max_chars`` a model asks for, every tool's
answer stays within about 20,000 tokens, and says what it left out and how to read on."""

import json

from backscroll.integrations.mcp_budget import MAX_ANSWER_CHARS, MAX_TEXT_CHARS, within
from backscroll.integrations.mcp_tools import Tools

LOG = "\n".join(f"okapi step {n}: compiled module_{n} and ran its tests, all green" for n in range(400))


def _big_history(session_builder, backscroll_index):
    s = session_builder.claude(project="okapi")
    for n in range(120):
        s.user(f"run build {n} of okapi")
        s.assistant(f"build {n} of okapi:\n{LOG}")
    backscroll_index(embed=False)
    return s


def test_every_tool_answers_within_the_budget_whatever_it_was_asked(session_builder, backscroll_index,
                                                                    backscroll_home):
    s = _big_history(session_builder, backscroll_index)
    tools = Tools(str(backscroll_home.data))
    found = tools.call("search", {"query": "okapi compiled", "mode": "lexical", "limit": 1000, "max_chars": 0})
    assert not found.is_error and len(found.text()) <= MAX_ANSWER_CHARS * 1.1
    doc = json.loads(found.text())
    assert doc["results"] and doc["has_more"] and any("left out" in n for n in doc["notes"]), doc["notes"]
    page = tools.call("show", {"id": s.session_id, "limit": 240, "max_chars": 0})
    shown = json.loads(page.text())
    assert not page.is_error and len(page.text()) <= MAX_ANSWER_CHARS * 1.1
    assert 0 < len(shown["records"]) < 240 and shown["total"] == 240
    assert all(len(r["text"]) <= MAX_TEXT_CHARS for r in shown["records"])
    assert any("read on with offset" in n for n in shown["notes"]), shown["notes"]


def test_an_answer_that_fits_is_left_as_it_was_and_one_that_does_not_keeps_a_prefix():
    small = {"sessions": [{"id": n} for n in range(3)], "total": 3}
    assert within(small, "page") is small
    big: dict = {"total": 5000, "sessions": [{"id": n, "title": "x" * 100} for n in range(5000)], "notes": ["kept"]}
    cut = within(big, "read on with offset")
    assert cut["sessions"] == big["sessions"][:len(cut["sessions"])] and 0 < len(cut["sessions"]) < 5000
    assert len(json.dumps(cut, separators=(",", ":"))) <= MAX_ANSWER_CHARS
    assert cut["notes"][0] == "kept" and cut["notes"][1].startswith(f"{5000 - len(cut['sessions']):,} of the 5,000")
