"""Adversarial session sources (issue 13, "Nothing lost, nothing leaked"): odd paths, files that shrink
or are replaced, deep and half-broken JSON, FIFOs and devices, huge files, unreadable sources."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from agent_homes import ZED_SCHEMA, _wal
from helpers import rows, texts
from opencode_db import OpenCodeDB, oc_root

import backscroll
from backscroll.ingest.sources import gemini, jsontext, render_input

LATIN1_DIR = os.fsdecode(b"-home-dev-caf\xe9")  # a directory name with a Latin-1 byte (not UTF-8)


def cli_env(home) -> dict:
    env = {**os.environ, "HOME": str(home.home), "BACKSCROLL_HOME": str(home.data), "BACKSCROLL_EMBEDDER": "fake"}
    env.pop("OPENCODE_DATA_DIR", None)
    return env


def run_cli(home, *args) -> subprocess.CompletedProcess:
    # The timeout only turns a hang into a failure; nothing here measures time.
    return subprocess.run([sys.executable, "-m", "backscroll", *args], env=cli_env(home), capture_output=True,
                          text=True, timeout=120)


def gemini_chats(home, project="shop") -> Path:
    chats = home.home / ".gemini" / "tmp" / project / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    return chats


def gemini_msg(mid, kind, text, **extra):
    return {"id": mid, "timestamp": "2026-10-01T09:00:00.000Z", "type": kind, "content": text, **extra}


def deep(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = {"x": value}
    return value


# -- 1. a non-UTF-8 path ------------------------------------------------------------------------

def test_non_utf8_path_is_stored_escaped_and_never_stops_the_others(session_builder, backscroll_home,
                                                                     backscroll_index):
    healthy = session_builder.claude()
    healthy.user("the healthy session")
    odd = session_builder.claude()
    odd.user("a session under a Latin-1 directory name")
    target = backscroll_home.claude_projects / LATIN1_DIR / odd.path.name
    target.parent.mkdir(parents=True)
    odd.path.rename(target)
    out = backscroll_index()
    assert sorted(texts(backscroll_home)) == ["a session under a Latin-1 directory name", "the healthy session"]
    assert out.report.unreadable == []
    stored = {r["source_path"] for r in rows(backscroll_home)}
    assert str(backscroll_home.claude_projects / "-home-dev-caf\\xe9" / odd.path.name) in stored
    assert any("UTF-8" in n for _p, n in out.report.notices)
    # later syncs go on: lines appended to both files are stored
    healthy.user("appended to the healthy one")
    with open(target, "a") as fh:
        fh.write(json.dumps(dict(json.loads(target.read_text().splitlines()[0]), uuid="u-2",
                                 message={"role": "user", "content": "appended to the odd one"})) + "\n")
    out = backscroll_index()
    assert {"appended to the healthy one", "appended to the odd one"} <= set(texts(backscroll_home))
    assert run_cli(backscroll_home, "index").returncode == 0
    assert backscroll.status(config=backscroll_home.config())["agents"]["claude"]["gone_from_disk"] == 0
    with open(target, "a") as fh:  # a search's own sync reads it too
        fh.write(json.dumps(dict(json.loads(target.read_text().splitlines()[0]), uuid="u-3",
                                 message={"role": "user", "content": "zeppelin hangar under the odd name"})) + "\n")
    found = backscroll.search("zeppelin hangar", config=backscroll_home.config(), sync=True, mode="lexical")
    assert [h.text for h in found.results] == ["zeppelin hangar under the odd name"]
    target.unlink()
    assert backscroll.status(config=backscroll_home.config())["agents"]["claude"]["gone_from_disk"] == 1


def test_a_file_that_fails_rolls_back_alone(session_builder, backscroll_home, backscroll_index):
    first = session_builder.claude(session_id="0a000000-0000-4000-8000-000000000001")
    first.user("first file")
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-broken01.json"
    path.write_text('{"sessionId": "g1", "messages": [')  # caught mid-rewrite
    last = session_builder.claude(session_id="ff000000-0000-4000-8000-000000000001")
    last.user("last file")
    out = backscroll_index()
    assert sorted(texts(backscroll_home)) == ["first file", "last file"]
    assert [p for p, _w in out.report.unreadable] == [str(path)]


# -- 3. emptied, truncated or replaced files -----------------------------------------------------

def test_emptied_file_keeps_its_records_and_says_so(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("the decision: keep the queue in postgres")
    s.assistant("agreed, SKIP LOCKED is enough")
    backscroll_index()
    s.path.write_bytes(b"")
    out = backscroll_index()
    assert texts(backscroll_home) == ["the decision: keep the queue in postgres", "agreed, SKIP LOCKED is enough"]
    assert out.report.notices and "emptied" in out.report.notices[0][1]
    issues = backscroll.status(config=backscroll_home.config())["source_issues"]
    assert [(i["path"], i["kind"]) for i in issues] == [(str(s.path), "rewritten")]


def test_file_replaced_by_unrelated_content_keeps_the_old_records(session_builder, backscroll_home,
                                                                 backscroll_index):
    s = session_builder.claude()
    s.user("old question about the cache")
    backscroll_index()
    other = session_builder.claude()
    other.user("a brand new conversation in the same file")
    s.path.write_bytes(other.path.read_bytes())  # a different conversation (other record ids), same file
    other.path.unlink()
    out = backscroll_index()
    assert out.report.notices and "rewritten" in out.report.notices[0][1]
    assert texts(backscroll_home) == ["old question about the cache", "a brand new conversation in the same file"]


def test_a_record_changed_in_the_middle_keeps_its_place_in_the_session(backscroll_home, backscroll_index):
    # Every view of a session reads its records by id. A re-read that changes a record among others
    # (a newer parser: the upgrade to parser version 5 replaced the first prompt of many sessions) gave
    # the new version a new id at the end: `show` opened with the answer, and an untitled session was
    # titled by its second prompt. Records before the change keep their ids; a record the file no
    # longer holds stays where it was.
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-order001.json"

    def write(*messages):
        path.write_text(json.dumps({"sessionId": "g-order", "projectHash": "x", "startTime": "2026-10-01T09:00:00Z",
                                    "messages": list(messages)}))

    write(gemini_msg("m1", "user", "first prompt"), gemini_msg("m2", "gemini", "first answer"),
          gemini_msg("m3", "user", "second prompt"), gemini_msg("m4", "gemini", "second answer"),
          gemini_msg("m5", "user", "third prompt"))
    backscroll_index()
    ids = {r["text"]: r["id"] for r in rows(backscroll_home)}
    write(gemini_msg("m1", "user", "first prompt"), gemini_msg("m2", "gemini", "first answer"),
          gemini_msg("m3", "user", "second prompt, edited"), gemini_msg("m5", "user", "third prompt"),
          gemini_msg("m6", "gemini", "third answer"))  # m3 changed, m4 gone from the file
    out = backscroll_index()
    assert out.report.records_replaced == 1
    assert texts(backscroll_home) == ["first prompt", "first answer", "second prompt, edited", "second answer",
                                      "third prompt", "third answer"]  # in id order, as every view reads them
    after = {r["text"]: r["id"] for r in rows(backscroll_home)}
    assert (after["first prompt"], after["first answer"]) == (ids["first prompt"], ids["first answer"])
    assert len(rows(backscroll_home, "SELECT * FROM records")) == 6  # nothing doubled
    view = backscroll.show("g-order", config=backscroll_home.config(), sync=True)
    assert [h.text for h in view.records][:3] == ["first prompt", "first answer", "second prompt, edited"]


def test_gemini_rewind_across_syncs_keeps_the_rewound_turn(backscroll_home, backscroll_index):
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-rewind01.jsonl"
    lines = [{"sessionId": "g-rewind", "projectHash": "x", "startTime": "2026-10-01T09:00:00.000Z"},
             gemini_msg("m1", "user", "first prompt"), gemini_msg("m2", "gemini", "an answer we later rewound")]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    backscroll_index()
    more = [{"$rewindTo": "m2"}, gemini_msg("m3", "gemini", "the answer after the rewind")]
    with open(path, "a") as fh:
        fh.write("".join(json.dumps(x) + "\n" for x in more))
    out = backscroll_index()
    assert texts(backscroll_home) == ["first prompt", "an answer we later rewound", "the answer after the rewind"]
    assert out.report.notices and "1 earlier record" in out.report.notices[0][1]
    # a record id emitted again with new content replaces it, and its earlier text is kept after it
    with open(path, "a") as fh:
        fh.write(json.dumps(gemini_msg("m3", "gemini", "the answer, edited")) + "\n")
    out = backscroll_index()
    assert out.report.records_replaced == 1
    assert texts(backscroll_home) == ["first prompt", "an answer we later rewound", "the answer, edited",
                                      "the answer after the rewind"]


# -- 4. deep JSON ------------------------------------------------------------------------------

def test_deep_tool_input_does_not_cost_a_gemini_session(backscroll_home, backscroll_index):
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-deep0001.json"
    doc = {"sessionId": "g-deep", "messages": [
        gemini_msg("m1", "user", "please write the nested config"),
        gemini_msg("m2", "gemini", "writing it", toolCalls=[{"id": "c1", "name": "write_file", "args": deep(300)}]),
        gemini_msg("m3", "user", "thanks, that worked"),
    ]}
    path.write_text(json.dumps(doc))
    out = backscroll_index()
    assert out.report.unreadable == []
    got = texts(backscroll_home)
    assert got[0] == "please write the nested config" and got[-1] == "thanks, that worked"
    assert any(t.startswith("write_file") and jsontext.DEEP in t for t in got)


def test_deep_part_does_not_cost_the_opencode_database(backscroll_home, backscroll_index, monkeypatch):
    monkeypatch.delenv("OPENCODE_DATA_DIR", raising=False)
    db = OpenCodeDB(oc_root(backscroll_home) / "opencode.db")
    try:
        s = db.session("Nested config")
        s.user("generate the nested config")
        turn = s.assistant()
        turn.tool("write", {"content": deep(300)}, "wrote it")
        turn.text("Done, the config is written.")
        other = db.session("Something else")
        other.user("an unrelated session in the same database")
        out = backscroll_index()
    finally:
        db.close()
    assert out.report.unreadable == []
    got = texts(backscroll_home)
    assert "Done, the config is written." in got and "an unrelated session in the same database" in got


def test_lines_nested_past_the_decoders_limit_are_kept(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("before")
    envelope = s._envelope("assistant", {"role": "assistant", "content": [
        {"type": "tool_use", "id": "deep1", "name": "Write", "input": "DEEP"}]})
    nested = '{"x":' * 1500 + '"bottom"' + "}" * 1500  # past orjson's 1024 levels to decode
    s.raw(json.dumps(envelope).replace('"DEEP"', nested))
    s.tool_result("deep1", "written")
    s.user("after")
    out = backscroll_index()
    assert out.report.lines_skipped == 0
    got = texts(backscroll_home)
    assert got[0] == "before" and got[-1] == "after" and got[1].startswith("Write") and "written" in got


def test_render_input_caps_depth():
    text = render_input({"a": deep(400)})
    assert text.startswith("a: {") and jsontext.DEEP in text


# -- 5. lone surrogates ------------------------------------------------------------------------

def test_json_with_lone_surrogates_is_kept_with_replacement_characters(session_builder, backscroll_home,
                                                                       backscroll_index):
    s = session_builder.claude()
    s.user("x")
    line = json.loads(s.path.read_text().splitlines()[0])
    line["uuid"] = "cut-emoji"
    line["message"] = {"role": "user", "content": "cut mid-emoji \ud83d and a pair \ud83d\ude00"}
    s.raw(json.dumps(line, ensure_ascii=True))  # \ud83d escapes, as a Node agent writes them
    out = backscroll_index()
    assert out.report.lines_skipped == 0
    assert texts(backscroll_home)[-1] == "cut mid-emoji \ufffd and a pair \U0001f600"


def test_surrogate_repair_leaves_escaped_backslashes_alone():
    assert jsontext.loads(b'["\\\\ud83d", "\\ud83d", "\\udc00x"]') == ["\\ud83d", "\ufffd", "\ufffdx"]


# -- 6. FIFOs and devices ----------------------------------------------------------------------

def test_fifo_and_dev_zero_named_like_sessions_do_not_hang(session_builder, backscroll_home):
    s = session_builder.claude()
    s.user("readable session")
    folder = s.path.parent
    fifo = folder / "0b000000-0000-4000-8000-00000000f1f0.jsonl"
    os.mkfifo(fifo)
    zero = folder / "0c000000-0000-4000-8000-0000000000de.jsonl"
    zero.symlink_to("/dev/zero")
    res = run_cli(backscroll_home, "index", "--no-embed")
    assert res.returncode == 4, res.stderr
    assert "not a regular file" in res.stderr
    assert texts(backscroll_home) == ["readable session"]
    res = run_cli(backscroll_home, "search", "readable", "--mode", "lexical", "--json")
    assert res.returncode == 0 and "readable session" in res.stdout


# -- 9. oversized whole-file sessions ----------------------------------------------------------

def test_oversized_gemini_json_is_not_read_and_is_remembered(backscroll_home, backscroll_index, monkeypatch):
    monkeypatch.setattr(gemini, "MAX_WHOLE_BYTES", 1024 * 1024)
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-sparse01.json"
    with open(path, "wb") as fh:
        fh.truncate(8 * 1024 * 1024)  # sparse: costs no disk
    first = backscroll_index()
    assert [p for p, _w in first.report.unreadable] == [str(path)]
    assert "larger than" in first.report.unreadable[0][1]
    assert first.report.newly_unreadable == 1
    second = backscroll_index()
    assert second.report.files_changed == 0, "an unchanged oversized file is not read again"
    assert [p for p, _w in second.report.unreadable] == [str(path)] and second.report.newly_unreadable == 0
    path.write_text(json.dumps({"sessionId": "g-small", "messages": [gemini_msg("m1", "user", "small now")]}))
    third = backscroll_index()
    assert third.report.unreadable == [] and texts(backscroll_home) == ["small now"]
    assert backscroll.status(config=backscroll_home.config())["source_issues"] == []


def test_whole_file_formats_default_to_a_documented_cap():
    assert gemini.MAX_WHOLE_BYTES == 256 * 1024 * 1024


# -- 23. unreadable files and directories in status ---------------------------------------------

def test_unreadable_files_and_directories_are_kept_for_status(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("readable")
    fifo = s.path.parent / "0b000000-0000-4000-8000-00000000f1f0.jsonl"
    os.mkfifo(fifo)
    run_cli(backscroll_home, "index", "--no-embed")  # in a child: a reader that opens the FIFO would hang
    info = backscroll.status(config=backscroll_home.config())
    assert [(i["path"], i["kind"]) for i in info["source_issues"]] == [(str(fifo), "unreadable")]
    assert "not a regular file" in info["source_issues"][0]["reason"]
    res = run_cli(backscroll_home, "status")
    assert str(fifo) in res.stdout and "not a regular file" in res.stdout


def test_unlistable_directory_is_reported(session_builder, backscroll_home, backscroll_index, monkeypatch):
    s = session_builder.claude()
    s.user("readable")
    bad = backscroll_home.claude_projects / "-home-dev-private"
    bad.mkdir()
    real_scandir = os.scandir

    def scandir(path="."):  # root reads every directory: a permission error cannot be staged with chmod
        if os.fspath(path) == str(bad):
            raise PermissionError(13, "Permission denied", str(bad))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    out = backscroll_index()
    assert (str(bad), "directory cannot be listed: Permission denied") in out.report.unreadable
    info = backscroll.status(config=backscroll_home.config())
    assert {(i["path"], i["kind"]) for i in info["source_issues"]} == {(str(bad), "directory")}
    monkeypatch.setattr(os, "scandir", real_scandir)
    backscroll_index()
    assert backscroll.status(config=backscroll_home.config())["source_issues"] == []


def test_found_but_unreadable_is_not_called_not_found(backscroll_home):
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-broken01.json"
    path.write_text('{"sessionId": "g1", "messages": [')
    res = run_cli(backscroll_home, "search", "anything", "--mode", "lexical")
    assert res.returncode == 3
    assert "no session files were found" not in res.stderr
    assert "1 session file found but unreadable" in res.stderr


# -- 25. emptied sessions and skipped lines of vanished files ----------------------------------

def test_emptied_session_is_listed_with_its_records(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("how do we rotate the signing keys?")
    s.summary("Key rotation")
    backscroll_index()
    s.path.write_bytes(b"")
    backscroll_index()
    listed = backscroll.sessions(config=backscroll_home.config(), sync=True, all=True)
    assert [(x["records"], x["title"]) for x in listed] == [(1, "Key rotation")]


def test_sessions_without_records_are_not_listed(session_builder, backscroll_home, backscroll_index):
    session_builder.claude().user("a real session")
    empty = session_builder.claude()
    empty.summary("only a title, nothing said")
    backscroll_index()
    assert [x["records"] for x in backscroll.sessions(config=backscroll_home.config(), sync=True, all=True)] == [1]


def test_skipped_lines_of_a_deleted_file_are_dropped(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("kept")
    s.raw("{not json")
    backscroll_index()
    assert backscroll.status(config=backscroll_home.config())["skipped_lines"] == 1
    s.path.unlink()
    backscroll_index()
    assert backscroll.status(config=backscroll_home.config())["skipped_lines"] == 0
    assert texts(backscroll_home) == ["kept"]


def test_a_byte_order_mark_and_a_stray_latin1_byte_cost_no_record(session_builder, backscroll_home, backscroll_index):
    """A file a Windows tool saved with a BOM keeps its first line; a byte that is not UTF-8 is read as U+FFFD,
    and the message it sits in lands."""
    s = session_builder.claude()
    s.user("the first prompt, behind a byte-order mark")
    s.assistant("an answer about the cafe menu")
    s.path.write_bytes(b"\xef\xbb\xbf" + s.path.read_bytes().replace(b"cafe", b"caf\xe9"))
    out = backscroll_index()
    assert out.report.lines_skipped == 0
    assert texts(backscroll_home) == ["the first prompt, behind a byte-order mark",
                                      "an answer about the caf\ufffd menu"]


def test_a_stored_path_is_read_back_to_the_file_on_disk(tmp_path):
    from backscroll.ingest.rows import disk_path, on_disk, store_text

    odd = tmp_path / os.fsdecode(b"a\\x41b-\xff.jsonl")  # a literal backslash-x beside a byte that is not UTF-8
    odd.write_text("{}\n")
    stored = store_text(str(odd))
    assert stored.endswith("a\\x41b-\\xff.jsonl") and on_disk(stored) and disk_path(stored) == str(odd)
    plain = tmp_path / "a\\x41b.jsonl"
    plain.write_text("{}\n")
    assert disk_path(store_text(str(plain))) == str(plain)
    assert not on_disk(str(tmp_path / "gone\\xff.jsonl"))


def test_a_time_no_index_can_hold_is_no_time_and_breaks_nothing(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("the orchestrator drops retries")
    for when in ("2999-01-01T00:00:00Z", "1500-01-01T00:00:00Z", 99_999_999_999_999, -1, 0):
        s.raw(json.dumps({"type": "user", "message": {"role": "user", "content": f"a clock gone wrong {when}"},
                          "uuid": f"u-{when}", "timestamp": when, "sessionId": s.session_id, "cwd": "/x"}))
    backscroll_index()
    clocks = rows(backscroll_home, "SELECT timestamp FROM records WHERE text LIKE 'a clock gone wrong%'")
    assert [r["timestamp"] for r in clocks] == [None] * 5, "(an epoch of 0 or -1: a clock never set, not 1969)"
    for args in (["search", "--json", "clock gone wrong"], ["list", "--json"], ["show", s.session_id]):
        r = run_cli(backscroll_home, *args)
        assert r.returncode == 0 and "internal" not in r.stdout + r.stderr, (args, r.stdout, r.stderr)
    assert "a clock gone wrong" in run_cli(backscroll_home, "search", "clock gone wrong", "--mode", "lexical").stdout


def test_a_stored_time_the_index_cannot_hold_is_indexed_without_it():
    from backscroll.indexes.lexical_schema import document, to_datetime

    assert to_datetime("2999-01-01T00:00:00.000Z") is None and to_datetime("1500-01-01T00:00:00.000Z") is None
    assert to_datetime("2026-10-01T00:00:00.000Z") is not None
    document((1, "claude", "p", "user", "text", "s", 0, "2999-01-01T00:00:00.000Z", "a stored time", None, None))


def test_status_warns_of_files_no_session_was_read_from(backscroll_home, backscroll_index):
    """A file no reader claims (a layout this version does not know), or one of lines its reader does not know, is
    named."""
    sessions = backscroll_home.home / ".codex" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "thread-2027.log").write_text("a layout from the future\n")
    projects = backscroll_home.home / ".claude" / "projects" / "-work-app"
    projects.mkdir(parents=True)
    (projects / "a1b2c3d4-0000-4000-8000-000000000000.jsonl").write_text(json.dumps({"type": "hologram"}) + "\n")
    backscroll_index(embed=False)
    said = run_cli(backscroll_home, "status").stdout
    assert f"codex: {sessions} holds files but no session was read" in said, said
    assert "claude:" in said and "holds files but no session was read" in said.split("claude:", 1)[1], said


def test_status_is_quiet_about_agents_installed_but_never_used(backscroll_home, backscroll_index):
    """What Gemini, Qwen, OpenCode and Hermes write before their first session (settings, logs, a database with no
    session yet) is no format this version does not know; a Qwen chat of lines it does not know still is."""
    import sqlite3

    home = backscroll_home.home
    gemini_tmp = home / ".gemini" / "tmp" / "abc123"
    (gemini_tmp / "chats").mkdir(parents=True)
    (gemini_tmp / "logs.json").write_text("[]")
    (gemini_tmp / ".project_root").write_text("/work/app")
    (home / ".qwen" / "debug").mkdir(parents=True)
    (home / ".qwen" / "settings.json").write_text("{}")
    (home / ".qwen" / "debug" / "s1.txt").write_text("debug started\n")
    OpenCodeDB(oc_root(backscroll_home) / "opencode.db").close()
    (oc_root(backscroll_home) / "log").mkdir()
    (oc_root(backscroll_home) / "log" / "2026-12-06T000000.log").write_text("INFO start\n")
    hermes = home / ".hermes"
    (hermes / "logs").mkdir(parents=True)
    (hermes / "logs" / "agent.log").write_text("")
    state = hermes / "state.db"
    state.write_bytes((Path(__file__).parent.parent / "data" / "hermes-generated" / "state.db").read_bytes())
    with sqlite3.connect(state) as conn:
        conn.execute("DELETE FROM messages")
        conn.execute("DELETE FROM sessions")
    zed = _wal(home / ".local/share/zed/threads/threads.db", ZED_SCHEMA)  # (Zed running: its -wal and -shm beside)
    backscroll_index(embed=False)
    said = run_cli(backscroll_home, "status").stdout
    zed.close()
    assert "no session was read" not in said, said

    chats = home / ".qwen" / "projects" / "-work-app" / "chats"
    chats.mkdir(parents=True)
    (chats / "s2.jsonl").write_text(json.dumps({"kind": "hologram"}) + "\n")
    backscroll_index(embed=False)
    said = run_cli(backscroll_home, "status").stdout
    assert f"qwen: {home / '.qwen'} holds files but no session was read" in said, said
    assert "gemini:" not in said.split("Session roots")[0] and "hermes: " not in said.split("Session roots")[0], said


def test_a_search_says_a_session_file_could_not_be_read_once_not_on_every_turn(session_builder, backscroll_home,
                                                                                backscroll_index, monkeypatch):
    """An agent's every search repeated "1 session file could not be read" while the same file stayed so."""
    import backscroll

    session_builder.claude().user("the cache warms at boot").assistant("yes, from the manifest")
    backscroll_index(embed=False)
    monkeypatch.setattr(gemini, "MAX_WHOLE_BYTES", 1024 * 1024)
    path = gemini_chats(backscroll_home) / "session-2026-10-01T09-00-sparse02.json"
    with open(path, "wb") as fh:
        fh.truncate(8 * 1024 * 1024)
    said = [backscroll.search("cache warms", config=backscroll_home.config(), sync=True, mode="lexical").notes
            for _turn in range(2)]
    assert [any("could not be read" in n for n in notes) for notes in said] == [True, False], said


