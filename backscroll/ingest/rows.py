"""Records into store rows: capped, redacted, SQLite-safe, hashed and echo-classified.

Owns the row tuple (in ``store.db.RECORD_COLUMNS`` order), the batch that builds the rows of one
source key (a tool result takes its call's name and echo flag), and the helpers that make a
session's strings storable (a path's undecodable bytes as ``\\xNN``, redaction of title and cwd).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import replace

from backscroll.ingest import echo as classify
from backscroll.ingest.echo_output import is_retrieval_output
from backscroll.ingest.projects import project
from backscroll.ingest.recall_blocks import split_recall
from backscroll.ingest.redact_again import RULES_VERSION
from backscroll.sanitize import plain_id, printable, short_of_marks
from backscroll.store.db import RECORD_COLUMNS, Store, content_hash
from backscroll.types import MAX_TEXT_BYTES, Record, SessionInfo

Redact = Callable[[str], str]  # a redactor: text in, secrets replaced out (``redact.Redactor`` counts them too)
Row = tuple[object, ...]
_AUTHOR, _ECHO = RECORD_COLUMNS.index("author"), RECORD_COLUMNS.index("is_echo")


def store_text(text: str) -> str:
    """``text`` as SQLite can store it: a path's undecodable bytes (surrogate escapes) as ``\\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


_ESCAPED_BYTE = re.compile(rb"\\x([89a-f][0-9a-f])")  # (store_text escapes only bytes that are not ASCII)


def disk_path(stored: str) -> str:
    """The path a stored one names on disk: as written, or with the ``\\xNN`` that ``store_text`` wrote for a byte
    that is not UTF-8 read back as that byte (when that file is there)."""
    if "\\x" not in stored or os.path.lexists(stored):
        return stored
    raw = os.fsdecode(_ESCAPED_BYTE.sub(lambda m: bytes([int(m.group(1), 16)]), stored.encode("utf-8")))
    return raw if os.path.lexists(raw) else stored


def on_disk(stored: str) -> bool:
    """Whether the file a stored path names is there (``disk_path``)."""
    return os.path.lexists(disk_path(stored))


def store_value(value: object) -> object:
    return store_text(value) if isinstance(value, str) else value


def _store_optional(value: str | None) -> str | None:
    return None if value is None else store_text(value)


def safe_session(session: SessionInfo) -> SessionInfo:
    """The session with every string SQLite-safe."""
    return replace(session, session_id=store_text(session.session_id),
                   parent_session_id=_store_optional(session.parent_session_id),
                   cwd=_store_optional(session.cwd), title=_store_optional(session.title))


def safe_rows(rows: list[Row]) -> list[Row]:
    return [tuple(store_value(v) for v in row) for row in rows]


# Characters of a record redacted before it is capped: all it can keep (a character is at least a byte) and a
# margin for a secret that runs over the cap (a private key is a few KiB).
REDACT_WINDOW = MAX_TEXT_BYTES + 64 * 1024


def redaction_window(text: str) -> str:
    """What of a long text is redacted: ``REDACT_WINDOW`` characters, ended at white space where there is some
    near the end, so that no token is cut in two (redaction shrinks a text: a token's cut head could come back
    inside the cap)."""
    if len(text) <= REDACT_WINDOW:
        return text
    space = max(text.rfind(" ", 0, REDACT_WINDOW), text.rfind("\n", 0, REDACT_WINDOW))
    return text[:space] if space > REDACT_WINDOW - 32 * 1024 else text[:REDACT_WINDOW]


def cap_text(text: str) -> tuple[str, bool]:
    """``text`` cut to ``MAX_TEXT_BYTES`` of UTF-8 (before a redaction mark the cut would leave half), and whether
    it was cut."""
    if len(text) * 4 <= MAX_TEXT_BYTES:
        return text, False
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_TEXT_BYTES:
        return text, False
    return short_of_marks(data[:MAX_TEXT_BYTES].decode("utf-8", "ignore")), True


def redact_field(redactor: Redact | None, value: str | None) -> str | None:
    return redactor(value) if value and redactor is not None else value


# Characters of an id, a working directory, a remote URL or a tool name a log gives that are kept: far more than any
# agent writes (a Cline SDK id, which grows with each tool round, runs to about 160), so that a log cannot make every
# answer that names them unbounded.
MAX_FIELD = 1000


def bounded(value: str | None) -> str | None:
    """A working directory, remote URL or tool name as stored: cut at ``MAX_FIELD`` characters, marked so."""
    return value if value is None or len(value) <= MAX_FIELD else value[:MAX_FIELD - 1] + "…"


