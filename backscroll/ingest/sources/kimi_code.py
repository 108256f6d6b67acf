"""Kimi Code sessions (the TypeScript CLI that followed kimi-cli): ``~/.kimi-code/sessions/<work dir key>/<session
id>/agents/<agent>/wire.jsonl``, one log per agent (``main``, a subagent's ``agent-0``, ...).

Read from ``@moonshot-ai/kimi-code`` 2.1.0 (its bundle) and MoonshotAI/kimi-code at d723cc4 (``packages/agent-core-v2``:
``wire/record.ts``, ``agent/contextMemory/contextEvents.ts``, ``loopEventFold.ts``, ``kosong/contract/message.ts``),
and files Kimi Code 2.1.0 wrote itself (tests/data/kimi-code-generated). The folder is ``$KIMI_CODE_HOME``, else
``~/.kimi-code``. The log is appended to, a line ``{type, ..., time (epoch ms)}``: the context the model is given
(``context.append_message``: the person's prompts, the runtime's reminders and notifications, a subagent's brief;
assistant messages and tool results in logs imported from kimi-cli) and what it does
(``context.append_loop_event``: ``content.part`` text or ``think``, ``tool.call`` with its ``args``, the ``Bash``
tool's ``command``, ``tool.result`` with ``isError``), and ``context.apply_compaction``'s summary. The ``agent.*``
lines repeat the same messages for people and are not read; nor is the bookkeeping (``turn.*``, ``llm.*``,
``profile.bind``, ...). ``state.json`` beside ``agents/`` gives the work dir and title. A subagent's log is a session
of its own linked to its session. A record is keyed by the log's own id of what it holds (a message's ``id``, an
event's ``uuid``; else its line), so a log Kimi Code rewrites, or a fork's copy, is the same records. A ``/fork``
copies its source's logs up to their last ``forked`` line: skipped while the source is there (lines without an id
too); a session imported from kimi-cli likewise, while kimi-cli's own files are (its lines without a ``time`` are
the copy). A ``!`` command is the person's shell call. Lines undone by ``/undo`` stay, as they stay in the log.
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

import orjson

from backscroll.dates import format_ts, normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    LineError,
    ParsedLine,
    as_dict,
    call_text,
    clean_text,
    home_root,
    jsontext,
    kimi_code_prompts,
    read_regular,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"Bash", "Shell"}  # (Shell: kimi-cli's, in imported logs)
READ = "kimi-code"  # a session's reading mode (``SessionInfo.history_mode``)
COPY = "kimi-code-copy:"  # ... while the lines are a fork's copy of its source: up to the line named after it
IMPORTED = "kimi-code-imported"  # ... in a log imported from kimi-cli whose own files are still there
_IGNORED = ("metadata", "runtime.", "permission.", "plugin.", "profile.", "config.", "llm.", "usage.",
            "token_counting.", "tools.", "mcp.", "plan_mode.", "plan.", "swarm_mode.", "tower_mode.", "goal.",
            "cron.", "interaction.", "prompt.", "turn.", "agent.", "subagent.", "task.", "file_history.",
            "staleGuard.", "interruptionReminder.", "full_compaction.", "context.", "micro_compaction.")
MAX_STATE = 16 * 1024 * 1024


def default_root(env):
    return home_root(env, "KIMI_CODE_HOME", "sessions", ".kimi-code/sessions")


def claims(path: Path) -> bool:
    return path.name == "wire.jsonl" and path.parent.parent.name == "agents"


@lru_cache(maxsize=64)
def _state(path: Path, _mtime: int) -> dict:
    try:
        return as_dict(jsontext.loads(read_regular(path, MAX_STATE)))
    except (OSError, orjson.JSONDecodeError):
        return {}


def state(session_dir: Path) -> dict:
    """A session's ``state.json`` (``{}`` when it is missing or unreadable)."""
    path = session_dir / "state.json"
    try:
        return _state(path, os.stat(path).st_mtime_ns)
    except OSError:
        return {}