def test_a_record_id_that_is_no_plain_word_is_stored_as_a_digest(session_builder, backscroll_home, backscroll_index,
                                                                 backscroll_search):
    """A log's id goes before ``backscroll show`` in what an agent is told: ``a;touch x`` or an escape never does.
    Stored as a digest, the same on every read (a re-run adds nothing); plain ids stay as they are."""
    from backscroll.ingest.rows import stored_id

    s = session_builder.claude(project="shop")
    s.user("which eviction policy did we pick for the frobnicator cache?")
    s.assistant("We picked LRU with a ten minute TTL for the frobnicator cache.")
    lines = s.path.read_text().splitlines()
    hostile = json.loads(lines[-1])
    hostile["uuid"] = "a;touch /tmp/PWNED;#\u001b[2J"
    s.path.write_text("\n".join([*lines[:-1], json.dumps(hostile)]) + "\n")
    backscroll_index(embed=False)
    ids = [r["record_id"] for r in rows(backscroll_home, "SELECT record_id FROM records ORDER BY id")]
    assert len(ids) == 2 and ids[1] == stored_id("a;touch /tmp/PWNED;#\u001b[2J#0") and ids[1].startswith("x")
    assert ids[1].isalnum() and ids[0].endswith("#0") and "-" in ids[0], ids
    backscroll_index(embed=False)
    assert len(rows(backscroll_home, "SELECT record_id FROM records")) == 2
    hit = backscroll_search("LRU TTL", mode="lexical").results[0]
    assert hit.record_id == ids[1]
    from backscroll import Backscroll

    with Backscroll(home=backscroll_home.data) as bs:  # (the id as the log wrote it, from an older release's output)
        assert bs.show("a;touch /tmp/PWNED;#\u001b[2J#0", context=0).records[0].record_id == ids[1]
    assert stored_id("84ba7daa-1c2d#0") == "84ba7daa-1c2d#0" and stored_id("-rf") != "-rf"
    assert stored_id("x" * 300) == "x" * 300, "a long plain id is a shell word still"
    assert stored_id("x" * 1001) != "x" * 1001, "one past any agent's is a digest"
    token = "ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri"  # (a plain word, but a secret: no id shows it)
    secret = session_builder.claude(project="shop")
    secret.user("which cache did we pick?")
    lines = secret.path.read_text().splitlines()
    first = json.loads(lines[0])
    first["uuid"] = token
    secret.path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    backscroll_index(embed=False)
    stored = [r["record_id"] for r in rows(backscroll_home, "SELECT record_id FROM records WHERE text LIKE ?",
                                           ("which cache%",))]
    assert stored and token not in stored[0] and stored[0].startswith("x"), stored


