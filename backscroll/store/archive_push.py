"""The team archive's push and prune statements (mixed into ``archive_pg.Archive``): rows and sessions written as
one member's from one machine (COPY into a staging table, then one ``INSERT … ON CONFLICT`` or ``UPDATE``), the
vectors given later, and the records taken out with their sessions' counts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backscroll.errors import ArchiveError
from backscroll.store.archive_schema import RECORD_COLUMNS, SESSION_COLUMNS
from backscroll.store.archive_search import psycopg_module
from backscroll.store.archive_url import said, where

# A member's sessions from a machine that hold no record any more (taken out, or moved to a session named otherwise).
_EMPTY_SESSIONS = ("DELETE FROM backscroll.sessions s WHERE member = %s AND machine = %s AND NOT EXISTS (SELECT 1 FROM "
                   "backscroll.records r WHERE r.member = s.member AND r.machine = s.machine AND "
                   "r.session_id = s.session_id)")


class ArchivePush:
    conn: Any
    url: str

    def _run(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple]:
        raise NotImplementedError

    def _rollback(self) -> None:
        raise NotImplementedError

    def upsert(self, member: str, machine: str, rows: list[tuple], sessions: Sequence[tuple] = (), *,
               insert: bool = True) -> None:
        """Insert or replace ``rows`` (``RECORD_COLUMNS`` values, then the vector or None) and ``sessions``
        (``SESSION_COLUMNS`` values) as ``member``'s from ``machine``, in one transaction: COPY into a session's
        staging table, then one ``INSERT … ON CONFLICT`` (row-level security checks every row as it lands).
        ``insert=False`` only replaces the rows the archive holds: one a member deleted stays deleted."""
        self._written(member, machine, [("records", (*RECORD_COLUMNS, "embedding"), "record_id", rows),
                                        ("sessions", SESSION_COLUMNS, "session_id", sessions)], insert)

    def set_vectors(self, member: str, machine: str, vectors: list[tuple[str, Any]]) -> int:
        """Give rows ``member`` pushed from ``machine`` their vectors (``(record_id, vector)``), in one transaction;
        how many rows took one. A row the archive no longer holds stays gone."""
        return self._written(member, machine, [("records", ("record_id", "embedding"), "record_id", vectors)],
                             insert=False)

    def _written(self, member: str, machine: str, tables: Sequence[tuple[str, Sequence[str], str, Sequence[tuple]]],
                 insert: bool) -> int:
        """Each ``(table, columns, key, rows)`` as ``member``'s from ``machine``, in one transaction: COPY into a
        staging table of those columns, then one ``INSERT … ON CONFLICT`` (or, without ``insert``, one ``UPDATE``
        of the rows held); how many rows were written."""
        psycopg = psycopg_module()
        written = 0
        try:
            with self.conn.cursor() as cur:
                for table, names, key, values in tables:
                    if not values:
                        continue
                    columns = ", ".join(("member", "machine", *names))
                    stage = f"push_{table}_{len(names)}"  # (a staging table for each set of columns)
                    cur.execute(f"CREATE TEMP TABLE IF NOT EXISTS {stage} AS SELECT {columns} FROM backscroll.{table} "
                                "WITH NO DATA")
                    with cur.copy(f"COPY {stage} ({columns}) FROM STDIN") as copy:
                        for row in values:
                            copy.write_row((member, machine, *row))
                    touched = ", pushed_at = now()" if table == "records" else ""
                    if insert:
                        update = ", ".join(f"{c} = excluded.{c}" for c in names if c != key)
                        cur.execute(f"INSERT INTO backscroll.{table} ({columns}) SELECT {columns} FROM {stage} "
                                    f"ON CONFLICT (member, machine, {key}) DO UPDATE SET {update}{touched}")
                    else:
                        update = ", ".join(f"{c} = s.{c}" for c in names if c != key)
                        cur.execute(f"UPDATE backscroll.{table} t SET {update}{touched} FROM {stage} s WHERE "
                                    f"t.member = s.member AND t.machine = s.machine AND t.{key} = s.{key}")
                    written += cur.rowcount
                    cur.execute(f"TRUNCATE {stage}")
            self.conn.commit()
            return written
        except psycopg.Error as exc:
            self._rollback()
            raise self._push_failed(exc) from None

    def _push_failed(self, exc: Exception) -> ArchiveError:
        """A failed push's error: a connection lost (the server went away or shut down: class 08, 57P01-03), or a
        refusal (row-level security, a limit, a timeout)."""
        state = getattr(exc, "sqlstate", None) or ""
        if self.conn.broken or state.startswith(("08", "57P")):
            return ArchiveError(f"the connection to the archive at {where(self.url)} was lost mid-push: "
                                f"{said(exc, self.url)}", hint="the batches committed stay; the next push goes on "
                                "from there")
        return ArchiveError(f"the archive at {where(self.url)} refused the push: {said(exc, self.url)}")

    def unembedded_ids(self, member: str, machine: str, record_ids: Sequence[str]) -> set[str]:
        """Those of ``record_ids`` ``member`` pushed from ``machine`` that hold no vector yet (by the primary key)."""
        out: set[str] = set()
        for i in range(0, len(record_ids), 5000):
            out |= {r[0] for r in self._run(
                "SELECT record_id FROM backscroll.records WHERE member = %s AND machine = %s "
                "AND record_id = ANY(%s) AND embedding IS NULL", (member, machine, list(record_ids[i:i + 5000])))}
        return out

    def pushed_ids(self, member: str, machine: str) -> dict[str, str]:
        """Each record id ``member`` pushed from ``machine``, with its session's id."""
        return {r[0]: r[1] for r in self._run("SELECT record_id, session_id FROM backscroll.records "
                                              "WHERE member = %s AND machine = %s", (member, machine))}

    def delete(self, member: str, machine: str, record_ids: list[str]) -> int:
        """Remove these records of ``member`` from ``machine``; how many went."""
        psycopg = psycopg_module()
        try:
            with self.conn.cursor() as cur:
                cur.execute("DELETE FROM backscroll.records WHERE member = %s AND machine = %s "
                            "AND record_id = ANY(%s)", (member, machine, record_ids))
                gone = cur.rowcount
                # the sessions' counts follow; a session left with no record goes
                cur.execute("UPDATE backscroll.sessions s SET records = c.n, echoes = c.e FROM (SELECT session_id, "
                            "count(*) AS n, count(*) FILTER (WHERE is_echo) AS e FROM backscroll.records WHERE "
                            "member = %s AND machine = %s GROUP BY session_id) c WHERE s.member = %s AND "
                            "s.machine = %s AND s.session_id = c.session_id", (member, machine, member, machine))
                cur.execute(_EMPTY_SESSIONS, (member, machine))
            self.conn.commit()
            return gone
        except psycopg.Error as exc:
            self._rollback()
            raise ArchiveError(f"the archive at {where(self.url)} refused the prune: {said(exc, self.url)}") from None

    def drop_empty_sessions(self, member: str, machine: str) -> None:
        """Take out ``member``'s sessions from ``machine`` whose records all went to another session (a newer reader
        named it otherwise), so that ``list --archive`` does not show it twice."""
        self._run(_EMPTY_SESSIONS, (member, machine))
        self.conn.commit()

    def held(self, member: str, machine: str, record_ids: list[str]) -> int:
        """How many of ``record_ids`` the archive holds of ``member`` from ``machine`` (what a delete would take)."""
        return self._run("SELECT count(*) FROM backscroll.records WHERE member = %s AND machine = %s AND "
                         "record_id = ANY(%s)", (member, machine, record_ids))[0][0]
