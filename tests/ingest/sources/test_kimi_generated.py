"""Kimi: a session kimi-cli 1.49.0 wrote itself (tests/data/kimi-generated, see its README), and a layout a version
does not read, which status names instead of indexing nothing in silence."""


import hashlib
import shutil
from collections import Counter

from helpers import TESTS

import backscroll

DATA = TESTS / "data" / "kimi-generated"
WORK = "/tmp/research/kimi/run/work"
SESSION = "2794b12b-1865-4ab2-b0aa-97ca3033a6b2"


def the_generated_session(backscroll_home, files=("context.jsonl", "wire.jsonl", "state.json")):
    """The session kimi-cli wrote, where it keeps it in the test's home (its folder), and its kimi.json."""
    share = backscroll_home.home / ".kimi"
    folder = share / "sessions" / hashlib.md5(WORK.encode()).hexdigest() / SESSION
    folder.mkdir(parents=True)
    for name in files:
        shutil.copyfile(DATA / name, folder / name)
    shutil.copyfile(DATA / "kimi.json", share / "kimi.json")
    return folder


def test_a_session_kimi_cli_wrote_holds_what_its_context_file_holds(backscroll_home, backscroll_index):
    the_generated_session(backscroll_home)
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0
    got = backscroll.show(SESSION, home=backscroll_home.data)
    kinds = Counter(r.content_type if r.content_type == "reasoning" else
                    ("call" if r.is_call else "output") if r.role == "tool" else r.role for r in got.records)
    # four prompts; five replies and two thoughts; Shell and ReadFile, each with its result (ReadFile's an error)
    assert dict(kinds) == {"user": 4, "assistant": 5, "reasoning": 2, "call": 2, "output": 2}
    assert got.session["cwd"] == WORK and got.session["title"] == "Show me notes.txt"


def test_status_names_layouts_this_version_does_not_read(backscroll_home, backscroll_index, session_builder):
    """A layout of an agent this version reads but not that layout (``NOT_READ``: Mistral Vibe 1's single files) is
    named, not indexed in silence."""
    old = backscroll_home.home / ".vibe/logs/session/session_20251001_100000_ab12cd34.json"
    old.parent.mkdir(parents=True)
    old.write_text('{"metadata": {}, "messages": []}')
    session_builder.claude("p").user("hello")
    backscroll_index(embed=False)
    warnings = backscroll.status(home=backscroll_home.data).warnings
    assert [w for w in warnings if w.startswith("vibe: ")] == [
        f"vibe: {old} is one of the Mistral Vibe 1 sessions this version does not read; they are not indexed"]


def test_status_names_agents_this_version_does_not_read(backscroll_home, backscroll_index, session_builder):
    """Grok Build, Junie CLI ...: a history that holds them is told what is not indexed."""
    home = backscroll_home.home
    for path in (home / ".grok/sessions/%2Fhome%2Fdev/0b5e/chat_history.jsonl",
                 home / ".junie/sessions/session-1/events.jsonl"):
        path.parent.mkdir(parents=True)
        path.write_text("")
    session_builder.claude("p").user("hello")
    backscroll_index(embed=False)
    warnings = backscroll.status(home=backscroll_home.data).warnings
    assert [w.split(":")[0] for w in warnings if "this version does not read" in w] == ["grok", "junie"]


def test_a_kimi_session_is_dated_by_its_wire_log_and_harness_text_is_the_harnesss(backscroll_home, backscroll_index):
    """Kimi's context lines carry no time: a prompt is dated by its turn's start in wire.jsonl, the rest by the
    file's last write; a notification is the harness's, and what a compaction leaves is a summary."""
    import json

    from backscroll.dates import format_ts, parse_ts

    folder = the_generated_session(backscroll_home)
    with (folder / "context.jsonl").open("a") as fh:
        for line in ({"role": "user", "content": '<notification id="n1">the build finished</notification>'},
                     {"role": "user", "content": [
                         {"type": "text", "text": "<system>Previous context has been compacted. Here is the "
                                                  "compaction output:</system>"},
                         {"type": "text", "text": "Summary: the notes file was read; missing.txt is absent."}]}):
            fh.write(json.dumps(line) + "\n")
    backscroll_index(embed=False)
    got = backscroll.show(SESSION, home=backscroll_home.data)
    assert all(r.timestamp for r in got.records)
    first = next(r for r in got.records if r.text == "Show me notes.txt")
    assert first.timestamp == format_ts(parse_ts("2026-12-02T14:55:34.724Z"))
    assert got.session["started_at"] == first.timestamp
    note = next(r for r in got.records if "build finished" in r.text)
    assert note.author == "harness"
    summary = next(r for r in got.records if r.text.startswith("Summary:"))
    assert (summary.role, summary.content_type) == ("assistant", "summary")
    assert not any(r.text.startswith("<system>Previous context") for r in got.records)
    found = backscroll.search("notes file", home=backscroll_home.data, since="2026-12-01", mode="lexical")
    assert found.results, "a date filter finds kimi's records"


def test_a_kimi_reply_is_dated_by_its_turn_and_a_prompt_asked_twice_by_each_turn(backscroll_home, backscroll_index):
    """Lines take their turn's start, the prompts matched to the wire log's turns in order: a reply never comes
    before its prompt, and a prompt asked twice ("continue") is dated by each of its turns."""
    import json
    import os

    folder = the_generated_session(backscroll_home, files=())
    turns = [("continue", 1796300000.0), ("something else", 1796303600.0), ("continue", 1796307200.0)]
    with (folder / "wire.jsonl").open("w") as fh:
        for asked, at in turns:
            fh.write(json.dumps({"timestamp": at, "message": {"type": "TurnBegin",
                                                              "payload": {"user_input": asked}}}) + "\n")
    with (folder / "context.jsonl").open("w") as fh:
        for asked, _at in turns:
            fh.write(json.dumps({"role": "user", "content": asked}) + "\n")
            fh.write(json.dumps({"role": "assistant", "content": f"done: {asked}"}) + "\n")
    os.utime(folder / "context.jsonl", (1796900000, 1796900000))  # (a week later: no line takes it)
    backscroll_index(embed=False)
    got = backscroll.show(SESSION, home=backscroll_home.data)
    times = [r.timestamp or "" for r in got.records]
    assert times == sorted(times) and len(set(times)) == 3, times
    assert times[0] == times[1] and times[4] == times[5] and times[0] < times[4]