def test_a_log_cannot_make_an_answer_unbounded_through_its_ids_places_or_tool_names(session_builder, backscroll_home,
                                                                                   backscroll_index):
    """A working directory, a tool name, a record id or a session id of hundreds of kilobytes (each answer names
    them with every hit) is stored bounded or as a digest; a session id holding an escape or a secret too, the
    same for the session, its records and its subagents; the whole search answer stays small."""
    import backscroll as bs_api
    from backscroll.ingest.rows import MAX_FIELD, stored_session_id

    s = session_builder.claude(project="shop")
    s.user("how do we rotate the plutonium sprocket keys?")
    s.assistant("Rotate the plutonium sprocket keys weekly with the vault job.")
    session = "sess-AKIAY3MRQ7XK2LPVB4NZ\u001b[2J"
    lines = []
    for n, line in enumerate(s.path.read_text().splitlines()):
        obj = json.loads(line)
        obj["sessionId"], obj["cwd"] = session, "/home/dev/" + "p" * 200_000  # (a fork's parent, to Claude Code)
        if n == 1:
            obj["uuid"] = "u" * 300_000
            obj["message"]["content"] = [{"type": "tool_use", "id": "toolu_1", "name": "T" * 200_000,
                                          "input": {"q": "plutonium sprocket"}},
                                         {"type": "text", "text": "Rotate the plutonium sprocket keys weekly."}]
        lines.append(json.dumps(obj))
    s.path.write_text("\n".join(lines) + "\n")
    backscroll_index(embed=False)
    stored = rows(backscroll_home, "SELECT record_id, session_id, parent_session_id, cwd, project, tool_name "
                                   "FROM records")
    assert stored and all(len(str(v)) <= MAX_FIELD for r in stored for v in r.values()), [
        {k: len(str(v)) for k, v in r.items()} for r in stored]
    assert {r["parent_session_id"] for r in stored} == {stored_session_id(session)}
    sessions = rows(backscroll_home, "SELECT * FROM sessions")
    assert {s["parent_session_id"] for s in sessions} == {stored_session_id(session)}
    assert not any("AKIA" in str(v) or "\x1b" in str(v) for r in [*stored, *sessions] for v in r.values())
    answer = bs_api.search("plutonium sprocket", config=backscroll_home.config(), sync=False, mode="lexical")
    assert answer.results and len(json.dumps(answer.to_dict())) < 40_000
    backscroll_index(embed=False)
    assert len(rows(backscroll_home, "SELECT record_id FROM records")) == len(stored), "the same on every read"
    assert stored_session_id("0b1f5850-1b86-4902-976b-627265ff8472") == "0b1f5850-1b86-4902-976b-627265ff8472"
    assert stored_session_id("my session") == "my session", "a space shows as itself: commands quote it"


