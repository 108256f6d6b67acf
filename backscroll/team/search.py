"""``search --archive``: the team archive searched by the local search's own pipeline.

The archive is a ranking ``Source`` (``team.source``); the search is ``searching.answer`` on it, the local one's:
the same lists, evidence, order, weak line and hint policy, so a ranking rule written once holds on both. Around it,
what is the archive's own: the connection and its schema's version, the query's vector (the local model, embedding
the query here), and the repeat rule, read from this machine's store (where the calling session's log is). Every
hit says its ``member`` and ``machine``.
"""

from __future__ import annotations

from backscroll.config import Config
from backscroll.request import SearchRequest
from backscroll.retrieval.query import QueryPlan
from backscroll.store.archive_pg import Archive
from backscroll.types import Filters, SearchResult

EXACT_SCAN_NOTED = 100_000  # records from which a search says its meaning was an exact scan (why it is slow)


def search_archive(cfg: Config, req: SearchRequest, plan: QueryPlan, filters: Filters,
                   rerun_hint: str | None = None) -> SearchResult:
    """The archive's answer to ``req`` (its filters and plan already checked)."""
    from dataclasses import replace

    from backscroll.browse import project_named
    from backscroll.retrieval.searching import answer, spoken_agent_hint
    from backscroll.team.browse import member_named, session_named
    from backscroll.team.push import settings
    from backscroll.team.source import ArchiveSource

    url, _member = settings(cfg, req.archive)
    again = _repeated(cfg, req, plan, filters, rerun_hint)
    if again is not None:
        return again
    notes: list[str] = []
    with Archive.connect(url) as archive:
        if behind := archive.check_version():
            notes.append(behind)
        member_named(archive.member_names, req.member)
        if filters.project:  # (named as locally: a unique prefix or part, a path; none or several is an error)
            filters = replace(filters, project=project_named(archive.project_names(), filters.project))
        if filters.session:  # (as locally: a record's id or a session's, or the start of one)
            filters = replace(filters, session=session_named(archive, filters.session, req.member))
        filters = spoken_agent_hint(archive.has_agent, plan, filters, notes)
        vector = None if plan.date_only else _query_vector(plan, req, notes)
        if vector is not None and not archive.has_vector() and archive.rows_estimate() >= EXACT_SCAN_NOTED:
            notes.append("meaning was searched by an exact scan: this archive keeps no pgvector index (with the "
                         "extension installed, `backscroll archive init` makes one)")
        result = answer(ArchiveSource(archive, vector, req.member), req, plan, filters)
    return replace(result, notes=tuple(dict.fromkeys([*plan.notes, *notes, *result.notes])))


def _repeated(cfg: Config, req: SearchRequest, plan: QueryPlan, filters: Filters,
              rerun_hint: str | None) -> SearchResult | None:
    """The repeat rule, read from this machine's store (the calling session's log is there, not in the archive)."""
    if req.rerun or not cfg.db_path.exists() or not (req.caller_session or req.caller_argv or req.caller_mcp):
        return None
    from backscroll.retrieval.searching import repeated
    from backscroll.store.db import Store

    store = Store.open_readonly(cfg.db_path)
    try:
        return repeated(store, req, plan, filters, list(plan.notes), rerun_hint)
    finally:
        store.close()


def _query_vector(plan: QueryPlan, req: SearchRequest, notes: list[str]) -> list[float] | None:
    if req.mode == "lexical":
        return None
    from backscroll.errors import SemanticUnavailableError
    from backscroll.indexes.embed import load

    try:
        return [float(v) for v in load(bulk=False).embed([plan.meaning or plan.text])[0]]
    except SemanticUnavailableError as exc:
        if req.mode == "semantic":
            raise
        notes.append(f"semantic ranking unavailable ({exc.message}); used lexical search")
        return None
