"""The pytest plugin's switch, and the embedder registry that keeps the test fake out of production code."""


import os
import subprocess
import sys

import pytest
from helpers import TESTS

from backscroll.errors import SemanticUnavailableError
from backscroll.indexes import embed

pytest_plugins = ["pytester"]

USES_FIXTURES = """
def test_uses_the_fixtures(session_builder, backscroll_home):
    session_builder.claude().user("hello")
"""


def test_the_fixtures_are_there_by_default(pytester):
    pytester.makepyfile(USES_FIXTURES)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)


@pytest.mark.parametrize("config", [
    ("ini", "[pytest]\nbackscroll_plugin = false\n"),
    ("toml", "[tool.pytest.ini_options]\nbackscroll_plugin = false\n"),
])
def test_an_ini_option_turns_the_plugin_off(pytester, config):
    kind, text = config
    if kind == "ini":
        pytester.makeini(text)
    else:
        pytester.makepyprojecttoml(text)
    pytester.makepyfile(USES_FIXTURES)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*backscroll's pytest fixtures are turned off here (backscroll_plugin = false*"])


def test_minus_p_no_backscroll_does_not_load_it(pytester):
    pytester.makepyfile(USES_FIXTURES)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:backscroll")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'session_builder' not found*"])


# -- the embedder registry -------------------------------------------------------------------------

class ToyEmbedder:
    dim = 384

    def __init__(self, variant: str):
        self.model_id = f"toy-{variant or 'plain'}"

    def embed(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        return out


@pytest.fixture
def toy():
    embed.register_embedder("toy", ToyEmbedder)
    yield
    embed.unregister_embedder("toy")


def test_a_registered_embedder_is_what_indexing_uses(toy, session_builder, backscroll_home, backscroll_index,
                                                     monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "toy:v2")
    session_builder.claude().user("vectors from the toy model")
    outcome = backscroll_index()
    assert outcome.embedded == 1
    import sqlite3

    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    assert {r[0] for r in conn.execute("SELECT DISTINCT model FROM embeddings")} == {"toy-v2"}
    conn.close()


def test_an_unknown_embedder_is_a_clear_error_and_search_degrades(backscroll_home, session_builder, backscroll_index,
                                                                   backscroll_search, monkeypatch):
    session_builder.claude().user("lexical still answers")
    backscroll_index(embed=False)
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "nonesuch")
    with pytest.raises(SemanticUnavailableError, match="unknown embedder 'nonesuch'") as err:
        embed.load(bulk=False)
    assert "fake" in (err.value.hint or "") and "minilm" in (err.value.hint or "")
    res = backscroll_search("lexical still answers")
    assert res.results and res.results[0].text == "lexical still answers"


def test_a_mistyped_test_embedder_fails_the_test_instead_of_passing_it_by_words(pytester, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_TEST_EMBEDDER", "fakee")
    pytester.makepyfile(USES_FIXTURES)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*$BACKSCROLL_TEST_EMBEDDER cannot embed: unknown embedder 'fakee' in it; set it*"])


def test_the_test_embedder_is_the_whole_runs_so_a_module_history_is_searched_by_meaning(pytester, monkeypatch):
    """A history built for a module (``BackscrollHome.at``) embedded with the real model while the fixtures searched
    with the fake: a test using both ranked by words alone."""
    monkeypatch.setenv("BACKSCROLL_TEST_EMBEDDER", "fake")
    monkeypatch.delenv("BACKSCROLL_EMBEDDER", raising=False)
    pytester.makepyfile("""
        import os, pytest, backscroll
        from backscroll.testing import BackscrollHome, SessionFactory

        @pytest.fixture(scope="module")
        def history(tmp_path_factory):
            home = BackscrollHome.at(tmp_path_factory.mktemp("history"))
            SessionFactory(home).claude().user("the background jobs queue is Postgres")
            backscroll.index(config=home.config())
            return home

        def test_mixed(history, backscroll_home):
            found = backscroll.search("background jobs queue", config=history.config())
            assert found.mode == "hybrid", found.notes
            assert os.environ["BACKSCROLL_EMBEDDER"] == "fake"
    """)
    pytester.runpytest("-q", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert "BACKSCROLL_EMBEDDER" not in os.environ, "given back after the run"


def test_production_code_holds_no_fake_and_a_subprocess_still_selects_it(tmp_path):
    """The CLI never imports the testing module unless the environment asks for the fake."""
    code = ("import sys; from backscroll.indexes import embed; print(embed.model_id()); "
            "print('backscroll.testing' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BACKSCROLL", "PYTEST"))}
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert plain.stdout.split() == [embed.MINILM_ID, "False"], plain.stderr
    fake = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**env, "BACKSCROLL_EMBEDDER": "fake:v3"})
    assert fake.stdout.split() == ["fake-hash-384-v3", "True"], fake.stderr
    assert not hasattr(embed, "FakeEmbedder")


@pytest.mark.parametrize("embedder", ["fake", pytest.param(None, marks=pytest.mark.slow)])  # None: the real model
def test_the_readme_pytest_example_passes_as_written(pytester, embedder, monkeypatch):
    """The example failed under the fake embedder the README recommends for speed."""
    import re

    if embedder is None and os.environ.get("BACKSCROLL_TEST_EMBEDDER") == "fake":
        monkeypatch.delenv("BACKSCROLL_TEST_EMBEDDER")  # the real model, as the README's default
    elif embedder:
        monkeypatch.setenv("BACKSCROLL_TEST_EMBEDDER", embedder)
    readme = (TESTS.parent / "README.md").read_text()
    section = readme[readme.index("## Testing your agent's memory"):]
    example = re.search(r"```python\n(.*?)```", section, re.S)
    assert example is not None
    pytester.makepyfile(test_memory=example.group(1))
    pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_local_time_is_given_back_whatever_the_test_set_meanwhile(pytester, monkeypatch):
    monkeypatch.delenv("TZ", raising=False)
    pytester.makepyfile("""
        import os, time

        def test_a(backscroll_home, monkeypatch):
            monkeypatch.setenv("TZ", "Europe/Berlin")
            time.tzset()

        def test_b():
            assert "TZ" not in os.environ and time.tzname[0] != "CET"
    """)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)
