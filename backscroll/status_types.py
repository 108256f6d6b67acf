"""What ``status()`` returns: ``StatusReport`` and its typed parts (``status_report.collect`` fills them).

``to_dict()`` is the JSON of ``backscroll status --json``; a part's ``origin`` is its ``from`` there.
Facts that do not apply (an agent's retention, a path's origin, a worker that never ran) are null, never left out.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from backscroll.types import _Mapping


def _json(value: Any) -> Any:
    """``asdict`` output with ``origin`` keys named ``from``."""
    if isinstance(value, dict):
        return {("from" if k == "origin" else k): _json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v) for v in value]
    return value


@dataclass
class UnknownType:
    """Lines of an entry type the agent's reader does not know (counted, not stored)."""

    entry_type: str
    count: int
    example: str  # path:line of one


@dataclass
class AgentStatus:
    sessions: int = 0
    records: int = 0
    files: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # records by content kind
    unknown: list[UnknownType] = field(default_factory=list)
    gone_from_disk: int | None = None  # Claude Code: indexed sessions whose file the agent has since deleted
    read_from: str | None = None  # the folder holding every file its sessions were read from
    agent_keeps_days: int | None = None  # Claude Code: its cleanupPeriodDays


@dataclass
class ProjectStatus:
    agent: str
    project: str | None
    sessions: int
    records: int


@dataclass
class EmbeddingStatus:
    prose_records: int = 0
    embedded: int = 0
    pending: int = 0
    worker: WorkerStatus | None = None  # the background worker's, once one ran
    foreground: bool = False  # an `index` or `embed` is embedding now


@dataclass
class WorkerStatus:
    """The background embedding worker (``backscroll.background``): at work now, its rate (prose records per
    second), the seconds it expects to need for what is left, or why the last one stopped."""

    running: bool = False
    rate: float | None = None
    eta_s: int | None = None
    error: str | None = None


@dataclass
class LexicalStatus:
    """Whether the lexical index holds exactly the store's records; ``pending`` changes wait for a sync."""

    readable: bool = False
    documents: int | None = None
    expected: int = 0
    pending: int = 0
    in_step: bool = False
    counts_drifted: bool = False  # in step with the records, not with ``record_counts``, which drifted
    older: bool = False  # written by an earlier version: the next sync rebuilds it


@dataclass
class Sizes:
    store_bytes: int = 0
    lexical_index_bytes: int = 0
    vectors_bytes: int = 0


@dataclass
class SkippedLine:
    path: str
    line: int
    reason: str


@dataclass
class SourceIssue:
    """A file or directory that could not be read (``kind`` "file" or "directory"), or one that was rewritten."""

    path: str
    kind: str
    reason: str
    seen_at: str | None


@dataclass
class UnfinishedLine:
    """A session file whose last line has no end yet (``unread_bytes`` of it, as the file was last read): left
    unread until it is finished, as a live agent's is; an agent that died mid-line never finishes it."""

    path: str
    line: int
    unread_bytes: int
    last_read: str | None


@dataclass
class Place:
    """A path and where it came from (flag, environment, config file, default)."""

    path: str
    origin: str | None = None
    exists: bool | None = None


@dataclass
class Root(Place):
    agent: str | None = None


@dataclass
class Setting:
    value: Any
    origin: str


@dataclass
class LastPush:
    """This store's last push to a team archive; ``waiting``: records stored or redacted again since, not yet sent."""

    archive: str
    member: str
    machine: str
    at: str
    waiting: int


@dataclass
class ArchiveStatus:
    """The team archive configured (where it points, never its password; ``origin``: env or config file), and
    this store's last push, read without connecting."""

    configured: str | None
    origin: str | None = None
    last_push: LastPush | None = None


@dataclass
class CheckPart:
    """One part of ``status --check``: ``part`` (store, record_counts, lexical_index, vectors), ``state`` ("ok",
    "problem", or "skipped" when it could not be checked), what was found, and for a problem what to run."""

    part: str
    state: str
    found: str
    fix: str | None = None
    seconds: float = 0.0


@dataclass
class StoreCheck:
    """``status --check``: every part of the data dir checked in full; ``sound`` when no part has a problem,
    ``complete`` when none was skipped because another process was writing (the check then says nothing of them)."""

    sound: bool = True
    complete: bool = True
    seconds: float = 0.0
    parts: list[CheckPart] = field(default_factory=list)

    def problems(self) -> list[CheckPart]:
        return [p for p in self.parts if p.state == "problem"]


@dataclass
class StatusReport(_Mapping):
    """``status()``: what is indexed, from where, what was skipped, and the paths and settings in force."""

    paths: dict[str, Place]
    roots: list[Root]
    settings: dict[str, Setting]
    indexed: bool  # a store exists
    config_warnings: list[str] = field(default_factory=list)
    sessions: int = 0
    records: int = 0
    echoes: int = 0
    agents: dict[str, AgentStatus] = field(default_factory=dict)
    projects: list[ProjectStatus] = field(default_factory=list)
    last_sync: str | None = None  # when a session file was last read (by an index or a search's sync)
    last_index_run: str | None = None  # when an index or a search's sync last finished
    files: int = 0
    redactions: dict[str, int] = field(default_factory=dict)
    skipped_lines: int = 0
    skipped_examples: list[SkippedLine] = field(default_factory=list)
    source_issues: list[SourceIssue] = field(default_factory=list)
    unfinished_lines: list[UnfinishedLine] = field(default_factory=list)
    # files an older parser read (away when a newer came): how many, and ``AGENT:FOLDER`` for ``index --source``
    older_parser: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    sizes: Sizes = field(default_factory=Sizes)
    lexical: LexicalStatus = field(default_factory=LexicalStatus)
    embeddings: EmbeddingStatus = field(default_factory=EmbeddingStatus)
    read_only: bool = False  # the store cannot be written (read-only media): it is only read
    indexing: bool = False  # a backscroll process holds the writer lock
    archive: ArchiveStatus | None = None  # a team archive configured or pushed to
    check: StoreCheck | None = None  # ``status(check=True)``: the full check (null when not asked for)

    def agent(self, name: str) -> AgentStatus:
        """The agent's part, created empty the first time it is asked for."""
        return self.agents.setdefault(name, AgentStatus())

    def to_dict(self) -> dict:
        """The document ``status --json`` prints, less its ``integrations`` (what ``install`` put in place) and
        ``store_error``."""
        return {"schema_version": 1, **_json(asdict(self))}

    def __contains__(self, key: str) -> bool:
        return key in self.to_dict()
