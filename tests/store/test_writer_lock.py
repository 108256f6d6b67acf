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


def test_the_environment_sets_how_long_index_waits(held_lock, backscroll_home, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "0")
    with pytest.raises(LockedError, match="already in progress"):
        backscroll.index(config=backscroll_home.config(), embed=False)


def test_an_explicit_wait_beats_the_environment(held_lock, backscroll_home, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "not a number")
    with pytest.raises(LockedError):
        backscroll.index(config=backscroll_home.config(), embed=False, wait=0.1)


def test_a_writer_that_waits_says_so_once(held_lock, backscroll_home):
    """A second ``index`` waited for the first in silence, then printed its result as if nothing had happened."""
    heard: list[str] = []
    with pytest.raises(LockedError):
        backscroll.index(config=backscroll_home.config(), embed=False, wait=0.3, notify=heard.append)
    assert heard == ["another backscroll process is writing this store: waiting for it to finish (at most 0.3 s)"]
    heard.clear()
    with pytest.raises(LockedError):
        backscroll.index(config=backscroll_home.config(), embed=False, wait=0, notify=heard.append)
    assert heard == [], "no wait, nothing to say"


@pytest.mark.parametrize("value", ["soon", "-1", "inf", "nan"])
def test_a_bad_lock_wait_is_a_usage_error(held_lock, backscroll_home, monkeypatch, value):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", value)
    with pytest.raises(UsageError, match="BACKSCROLL_LOCK_WAIT"):
        backscroll.index(config=backscroll_home.config(), embed=False)


def test_the_wait_is_read_from_the_environment_the_config_was_resolved_in(held_lock, monkeypatch):
    """A test suite's config (``BackscrollHome.at``) leaves the user's variables out: the process's must not count."""
    from backscroll.config import resolve

    cfg = resolve(home=held_lock.home.value, env={"BACKSCROLL_LOCK_WAIT": "0", "HOME": str(held_lock.home.value)})
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "soon")
    with pytest.raises(LockedError, match="already in progress"):
        backscroll.index(config=cfg, embed=False)


def test_an_unheld_lock_is_taken_at_once(session_builder, backscroll_home, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "0")
    session_builder.claude().user("hello")
    assert backscroll.index(config=backscroll_home.config(), embed=False).report.records_added == 1


def test_during_a_first_build_a_list_answers_and_a_search_waits_for_the_index(session_builder, backscroll_home,
                                                                               monkeypatch, tmp_path):
    """A list failed "the index is being built" though it reads no index; parallel first searches failed at once."""
    import shutil
    import threading
    import time

    session_builder.claude().user("where does the retry queue live?").assistant("In Redis, retry:queue.")
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "30")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    shutil.move(cfg.index_dir, tmp_path / "built")  # (as before a first build's index is committed)
    held, finish = threading.Event(), threading.Event()

    def builder() -> None:
        with writer_lock(cfg, 0) as acquired:
            assert acquired
            held.set()
            finish.wait(30)
            time.sleep(0.3)
            shutil.move(tmp_path / "built", cfg.index_dir)

    thread = threading.Thread(target=builder)
    thread.start()
    held.wait(30)
    try:
        assert [s.agent for s in backscroll.sessions(config=cfg, all=True)] == ["claude"]
        finish.set()
        assert backscroll.search("retry queue", config=cfg, mode="lexical").results
    finally:
        finish.set()
        thread.join()
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "0")
    cfg = backscroll_home.config()
    shutil.rmtree(cfg.index_dir)
    with writer_lock(cfg, 0), pytest.raises(LockedError, match="no earlier snapshot"):
        backscroll.search("retry queue", config=cfg, mode="lexical")


def test_a_search_that_waited_for_a_writer_which_built_nothing_builds_the_index_itself(session_builder,
                                                                                       backscroll_home, monkeypatch):
    """The lock's holder may be an embed or a push, not a first build: the search then builds the index."""
    import shutil
    import threading

    session_builder.claude().user("where does the retry queue live?").assistant("In Redis, retry:queue.")
    monkeypatch.setenv("BACKSCROLL_LOCK_WAIT", "30")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    shutil.rmtree(cfg.index_dir)
    held, go = threading.Event(), threading.Event()

    def holder() -> None:
        with writer_lock(cfg, 0):
            held.set()
            go.wait(30)

    thread = threading.Thread(target=holder)
    thread.start()
    held.wait(30)
    timer = threading.Timer(0.3, go.set)
    timer.start()
    try:
        assert backscroll.search("retry queue", config=cfg, mode="lexical").results
    finally:
        go.set()
        thread.join()


def test_a_list_during_a_first_build_with_nothing_saved_says_so_not_run_index(session_builder, backscroll_home):
    from backscroll.store.db import Store

    session_builder.claude().user("hello")
    cfg = backscroll_home.config()
    Store.open(cfg.db_path).close()  # (a first index at work: nothing committed yet)
    with writer_lock(cfg, 0), pytest.raises(LockedError, match="the first index is being built"):
        backscroll.sessions(config=cfg)