def _last_forked(path: Path) -> int:
    """The line of the last ``forked`` line of a log (0: none): a fork's copy of its source ends there, and a fork
    of a fork copies the first fork's log, its own ``forked`` line and all."""
    try:
        st = path.stat()
    except OSError:
        return 0
    return _forked_line(path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _forked_line(path: Path, _mtime: int, _size: int) -> int:
    last = 0
    try:
        with path.open("rb") as fh:
            for n, raw in enumerate(fh, 1):
                if b'"forked"' in raw:
                    try:
                        if as_dict(jsontext.loads(raw)).get("type") == "forked":
                            last = n
                    except orjson.JSONDecodeError:
                        continue
    except OSError:
        return 0
    return last


def session_for(path: Path) -> SessionInfo:
    agent, session_dir = path.parent.name, path.parent.parent.parent
    st = state(session_dir)
    custom = as_dict(st.get("custom"))
    cwd = next((v for v in (st.get("cwd"), st.get("workDir"), custom.get("cwd")) if isinstance(v, str) and v), None)
    title = next((v.strip() for v in (st.get("title"), st.get("customTitle")) if isinstance(v, str) and v.strip()),
                 None)
    source = st.get("forkedFrom") if isinstance(st.get("forkedFrom"), str) and st["forkedFrom"] else None
    mode = READ
    times: tuple[str, ...] = ()
    forked = _last_forked(path) if source and (session_dir.parent / source).is_dir() else 0
    if forked:  # (an agent the fork started after it has no copy, and no ``forked`` line)
        mode = f"{COPY}{forked}"
    elif custom.get("imported_from_kimi_cli") is True:
        original = custom.get("kimi_cli_source_path")
        mode = IMPORTED if isinstance(original, str) and original and Path(original).exists() else READ
        times = _carried_times(path)
        earlier = custom.get("kimi_cli_session_id")  # (the kimi-cli session it goes on from)
        source = earlier if isinstance(earlier, str) and earlier else None
    if agent == "main":
        return SessionInfo(session_dir.name, "kimi", cwd=cwd, title=title, parent_session_id=source,
                           history_mode=mode, line_times=times)
    spawner = as_dict(as_dict(st.get("agents")).get(agent)).get("parentAgentId")  # (a subagent's own subagent)
    parent = f"{session_dir.name}:{spawner}" if isinstance(spawner, str) and spawner not in ("", "main") else None
    return SessionInfo(f"{session_dir.name}:{agent}", "kimi", cwd=cwd, is_sidechain=True,
                       parent_session_id=parent or session_dir.name, history_mode=mode, line_times=times)


def _carried_times(path: Path) -> tuple[str, ...]:
    """Each line's time in a log imported from kimi-cli, whose messages carry none: the last time before it."""
    try:
        st = path.stat()
    except OSError:
        return ()
    return _dated(path, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _dated(path: Path, mtime: int, _size: int) -> tuple[str, ...]:
    out: list[str | None] = []
    now = None
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError:
        return ()
    for raw in lines:
        try:
            obj = jsontext.loads(raw)
        except orjson.JSONDecodeError:
            obj = None
        at = normalize_timestamp(obj.get("time") if isinstance(obj, dict) else None)
        if obj and isinstance(obj, dict) and obj.get("type") == "metadata":
            at = normalize_timestamp(obj.get("created_at"))
        now = at or now
        out.append(now)
    written = format_ts(datetime.fromtimestamp(mtime / 1e9, UTC))
    first = next((t for t in out if t), None)
    return tuple(t or first or written for t in out)


def _parts(content: object) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _text(content: object) -> str:
    return "\n".join(p["text"] for p in _parts(content) if isinstance(p.get("text"), str))


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise LineError("a line without a type")
    mode = session.history_mode or READ
    if mode.startswith(COPY):  # (a fork's copy of its source's log, stored from the source)
        last = int(mode[len(COPY):] or 0) if mode[len(COPY):].isdigit() else 0
        if line_no <= last:
            return EMPTY if line_no < last else ParsedLine([], {"history_mode": READ})
        parsed = parse_line(obj, line_no, replace(session, history_mode=READ))
        return ParsedLine(parsed.records, {**parsed.session_updates, "history_mode": READ}, parsed.unknown)
    if session.history_mode == IMPORTED and "time" not in obj:  # (kimi-cli's own, read from its files)
        return EMPTY
    ts = normalize_timestamp(obj.get("time"))
    if ts is None and 0 < line_no <= len(session.line_times):
        ts = session.line_times[line_no - 1]
    base = f"{session.session_id}:{line_no}"  # (a record without a key of the log's own: by its line)
    if kind == "context.append_message":
        return ParsedLine(_message(as_dict(obj.get("message")), base, line_no, ts, session), {})
    if kind == "context.append_loop_event":
        return ParsedLine(_event(as_dict(obj.get("event")), base, line_no, ts, session), {})
    if kind == "context.apply_compaction":
        summary = obj.get("summary")
        text = (summary if isinstance(summary, str) else _text(as_dict(summary).get("content"))).strip()
        return ParsedLine([Record(f"{base}#0", "assistant", "summary", text, line_no, ts, session.cwd)] if text else [],
                          {})
    if kind == "turn.ended":  # (a turn that failed: what the person saw instead of a reply)
        error = obj.get("error")
        said = error if isinstance(error, str) else as_dict(error).get("message")
        if isinstance(said, str) and said.strip():
            return ParsedLine([Record(f"{base}#0", "user", "text", said.strip(), line_no, ts, session.cwd,
                                      is_error=True, author="harness")], {})
        return EMPTY
    if kind in ("config.update", "profile.bind") and not session.cwd:  # (a state.json without the work dir)
        cwd = obj.get("cwd") if kind == "config.update" else as_dict(obj.get("environmentDisclosure")).get("cwd")
        return ParsedLine([], {"cwd": cwd}) if isinstance(cwd, str) and cwd else EMPTY
    if kind == "forked" or kind.startswith(_IGNORED):
        return EMPTY
    return ParsedLine([], {}, unknown=kind)


def _key(value: object, base: str) -> str:
    """A record's id: the log's key of what it holds (a message's id, an event's uuid; a copy keeps it), or its line."""
    return f"kimi-code:{value}" if isinstance(value, str) and len(value) >= 8 else base


def _message(msg: dict, base: str, line_no: int, ts: str | None, session: SessionInfo) -> list[Record]:
    role, cwd = msg.get("role"), session.cwd
    base = _key(msg.get("id"), base)
    out: list[Record] = []
    if role == "user":
        return kimi_code_prompts.records(as_dict(msg.get("origin")), _text(msg.get("content")), base, line_no, ts, cwd)
    elif role == "assistant":  # (a log imported from kimi-cli: whole messages)
        for i, part in enumerate(_parts(msg.get("content"))):
            out += _part(part, f"{base}#{i}", line_no, ts, cwd)
        calls = msg.get("toolCalls")
        for k, call in enumerate(calls if isinstance(calls, list) else []):
            call = as_dict(call)
            fn = as_dict(call.get("function")) or call
            name = str(fn["name"]) if isinstance(fn.get("name"), str) and fn["name"] else "tool"
            text, command = call_text(name, fn.get("arguments"), SHELL_TOOLS)
            call_id = call.get("id") if isinstance(call.get("id"), str) else f"{base}#c{k}"
            out.append(Record(f"{base}#c{k}", "tool", "tool", text, line_no, ts, cwd, name, call_id, command=command))
    elif role == "tool":
        text = _text(msg.get("content")).strip()
        if text:
            call_id = msg.get("toolCallId") if isinstance(msg.get("toolCallId"), str) else None
            out.append(Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, None, call_id,
                              is_error=msg.get("isError") is True))
    return out


def _part(part: dict, rid: str, line_no: int, ts: str | None, cwd: str | None) -> list[Record]:
    if part.get("type") == "text" and isinstance(part.get("text"), str) and (text := clean_text(part["text"])):
        return [Record(rid, "assistant", "text", text, line_no, ts, cwd)]
    if part.get("type") == "think" and isinstance(part.get("think"), str) and part["think"].strip():
        return [Record(rid, "assistant", "reasoning", part["think"].strip(), line_no, ts, cwd)]
    return []


def _event(event: dict, base: str, line_no: int, ts: str | None, session: SessionInfo) -> list[Record]:
    kind, cwd = event.get("type"), session.cwd
    if kind == "content.part":
        return _part(as_dict(event.get("part")), f"{_key(event.get('uuid'), base)}#0", line_no, ts, cwd)
    if kind == "tool.call":
        name = str(event["name"]) if isinstance(event.get("name"), str) and event["name"] else "tool"
        text, command = call_text(name, event.get("args"), SHELL_TOOLS)
        rid = f"{_key(event.get('uuid'), base)}#0"
        call_id = event.get("toolCallId") if isinstance(event.get("toolCallId"), str) else rid
        return [Record(rid, "tool", "tool", text, line_no, ts, cwd, name, call_id, command=command)]
    if kind == "tool.result":
        result = as_dict(event.get("result"))
        text = _text(result.get("output")).strip()
        call_id = event.get("toolCallId") if isinstance(event.get("toolCallId"), str) else None
        return [Record(f"{_key(event.get('parentUuid'), base)}#1", "tool", "tool", text, line_no, ts, cwd, None,
                       call_id, is_error=result.get("isError") is True)] if text else []
    return []
