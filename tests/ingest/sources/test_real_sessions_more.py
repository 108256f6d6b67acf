"""Issue 15: Codex, Gemini, Pi and OpenCode sessions read faithfully, on real files (tests/data/real)."""

import hashlib
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import REAL, kinds

from backscroll.ingest.sources import codex, gemini, pi
from backscroll.types import Record, SessionInfo

CODEX_ID = "019fc8be-3658-7ca3-9e29-000000000000"


def parse_file(agent, path: Path, session: SessionInfo):
    """Records and unknown types of a line-based file, read line by line as ingest does."""
    records: list[Record] = []
    unknown: Counter[str] = Counter()
    for n, raw in enumerate(path.read_bytes().splitlines(), 1):
        if not raw.strip():
            continue
        out = agent.parse_line(orjson.loads(raw), n, session)
        session = replace(session, **{k: v for k, v in out.session_updates.items() if v is not None})
        records.extend(out.records)
        if out.unknown:
            unknown[out.unknown] += 1
    return records, unknown, session


# -- what a careful reader sees, counted independently of the parsers ------------------------------

def codex_seen(path: Path) -> Counter:
    seen: Counter[str] = Counter()
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        p = o.get("payload") if isinstance(o.get("payload"), dict) else {}
        if o.get("type") == "compacted" and p.get("message", "").strip():
            seen["summary"] += 1
        if o.get("type") != "response_item":
            continue
        t = p["type"]
        if t == "message" and p.get("role") in ("user", "assistant"):
            for b in p.get("content") or []:
                text = b.get("text", "") if isinstance(b, dict) else ""
                if text.strip() and not (p["role"] == "user" and text.lstrip().startswith(("<", "# AGENTS.md"))):
                    seen["user" if p["role"] == "user" else "answer"] += 1
        elif t == "agent_message":
            seen["user"] += 1  # words another agent wrote to this one
        elif t in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call",
                   "image_generation_call"):
            seen["call"] += 1
        elif t.endswith("_output") and p.get("output", p.get("tools")) not in (None, "", [], {}):
            seen["output"] += 1
        elif t == "reasoning" and any(s.get("text", "").strip() for s in p.get("summary") or []):
            seen["reasoning"] += 1
    return seen


def pi_seen(path: Path) -> Counter:
    seen: Counter[str] = Counter()
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        if o.get("type") in ("compaction", "branch_summary") and o.get("summary", "").strip():
            seen["summary"] += 1
        if o.get("type") != "message":
            continue
        m = o["message"]
        content = m.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if m["role"] in ("user", "assistant"):
            for b in blocks:
                if b.get("type") == "text" and b.get("text", "").strip():
                    seen["user" if m["role"] == "user" else "answer"] += 1
                elif b.get("type") == "toolCall":
                    seen["call"] += 1
                elif b.get("type") == "thinking" and b.get("thinking", "").strip():
                    seen["reasoning"] += 1
            if m.get("stopReason") == "error" and (m.get("errorMessage") or "").strip():
                seen["user"] += 1  # (the provider's error, as the harness's notice)
        elif m["role"] == "toolResult" and any(b.get("text", "").strip() for b in blocks if isinstance(b, dict)):
            seen["output"] += 1
        elif m["role"] == "bashExecution":
            seen["call"] += 1
            seen["output"] += bool(m.get("output", "").strip())
    return seen


CODEX_FILES = sorted((REAL / "codex").glob("*.jsonl"))
PI_FILES = sorted((REAL / "pi").glob("*.jsonl"))


@pytest.mark.parametrize("path", CODEX_FILES, ids=lambda p: p.name)
def test_fidelity_codex_real_files(path):
    records, unknown, _ = parse_file(codex, path, SessionInfo(CODEX_ID, "codex"))
    seen, got = codex_seen(path), kinds(records)
    assert got == seen, f"seen {dict(seen)}, emitted {dict(got)}"
    assert not unknown, f"entry types not understood: {dict(unknown)}"


@pytest.mark.parametrize("path", PI_FILES, ids=lambda p: p.name)
def test_fidelity_pi_real_files(path):
    records, unknown, _ = parse_file(pi, path, SessionInfo("s", "pi"))
    seen, got = pi_seen(path), kinds(records)
    assert got == seen, f"seen {dict(seen)}, emitted {dict(got)}"
    assert not unknown


