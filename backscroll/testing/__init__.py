"""pytest plugin: build agent sessions on disk, index them, and pin what search recalls.

Registered through the ``pytest11`` entry point, so any project that installs backscroll gets the
fixtures ``backscroll_home``, ``session_builder``, ``backscroll_index``, ``backscroll_search`` and
``assert_recalled``. The builders write the agents' real on-disk layouts (Claude Code projects
and subagent files, Codex rollouts), so what is tested is what users' machines hold.

    def test_we_remember_the_queue_decision(session_builder, assert_recalled):
        s = session_builder.claude(project="shop")
        s.user("which queue should we use?")
        s.assistant("Postgres with SKIP LOCKED: we already run Postgres.")
        assert_recalled("queue decision", "SKIP LOCKED")

A project that has backscroll installed but does not want these fixtures turns the plugin off:
``-p no:backscroll`` (command line, or ``addopts``) does not load it at all; ``backscroll_plugin =
false`` in the pytest configuration (``[tool.pytest.ini_options]`` or ``pytest.ini``) keeps the
names listed but makes any use of them an error that says so, and nothing else of the plugin runs.

It also provides ``FakeEmbedder``, a deterministic stand-in for the embedding model: with
``BACKSCROLL_TEST_EMBEDDER=fake`` the fixtures select it (``BACKSCROLL_EMBEDDER=fake``), and a
backscroll subprocess started with ``BACKSCROLL_EMBEDDER=fake`` loads it from here on its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import uuid as uuidlib
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest

from backscroll.dates import format_ts, parse_ts

_SCRUBBED_ENV = ("BACKSCROLL_HOME", "BACKSCROLL_CONFIG", "BACKSCROLL_EMBED", "BACKSCROLL_REDACT",
                 "BACKSCROLL_SESSION_ID", "BACKSCROLL_EMBEDDER", "BACKSCROLL_LOCK_WAIT",
                 "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_HOME",
                 "OPENCODE_DATA_DIR", "PI_CODING_AGENT_DIR", "XDG_DATA_HOME",
                 "OMP_CODING_AGENT_DIR", "KIMI_SHARE_DIR", "COPILOT_HOME", "CLINE_DATA_DIR", "CLINE_DIR",
                 "GOOSE_PATH_ROOT", "CRUSH_GLOBAL_DATA", "FILE_STORE_PATH", "XDG_CONFIG_HOME", "NO_COLOR")
DEFAULT_START = "2026-10-01T09:00:00.000Z"


# -- the plugin switch -----------------------------------------------------------------------------

def pytest_addoption(parser) -> None:
    parser.addini("backscroll_plugin", type="bool", default=True,
                  help="backscroll's fixtures (session_builder, backscroll_index, ...); false turns them off, "
                       "like -p no:backscroll")


def _check_enabled(config) -> None:
    if not config.getini("backscroll_plugin"):
        pytest.fail("backscroll's pytest fixtures are turned off here (backscroll_plugin = false in the pytest "
                    "configuration): remove that line to use them, or run with -p no:backscroll to hide them",
                    pytrace=False)


# -- the fake embedder -----------------------------------------------------------------------------

class FakeEmbedder:
    """Deterministic bag-of-words hashing into 384 dimensions: texts sharing words are close.

    ``BACKSCROLL_EMBEDDER=fake:NAME`` gives the same vectors under another model id (to test model changes).
    """

    dim = 384

    def __init__(self, variant: str = ""):
        self.model_id = "fake-hash-384" + (f"-{variant}" if variant else "")

    def embed(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (out / norms).astype(np.float32)


def fake_embedder(variant: str = "") -> FakeEmbedder:
    """The factory behind ``BACKSCROLL_EMBEDDER=fake[:variant]``."""
    return FakeEmbedder(variant)


def _register_fake() -> None:
    from backscroll.indexes.embed import register_embedder

    register_embedder("fake", fake_embedder)


@dataclass
class BackscrollHome:
    """An isolated HOME with the agents' default roots inside it, and a backscroll data dir."""

    root: Path
    home: Path
    data: Path

    @property
    def claude_projects(self) -> Path:
        return self.home / ".claude" / "projects"

    @property
    def codex_sessions(self) -> Path:
        return self.home / ".codex" / "sessions"

    def config(self, **kw):
        from backscroll.config import resolve

        return resolve(home=self.data, **kw)


def _uuid(seed: str) -> str:
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, seed))


class _Clock:
    def __init__(self, start: str, step: float):
        self.now = parse_ts(start)
        self.step = timedelta(seconds=step)

    def tick(self) -> str:
        ts = format_ts(self.now)
        self.now += self.step
        return ts


