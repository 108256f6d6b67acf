"""Incremental, idempotent sync and bad input: nothing lost, nothing doubled."""

import json
import os
import stat

import pytest
from helpers import rows, texts
from typer.testing import CliRunner

import backscroll
from backscroll.cli.app import app
from backscroll.ingest import reader
from backscroll.ingest import rows as ingest_rows


def test_bad_lines_are_skipped_and_counted_and_the_rest_lands(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("first good line")
    s.raw('{"type": "user", "message": {"role": "user", "content": "cut in the mid')  # malformed JSON
    s.raw("[1, 2, 3]")  # an array, not an object
    s.raw(b'{"type": "user", "message": {"role": "user", "content": "bad \xff byte"}}')  # not UTF-8
    s.raw("42")
    s.write({"type": "user", "uuid": "x", "message": {"role": "user", "content": 42}})  # wrong type
    s.write({"type": "user", "uuid": "y", "message": "not an object"})
    s.raw("")
    s.user("last good line")
    out = backscroll_index()
    assert texts(backscroll_home) == ["first good line", "bad \ufffd byte", "last good line"]  # (read with U+FFFD)
    assert out.report.lines_skipped == 5
    skipped = rows(backscroll_home, "SELECT line, reason FROM skipped_lines ORDER BY line")
    assert [r["line"] for r in skipped] == [2, 3, 5, 6, 7]
    reasons = " | ".join(r["reason"] for r in skipped)
    assert "malformed JSON" in reasons and "list" in reasons


def test_a_claude_line_without_a_type_is_skipped_not_taken_for_a_new_kind(session_builder, backscroll_home,
                                                                        backscroll_index):
    s = session_builder.claude()
    s.user("kept")
    s.raw('{"message": ' + "[" * 5000 + "]" * 5000 + "}")  # deep, and no type at all
    s.raw('{"type": 7, "message": {"role": "user", "content": "seven"}}')
    out = backscroll_index()
    assert texts(backscroll_home) == ["kept"] and out.report.lines_skipped == 2
    reasons = [r["reason"] for r in rows(backscroll_home, "SELECT reason FROM skipped_lines ORDER BY line")]
    assert reasons == ["the entry has no type", "type is int, expected text"]
    assert rows(backscroll_home, "SELECT count(*) AS n FROM unknown_entries")[0]["n"] == 0


def test_huge_lines_are_skipped_and_huge_texts_capped(session_builder, backscroll_home, backscroll_index, monkeypatch):
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 8192)
    s = session_builder.claude()
    s.user("before")
    s.user("x" * 20_000)  # a line over the (lowered) line limit
    s.user("after")
    monkeypatch.setattr(ingest_rows, "MAX_TEXT_BYTES", 1000)
    s.tool("cat big.log", "y" * 3000)
    backscroll_index()
    recs = rows(backscroll_home)
    assert [r["text"][:6] for r in recs] == ["before", "after", "cat bi", "yyyyyy"]
    big = recs[-1]
    assert big["text_truncated"] == 1 and len(big["text"]) == 1000
    assert rows(backscroll_home, "SELECT reason FROM skipped_lines")[0]["reason"].startswith("line longer than")


def test_a_secret_the_cap_cuts_in_two_is_redacted_whole(session_builder, backscroll_home, backscroll_index,
                                                       monkeypatch):
    """Redaction runs before the cap: the head of a key cut at the cap would match no rule and be stored."""
    monkeypatch.setattr(ingest_rows, "MAX_TEXT_BYTES", 1000)
    s = session_builder.claude()
    s.tool("cat .env", "y" * 980 + " ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri and more")
    backscroll_index()
    out = rows(backscroll_home)[-1]
    assert out["text_truncated"] == 1
    assert "Zr8Mq3" not in out["text"] and out["text"] == "y" * 980 + " ", "no half of a key, nor of its mark"


