"""Kimi CLI sessions: ``~/.kimi/sessions/<md5 of work dir>/<session id>/context.jsonl``.

Read from kimi-cli 1.49.0 (MoonshotAI/kimi-cli ``src/kimi_cli/session.py``, ``metadata.py``,
``share.py``, ``soul/context.py``, ``subagents/store.py`` and kosong ``message.py``, Jul 2026). The
share dir is ``$KIMI_SHARE_DIR`` (else ``~/.kimi``). ``context.jsonl`` holds one message per line
(``{role, content, tool_calls?, tool_call_id?}``; content is text or parts ``{type: "text"|"think"|
"image_url", ...}``) plus bookkeeping lines (``_system_prompt``, ``_checkpoint``, ``_usage``). When the
context is compacted or reverted Kimi renames the file to ``context_<n>.jsonl`` and starts a new one,
so those are read too, each as an earlier part of the session: ``<session id>~<n>``, linked to it.
``context.jsonl`` keeps no times: each line is dated by its turn's start in ``wire.jsonl`` (the UI event stream of
the same turns: ``TurnBegin`` holds the prompt and its time), the prompts matched in order by their words; without
one, by the file's last write, as Kimi dates a session (``session.py``). Harness text in the person's turn
(``<system>…``, ``<notification …>``) is the harness's, and the summary a compaction leaves is stored as one.
Subagents live in ``<session>/subagents/<agent id>/context.jsonl`` and are sessions linked to their parent.
Kimi Code, the TypeScript CLI that followed, keeps a log of its own protocol instead: ``kimi_code``, one agent.

The work dir is not in the session files: ``kimi.json`` (``work_dirs[].path``) is read to map the
md5 folder name back to it. The title is ``state.json``'s ``custom_title`` when set. Records: user and
assistant text, reasoning (``think`` parts, ``content_type="reasoning"``), tool calls (the ``Shell``
tool as its command) and tool results paired by ``tool_call_id``.
"""

from __future__ import annotations

import hashlib
import os
import re
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

import orjson

from backscroll.dates import format_ts
from backscroll.ingest.sources import (
    EMPTY,
    Agent,
    LineError,
    ParsedLine,
    call_text,
    clean_text,
    home_root,
    jsontext,
    kimi_code,
)
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = {"Shell", "Bash"}
COMPACTED = "<system>Previous context has been compacted"  # (kimi_cli ``soul/compaction.py``'s prefix)
_CONTEXT = re.compile(r"^context(_\d+)?\.jsonl$")


def default_root(env):
    """kimi-cli's sessions, and Kimi Code's (``kimi_code``)."""
    return [home_root(env, "KIMI_SHARE_DIR", "sessions", ".kimi/sessions"), kimi_code.default_root(env)]


def claims(path: Path) -> bool:
    return bool(_CONTEXT.match(path.name))


def _claims(path: Path) -> bool:
    return claims(path) or kimi_code.claims(path)


