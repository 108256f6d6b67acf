"""Aider's inputs timed by the input history beside the chat log, on a real pair of files.

tests/data/real/aider/afi-core holds a chat log and the ``.aider.input.history`` committed with it (the same
commit; see ORIGIN.md). The times below were read from the input history by hand: the first input of the first
session was typed at 11:41:32.156157, and the sixth session's last entry ("/edit *") at 2025-07-17 18:47:35.746,
the day after that session started.
"""

import shutil

import pytest
from helpers import REAL, in_zone, index_aider_repo, rows

from backscroll.ingest.sources import aider, aider_inputs

AFI = REAL / "aider" / "afi-core" / ".aider.chat.history.md"


utc = in_zone("UTC")


def test_each_input_and_what_follows_it_take_the_time_it_was_typed(utc):
    units = aider.read_whole(AFI, {}).units
    first = units[0].records
    asked = next(r for r in first if r.role == "user")
    assert asked.text.startswith("add a comment at the top of schemas/pipeline_config_schema.ts")
    assert asked.timestamp == "2025-07-15T11:41:32.156Z"
    assert first[0].timestamp == "2025-07-15T11:38:37.000Z", "the banner keeps the session's start"
    assert all(r.timestamp == asked.timestamp for r in first[first.index(asked):]), "the reply follows its input"
    long = units[5].records
    assert (long[0].timestamp, max(r.timestamp or "" for r in long)) == ("2025-07-16T20:11:30.000Z",
                                                                         "2025-07-17T18:47:35.746Z")
    users = [r for u in units for r in u.records if r.role == "user"]
    assert len(users) == 28 and all(r.timestamp != u.records[0].timestamp for u in units for r in u.records
                                    if r.role == "user"), "every input of the log is in the input history"


def test_without_an_input_history_every_record_keeps_the_sessions_start(utc, tmp_path):
    shutil.copyfile(AFI, tmp_path / AFI.name)
    units = aider.read_whole(tmp_path / AFI.name, {}).units
    assert {r.timestamp for r in units[5].records} == {"2025-07-16T20:11:30.000Z"}


def test_an_input_no_entry_holds_keeps_the_time_before_it_and_answers_are_passed_over():
    typed = aider_inputs.entries("\n# 2025-07-15 11:39:27.886544\n+Y\n\n# 2025-07-15 11:41:32.5\n+fix the\n+tests  \n"
                                 "\n# 2025-07-15 11:50:00\n+/run pytest\n\n# 2025-07-15 12:00:00\n+/undo\n"
                                 "\n# 2025-07-15 12:10:00\n+/drop\n\n# 2025-07-15 18:00:00\n+/undo\n")
    assert [t for _w, t in typed] == ["Y", "fix the\ntests  ", "/run pytest", "/undo", "/drop", "/undo"]
    assert [t for _w, t in aider_inputs.entries("# 2025-13-45 10:00:00\n+no such day\n# 2025-01-02 10:00:00\n+ok")] \
        == ["ok"], "an entry with no such day is skipped, not the file"
    # (Aider logs again what an /ask asked; the history keeps one entry for an input repeated at once)
    inputs = ["a plan Aider logged again", "fix the\ntests", "/run pytest", "/undo", "/undo", "/drop"]
    first = aider_inputs.Clock(typed, "start")
    assert [first.at(t) for t in inputs] == ["start"] * 6, "a first reading only collects the inputs"
    again = first.aligned()
    times = [again.at(t) or "" for t in inputs]
    assert times[0] == "start" and times[1] < times[2] < times[3] == times[4] < times[5]
    assert times[5] < "2025-07-15T18", "the second /undo takes the first's time, not the /undo typed hours later"


def test_a_session_is_updated_when_its_last_input_was_typed(utc, backscroll_home, backscroll_index):
    index_aider_repo(backscroll_home, backscroll_index, "afi-core")
    got = rows(backscroll_home, "SELECT started_at, updated_at FROM sessions WHERE started_at LIKE '2025-07-16T20:11%'")
    assert [(r["started_at"], r["updated_at"]) for r in got] == [("2025-07-16T20:11:30.000Z",
                                                                  "2025-07-17T18:47:35.746Z")]


@pytest.mark.parametrize(("raw", "text"), [
    ("# aider chat started".encode("utf-16"), "# aider chat started"),
    (b"\xef\xbb\xbf# aider", "# aider"),
    (b"\xff\xfe\r\x00\n\x00\r\n# aider chat", "\r\n\r\n# aider chat"),  # (a shell's UTF-16 line, then UTF-8)
    (b"caf\xc3\xa9 \xff", "café \ufffd"),
])
def test_a_chat_log_is_read_in_the_encoding_it_was_written_in(raw, text):
    from backscroll.ingest.sources import decoded

    assert decoded(raw) == text


def test_a_log_begun_by_a_windows_shell_holds_no_session_of_junk(tmp_path, utc):
    path = tmp_path / AFI.name
    path.write_bytes(b"\xff\xfe\r\x00\n\x00\r\n# aider chat started at 2025-09-01 14:45:11\r\n\r\n#### hi there  \r\n")
    units = aider.read_whole(path, {}).units
    assert [u.session.session_id.rsplit("-", 1)[1] for u in units] == ["20250901T144511"]
    assert [r.text for r in units[0].records] == ["hi there"]
