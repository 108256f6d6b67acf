"""Fuzzed input for the Gemini CLI, OpenCode and Pi readers (Claude and Codex: test_reliability.py).

Whatever the bytes or JSON shapes, a reader returns records or says what it skipped; it never
raises anything else, and every record it returns is well formed.
"""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import LineError, ParsedLine, gemini, opencode, pi
from backscroll.types import Record, SessionInfo

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=25,
)


def _well_formed(records: list[Record]) -> None:
    for rec in records:
        assert isinstance(rec, Record)
        assert isinstance(rec.text, str) and rec.text, rec
        assert rec.role in ("user", "assistant", "tool") and rec.content_type in ("text", "tool"), rec
        assert isinstance(rec.record_id, str) and rec.record_id
        assert rec.timestamp is None or isinstance(rec.timestamp, str)
    ids = [r.record_id for r in records]
    assert len(ids) == len(set(ids)), "record ids are unique within a read"


# -- Pi: line by line ----------------------------------------------------------------------------

pi_shaped = st.fixed_dictionaries({
    "type": st.sampled_from(["session", "message", "session_info", "model_change", "compaction", "x"]) | json_values,
    "id": json_values, "parentId": json_values, "timestamp": json_values, "cwd": json_values, "name": json_values,
    "version": json_values, "parentSession": json_values,
    "message": json_values | st.fixed_dictionaries({
        "role": st.sampled_from(["user", "assistant", "toolResult", "bashExecution", "custom"]) | json_values,
        "content": json_values | st.lists(st.fixed_dictionaries({
            "type": st.sampled_from(["text", "thinking", "toolCall", "image"]) | json_values,
            "text": json_values, "name": json_values, "arguments": json_values, "id": json_values,
        }), max_size=3),
        "toolCallId": json_values, "toolName": json_values, "isError": json_values, "command": json_values,
        "output": json_values, "exitCode": json_values, "timestamp": json_values,
    }),
})


@settings(max_examples=150, deadline=None)
@given(obj=st.one_of(json_values, pi_shaped))
def test_pi_parser_never_raises_anything_but_line_errors(obj):
    try:
        out = pi.parse_line(obj, 7, SessionInfo("s", "pi"))
    except LineError:
        return
    assert isinstance(out, ParsedLine) and isinstance(out.session_updates, dict)
    _well_formed(out.records)


# -- Gemini CLI: whole files, two generations ------------------------------------------------------

gemini_message = st.fixed_dictionaries({
    "id": st.text(min_size=1, max_size=6),
    "type": st.sampled_from(["user", "gemini", "info", "error"]) | json_values,
    "timestamp": json_values, "content": json_values, "displayContent": json_values, "thoughts": json_values,
    "toolCalls": json_values | st.lists(st.fixed_dictionaries({
        "id": json_values, "name": json_values, "args": json_values, "result": json_values,
        "resultDisplay": json_values, "status": st.sampled_from(["success", "error"]) | json_values,
        "timestamp": json_values,
    }), max_size=3),
})
gemini_line = st.one_of(
    gemini_message,
    st.fixed_dictionaries({"$set": json_values | st.fixed_dictionaries({
        "messages": st.lists(gemini_message | json_values, max_size=3)})}),
    st.fixed_dictionaries({"$rewindTo": json_values | st.text(max_size=6)}),
    st.fixed_dictionaries({"sessionId": json_values, "directories": json_values, "kind": json_values,
                           "summary": json_values}),
    json_values,
)


def _encode(obj) -> bytes:
    return json.dumps(obj).encode()


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.one_of(gemini_line.map(_encode), st.binary(max_size=40)), max_size=8),
       final_newline=st.booleans())
def test_gemini_jsonl_replay_never_raises(lines, final_newline):
    data = b"\n".join(line.replace(b"\n", b" ") for line in lines) + (b"\n" if final_newline else b"")
    conv = gemini.parse_jsonl(data)
    assert all(isinstance(n, int) and isinstance(why, str) for n, why in conv.skipped)
    session = gemini.session_of(conv, SessionInfo("base", "gemini"), None)
    _well_formed(gemini.conversation_records(conv, session))


@settings(max_examples=100, deadline=None)
@given(doc=st.one_of(json_values, st.fixed_dictionaries({
    "sessionId": json_values, "messages": json_values | st.lists(gemini_message | json_values, max_size=4),
    "summary": json_values, "directories": json_values, "kind": json_values})).map(_encode) | st.binary(max_size=80))
