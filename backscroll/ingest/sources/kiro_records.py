"""What the Kiro CLI's conversations hold, as records (``kiro`` owns the files). Pure.

Two shapes, read from the Amazon Q Developer CLI's source (aws/amazon-q-developer-cli, ``crates/chat-cli``) and the
Kiro CLI 2.2.1 source published on its ``sync-prod-from-main`` branch, with the real conversations among its fixtures:

* ``ConversationState`` (the SQLite stores): ``{conversation_id, history: [{user, assistant, request_metadata}]
  (before Q 1.13 ``[user, assistant]`` pairs), latest_summary}``; a user's ``content`` is ``{"Prompt": {prompt}}``,
  ``{"ToolUseResults": {tool_use_results}}`` or ``{"CancelledToolUses": {prompt, tool_use_results}}``; an assistant's
  ``{"Response": {message_id, content}}`` or ``{"ToolUse": {message_id, content, tool_uses}}``.
* the event log (``~/.kiro/sessions/cli/<id>.jsonl``): ``{"version": "v1", "kind": …, "data": …}`` lines, ``Prompt``,
  ``AssistantMessage``, ``ToolResults``, ``Compaction`` (its summary; its snapshot repeats earlier messages), and
  ``ResetTo``, ``CancelledPrompt``, ``Clear`` (nothing to store).

Records: the person's prompts (not a hook's ``additional_context``), replies, thinking, tool calls (``execute_bash``,
``execute_cmd`` and ``shell`` as their command) and results (an ``Error`` status or a non-zero exit is an error), and
compaction summaries. Ids are the messages' and calls' own, else a hash of the text with its count: a compaction drops
the start of a stored history, so a place in it is no id.
"""

from __future__ import annotations

import hashlib
import re

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import as_dict, as_list, as_str, call_text, clean_text, render_input
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = frozenset({"execute_bash", "execute_cmd", "shell", "executeBash", "executeCmd"})
_EXIT = re.compile(r"(?:exit status: )?(-?\d+)")


