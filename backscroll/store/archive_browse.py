"""The team archive's browsing statements (mixed into ``archive_pg.Archive``): its sessions, newest first, and
the records of one session or around one record."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backscroll.store.archive_search import HIT_COLUMNS


class ArchiveBrowse:
    def _rows(self, sql: str, params: Sequence[Any]) -> list[dict]:
        raise NotImplementedError

    def session_rows(self, where_sql: str, params: Sequence[Any], limit: int, offset: int) -> list[dict]:
        """Sessions the filters admit (one per member, machine and session), latest activity first."""
        return self._rows(
            "SELECT member, machine, session_id, min(agent) AS agent, min(project) AS project, min(cwd) AS cwd, "
            "max(title) AS title, min(ts) AS started_at, max(ts) AS updated_at, count(*) AS records, "
            "count(*) FILTER (WHERE is_echo) AS echoes FROM backscroll.records WHERE " + where_sql +
            " GROUP BY member, machine, session_id ORDER BY max(ts) DESC NULLS LAST, session_id LIMIT %s OFFSET %s",
            (*params, limit, offset))

    def session_count(self, where_sql: str, params: Sequence[Any]) -> int:
        return self._rows("SELECT count(*) AS n FROM (SELECT 1 FROM backscroll.records WHERE " + where_sql +
                          " GROUP BY member, machine, session_id) s", params)[0]["n"]

    def record_row(self, record_id: str) -> dict | None:
        rows = self._rows(f"SELECT {HIT_COLUMNS} FROM backscroll.records WHERE record_id = %s "
                          "ORDER BY member, machine LIMIT 1", (record_id,))
        return rows[0] if rows else None

    def sessions_like(self, prefix: str) -> list[tuple[str, str, str]]:
        """The ``(member, machine, session_id)`` whose id starts with ``prefix`` (at most 11)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return [(r["member"], r["machine"], r["session_id"]) for r in self._rows(
            "SELECT DISTINCT member, machine, session_id FROM backscroll.records WHERE session_id LIKE %s "
            "ORDER BY 1, 2, 3 LIMIT 11", (escaped,))]

    def session_records(self, member: str, machine: str, session_id: str) -> list[dict]:
        """One session's records in their order (time, then id)."""
        return self._rows(f"SELECT {HIT_COLUMNS} FROM backscroll.records WHERE member = %s AND machine = %s AND "
                          "session_id = %s ORDER BY ts NULLS FIRST, record_id", (member, machine, session_id))
