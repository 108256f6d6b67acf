"""Zed agent panel threads: ``~/.local/share/zed/threads/threads.db`` (macOS: ``~/Library/Application
Support/Zed/threads/threads.db``; ``$XDG_DATA_HOME/zed`` when set).

Format read from zed-industries/zed ``crates/agent/src/db.rs`` and ``thread.rs`` (main, Dec 2025;
thread ``version`` 0.3.0). One table ``threads(id, parent_id, folder_paths, summary, updated_at,
created_at, data_type, data)``; ``data`` is the thread as JSON, zstd-compressed (``data_type =
'zstd'``, what Zed writes) or plain (``'json'``). Decompressing needs a zstd codec: Python 3.14's
``compression.zstd``, else the ``zstandard`` or ``pyzstd`` package (``pip install zstandard``),
imported only when a compressed thread is read; without one those threads are skipped with that
reason. Threads Zed saved before 0.3.0 (the ``segments`` format) are skipped as well. Threads run
by external agents over ACP (Claude Code, Codex, Gemini) are not stored here: those agents keep
their own logs, read by their own readers.

A thread's JSON holds ``messages``, each ``{"User": {id, content}}``, ``{"Agent": {content,
tool_results}}``, ``"Resume"`` or, after a compaction, ``{"Compaction": {"Summary": s}}`` (a summary record; the
provider's own, ``ProviderNative``, is opaque). User content items are ``{"Text": s}`` (and mentions, images: not
records). Agent content items are ``{"Text": s}``, ``{"Thinking": {text}}`` (reasoning records) and
``{"ToolUse": {id, name, input}}``; ``tool_results`` maps a tool use id to ``{tool_name, is_error,
content}``, paired with its call. The shell tool is ``terminal`` (``input.command``). A subagent's
thread names its parent (``parent_id``). The cwd is the first of the thread's ``folder_paths``. The
database is written live (WAL): opened read-only, and only threads whose ``updated_at`` changed are
re-read. Zed keeps no time per message: each is dated by the save that first held it (a thread first read: its
first message by the thread's creation, the rest by its last save). Record ids are ``<thread>:<message index>#<item>``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    as_dict,
    block_text,
    clean_text,
    db_stat,
    first_seen,
    jsontext,
    read_db_snapshot,
    render_input,
    time_of,
)
from backscroll.ingest.sources.common import NO_CODEC, zstd_decompress
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"terminal"}


def default_root(env):
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if sys.platform == "darwin":  # (Zed's data dir on macOS, whatever ``$XDG_DATA_HOME`` says: ``paths::data_dir``)
        return home / "Library/Application Support/Zed/threads", "default"
    if env.get("XDG_DATA_HOME"):
        return Path(os.path.expanduser(env["XDG_DATA_HOME"])) / "zed" / "threads", "env $XDG_DATA_HOME"
    return home / ".local/share/zed/threads", "default"


def claims(path: Path) -> bool:
    return path.name == "threads.db"


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.name, "zed")


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def decode_thread(data_type: object, data: object) -> dict | str:
    """A thread's JSON object, or why it cannot be read."""
    if isinstance(data, str):
        data = data.encode()
    if not isinstance(data, bytes):
        return "thread data is not a blob"
    if data_type == "zstd":
        try:
            raw = zstd_decompress(data)
        except Exception as exc:  # every codec raises its own error type on corrupt input
            return f"thread data does not decompress: {type(exc).__name__}"
        if raw is None:
            return NO_CODEC
        data = raw
    elif data_type != "json":
        return f"unknown data type {data_type!r}"
    try:
        obj = jsontext.loads(data)
    except orjson.JSONDecodeError:
        return "thread data is not valid JSON"
    if not isinstance(obj, dict):
        return "thread data is not a JSON object"
    if "messages" in obj and isinstance(obj["messages"], list) and any(
            isinstance(m, dict) and "segments" in m for m in obj["messages"]):
        return "thread saved by an older Zed (segments format)"
    return obj


def _tool_text(value: object) -> str:
    """A tool result's content: ``{"Text": …}``, ``{"Image": …}``, or (Zed since 2026) a list of them."""
    if isinstance(value, list):
        return "\n".join(t for t in map(_tool_text, value) if t.strip())
    if isinstance(value, dict):
        if isinstance(value.get("Text"), str):
            return value["Text"]
        if "Image" in value:
            return "[image]"
    return block_text(value)


def _call(use: dict) -> tuple[str, str, str | None]:
    name = _str(use.get("name")) or "tool"
    inp = use.get("input")
    if inp in (None, {}, "") and isinstance(use.get("raw_input"), str):
        try:
            inp = jsontext.loads(use["raw_input"])
        except orjson.JSONDecodeError:
            inp = use["raw_input"]
    if name in SHELL_TOOLS and isinstance(inp, dict) and _str(inp.get("command")):
        return name, inp["command"].strip(), inp["command"]
    body = render_input(inp) if inp not in (None, "", {}, []) else ""
    return name, (f"{name}\n{body}" if body else name), None