class _Ids:
    def __init__(self, sid: str):
        self.sid = sid
        self.seen: dict[str, int] = {}

    def of(self, own: object, kind: str, text: str) -> str:
        if isinstance(own, str) and own.strip():
            return f"{self.sid}:{own.strip()}"
        digest = hashlib.sha1(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        n = self.seen[digest] = self.seen.get(digest, 0) + 1
        return f"{self.sid}:h{digest}.{n}"


def _output(blocks: object) -> tuple[str, bool]:
    """A tool result's text (``{"Text": …}`` / ``{"Json": …}``, or the log's ``{kind, data}``), and whether a shell's
    exit status says it failed."""
    texts, failed = [], False
    for block in map(as_dict, as_list(blocks)):
        kind = as_str(block.get("kind")).lower()
        value = block.get("data") if kind else next(iter(block.values()), None) if len(block) == 1 else block
        kind = kind or (next(iter(block)).lower() if len(block) == 1 else "")
        if kind == "text":
            texts.append(as_str(value))
        elif kind == "json":
            made = as_dict(value)
            status = _EXIT.fullmatch(as_str(made.get("exit_status")).strip())
            failed = failed or bool(status and int(status.group(1)) != 0)
            plain = "\n".join(as_str(made[k]) for k in ("stdout", "stderr") if made.get(k))
            texts.append(plain if plain or "exit_status" in made else render_input(value))
    return clean_text("\n".join(t for t in texts if t.strip())), failed


def _result(ids: _Ids, tool_use_id: str, blocks: object, error: bool, n: int, ts, cwd) -> list[Record]:
    said, failed = _output(blocks)
    if not said:
        return []
    return [Record(f"{ids.sid}:{tool_use_id}.result" if tool_use_id else ids.of(None, "result", said), "tool", "tool",
                   said, n, ts, cwd, None, tool_use_id or None, is_error=error or failed)]


def _call(ids: _Ids, call_id: str, name: str, args: object, n: int, ts, cwd) -> Record:
    body, command = call_text(name or "tool", args, SHELL_TOOLS)
    return Record(f"{ids.sid}:{call_id}" if call_id else ids.of(None, "call", body), "tool", "tool", body, n, ts, cwd,
                  name or "tool", call_id or None, command=command)


def state_records(state: dict, info: SessionInfo, fallback: str | None) -> list[Record]:
    """Records of a stored ``ConversationState``; ``fallback`` dates what has no time of its own."""
    out: list[Record] = []
    ids, cwd, ts = _Ids(info.session_id), info.cwd, fallback
    for n, entry in enumerate(as_list(state.get("history")), 1):
        if isinstance(entry, list) and len(entry) == 2:  # (before Q 1.13: a pair)
            entry = {"user": entry[0], "assistant": entry[1]}
        user, assistant = as_dict(as_dict(entry).get("user")), as_dict(as_dict(entry).get("assistant"))
        meta = as_dict(as_dict(entry).get("request_metadata"))
        ts = normalize_timestamp(user.get("timestamp")) or ts
        tagged = as_dict(user.get("content"))  # (one variant: Prompt, ToolUseResults, CancelledToolUses)
        content = as_dict(next(iter(tagged.values()))) if len(tagged) == 1 else {}
        prompt = clean_text(as_str(content.get("prompt")))
        for result in map(as_dict, as_list(content.get("tool_use_results"))):
            out += _result(ids, as_str(result.get("tool_use_id")), result.get("content"),
                           result.get("status") == "Error", n, ts, cwd)
        if prompt:
            out.append(Record(f"{ids.of(None, 'user', prompt)}#0", "user", "text", prompt, n, ts, cwd, author="human"))
        ts = normalize_timestamp(meta.get("stream_end_timestamp_ms")) or ts
        if len(assistant) == 1:
            (_variant, said), = assistant.items()
            said = as_dict(said)
            text = clean_text(as_str(said.get("content")))
            base = ids.of(said.get("message_id"), "assistant", text)
            thought = clean_text(as_str(as_dict(said.get("thinking")).get("text")))
            if thought:
                out.append(Record(f"{base}#r", "assistant", "reasoning", thought, n, ts, cwd))
            if text:
                out.append(Record(f"{base}#0", "assistant", "text", text, n, ts, cwd))
            for use in map(as_dict, as_list(said.get("tool_uses"))):
                out.append(_call(ids, as_str(use.get("id")), as_str(use.get("name") or use.get("orig_name")),
                                 use.get("args"), n, ts, cwd))
    summary = state.get("latest_summary")
    summary = clean_text(as_str(summary[0] if isinstance(summary, list) and summary else summary))
    if summary:
        out.append(Record(f"{ids.of(None, 'summary', summary)}#s", "assistant", "summary", summary,
                          len(as_list(state.get("history"))) + 1, fallback, cwd))
    return _unique(out)


def log_records(lines: list[tuple[int, dict]], info: SessionInfo, fallback: str | None) -> list[Record]:
    """Records of the event log's lines ``(number, entry)``; a line without a time takes its turn's prompt's."""
    out: list[Record] = []
    ids, cwd, ts = _Ids(info.session_id), info.cwd, fallback
    for n, entry in lines:
        kind, data = entry.get("kind"), as_dict(entry.get("data"))
        blocks = [as_dict(b) for b in as_list(data.get("content"))]
        base = ids.of(data.get("message_id"), str(kind), str(n))
        if kind == "Prompt":
            seconds = as_dict(data.get("meta")).get("timestamp")
            ts = normalize_timestamp(seconds) or ts
            text = clean_text("\n".join(as_str(b.get("data")) for b in blocks if b.get("kind") == "text"))
            if text:
                out.append(Record(f"{base}#0", "user", "text", text, n, ts, cwd,
                                  author="agent" if info.is_sidechain and not out else "human"))
        elif kind == "AssistantMessage":
            for k, block in enumerate(blocks):
                value = block.get("data")
                if block.get("kind") == "text" and clean_text(as_str(value)):
                    out.append(Record(f"{base}#{k}", "assistant", "text", clean_text(as_str(value)), n, ts, cwd))
                elif block.get("kind") == "thinking" and clean_text(as_str(as_dict(value).get("text"))):
                    out.append(Record(f"{base}#{k}", "assistant", "reasoning",
                                      clean_text(as_str(as_dict(value).get("text"))), n, ts, cwd))
                elif block.get("kind") == "toolUse":
                    use = as_dict(value)
                    out.append(_call(ids, as_str(use.get("toolUseId")), as_str(use.get("name")), use.get("input"),
                                     n, ts, cwd))
        elif kind == "ToolResults":
            for block in blocks:
                result = as_dict(block.get("data")) if block.get("kind") == "toolResult" else {}
                if result:
                    out += _result(ids, as_str(result.get("toolUseId")), result.get("content"),
                                   result.get("status") == "error", n, ts, cwd)
        elif kind == "Compaction":
            summary = clean_text(as_str(data.get("summary")))
            if summary:
                out.append(Record(f"{ids.of(None, 'summary', summary)}#s", "assistant", "summary", summary, n, ts,
                                  cwd))
    return _unique(out)


def _unique(records: list[Record]) -> list[Record]:
    kept: dict[str, Record] = {}
    for rec in records:  # (an id given twice: the first)
        kept.setdefault(rec.record_id, rec)
    return list(kept.values())
