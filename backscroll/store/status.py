"""What ``status`` reads from the store: counts of everything, by agent and project and kind, what could not
be read, and the fingerprint the lexical index is checked against. Mixed into ``Store``."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from backscroll.types import EMBEDDED_TYPES_SQL

# A record's kind in status: reasoning and summaries by name, tool rows as calls or outputs, else its role.
# Counted from ``record_counts`` (``tally``), not from the records themselves: first by the columns of its index
# ``record_counts_kinds`` in their order (read in that order, a few hundred rows, where a sort of the whole table by
# kind was most of status's counting at 20,000 sessions), then by kind.
_KINDS = ("SELECT agent, CASE WHEN content_type IN ('reasoning', 'summary') THEN content_type "
          "WHEN content_type = 'tool' AND is_call = 1 THEN 'tool_call' "
          "WHEN content_type = 'tool' THEN 'tool_output' "
          "ELSE role END, sum(records) FROM (SELECT agent, content_type, is_call, role, sum(records) AS records "
          "FROM record_counts GROUP BY agent, project, is_echo, content_type, is_call, role) GROUP BY 1, 2")
# The records, the echoes among them and the prose to embed, in one pass.
_TOTALS = ("SELECT coalesce(sum(records), 0), coalesce(sum(CASE WHEN is_echo = 1 THEN records END), 0), "
           f"coalesce(sum(CASE WHEN content_type IN ({EMBEDDED_TYPES_SQL}) AND is_echo = 0 THEN records END), 0) "
           "FROM record_counts")

# A session counts when it holds a record, as ``list`` shows them: a header with nothing after it (an agent
# started and quit) is no session to a person. (``record_counts`` keeps no row of nothing.)
_HOLDS_RECORDS = "EXISTS (SELECT 1 FROM record_counts c WHERE c.session_id = s.session_id)"

@dataclass(frozen=True)
class StoreCounts:
    """Everything ``status`` counts in the store."""

    sessions: int
    records: int
    echoes: int
    sessions_by_agent: dict[str, int]
    records_by_agent: dict[str, int]
    files_by_agent: dict[str, int]
    kinds: list[tuple[str, str, int]]  # (agent, kind, records)
    unknown: list[tuple[str, str, int, str, int | None]]  # (agent, entry type, count, a path, its line)
    projects: list[tuple[str, str, int, int]]  # (agent, project, sessions, records), most records first
    last_sync: str | None  # when a source file was last read
    prose: int
    prose_pending: int  # prose without a vector yet
    files: int
    redactions: dict[str, int]
    skipped_lines: int
    skipped_examples: list[tuple[str, int, str]]  # (path, line, reason), the first five
    source_issues: list[tuple[str, str, str, str]]  # (path, kind, reason, seen at)
    unfinished: list[tuple[str, int, int, int, str]]  # (path, its line, bytes unread, file size, seen at)


class StatusQueries:
    """Counts for ``status``."""

    conn: sqlite3.Connection
    record_count: Callable[[], int]  # (``EvidenceQueries``')
    reading: Callable[[], AbstractContextManager[None]]  # (``Store``'s)
    begin: Callable[[], None]
    commit: Callable[[], None]
    rollback: Callable[[], None]

    def _one(self, sql: str, params: tuple = ()):
        return self.conn.execute(sql, params).fetchone()[0]

    def counts(self, skipped: int = 5) -> StoreCounts:
        c = self.conn
        pending = self._one("SELECT count(*) FROM records "  # (the partial index records_pending_prose)
                            f"WHERE unit_hash IS NULL AND content_type IN ({EMBEDDED_TYPES_SQL}) AND is_echo = 0")
        records, echoes, prose = c.execute(_TOTALS).fetchone()
        sessions_by_agent = dict(c.execute(f"SELECT agent, count(*) FROM sessions s WHERE {_HOLDS_RECORDS} "
                                           "GROUP BY agent").fetchall())  # (an agent is never NULL)
        return StoreCounts(
            sessions=sum(sessions_by_agent.values()), records=records, echoes=echoes,
            sessions_by_agent=sessions_by_agent,
            records_by_agent=dict(c.execute("SELECT agent, sum(records) FROM record_counts GROUP BY agent").fetchall()),
            files_by_agent=dict(c.execute("SELECT agent, count(*) FROM source_files GROUP BY agent").fetchall()),
            kinds=c.execute(_KINDS).fetchall(),
            unknown=c.execute("SELECT agent, entry_type, sum(count), min(path), min(example_line) FROM unknown_entries "
                              "GROUP BY agent, entry_type ORDER BY agent, sum(count) DESC").fetchall(),
            projects=c.execute("SELECT agent, project, count(DISTINCT session_id), sum(records) FROM record_counts "
                               "GROUP BY agent, project ORDER BY sum(records) DESC").fetchall(),
            last_sync=self._one("SELECT max(indexed_at) FROM source_files"),
            prose=prose, prose_pending=pending,
            files=self._one("SELECT count(*) FROM source_files"),
            redactions=dict(c.execute("SELECT kind, count FROM redactions ORDER BY kind").fetchall()),
            skipped_lines=self._one("SELECT count(*) FROM skipped_lines"),
            skipped_examples=c.execute("SELECT path, line, reason FROM skipped_lines ORDER BY path, line LIMIT ?",
                                       (skipped,)).fetchall(),  # (-1: every one)
            source_issues=c.execute("SELECT path, kind, reason, seen_at FROM source_issues "
                                    "ORDER BY kind = 'rewritten', path").fetchall(),
            # A line file read up to a last line with no end: left for the sync that finds it finished.
            unfinished=c.execute("SELECT path, lines + 1, size - offset, size, indexed_at FROM source_files "
                                 "WHERE offset < size ORDER BY path").fetchall(),
        )

    def lexical_fingerprint(self, watermark: int, exact: bool = False) -> tuple[int, int, int]:
        """``(documents, id sum, pending)`` the lexical index should hold up to ``watermark``: records and
        tombstones at or below it, and the records above it plus tombstones still to apply. ``exact``: the records
        counted themselves, not ``record_counts`` (``status --check``, which checks that count apart)."""
        # Every record less those above the watermark, plus tombstones not also a record.
        table, count, ids = ("records", "count(*)", "sum(id)") if exact else ("record_counts", "sum(records)",
                                                                             "sum(id_sum)")
        ghosts = "FROM tombstones t WHERE t.id <= ?1 AND NOT EXISTS (SELECT 1 FROM records r WHERE r.id = t.id)"
        n, total, above = self.conn.execute(
            f"SELECT (SELECT coalesce({count}, 0) FROM {table}) + (SELECT count(*) {ghosts}) - "
            f"(SELECT count(*) FROM records WHERE id > ?1), (SELECT coalesce({ids}, 0) FROM {table}) + "
            f"(SELECT coalesce(sum(t.id), 0) {ghosts}) - (SELECT coalesce(sum(id), 0) FROM records WHERE id > ?1), "
            "(SELECT count(*) FROM records WHERE id > ?1)", (watermark,)).fetchone()
        pending = above + self._one("SELECT count(*) FROM tombstones")
        return n, total, pending

    def tally_drift(self) -> tuple[int, int, int]:
        """``(rows of record_counts that differ, records, records it counts)``, read in one snapshot."""
        from backscroll.interrupts import interruptible
        from backscroll.store import tally

        with self.reading(), interruptible(self.conn):  # (a pass over every record: Ctrl-C ends it at once)
            rows = tally.drift(self.conn)
            return len(rows), self._one("SELECT count(*) FROM records"), self.record_count()

    def recount(self) -> int:
        """Count every session's records again from the records (``rebuild``: a tally that drifted); how many rows
        of ``record_counts`` changed. Ctrl-C ends it at once (a pass over every record) and keeps the counts as
        they were."""
        from backscroll.interrupts import interruptible
        from backscroll.store import tally

        self.begin()
        try:
            with interruptible(self.conn):
                changed = tally.recount(self.conn)
            self.commit()
        except BaseException:
            self.rollback()
            raise
        return changed

    def source_paths(self, agent: str) -> list[str]:
        """The session files ``agent``'s sessions were read from."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT source_path FROM sessions WHERE agent = ?", (agent,))]

    def files_read(self, agent: str, under: str, limit: int = 50) -> list[str]:
        """Files of ``agent`` read under the folder ``under`` (sessions in them or not), ``limit`` at most."""
        low = f"{under.rstrip(os.sep)}{os.sep}"
        rows = self.conn.execute("SELECT path FROM source_files WHERE agent = ? AND path >= ? AND path < ? LIMIT ?",
                                 (agent, low, low[:-1] + chr(ord(os.sep) + 1), limit))
        return [r[0] for r in rows]

    def last_read(self, agent: str) -> str | None:
        """When a file of ``agent`` was last read."""
        return self._one("SELECT max(indexed_at) FROM source_files WHERE agent = ?", (agent,))
