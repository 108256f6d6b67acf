"""Session builders for the CLI agents that keep sessions otherwise: Cursor's SQLite chats, Copilot's event logs."""

from __future__ import annotations

import hashlib
import json
import shlex
import sqlite3
from pathlib import Path
from typing import Any

from backscroll.dates import parse_ts
from backscroll.testing.sessions import Builder, Clock, salt


class CursorCliSession:
    """A Cursor agent CLI chat: ``~/.cursor/chats/<hash>/<chat id>/store.db`` (``meta`` and ``blobs``)."""

    def __init__(self, chats: Path, cwd: str, session_id: str, start: str, step: float, title: str | None = None):
        self.session_id = session_id
        self.cwd = cwd
        self.clock = Clock(start, step)
        self.path = chats / hashlib.md5(cwd.encode()).hexdigest() / session_id / "store.db"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._n = 0
        self._tag = salt(self.path).lstrip("@")  # (a chat another builder began: message ids of our own)
        self._first = not self.path.exists()
        with sqlite3.connect(self.path) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            meta = {"agentId": session_id, "latestRootBlobId": "", "name": title or "New Agent", "mode": "default",
                    "createdAt": int(parse_ts(start).timestamp() * 1000)}
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
        conn.close()

    def blob(self, obj: dict[str, Any] | bytes) -> CursorCliSession:
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        conn = sqlite3.connect(self.path)
        with conn:
            conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (hashlib.sha256(data).hexdigest(), data))
        conn.close()
        return self

    def _id(self) -> str:
        self._n += 1
        return f"msg_{self._tag}{self._n:04d}"

    def user(self, text: str) -> CursorCliSession:
        if self._first:
            self._first = False
            text = (f"<user_info>\nOS Version: linux\nWorkspace Path: {self.cwd}\n</user_info>\n"
                    f"<user_query>\n{text}\n</user_query>")
        return self.blob({"role": "user", "id": self._id(), "content": [{"type": "text", "text": text}]})

    def assistant(self, text: str, *, reasoning: str | None = None) -> CursorCliSession:
        content: list[dict[str, Any]] = [{"type": "reasoning", "text": reasoning}] if reasoning else []
        content.append({"type": "text", "text": text})
        return self.blob({"role": "assistant", "id": self._id(), "content": content})

    def tool(self, command: str, output: str, *, is_error: bool = False) -> CursorCliSession:
        call_id = f"toolu_{self._tag}{self._n:04d}"
        self.blob({"role": "assistant", "id": self._id(), "content": [
            {"type": "tool-call", "toolCallId": call_id, "toolName": "Shell", "args": {"command": command}}]})
        return self.blob({"role": "tool", "id": self._id(), "content": [
            {"type": "tool-result", "toolCallId": call_id, "toolName": "Shell", "result": output,
             "isError": is_error}]})

    def search_echo(self, query: str, output: str, *, argv: bool = False) -> CursorCliSession:
        """As the other builders' (``argv`` as theirs: Cursor logs a command as one line, so it changes nothing)."""
        return self.tool(f"backscroll search {shlex.quote(query)}", output)


class CopilotCliSession(Builder):
    """A Copilot CLI session: ``~/.copilot/session-state/<session id>/events.jsonl``."""

    def __init__(self, state_dir: Path, cwd: str, session_id: str, start: str, step: float):
        super().__init__(state_dir / session_id / "events.jsonl", start, step)
        self.session_id = session_id
        self.cwd = cwd
        self._last: str | None = None
        self._event("session.start", {"sessionId": session_id, "version": 1, "producer": "copilot-agent",
                                      "copilotVersion": "0.0.407", "startTime": start,
                                      "context": {"cwd": cwd, "gitRoot": cwd, "branch": "main"}})

    def _event(self, kind: str, data: dict[str, Any]) -> CopilotCliSession:
        eid = self._next_id(kind)
        self.write({"type": kind, "data": data, "id": eid, "timestamp": self.clock.tick(), "parentId": self._last})
        self._last = eid
        return self

    def title(self, summary: str) -> CopilotCliSession:
        (self.path.parent / "workspace.yaml").write_text(
            f"id: {self.session_id}\ncwd: {self.cwd}\nsummary: {summary}\n")
        return self

    def user(self, text: str) -> CopilotCliSession:
        return self._event("user.message", {"content": text, "transformedContent": text, "attachments": []})

    def assistant(self, text: str, *, reasoning: str | None = None) -> CopilotCliSession:
        if reasoning:
            self._event("assistant.reasoning", {"reasoningId": self._next_id("r"), "content": reasoning})
        return self._event("assistant.message", {"messageId": self._next_id("m"), "content": text, "toolRequests": []})

    def tool(self, command: str, output: str, *, is_error: bool = False) -> CopilotCliSession:
        call_id = f"tooluse_{self._next_id('call').replace('-', '')[:20]}"
        args = {"command": command, "description": "run a command"}
        self._event("assistant.message", {"messageId": self._next_id("m"), "content": "",
                                          "toolRequests": [{"toolCallId": call_id, "name": "bash", "arguments": args,
                                                            "type": "function"}]})
        self._event("tool.execution_start", {"toolCallId": call_id, "toolName": "bash", "arguments": args})
        return self._event("tool.execution_complete", {"toolCallId": call_id, "success": not is_error,
                                                       "result": {"content": output, "detailedContent": output}})