def test_a_log_that_reuses_another_sessions_record_id_never_takes_its_place(session_builder, backscroll_home,
                                                                             backscroll_index):
    """A file read first that gives a record another session's id (hand-made, hostile, or a tool that reuses ids)
    leaves that session's record stored all the same, under an id of its own; a fork's copy of a record, the same
    text under the same id, is still stored once."""
    real = session_builder.claude(project="shop")
    real.user("which queue did we pick?")
    real.assistant("We'll use a Postgres-backed queue with SKIP LOCKED, never Redis.")
    lines = real.path.read_text()
    decision = json.loads(lines.splitlines()[-1])["uuid"]
    real.path.rename(real.path.with_suffix(".hidden"))
    other = session_builder.claude(project="other")
    other.user("anything")
    other.assistant("COLLIDER: we use Redis streams for the job queue, never Postgres.")
    olines = other.path.read_text().splitlines()
    last = json.loads(olines[-1])
    last["uuid"] = decision
    other.path.write_text("\n".join([*olines[:-1], json.dumps(last)]) + "\n")
    backscroll_index(embed=False)
    real.path.with_suffix(".hidden").rename(real.path)
    fork = real.path.with_name("0f0f0f0f-0000-4000-8000-00000000f0f0.jsonl")
    fork.write_text(lines)  # (a resumed session's new file: the same records under the same ids)
    backscroll_index(embed=False)
    stored = texts(backscroll_home)
    assert any("SKIP LOCKED" in t for t in stored) and any("COLLIDER" in t for t in stored), stored
    assert sum("SKIP LOCKED" in t for t in stored) == 1, "the fork's copy is stored once"
    ids = [r["record_id"] for r in rows(backscroll_home, "SELECT record_id FROM records WHERE text LIKE ?",
                                        ("%SKIP LOCKED%",))]
    assert ids and ids[0].startswith(decision + "#0~"), ids
    backscroll_index(embed=False)
    assert len(texts(backscroll_home)) == len(stored), "the same on every read"
    real.path.write_text(real.path.read_text().replace("never Redis", "not Redis"))  # (its file rewritten)
    backscroll_index(embed=False)
    kept = [r["record_id"] for r in rows(backscroll_home, "SELECT record_id FROM records WHERE text LIKE ?",
                                         ("%SKIP LOCKED%",))]
    assert ids[0] in kept and len(kept) == 2, "the new text stored, the earlier one kept, as any record's"
    backscroll_index(embed=False)
    assert len(rows(backscroll_home, "SELECT 1 FROM records WHERE text LIKE ?", ("%SKIP LOCKED%",))) == 2


