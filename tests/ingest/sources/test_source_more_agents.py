"""Cursor, Copilot, Cline/Roo/Kilo, Aider, Oh My Pi, Qwen Code and Kimi CLI: records of every kind,
pairing, echoes, projects, titles, subagents, reading beside a live writer, and the CLI.

The fixtures in tests/data/<agent> are hand-written, real-shaped session files (no personal data);
Cursor's SQLite databases are built in the test from the hand-written rows in tests/data/cursor.
"""


import json
import sqlite3
from pathlib import Path

import orjson
import pytest
from editor_homes import CODE, DATA, NEW, build_cursor, install_all
from helpers import rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest.sources import (
    AGENTS,
    LineError,
    ParsedLine,
    aider,
    cline,
    cline_sessions,
    copilot,
    cursor,
    hermes,
    kimi,
    kimi_code,
    omp,
    qwen,
)
from backscroll.types import SessionInfo


def by_agent(bh, agent: str) -> list[dict]:
    return rows(bh, "SELECT * FROM records WHERE agent = ? ORDER BY id", (agent,))


def sessions(bh, agent: str) -> dict[str, dict]:
    return {r["session_id"]: r for r in rows(bh, "SELECT * FROM sessions WHERE agent = ?", (agent,))}


def kinds(recs: list[dict]) -> list[tuple]:
    return [(r["role"], r["content_type"], r["tool_name"], r["text"]) for r in recs]


def assert_paired(recs: list[dict]) -> None:
    """Every tool result has a call with its id, and takes the call's name and echo flag."""
    calls = {r["tool_call_id"]: r for r in recs if r["is_call"]}
    for r in recs:
        if r["role"] == "tool" and not r["is_call"] and r["tool_call_id"]:
            call = calls[r["tool_call_id"]]
            assert (r["tool_name"], r["is_echo"]) == (call["tool_name"], call["is_echo"])


@pytest.fixture
def indexed(backscroll_home, backscroll_index):
    install_all(backscroll_home)
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0, out.report
    return backscroll_home


# -- registry and roots --------------------------------------------------------------------------

def test_every_new_agent_is_registered_with_its_roots(backscroll_home, monkeypatch):
    for name in NEW:
        assert name in AGENTS
    roots = {(r.agent, r.path, r.origin) for r in backscroll_home.config().roots}
    h = backscroll_home.home
    for expected in [("cursor", h / ".cursor/chats"), ("cursor", h / ".config/Cursor/User/globalStorage"),
                     ("copilot", h / ".copilot/session-state"), ("copilot", h / CODE / "workspaceStorage"),
                     ("cline", h / ".cline/data/tasks"),
                     ("cline", h / CODE / "globalStorage/saoudrizwan.claude-dev/tasks"),
                     ("roo", h / CODE / "globalStorage/rooveterinaryinc.roo-cline/tasks"),
                     ("kilo", h / CODE / "globalStorage/kilocode.kilo-code/tasks"),
                     ("omp", h / ".omp/agent/sessions"), ("qwen", h / ".qwen"), ("kimi", h / ".kimi/sessions")]:
        assert (*expected, "default") in roots
    assert not any(r.agent == "aider" for r in backscroll_home.config().roots)  # configured only
    for var, agent, sub in [("OMP_CODING_AGENT_DIR", "omp", "sessions"), ("KIMI_SHARE_DIR", "kimi", "sessions"),
                            ("COPILOT_HOME", "copilot", "session-state"), ("CLINE_DATA_DIR", "cline", "tasks")]:
        monkeypatch.setenv(var, str(backscroll_home.root / var))
        got = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == agent]
        assert (backscroll_home.root / var / sub, f"env ${var}") in got


def test_a_list_of_roots_in_the_config_file(backscroll_home):
    backscroll_home.data.mkdir(parents=True)
    (backscroll_home.data / "config.toml").write_text('[roots]\naider = ["/srv/a", "/srv/b"]\nkimi = "/srv/kimi"\n')
    roots = [(r.agent, str(r.path), r.origin) for r in backscroll_home.config().roots if r.agent in ("aider", "kimi")]
    assert roots == [("aider", "/srv/a", "config"), ("aider", "/srv/b", "config"), ("kimi", "/srv/kimi", "config")]


# -- records of every kind -----------------------------------------------------------------------

def test_cursor_cli_store(indexed):
    recs = [r for r in by_agent(indexed, "cursor") if r["source_path"].endswith("store.db")]
    assert kinds(recs) == [
        ("user", "text", None, "Users get logged out after ten minutes even with remember-me."),
        ("assistant", "reasoning", None, "SESSION_COOKIE_AGE may be overridden in settings."),
        ("assistant", "text", None, "Checking the session settings."),
        ("tool", "tool", "Shell", "grep -rn SESSION_COOKIE_AGE shop/settings"),
        ("tool", "tool", "Shell", "shop/settings/prod.py:88:SESSION_COOKIE_AGE = 600"),
        ("assistant", "text", None,
         "prod.py sets SESSION_COOKIE_AGE = 600 (ten minutes); remember-me needs it at 14 days."),
    ]
    assert_paired(recs)
    s = sessions(indexed, "cursor")["0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"]
    assert (s["project"], s["title"]) == ("shop", "Session cookie expiry")


def test_cursor_editor_composer(indexed):
    recs = [r for r in by_agent(indexed, "cursor") if "state.vscdb" in r["source_path"]]
    assert kinds(recs) == [
        ("user", "text", None, "The CSV import takes minutes for 50k rows."),
        ("assistant", "reasoning", None, "Each row is inserted in its own transaction."),
        ("tool", "tool", "run_terminal_cmd", "grep -n commit importer/csv.py"),
        ("tool", "tool", "run_terminal_cmd", "27:        db.commit()"),
        ("assistant", "text", None, "The importer commits after every row; batch the inserts with executemany and "
                                    "commit once per 1000 rows."),
        ("tool", "tool", "read_file", "read_file\ntargetFile: importer/csv.py"),
        ("tool", "tool", "read_file", "def import_rows(rows):"),
    ]
    assert_paired(recs)
    s = sessions(indexed, "cursor")["b7e1c2d3-4f5a-4b6c-8d7e-9f0a1b2c3d4e"]
    assert (s["project"], s["title"]) == ("shop", "Slow CSV import")


