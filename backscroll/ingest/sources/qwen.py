"""Qwen Code sessions: ``~/.qwen/projects/<sanitized cwd>/chats/<session id>.jsonl`` (and ``tmp/<hash>/chats``).

Read from qwen-code's ``packages/core/src/services/chatRecordingService.ts`` (QwenLM/qwen-code, the
stored version at commit 1ef5167, and a downstream fork's ``config/storage.ts`` for the ``projects``
layout). Qwen Code is a Gemini CLI fork, but it records sessions its own way: one append-only JSONL
file per session, one ``ChatRecord`` per line ``{uuid, parentUuid, sessionId, timestamp, type:
"user"|"assistant"|"tool_result"|"system", cwd, version, gitBranch, message: {role, parts}, model?,
toolCallResult?}``. Older releases wrote the same files under ``~/.qwen/tmp/<project hash>/chats``;
the root is ``~/.qwen`` so both are found (``$QWEN_RUNTIME_DIR``, else ``$QWEN_HOME``, or ``[roots] qwen``
moves it); ``/archive`` moves a chat to ``chats/archive/``, where it is read too, and ``qwen serve``'s prompt
ledger (``<id>.ledger.jsonl``) beside the chats is no session.

Records: user text, assistant text, thoughts (parts with ``thought: true``, stored as
``content_type="reasoning"``), ``functionCall`` parts (``run_shell_command`` as its command) and
``functionResponse`` parts (results, paired by call id). Later releases (qwen-code 015346f) write
notifications and scheduled prompts as ``user`` records with ``provenance: "system"``: they are the
harness's words, as are a goal's nudges; a subagent's turns (``isSidechain``) and other agents' messages are an
agent's. When a hook added context to a prompt (in a part of its own, ``<qwen:user-prompt-submit-context>``), the
person's words are what they typed (``systemPayload.displayText``), without it; a prompt typed mid-turn loses the
prefix qwen-code adds. Of the ``system`` records, a
compression's summary (``chat_compression``) is stored as a summary; the others (slash commands,
titles, telemetry) are not records. The session's working directory is each record's ``cwd``.
"""

from __future__ import annotations

import os
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    as_dict,
    block_text,
    call_text,
    clean_text,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"run_shell_command"}
_ROLES = {"user": "user", "assistant": "assistant", "tool_result": "user"}
MID_TURN = "[User message received during tool execution]: "  # (qwen-code's prefix on a prompt typed mid-turn)
HOOK_CONTEXT = ("<qwen:user-prompt-submit-context>", "</qwen:user-prompt-submit-context>")


def default_root(env):
    for var in ("QWEN_RUNTIME_DIR", "QWEN_HOME"):  # (where Qwen Code keeps its sessions, when moved)
        if env.get(var, "").strip():
            return Path(os.path.expanduser(env[var].strip())), f"env ${var}"
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return home / ".qwen", "default"


def claims(path: Path) -> bool:
    if path.suffix != ".jsonl" or path.name.endswith(".ledger.jsonl"):  # (``qwen serve``'s prompt ledger)
        return False
    chats = path.parent.parent if path.parent.name == "archive" else path.parent  # (``/archive`` moves a chat)
    return chats.name == "chats" and chats.parent.parent.name in ("projects", "tmp")


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.stem, "qwen")


