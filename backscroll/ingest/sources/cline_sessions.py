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
resumption and continuation prompts) are the harness's; the answer to ``ask_question`` (its result) is the
person's text, or the harness's in a run without a terminal (the CLI picks the first option). A record is keyed
by Cline's own message id: a fork (``metadata.fork``, linked to its parent) or a restored checkpoint copies its
source's messages, ids and all, so the copy is the same records, stored once. A classic task resumed in the
extension 4.x opens with its history converted, up to a "legacy conversation" warning: left out while the task
folder (read itself) is there. Where the files are is ``cline``.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    SourceUnit,
    WholeRead,
    as_dict,
    as_str,
    block_text,
    call_text,
    clean_text,
    json_object,
    jsontext,
    read_regular,
    title_line,
)
from backscroll.ingest.sources.answers import answer_text
from backscroll.types import Record, SessionInfo

SHELL_TOOL = "run_commands"  # (its input: ``commands``, a list of command lines, or the other shapes it takes)
MESSAGES = ".messages.json"
MAX_BYTES = 256 * 1024 * 1024
LEGACY_WARNING = "Warning: this is a legacy conversation"  # (after a classic task's history, converted on resume)
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


def _load(path: Path) -> dict | None:
    """A JSON document beside the messages file: None when there is none; ``OSError`` when it is caught mid-write
    (Cline rewrites it in place), so the session is read again whole next time."""
    try:
        data = jsontext.loads(read_regular(path, MAX_BYTES))
    except FileNotFoundError:
        return None
    except orjson.JSONDecodeError as exc:
        raise OSError(f"{path.name}: not a complete JSON document (being rewritten?): {exc}") from None
    return as_dict(data)


def read_session(path: Path, agent: str, task_dirs: tuple[Path, ...] = ()) -> WholeRead:
    """One messages file as a unit: the lead session, or a subagent's linked to it. ``task_dirs``: where the classic
    task folders are (a resumed task's converted history is left out while its folder is there)."""
    data = _load(path)
    if not isinstance((data or {}).get("messages"), list):
        raise OSError("expected a Cline session ({version, messages: [...]})")
    assert data is not None
    root = path.parent.name
    manifest = _load(companions(path)[0]) or {}
    lead = path.name == root + MESSAGES
    own = data.get("sessionId")
    session_id = own if isinstance(own, str) and own.strip() else session_for(path, agent).session_id
    cwd = as_str(manifest.get("cwd")) or as_str(manifest.get("workspace_root")) or None
    meta = as_dict(manifest.get("metadata")) if lead else {}
    forked_from = as_str(as_dict(meta.get("fork")).get("forkedFromSessionId")).strip() or None
    base = SessionInfo(session_id, agent, cwd=cwd, is_sidechain=not lead,
                       parent_session_id=forked_from if lead else root)
    messages = data["messages"]
    legacy = next((n for n, m in enumerate(messages) if _opens_with(m, LEGACY_WARNING)), None) if lead else None
    if legacy is not None and any((d / root).is_dir() for d in task_dirs):  # (its folder holds that history)
        messages = [None] * (legacy + 1) + messages[legacy + 1:]
    start = normalize_timestamp(manifest.get("started_at")) if lead and legacy is None else None
    # (without a terminal, the CLI answers ask_question itself, with its first option)
    answered_by = "harness" if manifest.get("interactive") is False else "human"
    records, first = message_records(messages, base, start, answered_by)
    if lead:
        records += summaries(_load(companions(path)[1]), base, len(messages))
    title = as_str(meta.get("title")).strip()
    session = SessionInfo(session_id, agent, cwd=cwd, title=title_line(title) if title else first,
                          is_sidechain=base.is_sidechain, parent_session_id=base.parent_session_id)
    return WholeRead([SourceUnit(str(path), session, records)], {})


def _opens_with(msg: object, prefix: str) -> bool:
    content = as_dict(msg).get("content")
    text = content if isinstance(content, str) else block_text(content) if isinstance(content, list) else ""
    return text.lstrip().startswith(prefix)


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
    role = as_str(as_dict(meta).get("displayRole")).strip().lower()
    if isinstance(meta, dict) and (role in ("system", "status") or isinstance(meta.get("kind"), str)):
        return True
    return text.startswith(_CONTINUATIONS)


def _result(content: object) -> tuple[str, bool]:
    """A tool result's text, and whether a built-in tool said it failed. Pure."""
    if isinstance(content, str):
        obj = json_object(content)
        if obj is not None:  # (a subagent's answer, an edit's result, a rejected call's error)
            for key in ("text", "result", "error"):
                if isinstance(obj.get(key), str) and obj[key].strip():
                    return obj[key], key == "error"
        return content, False
    if not isinstance(content, list):
        return "", False
    parts, failed = [], False
    for item in content:
        if isinstance(item, dict) and "type" not in item and ("result" in item or "error" in item):
            parts.append(as_str(item.get("result")) or as_str(item.get("error")))
            failed = failed or item.get("success") is False
        else:
            parts.append(block_text([item]))
    return "\n".join(p for p in parts if p), failed