def gemini_tree(tmp_path: Path, folder: str, name: str = "gemini-jsonl-2026-04-vibecodingtracker.jsonl") -> Path:
    chats = tmp_path / ".gemini" / "tmp" / folder / "chats"
    chats.mkdir(parents=True)
    dest = chats / "session-2026-04-23T12-52-0ab84937.jsonl"
    dest.write_bytes((REAL / "gemini" / name).read_bytes())
    return dest


def test_fidelity_gemini_real_file(tmp_path):
    path = gemini_tree(tmp_path, "9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea")
    unit = gemini.read_whole(path, {}).units[0]
    conv = gemini.parse_jsonl(path.read_bytes())
    seen: Counter[str] = Counter()
    for m in conv.messages:
        if m["type"] == "user":
            seen["user"] += 1
        elif m["type"] == "gemini":
            seen["answer"] += bool(m.get("content", "").strip())
            seen["reasoning"] += bool(m.get("thoughts"))
            seen["call"] += len(m.get("toolCalls") or [])
            seen["output"] += len(m.get("toolCalls") or [])  # every call in this file returned output
    assert kinds(unit.records) == seen
    assert unit.unknown == {} and unit.skipped == []
    assert sum(len(r.text) for r in unit.records if r.content_type == "reasoning") > 2000, "the thoughts' text"


# -- Codex --------------------------------------------------------------------------------------------

def codex_lines(*objs, session=None):
    session = session or SessionInfo(CODEX_ID, "codex")
    records: list[Record] = []
    unknown: Counter[str] = Counter()
    for n, obj in enumerate(objs, 1):
        out = codex.parse_line(obj, n, session)
        session = replace(session, **{k: v for k, v in out.session_updates.items() if v is not None})
        records.extend(out.records)
        if out.unknown:
            unknown[out.unknown] += 1
    return records, unknown, session


def real_codex_line(n: int) -> dict:
    path = REAL / "codex" / "codex-0.146.0-coverage-agent-sessions.jsonl"
    return json.loads(path.read_bytes().splitlines()[n - 1])


