"""Issue 17: the shipped int8 graph, token-budget batches, newest-first committed embedding,
Ctrl-C and resume, partly embedded stores, the streamed matrix, and the model-id change."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest
from helpers import rows, run_cli

import backscroll
from backscroll import embedding
from backscroll.cli.progress import eta_text
from backscroll.errors import SemanticUnavailableError
from backscroll.indexes import embed as embed_mod
from backscroll.indexes import vectors as vectors_mod
from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store
from backscroll.testing import FakeEmbedder

# -- pure parts ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lengths", [[5, 300, 7, 128, 128, 2, 64] * 30, [128] * 100, [1], []])
def test_batches_cover_every_text_once_and_respect_the_token_budget(lengths):
    batches = embed_mod.plan_batches(lengths, budget=512, max_rows=16)
    seen = np.concatenate(batches) if batches else np.zeros(0, dtype=np.int64)
    assert sorted(seen.tolist()) == list(range(len(lengths)))
    for b in batches:
        widest = max(lengths[i] for i in b)
        assert len(b) <= 16
        assert len(b) == 1 or len(b) * widest <= 512  # a text over the budget goes alone
    flat = [lengths[i] for i in seen]
    assert flat == sorted(flat), "shortest first: every batch pads to nearly its own length"


def test_time_left_comes_from_the_average_rate_so_far():
    assert eta_text(0, 100, 5.0) == ""
    assert eta_text(50, 100, 10.0) == "10 s left"
    assert eta_text(10, 1000, 6.0) == "10 min left"
    assert eta_text(100, 100, 6.0) == ""


# -- newest first, windows, commits --------------------------------------------------------------

class Recording(FakeEmbedder):
    seen: list[str] = []

    def embed(self, texts):
        Recording.seen.extend(texts)
        return super().embed(texts)


def test_pending_texts_are_embedded_newest_sessions_first(session_builder, backscroll_home, backscroll_index,
                                                          monkeypatch):
    old = session_builder.claude(start="2024-01-01T10:00:00Z")
    for i in range(6):
        old.user(f"old question {i} about the legacy billing importer")
    new = session_builder.claude(start="2025-06-01T10:00:00Z")
    for i in range(6):
        new.user(f"new question {i} about the shiny search ranking")
    backscroll_index(embed=False)
    monkeypatch.setattr(vectors_mod, "WINDOW_RECORDS", 4)
    Recording.seen = []
    store = Store.open(backscroll_home.config().db_path)
    try:
        vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
        assert vecs.embed_pending(Recording) == 12
    finally:
        store.close()
    first_half = Recording.seen[:6]
    assert all(t.startswith("new question") for t in first_half), Recording.seen


def test_a_window_commits_in_steps_and_each_step_reports_progress(session_builder, backscroll_home,
                                                                  backscroll_index, monkeypatch):
    s = session_builder.claude()
    for i in range(20):
        s.user(f"distinct question number {i} about topic {i * 7}")
    s.user("ok")  # too short: done without a vector
    backscroll_index(embed=False)
    monkeypatch.setattr(vectors_mod, "BATCH_RECORDS", 3)
    monkeypatch.setattr(vectors_mod, "COMMIT_SECONDS", 0.0)  # commit after every batch
    steps = []
    store = Store.open(backscroll_home.config().db_path)
    try:
        vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
        assert vecs.embed_pending(FakeEmbedder, progress=lambda r, u, _w: steps.append((r, u))) == 20
        assert vecs.pending() == 0
    finally:
        store.close()
    assert len(steps) == 7 and steps[-1] == (21, 20)
    assert [r for r, _u in steps] == sorted(r for r, _u in steps)


def test_the_time_left_goes_by_work_not_by_texts_done_shortest_first(session_builder, backscroll_home,
                                                                     backscroll_index, monkeypatch):
    s = session_builder.claude()
    for i in range(12):  # twelve short questions, then four long ones: a window embeds the short first
        s.user(f"short question number {i}")
    for i in range(4):
        s.user(f"long question {i} " + "about the ranking of sessions by their evidence " * 30)
    backscroll_index(embed=False)
    monkeypatch.setattr(vectors_mod, "BATCH_RECORDS", 4)
    monkeypatch.setattr(vectors_mod, "COMMIT_SECONDS", 0.0)
    steps: list[tuple[int, float]] = []
    store = Store.open(backscroll_home.config().db_path)
    try:
        vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
        vecs.embed_pending(FakeEmbedder, progress=lambda r, _u, w: steps.append((r, w)))
    finally:
        store.close()
    done, worked = steps[0]
    assert done == 4 and worked < 1  # a quarter of the texts, far less of the work
    assert [w for _r, w in steps] == sorted(w for _r, w in steps) and steps[-1] == (16, 16.0)
    assert eta_text(worked, 16, 1.0) != eta_text(done, 16, 1.0)


def test_a_text_costs_more_than_its_length_and_no_more_than_the_model_reads():
    short, long, longer = embed_mod.text_cost(["x" * 40, "x" * 400, "x" * 40_000])
    assert long / short > 400 / 40  # (attention: a longer text costs more per token)
    assert longer == embed_mod.text_cost(["y" * embed_mod.MAX_TOKENS * 4])[0]  # the model reads 256 tokens


_SLOW_EMBED = """
import sys, time
from backscroll import testing
orig = testing.FakeEmbedder.embed
def slow(self, texts):
    time.sleep(0.5)  # 7 batches of 64: about 3.5 s, committed about every second
    return orig(self, texts)
