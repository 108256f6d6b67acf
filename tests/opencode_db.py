"""An OpenCode database for the tests: its real tables (``session``, ``message``, ``part`` with JSON ``data``), in WAL
mode, written by a connection that stays open like OpenCode's own."""

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from helpers import TESTS

DATA = TESTS / "data" / "opencode"
START_MS = 1_790_000_000_000  # 2026-09-21T12:53:20Z
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# The columns of OpenCode's session.sql.ts (drizzle), as its migrations create them.
SCHEMA = """
CREATE TABLE project (
  id text PRIMARY KEY NOT NULL, worktree text NOT NULL, vcs text, name text, icon_url text, icon_color text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL
);
CREATE TABLE session (
  id text PRIMARY KEY NOT NULL,
  project_id text NOT NULL REFERENCES project(id) ON DELETE cascade,
  workspace_id text, parent_id text, slug text NOT NULL, directory text NOT NULL, path text,
  title text NOT NULL, version text NOT NULL, share_url text,
  summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  revert text, permission text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer
);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (
  id text PRIMARY KEY NOT NULL,
  session_id text NOT NULL REFERENCES session(id) ON DELETE cascade,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (
  id text PRIMARY KEY NOT NULL,
  message_id text NOT NULL REFERENCES message(id) ON DELETE cascade,
  session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
"""


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class OpenCodeDB:
    """``opencode.db`` as OpenCode writes it: WAL mode, autocommitted rows, ids that grow with time.

    The connection stays open (a live writer) until ``close()``. With ``iso_times`` the time columns
    hold ISO text instead of epoch milliseconds (both occur in the wild).
    """

    def __init__(self, path: Path, *, iso_times: bool = False, project: str = "global"):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.iso_times = iso_times
        self.now = START_MS
        self._n = 0
        self.conn = sqlite3.connect(path, isolation_level=None)
        assert self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
        self.conn.execute("PRAGMA foreign_keys=ON")
        if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'session'").fetchone():
            self.conn.executescript(SCHEMA)
        self.project = project
        self.conn.execute("INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) "
                          "VALUES (?, '/', NULL, ?, ?, '[]')", (project, self.now, self.now))

    def col_time(self, ms: int):
        return _iso(ms) if self.iso_times else ms

    def tick(self, ms: int = 1500) -> int:
        self.now += ms
        return self.now

    def new_id(self, prefix: str) -> str:
        self._n += 1
        tail = "".join(_B62[(self._n * 31 + i * 17) % 62] for i in range(14))
        return f"{prefix}_{0x9a3c10000000 + self._n * 4096:012x}{tail}"

    def session(self, title: str, directory: str = "/home/dev/shop", *, parent: "OCSession | None" = None,
                session_id: str | None = None) -> "OCSession":
        sid = session_id or self.new_id("ses")
        t = self.tick()
        self.conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, "
            "time_updated) VALUES (?, ?, ?, ?, ?, ?, '1.2.10', ?, ?)",
            (sid, self.project, parent.session_id if parent else None, f"slug-{self._n}", directory, title,
             self.col_time(t), self.col_time(t)))
        return OCSession(self, sid, directory)

    def close(self) -> None:
        self.conn.close()


class OCSession:
    def __init__(self, db: OpenCodeDB, session_id: str, directory: str):
        self.db = db
        self.session_id = session_id
        self.directory = directory
        self._last_user: str | None = None

    def touch(self) -> None:
        """What OpenCode does when a prompt starts or the session's summary changes."""
        self.db.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?",
                             (self.db.col_time(self.db.tick(10)), self.session_id))

    def _message(self, data: dict) -> str:
        mid = self.db.new_id("msg")
        t = data["time"]["created"]
        self.db.conn.execute("INSERT INTO message (id, session_id, time_created, time_updated, data) "
                             "VALUES (?, ?, ?, ?, ?)",
                             (mid, self.session_id, self.db.col_time(t), self.db.col_time(t), json.dumps(data)))
        return mid

    def part(self, message_id: str, data: dict | str) -> str:
        """A part row; ``data`` as a dict, or raw text (for malformed JSON)."""
        pid = self.db.new_id("prt")
        t = self.db.tick(200)
        raw = data if isinstance(data, str) else json.dumps(data)
        self.db.conn.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
            (pid, message_id, self.session_id, self.db.col_time(t), self.db.col_time(t), raw))
        return pid

    def user(self, text: str, *, synthetic: str | None = None, file: str | None = None) -> str:
        self.touch()
        mid = self._message({"role": "user", "time": {"created": self.db.tick()}, "agent": "build",
                             "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}})
        self.part(mid, {"type": "text", "text": text})
        if synthetic:
            self.part(mid, {"type": "text", "text": synthetic, "synthetic": True})
        if file:
            self.part(mid, {"type": "file", "mime": "text/plain", "filename": Path(file).name, "url": f"file://{file}",
                            "source": {"type": "file", "path": file, "text": {"value": "@" + Path(file).name,
                                                                               "start": 0, "end": 12}}})
        self._last_user = mid
        return mid

    def assistant(self) -> "OCTurn":
        created = self.db.tick()
        mid = self._message({
            "role": "assistant", "time": {"created": created}, "parentID": self._last_user,
            "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build", "agent": "build",
            "path": {"cwd": self.directory, "root": self.directory}, "cost": 0,
            "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
        turn = OCTurn(self, mid)
        self.part(mid, {"type": "step-start", "snapshot": "4f2a9c1e0b7d3a5c8e6f1b2d4a9c7e3f5b1d8a2c"})
        return turn


class OCTurn:
    """One assistant message and its parts, in the order OpenCode streams them."""

    def __init__(self, session: OCSession, message_id: str):
        self.s = session
        self.message_id = message_id

    def reasoning(self, text: str) -> str:
        t = self.s.db.tick()
        return self.s.part(self.message_id, {"type": "reasoning", "text": text, "time": {"start": t, "end": t + 900}})

    def text(self, text: str) -> str:
        t = self.s.db.tick()
        return self.s.part(self.message_id, {"type": "text", "text": text, "time": {"start": t, "end": t + 1200}})

    def tool(self, tool: str, inp: dict, output: str | None = None, *, status: str = "completed",
             error: str | None = None, title: str = "", metadata: dict | None = None) -> str:
        t = self.s.db.tick()
        state: dict = {"status": status, "input": inp}
        if status == "completed":
            state.update(output=output or "", title=title or tool, metadata=metadata or {},
                         time={"start": t, "end": t + 400})
        elif status == "error":
            state.update(error=error or "", time={"start": t, "end": t + 400})
        elif status == "running":
            state.update(title=title or tool, time={"start": t})
        call_id = f"toolu_01{self.s.db.new_id('c')[2:26]}"
        return self.s.part(self.message_id, {"type": "tool", "callID": call_id, "tool": tool, "state": state})

    def bash(self, command: str, output: str) -> str:
        return self.tool("bash", {"command": command, "description": "Run a command"}, output, title=command)

    def patch(self, *files: str) -> str:
        return self.s.part(self.message_id, {"type": "patch", "hash": "4f2a9c1e0b7d3a5c8e6f", "files": list(files)})

    def finish(self, reason: str = "stop") -> None:
        self.s.part(self.message_id, {"type": "step-finish", "reason": reason, "cost": 0.0042,
                                      "tokens": {"input": 4200, "output": 180, "reasoning": 0,
                                                 "cache": {"read": 8000, "write": 0}}})
        self.s.touch()


def oc_root(home) -> Path:
    return home.home / ".local" / "share" / "opencode"
