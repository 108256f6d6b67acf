"""What ranking and recall read from the store about given records: their facts, their neighbours in a
session, the prose a filter allows, and counts that judge coverage. Mixed into ``Store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from backscroll.types import EMBEDDED_TYPES_SQL, Filters

CHUNK = 500  # ids per ``IN (...)``: well under SQLite's parameter limit


def allowed_query(filters: Filters) -> tuple[str, list[str]] | None:
    """The SQL (and its parameters) for the prose record ids the filters allow, or None when nothing is
    filtered. A time window alone is read from the ``records_prose_time`` index."""
    where, params = [], []
    for col, value in (("role", filters.role), ("agent", filters.agent), ("project", filters.project),
                       ("session_id", filters.session), ("author", filters.author),
                       ("content_type", filters.content_type)):
        if value:
            where.append(f"{col} = ?")
            params.append(value)
    if filters.sessions is not None:
        where.append(f"session_id IN ({','.join('?' * len(filters.sessions)) or 'NULL'})")
        params.extend(filters.sessions)
    if filters.since:
        where.append("timestamp >= ?")
        params.append(filters.since)
    if filters.until:
        where.append("timestamp < ?")
        params.append(filters.until)
    if not where:
        return None
    return (f"SELECT id FROM records WHERE content_type IN ({EMBEDDED_TYPES_SQL}) AND is_echo = 0 AND "
            + " AND ".join(where)), params


class EvidenceQueries:
    """Reads about given records, for ranking and recall."""

    conn: sqlite3.Connection

    def record_facts(self, ids: list[int]) -> Iterable[tuple[int, str | None, str, str, str, str, int, str]]:
        """``(id, timestamp, content_type, the first 400 characters, session_id, content_hash, the text's length,
        record_id)`` per id."""
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i:i + CHUNK]
            yield from self.conn.execute(
                "SELECT id, timestamp, content_type, substr(text, 1, 400), session_id, content_hash, length(text), "
                "record_id FROM records "
                f"WHERE id IN ({','.join('?' * len(chunk))})", chunk)

    def records_between(self, session: str, a: tuple[str, int], b: tuple[str, int], reach: int) -> int:
        """How many records of ``session`` lie strictly between ``a`` and ``b`` (each ``(timestamp, id)``), up
        to ``reach``: the session's order is time, then id."""
        (ta, ia), (tb, ib) = a, b
        return self.conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM records WHERE session_id = ? AND timestamp >= ? AND timestamp <= ? "
            "AND (timestamp > ? OR id > ?) AND (timestamp < ? OR id < ?) LIMIT ?)",
            (session, ta, tb, ta, ia, tb, ib, reach)).fetchone()[0]

    def allowed_prose(self, filters: Filters) -> set[int] | None:
        """Ids of the prose records the filters allow (None when nothing is filtered)."""
        query = allowed_query(filters)
        return None if query is None else {r[0] for r in self.conn.execute(*query)}

    def allowed_among(self, filters: Filters, ids: list[int]) -> set[int]:
        """Which of ``ids`` are prose records the filters allow (every one of them when nothing is filtered)."""
        query = allowed_query(filters)
        if query is None:
            return set(ids)
        sql, params = query
        out: set[int] = set()
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i:i + CHUNK]
            out.update(r[0] for r in self.conn.execute(f"{sql} AND id IN ({','.join('?' * len(chunk))})",
                                                        [*params, *chunk]))
        return out

    def prose_count(self, at_most: int | None = None) -> int:
        """Prose records that are embedded or will be (echoes aside; counting stops at ``at_most`` when given)."""
        if at_most is None:  # (``record_counts``, not the records)
            return self.conn.execute("SELECT coalesce(sum(records), 0) FROM record_counts WHERE content_type IN "
                                     f"({EMBEDDED_TYPES_SQL}) AND is_echo = 0").fetchone()[0]
        prose = f"SELECT 1 FROM records WHERE content_type IN ({EMBEDDED_TYPES_SQL}) AND is_echo = 0"
        return self.conn.execute(f"SELECT count(*) FROM ({prose} LIMIT ?)", (at_most,)).fetchone()[0]

    def record_count(self) -> int:
        """How many records the store holds (``record_counts``, not the records)."""
        return self.conn.execute("SELECT coalesce(sum(records), 0) FROM record_counts").fetchone()[0]

    def record_ids(self) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT id FROM records")}

    def recall_rows(self, ids: list[int]) -> dict[int, tuple]:
        """``id -> (record_id, session_id, agent, project, timestamp, text, source_path, role)`` for the ids
        that are not echoes."""
        out: dict[int, tuple] = {}
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i:i + CHUNK]
            out.update((r[0], r[1:]) for r in self.conn.execute(
                "SELECT id, record_id, session_id, agent, project, timestamp, text, source_path, role FROM records "
                f"WHERE id IN ({','.join('?' * len(chunk))}) AND is_echo = 0", chunk))
        return out

    def source_counts(self) -> tuple[int, int]:
        """``(session files known, files that could not be read)``."""
        return (self.conn.execute("SELECT count(*) FROM source_files").fetchone()[0],
                self.conn.execute("SELECT count(*) FROM source_issues WHERE kind = 'unreadable'").fetchone()[0])

    def forget_session_times(self, session_id: str, source_path: str) -> None:
        """Clear the title and times a file gave its session (it is read afresh)."""
        self.conn.execute("UPDATE sessions SET title = NULL, title_rank = NULL, started_at = NULL, updated_at = NULL "
                          "WHERE session_id = ? AND source_path = ?", (session_id, source_path))
