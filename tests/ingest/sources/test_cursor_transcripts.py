"""Cursor's agent transcripts (``~/.cursor/projects/<slug>/agent-transcripts/``), read faithfully.

The real file in tests/data/real/cursor was written by Cursor (see ORIGIN.md there). Its expected
records are counted here from the raw lines, independently of the reader.
"""


import json
import shutil
import sqlite3
from pathlib import Path

from helpers import TESTS, rows
from hypothesis import given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import AGENTS, ParsedLine, cursor
from backscroll.ingest.sources.cursor_text import read_transcript, text_records
from backscroll.ingest.sources.cursor_transcripts import TranscriptState, parse_transcript_line
from backscroll.types import Record, SessionInfo

REAL = TESTS / "data" / "real" / "cursor" / "cursor-agent-transcript-gitai.jsonl"
SLUG = "Users-user-Desktop-testing-gitflows-git-ai"
SID = "123e4567-e89b-42d3-a456-426614174000"


def place(home: Path, text: str, sid: str = SID, slug: str = SLUG) -> Path:
    path = home / ".cursor" / "projects" / slug / "agent-transcripts" / sid / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def expected(lines: list[dict]) -> list[tuple[int, str, str]]:
    """(line, role, kind) of every record the raw lines hold: user words, answers, tool calls."""
    out = []
    for n, obj in enumerate(lines, 1):
        for block in obj["message"]["content"]:
            text = block.get("text", "")
            if block["type"] == "text" and obj["role"] == "user":
                out.append((n, "user", "text"))
            elif block["type"] == "text" and text.replace("[REDACTED]", "").strip():
                out.append((n, "assistant", "text"))
            elif block["type"] == "tool_use":
                out.append((n, "tool", block["name"]))
    return out


def test_every_block_of_the_real_transcript_is_read(tmp_path):
    lines = [json.loads(x) for x in REAL.read_text().splitlines()]
    path = place(tmp_path, REAL.read_text())
    assert cursor.AGENT.claims(path)
    unit = read_transcript(path)
    got = [(r.line, r.role, r.tool_name or r.content_type) for r in unit.records]
    assert got == expected(lines)
    assert len(got) == 14  # 1 user query, 3 answers, 10 tool calls (7 answers are only [REDACTED])
    assert unit.skipped == [] and unit.unknown == {}
    users = [r for r in unit.records if r.role == "user"]
    assert [u.text for u in users] == ["Generate a file with all the HBO shows from the 90's in it"]
    assert users[0].author == "human"
    assert not any("[REDACTED]" in r.text for r in unit.records)
    # The project: the slug decoded against the paths the tool calls name.
    assert unit.session.cwd == "/Users/user/Desktop/testing-gitflows-git-ai"
    assert unit.session.session_id == SID and unit.session.agent == "cursor"


def test_discovery_walks_only_agent_transcripts(tmp_path):
    path = place(tmp_path, REAL.read_text())
    other = tmp_path / ".cursor" / "projects" / SLUG / "agent-tools" / "x.jsonl"
    other.parent.mkdir(parents=True)
    other.write_text(REAL.read_text())
    roots = [p for p, _ in cursor.default_root({"HOME": str(tmp_path)})]
    assert tmp_path / ".cursor" / "projects" in roots
    assert list(cursor.AGENT.discover(tmp_path / ".cursor" / "projects")) == [path]


def test_appended_lines_are_stored_once(backscroll_home, backscroll_index):
    raw = REAL.read_text().splitlines(keepends=True)
    path = place(backscroll_home.home, "".join(raw[:4]) + raw[4].rstrip("\n")[:-5])  # last line half-written
    backscroll_index(embed=False)
    first = rows(backscroll_home, "SELECT record_id, text FROM records ORDER BY id")
    assert len(first) == len(expected([json.loads(x) for x in raw[:4]]))
    with path.open("w") as fh:
        fh.write("".join(raw))
    backscroll_index(embed=False)
    after = rows(backscroll_home, "SELECT record_id, text, project FROM records ORDER BY id")
    assert len(after) == 14 and len({r["record_id"] for r in after}) == 14
    assert after[: len(first)] == [dict(r, project="testing-gitflows-git-ai") for r in first]
    assert {r["project"] for r in after} == {"testing-gitflows-git-ai"}
    backscroll_index(embed=False)
    assert len(rows(backscroll_home)) == 14
    assert rows(backscroll_home, "SELECT count(*) AS n FROM skipped_lines")[0]["n"] == 0


def _line(role: str, *blocks: dict) -> str:
    return json.dumps({"role": role, "message": {"content": list(blocks)}}) + "\n"


