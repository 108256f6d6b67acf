"""Cline and Roo Code tasks: messages left ``partial: true`` and the agent's todo lists.

tests/data/real/cline/roo-natural-mini is a real Roo Code task (Apache-2.0, see ORIGIN.md); tests/data/cline-
generated was written by replaying Cline v3.89.2's serializer (see its README). Cline and Roo rewrite a
streamed message in place, so a message still marked partial on disk is its last state: complete reasoning
(Cline before 3.63, Roo), or a reply a failed stream cut. The counts were made from the files by a reader
of Cline's source, not of ours.
"""


import json
from collections import Counter
from pathlib import Path

import pytest
from helpers import REAL, TESTS

from backscroll.ingest.sources import cline
from backscroll.types import SessionInfo

GENERATED = TESTS / "data" / "cline-generated" / "1780000000000"


def records(folder: Path) -> list:
    return cline.ui_records(json.loads((folder / "ui_messages.json").read_text()), SessionInfo("t", "cline"))[0]


def counted(folder: Path) -> dict:
    out: Counter = Counter()
    for r in records(folder):
        out[r.content_type if r.content_type == "reasoning" else
            r.tool_name if r.tool_name == "task_progress" else
            "call" if r.role == "tool" and r.tool_name else "output" if r.role == "tool" else r.role] += 1
    return dict(out)


@pytest.mark.parametrize(("folder", "expected"), [
    # task + feedback; the non-empty replies and completion; reasoning (all ten left partial in Roo's file)
    (REAL / "cline" / "roo-natural-mini", {"user": 2, "assistant": 4, "reasoning": 10, "call": 8}),
    (GENERATED, {"user": 2, "assistant": 5, "reasoning": 5, "call": 3, "output": 2, "task_progress": 4}),
])
def test_tasks_hold_what_a_reader_of_clines_serializer_counts(folder, expected):
    assert counted(folder) == expected


def test_complete_reasoning_left_partial_is_kept():
    messages = json.loads((REAL / "cline" / "roo-natural-mini" / "ui_messages.json").read_text())
    left = [m["text"] for m in messages if m.get("say") == "reasoning" and m.get("partial") is True]
    assert len(left) == 10
    assert [r.text for r in records(REAL / "cline" / "roo-natural-mini") if r.content_type == "reasoning"] == [
        t.strip() for t in left]


def test_a_reply_a_failed_stream_cut_and_a_failed_edit_are_kept_as_they_stand():
    recs = records(GENERATED)
    assert "The test itself is wrong:" in [r.text for r in recs if r.role == "assistant"]
    assert any(r.tool_name == "editedExistingFile" for r in recs), "the edit left partial before its diff_error"


def test_the_todo_list_is_a_call_each_time_it_changes():
    lists = [r.text for r in records(GENERATED) if r.tool_name == "task_progress"]
    assert len(lists) == 4 and lists[0].startswith("- [ ] Read the README") and "- [x] Fix the failing t" in lists[-1]
