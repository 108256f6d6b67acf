"""``backscroll mcp``: the tools of ``mcp_tools`` served over stdio on the official SDK's low-level
server (``pip install 'backscroll[mcp]'``).

Nothing but the protocol goes to stdout (the SDK points fd 1 at stderr while it serves); the server
exits when stdin closes, on SIGHUP or SIGTERM, and opens no socket. A tool's error is a result with
``isError: true`` (an unknown tool is a protocol error, -32602). A line that is not JSON gets
JSON-RPC's parse error (-32700, ``id: null``), one that is JSON but no JSON-RPC message its
invalid-request error (-32600), and the server goes on. A call the client cancels
(``notifications/cancelled``) gets no answer, as the spec says: the SDK cancels its handler, which stops
waiting for its worker thread and sets the call's ``cancelled`` event. A call still queued behind another
never starts; one already running stops at its next safe point, as Ctrl-C stops a command
(``interrupts``: a sync before its next file, a search between its stages, a long SQLite statement at
once), so the next call waits a moment, not for work nobody reads. What a sync had committed stays; the
rest is rolled back and read by the next run. When stdin closes, the requests already read and not
cancelled are answered before the server exits; an abandoned thread never holds it (the process ends
with ``os._exit``: a search's sync is left as a SIGKILL leaves it, and the next run reads what it had
not committed).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

DRAIN_SECONDS = 60.0  # how long the requests read before stdin closed may take to be answered
PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("backscroll")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without metadata
        return "0"


def build(tools):
    """The SDK's low-level server with our tools (imports the SDK: ``ImportError`` when it is missing)."""
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server

    from backscroll.integrations.mcp_tools import INSTRUCTIONS, TOOLS

    listed = types.ListToolsResult(tools=[
        types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.input_schema(),
                   annotations=types.ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                                     idempotent_hint=t.name != "search", open_world_hint=False))
        for t in TOOLS.values()])

    async def list_tools(_ctx, _params) -> Any:
        return listed

    # Calls run one at a time (``Tools`` has a lock) on a thread limiter of their own: the stdio transport
    # reads and writes in worker threads too, and 40 calls waiting on anyio's shared limiter left it none,
    # so not even a cancel could be read.
    limiter: list = []

    async def call_tool(_ctx, params) -> Any:
        if params.name not in TOOLS:  # a protocol error, as the spec has it; a bad argument is the tool's error
            from mcp.shared.exceptions import MCPError

            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        if not limiter:
            limiter.append(anyio.CapacityLimiter(1))
        cancelled = threading.Event()
        try:  # abandon_on_cancel: a cancelled call stops waiting for its thread at once
            answer = await anyio.to_thread.run_sync(tools.call, params.name, params.arguments, cancelled,
                                                    abandon_on_cancel=True, limiter=limiter[0])
        except anyio.get_cancelled_exc_class():
            cancelled.set()  # a call still waiting for the lock never starts; a running one stops at a safe point
            raise
        return types.CallToolResult(content=[types.TextContent(type="text", text=answer.text())],
                                    is_error=answer.is_error)

    return Server("backscroll", version=_version(), instructions=INSTRUCTIONS, on_list_tools=list_tools,
                  on_call_tool=call_tool)


def _inputs(exc: Exception) -> list:
    """What the validation error says was read: the line (a JSON error), or the objects it could not take."""
    errors = getattr(exc, "errors", None)
    try:
        return [e.get("input") for e in errors()] if callable(errors) else []
    except Exception:  # noqa: BLE001 - any other error carries nothing
        return []


def _line(exc: Exception) -> str | None:
    """The line the transport could not read as JSON, as the validation error carries it."""
    return next((i for i in _inputs(exc) if isinstance(i, str) and i.lstrip().startswith("{")), None)


def repaired(exc: Exception):
    """The message of a line that is JSON but for a lone surrogate escape (``"\\ud800"``, valid JSON syntax that no
    Unicode text holds), read with U+FFFD in its place as a session's text is; None for any other line."""
    import mcp_types as types

    from backscroll.ingest.sources.jsontext import replace_lone_surrogates

    line = _line(exc)
    if line is None or "\\u" not in line:
        return None
    try:
        return types.jsonrpc_message_adapter.validate_json(replace_lone_surrogates(line.encode()), by_name=False)
    except Exception:  # noqa: BLE001 - still not a message: answered as rejected
        return None


