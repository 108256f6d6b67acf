"""Pi (pi-mono coding agent) sessions: every record kind, titles, branches, reading as files grow, echoes.

The fixtures in tests/data/pi are hand-written Pi session files: a v3 session with a tool loop, a
``!`` command, a label, titles, extension entries, an abandoned branch and a compaction; a v1 session
(header with provider/modelId/thinkingLevel, entries without ids); and a v3 session that runs
``backscroll search`` next to a ``grep`` for the same words.
"""


import json
import shutil
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
from helpers import TESTS, rows, texts

from backscroll.ingest.sources import AGENTS, EMPTY, LineError, ParsedLine, pi
from backscroll.types import SessionInfo

DATA = TESTS / "data" / "pi"
V3 = "2026-10-03T09-15-02-117Z_3f6b2c1e-8a4d-4e7b-9c2f-5d1a0e7b4c93.jsonl"
V3_ID = "3f6b2c1e-8a4d-4e7b-9c2f-5d1a0e7b4c93"
V1 = "2026-06-12T14-02-11-530Z_8c2d4e6f-1a3b-4c5d-9e7f-0a1b2c3d4e5f.jsonl"
V1_ID = "8c2d4e6f-1a3b-4c5d-9e7f-0a1b2c3d4e5f"
ECHO = "2026-10-05T16-40-09-004Z_d1e2f3a4-b5c6-4d7e-8f90-a1b2c3d4e5f6.jsonl"


@pytest.fixture(autouse=True)
def _no_pi_dir_from_the_caller(monkeypatch):
    """The plugin's isolated home does not clear Pi's own variable (yet); a developer's must not leak in."""
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)


def project_dir(home) -> Path:
    return home.home / ".pi" / "agent" / "sessions" / "--home-dev-shop--"


def fixture_lines(name: str) -> list[bytes]:
    return (DATA / name).read_bytes().splitlines(keepends=True)


def install(home, name: str, upto: int | None = None) -> Path:
    """Copy a fixture into Pi's default root (only its first ``upto`` lines when given)."""
    dest = project_dir(home) / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if upto is None:
        shutil.copyfile(DATA / name, dest)
    else:
        dest.write_bytes(b"".join(fixture_lines(name)[:upto]))
    return dest


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as fh:
        fh.write(data)


def parsed_ids(name: str) -> list[str]:
    """The record ids the parser makes of a fixture, read line by line as ingest does."""
    session = pi.session_for(Path(name))
    ids: list[str] = []
    for n, raw in enumerate(fixture_lines(name), 1):
        out = pi.parse_line(orjson.loads(raw), n, session)
        session = replace(session, **{k: v for k, v in out.session_updates.items() if v is not None})
        ids.extend(r.record_id for r in out.records)
    return ids


def test_pi_is_registered_with_its_default_root(backscroll_home, monkeypatch):
    assert AGENTS["pi"] is pi.AGENT
    root = next(r for r in backscroll_home.config().roots if r.agent == "pi")
    assert (root.path, root.origin) == (backscroll_home.home / ".pi/agent/sessions", "default")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(backscroll_home.root / "pi-agent"))
    root = next(r for r in backscroll_home.config().roots if r.agent == "pi")
    assert (root.path, root.origin) == (backscroll_home.root / "pi-agent" / "sessions", "env $PI_CODING_AGENT_DIR")


