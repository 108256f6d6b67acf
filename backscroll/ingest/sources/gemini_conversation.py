"""A Gemini CLI session file's content, pure: bytes in, a ``Conversation`` out, and its records.

This module owns replaying both generations (the older single JSON object; the newer JSONL of message upserts,
``$set`` patches and ``$rewindTo`` rewinds) and turning the final message list into records: user and gemini text
(text Gemini composes in the person's turn authored by the harness, a hook's context added to a prompt a record of
its own, @-referenced file contents left out, a compression's snapshot a summary), thoughts as reasoning, and per
tool call a call and a result record. ``gemini`` finds the files, their project root, and reads them whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import as_list, as_str, block_text, clean_text, render_input
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"run_shell_command"}
_TEXT_TYPES = {"user": "user", "gemini": "assistant"}
# User-role text Gemini CLI writes itself: continuation nudges after a tool-only turn or a loop stop,
# and the grace-period warning a subagent gets when it runs out of turns or time.
_HARNESS_TEXT = re.compile(r"^(System: Please continue\.?|Please continue\.?)$"
                           r"|^You have exceeded the (maximum number of turns|time limit)\. You have one final chance")
# User-role messages Gemini CLI composes itself (``environmentContext.ts``, ``client.ts``, hooks, ``!`` shell mode).
_HARNESS_OPENING = ("<session_context>", "<hook_context>", "Here is the user's editor context",
                    "Here is a summary of changes in the user's editor context", "I ran the following shell command:")
SNAPSHOT = "<state_snapshot>"  # a compression's summary (``chatCompressionService.ts``), in the person's turn
# What the @-command processor appends to a user turn: the referenced files' contents, not the person's words.
_REFERENCED_FILES = re.compile(r"\n?--- Content from referenced files ---.*?(?:--- End of content ---|\Z)", re.DOTALL)


# -- reading the two generations (pure: bytes in, conversation out) ------------------------------

@dataclass
class Conversation:
    """A session file's final state: its metadata, its messages in order, and what was skipped."""

    meta: dict = field(default_factory=dict)
    messages: list[dict] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)


def _upsert(messages: dict[str, dict], items: list, skipped: list[tuple[int, str]] | None = None) -> None:
    for n, msg in enumerate(items, 1):
        if isinstance(msg, dict) and isinstance(msg.get("id"), str):
            messages[msg["id"]] = msg  # a known id keeps its place; its content is replaced
        elif skipped is not None:
            skipped.append((n, "message without an id" if isinstance(msg, dict)
                            else f"message is {type(msg).__name__}, expected an object"))


def parse_json(data: bytes) -> Conversation:
    """An older single-object session file. Raises ``ValueError`` when it is not one (yet)."""
    try:
        obj = loads(data)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"not a complete JSON document (being rewritten?): {exc}") from None
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    raw = obj.get("messages", [])
    if not isinstance(raw, list):
        raise ValueError(f"messages is {type(raw).__name__}, expected a list")
    conv = Conversation(meta={k: v for k, v in obj.items() if k != "messages"})
    messages: dict[str, dict] = {}
    _upsert(messages, raw, conv.skipped)
    conv.messages = list(messages.values())
    return conv


def _decode_line(raw: bytes) -> tuple[object, str | None]:
    try:
        return loads(raw), None
    except orjson.JSONDecodeError as exc:
        return None, "not valid UTF-8" if "utf-8" in str(exc).lower() else "malformed JSON"


