"""`backscroll mcp` probed with the official SDK's stdio client (a real subprocess), and its tools directly."""


import json
import os
import queue
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import TESTS

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402

from backscroll.dates import format_ts  # noqa: E402
from backscroll.integrations.mcp_tools import TOOLS, Tools  # noqa: E402
from backscroll.retrieval.policy.recent import RecentSearches  # noqa: E402

BIN = str(Path(sys.executable).with_name("backscroll"))
REAL = TESTS / "data" / "real" / "claude" / "cc-1.0.95-vibecodingtracker.jsonl"
ANSWER = "We settled on exponential backoff with full jitter for the webhook retries, capped at 10 minutes."
ENUMS = {"mode": {"hybrid", "lexical", "semantic"}, "role": {"user", "assistant", "tool"},
         "author": {"human", "agent", "harness"}, "content_type": {"text", "tool", "reasoning", "summary"}}


def _env(home) -> dict:
    return {**os.environ, "HOME": str(home.home), "BACKSCROLL_HOME": str(home.data)}


def _doc(res) -> dict:
    assert len(res.content) == 1 and res.content[0].type == "text"
    return json.loads(res.content[0].text)


async def _session(home, body):
    from mcp import Client, StdioServerParameters

    async with Client(StdioServerParameters(command=BIN, args=["mcp"], env=_env(home))) as client:
        return await body(client)


def _history(session_builder, backscroll_index):
    s = session_builder.claude(project="hooks")
    s.user("how should webhook retries back off?")
    s.assistant(ANSWER)
    backscroll_index(embed=False)
    return s


