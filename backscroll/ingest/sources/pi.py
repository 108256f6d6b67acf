"""Pi (pi-mono coding agent) sessions: ``~/.pi/agent/sessions/--<cwd>--/<timestamp>_<uuid>.jsonl``.

Owns the Pi format: finding the files (``$PI_CODING_AGENT_DIR/sessions`` when set), the session a
file belongs to, and what each line becomes. Line 1 is the ``session`` header (id, cwd, and for a
fork ``parentSession``, the parent's file path; v1 headers say ``branchedFrom``). Every other line is
a tree entry ``{type, id, parentId, timestamp}``; entries are indexed in file order, so branches the
user abandoned with ``/tree`` are searchable too. Records come from ``message`` entries: user text,
assistant text, ``toolCall`` blocks and ``toolResult`` messages (paired by tool call id), and
``bashExecution`` messages (a ``!command`` the user ran: a call and a result paired by
``bash:<entry id>``), thinking blocks (reasoning), and the ``compaction`` / ``branch_summary``
entries, the only copy of the context they replaced (a ``summary`` each). Images, extension entries
and messages, labels and model/thinking changes are not records; ``session_info`` names the session.
Entry types and message roles this module does not know are reported in ``ParsedLine.unknown``.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    as_list,
    as_str,
    clean_text,
    home_root,
    jsontext,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"bash"}
_CONTEXT_ROLES = {"custom", "hookMessage", "branchSummary", "compactionSummary"}
# Entries that hold nothing to index.
_IGNORED = {"model_change", "thinking_level_change", "custom", "custom_message", "label"}
_SUMMARIES = {"compaction", "branch_summary"}


class _Unknown(Exception):
    """A message role this module does not know."""
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.IGNORECASE)
# ``2026-03-02T13-00-00-000Z_<uuid>.jsonl``: the ISO start time with ``:`` and ``.`` made ``-``.
_FILE_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}T[0-9-]+Z?_[0-9a-f-]{36}\.jsonl$", re.IGNORECASE)


def default_root(env):
    return home_root(env, "PI_CODING_AGENT_DIR", "sessions", ".pi/agent/sessions")


def claims(path: Path) -> bool:
    """A Pi session file: the ``<time>_<uuid>.jsonl`` name, or any ``.jsonl`` in a ``--<cwd>--`` folder."""
    if path.suffix != ".jsonl":
        return False
    folder = path.parent.name
    return bool(_FILE_NAME.match(path.name)) or (len(folder) >= 4 and folder.startswith("--") and folder.endswith("--"))


def _uuid_of(name: str) -> str | None:
    m = _UUID.search(PurePath(name).stem if name.endswith(".jsonl") else name)
    return m.group(1).lower() if m else None


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(_uuid_of(path.name) or path.stem, "pi")


def _parent_id(value: str) -> str:
    """``parentSession`` is the parent's file path (an id in some builds): its session id."""
    value = value.strip()
    if "/" in value or "\\" in value or value.endswith(".jsonl"):
        name = value.replace("\\", "/").rsplit("/", 1)[-1]
        return _uuid_of(name) or PurePath(name).stem
    return value


def _header(obj: dict) -> ParsedLine:
    sid = obj.get("id")
    if not isinstance(sid, str) or not sid.strip():
        raise LineError("session header without a string id")
    updates: dict = {"session_id": sid.strip()}
    if isinstance(obj.get("cwd"), str) and obj["cwd"]:
        updates["cwd"] = obj["cwd"]
    parent = obj.get("parentSession", obj.get("branchedFrom"))
    if isinstance(parent, str) and parent.strip():
        # A fork (/fork, /tree "new session", --fork) is a conversation of its own, not a subagent.
        updates["parent_session_id"] = _parent_id(parent)
        updates["is_sidechain"] = False
    return ParsedLine([], updates)


def _arguments(raw: object) -> object:
    if isinstance(raw, str):
        try:
            return jsontext.loads(raw)
        except orjson.JSONDecodeError:
            return raw
    return raw


def _call_text(name: str, args: object, shell_tools: frozenset[str] | set[str]) -> tuple[str, str | None]:
    """(record text, shell command) of a ``toolCall``: a shell call reads as its command."""
    if name in shell_tools and isinstance(args, dict) and isinstance(args.get("command"), str):
        return args["command"], args["command"]
    body = render_input(args) if args not in (None, "", {}, []) else ""
    return (f"{name}\n{body}" if body else name), None


def _text_blocks(content: object, what: str) -> list[tuple[int, str]]:
    """``(block index, text)`` of a string or a list of content blocks (images and others dropped)."""
    if isinstance(content, str):
        return [(0, content)]
    if not isinstance(content, list):
        raise LineError(f"{what} content is {type(content).__name__}, expected text or a list of blocks")
    return [(i, b["text"]) for i, b in enumerate(content)
            if isinstance(b, dict) and b.get("type", "text") == "text" and isinstance(b.get("text"), str)]


