"""VS Code Copilot Chat's session document (``chatSessions/<id>.json``, or the ``.jsonl`` log replayed by
``copilot_log``) as records: the reply's markdown and file references, reasoning, tool calls paired with the
model's own calls and their results. The format is described in ``copilot.py``."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import orjson

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import as_dict, as_list, clean_text, jsontext, title_line
from backscroll.ingest.sources.copilot_calls import _call_text, _s
from backscroll.types import Record, SessionInfo

# Response part kinds: prose, reasoning and tool calls are read; the rest are UI state with no words.
VSCODE_PART_KINDS = {None, "markdownContent", "markdownVuln", "inlineReference", "thinking", "toolInvocationSerialized",
                     "toolInvocation", "prepareToolInvocation", "undoStop", "codeblockUri", "textEditGroup",
                     "mcpServersStarting"}

# An empty fenced block: where the model's reply shows an edit, VS Code stores the fences with nothing
# between them (the edit is a ``codeblockUri``/``textEditGroup`` part).
_EMPTY_FENCE = re.compile(r"^[ \t]*(`{3,})[\w-]*[ \t]*\n(?:[ \t]*\n)*[ \t]*\1[ \t]*(?:\n|$)", re.MULTILINE)


def _models_call(part: object) -> bool:
    """A tool invocation the model asked for; VS Code's own (``vscode_editFile_internal``, which applies
    an edit the model's call made) has no call in ``toolCallRounds`` and no words."""
    return (isinstance(part, dict) and part.get("kind") in ("toolInvocationSerialized", "toolInvocation")
            and not _s(part.get("toolId")).endswith("_internal"))


def _value(obj: object) -> str:
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict):
        value = obj.get("value")
        return value if isinstance(value, str) else _tsx_text(value.get("node")) if isinstance(value, dict) else ""
    return ""


def _tsx_text(node: object) -> str:
    """The text leaves of a serialized prompt-tsx tree (how tool results are stored)."""
    if not isinstance(node, dict):
        return ""
    if isinstance(node.get("text"), str):
        return node["text"]
    return "".join(_tsx_text(c) for c in as_list(node.get("children")))


def _reference(part: dict) -> str:
    """An ``inlineReference`` as the model wrote it in its sentence: the file name in backticks."""
    ref = as_dict(part.get("inlineReference"))
    uri = as_dict(ref.get("uri")) or ref
    name = _s(part.get("name")) or _s(ref.get("name")) or _s(uri.get("path") or uri.get("fsPath")).rsplit("/", 1)[-1]
    return f"`{name}`" if name else ""


