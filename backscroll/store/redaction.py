"""The SQL of redacting stored records again under newer rules (``ingest.redact_again``; what a push sends
again is the outbox's). Mixed into ``Store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

# The strings of a record that redaction covers, in this order (``strings_before`` and ``rewrite``).
STRINGS = ("text", "cwd", "tool_name", "project")


class RedactionQueries:
    conn: sqlite3.Connection

    def strings_before(self, version: int, after_id: int, batch: int) -> list[tuple]:
        """``(id, session_id, content_type, text_truncated, text, cwd, tool_name, project)`` of up to ``batch``
        records after ``after_id`` redacted with rules older than ``version``, in id order."""
        return self.conn.execute(
            f"SELECT id, session_id, content_type, text_truncated, {', '.join(STRINGS)} FROM records "
            "WHERE id > ? AND redaction < ? ORDER BY id LIMIT ?", (after_id, version, batch)).fetchall()

    def rewrite_records(self, changed: Iterable[tuple], revision: int) -> None:
        """Store ``(id, text, cwd, tool_name, project, content_hash)``: the record's strings as redacted again,
        marked for the next push as ``revision``."""
        self.conn.executemany(
            f"UPDATE records SET {', '.join(f'{c} = ?' for c in STRINGS)}, content_hash = ?, revised = ? "
            "WHERE id = ?", [(*row[1:], revision, row[0]) for row in changed])

    def mark_redacted(self, version: int, first_id: int, last_id: int) -> None:
        self.conn.execute("UPDATE records SET redaction = ? WHERE id BETWEEN ? AND ? AND redaction < ?",
                          (version, first_id, last_id, version))

    def forget_session_units(self, session_ids: Iterable[str]) -> None:
        """The sessions' prose is embedded again (a unit holds its question: a changed text changes its
        neighbour's unit); a unit whose text did not change finds its vector by hash."""
        self.conn.executemany("UPDATE records SET unit_hash = NULL, vector_seq = NULL "
                              "WHERE session_id = ? AND unit_hash IS NOT NULL", [(s,) for s in session_ids])

    def session_strings(self) -> list[tuple[str, str | None, str | None, str | None]]:
        """``(session_id, title, cwd, project)`` of every session."""
        return self.conn.execute("SELECT session_id, title, cwd, project FROM sessions").fetchall()

    def rewrite_session(self, session_id: str, strings: list[str | None], revision: int) -> None:
        """A session's ``(title, cwd, project)`` as redacted again; its records go to the archive again (each
        carries its session's title)."""
        self.conn.execute("UPDATE sessions SET title = ?, cwd = ?, project = ? WHERE session_id = ?",
                          (*strings, session_id))
        self.conn.execute("UPDATE records SET revised = ? WHERE session_id = ?", (revision, session_id))

    def leaf_title_strings(self) -> list[tuple[str, str]]:
        return self.conn.execute("SELECT leaf_uuid, title FROM leaf_titles").fetchall()

    def rewrite_leaf_title(self, leaf: str, title: str) -> None:
        self.conn.execute("UPDATE leaf_titles SET title = ? WHERE leaf_uuid = ?", (title, leaf))