def test_the_official_client_sees_described_schemas_and_errors_as_errors(session_builder, backscroll_index,
                                                                          backscroll_home):
    _history(session_builder, backscroll_index)
    invalid = [
        ("search", {"query": "webhook", "project": "nosuch"}, "not-found"),
        ("search", {"query": "webhook", "mode": "bogus"}, "usage"),
        ("search", {"query": "webhook", "since": "the day after never"}, "usage"),
        ("search", {"query": "webhook", "since": "2026-10-02", "until": "2026-10-01"}, "usage"),
        ("search", {"query": "webhook", "limit": 0}, "usage"),
        ("search", {"query": "webhook", "limit": 10**12}, "usage"),
        ("search", {"query": "webhook", "limit": 10**30}, "usage"),
        ("search", {"query": "webhook", "limit": "5"}, "usage"),
        ("search", {"query": "webhook", "agent": "nosuch"}, "usage"),
        ("search", {"query": ""}, "bad-query"),
        ("search", {"query": "webhook", "colour": "red"}, "usage"),
        ("search", {}, "usage"),
        ("show", {"id": "no-such-record#0"}, "not-found"),
        ("show", {"id": "x", "context": -1}, "usage"),
        ("show", {"id": "a" * 60_000}, "usage"),
        ("list_sessions", {"agent": "nosuch"}, "usage"),
        ("list_sessions", {"since": "yesteryear"}, "usage"),
        ("list_sessions", {"limit": 10**12}, "usage"),
    ]

    async def body(client):
        listed = (await client.list_tools()).tools
        info = client.server_info
        valid = {
            "search": _doc(await client.call_tool("search", {"query": "webhook retries backoff", "mode": "lexical"})),
            "list_sessions": _doc(await client.call_tool("list_sessions", {"since": "3650d", "limit": 1})),
            "status": _doc(await client.call_tool("status", {})),
        }
        rid = valid["search"]["results"][0]["record_id"]
        shown = await client.call_tool("show", {"id": rid, "context": 1})
        page = await client.call_tool("show", {"id": valid["search"]["results"][0]["session_id"], "limit": 1,
                                               "offset": 1})
        errors = [(name, args, kind, await client.call_tool(name, args)) for name, args, kind in invalid]
        return listed, info, valid, shown, page, errors

    listed, info, valid, shown, page, errors = anyio.run(_session, backscroll_home, body)
    assert info is not None and info.version, "serverInfo.version names the release"
    assert {t.name for t in listed} == {"search", "show", "list_sessions", "status"}
    for tool in listed:
        assert tool.description and tool.output_schema is None
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False
        for name, prop in schema["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
    props = next(t for t in listed if t.name == "search").input_schema["properties"]
    for name, values in ENUMS.items():
        assert set(props[name]["enum"]) == values, name
    assert "claude" in props["agent"]["enum"] and props["limit"]["maximum"] == 1000
    assert "echo" in next(t for t in listed if t.name == "search").description
    assert valid["search"]["results"][0]["text"] == ANSWER
    assert valid["list_sessions"]["total"] == 1 and len(valid["list_sessions"]["sessions"]) == 1
    assert valid["status"]["records"] == 2
    assert not shown.is_error and shown.structured_content is None
    assert "\n " not in shown.content[0].text, "compact JSON"
    assert _doc(page)["offset"] == 1 and [r["text"] for r in _doc(page)["records"]] == [ANSWER]
    for name, args, kind, res in errors:
        assert res.is_error, (name, args)
        assert _doc(res)["error"]["kind"] == kind, (name, args, _doc(res))


def test_an_unreadable_line_gets_a_json_rpc_error_and_the_server_goes_on(backscroll_home):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    lines = [json.dumps(init), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             "{not json", '{"just": "json"}', json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
             json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nosuch"}}),
             '{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "search", "arguments": '
             '{"query": "\\ud800 webhook"}}}',
             json.dumps({"jsonrpc": "2.0", "id": 5, "method": 42}),
             *(json.dumps({"jsonrpc": "2.0", "id": bad, "method": "tools/list"}) for bad in ({"n": 6}, [7], 8.5, True)),
             json.dumps({"jsonrpc": "2.0", "method": "tools/list"}),
             json.dumps({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}}),
             json.dumps({"jsonrpc": "2.0", "method": "initialized"}),
             json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"})]
    p = subprocess.run([BIN, "mcp"], input="\n".join(lines).encode() + b"\n", capture_output=True,
                       env=_env(backscroll_home), timeout=120)
    assert p.returncode == 0
    out = [json.loads(line) for line in p.stdout.decode().splitlines()]
    assert all(o["jsonrpc"] == "2.0" for o in out), "only the protocol on stdout"
    errors = [o for o in out if "error" in o]
    assert {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}} in errors
    assert {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}} in errors
    assert next(o for o in out if o.get("id") == 2)["result"]["tools"], "answered after the bad lines"
    assert next(o for o in out if o.get("id") == 3)["error"]["code"] == -32602, "an unknown tool"
    lone = next(o for o in out if o.get("id") == 4)  # (a lone surrogate escape: read as U+FFFD, and answered)
    assert "result" in lone and "nothing-indexed" in lone["result"]["content"][0]["text"], lone
    assert {"jsonrpc": "2.0", "id": 5, "error": {"code": -32600, "message": "Invalid Request"}} in errors, \
        "a request the server cannot read is answered under its own id"
    assert errors.count({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}) == 6, \
        "a request with an id no JSON-RPC request has (or none) is answered, not left waiting; a notification is not"
    assert next(o for o in out if o.get("id") == 9)["result"] == {}, "and the server goes on"


INIT = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"}]


def _lines_of(stream) -> queue.Queue:
    """The lines ``stream`` prints, as they come (None at EOF), read by a thread: a test never blocks on them."""
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return lines


@pytest.mark.parametrize("calls", [1, 60])
def test_a_cancelled_call_is_never_answered_and_never_holds_the_server(session_builder, backscroll_index,
                                                                       backscroll_home, calls):
    """notifications/cancelled: the call is dropped (no answer, as the spec says), its work abandoned, and once
    stdin closes the server exits at once; it used to wait 60 s for an answer that never came (issue #46)."""
    _history(session_builder, backscroll_index)
    big = session_builder.claude(project="big")  # not indexed yet: the next search reads 30,000 records first
    for i in range(15_000):
        big.user(f"flux capacitor question {i}")
        big.assistant(f"flux capacitor answer {i}")
    search = [{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {
        "name": "search", "arguments": {"query": "flux capacitor", "mode": "lexical"}}} for i in range(calls)]
    cancel = [{"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": 10 + i, "reason": "the person pressed Esc"}} for i in range(calls)]
    listed = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    p = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=_env(backscroll_home))
    assert p.stdin is not None and p.stdout is not None
    out = _lines_of(p.stdout)
    p.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in (*INIT, *search, *cancel, listed)))
    p.stdin.flush()
    answers = [json.loads(out.get(timeout=60)) for _ in range(2)]  # tools/list is answered after the cancels
    assert [a["id"] for a in answers] == [1, 2]
    p.stdin.close()
    t = time.monotonic()
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    took = time.monotonic() - t
    rest = []
    while (line := out.get(timeout=10)) is not None:
        rest.append(json.loads(line))
    assert rest == [], "a cancelled call is never answered"
    assert took < 3, f"the server outlived its client by {took:.1f} s"  # liveness: it exits within a second or so
    assert p.returncode == 0
    # what the abandoned sync had not committed is read by the next run: the store is as a SIGKILL leaves it
    index = subprocess.run([BIN, "index", "--no-embed"], env=_env(backscroll_home), capture_output=True, timeout=120)
    assert index.returncode == 0, index.stderr
    found = subprocess.run([BIN, "search", "flux capacitor question 14999", "--json", "--no-sync", "--mode",
                            "lexical"], env=_env(backscroll_home), capture_output=True, timeout=120)
    assert json.loads(found.stdout)["results"], found.stderr