def test_pi_records_of_every_kind(backscroll_home, backscroll_index):
    install(backscroll_home, V3)
    out = backscroll_index()
    assert out.report.lines_skipped == 0

    every = rows(backscroll_home)
    # Thinking is reasoning and the branch/compaction summaries are summaries (issue 15), stored once.
    assert [(r["record_id"].removeprefix(V3_ID + ":"), r["content_type"], r["text"][:30]) for r in every
            if r["content_type"] in ("reasoning", "summary")] == [
        ("5a6b7c8d#0", "reasoning", "Per-line rounding of floats is"),
        ("3c4d5e6f#0", "reasoning", "Forgot the constant and the ro"),
        ("92a3b4c5#0", "summary", "Tried Decimal quantize per lin"),
        ("c5d6e7f8#0", "summary", "## Goal\nFix the one-cent drift"),
    ]
    recs = [r for r in every if r["content_type"] in ("text", "tool")]
    got = [(r["record_id"].removeprefix(V3_ID + ":"), r["role"], r["tool_name"], r["text"]) for r in recs]
    assert got == [
        ("4e5f6a7b#0", "user", None, "Checkout totals for EUR orders are off by one cent. Can you find out why?"),
        ("5a6b7c8d#1", "assistant", None, "I'll start with the tax calculation."),
        ("5a6b7c8d#2", "tool", "read", "read\npath: src/shop/tax.py"),
        ("6b7c8d9e#0", "tool", "read",
         "from decimal import Decimal\n\n\ndef line_tax(price: float, rate: float) -> float:\n"
         "    return round(price * rate, 2)"),
        ("7c8d9e0f#0", "tool", "bash", 'rg -n "line_tax" src/shop'),
        ("8d9e0f1a#0", "tool", "bash",
         "src/shop/cart.py:41:        total += line_tax(item.price, rate)\n"
         "src/shop/tax.py:4:def line_tax(price: float, rate: float) -> float:"),
        ("9e0f1a2b#0", "assistant", None, "Tax is rounded per line with float round(), and summing the rounded "
                                          "lines drifts by a cent. I'll switch line_tax to Decimal."),
        ("9e0f1a2b#1", "tool", "edit", "edit\npath: src/shop/tax.py\noldText:     return round(price * rate, 2)\n"
                                       "newText:     return (Decimal(str(price)) * Decimal(str(rate)))"
                                       ".quantize(CENT, ROUND_HALF_UP)"),
        ("0f1a2b3c#0", "tool", "edit", "Successfully replaced text in src/shop/tax.py."),
        ("1a2b3c4d#0", "tool", "bash", "pytest -q tests/test_tax.py"),
        ("2b3c4d5e#0", "tool", "bash", "F.\nFAILED tests/test_tax.py::test_eur_total - NameError: name 'CENT' is not "
                                       "defined\n1 failed, 1 passed in 0.12s\n\nCommand exited with code 1"),
        ("3c4d5e6f#1", "assistant", None, 'CENT and ROUND_HALF_UP were not imported. With `CENT = Decimal("0.01")` '
                                          "and `from decimal import ROUND_HALF_UP` the EUR totals come out exact: "
                                          "quantize each line with ROUND_HALF_UP instead of float round()."),
        ("4d5e6f70#0", "tool", "bash", "git diff --stat"),  # a `!git diff --stat` the user ran
        ("4d5e6f70#1", "tool", "bash", "src/shop/tax.py | 6 ++++--\n 1 file changed, 4 insertions(+), 2 deletions(-)"),
        ("a3b4c5d6#0", "user", None, "Different approach: keep floats but compute the tax once on the order "
                                     "subtotal, not per line."),
        ("b4c5d6e7#0", "assistant", None, "Taxing the order subtotal once also removes the cent drift, but invoices "
                                          "list tax per line, so the lines would no longer add up to the total. I "
                                          "would keep the per-line Decimal quantize."),
    ]
    assert [r["record_id"] for r in every] == parsed_ids(V3)

    calls = {r["tool_call_id"]: r for r in recs if r["is_call"]}
    results = [r for r in recs if r["role"] == "tool" and not r["is_call"]]
    assert {r["tool_call_id"] for r in results} == set(calls), "every result is paired with its call"
    assert calls["bash:4d5e6f70"]["tool_name"] == "bash"
    assert [r["is_error"] for r in results] == [0, 0, 0, 1, 0], "only the failing pytest run is an error"
    assert all(r["content_type"] == ("text" if r["role"] != "tool" else "tool") for r in recs)

    everything = "\n".join(r["text"] for r in recs)
    for not_a_record in ("rounding-fix", "Uncommitted changes", "add a changelog entry",  # label, extensions
                         "iVBORw0KGgo"):  # image
        assert not_a_record not in everything

    first = recs[0]
    assert (first["agent"], first["session_id"], first["cwd"], first["project"]) == ("pi", V3_ID, "/home/dev/shop",
                                                                                     "shop")
    assert first["timestamp"] == "2026-10-03T09:15:10.402Z" and first["line"] == 4
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert session["title"] == "EUR rounding: per line or on the total", "the latest session_info name wins"
    assert (session["agent"], session["is_sidechain"], session["parent_session_id"]) == ("pi", 0, None)
    assert (session["started_at"], session["updated_at"]) == ("2026-10-03T09:15:10.402Z", "2026-10-03T09:18:40.000Z")


