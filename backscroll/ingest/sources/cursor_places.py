"""Where a Cursor editor composer worked and whose thread it is.

Before Cursor 3.0 each workspace database listed its composers (``workspaceStorage/<id>/state.vscdb`` key
``composer.composerData``; ``workspace.json`` names the folder). Since, a composer names its workspace itself
(``composerData.workspaceIdentifier``: ``{id, uri: {fsPath}}``), and Cursor 3.9 keeps a ``composerHeaders`` table in
the global database (``workspaceId``, ``isSubagent``, the header JSON) for new composers. A subagent's thread is a
composer of its own: its parent lists it (``subagentComposerIds``) or it names the parent
(``subagentInfo.parentComposerId``); a forked one begins with the parent's bubbles, ids kept.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote, urlparse

from backscroll.ingest.sources import as_dict, as_list, db_tables, read_db_snapshot
from backscroll.ingest.sources.cursor_records import _loads, _s


def workspaces(user_dir: Path) -> tuple[dict[str, str], dict[str, str]]:
    """Composer id -> workspace folder (the lists in every workspace database beside the global one, before Cursor
    3.0), and workspace id -> folder (``workspaceStorage/<id>/workspace.json``)."""
    out: dict[str, str] = {}
    by_id: dict[str, str] = {}
    storage = user_dir / "workspaceStorage"
    try:
        entries = sorted(os.scandir(storage), key=lambda e: e.name)
    except OSError:
        return out, by_id
    for entry in entries:
        folder = None
        data = _loads(_safe_read(Path(entry.path) / "workspace.json"))
        if isinstance(data, dict) and _s(data.get("folder")).startswith("file://"):
            folder = by_id[entry.name] = unquote(urlparse(data["folder"]).path)
        db = Path(entry.path) / "state.vscdb"
        if not folder or not db.is_file():
            continue
        try:
            row = read_db_snapshot(db, lambda c: c.execute(
                "SELECT value FROM ItemTable WHERE key = 'composer.composerData'").fetchone(), "Cursor")
        except OSError:
            continue
        listed = _loads(row[0]) if row else None
        for comp in listed.get("allComposers", []) if isinstance(listed, dict) else []:
            if isinstance(comp, dict) and _s(comp.get("composerId")):
                out[comp["composerId"]] = folder
    return out, by_id


def headers(conn: sqlite3.Connection) -> dict[str, tuple[str, bool, dict]]:
    """Cursor 3.9's ``composerHeaders`` table (new composers only): composer id -> (workspace id, a subagent's,
    the header), whichever of its columns there are."""
    if "composerHeaders" not in db_tables(conn):
        return {}
    try:
        found = conn.execute("SELECT * FROM composerHeaders")
        names = [d[0] for d in found.description]
        rows = [dict(zip(names, row, strict=True)) for row in found.fetchall()]
    except sqlite3.Error:
        return {}
    return {r["composerId"]: (_s(r.get("workspaceId")), bool(r.get("isSubagent")), as_dict(_loads(r.get("value"))))
            for r in rows if isinstance(r.get("composerId"), str)}


class Link(NamedTuple):
    """Where a composer worked and whose thread it is: the workspace id and folder Cursor 3 names, whether it is a
    subagent's, its parent, and the parent's bubbles (a forked subagent's thread begins with copies of them)."""

    workspace: str
    folder: str | None
    subagent: bool
    parent: str | None
    copied: frozenset[str]


def folder_of(where: dict) -> str | None:
    """The local folder a ``workspaceIdentifier`` names (its ``uri``: a ``file://`` string, or VS Code's JSON)."""
    uri = where.get("uri")
    if isinstance(uri, str):
        return unquote(urlparse(uri).path) or None if uri.startswith("file://") else None
    uri = as_dict(uri)
    return _s(uri.get("fsPath")) or (_s(uri.get("path")) if uri.get("scheme") == "file" else "") or None


def links(composers: dict[str, dict], header_rows: dict) -> dict[str, Link]:
    """Every composer's ``Link``."""
    parents = {sub: cid for cid, c in composers.items() for sub in as_list(c.get("subagentComposerIds"))
               if isinstance(sub, str) and sub != cid}
    own = {cid: _s(as_dict(c.get("subagentInfo")).get("parentComposerId")) or parents.get(cid)
           for cid, c in composers.items()}
    out = {}
    for cid, comp in composers.items():
        wid, subagent, head = header_rows.get(cid, ("", False, {}))
        parent = own[cid] if own[cid] != cid else None
        above = composers.get(parent or "", {})  # (a subagent's thread works in its parent's folder)
        named = [as_dict(c.get("workspaceIdentifier")) for c in (comp, head, above)]
        heads = as_list(above.get("fullConversationHeadersOnly")) if own.get(parent or "") != cid else []
        copied = frozenset(b for h in heads if isinstance(h, dict) and (b := _s(h.get("bubbleId"))))
        out[cid] = Link(wid or next((i for p in named if (i := _s(p.get("id")))), ""),
                         next((f for p in named if (f := folder_of(p))), None), subagent or parent is not None,
                         parent, copied)
    return out


def _safe_read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