def test_a_call_cancelled_before_its_turn_does_nothing(backscroll_home):
    cancelled = threading.Event()
    cancelled.set()
    answer = Tools(str(backscroll_home.data)).call("search", {"query": "webhook", "mode": "lexical"}, cancelled)
    assert answer.is_error and answer.document["error"]["kind"] == "cancelled"
    assert not backscroll_home.data.exists() or not any(backscroll_home.data.iterdir()), "nothing read or written"


CANCEL_FILES, TURNS = 300, 5  # new session files the first search's sync reads (of 2 × TURNS records each)


def _call(request_id: int, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def _send(p: subprocess.Popen, *messages: object) -> None:
    assert p.stdin is not None
    p.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    p.stdin.flush()


def _answer(lines: queue.Queue, request_id: int, timeout: float) -> dict:
    """The next message the server sends, which must answer ``request_id`` (a cancelled call gets none)."""
    message = json.loads(lines.get(timeout=timeout))
    assert message.get("id") == request_id, f"an answer to another request: {message}"
    return message


def _big_project(session_builder) -> str:
    """CANCEL_FILES new session files (not indexed yet); the text of the last record of the last one."""
    for i in range(CANCEL_FILES):
        s = session_builder.claude(project="big")
        for t in range(TURNS):
            s.user(f"flux capacitor question {i}.{t}").assistant(f"flux capacitor answer {i}.{t}")
    return f"flux capacitor question {CANCEL_FILES - 1}.{TURNS - 1}"


def _every_record_once(data: Path) -> None:
    from backscroll.store.db import Store
    from backscroll.store.integrity import integrity_problems

    assert integrity_problems(data / "backscroll.db") == []
    store = Store.open_readonly(data / "backscroll.db")
    try:
        total, projects = store.record_count(), {p: (n, r) for p, n, r in store.activity("project", None)}
    finally:
        store.close()
    assert total == 2 + CANCEL_FILES * TURNS * 2, "every record read once: none lost, none twice"
    assert projects["big"] == (CANCEL_FILES, CANCEL_FILES * TURNS * 2), "and counted so"


def test_a_call_cancelled_while_its_sync_reads_stops_before_the_next_file(session_builder, backscroll_index,
                                                                          backscroll_home, monkeypatch):
    """The cancel comes as the sync reaches its tenth changed file: the call stops there (the other files are left
    unread, nothing it read uncommitted is kept), answers "cancelled", and the next call reads every file, each
    record once. (The cancel is set at a known file, not after a sleep: a fast machine had read every file first.)"""
    from backscroll.ingest import sync

    _history(session_builder, backscroll_index)
    last = _big_project(session_builder)
    cancel, files_begun = threading.Event(), []
    safe_point = sync.check

    def the_tenth_file_cancels() -> None:
        files_begun.append(1)
        if len(files_begun) == 10:
            cancel.set()
        safe_point()

    monkeypatch.setattr(sync, "check", the_tenth_file_cancels)
    tools = Tools(str(backscroll_home.data))
    answer = tools.call("search", {"query": "flux capacitor", "mode": "lexical"}, cancel)
    assert answer.is_error and answer.document["error"]["kind"] == "cancelled", answer.document
    assert len(files_begun) == 10, "it stopped at the file the cancel came at, the rest unread"
    assert tools.call("status", {}).document["records"] == 2, "what it read was not committed: the next run reads it"
    found = tools.call("search", {"query": last, "mode": "lexical", "limit": 1}).document
    assert [r["text"] for r in found["results"]] == [last]
    _every_record_once(backscroll_home.data)


def test_a_running_call_the_client_cancels_is_dropped_and_the_next_calls_read_what_it_left(
        session_builder, backscroll_index, backscroll_home):
    """Through the server: a search is cancelled while (or before) its sync reads many changed session files; it is
    never answered, the next call is, and a later search, which reads what the cancelled sync had not committed,
    finds every record, none twice, in a sound store. (How soon the cancel is felt is the test above's: timing it
    here failed on a fast machine, whose sync had ended before the cancel came.)"""
    _history(session_builder, backscroll_index)
    last = _big_project(session_builder)
    p = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=_env(backscroll_home))
    out = _lines_of(p.stdout)
    try:
        _send(p, *INIT)
        _answer(out, 1, timeout=60)
        _send(p, _call(10, "search", {"query": "flux capacitor", "mode": "lexical"}),
              {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 10}},
              _call(11, "status", {}))
        status = _answer(out, 11, timeout=120)  # (an answer to 10 first would fail here)
        assert not status["result"].get("isError"), status
        _send(p, _call(12, "search", {"query": last, "mode": "lexical", "limit": 1}))
        found = json.loads(_answer(out, 12, timeout=300)["result"]["content"][0]["text"])
        assert [r["text"] for r in found["results"]] == [last]
    finally:
        assert p.stdin is not None
        p.stdin.close()
        p.wait(timeout=60)
    assert p.returncode == 0
    _every_record_once(backscroll_home.data)


