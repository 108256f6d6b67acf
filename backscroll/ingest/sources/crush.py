"""Crush (charmbracelet/crush) sessions: each project's ``.crush/crush.db``.

Format read from charmbracelet/crush at 37f36e9 (Aug 2026): ``internal/db/migrations/*.sql``,
``internal/message/content.go`` and ``message.go`` (part wrappers), ``internal/projects`` and
``internal/config/load.go``. Crush keeps one SQLite database per project, in the project's data
directory (``.crush`` by default), and lists every project it has opened, with its data directory,
in ``projects.json`` in its global data dir (``$CRUSH_GLOBAL_DATA``, else ``$XDG_DATA_HOME/crush``,
else ``~/.local/share/crush``). That global dir is the default root: its ``projects.json`` leads to
each project's database. Any other root (``[roots] crush = ["~/code"]``, ``--source crush:PATH``)
is walked for ``.crush/crush.db`` files.

Tables: ``sessions(id, parent_session_id, title, created_at, updated_at, ...)`` and
``messages(id, session_id, role, parts JSON, created_at, is_summary_message, ...)``; times are epoch
seconds. ``parts`` is a list of ``{type, data}``: ``text``; ``reasoning`` (``data.thinking``, reasoning
records); ``tool_call`` ``{id, name, input JSON text}``; ``tool_result`` ``{tool_call_id, content,
is_error}`` (in ``tool`` messages) paired with its call; ``shell_command`` (a ``!command`` the user
ran, a call and its result); ``finish`` ``{reason, message, details}``, which is where Crush keeps an
error the person saw instead of a reply (``reason: "error"``, e.g. "API Error" and the provider's
"Your organization must be verified…"), a cancel or a denied permission: harness text, an error.
Images, binaries, other finish parts and summary messages are not records. A session keeps the title
Crush created it with until one is generated; those placeholders ("New Session", "Untitled Session",
"New Agent Session", "non-interactive", ...) are no titles.
A subagent (the ``agent`` tool) is a session whose id is the tool call id and whose parent is the
calling session; the ``title-<id>`` sessions Crush uses to name a session are skipped. The session's
cwd is the project directory (the parent of ``.crush``). The database is written live in WAL mode:
it is opened read-only and only sessions whose ``updated_at`` or message rows changed are re-read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    _collect,
    as_dict,
    block_text,
    clean_text,
    db_stat,
    jsontext,
    read_db_snapshot,
    render_input,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"bash"}
# Directories a project walk never enters: they hold no Crush data and can be huge.
_PRUNE = {".git", "node_modules", ".venv", "venv", "__pycache__", "target", "dist", "build", ".cache",
          ".tox", ".mypy_cache", ".pytest_cache", "vendor"}


def default_root(env):
    if env.get("CRUSH_GLOBAL_DATA"):
        return Path(os.path.expanduser(env["CRUSH_GLOBAL_DATA"])), "env $CRUSH_GLOBAL_DATA"
    if env.get("XDG_DATA_HOME"):
        return Path(os.path.expanduser(env["XDG_DATA_HOME"])) / "crush", "env $XDG_DATA_HOME"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".local/share/crush", "default"


def claims(path: Path) -> bool:
    return path.name == "crush.db"


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.name, "crush")


def _project_dir(db: Path) -> str:
    data_dir = db.parent
    return str(data_dir.parent if data_dir.name == ".crush" else data_dir)


# Titles Crush gives a session before (or instead of) a generated one (read at 37f36e9 and v0.10.4).
PLACEHOLDER_TITLES = {"new session", "untitled session", "new agent session", "non-interactive", "fetch analysis",
                      "generate a title"}
_NOTICE_REASONS = {"error", "canceled", "permission_denied", "content_filter"}  # finishes the person was told of


def title_of(title: object) -> str | None:
    """A session's title, or None for a placeholder; "Non-interactive: PROMPT..." is its prompt."""
    text = _str(title)
    if text is None or text.lower() in PLACEHOLDER_TITLES:
        return None
    if text.startswith("Non-interactive: "):
        return text.removeprefix("Non-interactive: ").removesuffix("...").strip() or None
    return text


def _notice(data: dict) -> str | None:
    """What a finish part told the person (an error, a cancel), or None for a normal end."""
    if data.get("reason") not in _NOTICE_REASONS:
        return None
    said = [t for t in (_str(data.get("message")), _str(data.get("details"))) if t]
    if not said and data["reason"] == "content_filter":
        return "Refused: the provider's content filter stopped the reply"  # (Crush's banner says "REFUSED")
    return ": ".join(said) if said else None


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _parts(raw: object) -> list | str:
    try:
        parts = jsontext.loads(raw) if isinstance(raw, (str, bytes)) else raw
    except orjson.JSONDecodeError:
        return "parts are not valid JSON"
    return parts if isinstance(parts, list) else "parts are not a JSON list"


def _call(data: dict) -> tuple[str, str, str | None]:
    name = _str(data.get("name")) or "tool"
    inp: object = data.get("input")
    if isinstance(inp, str):
        try:
            inp = jsontext.loads(inp) if inp.strip() else None
        except orjson.JSONDecodeError:
            pass
    if name in SHELL_TOOLS and isinstance(inp, dict) and _str(inp.get("command")):
        return name, inp["command"].strip(), inp["command"]
    body = render_input(inp) if inp not in (None, "", {}, []) else ""
    return name, (f"{name}\n{body}" if body else name), None