class _Builder:
    """Common parts of the per-agent builders: a file, a clock, appending lines."""

    path: Path

    def __init__(self, path: Path, start: str, step: float):
        self.path = path
        self.clock = _Clock(start, step)
        self._n = 0
        path.parent.mkdir(parents=True, exist_ok=True)

    def _next_id(self, kind: str) -> str:
        self._n += 1
        return _uuid(f"{self.path.parent.name}/{self.path.name}:{kind}:{self._n}")

    def write(self, obj: dict) -> _Builder:
        with self.path.open("ab") as fh:
            fh.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
        return self

    def raw(self, data: bytes | str, newline: bool = True) -> _Builder:
        """Append raw bytes (for malformed, binary or half-written lines)."""
        if isinstance(data, str):
            data = data.encode()
        with self.path.open("ab") as fh:
            fh.write(data + (b"\n" if newline else b""))
        return self

    def at(self, when: str) -> _Builder:
        self.clock.now = parse_ts(when)
        return self

    def search_echo(self, query: str, output: str, *, argv: bool = False) -> _Builder:
        """An agent running ``backscroll search QUERY`` and seeing ``output``: a query echo."""
        return self.tool(f"backscroll search {shlex.quote(query)}", output)

    def tool(self, command: str, output: str, *, is_error: bool = False) -> _Builder:  # pragma: no cover
        raise NotImplementedError


class ClaudeSession(_Builder):
    """A Claude Code transcript: ``<projects>/<slug>/<session>.jsonl``."""

    def __init__(self, projects: Path, cwd: str, session_id: str, start: str, step: float,
                 path: Path | None = None, parent: ClaudeSession | None = None, agent_id: str | None = None):
        slug = cwd.replace("/", "-")
        self.session_id = session_id
        self.cwd = cwd
        self.parent = parent
        self.agent_id = agent_id
        self.projects = projects
        super().__init__(path or projects / slug / f"{session_id}.jsonl", start, step)
        self._last_uuid: str | None = None
        self._subagents = 0

    def _envelope(self, kind: str, message: dict, **extra) -> dict:
        uid = self._next_id(kind)
        obj = {
            "parentUuid": self._last_uuid, "isSidechain": self.parent is not None, "userType": "external",
            "cwd": self.cwd, "sessionId": self.parent.session_id if self.parent else self.session_id,
            "version": "2.1.30", "gitBranch": "main", "type": kind, "message": message, "uuid": uid,
            "timestamp": self.clock.tick(), **extra,
        }
        if self.agent_id:
            obj["agentId"] = self.agent_id
        self._last_uuid = uid
        return obj

    @property
    def last_uuid(self) -> str | None:
        return self._last_uuid

    def user(self, text: str) -> ClaudeSession:
        return self.write(self._envelope("user", {"role": "user", "content": text}))

    def assistant(self, text: str, *, thinking: str | None = None) -> ClaudeSession:
        content = []
        if thinking:
            content.append({"type": "thinking", "thinking": thinking, "signature": "c2lnbmF0dXJl"})
        content.append({"type": "text", "text": text})
        msg = {"id": f"msg_{self._n:04d}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
               "content": content, "stop_reason": "end_turn",
               "usage": {"input_tokens": 1200, "output_tokens": 80}}
        return self.write(self._envelope("assistant", msg, requestId=f"req_{self._n:04d}"))

    def tool_use(self, name: str, inp: dict) -> str:
        call_id = f"toolu_{self._next_id('call').replace('-', '')[:24]}"
        msg = {"id": f"msg_{self._n:04d}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
               "content": [{"type": "tool_use", "id": call_id, "name": name, "input": inp}],
               "stop_reason": "tool_use", "usage": {"input_tokens": 1300, "output_tokens": 40}}
        self.write(self._envelope("assistant", msg))
        return call_id

    def tool_result(self, call_id: str, output: str, *, is_error: bool = False) -> ClaudeSession:
        msg = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id, "content": output,
                                            "is_error": is_error}]}
        return self.write(self._envelope("user", msg, toolUseResult={"stdout": output, "stderr": "",
                                                                     "interrupted": False}))

    def tool(self, command: str, output: str, *, is_error: bool = False) -> ClaudeSession:
        call = self.tool_use("Bash", {"command": command, "description": "run a command"})
        return self.tool_result(call, output, is_error=is_error)

    def summary(self, title: str) -> ClaudeSession:
        return self.write({"type": "summary", "summary": title, "leafUuid": self._last_uuid or _uuid("leaf")})

    def subagent(self) -> ClaudeSession:
        """A subagent transcript of this session (``<session>/subagents/agent-<id>.jsonl``)."""
        self._subagents += 1
        agent_id = _uuid(f"{self.session_id}:agent:{self._subagents}").replace("-", "")[:16]
        path = self.path.parent / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        return ClaudeSession(self.projects, self.cwd, self.session_id, format_ts(self.clock.now),
                             self.clock.step.total_seconds(), path=path, parent=self, agent_id=agent_id)


