"""VS Code Copilot Chat's patch-log sessions (``chatSessions/<id>.jsonl``, VS Code 1.109 / Copilot Chat 0.37+).

The log is replayed into the session document older builds save as ``<id>.json`` (``copilot_log.replay``),
then read by the same ``vscode_records``. The real log in tests/data/real/copilot was written by VS Code
(see ORIGIN.md there); its words are counted here independently of the reader.
"""


import json
import shutil
from collections import Counter
from pathlib import Path

import orjson
import pytest
from helpers import TESTS, kinds, rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backscroll.ingest.sources import copilot
from backscroll.ingest.sources.copilot_log import replay
from backscroll.types import Record, SessionInfo

REAL = TESTS / "data" / "real" / "copilot"
LOG_FILE = REAL / "copilot-vscode-chat-log-v3-gitai.jsonl"
JSON_FILE = REAL / "copilot-vscode-chat-v3-gitai.json"
LOG_ID = "7de89a80-6d93-43e7-be0a-0a9afe980198"
JSON_ID = "331fed7f-cfd6-409c-8502-06a56322b636"
CODE = ".config/Code/User"


def chat_dir(root: Path) -> Path:
    folder = root / "Code" / "User" / "workspaceStorage" / "f00d" / "chatSessions"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def read(path: Path):
    assert copilot.AGENT.claims(path)
    units = copilot.read_whole(path, {}).units
    assert len(units) == 1
    return units[0]


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def log_of(doc: dict, *patches: dict) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in ({"kind": 0, "v": doc}, *patches))


# -- the real log --------------------------------------------------------------------------------------

def test_the_real_log_is_an_initial_state_then_patches():
    entries = lines_of(LOG_FILE)
    assert [(e["kind"], e.get("k")) for e in entries] == [
        (0, None), (1, ["inputState", "inputText"]), (1, ["inputState", "selections"]), (2, ["requests"]),
        (1, ["inputState", "inputText"]), (1, ["inputState", "selections"])]
    doc, skipped = replay(LOG_FILE.read_bytes().split(b"\n"))
    assert skipped == []
    assert doc is not None and doc["sessionId"] == LOG_ID
    assert [r["message"]["text"] for r in doc["requests"]] == [
        "Add a joke about 7sadfh32u23gdaWF to jokes.csv", "follow up message"]
    assert doc["inputState"]["inputText"] == ""  # the last Set wins


def seen_in_log(entries: list[dict]) -> Counter:
    """What the log holds, counted from its raw lines: the initial requests plus those pushed onto them."""
    requests = list(entries[0]["v"]["requests"])
    for e in entries[1:]:
        if e["kind"] == 2 and e["k"] == ["requests"]:
            requests.extend(e["v"])
    seen: Counter[str] = Counter()
    for req in requests:
        seen["user"] += bool(req["message"]["text"].strip())
        prose = ""
        for part in req["response"] + [{"kind": "toolInvocationSerialized", "end": True}]:
            kind = part.get("kind")
            if kind in (None, "markdownContent"):
                prose += part["value"]
            elif kind == "inlineReference":
                prose += "x"
            elif kind == "thinking":
                seen["reasoning"] += 1
            elif kind == "toolInvocationSerialized":
                seen["answer"] += bool(prose.strip(" \n`"))
                prose = ""
        metadata = req["result"]["metadata"]
        seen["call"] += sum(len(r["toolCalls"]) for r in metadata.get("toolCallRounds", []))
        seen["output"] += len(metadata.get("toolCallResults", {}))
    return +seen


