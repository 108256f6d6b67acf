"""Gemini CLI sessions: ``~/.gemini/tmp/<project>/chats/session-*.json`` and ``session-*.jsonl``.

Two generations, both read whole (``read_whole``) because Gemini rewrites what it wrote:

* older ``session-<YYYY-MM-DDTHH-MM>-<id8>.json``: one JSON object ``{sessionId, projectHash,
  startTime, lastUpdated, messages, kind?, summary?, directories?}`` rewritten on every turn. A file
  that does not parse is being rewritten: it is reported unreadable and read again when it changes.
* newer ``session-*.jsonl``: a header line, then message lines upserted by ``id`` (a rewritten
  assistant turn keeps the place where it first appeared), ``{"$set": {...}}`` metadata patches
  (``$set.messages`` is a compression's new context: its new messages, such as the summary, are added; what it
  left out or masked was said and stays) and ``{"$rewindTo": id}``
  (drops that message and everything after it). Bad lines are skipped and counted; a last line
  without a newline that does not parse yet is still being written and is left for next time.
  Subagents live in ``chats/<parentSessionId>/<id>.jsonl`` and are sessions linked to the parent.

``<project>`` is a slug whose ``.project_root`` file holds the project path, or a SHA-256 of the
project root. The root is, in order: ``.project_root``; the ``directories`` field; the path in
``~/.gemini/projects.json`` (``{"projects": {path: slug}}``) whose slug or SHA-256 names the folder;
a parent directory of an absolute path in the session's own tool arguments (then in its tool
outputs) whose SHA-256 names the folder, else in another session file's of the same folder.
Records: user and gemini text (user text Gemini composes itself, such as "System: Please continue.", the
``<session_context>`` each session opens with, a hook's ``<hook_context>`` and the ``!`` shell mode's report, is
authored by the harness; a compression's ``<state_snapshot>`` is a summary), thoughts (reasoning), and per tool
call a call record and a result record. ``info``, ``error`` and ``warning`` messages and token counts are not
records. Record ids are ``<session>:<message id>#<block>`` (text 0, call k ``1+2k``, its result ``2+2k``, thoughts
``r``), so they survive rewrites.

This module owns the files (where they are, their project root, reading them whole); their content is
replayed and turned into records by ``gemini_conversation``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

from backscroll.ingest.sources import (
    Agent,
    ContentError,
    SourceUnit,
    WholeRead,
    as_list,
    home_root,
    read_regular,
)
from backscroll.ingest.sources.gemini_conversation import (
    _TEXT_TYPES,
    SHELL_TOOLS,
    conversation_records,
    parse_json,
    parse_jsonl,
    session_of,
)
from backscroll.ingest.sources.gemini_conversation import Conversation as Conversation
from backscroll.ingest.sources.gemini_conversation import message_records as message_records
from backscroll.ingest.sources.gemini_conversation import result_text as result_text
from backscroll.ingest.sources.jsontext import loads
from backscroll.types import SessionInfo

# A session file is read whole into memory: larger ones are reported, not read (a real session is a
# few MB; a file of gigabytes is damage, e.g. a sparse file, and would cost several times its size).
MAX_WHOLE_BYTES = 256 * 1024 * 1024

_NOTICE_TYPES = {"info", "error", "warning"}


def default_root(env):
    if env.get("GEMINI_CLI_HOME"):  # (Gemini CLI's own variable: the home whose .gemini it keeps)
        return home_root(env, "GEMINI_CLI_HOME", ".gemini/tmp", ".gemini/tmp")
    return home_root(env, "GEMINI_HOME", "tmp", ".gemini/tmp")


def _is_subagent_path(path: Path) -> bool:
    return path.suffix == ".jsonl" and path.parent.parent.name == "chats"


def claims(path: Path) -> bool:
    if path.parent.name == "chats":
        # session-*.json / session-*.jsonl; a subagent started without a parent writes <id>.jsonl here
        return (path.suffix == ".json" and path.name.startswith("session-")) or path.suffix == ".jsonl"
    return _is_subagent_path(path)


def session_for(path: Path) -> SessionInfo:
    if _is_subagent_path(path):
        return SessionInfo(path.stem, "gemini", is_sidechain=True, parent_session_id=path.parent.name)
    return SessionInfo(path.stem, "gemini")


# -- the file ---------------------------------------------------------------------------------------

def _chats(path: Path) -> Path:
    """The ``chats`` folder a session file lives in (a subagent's, one level further down)."""
    return path.parent.parent if _is_subagent_path(path) else path.parent


def _project_folder(path: Path) -> str:
    return _chats(path).parent.name


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def registry_root(folder: str, registry: object) -> str | None:
    """The project whose slug or SHA-256 is ``folder`` in a ``projects.json`` (``{"projects": {path: slug}}``)."""
    projects = registry.get("projects") if isinstance(registry, dict) else None
    if not isinstance(projects, dict):
        return None
    for root, slug in projects.items():
        if isinstance(root, str) and root and (slug == folder or _sha256(root) == folder):
            return root
    return None


def _absolute_paths(value: object, out: list[str], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(value, str):
        if value.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", value):
            out.append(value.split("\n", 1)[0])
    elif isinstance(value, dict):
        for v in value.values():
            _absolute_paths(v, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _absolute_paths(v, out, depth + 1)


_PATH_IN_TEXT = re.compile(r"(?<![\w./~-])/[\w.@+-]+(?:/[\w.@+-]+)*")
OUTPUT_SCAN = 64 * 1024  # characters of a tool's output looked at for paths


def _paths_in_outputs(call: dict, out: list[str]) -> None:
    """Absolute paths a tool's output prints (``Listed 3 item(s) in /home/dev/app``, ``rootdir: ...``)."""
    texts: list[str] = []
    _strings(call.get("result"), texts)
    if isinstance(call.get("resultDisplay"), str):
        texts.append(call["resultDisplay"])
    for text in texts:
        out.extend(m.group(0) for m in _PATH_IN_TEXT.finditer(text[:OUTPUT_SCAN]))


def _strings(value: object, out: list[str], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict | list):
        for v in value.values() if isinstance(value, dict) else value:
            _strings(v, out, depth + 1)


def hashed_root(folder: str, messages: list[dict]) -> str | None:
    """The directory whose SHA-256 is ``folder``, among the parents of absolute paths in tool arguments,
    then in tool outputs (a session that only used relative paths)."""
    if not re.fullmatch(r"[0-9a-f]{64}", folder):
        return None
    paths: list[str] = []
    calls = [c for msg in messages for c in as_list(msg.get("toolCalls")) if isinstance(c, dict)]
    for call in calls:
        _absolute_paths(call.get("args"), paths)
    for call in calls:
        _paths_in_outputs(call, paths)
    seen: set[str] = set()
    for p in paths:
        sep = "\\" if "\\" in p and "/" not in p else "/"
        parts = p.rstrip(sep).split(sep)
        for n in range(len(parts), 0, -1):
            candidate = sep.join(parts[:n]) or sep
            if candidate in seen:
                continue
            seen.add(candidate)
            if _sha256(candidate) == folder:
                return candidate
    return None


def _project_root(path: Path, messages: list[dict] | None = None) -> str | None:
    """The project's absolute path: ``<project>/.project_root``, else ``~/.gemini/projects.json``, else
    recovered from the hashed folder name and the session's tool arguments."""
    chats = _chats(path)
    try:
        text = read_regular(chats.parent / ".project_root", 64 * 1024).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if text:
        return text
    folder = chats.parent.name
    try:
        registry = loads(read_regular(chats.parent.parent.parent / "projects.json", 16 * 1024 * 1024))
    except (OSError, ValueError):
        registry = None
    return registry_root(folder, registry) or hashed_root(folder, messages or [])


_SIBLING_ROOTS: dict[tuple[str, int], str | None] = {}  # (chats folder, its files' total size) -> root


def _sibling_root(path: Path) -> str | None:
    """The project root of a hashed folder as another session file in it reveals it (its tool calls
    name a path under the root): every session there has the same root, but a session that named no
    absolute path (a short chat, a subagent that only read its brief) cannot find it alone. Each
    folder is looked at once per state of its files."""
    chats = _chats(path)
    folder = chats.parent.name
    if not re.fullmatch(r"[0-9a-f]{64}", folder):
        return None
    try:
        siblings = sorted(p for p in chats.rglob("*.json*") if p != path and claims(p) and p.is_file())
        key = (str(chats), sum(p.stat().st_size for p in siblings))
    except OSError:
        return None
    if key not in _SIBLING_ROOTS:
        _SIBLING_ROOTS.clear()  # one folder at a time: files are read folder by folder
        _SIBLING_ROOTS[key] = None
        for other in siblings:
            try:
                data = read_regular(other, MAX_WHOLE_BYTES)
                conv = parse_json(data) if other.suffix == ".json" else parse_jsonl(data)
            except (OSError, ValueError):
                continue
            root = hashed_root(folder, conv.messages)
            if root:
                _SIBLING_ROOTS[key] = root
                break
    return _SIBLING_ROOTS[key]


def read_whole(path: Path, state: dict) -> WholeRead:
    data = read_regular(path, MAX_WHOLE_BYTES)
    if path.suffix == ".json":
        try:
            conv = parse_json(data)
        except ValueError as exc:
            raise ContentError(str(exc)) from None
    else:
        conv = parse_jsonl(data)
    session = session_of(conv, session_for(path), _project_root(path))
    if session.cwd is None and any(m.get("type") in _TEXT_TYPES for m in conv.messages):  # (no session without words)
        root = hashed_root(_project_folder(path), conv.messages) or _sibling_root(path)
        session = replace(session, cwd=root) if root else session
    records = conversation_records(conv, session)
    unknown: dict[str, int] = {}
    for msg in conv.messages:
        mtype = str(msg.get("type"))  # a type that is not text is counted, not a crash
        if mtype not in _TEXT_TYPES and mtype not in _NOTICE_TYPES:
            unknown[mtype] = unknown.get(mtype, 0) + 1
    unit = SourceUnit(str(path), session, records, conv.skipped, unknown)
    return WholeRead([unit], {"session_id": session.session_id, "messages": len(conv.messages)})


AGENT = Agent("gemini", default_root, claims, session_for, read_whole=read_whole, shell_tools=frozenset(SHELL_TOOLS),
              shares_root=True)
