"""Hermes Agent (Nous Research) sessions: ``~/.hermes/state.db``, and a named profile's ``profiles/<name>/state.db``.

Read from hermes-agent 0.19.0 (PyPI; ``hermes_state.py``'s schema 22, ``agent/context_compressor.py``,
``agent/conversation_compression.py``, ``tools/terminal_tool.py``, ``tools/delegate_tool.py``) and a database Hermes
0.19.0 wrote itself (tests/data/hermes-generated). The home is ``$HERMES_HOME``, else ``~/.hermes``. Tables:
``sessions(id, source, parent_session_id, title, cwd, git_repo_root, started_at, ended_at, message_count,
rewind_count, ...)`` and ``messages(id, session_id, role, content, tool_calls JSON, tool_call_id, tool_name,
timestamp, reasoning, reasoning_content, active, compacted, ...)``; times are unix seconds; content holding parts is
``"\\x00json:" + JSON``. Records: prompts, replies and their reasoning, tool calls (``terminal`` as its command) and
results (``{output, exit_code, error}``: an error when it exited non-zero or says one), a compaction's summary. The
person's words are theirs; a skill's body, a scheduled job's prompt, the runtime's notices and nudges and a group's
chatter the gateway only observed are the harness's. A subagent (``source = 'subagent'``) is a session linked to the
one that delegated to it. Messages a ``/undo`` or rewind took back are kept, as the database keeps them. What Hermes
copies is stored once: a compaction writes, in one go (all at one time), copies of the turns it keeps around its
summary, and a ``/branch`` or a rotated session opens with its parent's turns written in one go. The database is
written live in WAL mode: it is opened read-only and only sessions whose rows changed are read again. A record is
keyed by what it holds (and how often that came before in the session), so rows Hermes deletes and writes again
(``/retry``) are the same records.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    as_dict,
    block_text,
    call_text,
    clean_text,
    db_stat,
    db_tables,
    json_object,
    jsontext,
    read_db_snapshot,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"terminal"}
DB = "state.db"
_PARTS = "\x00json:"
_SUMMARY_MARKERS = ("[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:")  # (``agent/context_compressor.py``)
_SUMMARY_END = "--- END OF CONTEXT SUMMARY"
_PRIOR, _PRIOR_END = "[PRIOR CONTEXT", "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]"
_SKILL = "[IMPORTANT: The user has invoked"  # (``agent/skill_commands.py``)
_SKILL_ASK = "The user has provided the following instruction alongside the skill invocation:"
_RUNTIME = ("[IMPORTANT: You are running as a scheduled cron job", "[IMPORTANT: Background process", _SKILL,
            "[Continuing toward your standing goal]", "[System:", "[System note:")
# Hermes's other tables in the file (``hermes_state.py``): one may be made before any session (``async_delegations``)
_HERMES_TABLES = {"schema_version", "session_model_usage", "state_meta", "gateway_routing", "compression_locks",
                  "async_delegations", "telegram_dm_topic_mode", "telegram_dm_topic_bindings"}
_BATCH = 0.01  # seconds: the rows one write of Hermes's (a compaction, a branch's copy) carry the same time


def default_root(env):
    if env.get("HERMES_HOME"):
        return Path(os.path.expanduser(env["HERMES_HOME"])), "env $HERMES_HOME"
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".hermes", "default"


def claims(path: Path) -> bool:
    return path.name == DB


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(path.name, "hermes")


def _str(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def content_text(raw: object) -> str:
    """A message's text: plain, or its parts' (``"\\x00json:"`` + JSON); bytes (a BLOB) as UTF-8. Pure."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return ""
    if raw.startswith(_PARTS):
        try:
            return block_text(jsontext.loads(raw[len(_PARTS):]))
        except orjson.JSONDecodeError:
            return ""
    return raw


def summary_text(text: str) -> str | None:
    """What a compaction's summary says, out of the instructions Hermes wraps it in; None if the text is none (it starts
    with Hermes's marker, after the prior reply Hermes may merge in front of it). Pure."""
    body = text.lstrip()
    if body.startswith(_PRIOR) and _PRIOR_END in body:
        body = body.split(_PRIOR_END, 1)[1].lstrip()
    if not body.startswith(_SUMMARY_MARKERS):
        return None
    heading = body.find("\n## ")
    body = body[heading + 1:] if heading >= 0 else body
    end = body.find(_SUMMARY_END)
    return (body[:end] if end >= 0 else body).strip() or None