def test_a_backscroll_search_shell_call_is_an_echo(backscroll_home, backscroll_index):
    text = (_line("user", {"type": "text", "text": "<timestamp>Sunday, Aug 2, 2026, 3:51 AM (UTC-7)</timestamp>\n"
                                                  "<user_query>\nwhat did we decide about retries?\n</user_query>"})
            + _line("assistant", {"type": "tool_use", "name": "Shell",
                                  "input": {"command": "backscroll search 'retry policy'",
                                            "working_directory": "/work/proj"}})
            + _line("assistant", {"type": "tool_use", "name": "Shell", "input": {"command": "ls -la"}})
            + json.dumps({"type": "turn_ended", "status": "success"}) + "\n")
    place(backscroll_home.home, text, slug="work-proj")
    backscroll_index(embed=False)
    calls = rows(backscroll_home, "SELECT text, is_echo, is_shell, timestamp, project FROM records "
                                  "WHERE is_call = 1 ORDER BY id")
    assert [(c["text"], c["is_echo"], c["is_shell"]) for c in calls] == [
        ("backscroll search 'retry policy'", 1, 1), ("ls -la", 0, 1)]
    assert {c["timestamp"] for c in calls} == {"2026-08-02T10:51:00.000Z"}
    assert {c["project"] for c in calls} == {"proj"}


def test_a_conversation_the_cli_database_holds_is_stored_once(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    path = place(tmp_path, REAL.read_text())
    assert len(cursor.read_whole(path, {}).units) == 1
    db = tmp_path / ".cursor" / "chats" / "f00d" / SID / "store.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("INSERT INTO blobs VALUES ('a', ?)", (json.dumps({"role": "user", "content": "hi"}).encode(),))
    conn.commit()
    conn.close()
    assert cursor.read_whole(path, {}).units == []
    sub = path.parent / "subagents" / "child.jsonl"  # a subagent's transcript is never in the CLI database
    sub.parent.mkdir()
    shutil.copy(REAL, sub)
    unit = cursor.read_whole(sub, {}).units[0]
    assert unit.session.is_sidechain and unit.session.parent_session_id == SID
    assert {r.author for r in unit.records if r.role == "user"} == {"agent"}


def test_a_transcript_is_read_when_the_database_that_holds_its_conversation_is_damaged(tmp_path, monkeypatch):
    """The chat's ``store.db`` with a damaged page past its first rows (readable enough to look as if it held the
    conversation): the transcript gave way to it, and nothing of the conversation landed."""
    monkeypatch.setenv("HOME", str(tmp_path))
    path = place(tmp_path, REAL.read_text())
    db = tmp_path / ".cursor" / "chats" / "f00d" / SID / "store.db"
    db.parent.mkdir(parents=True)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    for i in range(200):
        conn.execute("INSERT INTO blobs VALUES (?, ?)", (f"b{i:04d}", json.dumps(
            {"role": "assistant", "content": f"answer {i} " + "x" * 2000}).encode()))
    conn.commit()
    conn.close()
    assert cursor.read_whole(path, {}).units == [], "held by a sound database"
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    at = data.find(b"answer 151 ") // page * page
    data[at + 1:at + 5] = b"\xff\xff\xff\xff"  # (a damaged page header)
    db.write_bytes(bytes(data))
    assert len(cursor.read_whole(path, {}).units) == 1


def _cursor3_editor(home: Path) -> Path:
    """A Cursor 3 global database: composers name their folder themselves or only in ``composerHeaders``; a forked
    subagent thread begins with its parent's bubbles (ids kept)."""
    user = home / ".config" / "Cursor" / "User"
    ws = user / "workspaceStorage" / "ws-9"
    ws.mkdir(parents=True)
    (ws / "workspace.json").write_text(json.dumps({"folder": "file:///home/dev/api"}))
    gdb = user / "globalStorage" / "state.vscdb"
    gdb.parent.mkdir(parents=True)
    conn = sqlite3.connect(gdb)
    conn.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    conn.execute("CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT, createdAt INTEGER, "
                 "lastUpdatedAt INTEGER, isArchived INTEGER, isSubagent INTEGER, recency INTEGER, "
                 "checkpointAt INTEGER, value TEXT)")

    def composer(cid: str, bubbles: list[tuple[str, int, str]], **extra) -> None:
        heads = [{"bubbleId": b, "type": t} for b, t, _ in bubbles]
        conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{cid}", json.dumps(
            {"_v": 17, "composerId": cid, "createdAt": 1791554400000, "lastUpdatedAt": 1791554460000,
             "fullConversationHeadersOnly": heads, **extra})))
        for b, t, text in bubbles:
            conn.execute("INSERT INTO cursorDiskKV VALUES (?, ?)",
                         (f"bubbleId:{cid}:{b}", json.dumps({"_v": 3, "type": t, "bubbleId": b, "text": text})))

    composer("main", [("u1", 1, "why is the api slow?"), ("a1", 2, "N+1 queries in the orders view.")],
             subagentComposerIds=["sub"],
             workspaceIdentifier={"id": "ws-1", "uri": {"fsPath": "/home/dev/shop", "scheme": "file"}})
    composer("sub", [("u1", 1, "why is the api slow?"), ("s1", 1, "count the queries per request"),
                     ("s2", 2, "41 queries for one page.")], subagentInfo={"parentComposerId": "main"})
    composer("headed", [("h1", 1, "rotate the api keys")])
    conn.execute("INSERT INTO composerHeaders VALUES ('headed', 'ws-9', 0, 0, 0, 0, 0, 0, '{}')")
    conn.commit()
    conn.close()
    return gdb