def test_the_redaction_window_ends_between_tokens():
    """Redaction shrinks a text, so a token cut at the window's edge could come back inside the cap, half shown."""
    from backscroll.ingest.rows import REDACT_WINDOW, redaction_window

    head = "word " * ((REDACT_WINDOW - 20) // 5)
    assert redaction_window(head + "ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri tail") == head[:-1]
    blob = "x" * (REDACT_WINDOW + 10)  # (no white space near the end: the window's length)
    assert redaction_window(blob) == blob[:REDACT_WINDOW]


def test_appended_lines_are_read_from_the_stored_offset(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("one")
    s.assistant("two")
    backscroll_index()
    first_ids = [r["id"] for r in rows(backscroll_home)]
    state = rows(backscroll_home, "SELECT * FROM source_files")[0]
    assert state["offset"] == s.path.stat().st_size and state["lines"] == 2
    s.user("three")
    out = backscroll_index()
    assert out.report.records_added == 1 and out.report.records_replaced == 0
    recs = rows(backscroll_home)
    assert [r["id"] for r in recs][:2] == first_ids, "existing records are not rewritten"
    assert [r["text"] for r in recs] == ["one", "two", "three"]
    assert recs[2]["line"] == 3


def test_unchanged_files_cost_nothing_and_reruns_never_duplicate(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("alpha")
    c = session_builder.codex()
    c.user("beta")
    first = backscroll_index()
    second = backscroll_index()
    third = backscroll_index()
    assert first.report.records_added == 2
    assert (second.report.files_changed, second.report.records_added) == (0, 0)
    assert (third.report.files_changed, third.report.records_added) == (0, 0)
    # touching a file (new mtime, same bytes) re-checks it but adds nothing
    os.utime(s.path, ns=(1, 1))
    fourth = backscroll_index()
    assert (fourth.report.files_changed, fourth.report.records_added) == (1, 0)
    assert len(rows(backscroll_home)) == 2


def test_a_rewritten_file_replaces_its_records_and_keeps_their_earlier_texts(session_builder, backscroll_home,
                                                                             backscroll_index):
    """A log rewritten in place (the same lines saying something else) gives its records their new texts, and
    the permanent record keeps the earlier ones, each after the record it was, once however often it syncs."""
    s = session_builder.claude()
    s.user("original question")
    s.assistant("original answer")
    backscroll_index()
    s.path.write_text(s.path.read_text().replace("original", "edited"))
    out = backscroll_index()
    assert out.report.records_replaced == 2 and "2 earlier record" in out.report.notices[0][1]
    assert texts(backscroll_home) == ["edited question", "original question", "edited answer", "original answer"]
    assert backscroll_index().report.records_added == 0
    s.user("a question written after")
    backscroll_index()
    assert texts(backscroll_home)[-1] == "a question written after" and len(texts(backscroll_home)) == 5


def test_a_codex_rollout_rewritten_in_place_keeps_what_it_said(session_builder, backscroll_home, backscroll_index,
                                                               backscroll_search):
    s = session_builder.codex()
    s.user("what did we settle on for capture retries?")
    s.assistant("three attempts with jitter, then a dead letter queue")
    backscroll_index(embed=False)
    s.path.write_text(s.path.read_text().replace("what did we settle on for capture retries?", "start over"))
    backscroll_index(embed=False)
    assert backscroll_search("settle capture retries", mode="lexical").results


def test_a_line_put_into_a_codex_rollout_adds_one_record_and_stores_nothing_twice(session_builder, backscroll_home,
                                                                                   backscroll_index):
    """A rollout's ids are its line numbers: a line put in above others moves them to new ids, and they are
    neither stored twice nor counted as added."""
    s = session_builder.codex()
    for i in range(3):
        s.user(f"question {i} about capture retries")
        s.assistant(f"answer {i}: jitter")
    backscroll_index(embed=False)
    lines = s.path.read_text().splitlines(keepends=True)
    s.path.write_text("".join(lines[:3] + [lines[4].replace("answer 0: jitter", "an aside")] + lines[3:]))
    out = backscroll_index(embed=False)
    assert out.report.records_added == 1
    assert texts(backscroll_home) == ["question 0 about capture retries", "an aside", "answer 0: jitter",
                                      "question 1 about capture retries", "answer 1: jitter",
                                      "question 2 about capture retries", "answer 2: jitter"]
    s.path.write_text("".join(lines[:3] + lines[5:]))  # and then a line taken out: kept, nothing doubled
    assert backscroll_index(embed=False).report.records_added == 0
    assert sorted(texts(backscroll_home)) == sorted(["an aside", *(f"question {i} about capture retries"
                                                                   for i in range(3)),
                                                     *(f"answer {i}: jitter" for i in range(3))])


def test_a_message_that_goes_on_replaces_its_shorter_self(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("how do we page results?")
    s.assistant("by offset")
    backscroll_index()
    s.path.write_text(s.path.read_text().replace("by offset", "by offset, from one ranking read once"))
    backscroll_index()
    assert texts(backscroll_home) == ["how do we page results?", "by offset, from one ranking read once"]


def test_shrunk_file_is_read_again_and_what_it_lost_is_kept(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("keep me")
    s.user("dropped from the file, kept in the store")
    backscroll_index()
    lines = s.path.read_bytes().splitlines(keepends=True)
    s.path.write_bytes(lines[0])
    out = backscroll_index()
    assert texts(backscroll_home) == ["keep me", "dropped from the file, kept in the store"]
    assert [p for p, _n in out.report.notices] == [str(s.path)] and "1 earlier record" in out.report.notices[0][1]
    s.user("written after the shrink")
    backscroll_index()
    assert texts(backscroll_home)[-1] == "written after the shrink"


def test_half_written_last_line_is_picked_up_when_complete(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("complete")
    line = json.dumps(s._envelope("assistant", {"role": "assistant", "content": [{"type": "text", "text": "later"}]}))
    s.raw(line[:40], newline=False)
    out = backscroll_index()
    assert texts(backscroll_home) == ["complete"] and out.report.lines_skipped == 0
    # status names the line that waits for its end (an agent that died mid-line never gives it one)
    waiting = backscroll.status(config=backscroll_home.config())["unfinished_lines"]
    assert [(u["path"], u["line"], u["unread_bytes"]) for u in waiting] == [(str(s.path), 2, 40)]
    shown = CliRunner().invoke(app, ["status"], env={"HOME": str(backscroll_home.home), "NO_COLOR": "1",
                                                     "BACKSCROLL_HOME": str(backscroll_home.data), "COLUMNS": "200"})
    assert "1 file ends in a line with no end yet" in shown.output and f"{s.path}:2: 40 bytes" in shown.output
    s.raw(line[40:])
    backscroll_index()
    assert texts(backscroll_home) == ["complete", "later"]
    assert rows(backscroll_home, "SELECT count(*) AS n FROM skipped_lines")[0]["n"] == 0
    assert backscroll.status(config=backscroll_home.config())["unfinished_lines"] == []


def test_a_waiting_last_line_that_grew_is_not_named_before_it_is_read(session_builder, backscroll_home,
                                                                      backscroll_index):
    s = session_builder.claude()
    s.user("complete")
    s.raw('{"type": "assistant", "mess', newline=False)
    backscroll_index()
    s.raw('age": {', newline=False)  # still being written: the next sync reads it, status does not guess
    assert backscroll.status(config=backscroll_home.config())["unfinished_lines"] == []


def test_a_line_cut_short_costs_only_itself_when_the_session_goes_on(session_builder, backscroll_home,
                                                                     backscroll_index):
    """The agent died mid-line, then the session went on in the same file: the next record, appended to the
    cut-short line, lands; the cut line is reported. Read across two syncs or in one, the same."""
    for syncs, inside in ((2, False), (1, False), (1, True)):
        s = session_builder.claude()
        s.user("before the crash")
        cut = json.dumps(s._envelope("assistant", {"role": "assistant", "content": [{"type": "text", "text": "lost"}]}))
        # (mid-value; or right after a colon inside a string, the timestamp's "T09:", which is no nested value's place)
        at = cut.index(":", cut.index('"timestamp": "') + 14) + 1 if inside else 75
        s.raw(cut[:at], newline=False)
        if syncs == 2:
            backscroll_index()
        s.user("after the crash")
        s.assistant("and on")
        out = backscroll_index()
        assert texts(backscroll_home)[-3:] == ["before the crash", "after the crash", "and on"]
        skipped = rows(backscroll_home, "SELECT line, reason FROM skipped_lines WHERE path = ?", (str(s.path),))
        assert [(r["line"], r["reason"]) for r in skipped] == [(2, "cut short; the record appended to it was kept")]
        assert out.report.lines_skipped == 1


def test_a_record_appended_to_a_cut_short_line_lands_whatever_key_it_begins_with(session_builder, backscroll_home,
                                                                                 backscroll_index):
    """Claude Code 2.x begins its lines with ``parentUuid``, ``type`` or ``isSidechain`` as the entry goes; a power
    loss leaves NULs where the line was cut. The next record was found only where a line read before had begun."""
    for tail in ("", "\0" * 4096):
        s = session_builder.claude()
        s.user("before the crash")
        s.raw(json.dumps(s._envelope("assistant", {"role": "assistant", "content": "lost"}))[:60] + tail,
              newline=False)
        backscroll_index()
        line = s._envelope("user", {"role": "user", "content": "after the crash"})
        s.raw(json.dumps({"isSidechain": False, **line}))
        backscroll_index()
        assert texts(backscroll_home)[-2:] == ["before the crash", "after the crash"], tail[:1]


def test_two_lines_of_one_log_under_one_id_keep_both_records(session_builder, backscroll_home, backscroll_index):
    """A log that gives one id to two different lines (hand-made, or a tool that reuses ids): the second was dropped
    in silence, read in the same pass or a later one, where a second file's was kept apart."""
    for passes in (1, 2):
        s = session_builder.claude()
        first = s._envelope("user", {"role": "user", "content": f"firstwords alpha {passes}"})
        s.raw(json.dumps({**first, "uuid": f"u-same-{passes}"}))
        if passes == 2:
            backscroll_index()
        second = s._envelope("user", {"role": "user", "content": f"secondwords bravo {passes}"})
        s.raw(json.dumps({**second, "uuid": f"u-same-{passes}"}))
        s.raw(json.dumps({**second, "uuid": f"u-same-{passes}"}))  # (the same line twice: one record)
        backscroll_index()
        held = rows(backscroll_home, "SELECT text FROM records WHERE record_id LIKE ?", (f"u-same-{passes}%",))
        assert [r["text"] for r in held] == [f"firstwords alpha {passes}", f"secondwords bravo {passes}"], held


def test_a_broken_line_is_not_mistaken_for_a_cut_short_one(session_builder, backscroll_home, backscroll_index):
    """A line that lacks its last brace holds a complete nested object at its end: that is no record, even when it
    reads as one (a progress line's subagent prompt)."""
    c = session_builder.codex()
    c.user("kept")
    c.raw(json.dumps({"timestamp": "2026-10-01T10:00:00Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": "nested"}]}})[:-1])
    s = session_builder.claude()
    s.user("kept too")
    nested = json.dumps(s._envelope("user", {"role": "user", "content": "SUBAGENT PROMPT"}))
    s.raw(json.dumps({"type": "progress", "data": {"message": "NESTED"}}).replace('"NESTED"}}', nested))
    backscroll_index()
    assert sorted(texts(backscroll_home)) == ["kept", "kept too"]
    assert [r["reason"] for r in rows(backscroll_home, "SELECT reason FROM skipped_lines")] == ["malformed JSON"] * 2


def test_records_outlive_their_source_file(session_builder, backscroll_home, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.assistant("the cache key includes the tenant id")
    backscroll_index()
    s.path.unlink()
    backscroll_index()
    assert texts(backscroll_home) == ["the cache key includes the tenant id"]
    assert backscroll_search("tenant cache key", mode="lexical").results[0].text.startswith("the cache key")


def test_unreadable_files_are_reported_not_fatal(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("readable")
    broken = backscroll_home.claude_projects / "-home-dev-shop" / "0d7c9f1e-8d3a-4b7e-9a55-3c0f2b1e6a10.jsonl"
    broken.symlink_to(backscroll_home.root / "does-not-exist.jsonl")
    out = backscroll_index()
    assert texts(backscroll_home) == ["readable"]
    assert [p for p, _why in out.report.unreadable] == [str(broken)]


def test_store_and_data_dir_are_owner_only(session_builder, backscroll_home, backscroll_index):
    session_builder.claude().user("secret plans")
    backscroll_index()
    assert stat.S_IMODE(os.stat(backscroll_home.data).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(backscroll_home.data / "backscroll.db").st_mode) == 0o600


def test_same_record_in_two_files_is_stored_once(session_builder, backscroll_home, backscroll_index):
    """Claude copies a conversation into a new file when it is resumed or backgrounded."""
    s = session_builder.claude()
    s.user("shared history")
    copy = s.path.with_name("11111111-2222-3333-4444-555555555555.jsonl")
    copy.write_bytes(s.path.read_bytes())
    backscroll_index()
    assert texts(backscroll_home) == ["shared history"]


def test_stores_classified_by_older_rules_are_classified_again(session_builder, backscroll_home, backscroll_index,
                                                               backscroll_search):
    import sqlite3

    s = session_builder.claude()
    s.user("which port?")
    s.search_echo("staging port", "staging port is 8443")
    docs = s.tool_use("Write", {"file_path": "docs/memory.md", "content": "Run:\nbackscroll search staging port\n"})
    s.tool_result(docs, "File created")
    backscroll_index()
    db = sqlite3.connect(backscroll_home.data / "backscroll.db")
    db.execute("UPDATE records SET is_echo = 0")  # as an older rule set would have left them
    db.execute("DELETE FROM meta WHERE key = 'classifier_version'")
    db.commit()
    db.close()
    backscroll_index()
    assert [r["is_echo"] for r in rows(backscroll_home)] == [0, 1, 1, 0, 0], "a Write of docs is not a search"
    res = backscroll_search("staging port", mode="lexical")
    assert not any(h.is_echo for h in res.results) and res.echoes_hidden == 2


def test_line_numbers_hold_after_a_complete_line_without_newline(session_builder, backscroll_home, backscroll_index):
    c = session_builder.codex()
    c.user("first")
    c.raw(json.dumps({"timestamp": "2026-10-01T10:00:00Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}]}}), newline=False)
    backscroll_index()
    c.raw("")  # the newline arrives
    c.user("third")
    backscroll_index()
    got = {r["text"]: (r["line"], r["record_id"].split(":")[-1]) for r in rows(backscroll_home)}
    fresh = {}
    import shutil
    shutil.rmtree(backscroll_home.data)
    backscroll_index()
    fresh = {r["text"]: (r["line"], r["record_id"].split(":")[-1]) for r in rows(backscroll_home)}
    assert got == fresh and got["third"][0] == 6


def test_a_first_index_cut_short_reads_only_what_it_had_not_read(session_builder, backscroll_home, backscroll_index,
                                                                 monkeypatch):
    """Killed part-way (its committed groups kept), the first index's next run reads the files it had not read,
    and says nothing of a newer parser: no file was read by an older one."""
    from backscroll.ingest import sync
    from backscroll.ingest.report import Progress

    for n in range(12):
        session_builder.claude(project=f"p{n}").user(f"question {n}").assistant(f"answer {n}")
    monkeypatch.setattr(sync, "COMMIT_EVERY_RECORDS", 4)

    class Killed(Progress):
        seen = 0

        def advance(self, path: str, records: int) -> None:
            Killed.seen += 1
            if Killed.seen == 6:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        backscroll_index(progress=Killed(), embed=False)
    out = backscroll_index(embed=False)
    assert 0 < out.report.files_changed < 12 and not out.report.notices, out.report
    assert len(texts(backscroll_home)) == 24


def test_a_file_not_seen_when_a_newer_parser_came_is_read_by_it_when_next_seen(session_builder, backscroll_home,
                                                                                backscroll_index):
    """Each file's checkpoint says which parser read it: a source away when a newer parser came (a folder given
    once with --source, a drive not mounted) is read again by it when it is back, not left as the older read it."""
    import sqlite3

    session_builder.claude(project="shop").user("why is the total off by a cent?").assistant("rounding per line")
    session_builder.codex(project="shop").user("add the refund endpoint").assistant("added POST /refunds")
    backscroll_index(embed=False)
    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'parse_version'")  # (read by parser version 4)
    conn.execute("UPDATE source_files SET parse_version = 4")
    conn.commit()
    conn.close()
    codex = backscroll_home.home / ".codex"
    codex.rename(codex.with_name("codex-away"))
    away = backscroll_index(embed=False)
    assert away.report.files_changed == 1 and any("1 session file(s) read again" in n for _p, n in away.report.notices)
    waiting = backscroll.status(config=backscroll_home.config()).older_parser
    assert list(waiting.values()) == [1] and next(iter(waiting)).startswith("codex:"), "status says what waits"
    codex.with_name("codex-away").rename(codex)
    back = backscroll_index(embed=False)
    assert back.report.files_changed == 1 and any("1 session file(s) read again" in n for _p, n in back.report.notices)
    assert backscroll_index(embed=False).report.files_changed == 0  # once
    assert backscroll.status(config=backscroll_home.config()).older_parser == {}