def thread_records(thread: dict, info: SessionInfo, runs: list[list]) -> tuple[list[Record], list[tuple[int, str]]]:
    """Records of a decoded thread, each message dated when first seen (``first_seen``)."""
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    messages = thread.get("messages")
    if not isinstance(messages, list):
        return records, [(0, "thread without a messages list")]
    cwd = info.cwd
    for n, msg in enumerate(messages, 1):
        if msg == "Resume":
            continue
        if not isinstance(msg, dict) or len(msg) != 1:
            skipped.append((n, "message is not {User: ...} or {Agent: ...}"))
            continue
        (kind, body), = msg.items()
        if kind == "Compaction":  # (a summary Zed wrote, or the provider's own opaque one: not read)
            said = body.get("Summary") if isinstance(body, dict) else None
            if isinstance(said, str) and clean_text(said):
                records.append(Record(f"{info.session_id}:{n - 1}#0", "assistant", "summary", clean_text(said), n,
                                      time_of(runs, n), cwd))
            elif not (isinstance(body, dict) and "ProviderNative" in body):
                skipped.append((n, "Compaction message of a shape not known"))
            continue
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            skipped.append((n, f"{kind} message without a content list"))
            continue
        base = f"{info.session_id}:{n - 1}"
        ts = time_of(runs, n)
        if kind == "User":
            for i, item in enumerate(body["content"]):
                text = clean_text(item["Text"]) if isinstance(item, dict) and isinstance(item.get("Text"), str) else ""
                if text:
                    records.append(Record(f"{base}#{i}", "user", "text", text, n, ts, cwd))
            continue
        if kind != "Agent":
            continue
        results = as_dict(body.get("tool_results"))
        for i, item in enumerate(body["content"]):
            if not isinstance(item, dict) or len(item) != 1:
                continue
            (ikind, value), = item.items()
            rid = f"{base}#{i}"
            if ikind == "Text" and isinstance(value, str) and clean_text(value):
                records.append(Record(rid, "assistant", "text", clean_text(value), n, ts, cwd))
            elif ikind == "Thinking" and isinstance(value, dict) and _str(value.get("text")):
                records.append(Record(rid, "assistant", "reasoning", value["text"].strip(), n, ts, cwd))
            elif ikind == "ToolUse" and isinstance(value, dict):
                name, text, command = _call(value)
                call_id = _str(value.get("id"))
                records.append(Record(rid, "tool", "tool", text, n, ts, cwd, name, call_id, command=command))
                result = results.get(call_id) if call_id else None
                if isinstance(result, dict):
                    out = _tool_text(result.get("content")).strip()
                    if not out and result.get("output") is not None:
                        out = block_text(result["output"]).strip()
                    if out:
                        records.append(Record(f"{rid}.result", "tool", "tool", out, n, ts, cwd, None, call_id,
                                              is_error=result.get("is_error") is True))
    return records, skipped


def _read_snapshot(conn, path: Path, state: dict) -> WholeRead:
    cols = {r[1] for r in conn.execute("PRAGMA table_info(threads)")}
    if not {"id", "data_type", "data"} <= cols:
        raise OSError("no threads table: not a Zed threads database")
    parent = "parent_id" if "parent_id" in cols else "NULL"
    folders = "folder_paths" if "folder_paths" in cols else "NULL"
    created = "created_at" if "created_at" in cols else "NULL"
    prev, seen = as_dict(state.get("threads")), as_dict(state.get("seen"))
    units, fingerprints, dated = [], {}, {}
    for tid, summary, updated, parent_id, folder_paths, made in conn.execute(
            f"SELECT id, summary, updated_at, {parent}, {folders}, {created} FROM threads"):
        if not isinstance(tid, str):
            continue
        fp = updated if isinstance(updated, (int, float, str)) or updated is None else str(updated)
        if prev.get(tid, object()) == fp:
            fingerprints[tid] = fp
            if tid in seen:
                dated[tid] = seen[tid]
            continue
        data_type, data = conn.execute("SELECT data_type, data FROM threads WHERE id = ?", (tid,)).fetchone()
        thread = decode_thread(data_type, data)
        cwd = _str(folder_paths.split("\n")[0]) if isinstance(folder_paths, str) else None
        info = SessionInfo(tid, "zed", cwd=cwd, title=_str(summary), is_sidechain=bool(_str(parent_id)),
                           parent_session_id=_str(parent_id))
        if isinstance(thread, str):
            if thread != NO_CODEC:  # without a codec, try again once one is installed
                fingerprints[tid] = fp
            units.append(SourceUnit(f"{path}#{tid}", info, [], [(0, f"thread {tid}: {thread}")]))
            continue
        fingerprints[tid] = fp
        count = len(thread["messages"]) if isinstance(thread.get("messages"), list) else 0
        dated[tid] = first_seen(seen.get(tid), count, normalize_timestamp(made), normalize_timestamp(updated))
        records, skipped = thread_records(thread, info, dated[tid])
        units.append(SourceUnit(f"{path}#{tid}", info, records, skipped))
    return WholeRead(units, {"threads": fingerprints, "seen": dated})


def read_whole(path: Path, state: dict) -> WholeRead:
    return read_db_snapshot(path, lambda conn: _read_snapshot(conn, path, state), "Zed")


AGENT = Agent("zed", default_root, claims, session_for,
              read_whole=read_whole, stat=db_stat, shell_tools=frozenset(SHELL_TOOLS))
