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

Records: the person's prompts (not a hook's ``additional_context``; a prompt with no time among timed ones, which
Kiro writes itself when a compaction keeps a turn of tool results or a resume asks for a summary, is the harness's;
what they typed instead of approving a call), replies, thinking, tool calls (``execute_bash``, ``execute_cmd`` and
``shell`` as their command; by the name the model gave, not the ``dummy`` a resume renames a missing tool to) and
results (an ``Error`` status, a non-zero exit or a signal is an error), and compaction summaries. Ids are Kiro's own
(``kiro:<message or call id>``; a prompt by the answer that follows it): a compaction continues under a new
conversation id with the turns it keeps copied, and an export to the event log renews the prompts' ids, so what they
repeat is stored once.
"""

from __future__ import annotations

import hashlib
import re

from backscroll.dates import normalize_timestamp
from backscroll.ingest.sources import as_dict, as_list, as_str, call_text, clean_text, first_of_each_id, render_input
from backscroll.types import Record, SessionInfo

SHELL_TOOLS = frozenset({"execute_bash", "execute_cmd", "shell", "executeBash", "executeCmd"})
_EXIT = re.compile(r"(?:exit status: )?(-?\d+)")
_OWN_PROMPTS = ("In a few words, summarize our conversation so far.", "Summarize what happened in this task execution")


class _Ids:
    """Kiro's own ids (``kiro:<message or call id>``: a compaction's copy and an export keep them, so what they
    repeat is stored once), else the conversation's id and a hash of the text with its count."""

    def __init__(self, sid: str):
        self.sid = sid
        self.seen: dict[str, int] = {}

    def of(self, own: object, kind: str, text: str) -> str:
        if isinstance(own, str) and own.strip():
            return f"kiro:{own.strip()}"
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
            exit_status = as_str(made.get("exit_status")).strip()
            status = _EXIT.fullmatch(exit_status)
            failed = failed or bool(status and int(status.group(1)) != 0) or exit_status.startswith("signal")
            plain = "\n".join(as_str(made[k]) for k in ("stdout", "stderr") if made.get(k))
            if not plain and failed:
                plain = exit_status  # (a command that failed and said nothing)
            texts.append(plain if plain or "exit_status" in made else render_input(value))
    return clean_text("\n".join(t for t in texts if t.strip())), failed


def _result(ids: _Ids, tool_use_id: str, blocks: object, error: bool, n: int, ts, cwd) -> list[Record]:
    said, failed = _output(blocks)
    if not said:
        return []
    return [Record(f"kiro:{tool_use_id}.result" if tool_use_id else ids.of(None, "result", said), "tool", "tool",
                   said, n, ts, cwd, None, tool_use_id or None, is_error=error or failed)]


def _call(ids: _Ids, call_id: str, name: str, args: object, n: int, ts, cwd) -> Record:
    body, command = call_text(name or "tool", args, SHELL_TOOLS)
    return Record(f"kiro:{call_id}" if call_id else ids.of(None, "call", body), "tool", "tool", body, n, ts, cwd,
                  name or "tool", call_id or None, command=command)