def _real_mcp_transcript(folder: Path, calls: list[dict]) -> str:
    """The real Claude Code 1.0.95 transcript up to its first MCP call, with that call (and the ones
    after it, each answered but the last) asking backscroll's search; times moved to now."""
    lines = [json.loads(line) for line in REAL.read_text().splitlines()]
    first = next(i for i, o in enumerate(lines) if "mcp__context7" in json.dumps(o))
    template = lines[first]
    kept = lines[:first]
    now = datetime.now(UTC)
    for i, obj in enumerate(kept):
        obj["timestamp"] = format_ts(now - timedelta(seconds=60 - i * 0.1))
    session = template["sessionId"]
    for n, args in enumerate(calls):
        call = json.loads(json.dumps(template))
        block = call["message"]["content"][0]
        block.update(name="mcp__backscroll__search", input=args, id=f"toolu_backscroll{n}")
        call["uuid"] = f"call-{n}"
        call["timestamp"] = format_ts(now - timedelta(seconds=len(calls) - n))
        kept.append(call)
        if n < len(calls) - 1:  # every call but the last has its answer logged
            kept.append({"parentUuid": call["uuid"], "isSidechain": False, "type": "user", "sessionId": session,
                         "cwd": call["cwd"], "uuid": f"result-{n}", "timestamp": call["timestamp"],
                         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": block["id"],
                                                                  "content": "{\"results\": []}"}]}})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.jsonl").write_text("".join(json.dumps(o) + "\n" for o in kept))
    return session


def test_repeat_rule_over_mcp_on_a_real_claude_transcript(session_builder, backscroll_index, backscroll_home):
    from helpers import rows

    _history(session_builder, backscroll_index)
    ask = {"query": "webhook retries backoff", "mode": "lexical"}
    projects = backscroll_home.home / ".claude" / "projects"
    session = _real_mcp_transcript(projects / "-home-user-repo-claude-code", [ask, ask])

    async def body(client):
        again = _doc(await client.call_tool("search", ask))
        forced = _doc(await client.call_tool("search", {**ask, "rerun": True}))
        other = _doc(await client.call_tool("search", {**ask, "limit": 3}))
        return again, forced, other

    again, forced, other = anyio.run(_session, backscroll_home, body)
    echoes = rows(backscroll_home, "SELECT * FROM records WHERE session_id = ? AND tool_name = "
                                   "'mcp__backscroll__search'", (session,))
    assert len(echoes) == 3 and all(r["is_echo"] for r in echoes), "the calls and the answer are echoes"
    assert again["results"] == [] and again["repeated"]["session_id"] == session
    note = again["notes"][0]
    assert note.startswith("[repeated search]") and "rerun=true" in note and "record mcp" not in note
    assert forced["results"][0]["text"] == ANSWER and forced["repeated"] is None
    assert other["results"] and other["repeated"] is None, "another search is not a repeat"


