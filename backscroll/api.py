"""The library API the CLI and the pytest plugin call: ``index``, ``search``, ``status``, ``rebuild``.

Each call resolves the configuration, opens the store, keeps the derived indexes in step, and
returns plain result objects. Nothing here prints; notices go to the ``notify`` callback.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from typing import Callable

from .config import Config, resolve
from .errors import LockedError, NothingIndexedError, SemanticUnavailableError, UsageError
from .ingest import IndexReport, Progress, sync, writer_lock
from .lexical import LexicalIndex, analyze
from .query import plan as plan_query
from .records import CONTENT_TYPES, ROLES, Filters, SearchResult
from .store import Store

Notify = Callable[[str], None]
MODES = ("hybrid", "lexical", "semantic")
INDEX_LOCK_WAIT = 10.0


def _quiet(_msg: str) -> None:
    pass


@dataclass
class IndexOutcome:
    report: IndexReport
    lexical_added: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = self.report.to_dict()
        d["lexical_documents_added"] = self.lexical_added
        d["notes"] = list(self.notes)
        return d


def _config(cfg: Config | None, home, sources) -> Config:
    return cfg if cfg is not None else resolve(home=home, sources=tuple(sources or ()))


def _update(store: Store, cfg: Config, lex: LexicalIndex, notes: list[str], progress: Progress | None,
            lexical_progress=None) -> tuple[IndexReport, int]:
    redactor = None
    report = sync(store, cfg, progress, redactor)
    added = lex.sync(store, notes.append, lexical_progress)
    return report, added


def index(*, cfg: Config | None = None, home=None, sources=(), progress: Progress | None = None,
          lexical_progress=None, wait: float = INDEX_LOCK_WAIT, notify: Notify = _quiet) -> IndexOutcome:
    """Read every new session line into the store and bring the derived indexes up to date."""
    cfg = _config(cfg, home, sources)
    store = Store.open(cfg.db_path)
    try:
        with writer_lock(cfg, wait) as acquired:
            if not acquired:
                raise LockedError("indexing already in progress in another backscroll process",
                                  hint="wait for it to finish; searches meanwhile answer from the last committed state")
            notes: list[str] = []
            lex = LexicalIndex(cfg.index_dir)
            report, added = _update(store, cfg, lex, notes, progress, lexical_progress)
        for n in notes:
            notify(n)
        return IndexOutcome(report, added, notes)
    finally:
        store.close()


def rebuild(*, cfg: Config | None = None, home=None, notify: Notify = _quiet, lexical_progress=None) -> int:
    """Recreate the derived indexes from the store alone; returns the number of documents indexed."""
    cfg = _config(cfg, home, ())
    store = Store.open_existing(cfg.db_path)
    try:
        with writer_lock(cfg, INDEX_LOCK_WAIT) as acquired:
            if not acquired:
                raise LockedError("indexing already in progress in another backscroll process",
                                  hint="run rebuild again when it has finished")
            if cfg.index_dir.exists():
                shutil.rmtree(cfg.index_dir)
            store.begin()
            store.set_meta("lexical_generation", None)
            store.set_meta("lexical_watermark", "0")
            store.commit()
            lex = LexicalIndex(cfg.index_dir)
            return lex.sync(store, notify, lexical_progress)
    finally:
        store.close()


def make_filters(*, role=None, agent=None, content_type=None, project=None, session=None,
                 since=None, until=None) -> Filters:
    from .dates import parse_when
    from .sources import AGENTS

    if role is not None and role not in ROLES:
        raise UsageError(f"unknown role {role!r}", hint=f"use one of: {', '.join(ROLES)}")
    if content_type is not None and content_type not in CONTENT_TYPES:
        raise UsageError(f"unknown content type {content_type!r}", hint=f"use one of: {', '.join(CONTENT_TYPES)}")
    if agent is not None and agent not in AGENTS:
        raise UsageError(f"unknown agent {agent!r}", hint=f"use one of: {', '.join(AGENTS)}")
    return Filters(
        role=role, agent=agent, content_type=content_type, project=project, session=session,
        since=parse_when(since) if since else None, until=parse_when(until, end=True) if until else None,
    )


def _prepare(cfg: Config, do_sync: bool, notes: list[str]) -> tuple[Store, LexicalIndex]:
    """Open the store and an up-to-date lexical index for searching (syncing first unless told not to)."""
    if not cfg.db_path.exists() and not do_sync:
        raise NothingIndexedError(f"nothing is indexed yet (no store at {cfg.db_path})",
                                  hint="run `backscroll index` first")
    store = Store.open(cfg.db_path)
    lex = LexicalIndex(cfg.index_dir)
    with writer_lock(cfg, 0.0) as acquired:
        if acquired:
            if do_sync:
                report = sync(store, cfg)
                if report.unreadable:
                    notes.append(f"{len(report.unreadable)} session file(s) could not be read; see `backscroll status`")
            lex.sync(store, notes.append)
            return store, lex
    notes.append("another backscroll process is indexing; answering from the last committed state")
    if not lex.open_for_read():
        store.close()
        raise LockedError("the index is being built by another backscroll process and no earlier snapshot exists",
                          hint="try again when `backscroll index` has finished")
    return store, lex


def search(query: str, *, limit: int = 10, role: str | None = None, agent: str | None = None,
           content_type: str | None = None, project: str | None = None, session: str | None = None,
           since: str | None = None, until: str | None = None, include_echoes: bool = False,
           mode: str = "hybrid", sync: bool = True, max_chars: int = 2000,
           cfg: Config | None = None, home=None, sources=(), notify: Notify = _quiet) -> SearchResult:
    """Search the record. See README "Searching" for what each option does."""
    from . import pipeline

    if mode not in MODES:
        raise UsageError(f"unknown mode {mode!r}", hint=f"use one of: {', '.join(MODES)}")
    if limit < 1:
        raise UsageError("--limit must be at least 1")
    cfg = _config(cfg, home, sources)
    filters = make_filters(role=role, agent=agent, content_type=content_type, project=project,
                           session=session, since=since, until=until)
    plan = plan_query(query, analyze)
    notes: list[str] = []
    store, lex = _prepare(cfg, sync, notes)
    try:
        if store.record_count() == 0:
            raise NothingIndexedError(
                "nothing is indexed yet: no session files were found",
                hint="`backscroll status` shows where sessions are looked for; add more with --source PATH",
            )
        opts = pipeline.SearchOptions(limit=limit, include_echoes=include_echoes, max_chars=max_chars)
        effective_mode = "lexical"
        if mode == "semantic":
            raise SemanticUnavailableError("no embeddings exist yet, so semantic search cannot run",
                                           hint="run `backscroll embed`, or search with --mode lexical")
        if mode == "hybrid":
            notes.append("no embeddings yet: hybrid search fell back to lexical")
        result = pipeline.run(store, lex, plan, filters, opts, mode=effective_mode)
        from dataclasses import replace

        for n in notes:
            notify(n)
        return replace(result, notes=tuple(notes))
    finally:
        store.close()


def status(*, cfg: Config | None = None, home=None, sources=()) -> dict:
    """What is indexed, from where, and what was skipped."""
    from .status import collect

    return collect(_config(cfg, home, sources))

