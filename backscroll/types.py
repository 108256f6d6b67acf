"""The data shapes every stage passes along: records read from sessions, and search results.

Frozen dataclasses only. The JSON contract for search results is ``Hit.to_dict`` and ``SearchResult.to_dict``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from backscroll.sanitize import capped, short_of_marks

ROLES = ("user", "assistant", "tool")
CONTENT_TYPES = ("text", "tool", "reasoning", "summary")
# The kinds that are embedded: prose and compaction summaries (never tool rows, reasoning or echoes).
EMBEDDED_TYPES = ("text", "summary")
EMBEDDED_TYPES_SQL = ", ".join(f"'{t}'" for t in EMBEDDED_TYPES)  # for `content_type IN (...)`
AUTHORS = ("human", "agent", "harness")
MAX_TEXT_BYTES = 256 * 1024

Notify = Callable[[str], None]  # where a call sends its notices (the CLI: stderr)


def quiet(_msg: str) -> None:
    """The default ``notify``: say nothing."""


@dataclass(frozen=True, slots=True)
class Record:
    """One text block, tool call or tool result, as a source parser emits it."""

    record_id: str
    role: str  # user | assistant | tool
    content_type: str  # text | tool | reasoning | summary
    text: str
    line: int
    timestamp: str | None = None
    cwd: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    is_error: bool = False
    # Set on tool calls that run a shell command: the command line (str) or argv (list) as the
    # agent sent it. Classification reads it to decide whether the call is a query echo.
    command: str | list | None = None
    # Set by a source on rows that are backscroll's own output coming back (a hook-injected recall block).
    echo: bool = False
    author: str | None = None  # who wrote user-role text: human | agent | harness (None: not user text)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a parser learns about the session a file belongs to."""

    session_id: str
    agent: str
    cwd: str | None = None
    title: str | None = None
    is_sidechain: bool = False
    parent_session_id: str | None = None
    # Codex reading state: ``"paginated"`` threads persist ``item_completed`` items, not ``response_item`` projections;
    # a fork's copy: lines to ``copy_until`` ("" once over) or ``copy_notes`` spawn notes, or below ``copy_below``.
    history_mode: str | None = None
    copy_until: str | None = None
    copy_below: int | None = None
    copy_notes: int = 0
    # The remote URL of the repository the session ran in, when the log records it: it names the project.
    repository: str | None = None
    # For lines without a time (Kimi's context files): each line's time by its number from 1 (its turn's start)
    line_times: tuple[str, ...] = ()
    # Codex's ``request_user_input`` calls not answered yet: (call id, question id, question)
    questions: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int
    score: float | None
    record_id: str
    session_id: str
    agent: str
    project: str | None
    cwd: str | None
    role: str
    content_type: str
    tool_name: str | None
    is_echo: bool
    timestamp: str | None
    source_path: str
    line: int
    text: str
    text_truncated: bool
    snippet: str
    matched_by: tuple[str, ...]
    # Offsets of highlighted terms inside ``snippet`` (for rich output; not part of the JSON).
    highlights: tuple[tuple[int, int], ...] = ()
    is_sidechain: bool = False
    parent_session_id: str | None = None
    is_error: bool = False
    rowid: int = 0
    is_call: bool = False
    match: str | None = None  # exact | words | command | meaning (see evidence.py)
    strength: float | None = None  # 0..1, comparable across queries (unlike score)
    author: str | None = None
    member: str | None = None  # a team archive's hit: whose record it is (None for this machine's own)
    machine: str | None = None  # ... and the machine it was pushed from

    @classmethod
    def from_row(cls, row, *, rank: int, score: float | None = None, snippet: str | None = None,
                 highlights: tuple = (), matched_by: tuple[str, ...] = (), max_chars: int = 0) -> Hit:
        """A hit from a ``records`` row (sqlite3.Row); ``max_chars`` cuts the text (0: whole)."""
        text = row["text"]
        cut = bool(max_chars) and len(text) > max_chars
        return cls(
            rank=rank, score=score, record_id=row["record_id"], session_id=row["session_id"], agent=row["agent"],
            project=row["project"], cwd=row["cwd"], role=row["role"], content_type=row["content_type"],
            tool_name=row["tool_name"], is_echo=bool(row["is_echo"]), timestamp=row["timestamp"],
            source_path=row["source_path"], line=row["line"], text=short_of_marks(text[:max_chars]) if cut else text,
            text_truncated=bool(row["text_truncated"]) or cut,
            snippet=capped(snippet if snippet is not None else text[:240], max_chars),  # (--max-chars too)
            matched_by=matched_by, highlights=highlights, is_sidechain=bool(row["is_sidechain"]),
            parent_session_id=row["parent_session_id"], is_error=bool(row["is_error"]), rowid=row["id"],
            is_call=bool(row["is_call"]), author=row["author"] if "author" in row.keys() else None,
        )

    def to_dict(self) -> dict:  # (every field a scalar but matched_by: asdict's deep copy took 0.2 ms a hit)
        d = {name: getattr(self, name) for name in _HIT_FIELDS}
        for key in ("member", "machine"):  # only an archive's hits say whose they are
            if d[key] is None:
                d.pop(key)
        d["matched_by"] = list(self.matched_by)
        return d


_HIT_FIELDS = tuple(name for name in Hit.__dataclass_fields__ if name not in ("highlights", "rowid", "is_call"))