def test_an_unidentified_caller_gets_results_and_an_honest_note(session_builder, backscroll_index,
                                                                 backscroll_home):
    _history(session_builder, backscroll_index)
    tools = Tools(str(backscroll_home.data))
    first = tools.call("search", {"query": "webhook jitter", "mode": "lexical"})
    again = tools.call("search", {"query": "webhook  JITTER", "mode": "lexical"})
    assert not again.is_error and again.document["results"] == first.document["results"] != []
    assert again.document["repeated"] is None
    assert again.document["notes"][0].startswith("[same search again]")
    assert "could not be identified" in again.document["notes"][0]


def test_recent_searches_keep_hashes_bounded_by_count_and_age(session_builder, backscroll_index, backscroll_home):
    import tracemalloc

    recent = RecentSearches(max_entries=4, window=60)
    for i in range(10):
        recent.remember(("q" * 1_000_000, i))
    assert len(recent) == 4 and all(len(k) == 32 for k in recent._seen)
    assert recent.seconds_since(("q" * 1_000_000, 9)) is not None and recent.seconds_since(("q" * 1_000_000, 0)) is None
    aged = RecentSearches(window=0.0)
    aged.remember("x")
    assert aged.seconds_since("x") is None and len(aged) == 0

    _history(session_builder, backscroll_index)
    tools = Tools(str(backscroll_home.data))
    tools.call("search", {"query": "warm up", "mode": "lexical"})
    tracemalloc.start()
    for i in range(20):
        tools.call("search", {"query": f"webhook {i} " + "x" * 10_000_000, "mode": "lexical"})
    current, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert current < 5_000_000, f"{current:,} bytes kept after 20 × 10 MB queries"


def test_concurrent_calls_never_report_this_servers_own_sync_as_another_process(session_builder, backscroll_index,
                                                                               backscroll_home):
    s = _history(session_builder, backscroll_index)
    tools = Tools(str(backscroll_home.data))
    answers: list = []

    def call(i: int) -> None:
        answers.append(tools.call("search", {"query": f"webhook retries {i}", "mode": "lexical"}))

    for round_ in range(3):
        s.assistant(f"more about retries, round {round_}")  # each sync has lines to read
        threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(answers) == 12 and not any(a.is_error for a in answers)
    assert not any("another backscroll process" in n for a in answers for n in a.document["notes"])


def test_search_json_matches_the_cli(session_builder, backscroll_index, backscroll_home):
    s = session_builder.claude(project="hooks")
    s.assistant(ANSWER)
    backscroll_index(embed=False)
    cli = json.loads(subprocess.run([BIN, "search", "webhook jitter", "--json", "--limit", "5", "--mode", "lexical",
                                     "--max-chars", "1000", "--no-sync"], capture_output=True,
                                    env=_env(backscroll_home), check=True).stdout)
    served = Tools(str(backscroll_home.data)).call("search", {"query": "webhook jitter", "mode": "lexical"}).document
    for r in (*cli["results"], *served["results"]):
        r.pop("score", None)
    assert served["results"] == cli["results"] and served.keys() == cli.keys()
    cli_status = json.loads(subprocess.run([BIN, "status", "--json"], capture_output=True, env=_env(backscroll_home),
                                           check=True).stdout)
    served_status = Tools(str(backscroll_home.data)).call("status", {}).document
    assert served_status.keys() == cli_status.keys(), "the status tool is `status --json`, what is installed too"


def test_schemas_are_generated_from_the_search_request():
    from dataclasses import fields

    from backscroll.request import SearchRequest

    options = {f.name for f in fields(SearchRequest) if "option" in f.metadata}
    assert set(TOOLS["search"].input_schema()["properties"]) == options
    assert TOOLS["search"].input_schema()["required"] == ["query"]


def test_an_unknown_argument_names_what_the_tool_takes():
    from backscroll.errors import UsageError

    with pytest.raises(UsageError) as err:
        TOOLS["status"].arguments({"x": 1})
    assert err.value.hint == "status takes none"
    with pytest.raises(UsageError) as err:
        TOOLS["show"].arguments({"id": "a", "contxt": 2})
    assert "context" in (err.value.hint or "")



