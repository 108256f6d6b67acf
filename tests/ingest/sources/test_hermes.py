"""Hermes Agent: a database Hermes 0.19.0 wrote itself (tests/data/hermes-generated, see its README). The counts were
made from the database's rows by reading them, not by running our reader."""


import shutil
import sqlite3
from collections import Counter

from helpers import TESTS, rows

import backscroll
from backscroll.ingest.sources import hermes

GENERATED = TESTS / "data" / "hermes-generated" / "state.db"
PLAIN, SHELL, DELEGATING, SUBAGENT, TUI = ("20261205_210504_47ffcc", "20261205_210513_d360eb",
                                           "20261205_210520_870d2f", "20261205_210521_5defed",
                                           "20261205_210544_23e79b")


def installed(backscroll_home, into=".hermes"):
    db = backscroll_home.home / into / "state.db"
    db.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(GENERATED, db)
    return db


def counted(records) -> dict:
    return dict(Counter(r.content_type if r.content_type in ("reasoning", "summary") else
                        ("call" if r.is_call else "output") if r.role == "tool" else r.role for r in records))


def show(backscroll_home, session):
    return backscroll.show(session, home=backscroll_home.data)


def test_a_database_hermes_wrote_holds_its_sessions(backscroll_home, backscroll_index):
    installed(backscroll_home)
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0 and not out.report.unreadable
    got = show(backscroll_home, SHELL)
    assert counted(got.records) == {"user": 1, "reasoning": 2, "assistant": 2, "call": 1, "output": 1}
    call, output = (r for r in got.records if r.role == "tool")
    assert call.text == "echo hello-from-tool && ls /nonexistent-dir" and call.tool_name == "terminal"
    assert output.is_error and output.text.startswith("hello-from-tool\nls: cannot access")  # (exit code 2)
    assert got.session["cwd"] == "/tmp/g/r/others/run1/proj"
    assert got.records[0].timestamp == "2026-12-05T21:05:14.594Z" and got.records[0].author == "human"
    assert show(backscroll_home, TUI).session["title"] == "Fake pty session"


def test_a_subagent_is_a_session_linked_to_the_one_that_delegated(backscroll_home, backscroll_index):
    installed(backscroll_home)
    backscroll_index(embed=False)
    sub = show(backscroll_home, SUBAGENT)
    assert sub.session["parent_session_id"] == DELEGATING and sub.session["is_sidechain"]
    assert sub.session["cwd"] == "/tmp/g/r/others/run1/proj"  # (Hermes leaves it empty: the delegator's)
    assert (sub.records[0].text, sub.records[0].author) == ("Say the word SUBAGENT-OK and stop.", "agent")
    delegated = [r.text for r in show(backscroll_home, DELEGATING).records if r.role == "tool" and not r.is_call]
    assert delegated == ["Hello! This is a scripted reply from the fake server."]  # (what the subagent reported)


def test_a_compaction_in_place_leaves_its_summary_and_no_second_copy_of_what_it_kept(backscroll_home,
                                                                                    backscroll_index):
    installed(backscroll_home)
    backscroll_index(embed=False)
    got = show(backscroll_home, TUI).records
    # twelve rows it summarised (kept, inactive), its summary, the two it kept (copied after the summary: not
    # stored again), and the turn after it
    prompts = [r.text for r in got if r.role == "user"]
    assert prompts == ["Hello there, RUNCMD please", "What next?", "First extra turn", "Second extra turn RUNCMD",
                       "After compaction turn"]
    summaries = [r.text for r in got if r.content_type == "summary"]
    assert len(summaries) == 1 and summaries[0].startswith("## Historical Task Snapshot")
    assert "## Summary\nThe user greeted the agent" in summaries[0] and "END OF CONTEXT SUMMARY" not in summaries[0]
    assert got[-1].text == "Hello! This is a scripted reply from the fake server."  # (a reply of its own)


def test_new_rows_are_read_and_rows_written_again_are_not_stored_twice(backscroll_home, backscroll_index):
    db = installed(backscroll_home)
    backscroll_index(embed=False)
    before = rows(backscroll_home, "SELECT COUNT(*) AS n FROM records")[0]["n"]
    conn = sqlite3.connect(db)
    with conn:  # a /retry: Hermes deletes the session's rows and writes them again, under new ids
        kept = conn.execute("SELECT session_id, role, content, timestamp, active, compacted FROM messages "
                            "WHERE session_id = ? ORDER BY id", (PLAIN,)).fetchall()
        conn.execute("DELETE FROM messages WHERE session_id = ?", (PLAIN,))
        conn.executemany("INSERT INTO messages (session_id, role, content, timestamp, active, compacted) "
                         "VALUES (?, ?, ?, ?, ?, ?)", kept)
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp, active, compacted) "
                     "VALUES (?, 'user', 'and one more thing', 1796505000.5, 1, 0)", (PLAIN,))
    conn.close()
    backscroll_index(embed=False)
    assert rows(backscroll_home, "SELECT COUNT(*) AS n FROM records")[0]["n"] == before + 1
    assert show(backscroll_home, PLAIN).records[-1].text == "and one more thing"


