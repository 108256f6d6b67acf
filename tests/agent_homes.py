"""Put the Amp, Goose, Factory Droid, Crush, Zed, OpenHands, Hermes, Continue, OpenClaw, Mistral Vibe, Auggie and
Kiro fixtures where each agent keeps them.

File fixtures are copied from ``tests/data/<agent>``; databases are built here from the JSON rows in
``tests/data/<agent>/*.json`` with the agents' own table definitions (quoted from their sources), in
WAL mode like the agents write them. ``keep_open=True`` returns the writer connection still open.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from helpers import TESTS

DATA = TESTS / "data"

AMP_ID = "T-019a2f4c-7d1e-7b3a-9c55-2e8f61a0d4b7"
DROID_ID = "3f1b2c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
GOOSE_LEGACY_ID = "20260915_103000"
CRUSH_ID = "7c0d9e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f"
ZED_ID = "5b0e3c1a-9f2d-4e8b-a7c6-1d2e3f4a5b6c"
ZED_CHILD = "8d7c6b5a-4e3f-4a1b-9c8d-7e6f5a4b3c2d"
OH_ID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

# block/goose crates/goose/src/session/session_manager.rs, create_schema (schema version 9).
GOOSE_SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
INSERT INTO schema_version (version) VALUES (9);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
    tenant_id TEXT, user_id TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
"""

# charmbracelet/crush internal/db/migrations (initial + later ALTERs), the tables read here.
CRUSH_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0.0, updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL,
    summary_message_id TEXT, todos TEXT
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL default '[]',
    model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT,
    is_summary_message INTEGER DEFAULT 0 NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE TRIGGER update_session_message_count_on_insert AFTER INSERT ON messages
