"""Vibe 3's unified session store (``unified/<id>/``, format ``mistral.vibe.unified-session-store/v1``), read whole.

Read from mistral-vibe 3.0.3 (``mistralai_vibe_local_harness/vibe/_storage.py``, ``_projection.py``) and stores it
wrote itself. ``CURRENT`` names the published generation; its ``manifest.json`` lists the chunks
(``chunks/<sha256>.json``, JSON arrays) that make up the history the app shows, and the journal segment
(``journal/<n>.jsonl``) whose ``projection_delta`` records bring it up to date (a turn under way, or cut off by a
crash). ``meta.json`` gives the title, work dir and times; a subagent's store (``child-<hex>``) has none and names its
parent in the history's envelope.

Records, from the history's entries (each with its id and time, ``createdAt``): the person's messages (one the app
injected, ``vibe.injected``, and a skill's body are the harness's; a subagent's, its parent's, the agent's), the
assistant's, ``reasoning``, and each ``effect`` (a tool call and its result in one entry: ``file_system.bash`` as its
command; a file tool's own result, whole when the store kept a large one apart; a failed, refused or cancelled call
an error; an ``ask_user_question``'s answers as the person's). What the store copied from another session (an
import, a fork) is stored with that session only. A compaction's summary is read from the model's context (the
checkpoint), where the compaction put it; checkpoints, notices and callbacks in the history hold nothing to store.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    call_text,
    clean_text,
    failed_exit,
    file_stat,
    jsontext,
    read_regular,
    render_input,
    with_stats,
)
from backscroll.ingest.sources.answers import answer_text
from backscroll.types import Record, SessionInfo

FORMAT = "mistral.vibe.unified-session-store/v1"
NEWEST_MINOR = 10  # (the store's own rule: a reader refuses a minor newer than it knows)
# Vibe 2's shell tools (``powershell``, ``git_bash`` on Windows) and Vibe 3's, as its history names it.
SHELL_TOOLS = frozenset({"bash", "powershell", "git_bash", "file_system.bash", "process.start"})
_LIMIT = 256 * 1024 * 1024
_SILENT = {"checkpoint", "notice", "callback"}
_SAVED = re.compile(r"saved to the file system under \S*?/tool-results/([\w.-]+\.json)")  # a large output's file
_SKILL = "<skill_content"  # a skill's body, added to the prompt that names it
_SUMMARY = re.compile(r"(?s)<compaction_summary>\s*(.*?)\s*</compaction_summary>")


def _json(path: Path) -> object:
    return jsontext.loads(read_regular(path, _LIMIT))


def answers(output: object) -> str:
    """The person's answers in ``ask_user_question``'s result (``{answers: [{question, answer}], cancelled}``)."""
    given = as_dict(output)
    return "" if given.get("cancelled") is True else answer_text(
        (a.get("question"), a.get("answer"), None) for a in map(as_dict, as_list(given.get("answers"))))


def meta(folder: Path) -> dict:
    """A session folder's ``meta.json`` (Vibe 2's and 3's alike), or nothing."""
    try:
        return as_dict(_json(folder / "meta.json"))
    except (OSError, ValueError):
        return {}


def store_stat(current: Path) -> tuple[int, int]:
    """A store changes in ``CURRENT`` (a generation published), its journal (a turn under way) or its ``meta.json``."""
    folder = current.parent
    size, mtime = file_stat(current)
    try:
        journal = [Path(e.path) for e in os.scandir(folder / "journal") if e.name.endswith(".jsonl")]
    except OSError:
        journal = []
    return with_stats(size, mtime, [folder / "meta.json", *journal])