def _message_records(mid: str, role: str, parts: list, line: int, ts: str | None, info: SessionInfo) -> list[Record]:
    records: list[Record] = []
    base = f"{info.session_id}:{mid}"
    for i, part in enumerate(parts):
        if not isinstance(part, dict) or not isinstance(part.get("data"), dict):
            continue
        kind, data, rid = part.get("type"), part["data"], f"{base}#{i}"
        if kind == "text" and role in ("user", "assistant") and isinstance(data.get("text"), str):
            text = clean_text(data["text"])
            if text:
                records.append(Record(rid, role, "text", text, line, ts, info.cwd))
        elif kind == "reasoning" and isinstance(data.get("thinking"), str) and data["thinking"].strip():
            records.append(Record(rid, "assistant", "reasoning", data["thinking"].strip(), line, ts, info.cwd))
        elif kind == "tool_call":
            name, text, command = _call(data)
            records.append(Record(rid, "tool", "tool", text, line, ts, info.cwd, name, _str(data.get("id")),
                                  command=command))
        elif kind == "tool_result":
            text = block_text(data.get("content")).strip()
            if text:
                records.append(Record(rid, "tool", "tool", text, line, ts, info.cwd, None,
                                      _str(data.get("tool_call_id")), is_error=data.get("is_error") is True))
        elif kind == "finish" and (notice := _notice(data)):
            records.append(Record(rid, "user", "text", notice, line, ts, info.cwd, is_error=True, author="harness"))
        elif kind == "shell_command" and _str(data.get("command")):
            call_id = f"shell:{mid}:{i}"
            records.append(Record(f"{rid}.0", "tool", "tool", data["command"].strip(), line, ts, info.cwd, "bash",
                                  call_id, command=data["command"]))
            output = data.get("output").strip() if isinstance(data.get("output"), str) else ""
            if output:
                code = data.get("exit_code")
                records.append(Record(f"{rid}.1", "tool", "tool", output, line, ts, info.cwd, None, call_id,
                                      is_error=isinstance(code, int) and code != 0))
    return records


def _session_unit(conn, path: Path, info: SessionInfo, summary: str) -> SourceUnit:
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    rows = conn.execute(f"SELECT id, role, parts, created_at, {summary} FROM messages WHERE session_id = ? "
                        "ORDER BY created_at, rowid", (info.session_id,)).fetchall()
    for line, (mid, role, raw, created, is_summary) in enumerate(rows, 1):
        parts = _parts(raw)
        if isinstance(parts, str):
            skipped.append((line, f"message {mid}: {parts}"))
            continue
        found = _message_records(str(mid), role, parts, line, normalize_timestamp(created), info)
        if is_summary:  # a summarised session's summary (``IsSummaryMessage``): its text, as a summary
            found = [replace(r, role="assistant", content_type="summary") for r in found if r.content_type == "text"]
        records.extend(found)
    return SourceUnit(f"{path}#{info.session_id}", info, records, skipped)


def _read_snapshot(conn, path: Path, state: dict) -> WholeRead:
    scols = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    mcols = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
    if not {"id", "title"} <= scols or not {"session_id", "parts"} <= mcols:
        raise OSError("no sessions and messages tables: not a Crush database")
    summary = "is_summary_message" if "is_summary_message" in mcols else "0"
    parent = "parent_session_id" if "parent_session_id" in scols else "NULL"
    prev = as_dict(state.get("sessions"))
    top = conn.execute("SELECT max(rowid) FROM messages").fetchone()[0] or 0
    seen = state.get("message_rowid")
    reread_all = isinstance(seen, int) and top < seen
    touched: set[str] = set()
    if isinstance(seen, int) and top > seen:
        touched = {r[0] for r in conn.execute("SELECT DISTINCT session_id FROM messages WHERE rowid > ?", (seen,))}
    cwd = _project_dir(path)
    units, fingerprints = [], {}
    for sid, title, parent_id, updated in conn.execute(f"SELECT id, title, {parent}, updated_at FROM sessions"):
        if not isinstance(sid, str) or sid.startswith("title-"):
            continue
        fingerprints[sid] = updated if isinstance(updated, (int, float, str)) or updated is None else str(updated)
        if not reread_all and prev.get(sid, object()) == fingerprints[sid] and sid not in touched:
            continue
        info = SessionInfo(sid, "crush", cwd=cwd, title=title_of(title), is_sidechain=bool(_str(parent_id)),
                           parent_session_id=_str(parent_id))
        units.append(_session_unit(conn, path, info, summary))
    return WholeRead(units, {"sessions": fingerprints, "message_rowid": top})


def read_whole(path: Path, state: dict) -> WholeRead:
    return read_db_snapshot(path, lambda conn: _read_snapshot(conn, path, state), "Crush")


class _CrushAgent(Agent):
    """Follows ``projects.json`` when the root holds one, and walks the root for ``.crush/crush.db``."""

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None) -> Iterator[Path]:
        seen: set[str] = set()
        listed = root / "projects.json"
        if listed.is_file():
            try:
                projects = jsontext.loads(listed.read_bytes()).get("projects") or []
            except (orjson.JSONDecodeError, AttributeError, OSError):
                projects = []
            for project in projects if isinstance(projects, list) else []:
                data_dir = project.get("data_dir") if isinstance(project, dict) else None
                if not isinstance(data_dir, str) or not data_dir:
                    continue
                if not os.path.isabs(data_dir) and isinstance(project.get("path"), str):
                    data_dir = os.path.join(project["path"], data_dir)
                db = Path(data_dir) / "crush.db"
                if db.is_file() and str(db) not in seen:
                    seen.add(str(db))
                    yield db
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
            dirnames[:] = sorted(d for d in dirnames if d not in _PRUNE)
            if "crush.db" in filenames:
                db = Path(dirpath, "crush.db")
                if str(db) not in seen:
                    seen.add(str(db))
                    yield db


AGENT = _CrushAgent("crush", default_root, claims, session_for,
                    read_whole=read_whole, stat=db_stat, shell_tools=frozenset(SHELL_TOOLS), shares_root=True)
