"""pytest plugin: build agent sessions on disk, index them, and pin what search recalls.

Registered through the ``pytest11`` entry point, so any project that installs backscroll gets the
fixtures ``backscroll_home``, ``session_builder``, ``backscroll_index``, ``backscroll_search`` and
``assert_recalled``. The builders write the agents' real on-disk layouts (Claude Code projects
and subagent files, Codex rollouts), so what is tested is what users' machines hold.

    def test_we_remember_the_queue_decision(session_builder, backscroll_index, assert_recalled):
        s = session_builder.claude(project="shop")
        s.user("which queue should we use?")
        s.assistant("Postgres with SKIP LOCKED: we already run Postgres.")
        backscroll_index()
        assert_recalled("queue decision", "SKIP LOCKED")

A project that has backscroll installed but does not want these fixtures turns the plugin off:
``-p no:backscroll`` (command line, or ``addopts``) does not load it at all; ``backscroll_plugin =
false`` in the pytest configuration (``[tool.pytest.ini_options]`` or ``pytest.ini``) keeps the
names listed but makes any use of them an error that says so, and nothing else of the plugin runs.

It also provides ``FakeEmbedder``, a deterministic stand-in for the embedding model: with
``BACKSCROLL_TEST_EMBEDDER=fake`` the fixtures select it (``BACKSCROLL_EMBEDDER=fake``), and a
backscroll subprocess started with ``BACKSCROLL_EMBEDDER=fake`` loads it on its own.

The modules: ``plugin`` (the ini switch and the fixtures), ``recall_check`` (what ``assert_recalled`` checks
and says), ``sessions`` and ``cli_sessions`` (the builders), ``fake`` (the fake embedder), ``fixture_types`` (the
call fixtures' types, for annotations); every public name is importable from here.
"""

from backscroll.testing.cli_sessions import CopilotCliSession, CursorCliSession
from backscroll.testing.fake import FakeEmbedder, fake_embedder
from backscroll.testing.fixture_types import IndexRun, RecallCheck, SearchRun
from backscroll.testing.plugin import (
    DEFAULT_START,
    BackscrollHome,
    SessionFactory,
    assert_recalled,
    backscroll_home,
    backscroll_index,
    backscroll_search,
    pytest_addoption,
    pytest_configure,
    pytest_runtest_teardown,
    pytest_unconfigure,
    session_builder,
)
from backscroll.testing.recall_check import format_hits, recalled
from backscroll.testing.sessions import ClaudeSession, CodexSession, uuid_for

__all__ = [
    "DEFAULT_START", "BackscrollHome", "ClaudeSession", "CodexSession", "CopilotCliSession", "CursorCliSession",
    "FakeEmbedder", "IndexRun", "RecallCheck", "SearchRun", "SessionFactory", "assert_recalled", "backscroll_home",
    "backscroll_index", "backscroll_search", "fake_embedder", "format_hits", "pytest_addoption", "pytest_configure",
    "pytest_runtest_teardown", "pytest_unconfigure", "recalled", "session_builder", "uuid_for",
]
