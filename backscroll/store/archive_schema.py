"""The team archive's schema: its versioned migrations, statement by statement (``archive init`` runs nothing an
administrator cannot read here), the member group and its row-level security, and the columns a push fills.

``backscroll.records``: ``words`` holds a record's text as backscroll's own analyzer splits it, in order (the local
index's plain words), ``stems`` their English stems and ``parts`` the capitalised pieces of its identifiers, each
indexed (GIN) so that a word counts as held exactly as the local index counts it; ``embedding`` is a pgvector
``vector(384)`` (HNSW, cosine) where the extension can be created, else ``real[]`` for an exact scan.
``backscroll.sessions``: each member's sessions, with their titles, first prompts and counts, for ``list``.
"""

from __future__ import annotations

from typing import Any

SCHEMA_VERSION = 4
ROWS_VERSION = 2  # the last version that changed what a pushed row carries (a push's mark is kept under it)
GROUP = "backscroll_member"
DIM = 384
# Columns a pushed row fills, in this order (``push.row_of``), then the vector.
RECORD_COLUMNS = ("record_id", "session_id", "agent", "project", "cwd", "title", "role", "content_type", "author",
                  "tool_name", "tool_call_id", "is_echo", "is_error", "is_call", "ts", "text", "seq", "source_path",
                  "line", "is_sidechain", "parent_session_id", "words", "stems", "parts")
# Columns a pushed session fills (``push.session_of``).
SESSION_COLUMNS = ("session_id", "agent", "project", "cwd", "title", "first_prompt", "started_at", "updated_at",
                   "is_sidechain", "parent_session_id", "records", "echoes")

_TABLE = """
CREATE TABLE IF NOT EXISTS backscroll.records (
    member text NOT NULL DEFAULT current_user,
    machine text NOT NULL,
    record_id text NOT NULL,
    session_id text NOT NULL,
    agent text NOT NULL,
    project text,
    cwd text,
    title text,
    role text NOT NULL,
    content_type text NOT NULL,
    author text,
    tool_name text,
    tool_call_id text,
    is_echo boolean NOT NULL DEFAULT false,
    is_error boolean NOT NULL DEFAULT false,
    is_call boolean NOT NULL DEFAULT false,
    ts timestamptz,
    text text NOT NULL,
    words text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', words)) STORED,
    embedding {vector},
    pushed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (member, machine, record_id)
)"""

def migrations(current: int, vector: bool) -> list[str]:
    """The statements that bring an archive at version ``current`` (0: none) to ``SCHEMA_VERSION``; each is
    idempotent, so a migration cut short is run again whole."""
    return [*(_migration_1(vector) if current < 1 else []), *(_migration_2(vector) if current < 2 else []),
            *(_migration_3() if current < 3 else []), *(_migration_4(current) if current < 4 else [])]


def member_statements(sql: Any, name: str, database: str, exists: bool, in_group: bool) -> list:
    """``name`` made a member of this archive (``sql``: psycopg's ``sql`` module): a login role unless it ``exists``,
    in the group unless it is (a grant that takes CREATEROLE), and let connect to this archive's database (the group
    is the server's: a member of another archive on the same server is not one of this one's)."""
    role = sql.Identifier(name)
    return [*([] if exists else [sql.SQL("CREATE ROLE {} LOGIN").format(role)]),
            *([] if in_group else [sql.SQL("GRANT {} TO {}").format(sql.Identifier(GROUP), role)]),
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), role)]


# The group's roles (``r``), and whether a role (``%s``) is one of them.
_GROUP_ROLES = (f"pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid AND g.rolname = '{GROUP}' JOIN pg_roles r "
                "ON r.oid = a.member")
IN_GROUP = f"SELECT 1 FROM {_GROUP_ROLES} WHERE r.rolname = %s"


