"""The team archive's PostgreSQL side: the connection, its schema (versioned migrations an administrator can read),
roles and row-level security; the statements a push and a prune send (``archive_push``), a search's
(``archive_search``) and browsing's (``archive_browse``) are mixed in. psycopg is imported only here and there.

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
from backscroll.store.archive_push import ArchivePush
from backscroll.store.archive_schema import (
    IN_GROUP,
    ROWS_VERSION,
    SCHEMA_VERSION,
    SHUT_OUT,
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
class Archive(ArchiveSearch, ArchiveBrowse, ArchivePush):
    """An open connection to a team archive."""

    conn: Any
    url: str
    _vector: bool | None = field(default=None, repr=False)
    _breadth: int = field(default=0, repr=False)
    notes: list[str] = field(default_factory=list, repr=False)  # what ``init`` tells the owner

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
        # Who this archive is (with its database's oid, a push's mark is kept under it: ``identity``).
        self._run("INSERT INTO backscroll.meta VALUES ('archive_id', md5(random()::text || clock_timestamp()::text)) "
                  "ON CONFLICT (key) DO NOTHING")
        database, sql = self._run("SELECT current_database()")[0][0], psycopg_module().sql
        for name in members:
            exists = bool(self._run("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)))
            for statement in member_statements(sql, name, database, exists, bool(self._run(IN_GROUP, (name,)))):
                self._run(statement.as_string(self.conn))
        if 1 <= current < 4 and (out := [r[0] for r in self._run(SHUT_OUT)]):
            self.notes.append(f"{database} now lets in the members who pushed to it; not {', '.join(out)} (members "
                              "of other archives, or readers only): `archive init URL --member NAME` lets one in")
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

    def count(self, member: str | None = None) -> int:
        if member is None:
            return self._run("SELECT count(*) FROM backscroll.records")[0][0]
        return self._run("SELECT count(*) FROM backscroll.records WHERE member = %s", (member,))[0][0]