def rejected(exc: Exception) -> dict:
    """The JSON-RPC error answering a line the transport could not read as a message: with the request's id when
    the line is JSON that names one, so that the caller waiting on it hears."""
    text = str(exc)
    code = PARSE_ERROR if ("json_invalid" in text or "Invalid JSON" in text) else INVALID_REQUEST
    request_id = next((i.get("id") for i in _inputs(exc) if isinstance(i, dict) and "id" in i), None)
    if not isinstance(request_id, (str, int)) or isinstance(request_id, bool):
        request_id = None
    return answer_error(code, request_id)


def answer_error(code: int, request_id: str | int | None) -> dict:
    return {"jsonrpc": "2.0", "id": request_id,
            "error": {"code": code, "message": "Parse error" if code == PARSE_ERROR else "Invalid Request"}}


def request_methods() -> frozenset[str]:
    """The methods a client sends as requests (``tools/call``, ``ping`` …), as the SDK knows them."""
    import typing

    import mcp_types as types

    return frozenset(m for request in typing.get_args(types.ClientRequest)
                     for m in typing.get_args(request.model_fields["method"].annotation))


async def serve_streams(server, read_stream, write_stream, drain_seconds: float = DRAIN_SECONDS) -> None:
    """Run ``server`` on the transport's streams: unreadable lines are answered instead of dropped, and
    when stdin closes the requests already read are answered (for up to ``drain_seconds``) first, but for
    the ones cancelled, which settle with no answer."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import ServerMessageMetadata, SessionMessage

    inner_send, inner_receive = anyio.create_memory_object_stream[Any](0)
    requests = request_methods()
    pending: set = set()
    answered = anyio.Event()

    def settled(request_id) -> None:
        pending.discard(request_id)
        if not pending:
            answered.set()

    class Answers:
        """The write stream, noting which requests have had their answer."""

        async def send(self, item) -> None:
            await write_stream.send(item)
            message = getattr(item, "message", None)
            if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                settled(message.id)

        def __getattr__(self, name):
            return getattr(write_stream, name)

        async def __aenter__(self):
            await write_stream.__aenter__()
            return self

        async def __aexit__(self, *exc):
            return await write_stream.__aexit__(*exc)

    async def relay() -> None:
        nonlocal answered
        async with inner_send:
            async for item in read_stream:
                if isinstance(item, Exception):
                    fixed = repaired(item)
                    if fixed is None:
                        message = types.jsonrpc_message_adapter.validate_python(rejected(item))
                        await write_stream.send(SessionMessage(message))
                        continue
                    item = SessionMessage(fixed)
                if isinstance(item.message, types.JSONRPCNotification) and item.message.method in requests:
                    # a request whose id was an object, a list, a fraction or true (or none): the SDK read it as a
                    # notification and would leave its caller waiting; it is an invalid request
                    await write_stream.send(SessionMessage(types.jsonrpc_message_adapter.validate_python(
                        answer_error(INVALID_REQUEST, None))))
                    continue
                if isinstance(item.message, types.JSONRPCRequest):
                    request_id = item.message.id
                    pending.add(request_id)
                    answered = anyio.Event()

                    async def unanswered(request_id=request_id) -> None:  # the SDK: settled with no answer
                        settled(request_id)

                    if item.metadata is None:  # (stdio's messages carry none)
                        item = SessionMessage(item.message, ServerMessageMetadata(on_request_unanswered=unanswered))
                await inner_send.send(item)
            if pending:
                with anyio.move_on_after(drain_seconds):
                    await answered.wait()

    async with anyio.create_task_group() as tg:
        tg.start_soon(relay)
        await server.run(inner_receive, Answers(), server.create_initialization_options())
        tg.cancel_scope.cancel()


def _signal_exit() -> None:
    import signal

    def bye(_signum, _frame):
        os._exit(0)

    for s in (signal.SIGHUP, signal.SIGTERM):
        try:
            signal.signal(s, bye)
        except (ValueError, OSError, AttributeError):
            pass


def serve(home: str | None = None) -> None:
    import logging

    import anyio
    from mcp.server.stdio import stdio_server

    from backscroll.integrations.mcp_tools import Tools

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    _signal_exit()
    server = build(Tools(home))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await serve_streams(server, read_stream, write_stream)

    try:
        anyio.run(main)  # returns when stdin closes
    except BaseException as exc:
        if not _client_gone(exc):
            raise
    try:
        sys.stdout.flush()
    except OSError:
        pass  # (the client went away: nothing of the answer can reach it)
    sys.stderr.flush()
    os._exit(0)  # never wait on index/embedding threads


def _client_gone(exc: BaseException) -> bool:
    """Whether ``exc`` is only the client going away mid-answer (killed: the pipe closed under a write)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_client_gone(e) for e in exc.exceptions)
    return isinstance(exc, BrokenPipeError | ConnectionResetError)