def test_codex_reasoning_summary_is_a_reasoning_record_never_the_encrypted_content():
    recs, _, _ = codex_lines(real_codex_line(7), real_codex_line(39))
    assert [(r.role, r.content_type, r.text) for r in recs] == [("assistant", "reasoning", "[trimmed for fixture]")]
    ev = {"type": "response_item", "payload": {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB"}}
    assert codex_lines(ev)[0] == []


def test_codex_object_output_web_search_tool_search_agent_message():
    recs, unknown, _ = codex_lines(*(real_codex_line(n) for n in (10, 11, 12, 13, 14, 33)))
    got = [(r.role, r.tool_name, r.tool_call_id, r.author, r.text) for r in recs]
    assert got == [
        ("tool", "shell", "call-2", None, "ls"),
        ("tool", None, "call-2", None, "a.txt"),  # output {"type": "input_text", "text": ...}
        ("tool", "tool_search", "call-3", None, "tool_search\nquery: example"),
        ("tool", None, "call-3", None, "example_group\nexample_tool"),
        ("tool", "web_search", "ws-1", None, "web_search\nexample"),  # the query is kept
        ("user", None, None, "agent", "[trimmed for fixture]"),  # another agent's words
    ]
    assert not unknown


def test_codex_thread_name_and_compaction_summary():
    _, _, session = codex_lines(real_codex_line(55))
    assert session.title == "[trimmed for fixture]"
    recs, _, _ = codex_lines(real_codex_line(47), real_codex_line(26))
    assert [(r.role, r.content_type, r.author) for r in recs] == [("assistant", "summary", None)]


@pytest.mark.parametrize("output,failed", [
    ("Chunk ID: 1a2b\nWall time: 0.2 seconds\nProcess exited with code 1\nOriginal token count: 9\nOutput:\nboom",
     True),
    ("Chunk ID: 1a2b\nWall time: 0.2 seconds\nProcess exited with code 0\nOutput:\nok", False),
    ("Exit code: 2\nWall time: 1 seconds\nOutput:\nerror: no such file", True),
    ("Exit code: 0\nOutput:\nfine", False),
])
def test_codex_exit_code_text_sets_is_error(output, failed):
    recs, _, _ = codex_lines({"type": "response_item", "payload": {
        "type": "function_call_output", "call_id": "c1", "output": output}})
    assert recs[0].is_error is failed


PAGINATED_META: dict[str, Any] = {"timestamp": "2026-08-03T10:00:00.000Z", "type": "session_meta",
                  "payload": {"id": CODEX_ID, "cwd": "/tmp/repo", "history_mode": "paginated"}}


def test_codex_paginated_thread_reads_item_completed_and_not_the_projections():
    items = [real_codex_line(n) for n in (101, 102, 106, 108, 109, 110, 117, 104)]
    projection = {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                       "content": [{"type": "output_text", "text": "dup"}]}}
    recs, unknown, session = codex_lines(PAGINATED_META, *items, projection)
    assert session.history_mode == "paginated"
    assert [(r.role, r.content_type, r.tool_name) for r in recs] == [
        ("user", "text", None), ("assistant", "text", None),
        ("tool", "tool", "exec_command"), ("tool", "tool", None),
        ("tool", "tool", "[trimmed for fixture].[trimmed for fixture]"), ("tool", "tool", None),
        ("assistant", "text", None),
        ("tool", "tool", "apply_patch"), ("tool", "tool", None),
        ("tool", "tool", "web_search"),
    ]
    assert recs[0].author == "human" and "dup" not in [r.text for r in recs]
    # a default thread: the same items are UI copies of the response_item lines
    default = {**PAGINATED_META, "payload": {**PAGINATED_META["payload"], "history_mode": "default"}}
    assert codex_lines(default, *items)[0] == []


def test_codex_paginated_mode_survives_an_incremental_read(session_builder, backscroll_home, backscroll_index):
    from helpers import rows
    c = session_builder.codex()
    path = Path(c.path)
    path.write_text(json.dumps({**PAGINATED_META, "payload": {**PAGINATED_META["payload"], "id": c.session_id}}) + "\n")
    backscroll_index()
    with path.open("a") as fh:
        fh.write(json.dumps(real_codex_line(101)) + "\n")
    backscroll_index()
    assert [r["role"] for r in rows(backscroll_home)] == ["user"]


def test_codex_fork_does_not_store_the_copied_parent_transcript_again():
    parent = "019fc8be-0000-7000-8000-00000000aaaa"
    fork_at = "2026-08-03T11:00:00.000Z"

    def at(ts, obj):
        return {"timestamp": ts, **obj}

    user = {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text", "text": "List the files"}]}}
    answer = {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                   "content": [{"type": "output_text", "text": "Found 2 files."}]}}
    mine = {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text", "text": "now count them"}]}}
    recs, _, session = codex_lines(
        at(fork_at, {"type": "session_meta", "payload": {"id": CODEX_ID, "forked_from_id": parent, "cwd": "/r"}}),
        at("2026-08-03T11:00:00.001Z", {"type": "session_meta", "payload": {"id": parent, "cwd": "/elsewhere"}}),
        at("2026-08-03T11:00:00.002Z", user),
        at("2026-08-03T11:00:00.003Z", answer),
        at("2026-08-03T11:00:07.000Z", mine),
        at("2026-08-03T11:00:07.100Z", answer),  # suppression never restarts
    )
    assert [(r.role, r.text) for r in recs] == [("user", "now count them"), ("assistant", "Found 2 files.")]
    assert (session.parent_session_id, session.is_sidechain, session.cwd) == (parent, False, "/r")
    # not a fork: nothing is skipped
    plain, _, _ = codex_lines(
        at(fork_at, {"type": "session_meta", "payload": {"id": CODEX_ID}}), at("2026-08-03T11:00:00.002Z", user))
    assert [r.text for r in plain] == ["List the files"]


def _said(role: str, text: str, **top) -> dict:
    kind = "input_text" if role == "user" else "output_text"
    return {**top, "type": "response_item",
            "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}}


def _item(role: str, text: str, **top) -> dict:
    """A paginated thread's line: an ``item_completed`` event."""
    kind = "UserMessage" if role == "user" else "AgentMessage"
    return {**top, "type": "event_msg", "payload": {"type": "item_completed", "item": {
        "type": kind, "id": f"{kind}-{top.get('ordinal')}", "content": [{"type": "text", "text": text}]}}}


def test_codex_subagent_copy_is_skipped_below_the_ordinal_its_meta_names(session_builder, backscroll_home,
                                                                         backscroll_index):
    """Newer Codex numbers a subagent's lines and names where its own begin: the copy may take any time to write."""
    from helpers import rows
    c = session_builder.codex()
    path = Path(c.path)
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": "p1", "depth": 1}}}
    lines = [
        {"timestamp": "2026-08-03T11:00:00Z", "ordinal": 0, "type": "session_meta",
         "payload": {"id": c.session_id, "source": spawn, "history_mode": "paginated",
                     "subagent_history_start_ordinal": 3}},
        _item("user", "the parent's question", timestamp="2026-08-03T11:00:00Z", ordinal=1),
        _item("assistant", "the parent's answer", timestamp="2026-08-03T11:00:09Z", ordinal=2),
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines[:2]))
    backscroll_index(embed=False)
    own = [_item("user", "audit the tests", timestamp="2026-08-03T11:00:10Z", ordinal=3),
           _item("assistant", "Two are flaky.", timestamp="2026-08-03T11:00:30Z", ordinal=4)]
    with path.open("a") as fh:  # read on in a later sync: where the copy ends is kept
        fh.write("".join(json.dumps(line) + "\n" for line in [lines[2], *own]))
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home)] == ["audit the tests", "Two are flaky."]
    recs, _, session = codex_lines(lines[0], *own)
    assert (session.parent_session_id, session.is_sidechain) == ("p1", True)


