"""Aider's notes of several lines, the person's words at its /run prompt, and empty sessions, on real files.

tests/data/real/aider/aider-history-A and -B are two excerpts of Paul Gauthier's own history (Aider 0.47-0.51,
committed to Aider-AI/aider as a test fixture, Apache-2.0), afi-core a whole history (Aider 0.85, MIT); see
ORIGIN.md. Aider quotes only the first line of a multi-line note (``tool_output``): pytest output, a
``Cost:`` line and a failed edit follow unquoted, up to the line that ends the message with two spaces. The
counts below were made by a reader of Aider's ``io.py``, not of ours.
"""

from collections import Counter
from pathlib import Path

import pytest
from helpers import REAL, index_aider_repo, rows

from backscroll.ingest.sources import aider

HISTORY = ".aider.chat.history.md"


def parsed(repo: str) -> list:
    path = REAL / "aider" / repo / HISTORY
    return aider.parse(path.read_text(encoding="utf-8"), path)


def counted(repo: str) -> Counter:
    out: Counter = Counter()
    for unit in parsed(repo):
        out["sessions"] += 1
        out["empty"] += not unit.records
        for r in unit.records:
            out["note" if r.role == "tool" and not r.tool_name else "command" if r.role == "tool" else r.role] += 1
    return out


@pytest.mark.parametrize(("repo", "expected"), [
    # sessions (A: three headers and the excerpt's headerless start), empty ones, the person's words (A: the 42-line
    # block /lint logs is input; B: "update the test" typed at the /run prompt), replies, notes, /commands
    # (an "Applied edit to" line is a call of its own, and splits its note in two when lines follow it)
    ("aider-history-A", {"sessions": 4, "empty": 0, "user": 4, "assistant": 2, "note": 9, "command": 3}),
    ("aider-history-B", {"sessions": 2, "empty": 1, "user": 1, "assistant": 3, "note": 7, "command": 5}),
    ("afi-core", {"sessions": 9, "empty": 0, "user": 28, "assistant": 39, "note": 84, "command": 29}),
])
def test_real_histories_hold_what_a_reader_of_aiders_writer_counts(repo, expected):
    assert {k: counted(repo)[k] for k in expected} == expected


def test_the_unquoted_lines_of_a_note_are_the_notes_not_a_reply():
    records = [r for u in parsed("aider-history-B") for r in u.records]
    replies = " ".join(r.text for r in records if r.role == "assistant")
    assert "test session starts" not in replies and "Cost: $" not in replies and "AssertionError" not in replies
    run = next(r for r in records if r.role == "tool" and "test session starts" in r.text)
    assert "1 failed, 17 passed" in run.text, "the pytest output, blank lines and all, stays one note"
    cost = next(r for r in records if r.text.startswith("Tokens: 3.7k sent"))
    assert "Cost: $0.01 message" in cost.text


def test_what_a_person_typed_at_the_run_prompt_is_their_words():
    records = [r for u in parsed("aider-history-B") for r in u.records]
    typed = [r for r in records if r.role == "user"]
    assert [r.text for r in typed] == ["update the test"]
    prompt = next(r for r in records if r.role == "tool" and "[Y/n/instructions]" in r.text and r.line == typed[0].line)
    assert "update the test" not in prompt.text


@pytest.mark.parametrize(("note", "typed"), [
    ("Add the output to the chat? (y/n/instructions): show me the versions", "show me the versions"),
    ("Add the output to the chat?\n(Y)es/(n)o/message with instructions: fix cmd_add", "fix cmd_add"),
    ("Add the output to the chat?\n[Y/n/instructions] y", None),
    ("Add the output to the chat?\n(y/n/instructions) ", None),
])
def test_typed_instructions_in_each_version_of_the_prompt(note, typed):
    assert aider.typed_instructions(note)[1] == typed


def test_instructions_aider_logs_again_as_input_are_stored_once():
    text = ("# aider chat started at 2024-10-01 10:00:00\n\n#### /run pytest  \n> Add the output to the chat?\n"
            "(Y)es/(n)o/message with instructions: fix the flaky test  \n\n#### fix the flaky test  \n\nDone.\n")
    records = aider.parse(text, Path("/r") / HISTORY)[0].records
    assert [r.text for r in records if r.role == "user"] == ["fix the flaky test"]


def test_an_emacs_mode_line_is_no_reply():
    records = [r for u in parsed("aider-history-A") for r in u.records]
    assert not any("-*-" in r.text for r in records)