def parse_jsonl(data: bytes) -> Conversation:
    """A newer append-mostly session file, replayed: upserts, ``$set`` patches and rewinds."""
    conv = Conversation()
    messages: dict[str, dict] = {}
    live: list[str] = []  # the ids in Gemini's own order (a compression's context first): what a rewind cuts
    lines = data.split(b"\n")
    complete = len(lines) - 1  # the piece after the last newline has none yet
    for i, raw in enumerate(lines):
        line_no = i + 1
        if not raw.strip():
            continue
        obj, error = _decode_line(raw)
        if i >= complete and (error or not isinstance(obj, dict)):
            break  # a half-written last line: complete next time
        if error:
            conv.skipped.append((line_no, error))
            continue
        if not isinstance(obj, dict):
            conv.skipped.append((line_no, f"expected a JSON object, got {type(obj).__name__}"))
            continue
        if isinstance(obj.get("$rewindTo"), str):
            target = obj["$rewindTo"]
            if target in live:
                for gone in live[live.index(target):]:
                    messages.pop(gone, None)
                del live[live.index(target):]
        elif isinstance(obj.get("id"), str):
            messages[obj["id"]] = obj
            if obj["id"] not in live:
                live.append(obj["id"])
        elif isinstance(obj.get("$set"), dict):
            patch = dict(obj["$set"])
            checkpoint = patch.pop("messages", None)
            if isinstance(checkpoint, list):  # a compression's new context: what it left out or masked was said
                fresh: dict[str, dict] = {}
                _upsert(fresh, checkpoint)
                for mid, msg in fresh.items():
                    messages.setdefault(mid, msg)
                live[:] = list(fresh)
            conv.meta.update(patch)
        elif isinstance(obj.get("sessionId"), str):
            conv.meta.update(obj)  # the header (and the header of a migrated older file)
        else:
            conv.skipped.append((line_no, "neither a message, a metadata patch, a rewind nor a header"))
    conv.messages = list(messages.values())
    return conv


# -- records --------------------------------------------------------------------------------------

def _parts(content: object) -> list:
    if content is None:
        return []
    if isinstance(content, list):
        return content
    return [content]


def _text(content: object) -> str:
    """The text parts of a ``PartListUnion`` (thought parts, function calls and data left out)."""
    out = []
    for part in _parts(content):
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            out.append(part["text"])
    return "".join(out)


def _hooked(part: object) -> bool:
    """A part a hook added to the person's prompt (``client.ts``: ``<hook_context>…</hook_context>``, a part of its
    own)."""
    text = part if isinstance(part, str) else part.get("text") if isinstance(part, dict) else None
    return isinstance(text, str) and text.lstrip().startswith("<hook_context>")


def _user_text(msg: dict) -> tuple[str, list[str]]:
    """The person's words, and what hooks added to them as parts of their own (a part alone is the text itself)."""
    parts = _parts(msg.get("content"))
    hooked = [p for p in parts if _hooked(p)] if len(parts) > 1 else []
    text = _text(msg.get("displayContent")) if msg.get("displayContent") else ""
    if not text.strip():
        text = _text([p for p in parts if p not in hooked])
    if "--- Content from referenced files ---" in text:
        text = _REFERENCED_FILES.sub("", text)
    return clean_text(text), [_text([p]).strip() for p in hooked]


def _response_text(response: object) -> str:
    """``response.output`` (or ``content``, or ``error``) of a function response."""
    if isinstance(response, dict):
        known = [response[k] for k in ("output", "content", "error") if response.get(k) is not None]
        for value in known:
            text = block_text(value)
            if text.strip():
                return text
        return "" if known or not response else render_input(response)
    return block_text(response)


def result_text(call: dict) -> str:
    """Readable text of a tool call's result: function responses' output, text parts, or the display."""
    result = call.get("result")
    out: list[str] = []
    if isinstance(result, str):
        out.append(result)
    else:
        for part in _parts(result):
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("functionResponse"), dict):
                    out.append(_response_text(part["functionResponse"].get("response")))
                elif isinstance(part.get("text"), str):
                    out.append(part["text"])
    text = "\n".join(t for t in out if t.strip()).strip()
    if not text and isinstance(call.get("resultDisplay"), str):
        text = call["resultDisplay"].strip()
    return text


def _call_text(name: str, args: object) -> tuple[str, str | None]:
    if name in SHELL_TOOLS and isinstance(args, dict) and isinstance(args.get("command"), str):
        return args["command"], args["command"]
    body = render_input(args) if args not in (None, {}, "") else ""
    return (f"{name}\n{body}" if body else name), None


def _thoughts(msg: dict) -> str:
    """A gemini message's thoughts (``{subject, description}``) and thought parts, as readable text."""
    out = []
    for t in as_list(msg.get("thoughts")):
        if isinstance(t, dict):
            subject = as_str(t.get("subject")).strip()
            desc = as_str(t.get("description")).strip()
            if subject or desc:
                out.append(f"{subject}: {desc}" if subject and desc else subject or desc)
    for part in _parts(msg.get("content")):
        if isinstance(part, dict) and part.get("thought") and isinstance(part.get("text"), str):
            out.append(part["text"].strip())
    return "\n\n".join(t for t in out if t)


