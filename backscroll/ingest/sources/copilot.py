"""GitHub Copilot sessions: the Copilot CLI's event logs and VS Code Copilot Chat's saved sessions.

**Copilot CLI** (``~/.copilot/session-state/<session id>/events.jsonl``; releases before the session
folders wrote ``session-state/<session id>.jsonl``; ``$COPILOT_HOME`` moves ``~/.copilot``). Shapes
from public parsers of copilot-cli 0.0.369-0.0.407 session files and the Copilot SDK's generated
session-event types (read Dec 2026): every line is ``{type, id, timestamp, parentId, data}``.
``session.start`` gives ``sessionId`` and ``context.cwd``; ``user.message`` (``content``),
``assistant.message`` (``content``, ``toolRequests[] {toolCallId, name, arguments}``,
``reasoningText``), ``assistant.reasoning`` (``content``) and ``tool.execution_complete``
(``toolCallId``, ``success``, ``result.content``, ``error.message``) become records; the ``bash`` and
``powershell`` tools are shell calls. ``session.compaction_complete`` (``summaryContent``) is stored once,
as a ``summary``. ``workspace.yaml`` beside ``events.jsonl`` gives the title (``summary:``). The log is
read whole when it changes.

Who wrote a ``user.message`` (``author``), from real 1.0.74 logs: ``source: "system"`` is the CLI's own
(the deferred-tools ``<system_reminder>``), the harness's; ``source: "agent-<session id>"`` is the main
agent's brief to a subagent started by its ``task`` tool, the agent's; any other ``source`` (a skill's hidden
injection, ``skill-<name>``) or an autopilot continuation (``isAutopilotContinuation``) is the harness's. A
subagent's events (its brief, replies, calls) carry a top-level ``agentId`` (the ``task`` call's id,
``data.parentToolCallId`` on its replies and calls) and are interleaved with the main conversation's: they are a
session of their own, ``<session id>:<agentId>``, linked to this one (the ``task`` call and its result stay here). What
the person typed has no ``source``, including the ``session resumed.`` they type after ``--resume``
(the ``userPromptSubmitted`` hook fires for it, like any prompt). ``content`` is what was written;
``transformedContent``, the same text wrapped in what the CLI injects (``<current_datetime>``,
``<tools_changed_notice>``, ``<system_reminder>``), is not read.

**VS Code Copilot Chat** (``<editor>/User/workspaceStorage/<hash>/chatSessions/``, and
``<editor>/User/globalStorage/emptyWindowChatSessions/`` for windows with no folder): one session
document per chat ``{sessionId, customTitle?, requests: [{requestId, message: {text}, timestamp,
response: [parts], result: {metadata: {toolCallRounds, toolCallResults}}}]}``. Builds before VS Code
1.109 / Copilot Chat 0.37 (Feb 2026) save it whole as ``<session id>.json``, rewritten as it changes.
Later builds append a patch log, ``<session id>.jsonl`` (VS Code's ``ObjectMutationLog``; read from its
source, ``chat/common/model/objectMutationLog.ts``, and real logs): each line is ``{kind, k?, v?, i?}``
with ``k`` a path of property names and array indexes. ``kind`` 0 is the whole document ``v`` (the first
line, and the only one after VS Code compacts the log by rewriting it); 1 sets ``k`` to ``v``; 2 cuts
the array at ``k`` to length ``i`` when ``i`` is given, then appends the items ``v`` (a new request is
``{kind: 2, k: ["requests"], v: [request]}``, a growing reply ``k: ["requests", n, "response"]``); 3
deletes ``k``. ``copilot_log.replay`` rebuilds the document, so both files give the same records; lines
it cannot apply are reported as skipped, and a half-written last line is a write in progress. VS Code
reads the ``.jsonl`` when there is one and never deletes the ``.json`` it migrated from, so a ``.json``
with a ``.jsonl`` beside it is a stale copy and is not read (records it gave before stay stored).

In the document, markdown parts (``value``) are the reply, with ``inlineReference`` parts as the file
name in backticks, ``thinking`` parts reasoning, ``toolInvocationSerialized`` parts tool calls (terminal
calls as their command line), paired in order with the model's calls in ``result.metadata.toolCallRounds``
(name, arguments, and the id under which ``toolCallResults`` holds the output, a prompt-tsx tree); VS
Code's own ``*_internal`` invocations (applying an edit) are not the model's and are left out, and a subagent's
(``subAgentInvocationId``) are its own model's, not paired. A button the person clicks ("Continue",
``confirmation``) sends VS Code's words, the harness's. A forked conversation begins with copies of the requests it
was forked from, each stamped with the fork's creation time plus its index: they are stored from there. The
workspace folder comes from ``workspace.json`` beside ``chatSessions``.
"""

