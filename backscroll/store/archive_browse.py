"""The team archive's browsing statements (mixed into ``archive_pg.Archive``): its sessions (the sessions table),
newest first, and the records of one session or around one record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backscroll.store.archive_search import HIT_COLUMNS
from backscroll.store.sessions import like_prefix


class ArchiveBrowse:
    def _rows(self, sql: str, params: Sequence[Any]) -> list[dict]:
        raise NotImplementedError

    def project_names(self) -> list[str]:
        """The projects in the archive, those with most sessions first."""
        return [r["project"] for r in self._rows("SELECT project FROM backscroll.sessions WHERE project IS NOT NULL "
                                                 "GROUP BY project ORDER BY count(*) DESC, project", ())]

    def member_names(self) -> list[str]:
        """The members who have sessions in the archive, by name."""
        return [r["member"] for r in self._rows("SELECT DISTINCT member FROM backscroll.sessions ORDER BY member", ())]

    def session_rows(self, where_sql: str, params: Sequence[Any], limit: int, offset: int) -> list[dict]:
        """Sessions the filters admit (``archive_filters.sessions_where``), the latest started first."""
        return self._rows("SELECT *, (SELECT count(*) FROM backscroll.sessions c WHERE c.member = sessions.member "
                          "AND c.machine = sessions.machine AND c.parent_session_id = sessions.session_id AND "
                          "c.is_sidechain) AS subagents FROM backscroll.sessions WHERE " + where_sql +
                          " ORDER BY coalesce(started_at, updated_at) DESC NULLS LAST, session_id, member, machine "
                          "LIMIT %s OFFSET %s", (*params, limit, offset))

    def session_count(self, where_sql: str, params: Sequence[Any]) -> int:
        return self._rows("SELECT count(*) AS n FROM backscroll.sessions WHERE " + where_sql, params)[0]["n"]

    def session_row(self, member: str, machine: str, session_id: str) -> dict | None:
        rows = self._rows("SELECT * FROM backscroll.sessions WHERE member = %s AND machine = %s AND session_id = %s",
                          (member, machine, session_id))
        return rows[0] if rows else None

    def record_row(self, record_id: str, member: str | None = None) -> dict | None:
        """The record of that id as the first member who pushed it has it (``member``: as they have it)."""
        rows = self._rows(f"SELECT {HIT_COLUMNS} FROM backscroll.records WHERE record_id = %s "
                          "AND (%s::text IS NULL OR member = %s) ORDER BY member, machine LIMIT 1",
                          (record_id, member, member))
        return rows[0] if rows else None

    def sessions_like(self, prefix: str, member: str | None = None) -> list[tuple[str, str, str]]:
        """The ``(member, machine, session_id)`` whose id starts with ``prefix`` (at most 11; ``member``: only
        theirs)."""
        return [(r["member"], r["machine"], r["session_id"]) for r in self._rows(
            "SELECT DISTINCT member, machine, session_id FROM backscroll.records WHERE session_id LIKE %s "
            "AND (%s::text IS NULL OR member = %s) ORDER BY 1, 2, 3 LIMIT 11", (like_prefix(prefix), member, member))]

    def session_copies(self, session_id: str) -> list[tuple[str, str]]:
        """``(member, machine)`` of every member's copy of the session."""
        return [(r["member"], r["machine"]) for r in self._rows(
            "SELECT DISTINCT member, machine FROM backscroll.records WHERE session_id = %s ORDER BY 1, 2",
            (session_id,))]

    def records_like(self, prefix: str, member: str | None = None, limit: int = 21) -> list[str]:
        """The record ids that start with ``prefix``, in order (``member``: only theirs)."""
        return [r["record_id"] for r in self._rows(
            "SELECT DISTINCT record_id FROM backscroll.records WHERE record_id LIKE %s AND (%s::text IS NULL OR "
            "member = %s) ORDER BY 1 LIMIT %s", (like_prefix(prefix), member, member, limit))]

    def record_elsewhere(self, prefix: str, session_id: str, member: str | None = None) -> str | None:
        """The first record id starting with ``prefix`` that is not ``session_id``'s own (as locally:
        ``Store.record_elsewhere``; ``member``: only theirs)."""
        rows = self._rows(
            "SELECT record_id FROM backscroll.records WHERE record_id LIKE %s AND session_id NOT LIKE %s "
            "AND record_id NOT LIKE %s AND (%s::text IS NULL OR member = %s) ORDER BY 1 LIMIT 1",
            (like_prefix(prefix), like_prefix(session_id), like_prefix(session_id), member, member))
        return rows[0]["record_id"] if rows else None

    def session_records(self, member: str, machine: str, session_id: str) -> list[dict]:
        """One session's records in their order (as the member's store read them)."""
        return self._rows(f"SELECT {HIT_COLUMNS} FROM backscroll.records WHERE member = %s AND machine = %s AND "
                          "session_id = %s ORDER BY seq, record_id", (member, machine, session_id))

    def session_heads(self, session_ids: Sequence[str]) -> list[tuple[str, str | None, Any]]:
        """``(session_id, title, started_at)`` of each of ``session_ids`` (the first member's, should two share one;
        untitled: its first prompt)."""
        if not session_ids:
            return []
        return [(r["session_id"], r["title"], r["started_at"]) for r in self._rows(
            "SELECT DISTINCT ON (session_id) session_id, coalesce(nullif(title, ''), first_prompt) AS title, "
            "started_at FROM backscroll.sessions "
            "WHERE session_id = ANY(%s) ORDER BY session_id, member, machine", (list(session_ids),))]
