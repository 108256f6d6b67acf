"""Vibe 3's unified session store (``unified/<id>/``, format ``mistral.vibe.unified-session-store/v1``), read whole.

Read from mistral-vibe 3.0.3 (``mistralai_vibe_local_harness/vibe/_storage.py``, ``_projection.py``) and stores it
wrote itself. ``CURRENT`` names the published generation; its ``manifest.json`` lists the chunks
(``chunks/<sha256>.json``, JSON arrays) that make up the history the app shows, and the journal segment
(``journal/<n>.jsonl``) whose ``projection_delta`` records bring it up to date (a turn under way, or cut off by a
crash). ``meta.json`` gives the title, work dir and times; a subagent's store (``child-<hex>``) has none and names its
parent in the history's envelope.

Records, from the history's entries (each with its id and time, ``createdAt``): the person's messages (one the app
injected, ``vibe.injected``, is the harness's; a subagent's first one, its task, the agent's), the assistant's,
``reasoning``, and each ``effect`` (a tool call and its result in one entry: ``file_system.bash`` as its command, a
failed, refused or cancelled call an error, an ``ask_user_question``'s answers as the person's). Checkpoints (a
compaction's mark; its summary is only in the model's context), notices and callbacks hold nothing to store.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    call_text,
    clean_text,
    read_regular,
    render_input,
)
from backscroll.ingest.sources.answers import answer_text
from backscroll.types import Record, SessionInfo

FORMAT = "mistral.vibe.unified-session-store/v1"
# Vibe 2's shell tools (``powershell``, ``git_bash`` on Windows) and Vibe 3's, as its history names it.
SHELL_TOOLS = frozenset({"bash", "powershell", "git_bash", "file_system.bash"})
_LIMIT = 256 * 1024 * 1024
_SILENT = {"checkpoint", "notice", "callback"}


def _json(path: Path) -> object:
    return orjson.loads(read_regular(path, _LIMIT))


def store_stat(current: Path) -> tuple[int, int]:
    """A store changes in ``CURRENT`` (a generation published), its journal (a turn under way) or its ``meta.json``."""
    folder = current.parent
    size, mtime = 0, 0
    paths = [current, folder / "meta.json"]
    try:
        paths += [Path(e.path) for e in os.scandir(folder / "journal") if e.name.endswith(".jsonl")]
    except OSError:
        pass
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            continue
        size, mtime = size + st.st_size, max(mtime, st.st_mtime_ns)
    if not mtime:
        raise FileNotFoundError(current)
    return size, mtime


def history(folder: Path) -> tuple[list, dict]:
    """The store's history entries and its envelope (the session's state), the journal replayed."""
    current = as_dict(_json(folder / "CURRENT"))
    if current.get("store_format") != FORMAT:
        raise ValueError(f"store format {current.get('store_format')!r}")
    generation = folder / "generations" / as_str(current["generation"])
    manifest = as_dict(_json(generation / "manifest.json"))
    part = as_dict(manifest.get("projection_state"))
    projection = as_dict(_json(generation / as_str(part.get("path") or "projection-state.json")))
    envelope = as_dict(projection.get("snapshot"))
    entries = list(as_list(as_dict(envelope.get("history")).get("entries")))
    if part.get("chunks") is not None:
        entries = [e for digest in as_list(part["chunks"])
                   for e in as_list(_json(folder / "chunks" / f"{as_str(digest)}.json"))]
    journal = folder / as_str(as_dict(manifest.get("recovery_journal_segment")).get("path"))
    try:
        lines = read_regular(journal, _LIMIT).splitlines(keepends=True) if journal.is_file() else []
    except OSError:
        lines = []
    for line in lines:
        if not line.endswith(b"\n"):
            break  # (a torn last write: the writer ignores it too)
        record = as_dict(orjson.loads(line))
        if record.get("type") in ("projection_delta", "session_relocated"):
            entries, envelope = _apply(entries, envelope, as_list(as_dict(record.get("payload")).get("delta")))
    return entries, envelope


def _apply(entries: list, envelope: dict, ops: list) -> tuple[list, dict]:
    for op in map(as_dict, ops):
        kind = op.get("op")
        if kind == "append_entry":
            entries.append(op.get("entry"))
        elif kind == "replace_entry":
            entries = [op.get("entry") if as_dict(e).get("id") == op.get("id") else e for e in entries]
        elif kind == "remove_entry":
            entries = [e for e in entries if as_dict(e).get("id") != op.get("id")]
        elif kind == "set_history_entries":
            entries = list(as_list(op.get("entries")))
        elif kind == "set_envelope":
            envelope = as_dict(op.get("state"))
    return entries, envelope


def _text(blocks: object) -> str:
    return clean_text("\n".join(as_str(b.get("text")) for b in map(as_dict, as_list(blocks))
                                if b.get("type") == "text" and b.get("text")))


def _effect(entry: dict, key: str, ts: str | None, cwd: str | None, n: int) -> list[Record]:
    detail, state = as_dict(entry.get("detail")), as_dict(entry.get("state"))
    name = as_str(detail.get("toolName")) or as_str(entry.get("title")) or "tool"
    body, command = call_text(name, detail.get("input"), SHELL_TOOLS)
    out = [Record(key, "tool", "tool", body, n, ts, cwd, name, key, command=command)]
    output = as_dict(state.get("output"))
    made = as_dict(output.get("structured_content"))
    said = clean_text(as_str(state.get("outputText"))) or _text(output.get("content"))
    if not said and made:
        said = clean_text("\n".join(as_str(made[k]) for k in ("stdout", "stderr", "content") if made.get(k))) or \
            render_input(made)
    error = as_dict(state.get("error")) or as_dict(output.get("error"))
    if error.get("message"):
        said = f"{said}\n{as_str(error['message'])}".strip()
    elif state.get("status") == "cancelled" and state.get("reason"):
        said = f"{said}\ncancelled: {as_str(state['reason'])}".strip()
    code = made.get("returncode")
    failed = state.get("status") in ("failed", "cancelled", "skipped") or output.get("type") == "failure" or (
        isinstance(code, int) and not isinstance(code, bool) and code != 0)
    if said:
        out.append(Record(f"{key}.result", "tool", "tool", said, n, ts, cwd, None, key, is_error=failed))
    answers = [] if made.get("cancelled") is True else as_list(made.get("answers"))
    picked = answer_text((a.get("question"), a.get("answer"), None) for a in map(as_dict, answers)) \
        if name.endswith("ask_user_question") else ""
    if picked:
        out.append(Record(f"{key}.answer", "user", "text", picked, n, ts, cwd, author="human"))
    return out


def entry_records(entries: list, info: SessionInfo) -> tuple[list[Record], dict[str, int]]:
    """Records of a store's history entries, and the entry types not known. Pure."""
    out: list[Record] = []
    unknown: dict[str, int] = {}
    prompted = False
    for n, entry in enumerate(map(as_dict, entries), 1):
        kind, eid = entry.get("type"), as_str(entry.get("id")) or f"e{n}"
        key, ts = f"{info.session_id}:{eid}", normalize_timestamp(entry.get("createdAt"))
        if kind == "message":
            text, role = _text(entry.get("content")), entry.get("role")
            if role == "user" and text:
                injected = any(as_dict(as_dict(b).get("_meta")).get("vibe.injected") for b in as_list(entry["content"]))
                author = "harness" if injected else "agent" if info.is_sidechain and not prompted else "human"
                out.append(Record(f"{key}#0", "user", "text", text, n, ts, info.cwd, author=author))
                prompted = True
            elif role == "assistant" and text:
                out.append(Record(f"{key}#0", "assistant", "text", text, n, ts, info.cwd))
        elif kind == "reasoning":
            text = clean_text(as_str(entry.get("text"))) or clean_text("\n".join(map(as_str, as_list(
                entry.get("summary")))))
            if text and text != "[redacted]":
                out.append(Record(f"{key}#0", "assistant", "reasoning", text, n, ts, info.cwd))
        elif kind == "effect":
            out.extend(_effect(entry, key, ts, info.cwd, n))
        elif not (isinstance(kind, str) and kind in _SILENT):
            unknown[str(kind)] = unknown.get(str(kind), 0) + 1
    return out, unknown


def read_store(folder: Path) -> WholeRead:
    """One store: its session, whole."""
    entries, envelope = history(folder)
    session = as_dict(envelope.get("session"))
    try:
        meta = as_dict(_json(folder / "meta.json"))
    except (OSError, ValueError):
        meta = {}
    sid = as_str(meta.get("session_id")).strip() or as_str(session.get("id")).strip() or folder.name
    parent = as_str(meta.get("parent_session_id") or session.get("parentSessionId")).strip() or None
    title = as_str(meta.get("title") or session.get("title")).strip() or None
    cwd = as_str(as_dict(meta.get("environment")).get("working_directory")).strip() or None
    info = SessionInfo(sid, "vibe", cwd=cwd, title=title, parent_session_id=parent,
                       is_sidechain=sid.startswith("child-"))
    records, unknown = entry_records(entries, info)
    return WholeRead([SourceUnit(str(folder / "CURRENT"), info, records, [], unknown)], {})