def test_cursor3_composers_find_their_folder_and_a_forked_subagent_thread_is_linked_and_not_copied(tmp_path,
                                                                                                   monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    units = {u.session.session_id: u for u in cursor.read_whole(_cursor3_editor(tmp_path), {}).units}
    assert {sid: u.session.cwd for sid, u in units.items()} == {
        "main": "/home/dev/shop", "sub": "/home/dev/shop", "headed": "/home/dev/api"}
    sub = units["sub"]
    assert (sub.session.is_sidechain, sub.session.parent_session_id) == (True, "main")
    assert [r.text for r in sub.records] == ["count the queries per request", "41 queries for one page."]
    # its transcript, which the editor writes too, is stored once, from the database
    transcript = place(tmp_path, REAL.read_text()).parent / "subagents" / "sub.jsonl"
    transcript.parent.mkdir()
    shutil.copy(REAL, transcript)
    assert cursor.read_whole(transcript, {}).units == []


def test_cursor3_a_subagent_named_only_later_is_linked_then_and_odd_links_lose_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    gdb = _cursor3_editor(tmp_path)
    with sqlite3.connect(gdb) as conn:  # the parent does not list its subagent yet, nor does the subagent name it
        conn.execute("UPDATE cursorDiskKV SET value = json_remove(value, '$.subagentComposerIds') "
                     "WHERE key = 'composerData:main'")
        conn.execute("UPDATE cursorDiskKV SET value = json_remove(value, '$.subagentInfo') "
                     "WHERE key = 'composerData:sub'")
        conn.execute("UPDATE cursorDiskKV SET value = json_set(value, '$.subagentInfo', json('{\"parentComposerId\": "
                     "\"headed\"}')) WHERE key = 'composerData:headed'")  # a composer that names itself its parent
    conn.close()
    first = cursor.read_whole(gdb, {})
    units = {u.session.session_id: u for u in first.units}
    assert not units["sub"].session.is_sidechain and len(units["sub"].records) == 3
    assert [r.text for r in units["headed"].records] == ["rotate the api keys"]
    with sqlite3.connect(gdb) as conn:  # the header that says it is a subagent's arrives later
        conn.execute("INSERT INTO composerHeaders VALUES ('sub', '', 0, 0, 0, 1, 0, 0, NULL)")
    conn.close()
    again = cursor.read_whole(gdb, first.state)
    assert [(u.session.session_id, u.session.is_sidechain) for u in again.units] == [("sub", True)]


def test_older_text_transcripts_are_read():
    text = ("user:\n<user_query>\nrun the tests\n</user_query>\n\nassistant:\n[Thinking] check the runner first\n\n"
            "I'll run them.\n[Tool call] Shell\n  command: pytest -q\n  working_directory: /w/app\n\n"
            "[Tool result] Shell\n3 passed\n\nassistant:\nAll green.\n")
    recs = text_records(text, SessionInfo("s", "cursor"), state := TranscriptState())
    assert [(r.role, r.content_type, r.text) for r in recs] == [
        ("user", "text", "run the tests"), ("assistant", "reasoning", "check the runner first"),
        ("assistant", "text", "I'll run them."), ("tool", "tool", "pytest -q"), ("tool", "tool", "3 passed"),
        ("assistant", "text", "All green.")]
    assert recs[3].command == "pytest -q" and state.cwd == "/w/app"
    assert "cursor" in AGENTS


def test_a_text_transcript_call_without_named_arguments_after_one_with_them_is_read():
    text = ("assistant:\n[Tool call] Shell\n  command: ls\n\n[Tool result] Shell\napp\n\n"
            "[Tool call] ApplyPatch\n  *** Begin Patch\n   if x:\n  cwd: /elsewhere\n\nassistant:\nPatched.\n")
    recs = text_records(text, SessionInfo("s", "cursor"), state := TranscriptState())
    assert [(r.role, r.text) for r in recs] == [
        ("tool", "ls"), ("tool", "app"), ("tool", "ApplyPatch\ninput: *** Begin Patch\n if x:\ncwd: /elsewhere"),
        ("assistant", "Patched.")]
    assert state.cwd is None  # (a line of the input is no argument)


def test_a_text_transcript_result_answers_its_call_in_order():
    text = ("user:\nlook around\n\nassistant:\n[Tool call] Shell\n  command: ls\n[Tool call] Read\n  path: a.py\n"
            "[Tool call] Shell\n  command: pwd\n\n[Tool result] Read\nprint(1)\n\n[Tool result] Shell\n\n"
            "[Tool result] Shell\n/w\n\nuser:\nagain\n\nassistant:\n[Tool result] Shell\nstray\n")
    recs = text_records(text, SessionInfo("s", "cursor"), TranscriptState())
    calls = {r.text: r.record_id for r in recs if r.tool_name}
    results = {r.text: r.tool_call_id for r in recs if r.role == "tool" and not r.tool_name}
    # (the first Shell's output was empty: it answers the first Shell call all the same)
    assert results == {"print(1)": calls["Read\npath: a.py"], "/w": calls["pwd"], "stray": None}


def test_a_text_transcript_backscroll_search_output_is_an_echo(backscroll_home, backscroll_index):
    sid = "0b9c2f7e-1d3a-4c5b-8e6f-7a8b9c0d1e2f"
    text = ("user:\n<user_query>\nwhat did we decide about retries?\n</user_query>\n\nassistant:\n"
            "[Tool call] Shell\n  command: backscroll search 'retry policy'\n\n"
            "[Tool result] Shell\nWe settled on exponential backoff with jitter, five tries.\n\n"
            "assistant:\nPast sessions chose exponential backoff.\n")
    jsonl = place(backscroll_home.home, "", sid=sid, slug="work-proj")
    jsonl.rename(jsonl.with_suffix(".txt")).write_text(text)
    backscroll_index(embed=False)
    got = rows(backscroll_home, "SELECT role, is_call, is_echo, tool_name, text FROM records ORDER BY id")
    assert [(r["role"], r["is_call"], r["is_echo"], r["tool_name"]) for r in got] == [
        ("user", 0, 0, None), ("tool", 1, 1, "Shell"), ("tool", 0, 1, "Shell"), ("assistant", 0, 0, None)]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=25,
)
shaped = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant", "tool"]) | json_values,
    "type": st.sampled_from(["turn_ended", "x"]) | json_values,
    "message": json_values | st.fixed_dictionaries({"content": json_values | st.text(max_size=40) | st.lists(
        st.fixed_dictionaries({
            "type": st.sampled_from(["text", "thinking", "tool_use", "tool_result", "redacted"]) | json_values,
            "text": json_values | st.sampled_from(["<user_query>q</user_query>", "[REDACTED]",
                                                   "<timestamp>Aug 2, 2026, 3:51 PM (UTC+2)</timestamp>x"]),
            "name": st.sampled_from(["Shell", "Read"]) | json_values, "input": json_values,
            "thinking": json_values, "content": json_values, "id": json_values,
        }), max_size=3)}),
})


