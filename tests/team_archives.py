"""Throwaway team archives for the tests: a database per test on the suite's own PostgreSQL (``pg_url``)."""

import psycopg
from psycopg import conninfo

from backscroll.store.archive_pg import Archive


def pg_server(path):
    """pgserver's bundled PostgreSQL in ``path`` (or found running there). Its initdb runs as another user when the
    tests run as root, and under the whole suite it has now and then failed to open the files it had just made
    ("Permission denied" on ``global/pg_control``), then to clean up after itself: a start that fails is tried
    again in a fresh folder beside it (``server.pgdata`` says which), twice at most."""
    import os
    import subprocess
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when $XDG_RUNTIME_DIR is unset
        import pgserver

        for attempt in range(3):
            where = path if attempt == 0 else path.with_name(f"{path.name}-{attempt}")
            old = os.umask(0o022)
            try:
                return pgserver.get_server(where, cleanup_mode="stop")
            except subprocess.CalledProcessError:
                if attempt == 2:
                    raise
            finally:
                os.umask(old)
    raise AssertionError("unreachable")


def as_role(url: str, role: str, dbname: str) -> str:
    info = conninfo.conninfo_to_dict(url)
    info.update(user=role, dbname=dbname)
    return conninfo.make_conninfo("", **info)  # type: ignore[arg-type]


def new_database(pg_url: str, dbname: str, options: str = "") -> None:
    """A database made anew on the test server (``options``: what ``CREATE DATABASE`` adds, as ``OWNER x``)."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{dbname}"')
        admin.execute(f'CREATE DATABASE "{dbname}" {options}')


def fresh_archive(pg_url: str, dbname: str, member: str) -> str:
    """A new archive in its own database with one member; that member's URL."""
    new_database(pg_url, dbname)
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