def stored_session(session: SessionInfo, redactor: Redact | None) -> SessionInfo:
    """The session as stored: its ids as ``stored_session_id`` keeps them, its strings (title, cwd, remote URL,
    questions awaiting their answer) redacted, its places bounded."""
    sid, parent = (stored_session_id(i, redactor) for i in (session.session_id, session.parent_session_id))
    if (sid, parent) != (session.session_id, session.parent_session_id):
        session = replace(session, session_id=sid or "", parent_session_id=parent)
    if not (session.title or session.cwd or session.repository or session.questions):
        return session
    return replace(session, title=redact_field(redactor, session.title),
                   cwd=bounded(redact_field(redactor, session.cwd)),
                   repository=bounded(redact_field(redactor, session.repository)),
                   questions=tuple((c, i, redact_field(redactor, q) or "") for c, i, q in session.questions))


def _digest(value: str) -> str:
    return "x" + hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def stored_id(record_id: str, redact: Redact | None = None) -> str:
    """A log's record id as stored: as it is when plain (``sanitize.plain_id``: one shell word, no option), within
    ``MAX_FIELD`` and free of secrets (``redact`` leaves it as it is); else ``x`` and a digest of it, the same on every
    read, so that no id a log makes up (``a;touch x``, an escape, a token, a megabyte) reaches a command line or an
    agent's context."""
    if len(record_id) <= MAX_FIELD and plain_id(record_id) and (redact is None or redact(record_id) == record_id):
        return record_id
    return _digest(record_id)


def stored_session_id(session_id: str | None, redact: Redact | None = None) -> str | None:
    """A log's session id as stored: as it is unless it runs past ``MAX_FIELD``, holds a character that does not show
    as itself (a control, an escape, a bidi mark) or a secret; then ``x`` and a digest of it, as ``stored_id``. A
    space or a quote stays (every command backscroll prints quotes it), so that ``resume`` names the agent's own."""
    if session_id is None or (len(session_id) <= MAX_FIELD and printable(session_id) == session_id
                              and (redact is None or redact(session_id) == session_id)):
        return session_id
    return _digest(session_id)