def said_by(text: str, source: object, observed: object) -> tuple[str, str | None]:
    """A user row's words and whose they are: the person's (None: the author its session gives), or the harness's
    (a skill's body, a scheduled job's prompt, the runtime's notices and nudges, a group's chatter the gateway only
    observed). A skill call keeps the person's instruction as theirs. Pure."""
    if observed or source == "cron":
        return text, "harness"
    if text.startswith(_SKILL) and _SKILL_ASK in text:
        return text.split(_SKILL_ASK, 1)[1].strip(), None
    return text, "harness" if text.startswith(_RUNTIME) else None


def result_text(raw: str) -> tuple[str, bool]:
    """A tool result's text, and whether it failed (a command's non-zero exit, an error it states). Pure."""
    obj = json_object(raw)
    if obj is None:
        return raw.strip(), False
    if "output" in obj or "exit_code" in obj:
        error = obj.get("error")
        parts = [p for p in (obj.get("output"), error) if isinstance(p, str) and p.strip()]
        code = obj.get("exit_code")
        return "\n".join(parts).strip(), bool(error) or (isinstance(code, int) and code != 0)
    results = obj.get("results")
    if isinstance(results, list):  # (a delegation's: what each subagent reported, or why it failed)
        done = [r for r in results if isinstance(r, dict)]
        said = [next((r[k].strip() for k in ("summary", "error") if isinstance(r.get(k), str) and r[k].strip()), "")
                for r in done]
        if any(said):
            return "\n\n".join(s for s in said if s), any(r.get("status") in ("error", "timeout") for r in done)
    if isinstance(obj.get("error"), str) and obj["error"].strip():
        return obj["error"].strip(), True
    return raw.strip(), False


def copies(rows: list[dict], is_summary: list[bool], child: bool) -> set[int]:
    """The rows that copy earlier ones: a compaction writes the turns it keeps around its summary (``is_summary``) in
    one go (they carry its time), and a branch or a rotated session (``child``) opens with its parent's turns written
    in one go. Pure."""
    times = [row.get("timestamp") if isinstance(row.get("timestamp"), (int, float)) else None for row in rows]
    out: set[int] = set()
    start = 0
    for end in range(1, len(rows) + 1):
        now, before = times[end] if end < len(rows) else None, times[end - 1]
        if now is not None and before is not None and abs(now - before) <= _BATCH:
            continue
        batch = range(start, end)
        summaries = {i for i in batch if is_summary[i]}
        # (a summary Hermes merged a reply into keeps that reply's time: its copies follow it in a batch of their own)
        if len(batch) > 1 and (summaries or (child and start == 0) or (start and is_summary[start - 1])):
            out.update(i for i in batch if i not in summaries)
        start = end
    return out


def message_records(rows: list[dict], info: SessionInfo, source: object = None) -> list[Record]:
    """A session's records from its message rows, in their order; the copies Hermes writes of earlier rows are not
    records again. A record is keyed by what it holds (and how often that came before), so rows Hermes deletes and
    writes again are the same records. Pure."""
    records: list[Record] = []
    seen: dict[str, int] = {}
    texts = [content_text(row.get("content")) for row in rows]
    summaries = [summary_text(t) if row.get("role") in ("user", "assistant") else None
                 for row, t in zip(rows, texts, strict=True)]
    child = bool(info.parent_session_id) and not info.is_sidechain
    skipped = copies(rows, [s is not None for s in summaries], child)
    for pos, (row, text, summary) in enumerate(zip(rows, texts, summaries, strict=True), 1):
        if pos - 1 in skipped:
            continue
        role = row.get("role")
        digest = hashlib.blake2b(repr((role, text, row.get("tool_calls"), row.get("tool_call_id"))).encode(),
                                 digest_size=6).hexdigest()
        seen[digest] = seen.get(digest, 0) + 1
        base = f"{info.session_id}:{digest}" + (f".{seen[digest]}" if seen[digest] > 1 else "")
        ts, cwd = normalize_timestamp(row.get("timestamp")), info.cwd
        if summary is not None:
            records.append(Record(f"{base}#0", "assistant", "summary", summary, pos, ts, cwd))
            continue
        if role == "user":
            words, author = said_by(clean_text(text), source, row.get("observed"))
            if words:
                records.append(Record(f"{base}#0", "user", "text", words, pos, ts, cwd, author=author))
        elif role == "assistant":
            thought = _str(row.get("reasoning_content")) or _str(row.get("reasoning"))
            if thought:
                records.append(Record(f"{base}#r", "assistant", "reasoning", thought, pos, ts, cwd))
            said = clean_text(text)
            if said:
                records.append(Record(f"{base}#0", "assistant", "text", said, pos, ts, cwd))
            records += _calls(row.get("tool_calls"), base, pos, ts, cwd)
        elif role == "tool":
            out, failed = result_text(text)
            if out:
                records.append(Record(f"{base}#0", "tool", "tool", out, pos, ts, cwd, None,
                                      _str(row.get("tool_call_id")), is_error=failed))
    return records