from __future__ import annotations

import os
import re
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
    editor_user_dirs,
    jsontext,
)
from backscroll.ingest.sources.copilot_calls import SHELL_TOOLS, _call_text, _s
from backscroll.ingest.sources.copilot_log import replay
from backscroll.ingest.sources.copilot_vscode import VSCODE_PART_KINDS, _workspace_folder, vscode_records
from backscroll.types import Record, SessionInfo

__all__ = ["AGENT", "SHELL_TOOLS", "VSCODE_PART_KINDS", "cli_records", "replay", "vscode_records"]

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


def default_root(env):
    if env.get("COPILOT_HOME"):
        cli = (Path(os.path.expanduser(env["COPILOT_HOME"])) / "session-state", "env $COPILOT_HOME")
    else:
        home = Path(env.get("HOME") or os.path.expanduser("~"))
        cli = (home / ".copilot" / "session-state", "default")
    editors = editor_user_dirs(env, ("Code", "Code - Insiders"))
    vscode = [(d / "workspaceStorage", "default") for i, d in enumerate(editors) if i == 0 or d.is_dir()]
    # chats of windows with no folder open
    empty = [(d / "globalStorage" / "emptyWindowChatSessions", "default") for d in editors
             if (d / "globalStorage" / "emptyWindowChatSessions").is_dir()]
    return [cli, *vscode, *empty]


def _is_cli(path: Path) -> bool:
    if path.name == "events.jsonl":
        return path.parent.parent.name == "session-state"
    return path.suffix == ".jsonl" and path.parent.name == "session-state"


def _is_vscode(path: Path) -> bool:
    return path.suffix in (".json", ".jsonl") and path.parent.name in ("chatSessions", "emptyWindowChatSessions")


def claims(path: Path) -> bool:
    return _is_cli(path) or _is_vscode(path)


def session_for(path: Path) -> SessionInfo:
    if path.name == "events.jsonl":
        return SessionInfo(path.parent.name, "copilot")
    return SessionInfo(path.stem, "copilot")


# -- the CLI's event log ---------------------------------------------------------------------------

def _user_author(event: dict, data: dict) -> str:
    """Who wrote a ``user.message`` (see the module docstring): the CLI, the main agent, or the person."""
    source = _s(data.get("source"))
    if source.startswith("agent-"):
        return "agent"
    if source not in ("", "user", "human") or data.get("isAutopilotContinuation") is True:
        return "harness"  # (the CLI's own, a skill's hidden injection, autopilot's continuation, a schedule)
    return "agent" if _s(event.get("agentId")) else "human"


def cli_records(lines: list[bytes], base: SessionInfo
                ) -> tuple[SessionInfo, list[Record], list[tuple[int, str]], dict[str, SessionInfo]]:
    """The session, its records, the lines skipped, and the sessions of the subagents' records (by
    record id): a subagent's events carry the ``agentId`` of the ``task`` call that started it."""
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    agents: dict[str, str] = {}  # record id -> agentId
    sid, cwd = base.session_id, None
    complete = len(lines) - 1
    for i, raw in enumerate(lines):
        n = i + 1
        if not raw.strip():
            continue
        try:
            ev = jsontext.loads(raw)
        except orjson.JSONDecodeError:
            if i < complete:
                skipped.append((n, "malformed JSON"))
            continue
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            skipped.append((n, "not an event"))
            continue
        data = as_dict(ev.get("data"))
        kind = ev["type"]
        ts = normalize_timestamp(ev.get("timestamp"))
        rid = f"{sid}:{_s(ev.get('id')) or n}"
        before = len(records)
        if kind == "session.start":
            sid = _s(data.get("sessionId")) or sid
            ctx = as_dict(data.get("context"))
            cwd = _s(ctx.get("cwd")) or cwd
        elif kind == "user.message":
            text = clean_text(_s(data.get("content")))
            if text:
                records.append(Record(f"{rid}#0", "user", "text", text, n, ts, cwd, author=_user_author(ev, data)))
        elif kind == "session.compaction_complete":
            text = _s(data.get("summaryContent")).strip()
            if text:
                records.append(Record(f"{rid}#0", "assistant", "summary", text, n, ts, cwd))
        elif kind == "assistant.reasoning":
            text = _s(data.get("content")).strip()
            if text:
                records.append(Record(f"{rid}#0", "assistant", "reasoning", text, n, ts, cwd))
        elif kind == "assistant.message":
            reasoning = _s(data.get("reasoningText")).strip()
            if reasoning:
                records.append(Record(f"{rid}#r", "assistant", "reasoning", reasoning, n, ts, cwd))
            text = clean_text(_s(data.get("content")))
            if text:
                records.append(Record(f"{rid}#0", "assistant", "text", text, n, ts, cwd))
            reqs = data.get("toolRequests")
            for k, req in enumerate(reqs if isinstance(reqs, list) else []):
                if not isinstance(req, dict):
                    continue
                name = _s(req.get("name")) or "tool"
                text, command = _call_text(name, req.get("arguments"))
                call_id = _s(req.get("toolCallId")) or f"{rid}#{k + 1}"
                records.append(Record(f"{rid}#{k + 1}", "tool", "tool", text, n, ts, cwd, name, call_id,
                                      command=command))
        elif kind == "tool.execution_complete":
            result = as_dict(data.get("result"))
            error = as_dict(data.get("error"))
            text = (block_text(result.get("content")) or _s(result.get("detailedContent"))
                    or _s(error.get("message"))).strip()
            if text:
                records.append(Record(f"{rid}#0", "tool", "tool", text, n, ts, cwd, None,
                                      _s(data.get("toolCallId")) or None, is_error=data.get("success") is False))
        agent = _s(ev.get("agentId"))
        if agent:
            agents.update((r.record_id, agent) for r in records[before:])
    subagents = {agent: SessionInfo(f"{sid}:{agent}", "copilot", cwd=cwd, is_sidechain=True, parent_session_id=sid)
                 for agent in set(agents.values())}
    return (SessionInfo(sid, "copilot", cwd=cwd), records, skipped,
            {rid: subagents[agent] for rid, agent in agents.items()})


