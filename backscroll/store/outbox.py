"""What this store sends to a team archive: records after a watermark, with their session's facts and their
vector, in id order; the vectors of records sent before they had one; the records a re-read took out, for the
archive to drop; and the ids and sessions still held, for a prune. Mixed into ``Store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

LAST_PUSH = "archive_last_push"  # meta: where this store last pushed, as whom, when, and its mark's key

# The columns a pushed row carries, in order (``team.archive_sql.RECORD_COLUMNS`` names them the same).
# Then where it was read, its subagent's parent, its vector, and the rules' version the strings were redacted with
# (a push redacts an older one again on the way out).
OUT_COLUMNS = ("r.id, r.record_id, r.session_id, r.agent, r.project, r.cwd, s.title, r.role, r.content_type, "
               "r.author, r.tool_name, r.tool_call_id, r.is_echo, r.is_error, r.is_call, r.timestamp, r.text, "
               "r.source_path, r.line, r.is_sidechain, r.parent_session_id, e.vector, r.redaction")


class OutboxQueries:
    conn: sqlite3.Connection

    def outbox(self, after_id: int, model: str, batch: int) -> Iterator[list[tuple]]:
        """Records with an id above ``after_id``, ``batch`` at a time, each with its vector of ``model``
        (None for a record not embedded)."""
        return self._in_batches("r.id > ?", (after_id,), model, batch)

    def _in_batches(self, where: str, args: tuple, model: str, batch: int) -> Iterator[list[tuple]]:
        """The outbox rows ``where`` says, in id order, each batch read by a statement of its own: no read
        transaction stays open between batches, so a push can move its mark while another process writes."""
        last = 0
        while rows := self.conn.execute(
                f"SELECT {OUT_COLUMNS} FROM records r LEFT JOIN sessions s USING (session_id) "
                "LEFT JOIN embeddings e ON e.content_hash = r.unit_hash AND e.model = ? "
                f"WHERE {where} AND r.id > ? ORDER BY r.id LIMIT ?", (model, *args, last, batch)).fetchall():
            yield rows
            last = rows[-1][0]

    def revised_outbox(self, after_revision: int, up_to_id: int, model: str, batch: int) -> Iterator[list[tuple]]:
        """Records up to ``up_to_id`` (already sent) changed in place by a pass after ``after_revision``."""
        return self._in_batches("r.revised > ? AND r.id <= ?", (after_revision, up_to_id), model, batch)

    def revised_count(self, after_revision: int, up_to_id: int) -> int:
        return self.conn.execute("SELECT count(*) FROM records WHERE revised > ? AND id <= ?",
                                 (after_revision, up_to_id)).fetchone()[0]

    def embedded_since(self, after_seq: int, up_to_id: int) -> list[str]:
        """The record ids up to ``up_to_id`` (already sent) given a vector by an embedding pass after ``after_seq``."""
        return [r[0] for r in self.conn.execute(
            "SELECT record_id FROM records WHERE vector_seq > ? AND id <= ? ORDER BY id", (after_seq, up_to_id))]

    def pushed_vectors(self, record_ids: list[str], model: str) -> list[tuple[str, bytes]]:
        """``(record_id, vector)`` of those of ``record_ids`` that have a vector of ``model``."""
        out: list[tuple[str, bytes]] = []
        for i in range(0, len(record_ids), 500):
            chunk = record_ids[i:i + 500]
            out += self.conn.execute(
                "SELECT r.record_id, e.vector FROM records r JOIN embeddings e ON e.content_hash = r.unit_hash "
                f"AND e.model = ? WHERE r.record_id IN ({','.join('?' * len(chunk))})", (model, *chunk)).fetchall()
        return out

    def outbox_count(self, after_id: int) -> int:
        return self.conn.execute("SELECT count(*) FROM records WHERE id > ?", (after_id,)).fetchone()[0]

    def outbox_sessions(self, session_ids: list[str]) -> list[tuple]:
        """The sessions of pushed records as the archive keeps them (``archive_schema.SESSION_COLUMNS``): title, the
        first prompt (what ``list`` titles an untitled one with), times, subagent parent, record and echo counts."""
        from backscroll.store.sessions import FIRST_PROMPT

        out: list[tuple] = []
        for i in range(0, len(session_ids), 500):
            chunk = session_ids[i:i + 500]
            out += self.conn.execute(
                "SELECT s.session_id, s.agent, s.project, s.cwd, s.title, "
                f"(SELECT text FROM records r WHERE r.session_id = s.session_id AND {FIRST_PROMPT}), "
                "s.started_at, s.updated_at, s.is_sidechain, s.parent_session_id, "
                "(SELECT count(*) FROM records r WHERE r.session_id = s.session_id), "
                "(SELECT count(*) FROM records r WHERE r.session_id = s.session_id AND r.is_echo = 1) "
                f"FROM sessions s WHERE s.session_id IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        return out

    def held_record_ids(self) -> set[str]:
        """Every record id this store holds (what a prune keeps in the archive)."""
        return {r[0] for r in self.conn.execute("SELECT record_id FROM records")}

    def held_session_ids(self) -> set[str]:
        """Every session this store holds a record of (a prune touches only their rows)."""
        return {r[0] for r in self.conn.execute("SELECT DISTINCT session_id FROM records")}

    def departed_since(self, after: int) -> tuple[list[str], int]:
        """The ids of records taken out by a re-read after ``after`` that the store holds no more, and the last
        such taking out (a push's next ``after``)."""
        last = self.conn.execute("SELECT coalesce(max(seq), 0) FROM departed").fetchone()[0]
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT d.record_id FROM departed d WHERE d.seq > ? AND d.seq <= ? AND NOT EXISTS "
            "(SELECT 1 FROM records r WHERE r.record_id = d.record_id) ORDER BY d.record_id", (after, last))], last
