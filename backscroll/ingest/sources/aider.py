"""Aider chat logs: ``.aider.chat.history.md`` in each repository, found under configured roots.

Read from aider 0.86.3.dev (Aider-AI/aider ``aider/io.py``, ``aider/commands.py`` and
``aider/reasoning_tags.py``, May 2026). Aider appends Markdown to the file in the directory it runs
in (the repository root): ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (the local time, with no
zone: it is read in this machine's zone, ``$TZ``) opens a session, every user input line is written
as ``#### <line>`` ending in a Markdown line break (two spaces; the model's own ``####`` headings have
none), its own notes and command output as ``> `` lines (a note of several lines, such as test output
or a cost line, has only its first line quoted: the lines after it are the note's, up to the one that
ends the message with two spaces), and the model's reply as plain prose, raw:
reasoning a model streams is opened by Aider's own ``<thinking-content-<hash>>`` tag and closed by
that tag or the model's (``</think>``), and a model that writes its thoughts in its answer leaves
``<think>`` (or ``<thinking>``, ``<reasoning>``) tags there. A reply cut short (Ctrl-C) before the closing
tag is all reasoning. The ``► **THINKING**`` / ``► **ANSWER**`` rulers Aider prints on screen are read too.

Not everything after ``####`` was typed by the person. Aider logs a question it answered itself
from an earlier "(A)ll" as ``#### <question>: all``, then as every answer, ``> <question>: a``; it
logs ``/ask``, ``/code``, ``/architect`` and ``/context`` messages a second time, without the
prefix, when the new mode takes them; and it hands the architect's plan (the reply just logged, with
any reasoning the model wrote in it) to its editor model as input (architect mode: the banner's edit
format, or ``--architect`` on the command line logged first, as a banner may be cut short). These
echoes are dropped: the question and its answer stay once, in Aider's note; the message and the plan
once, as the person's and the model's. ``/help QUESTION`` hands its help model a prompt Aider writes (``# Question:``
and the docs it found), logged as input: that is Aider's, one note.

Aider keeps no per-user directory of sessions, so nothing is read by default: ``[roots] aider`` lists
the directories whose repositories are searched (``aider = ["~/code", "~/work"]``), or
``--source aider:PATH``. The chat log times only each session's start; ``.aider.input.history`` beside it
times each input and what follows it (``aider_inputs``).

Records: user inputs (``/ask``, ``/code``, ``/architect`` prefixes dropped), assistant replies and
their reasoning (``content_type="reasoning"``), and tool records: ``/run CMD`` and ``!CMD`` are calls
of the ``run`` tool whose quoted lines are the result (aider logs only its notes about the run, such
as "Added 3 lines of output to the chat", not the output itself); other ``/commands`` are calls named
for the command; ``/copy-context MESSAGE`` (the context and the message go to the clipboard, for a
chat elsewhere) is the person's message as user text and a bare ``/copy-context`` call. Aider's own
notes are tool output (a ``tool`` record without a tool name, the result of the command they follow,
if any): the start-up banner, warnings, confirmation questions with the answer given, token counts,
commits; a line saying Aider applied an edit to a file, or created one, is that edit's call (``aider_notes``).
What a person typed at the /run prompt "(y/n/instructions)" instead of y or n (Aider 0.46-0.63) is their words.
Being no one's words to the model, the notes are not user text (``author`` is for user text only). Each session is
one unit keyed ``<file>#<start>``; only the sessions from the last one read onwards are read again as it grows.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from backscroll.ingest.sources import (
    Agent,
    SourceUnit,
    WholeRead,
    _collect,
    aider_inputs,
    decoded,
    read_regular,
    title_line,
)
from backscroll.ingest.sources.aider_inputs import header_time, same_text
from backscroll.ingest.sources.aider_notes import parts, typed_instructions
from backscroll.ingest.sources.aider_reasoning import split_reasoning
from backscroll.types import Record, SessionInfo

FILE_NAME = ".aider.chat.history.md"
SHELL_TOOL = "run"
SHELL_TOOLS = {SHELL_TOOL}
_START = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\s*$")
_ARCHITECT_FLAG = re.compile(r"^\S*aider\b.*\s(--architect|--edit-format[= ]architect|--chat-mode[= ]architect)(\s|$)")
_ASK = re.compile(r"^/(ask|code|architect|context|help)\s+", re.IGNORECASE)
# confirm_ask's options and default, then the answer: "Add file to the chat? (Y)es/(N)o [Yes]: y".
_CONFIRMATION = re.compile(r"\(Y\)es/\(N\)o(?:/\(A\)ll)?(?:/\(S\)kip all)?(?:/\(D\)on't ask again)?"
                           r" \[[^\]\n]*\]: ?\S*$")
_COPY_CONTEXT = re.compile(r"^/copy-context\s+", re.IGNORECASE)
# ``append_chat_history`` ends every message with ``text.rstrip() + "  "``; a note (``tool_output``) quotes only its
# first line, so the lines after an unclosed ``> `` line are the note's, up to the one that closes it.
_MESSAGE_END = re.compile(r"\S  \r?$")
_MODE_LINE = re.compile(r"^\s*-\*-.*-\*-\s*$")  # an Emacs mode line someone put on line 1 (Aider writes none)


def default_root(env):
    return []  # configured only: [roots] aider = ["~/code"]


def claims(path: Path) -> bool:
    return path.name == FILE_NAME


class _AiderAgent(Agent):
    """Walks a tree of repositories for chat logs, skipping dependency and VCS folders."""

    _SKIP = {".git", "node_modules", ".venv", "venv", "__pycache__", ".tox", "target", "dist", "build"}

    def discover(self, root: Path, errors: list[OSError] | None = None, known=None):
        import os

        if root.is_file():
            if claims(root):
                yield root
            return
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=_collect(errors)):
            dirnames[:] = sorted(d for d in dirnames if d not in self._SKIP)
            if FILE_NAME in filenames:
                yield Path(dirpath, FILE_NAME)


def _path_tag(path: Path) -> str:
    return hashlib.sha1(str(path.parent).encode()).hexdigest()[:8]


def session_for(path: Path) -> SessionInfo:
    return SessionInfo(f"aider-{_path_tag(path)}", "aider", cwd=str(path.parent))


def _blocks(lines: list[str]) -> list[tuple[str, int, list[str]]]:
    """Consecutive lines grouped by kind: ``user`` (####), ``quote`` (>, with the unquoted lines of a note
    that is not closed yet), ``prose``; with 1-based line."""
    out: list[tuple[str, int, list[str]]] = []
    note_open = False
    # (a "#### " line without the line break, where inputs have it, is a heading of the model's reply)
    breaks = any(line.startswith("#### ") and line.rstrip("\r").endswith("  ") for line in lines)
    for n, line in enumerate(lines, 1):
        if line.startswith("#### ") and breaks and not line.rstrip("\r").endswith("  "):
            kind, body = "prose", line
        elif line.startswith("#### ") or line.rstrip() == "####":
            kind, body = "user", line[5:]
        elif line.startswith("> ") or line.rstrip() == ">":
            kind, body = "quote", line[2:]
        elif note_open:
            kind, body = "quote", line
        else:
            kind, body = "prose", line
        note_open = kind == "quote" and not _MESSAGE_END.search(line) and line.rstrip() != ">"
        body = body.rstrip("\r")
        body = body[:-2] if body.endswith("  ") else body
        if out and out[-1][0] == kind and (kind != "user" or lines[n - 2].rstrip("\r").endswith("  ")):
            out[-1][2].append(body)
        else:
            out.append((kind, n, [body]))
    return out


def is_aiders_own_answer(user_text: str) -> bool:
    """A ``####`` line that is a confirmation question with its answer: Aider answered it itself."""
    return "\n" not in user_text and _CONFIRMATION.search(user_text) is not None


