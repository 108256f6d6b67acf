"""Oh My Pi (``omp``, can1357/oh-my-pi) sessions: ``~/.omp/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``.

Read from oh-my-pi coding-agent 5.7.67 (``packages/coding-agent/docs/session.md`` and
``src/core/session-manager.ts``, Jan 2026). Oh My Pi is a fork of Pi and writes the same session
files (the header line, then tree entries; version 3), so Pi's parser reads every line. Two
differences: the agent dir is ``$OMP_CODING_AGENT_DIR`` (else ``~/.omp/agent``), and the session's
title lives in the header (``title``), which omp sets by rewriting the file in place; a rewritten
head makes the file be read again from the start, so the title follows. Thinking blocks of assistant
messages are kept as reasoning records (``content_type="reasoning"``).
"""

from __future__ import annotations

from pathlib import Path

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import Agent, ParsedLine, home_root, pi
from backscroll.types import Record, SessionInfo


def default_root(env):
    return home_root(env, "OMP_CODING_AGENT_DIR", "sessions", ".omp/agent/sessions")


def session_for(path: Path) -> SessionInfo:
    base = pi.session_for(path)
    return SessionInfo(base.session_id, "omp")


def _thinking(obj: dict, line_no: int, session: SessionInfo) -> list[Record]:
    message = obj.get("message")
    if (not isinstance(message, dict) or message.get("role") != "assistant"
            or not isinstance(message.get("content"), list)):
        return []
    eid = obj.get("id") if isinstance(obj.get("id"), str) and obj["id"] else f"line{line_no}"
    ts = normalize_timestamp(obj.get("timestamp")) or normalize_timestamp(message.get("timestamp"))
    out = []
    for i, block in enumerate(message["content"]):
        if isinstance(block, dict) and block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            text = block["thinking"].strip()
            if text:
                out.append(Record(f"{session.session_id}:{eid}#{i}", "assistant", "reasoning", text, line_no, ts,
                                  session.cwd))
    return out


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    parsed = pi.parse_line(obj, line_no, session)
    if not isinstance(obj, dict):
        return parsed
    if obj.get("type") == "session":
        title = obj.get("title")
        if isinstance(title, str) and title.strip():
            return ParsedLine(parsed.records, {**parsed.session_updates, "title": title.strip()})
        return parsed
    if obj.get("type") == "message":
        extra = _thinking(obj, line_no, session)
        if extra:
            order = {r.record_id: r for r in [*parsed.records, *extra]}
            ranked = sorted(order.values(), key=lambda r: int(r.record_id.rsplit("#", 1)[1]))
            return ParsedLine(ranked, parsed.session_updates)
    return parsed


AGENT = Agent("omp", default_root, pi.claims, session_for, parse_line, shell_tools=pi.AGENT.shell_tools)
