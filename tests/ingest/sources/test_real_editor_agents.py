"""Issue 15: Cursor's editor composers and VS Code Copilot Chat sessions read faithfully, on real files.

The files in tests/data/real/{cursor,copilot} were written by the editors themselves (see ORIGIN.md there).
Cursor's ``state.vscdb`` is rebuilt here from the JSON values of its ``cursorDiskKV`` rows. Each test counts
what the data holds independently of the readers (the people's words, the answers, the tool calls and
their outputs, the reasoning) and compares it with the records the reader emits.
"""

import json
import sqlite3
from collections import Counter
from pathlib import Path

from helpers import REAL, kinds

from backscroll.ingest.sources import copilot, cursor

CURSOR_FILE = REAL / "cursor" / "cursor-editor-composer-v10-gitai.json"
COPILOT_FILE = REAL / "copilot" / "copilot-vscode-chat-v3-gitai.json"
COMPOSER = "00812842-49fe-4699-afae-bb22cda3f6e1"


# -- Cursor: the editor's composer bubbles --------------------------------------------------------------

def cursor_rows() -> dict[str, dict]:
    return json.loads(CURSOR_FILE.read_text())["cursorDiskKV"]


def build_cursor_global(home: Path) -> Path:
    """The editor's global database, as Cursor lays it out, holding the real rows."""
    db = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", [(k, json.dumps(v)) for k, v in cursor_rows().items()])
    conn.commit()
    conn.close()
    return db


def cursor_bubbles() -> list[dict]:
    rows = cursor_rows()
    heads = rows[f"composerData:{COMPOSER}"]["fullConversationHeadersOnly"]
    return [rows[f"bubbleId:{COMPOSER}:{h['bubbleId']}"] for h in heads]


def cursor_seen() -> Counter:
    seen: Counter[str] = Counter()
    for b in cursor_bubbles():
        if b["type"] == 1 and b.get("text", "").strip():
            seen["user"] += 1
        if b["type"] == 2 and b.get("text", "").strip():
            seen["answer"] += 1
        if (b.get("thinking") or {}).get("text", "").strip():
            seen["reasoning"] += 1
        tool = b.get("toolFormerData")
        if tool and tool.get("name"):
            seen["call"] += 1
            if tool.get("result") not in (None, "", "{}"):
                seen["output"] += 1
    return seen


def read_cursor(tmp_path):
    db = build_cursor_global(tmp_path)
    assert cursor.AGENT.claims(db)
    units = cursor.read_whole(db, {}).units
    assert [u.session.session_id for u in units] == [COMPOSER]
    return units[0]


def test_cursor_composer_every_bubble_is_read(tmp_path):
    bubbles = cursor_bubbles()
    assert len(bubbles) == 42 and {b["type"] for b in bubbles} == {1, 2}  # no bubble of an unknown kind
    seen = cursor_seen()
    assert seen == Counter(user=2, answer=11, reasoning=6, call=19, output=19)
    unit = read_cursor(tmp_path)
    assert kinds(unit.records) == seen
    assert unit.session.title == "Retrieve SQLite cursor queries"
    users = [r.text for r in unit.records if r.role == "user"]
    assert users[0] == "Give me the queries used in the cursor sqlite storage db"
    assert users[1].startswith("For the code present, we get this error:")
    # in the order of the conversation (not of ``createdAt``, which is 1 ms out of order once), each at its
    # bubble's time
    stamps = {b["bubbleId"]: b["createdAt"] for b in cursor_bubbles()}
    assert [r.timestamp for r in unit.records] == [stamps[r.record_id.split(":")[1].split("#")[0]]
                                                    for r in unit.records]
    assert unit.records[0].timestamp == "2025-10-07T18:28:55.045Z"


def test_cursor_tool_calls_carry_the_models_arguments_and_pair_with_their_outputs(tmp_path):
    unit = read_cursor(tmp_path)
    calls = [r for r in unit.records if r.tool_name is not None]
    outputs = [r for r in unit.records if r.role == "tool" and r.tool_name is None]
    assert Counter(r.tool_name for r in calls) == Counter(grep=10, read_file=5, codebase_search=2, apply_patch=1,
                                                          read_lints=1)
    assert [r.tool_call_id for r in outputs] == [r.tool_call_id for r in calls]
    assert all(r.tool_call_id and r.tool_call_id.startswith("call_") for r in calls)
    # The call is what the model asked (``rawArgs``), not Cursor's internal expansion (``params``): the
    # patch itself, and the search query without the repository's internal identifiers.
    patch = next(r for r in calls if r.tool_name == "apply_patch")
    assert "*** Begin Patch" in patch.text and "bubble_created_at.clone()" in patch.text
    search = next(r for r in calls if r.tool_name == "codebase_search")
    assert "Where is the SQLite storage database implemented" in search.text
    assert "repositoryInfo" not in search.text
    reads = {c.tool_call_id for c in calls if c.tool_name == "read_file"}
    assert any(r.text.startswith("fn fetch_composer_payload(") for r in outputs if r.tool_call_id in reads)