def session_records(lines: list[str], first_line: int, session: SessionInfo, ts: str | None,
                    typed: list[aider_inputs.Typed] | None = None, clock: aider_inputs.Clock | None = None
                    ) -> tuple[list[Record], str | None]:
    """The records of one session's lines (after its header) and its title; ``ts``: the header's time, and
    ``typed`` the input history's entries of the session (``aider_inputs``), which time its inputs."""
    clock = clock or aider_inputs.Clock(typed or [], ts)
    records: list[Record] = []
    title = None
    call: str | None = None
    cwd = session.cwd
    # What Aider may log again as the next input: an /ask-style message (the new mode takes it), or
    # the answer just given when it is an architect's plan (the editor model takes it as its input).
    relogged: str | None = None
    architect = False  # the session is in architect mode (start-up banner, /chat-mode)
    planning = False  # the answer to come is an architect's plan
    helping = False  # after ``/help QUESTION``: the help coder's prompt may follow, logged as inputs
    prompt: int | None = None  # the record that holds it
    for kind, n, body in _blocks(lines):
        line = first_line + n - 1
        rid = f"{session.session_id}:{line}"
        text = "\n".join(body).strip()
        if not text:
            continue
        if kind == "user":
            call = None
            expected, relogged = relogged, None
            if text == "<blank>" or is_aiders_own_answer(text):
                continue
            if helping and (prompt is not None or text.startswith("# Question:")):  # Aider's, not the person's
                if prompt is None:
                    prompt = len(records)
                    records.append(Record(f"{rid}#0", "tool", "tool", text, line, ts, cwd))
                else:
                    records[prompt] = replace(records[prompt], text=f"{records[prompt].text}\n{text}")
                continue
            helping = False
            if expected is not None and (same_text(text, expected) or same_text(split_reasoning(text)[1], expected)):
                continue
            ts = clock.at(text)  # (not for what Aider logged again: nobody typed it)
            planning = architect
            if text.lower().startswith("/chat-mode"):
                architect = text.split()[1:2] == ["architect"]
            command = None
            if text.startswith("!"):
                command = text[1:].strip()
            elif text.startswith("/run "):
                command = text[5:].strip()
            if command:
                records.append(Record(f"{rid}#0", "tool", "tool", command, line, ts, cwd, SHELL_TOOL, rid,
                                      command=command))
                call = rid
            elif _COPY_CONTEXT.match(text):
                message = _COPY_CONTEXT.sub("", text, count=1).strip()
                title = title or title_line(message)
                records.append(Record(f"{rid}#0", "user", "text", message, line, ts, cwd))
                records.append(Record(f"{rid}#1", "tool", "tool", "/copy-context", line, ts, cwd, "/copy-context", rid))
                call = rid
            elif text.startswith("/") and not _ASK.match(text):
                name = text.split()[0]
                records.append(Record(f"{rid}#0", "tool", "tool", text, line, ts, cwd, name, rid))
                call = rid
            else:
                asked = _ASK.match(text)
                text = _ASK.sub("", text, count=1).strip()
                if asked and asked.group(1).lower() != "help":
                    relogged = text
                    planning = asked.group(1).lower() == "architect"
                helping, prompt = bool(asked and asked.group(1).lower() == "help"), None
                if text:
                    title = title or title_line(text)
                    records.append(Record(f"{rid}#0", "user", "text", text, line, ts, cwd))
        elif kind == "quote":
            helping = False
            for at, part, tool in parts(body):
                part_id = f"{session.session_id}:{line + at}"
                if tool is not None:  # a file Aider changed: the call of its edit
                    records.append(Record(f"{part_id}#0", "tool", "tool", part, line + at, ts, cwd, tool, part_id))
                    continue
                part, instructions = typed_instructions(part)
                records.append(Record(f"{part_id}#0", "tool", "tool", part, line + at, ts, cwd, None, call))
                if instructions:  # the person's words; Aider 0.54-0.63 logs them again as the next input
                    records.append(Record(f"{part_id}#u", "user", "text", instructions, line + at, ts, cwd))
                    relogged = instructions
            call = None
            architect = architect or "with architect edit format" in text or bool(_ARCHITECT_FLAG.search(text))
        else:
            call, helping = None, False
            reasoning, answer = split_reasoning(text)
            if reasoning:
                records.append(Record(f"{rid}#r", "assistant", "reasoning", reasoning, line, ts, cwd))
            if answer:
                records.append(Record(f"{rid}#0", "assistant", "text", answer, line, ts, cwd))
                relogged = answer if planning else None
    if typed and clock.times is None:  # (the inputs are known now: read again, each at the time it was typed)
        return session_records(lines, first_line, session, clock.start, typed, clock.aligned())
    return records, title


