"""Numbered schema migrations of the record store (applied through sqlite-utils ``Migrations``).

The schema version is the number of migrations registered here (``schema_version()``) and is
mirrored in ``PRAGMA user_version``, so that opening an up-to-date store costs one pragma read and
never imports sqlite-utils. Adding a migration is all it takes: decorate a function with
``@migrations()`` below the others, and ``Store.open`` upgrades older stores to the new version.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING

from backscroll.store.migration_list import MigrationList

if TYPE_CHECKING:
    from sqlite_utils import Database


migrations = MigrationList("backscroll")


def schema_version() -> int:
    """The schema version this backscroll writes: the number of migrations."""
    return len(migrations)


@migrations()
def m001_initial(db: Database) -> None:
    db.execute("""
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)""")
    db.table("sessions").create({
        "session_id": str, "agent": str, "project": str, "cwd": str, "title": str,
        "started_at": str, "updated_at": str, "source_path": str,
        "is_sidechain": int, "parent_session_id": str,
    }, pk="session_id", not_null={"agent"}, defaults={"is_sidechain": 0}, if_not_exists=True)
    db.table("records").create({
        "id": int, "record_id": str, "session_id": str, "agent": str, "project": str, "cwd": str,
        "role": str, "content_type": str, "tool_name": str, "tool_call_id": str,
        "is_echo": int, "is_error": int, "timestamp": str, "source_path": str, "line": int,
        "text": str, "text_truncated": int, "content_hash": str,
        "is_sidechain": int, "parent_session_id": str,
    }, pk="id", not_null={"record_id", "session_id", "agent", "role", "content_type", "source_path",
                          "line", "text", "content_hash"},
       defaults={"is_echo": 0, "is_error": 0, "text_truncated": 0, "is_sidechain": 0}, if_not_exists=True)
    db.table("records").create_index(["record_id"], unique=True, if_not_exists=True)
    db.table("records").create_index(["session_id", "timestamp"], if_not_exists=True)
    db.table("records").create_index(["source_path"], if_not_exists=True)
    db.table("records").create_index(["tool_call_id"], if_not_exists=True)
    db.table("source_files").create({
        "path": str, "agent": str, "size": int, "mtime_ns": int, "offset": int, "lines": int,
        "head_digest": str, "tail_digest": str, "session_id": str, "session_state": str,
        "indexed_at": str,
    }, pk="path", if_not_exists=True)
    db.table("skipped_lines").create({"path": str, "line": int, "reason": str, "seen_at": str},
                               pk=("path", "line"), if_not_exists=True)
    # Records deleted from the store (a rewritten source file) whose derived copies still need removing.
    db.table("tombstones").create({"id": int}, pk="id", if_not_exists=True)


# Who hears that a store is being upgraded (the CLI: a large history takes seconds, once); a hook stays silent.
ANNOUNCE: ContextVar[Callable[[str], None] | None] = ContextVar("announce_upgrade", default=None)


def migrate(conn: sqlite3.Connection) -> None:
    """Apply pending migrations on an open stdlib connection and record the schema version."""
    from sqlite_utils import Database

    if (say := ANNOUNCE.get()) is not None and conn.execute("PRAGMA user_version").fetchone()[0] > 0:  # (not new)
        say("upgrading the store for this version of backscroll (once; about a minute for millions of records)")
    migrations.apply(Database(conn))
    conn.execute(f"PRAGMA user_version = {schema_version()}")
    conn.commit()


@migrations()
def m002_embeddings(db: Database) -> None:
    # unit_hash: the hash of the text a prose record is embedded as (its exchange unit), NULL until
    # embedded; vector_seq: the embedding pass that gave it a vector (the matrix cache reads newer ones).
    for column, kind in (("unit_hash", str), ("vector_seq", int)):
        if column not in db.table("records").columns_dict:
            db.table("records").add_column(column, kind)
    db.table("embeddings").create({"content_hash": str, "model": str, "dim": int, "vector": bytes},
                            pk=("content_hash", "model"), if_not_exists=True)
    db.table("query_vectors").create({"model": str, "query": str, "vector": bytes, "used_at": str},
                               pk=("model", "query"), if_not_exists=True)
    db.execute("CREATE INDEX IF NOT EXISTS records_pending_units ON records(id) "
               "WHERE unit_hash IS NULL AND content_type = 'text' AND is_echo = 0")
    db.execute("CREATE INDEX IF NOT EXISTS records_vector_seq ON records(vector_seq) WHERE vector_seq IS NOT NULL")


@migrations()
def m003_tool_calls(db: Database) -> None:
    # is_call: 1 for a tool call, 0 for a tool result or prose. Older rows are backfilled: a call is
    # the first record of its tool_call_id in the session (calls precede their results).
    if "is_call" not in db.table("records").columns_dict:
        db.table("records").add_column("is_call", int, not_null_default=0)
    db.execute("""
        UPDATE records SET is_call = 1
        WHERE tool_call_id IS NOT NULL AND id = (
            SELECT min(r2.id) FROM records r2
            WHERE r2.tool_call_id = records.tool_call_id AND r2.session_id = records.session_id)""")
    db.execute("CREATE INDEX IF NOT EXISTS records_echo_calls ON records(timestamp) WHERE is_echo = 1 AND is_call = 1")
    # Echo rules may have changed since these rows were classified: classify them again on next sync.
    db.execute("DELETE FROM meta WHERE key = 'classifier_version'")


@migrations()
def m004_redactions(db: Database) -> None:
    # How many secrets of each kind were redacted at ingest (counts only, never values).
    db.table("redactions").create({"kind": str, "count": int}, pk="kind", if_not_exists=True)


@migrations()
def m005_record_ids_never_reused(db: Database) -> None:
    # ``records.id`` becomes AUTOINCREMENT: SQLite handed a rewritten session's new rows the ids of
    # the rows they replaced (max(id) + 1), below the lexical watermark, so they never reached the
    # index while its stale documents answered for them. Existing ids are kept; the sequence starts
    # above every id ever handed out (live rows, tombstones, the index watermark).
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'records'").fetchone()
    if row is None or "AUTOINCREMENT" in row[0].upper():
        return
    create, n = re.subn(r"(\[id\]|\"id\"|\bid\b)\s+INTEGER\s+PRIMARY\s+KEY", r"\1 INTEGER PRIMARY KEY AUTOINCREMENT",
                        row[0], count=1, flags=re.IGNORECASE)
    if not n:
        raise RuntimeError("records.id is not an INTEGER PRIMARY KEY; cannot make it AUTOINCREMENT")
    create = re.sub(r"^CREATE TABLE\s+(\[records\]|\"records\"|records)", "CREATE TABLE [records_m005]", create,
                    count=1)
    indexes = [r[0] for r in db.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' AND sql IS NOT NULL")]
    columns = ", ".join(f"[{c}]" for c in db.table("records").columns_dict)
    db.execute(create)
    db.execute(f"INSERT INTO [records_m005] ({columns}) SELECT {columns} FROM [records]")
    db.execute("DROP TABLE [records]")
    db.execute("ALTER TABLE [records_m005] RENAME TO [records]")
    for sql in indexes:
        db.execute(sql)
    top = db.execute(
        "SELECT max(coalesce((SELECT max(id) FROM records), 0), coalesce((SELECT max(id) FROM tombstones), 0), "
        "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'lexical_watermark'), 0))").fetchone()[0]
    db.execute("DELETE FROM sqlite_sequence WHERE name = 'records'")
    db.execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('records', ?)", (top,))
    # Documents already in the index may stand for rows whose ids were reused: index everything again.
    db.execute("DELETE FROM meta WHERE key IN ('lexical_generation', 'lexical_watermark')")
    # Embeddings of replaced records were never pruned: prune them on the next embedding pass.
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('embeddings_prune', '1')")


@migrations()
def m006_source_issues(db: Database) -> None:
    # Session files and directories that could not be read (kept, with the size and mtime they had, so
    # an unchanged file is not read again), and notices about files that were rewritten or emptied.
    db.table("source_issues").create({"path": str, "kind": str, "reason": str, "size": int, "mtime_ns": int,
                                "seen_at": str}, pk="path", not_null={"kind"}, if_not_exists=True)


@migrations()
def m007_author_and_unknown_entries(db: Database) -> None:
    # author: who wrote a user-role record (human | agent | harness). Existing user rows were all
    # taken for the person's; the next sync re-reads every file (ingest.PARSE_VERSION) and
    # reclassifies what was not. unknown_entries: entry types a parser saw but did not understand,
    # per source file (so a re-read replaces its counts), with one example line.
    if "author" not in db.table("records").columns_dict:
        db.table("records").add_column("author", str)
    db.execute("UPDATE records SET author = 'human' WHERE role = 'user' AND author IS NULL")
    db.table("unknown_entries").create(
        {"path": str, "agent": str, "entry_type": str, "count": int, "example_line": int},
        pk=("path", "entry_type"), if_not_exists=True)
    # Titles a Claude ``summary`` line gives the conversation ending at ``leaf_uuid``, often a
    # record of another file: applied to the session holding that record once it is stored.
    db.table("leaf_titles").create({"leaf_uuid": str, "title": str, "seen_at": str}, pk="leaf_uuid", if_not_exists=True)
    # How sure a session's title is: 0 its first slash command, 1 a parser's or summary title,
    # 2 an AI-generated title, 3 one the person gave. A lower rank never replaces a higher one.
    if "title_rank" not in db.table("sessions").columns_dict:
        db.table("sessions").add_column("title_rank", int)
    db.execute("CREATE INDEX IF NOT EXISTS records_pending_prose ON records(id) "
               "WHERE unit_hash IS NULL AND content_type IN ('text', 'summary') AND is_echo = 0")
    db.execute("DELETE FROM meta WHERE key IN ('lexical_generation', 'lexical_watermark')")


@migrations()
def m008_shell_calls(db: Database) -> None:
    # is_shell: 1 for a tool call that ran a shell command (its source gave the command), written at
    # ingest; re-classification (ingest.sync.reclassify) revisits these calls. Calls stored before
    # were revisited by tool name: they are marked by the names that counted then (a frozen list,
    # history; new agents' calls are marked at ingest and never need to be named here).
    records = db.table("records")
    if "is_shell" not in records.columns_dict:
        records.add_column("is_shell", int, not_null_default=0)
    names = ("Bash", "shell", "exec_command", "local_shell", "container.exec", "run_shell_command", "bash",
             "shell_command", "execute_command", "run_terminal_cmd", "run_terminal_command",
             "run_terminal_command_v2", "Shell", "powershell", "run_in_terminal", "run", "developer__shell",
             "Execute", "terminal", "execute_bash")
    db.execute(f"UPDATE records SET is_shell = 1 WHERE is_call = 1 AND tool_name IN ({', '.join('?' * len(names))})",
               names)


@migrations()
def m009_prose_time(db: Database) -> None:
    # The embedded prose by time: the records a date window allows (``--since``/``--until``, or a date
    # in the query, whose window proposes its own best matches) are read from this index instead of a
    # scan of every record (210k records: 80 ms -> 0.3 ms for a day, 3 ms for a month).
    db.execute("CREATE INDEX IF NOT EXISTS records_prose_time ON records(timestamp) "
               "WHERE content_type IN ('text', 'summary') AND is_echo = 0")


@migrations()
def m010_redaction_version(db: Database) -> None:
    # redaction: the version of the redaction rules a record's strings were redacted with (0: before
    # versions were kept, or stored with redaction off); records under older rules are redacted again
    # in place (ingest.redact_again). revised: the pass that changed a record in place, so that a push
    # sends it again (the archive's copy gets the new text).
    records = db.table("records")
    if "redaction" not in records.columns_dict:
        records.add_column("redaction", int, not_null_default=0)
    if "revised" not in records.columns_dict:
        records.add_column("revised", int)
    db.execute("CREATE INDEX IF NOT EXISTS records_revised ON records(revised) WHERE revised IS NOT NULL")
    db.execute("DELETE FROM meta WHERE key = 'redaction_version'")


@migrations()
def m011_source_dirs(db: Database) -> None:
    # The directories a sync walked, with the mtime they had when listed: a directory whose mtime is
    # unchanged holds the same entries, so the sync that runs before every search lists only the changed
    # ones, and looks at the files written recently and a few others in turn (``ingest.quick``).
    db.execute("CREATE TABLE IF NOT EXISTS source_dirs (root TEXT NOT NULL, path TEXT NOT NULL, "
               "mtime_ns INTEGER NOT NULL, PRIMARY KEY (root, path))")
    db.execute("CREATE INDEX IF NOT EXISTS source_files_mtime ON source_files(mtime_ns)")


@migrations()
def m012_parse_version_per_file(db: Database) -> None:
    # Which parser version read each file: a file not seen when a newer parser came (a source given once with
    # --source, a drive not mounted) is read again by it when next seen, not left as the older one read it.
    if "parse_version" not in db.table("source_files").columns_dict:
        db.table("source_files").add_column("parse_version", int, not_null_default=0)
        db.execute("UPDATE source_files SET parse_version = coalesce((SELECT CAST(value AS INTEGER) FROM meta "
                   "WHERE key = 'parse_version'), 0)")


@migrations()
def m013_departed_records(db: Database) -> None:
    # The records a re-read took out of the store (a newer parser gave them other ids, or found them a misreading),
    # so that a push takes them out of a team archive too.
    db.execute("CREATE TABLE IF NOT EXISTS departed (seq INTEGER PRIMARY KEY AUTOINCREMENT, record_id TEXT NOT NULL, "
               "session_id TEXT NOT NULL)")


@migrations()
def m014_record_counts(db: Database) -> None:
    # Counts of each session's records kept by triggers (``tally``), read by status, stats and list instead of
    # every record; the first prompt of a session (``sessions.FIRST_PROMPT``) found by one look-up, and its subagents.
    from backscroll.store import tally

    tally.create(db.conn)
    db.execute("CREATE INDEX IF NOT EXISTS records_first_prompt ON records(session_id, "
               "coalesce(author = 'harness', 0), coalesce(author != 'human', 0), text LIKE '/%', id) "
               "WHERE role = 'user' AND content_type = 'text'")
    db.execute("CREATE INDEX IF NOT EXISTS sessions_subagents ON sessions(parent_session_id) WHERE is_sidechain = 1")


@migrations()
def m015_call_text(db: Database) -> None:
    # The calls' texts in time order, for ``files`` (``sessions.CALL_TEXT``); a long one (1 in 23) stays in its record.
    db.execute("CREATE INDEX IF NOT EXISTS records_call_text ON records(timestamp, id, CASE WHEN length(text) <= 1000 "
               "THEN text END) WHERE is_call = 1 AND is_echo = 0")


@migrations()
def m016_list_and_status(db: Database) -> None:
    # ``list`` and ``status`` read the counts through indexes of their own (``tally.INDEXES``), and ``list`` its page
    # of sessions newest first (``sessions.NEWEST``) without sorting every session.
    from backscroll.store import tally

    tally.indexes(db.conn)
    db.execute("CREATE INDEX IF NOT EXISTS sessions_newest ON sessions(coalesce(started_at, updated_at) DESC, "
               "session_id)")


@migrations()
def m017_words_of_every_script(db: Database) -> None:
    # Since lexical schema 5 the index reads Chinese, Japanese and decomposed accents otherwise (``as_indexed``): the
    # records whose words change are revised, so that the next push gives the team archive their new words.
    from backscroll.indexes.unspaced import as_indexed

    db.conn.create_function("read_otherwise", 1, lambda text: isinstance(text, str) and as_indexed(text) != text,
                            deterministic=True)
    found = db.execute("SELECT value FROM meta WHERE key = 'revision_seq'").fetchone()
    revision = (int(found[0]) if found and str(found[0]).isdigit() else 0) + 1
    if db.execute("UPDATE records SET revised = ? WHERE text GLOB ? AND read_otherwise(text)",
                  (revision, "*[^\x01-\x7f]*")).rowcount:  # (GLOB first: only a text beyond ASCII can change)
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('revision_seq', ?)", (str(revision),))
