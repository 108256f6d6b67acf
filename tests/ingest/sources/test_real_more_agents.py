"""Issue 15: OpenCode, Amp and Droid sessions read faithfully, on real files (tests/data/real).

OpenCode: three captured sessions (with their subagent sessions) from sudo-tee/opencode.nvim's replay
recordings, laid out as OpenCode's ``storage/`` tree (see tests/data/real/opencode/ORIGIN.md). Each is
counted here independently of the reader, then read through the storage tree and through an
``opencode.db`` holding the same objects. Amp and Droid: no real session file was found (ORIGIN.md).
"""

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from helpers import REAL, kinds

from backscroll.ingest.sources import opencode
from backscroll.types import Record

OPENCODE_SESSIONS = sorted((REAL / "opencode").glob("*/storage/session/*/*.json"))
# Part types a careful reader sees and knows to hold nothing to index (or what the tool parts hold).
OPENCODE_QUIET = {"step-start", "step-finish", "snapshot", "patch", "file", "agent", "subtask", "retry", "compaction"}


def _storage_objects(session_file: Path):
    """The session's messages (by file name) and each message's parts (by file name), as stored."""
    storage = session_file.parents[2]
    messages = [json.loads(p.read_text()) for p in sorted((storage / "message" / session_file.stem).glob("*.json"))]
    return [(m, [json.loads(p.read_text()) for p in sorted((storage / "part" / m["id"]).glob("*.json"))])
            for m in messages]


def opencode_seen(session_file: Path) -> tuple[Counter, Counter]:
    seen: Counter[str] = Counter()
    other: Counter[str] = Counter()
    for msg, parts in _storage_objects(session_file):
        for p in parts:
            if p["type"] == "text":
                if p.get("synthetic") or p.get("ignored") or not p.get("text", "").strip():
                    continue  # OpenCode's own additions (file reads, subagent nudges), not words anyone wrote
                if msg["role"] == "user":
                    seen["user"] += 1
                else:
                    seen["summary" if msg.get("summary") is True else "answer"] += 1
            elif p["type"] == "reasoning":
                seen["reasoning"] += bool(p.get("text", "").strip())
            elif p["type"] == "tool":
                seen["call"] += 1
                state = p.get("state") or {}
                picked = (state.get("metadata") or {}).get("answers") or []
                if p.get("tool") == "question" and state.get("status") == "completed" and any(picked):
                    seen["user"] += 1  # the options the person picked (or typed) are their words
                    continue
                seen["output"] += bool(str(state.get("output") or "").strip() or
                                       (state.get("status") == "error" and str(state.get("error") or "").strip()))
            elif p["type"] not in OPENCODE_QUIET:
                other[p["type"]] += 1
    return seen, other


@pytest.mark.parametrize("path", OPENCODE_SESSIONS, ids=lambda p: f"{p.parents[3].name}/{p.stem}")
def test_fidelity_opencode_real_storage(path):
    unit = opencode.read_whole(path, {}).units[0]
    seen, other = opencode_seen(path)
    assert kinds(unit.records) == seen, f"seen {dict(seen)}, emitted {dict(kinds(unit.records))}"
    assert unit.unknown == dict(other) == {}
    assert unit.skipped == []


def test_opencode_real_counts_are_what_the_files_hold():
    """The independent counts, written out: a change to the fixtures or to the counter shows here."""
    got = {(p.parents[3].name, p.stem): +opencode_seen(p)[0] for p in OPENCODE_SESSIONS}
    assert got == {
        ("oc-1.0.220-task-subagent-opencodenvim", "ses_46b499f08ffe3aldWmWZoH6N2m"):
            Counter(user=1, answer=1, call=1),  # the task call is still running: no output yet
        ("oc-1.0.220-task-subagent-opencodenvim", "ses_46b492ebbffel5oIJ1qUl9GKFh"):
            Counter(user=1, answer=2, call=5, output=4),  # one bash call still running
        ("oc-1.17.13-reasoning-question-opencodenvim", "ses_0a33cbcaaffeVZsUHHWte5Q3j4"):
            Counter(user=2, reasoning=2, call=1, answer=1),  # the second "user": the question's answers
        ("oc-1.2.15-explore-subagent-opencodenvim", "ses_341f480cfffekQwFX2LabeJFAU"):
            Counter(user=1, call=1, output=1, answer=1),
        ("oc-1.2.15-explore-subagent-opencodenvim", "ses_341f3e676ffez6WUF6zpok7dUZ"):
            Counter(user=1, answer=5, call=18, output=18),
    }