def parse(data: str, path: Path, from_line: int = 1, typed: list[aider_inputs.Typed] | None = None
          ) -> list[SourceUnit]:
    """Every session that starts at or after ``from_line`` (the lines before the first header are one too);
    ``typed``: the input history's entries, which time the inputs."""
    base = session_for(path)
    lines = data.split("\n")
    if lines and _MODE_LINE.match(lines[0]):
        lines[0] = ""
    starts: list[tuple[int, str | None]] = []
    for n, line in enumerate(lines, 1):
        m = _START.match(line)
        if m and aider_inputs.is_time(at := f"{m.group(1)}T{m.group(2)}"):  # (9999-99-99, quoted in a reply: text)
            starts.append((n, at))
    if not starts or starts[0][0] > 1 and any(x.strip() for x in lines[: starts[0][0] - 1]):
        starts.insert(0, (1, None))
    units, seen = [], Counter[str]()
    for i, (start, when) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else len(lines)
        sid = f"{base.session_id}-{(when or 'start').replace(':', '').replace('-', '')}"
        seen[sid] += 1
        sid += f"-{seen[sid]}" if seen[sid] > 1 else ""  # (scripted runs started in the same second)
        if end < from_line:
            continue
        session = SessionInfo(sid, "aider", cwd=base.cwd)
        body = lines[start:end] if when else lines[start - 1:end]
        until = starts[i + 1][1] if i + 1 < len(starts) else None
        own = aider_inputs.within(typed or [], datetime.fromisoformat(when) if when else None,
                                  datetime.fromisoformat(until) if until else None)
        records, title = session_records(body, start + 1 if when else start, session, header_time(when), own)
        units.append(SourceUnit(f"{path}#{start}", SessionInfo(sid, "aider", cwd=base.cwd, title=title), records))
    return units


def read_whole(path: Path, state: dict) -> WholeRead:
    data = decoded(path.read_bytes())
    last = stored if isinstance(stored := state.get("last_start"), int) else 1
    size = stored if isinstance(stored := state.get("size"), int) else 0
    if len(data.encode()) < size:
        last = 1  # the file was cut or replaced: read it all again
    try:
        typed = aider_inputs.entries(decoded(read_regular(path.with_name(aider_inputs.FILE_NAME),
                                                          aider_inputs.MAX_BYTES)))
    except OSError:  # (none, or unreadable: the inputs keep their session's start time)
        typed = []
    units = parse(data, path, last, typed)
    starts = [int(u.key.rsplit("#", 1)[1]) for u in units]
    return WholeRead(units, {"last_start": max(starts) if starts else last, "size": len(data.encode())})


AGENT = _AiderAgent("aider", default_root, claims, session_for,
                    read_whole=read_whole, shell_tools=frozenset(SHELL_TOOLS))