def test_real_log_fidelity_every_word_call_and_output_is_read(tmp_path):
    entries = lines_of(LOG_FILE)
    seen = seen_in_log(entries)
    assert seen == Counter(user=2, answer=2, call=2, output=2)  # no reasoning in this session
    parts = {p.get("kind") for e in entries if e["kind"] in (0, 2)
             for req in (e["v"]["requests"] if e["kind"] == 0 else e["v"]) for p in req["response"]}
    assert parts <= copilot.VSCODE_PART_KINDS
    path = chat_dir(tmp_path) / f"{LOG_ID}.jsonl"
    shutil.copyfile(LOG_FILE, path)
    unit = read(path)
    assert unit.skipped == []
    assert kinds(unit.records) == seen
    assert unit.session.session_id == LOG_ID and unit.session.title == "Adding a joke to jokes.csv file"
    assert [r.text for r in unit.records if r.role == "user"] == [
        "Add a joke about 7sadfh32u23gdaWF to jokes.csv", "follow up message"]
    calls = [r for r in unit.records if r.tool_name is not None]
    outputs = [r for r in unit.records if r.role == "tool" and r.tool_name is None]
    # VS Code's own vscode_editFile_internal invocation is not a call of the model: the two calls pair.
    assert [r.tool_name for r in calls] == ["copilot_readFile", "copilot_insertEdit"]
    assert [r.tool_call_id for r in outputs] == [r.tool_call_id for r in calls]
    assert calls[0].text.startswith("read_file\nfilePath: /Users/user/projects/testing-git/jokes.csv")
    assert "5,Why did 7sadfh32u23gdaWF cross the road?" in calls[1].text
    assert "1,Why do programmers prefer dark mode?,Because light attracts bugs." in outputs[0].text
    assert outputs[1].text.startswith("The following files were successfully edited:")
    answers = [r.text for r in unit.records if r.role == "assistant"]
    assert answers[0].startswith('I added a joke about "7sadfh32u23gdaWF" to the `jokes.csv` file.')  # no empty fence
    assert answers[1].startswith('The joke about "7sadfh32u23gdaWF" has been successfully added to the `jokes.csv`')
    assert all(r.timestamp for r in unit.records)


def test_the_json_and_the_log_of_one_session_give_the_same_records(tmp_path):
    """The real ``.json`` document, written as the patches VS Code would log while the chat went on."""
    doc = json.loads(JSON_FILE.read_text())
    first, *later = doc["requests"]
    start = {**doc, "requests": [{**first, "response": first["response"][:2]}], "customTitle": "New Chat"}
    patches = [
        {"kind": 2, "k": ["requests", 0, "response"], "v": [{"kind": "markdownContent", "value": "draft"}], "i": 1},
        {"kind": 2, "k": ["requests", 0, "response"], "v": first["response"][1:], "i": 1},
        {"kind": 2, "k": ["requests"], "v": later},
        {"kind": 1, "k": ["customTitle"], "v": doc["customTitle"]},
        {"kind": 1, "k": ["inputState"], "v": {"inputText": ""}},
        {"kind": 1, "k": ["inputState", "inputText"], "v": "typing"},
        {"kind": 3, "k": ["inputState"]},
    ]
    folder = chat_dir(tmp_path)
    log = folder / f"{JSON_ID}.jsonl"
    log.write_bytes(log_of(start, *patches))
    whole = chat_dir(tmp_path / "other") / f"{JSON_ID}.json"
    whole.write_bytes(JSON_FILE.read_bytes())
    from_log, from_json = read(log), copilot.read_whole(whole, {}).units[0]
    assert from_log.skipped == []
    assert from_log.records == from_json.records and len(from_log.records) == 12
    assert from_log.session == from_json.session


# -- the patches -----------------------------------------------------------------------------------------

def test_replay_applies_set_push_and_delete_like_vscode():
    doc = {"requests": [{"response": [1, 2, 3]}], "title": "a", "meta": {"x": 1}}
    lines = log_of(doc,
                   {"kind": 1, "k": ["requests", 0, "response", 1], "v": 20},
                   {"kind": 2, "k": ["requests", 0, "response"], "v": [4], "i": 2},  # cut to 2, then append
                   {"kind": 2, "k": ["requests", 0, "response"], "i": 1},  # cut only
                   {"kind": 2, "k": ["requests", 0, "new"], "v": ["n"]},  # a missing array is a new one
                   {"kind": 1, "k": ["requests", 1], "v": {"response": []}},  # setting one past the end appends
                   {"kind": 3, "k": ["meta", "x"]},
                   {"kind": 3, "k": ["title"]}).split(b"\n")
    state, skipped = replay(lines)
    assert skipped == []
    assert state == {"requests": [{"response": [1], "new": ["n"]}, {"response": []}], "meta": {}}