def test_cursor_editor_is_read_only_and_rereads_only_changed_composers(backscroll_home, backscroll_index):
    _cli, gdb = build_cursor(backscroll_home.home)
    conn = sqlite3.connect(gdb)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN IMMEDIATE")  # a live writer holding the write lock
    backscroll_index(embed=False)
    assert len(by_agent(backscroll_home, "cursor")) == 13
    conn.rollback()
    comp = "b7e1c2d3-4f5a-4b6c-8d7e-9f0a1b2c3d4e"
    other = {"composerId": "c0", "name": "Other", "lastUpdatedAt": 5,
             "fullConversationHeadersOnly": [{"bubbleId": "x"}]}
    with conn:
        conn.execute("INSERT INTO cursorDiskKV VALUES ('composerData:c0', ?)", (json.dumps(other),))
        conn.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:c0:x', ?)",
                     (json.dumps({"type": 1, "text": "a second composer"}),))
    conn.close()
    before = {r["record_id"]: r["id"] for r in by_agent(backscroll_home, "cursor")}
    out = backscroll_index(embed=False)
    after = {r["record_id"]: r["id"] for r in by_agent(backscroll_home, "cursor")}
    assert out.report.records_replaced == 0  # the unchanged composer was not read again
    assert ({k: v for k, v in after.items() if k.startswith(comp)}
            == {k: v for k, v in before.items() if k.startswith(comp)})
    assert "c0:x#0" in after
    with sqlite3.connect(gdb) as conn:  # a message added while ``lastUpdatedAt`` stays behind
        grown = {**other, "fullConversationHeadersOnly": [{"bubbleId": "x"}, {"bubbleId": "y"}]}
        conn.execute("INSERT INTO cursorDiskKV VALUES ('composerData:c0', ?)", (json.dumps(grown),))
        conn.execute("INSERT INTO cursorDiskKV VALUES ('bubbleId:c0:y', ?)", (json.dumps({"type": 2, "text": "ok"}),))
    conn.close()
    backscroll_index(embed=False)
    assert "c0:y#0" in {r["record_id"] for r in by_agent(backscroll_home, "cursor")}
    missing = backscroll_home.root / "elsewhere" / "globalStorage" / "state.vscdb"
    missing.parent.mkdir(parents=True)
    for read in (lambda: cursor.read_whole(missing, {}),
                 lambda: cursor.read_whole(missing.parent / "x/y/chats/z/store.db", {})):
        with pytest.raises(OSError):
            read()
    assert list(missing.parent.iterdir()) == []  # nothing created


def test_copilot_cli(indexed):
    recs = [r for r in by_agent(indexed, "copilot") if r["source_path"].endswith("events.jsonl")]
    assert kinds(recs) == [
        ("user", "text", None, "Webhook signatures fail after the proxy change. Why?"),
        ("assistant", "reasoning", None, "The proxy may re-encode the body before the HMAC is checked."),
        ("assistant", "text", None, "I'll check how the raw body reaches the verifier."),
        ("tool", "tool", "bash", 'grep -rn "request.json" app/webhooks'),
        ("tool", "tool", "bash", "app/webhooks/verify.py:18:    payload = json.dumps(request.json)"),
        ("assistant", "text", None, "The verifier re-serialises request.json, so the bytes differ from what was "
                                    "signed; verify the HMAC over request.get_data() instead."),
        ("tool", "tool", "bash", "backscroll search 'webhook hmac raw body'"),
        ("tool", "tool", "bash", "1. [assistant] verify the HMAC over the raw body"),
    ]
    assert_paired(recs)
    assert [r["is_echo"] for r in recs] == [0] * 6 + [1, 1]
    s = sessions(indexed, "copilot")["5b1c9e2a-7d3f-4a8b-9c6e-1f2a3b4c5d6e"]
    assert (s["project"], s["title"]) == ("shop", "Webhook signature failures behind the proxy")


