"""`backscroll mcp` driven by the official SDK's stdio client (a real subprocess)."""

import json
import os
import sys
from datetime import UTC
from pathlib import Path

import pytest

mcp = pytest.importorskip("mcp")

import anyio  # noqa: E402

BIN = str(Path(sys.executable).with_name("backscroll"))
ANSWER = "We settled on exponential backoff with full jitter for the webhook retries, capped at 10 minutes."


def _text(res) -> dict:
    return json.loads(res.content[0].text)


async def _session(backscroll_home, body):
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data)}
    async with Client(StdioServerParameters(command=BIN, args=["mcp"], env=env)) as client:
        return await body(client)


def test_initialize_list_search_repeat_show(session_builder, backscroll_index, backscroll_home):
    s = session_builder.claude(project="hooks")
    s.user("how should webhook retries back off?")
    s.assistant(ANSWER)
    backscroll_index(embed=False)

    async def body(client):
        tools = {t.name for t in (await client.list_tools()).tools}
        first = _text(await client.call_tool("search", {"query": "webhook retries backoff jitter", "mode": "lexical"}))
        again = _text(await client.call_tool("search", {"query": "Webhook  retries backoff jitter", "mode": "lexical"}))
        forced = _text(await client.call_tool("search", {"query": "webhook retries backoff jitter", "mode": "lexical",
                                                         "rerun": True}))
        shown = _text(await client.call_tool("show", {"record_id": first["results"][0]["record_id"]}))
        status = _text(await client.call_tool("status", {}))
        sessions = _text(await client.call_tool("list_sessions", {}))
        return tools, first, again, forced, shown, status, sessions

    tools, first, again, forced, shown, status, sessions = anyio.run(_session, backscroll_home, body)
    assert tools == {"search", "show", "list_sessions", "status"}
    assert set(first) >= {"schema_version", "results", "also_matching", "dropped_filters", "repeated", "notes"}
    assert first["results"][0]["text"] == ANSWER and first["repeated"] is None
    assert again["results"] == [] and again["repeated"] is not None
    assert again["notes"][0].startswith("[repeated search]") and "rerun=true" in again["notes"][0]
    assert forced["results"][0]["text"] == ANSWER
    assert ANSWER in json.dumps(shown)
    assert status["records"] == 2
    assert len(sessions["sessions"]) == 1


def test_search_json_matches_the_cli(session_builder, backscroll_index, backscroll_home):
    import subprocess

    s = session_builder.claude(project="hooks")
    s.assistant(ANSWER)
    backscroll_index(embed=False)
    env = {**os.environ, "HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data)}
    cli = json.loads(subprocess.run([BIN, "search", "webhook jitter", "--json", "--limit", "5", "--mode", "lexical",
                                     "--no-sync"], capture_output=True, env=env, check=True).stdout)

    async def body(client):
        return _text(await client.call_tool("search", {"query": "webhook jitter", "mode": "lexical"}))

    served = anyio.run(_session, backscroll_home, body)
    for r in (*cli["results"], *served["results"]):
        r.pop("score", None)
    assert served["results"] == cli["results"] and served.keys() == cli.keys()


def test_exits_when_stdin_closes_and_prints_only_protocol(backscroll_home):
    import subprocess

    env = {**os.environ, "HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data)}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    p = subprocess.run([BIN, "mcp"], input=(json.dumps(init) + "\n").encode(), capture_output=True, env=env,
                       timeout=120)
    assert p.returncode == 0
    lines = p.stdout.decode().splitlines()
    assert lines and all(json.loads(line)["jsonrpc"] == "2.0" for line in lines)


def test_a_new_user_message_in_the_calling_session_starts_a_new_turn(session_builder, backscroll_index,
                                                                      backscroll_home):
    from datetime import datetime, timedelta

    from backscroll.dates import format_ts
    from backscroll.integrations.mcp_server import Tools

    s = session_builder.claude(project="hooks", start=format_ts(datetime.now(UTC) - timedelta(seconds=50)))
    s.user("how should webhook retries back off?")
    s.assistant(ANSWER)
    s.user("look it up")
    call = s.tool_use("mcp__backscroll__search", {"query": "webhook jitter"})  # in flight
    backscroll_index(embed=False)
    tools = Tools(str(backscroll_home.data))
    assert tools.search("webhook jitter", mode="lexical")["results"]
    assert tools.recall.seen and next(iter(tools.recall.seen.values()))[1] == s.session_id, "caller found"
    assert tools.search("webhook jitter", mode="lexical")["repeated"] is not None, "same turn"
    s.tool_result(call, "…")
    s.at(format_ts(datetime.now(UTC)))
    s.user("and again, from scratch please")
    s.tool_use("mcp__backscroll__search", {"query": "webhook jitter"})
    again = tools.search("webhook jitter", mode="lexical")
    assert again["repeated"] is None and again["results"], "a new turn"
