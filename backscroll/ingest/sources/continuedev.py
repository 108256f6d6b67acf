"""Continue (continuedev/continue: the VS Code and JetBrains extension and the ``cn`` CLI) sessions:
``~/.continue/sessions/<uuid>.json`` (``$CONTINUE_GLOBAL_DIR/sessions`` when set).

Read from continuedev/continue at d0a3c0b (June 2026: ``core/util/history.ts``, ``core/index.d.ts``,
``extensions/cli/src/session.ts``) and from files ``cn`` 1.5.47 wrote. The editors and the CLI share the folder, the
schema and the writer, which rewrites a session whole on every save: a file is read whole. A session is
``{sessionId, title, workspaceDirectory, history: [{message, contextItems, toolCallStates?, reasoning?,
conversationSummary?}]}``; ``sessions.json`` beside it gives its creation time (``dateCreated``). CLI builds of
July–August 2025 kept ``cli-sessions/continue-cli-<terminal>.json`` (``{chatHistory: [OpenAI messages]}``), read too.

Records: the person's text (``content``, a string or text parts; files attached as ``contextItems`` are not their
words and are not stored; the ``continue`` the CLI adds after a compaction is the harness's), the assistant's text
(``<think>`` left inline by the CLI is reasoning), ``thinking`` items and ``reasoning`` (reasoning), each tool call
of ``toolCallStates`` (``toolCallState`` before July 2025, else ``message.toolCalls``) with its ``output``; an
editor's ``tool`` item repeats an output and is read only when no state holds it. ``conversationSummary`` is a
summary: the CLI's compaction replaces the history with it, and the records it no longer holds stay stored. Record
ids are the editor's message id or a call's id, else a hash of the item's role and text with its count (the CLI
writes no ids, and a compaction moves items): an item keeps its id when the history around it changes. No message
has a time: each is dated by the save that first held it (``first_seen``). The 2023 Python format is not read.
"""

from __future__ import annotations

import hashlib
import os
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
    block_text,
    call_text,
    clean_text,
    first_seen,
    home_root,
    read_regular,
    time_of,
)
from backscroll.ingest.sources.aider_reasoning import split_reasoning
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

# The shell tool: the editors' (``builtin_`` before July 2025) and the CLI's.
SHELL_TOOLS = frozenset({"run_terminal_command", "builtin_run_terminal_command", "Bash"})
MAX_WHOLE_BYTES = 256 * 1024 * 1024
_UNTITLED = {"New Session", "Untitled Session", ""}
_INDEX = "sessions.json"


def default_root(env):
    return [home_root(env, "CONTINUE_GLOBAL_DIR", "sessions", ".continue/sessions"),
            home_root(env, "CONTINUE_GLOBAL_DIR", "cli-sessions", ".continue/cli-sessions")]


def claims(path: Path) -> bool:
    if path.suffix != ".json":
        return False
    if path.parent.name == "cli-sessions":
        return path.name.startswith("continue-cli-")
    return path.parent.name == "sessions" and path.name != _INDEX


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.stem, "continue")


_CREATED: dict[tuple[str, int, int], dict[str, object]] = {}  # (index path, size, mtime) -> session id -> creation


def _created(folder: Path, session_id: str) -> str | None:
    """The session's ``dateCreated`` in the folder's ``sessions.json`` (read once per state of the index)."""
    index = folder / _INDEX
    try:
        st = os.stat(index)
        key = (str(index), st.st_size, st.st_mtime_ns)
        if key not in _CREATED:
            _CREATED.clear()
            entries = loads(read_regular(index, 64 * 1024 * 1024)) if st.st_size else []
            _CREATED[key] = {e["sessionId"]: e.get("dateCreated") for e in as_list(entries)
                             if isinstance(e, dict) and isinstance(e.get("sessionId"), str)}
    except (OSError, ValueError):
        return None
    return normalize_timestamp(_CREATED[key].get(session_id))


def _cwd(value: object) -> str | None:
    """``workspaceDirectory``: a plain path (the CLI), or a URI (the editors: ``file:///…``, a remote's path)."""
    text = as_str(value).strip()
    if "://" not in text:
        return text or None
    from urllib.parse import unquote, urlparse

    path = unquote(urlparse(text).path)
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///c:/… on Windows
        path = path[1:]
    return path or None