def vscode_records(doc: dict, base: SessionInfo, cwd: str | None) -> tuple[SessionInfo, list[Record]]:
    sid = _s(doc.get("sessionId")) or base.session_id
    records: list[Record] = []
    requests = as_list(doc.get("requests"))
    title = _s(doc.get("customTitle")).strip() or None
    copied = _forked(requests, doc.get("creationDate"))
    for n, req in enumerate(requests, 1):
        if not isinstance(req, dict) or n <= copied:
            continue
        rid = f"{sid}:{_s(req.get('requestId')) or n}"
        ts = normalize_timestamp(req.get("timestamp"))
        message = as_dict(req.get("message"))
        text = clean_text(_s(message.get("text")))
        if text:
            title = title or title_line(text)
            # (a button the person clicked, "Continue" or a participant's, sends VS Code's words: a ``confirmation``)
            records.append(Record(f"{rid}#0", "user", "text", text, n, ts, cwd,
                                  author="harness" if _s(req.get("confirmation")) else None))
        metadata = as_dict(as_dict(req.get("result")).get("metadata"))
        results = as_dict(metadata.get("toolCallResults"))
        prose: list[str] = []
        parts = as_list(req.get("response"))
        # The parts' ``toolCallId`` is VS Code's own; the model's calls (name, arguments, the id its result
        # is stored under) are in ``toolCallRounds``, in the same order: paired when the counts agree.
        model_calls = [as_dict(c) for r in as_list(metadata.get("toolCallRounds"))
                       for c in as_list(as_dict(r).get("toolCalls"))]
        # (a subagent's calls, marked ``subAgentInvocationId``, are its own model's, not in these rounds)
        invocations = [p for p in parts if _models_call(p) and not p.get("subAgentInvocationId")]
        paired = iter(model_calls if len(model_calls) == len(invocations) else [{}] * len(invocations))

        def flush(i: int, prose: list[str] = prose, rid: str = rid, n: int = n, ts: str | None = ts) -> None:
            """The prose gathered so far, as one assistant text record."""
            body = clean_text(_EMPTY_FENCE.sub("", "".join(prose)))
            if body:
                records.append(Record(f"{rid}#{i}", "assistant", "text", body, n, ts, cwd))
            prose.clear()

        for i, part in enumerate(parts, 1):
            if not isinstance(part, dict):
                continue
            kind = part.get("kind")
            if kind in (None, "markdownContent", "markdownVuln") and _value(part.get("content", part)):
                prose.append(_value(part.get("content", part)))
            elif kind == "inlineReference":
                prose.append(_reference(part))
            elif kind == "thinking":
                flush(i)
                value = part.get("value")  # (``string | string[]``)
                body = "\n\n".join(map(_value, value) if isinstance(value, list) else [_value(value)]).strip()
                if body:
                    records.append(Record(f"{rid}#{i}t", "assistant", "reasoning", body, n, ts, cwd))
            elif _models_call(part):
                flush(i)
                model = {} if part.get("subAgentInvocationId") else next(paired, {})
                call_id = _s(part.get("toolCallId"))
                if call_id not in results:
                    call_id = _s(model.get("id")) or call_id or f"{rid}#{i}c"
                data = as_dict(part.get("toolSpecificData"))
                command = None
                if data.get("kind") == "terminal":
                    line = data.get("commandLine")
                    command = _s(line.get("original") if isinstance(line, dict) else line) or _s(data.get("command"))
                name = "run_in_terminal" if command else (_s(part.get("toolId")) or "tool")
                asked = _call_text(_s(model.get("name")), model.get("arguments"))[0] if model.get("name") else ""
                body = command or asked or _value(part.get("invocationMessage")) or _value(part.get("pastTenseMessage"))
                records.append(Record(f"{rid}#{i}c", "tool", "tool", body.strip() or name, n, ts, cwd, name, call_id,
                                      command=command or None))
                result = results.get(call_id)
                out = ""
                if isinstance(result, dict):
                    out = "\n".join(_value(c) for c in result.get("content", []) if _value(c)) \
                        if isinstance(result.get("content"), list) else ""
                if not out and isinstance(data.get("terminalCommandOutput"), dict):
                    out = _s(data["terminalCommandOutput"].get("text"))
                if out.strip():
                    records.append(Record(f"{rid}#{i}r", "tool", "tool", out.strip(), n, ts, cwd, None, call_id))
        flush(len(parts) + 1)
        records.extend(_after(req, metadata, rid, n, ts, cwd))
    return SessionInfo(sid, "copilot", cwd=cwd, title=title), records


def _forked(requests: list, created: object) -> int:
    """How many requests a forked conversation begins with that it copied from the one it was forked from (stored
    from there; a fork whose original was deleted before any sync keeps nothing of it): VS Code stamps each copy with
    the fork's creation time plus its index, complete at that instant."""
    if type(created) is not int:
        return 0
    n = 0
    while n < len(requests) and isinstance(req := requests[n], dict):
        when = req.get("timestamp")
        if when != created + n or as_dict(req.get("modelState")).get("completedAt") != when:
            break
        n += 1
    return n


def _after(req: dict, metadata: dict, rid: str, n: int, ts: str | None, cwd: str | None) -> list[Record]:
    """What a request's result adds after the reply: the conversation summaries Copilot wrote (``summaries``, the
    older ``summary``) and the failure the person saw instead of a reply (``errorDetails``, the harness's)."""
    summaries = [metadata.get("summary"), *as_list(metadata.get("summaries"))]
    texts = dict.fromkeys(clean_text(_s(as_dict(x).get("text")) if isinstance(x, dict) else _s(x)) for x in summaries)
    out = [Record(f"{rid}#s{k}", "assistant", "summary", t, n, ts, cwd) for k, t in enumerate(texts) if t]
    failed = clean_text(_s(as_dict(as_dict(req.get("result")).get("errorDetails")).get("message")))
    if failed:
        out.append(Record(f"{rid}#e", "user", "text", failed, n, ts, cwd, author="harness"))
    return out


def _workspace_folder(chat_sessions: Path) -> str | None:
    try:
        data = jsontext.loads((chat_sessions.parent / "workspace.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    uri = data.get("folder") if isinstance(data, dict) else None
    if not isinstance(uri, str) or not uri.startswith("file://"):
        return None
    return unquote(urlparse(uri).path) or None
