"""How long a writer waits for another one: ``wait=``, else $BACKSCROLL_LOCK_WAIT, else 10 seconds."""

import pytest

import backscroll
from backscroll.errors import LockedError, UsageError
from backscroll.store.lock import writer_lock


@pytest.fixture
def held_lock(session_builder, backscroll_home):
    session_builder.claude().user("hello")
    cfg = backscroll_home.config()
    with writer_lock(cfg) as held:
        assert held
        yield cfg


def test_the_environment_sets_how_long_index_waits(held_lock, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "0")
    with pytest.raises(LockedError, match="already in progress"):
        backscroll.index(config=held_lock, embed=False)


def test_an_explicit_wait_beats_the_environment(held_lock, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "not a number")
    with pytest.raises(LockedError):
        backscroll.index(config=held_lock, embed=False, wait=0.1)


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan"])
def test_a_bad_lock_wait_is_a_usage_error(held_lock, monkeypatch, value):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", value)
    with pytest.raises(UsageError, match="BACKSCROLL_LOCK_WAIT"):
        backscroll.index(config=held_lock, embed=False)


def test_an_unheld_lock_is_taken_at_once(session_builder, backscroll_home, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "0")
    session_builder.claude().user("hello")
    assert backscroll.index(config=backscroll_home.config(), embed=False).report.records_added == 1