def test_status_and_list_agree_on_sessions_when_one_is_empty(backscroll_home, backscroll_index):
    index_aider_repo(backscroll_home, backscroll_index, "aider-history-B")
    import backscroll

    status = backscroll.status(home=backscroll_home.data)
    listed = backscroll.sessions(home=backscroll_home.data)
    assert status.sessions == status.agents["aider"].sessions == len(listed) == 1
    assert len(rows(backscroll_home, "SELECT * FROM sessions")) == 2, "the empty session is kept, not counted"


@pytest.mark.parametrize(("zone", "stored"), [("UTC", "2024-08-21T11:16:05"), ("Europe/Berlin", "2024-08-21T09:16:05")])
def test_header_times_are_read_in_the_zone_of_tz(monkeypatch, zone, stored):
    """Aider writes the local time with no zone: it is read in this machine's zone, $TZ, the same on every run."""
    import time

    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        records = aider.parse("# aider chat started at 2024-08-21 11:16:05\n\n#### hi  \n", Path("/r") / HISTORY)
        assert (records[0].records[0].timestamp or "").startswith(stored)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_files_finds_the_edits_aider_applied_and_the_files_it_added(backscroll_home, backscroll_index):
    """Aider says in a note which files it edited; ``/add`` puts a file into the chat (read), ``/mv`` is a
    command run on it. Counted from afi-core's lines 820 (/add), 923 (Applied edit to) and 927 (/mv)."""
    import backscroll

    code = index_aider_repo(backscroll_home, backscroll_index, "afi-core")
    found = backscroll.files("validators/PoIValidator.ts", home=backscroll_home.data)
    assert [f.actions for f in found] == [{"read": 1, "edited": 1, "ran": 1}]
    edited = backscroll.files("sync-afi.sh", home=backscroll_home.data)
    assert [f.actions for f in edited] == [{"edited": 1}], "a new file Aider wrote is an edit applied"
    assert backscroll.files(str(code / "sync-afi.sh"), home=backscroll_home.data) == edited, "read from the repo"


@pytest.mark.parametrize(("text", "title"), [
    ("<pre>\n<instructions>\n- In the file trading_agent.py, locate send_alert", "- In the file trading_agent.py, "
                                                                                "locate send_alert"),
    ("```python\nprint(1)\n```", "print(1)"),
    ("---\n<task>\n</task>", None),
    ("fix the <div> overflow on mobile", "fix the <div> overflow on mobile"),
    ("x" * 200, "x" * 119 + "…"),
    ("word " * 40, ("word " * 23).strip() + "…"),
    ("4\nthe retry test fails on CI", "the retry test fails on CI"),
    ("n", None),
])
def test_a_title_is_the_first_line_that_says_something(text, title):
    from backscroll.ingest.sources import title_line

    assert title_line(text) == title


def test_a_session_opened_with_markup_is_titled_by_its_first_words():
    text = ("# aider chat started at 2025-03-01 10:00:00\n\n#### <pre>  \n#### <instructions>  \n"
            "#### - In trade_execution.py, record the order's fees  \n\nDone.\n")
    unit = aider.parse(text, Path("/r") / HISTORY)[0]
    assert unit.session.title == "- In trade_execution.py, record the order's fees"


@pytest.mark.parametrize("joined", ["  \n", "\n\n"])  # (Aider ends an input's lines with two spaces; 0.4x did not)
def test_the_prompt_aider_writes_for_help_is_its_note_not_the_persons_words(joined):
    """``/help QUESTION``: Aider's help coder takes a prompt Aider writes, the question and the docs it found,
    and logs it as input (``io.user_input``): as one block, or (older versions) a block a line."""
    prompt = ["# Question: how do I pick what goes into the repo map", "", "# Relevant docs:", "", "<doc>",
              "Repository map", "</doc>"]
    end = "  " if joined == "  \n" else ""
    text = ("# aider chat started at 2024-08-21 11:16:05\n\n"
            f"#### /help how do I pick what goes into the repo map{end}\n\n"
            + "#### " + joined.join(f"#### {line}" if i else line for i, line in enumerate(prompt)) + f"{end}\n\n"
            f"Aider builds the repo map from the files in git.\n\n#### thanks, and now fix the test{end}\n")
    records = aider.parse(text, Path("/r") / HISTORY)[0].records
    assert [r.text for r in records if r.role == "user"] == ["how do I pick what goes into the repo map",
                                                             "thanks, and now fix the test"]
    notes = [r for r in records if r.role == "tool"]
    assert len(notes) == 1 and notes[0].text.startswith("# Question:") and "Repository map" in notes[0].text
    assert [r.text for r in records if r.role == "assistant"] == ["Aider builds the repo map from the files in git."]