def test_pi_indexes_entries_in_file_order_including_abandoned_branches(backscroll_home, backscroll_index):
    """The first attempt was left with /tree (branch_summary, then a new user turn): both stay searchable."""
    install(backscroll_home, V3)
    backscroll_index()
    answers = rows(backscroll_home, "SELECT record_id, line FROM records"
                                    " WHERE role = 'assistant' AND content_type = 'text' ORDER BY id")
    ids = [a["record_id"].split(":")[1] for a in answers]
    assert ids == ["5a6b7c8d#1", "9e0f1a2b#0", "3c4d5e6f#1", "b4c5d6e7#0"]
    assert [a["line"] for a in answers] == sorted(a["line"] for a in answers)


def test_pi_older_header_generation(backscroll_home, backscroll_index):
    """v1 files: no ``version``, provider/model in the header, entries without ids (line numbers stand in)."""
    install(backscroll_home, V1)
    out = backscroll_index()
    assert out.report.lines_skipped == 0
    recs = rows(backscroll_home)
    got = [(r["record_id"], r["role"], r["tool_name"], r["is_echo"]) for r in recs]
    assert got == [
        (f"{V1_ID}:line2#0", "user", None, 0),
        (f"{V1_ID}:line3#0", "tool", "bash", 0),
        (f"{V1_ID}:line4#0", "tool", "bash", 0),
        (f"{V1_ID}:line6#0", "assistant", None, 0),
    ]
    assert recs[1]["text"] == "grep -n VERSION Makefile pyproject.toml"
    assert recs[2]["tool_call_id"] == recs[1]["tool_call_id"] == "toolu_01Vq8Jm3Kd5Rt2Wx"
    assert recs[0]["text"] == "Why does `make release` stop at the version check?"
    assert {r["cwd"] for r in recs} == {"/home/dev/shop"}
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (session["session_id"], session["title"], session["started_at"]) == (V1_ID, None, "2026-06-12T14:02:19.004Z")


def test_pi_migrating_an_old_file_replaces_its_records(backscroll_home, backscroll_index):
    """Opening a v1 file, Pi rewrites it as v3 (``version`` in the header, ids on every entry)."""
    path = install(backscroll_home, V1)
    backscroll_index()
    migrated, prev = [], None
    for n, raw in enumerate(fixture_lines(V1)):
        entry = json.loads(raw)
        if entry["type"] == "session":
            entry["version"] = 3
        else:
            entry["id"], entry["parentId"] = f"{n:08x}", prev
            prev = entry["id"]
        migrated.append(json.dumps(entry, separators=(",", ":")))
    path.write_text("\n".join(migrated) + "\n")
    out = backscroll_index()
    assert (out.report.records_replaced, out.report.records_added) == (4, 0)  # (new ids, nothing new)
    ids = [r["record_id"] for r in rows(backscroll_home)]
    assert ids == [f"{V1_ID}:00000001#0", f"{V1_ID}:00000002#0", f"{V1_ID}:00000003#0", f"{V1_ID}:00000005#0"]


def test_pi_fork_names_its_parent_session(backscroll_home, backscroll_index):
    parent_path = project_dir(backscroll_home) / V3
    fork = project_dir(backscroll_home) / "2026-10-04T08-00-00-000Z_77aa88bb-99cc-4ddd-8eee-ffff00001111.jsonl"
    fork.parent.mkdir(parents=True)
    header = {"type": "session", "version": 3, "id": "77aa88bb-99cc-4ddd-8eee-ffff00001111",
              "timestamp": "2026-10-04T08:00:00.000Z", "cwd": "/home/dev/shop-fork", "parentSession": str(parent_path)}
    entry = {"type": "message", "id": "a1a1a1a1", "parentId": None, "timestamp": "2026-10-04T08:00:05.000Z",
             "message": {"role": "user", "content": "carry on from the forked point", "timestamp": 1791100805000}}
    fork.write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    backscroll_index()
    s = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (s["session_id"], s["parent_session_id"], s["is_sidechain"], s["project"]) == (
        "77aa88bb-99cc-4ddd-8eee-ffff00001111", V3_ID, 0, "shop-fork")
    info = pi.parse_line({**header, "parentSession": "0b1c2d3e-0000-4000-8000-123456789abc"}, 1,
                         pi.session_for(fork))
    assert info.session_updates["parent_session_id"] == "0b1c2d3e-0000-4000-8000-123456789abc"