def test_hermes_searching_backscroll_leaves_an_echo(backscroll_home, backscroll_index):
    db = installed(backscroll_home)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("INSERT INTO messages (session_id, role, content, tool_calls, timestamp, active, compacted) "
                     "VALUES (?, 'assistant', '', ?, 1796505000.0, 1, 0)", (PLAIN, '[{"id": "call_e", "type": '
                     '"function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"backscroll '
                     'search job queue\\"}"}}]'))
    conn.close()
    backscroll_index(embed=False)
    echoes = rows(backscroll_home, "SELECT text FROM records WHERE is_echo = 1")
    assert [r["text"] for r in echoes] == ["backscroll search job queue"]


def test_the_home_and_its_profiles_are_read_and_nothing_else(backscroll_home, backscroll_index, monkeypatch):
    monkeypatch.setenv("HERMES_HOME", str(backscroll_home.root / "hh"))
    (backscroll_home.root / "hh" / "cache").mkdir(parents=True)
    (backscroll_home.root / "hh" / "cache" / "state.db").write_text("not ours")  # (a cache is not walked)
    shutil.copyfile(GENERATED, backscroll_home.root / "hh" / "state.db")
    (backscroll_home.root / "hh" / "profiles" / "work").mkdir(parents=True)
    profile = backscroll_home.root / "hh" / "profiles" / "work" / "state.db"
    shutil.copyfile(GENERATED, profile)
    conn = sqlite3.connect(profile)
    with conn:  # (a profile's sessions are its own)
        conn.execute("UPDATE sessions SET id = 'work_' || id, parent_session_id = 'work_' || parent_session_id")
        conn.execute("UPDATE messages SET session_id = 'work_' || session_id")
    conn.close()
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "hermes"]
    assert roots == [(backscroll_home.root / "hh", "env $HERMES_HOME")]
    out = backscroll_index(embed=False)
    assert not out.report.unreadable
    paths = {r["source_path"] for r in rows(backscroll_home, "SELECT DISTINCT source_path FROM records")}
    assert {p.split("#")[0] for p in paths} == {str(backscroll_home.root / "hh" / "state.db"),
                                                str(backscroll_home.root / "hh" / "profiles" / "work" / "state.db")}


def test_what_a_summary_and_a_result_say():
    assert hermes.summary_text("[CONTEXT SUMMARY]: we fixed the parser") == "[CONTEXT SUMMARY]: we fixed the parser"
    assert hermes.summary_text("just a reply") is None
    assert hermes.result_text('{"output": "", "exit_code": 0, "error": "timed out"}') == ("timed out", True)
    assert hermes.result_text('{"output": "ok", "exit_code": 0, "error": null}') == ("ok", False)
    assert hermes.result_text("plain text") == ("plain text", False)
    assert hermes.result_text('{"results": [{"status": "timeout", "summary": null, "error": "Subagent timed out"}]}') \
        == ("Subagent timed out", True)
    assert hermes.content_text('\x00json:[{"type": "text", "text": "look"}, {"type": "image_url"}]') == "look"
    assert hermes.content_text("stored as a BLOB \u00e9".encode()) == "stored as a BLOB \u00e9", "(no longer dropped)"
    assert hermes.content_text(b"\x00json:[{\"type\": \"text\", \"text\": \"x\"}]") == "x"


def session(db, sid: str, messages: list[tuple], source: str = "cli", parent: str | None = None) -> None:
    """A session written into a copy of the database as Hermes writes one: ``(role, content, time, extra)`` rows."""
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("INSERT INTO sessions (id, source, parent_session_id, started_at, cwd) VALUES (?, ?, ?, ?, '/w')",
                     (sid, source, parent, messages[0][2]))
        for role, content, at, *extra in messages:
            observed = extra[0] if extra else 0
            conn.execute("INSERT INTO messages (session_id, role, content, timestamp, active, compacted, observed) "
                         "VALUES (?, ?, ?, ?, 1, 0, ?)", (sid, role, content, at, observed))
    conn.close()


SUMMARY = ("[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below.\n"
           "## Summary\nWe chose SKIP LOCKED for the job queue.\n\n--- END OF CONTEXT SUMMARY — respond below ---")


def test_what_two_compactions_copy_is_stored_once_and_a_new_turn_that_repeats_one_is_kept(backscroll_home,
                                                                                          backscroll_index):
    """A compaction writes, in one go (one time), copies of the first turns, its summary and copies of the last
    turns; a turn after it is the person's, even when it says what an earlier one said."""
    db = installed(backscroll_home)
    session(db, "s_two", [
        ("user", "continue", 100.0), ("assistant", "queue chosen", 101.0), ("user", "and the retries?", 110.0),
        ("assistant", "three, with backoff", 111.0),
        ("user", "continue", 200.0), ("assistant", "queue chosen", 200.0), ("assistant", SUMMARY, 200.0),
        ("user", "and the retries?", 200.0), ("assistant", "three, with backoff", 200.0),
        ("user", "continue", 260.0), ("assistant", "done", 261.0),
        ("assistant", SUMMARY.replace("SKIP LOCKED", "SKIP LOCKED and retries"), 300.0), ("user", "continue", 300.0),
        ("assistant", "done", 300.0), ("user", "ship it", 330.0)])
    backscroll_index(embed=False)
    got = [(r.role, r.content_type, r.text) for r in show(backscroll_home, "s_two").records]
    assert [t for role, kind, t in got if role == "user"] == ["continue", "and the retries?", "continue", "ship it"]
    assert [t[:20] for _r, kind, t in got if kind == "summary"] == ["## Summary\nWe chose ", "## Summary\nWe chose "]