def _response_text(response: object) -> str:
    if isinstance(response, dict):
        for key in ("output", "content", "error"):
            if response.get(key) is not None:
                text = block_text(response[key])
                if text.strip():
                    return text
        return render_input(response) if response else ""
    return block_text(response)


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind is None and "promptId" in obj and "state" in obj:
        return EMPTY  # (a prompt ledger's line, ``<id>.ledger.jsonl``: a store of an earlier version reads it still)
    if not isinstance(kind, str):
        raise LineError("record without a type")
    updates = {}
    if isinstance(obj.get("sessionId"), str) and obj["sessionId"].strip():
        updates["session_id"] = obj["sessionId"].strip()
    if isinstance(obj.get("cwd"), str) and obj["cwd"]:
        updates["cwd"] = obj["cwd"]
    if kind == "system" and obj.get("subtype") == "chat_compression":
        return ParsedLine(_compressed(obj, line_no, session, updates), updates)
    if kind not in _ROLES:
        return ParsedLine([], updates) if updates else EMPTY
    message = obj.get("message")
    if message is None:
        return ParsedLine([], updates)
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(parts, list):
        raise LineError("message without a parts list")
    sid = updates.get("session_id", session.session_id)
    uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) and obj["uuid"] else f"line{line_no}"
    base = f"{sid}:{uid}"
    ts = normalize_timestamp(obj.get("timestamp"))
    cwd = updates.get("cwd", session.cwd)
    role = _ROLES[kind]
    author = _author(obj) if kind == "user" else None
    shown = as_dict(obj.get("systemPayload")).get("displayText") if kind == "user" else None
    if isinstance(shown, str) and clean_text(shown):  # (what the person typed, before a hook's context was added)
        parts = [{"text": shown}]
    records: list[Record] = []
    for i, part in enumerate(parts):
        if not isinstance(part, dict):
            continue
        rid = f"{base}#{i}"
        if isinstance(part.get("text"), str):
            text = clean_text(part["text"])
            if not text or (kind == "user" and i and _hook_context(text)):  # (appended after the person's parts)
                continue
            if part.get("thought") is True:
                records.append(Record(rid, "assistant", "reasoning", text, line_no, ts, cwd))
            elif kind != "tool_result":
                text = text.removeprefix(MID_TURN).strip() or text  # (the person's words, typed mid-turn)
                records.append(Record(rid, role, "text", text, line_no, ts, cwd, author=author))
        elif isinstance(part.get("functionCall"), dict):
            call = part["functionCall"]
            name = call.get("name") if isinstance(call.get("name"), str) and call["name"] else "tool"
            text, command = call_text(name, call.get("args"), SHELL_TOOLS)
            call_id = call.get("id") if isinstance(call.get("id"), str) else rid
            records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, name, call_id, command=command))
        elif isinstance(part.get("functionResponse"), dict):
            resp = part["functionResponse"]
            text = _response_text(resp.get("response")).strip()
            if text:
                call_id = resp.get("id") if isinstance(resp.get("id"), str) else None
                call_result = obj.get("toolCallResult")
                status = call_result.get("status") if isinstance(call_result, dict) else None
                is_error = status == "error" or (isinstance(resp.get("response"), dict) and "error" in resp["response"]
                                                 and not resp["response"].get("output"))
                records.append(Record(rid, "tool", "tool", text, line_no, ts, cwd, None, call_id, is_error=is_error))
    return ParsedLine(records, updates)


def _author(obj: dict) -> str | None:
    """Who wrote a user record that no person typed: a notification, a scheduled prompt or a goal's nudge is the
    harness's; a subagent's turn (``isSidechain``) and a message or mention from another agent are an agent's."""
    subtype = obj.get("subtype")
    if obj.get("provenance") in ("system", "goal_runtime") or subtype in ("notification", "cron", "goal_runtime"):
        return "harness"
    if obj.get("isSidechain") is True or subtype in ("agent_message", "agent_mention"):
        return "agent"
    return None


def _hook_context(text: str) -> bool:
    """A part that is wholly a hook's added context (backscroll's own recall among them), which Qwen Code wraps."""
    return text.startswith(HOOK_CONTEXT[0]) and text.endswith(HOOK_CONTEXT[1])


def _compressed(obj: dict, line_no: int, session: SessionInfo, updates: dict) -> list[Record]:
    """The summary a compression leaves (``systemPayload.compressedHistory``'s text), as a summary record."""
    payload = obj.get("systemPayload")
    history = payload.get("compressedHistory") if isinstance(payload, dict) else None
    text = "\n\n".join(clean_text(p["text"]) for m in (history if isinstance(history, list) else [])
                       if isinstance(m, dict) and isinstance(m.get("parts"), list)
                       for p in m["parts"] if isinstance(p, dict) and isinstance(p.get("text"), str)).strip()
    if not text:
        return []
    uid = obj.get("uuid") if isinstance(obj.get("uuid"), str) and obj["uuid"] else f"line{line_no}"
    return [Record(f"{updates.get('session_id', session.session_id)}:{uid}#0", "assistant", "summary", text, line_no,
                   normalize_timestamp(obj.get("timestamp")), updates.get("cwd", session.cwd))]


AGENT = Agent("qwen", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS),
              shares_root=True)