# Version 1, statement by statement (``archive init`` prints nothing it does not run; read them here).
def _migration_1(vector: bool) -> list[str]:
    return [
        "CREATE SCHEMA IF NOT EXISTS backscroll",
        "CREATE TABLE IF NOT EXISTS backscroll.meta (key text PRIMARY KEY, value text NOT NULL)",
        _TABLE.format(vector=f"vector({DIM})" if vector else "real[]"),
        "CREATE INDEX IF NOT EXISTS records_tsv ON backscroll.records USING gin (tsv)",
        "CREATE INDEX IF NOT EXISTS records_session ON backscroll.records (session_id, ts)",
        "CREATE INDEX IF NOT EXISTS records_member ON backscroll.records (member, machine)",
        "CREATE INDEX IF NOT EXISTS records_agent ON backscroll.records (agent)",  # "what did codex do": no scan
        *(["CREATE INDEX IF NOT EXISTS records_embedding ON backscroll.records "
           "USING hnsw (embedding vector_cosine_ops)"] if vector else []),
        # (a database owner without CREATEROLE can init an archive on a server where the group exists)
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{GROUP}') THEN CREATE ROLE {GROUP} NOLOGIN; "
        "END IF; EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        f"GRANT USAGE ON SCHEMA backscroll TO {GROUP}",
        f"GRANT SELECT ON backscroll.meta TO {GROUP}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON backscroll.records TO {GROUP}",
        "ALTER TABLE backscroll.records ENABLE ROW LEVEL SECURITY",
        "DROP POLICY IF EXISTS everyone_reads ON backscroll.records",
        f"CREATE POLICY everyone_reads ON backscroll.records FOR SELECT TO {GROUP} USING (true)",
        "DROP POLICY IF EXISTS own_rows_in ON backscroll.records",
        f"CREATE POLICY own_rows_in ON backscroll.records FOR INSERT TO {GROUP} WITH CHECK (member = current_user)",
        "DROP POLICY IF EXISTS own_rows_changed ON backscroll.records",
        f"CREATE POLICY own_rows_changed ON backscroll.records FOR UPDATE TO {GROUP} "
        "USING (member = current_user) WITH CHECK (member = current_user)",
        "DROP POLICY IF EXISTS own_rows_out ON backscroll.records",
        f"CREATE POLICY own_rows_out ON backscroll.records FOR DELETE TO {GROUP} USING (member = current_user)",
    ]


def _policies(table: str) -> list[str]:
    return [
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON backscroll.{table} TO {GROUP}",
        f"ALTER TABLE backscroll.{table} ENABLE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS everyone_reads ON backscroll.{table}",
        f"CREATE POLICY everyone_reads ON backscroll.{table} FOR SELECT TO {GROUP} USING (true)",
        f"DROP POLICY IF EXISTS own_rows_in ON backscroll.{table}",
        f"CREATE POLICY own_rows_in ON backscroll.{table} FOR INSERT TO {GROUP} WITH CHECK (member = current_user)",
        f"DROP POLICY IF EXISTS own_rows_changed ON backscroll.{table}",
        f"CREATE POLICY own_rows_changed ON backscroll.{table} FOR UPDATE TO {GROUP} "
        "USING (member = current_user) WITH CHECK (member = current_user)",
        f"DROP POLICY IF EXISTS own_rows_out ON backscroll.{table}",
        f"CREATE POLICY own_rows_out ON backscroll.{table} FOR DELETE TO {GROUP} USING (member = current_user)",
    ]