def test_a_session_an_older_reader_stored_under_a_secret_id_is_gone_after_the_re_read(session_builder, backscroll_home,
                                                                                     backscroll_index):
    """An older release stored a session under the id the log gave, secret and all; read again by this one, its
    records go to the digest and the old session row, with what it said, goes too."""
    from backscroll.ingest.redact import Redactor
    from backscroll.ingest.rows import stored_session_id

    s = session_builder.codex(project="shop")
    s.user("where do the nightly backups go?").assistant("to the cold bucket")
    raw = "rollout-2026-10-01T09-00-00-ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri"  # (no uuid: the name is the id)
    s.path.rename(s.path.with_name(f"{raw}.jsonl"))
    backscroll_index(embed=False)
    digest = stored_session_id(raw, Redactor())
    assert digest != raw and {r["session_id"] for r in rows(backscroll_home)} == {digest}
    with sqlite3.connect(backscroll_home.data / "backscroll.db") as db:  # (as the older release left it)
        db.execute("UPDATE records SET session_id = ?", (raw,))
        db.execute("UPDATE sessions SET session_id = ?", (raw,))
        db.execute("UPDATE source_files SET parse_version = 26")
    backscroll_index(embed=False)
    assert {r["session_id"] for r in rows(backscroll_home, "SELECT session_id FROM sessions")} == {digest}
    assert {r["session_id"] for r in rows(backscroll_home)} == {digest}


