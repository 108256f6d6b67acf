"""Cursor: the agent CLI's chats (``~/.cursor/chats/<hash>/<chat id>/store.db``), the editor's
composer history (``<Cursor user dir>/globalStorage/state.vscdb``) and the plain agent transcripts
both write since about Feb 2026 (``~/.cursor/projects/<slug>/agent-transcripts/``, read by
``cursor_text`` and ``cursor_transcripts``; in a project only ``agent-transcripts`` is walked). A
transcript whose conversation a database already holds (same id, with tool outputs) is not stored again.

Cursor publishes no schema; the shapes were read from public readers of these files (agentgrep's
Cursor backends, codeburn's ``docs/providers/cursor.md``, cppa-cursor-browser issue 7; Dec 2026) and
are treated defensively: anything unexpected is skipped, never fatal. Both are SQLite databases that
Cursor writes while running; they are opened read-only (``mode=ro`` URI, so a missing file is never
created) with a busy timeout, each in one snapshot, and ``stat`` counts the ``-wal`` file.

**Agent CLI** ``store.db``: ``meta(key, value)`` whose value is hex-encoded JSON (``agentId``,
``name``, ``createdAt``, ``latestRootBlobId``) and ``blobs(id, data)``, content-addressed. Message
blobs are JSON (AI SDK shape: ``{role, content}``, content text or parts ``text``, ``reasoning``,
``tool-call {toolCallId, toolName, args}``, ``tool-result {toolCallId, result}``); the others are
binary tree nodes and are skipped. Messages are read in the order they were stored, each keyed by its blob (an
assistant message's own ``id`` is "1", every one). The user's words
are the ``<user_query>`` of a user message; its ``<user_info>`` block gives the workspace path.

**Editor** ``state.vscdb``: table ``cursorDiskKV``: ``composerData:<composer id>`` (``name``,
``createdAt``, ``lastUpdatedAt``, ``fullConversationHeadersOnly: [{bubbleId, type}]`` or, in older
builds, the bubbles inline as ``conversation``) and ``bubbleId:<composer id>:<bubble id>`` (``type`` 1
user / 2 assistant, ``text``, ``thinking.text``, ``toolFormerData {name, rawArgs (else params), result,
status, toolCallId}``, ``createdAt``). Where a composer worked and whose thread it is (a subagent's is linked to
its parent, without the parent's bubbles a forked one begins with) is ``cursor_places``'s. The file state keeps
each composer's ``lastUpdatedAt``, bubble count, last bubble and place, so a sync reads again only the composers
that changed. ``run_terminal_cmd`` (and its successors) are shell calls.

This module owns finding the files and reading the databases; the messages and bubbles they hold are
turned into records by ``cursor_records``.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    _collect,
    as_dict,
    as_list,
    db_stat,
    db_tables,
    editor_user_dirs,
    file_stat,
    read_db_snapshot,
)
from backscroll.ingest.sources import cursor_places as places
from backscroll.ingest.sources.cursor_places import Link
from backscroll.ingest.sources.cursor_records import SHELL_TOOLS, _loads, _s, bubble_records, cli_messages_records
from backscroll.ingest.sources.cursor_text import transcript_read
from backscroll.ingest.sources.cursor_transcripts import is_transcript, transcript_session
from backscroll.types import Record, SessionInfo


def default_root(env):
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    roots = [(home / ".cursor" / "chats", "default"), (home / ".cursor" / "projects", "default")]
    newer = home / ".config" / "cursor" / "chats"
    if newer.is_dir():
        roots.append((newer, "default"))
    roots.append((editor_user_dirs(env, ("Cursor",))[0] / "globalStorage", "default"))
    return roots


def _is_cli(path: Path) -> bool:
    return path.name == "store.db" and path.parent.parent.parent.name == "chats"


def _is_editor(path: Path) -> bool:
    return path.name == "state.vscdb" and path.parent.name == "globalStorage"


def claims(path: Path) -> bool:
    return _is_cli(path) or _is_editor(path) or is_transcript(path)


def session_for(path: Path) -> SessionInfo:
    if is_transcript(path):
        return transcript_session(path)
    return SessionInfo(path.parent.name if _is_cli(path) else path.name, "cursor")


def stat(path: Path) -> tuple[int, int]:
    return file_stat(path) if is_transcript(path) else db_stat(path)


def _read(path: Path, read):
    return read_db_snapshot(path, read, "Cursor")


# -- the agent CLI ---------------------------------------------------------------------------------

def _meta(conn: sqlite3.Connection) -> dict:
    for _key, value in conn.execute("SELECT key, value FROM meta"):
        raw = value
        if isinstance(raw, str):
            try:
                raw = bytes.fromhex(raw)
            except ValueError:
                pass
        obj = _loads(raw)
        if isinstance(obj, dict):
            return obj
    return {}


def _read_cli(path: Path) -> WholeRead:
    def read(conn):
        meta = _meta(conn)
        messages = []
        for blob, data in conn.execute("SELECT id, data FROM blobs ORDER BY rowid"):
            obj = _loads(data)
            if isinstance(obj, dict) and isinstance(obj.get("role"), str):
                messages.append((_s(blob), obj))
        return meta, messages

    meta, messages = _read(path, read)
    sid = _s(meta.get("agentId")) or path.parent.name
    records, cwd = cli_messages_records(messages, SessionInfo(sid, "cursor"))
    created = normalize_timestamp(meta.get("createdAt"))
    records = [r if r.timestamp else Record(r.record_id, r.role, r.content_type, r.text, r.line, created, r.cwd,
                                            r.tool_name, r.tool_call_id, r.is_error, r.command) for r in records]
    title = _s(meta.get("name")).strip() or None
    return WholeRead([SourceUnit(str(path), SessionInfo(sid, "cursor", cwd=cwd, title=title), records)], {})


# -- the editor ------------------------------------------------------------------------------------

def _read_editor(path: Path, state: dict) -> WholeRead:
    prev = as_dict(state.get("composers"))

    def read(conn):
        if "cursorDiskKV" not in db_tables(conn):
            return {}, {}, {}, {}
        composers = {}
        for key, value in conn.execute("SELECT key, value FROM cursorDiskKV WHERE key LIKE 'composerData:%'"):
            obj = _loads(value)
            if isinstance(obj, dict):
                composers[key.split(":", 1)[1]] = obj
        links = places.links(composers, places.headers(conn))
        prints = {cid: _fingerprint(c, links[cid]) for cid, c in composers.items()}
        changed = {cid for cid in composers if prev.get(cid) != prints[cid]}
        bubbles: dict[str, dict[str, dict]] = {}
        for cid in sorted(changed):
            rows = conn.execute("SELECT key, value FROM cursorDiskKV WHERE key >= ? AND key < ?",
                                (f"bubbleId:{cid}:", f"bubbleId:{cid};"))
            for key, value in rows:
                obj = _loads(value)
                if isinstance(obj, dict):
                    obj.setdefault("bubbleId", key.rsplit(":", 1)[1])
                    bubbles.setdefault(cid, {})[obj["bubbleId"]] = obj
        return {cid: composers[cid] for cid in changed}, bubbles, prints, links

    changed, bubbles, fingerprints, links = _read(path, read)
    folders, by_id = places.workspaces(path.parent.parent) if changed else ({}, {})
    units = []
    for cid, comp in sorted(changed.items()):
        link = links[cid]
        own = bubbles.get(cid, {})
        inline = comp.get("conversation")
        if isinstance(inline, list) and inline:
            ordered = [b for b in inline if isinstance(b, dict)]
        else:
            heads = comp.get("fullConversationHeadersOnly")
            ordered = [own[h["bubbleId"]] for h in heads if isinstance(h, dict) and _s(h.get("bubbleId")) in own] \
                if isinstance(heads, list) else []
            if not ordered:
                ordered = sorted(own.values(), key=lambda b: (str(b.get("createdAt") or ""), b["bubbleId"]))
        while ordered and _s(ordered[0].get("bubbleId")) in link.copied:  # (stored from the parent's thread)
            ordered = ordered[1:]
        title = _s(comp.get("name")).strip() or None
        cwd = link.folder or by_id.get(link.workspace) or folders.get(cid) or folders.get(link.parent or "")
        session = SessionInfo(cid, "cursor", cwd=cwd, title=title, is_sidechain=link.subagent,
                              parent_session_id=link.parent)
        records = bubble_records(ordered, session, normalize_timestamp(comp.get("createdAt")))
        if records or prev.get(cid) is not None:
            units.append(SourceUnit(f"{path}#{cid}", session, records))
    return WholeRead(units, {"composers": fingerprints})


def _fingerprint(comp: dict, link: Link) -> list:
    """What changes when a composer does: its time, its bubbles (Cursor may leave ``lastUpdatedAt`` behind), and
    where and whose it is (a parent or a header can name it after it was first read)."""
    value = comp.get("lastUpdatedAt")
    heads = as_list(comp.get("fullConversationHeadersOnly") or comp.get("conversation"))
    last = heads[-1].get("bubbleId") if heads and isinstance(heads[-1], dict) else None
    return [value if isinstance(value, (int, float, str)) else None, len(heads),
            last if isinstance(last, str) else None, link.workspace, link.folder, link.parent, link.subagent]


def read_whole(path: Path, state: dict) -> WholeRead:
    if is_transcript(path):
        return transcript_read(path)
    return _read_cli(path) if _is_cli(path) else _read_editor(path, state)


class _CursorAgent(Agent):
    """Looks only at ``state.vscdb`` in an editor's ``globalStorage`` (not the extensions' folders) and,
    in a project of ``~/.cursor/projects``, only in its ``agent-transcripts``."""

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None):
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
            here = Path(dirpath)
            if here.name == "globalStorage":
                dirnames[:] = []
            elif here.parent.name == "projects" and here != root:
                dirnames[:] = [d for d in dirnames if d == "agent-transcripts"]
            dirnames.sort()
            for name in sorted(filenames):
                if self.claims(here / name):
                    yield here / name


AGENT = _CursorAgent("cursor", default_root, claims, session_for,
                     read_whole=read_whole, stat=stat, shell_tools=frozenset(SHELL_TOOLS), shares_root=True)
