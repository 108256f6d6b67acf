"""What this store sends to a team archive: records after a watermark, with their session's facts and their
vector, in id order; and the ids still held, for a prune. Mixed into ``Store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

# The columns a pushed row carries, in order (``team.archive_sql.RECORD_COLUMNS`` names them the same).
# Then the rules' version the strings were redacted with (a push redacts an older one again on the way out).
OUT_COLUMNS = ("r.id, r.record_id, r.session_id, r.agent, r.project, r.cwd, s.title, r.role, r.content_type, "
               "r.author, r.tool_name, r.tool_call_id, r.is_echo, r.is_error, r.is_call, r.timestamp, r.text, "
               "e.vector, r.redaction")


class OutboxQueries:
    conn: sqlite3.Connection

    def outbox(self, after_id: int, model: str, batch: int) -> Iterator[list[tuple]]:
        """Records with an id above ``after_id``, ``batch`` at a time, each with its vector of ``model``
        (None for a record not embedded)."""
        cur = self.conn.execute(
            f"SELECT {OUT_COLUMNS} FROM records r LEFT JOIN sessions s USING (session_id) "
            "LEFT JOIN embeddings e ON e.content_hash = r.unit_hash AND e.model = ? "
            "WHERE r.id > ? ORDER BY r.id", (model, after_id))
        while rows := cur.fetchmany(batch):
            yield rows

    def outbox_count(self, after_id: int) -> int:
        return self.conn.execute("SELECT count(*) FROM records WHERE id > ?", (after_id,)).fetchone()[0]

    def held_record_ids(self) -> set[str]:
        """Every record id this store holds (what a prune keeps in the archive)."""
        return {r[0] for r in self.conn.execute("SELECT record_id FROM records")}