def history(folder: Path) -> tuple[list, dict]:
    """The store's history entries and its envelope (the session's state), the journal replayed."""
    current = as_dict(_json(folder / "CURRENT"))
    minor = current.get("store_format_minor", 0)
    if current.get("store_format") != FORMAT or not isinstance(minor, int) or minor > NEWEST_MINOR:
        raise ValueError(f"store format {current.get('store_format')!r}, minor {minor!r}")
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
    lines = read_regular(journal, _LIMIT).splitlines(keepends=True) if journal.is_file() else []
    for line in lines:
        if not line.endswith(b"\n"):
            break  # (a torn last write: the writer ignores it too)
        record = as_dict(jsontext.loads(line))
        payload = as_dict(record.get("payload"))
        if record.get("type") in ("projection_delta", "session_relocated"):
            entries, envelope = _apply(entries, envelope, as_list(payload.get("delta")))
        elif record.get("type") == "projection_advanced":  # (a whole snapshot: stores of minor 1)
            envelope = as_dict(payload.get("snapshot"))
            entries = list(as_list(as_dict(envelope.get("history")).get("entries")))
    runtime = as_str(as_dict(manifest.get("runtime_state")).get("path"))
    try:
        state = as_dict(_json(generation / runtime)) if runtime else {}
    except (OSError, ValueError):
        state = {}
    return entries, {**envelope, "runtime": state, "summaries": _summaries(folder, as_dict(manifest.get("checkpoint")))}


def _summaries(folder: Path, checkpoint: dict) -> list[str]:
    """The summaries in the model's context (``<compaction_summary>``, which a compaction injects as a prompt): the
    history the app shows marks a compaction, without its text."""
    try:
        context = [m for digest in as_list(checkpoint.get("chunks"))
                   for m in as_list(_json(folder / "chunks" / f"{as_str(digest)}.json"))]
    except (OSError, ValueError):
        return []
    said = [_text(as_dict(as_dict(m).get("message")).get("content")) for m in context
            if as_dict(m).get("source") == "injection"]
    return [clean_text(found.group(1)) for text in said if (found := _SUMMARY.search(text))]


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


def _saved(folder: Path | None, said: str) -> dict:
    """The whole of a large output the store kept apart (``tool-results/<tool>-<call>.json``), named in its excerpt."""
    found = _SAVED.search(said[:2000])
    if found is None or folder is None:
        return {}
    try:
        return as_dict(_json(folder / "tool-results" / found.group(1)))
    except (OSError, ValueError):
        return {}


def _effect(entry: dict, key: str, ts: str | None, cwd: str | None, n: int, folder: Path | None) -> list[Record]:
    detail, state = as_dict(entry.get("detail")), as_dict(entry.get("state"))
    name = as_str(detail.get("toolName")) or as_str(entry.get("title")) or "tool"
    body, command = call_text(name, detail.get("input"), SHELL_TOOLS)
    out = [Record(key, "tool", "tool", body, n, ts, cwd, name, key, command=command)]
    output = as_dict(state.get("output"))
    structured = as_dict(output.get("structured_content"))
    said = clean_text(as_str(state.get("outputText"))) or _text(output.get("content"))
    made = structured or _saved(folder, said)
    # A file tool's own result, not what the model was shown instead (a hook's AGENTS.md, a large output's excerpt)
    plain = clean_text("\n".join(as_str(made[k]) for k in ("stdout", "stderr", "content") if made.get(k)))
    if plain and (name.startswith("file_system.") or not said or not structured):
        said = plain
    elif not said and made:
        said = render_input(made)
    error = as_dict(state.get("error")) or as_dict(output.get("error"))
    if error.get("message"):
        said = f"{said}\n{as_str(error['message'])}".strip()
    elif state.get("status") == "cancelled" and state.get("reason"):
        said = f"{said}\ncancelled: {as_str(state['reason'])}".strip()
    failed = state.get("status") in ("failed", "cancelled", "skipped") or output.get("type") == "failure" or \
        failed_exit(made.get("returncode"))
    if said:
        out.append(Record(f"{key}.result", "tool", "tool", said, n, ts, cwd, None, key, is_error=failed))
    picked = answers(made) if name.endswith("ask_user_question") else ""
    if picked:
        out.append(Record(f"{key}.answer", "user", "text", picked, n, ts, cwd, author="human"))
    return out