class CodexSession(_Builder):
    """A Codex CLI rollout: ``<sessions>/YYYY/MM/DD/rollout-<time>-<id>.jsonl``."""

    def __init__(self, sessions: Path, cwd: str, session_id: str, start: str, step: float):
        t = parse_ts(start)
        name = f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{session_id}.jsonl"
        super().__init__(sessions / t.strftime("%Y/%m/%d") / name, start, step)
        self.session_id = session_id
        self.cwd = cwd
        self._line("session_meta", {"id": session_id, "timestamp": format_ts(t), "cwd": cwd,
                                    "originator": "codex_cli_rs", "cli_version": "0.63.0",
                                    "model_provider": "openai", "git": {"branch": "main"}})
        self._line("response_item", {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>"}]})

    def _line(self, kind: str, payload: dict) -> CodexSession:
        return self.write({"timestamp": self.clock.tick(), "type": kind, "payload": payload})

    def user(self, text: str) -> CodexSession:
        self._line("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]})
        return self._line("event_msg", {"type": "user_message", "message": text, "images": []})

    def assistant(self, text: str) -> CodexSession:
        self._line("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})
        return self._line("event_msg", {"type": "agent_message", "message": text})

    def tool(self, command: str | list, output: str, *, is_error: bool = False) -> CodexSession:
        call_id = f"call_{self._next_id('call').replace('-', '')[:24]}"
        argv = command if isinstance(command, list) else ["bash", "-lc", command]
        self._line("response_item", {"type": "function_call", "name": "shell",
                                     "arguments": json.dumps({"command": argv, "workdir": self.cwd}),
                                     "call_id": call_id})
        out = json.dumps({"output": output, "metadata": {"exit_code": 1 if is_error else 0,
                                                         "duration_seconds": 0.4}})
        return self._line("response_item", {"type": "function_call_output", "call_id": call_id, "output": out})

    def search_echo(self, query: str, output: str, *, argv: bool = False) -> CodexSession:
        if argv:
            return self.tool(["backscroll", "search", query], output)
        return self.tool(f"backscroll search {shlex.quote(query)}", output)


class CursorCliSession:
    """A Cursor agent CLI chat: ``~/.cursor/chats/<hash>/<chat id>/store.db`` (``meta`` and ``blobs``)."""

    def __init__(self, chats: Path, cwd: str, session_id: str, start: str, step: float, title: str | None = None):
        import hashlib
        import sqlite3

        self.session_id = session_id
        self.cwd = cwd
        self.clock = _Clock(start, step)
        self.path = chats / hashlib.md5(cwd.encode()).hexdigest() / session_id / "store.db"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._n = 0
        self._first = True
        with sqlite3.connect(self.path) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS blobs (id TEXT PRIMARY KEY, data BLOB)")
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            meta = {"agentId": session_id, "latestRootBlobId": "", "name": title or "New Agent", "mode": "default",
                    "createdAt": int(parse_ts(start).timestamp() * 1000)}
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
        conn.close()

    def blob(self, obj: dict | bytes) -> CursorCliSession:
        import hashlib
        import sqlite3

        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        conn = sqlite3.connect(self.path)
        with conn:
            conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (hashlib.sha256(data).hexdigest(), data))
        conn.close()
        return self

    def _id(self) -> str:
        self._n += 1
        return f"msg_{self._n:04d}"

    def user(self, text: str) -> CursorCliSession:
        if self._first:
            self._first = False
            text = (f"<user_info>\nOS Version: linux\nWorkspace Path: {self.cwd}\n</user_info>\n"
                    f"<user_query>\n{text}\n</user_query>")
        return self.blob({"role": "user", "id": self._id(), "content": [{"type": "text", "text": text}]})

    def assistant(self, text: str, *, reasoning: str | None = None) -> CursorCliSession:
        content = [{"type": "reasoning", "text": reasoning}] if reasoning else []
        content.append({"type": "text", "text": text})
        return self.blob({"role": "assistant", "id": self._id(), "content": content})

    def tool(self, command: str, output: str, *, is_error: bool = False) -> CursorCliSession:
        call_id = f"toolu_{self._n:04d}"
        self.blob({"role": "assistant", "id": self._id(), "content": [
            {"type": "tool-call", "toolCallId": call_id, "toolName": "Shell", "args": {"command": command}}]})
        return self.blob({"role": "tool", "id": self._id(), "content": [
            {"type": "tool-result", "toolCallId": call_id, "toolName": "Shell", "result": output, "isError": is_error}]})

    def search_echo(self, query: str, output: str) -> CursorCliSession:
        return self.tool(f"backscroll search {shlex.quote(query)}", output)


class CopilotCliSession(_Builder):
    """A Copilot CLI session: ``~/.copilot/session-state/<session id>/events.jsonl``."""

    def __init__(self, state_dir: Path, cwd: str, session_id: str, start: str, step: float):
        super().__init__(state_dir / session_id / "events.jsonl", start, step)
        self.session_id = session_id
        self.cwd = cwd
        self._last: str | None = None
        self._event("session.start", {"sessionId": session_id, "version": 1, "producer": "copilot-agent",
                                      "copilotVersion": "0.0.407", "startTime": start,
                                      "context": {"cwd": cwd, "gitRoot": cwd, "branch": "main"}})

    def _event(self, kind: str, data: dict) -> CopilotCliSession:
        eid = self._next_id(kind)
        self.write({"type": kind, "data": data, "id": eid, "timestamp": self.clock.tick(), "parentId": self._last})
        self._last = eid
        return self

    def title(self, summary: str) -> CopilotCliSession:
        (self.path.parent / "workspace.yaml").write_text(f"id: {self.session_id}\ncwd: {self.cwd}\nsummary: {summary}\n")
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


@dataclass
class SessionFactory:
    """``session_builder``: start Claude Code, Codex, Cursor CLI or Copilot CLI sessions inside the isolated home."""

    env: BackscrollHome
    start: str = DEFAULT_START
    step: float = 30.0
    _count: int = field(default=0)

    def _session_id(self, session_id: str | None) -> str:
        self._count += 1
        return session_id or _uuid(f"session:{self._count}")

    def _start(self, start: str | None) -> str:
        if start:
            return start
        # successive sessions start a day apart, in order
        return format_ts(parse_ts(self.start) + timedelta(days=self._count))

    def claude(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
               start: str | None = None) -> ClaudeSession:
        sid = self._session_id(session_id)
        return ClaudeSession(self.env.claude_projects, cwd or f"/home/dev/{project}", sid, self._start(start), self.step)

    def codex(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
              start: str | None = None) -> CodexSession:
        sid = self._session_id(session_id)
        return CodexSession(self.env.codex_sessions, cwd or f"/home/dev/{project}", sid, self._start(start), self.step)

    def cursor(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
               start: str | None = None, title: str | None = None) -> CursorCliSession:
        sid = self._session_id(session_id)
        return CursorCliSession(self.env.home / ".cursor" / "chats", cwd or f"/home/dev/{project}", sid,
                                self._start(start), self.step, title)

    def copilot(self, project: str = "shop", *, cwd: str | None = None, session_id: str | None = None,
                start: str | None = None) -> CopilotCliSession:
        sid = self._session_id(session_id)
        return CopilotCliSession(self.env.home / ".copilot" / "session-state", cwd or f"/home/dev/{project}", sid,
                                 self._start(start), self.step)


# -- fixtures ----------------------------------------------------------------------------------

@pytest.fixture
def backscroll_home(tmp_path, monkeypatch, request) -> BackscrollHome:
    """An isolated HOME and data dir; the agents' variables and backscroll's own are cleared."""
    _check_enabled(request.config)
    root = tmp_path / "backscroll-env"
    home, data = root / "home", root / "data"
    home.mkdir(parents=True)
    for name in _SCRUBBED_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("BACKSCROLL_HOME", str(data))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # The real model by default, as users run it; set BACKSCROLL_TEST_EMBEDDER=fake for fast unit tests.
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", os.environ.get("BACKSCROLL_TEST_EMBEDDER", "minilm"))
    _register_fake()
    return BackscrollHome(root, home, data)


@pytest.fixture
def session_builder(backscroll_home) -> SessionFactory:
    return SessionFactory(backscroll_home)


@pytest.fixture
def backscroll_index(backscroll_home):
    """Call to index everything written so far; returns the index outcome (report and notes)."""
    from backscroll import api

    def run(**kw):
        return api.index(cfg=backscroll_home.config(), **kw)

    return run


@pytest.fixture
def backscroll_search(backscroll_home):
    """Call like ``backscroll.search``: syncs first, returns a ``SearchResult``."""
    from backscroll import api

    def run(query: str, **kw):
        return api.search(query, cfg=backscroll_home.config(), **kw)

    return run


def format_hits(hits) -> str:
    return "\n".join(f"  {h.rank}. [{h.role}{' echo' if h.is_echo else ''}] {h.snippet[:160]}" for h in hits) or "  (none)"


@pytest.fixture
def assert_recalled(backscroll_search):
    """``assert_recalled(query, marker, k=5, **filters)``: some top-k hit's text contains ``marker``."""

    def check(query: str, marker: str, k: int = 5, **kw):
        result = backscroll_search(query, limit=k, **kw)
        for hit in result.results[:k]:
            if marker in hit.text:
                return hit
        raise AssertionError(f"{marker!r} not in the top {k} for {query!r}; got:\n{format_hits(result.results)}")

    return check