def _call(block: dict) -> tuple[str, str | None]:
    name = as_str(block.get("name")) or "tool"
    inp = block.get("input")
    if name == SHELL_TOOL and (script := shell_script(inp)):
        return script, script
    return call_text(name, inp, {SHELL_TOOL, "execute_command"})  # (the latter: a classic task's, converted)


def shell_script(inp: object) -> str | None:
    """The command lines of a ``run_commands`` call, in any shape its input takes (a list of command lines, one, an
    executable with its ``args``, ``command``, ``cmd``: Cline's ``RunCommandsInputUnionSchema``), one per line. Pure."""
    if isinstance(inp, dict):
        inp = next((inp[k] for k in ("commands", "cmd") if k in inp), inp)
    entries = inp if isinstance(inp, list) else [inp]
    lines = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("command"), str):
            args = entry.get("args")
            argv = [entry["command"], *(a for a in args if isinstance(a, str))] if isinstance(args, list) else None
            entry = shlex.join(argv) if argv and len(argv) > 1 else entry["command"]
        if isinstance(entry, str) and entry.strip():
            lines.append(entry.strip())
    return "\n".join(lines) or None


def message_records(messages: list, session: SessionInfo, start: str | None,
                    answered_by: str = "human") -> tuple[list[Record], str | None]:
    """The records of a session's messages (in order), and the title its first prompt gives. A record is keyed by
    Cline's own message id where it has one, so a copy of a message in another session is the same record;
    ``answered_by``: who answers ``ask_question`` in this run. Pure."""
    records: list[Record] = []
    title = None
    when = start
    cwd = session.cwd
    seen: dict[str, int] = {}
    asked: dict[str, object] = {}  # ask_question's call id: its question
    for n, msg in enumerate(messages, 1):
        if not isinstance(msg, dict) or msg.get("role") not in ("user", "assistant"):
            continue
        when = normalize_timestamp(msg.get("ts")) or when
        key = as_str(msg.get("id")).strip()
        if key:  # (a fork or a restored checkpoint copies its source's messages, ids and all: stored once)
            seen[key] = seen.get(key, 0) + 1
            # (and what it says: two messages that happen to draw the same short id stay two records)
            said = hashlib.blake2b(repr((msg.get("role"), msg.get("content"))).encode(), digest_size=4).hexdigest()
            key = f"cline:{key}:{said}" + (f"~{seen[key]}" if seen[key] > 1 else "")
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        meta = as_dict(msg.get("metadata"))
        error = msg["role"] == "assistant" and as_str(meta.get("displayRole")).strip().lower() == "error"
        for i, block in enumerate(blocks if isinstance(blocks, list) else []):
            if not isinstance(block, dict):
                continue
            rid = f"{key or f'{session.session_id}:{n}'}#{i}"
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                if error:  # what the person saw instead of a reply
                    text = block["text"].strip()
                    if text:
                        records.append(Record(rid, "user", "text", text, n, when, cwd, is_error=True,
                                              author="harness"))
                elif meta.get("kind") == "compaction_summary":
                    text = as_str(meta.get("summary")).strip() or block["text"].strip()
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
                records.append(Record(rid, "tool", "tool", text, n, when, cwd, as_str(block.get("name")) or "tool",
                                      as_str(block.get("id")) or rid, command=command))
                asked.pop(as_str(block.get("id")), None)  # (a provider may use an id again, for another call)
                if block.get("name") == "ask_question" and as_str(block.get("id")):
                    asked[block["id"]] = as_dict(block.get("input")).get("question")
            elif kind == "tool_result":
                text, failed = _result(block.get("content"))
                question = asked.pop(as_str(block.get("tool_use_id")), None)
                answer = "" if failed or block.get("is_error") is True or question is None else text
                if answer.strip():  # the answer to ask_question, which only the harness writes: the person's
                    records.append(Record(rid, "user", "text", answer_text([(question, answer, None)]), n, when,
                                          cwd, author=answered_by))
                elif text.strip():
                    records.append(Record(rid, "tool", "tool", text.strip(), n, when, cwd, None,
                                          as_str(block.get("tool_use_id")) or None,
                                          is_error=block.get("is_error") is True or failed))
            elif kind in ("file", "image") and msg["role"] == "user":  # an attachment: never its bytes
                text = f"[file: {as_str(block.get('path'))}]" if kind == "file" else "[image]"
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
        text = as_str(meta.get("summary")).strip() or block_text(msg.get("content")).strip()
        if text:
            when = normalize_timestamp(meta.get("generatedAt")) or normalize_timestamp(compaction.get("updated_at"))
            # (one record: a later compaction's summary replaces it, the earlier kept as a version)
            out.append(Record(f"{session.session_id}:compaction", "assistant", "summary", text, n, when, session.cwd))
            break
    return out
