"""The team archive when things go wrong: a push killed with SIGKILL, a server that goes away mid-push, and a
schema older than the client. Real PostgreSQL servers (pgserver's bundled one) in temporary directories."""


import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest
from helpers import TESTS
from psycopg import conninfo
from team_archives import pg_server

from backscroll.archive import Backscroll
from backscroll.errors import ArchiveError
from backscroll.store.archive_pg import Archive
from backscroll.store.archive_schema import SCHEMA_VERSION

FIXTURES = TESTS.parent / "fixtures" / "claude" / "projects"


def database(url: str, name: str, role: str = "postgres") -> str:
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    info = conninfo.conninfo_to_dict(url)
    info.update(dbname=name, user=role)
    return conninfo.make_conninfo("", **info)  # type: ignore[arg-type]


def as_role(url: str, role: str) -> str:
    info = conninfo.conninfo_to_dict(url)
    info["user"] = role
    return conninfo.make_conninfo("", **info)  # type: ignore[arg-type]


@pytest.fixture
def store_home(tmp_path):
    bs = Backscroll(home=tmp_path / "dave", sources=(f"claude:{FIXTURES}",))
    bs.index(embed=False)
    return tmp_path / "dave"


KILLED = """
import sys, time
from backscroll.archive import Backscroll
bs = Backscroll(home=sys.argv[1], sources=(sys.argv[3],))
def advance(n):
    print("batch", flush=True)
    time.sleep(0.3)
bs.push(sys.argv[2], batch=5, advance=advance)
"""


@pytest.mark.slow
def test_a_push_killed_mid_way_resumes_without_doubling(pg_url, store_home):
    owner = database(pg_url, "killed")
    with Archive.connect(owner) as archive:
        archive.init(["dave"])
    url = as_role(owner, "dave")
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(store_home), url, f"claude:{FIXTURES}"],
                            stdout=subprocess.PIPE, text=True, env={**os.environ})
    assert proc.stdout is not None
    for _ in range(3):
        assert proc.stdout.readline().strip() == "batch"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    with Archive.connect(url) as archive:
        landed = archive.count("dave")
    assert 15 <= landed < 100
    with Backscroll(home=store_home, sources=(f"claude:{FIXTURES}",)) as bs:
        report = bs.push(url, batch=5)
    assert 0 < report.pushed == report.pending, "the second push sends only what came after the mark"
    with Archive.connect(url) as archive, Backscroll(home=store_home) as bs:
        store, _l, _f = bs._open(False, [])
        try:
            assert archive.count("dave") == store.outbox_count(0), "every record once, none twice"
        finally:
            bs._release(store)


def restarted(pgdata):
    """The server of ``pgdata`` started again, once the stopped one has gone (its ``postmaster.pid`` removed) and the
    new one has answered twice, a second apart: under the whole suite, pgserver at times took the stopping server
    for a running one and started none."""
    for _ in range(5):
        for _wait in range(150):
            if not (pgdata / "postmaster.pid").exists():
                break
            time.sleep(0.2)
        server = pg_server(pgdata)
        try:
            for _twice in range(2):
                time.sleep(1)
                psycopg.connect(server.get_uri(), connect_timeout=5).close()
            return server
        except psycopg.OperationalError:
            server.cleanup()
    raise AssertionError(f"no server would start again in {pgdata}")


def test_a_server_that_goes_away_mid_push_leaves_whole_batches_and_a_clear_error(store_home, tmp_path):
    server = pg_server(tmp_path / "pg")
    try:
        owner = database(server.get_uri(), "away")
        with Archive.connect(owner) as archive:
            archive.init(["dave"])
        url = as_role(owner, "dave")
        batches = []

        def advance(n):
            batches.append(n)
            if len(batches) == 2:
                server.cleanup()  # the server stops between two batches

        with Backscroll(home=store_home) as bs, pytest.raises(ArchiveError) as err:
            bs.push(url, batch=5, advance=advance)
        assert "was lost mid-push" in str(err.value) or "cannot reach" in str(err.value)
        server = restarted(server.pgdata)  # (where the first one ran: its data)
        with Archive.connect(url) as archive:
            assert archive.count("dave") == 10, "two whole batches, nothing half-written"
        with Backscroll(home=store_home) as bs:
            again = bs.push(url, batch=5)
        assert again.pending == again.pushed and again.pushed > 0
        with Archive.connect(url) as archive:
            assert archive.count("dave") == 10 + again.pushed
    finally:
        server.cleanup()


def archive_at_version(pg_url: str, name: str, version: str) -> str:
    """A new archive whose meta says it is at schema ``version``, with member dave; its owner's URL."""
    owner = database(pg_url, name)
    with Archive.connect(owner) as archive:
        archive.init(["dave"])
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute("UPDATE backscroll.meta SET value = %s WHERE key = 'schema_version'", (version,))
    return owner


def test_a_schema_older_than_the_client_says_how_and_init_migrates_it(pg_url, store_home):
    owner = archive_at_version(pg_url, "older", "0")
    url = as_role(owner, "dave")
    with Backscroll(home=store_home) as bs, pytest.raises(ArchiveError, match="older.*archive init"):
        bs.push(url)
    with Archive.connect(owner) as archive:
        assert archive.init() == (SCHEMA_VERSION, True)
    with Backscroll(home=store_home) as bs:
        assert bs.push(url).pushed > 0


def test_a_schema_version_that_is_not_a_number_is_named_not_an_internal_error(pg_url, store_home):
    owner = archive_at_version(pg_url, "garbled", "3a")
    with Backscroll(home=store_home) as bs, pytest.raises(ArchiveError, match="schema_version is not a number"):
        bs.push(as_role(owner, "dave"))