# Version 2 (#47): what the local ranking knows of a record (its English stems and identifier parts beside its
# words, its place in its session, where it was read, its subagent's parent) and a sessions table. Rows pushed
# under version 1 are sent again whole by each member's next push (its mark is kept per schema version).
def _migration_2(vector: bool) -> list[str]:
    columns = (("stems", "text NOT NULL DEFAULT ''"), ("parts", "text NOT NULL DEFAULT ''"),
               ("seq", "bigint NOT NULL DEFAULT 0"), ("source_path", "text"), ("line", "integer"),
               ("is_sidechain", "boolean NOT NULL DEFAULT false"), ("parent_session_id", "text"))
    # (array_to_tsvector: the lexemes are backscroll's own tokens, as they are, with no parser between)
    return [
        *(f"ALTER TABLE backscroll.records ADD COLUMN IF NOT EXISTS {name} {kind}" for name, kind in columns),
        "ALTER TABLE backscroll.records ADD COLUMN IF NOT EXISTS stem_tsv tsvector "
        "GENERATED ALWAYS AS (array_to_tsvector(string_to_array(stems, ' '))) STORED",
        "ALTER TABLE backscroll.records ADD COLUMN IF NOT EXISTS parts_tsv tsvector "
        "GENERATED ALWAYS AS (array_to_tsvector(string_to_array(parts, ' '))) STORED",
        "CREATE INDEX IF NOT EXISTS records_stem_tsv ON backscroll.records USING gin (stem_tsv)",
        "CREATE INDEX IF NOT EXISTS records_parts_tsv ON backscroll.records USING gin (parts_tsv)",
        """CREATE TABLE IF NOT EXISTS backscroll.sessions (
    member text NOT NULL DEFAULT current_user,
    machine text NOT NULL,
    session_id text NOT NULL,
    agent text NOT NULL,
    project text,
    cwd text,
    title text,
    first_prompt text,
    started_at timestamptz,
    updated_at timestamptz,
    is_sidechain boolean NOT NULL DEFAULT false,
    parent_session_id text,
    records integer NOT NULL DEFAULT 0,
    echoes integer NOT NULL DEFAULT 0,
    PRIMARY KEY (member, machine, session_id)
)""",
        "CREATE INDEX IF NOT EXISTS sessions_started ON backscroll.sessions (coalesce(started_at, updated_at) DESC)",
        *_policies("sessions"),
        # a graph that finds what an exact scan finds (.998 of the ten closest, against .963: archive_search)
        *(["DROP INDEX IF EXISTS backscroll.records_embedding",
           "CREATE INDEX records_embedding ON backscroll.records USING hnsw (embedding vector_cosine_ops) "
           "WITH (m = 16, ef_construction = 200)"] if vector else []),
    ]


# Version 3: a row is its member's when it names the role that logged in (``session_user``), not the role in use
# (``current_user``): every member may ``SET ROLE`` to the group, and could write and delete rows under its name.
# The rows do not change, so nothing is pushed again.
def _migration_3() -> list[str]:
    return [
        *(f"ALTER TABLE backscroll.{table} ALTER COLUMN member SET DEFAULT session_user"
          for table in ("records", "sessions")),
        *(statement.replace("current_user", "session_user") for table in ("records", "sessions")
          for statement in _policies(table)),
    ]


# Version 4: the group is the server's, so every archive on a server let every member of any of them in. The
# database is now open to those ``init --member`` named for it (and its owner); an archive migrated from an older
# version lets in the members who pushed to it, and ``archive init`` names the group's other roles, which it no
# longer lets in (a member who only read it, or one of another archive's): ``init --member NAME`` lets one in. No
# row changes.
def _migration_4(current: int) -> list[str]:
    pushers = (f"DO $$ DECLARE m record; BEGIN FOR m IN SELECT r.rolname FROM {_GROUP_ROLES} WHERE EXISTS (SELECT 1 "
               "FROM backscroll.records x WHERE x.member = r.rolname) LOOP EXECUTE format('GRANT CONNECT ON DATABASE "
               "%I TO %I', current_database(), m.rolname); END LOOP; END $$")  # (records_member: no scan)
    return [*([pushers] if current >= 1 else []),
            "DO $$ BEGIN EXECUTE format('REVOKE CONNECT ON DATABASE %I FROM PUBLIC', current_database()); END $$"]


# The group's roles this archive's database does not let in (named when a migration to version 4 shut them out).
SHUT_OUT = (f"SELECT r.rolname FROM {_GROUP_ROLES} WHERE NOT has_database_privilege(r.oid, current_database(), "
            "'CONNECT') ORDER BY 1")