def _well_formed(records: list[Record]) -> None:
    for rec in records:
        assert isinstance(rec, Record) and isinstance(rec.text, str) and rec.text.strip(), rec
        assert rec.role in ("user", "assistant", "tool"), rec
        assert rec.content_type in ("text", "tool", "reasoning"), rec
        assert rec.timestamp is None or isinstance(rec.timestamp, str)
        assert rec.command is None or isinstance(rec.command, str)
    ids = [r.record_id for r in records]
    assert len(ids) == len(set(ids)), "record ids are unique within a read"


@settings(max_examples=200, deadline=None)
@given(objs=st.lists(st.one_of(json_values, shaped), max_size=4))
def test_the_line_parser_never_raises(objs):
    state, out = TranscriptState(), []
    for n, obj in enumerate(objs, 1):
        parsed = parse_transcript_line(obj, n, SessionInfo("s", "cursor"), state)
        assert isinstance(parsed, ParsedLine)
        out.extend(parsed.records)
    _well_formed(out)


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_are_read_or_skipped(tmp_path_factory, data):
    path = place(tmp_path_factory.mktemp("fz"), "")
    path.write_bytes(data)
    _well_formed(read_transcript(path).records)
    _well_formed(text_records(data.decode("utf-8", "replace"), SessionInfo("s", "cursor"), TranscriptState()))