def test_pi_appended_lines_are_read_incrementally(backscroll_home, backscroll_index):
    lines = fixture_lines(V3)
    path = install(backscroll_home, V3, upto=5)  # up to the read call; its result comes in the next read
    first = backscroll_index()
    assert first.report.records_added == 4  # with the thinking (reasoning) of line 5
    append(path, b"".join(lines[5:14]))
    second = backscroll_index()
    assert (second.report.records_added, second.report.records_replaced) == (12, 0)
    append(path, b"".join(lines[14:]))
    third = backscroll_index()
    assert (third.report.records_added, third.report.records_replaced) == (4, 0)  # 2 summaries
    for _ in range(3):
        again = backscroll_index()
        assert (again.report.files_changed, again.report.records_added) == (0, 0)
    ids = [r["record_id"] for r in rows(backscroll_home)]
    assert ids == parsed_ids(V3) and len(set(ids)) == len(ids)
    assert rows(backscroll_home, "SELECT title FROM sessions")[0]["title"] == "EUR rounding: per line or on the total"
    # the result of the !command (same line as its call) and a result whose call came in an earlier read
    named = {r["record_id"].split(":")[1]: r["tool_name"] for r in rows(backscroll_home)}
    assert named["4d5e6f70#1"] == "bash" and named["6b7c8d9e#0"] == "read"


def test_pi_half_written_last_line_is_picked_up_when_complete(backscroll_home, backscroll_index):
    lines = fixture_lines(V3)
    path = install(backscroll_home, V3, upto=12)
    append(path, lines[12][:90])  # the final assistant answer, cut mid-write
    out = backscroll_index()
    assert out.report.lines_skipped == 0
    assert not any("come out exact" in t for t in texts(backscroll_home))
    append(path, lines[12][90:])
    backscroll_index()
    exact = rows(backscroll_home, "SELECT * FROM records WHERE text LIKE '%come out exact%'")
    assert len(exact) == 1 and exact[0]["line"] == 13
    assert rows(backscroll_home, "SELECT count(*) AS n FROM skipped_lines")[0]["n"] == 0


def test_pi_malformed_lines_are_skipped_and_counted(backscroll_home, backscroll_index):
    lines = fixture_lines(V3)
    path = install(backscroll_home, V3, upto=4)
    bad = [
        b'{"type":"message","id":"deadbeef","parentId":"4e5f6a7b","timestamp":"2026-10-03T09:15:1',  # cut JSON
        b"[1, 2, 3]",
        b'{"id":"0badc0de","message":{"role":"user","content":"no type"}}',
        b'{"type":"message","id":"0badc0d1","parentId":null,"timestamp":"2026-10-03T09:15:11Z","message":"hi"}',
        b'{"type":"message","id":"0badc0d2","parentId":null,"timestamp":"2026-10-03T09:15:11Z",'
        b'"message":{"role":"user","content":42}}',
        b'{"type":"message","id":"0badc0d3","parentId":null,"timestamp":"2026-10-03T09:15:11Z",'
        b'"message":{"role":"bashExecution","output":"no command"}}',
        b'{"type":"session_info","id":"0badc0d4","parentId":null,"timestamp":"2026-10-03T09:15:11Z","name":7}',
        b'{"type":"message","id":"0badc0d5","parentId":null,"timestamp":"2026-10-03T09:15:11Z",'
        b'"message":{"role":"assistant","content":{"text":"not a list"}}}',
    ]
    append(path, b"\n".join(bad) + b"\n" + b"".join(lines[4:]))
    out = backscroll_index()
    assert out.report.lines_skipped == len(bad)
    skipped = rows(backscroll_home, "SELECT line, reason FROM skipped_lines ORDER BY line")
    assert [s["line"] for s in skipped] == list(range(5, 5 + len(bad)))
    reasons = " | ".join(s["reason"] for s in skipped)
    assert "malformed JSON" in reasons and "list" in reasons and "type" in reasons and "command" in reasons
    recs = rows(backscroll_home)
    assert len(recs) == len(parsed_ids(V3)), "every good line before and after the bad ones lands"
    assert recs[0]["line"] == 4 and recs[-1]["line"] == 22 + len(bad)  # the last compaction summary


