"""`index` and `embed` embed in turns: the writer lock is held only to save each step, so a search's sync and a
second `index` go between two steps (they waited for the whole embedding: minutes to half an hour on a first
index); one foreground run at a time, and a background worker gives way to it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from helpers import rows

import backscroll
from backscroll import background, embedding
from backscroll.store.db import Store
from backscroll.store.lock import writer_lock

_SLOW_INDEX = """
import sys, time
from backscroll import testing
orig = testing.FakeEmbedder.embed
def slow(self, texts):
    time.sleep(0.8)  # (600 records: about 8 s, saved in steps of 256)
    return orig(self, texts)
testing.FakeEmbedder.embed = slow
from backscroll.cli import main
sys.argv = ["backscroll", "index"]
main()
"""


@pytest.fixture
def backlog(backlog_of):
    """A store with 600 prose records and no vectors."""
    return backlog_of(300)


def _embedded(home) -> int:
    return rows(home, "SELECT count(*) AS n FROM records WHERE unit_hash IS NOT NULL")[0]["n"]


def test_while_index_embeds_a_search_syncs_and_a_second_index_reads_its_files(backlog, session_builder):
    cfg = backlog.config()
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_INDEX], env={**os.environ, "NO_COLOR": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while _embedded(backlog) == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, "the index was still embedding when its first step was saved"
        with writer_lock(cfg, 5.0) as given:
            assert given, "the writer lock is free between two steps"
        session_builder.codex().user("where do we keep the zeppelin mooring schedule")
        res = backscroll.search("zeppelin mooring", config=cfg, sync=True, mode="lexical")
        assert [h.text for h in res.results][:1] == ["where do we keep the zeppelin mooring schedule"]
        assert not any("last committed state" in n for n in res.notes), res.notes
        hybrid = backscroll.search("lighthouse keeper", config=cfg, sync=False)
        assert any("an `index` or `embed` at work finishes it" in n for n in hybrid.notes), hybrid.notes
        shown = backscroll.status(config=cfg).to_dict()["embeddings"]
        assert shown["foreground"] and shown["pending"] > 0, "status does not say to run `backscroll embed`"
        said: list[str] = []
        second = backscroll.index(config=cfg, notify=said.append)
        assert second.report.files_changed == 0 and second.embedded == 0
        assert any("another backscroll process is embedding this history" in m for m in said), said
    finally:
        _out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    assert rows(backlog, "SELECT count(*) AS n FROM records WHERE unit_hash IS NULL AND content_type = 'text' "
                         "AND is_echo = 0")[0]["n"] == 0, "the first index embedded what came meanwhile too"


def test_a_background_worker_gives_way_to_a_foreground_run_and_none_starts_meanwhile(backlog, monkeypatch):
    cfg = backlog.config()
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: pytest.fail("no worker starts"))
    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")
    with embedding._foreground_lock(cfg) as mine:
        assert mine and embedding.foreground_running(cfg)
        assert background.work(cfg) == 0  # (its first turn is not given)
        store = Store.open(cfg.db_path)
        try:
            assert not background.start(backlog.config(), store, 600)
            last = background.state(store, cfg)
        finally:
            store.close()
    assert last is not None and last.gave_way and not last.error
    assert not embedding.foreground_running(cfg)


def test_one_foreground_run_at_a_time(backlog):
    cfg = backlog.config()
    said: list[str] = []
    with embedding._foreground_lock(cfg):
        assert backscroll.embed(config=cfg, notify=said.append)[0] == 0
    assert any("another backscroll process is embedding" in m for m in said)
    assert backscroll.embed(config=cfg)[0] == 600


def test_a_run_that_another_writer_keeps_out_says_what_is_left(backlog, monkeypatch):
    monkeypatch.setattr(embedding, "TURN_WAIT_S", 0.1)
    cfg = backlog.config()
    said: list[str] = []
    with writer_lock(cfg, 0.0):
        n, _secs = embedding.embed_pending(cfg, notify=said.append)
    assert n == 0 and any("embedding skipped" in m and "`backscroll embed`" in m for m in said), said


def test_ctrl_c_during_index_keeps_the_steps_saved(backlog):
    cfg = backlog.config()
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_INDEX], env={**os.environ, "NO_COLOR": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while _embedded(backlog) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "embedding interrupted" in err, err
    assert "did not save" not in err and err.strip().endswith("the next run goes on from there"), err  # (read it did)
    assert 0 < _embedded(backlog) < 600
    assert not embedding.foreground_running(cfg) and backscroll.embed(config=cfg)[0] > 0


def test_what_an_index_left_to_a_run_that_was_ending_is_embedded_by_it(backlog, session_builder, monkeypatch):
    """A review found an `index` leaving its new records to a run already past its last look at what is pending:
    they stayed without vectors. The run looks once more when it lets go, and counts what it did itself."""
    cfg = backlog.config()
    embed_once = embedding._embed
    calls: list[int] = []

    def ending_while_an_index_syncs(*args, **kwargs):
        done = embed_once(*args, **kwargs)
        if not calls:  # (its last look is behind it: new lines come in, and their index leaves them to this run)
            for i in range(10):
                session_builder.codex().user(f"a late question {i} about the harbour pilot schedule")
            backscroll.index(config=cfg, embed=False)
        calls.append(done[0])
        return done

    monkeypatch.setattr(embedding, "_embed", ending_while_an_index_syncs)
    n, _secs = backscroll.embed(config=cfg)
    assert calls == [600, 10] and n == 610
    assert rows(backlog, "SELECT count(*) AS n FROM records WHERE unit_hash IS NULL AND content_type = 'text' "
                         "AND is_echo = 0")[0]["n"] == 0


def test_ctrl_c_ends_the_run_at_once_while_another_writer_holds_the_lock(backlog, monkeypatch):
    """It waited up to a minute for the lock, to close the store vouched for."""
    import threading

    from backscroll.indexes.vectors import Vectors

    cfg = backlog.config()
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with writer_lock(cfg, 5.0):
            held.set()
            release.wait(120)

    def interrupted(*_args, **_kwargs):
        threading.Thread(target=holder).start()
        assert held.wait(10)
        raise KeyboardInterrupt

    monkeypatch.setattr(Vectors, "embed_in_turns", interrupted)
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            embedding.embed_pending(cfg)
        assert time.monotonic() - started < 20
    finally:
        release.set()