BEGIN UPDATE sessions SET message_count = message_count + 1 WHERE id = new.session_id; END;
"""

# zed-industries/zed crates/agent/src/db.rs, ThreadsDatabase::new (with its ALTERs applied).
ZED_SCHEMA = """
CREATE TABLE threads (
    id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL, data_type TEXT NOT NULL,
    data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT, created_at TEXT
);
"""

# openclaw 2026.9.6 (agent schema 23) ``src/state/openclaw-agent-schema.ts``: the four tables read, abridged to the
# columns read or required (the navigation sidecar's CHECK and the foreign keys left out).
OPENCLAW_SCHEMA = """
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL,
  updated_at INTEGER NOT NULL, created_via TEXT, parent_session_key TEXT, spawned_by TEXT, label TEXT,
  display_name TEXT
) STRICT;
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, started_at INTEGER, parent_session_key TEXT,
  spawned_by TEXT, display_name TEXT
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB,
  event_utf8_bytes INTEGER, navigation_json TEXT, PRIMARY KEY (session_id, seq)
) STRICT;
CREATE TABLE transcript_rewrite_watermarks (
  session_id TEXT NOT NULL PRIMARY KEY, generation TEXT NOT NULL, updated_at INTEGER NOT NULL
) STRICT;
"""


def _wal(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    conn.executescript(schema)
    return conn


def _done(conn: sqlite3.Connection, keep_open: bool):
    if keep_open:
        return conn
    conn.close()
    return None


def install_amp(home: Path) -> Path:
    dest = home / ".local/share/amp/threads"
    shutil.copytree(DATA / "amp/threads", dest, dirs_exist_ok=True)
    return dest / f"{AMP_ID}.json"


def install_droid(home: Path) -> Path:
    dest = home / ".factory/sessions"
    shutil.copytree(DATA / "droid/sessions", dest, dirs_exist_ok=True)
    return dest / "-home-dev-billing" / f"{DROID_ID}.jsonl"


def goose_dir(home: Path) -> Path:
    return home / ".local/share/goose/sessions"


def install_goose_legacy(home: Path) -> Path:
    dest = goose_dir(home) / f"{GOOSE_LEGACY_ID}.jsonl"
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "goose/sessions" / dest.name, dest)
    return dest


def goose_message(conn: sqlite3.Connection, m: dict) -> None:
    conn.execute("INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, metadata_json) "
                 "VALUES (?, ?, ?, ?, ?, ?)", (m["message_id"], m["session_id"], m["role"], json.dumps(m["content"]),
                                               m["created_timestamp"], json.dumps(m["metadata"])))


def install_goose_db(home: Path, keep_open: bool = False):
    rows = json.loads((DATA / "goose/sessions_db.json").read_text())
    conn = _wal(goose_dir(home) / "sessions.db", GOOSE_SCHEMA)
    for s in rows["sessions"]:
        conn.execute("INSERT INTO sessions (id, name, description, user_set_name, session_type, working_dir, "
                     "created_at, updated_at) VALUES (:id, :name, :description, :user_set_name, :session_type, "
                     ":working_dir, :created_at, :updated_at)", s)
    for m in rows["messages"]:
        goose_message(conn, m)
    return _done(conn, keep_open)


def crush_project(home: Path) -> Path:
    return home / "dev" / "notes-app"


def crush_message(conn: sqlite3.Connection, m: dict) -> None:
    conn.execute("INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, is_summary_message) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)", (m["id"], m["session_id"], m["role"], json.dumps(m["parts"]),
                                                  m["created_at"], m["created_at"], m["is_summary_message"]))


def install_crush(home: Path, keep_open: bool = False, register: bool = True):
    """The project's ``.crush/crush.db`` and, with ``register``, Crush's global ``projects.json``."""
    rows = json.loads((DATA / "crush/crush_db.json").read_text())
    project = crush_project(home)
    conn = _wal(project / ".crush" / "crush.db", CRUSH_SCHEMA)
    for s in rows["sessions"]:
        conn.execute("INSERT INTO sessions (id, parent_session_id, title, created_at, updated_at) "
                     "VALUES (:id, :parent_session_id, :title, :created_at, :updated_at)", s)
    for m in rows["messages"]:
        crush_message(conn, m)
    if register:
        listed = home / ".local/share/crush/projects.json"
        listed.parent.mkdir(parents=True, exist_ok=True)
        listed.write_text(json.dumps({"projects": [
            {"path": str(project), "data_dir": str(project / ".crush"), "last_accessed": "2026-10-07T10:00:00Z"}]}))
    return _done(conn, keep_open)


def zed_blob(thread: dict, compress: bool) -> tuple[str, bytes]:
    data = json.dumps(thread).encode()
    if not compress:
        return "json", data
    import zstandard

    return "zstd", zstandard.ZstdCompressor(level=3).compress(data)


def install_zed(home: Path, compress: bool = True, keep_open: bool = False):
    rows = json.loads((DATA / "zed/threads.json").read_text())["threads"]
    conn = _wal(home / ".local/share/zed/threads/threads.db", ZED_SCHEMA)
    for t in rows:
        data_type, data = zed_blob(t["thread"], compress)
        conn.execute("INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary, updated_at, "
                     "data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (t["id"], t["parent_id"], t["folder_paths"], "0", t["summary"], t["updated_at"], data_type,
                      data, t["created_at"]))
    return _done(conn, keep_open)


def install_openhands(home: Path) -> Path:
    dest = home / ".openhands/sessions"
    shutil.copytree(DATA / "openhands/sessions", dest, dirs_exist_ok=True)
    return dest / OH_ID


def install_hermes(home: Path) -> None:
    """The database Hermes 0.19.0 wrote (tests/data/hermes-generated), where Hermes keeps it."""
    (home / ".hermes").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(DATA / "hermes-generated" / "state.db", home / ".hermes" / "state.db")


def install_continue(home: Path) -> Path:
    """Continue's sessions and its ``sessions.json`` (the CLI's and an editor's), and a file of the 2025 CLI."""
    dest = home / ".continue"
    shutil.copytree(DATA / "continue/sessions", dest / "sessions", dirs_exist_ok=True)
    shutil.copytree(DATA / "continue/cli-sessions", dest / "cli-sessions", dirs_exist_ok=True)
    return dest / "sessions"