def _author(text: str, session: SessionInfo) -> str:
    if _HARNESS_TEXT.match(text) or text.startswith(_HARNESS_OPENING):
        return "harness"
    return "agent" if session.is_sidechain else "human"


def message_records(msg: dict, line: int, session: SessionInfo) -> list[Record]:
    """The records of one message at position ``line`` of the final message list."""
    kind = msg.get("type")
    role = _TEXT_TYPES.get(kind) if isinstance(kind, str) else None
    if role is None:
        return []  # info / error / warning notices
    base = f"{session.session_id}:{msg['id']}"
    ts = normalize_timestamp(msg.get("timestamp"))
    cwd = session.cwd
    records: list[Record] = []
    if role == "assistant":
        thoughts = _thoughts(msg)
        if thoughts:
            records.append(Record(f"{base}#r", "assistant", "reasoning", thoughts, line, ts, cwd))
    text, hooked = _user_text(msg) if role == "user" else (clean_text(_text(msg.get("content"))), [])
    if role == "user" and (text.startswith(SNAPSHOT) or (text.startswith("<scratchpad>") and SNAPSHOT in text)):
        records.append(Record(f"{base}#0", "assistant", "summary", text[text.index(SNAPSHOT):], line, ts, cwd))
        text = ""
    if text:
        records.append(Record(f"{base}#0", role, "text", text, line, ts, cwd,
                              author=_author(text, session) if role == "user" else None))
    if hooked:
        records.append(Record(f"{base}#h", "user", "text", "\n\n".join(hooked), line, ts, cwd, author="harness"))
    calls = msg.get("toolCalls") if role == "assistant" else None
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        name = as_str(call.get("name"), "tool")
        call_id = call.get("id") if isinstance(call.get("id"), str) else f"{base}#{1 + 2 * k}"
        call_ts = normalize_timestamp(call.get("timestamp")) or ts
        call_text, command = _call_text(name, call.get("args"))
        records.append(Record(f"{base}#{1 + 2 * k}", "tool", "tool", call_text, line, call_ts, cwd, name, call_id,
                              command=command))
        output = result_text(call)
        if output:
            records.append(Record(f"{base}#{2 + 2 * k}", "tool", "tool", output, line, call_ts, cwd, None, call_id,
                                  is_error=call.get("status") == "error"))
    return records


def session_of(conv: Conversation, base: SessionInfo, project_root: str | None) -> SessionInfo:
    """The session a conversation belongs to, from its metadata and where its file lives."""
    meta = conv.meta
    sid = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) and meta["sessionId"].strip() else None
    parent = base.parent_session_id
    if sid is not None and parent is None and meta.get("kind") == "subagent" and base.session_id.startswith("session-"):
        # a subagent's session-*.json beside its parent's (Gemini CLI until spring 2026), written under
        # the parent's session id: a session of its own, linked to the parent, not merged into it
        parent = sid
    if sid is None or (parent and sid == parent):
        sid = base.session_id if sid is None else f"{sid}:{base.session_id}"
    cwd = project_root
    dirs = meta.get("directories")
    if not cwd and isinstance(dirs, list) and dirs and isinstance(dirs[0], str) and dirs[0].strip():
        cwd = dirs[0]
    summary = meta.get("summary")
    title = summary.strip() if isinstance(summary, str) and summary.strip() else None
    return SessionInfo(sid, "gemini", cwd=cwd, title=title,
                       is_sidechain=base.is_sidechain or meta.get("kind") == "subagent",
                       parent_session_id=parent)


def conversation_records(conv: Conversation, session: SessionInfo) -> list[Record]:
    """The records of every message; a message that cannot be read is skipped and counted."""
    records: list[Record] = []
    for line, msg in enumerate(conv.messages, 1):
        try:
            records.extend(message_records(msg, line, session))
        except Exception as exc:  # one odd message must not cost the session
            conv.skipped.append((line, f"message {msg.get('id')}: unexpected {type(exc).__name__}: {exc}"))
    return records