def unknown_roles(rows: list[dict]) -> dict[str, int]:
    """The message roles no record is made of, counted (``status`` names them) rather than dropped unsaid; a system
    message is the prompt Hermes sent, not the conversation. Pure."""
    out: dict[str, int] = {}
    for row in rows:
        if (role := row.get("role")) not in ("user", "assistant", "tool", "system"):
            out[f"role {role}"] = out.get(f"role {role}", 0) + 1
    return out


def _calls(raw: object, base: str, pos: int, ts: str | None, cwd: str | None) -> list[Record]:
    try:
        calls = jsontext.loads(raw) if isinstance(raw, (str, bytes)) else raw
    except orjson.JSONDecodeError:
        return []
    out = []
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        call = as_dict(call)
        fn = as_dict(call.get("function"))
        name = _str(fn.get("name")) or "tool"
        text, command = call_text(name, fn.get("arguments"), SHELL_TOOLS)
        out.append(Record(f"{base}#c{k}", "tool", "tool", text, pos, ts, cwd, name,
                          _str(call.get("id")) or f"{base}#c{k}", command=command))
    return out


def _read_snapshot(conn, path: Path, state: dict) -> WholeRead:
    scols = {r[1] for r in conn.execute("PRAGMA table_info(sessions)")}
    mcols = {r[1] for r in conn.execute("PRAGMA table_info(messages)")}
    if not scols and not mcols and db_tables(conn) <= _HERMES_TABLES:  # (made before its first session, as Hermes does)
        return WholeRead([], {})
    if not {"id", "source"} <= scols or not {"session_id", "role", "content"} <= mcols:
        raise OSError("no sessions and messages tables: not a Hermes database")
    wanted = ("id", "source", "parent_session_id", "title", "cwd", "git_repo_root", "message_count", "ended_at",
              "rewind_count")
    sessions = conn.execute(f"SELECT {', '.join(c if c in scols else 'NULL' for c in wanted)} FROM sessions").fetchall()
    fields = [c for c in ("role", "content", "tool_calls", "tool_call_id", "timestamp", "reasoning",
                          "reasoning_content", "observed") if c in mcols]
    prev = as_dict(state.get("sessions"))
    top = conn.execute("SELECT max(id) FROM messages").fetchone()[0] or 0
    seen = state.get("message_id")
    touched: set[str] = set()
    if isinstance(seen, int) and top > seen:
        touched = {r[0] for r in conn.execute("SELECT DISTINCT session_id FROM messages WHERE id > ?", (seen,))}
    units, fingerprints = [], {}
    for sid, source, parent, title, cwd, repo, count, ended, rewinds in sessions:
        if not isinstance(sid, str):
            continue
        fingerprints[sid] = fp = [str(v) for v in (count, ended, title, rewinds, cwd, repo, parent)]
        if isinstance(seen, int) and top >= seen and prev.get(sid) == fp and sid not in touched:
            continue
        info = SessionInfo(sid, "hermes", cwd=_str(cwd) or _str(repo) or _parents_cwd(conn, parent, scols),
                           title=_str(title), is_sidechain=source == "subagent", parent_session_id=_str(parent))
        rows = [dict(zip(fields, r, strict=True)) for r in conn.execute(
            f"SELECT {', '.join(fields)} FROM messages WHERE session_id = ? ORDER BY id", (sid,))]
        units.append(SourceUnit(f"{path}#{sid}", info, message_records(rows, info, source),
                                unknown=unknown_roles(rows)))
    return WholeRead(units, {"sessions": fingerprints, "message_id": top})


def _parents_cwd(conn, parent: object, scols: set[str]) -> str | None:
    """A subagent's work dir, which Hermes leaves empty: its delegating session's."""
    if not isinstance(parent, str) or "cwd" not in scols:
        return None
    row = conn.execute("SELECT cwd FROM sessions WHERE id = ?", (parent,)).fetchone()
    return _str(row[0]) if row else None


def read_whole(path: Path, state: dict) -> WholeRead:
    return read_db_snapshot(path, lambda conn: _read_snapshot(conn, path, state), "Hermes")


class _HermesAgent(Agent):
    """Only the home's database and its profiles' (the home also holds caches, logs and skills)."""

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None) -> Iterator[Path]:
        if (root / DB).is_file():
            yield root / DB
        try:
            profiles = sorted(p for p in (root / "profiles").iterdir() if (p / DB).is_file())
        except OSError:
            return
        for profile in profiles:
            yield profile / DB


AGENT = _HermesAgent("hermes", default_root, claims, session_for,
                     read_whole=read_whole, stat=db_stat, shell_tools=frozenset(SHELL_TOOLS), shares_root=True)