SPAWN_NOTE = ("You are the newly spawned agent. The prior conversation history was forked from your parent agent. "
              "Treat the next user message as your new task, and use the forked history only as background context.")


def _child_meta(ts: str, sid: str, parent: str) -> dict:
    """A subagent spawned with its parent's history, as older Codex wrote its meta."""
    return {"timestamp": ts, "type": "session_meta", "payload": {"id": sid, "forked_from_id": parent, "source": {
        "subagent": {"thread_spawn": {"parent_thread_id": parent, "depth": 1}}}}}


def _note(ts: str) -> dict:
    return {"timestamp": ts, "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "spawn-1", "output": SPAWN_NOTE}}


def test_codex_subagent_spawned_with_its_parents_history_skips_the_copy_up_to_the_spawn_note():
    """Older Codex copied the parent's rollout into the child, its meta first, then told the child so."""
    recs, _, session = codex_lines(
        _child_meta("2026-08-03T11:00:00.000Z", CODEX_ID, "p1"),
        {"timestamp": "2026-08-03T11:00:00.001Z", "type": "session_meta", "payload": {"id": "p1", "cwd": "/r"}},
        _said("user", "the parent's question", timestamp="2026-08-03T11:00:00.002Z"),
        _note("2026-08-03T11:00:00.003Z"),
        _said("user", "audit the tests", timestamp="2026-08-03T11:00:00.004Z"),  # the child's own, at once
        _said("assistant", "Two are flaky.", timestamp="2026-08-03T11:00:20Z"),
    )
    assert [r.text for r in recs] == ["audit the tests", "Two are flaky."]
    assert (session.parent_session_id, session.is_sidechain, session.copy_until) == ("p1", True, "")


def test_codex_copy_read_across_two_syncs_is_still_skipped(session_builder, backscroll_home, backscroll_index):
    from helpers import rows
    c = session_builder.codex()
    path = Path(c.path)
    first = [_child_meta("2026-08-03T11:00:00.000Z", c.session_id, "p1"),
             {"timestamp": "2026-08-03T11:00:00.001Z", "type": "session_meta", "payload": {"id": "p1"}},
             _said("user", "the parent's question", timestamp="2026-08-03T11:00:00.002Z")]
    path.write_text("".join(json.dumps(line) + "\n" for line in first))
    backscroll_index(embed=False)
    rest = [_said("assistant", "the parent's answer", timestamp="2026-08-03T11:00:00.003Z"),
            _note("2026-08-03T11:00:00.004Z"), _said("user", "audit the tests", timestamp="2026-08-03T11:00:00.005Z")]
    with path.open("a") as fh:
        fh.write("".join(json.dumps(line) + "\n" for line in rest))
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home)] == ["audit the tests"]