def entry_records(entries: list, info: SessionInfo, copied: bool = False,
                  folder: Path | None = None) -> tuple[list[Record], dict[str, int]]:
    """Records of a store's history entries, and the entry types not known; ``copied``: the ``imported-<n>``
    entries are another session's, copied (an import, a fork), and stored with it. Pure but for a large output the
    store kept apart in ``folder``."""
    out: list[Record] = []
    unknown: dict[str, int] = {}
    for n, entry in enumerate(map(as_dict, entries), 1):
        kind, eid = entry.get("type"), as_str(entry.get("id")) or f"e{n}"
        if copied and eid.startswith("imported-"):
            continue
        key, ts = f"{info.session_id}:{eid}", normalize_timestamp(entry.get("createdAt"))
        if kind == "message":
            blocks = as_list(entry.get("content"))
            skills = [b for b in blocks if as_str(as_dict(b).get("text")).lstrip().startswith(_SKILL)]
            text, role = _text([b for b in blocks if b not in skills]), entry.get("role")
            if role == "user" and text:
                injected = any(as_dict(as_dict(b).get("_meta")).get("vibe.injected") for b in blocks)
                # (a subagent's every prompt is its parent's: its task, and what the parent sent it after)
                author = "harness" if injected else "agent" if info.is_sidechain else "human"
                out.append(Record(f"{key}#0", "user", "text", text, n, ts, info.cwd, author=author))
            if role == "user" and skills:
                out.append(Record(f"{key}#s", "user", "text", _text(skills), n, ts, info.cwd, author="harness"))
            elif role == "assistant" and text:
                out.append(Record(f"{key}#0", "assistant", "text", text, n, ts, info.cwd))
        elif kind == "reasoning":
            text = clean_text(as_str(entry.get("text"))) or clean_text("\n".join(map(as_str, as_list(
                entry.get("summary")))))
            if text and text != "[redacted]":
                out.append(Record(f"{key}#0", "assistant", "reasoning", text, n, ts, info.cwd))
        elif kind == "effect":
            out.extend(_effect(entry, key, ts, info.cwd, n, folder))
        elif not (isinstance(kind, str) and kind in _SILENT):
            unknown[str(kind)] = unknown.get(str(kind), 0) + 1
    return out, unknown


def read_store(folder: Path) -> WholeRead:
    """One store: its session, whole."""
    entries, envelope = history(folder)
    session = as_dict(envelope.get("session"))
    about_meta = meta(folder)
    sid = as_str(about_meta.get("session_id")).strip() or as_str(session.get("id")).strip() or folder.name
    parent = as_str(about_meta.get("parent_session_id") or session.get("parentSessionId")).strip() or None
    title = as_str(about_meta.get("title") or session.get("title")).strip() or None
    runtime = as_dict(envelope.get("runtime"))
    about, identity = as_dict(runtime.get("session_metadata")), as_dict(runtime.get("identity"))
    cwd = as_str(as_dict(about_meta.get("environment")).get("working_directory")).strip() or \
        as_str(about.get("cwd")).strip() or None
    info = SessionInfo(sid, "vibe", cwd=cwd, title=title, parent_session_id=parent,
                       is_sidechain=identity.get("kind") == "subagent" or sid.startswith("child-"))
    copied = bool(runtime.get("import_provenance") or about.get("external_import")) or identity.get("kind") == "fork"
    records, unknown = entry_records(entries, info, copied, folder)
    compacted = [as_dict(e) for e in entries if as_dict(e).get("type") == "checkpoint"
                 and as_dict(e).get("kind") == "compaction"]
    when = normalize_timestamp(compacted[-1].get("createdAt")) if compacted else None
    for text in as_list(envelope.get("summaries")):
        digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        records.append(Record(f"{sid}:summary-{digest}", "assistant", "summary", text, len(entries) + 1, when, cwd))
    return WholeRead([SourceUnit(str(folder / "CURRENT"), info, records, [], unknown)], {})