def test_an_empty_optional_argument_is_left_out_as_a_model_means_it(session_builder, backscroll_index,
                                                                     backscroll_home):
    """Models fill an argument they leave out with "" as often as with null: no filter, not an error (on the command
    line ``-p ''`` is one: an unset variable)."""
    from helpers import run_cli

    assert TOOLS["search"].arguments({"query": "x", "project": "", "since": " "})["since"] is None
    session_builder.claude(project="billing").user("the invoice reconciler deadlocks under load")
    backscroll_index(embed=False)
    answer = Tools(str(backscroll_home.data)).call("search", {"query": "invoice reconciler", "project": "",
                                                              "agent": "", "mode": "lexical"})
    assert not answer.is_error and json.loads(answer.text())["results"], answer.text()
    r = run_cli(backscroll_home, "search", "invoice", "-p", "", "--no-sync")
    assert r.returncode == 2 and "project is empty" in r.stderr, r.stderr

def test_notes_and_errors_name_the_tools_arguments_not_the_cli_options(session_builder, backscroll_index,
                                                                        backscroll_home):
    s = session_builder.claude(project="hooks")
    for n in range(6):
        s.assistant(f"{ANSWER} (retry {n})")
    backscroll_index(embed=False)
    tools = Tools(str(backscroll_home.data))
    cut = tools.call("search", {"query": "webhook jitter", "mode": "lexical", "max_tokens": 60}).document
    assert any("max_tokens=60" in n for n in cut["notes"]) and not any("--" in n for n in cut["notes"]), cut["notes"]
    wrong = tools.call("search", {"query": "webhook", "since": "2026-12-01", "until": "2026-11-01"})
    assert wrong.is_error and "since=2026-12-01 is not before until=2026-11-01" in wrong.document["error"]["message"]
    listed = tools.call("list_sessions", {"until": "2000-01-01"}).document
    assert listed["total"] == 0 and listed["sessions"] == [], "every session here began after it"
    swapped = tools.call("list_sessions", {"since": "2026-12-01", "until": "2026-11-01"})
    assert swapped.is_error and "is not before until=2026-11-01" in swapped.document["error"]["message"]
    gone = tools.call("show", {"id": "zzzzzzzz"})
    empty = tools.call("search", {"query": "   "})
    for answer in (gone, empty):
        error = answer.document["error"]
        assert answer.is_error and "backscroll " not in error["message"] + error["hint"], error
    assert "the list_sessions tool" in gone.document["error"]["hint"]


def test_an_option_left_out_or_in_another_case_is_taken_alike_by_the_tool_and_the_repeat_rule():
    """Models send "" or null for an option they leave out, and "USER" or "Claude" for a closed value: the tool
    takes them as the CLI does (not an error), and the repeat rule reads the logged call the same way."""
    from backscroll.request import MCP_DEFAULTS, SearchRequest
    from backscroll.retrieval.policy.repeat import key_of, mcp_key

    args = TOOLS["search"].arguments({"query": "webhook retries", "role": "USER", "agent": "Claude", "mode": "",
                                      "project": ""})
    assert (args["role"], args["agent"], args["mode"], args["project"]) == ("user", "claude", "hybrid", None)
    logged = "mcp__backscroll__search\nquery: webhook retries\nproject: \nsession: null\nrole: USER\nagent: Claude"
    assert mcp_key(logged) == key_of(SearchRequest(**{**MCP_DEFAULTS, **args}))


def test_a_client_killed_mid_answer_leaves_the_server_to_exit_quietly(backscroll_home):
    """A killed client closes the pipe the server writes its answer to: the server exits 0 without a traceback."""
    p = subprocess.Popen([BIN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=_env(backscroll_home))
    assert p.stdin is not None and p.stdout is not None
    for message in INIT:
        p.stdin.write(json.dumps(message).encode() + b"\n")
    p.stdin.flush()
    assert json.loads(p.stdout.readline())["id"] == 1
    p.stdout.close()  # (as a killed client's end of the pipe)
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode() + b"\n")
    p.stdin.close()
    assert p.stderr is not None
    err = p.stderr.read()
    assert p.wait(timeout=60) == 0 and b"Traceback" not in err and b"BrokenPipe" not in err, err.decode()[-2000:]
