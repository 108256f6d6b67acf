"""Session builders: write Claude Code and Codex CLI sessions in their agents' real on-disk layouts.

Each builder appends lines to one file with timestamps from its own clock (``at`` moves it), so
what a test indexes is what users' machines hold. ``search_echo`` writes an agent running
``backscroll search`` and seeing its output: a query echo.
"""

from __future__ import annotations

import json
import shlex
import uuid as uuidlib
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Self

from backscroll.dates import format_ts, parse_ts


def uuid_for(seed: str) -> str:
    """A stable uuid for ``seed`` (builders' ids repeat from run to run)."""
    return str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, seed))


_OPENED: Counter[Path] = Counter()  # builders started on each file in this process


def salt(path: Path) -> str:
    """What sets apart the ids of a builder's lines when another builder began the same file before it (a second
    factory on the home, resuming it): nothing for the first."""
    _OPENED[path] += 1
    return f"@{_OPENED[path] - 1}" if _OPENED[path] > 1 else ""


def instant(when: str | datetime, name: str) -> str:
    """A time a test gives (an ISO text, or a ``datetime``: without a zone, UTC) as a stored timestamp; a value that is
    neither is an error naming the argument."""
    try:
        if isinstance(when, datetime):
            return format_ts(when if when.tzinfo else when.replace(tzinfo=UTC))
        if isinstance(when, str):
            return format_ts(parse_ts(when))
    except (ValueError, OverflowError):
        pass
    raise ValueError(f"{name} takes an ISO time (2026-10-02T09:00:00Z) or a datetime, not {when!r}"[:200])


class Clock:
    """The timestamps of a session's lines: ``tick`` returns now and steps on."""

    def __init__(self, start: str, step: float):
        self.now = parse_ts(start)
        self.step = timedelta(seconds=step)

    def tick(self) -> str:
        ts = format_ts(self.now)
        self.now += self.step
        return ts


class Builder:
    """Common parts of the per-agent builders: a file, a clock, appending lines."""

    path: Path

    def __init__(self, path: Path, start: str, step: float):
        self.path = path
        self.clock = Clock(start, step)
        self._n = 0
        self._salt = salt(path) or (f"@{path.stat().st_size}" if path.exists() else "")
        path.parent.mkdir(parents=True, exist_ok=True)

    def _next_id(self, kind: str) -> str:
        self._n += 1
        return uuid_for(f"{self.path.parent.name}/{self.path.name}{self._salt}:{kind}:{self._n}")

    def write(self, obj: dict[str, Any]) -> Self:
        with self.path.open("ab") as fh:
            fh.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
        return self

    def raw(self, data: bytes | str, newline: bool = True) -> Self:
        """Append raw bytes (for malformed, binary or half-written lines)."""
        if isinstance(data, str):
            data = data.encode()
        with self.path.open("ab") as fh:
            fh.write(data + (b"\n" if newline else b""))
        return self

    def at(self, when: str | datetime) -> Self:
        """The next lines' time."""
        self.clock.now = parse_ts(instant(when, "at()"))
        return self

    def search_echo(self, query: str, output: str, *, argv: bool = False) -> Self:
        """An agent running ``backscroll search QUERY`` and seeing ``output``: a query echo. (``argv``: the command
        as an argument list, where the agent logs one: Codex's.)"""
        return self.tool(f"backscroll search {shlex.quote(query)}", output)

    def tool(self, command: str, output: str, *, is_error: bool = False) -> Self:  # pragma: no cover
        raise NotImplementedError


class ClaudeSession(Builder):
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

    def _envelope(self, kind: str, message: dict[str, Any], **extra: Any) -> dict[str, Any]:
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
    def lastuuid_for(self) -> str | None:
        return self._last_uuid

    def user(self, text: str) -> ClaudeSession:
        return self.write(self._envelope("user", {"role": "user", "content": text}))

    def assistant(self, text: str, *, thinking: str | None = None) -> ClaudeSession:
        content: list[dict[str, Any]] = []
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
        return self.write({"type": "summary", "summary": title, "leafUuid": self._last_uuid or uuid_for("leaf")})

    def compact_summary(self, text: str) -> ClaudeSession:
        """The summary Claude Code writes when it compacts the context (``/compact`` or automatically):
        stored once, as an assistant ``summary`` record."""
        return self.write(self._envelope("user", {"role": "user", "content": text}, isCompactSummary=True,
                                         isVisibleInTranscriptOnly=True))

    def subagent(self) -> ClaudeSession:
        """A subagent transcript of this session (``<session>/subagents/agent-<id>.jsonl``)."""
        self._subagents += 1
        agent_id = uuid_for(f"{self.session_id}:agent:{self._subagents}").replace("-", "")[:16]
        path = self.path.parent / self.session_id / "subagents" / f"agent-{agent_id}.jsonl"
        return ClaudeSession(self.projects, self.cwd, self.session_id, format_ts(self.clock.now),
                             self.clock.step.total_seconds(), path=path, parent=self, agent_id=agent_id)


class CodexSession(Builder):
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

    def _line(self, kind: str, payload: dict[str, Any]) -> CodexSession:
        return self.write({"timestamp": self.clock.tick(), "type": kind, "payload": payload})

    def user(self, text: str) -> CodexSession:
        self._line("response_item", {"type": "message", "role": "user",
                                     "content": [{"type": "input_text", "text": text}]})
        return self._line("event_msg", {"type": "user_message", "message": text, "images": []})

    def assistant(self, text: str) -> CodexSession:
        self._line("response_item", {"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": text}]})
        return self._line("event_msg", {"type": "agent_message", "message": text})

    def compacted(self, summary: str) -> CodexSession:
        """A ``compacted`` line: the summary that replaces the turns before it in the model's context."""
        return self._line("compacted", {"message": summary, "replacement_history": []})

    def tool_call(self, command: str | list[str]) -> str:
        """A shell call with no output yet (one in flight); returns its call id."""
        call_id = f"call_{self._next_id('call').replace('-', '')[:24]}"
        argv = command if isinstance(command, list) else ["bash", "-lc", command]
        self._line("response_item", {"type": "function_call", "name": "shell",
                                     "arguments": json.dumps({"command": argv, "workdir": self.cwd}),
                                     "call_id": call_id})
        return call_id

    def tool(self, command: str | list[str], output: str, *, is_error: bool = False) -> CodexSession:
        call_id = self.tool_call(command)
        out = json.dumps({"output": output, "metadata": {"exit_code": 1 if is_error else 0,
                                                         "duration_seconds": 0.4}})
        return self._line("response_item", {"type": "function_call_output", "call_id": call_id, "output": out})

    def search_echo(self, query: str, output: str, *, argv: bool = False) -> CodexSession:
        if argv:
            return self.tool(["backscroll", "search", query], output)
        return self.tool(f"backscroll search {shlex.quote(query)}", output)