def _message(entry: dict, line_no: int, session: SessionInfo, shell_tools: frozenset[str] | set[str]) -> list[Record]:
    message = entry.get("message")
    if not isinstance(message, dict):
        raise LineError("message entry without a message object")
    role = message.get("role")
    if not isinstance(role, str):
        raise LineError("message without a role")
    eid = entry.get("id") if isinstance(entry.get("id"), str) and entry["id"] else f"line{line_no}"  # v1: no ids
    base = f"{session.session_id}:{eid}"
    ts = normalize_timestamp(entry.get("timestamp")) or normalize_timestamp(message.get("timestamp"))
    cwd = session.cwd

    if role in ("user", "assistant"):
        content = message.get("content")
        if role == "user" or isinstance(content, str):
            blocks = _text_blocks(content, role)
        elif isinstance(content, list):
            blocks = None
        else:
            raise LineError(f"assistant content is {type(content).__name__}, expected a list of blocks")
        records: list[Record] = []
        if blocks is not None:
            for i, text in blocks:
                text = clean_text(text)
                if text:
                    records.append(Record(f"{base}#{i}", role, "text", text, line_no, ts, cwd,
                                          author="human" if role == "user" else None))
            return records
        for i, block in enumerate(as_list(content)):
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text" and isinstance(block.get("text"), str):
                text = clean_text(block["text"])
                if text:
                    records.append(Record(f"{base}#{i}", "assistant", "text", text, line_no, ts, cwd))
            elif btype == "toolCall":
                name = as_str(block.get("name")) or "tool"
                text, command = _call_text(name, _arguments(block.get("arguments")), shell_tools)
                call_id = block.get("id") if isinstance(block.get("id"), str) else None
                records.append(Record(f"{base}#{i}", "tool", "tool", text, line_no, ts, cwd, name, call_id,
                                      command=command))
            elif btype == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"].strip():
                # the readable thinking; its signature and redacted blocks are never stored
                records.append(Record(f"{base}#{i}", "assistant", "reasoning", block["thinking"].strip(), line_no,
                                      ts, cwd))
        error = message.get("errorMessage")
        if message.get("stopReason") == "error" and isinstance(error, str) and error.strip():
            # a turn the model's provider failed (``docs/session.md``): the harness's notice, as an error
            records.append(Record(f"{base}#e", "user", "text", error.strip(), line_no, ts, cwd, is_error=True,
                                  author="harness"))
        return records

    if role == "toolResult":
        call_id = message.get("toolCallId") if isinstance(message.get("toolCallId"), str) else None
        text = "\n".join(t for _i, t in _text_blocks(message.get("content"), "toolResult")).strip()
        if not text:
            return []
        return [Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, None, call_id,
                       is_error=message.get("isError") is True)]

    if role == "bashExecution":
        command = message.get("command")
        if not isinstance(command, str):
            raise LineError("bashExecution without a command string")
        if not command.strip():
            return []
        call_id = f"bash:{eid}"
        records = [Record(f"{base}#0", "tool", "tool", command, line_no, ts, cwd, "bash", call_id, command=command)]
        output = message.get("output")
        output = output.strip() if isinstance(output, str) else ""
        if output:
            code = message.get("exitCode")
            failed = message.get("cancelled") is True or (isinstance(code, int) and not isinstance(code, bool)
                                                           and code != 0)
            records.append(Record(f"{base}#1", "tool", "tool", output, line_no, ts, cwd, None, call_id,
                                  is_error=failed))
        return records

    if role in _CONTEXT_ROLES:
        # custom (hookMessage before v3), branchSummary, compactionSummary: context Pi made from entries
        # that are stored themselves
        return []
    raise _Unknown(f"message/{role}")


def parse_line(obj: object, line_no: int, session: SessionInfo,
               shell_tools: frozenset[str] | set[str] = SHELL_TOOLS) -> ParsedLine:
    """One line of a Pi session; ``shell_tools`` for a fork of Pi whose shell tool has another name."""
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise LineError("entry without a type")
    if kind == "session":
        return _header(obj)
    if kind == "message":
        try:
            return ParsedLine(_message(obj, line_no, session, shell_tools), {})
        except _Unknown as exc:
            return ParsedLine([], {}, unknown=str(exc))
    if kind in _SUMMARIES:
        summary = obj.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            return EMPTY
        eid = obj.get("id") if isinstance(obj.get("id"), str) and obj["id"] else f"line{line_no}"
        return ParsedLine([Record(f"{session.session_id}:{eid}#0", "assistant", "summary", summary.strip(), line_no,
                                  normalize_timestamp(obj.get("timestamp")), session.cwd)], {})
    if kind == "session_info":
        name = obj.get("name")
        if name is not None and not isinstance(name, str):
            raise LineError(f"session_info name is {type(name).__name__}, expected text")
        return ParsedLine([], {"title": name.strip()}) if name and name.strip() else EMPTY
    if kind in _IGNORED:
        return EMPTY
    return ParsedLine([], {}, unknown=kind)


AGENT = Agent("pi", default_root, claims, session_for, parse_line, shell_tools=frozenset(SHELL_TOOLS))