def test_cursor_encrypted_reasoning_leaves_no_empty_record(tmp_path):
    """Four thinking bubbles hold only an encrypted signature (GPT-5): nothing to index, nothing emitted."""
    empty = [b for b in cursor_bubbles() if "thinking" in b and not b["thinking"].get("text", "").strip()]
    assert len(empty) == 4
    unit = read_cursor(tmp_path)
    assert all(r.text.strip() for r in unit.records)


# -- VS Code Copilot Chat: a saved session (version 3 JSON) ------------------------------------------

PROSE = {None, "markdownContent", "inlineReference"}
CALLS = {"toolInvocationSerialized", "toolInvocation"}


def copilot_doc() -> dict:
    return json.loads(COPILOT_FILE.read_text())


def copilot_seen(doc: dict) -> Counter:
    seen: Counter[str] = Counter()
    for req in doc["requests"]:
        if req["message"]["text"].strip():
            seen["user"] += 1
        prose = ""
        for part in req["response"] + [{"kind": "toolInvocationSerialized", "end": True}]:
            kind = part.get("kind")
            if kind in PROSE:
                prose += part.get("value", "") if kind != "inlineReference" else "x"
            elif kind in CALLS:
                if prose.strip(" \n`"):
                    seen["answer"] += 1
                prose = ""
                seen["call"] += 0 if part.get("end") else 1
        seen["output"] += len(req["result"].get("metadata", {}).get("toolCallResults", {}))
    return seen


def read_copilot(tmp_path):
    folder = tmp_path / "Code" / "User" / "workspaceStorage" / "f00d" / "chatSessions"
    folder.mkdir(parents=True)
    path = folder / "331fed7f-cfd6-409c-8502-06a56322b636.json"
    path.write_bytes(COPILOT_FILE.read_bytes())
    assert copilot.AGENT.claims(path)
    units = copilot.read_whole(path, {}).units
    assert len(units) == 1
    return units[0]


def test_copilot_vscode_every_part_is_read(tmp_path):
    doc = copilot_doc()
    parts = Counter(p.get("kind") for req in doc["requests"] for p in req["response"])
    assert set(parts) <= copilot.VSCODE_PART_KINDS  # no response part of a kind the reader does not know
    seen = copilot_seen(doc)
    assert seen == Counter(user=3, answer=5, call=2, output=2)
    unit = read_copilot(tmp_path)
    assert kinds(unit.records) == seen
    assert unit.session.session_id == "331fed7f-cfd6-409c-8502-06a56322b636"
    assert unit.session.title == "Assistance with TypeScript project tasks"
    assert [r.text for r in unit.records if r.role == "user"] == [
        "What can you help me with?", "Change Bonjour World to hello world", "Search for any other mentions of Bonjour"]


def test_copilot_vscode_inline_references_stay_in_the_answer(tmp_path):
    """``inlineReference`` parts are the file names the model wrote inside its sentence."""
    answers = [r.text for r in read_copilot(tmp_path).records if r.role == "assistant"]
    assert "you have a TypeScript project with an `index.ts` file" in answers[0]
    assert any("in line 10 of your `index.ts` file." in a for a in answers)
    assert any("It's on line 1 of `index.ts`:" in a for a in answers)


def test_copilot_vscode_tool_calls_pair_with_the_models_calls_and_results(tmp_path):
    """The response part's ``toolCallId`` is VS Code's own; the model's call (name, arguments, id) is in
    ``result.metadata.toolCallRounds`` and its output in ``toolCallResults`` under the model's id."""
    records = read_copilot(tmp_path).records
    calls = [r for r in records if r.tool_name is not None]
    outputs = [r for r in records if r.role == "tool" and r.tool_name is None]
    assert [r.tool_name for r in calls] == ["copilot_replaceString", "copilot_findTextInFiles"]
    assert [r.tool_call_id for r in outputs] == [r.tool_call_id for r in calls]
    assert all(r.tool_call_id.startswith("toolu_vrtx_") for r in calls)
    assert "oldString" in calls[0].text and "console.log('Bonjour World');" in calls[0].text
    assert "query: Bonjour" in calls[1].text
    assert outputs[0].text.startswith("The following files were successfully edited:")
    assert "1 match" in outputs[1].text and "console.log('Bonjour');" in outputs[1].text