def _read(session_file: Path) -> list[Record]:
    return opencode.read_whole(session_file, {}).units[0].records


def test_opencode_subagent_prompt_is_written_by_an_agent_and_the_human_words_by_the_human():
    tree = REAL / "opencode" / "oc-1.0.220-task-subagent-opencodenvim" / "storage" / "session"
    parent, child = (next(tree.glob(f"*/{sid}.json"))
                     for sid in ("ses_46b499f08ffe3aldWmWZoH6N2m", "ses_46b492ebbffel5oIJ1qUl9GKFh"))
    users = [(r.author, r.text[:30]) for r in _read(parent) if r.role == "user"]
    assert users == [("human", "@nvim my alt-M keybind does no")]  # not the synthetic nudge or file read
    child_info = opencode.read_whole(child, {}).units[0].session
    assert child_info.parent_session_id == "ses_46b499f08ffe3aldWmWZoH6N2m" and child_info.is_sidechain
    prompts = [(r.author, r.text[:30]) for r in _read(child) if r.role == "user"]
    assert prompts == [("agent", "The user reports that the `alt")]  # the task tool's prompt


def test_opencode_reasoning_and_question_answer_in_order():
    path = next((REAL / "opencode" / "oc-1.17.13-reasoning-question-opencodenvim").glob("storage/session/*/*.json"))
    recs = _read(path)
    assert [(r.role, r.content_type, r.tool_name) for r in recs] == [
        ("user", "text", None),
        ("assistant", "reasoning", None),
        ("tool", "tool", "question"), ("user", "text", None),
        ("assistant", "reasoning", None),
        ("assistant", "text", None),
    ]
    # the option picked and the answer typed ("ai"), as the person's words beside the question
    assert (recs[3].author, recs[3].text) == ("human", "Which of these features would you be interested in? → "
                                              "LSP integration, ai")
    assert recs[2].tool_call_id == "call_00_VJNf4EJT9QPVwSQz08qX5094"
    assert recs[0].cwd == "/home/user/Projects/_nvim/opencode.nvim"  # from the session's directory


def _as_database(tmp_path: Path, storage: Path) -> Path:
    """The same session, message and part objects in an ``opencode.db`` (v1.2+ keeps them there)."""
    db = tmp_path / "opencode.db"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, title TEXT, directory TEXT,"
        " time_created INTEGER, time_updated INTEGER);"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER,"
        " data TEXT);"
        "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER,"
        " time_updated INTEGER, data TEXT);")
    for sfile in sorted(storage.glob("session/*/*.json")):
        s = json.loads(sfile.read_text())
        conn.execute("INSERT INTO session VALUES (?,?,?,?,?,?,?)", (
            s["id"], s.get("projectID"), s.get("parentID"), s.get("title"), s.get("directory"),
            s["time"]["created"], s["time"]["updated"]))
        for msg, parts in _storage_objects(sfile):
            data = {k: v for k, v in msg.items() if k not in ("id", "sessionID")}
            conn.execute("INSERT INTO message VALUES (?,?,?,?,?)", (
                msg["id"], s["id"], msg["time"]["created"], msg["time"]["created"], json.dumps(data)))
            for part in parts:
                pdata = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
                conn.execute("INSERT INTO part VALUES (?,?,?,?,?,?)", (
                    part["id"], msg["id"], s["id"], msg["time"]["created"], msg["time"]["created"],
                    json.dumps(pdata)))
    conn.commit()
    conn.close()
    return db


@pytest.mark.parametrize("fixture", sorted(p.name for p in (REAL / "opencode").glob("oc-*")))
def test_opencode_real_sessions_read_the_same_from_the_database(tmp_path, fixture):
    storage = REAL / "opencode" / fixture / "storage"
    db = _as_database(tmp_path, storage)
    from_db = {u.session.session_id: u for u in opencode.read_whole(db, {}).units}
    for sfile in sorted(storage.glob("session/*/*.json")):
        from_files = opencode.read_whole(sfile, {}).units[0]
        unit = from_db[sfile.stem]
        assert unit.unknown == {} and unit.skipped == []
        assert (unit.session.parent_session_id, unit.session.title) == (
            from_files.session.parent_session_id, from_files.session.title)

        def strip(records):
            return [(r.record_id, r.role, r.content_type, r.text, r.tool_name, r.tool_call_id, r.author, r.is_error)
                    for r in records]
        assert strip(unit.records) == strip(from_files.records)