class Batch:
    """Store rows for the records of one source key: capped, redacted, hashed and echo-classified.

    A tool call is an echo when its command runs backscroll retrieval; a tool result takes its
    call's name and echo flag (from this batch, or from the store when the call came earlier).
    A call whose source gave a ``command`` is stored with ``is_shell``: re-classification revisits
    exactly those calls.
    """

    def __init__(self, store: Store, key: str, redactor: Redact | None):
        self.store = store
        self.key = key
        self.redactor = redactor
        self.rows: list[Row | None] = []
        self.pending_results: list[tuple[Record, SessionInfo]] = []
        self.calls: dict[str, tuple[str | None, bool]] = {}
        self.call_rows: dict[str, int] = {}  # where this batch put each call's row
        self.stored_echo_calls: list[tuple[str, str]] = []  # (session, call id): stored calls found echoes by output
        self.first_ts: str | None = None
        self.last_ts: str | None = None
        self._fields: dict[str, str | None] = {}
        self._ids: dict[str | None, str | None] = {}

    def _field(self, value: str | None) -> str | None:
        """A cwd, remote URL or tool name as stored: redacted, bounded, once per batch (they repeat on each record)."""
        if not value:
            return value
        if value not in self._fields:
            self._fields[value] = bounded(self.redactor(value) if self.redactor is not None else value)
        return self._fields[value]

    def _session_id(self, value: str | None) -> str | None:
        """A session id as stored (``stored_session_id``), once per batch."""
        if value not in self._ids:
            self._ids[value] = stored_session_id(value, self.redactor)
        return self._ids[value]

    def _row(self, rec: Record, session: SessionInfo, is_echo: bool, tool_name: str | None) -> Row:
        text, cwd = rec.text, rec.cwd or session.cwd
        home = session.cwd or cwd  # a session belongs to one project: its first cwd; each line keeps its own
        if self.redactor is not None:  # before the cap: a secret the cap cut in two would no longer match a rule
            text = self.redactor(redaction_window(text))
        cwd, tool_name, home = self._field(cwd), self._field(tool_name), self._field(home)
        text, truncated = cap_text(text)
        truncated = truncated or len(rec.text) > REDACT_WINDOW
        remote = self._field(session.repository)  # a secret in the log's remote URL never names the project
        # a subagent's prompts are its parent agent's (every reader that knows says so; this is for those that do not)
        author = rec.author or (("agent" if session.is_sidechain else "human") if rec.role == "user" else None)
        return (
            stored_id(rec.record_id, self.redactor), self._session_id(session.session_id), session.agent,
            project(home, remote), cwd,
            rec.role, rec.content_type, tool_name, rec.tool_call_id, int(is_echo), int(rec.is_error), rec.timestamp,
            self.key, rec.line, text, int(truncated), content_hash(text), int(session.is_sidechain),
            self._session_id(session.parent_session_id), int(rec.tool_name is not None), author,
            int(rec.tool_name is not None and rec.command is not None),
            RULES_VERSION if self.redactor is not None else 0,
        )

    def add(self, rec: Record, session: SessionInfo) -> None:
        if rec.timestamp:
            if self.first_ts is None or rec.timestamp < self.first_ts:
                self.first_ts = rec.timestamp
            if self.last_ts is None or rec.timestamp > self.last_ts:
                self.last_ts = rec.timestamp
        if rec.tool_name is not None:  # a tool call
            echo = (rec.echo or classify.is_mcp_echo(rec.tool_name)
                    or (classify.is_query_echo(rec.command) if rec.command is not None else False))
            if rec.tool_call_id:
                self.calls[rec.tool_call_id] = (rec.tool_name, echo)
                self.call_rows[rec.tool_call_id] = len(self.rows)
            self.rows.append(self._row(rec, session, echo, rec.tool_name))
        elif rec.tool_call_id:  # a tool result: named and classified by its call, or by what it shows
            if rec.tool_call_id in self.calls:
                name, echo = self.calls[rec.tool_call_id]
                if not echo and is_retrieval_output(rec.text):
                    echo = self._call_is_echo(rec.tool_call_id)
                self.rows.append(self._row(rec, session, echo, name))
            else:
                self.pending_results.append((rec, session))
                self.rows.append(None)  # placeholder keeps the order; filled in finish()
        else:
            self._add_text(rec, session)

    def _call_is_echo(self, call_id: str) -> bool:
        """The call whose output was backscroll's answer is an echo, with its results from now on."""
        name, _echo = self.calls[call_id]
        self.calls[call_id] = (name, True)
        at = self.call_rows.get(call_id)
        row = self.rows[at] if at is not None else None
        if at is not None and row is not None:
            self.rows[at] = (*row[:_ECHO], 1, *row[_ECHO + 1:])
        return True

    def _add_text(self, rec: Record, session: SessionInfo) -> None:
        """Prose; ``<backscroll-recall>`` blocks inside it are recalled context: split off as echo rows."""
        rest, blocks = split_recall(rec.text) if not rec.echo else (rec.text, [])
        if rec.echo or not blocks:  # (a tool's output its reader tied to no call, or a shell run the person typed that
            # the agent logs as its own message (Codex's and Gemini's ``!``): judged by what it shows)
            echo = rec.echo or ((rec.content_type == "tool" or rec.author == "harness")
                                and is_retrieval_output(rec.text))
            self.rows.append(self._row(rec, session, echo, None))
            return
        if rest:
            self.rows.append(self._row(replace(rec, text=rest), session, False, None))
        for k, block in enumerate(blocks):
            self.rows.append(self._row(replace(rec, record_id=f"{rec.record_id}~recall{k}", text=block,
                                               role="tool", content_type="tool"), session, True, None))

    def sent_by(self, at: int, author: str) -> None:
        """The row at ``at`` (a prompt queued earlier in this batch) is ``author``'s: the line that sent it says so."""
        row = self.rows[at]
        if row is not None:
            self.rows[at] = (*row[:_AUTHOR], author, *row[_AUTHOR + 1:])

    def finish(self, session: SessionInfo) -> list[Row]:
        """The rows, with results whose call was not in this batch resolved from the store, and the
        session's project on the rows read before the file named it (Claude Code 2.1.16x writes the
        first prompt as a queue line, without a cwd, before the lines that carry one)."""
        if self.pending_results:
            missing = sorted({r.tool_call_id for r, _ in self.pending_results
                              if r.tool_call_id is not None and r.tool_call_id not in self.calls})
            self.calls.update(self.store.call_info(self._session_id(session.session_id) or "", missing))
            pending = iter(self.pending_results)
            for i, row in enumerate(self.rows):
                if row is None:
                    rec, rec_session = next(pending)
                    name, echo = self.calls.get(rec.tool_call_id or "", (None, False))
                    if not echo and is_retrieval_output(rec.text):
                        echo = True
                        if rec.tool_call_id in self.call_rows:  # (its call came later in this batch)
                            self._call_is_echo(rec.tool_call_id)
                        elif rec.tool_call_id in self.calls:  # its call, read before: flagged in the store
                            self.stored_echo_calls.append((self._session_id(session.session_id) or "",
                                                           rec.tool_call_id))
                    self.rows[i] = self._row(rec, rec_session, echo, name)
        rows = [r for r in self.rows if r is not None]
        if not session.cwd or all(r[3] is not None for r in rows):
            return rows
        home = self._field(session.cwd)
        named = (home, project(home, self._field(session.repository)))
        sid = self._session_id(session.session_id)
        return [r[:3] + (named[1], r[4] or named[0]) + r[5:] if r[3] is None and r[1] == sid else r for r in rows]