def test_codex_grandchild_copy_holds_its_parents_note_and_ends_at_its_own():
    """A child spawned with history by a child spawned with history: its copy holds both spawns' notes."""
    recs, _, _ = codex_lines(
        _child_meta("2026-08-03T11:00:00.000Z", CODEX_ID, "c1"),
        _child_meta("2026-08-03T11:00:00.001Z", "c1", "p1"),
        {"timestamp": "2026-08-03T11:00:00.002Z", "type": "session_meta", "payload": {"id": "p1"}},
        _said("user", "the root's question", timestamp="2026-08-03T11:00:00.003Z"),
        _note("2026-08-03T11:00:00.004Z"),
        _said("user", "the child's task", timestamp="2026-08-03T11:00:00.005Z"),
        _said("assistant", "the child's answer", timestamp="2026-08-03T11:00:00.006Z"),
        _note("2026-08-03T11:00:00.007Z"),
        _said("user", "the grandchild's task", timestamp="2026-08-03T11:00:00.008Z"),
        _said("assistant", "the grandchild's answer", timestamp="2026-08-03T11:00:20Z"),
    )
    assert [r.text for r in recs] == ["the grandchild's task", "the grandchild's answer"]


def test_codex_a_fork_of_a_spawned_child_ends_its_copy_by_time_not_at_the_copied_note():
    """A fork the person made (no spawn) of a child spawned with history: the child's note is part of the copy."""
    recs, _, _ = codex_lines(
        {"timestamp": "2026-08-03T11:00:00.000Z", "type": "session_meta",
         "payload": {"id": CODEX_ID, "forked_from_id": "c1"}},
        _child_meta("2026-08-03T11:00:00.001Z", "c1", "p1"),
        _note("2026-08-03T11:00:00.002Z"),
        _said("user", "the child's task", timestamp="2026-08-03T11:00:00.003Z"),
        _said("user", "and now the docs", timestamp="2026-08-03T11:00:09Z"),
    )
    assert [r.text for r in recs] == ["and now the docs"]


def test_codex_another_threads_meta_in_a_plain_session_starts_no_copy():
    recs, _, _ = codex_lines(
        {"timestamp": "2026-08-03T11:00:00.000Z", "type": "session_meta", "payload": {"id": CODEX_ID}},
        {"timestamp": "2026-08-03T11:00:05.000Z", "type": "session_meta", "payload": {"id": "p1"}},
        _said("user", "still mine", timestamp="2026-08-03T11:00:05.001Z"),
    )
    assert [r.text for r in recs] == ["still mine"]


def test_codex_spawn_note_outside_a_copy_is_no_record_and_the_parent_may_be_named_at_the_top():
    meta = {"timestamp": "2026-08-03T11:00:00Z", "type": "session_meta", "payload": {
        "id": CODEX_ID, "parent_thread_id": "p1", "thread_source": "subagent",
        "source": {"subagent": {"thread_spawn": {"agent_path": "/root/worker"}}}}}
    out = {"timestamp": "2026-08-03T11:00:02Z", "type": "response_item",
           "payload": {"type": "function_call_output", "call_id": "c9", "output": "Exit code: 0\nOutput:\nok"}}
    recs, _, session = codex_lines(meta, _note("2026-08-03T11:00:01Z"), out)
    assert [r.text for r in recs] == ["Exit code: 0\nOutput:\nok"]
    assert (session.parent_session_id, session.is_sidechain) == ("p1", True)


