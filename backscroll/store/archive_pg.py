"""The team archive's PostgreSQL side: its schema (versioned migrations an administrator can read), roles and
row-level security, and the statements a push, a prune and a search send. psycopg is imported only here.

The tables (``archive_schema``): ``backscroll.records``, every member's records, already redacted and echo-tagged
on their machine, keyed by ``(member, machine, record_id)``, with the words the local index holds of each (plain,
stemmed, identifier parts) and its vector; ``backscroll.sessions``, one row per member's session. Members are
database roles in ``backscroll_member`` allowed to connect to the archive's database: everyone may read every row; a
member may insert, change and delete only rows whose ``member`` is their own role.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from backscroll.errors import ArchiveError
from backscroll.store.archive_browse import ArchiveBrowse
from backscroll.store.archive_schema import (
    RECORD_COLUMNS,
    ROWS_VERSION,
    SCHEMA_VERSION,
    SESSION_COLUMNS,
    member_statements,
    migrations,
)
from backscroll.store.archive_search import ArchiveSearch, psycopg_module
from backscroll.store.archive_url import advice, check, said, where


def _lenient_times(psycopg):
    """psycopg's reader of ``timestamptz``, reading a time Python cannot hold (``'infinity'``, a year past 9999: a
    row a teammate made by hand) as no time, where it would fail every search and list that meets the row."""
    from psycopg import pq
    from psycopg.adapt import Loader
    from psycopg.postgres import types

    base = psycopg.adapters.get_loader(types["timestamptz"].oid, pq.Format.TEXT)  # (psycopg's own, in C)

    class Lenient(Loader):
        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            self.base = base(oid, context)

        def load(self, data):
            try:
                return self.base.load(data)
            except psycopg.DataError:
                return None

    return Lenient


@dataclass
class Archive(ArchiveSearch, ArchiveBrowse):
    """An open connection to a team archive."""

    conn: Any
    url: str
    _vector: bool | None = field(default=None, repr=False)
    _breadth: int = field(default=0, repr=False)

    @classmethod
    def connect(cls, url: str, timeout: int = 10) -> Archive:
        psycopg = psycopg_module()
        check(url)
        try:
            conn = psycopg.connect(url, connect_timeout=timeout, application_name="backscroll")
        except psycopg.Error as exc:
            raise ArchiveError(f"cannot reach the archive at {where(url)}: {said(exc, url)}", advice(exc)) from None
        conn.adapters.register_loader("timestamptz", _lenient_times(psycopg))
        return cls(conn, url)

    def close(self) -> None:
        self.conn.close()

    def _rollback(self) -> None:
        """Roll back after a failed statement (and the transaction's settings); a lost connection has none."""
        self._breadth = 0
        try:
            self.conn.rollback()
        except psycopg_module().Error:
            pass

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple]:
        psycopg = psycopg_module()
        try:
            with self.conn.cursor() as cur:
                cur.execute(sql, params)
                return cur.fetchall() if cur.description else []
        except psycopg.Error as exc:
            self._rollback()
            raise ArchiveError(f"the archive at {where(self.url)} refused: {said(exc, self.url)}",
                               advice(exc)) from None

    # -- schema ---------------------------------------------------------------------------------------
    def version(self) -> int | None:
        """The archive's schema version, or None when ``archive init`` never ran there."""
        found = self._run("SELECT to_regclass('backscroll.meta') IS NOT NULL")
        if not found or not found[0][0]:
            return None
        row = self._run("SELECT value FROM backscroll.meta WHERE key = 'schema_version'")
        if row and not str(row[0][0]).strip().isdigit():
            raise ArchiveError(f"the archive at {where(self.url)} names a schema version backscroll cannot read "
                               "(backscroll.meta's schema_version is not a number): ask its owner to look")
        return int(row[0][0]) if row else None

    def rows_estimate(self) -> int:
        """About how many records the archive holds (the planner's count: no scan)."""
        row = self._run("SELECT reltuples FROM pg_class WHERE oid = 'backscroll.records'::regclass")
        if row and row[0][0] is not None and row[0][0] >= 0:
            return int(row[0][0])  # (else never analyzed, -1: counted, up to as many as matter)
        return self._run("SELECT count(*) FROM (SELECT 1 FROM backscroll.records LIMIT 100000) AS r")[0][0]

    def has_vector(self) -> bool:
        """Whether embeddings are pgvector vectors (else ``real[]``, scanned exactly); asked once a connection
        (a search asks it for each meaning list), again after ``init``."""
        if self._vector is None:
            row = self._run("SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                            "WHERE attrelid = 'backscroll.records'::regclass AND attname = 'embedding'")
            self._vector = bool(row) and row[0][0].startswith("vector")
        return self._vector

    def init(self, members: Iterable[str] = (), *, pgvector: bool = True) -> tuple[int, bool]:
        """Create or migrate the schema, the member group and its policies (idempotent), and make each of
        ``members`` a login role in the group; vectors are pgvector's where the server has it, unless not
        ``pgvector`` (an archive made without keeps ``real[]``). Returns ``(schema version, pgvector)``."""
        encoding = self._run("SELECT pg_encoding_to_char(encoding) FROM pg_database WHERE datname = current_database()")
        if encoding and encoding[0][0] != "UTF8":  # (a session's text is any language's, and its symbols)
            raise ArchiveError(f"the database at {where(self.url)} is encoded {encoding[0][0]}: an archive needs UTF8",
                               hint="create it as `CREATE DATABASE name ENCODING 'UTF8' TEMPLATE template0`")
        vector = pgvector and self._try_vector()
        current = self.version() or 0
        if current > SCHEMA_VERSION:
            raise ArchiveError(f"the archive's schema is version {current}, newer than this backscroll "
                               f"({SCHEMA_VERSION}): upgrade backscroll")
        for statement in migrations(current, vector):
            self._run(statement)
        self._run("INSERT INTO backscroll.meta VALUES ('schema_version', %s) "
                  "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))
        # Who this archive is: a push's mark is kept under it, so an archive made anew is pushed to whole.
        self._run("INSERT INTO backscroll.meta VALUES ('archive_id', md5(random()::text || clock_timestamp()::text)) "
                  "ON CONFLICT (key) DO NOTHING")
        database, sql = self._run("SELECT current_database()")[0][0], psycopg_module().sql
        for name in members:
            exists = bool(self._run("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)))
            for statement in member_statements(sql, name, database, exists):
                self._run(statement.as_string(self.conn))
        self.conn.commit()
        self._vector = None
        return SCHEMA_VERSION, self.has_vector()

    def _try_vector(self) -> bool:
        """Create the pgvector extension if the server has it and we may; False otherwise."""
        if not self._run("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"):
            return False
        try:
            self._run("CREATE EXTENSION IF NOT EXISTS vector")
        except ArchiveError:
            return False
        return True

    def check_version(self) -> str | None:
        """An error saying what to do when the schema is missing, older or newer than this client's; for an archive
        this client uses as it is, though older, a note saying what its owner runs."""
        found = self.version()
        if found is not None and ROWS_VERSION <= found <= SCHEMA_VERSION:
            # (an archive whose rows are today's works as it is; `archive init` brings its policies up)
            return None if found == SCHEMA_VERSION else (
                f"the archive's schema is version {found}: its owner runs `backscroll archive init URL` to bring it "
                f"to {SCHEMA_VERSION} ({'rows are then kept by the role that logged in, and ' if found < 3 else ''}"
                "its database lets in its own members only)")
        if found is None:
            raise ArchiveError(f"no backscroll archive at {where(self.url)}: its owner runs "
                               "`backscroll archive init URL` first")
        if found < SCHEMA_VERSION:
            raise ArchiveError(f"the archive's schema is version {found}, older than this backscroll's "
                               f"{SCHEMA_VERSION}: its owner runs `backscroll archive init URL` to migrate it")
        raise ArchiveError(f"the archive's schema is version {found}, newer than this backscroll "
                           f"({SCHEMA_VERSION}): upgrade backscroll")

    def identity(self) -> str:
        """What a push's mark is kept under: the id ``archive init`` gave this archive and its database's oid, so that a
        copy (``CREATE DATABASE … TEMPLATE``, a dump restored) is another archive, pushed to whole, not the original."""
        row = self._run("SELECT value || '@' || (SELECT oid FROM pg_database WHERE datname = current_database()) "
                        "FROM backscroll.meta WHERE key = 'archive_id'")
        return row[0][0] if row else where(self.url)

    def role(self) -> str:
        """The role this connection logged in as: the member whose rows it may write."""
        return self._run("SELECT session_user")[0][0]

    # -- push and prune -------------------------------------------------------------------------------
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
                cur.execute("DELETE FROM backscroll.sessions s WHERE member = %s AND machine = %s AND NOT EXISTS "
                            "(SELECT 1 FROM backscroll.records r WHERE r.member = s.member AND r.machine = s.machine "
                            "AND r.session_id = s.session_id)", (member, machine))
            self.conn.commit()
            return gone
        except psycopg.Error as exc:
            self._rollback()
            raise ArchiveError(f"the archive at {where(self.url)} refused the prune: {said(exc, self.url)}") from None

    def count(self, member: str | None = None) -> int:
        if member is None:
            return self._run("SELECT count(*) FROM backscroll.records")[0][0]
        return self._run("SELECT count(*) FROM backscroll.records WHERE member = %s", (member,))[0][0]