def test_pi_backscroll_search_call_is_an_echo_and_grep_is_not(backscroll_home, backscroll_index, backscroll_search):
    install(backscroll_home, ECHO)
    backscroll_index()
    tools = [(r["text"], r["is_call"], r["is_echo"]) for r in rows(backscroll_home) if r["role"] == "tool"]
    assert tools == [
        ("backscroll search foo", 1, 1),
        ("1. [assistant] pi shop 2026-10-03  quantize each line with ROUND_HALF_UP instead of float round()", 0, 1),
        ('grep "backscroll search" x', 1, 0),
        ("x:7:run `backscroll search` before asking the user again", 0, 0),
    ]
    res = backscroll_search("quantize ROUND_HALF_UP", mode="lexical")
    assert res.results and not any(h.is_echo for h in res.results)
    assert res.results[0].text.startswith("We decided to quantize each tax line")


def test_search_finds_a_pi_answer(backscroll_home, backscroll_search):
    install(backscroll_home, V3)
    install(backscroll_home, V1)
    res = backscroll_search("Makefile pins VERSION pyproject", mode="lexical")
    top = res.results[0]
    assert (top.agent, top.session_id, top.role) == ("pi", V1_ID, "assistant")
    assert top.text.startswith("The Makefile pins VERSION := 1.4.0")
    res = backscroll_search("invoices tax per line subtotal", mode="lexical", agent="pi")
    assert res.results[0].record_id == f"{V3_ID}:b4c5d6e7#0" and res.results[0].project == "shop"


def test_pi_files_and_session_ids_from_names():
    assert pi.claims(Path(f"/x/--home-dev-shop--/{V3}"))
    assert pi.claims(Path(f"/custom/sessions/{V3}")), "a Pi file name outside a --cwd-- folder"
    assert pi.claims(Path("/x/--home-dev-shop--/renamed.jsonl"))
    assert not pi.claims(Path("/x/-home-dev-shop/0199aaaa-bbbb-cccc-dddd-eeeeffff0000.jsonl")), "a Claude transcript"
    assert not pi.claims(Path(f"/x/--home-dev-shop--/{V3}.bak"))
    assert pi.session_for(Path(f"/x/--a--/{V3}")) == SessionInfo(V3_ID, "pi")
    assert pi.session_for(Path("/x/--a--/renamed.jsonl")).session_id == "renamed"


def test_pi_parse_line_shapes():
    info = SessionInfo(V3_ID, "pi", cwd="/home/dev/shop")
    for bad in ([1, 2], "text", 3, None, {"no": "type"}, {"type": "session"},
                {"type": "message", "id": "aaaaaaaa", "message": {"content": "no role"}},
                {"type": "message", "id": "aaaaaaaa", "message": {"role": "toolResult", "content": 5}}):
        try:
            pi.parse_line(bad, 1, info)
        except LineError:
            pass
        else:
            raise AssertionError(f"pi accepted {bad!r}")
    assert pi.parse_line({"type": "some_future_entry", "id": "bbbbbbbb"}, 1, info) == ParsedLine(
        [], {}, unknown="some_future_entry"), "an entry type pi does not know is reported"
    for ignored in (
                    {"type": "session_info", "id": "cccccccc", "name": "  "},
                    {"type": "message", "id": "dddddddd", "message": {"role": "custom", "customType": "x",
                                                                     "content": "injected", "display": True}},
                    {"type": "message", "id": "eeeeeeee", "message": {"role": "compactionSummary", "summary": "s"}},
                    {"type": "message", "id": "ffffffff", "message": {"role": "branchSummary", "summary": "s"}},
                    {"type": "message", "id": "abababab", "message": {"role": "toolResult", "toolCallId": "c",
                                                                     "content": [{"type": "image", "data": "AA=="}]}}):
        assert pi.parse_line(ignored, 1, info) == EMPTY, ignored
    cancelled = pi.parse_line({"type": "message", "id": "12121212", "timestamp": "2026-10-03T09:20:00Z", "message": {
        "role": "bashExecution", "command": "sleep 100", "output": "^C", "exitCode": None, "cancelled": True}}, 9, info)
    call, result = cancelled.records
    assert (call.command, call.tool_call_id, result.tool_call_id, result.is_error) == (
        "sleep 100", "bash:12121212", "bash:12121212", True)
    ms = pi.parse_line({"type": "message", "id": "34343434", "message": {
        "role": "user", "content": "no entry timestamp", "timestamp": 1791018910402}}, 2, info)
    assert ms.records[0].timestamp == "2026-10-03T09:15:10.402Z", "the message's epoch ms is the fallback"
