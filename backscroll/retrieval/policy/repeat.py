"""Repeated searches: has the calling agent session already run this very search in this turn?

An agent's ``backscroll search`` call is in its own session log (a query echo) by the time the
command runs, and its output is not yet. The calling session is the one named by ``$BACKSCROLL_SESSION_ID``
(or Codex's ``$CODEX_THREAD_ID``) when its log holds this call in flight, or else found through that echo:
a call still without output, logged in the last two minutes (not in the future beyond a small clock skew),
whose command is this process's exact argv, or (a search over MCP) an MCP search call with these very
arguments. When more than one session has such a call, or none does, there is no calling session. If the calling
session ran the same search earlier with no user message in between, the caller is told so
instead of getting the same results again. Comparison with the earlier call is on normalized
arguments: the query words and every option the request marks as asking (``request.Option.asks``:
filters, hints, mode, limit, weak, by-session); output options do not count. An earlier command line
is read by the command's own Click parser (``search_command.parse``). A person at a terminal
(the CLI passes no argv then), a command the person typed into the agent's session (Claude Code's
``!`` bash mode) and a library caller that names neither are never affected.
"""

from __future__ import annotations

from dataclasses import field, make_dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from backscroll import search_command
from backscroll.dates import format_ts
from backscroll.ingest.echo import mcp_tool, retrieval_calls
from backscroll.request import MCP_DEFAULTS, SearchRequest, kind_of, options
from backscroll.store.db import Store
from backscroll.types import RepeatedSearch

WINDOW = timedelta(minutes=2)
SKEW = timedelta(seconds=30)  # a call logged this far in the future still counts (clocks differ a little)

# A search's identity: what it asks (the request's options marked ``asks``), not how the answer is shown.
_ASKED = {name: default for name, _t, default, opt in options() if opt.asks and name != "query"}
SearchKey = make_dataclass("SearchKey", [("query", str), *((name, Any, field(default=default))
                                                           for name, default in _ASKED.items())], frozen=True)
Key = Any  # a SearchKey (generated, so not a static type)


def normalize_query(text: str) -> str:
    return " ".join(text.lower().split())


def key_of(req: SearchRequest) -> Key:
    """What ``req`` asks, as the repeat rule compares it."""
    return make_key(req.query, **{name: getattr(req, name) for name in _ASKED})


def make_key(query: str, **kw: Any) -> Key:
    """The ``SearchKey`` of ``query`` with these options (others ignored), dates and words normalized."""
    fields = {k: v for k, v in kw.items() if k in _ASKED}
    for k in ("since", "until"):
        if fields.get(k):
            fields[k] = fields[k].strip().lower()
    return SearchKey(query=normalize_query(query), **fields)


def key_from_args(args: list[str]) -> tuple[Key, bool] | None:
    """``(key, rerun)`` of ``search …`` arguments, parsed as the CLI parses them; None when unparseable."""
    asked = search_command.parse(args)
    if asked is None:
        return None
    rerun = bool(asked.pop("rerun", False))
    return make_key(asked.pop("query"), **asked), rerun


RERUN = "search again with rerun=True"  # how a library caller runs it anyway (the CLI says --rerun)


def note(earlier: RepeatedSearch, rerun: str = RERUN) -> str:
    """The note a repeated search returns instead of results; ``rerun`` says how to run it anyway."""
    when = earlier.timestamp[11:19] + " UTC" if earlier.timestamp else "earlier"
    return (f"[repeated search] this session already ran this search at {when} (record {earlier.record_id}); "
            f"its results are above. Change the query or filters, or {rerun}.")


def mcp_key(text: str) -> Key | None:
    """The search an MCP search call asked for, from its logged text (the tool's name, then a
    ``name: value`` line per argument, as the readers render a call), with the tool's defaults."""
    kinds = {name: kind_of(annotation) for name, annotation, _d, _o in options()}
    closed = {name for name, _a, _d, opt in options() if opt.choices}  # (taken in any case, as the server takes them)
    args: dict = {}
    last = None
    for line in text.split("\n")[1:]:
        name, sep, value = line.partition(": ")
        if sep and name in kinds:
            args[name] = value
            last = name
        elif last is not None:
            args[last] += "\n" + line
    values: dict = {**MCP_DEFAULTS}
    for name, raw in args.items():
        kind = kinds[name]
        if kind is int:
            try:
                values[name] = int(raw)
            except ValueError:
                return None
        elif kind is bool:
            values[name] = raw.strip() == "true"
        elif raw.strip() not in ("", "null"):  # ("" and null leave an option out, as the server takes them)
            values[name] = raw.strip().lower() if name in closed else raw
    query = values.pop("query", None)
    return make_key(query, **values) if isinstance(query, str) and query.strip() else None


