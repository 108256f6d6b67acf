"""OpenHands on real conversations of both layouts (tests/data/real/openhands, see ORIGIN.md): the V0 file store
``sessions/<id>/events/<n>.json`` and the current V1 ``conversations/<id>/events/event-*.json``. The counts
were made from the files by a reader of OpenHands' source, not of ours."""

import shutil
from collections import Counter
from pathlib import Path

import pytest
from helpers import REAL

from backscroll.ingest.sources import openhands

OPENHANDS = REAL / "openhands"


def first_event(folder: str) -> Path:
    events = OPENHANDS / folder / "events"
    found = [p for p in events.iterdir() if openhands.claims(p)]
    assert len(found) == 1, found
    return found[0]


def records(folder: str) -> list:
    return openhands.read_whole(first_event(folder), {}).units[0].records


@pytest.mark.parametrize(("folder", "expected"), [
    # user messages; agent text (messages, thoughts, the finish); reasoning; calls (commands, edits, IPython); outputs
    ("sessions/63b4315947a049e2b7a51249b3d4fcc3", {"user": 1, "assistant": 3, "call": 2, "output": 2}),
    ("sessions/basic-gui-mode-trajectory", {"user": 1, "assistant": 5, "call": 4, "output": 4}),
    ("conversations/cd94562403b9487ebdd4018e3f531dfd", {"user": 2, "assistant": 2, "call": 1, "output": 1}),
    ("conversations/cli447hifollowupiterativecasea",
     {"user": 4, "assistant": 6, "reasoning": 4, "call": 2, "output": 2}),
])
def test_real_conversations_hold_what_a_reader_of_openhands_counts(folder, expected):
    counted: Counter = Counter()
    for r in records(folder):
        counted[r.content_type if r.content_type == "reasoning" else
                ("call" if r.tool_name else "output") if r.role == "tool" else r.role] += 1
    assert dict(counted) == expected


@pytest.mark.parametrize("folder", ["sessions/basic-gui-mode-trajectory",
                                    "conversations/cd94562403b9487ebdd4018e3f531dfd"])
def test_a_command_with_no_output_answers_with_its_exit_code(folder):
    recs = records(folder)
    call = next(r for r in recs if r.command and ("mkdir" in r.text or "pwd" in r.text))
    output = next(r for r in recs if r.role == "tool" and not r.tool_name and r.tool_call_id == call.tool_call_id)
    assert output.text == "[The command completed with exit code 0.]" and not output.is_error


def test_an_edit_keeps_the_code_it_wrote():
    edits = [r for r in records("sessions/basic-gui-mode-trajectory") if r.tool_name == "str_replace_editor"]
    assert len(edits) == 2
    assert "command: create\npath: /workspace/todo-app/index.html\nfile_text: <!DOCTYPE html>" in edits[0].text
    assert "start: 1" not in edits[0].text


def test_both_layouts_are_found_under_the_default_roots(backscroll_home, backscroll_index):
    store = backscroll_home.home / ".openhands"
    shutil.copytree(OPENHANDS / "sessions", store / "sessions")
    shutil.copytree(OPENHANDS / "conversations", store / "conversations")
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    import backscroll

    status = backscroll.status(home=backscroll_home.data)
    assert status.agents["openhands"].sessions == 4
    v1 = [s for s in backscroll.sessions(home=backscroll_home.data) if s.session_id.startswith("cd9456")]
    assert v1 and v1[0].cwd == "/workspace/project/software-agent-sdk"
