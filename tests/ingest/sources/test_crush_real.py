"""Crush, on sessions from real databases other projects committed (tests/data/real/crush, see ORIGIN.md).

An error the person saw instead of a reply lives only in the assistant message's ``finish`` part (``reason:
"error"``); a session keeps the placeholder title it was created with ("New Session") when no title was
generated. The counts were made from the databases by a reader of Crush's source, not of ours.
"""

import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from helpers import REAL

from backscroll.ingest.sources import crush


def database(tmp_path: Path, name: str) -> Path:
    db = tmp_path / name / ".crush" / "crush.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.executescript((REAL / "crush" / f"{name}.sql").read_text())
    conn.close()
    return db


def sessions(tmp_path: Path, name: str) -> dict:
    return {u.session.session_id: u for u in crush.read_whole(database(tmp_path, name), {}).units}


def test_an_error_the_person_saw_is_stored_and_a_lone_prompt_is_no_longer_alone(tmp_path):
    dbos = sessions(tmp_path, "dbos")["a20c5ed5-41d4-45f7-88eb-7ba0645f1341"]
    assert [(r.role, r.author, r.is_error) for r in dbos.records] == [
        ("user", None, False), ("user", "harness", True), ("user", None, False)]
    error = dbos.records[1].text
    assert error.startswith("API Error: POST \"https://api.openai.com/v1/chat/completions\": 400 Bad Request")
    assert "Your organization must be verified to stream this model" in error
    child = sessions(tmp_path, "liquidify")["call_07543445"]  # a subagent's prompt, answered only by an error
    assert [(r.role, r.author) for r in child.records] == [("user", None), ("user", "harness")]
    assert "api.x.ai" in child.records[1].text


@pytest.mark.parametrize(("name", "titles"), [
    ("liquidify", {"d14e7fc7-399f-49cd-81bd-c2b6f87a1e0a": None, "call_07543445": None,
                   "dd6aa687-2527-4775-baad-d96f3f91cc8b": "Hey Greeting"}),
    ("quay", {"17c2d974-eab7-4a44-83d2-97c5186a5789": None}),
    ("dbos", {"a20c5ed5-41d4-45f7-88eb-7ba0645f1341": "Create and Enhance CRUSH.md with Codebase Guidelines",
              "f306c145-4c83-492c-b575-739c30bbced4": "Instructions in CLI.md"}),
])
def test_placeholder_titles_are_no_titles(tmp_path, name, titles):
    assert {sid: u.session.title for sid, u in sessions(tmp_path, name).items()} == titles


@pytest.mark.parametrize(("title", "kept"), [
    ("New Session", None), ("Untitled Session", None), ("New Agent Session", None), ("non-interactive", None),
    ("Non-interactive: fix the flaky login test...", "fix the flaky login test"), ("Fix login", "Fix login")])
def test_title_of(title, kept):
    assert crush.title_of(title) == kept


def test_real_sessions_hold_what_the_databases_hold(tmp_path):
    """Per database, what a careful reader counts: prompts, replies, calls, results, and errors shown."""
    counts = {}
    for name in ("dbos", "liquidify", "quay"):
        c: Counter = Counter()
        for unit in sessions(tmp_path, name).values():
            for r in unit.records:
                c["error" if r.is_error and r.author == "harness" else
                  "call" if r.role == "tool" and r.tool_name else "result" if r.role == "tool" else r.role] += 1
        counts[name] = dict(c)
    assert counts == {
        "dbos": {"user": 3, "error": 1, "assistant": 2, "call": 1, "result": 1},
        "liquidify": {"user": 4, "error": 3, "assistant": 1},
        "quay": {"user": 1, "assistant": 1, "call": 6, "result": 5},
    }