testing.FakeEmbedder.embed = slow
from backscroll.cli import main
sys.argv = ["backscroll", "embed"]
main()
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["ctrl-c", "term", "hangup"])
def test_ctrl_c_during_embed_keeps_what_is_done_exits_130_and_the_next_run_resumes(
        session_builder, backscroll_home, backscroll_index, monkeypatch, stop):
    """SIGTERM (a supervisor's stop) and SIGHUP (a closed terminal) had ended it silently, as 143 and 129."""
    s = session_builder.claude()
    for i in range(400):
        s.user(f"distinct question number {i} about topic {i * 7} and module m{i}")
    backscroll_index(embed=False)
    db = backscroll_home.config().db_path
    env = {**os.environ, "BACKSCROLL_EMBEDDER": "fake", "NO_COLOR": "1"}
    # (a background job's children ignore SIGINT: give it the default a terminal's process has)
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_EMBED], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def embedded() -> int:
        con = sqlite3.connect(db)
        try:
            return con.execute("SELECT count(*) FROM embeddings").fetchone()[0]
        finally:
            con.close()

    deadline = time.monotonic() + 120
    while embedded() == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run was still going when the first step was committed"
    proc.send_signal(stop)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "embedding interrupted" in err and "resumes" in err
    assert "did not save" not in err and err.strip().endswith("the next run goes on from there"), err
    kept = embedded()
    assert 0 < kept < 400
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")
    n, _secs = backscroll.embed(config=backscroll_home.config())
    assert n == 400 - kept, "the second run embeds only what the first did not"
    assert embedded() == 400


# -- partly embedded stores ----------------------------------------------------------------------

def test_a_partly_embedded_store_answers_hybrid_searches_and_says_how_much(session_builder, backscroll_home,
                                                                           backscroll_index, backscroll_search):
    s = session_builder.claude(start="2024-01-01T10:00:00Z")
    for i in range(150):
        s.user(f"filler question {i} about module m{i} and its configuration")
    recent = session_builder.claude(start="2025-06-01T10:00:00Z")
    recent.user("which library handles the calendar arithmetic for invoices")
    backscroll_index(embed=False)
    store = Store.open(backscroll_home.config().db_path)
    try:
        vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
        vecs.embed_pending(FakeEmbedder, limit=30)  # the newest 30 of 151
    finally:
        store.close()
    res = backscroll_search("calendar arithmetic invoices", sync=False)
    assert res.mode == "hybrid"
    assert any("calendar arithmetic" in h.text for h in res.results)
    note = [n for n in res.notes if "meaning-based ranking covers" in n]
    assert note and "19% of prose" in note[0] and "`backscroll embed` finishes it" in note[0], res.notes


def test_with_embedding_off_the_notes_and_hints_name_the_command_that_embeds(session_builder, backscroll_home,
                                                                            backscroll_index, backscroll_search):
    """They said `backscroll index` embeds, which it does not under ``embed = false``: the user went round in a loop."""
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    (backscroll_home.data / "config.toml").write_text("embed = false\n")
    session_builder.claude().user("which library handles the calendar arithmetic for invoices")
    backscroll_index()
    note = [n for n in backscroll_search("calendar arithmetic").notes if "fell back to lexical" in n]
    assert note and "(`backscroll embed` embeds the prose)" in note[0] and "index" not in note[0], note
    r = run_cli(backscroll_home, "search", "calendar", "--mode", "semantic", "--no-sync")
    assert r.returncode == 3 and "hint: run `backscroll embed`" in r.stderr, r.stderr