def openclaw_event(conn: sqlite3.Connection, e: dict, compress: bool) -> None:
    """One ``transcript_events`` row, compressed as 2026.9.6 compresses a large one when ``compress``."""
    text = json.dumps(e["event"], ensure_ascii=False)
    if compress and e["compressed"]:
        import zstandard

        packed = zstandard.ZstdCompressor(level=1, write_checksum=True).compress(text.encode())
        conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, "
                     "event_utf8_bytes, navigation_json) VALUES (?, ?, NULL, ?, ?, ?, '{}')",
                     (e["session_id"], e["seq"], e["created_at"], packed, len(text.encode())))
    else:
        conn.execute("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, ?)",
                     (e["session_id"], e["seq"], text, e["created_at"]))


def install_openclaw(home: Path, compress: bool = True, keep_open: bool = False):
    """The agent database openclaw 2026.9.6 wrote (three of its sessions, from ``tests/data/openclaw/agent.json``)."""
    rows = json.loads((DATA / "openclaw/agent.json").read_text())
    conn = _wal(home / ".openclaw/agents/main/agent/openclaw-agent.sqlite", OPENCLAW_SCHEMA)
    for table in ("session_nodes", "session_windows", "transcript_rewrite_watermarks"):
        have = {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
        cols = [c for c in rows[table][0] if c in have]
        conn.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                         [[r[c] for c in cols] for r in rows[table]])
    for e in rows["transcript_events"]:
        openclaw_event(conn, e, compress)
    return _done(conn, keep_open)


def install_clawdbot(home: Path) -> Path:
    """The transcripts openclaw 2026.7.1 wrote, in the state dir it kept before the rename."""
    dest = home / ".clawdbot/agents/main/sessions"
    shutil.copytree(DATA / "openclaw/sessions", dest, dirs_exist_ok=True)
    return dest


def install_vibe(home: Path) -> Path:
    """Sessions Mistral Vibe 2.26.1 (``session_*``) and 3.0.3 (``unified/``) wrote, where Vibe keeps them."""
    dest = home / ".vibe/logs/session"
    shutil.copytree(DATA / "vibe/session", dest, dirs_exist_ok=True)
    return dest


def install_auggie(home: Path) -> Path:
    """Auggie's sessions (built from its 0.36.0 session store), and the login beside them that is no session."""
    dest = home / ".augment/sessions"
    shutil.copytree(DATA / "auggie/sessions", dest, dirs_exist_ok=True)
    (home / ".augment/session.json").write_text('{"accessToken": "secret", "tenantURL": "https://x"}')
    return dest


# aws/amazon-q-developer-cli ``crates/chat-cli/src/database/sqlite_migrations`` 007 and (Kiro) 008.
KIRO_SCHEMA = """
CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE conversations_v2 (
    key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id)
);
"""


def install_kiro(home: Path, keep_open: bool = False):
    """The Kiro CLI's database (both tables) and an event log of its ``sessions/cli`` (``tests/data/kiro``)."""
    shutil.copytree(DATA / "kiro/sessions", home / ".kiro/sessions", dirs_exist_ok=True)
    rows = json.loads((DATA / "kiro/data.json").read_text())
    conn = _wal(home / ".local/share/kiro-cli/data.sqlite3", KIRO_SCHEMA)
    conn.executemany("INSERT INTO conversations (key, value) VALUES (?, ?)",
                     [(r["key"], json.dumps(r["value"])) for r in rows["conversations"]])
    conn.executemany("INSERT INTO conversations_v2 VALUES (?, ?, ?, ?, ?)",
                     [(r["key"], r["conversation_id"], json.dumps(r["value"]), r["created_at"], r["updated_at"])
                      for r in rows["conversations_v2"]])
    return _done(conn, keep_open)


def install_all(home: Path) -> None:
    install_hermes(home)
    install_continue(home)
    install_amp(home)
    install_droid(home)
    install_goose_legacy(home)
    install_goose_db(home)
    install_crush(home)
    install_zed(home, compress=_has_zstd())
    install_openclaw(home, compress=_has_zstd())
    install_vibe(home)
    install_auggie(home)
    install_kiro(home)
    install_openhands(home)


def _has_zstd() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True
