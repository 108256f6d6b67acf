"""Cline's own sessions since 4.0 (the VS Code extension 4.x and the CLI 3.x share them):
``~/.cline/data/sessions/<id>/<id>.messages.json``, a subagent's in ``<agent id>.messages.json`` beside it.

Read from cline/cline at 21cb8d2 (Aug 2026: the SDK ``sdk/packages/core``: ``services/session-data.ts``,
``session/models/session-manifest.ts``, ``session/user-run-messages.ts``, ``docs/messages-contract-v1.md``;
``sdk/packages/shared``: ``llms/messages.ts``, ``prompt/format.ts``) and files CLI 3.0.65 wrote itself
(tests/data/cline-sdk-generated). The folder is ``$CLINE_SESSION_DATA_DIR``, else ``$CLINE_DATA_DIR/sessions``,
else ``$CLINE_DIR/data/sessions``. A messages file is ``{version: 1, agent: lead|subagent|teammate, sessionId,
origin?, messages: [...], system_prompt?}``, rewritten whole (not atomically) after each reply; a message is
``{id, role: user|assistant, content: text or blocks, ts (epoch ms), metadata?}``, a block ``text``,
``thinking``, ``redacted_thinking`` (never stored), ``tool_use``, ``tool_result`` (its content text, blocks, or
the structured items of a built-in tool: ``{query, result, error?, success?}``), ``image``, ``file`` (an
attached file: a placeholder) or ``media``. The manifest beside it (``<id>.json``) gives the working directory
and the title; a compaction's summary is kept in ``<id>.compaction.json`` only (the messages file stays whole),
and is read from there. The person's prompt is wrapped (``<user_input mode="act">…</user_input>``,
``<user_command slash="x">``, a ``<mode_notice>``): stored as they typed it. Errors the person saw instead of a
reply (``displayRole: "error"``), what the runtime adds (``displayRole`` system or status, a synthetic ``kind``,
resumption and continuation prompts) are the harness's. Pure; where the files are is ``cline``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import SourceUnit, WholeRead, as_dict, block_text, call_text, clean_text, title_line
from backscroll.types import Record, SessionInfo

SHELL_TOOL = "run_commands"  # (its input: ``commands``, a list of command lines)
MESSAGES = ".messages.json"
_USER_WRAPPER = re.compile(r"</?user_input\b[^>]*>")
_COMMAND = re.compile(r"^\s*<user_command\b[^>]*\bslash=\"([^\"]+)\"[^>]*>(.*)</user_command>\s*$", re.S | re.I)
_MODE_NOTICE = re.compile(r"<mode_notice>.*?</mode_notice>", re.S)
_FILE_CONTENT = re.compile(r"<file_content path=\"([^\"]*)\">.*?(?:</file_content>|\Z)", re.S)
_CONTINUATIONS = ("[TASK RESUMPTION]", "The user approved switching to act mode. Continue with the approved plan now.",
                  "Warning: this is a legacy conversation")


def claims(path: Path) -> bool:
    """A session's messages file (named as its folder), or a subagent's beside one."""
    name, folder = path.name, path.parent.name
    if not name.endswith(MESSAGES):
        return False
    return name == folder + MESSAGES or (path.parent / (folder + MESSAGES)).is_file()


def companions(path: Path) -> tuple[Path, ...]:
    """The files whose changes a session's read depends on: its manifest and its compaction sidecar."""
    folder = path.parent
    return (folder / f"{folder.name}.json", folder / f"{folder.name}.compaction.json")


def session_for(path: Path, agent: str) -> SessionInfo:
    """The session a messages file holds, by its name: the folder's, or ``<folder>__<agent id>`` (Cline's own
    id of a subagent's session, as the file states it)."""
    root = path.parent.name
    if path.name == root + MESSAGES:
        return SessionInfo(root, agent)
    return SessionInfo(f"{root}__{path.name[:-len(MESSAGES)]}", agent, is_sidechain=True, parent_session_id=root)