def test_index_says_lexical_search_is_ready_before_embedding_a_large_backlog(session_builder, backscroll_home,
                                                                             monkeypatch):
    monkeypatch.setattr(embedding, "EMBED_NOTICE_MIN", 5)
    s = session_builder.claude()
    for i in range(8):
        s.user(f"distinct question number {i} about topic {i * 7}")
    said: list[str] = []
    out = backscroll.index(config=backscroll_home.config(), notify=said.append)
    assert out.embedded == 8
    assert said[0].startswith("8 records searchable now; embedding 8 prose records for meaning-based search, "
                              "newest first")
    assert out.notes == []


@pytest.fixture
def five_embedded(session_builder, backscroll_index):
    """Five questions, indexed and embedded by the fake embedder."""
    s = session_builder.claude()
    for i in range(5):
        s.user(f"distinct question number {i} about topic {i * 7}")
    assert backscroll_index().embedded == 5


def test_a_model_change_re_embeds_everything_once_and_says_so(five_embedded, backscroll_home, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake:v2")
    said: list[str] = []
    n, _ = backscroll.embed(config=backscroll_home.config(), notify=said.append)
    assert n == 5 and any("embedding model changed (fake-hash-384 → fake-hash-384-v2)" in m for m in said)
    said.clear()
    n, _ = backscroll.embed(config=backscroll_home.config(), notify=said.append)
    assert n == 0 and said == []
    assert {r["model"] for r in rows(backscroll_home, "SELECT DISTINCT model FROM embeddings")} == {"fake-hash-384-v2"}


def test_a_mistyped_embedder_costs_the_store_no_vector(five_embedded, backscroll_home, backscroll_index,
                                                       backscroll_search, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minlm")
    assert backscroll_search("distinct question").results  # (words still find it)
    with pytest.raises(SemanticUnavailableError, match="unknown embedder 'minlm'") as err:
        backscroll.embed(config=backscroll_home.config())
    assert "use one of: minilm" in (err.value.hint or ""), err.value.hint  # (it said only "lexical search still works")
    backscroll_index()
    assert len(rows(backscroll_home, "SELECT * FROM embeddings")) == 5
    assert rows(backscroll_home, "SELECT value FROM meta WHERE key = 'vectors_model'")[0]["value"] == "fake-hash-384"
    from backscroll.status_report import collect

    assert "meaning is not searched: unknown embedder 'minlm' in $BACKSCROLL_EMBEDDER" in collect(
        backscroll_home.config()).warnings


def test_a_mistyped_embedder_on_a_new_store_names_no_model(session_builder, backscroll_home, monkeypatch):
    session_builder.claude().user("distinct question about the checkout total")
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minlm")
    backscroll.index(config=backscroll_home.config())
    assert rows(backscroll_home, "SELECT value FROM meta WHERE key = 'vectors_model'") == []
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")
    said: list[str] = []
    assert backscroll.embed(config=backscroll_home.config(), notify=said.append)[0] == 1
    assert not any("model changed" in m for m in said), said


def test_the_streamed_matrix_holds_every_vector_in_order(session_builder, backscroll_home, backscroll_index,
                                                         monkeypatch):
    s = session_builder.claude()
    for i in range(25):
        s.user(f"distinct question number {i} about topic {i * 7}")
    backscroll_index()
    store = Store.open(backscroll_home.config().db_path)
    try:
        vecs = Vectors(store, backscroll_home.config().vectors_dir, embed_mod.model_id())
        ref_ids, ref = vecs._rows(0)
        orig = Vectors._iter_rows
        monkeypatch.setattr(Vectors, "_iter_rows", lambda self, after, chunk=8192: orig(self, after, chunk=4))
        assert vecs.write_matrix() == 25
        base_ids, base, scales, tail_ids, _tail = vecs.load()
        assert not vecs.cache_damaged and len(tail_ids) == 0
        assert base is not None and scales is not None
        assert base_ids.tolist() == ref_ids.tolist()
        assert np.abs(base.astype(np.float32) * scales[:, None] - ref).max() < 0.01
    finally:
        store.close()


# -- the real model ------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_real_model_is_the_shipped_graph_and_ranks_paraphrases_above_unrelated_texts(monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minilm")  # (the plugin's choice for this run is the fake)
    assert embed_mod.model_path(verify=True).name == "minilm-l6-dynint8pc.onnx"  # sha256 checked
    bulk = embed_mod.load(bulk=True)
    query = embed_mod.load(bulk=False)
    assert bulk.model_id == query.model_id == f"all-MiniLM-L6-v2-dynint8pc-{embed_mod.MAX_TOKENS}"
    pairs = [("squash the last three commits", "combine several recent commits with an interactive rebase"),
             ("the test suite is flaky on CI", "tests fail intermittently in the continuous integration runs"),
             ("which library handles dates and time zones", "pendulum copes with daylight saving transitions")]
    unrelated = ["my cat likes to sleep in the sun", "a recipe for lemon cake with poppy seeds"]
    texts = [t for p in pairs for t in p] + unrelated
    v = bulk.embed(texts)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    for k in range(len(pairs)):
        a, b = v[2 * k], v[2 * k + 1]
        assert a @ b > max(a @ u for u in v[len(pairs) * 2:]) + 0.15, texts[2 * k]
    # queries run the same graph (unoptimised at load): the same vector for the same single text
    alone = np.vstack([bulk.embed([t]) for t in texts])
    assert ((np.vstack([query.embed([t]) for t in texts]) * alone).sum(axis=1) > 0.999).all()
    # activations are quantised per batch, so a vector depends a little on its batch mates: close, not equal
    assert ((v * alone).sum(axis=1) > 0.98).all()
    # cut at MAX_TOKENS: what follows does not change the vector
    long = "the deploy failed because the migration locked the orders table " * (embed_mod.MAX_TOKENS // 8)
    w = bulk.embed([long, long + " and then everything about lemon cakes"])
    assert float(w[0] @ w[1]) > 0.9999


def test_announced_final_and_status_counts_agree(session_builder, backscroll_home, backscroll_index):
    """"embedding 2,290 texts" then "embedded 2188" then status "2,290 / 2,290": records with the
    same text share one embedding, and the final count counted embeddings. Every count is records now."""
    import json

    from typer.testing import CliRunner

    from backscroll.cli.app import app

    s = session_builder.claude(project="counts")
    for i in range(6):
        s.user("same question about the ledger")  # six records, one text
        s.assistant(f"a different answer {i} about the ledger reconciliation")
    out = backscroll_index(embed=True)
    status = json.loads(CliRunner().invoke(app, ["status", "--json"]).stdout)
    assert out.embedded == status["embeddings"]["embedded"] == status["embeddings"]["prose_records"] == 12
    assert out.to_dict()["records_embedded"] == 12


def test_ctrl_c_while_the_model_loads_is_a_ctrl_c_not_a_broken_install(monkeypatch):
    """onnxruntime can turn a Ctrl-C during its set-up into an error of its own ("initialization failed"), which was
    reported as a model that could not be loaded, with advice to reinstall; held, it is felt as Ctrl-C."""
    import os
    import signal
    import threading
    import time

    import pytest

    from backscroll.indexes import embed

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minilm")

    def ctrl_c_in_native_code() -> None:  # (the runtime's native code takes the Ctrl-C and carries on)
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        except KeyboardInterrupt:
            pass

    def interrupted_set_up(**_kw):
        ctrl_c_in_native_code()
        raise RuntimeError("initialization failed")

    monkeypatch.setattr(embed, "MiniLM", interrupted_set_up)
    with pytest.raises(KeyboardInterrupt):
        embed.load(bulk=False)

    def set_up_through_a_ctrl_c(**_kw):
        ctrl_c_in_native_code()
        return "a model"

    monkeypatch.setattr(embed, "MiniLM", set_up_through_a_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        embed.load(bulk=False)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "Python's own handler is back"

    def broken(**_kw):
        raise RuntimeError("initialization failed")

    monkeypatch.setattr(embed, "MiniLM", broken)
    with pytest.raises(embed.SemanticUnavailableError, match="could not be loaded"):
        embed.load(bulk=False)


def test_a_process_loads_the_model_once_for_each_use(monkeypatch):
    """An MCP server's every search and a test suite's every index set the model up again (0.1-0.2 s each)."""
    set_up = []

    class Counted(embed_mod.MiniLM):
        def __init__(self, **kw):  # (no graph: only how often it is set up counts here)
            set_up.append(kw)

    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minilm")
    monkeypatch.setattr(embed_mod, "MiniLM", Counted)
    query = embed_mod.load(bulk=False)
    assert embed_mod.load(bulk=False) is query and embed_mod.load(bulk=True) is not query
    assert embed_mod.load(bulk=True) is embed_mod.load(bulk=True)
    assert set_up == [{"bulk": False}, {"bulk": True}]


def test_a_search_that_starts_no_worker_names_no_worker(session_builder, backscroll_home, backscroll_index,
                                                        backscroll_search, monkeypatch):
    """A --no-sync search starts no background worker: the note said one embeds the prose, and none ever did."""
    session_builder.claude().user("the pelican migration plan")
    backscroll_index(embed=False)
    monkeypatch.setenv("BACKSCROLL_BACKGROUND", "1")  # (the worker is on, and this search starts none)
    note = [n for n in backscroll_search("pelican plan", sync=False).notes if "fell back to lexical" in n]
    assert note and "(`backscroll embed` embeds the prose)" in note[0] and "worker" not in note[0], note