def test_a_branch_opens_with_its_parents_turns_stored_once(backscroll_home, backscroll_index):
    db = installed(backscroll_home)
    session(db, "s_branch", [("user", "Alpha one", 517.493), ("assistant", "Hello!", 517.494),
                             ("user", "Golf seven", 525.972), ("assistant", "Seven.", 526.015)], parent=PLAIN)
    backscroll_index(embed=False)
    assert [r.text for r in show(backscroll_home, "s_branch").records] == ["Golf seven", "Seven."]


def test_what_the_runtime_writes_in_the_persons_place_is_the_harnesss(backscroll_home, backscroll_index):
    db = installed(backscroll_home)
    skill = ('[IMPORTANT: The user has invoked the "review-code" skill, indicating they want you to follow it.]\n'
             "# Review code\nRead every changed file.\n\nThe user has provided the following instruction alongside "
             "the skill invocation: check the parser module")
    session(db, "s_words", [("user", skill, 10.0), ("user", "[System: Continue now. Execute the tool calls.]", 20.0),
                            ("user", "[Alice|10042]\nhas anyone seen the deploy logs?", 30.0, 1),
                            ("user", "what did [CONTEXT SUMMARY]: say?", 40.0)])
    session(db, "s_cron", [("user", "[IMPORTANT: You are running as a scheduled cron job.] Summarise the logs", 50.0)],
            source="cron")
    backscroll_index(embed=False)
    got = [(r.text, r.author, r.content_type) for r in show(backscroll_home, "s_words").records]
    assert got == [("check the parser module", "human", "text"),
                   ("[System: Continue now. Execute the tool calls.]", "harness", "text"),
                   ("[Alice|10042]\nhas anyone seen the deploy logs?", "harness", "text"),
                   ("what did [CONTEXT SUMMARY]: say?", "human", "text")]
    assert [r.author for r in show(backscroll_home, "s_cron").records] == ["harness"]


def test_a_value_that_is_not_utf8_costs_only_itself(backscroll_home, backscroll_index):
    db = installed(backscroll_home)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE messages SET content = CAST(X'68656C6C6FFF' AS TEXT) WHERE id = 1")
    conn.close()
    out = backscroll_index(embed=False)
    assert not out.report.unreadable
    assert show(backscroll_home, PLAIN).records[0].text == "hello\ufffd"
    assert counted(show(backscroll_home, SHELL).records)["call"] == 1


def test_a_session_whose_work_dir_changes_alone_is_read_again(backscroll_home, backscroll_index):
    db = installed(backscroll_home)
    backscroll_index(embed=False)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE sessions SET cwd = '/srv/moved' WHERE id = ?", (PLAIN,))
    conn.close()
    backscroll_index(embed=False)
    assert show(backscroll_home, PLAIN).session["cwd"] == "/srv/moved"


def test_a_database_made_before_the_first_session_holds_none_and_is_no_error(backscroll_home, backscroll_index):
    """Hermes may make ``state.db`` with another of its own tables alone before any session: nothing to read, and
    no source that could not be read on every search. A database of another program's tables is not Hermes's, and
    is reported."""
    db = backscroll_home.home / ".hermes" / "state.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE async_delegations (id TEXT PRIMARY KEY, payload TEXT)")
    conn.commit()
    conn.close()
    out = backscroll_index(embed=False)
    assert not out.report.unreadable and not rows(backscroll_home, "SELECT * FROM records")
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, body TEXT)")
    conn.commit()
    conn.close()
    out = backscroll_index(embed=False)
    assert [why for _path, why in out.report.unreadable] == ["no sessions and messages tables: not a Hermes database"]


def test_a_message_of_a_role_not_known_is_counted_for_status_not_dropped_unsaid(backscroll_home, backscroll_index):
    """A role Hermes may add (``developer``) made no record and was said nowhere: bad input is reported."""
    db = installed(backscroll_home)
    session(db, "s_roles", [("system", "You are Hermes.", 100.0), ("user", "which queue?", 101.0),
                            ("developer", "prefer the stdlib", 102.0), ("developer", "be brief", 103.0),
                            ("assistant", "SKIP LOCKED", 104.0)])
    backscroll_index(embed=False)
    assert [r.text for r in show(backscroll_home, "s_roles").records] == ["which queue?", "SKIP LOCKED"]
    unknown = {u["entry_type"]: u["count"] for u in backscroll.status(config=backscroll_home.config())
               ["agents"]["hermes"]["unknown"]}
    assert unknown == {"role developer": 2}, unknown
