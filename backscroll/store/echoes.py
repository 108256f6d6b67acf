"""What the store knows about query echoes: the calls to classify again when the rules change, and the
earlier retrieval calls the repeat policy looks for. Mixed into ``Store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator


class EchoQueries:
    """Echo calls, read and re-flagged."""

    conn: sqlite3.Connection

    def classifiable_calls(self) -> list[tuple]:
        """``(id, session_id, tool_call_id, text, is_echo, tool_name, is_shell)`` of every call that may be an
        echo, or may be one no longer: shell commands that name the program (no rule finds it in one that does not)
        or are flagged, and tools named after backscroll."""
        return self.conn.execute(
            "SELECT id, session_id, tool_call_id, text, is_echo, tool_name, is_shell FROM records WHERE is_call = 1 "
            "AND (is_shell = 1 AND (is_echo = 1 OR instr(text, 'backscroll')) OR tool_name LIKE '%backscroll%')"
        ).fetchall()

    def set_echo(self, record: int, session: str, call_id: str | None, echo: int, revision: int) -> None:
        """Flag a call, and its results, as an echo or not (``revision``: a push sends them again)."""
        self.conn.execute("UPDATE records SET is_echo = ?, revised = ? WHERE id = ?", (echo, revision, record))
        if call_id:
            self.conn.execute("UPDATE records SET is_echo = ?, revised = ? WHERE session_id = ? AND tool_call_id = ? "
                              "AND is_call = 0", (echo, revision, session, call_id))

    def tool_outputs_not_echoes(self, marked: Callable[[str], bool], batch: int = 500) -> Iterator[list[tuple]]:
        """``(id, session_id, tool_call_id, text)`` of the tool outputs (and the harness's messages) not flagged that
        may show backscroll's answers, a batch at a time: those ``marked`` (``echo_output.marked``, run by SQLite
        over each text: faster than ``instr`` there, and one rule) says hold what every shape of them holds."""
        self.conn.create_function("marked", 1, lambda text: isinstance(text, str) and marked(text), deterministic=True)
        ids = [r[0] for r in self.conn.execute(
            "SELECT id FROM records WHERE is_call = 0 AND (content_type = 'tool' OR author = 'harness') "
            "AND is_echo = 0 AND marked(text)")]
        for i in range(0, len(ids), batch):
            chunk = ids[i:i + batch]
            yield self.conn.execute("SELECT id, session_id, tool_call_id, text FROM records WHERE id IN "
                                    f"({','.join('?' * len(chunk))})", chunk).fetchall()

    def set_output_echo(self, record: int, session: str, call_id: str | None, revision: int) -> None:
        """Flag a tool output as an echo, with its call and the call's other outputs."""
        self.conn.execute("UPDATE records SET is_echo = 1, revised = ? WHERE id = ?", (revision, record))
        if call_id:
            self.conn.execute("UPDATE records SET is_echo = 1, revised = ? WHERE session_id = ? AND tool_call_id = ? "
                              "AND is_echo = 0", (revision, session, call_id))

    def flag_echo_calls(self, calls: list[tuple[str, str]], revision: int) -> int:
        """Flag stored calls ``(session, call id)`` as echoes (their output, read later, was backscroll's answer):
        sent again by a push (``revision``), and indexed again (a tombstone on a live row); how many changed."""
        ids = [r[0] for session, call in calls for r in self.conn.execute(
            "SELECT id FROM records WHERE session_id = ? AND tool_call_id = ? AND is_call = 1 AND is_echo = 0",
            (session, call))]
        self.conn.executemany("UPDATE records SET is_echo = 1, revised = ? WHERE id = ?", [(revision, i) for i in ids])
        self.conn.executemany("INSERT OR IGNORE INTO tombstones (id) VALUES (?)", [(i,) for i in ids])
        return len(ids)

    def call_unanswered(self, session: str, call_id: str) -> bool:
        """Whether no result of the call is stored yet (it is still running)."""
        return self.conn.execute("SELECT NOT EXISTS (SELECT 1 FROM records WHERE session_id = ? AND tool_call_id = ? "
                                 "AND is_call = 0)", (session, call_id)).fetchone()[0] == 1

    def echo_calls_between(self, since: str, until: str, limit: int = 50) -> list[tuple]:
        """``(id, session_id, tool_call_id, tool_name, text)`` of echo calls in a time window, newest first."""
        return self.conn.execute(
            "SELECT id, session_id, tool_call_id, tool_name, text FROM records WHERE is_echo = 1 AND is_call = 1 "
            "AND timestamp >= ? AND timestamp <= ? ORDER BY timestamp DESC, id DESC LIMIT ?",
            (since, until, limit)).fetchall()

    def echo_calls_of(self, session: str, limit: int = 50) -> list[tuple]:
        """``(id, session_id, tool_call_id, tool_name, text)`` of a session's latest echo calls, newest first."""
        return self.conn.execute(
            "SELECT id, session_id, tool_call_id, tool_name, text FROM records WHERE is_echo = 1 AND is_call = 1 "
            "AND session_id = ? ORDER BY id DESC LIMIT ?", (session, limit)).fetchall()

    def echo_calls_this_turn(self, session: str, before: int) -> list[tuple]:
        """``(id, record_id, timestamp, tool_name, text)`` of the echo calls of ``session`` after its last
        prompt before record ``before``, newest first."""
        last_user = self.conn.execute(
            "SELECT coalesce(max(id), 0) FROM records WHERE session_id = ? AND role = 'user' AND content_type = 'text' "
            "AND id < ?", (session, before)).fetchone()[0]
        return self.conn.execute(
            "SELECT id, record_id, timestamp, tool_name, text FROM records WHERE session_id = ? AND is_echo = 1 "
            "AND is_call = 1 AND id > ? AND id < ? ORDER BY id DESC", (session, last_user, before)).fetchall()