def state_records(state: dict, info: SessionInfo, fallback: str | None) -> list[Record]:
    """Records of a stored ``ConversationState``; ``fallback`` dates what has no time of its own."""
    out: list[Record] = []
    ids, cwd, ts = _Ids(info.session_id), info.cwd, fallback
    history = [{"user": e[0], "assistant": e[1]} if isinstance(e, list) and len(e) == 2 else as_dict(e)
               for e in as_list(state.get("history"))]  # (before Q 1.13: pairs)
    timed = any(as_dict(e.get("user")).get("timestamp") for e in history)
    for n, entry in enumerate(history, 1):
        user, assistant = as_dict(entry.get("user")), as_dict(entry.get("assistant"))
        meta = as_dict(as_dict(entry).get("request_metadata"))
        ts = normalize_timestamp(user.get("timestamp")) or ts
        tagged = as_dict(user.get("content"))  # (one variant: Prompt, ToolUseResults, CancelledToolUses)
        content = as_dict(next(iter(tagged.values()))) if len(tagged) == 1 else {}
        prompt = clean_text(as_str(content.get("prompt")))
        for result in map(as_dict, as_list(content.get("tool_use_results"))):
            out += _result(ids, as_str(result.get("tool_use_id")), result.get("content"),
                           result.get("status") == "Error", n, ts, cwd)
        if prompt:
            answered = as_dict(next(iter(assistant.values()), {})) if len(assistant) == 1 else {}
            # Kiro's own prompts carry no time where the person's do (a compaction's first turn, a resume's summary)
            own = (timed and not user.get("timestamp")) or prompt.startswith(_OWN_PROMPTS)
            out.append(Record(f"{ids.of(answered.get('message_id'), 'user', prompt)}#u", "user", "text", prompt, n,
                              ts, cwd, author="harness" if own else "human"))
        ts = normalize_timestamp(meta.get("stream_end_timestamp_ms")) or ts
        if len(assistant) == 1:
            said = as_dict(next(iter(assistant.values())))
            text = clean_text(as_str(said.get("content")))
            base = ids.of(said.get("message_id"), "assistant", text)
            thought = clean_text(as_str(as_dict(said.get("thinking")).get("text")))
            if thought:
                out.append(Record(f"{base}#r", "assistant", "reasoning", thought, n, ts, cwd))
            if text:
                out.append(Record(f"{base}#0", "assistant", "text", text, n, ts, cwd))
            for use in map(as_dict, as_list(said.get("tool_uses"))):
                # (the name the model gave, not the ``dummy`` a resume renames a call to a missing tool to)
                out.append(_call(ids, as_str(use.get("id")), as_str(use.get("orig_name") or use.get("name")),
                                 use.get("orig_args") or use.get("args"), n, ts, cwd))
    summary = state.get("latest_summary")
    summary = clean_text(as_str(summary[0] if isinstance(summary, list) and summary else summary))
    if summary:
        out.append(Record(f"{ids.of(None, 'summary', summary)}#s", "assistant", "summary", summary,
                          len(as_list(state.get("history"))) + 1, fallback, cwd))
    return first_of_each_id(out)


def log_records(lines: list[tuple[int, dict]], info: SessionInfo, fallback: str | None) -> list[Record]:
    """Records of the event log's lines ``(number, entry)``; a line without a time takes its turn's prompt's."""
    out: list[Record] = []
    ids, cwd, ts = _Ids(info.session_id), info.cwd, fallback
    # A prompt is keyed by the answer that follows it, as in the database (an export from it renews prompts' ids)
    answers: dict[int, object] = {}
    waiting: list[int] = []
    for n, entry in lines:
        if entry.get("kind") == "Prompt":
            waiting.append(n)
        elif entry.get("kind") == "AssistantMessage":
            answers.update((w, as_dict(entry.get("data")).get("message_id")) for w in waiting[-1:])
            waiting.clear()
    for n, entry in lines:
        kind, data = entry.get("kind"), as_dict(entry.get("data"))
        blocks = [as_dict(b) for b in as_list(data.get("content"))]
        base = ids.of(data.get("message_id"), str(kind), str(n))
        if kind == "Prompt":
            seconds = as_dict(data.get("meta")).get("timestamp")
            ts = normalize_timestamp(seconds) or ts
            text = clean_text("\n".join(as_str(b.get("data")) for b in blocks if b.get("kind") == "text"))
            if text:
                key = f"{ids.of(answers[n], 'user', text)}#u" if n in answers else f"{base}#0"
                out.append(Record(key, "user", "text", text, n, ts, cwd,
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
            for k, block in enumerate(blocks):
                result = as_dict(block.get("data")) if block.get("kind") == "toolResult" else {}
                if result:
                    out += _result(ids, as_str(result.get("toolUseId")), result.get("content"),
                                   result.get("status") == "error", n, ts, cwd)
                elif block.get("kind") == "text" and clean_text(as_str(block.get("data"))):  # (typed, not approving)
                    out.append(Record(f"{base}#{k}", "user", "text", clean_text(as_str(block.get("data"))), n, ts,
                                      cwd, author="human"))
        elif kind == "Compaction":
            summary = clean_text(as_str(data.get("summary")))
            if summary:
                out.append(Record(f"{ids.of(None, 'summary', summary)}#s", "assistant", "summary", summary, n, ts,
                                  cwd))
    return first_of_each_id(out)