def test_copilot_vscode_chat_session(indexed):
    recs = [r for r in by_agent(indexed, "copilot") if "chatSessions" in r["source_path"]]
    assert kinds(recs) == [
        ("user", "text", None, "Invoice PDFs render boxes instead of accented letters."),
        ("assistant", "reasoning", None, "The PDF library falls back to a core font without Latin-1 glyphs."),
        ("assistant", "text", None, "Let me check which font the renderer embeds."),
        ("tool", "tool", "run_in_terminal", "fc-list | grep -i dejavu"),
        ("tool", "tool", "run_in_terminal", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf: DejaVu Sans:style=Book"),
        ("tool", "tool", "copilot_readFile", "Reading invoice/render.py"),
        ("tool", "tool", "copilot_readFile", "c.setFont('Helvetica', 10)"),
        ("assistant", "text", None,
         "The renderer uses Helvetica; register DejaVuSans and embed it so accented letters render."),
    ]
    assert_paired(recs)
    s = sessions(indexed, "copilot")["c4d5e6f7-0a1b-4c2d-8e3f-405162738495"]
    assert (s["project"], s["title"]) == ("billing", "Invoice PDF fonts")


@pytest.mark.parametrize("agent", ["cline", "roo", "kilo"])
def test_cline_family_ui_messages(indexed, agent):
    task = str(1760000000000 + ["cline", "roo", "kilo"].index(agent))
    recs = [r for r in by_agent(indexed, agent) if r["session_id"] == task]
    assert kinds(recs) == [
        ("user", "text", None, "The nightly export job times out on large accounts. Find out why."),
        ("assistant", "reasoning", None, "The export probably loads every order into memory before writing the CSV."),
        ("assistant", "text", None, "I'll look at how the exporter pages through orders."),
        ("tool", "tool", "readFile", "readFile\npath: src/export/orders.py"),
        ("tool", "tool", "execute_command", 'grep -n "fetchall" src/export/orders.py'),
        ("tool", "tool", "execute_command", "41:    rows = cursor.fetchall()\n42:    for row in rows:"),
        ("assistant", "text", None, "The exporter calls fetchall() and holds every order in memory; streaming with "
                                    "fetchmany(5000) keeps memory flat."),
        ("assistant", "text", None, "The export"),  # left partial: the reply as far as it got before the feedback
        ("user", "text", None, "Use a server-side cursor instead of fetchmany."),
        ("tool", "tool", "execute_command", 'backscroll search "server-side cursor export"'),
        ("tool", "tool", "execute_command", "1. [assistant] named cursor with itersize=2000 in the invoice export"),
        ("assistant", "text", None, "Switched the export to a named server-side cursor with itersize=2000; memory "
                                    "stays flat on large accounts."),
    ]
    assert_paired(recs)
    assert [r["is_echo"] for r in recs][-3:] == [1, 1, 0]
    s = sessions(indexed, agent)[task]
    assert (s["project"], s["title"]) == ("shop", "The nightly export job times out on large accounts. Find out why.")


@pytest.mark.parametrize("agent", ["cline", "roo", "kilo"])
def test_cline_auto_approved_task_opened_by_a_text_message(indexed, agent):
    """Opening prompt written as the first ``say: text``; auto-approved ``say`` commands, tools and MCP requests."""
    task = str(1767000000000 + ["cline", "roo", "kilo"].index(agent))
    recs = [r for r in by_agent(indexed, agent) if r["session_id"] == task]
    assert kinds(recs) == [
        ("user", "text", None, "The CSV importer rejects files that Excel saved with a BOM. Fix it."),
        ("assistant", "text", None, "I'll read how the importer opens the file."),
        ("tool", "tool", "readFile", "readFile\npath: importer/csv_reader.py"),
        ("tool", "tool", "task_progress", "- [x] Read the importer\n- [ ] Handle the BOM"),  # the agent's todo list
        ("assistant", "text", None, "The reader opens files as utf-8, which keeps the BOM in the first header name."),
        ("tool", "tool", "execute_command", "python -m pytest tests/test_csv_reader.py -q"),
        ("tool", "tool", "execute_command",
         "FAILED tests/test_csv_reader.py::test_bom_header - KeyError: 'date'\n1 failed, 1 passed in 0.12s"),
        ("tool", "tool", "mcp:pydocs/lookup", 'mcp:pydocs/lookup\n{"codec": "utf-8-sig"}'),
        ("tool", "tool", "mcp:pydocs/lookup",
         "utf-8-sig: a UTF-8 BOM at the start of the data is skipped when decoding."),
        ("tool", "tool", "editedExistingFile", "editedExistingFile\npath: importer/csv_reader.py"),
        ("tool", "tool", "editedExistingFile",  # the edit's diff is its output: what changed is searchable
         "------- SEARCH\nencoding='utf-8'\n=======\nencoding='utf-8-sig'\n+++++++ REPLACE"),
        ("user", "text", None, "Check the notes on earlier encoding fixes too."),
        ("tool", "tool", "execute_command", 'backscroll search "utf-8-sig importer"'),
        ("tool", "tool", "execute_command", "1. [assistant] opened the bank statement export with utf-8-sig"),
        ("assistant", "text", None, "The importer now opens files as utf-8-sig, so a BOM no longer ends up in the "
                                    "first header."),
    ]
    assert [r["author"] for r in recs if r["role"] == "user"] == ["human", "human"]
    assert [r["is_call"] for r in recs if r["role"] == "tool"] == [1, 1, 1, 0, 1, 0, 1, 0, 1, 0]
    assert_paired(recs)
    assert [r["is_echo"] for r in recs][-3:] == [1, 1, 0]
    s = sessions(indexed, agent)[task]
    assert (s["project"], s["title"]) == ("ledger", recs[0]["text"])


def test_cline_only_the_first_text_before_any_request_is_the_task():
    """A first ``say: text`` without ``conversationHistoryIndex`` (older files) opens the task; one that
    answers a request (index 0 or more), or any later text, is the assistant's."""
    base = SessionInfo("t", "cline")
    older = [{"ts": 1, "type": "say", "say": "text", "text": "Add a dark theme."},
             {"ts": 2, "type": "say", "say": "text", "text": "Adding a dark theme."}]
    records, _cwd, title = cline.ui_records(older, base)
    assert [(r.role, r.text) for r in records] == [("user", "Add a dark theme."), ("assistant", "Adding a dark theme.")]
    assert title == "Add a dark theme."
    answering = [{"ts": 1, "type": "say", "say": "text", "text": "Adding a dark theme.", "conversationHistoryIndex": 0}]
    records, _cwd, title = cline.ui_records(answering, base)
    assert [(r.role, title) for r in records] == [("assistant", None)]


def test_cline_browser_subagents_new_tasks_summaries_and_the_persons_edits_are_kept():
    """Message kinds of Cline 4 (cline/cline ``ExtensionMessage.ts``) whose words were dropped."""
    j = json.dumps
    messages = [
        {"ts": 1, "type": "say", "say": "task", "text": "Check the signup page renders on mobile."},
        {"ts": 2, "type": "say", "say": "browser_action_launch", "text": "http://localhost:5173/signup"},
        {"ts": 3, "type": "say", "say": "browser_action_result",
         "text": j({"currentUrl": "http://localhost:5173/signup", "logs": "TypeError: form is undefined",
                    "screenshot": "data:image/png;base64,iVBORw0KGgo="})},
        {"ts": 4, "type": "say", "say": "use_subagents",
         "text": j({"prompts": ["Find where the signup form mounts."]})},
        {"ts": 5, "type": "say", "say": "subagent",
         "text": j({"items": [{"index": 0, "prompt": "Find where the signup form mounts.", "status": "completed",
                               "result": "It mounts in SignupPage.tsx before the config loads."}]})},
        {"ts": 6, "type": "say", "say": "user_feedback_diff",
         "text": j({"tool": "editedExistingFile", "path": "src/SignupPage.tsx", "diff": "- form()\n+ form?.()"})},
        {"ts": 7, "type": "ask", "ask": "condense", "text": "Summary: the signup form mounted before its config."},
        {"ts": 8, "type": "ask", "ask": "new_task", "text": "Context: signup fixed; next, the login page on mobile."},
        {"ts": 9, "type": "say", "say": "plan_completion_result", "text": "Plan: guard the form, then test login."},
    ]
    records, _cwd, _title = cline.ui_records(messages, SessionInfo("t", "cline"))
    got = [(r.role, r.content_type, r.tool_name, r.text) for r in records]
    assert got == [
        ("user", "text", None, "Check the signup page renders on mobile."),
        ("tool", "tool", "browser_action", "browser_action\nhttp://localhost:5173/signup"),
        ("tool", "tool", None, "http://localhost:5173/signup\n\nTypeError: form is undefined"),
        ("tool", "tool", "use_subagents", "use_subagents\nFind where the signup form mounts."),
        ("tool", "tool", None, "It mounts in SignupPage.tsx before the config loads."),
        ("user", "text", None, "src/SignupPage.tsx\n- form()\n+ form?.()"),
        ("assistant", "summary", None, "Summary: the signup form mounted before its config."),
        ("tool", "tool", "new_task", "new_task\nContext: signup fixed; next, the login page on mobile."),
        ("assistant", "text", None, "Plan: guard the form, then test login."),
    ]
    calls = {r.tool_call_id for r in records if r.tool_name}
    assert all(r.tool_call_id in calls for r in records if r.role == "tool" and r.tool_name is None)  # paired
    assert not any("base64" in r.text for r in records)  # a screenshot is never stored


def test_cline_a_clicked_option_is_the_persons_and_completions_summaries_and_roo_edits_read_as_cline_shows_them():
    """What Cline 3 writes (``AskFollowupQuestionToolHandler``, ``AttemptCompletionHandler``,
    ``SummarizeTaskHandler``) and Roo's edit tools (``originalContent``: the whole file before the edit)."""
    def j(obj: dict) -> str:
        return json.dumps(obj)

    messages = [
        {"ts": 1, "type": "say", "say": "task", "text": "Make the retries configurable."},
        {"ts": 2, "type": "ask", "ask": "followup",
         "text": j({"question": "Which setting should hold it?", "options": ["env var", "config file"],
                    "selected": "config file"})},
        {"ts": 3, "type": "say", "say": "tool",
         "text": j({"tool": "appliedDiff", "path": "retry.py", "diff": "- 3\n+ cfg.retries",
                    "originalContent": "RETRIES = 3\n" * 50, "isProtected": False})},
        {"ts": 4, "type": "say", "say": "tool", "text": j({"tool": "summarizeTask", "content": "Retries: in config."})},
        {"ts": 5, "type": "say", "say": "completion_result", "text": "Retries now come from the config.HAS_CHANGES"},
        {"ts": 6, "type": "ask", "ask": "plan_mode_respond",
         "text": j({"response": "Plan: read cfg.retries in the client.", "options": ["Go", "Wait"], "selected": "Go"})},
    ]
    records, _cwd, _title = cline.ui_records(messages, SessionInfo("t", "cline"))
    assert [(r.role, r.content_type, r.author, r.text) for r in records] == [
        ("user", "text", None, "Make the retries configurable."),
        ("assistant", "text", None, "Which setting should hold it?"),
        ("user", "text", "human", "Which setting should hold it? → config file"),
        ("tool", "tool", None, "appliedDiff\npath: retry.py"),
        ("tool", "tool", None, "- 3\n+ cfg.retries"),
        ("assistant", "summary", None, "Retries: in config."),
        ("assistant", "text", None, "Retries now come from the config."),
        ("assistant", "text", None, "Plan: read cfg.retries in the client."),
        ("user", "text", "human", "Go"),  # (the option taken, not the plan again)
    ]


def test_roo_subtasks_their_results_and_condensed_context_are_kept(backscroll_home, backscroll_index):
    """Roo Code (``NewTaskTool.ts``, ``Task.ts``, ``history.ts``): a subtask's folder says its parent
    (``history_item.json``), so the brief it opens with is the parent agent's; the parent's ``newTask`` call holds
    the brief and ``subtask_result`` its result; ``condense_context`` keeps its summary in ``contextCondense``."""
    j = json.dumps
    tasks = backscroll_home.home / CODE / "globalStorage/rooveterinaryinc.roo-cline/tasks"
    parent = [{"ts": 1, "type": "say", "say": "text", "text": "Build the parser in two steps."},
              {"ts": 2, "type": "say", "say": "api_req_started", "text": j({"request": "x"})},
              {"ts": 3, "type": "ask", "ask": "tool", "text": j({"tool": "newTask", "mode": "code",
                                                              "content": "Implement step 1 of the parser."})},
              {"ts": 4, "type": "say", "say": "condense_context", "contextCondense": {"summary": "Step 1 delegated."}},
              {"ts": 9, "type": "say", "say": "subtask_result", "text": "Step 1 done: 12 tests pass."}]
    child = [{"ts": 5, "type": "say", "say": "text", "text": "Implement step 1 of the parser."},
             {"ts": 6, "type": "say", "say": "api_req_started", "text": j({"request": "x"})},
             {"ts": 7, "type": "ask", "ask": "followup", "text": "Which grammar?"},
             {"ts": 7.5, "type": "say", "say": "user_feedback", "text": "PEG, please."},
             {"ts": 8, "type": "say", "say": "completion_result", "text": "Step 1 done: 12 tests pass."}]
    for name, messages, item in (("p1", parent, None), ("c1", child, {"id": "c1", "parentTaskId": "p1",
                                                                       "workspace": "/home/dev/parser"})):
        (tasks / name).mkdir(parents=True)
        (tasks / name / "ui_messages.json").write_text(j(messages))
        if item:
            (tasks / name / "history_item.json").write_text(j(item))
    backscroll_index(embed=False)
    got = [(r["session_id"], r["role"], r["author"], r["content_type"], r["text"])
           for r in rows(backscroll_home, "SELECT * FROM records ORDER BY session_id DESC, id")]
    assert got == [
        ("p1", "user", "human", "text", "Build the parser in two steps."),
        ("p1", "tool", None, "tool", "newTask\nmode: code\ncontent: Implement step 1 of the parser."),
        ("p1", "assistant", None, "summary", "Step 1 delegated."),
        ("p1", "tool", None, "tool", "Step 1 done: 12 tests pass."),
        ("c1", "user", "agent", "text", "Implement step 1 of the parser."),
        ("c1", "assistant", None, "text", "Which grammar?"),
        ("c1", "user", "human", "text", "PEG, please."),  # (the person, answering inside the subtask)
        ("c1", "assistant", None, "text", "Step 1 done: 12 tests pass."),
    ]
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert (sessions["c1"]["parent_session_id"], sessions["c1"]["is_sidechain"], sessions["c1"]["cwd"]) == (
        "p1", 1, "/home/dev/parser")


def test_cline_task_with_only_api_history(indexed):
    recs = [r for r in by_agent(indexed, "cline") if r["session_id"] == "1760000999000"]
    assert kinds(recs) == [
        ("user", "text", None, "Rename the legacy_tax module to tax_rules."),
        ("assistant", "reasoning", None, "A git mv keeps the history of the file."),
        ("assistant", "text", None, "I'll move the module with git so its history follows."),
        ("tool", "tool", "execute_command", "git mv tax/legacy_tax.py tax/tax_rules.py"),
        ("tool", "tool", "execute_command", "Command executed."),
        ("assistant", "text", None, "Renamed legacy_tax to tax_rules."),
    ]
    assert_paired(recs)
    assert sessions(indexed, "cline")["1760000999000"]["project"] == "billing"


def test_aider_chat_history(indexed):
    recs = by_agent(indexed, "aider")
    got = [(r["session_id"].rsplit("-", 1)[1], *k) for r, k in zip(recs, kinds(recs), strict=True)]
    assert got == [
        ("20261002T101500", "tool", "tool", None, "/home/dev/.local/bin/aider --model sonnet\nAider v0.86.1\n"
                                                  "Git repo: .git with 42 files"),
        ("20261002T101500", "user", "text", None, "Why does the retry decorator swallow KeyboardInterrupt?"),
        ("20261002T101500", "assistant", "reasoning", None,
         "It catches BaseException, which includes KeyboardInterrupt."),
        ("20261002T101500", "assistant", "text", None, "The decorator catches `BaseException`, so Ctrl-C is retried "
                                                       "like any error. Catch `Exception` instead."),
        ("20261002T101500", "tool", "tool", None, "Tokens: 2.1k sent, 120 received."),
        ("20261002T101500", "tool", "tool", "run", "pytest -q tests/test_retry.py"),
        ("20261002T101500", "tool", "tool", "run",
         "Add 0.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y\nAdded 12 lines of output to the chat."),
        ("20261002T101500", "user", "text", None, "should the decorator log each retry?"),
        ("20261002T101500", "assistant", "text", None,
         "Yes: log at WARNING with the attempt number so flaky calls show up."),
        ("20261003T080000", "tool", "tool", "run", 'backscroll search "retry decorator"'),
        ("20261003T080000", "tool", "tool", "run",
         "Add 0.1k tokens of command output to the chat? (Y)es/(N)o [Yes]: n"),
        ("20261003T080000", "user", "text", None, "Apply the Exception fix\nand keep the logging."),
        ("20261003T080000", "assistant", "text", None,
         "retry.py\n```python\n<<<<<<< SEARCH\n    except BaseException:\n"
         "=======\n    except Exception:\n>>>>>>> REPLACE\n```"),
        ("20261003T080000", "tool", "tool", "edit", "Applied edit to retry.py"),  # (the call of Aider's edit)
        ("20261003T080000", "tool", "tool", None, "Commit 1a2b3c4 fix: retry only on Exception"),
    ]
    assert_paired(recs)
    assert [r["is_echo"] for r in recs if r["session_id"].endswith("T080000")][:2] == [1, 1]
    ss = sessions(indexed, "aider")
    assert {(s["project"], s["title"]) for s in ss.values()} == {
        ("retry-lib", "Why does the retry decorator swallow KeyboardInterrupt?"),
        ("retry-lib", "Apply the Exception fix")}
    assert all(r["timestamp"].startswith("2026-10-0") for r in recs)


def test_aider_rereads_only_the_last_session_as_the_file_grows(indexed, backscroll_index):
    path = indexed.home / "code" / "retry-lib" / ".aider.chat.history.md"
    first_ids = [r["id"] for r in by_agent(indexed, "aider") if r["session_id"].endswith("T101500")]
    with path.open("a") as fh:
        fh.write("\n#### one more question  \n\nOne more answer.\n")
    backscroll_index(embed=False)
    recs = by_agent(indexed, "aider")
    assert [r["id"] for r in recs if r["session_id"].endswith("T101500")] == first_ids
    later = [r["text"] for r in recs if r["session_id"].endswith("T080000")]
    assert later[-2:] == ["one more question", "One more answer."]


def test_omp_reuses_pi_with_title_and_reasoning(indexed):
    recs = by_agent(indexed, "omp")
    assert kinds(recs) == [
        ("user", "text", None, "The websocket reconnect test fails one run in ten."),
        ("assistant", "reasoning", None, "Likely a race between the close handler and the reconnect timer."),
        ("assistant", "text", None, "I'll run the test in a loop to catch the failure."),
        ("tool", "tool", "bash", "for i in $(seq 20); do pytest -q tests/test_ws.py || break; done"),
        ("tool", "tool", "bash", "FAILED tests/test_ws.py::test_reconnect - AssertionError: reconnect fired twice"),
        ("assistant", "text", None, "The close handler and the reconnect timer both schedule a reconnect; guard it "
                                    "with a single pending flag."),
    ]
    assert_paired(recs)
    assert recs[4]["is_error"] == 1
    s = sessions(indexed, "omp")["6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d"]
    assert (s["project"], s["title"]) == ("chat", "Flaky websocket test")


def test_omp_title_rewritten_in_place_is_picked_up(indexed, backscroll_index):
    path = next((indexed.home / ".omp/agent/sessions/--home-dev-chat--").iterdir())
    lines = path.read_bytes().split(b"\n")
    head = orjson.loads(lines[0])
    head["title"] = "Reconnect fired twice"
    path.write_bytes(b"\n".join([orjson.dumps(head), *lines[1:]]))
    backscroll_index(embed=False)
    assert sessions(indexed, "omp")["6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d"]["title"] == "Reconnect fired twice"
    assert len(by_agent(indexed, "omp")) == 6


def test_qwen_chat_records(indexed):
    recs = by_agent(indexed, "qwen")
    assert kinds(recs) == [
        ("user", "text", None, "Why is the product search endpoint slow?"),
        ("assistant", "reasoning", None, "Searching with LIKE '%term%' cannot use the index."),
        ("assistant", "text", None, "Let me look at the query."),
        ("tool", "tool", "run_shell_command", 'grep -rn "LIKE" src/search'),
        ("tool", "tool", "run_shell_command", "src/search/products.py:12: WHERE name LIKE '%' || ? || '%'"),
        ("assistant", "text", None,
         "A leading-wildcard LIKE scans the table; add a trigram index (pg_trgm) on products.name."),
    ]
    assert_paired(recs)
    assert sessions(indexed, "qwen")["8e7d6c5b-4a39-4281-9f0e-d1c2b3a49586"]["project"] == "shop"


def test_kimi_context_rotations_and_subagents(indexed):
    recs = by_agent(indexed, "kimi")
    sid = "3c2b1a09-8f7e-4d6c-9b5a-0e1d2c3b4a59"
    main = [r for r in recs if r["session_id"] == sid]
    assert kinds(main) == [
        ("user", "text", None, "Percentage coupons lose a cent on odd totals. Fix the rounding."),
        ("assistant", "reasoning", None, "The discount is floored before it is subtracted."),
        ("assistant", "text", None, "Let me find where the discount is computed."),
        ("tool", "tool", "Shell", "rg -n 'discount' cart/pricing.py"),
        ("tool", "tool", "Shell", "<system>Command executed successfully.</system>\n"
                                  "57:    discount = math.floor(total * pct) / 100"),
        ("assistant", "text", None, "math.floor drops the half cent; round half up with Decimal.quantize instead."),
        ("tool", "tool", "Task", 'Task\ndescription: check other floor calls\nsubagent_name: coder'),
    ]
    assert_paired(recs)
    ss = sessions(indexed, "kimi")
    assert (ss[sid]["project"], ss[sid]["title"]) == ("shop", "Coupon rounding")
    earlier = ss[f"{sid}~1"]
    assert (earlier["parent_session_id"], earlier["project"]) == (sid, "shop")
    assert [r["text"] for r in recs if r["session_id"] == f"{sid}~1"] == [
        "Where are coupons applied to the cart total?", "In cart/pricing.py, after tax."]
    sub = ss[f"{sid}:agent-7f3e"]
    assert (sub["is_sidechain"], sub["parent_session_id"], sub["project"]) == (1, sid, "shop")


# -- the session builders ------------------------------------------------------------------------

def test_cursor_and_copilot_builders(session_builder, backscroll_index, backscroll_home):
    c = session_builder.cursor(project="shop", title="Retry budget")
    c.user("how many retries does the payment client allow?")
    c.assistant("Three, with exponential backoff capped at 8 seconds.", reasoning="Look at PaymentClient.")
    c.tool("rg -n max_retries payments/", "payments/client.py:12: max_retries = 3")
    c.search_echo("payment retries", "1. [assistant] Three, with exponential backoff")
    p = session_builder.copilot(project="billing").title("Invoice numbering")
    p.user("are invoice numbers gapless?")
    p.assistant("Yes: a sequence per year, allocated in the same transaction.", reasoning="Check the sequence.")
    p.tool("psql -c '\\ds'", "invoice_seq_2026")
    p.search_echo("invoice numbers", "1. [assistant] a sequence per year")
    backscroll_index(embed=False)
    for agent, project, title in (("cursor", "shop", "Retry budget"), ("copilot", "billing", "Invoice numbering")):
        recs = by_agent(backscroll_home, agent)
        assert [r["content_type"] for r in recs] == ["text", "reasoning", "text", "tool", "tool", "tool", "tool"]
        assert [r["is_echo"] for r in recs] == [0, 0, 0, 0, 0, 1, 1]
        assert recs[0]["text"] in ("how many retries does the payment client allow?", "are invoice numbers gapless?")
        assert_paired(recs)
        (s,) = sessions(backscroll_home, agent).values()
        assert (s["project"], s["title"]) == (project, title)


def test_a_cursor_question_quoting_the_closing_tag_keeps_every_word(session_builder, backscroll_index, backscroll_home):
    from backscroll.ingest.sources.cursor_records import user_query

    question = "why does the parser stop at </user_query> in the prompt? zqd3 keeps going after it"
    session_builder.cursor(project="shop").user(question)
    backscroll_index(embed=False)
    assert [r["text"] for r in by_agent(backscroll_home, "cursor")] == [question]
    quoted = "<user_info>x</user_info>\n<user_query>\n a </user_query> b \n</user_query>"
    assert user_query(quoted) == "a </user_query> b"
    assert user_query("no block </user_query> here") is None
    attached = ("<attached_files>\n<code_selection>\nq = '<user_query>example</user_query>'\nSECRET = 1\n"
                "</code_selection>\n</attached_files>\n<user_query>\nthe real question\n</user_query>")
    assert user_query(attached) == "the real question"


# -- the CLI ---------------------------------------------------------------------------------------

def test_status_list_and_search_for_every_new_agent(indexed):
    runner = CliRunner()
    out = runner.invoke(app, ["status", "--json"], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    status = json.loads(out.stdout)
    for name in NEW:
        assert status["agents"][name]["sessions"] > 0, name
    queries = {"cursor": "CSV import", "copilot": "webhook signatures", "cline": "nightly export",
               "roo": "nightly export", "kilo": "nightly export", "aider": "retry decorator",
               "omp": "websocket reconnect", "qwen": "product search", "kimi": "coupons rounding"}
    for name, query in queries.items():
        listed = runner.invoke(app, ["list", "--agent", name, "--json"], catch_exceptions=False)
        assert listed.exit_code == 0, listed.output
        got = json.loads(listed.stdout)
        items = got if isinstance(got, list) else got.get("sessions", got.get("results", []))
        assert items and all(i["agent"] == name for i in items), (name, got)
        found = runner.invoke(app, ["search", query, "--agent", name, "--json"], catch_exceptions=False)
        assert found.exit_code == 0, found.output
        hits = json.loads(found.stdout)["results"]
        assert hits and all(h["agent"] == name for h in hits), name


# -- fuzzing ---------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)
shaped = st.fixed_dictionaries({
    "type": st.sampled_from(["user", "assistant", "tool_result", "system", "session", "message", "x"]),
    "role": st.sampled_from(["user", "assistant", "tool", "_checkpoint", "toolResult"]),
    "message": json_values, "content": json_values, "tool_calls": json_values, "parts": json_values,
    "uuid": json_values, "id": json_values, "title": json_values, "cwd": json_values, "sessionId": json_values,
})


@settings(max_examples=200, deadline=None)
@given(obj=st.one_of(json_values, shaped))
def test_line_parsers_never_raise_anything_but_line_errors(obj):
    kimi_code_line = {"type": "context.append_message", "message": obj} if isinstance(obj, dict) else obj
    for parser, agent, line, mode in ((omp.parse_line, "omp", obj, None), (qwen.parse_line, "qwen", obj, None),
                                      (kimi.parse_line, "kimi", obj, None),
                                      (kimi.parse_line, "kimi", kimi_code_line, kimi_code.READ),
                                      (kimi.parse_line, "kimi", {"type": "context.append_loop_event", "event": obj},
                                       kimi_code.READ)):
        try:
            out = parser(line, 3, SessionInfo("s", agent, history_mode=mode))
        except LineError:
            continue
        assert isinstance(out, ParsedLine)
        for rec in out.records:
            assert isinstance(rec.text, str) and rec.text and rec.role in ("user", "assistant", "tool")


@settings(max_examples=150, deadline=None)
@given(items=st.lists(st.one_of(json_values, st.fixed_dictionaries({
    "ts": st.integers(0, 2**41), "type": st.sampled_from(["say", "ask"]),
    "say": st.sampled_from(["task", "text", "reasoning", "command_output", "user_feedback", "api_req_started"]),
    "ask": st.sampled_from(["command", "tool", "followup", "use_mcp_server"]), "text": json_values | st.text(),
    "partial": st.booleans()})), max_size=8))
def test_whole_readers_never_raise_on_any_shapes(items):
    base = SessionInfo("s", "x")
    cline.ui_records(items, base)
    cline.api_records(items, base)
    cursor.cli_messages_records([(str(n), i) for n, i in enumerate(items) if isinstance(i, dict)], base)
    cursor.bubble_records([i for i in items if isinstance(i, dict)], base, None)
    copilot.vscode_records({"requests": items}, base, None)
    copilot.cli_records([json.dumps(i).encode() for i in items], base)
    cline_sessions.message_records(items, base, None)
    hermes.message_records([i for i in items if isinstance(i, dict)], base)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(st.sampled_from(["#### ", "# aider chat started at 2026-10-02 10:15:00", "> ", "\n", "  ", "a",
                                          "/run ", "!", "/ask ", "---\n► **THINKING**\n", "---\n► **ANSWER**\n"]),
                       max_size=60))
def test_aider_parser_never_raises(tokens, tmp_path_factory):
    text = "".join(tokens)
    path = tmp_path_factory.mktemp("aider") / aider.FILE_NAME
    for unit in aider.parse(text, path):
        assert all(r.text for r in unit.records)


def test_qwen_notifications_are_the_harnesss_a_mid_turn_prompt_is_the_persons_and_a_compression_a_summary():
    """qwen-code (015346f) writes notifications and scheduled prompts as user records (provenance "system"), a
    prompt typed mid-turn with a prefix, and a compression's summary in a system record."""
    s = SessionInfo("q", "qwen")

    def parsed(obj: dict) -> list:
        return qwen.parse_line({"uuid": "u1", "timestamp": "2026-11-02T10:00:00Z", **obj}, 1, s).records

    note = parsed({"type": "user", "subtype": "notification", "provenance": "system",
                   "message": {"role": "user", "parts": [{"text": "<task-notification>build done"}]}})
    assert [(r.role, r.author) for r in note] == [("user", "harness")]
    typed = parsed({"type": "user", "subtype": "mid_turn_user_message", "message": {"role": "user", "parts": [
        {"text": "[User message received during tool execution]: stop after the migration"}]}})
    assert [(r.text, r.author) for r in typed] == [("stop after the migration", None)]
    summary = parsed({"type": "system", "subtype": "chat_compression", "systemPayload": {"compressedHistory": [
        {"role": "user", "parts": [{"text": "<state_snapshot>the queue moved to postgres</state_snapshot>"}]}]}})
    assert [(r.role, r.content_type) for r in summary] == [("assistant", "summary")]
    assert "queue moved to postgres" in summary[0].text
    assert parsed({"type": "system", "subtype": "ui_telemetry", "systemPayload": {}}) == []


def test_qwen_the_persons_words_without_a_hooks_context_and_turns_no_person_typed():
    """Newer qwen-code keeps what the person typed in ``systemPayload.displayText`` when a hook added context, which
    it appends as a part of its own in ``<qwen:user-prompt-submit-context>`` (backscroll's recall among them); a
    subagent's turns (``isSidechain``), other agents' messages and a goal's nudges are written as user records."""
    s = SessionInfo("q", "qwen")
    recall = "<qwen:user-prompt-submit-context>\nbackscroll recalled: the queue moved to postgres\n" \
             "</qwen:user-prompt-submit-context>"

    def parsed(obj: dict) -> list:
        return qwen.parse_line({"uuid": "u1", "timestamp": "2026-11-02T10:00:00Z", "type": "user", **obj}, 1, s).records

    with_payload = parsed({"message": {"role": "user", "parts": [{"text": "fix it"}, {"text": recall}]},
                           "systemPayload": {"displayText": "fix it", "hookContext": "..."}})
    assert [(r.text, r.author) for r in with_payload] == [("fix it", None)]
    tag_only = parsed({"message": {"role": "user", "parts": [{"text": "fix it"}, {"text": recall}]}})
    assert [r.text for r in tag_only] == ["fix it"]
    typed_tag = parsed({"message": {"role": "user", "parts": [{"text": recall}]}})  # (typed by the person alone)
    assert [r.text for r in typed_tag] == [recall]
    for obj, author in (({"isSidechain": True, "agentId": "explore-7f3c"}, "agent"),
                        ({"subtype": "agent_message"}, "agent"),
                        ({"subtype": "goal_runtime", "provenance": "goal_runtime"}, "harness")):
        recs = parsed({**obj, "message": {"role": "user", "parts": [{"text": "Continue toward the goal."}]}})
        assert [(r.role, r.author) for r in recs] == [("user", author)], obj


def test_a_pi_turn_that_ended_in_an_error_leaves_the_error():
    from backscroll.ingest.sources import pi

    entry = {"type": "message", "id": "e1", "timestamp": "2026-11-02T10:00:00Z", "message": {
        "role": "assistant", "content": [], "stopReason": "error", "errorMessage": "529 overloaded_error: Overloaded"}}
    out = pi.parse_line(entry, 4, SessionInfo("p", "pi"))
    records = out.records if isinstance(out, ParsedLine) else out
    assert [(r.text, r.is_error, r.author) for r in records] == [("529 overloaded_error: Overloaded", True, "harness")]


def test_copilot_vscode_summaries_reasoning_as_a_list_a_failure_and_a_confirmation_are_kept():
    """vscode-copilot-chat ``conversation.ts`` keeps its summaries in ``result.metadata`` (``summaries``, the older
    ``summary``); a thinking part's value may be a list; a request that failed shows ``errorDetails``."""
    from backscroll.ingest.sources.copilot_vscode import vscode_records

    doc = {"sessionId": "s", "requests": [
        {"requestId": "r1", "timestamp": 1767261600000, "message": {"text": "why does the build fail?"},
         "response": [{"kind": "thinking", "value": ["check the logs", "then the config"]},
                      {"kind": "markdownContent", "content": {"value": "A missing env var."}}],
         "result": {"metadata": {"summary": {"toolCallRoundId": "a", "text": "Build fails: env var."},
                                 "summaries": [{"toolCallRoundId": "a", "text": "Build fails: env var."},
                                               {"toolCallRoundId": "b", "text": "Fixed in .env.example."}]}}},
        {"requestId": "r2", "timestamp": 1767261700000, "message": {"text": "try again"}, "response": [],
         "result": {"errorDetails": {"message": "Sorry, you have exhausted this model's rate limit."}}},
        {"requestId": "r3", "timestamp": 1767261800000, "message": {"text": '@agent Continue: "Continue to iterate?"'},
         "confirmation": "Continue", "response": [{"kind": "markdownVuln", "content": {"value": "Retried: it passes."},
                                                    "vulnerabilities": []}]}]}
    _session, records = vscode_records(doc, SessionInfo("s", "copilot"), "/home/dev/app")
    assert [(r.role, r.author, r.content_type, r.text) for r in records] == [
        ("user", None, "text", "why does the build fail?"),
        ("assistant", None, "reasoning", "check the logs\n\nthen the config"),
        ("assistant", None, "text", "A missing env var."),
        ("assistant", None, "summary", "Build fails: env var."),
        ("assistant", None, "summary", "Fixed in .env.example."),
        ("user", None, "text", "try again"),
        ("user", "harness", "text", "Sorry, you have exhausted this model's rate limit."),
        ("user", "harness", "text", '@agent Continue: "Continue to iterate?"'),  # a button the person clicked
        ("assistant", None, "text", "Retried: it passes."),  # (a reply part VS Code checked for vulnerabilities)
    ]


def test_copilot_vscode_a_subagents_calls_leave_the_main_models_calls_paired():
    """A subagent's calls sit in the request's response (``subAgentInvocationId``), not in the main model's
    ``toolCallRounds``: the main calls keep their arguments and results."""
    from backscroll.ingest.sources.copilot_vscode import vscode_records

    def part(call: str, tool: str, **extra) -> dict:
        return {"kind": "toolInvocationSerialized", "toolCallId": call, "toolId": tool,
                "invocationMessage": {"value": f"Running {tool}"}, **extra}

    doc = {"sessionId": "s", "requests": [{
        "requestId": "r1", "timestamp": 1767261600000, "message": {"text": "find the flaky test"},
        "response": [part("vs-2", "copilot_readFile", subAgentInvocationId="sub-1"),
                     part("vs-1", "copilot_findTextInFiles")],
        "result": {"metadata": {
            "toolCallRounds": [{"toolCalls": [{"id": "toolu_1", "name": "copilot_findTextInFiles",
                                               "arguments": '{"query": "flaky"}'}]}],
            "toolCallResults": {"toolu_1": {"content": [{"value": "tests/test_io.py: @flaky"}]}}}}}]}
    _session, records = vscode_records(doc, SessionInfo("s", "copilot"), None)
    calls = [r for r in records if r.tool_name is not None]
    assert [(r.tool_call_id, r.text) for r in calls] == [
        ("vs-2", "Running copilot_readFile"), ("toolu_1", "copilot_findTextInFiles\nquery: flaky")]
    assert [r.text for r in records if r.role == "tool" and r.tool_name is None] == ["tests/test_io.py: @flaky"]


def test_copilot_vscode_a_forked_conversation_does_not_store_what_it_copied_again():
    """VS Code's "Fork Conversation" copies the requests with new ids, each stamped with the fork's creation time
    plus its index and complete at that instant (``chatForkActions.ts``); a conversation begun then is no copy."""
    from backscroll.ingest.sources.copilot_vscode import vscode_records

    def req(rid: str, text: str, at: int, done: int) -> dict:
        return {"requestId": rid, "timestamp": at, "message": {"text": text},
                "modelState": {"value": 1, "completedAt": done},
                "response": [{"kind": "markdownContent", "content": {"value": f"re: {text}"}}]}

    created = 1767261600000
    fork = {"sessionId": "f", "creationDate": created, "customTitle": "Forked: flaky tests", "requests": [
        req("c0", "why is test_io flaky?", created, created), req("c1", "fix it", created + 1, created + 1),
        req("own", "now the docs", created + 60_000, created + 75_000)]}
    _session, records = vscode_records(fork, SessionInfo("f", "copilot"), None)
    assert [r.text for r in records] == ["now the docs", "re: now the docs"]
    fresh = {**fork, "requests": [req("r0", "why is test_io flaky?", created, created + 9_000)]}
    assert len(vscode_records(fresh, SessionInfo("f", "copilot"), None)[1]) == 2
    instant = {**fork, "requests": [req("r0", "why is test_io flaky?", created + 5, created + 5)]}  # not at its index
    assert len(vscode_records(instant, SessionInfo("f", "copilot"), None)[1]) == 2


def test_qwen_sessions_moved_by_its_runtime_dir_and_archived_are_read_and_its_prompt_ledger_is_no_session(
        backscroll_home, backscroll_index, monkeypatch):
    """Qwen Code keeps sessions under ``$QWEN_RUNTIME_DIR`` (else ``$QWEN_HOME``, else ``~/.qwen``); ``/archive``
    moves a chat to ``chats/archive/``; ``qwen serve`` writes a prompt ledger beside the chats."""
    runtime = backscroll_home.root / "qwen-runtime"
    monkeypatch.setenv("QWEN_HOME", str(backscroll_home.root / "qwen-config"))
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(runtime))
    chat = DATA / "qwen" / "projects" / "-home-dev-shop" / "chats" / "8e7d6c5b-4a39-4281-9f0e-d1c2b3a49586.jsonl"
    archive = runtime / "projects" / "-home-dev-shop" / "chats" / "archive"
    archive.mkdir(parents=True)
    (archive / chat.name).write_bytes(chat.read_bytes())
    ledger = archive.parent / "8e7d6c5b-4a39-4281-9f0e-d1c2b3a49586.ledger.jsonl"
    ledger.write_text('{"v":1,"promptId":"p1","state":"in_flight","at":1692000000000}\n')
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0, out.report
    assert len(by_agent(backscroll_home, "qwen")) == 6
    assert qwen.default_root({"QWEN_HOME": "/q", "HOME": "/h"}) == (Path("/q"), "env $QWEN_HOME")
    assert qwen.default_root({"HOME": "/h"}) == (Path("/h/.qwen"), "default")
    assert not qwen.claims(ledger)
    ledger_line = {"v": 1, "promptId": "p1", "state": "in_flight", "at": 1692000000000}
    assert qwen.parse_line(ledger_line, 1, SessionInfo("x", "qwen")).records == []  # (one a store read before)


def test_a_cline_task_whose_ui_file_its_writer_left_cut_short_is_read_from_its_api_history(backscroll_home,
                                                                                           backscroll_index):
    import os
    import shutil

    task = backscroll_home.home / ".cline" / "data" / "tasks" / "1760000999000"
    shutil.copytree(DATA / "cline" / "tasks" / "1760000999000", task)
    ui = task / "ui_messages.json"
    ui.write_text('[{"ts":1760000999000,"type":"say","say":"task","text":"Rename the legacy')  # (a write cut)
    out = backscroll_index(embed=False)
    assert [why[:47] for _p, why in out.report.unreadable] == ["not a complete JSON document (being rewritten?)"]
    os.utime(ui, (1_700_000_000, 1_700_000_000))  # (and left so: its writer died)
    out = backscroll_index(embed=False)
    assert not out.report.unreadable and out.report.lines_skipped == 1
    texts = [r["text"] for r in rows(backscroll_home, "SELECT text FROM records ORDER BY id")]
    assert texts[0] == "Rename the legacy_tax module to tax_rules." and "Renamed legacy_tax to tax_rules." in texts
