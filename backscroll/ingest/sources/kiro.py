"""The Kiro CLI's sessions (AWS; and the Amazon Q Developer CLI's, ``q chat``, before it), in three places:

* ``~/.local/share/kiro-cli/data.sqlite3`` (``amazon-q/`` for Q; ``~/Library/Application Support/…`` on macOS): a
  conversation per row, rewritten after every answer. Table ``conversations`` (Q 1.10 on: ``key`` the directory,
  ``value`` its latest conversation, which a new one in that directory overwrites) and, since Kiro 1.22,
  ``conversations_v2`` (``key``, ``conversation_id``, ``value``, ``updated_at``; a compaction continues under a new
  id). Each conversation is a unit of its own, read again when its row changes; one a row no longer holds stays stored.
* ``~/.kiro/sessions/cli/<id>.jsonl`` and ``<id>.json`` (``$KIRO_HOME``; interactive Kiro 2): the event log, read
  whole when it changes, and the session's work dir, title and parent.
* ``~/.kiro/sessions/<workspace>/<session>/messages.jsonl`` (Kiro 3, and the Kiro IDE): read by ``kiro_v3``.

What each holds is read by ``kiro_records``. A conversation resumed in another directory is a row of each; the rows
are read oldest first, so a compaction's shortened copy of the turns it keeps never stands for them.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    as_dict,
    as_str,
    db_stat,
    db_tables,
    file_stat,
    json_lines,
    kiro_v3,
    read_db_snapshot,
    read_regular,
    with_stats,
)
from backscroll.ingest.sources.jsontext import loads
from backscroll.ingest.sources.kiro_records import SHELL_TOOLS, log_records, state_records
from backscroll.types import SessionInfo

DATABASE = "data.sqlite3"
_APPS = ("kiro-cli", "amazon-q")
MAX_WHOLE_BYTES = 256 * 1024 * 1024


def default_root(env):
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if sys.platform == "darwin":
        data = home / "Library" / "Application Support"
    else:
        data = Path(os.path.expanduser(env["XDG_DATA_HOME"])) if env.get("XDG_DATA_HOME") else home / ".local/share"
    logs = [(home / ".kiro" / "sessions", "default")]
    if env.get("KIRO_HOME"):  # (besides: Kiro 2.2 and the Kiro IDE write under the home whatever it says)
        logs.insert(0, (Path(os.path.expanduser(env["KIRO_HOME"])) / "sessions", "env $KIRO_HOME"))
    return [*logs, *((data / app, "default") for app in _APPS)]


def claims(path: Path) -> bool:
    if path.name == DATABASE:
        return path.parent.name in _APPS
    return (path.suffix == ".jsonl" and path.parent.name == "cli" and path.parent.parent.name == "sessions") or \
        kiro_v3.is_log(path)


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.stem, "kiro")


def _read_log(path: Path) -> WholeRead:
    lines, skipped = json_lines(read_regular(path, MAX_WHOLE_BYTES), lambda e: isinstance(e.get("kind"), str),
                                "a log entry with a kind")
    try:
        meta = as_dict(loads(read_regular(path.with_suffix(".json"), 64 * 1024 * 1024)))
    except (OSError, ValueError):
        meta = {}
    parent = as_str(meta.get("parent_session_id")).strip() or None
    info = SessionInfo(as_str(meta.get("session_id")).strip() or path.stem, "kiro",
                       cwd=as_str(meta.get("cwd")).strip() or None, title=as_str(meta.get("title")).strip() or None,
                       parent_session_id=parent, is_sidechain=parent is not None and
                       meta.get("session_created_reason") == "subagent")
    fallback = normalize_timestamp(meta.get("created_at")) or normalize_timestamp(os.stat(path).st_mtime_ns // 10**6)
    return WholeRead([SourceUnit(str(path), info, log_records(lines, info, fallback), skipped)], {})


def _read_database(conn, path: Path, state: dict) -> WholeRead:
    tables = db_tables(conn)
    # (directory, conversation id) -> (value, updated): one conversation resumed in another directory is a row of each
    rows: dict[tuple[str, str], tuple[object, object]] = {}
    if "conversations" in tables:
        for key, value in conn.execute("SELECT key, value FROM conversations"):
            try:
                cid = as_str(as_dict(loads(value) if isinstance(value, (str, bytes)) else {}).get("conversation_id"))
            except ValueError:
                cid = ""
            rows[(as_str(key), cid or f"dir:{key}")] = (value, None)
    if "conversations_v2" in tables:
        # oldest first: a compaction's new row repeats (shortened) what the row it continues holds, under Kiro's ids
        for key, cid, value, updated in conn.execute(
                "SELECT key, conversation_id, value, updated_at FROM conversations_v2 ORDER BY created_at, rowid"):
            rows[(as_str(key), as_str(cid) or f"dir:{key}")] = (value, updated)
    prev, kept, units = as_dict(state.get("conversations")), {}, []
    saved = normalize_timestamp(db_stat(path)[1] // 1_000_000)  # (Q's first table keeps no time of a row)
    for (directory, cid), (value, updated) in rows.items():
        mark, unit = hashlib.sha1(as_str(value).encode("utf-8", "surrogatepass")).hexdigest()[:16], f"{cid}@{directory}"
        kept[unit] = mark
        if prev.get(unit) == mark:
            continue
        try:
            conversation = as_dict(loads(value)) if isinstance(value, (str, bytes)) else {}
        except ValueError:
            units.append(SourceUnit(f"{path}#{unit}", SessionInfo(cid, "kiro"), [], [(0, "a conversation not JSON")]))
            continue
        info = SessionInfo(cid, "kiro", cwd=directory or None)
        records = state_records(conversation, info, normalize_timestamp(updated) or saved)
        units.append(SourceUnit(f"{path}#{unit}", info, records))
    return WholeRead(units, {"conversations": kept})


def read_whole(path: Path, state: dict) -> WholeRead:
    if path.name == DATABASE:
        return read_db_snapshot(path, lambda conn: _read_database(conn, path, state), "Kiro CLI")
    return kiro_v3.read_log(path) if kiro_v3.is_log(path) else _read_log(path)


def _stat(path: Path) -> tuple[int, int]:
    if path.name == DATABASE:
        return db_stat(path)
    size, mtime = file_stat(path)
    beside = path.parent.parent / "session.json" if path.parent.name == "sub-executions" else \
        path.parent / "session.json" if path.name == "messages.jsonl" else path.with_suffix(".json")
    return with_stats(size, mtime, [beside])


AGENT = Agent("kiro", default_root, claims, session_for, read_whole=read_whole, stat=_stat,
              shell_tools=SHELL_TOOLS | kiro_v3.SHELL_TOOLS, shares_root=True)