def _workspace_title(folder: Path) -> str | None:
    try:
        text = (folder / "workspace.yaml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = re.search(r"^summary:\s*(.+)$", text, re.MULTILINE)
    return m.group(1).strip().strip("'\"") or None if m else None


def _log_holds(log: Path) -> bool:
    """Whether a chat's patch log sets its initial state (else the ``.json`` beside it is what there is: a log
    VS Code died writing, an empty one, a folder of that name)."""
    try:
        if not log.is_file():  # (never opened otherwise: a FIFO would hold the read)
            return False
        with log.open("rb") as fh:
            return replay([fh.readline(), b""])[0] is not None
    except OSError:
        return False


def read_whole(path: Path, state: dict) -> WholeRead:
    if _is_vscode(path) and path.suffix == ".json" and _log_holds(path.with_suffix(".jsonl")):
        return WholeRead([], {})  # migrated: the log beside it is the session (see the docstring)
    data = path.read_bytes()
    if _is_vscode(path) and path.suffix == ".jsonl":
        doc, skipped = replay(data.split(b"\n"))
        if doc is None:
            raise OSError("no initial state in the chat session log (empty, or being rewritten?)")
        session, records = vscode_records(doc, session_for(path), _workspace_folder(path.parent))
        return WholeRead([SourceUnit(str(path), session, records, skipped)], {})
    if _is_vscode(path):
        try:
            doc = jsontext.loads(data)
        except orjson.JSONDecodeError as exc:
            raise OSError(f"not a complete JSON document (being rewritten?): {exc}") from None
        if not isinstance(doc, dict):
            raise OSError(f"expected a JSON object, got {type(doc).__name__}")
        session, records = vscode_records(doc, session_for(path), _workspace_folder(path.parent))
        return WholeRead([SourceUnit(str(path), session, records)], {})
    session, records, skipped, subsessions = cli_records(data.split(b"\n"), session_for(path))
    title = _workspace_title(path.parent) if path.name == "events.jsonl" else None
    session = SessionInfo(session.session_id, "copilot", cwd=session.cwd, title=title)
    return WholeRead([SourceUnit(str(path), session, records, skipped, subsessions=subsessions)], {})


class _CopilotAgent(Agent):
    """In VS Code's ``workspaceStorage/<hash>/`` only ``chatSessions`` is walked."""

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None):
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
            here = Path(dirpath)
            if here.parent.name == "workspaceStorage":
                dirnames[:] = [d for d in dirnames if d == "chatSessions"]
            dirnames.sort()
            for name in sorted(filenames):
                if self.claims(here / name):
                    yield here / name


AGENT = _CopilotAgent("copilot", default_root, claims, session_for,
                      read_whole=read_whole, shell_tools=frozenset(SHELL_TOOLS), shares_root=True)
