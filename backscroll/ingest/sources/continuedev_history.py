"""What a Continue session's ``history`` holds, as records (``continuedev`` owns the files). Pure.

Each item is ``{message: {role, content, id?, toolCalls?}, contextItems, toolCallStates?, reasoning?,
conversationSummary?}``, or in the 2025 CLI's files an OpenAI message (``{role, content, tool_calls?,
tool_call_id?}``). Records: the person's text (``content``, a string or text parts; files attached as
``contextItems`` are not their words and are not stored; the ``continue`` the CLI writes after a compaction mid-turn
is the harness's), the assistant's text (``<think>`` left inline by the CLI is reasoning), ``thinking`` items and
``reasoning`` (reasoning), each tool call of ``toolCallStates`` (``toolCallState`` before July 2025, else
``message.toolCalls``) with its ``output`` (``errored`` or ``canceled``, or an editor's "Command failed" beside the
output, is an error; a call refused before it ran says so), the person's answer to the CLI's ``AskQuestion`` (theirs,
from the tool's own result), and ``conversationSummary`` (a summary); an editor's ``tool`` item repeats an output
and is read only when no state holds it.

Record ids survive a rewrite: the editor's message id (a prompt's with a hash of its text: the editor keeps the id
of a prompt edited and sent again, so its first wording keeps its record), a call's id, else a hash of the item's
role and text with its count (the CLI writes no ids), counted afresh after the summary a compacted history starts
with.
"""

from __future__ import annotations

import hashlib
import re

from backscroll.ingest.sources import (
    as_dict,
    as_list,
    as_str,
    block_text,
    call_text,
    clean_text,
    json_object,
    time_of,
)
from backscroll.ingest.sources.aider_reasoning import split_reasoning
from backscroll.ingest.sources.answers import answer_text
from backscroll.types import Record, SessionInfo

# The shell tool: the editors' (``builtin_`` before July 2025) and the CLI's.
SHELL_TOOLS = frozenset({"run_terminal_command", "builtin_run_terminal_command", "Bash"})
# The CLI's ``AskQuestion`` result (``tools/askQuestion.ts``): the person's answer.
_ANSWER = re.compile(r'User (?:selected option \d+|provided custom answer|answered): "(.*)"', re.DOTALL)
# What an editor's terminal tool says beside a command that failed (it returns normally).
_FAILED = ("Command failed", "Command timed out")


