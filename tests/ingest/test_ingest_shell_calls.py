"""Whether a tool call ran a shell command is decided once, at ingest, and kept with the call.

Re-classification (after an echo-rule change) revisits the calls stored as shell calls, whatever
their tool is called: a new agent declares its shell tool in its own module and nothing central.
"""

import json
import sqlite3

from helpers import rows

from backscroll.ingest import echo as classify
from backscroll.ingest.sources import AGENTS, Agent, ParsedLine
from backscroll.ingest.sync import reclassify
from backscroll.store.db import RECORD_COLUMNS, Store
from backscroll.store.schema import migrate
from backscroll.types import Record, SessionInfo

NEW_TOOL = "zz_run_it"  # a shell tool no existing agent names


def _new_agent(root):
    def parse_line(obj, line_no, session):
        call, out = f"c{line_no}", f"call-{line_no}"
        records = [Record(call, "assistant", "tool", obj["text"], line_no, tool_name=obj["tool"], tool_call_id=out,
                          command=obj.get("command")),
                   Record(f"r{line_no}", "tool", "tool", "some output", line_no, tool_call_id=out)]
        return ParsedLine(records, {})

    return Agent("zz", lambda env: (root, "default"), lambda p: p.suffix == ".zz",
                 lambda p: SessionInfo(p.stem, "zz"), parse_line, shell_tools=frozenset({NEW_TOOL}))


def test_a_new_agents_shell_tool_is_reclassified_without_a_central_list(backscroll_home, backscroll_index,
                                                                         monkeypatch, tmp_path):
    root = tmp_path / "zz-sessions"
    root.mkdir()
    lines = [
        {"tool": NEW_TOOL, "text": "backscroll search 'retry policy'", "command": "backscroll search 'retry policy'"},
        {"tool": NEW_TOOL, "text": "ls -la", "command": "ls -la"},
        # Not a shell call: its text names backscroll, but nothing ran it.
        {"tool": "zz_write", "text": "zz_write\ncontent: backscroll search 'retry policy'"},
    ]
    (root / "one.zz").write_text("".join(json.dumps(x) + "\n" for x in lines))
    monkeypatch.setitem(AGENTS, "zz", _new_agent(root))
    assert NEW_TOOL in classify.SHELL_TOOLS, "the registry gives the names; nothing is listed centrally"
    backscroll_index(embed=False)
    calls = rows(backscroll_home, "SELECT text, is_echo, is_shell FROM records WHERE is_call = 1 ORDER BY id")
    assert [(c["is_echo"], c["is_shell"]) for c in calls] == [(1, 1), (0, 1), (0, 0)]

    store = Store.open(backscroll_home.config().db_path)
    try:
        store.set_meta("classifier_version", "0")  # as if classified by older rules
        store.conn.execute("UPDATE records SET is_echo = 0")
        assert reclassify(store) == 1, "the new agent's echo call is found again"
    finally:
        store.close()
    flags = rows(backscroll_home, "SELECT record_id, is_echo FROM records ORDER BY id")
    assert [(f["record_id"], f["is_echo"]) for f in flags] == [("c1", 1), ("r1", 1), ("c2", 0), ("r2", 0),
                                                               ("c3", 0), ("r3", 0)]


def test_calls_stored_before_the_fact_was_kept_are_marked_by_the_names_of_then(tmp_path):
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    try:
        migrate(conn)  # then undo the last migration: a store from before it
        conn.execute("ALTER TABLE records DROP COLUMN is_shell")
        conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm008_shell_calls'")
        conn.execute("PRAGMA user_version = 7")
        for i, (tool, is_call) in enumerate((("Bash", 1), ("exec_command", 1), ("Read", 1), ("Bash", 0))):
            row = dict.fromkeys((c for c in RECORD_COLUMNS if c != "is_shell"), 0) | {
                "record_id": f"r{i}", "session_id": "s", "agent": "claude", "role": "tool", "content_type": "tool",
                "tool_name": tool, "is_call": is_call, "text": "ls", "source_path": "/x.jsonl", "content_hash": "h"}
            conn.execute(f"INSERT INTO records ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                         tuple(row.values()))
        conn.commit()
        migrate(conn)
        marked = conn.execute("SELECT record_id FROM records WHERE is_shell = 1 ORDER BY id").fetchall()
    finally:
        conn.close()
    assert [r[0] for r in marked] == ["r0", "r1"]