def test_gemini_json_file_is_read_or_refused_with_a_reason(doc):
    try:
        conv = gemini.parse_json(doc)
    except ValueError as exc:
        assert str(exc)
        return
    session = gemini.session_of(conv, SessionInfo("base", "gemini", is_sidechain=True, parent_session_id="p"), "/w")
    _well_formed(gemini.conversation_records(conv, session))


# -- OpenCode: messages and parts as stored (JSON text in its database or storage files) ----------

opencode_part = st.fixed_dictionaries({
    "type": st.sampled_from(["text", "tool", "reasoning", "step-start", "file"]) | json_values,
    "text": json_values, "synthetic": json_values, "ignored": json_values, "time": json_values,
    "tool": st.sampled_from(["bash", "read", "edit"]) | json_values, "callID": json_values,
    "state": json_values | st.fixed_dictionaries({
        "status": st.sampled_from(["completed", "error", "running"]) | json_values,
        "input": json_values | st.fixed_dictionaries({"command": json_values}),
        "output": json_values, "error": json_values, "time": json_values,
    }),
})
opencode_message = st.fixed_dictionaries({
    "role": st.sampled_from(["user", "assistant"]) | json_values, "summary": json_values, "time": json_values,
    "path": json_values, "id": json_values,
})
stored = st.one_of(  # what the reader gets back: JSON text, bytes, or an object already decoded
    st.binary(max_size=40),
    json_values.map(_encode),
    opencode_part.map(_encode),
    opencode_message.map(lambda m: json.dumps(m)),
    opencode_part,
    json_values,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=st.lists(st.tuples(st.one_of(stored, opencode_message.map(_encode)),
                                   json_values, st.lists(st.tuples(stored, json_values), max_size=4)), max_size=4))
def test_opencode_messages_and_parts_never_raise(messages):
    built = []
    for m, (raw, created, parts) in enumerate(messages):
        built.append(opencode._Message(f"msg{m}", opencode._decode(raw), created,
                                       [opencode._Part(f"prt{m}_{p}", opencode._decode(data), pc)
                                        for p, (data, pc) in enumerate(parts)]))
    unit = opencode._unit("db#s", SessionInfo("s", "opencode"), built)
    _well_formed(unit.records)
    assert all(isinstance(n, int) and isinstance(why, str) for n, why in unit.skipped)
    undecodable = sum(isinstance(m.data, str) and 1 or sum(isinstance(p.data, str) for p in m.parts) for m in built)
    assert len(unit.skipped) == undecodable, "every unreadable message or part is reported, once"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(session=st.one_of(st.binary(max_size=60), st.fixed_dictionaries({
    "id": json_values, "parentID": json_values, "directory": json_values, "title": json_values}).map(_encode)),
    message=stored, part=stored)
def test_opencode_storage_tree_is_read_or_refused_with_a_reason(session, message, part, tmp_path_factory):
    storage = tmp_path_factory.mktemp("opencode") / "storage"
    path = storage / "session" / "proj" / "ses_1.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(session)
    for rel, value in (("message/ses_1/msg_1.json", message), ("part/msg_1/prt_1.json", part)):
        (storage / rel).parent.mkdir(parents=True)
        (storage / rel).write_bytes(value if isinstance(value, bytes)
                                    else value.encode() if isinstance(value, str) else _encode(value))
    try:
        read = opencode.read_whole(path, {})
    except OSError as exc:
        assert "unreadable" in str(exc)
        return
    for unit in read.units:
        _well_formed(unit.records)


def test_gemini_message_whose_type_is_not_text_is_skipped_not_a_crash(tmp_path):
    """Found by the fuzzer: ``"type": []`` raised TypeError (unhashable) and lost the whole file."""
    path = tmp_path / ".gemini" / "tmp" / "proj" / "chats" / "session-2026-10-01T09-00-0a1b2c3d.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(json.dumps(o) for o in [
        {"sessionId": "0a1b2c3d-0000-4000-8000-000000000001", "directories": ["/w"]},
        {"id": "m1", "type": [], "content": "odd"},
        {"id": "m2", "type": "user", "content": "kept"},
    ]) + "\n")
    [unit] = gemini.read_whole(path, {}).units
    assert [r.text for r in unit.records] == ["kept"]


def test_tool_input_with_an_integer_past_64_bits_is_rendered():
    """Found by the Amp fuzzer: orjson cannot encode such an integer, which Python's json reader gives."""
    from backscroll.ingest.sources import render_input

    big = -9_223_372_036_854_775_809
    assert render_input(big) == str(big)
    assert render_input({"n": [big], "ok": "yes"}) == f"n: [{big}]\nok: yes"
    assert render_input({"a": {1: "key that is not text"}}) == 'a: {"1":"key that is not text"}'