def test_replay_reports_lines_it_cannot_apply_and_keeps_going():
    lines = [b'{"kind":1,"k":["a"],"v":1}',  # before the initial state
             b'{"kind":0,"v":{"requests":[]}}',
             b'{"kind":1,"k":["requests",5,"x"],"v":1}',  # no such request
             b'{"kind":7}', b'[1,2]', b'{"kind":2,"k":["requests"],"v":"x"}', b'{"kind":2,"k":["requests"],"i":-1}',
             b'{"kind":1,"k":[],"v":{}}', b'{"kind":1,"v":2}', b'{"kind":2,"k":["requests"],"v":[{"a":1}]}',
             b'{"kind":2,"k":["requ', b'{"kind":1,"k":["t"],"v":"x"}', b'{"kind":1,"k":["u"],"v":"y"']
    state, skipped = replay(lines)
    assert state == {"requests": [{"a": 1}], "t": "x"}
    assert skipped == [(1, "patch before the initial state"), (3, "path not in the session"), (4, "not a patch"),
                       (5, "not a patch"), (6, "push of a non-array"), (7, "bad push index"), (8, "empty path"),
                       (9, "patch without a path"), (11, "malformed JSON")]  # line 13 is a write in progress


def test_a_half_written_log_is_read_up_to_its_last_complete_line(tmp_path):
    path = chat_dir(tmp_path) / f"{LOG_ID}.jsonl"
    data = LOG_FILE.read_bytes()
    fourth = data.index(b'{"kind":2,"k":["requests"]')
    path.write_bytes(data[:fourth + 500])  # VS Code is appending the second request
    unit = read(path)
    assert unit.skipped == []
    assert [r.text for r in unit.records if r.role == "user"] == ["Add a joke about 7sadfh32u23gdaWF to jokes.csv"]
    path.write_bytes(data[:fourth + 500] + b"\n" + data[fourth:])  # a torn line left behind, then the rest
    unit = read(path)
    assert unit.skipped == [(4, "malformed JSON")]
    assert kinds(unit.records) == Counter(user=2, answer=2, call=2, output=2)
    path.write_bytes(data[:300])  # being rewritten (compacted): not even the initial state yet
    with pytest.raises(OSError, match="no initial state"):
        copilot.read_whole(path, {})


# -- one session, both files ----------------------------------------------------------------------------

def test_a_session_with_both_json_and_jsonl_is_stored_once(backscroll_home, backscroll_index):
    """VS Code reads the log when there is one and never deletes the ``.json`` it migrated from (a stale
    copy): only the log is read."""
    folder = backscroll_home.home / CODE / "workspaceStorage" / "f00d" / "chatSessions"
    folder.mkdir(parents=True)
    doc = json.loads(JSON_FILE.read_text())
    stale = {**doc, "requests": doc["requests"][:1], "customTitle": "Old title"}
    (folder / f"{JSON_ID}.json").write_bytes(orjson.dumps(stale))
    (folder / f"{JSON_ID}.jsonl").write_bytes(log_of(doc))
    paths = list(copilot.AGENT.discover(backscroll_home.home / CODE / "workspaceStorage"))
    assert [p.name for p in paths] == [f"{JSON_ID}.json", f"{JSON_ID}.jsonl"]  # both claimed ...
    assert copilot.read_whole(folder / f"{JSON_ID}.json", {}).units == []  # ... the stale one gives nothing
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0
    recs = rows(backscroll_home, "SELECT * FROM records WHERE agent = 'copilot' ORDER BY id")
    assert len(recs) == 12 and {r["source_path"] for r in recs} == {str(folder / f"{JSON_ID}.jsonl")}
    assert len({r["record_id"] for r in recs}) == 12
    sess = rows(backscroll_home, "SELECT * FROM sessions WHERE agent = 'copilot'")
    assert [(s["session_id"], s["title"]) for s in sess] == [(JSON_ID, "Assistance with TypeScript project tasks")]


