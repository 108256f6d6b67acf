"""Throwaway team archives for the tests: a database per test on the suite's own PostgreSQL (``pg_url``)."""

import psycopg
from psycopg import conninfo

from backscroll.store.archive_pg import Archive


def pg_server(path):
    """pgserver's bundled PostgreSQL in ``path``, started (or found running). Its initdb runs as another user when
    the tests run as root, so the folders it makes must be readable to that user: the umask is set for it (a
    process's umask is shared, and a thread that writes an index narrows it for a moment), and a start that
    failed on that is tried once more."""
    import os
    import shutil
    import subprocess
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when $XDG_RUNTIME_DIR is unset
        import pgserver

        for attempt in range(2):
            old = os.umask(0o022)
            try:
                return pgserver.get_server(path, cleanup_mode="stop")
            except subprocess.CalledProcessError:
                if attempt or (path / "global" / "pg_control").exists():
                    raise
                shutil.rmtree(path, ignore_errors=True)
            finally:
                os.umask(old)
    raise AssertionError("unreachable")


def as_role(url: str, role: str, dbname: str) -> str:
    info = conninfo.conninfo_to_dict(url)
    info.update(user=role, dbname=dbname)
    return conninfo.make_conninfo("", **info)  # type: ignore[arg-type]


def fresh_archive(pg_url: str, dbname: str, member: str) -> str:
    """A new archive in its own database with one member; that member's URL."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}"')
        admin.execute(f'CREATE DATABASE "{dbname}"')
    with Archive.connect(as_role(pg_url, "postgres", dbname)) as a:
        a.init([member])
    return as_role(pg_url, member, dbname)


def row(record_id: str, text: str, **fields) -> tuple:
    """An archive row as a push sends it (``archive_schema.RECORD_COLUMNS``, then the vector), for tests that write
    to an archive directly."""
    from backscroll.store.archive_schema import RECORD_COLUMNS

    values = {"record_id": record_id, "session_id": "s", "agent": "claude", "role": "user", "content_type": "text",
              "is_echo": False, "is_error": False, "is_call": False, "is_sidechain": False, "text": text,
              "words": text, "stems": text, "parts": "", "seq": 0, **fields}
    return (*(values.get(c) for c in RECORD_COLUMNS), None)
