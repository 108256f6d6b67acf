"""A history built once for a module (``BackscrollHome.at``), checked by many tests with ``recalled``."""

import pytest

import backscroll
from backscroll.testing import BackscrollHome, SessionFactory, recalled


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    home = BackscrollHome.at(tmp_path_factory.mktemp("history"))
    s = SessionFactory(home).claude(project="shop")
    s.user("Which queue should the background jobs use?")
    s.assistant("The background jobs queue goes in Postgres with SKIP LOCKED: we already run Postgres.")
    s.user("And the slow cart page?").assistant("The N+1 query is in CartSerializer.get_items")
    backscroll.index(config=home.config(), embed=False)
    return home


def test_one_history_answers_a_check(history):
    hit = recalled("which queue for background jobs", "SKIP LOCKED", config=history.config(), mode="lexical")
    assert hit.agent == "claude"


def test_and_another_and_a_miss_says_what_came_instead(history):
    recalled("slow cart serializer", "CartSerializer", config=history.config(), mode="lexical")
    with pytest.raises(AssertionError, match="not in the top 1 results") as failed:
        recalled("background jobs queue", "CartSerializer", k=1, config=history.config(), mode="lexical")
    assert "SKIP LOCKED" in str(failed.value)