def test_a_lone_surrogate_or_a_byte_order_mark_costs_no_whole_file_reader_its_session(backscroll_home,
                                                                                      backscroll_index):
    """Cline, Copilot and Amp read whole JSON documents: one ``\\ud83d`` (a string Node cut mid-emoji) or a BOM made
    the whole task, chat or thread unreadable, where a line reader kept the record with U+FFFD."""
    import shutil

    from editor_homes import CODE, DATA

    home = backscroll_home.home
    cut = {"cline": (DATA / "cline/tasks", home / ".cline/data/tasks", "1760000000000/ui_messages.json",
                     b'"text":"The nightly export'),
           "amp": (DATA / "amp/threads", home / ".local/share/amp/threads",
                   "T-019a2f4c-7d1e-7b3a-9c55-2e8f61a0d4b7.json", b'"text": "test_retry_backoff'),
           "copilot-cli": (DATA / "copilot/session-state", home / ".copilot/session-state",
                           "5b1c9e2a-7d3f-4a8b-9c6e-1f2a3b4c5d6e/events.jsonl", b'"content":"Webhook signatures'),
           "copilot-code": (DATA / "copilot/workspaceStorage", home / CODE / "workspaceStorage",
                            "9f8e7d6c/chatSessions/c4d5e6f7-0a1b-4c2d-8e3f-405162738495.json",
                            b'"text":"Invoice PDFs')}
    for source, dest, name, at in cut.values():
        shutil.copytree(source, dest)
        data = (dest / name).read_bytes()
        assert at in data, name
        value = at.index(b'"', at.index(b":")) + 1  # (where the text's value starts)
        (dest / name).write_bytes(data.replace(at, at[:value] + b"zcutemoji \\ud83d " + at[value:], 1))
    ui = home / ".cline/data/tasks/1760000000000/ui_messages.json"
    ui.write_bytes(b"\xef\xbb\xbf" + ui.read_bytes())  # (and a BOM, as a Windows tool writes it)
    out = backscroll_index(embed=False)
    assert not out.report.unreadable, out.report.unreadable
    landed = rows(backscroll_home, "SELECT agent, text FROM records "
                                   "WHERE text LIKE 'zcutemoji%'")
    assert sorted(r["agent"] for r in landed) == ["amp", "cline", "copilot", "copilot"], landed
    assert all(r["text"].startswith("zcutemoji \ufffd ") for r in landed), landed


def test_nan_infinity_and_numbers_past_a_float_cost_a_line_nothing():
    assert jsontext.loads(b'{"costUSD": NaN, "t": -Infinity, "n": 1e999, "ok": 1.5e300, "s": "NaN", "x": "\\ud83d"}'
                          ) == {"costUSD": None, "t": None, "n": None, "ok": 1.5e300, "s": "NaN", "x": "\ufffd"}


def test_a_utf16_document_with_its_byte_order_mark_is_read():
    doc = {"messages": [{"type": "user", "content": "héllo from PowerShell 😀"}]}
    for codec, mark in (("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff")):
        assert jsontext.loads(mark + json.dumps(doc, ensure_ascii=False).encode(codec)) == doc
