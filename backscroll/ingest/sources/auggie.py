"""Auggie (Augment Code's CLI, npm ``@augmentcode/auggie``) sessions: ``~/.augment/sessions/<id>.json``.

Read from the 0.36.0 bundle (its session store and the vendor's own session viewer; closed source, read for the format
only) and real sessions users published (January–March 2026 builds). A session is rewritten whole on every save
(a temporary file renamed): ``{sessionId, created, modified, chatHistory, agentState, customTitle?, title?,
parentConversationId?, subAgents?}``. ``<id>-backup<n>.json`` beside it is an earlier history Auggie set aside when
the server's won on a resume: it holds the same records, and the ones the main file lost. Only ``--augment-cache-dir``
moves the folder; ``~/.augment/session.json`` is the login, not a session, and is never read.

``chatHistory`` holds one exchange per round with the model, ``{exchange: {request_message, response_text, request_id,
request_nodes, response_nodes}, finishedAt, completed}``: a user turn spans several, and a round's tool results come in
the next one's ``request_nodes``. Records: the person's text (``request_message``; the guidelines ask, ``/btw`` and plan
mode put before it are the harness's and are not stored), the assistant's (``response_text``; a notice Auggie writes
there itself is the harness's error), thinking (its summary), each tool call (``launch-process``, ``bash`` and
``shell`` as their command) and its result (``is_error``), the person's answers to ``ask-user``, and a compaction's
summary (its ``history_summary_node``). Each is dated by its exchange's ``finishedAt`` when first seen (a history
Auggie downloads again is stamped with the download). A sub-agent's history kept in ``subAgents`` is a session of
its own, linked to this one. Records carry Auggie's own ids (``request_id``, ``tool_use_id``), so what a ``/fork`` or
a download copies into another file is stored once.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    ContentError,
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    call_text,
    clean_text,
    first_of_each_id,
    json_object,
    read_regular,
)
from backscroll.ingest.sources.answers import answer_text
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = frozenset({"launch-process", "bash", "shell"})
MAX_WHOLE_BYTES = 256 * 1024 * 1024
_NAME = re.compile(r"([0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12})(?:-backup\d+)?\.json")  # <id>[-backup<n>]
# What Auggie puts before the person's words (ask mode's guidelines, plan mode's instructions: one inside another)
_WRAPPED = re.compile(r"(?s)\A# (?:For this specific question|Ask mode is now disabled|Plan Mode Instructions|"
                      r"Plan Iteration Instructions).*?(?:\n\nUser message:\n|\n\n User's planning request: |"
                      r"User's feedback on the plan:\n(?:\nThe current plan file is at: [^\n]*\n\n|\n))")
# What Auggie says itself in the model's place (``gpe``), and the prompt it gives a sub-agent that did not report
_NOTICES = ("The model returned an empty response.", "The remote agent crashed due to an error",
            "Your conversation has been paused after reaching the maximum number of iterations.",
            "The model provider blocked this response for safety reasons.", "You ended your turn without calling")
_ANSWERED = re.compile(r"(?s)\AUser responded: (.+)")  # ``ask-user``'s result: the person's answer
_NO_ANSWER = {"declined", "[No answer provided]"}
# The payload's key of each node type read: request nodes 1, 4, 10; response nodes 5, 8.
_TYPES = {1: "tool_result_node", 4: "ide_state_node", 10: "history_summary_node", 5: "tool_use", 8: "thinking"}


def default_root(env):
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".augment" / "sessions", "default"


def claims(path: Path) -> bool:
    return path.parent.name == "sessions" and bool(_NAME.fullmatch(path.name))


def session_for(path: Path) -> SessionInfo:
    found = _NAME.fullmatch(path.name)
    return SessionInfo(found.group(1) if found else path.stem, "auggie")


def _nodes(exchange: dict, side: str, kind: int) -> list[dict]:
    return [as_dict(n.get(_TYPES[kind])) for n in map(as_dict, as_list(exchange.get(side))) if n.get("type") == kind]


def _cwd(history: list) -> str | None:
    for entry in map(as_dict, history):
        for ide in _nodes(as_dict(entry.get("exchange")), "request_nodes", 4):
            terminal = as_str(as_dict(ide.get("current_terminal")).get("current_working_directory")).strip()
            folder = as_dict(next(iter(as_list(ide.get("workspace_folders"))), {}))
            found = terminal or as_str(folder.get("repository_root") or folder.get("folder_root")).strip()
            if found:
                return found
    return None


def _asked(text: str) -> str:
    while (found := _WRAPPED.match(text)) is not None:
        text = text[found.end():]
    return clean_text(text)


def _answers(result: str, asked: object) -> str:
    """The person's answers in an ``ask-user`` result: ``User responded: …`` to one question, ``question<TAB>answer``
    lines to several."""
    single = _ANSWERED.match(result)
    if single:
        question = as_dict(json_object(asked) if isinstance(asked, str) else asked).get("question")
        pairs: list[tuple[object, str]] = [(question, single.group(1).strip())]
    else:
        pairs = [(q, a) for q, a in (line.split("\t", 1) for line in result.splitlines() if "\t" in line)]
    return answer_text((q, a if a.strip() not in _NO_ANSWER else None, None) for q, a in pairs)


def _when(entry: dict, exchange: dict) -> str | None:
    """When an exchange ended: ``finishedAt``, unless it was downloaded (then the download's time): its nodes' own."""
    times = [t for t in (n.get("timestamp_ms") for n in map(as_dict, as_list(exchange.get("response_nodes"))))
             if isinstance(t, int)] if entry.get("source") == "remote" else []
    return normalize_timestamp(max(times)) if times else normalize_timestamp(entry.get("finishedAt"))


def history_records(history: list, info: SessionInfo, seen: dict | None = None) -> tuple[list[Record], dict]:
    """Records of a ``chatHistory``, in order, and when each exchange was first seen (``seen``, by ``request_id``, the
    time of the read before: a history Auggie downloads again keeps its times). Ids are Auggie's own, ``request_id``
    and ``tool_use_id``, without the session: a fork or a download repeats them, and adds only what is new. Pure."""
    out: list[Record] = []
    cwd, seen = info.cwd, dict(seen or {})
    calls: dict[str, tuple[str, object]] = {}
    for n, entry in enumerate(map(as_dict, history), 1):
        exchange = as_dict(entry.get("exchange"))
        rid = as_str(exchange.get("request_id"))
        base = f"auggie:{rid}" if rid else f"{info.session_id}:x{n}"
        ts = seen.setdefault(rid, _when(entry, exchange)) if rid else _when(entry, exchange)
        for result in _nodes(exchange, "request_nodes", 1):  # (the previous round's calls)
            call_id, said = as_str(result.get("tool_use_id")), clean_text(as_str(result.get("content")))
            key = f"auggie:{call_id}" if call_id and not call_id.startswith("unknown-") else f"{base}:{call_id}"
            if said:
                out.append(Record(f"{key}.result", "tool", "tool", said, n, ts, cwd, None, call_id or None,
                                  is_error=result.get("is_error") is True))
            name, asked = calls.get(call_id, ("", None))
            picked = _answers(said, asked) if name == "ask-user" and not result.get("is_error") else ""
            if picked:
                out.append(Record(f"{key}.answer", "user", "text", picked, n, ts, cwd, author="human"))
        asked = _asked(as_str(exchange.get("request_message")))
        if asked:
            author = "harness" if asked.startswith(_NOTICES) else "agent" if info.is_sidechain else "human"
            out.append(Record(f"{base}#u", "user", "text", asked, n, ts, cwd, author=author))
        for summary in _nodes(exchange, "request_nodes", 10):
            said = clean_text(as_str(summary.get("summary_text")))
            if said:
                out.append(Record(f"{base}#s", "assistant", "summary", said, n, ts, cwd))
        thought = "\n".join(clean_text(as_str(t.get("summary") or t.get("content")))
                            for t in _nodes(exchange, "response_nodes", 8)).strip()
        if thought:
            out.append(Record(f"{base}#r", "assistant", "reasoning", thought, n, ts, cwd))
        answer = clean_text(as_str(exchange.get("response_text"))) or clean_text(
            "".join(as_str(t.get("content")) for t in map(as_dict, as_list(exchange.get("response_nodes")))
                    if t.get("type") == 0))
        if answer.startswith(_NOTICES):  # (Auggie's own notice, written where the model's words go)
            out.append(Record(f"{base}#0", "user", "text", answer, n, ts, cwd, is_error=True, author="harness"))
        elif answer:
            out.append(Record(f"{base}#0", "assistant", "text", answer, n, ts, cwd))
        for k, use in enumerate(_nodes(exchange, "response_nodes", 5)):
            name, call_id = as_str(use.get("tool_name")) or "tool", as_str(use.get("tool_use_id"))
            calls[call_id] = (name, use.get("input_json"))
            body, command = call_text(name, use.get("input_json"), SHELL_TOOLS)
            key = f"auggie:{call_id}" if call_id and not call_id.startswith("unknown-") else f"{base}#c{k}"
            out.append(Record(key, "tool", "tool", body, n, ts, cwd, name, call_id or None, command=command))
    return first_of_each_id(out), seen


def read_whole(path: Path, state: dict) -> WholeRead:
    try:
        doc = loads(read_regular(path, MAX_WHOLE_BYTES))
    except ValueError as exc:
        raise ContentError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("chatHistory"), list):
        raise ContentError("not an Auggie session (no chatHistory)")
    history = doc["chatHistory"]
    sid = as_str(doc.get("sessionId")).strip() or session_for(path).session_id
    title = as_str(doc.get("customTitle") or doc.get("title")).strip() or None
    parent = as_str(doc.get("parentConversationId")).strip() or None
    info = SessionInfo(sid, "auggie", cwd=_cwd(history), title=title, parent_session_id=parent,
                       is_sidechain=parent is not None)
    seen = as_dict(state.get("seen"))
    records, seen = history_records(history, info, seen)
    subsessions: dict[str, SessionInfo] = {}
    for k, agent in enumerate(map(as_dict, as_list(doc.get("subAgents")))):  # (kept when the server asks for it)
        theirs_history = as_list(agent.get("chatHistory"))
        first = as_str(as_dict(as_dict(next(iter(theirs_history), {})).get("exchange")).get("request_id"))
        name = as_str(agent.get("name")).strip() or str(k)
        sub = SessionInfo(f"{sid}-{first or name}", "auggie", cwd=info.cwd, title=name, parent_session_id=sid,
                          is_sidechain=True)
        theirs, seen = history_records(theirs_history, sub, seen)
        subsessions.update((r.record_id, sub) for r in theirs)
        records += theirs
    return WholeRead([SourceUnit(str(path), info, records, subsessions=subsessions)], {"seen": seen})


AGENT = Agent("auggie", default_root, claims, session_for, read_whole=read_whole, shell_tools=SHELL_TOOLS)