def _load(path: Path) -> object:
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def read_session(path: Path, agent: str) -> WholeRead:
    """One messages file as a unit: the lead session, or a subagent's linked to it."""
    try:
        data = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:  # (Cline rewrites it in place: caught mid-write, read it next time)
        raise OSError(f"not a complete JSON document (being rewritten?): {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise OSError("expected a Cline session ({version, messages: [...]})")
    root = path.parent.name
    manifest = _load(companions(path)[0])
    manifest = manifest if isinstance(manifest, dict) else {}
    lead = path.name == root + MESSAGES
    own = data.get("sessionId")
    session_id = own if isinstance(own, str) and own.strip() else session_for(path, agent).session_id
    cwd = _str(manifest.get("cwd")) or _str(manifest.get("workspace_root")) or None
    meta = as_dict(manifest.get("metadata")) if lead else {}
    fork = as_dict(meta.get("fork"))
    forked_from = _str(fork.get("forkedFromSessionId")).strip() or None
    parent = forked_from if lead else root
    base = SessionInfo(session_id, agent, cwd=cwd, is_sidechain=not lead, parent_session_id=parent)
    # A fork opens with its parent's messages copied in: stored once, from the parent's file, while it is there.
    kept = forked_from and (path.parent.parent / forked_from / (forked_from + MESSAGES)).is_file()
    copied_until = normalize_timestamp(fork.get("forkedAt")) if kept else None
    start = normalize_timestamp(manifest.get("started_at")) if lead else None
    records, first = message_records(data["messages"], base, start, copied_until)
    if lead:
        compaction = _load(companions(path)[1])
        records += summaries(compaction, base, len(data["messages"]))
    title = _str(meta.get("title")).strip()
    session = SessionInfo(session_id, agent, cwd=cwd, title=title_line(title) if title else first,
                          is_sidechain=base.is_sidechain, parent_session_id=base.parent_session_id)
    return WholeRead([SourceUnit(str(path), session, records)], {})


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def prompt_text(text: str) -> str:
    """What the person typed, out of the wrappers Cline stores it in (``formatDisplayUserInput``). Pure."""
    command = _COMMAND.match(text)
    text = _FILE_CONTENT.sub(lambda m: f"[file: {m.group(1)}]", _MODE_NOTICE.sub("", text))
    if command:
        body = _COMMAND.match(text)
        inner = body.group(2).strip() if body else ""
        text = f"/{command.group(1)} {inner}".strip()
    return clean_text(_USER_WRAPPER.sub("", text))


def _harness(msg: dict, text: str) -> bool:
    meta = msg.get("metadata")
    if isinstance(meta, dict) and (meta.get("displayRole") in ("system", "status") or
                                   isinstance(meta.get("kind"), str)):
        return True
    return text.startswith(_CONTINUATIONS)


def _result(content: object) -> tuple[str, bool]:
    """A tool result's text, and whether a built-in tool said it failed. Pure."""
    if isinstance(content, str):
        obj = None
        if content.lstrip().startswith("{"):
            try:
                obj = orjson.loads(content)
            except orjson.JSONDecodeError:
                pass
        if isinstance(obj, dict):  # (a subagent's answer, an edit's result, a rejected call's error)
            for key in ("text", "result", "error"):
                if isinstance(obj.get(key), str) and obj[key].strip():
                    return obj[key], key == "error"
        return content, False
    if not isinstance(content, list):
        return "", False
    parts, failed = [], False
    for item in content:
        if isinstance(item, dict) and "type" not in item and ("result" in item or "error" in item):
            parts.append(_str(item.get("result")) or _str(item.get("error")))
            failed = failed or item.get("success") is False
        else:
            parts.append(block_text([item]))
    return "\n".join(p for p in parts if p), failed


def _call(block: dict) -> tuple[str, str | None]:
    name = _str(block.get("name")) or "tool"
    inp = block.get("input")
    commands = inp.get("commands") if name == SHELL_TOOL and isinstance(inp, dict) else None
    if isinstance(commands, str):
        commands = [commands]
    if isinstance(commands, list) and all(isinstance(c, str) for c in commands) and "".join(commands).strip():
        command = "\n".join(c for c in commands if c.strip())
        return command, command
    return call_text(name, inp, {SHELL_TOOL})


def message_records(messages: list, session: SessionInfo, start: str | None,
                    copied_until: str | None = None) -> tuple[list[Record], str | None]:
    """The records of a session's messages (in order), and the title its first prompt gives; messages up to
    ``copied_until`` (a fork's copy of its parent) are left out. Pure."""
    records: list[Record] = []
    title = None
    when = start
    cwd = session.cwd
    for n, msg in enumerate(messages, 1):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            continue
        when = normalize_timestamp(msg.get("ts")) or when
        if copied_until and when and when <= copied_until:
            continue
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        meta = as_dict(msg.get("metadata"))
        error = msg["role"] == "assistant" and meta.get("displayRole") == "error"
        for i, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            rid = f"{session.session_id}:{n}#{i}"
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                if error:  # what the person saw instead of a reply
                    text = block["text"].strip()
                    if text:
                        records.append(Record(rid, "user", "text", text, n, when, cwd, is_error=True,
                                              author="harness"))
                elif meta.get("kind") == "compaction_summary":
                    text = _str(meta.get("summary")).strip() or block["text"].strip()
                    if text:
                        records.append(Record(rid, "assistant", "summary", text, n, when, cwd))
                elif msg["role"] == "user":
                    text = prompt_text(block["text"])
                    if text:
                        harness = _harness(msg, text)
                        if title is None and not harness:
                            title = title_line(text)
                        records.append(Record(rid, "user", "text", text, n, when, cwd,
                                              author="harness" if harness else None))
                else:
                    text = clean_text(block["text"])
                    if text:
                        records.append(Record(rid, "assistant", "text", text, n, when, cwd))
            elif kind == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"].strip():
                records.append(Record(rid, "assistant", "reasoning", block["thinking"].strip(), n, when, cwd))
            elif kind == "tool_use":
                text, command = _call(block)
                records.append(Record(rid, "tool", "tool", text, n, when, cwd, _str(block.get("name")) or "tool",
                                      _str(block.get("id")) or rid, command=command))
            elif kind == "tool_result":
                text, failed = _result(block.get("content"))
                if text.strip():
                    records.append(Record(rid, "tool", "tool", text.strip(), n, when, cwd, None,
                                          _str(block.get("tool_use_id")) or None,
                                          is_error=block.get("is_error") is True or failed))
            elif kind in ("file", "image") and msg["role"] == "user":  # an attachment: never its bytes
                text = f"[file: {_str(block.get('path'))}]" if kind == "file" else "[image]"
                records.append(Record(rid, "user", "text", text, n, when, cwd))
    return records, title


def summaries(compaction: object, session: SessionInfo, after: int) -> list[Record]:
    """The summary a compaction left in its sidecar (``<id>.compaction.json``), numbered after the messages. Pure."""
    if not isinstance(compaction, dict) or not isinstance(compaction.get("messages"), list):
        return []
    out = []
    for n, msg in enumerate(compaction["messages"], after + 1):
        meta = msg.get("metadata") if isinstance(msg, dict) else None
        if not isinstance(meta, dict) or meta.get("kind") != "compaction_summary":
            continue
        text = _str(meta.get("summary")).strip() or block_text(msg.get("content")).strip()
        if text:
            when = normalize_timestamp(meta.get("generatedAt")) or normalize_timestamp(compaction.get("updated_at"))
            out.append(Record(f"{session.session_id}:compaction#{text_key(text)}", "assistant", "summary", text, n,
                              when, session.cwd))
    return out


def text_key(text: str) -> str:
    """A short stable key of a summary's text: a later compaction's summary is a record of its own."""
    return hashlib.sha1(text.encode()).hexdigest()[:12]