def _text(content: object) -> str:
    """A message's text: a string, or its ``text`` parts (images are not read)."""
    if isinstance(content, str):
        return clean_text(content)
    parts = [p["text"] for p in as_list(content) if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return clean_text("\n".join(parts))


class _Ids:
    """Record ids that survive a rewrite: the message's own id, else its role and text hashed, counted."""

    def __init__(self, session_id: str):
        self.session_id = session_id
        self.seen: dict[str, int] = {}

    def of(self, message: dict, text: str) -> str:
        own = message.get("id")
        if isinstance(own, str) and own.strip():
            return f"{self.session_id}:{own.strip()}"
        digest = hashlib.sha1(f"{message.get('role')}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        n = self.seen[digest] = self.seen.get(digest, 0) + 1
        return f"{self.session_id}:h{digest}.{n}"


def _output(state: dict) -> str:
    return "\n".join(t for t in (block_text(as_dict(o).get("content")).strip() for o in as_list(state.get("output")))
                     if t)


def _calls(item: dict, message: dict) -> list[tuple[str, str, object, str, bool]]:
    """``(call id, name, arguments, output, failed)`` of an item's tool calls."""
    states = item.get("toolCallStates")
    if not isinstance(states, list):
        states = [item["toolCallState"]] if isinstance(item.get("toolCallState"), dict) else []
    if not states:
        states = [{"toolCall": c} for c in as_list(message.get("toolCalls"))]
    out = []
    for st in states:
        if not isinstance(st, dict):
            continue
        call = as_dict(st.get("toolCall"))
        fn = as_dict(call.get("function"))
        call_id = as_str(st.get("toolCallId")) or as_str(call.get("id"))
        args = st.get("parsedArgs") if isinstance(st.get("parsedArgs"), dict) else fn.get("arguments")
        out.append((call_id, as_str(fn.get("name")) or "tool", args, _output(st),
                    st.get("status") in ("errored", "canceled")))
    return out


def _openai_calls(message: dict) -> list[tuple[str, str, object, str, bool]]:
    return [(as_str(c.get("id")), as_str(as_dict(c.get("function")).get("name")) or "tool",
             as_dict(c.get("function")).get("arguments"), "", False)
            for c in as_list(message.get("tool_calls")) if isinstance(c, dict)]


def history_records(history: list, info: SessionInfo, runs: list[list]) -> tuple[list[Record], list[tuple[int, str]]]:
    """Records of a session's ``history`` (or a legacy CLI file's ``chatHistory``), each item dated by ``runs``."""
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    ids, sid, cwd = _Ids(info.session_id), info.session_id, info.cwd
    answered = {as_str(st.get("toolCallId")) for item in history if isinstance(item, dict)
                for st in as_list(item.get("toolCallStates")) + [item.get("toolCallState")]
                if isinstance(st, dict) and _output(st)}
    summarized = False
    for n, item in enumerate(history, 1):
        legacy = isinstance(item, dict) and "message" not in item and "role" in item  # an OpenAI message
        message = item if legacy else as_dict(as_dict(item).get("message"))
        role = message.get("role")
        if not isinstance(item, dict) or not isinstance(role, str):
            skipped.append((n, "history item without a message role"))
            continue
        ts, text = time_of(runs, n), _text(message.get("content"))
        if role == "user" and text:
            harness = summarized and text == "continue"  # (the CLI's own, after a compaction mid-turn)
            records.append(Record(f"{ids.of(message, text)}#0", "user", "text", text, n, ts, cwd,
                                  author="harness" if harness else "human"))
        elif role == "thinking" and message.get("redactedThinking"):
            continue  # (its content only says it is hidden)
        elif role in ("assistant", "thinking"):
            summary = clean_text(as_str(item.get("conversationSummary")))
            thought, answer = ("", text) if role == "assistant" else (text, "")
            if role == "assistant" and "<think" in text:
                thought, answer = split_reasoning(text)
            thought = thought or clean_text(as_str(as_dict(item.get("reasoning")).get("text")))
            base = ids.of(message, text)
            if thought:
                records.append(Record(f"{base}#r", "assistant", "reasoning", thought, n, ts, cwd))
            if answer and answer != summary:
                records.append(Record(f"{base}#0", "assistant", "text", clean_text(answer), n, ts, cwd))
            if summary:
                records.append(Record(f"{base}#s", "assistant", "summary", summary, n, ts, cwd))
            for k, (call_id, name, args, output, failed) in enumerate(
                    _openai_calls(message) if legacy else _calls(item, message)):
                key = f"{sid}:{call_id}" if call_id else f"{base}#c{k}"
                body, command = call_text(name, args, SHELL_TOOLS)
                records.append(Record(key, "tool", "tool", body, n, ts, cwd, name, call_id or None, command=command))
                if output:
                    records.append(Record(f"{key}.result", "tool", "tool", output, n, ts, cwd, None, call_id or None,
                                          is_error=failed))
            summarized = summarized or bool(summary)
        elif role == "tool":
            call_id = as_str(message.get("toolCallId") or message.get("tool_call_id"))
            output = block_text(message.get("content")).strip()
            if output and call_id not in answered:
                key = f"{sid}:{call_id}.result" if call_id else f"{ids.of(message, output)}.result"
                records.append(Record(key, "tool", "tool", output, n, ts, cwd, None, call_id or None))
        elif role != "system":  # (the CLI's own system prompt, in files of late August 2025)
            skipped.append((n, f"history item of role {role!r}"))
    return records, skipped


def read_whole(path: Path, state: dict) -> WholeRead:
    data = read_regular(path, MAX_WHOLE_BYTES)
    try:
        doc = loads(data)  # (an editor rewrites in place: a file caught mid-write is read again when it changes)
    except ValueError as exc:
        raise ContentError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise ContentError("not a JSON object")
    legacy = isinstance(doc.get("chatHistory"), list)
    history = doc["chatHistory"] if legacy else doc.get("history")
    sid = as_str(doc.get("sessionId")).strip() or path.stem
    if not isinstance(history, list):
        reason = "a session of Continue's 2023 Python server" if "session_state" in doc else "no history list"
        return WholeRead([SourceUnit(str(path), SessionInfo(sid, "continue"), [], [(0, reason)])], {})
    title = as_str(doc.get("title")).strip()
    info = SessionInfo(sid, "continue", cwd=_cwd(doc.get("workspaceDirectory")),
                       title=None if title in _UNTITLED else title)
    saved = normalize_timestamp(doc.get("timestamp")) if legacy else None
    if not saved:
        saved = normalize_timestamp(os.stat(path).st_mtime_ns // 1_000_000)
    first = hashlib.sha1(repr(history[:1]).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    # A history whose first item changed was compacted (or cleared): its items are dated afresh.
    old_runs = state.get("runs") if state.get("first") == first else None
    created = None if legacy or old_runs is None and state else _created(path.parent, sid)
    runs = first_seen(old_runs, len(history), created, saved)
    records, skipped = history_records(history, info, runs)
    return WholeRead([SourceUnit(str(path), info, records, skipped)], {"first": first, "runs": runs})


AGENT = Agent("continue", default_root, claims, session_for, read_whole=read_whole, shell_tools=SHELL_TOOLS)