@pytest.mark.parametrize("log", ["empty", "cut", "folder"])
def test_a_json_beside_a_log_that_holds_nothing_is_read(tmp_path, log):
    """A log VS Code died writing (no initial state yet), an empty one or a folder of that name holds nothing: the
    ``.json`` beside it is the conversation, and was skipped."""
    path = chat_dir(tmp_path) / f"{JSON_ID}.json"
    path.write_bytes(JSON_FILE.read_bytes())
    beside = path.with_suffix(".jsonl")
    if log == "folder":
        beside.mkdir()
    else:
        beside.write_bytes(b"" if log == "empty" else log_of(json.loads(JSON_FILE.read_text()))[:300])
    assert len(read(path).records) == 12


def test_a_lone_json_is_still_read(tmp_path):
    path = chat_dir(tmp_path) / f"{JSON_ID}.json"
    path.write_bytes(JSON_FILE.read_bytes())
    assert len(read(path).records) == 12


# -- fuzz -----------------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)
keys = st.sampled_from(["requests", "response", "message", "text", "result", "metadata", "kind", "value"])
paths = st.lists(keys | st.integers(-2, 4) | json_values, max_size=5)
patches = st.fixed_dictionaries(
    {"kind": st.sampled_from([0, 1, 2, 3]) | json_values},
    optional={"k": paths | json_values, "v": json_values, "i": st.integers(-3, 6) | json_values})
parts = st.fixed_dictionaries({}, optional={
    "kind": st.sampled_from(sorted(k for k in copilot.VSCODE_PART_KINDS if k)) | json_values,
    "value": json_values, "toolId": st.sampled_from(["copilot_readFile", "vscode_editFile_internal"]) | json_values,
    "toolCallId": json_values, "toolSpecificData": json_values, "invocationMessage": json_values})
requests = st.fixed_dictionaries({}, optional={
    "requestId": json_values, "timestamp": json_values, "message": st.fixed_dictionaries({"text": json_values}),
    "response": st.lists(parts | json_values, max_size=5), "result": json_values})
initial = st.fixed_dictionaries({"kind": st.just(0), "v": st.fixed_dictionaries(
    {"requests": st.lists(requests | json_values, max_size=3)}, optional={"sessionId": json_values})})
lines = st.tuples(st.lists(initial.map(lambda e: json.dumps(e).encode()), max_size=1),
                  st.lists(patches.map(lambda e: json.dumps(e).encode()) | st.binary(max_size=40), max_size=12)
                  ).map(lambda pair: pair[0] + pair[1])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines, st.booleans())
def test_replay_never_raises_and_the_reader_reads_what_it_builds(raw, torn):
    if torn and raw:
        raw = [*raw[:-1], raw[-1][: len(raw[-1]) // 2]]
    state, skipped = replay(raw)
    assert state is None or isinstance(state, dict)
    assert all(isinstance(n, int) and isinstance(why, str) for n, why in skipped)
    if state is not None:
        session, records = copilot.vscode_records(state, SessionInfo("s", "copilot"), None)
        assert isinstance(session, SessionInfo)
        assert all(isinstance(r, Record) and r.text for r in records)
        assert len({r.record_id for r in records}) == len(records)


def test_chats_of_windows_with_no_folder_are_read_too(backscroll_home, backscroll_index):
    folder = backscroll_home.home / CODE / "globalStorage" / "emptyWindowChatSessions"
    folder.mkdir(parents=True)
    (folder / f"{JSON_ID}.jsonl").write_bytes(log_of(json.loads(JSON_FILE.read_text())))
    roots = [(r.agent, r.path) for r in backscroll_home.config().roots]
    assert ("copilot", folder) in roots
    backscroll_index(embed=False)
    recs = rows(backscroll_home, "SELECT * FROM records WHERE agent = 'copilot'")
    assert len(recs) == 12 and {r["source_path"] for r in recs} == {str(folder / f"{JSON_ID}.jsonl")}