def keys_in(tool_name: str | None, text: str) -> list[Key]:
    """The searches a logged call ran: a shell command's ``backscroll search`` calls, or an MCP search."""
    if mcp_tool(tool_name) == "search":
        key = mcp_key(text)
        return [key] if key is not None else []
    out = []
    for call in retrieval_calls(text):
        parsed = key_from_args(call)
        if parsed is not None:
            out.append(parsed[0])
    return out


def typed_by_a_person(call: tuple) -> bool:
    """A shell command the person typed into the agent's session (Claude Code's ``!`` bash mode), not
    one the agent ran: its author is never told about repeats."""
    return str(call[2] or "").startswith("bash:") and call[3] == "bash"


def _in_flight(store: Store, call: tuple) -> bool:
    """The call has no output logged yet: it is the very command now running (not an older one)."""
    _id, session, call_id, _tool, _text = call
    if not call_id:
        return True
    return store.call_unanswered(session, call_id)


def _calling_call(store: Store, argv: list[str], now: datetime) -> tuple | None:
    """The in-flight echo of this very process: recent, not in the future, the exact argv, one session."""
    mine = retrieval_calls(["backscroll", *argv])
    if len(mine) != 1:
        return None
    return _one_session([c for c in _recent_calls(store, now) if mine[0] in retrieval_calls(c[4])
                         and _in_flight(store, c)])


def _calling_mcp_call(store: Store, key: Key, now: datetime) -> tuple | None:
    """The in-flight MCP search call asking exactly ``key``, recent and in one session only."""
    return _one_session([c for c in _recent_calls(store, now) if mcp_tool(c[3]) == "search"
                         and key in keys_in(c[3], c[4]) and _in_flight(store, c)])


def _recent_calls(store: Store, now: datetime) -> list[tuple]:
    return store.echo_calls_between(format_ts(now - WINDOW), format_ts(now + SKEW))


def _one_session(found: list[tuple]) -> tuple | None:
    if len({c[1] for c in found}) != 1:
        return None  # nobody, or several sessions running the same call: not ours to guess
    return found[0]


def calling_session(store: Store, key: Key, *, now: datetime | None = None, session_id: str | None = None,
                    argv: list[str] | None = None, mcp: bool = False) -> str | None:
    """The agent session making this call, when it can be told (see the module docstring)."""
    current = _current_call(store, key, now or datetime.now(UTC), session_id, argv, mcp)
    return current[1] if current is not None else None


def _current_call(store: Store, key: Key, now: datetime, session_id: str | None, argv: list[str] | None,
                  mcp: bool) -> tuple | None:
    if session_id:
        candidates = store.echo_calls_of(session_id)
        named = next((c for c in candidates if key in keys_in(c[3], c[4]) and _in_flight(store, c)), None)
        if named is not None:
            return named  # (else the name is stale: a nested `codex exec` inherits its parent's thread id)
    if argv:
        current = _calling_call(store, list(argv), now)
        return current if current is not None and key in keys_in(current[3], current[4]) else None
    if mcp:
        return _calling_mcp_call(store, key, now)
    return None


def find_earlier(store: Store, key: Key, *, now: datetime | None = None, session_id: str | None = None,
                 argv: list[str] | None = None, mcp: bool = False) -> RepeatedSearch | None:
    """The earlier identical search in the calling session's current turn, if any.

    The calling session is ``session_id`` when its log holds this call in flight, else the one whose in-flight call
    is ``argv`` (this process's arguments, without the program name), else with ``mcp`` the one whose in-flight
    MCP call asks ``key``; with none of them there is none.
    """
    current = _current_call(store, key, now or datetime.now(UTC), session_id, argv, mcp)
    if current is None or typed_by_a_person(current):
        return None
    current_id, session = current[0], current[1]
    for _rid, record_id, ts, tool, text in store.echo_calls_this_turn(session, current_id):
        if key in keys_in(tool, text):
            return RepeatedSearch(session, record_id, ts, text)
    return None
