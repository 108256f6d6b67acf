"""Continue (continuedev/continue: the VS Code and JetBrains extension and the ``cn`` CLI) sessions:
``~/.continue/sessions/<uuid>.json`` (``$CONTINUE_GLOBAL_DIR/sessions`` when set).

Read from continuedev/continue at d0a3c0b (June 2026: ``core/util/history.ts``, ``core/index.d.ts``,
``extensions/cli/src/session.ts``) and from files ``cn`` 1.5.47 wrote. The editors and the CLI share the folder, the
schema and the writer, which rewrites a session whole on every save: a file is read whole (its records,
``continuedev_history``). ``sessions.json`` beside the sessions gives each its creation time (``dateCreated``).
CLI builds of July–August 2025 kept ``~/.continue/cli-sessions/continue-cli-<terminal>.json``, one file per
terminal holding its latest conversation: each conversation is a session of its own, and one the next overwrote
stays stored. The 2023 Python server's sessions are not read.

Continue keeps no time per message: an item is dated by the save that first held it (``first_seen``); the items a
save shares with the one before, from the start, keep their times, and what follows (new, edited, or after a
compaction) takes this save's. A session copied by ``cn --fork`` or ``/import`` is stored again under its new id.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    ContentError,
    SourceUnit,
    WholeRead,
    as_dict,
    as_list,
    as_str,
    first_seen,
    home_root,
    index_beside,
    read_regular,
)
from backscroll.ingest.sources.continuedev_history import SHELL_TOOLS, history_records, text_of
from backscroll.ingest.sources.continuedev_history import hash_of as _hash
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import SessionInfo

MAX_WHOLE_BYTES = 256 * 1024 * 1024
_UNTITLED = {"New Session", "Untitled Session", ""}
_INDEX = "sessions.json"
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def default_root(env):
    # (the 2025 CLI wrote its files under the home whatever $CONTINUE_GLOBAL_DIR said)
    return [home_root(env, "CONTINUE_GLOBAL_DIR", "sessions", ".continue/sessions"),
            home_root({k: v for k, v in env.items() if k != "CONTINUE_GLOBAL_DIR"}, "CONTINUE_GLOBAL_DIR",
                      "cli-sessions", ".continue/cli-sessions")]


def claims(path: Path) -> bool:
    """``sessions/<uuid>.json`` (another program's ``sessions`` folder holds other names) or ``continue-cli-*.json``."""
    if path.suffix != ".json":
        return False
    if path.parent.name == "cli-sessions":
        return path.name.startswith("continue-cli-")
    return path.parent.name == "sessions" and bool(_UUID.fullmatch(path.stem))


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.stem, "continue")


def _creations(entries: object) -> dict[str, object]:
    """``sessions.json``'s ``[{sessionId, dateCreated, …}]``: session id -> creation."""
    return {e["sessionId"]: e.get("dateCreated") for e in as_list(entries)
            if isinstance(e, dict) and isinstance(e.get("sessionId"), str)}


def _created(folder: Path, session_id: str) -> str | None:
    """The session's ``dateCreated`` in the folder's ``sessions.json``."""
    return normalize_timestamp((index_beside(folder / _INDEX, _creations) or {}).get(session_id))


def _cwd(value: object) -> str | None:
    """``workspaceDirectory``: a plain path (the CLI), or a URI (the editors: ``file:///…``, a remote's path)."""
    text = as_str(value).strip()
    if "://" not in text:
        return text or None
    from urllib.parse import unquote, urlparse

    try:
        path = unquote(urlparse(text).path)
    except ValueError:  # (a malformed host, "vscode-remote://[fe80::1/…")
        return text
    if len(path) > 2 and path[0] == "/" and path[2] == ":":  # file:///c:/… on Windows
        path = path[1:]
    return path or None


def _dated(history: list, state: dict, created: str | None, saved: str | None) -> tuple[list[list], list[str]]:
    """``first_seen``'s runs for ``history``, and its items' fingerprints: the items a save shares with the last one,
    from the start, keep their times; the rest (new, edited, or after a compaction) are dated by this save."""
    prints = [_hash(orjson.dumps(item, option=orjson.OPT_SORT_KEYS))[:8] for item in history]
    before = as_list(state.get("items"))
    same = 0
    while same < min(len(before), len(prints)) and before[same] == prints[same]:
        same += 1
    runs: list[list] = []
    for run in as_list(state.get("runs")):
        if not (isinstance(run, list) and len(run) == 2 and isinstance(run[0], int)) or run[0] <= 0:
            continue
        if run[0] > same:  # the run the shared items end in, cut there
            if (runs[-1][0] if runs else 0) < same:
                runs.append([same, run[1]])
            break
        runs.append(run)
    return first_seen(runs, len(history), None if state else created, saved), prints


def _units(path: Path, doc: dict) -> list[tuple[str, SessionInfo, object, str | None]]:
    """``(unit key, session, history, creation)`` of a file: a session, or a 2025 CLI file's conversation (each
    terminal's file holds its latest; one before it stays stored under its own key)."""
    if isinstance(doc.get("chatHistory"), list):
        history = doc["chatHistory"]
        first = next((text_of(m.get("content")) for m in history
                      if isinstance(m, dict) and m.get("role") == "user"), "")
        conversation = _hash(first)[:8]
        info = SessionInfo(f"{path.stem}-{conversation}", "continue")
        return [(f"{path}#{conversation}", info, history, None)]
    sid = as_str(doc.get("sessionId")).strip() or path.stem
    title = as_str(doc.get("title")).strip()
    info = SessionInfo(sid, "continue", cwd=_cwd(doc.get("workspaceDirectory")),
                       title=None if title in _UNTITLED else title)
    return [(str(path), info, doc.get("history"), _created(path.parent, sid))]


def read_whole(path: Path, state: dict) -> WholeRead:
    data = read_regular(path, MAX_WHOLE_BYTES)
    try:
        doc = loads(data)  # (an editor rewrites in place: a file caught mid-write is read again when it changes)
    except ValueError as exc:
        raise ContentError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise ContentError("not a JSON object")
    # (a 2025 CLI file says when it was saved; the editors' and today's CLI's, only their mtime)
    saved = normalize_timestamp(doc.get("timestamp")) or normalize_timestamp(os.stat(path).st_mtime_ns // 1_000_000)
    units, kept = [], {}
    for key, info, history, created in _units(path, doc):
        if not isinstance(history, list):
            reason = "a session of Continue's 2023 Python server" if "session_state" in doc else "no history list"
            units.append(SourceUnit(key, info, [], [(0, reason)]))
            continue
        before = as_dict(state.get(key))
        runs, prints = _dated(history, before, created, saved)
        records, skipped = history_records(history, info, runs)
        units.append(SourceUnit(key, info, records, skipped))
        kept[key] = {"runs": runs, "items": prints}
    return WholeRead(units, kept)


AGENT = Agent("continue", default_root, claims, session_for, read_whole=read_whole, shell_tools=SHELL_TOOLS,
              shares_root=True)