def test_codex_spawned_subagent_prompts_are_written_by_an_agent():
    meta = {"type": "session_meta", "payload": {"id": CODEX_ID, "source": {
        "subagent": {"thread_spawn": {"parent_thread_id": "p1", "depth": 1}}}}}
    user = {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text", "text": "audit the tests"}]}}
    recs, _, _ = codex_lines(meta, user)
    assert recs[0].author == "agent"


def test_codex_unknown_types_are_reported_known_ones_are_not():
    _, unknown, _ = codex_lines({"type": "brand_new", "payload": {}},
                                {"type": "event_msg", "payload": {"type": "future_event"}},
                                {"type": "response_item", "payload": {"type": "future_item"}},
                                {"type": "event_msg", "payload": {"type": "token_count"}},
                                {"type": "world_state", "payload": {}})
    assert unknown == {"brand_new": 1, "event_msg/future_event": 1, "response_item/future_item": 1}


# -- Gemini -------------------------------------------------------------------------------------------

def test_gemini_thoughts_are_reasoning_and_the_continue_nudge_is_harness(tmp_path):
    path = gemini_tree(tmp_path, "9da8b3dfb8655182ac1f0e66601c367e34f8d18447a29759eeba4d7e45dc60ea")
    recs = gemini.read_whole(path, {}).units[0].records
    users = [(r.author, r.text[:24]) for r in recs if r.role == "user"]
    assert users[1] == ("harness", "System: Please continue.")
    assert users[0][0] == users[2][0] == "human"
    thoughts = [r for r in recs if r.content_type == "reasoning"]
    assert thoughts[0].text.startswith("Initiating File Generation: I'm now focused on generating")
    assert len(thoughts) == 5  # one record per answer with thoughts (most answers say nothing outside them)


def test_gemini_project_from_projects_json(tmp_path):
    root = "/home/user/repo/discordbot"
    path = gemini_tree(tmp_path, hashlib.sha256(root.encode()).hexdigest())
    projects = {"projects": {"/other": "other", root: "discordbot"}}
    (tmp_path / ".gemini" / "projects.json").write_text(json.dumps(projects))
    assert gemini.read_whole(path, {}).units[0].session.cwd == root
    slug = gemini_tree(tmp_path / "b", "discordbot")
    (tmp_path / "b" / ".gemini" / "projects.json").write_text(json.dumps({"projects": {root: "discordbot"}}))
    assert gemini.read_whole(slug, {}).units[0].session.cwd == root


def test_gemini_project_recovered_from_the_hash_and_tool_paths(tmp_path):
    root = "/home/user/repo/discordbot"
    data = (REAL / "gemini" / "gemini-jsonl-2026-04-vibecodingtracker.jsonl").read_text()
    lines = []
    for line in data.splitlines():
        obj = json.loads(line)
        for call in obj.get("toolCalls") or []:
            if call["args"].get("file_path") == "README.md":
                call["args"]["file_path"] = f"{root}/README.md"
        lines.append(json.dumps(obj, ensure_ascii=False))
    data = "\n".join(lines) + "\n"
    chats = tmp_path / "tmp" / hashlib.sha256(root.encode()).hexdigest() / "chats"
    chats.mkdir(parents=True)
    (chats / "session-x.jsonl").write_text(data)
    assert gemini.read_whole(chats / "session-x.jsonl", {}).units[0].session.cwd == root
    # no path hashes to the folder: no guess
    other = tmp_path / "tmp" / ("0" * 64) / "chats"
    other.mkdir(parents=True)
    (other / "session-y.jsonl").write_text(data)
    assert gemini.read_whole(other / "session-y.jsonl", {}).units[0].session.cwd is None


# -- Pi -----------------------------------------------------------------------------------------------

def test_pi_compaction_summaries_are_stored_once_and_thinking_is_reasoning():
    path = REAL / "pi" / "pi-v3-fixture-model-agent-sessions.jsonl"
    recs, unknown, _ = parse_file(pi, path, SessionInfo("s", "pi"))
    summaries = [r for r in recs if r.content_type == "summary"]
    assert len(summaries) == 2 and len({r.record_id for r in summaries}) == 2  # two compactions, one record each
    assert all(r.role == "assistant" and r.author is None for r in summaries)
    branch = pi.parse_line({"type": "branch_summary", "id": "b1", "fromId": "a", "summary": "Tried X; it failed."},
                           9, SessionInfo("s", "pi"))
    assert [(r.content_type, r.text) for r in branch.records] == [("summary", "Tried X; it failed.")]
    thinking = pi.parse_line({"type": "message", "id": "m1", "message": {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "check tax.py", "thinkingSignature": "sig-must-not-be-stored"},
        {"type": "text", "text": "Reading it."}]}}, 3, SessionInfo("s", "pi"))
    assert [(r.content_type, r.text) for r in thinking.records] == [("reasoning", "check tax.py"),
                                                                     ("text", "Reading it.")]
    assert not unknown