def text_of(content: object) -> str:
    """A message's text: a string, or its ``text`` parts (images are not read)."""
    if isinstance(content, str):
        return clean_text(content)
    parts = [p["text"] for p in as_list(content) if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return clean_text("\n".join(parts))


def hash_of(*parts: object) -> str:
    return hashlib.sha1("\0".join(map(str, parts)).encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _Ids:
    """Record ids that survive a rewrite: the message's own id (a prompt's with its text: the editor keeps the id of a
    prompt edited and sent again), else its role and text hashed, counted, after the summary the history starts with
    (a compaction's: what follows it is counted afresh)."""

    def __init__(self, session_id: str, seed: str):
        self.session_id, self.seed = session_id, seed
        self.seen: dict[str, int] = {}

    def of(self, message: dict, text: str) -> str:
        own = message.get("id")
        if isinstance(own, str) and own.strip():
            edited = f".{hash_of(text)[:8]}" if message.get("role") == "user" else ""
            return f"{self.session_id}:{own.strip()}{edited}"
        digest = hash_of(self.seed, message.get("role"), text)
        n = self.seen[digest] = self.seen.get(digest, 0) + 1
        return f"{self.session_id}:h{digest}.{n}"


def _output(state: dict) -> tuple[str, bool]:
    """A call's output, and whether it says the command failed (an editor's terminal: "Command failed with exit
    code 1" beside the output, in ``status``)."""
    texts, failed = [], False
    for out in map(as_dict, as_list(state.get("output"))):
        text, status = block_text(out.get("content")).strip(), as_str(out.get("status")).strip()
        if status.startswith(_FAILED):
            failed, text = True, f"{text}\n{status}".strip()
        if text:
            texts.append(text)
    return "\n".join(texts), failed


def _calls(item: dict, message: dict) -> list[tuple[str, str, object, str, bool]]:
    """``(call id, name, arguments, output, failed)`` of an item's tool calls."""
    states = item.get("toolCallStates")
    if not isinstance(states, list):
        states = [item["toolCallState"]] if isinstance(item.get("toolCallState"), dict) else []
    if not states:
        states = [{"toolCall": c} for c in as_list(message.get("toolCalls"))]
    out = []
    for st in states:
        if not isinstance(st, dict):
            continue
        call = as_dict(st.get("toolCall"))
        fn = as_dict(call.get("function"))
        call_id = as_str(st.get("toolCallId")) or as_str(call.get("id"))
        args = st.get("parsedArgs") if isinstance(st.get("parsedArgs"), dict) and st["parsedArgs"] else \
            fn.get("arguments")
        output, failed = _output(st)
        if not output and st.get("status") == "canceled":
            output = "canceled: the call did not run"
        out.append((call_id, as_str(fn.get("name")) or "tool", args, output,
                    failed or st.get("status") in ("errored", "canceled")))
    return out


def _openai_calls(message: dict) -> list[tuple[str, str, object, str, bool]]:
    return [(as_str(c.get("id")), as_str(as_dict(c.get("function")).get("name")) or "tool",
             as_dict(c.get("function")).get("arguments"), "", False)
            for c in as_list(message.get("tool_calls")) if isinstance(c, dict)]


def history_records(history: list, info: SessionInfo, runs: list[list]) -> tuple[list[Record], list[tuple[int, str]]]:
    """Records of a session's ``history`` (or a legacy CLI file's ``chatHistory``), each item dated by ``runs``."""
    records: list[Record] = []
    skipped: list[tuple[int, str]] = []
    sid, cwd = info.session_id, info.cwd
    opening = as_str(as_dict(history[0]).get("conversationSummary")) if history else ""
    ids = _Ids(sid, hash_of(opening)[:8] if opening else "")
    answered = {as_str(st.get("toolCallId")) for item in history if isinstance(item, dict)
                for st in as_list(item.get("toolCallStates")) + [item.get("toolCallState")]
                if isinstance(st, dict) and _output(st)[0]}
    prompted = False
    for n, item in enumerate(history, 1):
        legacy = isinstance(item, dict) and "message" not in item and "role" in item  # an OpenAI message
        message = item if legacy else as_dict(as_dict(item).get("message"))
        role = message.get("role")
        if not isinstance(item, dict) or not isinstance(role, str):
            skipped.append((n, "history item without a message role"))
            continue
        ts, text = time_of(runs, n), text_of(message.get("content"))
        if role == "user" and text:
            # the CLI's own prompt after a compaction mid-turn (its history starts with the summary)
            harness = bool(opening) and not prompted and text == "continue" and not message.get("id")
            records.append(Record(f"{ids.of(message, text)}#0", "user", "text", text, n, ts, cwd,
                                  author="harness" if harness else "human"))
            prompted = True
        elif role == "thinking" and message.get("redactedThinking"):
            continue  # (its content only says it is hidden)
        elif role in ("assistant", "thinking"):
            summary = clean_text(as_str(item.get("conversationSummary")))
            thought, answer = ("", text) if role == "assistant" else (text, "")
            if role == "assistant" and "<think" in text:
                thought, answer = split_reasoning(text)
            thought = thought or clean_text(as_str(as_dict(item.get("reasoning")).get("text")))
            base = ids.of(message, text)
            if thought:
                records.append(Record(f"{base}#r", "assistant", "reasoning", thought, n, ts, cwd))
            if answer and answer != summary:
                records.append(Record(f"{base}#0", "assistant", "text", clean_text(answer), n, ts, cwd))
            if summary:
                records.append(Record(f"{base}#s", "assistant", "summary", summary, n, ts, cwd))
            for k, (call_id, name, args, output, failed) in enumerate(
                    _openai_calls(message) if legacy else _calls(item, message)):
                key = f"{sid}:{call_id}" if call_id else f"{base}#c{k}"
                body, command = call_text(name, args, SHELL_TOOLS)
                records.append(Record(key, "tool", "tool", body, n, ts, cwd, name, call_id or None, command=command))
                if output:
                    records.append(Record(f"{key}.result", "tool", "tool", output, n, ts, cwd, None, call_id or None,
                                          is_error=failed))
                said = _ANSWER.fullmatch(output) if name == "AskQuestion" and not failed else None
                if said and clean_text(said.group(1)):
                    asked = as_dict(args if isinstance(args, dict) else json_object(args)).get("question")
                    text = answer_text([(asked, clean_text(said.group(1)), None)])
                    records.append(Record(f"{key}.answer", "user", "text", text, n, ts, cwd, author="human"))
        elif role == "tool":
            call_id = as_str(message.get("toolCallId") or message.get("tool_call_id"))
            output = block_text(message.get("content")).strip()
            if output and call_id not in answered:
                key = f"{sid}:{call_id}.result" if call_id else f"{ids.of(message, output)}.result"
                records.append(Record(key, "tool", "tool", output, n, ts, cwd, None, call_id or None))
        elif role != "system":  # (the CLI's own system prompt, in files of late August 2025)
            skipped.append((n, f"history item of role {role!r}"))
    return _unique(records), skipped


def _unique(records: list[Record]) -> list[Record]:
    """An id a history gives twice (a message id or a call id repeated) made unique by its count, in order."""
    from dataclasses import replace

    seen: dict[str, int] = {}
    out = []
    for rec in records:
        n = seen[rec.record_id] = seen.get(rec.record_id, 0) + 1
        out.append(rec if n == 1 else replace(rec, record_id=f"{rec.record_id}~{n}"))
    return out
