"""Amp (Sourcegraph) threads: ``~/.local/share/amp/threads/T-<uuid>.json`` (``$XDG_DATA_HOME/amp``).

Format read from: Amp is closed source and its thread file is internal; the shape here is what the
Amp CLI and editor extension (2025-12 builds, thread ``v`` counter) write locally, as documented by
public third-party readers of that directory. Amp also keeps every thread on ampcode.com; only the
local copies are read (threads made on another machine are not on disk). Older editor builds kept
threads in VS Code ``globalStorage/sourcegraph.amp/threads3/`` with the same shape: pass that
directory with ``--source amp:PATH``.

One JSON object per thread, rewritten as it grows (read whole): ``{id, v, created, title, env:
{initial: {trees: [{uri: "file:///project"}]}}, messages: [...]}``. Messages have ``role`` (user,
assistant, info), ``content`` blocks and ``meta.sentAt`` (epoch ms). Blocks: ``text``; ``thinking``
(reasoning records); ``tool_use`` ``{id, name, input}``; and in user messages ``tool_result``
``{toolUseID, run: {status, result | progress}}`` paired with its call (status ``error``,
``cancelled`` or ``rejected-by-user`` is an error). Info
messages' summaries (after a compaction) are summary records. The shell tool is ``Bash`` (``input.cmd``) or, newer,
``shell_command`` (``input.command``); a failed run without output keeps its ``error``; an assistant message is
dated by its inference (``usage.timestamp``) when it says. Record ids are ``<thread>:<index>#<block>``.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    as_dict,
    block_text,
    clean_text,
    home_root,
    jsontext,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"Bash", "shell_command"}  # (the older tool, ``cmd``; the newer, ``command``)
_NAME = re.compile(r"^T-[0-9A-Za-z-]+\.json$")
_FAILED = {"error", "cancelled", "rejected-by-user"}


def default_root(env):
    return home_root(env, "XDG_DATA_HOME", "amp/threads", ".local/share/amp/threads")


def claims(path: Path) -> bool:
    return bool(_NAME.match(path.name))


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.stem, "amp")


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _cwd(thread: dict) -> str | None:
    initial = thread.get("env", {}).get("initial") if isinstance(thread.get("env"), dict) else None
    if not isinstance(initial, dict):
        return None
    if _str(initial.get("cwd")):
        return initial["cwd"]
    for tree in initial.get("trees") or []:
        uri = tree.get("uri") if isinstance(tree, dict) else None
        if isinstance(uri, dict):
            uri = uri.get("fsPath") or uri.get("path")
        if isinstance(uri, str) and uri:
            return unquote(uri[7:]) if uri.startswith("file://") else uri
    return None


def _call(block: dict) -> tuple[str, str, str | None]:
    name = _str(block.get("name")) or "tool"
    inp = block.get("input")
    if name in SHELL_TOOLS and isinstance(inp, dict):
        command = _str(inp.get("cmd")) or _str(inp.get("command"))
        if command:
            return name, command, command
    body = render_input(inp) if inp not in (None, "", {}, []) else ""
    return name, (f"{name}\n{body}" if body else name), None


def _result_text(run: dict) -> str:
    result = run.get("result")
    if isinstance(result, dict):
        for key in ("output", "content", "text"):
            if isinstance(result.get(key), str):
                return result[key]
    if result is not None:
        return block_text(result)
    progress = run.get("progress")
    if isinstance(progress, dict) and isinstance(progress.get("output"), str):
        said = progress["output"]
    elif isinstance(progress, list):
        said = "\n".join(p for p in progress if isinstance(p, str))
    else:
        said = progress if isinstance(progress, str) else ""
    error = run.get("error")  # a failed run: what it printed so far, then its error
    failed = _str(as_dict(error).get("message")) or _str(error) or ""
    return "\n".join(t for t in (said.strip(), failed) if t)


def _records(thread: dict, info: SessionInfo) -> tuple[list[Record], list[tuple[int, str]]]:
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    fallback = normalize_timestamp(thread.get("created"))
    messages = thread.get("messages")
    if not isinstance(messages, list):
        return records, [(0, "thread without a messages list")]
    for n, msg in enumerate(messages, 1):
        if not isinstance(msg, dict) or not isinstance(msg.get("content"), (list, str)):
            skipped.append((n, "message is not an object with content"))
            continue
        role = msg.get("role")
        mid = msg.get("messageId") if isinstance(msg.get("messageId"), (int, str)) else n - 1
        if role == "info":  # a thread's summary after compaction: ``{"type": "summary", "summary": {"summary"}}``
            records += [Record(f"{info.session_id}:{mid}#{i}", "assistant", "summary",
                               clean_text(b["summary"]["summary"]), n, fallback, info.cwd)
                        for i, b in enumerate(msg["content"]) if isinstance(b, dict) and b.get("type") == "summary"
                        and isinstance(b.get("summary"), dict) and isinstance(b["summary"].get("summary"), str)
                        and clean_text(b["summary"]["summary"])]
        if role not in ("user", "assistant"):
            continue
        content = msg["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        meta = as_dict(msg.get("meta"))
        # An assistant message is dated by its inference (``usage.timestamp``), else by the message before it.
        ts = normalize_timestamp(meta.get("sentAt")) \
            or normalize_timestamp(as_dict(msg.get("usage")).get("timestamp")) or fallback
        fallback = ts
        base = f"{info.session_id}:{mid}"
        for i, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            kind, rid = block.get("type"), f"{base}#{i}"
            if kind == "text" and isinstance(block.get("text"), str):
                text = clean_text(block["text"])
                if text:
                    records.append(Record(rid, role, "text", text, n, ts, info.cwd))
            elif kind == "thinking" and role == "assistant" and isinstance(block.get("thinking"), str):
                if block["thinking"].strip():
                    records.append(Record(rid, "assistant", "reasoning", block["thinking"].strip(), n, ts, info.cwd))
            elif kind == "tool_use" and role == "assistant":
                name, text, command = _call(block)
                records.append(Record(rid, "tool", "tool", text, n, ts, info.cwd, name, _str(block.get("id")),
                                      command=command))
            elif kind == "tool_result":
                run = as_dict(block.get("run"))
                text = _result_text(run).strip() or block_text(block.get("content")).strip()
                call_id = _str(block.get("toolUseID")) or _str(block.get("tool_use_id"))
                if text:
                    records.append(Record(rid, "tool", "tool", text, n, ts, info.cwd, None, call_id,
                                          is_error=run.get("status") in _FAILED or block.get("is_error") is True))
    return records, skipped


def read_whole(path: Path, state: dict) -> WholeRead:
    try:
        thread = jsontext.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        # Amp rewrites the file in place; a half-written one is read again when it changes.
        raise OSError("Amp thread file is not valid JSON (being rewritten?)") from None
    if not isinstance(thread, dict):
        raise OSError("Amp thread file does not hold a JSON object")
    info = SessionInfo(_str(thread.get("id")) or path.stem, "amp", cwd=_cwd(thread), title=_str(thread.get("title")))
    records, skipped = _records(thread, info)
    return WholeRead([SourceUnit(str(path), info, records, skipped)], {})


AGENT = Agent("amp", default_root, claims, session_for, read_whole=read_whole, shell_tools=frozenset(SHELL_TOOLS))