@dataclass(frozen=True)
class Filters:
    role: str | None = None
    agent: str | None = None
    content_type: str | None = None
    project: str | None = None
    session: str | None = None
    since: str | None = None  # ISO-8601 UTC, inclusive
    until: str | None = None  # ISO-8601 UTC, exclusive
    author: str | None = None  # human | agent | harness
    file: str | None = None  # only sessions whose tool calls touched this file (``touches``) ...
    sessions: tuple[str, ...] | None = None  # ... resolved to those sessions (not in the JSON)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("sessions")
        return d


@dataclass(frozen=True)
class SessionHits:
    """A session among the results (``--by-session``): what it is, and its best hits in rank order."""

    session_id: str
    agent: str
    project: str | None
    title: str | None
    started_at: str | None
    hits: tuple[Hit, ...]

    @property
    def strength(self) -> float | None:
        return max((h.strength for h in self.hits if h.strength is not None), default=None)

    def to_dict(self) -> dict:
        return {"session_id": self.session_id, "agent": self.agent, "project": self.project, "title": self.title,
                "started_at": self.started_at, "strength": self.strength, "hits": [h.to_dict() for h in self.hits]}


@dataclass(frozen=True)
class SearchResult:
    query: str
    mode: str
    filters: Filters
    results: tuple[Hit, ...]
    also_matching: tuple[Hit, ...] = ()
    dropped_filters: tuple[str, ...] = ()
    repeated: RepeatedSearch | None = None
    notes: tuple[str, ...] = ()
    echoes_hidden: int = 0
    schema_version: int = 1
    weak_matches: tuple[Hit, ...] = ()  # below the weak line: nothing close (``retrieval.judgement``)
    sessions: tuple[SessionHits, ...] = ()  # the results by session (``by_session``), best session first
    evidence: tuple[float, ...] = ()  # what the relevance judgement read (``relevance.FEATURES``; not in the JSON)
    has_more: bool = False  # a later page (``offset``) holds more results (weak matches are paged with ``weak``)
    omitted_for_budget: int = 0  # hits left out to fit ``max_tokens`` (the CLI adds those --max-bytes drops)

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "query": self.query,
            "mode": self.mode,
            "filters": self.filters.to_dict(),
            "results": [h.to_dict() for h in self.results],
            "also_matching": [h.to_dict() for h in self.also_matching],
            "weak_matches": [h.to_dict() for h in self.weak_matches],
            "sessions": [s.to_dict() for s in self.sessions],
            "dropped_filters": list(self.dropped_filters),
            "repeated": self.repeated.to_dict() if self.repeated is not None else None,
            "notes": list(self.notes),
            "echoes_hidden": self.echoes_hidden,
            "has_more": self.has_more,
            "omitted_for_budget": self.omitted_for_budget,
        }


class _Mapping:
    """Read access by key (``result.repeated["session_id"]``), as when these were dicts."""

    def to_dict(self) -> dict:
        raise NotImplementedError

    def __getitem__(self, key: str):
        return self.to_dict()[key]

    def get(self, key: str, default=None):
        return self.to_dict().get(key, default)


@dataclass(frozen=True)
class RepeatedSearch(_Mapping):
    """The earlier identical search a repeated one points to (``SearchResult.repeated``)."""

    session_id: str
    record_id: str
    timestamp: str | None
    command: str

    def to_dict(self) -> dict:
        return asdict(self)


TITLE_CHARS = 120  # a session's title as every listing shows it: one line, this long at most


def session_title(title: str | None, first_prompt: str | None) -> str | None:
    """A session's one title on every surface (``list``, ``show``, ``--by-session``, the archive's): its own,
    else its first prompt, on one line and at most ``TITLE_CHARS`` long."""
    from backscroll.sanitize import within

    return within(" ".join((title or first_prompt or "").split()), TITLE_CHARS) or None


@dataclass(frozen=True)
class SessionSummary(_Mapping):
    """One line of ``sessions()``: a session with its title and record counts."""

    session_id: str
    agent: str | None
    project: str | None
    cwd: str | None
    title: str | None
    started_at: str | None
    updated_at: str | None
    is_sidechain: bool
    parent_session_id: str | None
    records: int
    echoes: int
    member: str | None = None  # a team archive's session: whose, and from which machine
    machine: str | None = None
    subagents: int = 0  # the subagent sessions counted under it (``list`` without ``all``)

    def to_dict(self) -> dict:  # (not ``asdict``: a deep copy of each value, and its fields are text and numbers)
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        return {k: v for k, v in d.items() if v is not None or k not in ("member", "machine")}


@dataclass(frozen=True)
class SessionView:
    """``show()``: a record with its context, or a page of a whole session."""

    session: dict  # the sessions row (session_id, agent, project, cwd, title, started_at, ...)
    records: tuple[Hit, ...]
    focus: str | None  # the record asked for, when a record id was given
    total: int  # records in the session
    offset: int  # position of the first record shown (0-based)

    def to_dict(self) -> dict:
        return {"schema_version": 1, "kind": "record" if self.focus else "session", "session": self.session,
                "focus": self.focus, "total": self.total, "offset": self.offset,
                "records": [h.to_dict() for h in self.records]}


@dataclass(frozen=True)
class SourceRoot:
    """A directory to read sessions from. ``agent`` is None when every agent may claim files in it."""

    path: Path
    agent: str | None
    origin: str