@lru_cache(maxsize=8)
def _work_dirs(meta: Path, mtime: int) -> dict[str, str]:
    try:
        data = jsontext.loads(meta.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return {}
    out = {}
    for wd in data.get("work_dirs", []) if isinstance(data, dict) else []:
        if isinstance(wd, dict) and isinstance(wd.get("path"), str):
            digest = hashlib.md5(wd["path"].encode()).hexdigest()
            kaos = wd.get("kaos")
            out[digest if kaos in (None, "local") else f"{kaos}_{digest}"] = wd["path"]
    return out


def _cwd(sessions_dir: Path, folder: str) -> str | None:
    meta = sessions_dir.parent / "kimi.json"
    try:
        mtime = os.stat(meta).st_mtime_ns
    except OSError:
        return None
    return _work_dirs(meta, mtime).get(folder)


def _title(session_dir: Path) -> str | None:
    try:
        state = jsontext.loads((session_dir / "state.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    title = state.get("custom_title") if isinstance(state, dict) else None
    return title.strip() if isinstance(title, str) and title.strip() else None


def session_for(path: Path) -> SessionInfo:
    if kimi_code.claims(path):
        return kimi_code.session_for(path)
    folder = path.parent
    if folder.parent.name == "subagents":
        session_dir = folder.parent.parent
        parent = session_dir.name
        return SessionInfo(f"{parent}:{folder.name}", "kimi",
                           cwd=_cwd(session_dir.parent.parent, session_dir.parent.name),
                           is_sidechain=True, parent_session_id=parent, **_times(path))
    cwd = _cwd(folder.parent.parent, folder.parent.name)
    m = _CONTEXT.match(path.name) if claims(path) else None
    rotated = m.group(1) if m else None
    if rotated:  # context_<n>.jsonl: what the session held before a compaction or revert
        return SessionInfo(f"{folder.name}~{rotated[1:]}", "kimi", cwd=cwd, title=_title(folder),
                           parent_session_id=folder.name, **_times(path))
    return SessionInfo(folder.name, "kimi", cwd=cwd, title=_title(folder), **_times(path))


def _times(path: Path) -> dict:
    """``line_times`` of a context file (``_dated``), for as long as it and its wire log stay as they are."""
    try:
        st = path.stat()
    except OSError:
        return {}
    try:
        wire = (path.parent / "wire.jsonl").stat()
        seen = (wire.st_mtime_ns, wire.st_size)
    except OSError:
        seen = (0, 0)
    return {"line_times": _dated(path, st.st_mtime_ns, st.st_size, *seen)}


@lru_cache(maxsize=8)
def _dated(path: Path, mtime: int, _size: int, _wire_mtime: int, _wire_size: int) -> tuple[str, ...]:
    """Each line's time: its turn's start. A prompt is matched, in order, to the next turn of the wire log begun
    with the same words, and the lines after it are its turn's; lines before the first prompt take its time, and
    with no turn found every line takes the file's last write (as Kimi dates a session)."""
    turns = _turns(path.parent / "wire.jsonl")
    written = format_ts(datetime.fromtimestamp(mtime / 1e9, UTC))
    out: list[str | None] = []
    now, k = None, 0
    try:
        lines = path.read_bytes().split(b"\n")  # (numbered as the reader numbers them)
    except OSError:
        return ()
    for raw in lines:
        try:
            obj = jsontext.loads(raw)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and obj.get("role") == "user":
            asked = "\n".join(p["text"] for p in _parts(obj.get("content")) if isinstance(p.get("text"), str)).strip()
            at = next((n for n in range(k, len(turns)) if turns[n][0] == asked), None)
            if at is not None:
                now, k = turns[at][1], at + 1
        out.append(now)
    first = next((t for t in out if t), None)
    return tuple(t or first or written for t in out)


def _turns(wire: Path) -> list[tuple[str, str]]:
    """Each turn's prompt and start time, in order, from the ``TurnBegin`` events of a wire log."""
    out = []
    try:
        with wire.open("rb") as fh:
            for line in fh:
                if b'"TurnBegin"' not in line:
                    continue
                try:
                    event = jsontext.loads(line)
                    asked, at = event["message"]["payload"]["user_input"], float(event["timestamp"])
                except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                    continue
                if isinstance(asked, str):
                    out.append((asked.strip(), format_ts(datetime.fromtimestamp(at, UTC))))
    except OSError:
        return []
    return out


def _parts(content: object) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [p if isinstance(p, dict) else {"type": "text", "text": p}
                for p in content if isinstance(p, (dict, str))]
    return []


def parse_line(obj: object, line_no: int, session: SessionInfo) -> ParsedLine:
    if (session.history_mode or "").startswith(kimi_code.READ):
        return kimi_code.parse_line(obj, line_no, session)
    if not isinstance(obj, dict):
        raise LineError(f"expected a JSON object, got {type(obj).__name__}")
    role = obj.get("role")
    if not isinstance(role, str):
        raise LineError("message without a role")
    if role not in ("user", "assistant", "tool"):
        return EMPTY  # _system_prompt, _checkpoint, _usage, system
    base = f"{session.session_id}:{line_no}"
    cwd = session.cwd
    ts = session.line_times[line_no - 1] if 0 < line_no <= len(session.line_times) else None
    records: list[Record] = []
    if role == "tool":
        call_id = obj.get("tool_call_id") if isinstance(obj.get("tool_call_id"), str) else None
        text = "\n".join(p["text"] for p in _parts(obj.get("content"))
                         if p.get("type") == "text" and isinstance(p.get("text"), str)).strip()
        if text:
            records.append(Record(f"{base}#0", "tool", "tool", text, line_no, ts, cwd, None, call_id,
                                  is_error="<system>ERROR" in text[:200]))
        return ParsedLine(records, {})
    summary = False  # (the parts after a compaction's ``<system>`` prefix are its summary)
    for i, part in enumerate(_parts(obj.get("content"))):
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            text = clean_text(part["text"])
            if role == "user" and text.startswith(COMPACTED):
                summary = True
            elif text and summary:
                records.append(Record(f"{base}#{i}", "assistant", "summary", text, line_no, ts, cwd))
            elif text:
                harness = role == "user" and text.startswith(("<system>", "<notification"))
                records.append(Record(f"{base}#{i}", role, "text", text, line_no, ts, cwd,
                                      author="harness" if harness else None))
        elif kind == "think" and isinstance(part.get("think"), str) and part["think"].strip():
            records.append(Record(f"{base}#{i}", "assistant", "reasoning", part["think"].strip(), line_no, ts, cwd))
    calls = obj.get("tool_calls") if role == "assistant" else None
    for k, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
            continue
        fn = call["function"]
        name = fn.get("name") if isinstance(fn.get("name"), str) and fn["name"] else "tool"
        text, command = call_text(name, fn.get("arguments"), SHELL_TOOLS)
        call_id = call.get("id") if isinstance(call.get("id"), str) else f"{base}#c{k}"
        records.append(Record(f"{base}#c{k}", "tool", "tool", text, line_no, ts, cwd, name, call_id,
                              command=command))
    return ParsedLine(records, {})


AGENT = Agent("kimi", default_root, _claims, session_for, parse_line,
              shell_tools=frozenset(SHELL_TOOLS | kimi_code.SHELL_TOOLS))
