"""Shared settings. The fixtures themselves come from backscroll's pytest plugin (backscroll.testing).

Unit tests use the deterministic fake embedder; the tests that need the real model say so.
"""

import os

os.environ.setdefault("BACKSCROLL_TEST_EMBEDDER", "fake")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def pg_url(tmp_path_factory):
    """A throwaway PostgreSQL server for the team archive's tests, started in a temporary directory and stopped
    at the end: pgserver's bundled PostgreSQL (with pgvector), installed by the test extra."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when $XDG_RUNTIME_DIR is unset
        import pgserver

        server = pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
