"""The team archive's WHERE clause for a search's filters (PostgreSQL placeholders). Pure."""

from __future__ import annotations

from typing import Any

from backscroll.store.sessions import MIN_LISTED, like_prefix
from backscroll.types import Filters


def where_sql(filters: Filters, *, include_echoes: bool, echoes_only: bool = False, member: str | None = None,
              kinds: tuple[str, ...] | None = None) -> tuple[str, list[Any]]:
    """``(clause, params)`` admitting the rows ``filters`` ask for: exact agent, role, content type, author and
    project; a session by a prefix of its id; the time window; a member; one of
    the content types ``kinds``. Query echoes are left out unless ``include_echoes``; ``echoes_only``: only they."""
    clauses: list[str] = ["is_echo"] if echoes_only else [] if include_echoes else ["NOT is_echo"]
    params: list[Any] = []
    if kinds is not None:
        clauses.append("content_type = ANY(%s)")
        params.append(list(kinds))
    _matching(clauses, params, filters.project, (("agent", filters.agent), ("role", filters.role),
                                                 ("content_type", filters.content_type), ("author", filters.author),
                                                 ("member", member)))
    if filters.session is not None:  # (resolved to one of the archive's sessions first: ``team.browse.session_named``)
        clauses.append("session_id = %s")
        params.append(filters.session)
    if filters.since is not None:
        clauses.append("ts >= %s")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append("ts < %s")
        params.append(filters.until)
    return (" AND ".join(clauses) or "true"), params


def _matching(clauses: list[str], params: list[Any], project: str | None,
              equal: tuple[tuple[str, str | None], ...]) -> None:
    """The clauses of columns that must equal a value, the project among them."""
    for column, value in equal:
        if value is not None:
            clauses.append(f"{column} = %s")
            params.append(value)
    if project is not None:  # (resolved to one of the archive's projects first: ``browse.project_named``)
        clauses.append("project = %s")
        params.append(project)


def sessions_where(filters: Filters, member: str | None = None, *, words: tuple[str, ...] = (),
                   everything: bool = True) -> tuple[str, list[Any]]:
    """``(clause, params)`` admitting the sessions ``list`` asks for: agent, project (as in ``where_sql``), busy
    since and before until, member; ``words`` all in the title or first prompt; without ``everything``, as the
    local ``list`` (``store.sessions._listed``): two records or more, and no subagent whose parent is in the
    archive."""
    clauses: list[str] = []
    params: list[Any] = []
    if not everything:
        clauses.append(f"records >= {MIN_LISTED}")
    if not everything and not words:  # (a subagent is folded only under a parent the list shows)
        clauses.append(f"NOT (is_sidechain AND EXISTS (SELECT 1 FROM backscroll.sessions p WHERE p.member = "
                       "sessions.member AND p.machine = sessions.machine AND p.session_id = "
                       f"sessions.parent_session_id AND p.records >= {MIN_LISTED}))")
    for word in words:
        clauses.append("(coalesce(title, '') ILIKE %s OR coalesce(first_prompt, '') ILIKE %s)")
        params += ["%" + like_prefix(word)[:-1] + "%"] * 2
    _matching(clauses, params, filters.project, (("agent", filters.agent), ("member", member)))
    if filters.since is not None:
        clauses.append("coalesce(updated_at, started_at) >= %s")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append("coalesce(started_at, updated_at) < %s")
        params.append(filters.until)
    return (" AND ".join(clauses) or "true"), params
