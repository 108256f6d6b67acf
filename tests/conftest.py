"""Shared settings. The fixtures themselves come from backscroll's pytest plugin (backscroll.testing).

Unit tests use the deterministic fake embedder; the tests that need the real model say so.
"""

import os

os.environ.setdefault("BACKSCROLL_TEST_EMBEDDER", "fake")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _away_from_the_real_home() -> None:
    """Every test runs in an empty HOME with no agent's or backscroll's variables: an index or search finds every
    agent's default place, so a test without ``backscroll_home`` would read the developer's own sessions (and
    open an agent's live database) into its store."""
    import atexit
    import shutil
    import tempfile

    from backscroll.testing.plugin import _SCRUBBED_ENV

    home = tempfile.mkdtemp(prefix="backscroll-test-home-")
    atexit.register(shutil.rmtree, home, True)
    for name in _SCRUBBED_ENV:
        os.environ.pop(name, None)
    os.environ["HOME"] = home


_away_from_the_real_home()


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory):
    """A throwaway PostgreSQL server for the team archive's tests, started in a temporary directory and stopped
    at the end: pgserver's bundled PostgreSQL (with pgvector), installed by the test extra."""
    from team_archives import pg_server

    server = pg_server(tmp_path_factory.mktemp("pg"))
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@pytest.fixture
def backlog_of(session_builder, backscroll_home, backscroll_index, monkeypatch):
    """``backlog_of(pairs)``: a store with ``2 * pairs`` prose records and no vectors (``index --no-embed``),
    embedded by the fake model (the index tests)."""

    def make(pairs: int):
        monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")
        s = session_builder.claude()
        for i in range(pairs):
            s.user(f"question number {i} about the lighthouse keeper").assistant(f"answer number {i} about the tide")
        backscroll_index(embed=False)
        return backscroll_home

    return make
