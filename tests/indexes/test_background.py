"""Meaning in the background: a worker embeds what a search leaves, newest first, taking the writer lock only
to save each step, one worker at a time, giving way to other writers; ``status`` says how it is going."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time

import pytest
from helpers import rows

from backscroll import background, embedding
from backscroll.indexes import embed as embed_mod
from backscroll.indexes import vectors as vectors_mod
from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store
from backscroll.store.lock import writer_lock


@pytest.fixture
def backlog(backlog_of):
    """A store with 80 prose records and no vectors."""
    return backlog_of(40)


def _pending(home) -> int:
    return rows(home, "SELECT count(*) AS n FROM records WHERE unit_hash IS NULL AND content_type = 'text' "
                      "AND is_echo = 0")[0]["n"]


def _vectors(home) -> tuple[Store, Vectors]:
    store = Store.open(home.config().db_path)
    return store, Vectors(store, home.config().vectors_dir, embed_mod.model_id())


def test_a_backlog_is_embedded_in_turns_saving_only_under_the_lock(backlog):
    cfg = backlog.config()
    store, vecs = _vectors(backlog)
    held: list[bool] = []

    @contextlib.contextmanager
    def turn():
        with writer_lock(cfg, 1.0) as given:
            held.append(given)
            yield given

    unlocked: list[bool] = []
    write = vecs.write_matrix

    def write_matrix():
        with writer_lock(cfg, 0.0) as free:  # written from a snapshot: other writers are not kept waiting
            unlocked.append(free)
        return write()

    vecs.write_matrix = write_matrix  # type: ignore[method-assign]
    try:
        embedded = vecs.embed_in_turns(embed_mod.load(bulk=True), turn, step=16)
        assert vecs.load()[1] is not None  # the matrix was written at the end
    finally:
        store.close()
    assert embedded == 80 and _pending(backlog) == 0
    assert len(held) >= 80 // 16 and all(held) and unlocked == [True]


def test_the_worker_gives_way_when_another_writer_keeps_the_lock(backlog, monkeypatch):
    monkeypatch.setattr(background, "TURN_WAIT_S", 0.1)
    with writer_lock(backlog.config(), 0.0) as mine:
        assert mine
        assert background.work(backlog.config()) == 0
    assert _pending(backlog) == 80
    # it says it gave way (the writer kept the lock all along), so the next search starts one a minute later,
    # not an hour later as after a worker that died
    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")
    cfg = backlog.config()
    store = Store.open(cfg.db_path)
    try:
        last = background.state(store, cfg)
        assert last is not None and last.finished and last.gave_way and not last.error
        monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: None)
        assert not background.start(cfg, store, 80)
        monkeypatch.setattr(background, "GIVE_WAY_S", 0)
        assert background.start(cfg, store, 80)
    finally:
        store.close()


def test_a_record_changed_while_its_step_was_computed_is_not_saved_with_the_old_vector(backlog):
    cfg = backlog.config()
    store, vecs = _vectors(backlog)
    first = rows(backlog, "SELECT id FROM records ORDER BY id DESC LIMIT 1")[0]["id"]
    turns = {"n": 0}

    @contextlib.contextmanager
    def turn():
        turns["n"] += 1
        if turns["n"] == 2:  # between computing the first step and saving it: the record is redacted again
            store.begin()
            store.conn.execute("UPDATE records SET text = 'the tide answer, [REDACTED] since' WHERE id = ?", (first,))
            store.commit()
        with writer_lock(cfg, 1.0) as given:
            yield given

    try:
        vecs.embed_in_turns(embed_mod.load(bulk=True), turn, step=8)
        unit = rows(backlog, "SELECT unit_hash FROM records WHERE id = ?", (first,))[0]["unit_hash"]
        units, _short = vecs._window_units(vecs.pending_ids())
    finally:
        store.close()
    assert unit is not None and _pending(backlog) == 0  # embedded in a later step, from its new text
    assert units == []


def test_the_worker_never_switches_the_stores_model(backlog):
    cfg = backlog.config()
    store = Store.open(cfg.db_path)
    try:
        store.begin()
        store.set_meta("vectors_model", "another-model")
        store.commit()
    finally:
        store.close()
    assert background.work(cfg) == 0
    assert rows(backlog, "SELECT value FROM meta WHERE key = 'vectors_model'")[0]["value"] == "another-model"
    assert _pending(backlog) == 80


def test_one_worker_at_a_time(backlog):
    cfg = backlog.config()
    with background._worker_lock(cfg) as mine:
        assert mine and background.running(cfg)
        assert background.work(cfg) == 0
    assert not background.running(cfg)


def test_start_only_when_a_search_leaves_more_than_it_embeds_itself(backlog, monkeypatch):
    cfg = backlog.config()
    store = Store.open(cfg.db_path)
    started: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: started.append(argv))
    try:
        assert not background.start(cfg, store, 64)
        assert not background.start(cfg, store, 80)  # the test environment turns the worker off
        monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")
        on = backlog.config()
        assert background.start(on, store, 80) and started[-1][-2:] == ["embed", "--background"]
        for last in ({"updated": time.time(), "error": "RuntimeError: no model"},  # it failed within the hour
                     {"updated": time.time(), "finished": False},  # it died (killed, out of memory)
                     {"updated": time.time(), "finished": True, "gave_way": time.time()}):  # an index kept the lock
            (cfg.home.value / background.REPORT_NAME).write_text(json.dumps(last))  # (the worker's own report)
            assert not background.start(on, store, 80)
        (cfg.home.value / background.REPORT_NAME).write_text(json.dumps({"updated": time.time() - 7200,
                                                                         "finished": False}))
        assert background.start(on, store, 80)
    finally:
        store.close()


def test_a_search_starts_a_real_worker_and_status_shows_it(backlog, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")
    env = {k: v for k, v in __import__("os").environ.items()}
    out = subprocess.run([sys.executable, "-m", "backscroll", "search", "lighthouse keeper", "--mode", "lexical"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    deadline = time.monotonic() + 60
    while (_pending(backlog) or background.running(backlog.config())) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _pending(backlog) == 0
    status = subprocess.run([sys.executable, "-m", "backscroll", "status", "--json"], env=env, capture_output=True,
                            text=True, timeout=60)
    emb = json.loads(status.stdout)["embeddings"]
    assert emb["pending"] == 0 and emb["worker"]["rate"] and not emb["worker"]["running"]


def test_status_names_the_workers_rate_and_what_is_left(backlog, monkeypatch):
    from backscroll.cli import render_status

    assert render_status._duration(15) == "15 s" and render_status._duration(7265) == "2 h 1 min"
    store = Store.open(backlog.config().db_path)
    try:
        store.begin()
        store.set_meta(background.STATE_KEY, json.dumps({"updated": time.time(), "error": "[red]boom[/red]"}))
        store.commit()
    finally:
        store.close()
    out = subprocess.run([sys.executable, "-m", "backscroll", "status"], capture_output=True, text=True, timeout=60,
                         env={**__import__("os").environ, "COLUMNS": "300"})
    assert "the background worker stopped: [red]boom[/red]" in out.stdout


def test_the_worker_keeps_a_checked_store_vouched_for_and_vouches_for_nothing_else(backlog):
    """A store the last ``index`` checked stays vouched for through the worker's writes: otherwise the next
    ``index`` checks the whole store again (minutes at millions of records)."""
    cfg = backlog.config()
    store = Store.open(cfg.db_path)
    try:
        assert store.vouched()
    finally:
        store.close()
    assert background.work(cfg) == 80 and _pending(backlog) == 0
    store = Store.open(cfg.db_path)
    try:
        assert store.vouched()
        store.begin()  # a write nobody vouches for (a crashed writer's, say)
        store.set_meta("unchecked", "1")
        store.commit()
    finally:
        store.close()
    s = Store.open(cfg.db_path)
    s.conn.execute("UPDATE records SET unit_hash = NULL, vector_seq = NULL")
    s.conn.commit()
    s.close()
    background.work(cfg)  # the vectors are known: saved again without embedding
    assert _pending(backlog) == 0
    store = Store.open(cfg.db_path)
    try:
        assert not store.vouched()
    finally:
        store.close()


def test_a_run_refused_the_lock_leaves_the_matrix_to_the_writer_that_kept_it(backlog):
    """A worker giving way to an `index` wrote the whole matrix beside it, without the lock (a review)."""
    store, vecs = _vectors(backlog)
    given = iter([True, True, False])
    written: list[int] = []

    @contextlib.contextmanager
    def turn():
        with writer_lock(backlog.config(), 1.0) as held:
            yield held and next(given, False)

    def write_matrix() -> int:
        written.append(1)
        return 0

    vecs.write_matrix = write_matrix  # type: ignore[method-assign]
    try:
        assert vecs.embed_in_turns(embed_mod.load(bulk=True), turn, step=16) > 0
    finally:
        store.close()
    assert written == [] and 0 < _pending(backlog) < 80


def test_saving_within_a_step_gives_each_record_the_unit_one_save_would(session_builder, backscroll_home,
                                                                        backscroll_index, monkeypatch):
    """A record saved early in a step (a short "ok" prompt) left the answers after it without their question when
    the step's units were read again to save the rest: other units, other vectors than `index` had made."""
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")
    monkeypatch.setattr(vectors_mod, "BATCH_RECORDS", 4)
    s = session_builder.claude()
    for i in range(30):
        s.user("ok" if i % 3 else f"question {i} about the lighthouse keeper's schedule")
        s.assistant(f"answer number {i} about the tide tables and the harbour lights")
    backscroll_index(embed=False)
    store, vecs = _vectors(backscroll_home)
    try:
        units, _short = vecs._window_units(vecs.pending_ids())
        turn = embedding.turns(backscroll_home.config(), store, 1.0)
        vecs.embed_in_turns(embed_mod.load(bulk=True), turn, step=2048, every=0.0)
    finally:
        store.close()
    got = {r["id"]: r["unit_hash"] for r in rows(backscroll_home, "SELECT id, unit_hash FROM records")}
    assert all(got[rid] == h for rid, h, _u in units)


def test_a_search_long_at_the_word_index_starts_its_worker_once_it_lets_the_lock_go(backlog, backscroll_search,
                                                                                    monkeypatch):
    """A search started its worker before it brought the word index in step. After a long catch-up (a first search,
    or one after an `index` cut short: 66,000 records took 20 s) the search kept the writer lock past the worker's
    wait, the worker gave way to the very search that started it, and nothing was embedded until a search a minute
    later (found by the chaos run: a killed `index`, then a search)."""
    from backscroll.indexes.lexical import LexicalIndex

    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")
    in_step = LexicalIndex.sync

    def long_sync(self, *args, **kw):
        time.sleep(background.TURN_WAIT_S + 1)  # the word index of a long catch-up
        return in_step(self, *args, **kw)

    monkeypatch.setattr(LexicalIndex, "sync", long_sync)
    backscroll_search("lighthouse keeper", mode="lexical")
    deadline = time.monotonic() + 60
    while (_pending(backlog) or background.running(backlog.config())) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _pending(backlog) == 0
    report = json.loads((backlog.config().home.value / background.REPORT_NAME).read_text())
    assert report["finished"] and not report.get("gave_way"), report
