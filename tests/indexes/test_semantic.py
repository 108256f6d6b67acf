"""Semantic search: the embedding table, exchange units, resume, model changes, fallback, and the real model."""

import numpy as np
import pytest
from helpers import rows

from backscroll.errors import SemanticUnavailableError
from backscroll.indexes import embed as embed_mod
from backscroll.indexes import vectors as vectors_mod
from backscroll.indexes.exchange_units import unit_text
from backscroll.indexes.vectors import Vectors
from backscroll.store.db import Store
from backscroll.store.evidence import allowed_query
from backscroll.testing import FakeEmbedder
from backscroll.types import Filters


def test_unit_text_pairs_an_answer_with_its_question():
    assert unit_text("assistant", "use pendulum", "which date library?") == "which date library?\n\nuse pendulum"
    assert unit_text("user", "which date library?", "earlier question") == "which date library?"
    assert unit_text("assistant", "hello", None) == "hello"


def test_only_prose_is_embedded_never_echoes_or_tool_rows(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("which date library should we use?")
    s.assistant("pendulum: it handles DST transitions")
    s.tool("pytest -q", "4 passed")
    s.search_echo("date library", "pendulum: it handles DST transitions")
    out = backscroll_index()
    assert out.embedded == 2
    recs = rows(backscroll_home)
    embedded = [r for r in recs if r["unit_hash"]]
    assert {r["role"] for r in embedded} == {"user", "assistant"}
    assert all(r["unit_hash"] is None for r in recs if r["is_echo"] or r["content_type"] == "tool")


def test_a_time_window_reads_the_prose_from_its_index_not_a_scan(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("which date library should we use?")
    backscroll_index()
    window = allowed_query(Filters(since="2026-04-18T00:00:00.000Z", until="2026-04-19T00:00:00.000Z"))
    assert window is not None
    plan = " ".join(r["detail"] for r in rows(backscroll_home, "EXPLAIN QUERY PLAN " + window[0], window[1]))
    assert "USING INDEX records_prose_time" in plan and "SCAN" not in plan, plan
    assert allowed_query(Filters()) is None, "nothing filtered: every vector counts"


def test_identical_texts_are_embedded_once(session_builder, backscroll_home, backscroll_index):
    for _ in range(3):
        session_builder.claude().user("run the full test suite please")
    out = backscroll_index()
    assert out.embedded == 3, "three prose records are done, as status counts them"
    assert rows(backscroll_home, "SELECT count(*) AS n FROM embeddings")[0]["n"] == 1, "with one embedding"
    assert len({r["unit_hash"] for r in rows(backscroll_home)}) == 1


def test_interrupted_embedding_resumes_where_it_stopped(session_builder, backscroll_home, backscroll_index,
                                                        monkeypatch):
    monkeypatch.setattr(vectors_mod, "BATCH_RECORDS", 3)
    s = session_builder.claude()
    for i in range(10):
        s.user(f"distinct question number {i} about topic {i * 7}")
    backscroll_index(embed=False)
    cfg = backscroll_home.config()
    calls = []

    class Failing(FakeEmbedder):
        def embed(self, texts):
            calls.append(len(texts))
            if len(calls) == 2:
                raise KeyboardInterrupt  # the user pressed Ctrl-C during the second batch
            return super().embed(texts)

    store = Store.open(cfg.db_path)
    vecs = Vectors(store, cfg.vectors_dir, embed_mod.model_id())
    with pytest.raises(KeyboardInterrupt):
        vecs.embed_pending(Failing)
    assert vecs.pending() == 7, "the first batch was committed"
    calls.clear()
    assert vecs.embed_pending(Failing.__mro__[1]) == 7
    assert vecs.pending() == 0 and vecs.count() == 10
    store.close()


def test_model_change_reembeds_everything(session_builder, backscroll_home, backscroll_index, monkeypatch):
    session_builder.claude().user("the first longer text").assistant("the second longer text")
    assert backscroll_index().embedded == 2
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake:v2")
    assert backscroll_index().embedded == 2
    models = {r["model"] for r in rows(backscroll_home, "SELECT model FROM embeddings")}
    assert models == {"fake-hash-384-v2"}, "vectors of the old model are dropped"


def test_hybrid_marks_which_lists_found_each_hit(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("the deploy pipeline broke on staging")
    s.assistant("rolled back the staging deploy pipeline")
    backscroll_index()
    result = backscroll_search("staging deploy pipeline")
    assert result.mode == "hybrid"
    assert all("semantic" in h.matched_by and "lexical" in h.matched_by for h in result.results)
    sem = backscroll_search("staging deploy pipeline", mode="semantic")
    assert sem.mode == "semantic" and all(h.matched_by == ("semantic",) for h in sem.results)


def test_semantic_list_obeys_filters(session_builder, backscroll_index, backscroll_search):
    a = session_builder.claude(project="shop")
    a.user("cache invalidation strategy for the catalog")
    b = session_builder.codex(project="infra")
    b.user("cache invalidation strategy for the CDN")
    backscroll_index()
    res = backscroll_search("cache invalidation strategy", mode="semantic", project="infra")
    assert [h.project for h in res.results] == ["infra"]
    assert backscroll_search("cache invalidation", mode="semantic", content_type="tool").results == ()


def test_fallback_to_lexical_when_nothing_is_embedded(session_builder, backscroll_index, backscroll_search):
    session_builder.claude().user("words only")
    backscroll_index(embed=False)
    res = backscroll_search("words only", sync=False)
    assert res.mode == "lexical" and any("fell back to lexical" in n for n in res.notes)
    with pytest.raises(SemanticUnavailableError) as exc:
        backscroll_search("words only", mode="semantic", sync=False)
    assert exc.value.exit_code == 3 and exc.value.hint is not None and "backscroll index" in exc.value.hint


def test_search_embeds_a_new_session_itself(session_builder, backscroll_home, backscroll_index, backscroll_search):
    session_builder.claude().user("old words")
    backscroll_index()
    session_builder.claude().user("fresh zeppelin plans")
    res = backscroll_search("zeppelin plans", mode="semantic")
    assert res.results[0].text == "fresh zeppelin plans"


def test_a_search_embeds_a_small_history_never_embedded_whatever_its_tool_rows(session_builder, backscroll_home,
                                                                              backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("fresh zeppelin plans")
    for n in range(40):  # 80 records, one of them prose: the tool rows are never embedded
        s.tool(f"ls /srv/hangar{n}", f"hangar{n}.txt")
    backscroll_index(embed=False)
    res = backscroll_search("zeppelin plans", mode="semantic")
    assert res.results[0].text == "fresh zeppelin plans"
    assert rows(backscroll_home, "SELECT count(*) AS n FROM records WHERE unit_hash IS NULL "
                                 "AND content_type = 'text'")[0]["n"] == 0


def test_a_search_embeds_a_tiny_store_again_for_a_new_model(session_builder, backscroll_home, backscroll_index,
                                                             backscroll_search):
    s = session_builder.claude()
    s.user("fresh zeppelin plans")
    for n in range(40):  # tool rows are never embedded: they do not make the store too big to embed again
        s.tool(f"ls /srv/hangar{n}", f"hangar{n}.txt")
    backscroll_index()
    store = Store.open(backscroll_home.config().db_path)
    try:
        store.begin()
        store.set_meta("vectors_model", "old-model")  # the vectors an older release's model made
        store.commit()
    finally:
        store.close()
    res = backscroll_search("zeppelin plans", mode="semantic")
    assert res.results[0].text == "fresh zeppelin plans"
    assert rows(backscroll_home, "SELECT value FROM meta WHERE key = 'vectors_model'")[0]["value"] == \
        embed_mod.model_id()


def test_query_vectors_are_cached(session_builder, backscroll_home, backscroll_index, backscroll_search):
    session_builder.claude().user("a question about caching")
    backscroll_index()
    backscroll_search("caching question")
    backscroll_search("  Caching   question ")
    assert rows(backscroll_home, "SELECT count(*) AS n FROM query_vectors")[0]["n"] == 1


def test_matrix_cache_plus_tail_matches_the_table(session_builder, backscroll_home, backscroll_index,
                                                  backscroll_search):
    s = session_builder.claude()
    s.user("alpha beta gamma")
    backscroll_index()
    s.user("gamma delta epsilon")  # embedded by the search's sync, after the matrix was written
    backscroll_search("gamma delta epsilon")
    store = Store.open(backscroll_home.config().db_path)
    base_ids, base, scales, tail_ids, tail = Vectors(store, backscroll_home.config().vectors_dir,
                                                     embed_mod.model_id()).load()
    assert base_ids.tolist() == [rows(backscroll_home)[0]["id"]], "the matrix written by index"
    assert tail_ids.tolist() == [rows(backscroll_home)[1]["id"]], "the row embedded since, read from the store"
    assert base is not None and scales is not None
    restored = base.astype(np.float32) * scales[:, None]
    assert base.dtype == np.int8 and np.allclose(np.linalg.norm(restored, axis=1), 1.0, atol=0.02)
    assert np.allclose(np.linalg.norm(tail, axis=1), 1.0, atol=1e-3)  # kept as float16
    store.close()


@pytest.mark.slow
def test_real_model_finds_a_paraphrase_that_lexical_misses(session_builder, backscroll_index, backscroll_search,
                                                           monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "minilm")
    answer = ("we chose pendulum over arrow because its timezone-aware date maths handles DST transitions")
    s = session_builder.claude(project="calendar")
    s.user("which library should the scheduler use?")
    s.assistant(answer)
    distractors = [
        "the retry queue now uses exponential backoff with jitter",
        "renamed the settings module and fixed the imports",
        "the CSS grid breaks on narrow screens, switched to flexbox",
        "upgraded postgres to 16 and reran the migrations",
        "added a pre-commit hook for ruff and black",
        "the login form now shows an error for expired tokens",
        "moved the S3 uploads to a background worker",
    ]
    for text in distractors:
        d = session_builder.claude(project="calendar")
        d.user("status update?")
        d.assistant(text)
    out = backscroll_index()
    assert out.embedded >= 9 and not out.notes
    query = "what did we pick for calendar arithmetic"
    hybrid = backscroll_search(query, limit=5, weak=True)  # (finding: the judgement may hold it back as weak)
    assert hybrid.mode == "hybrid"
    assert answer in [h.text for h in hybrid.results]
    lexical = backscroll_search(query, limit=5, mode="lexical")
    assert answer not in [h.text for h in lexical.results]


def test_hybrid_falls_back_to_lexical_when_the_model_cannot_load(session_builder, backscroll_index,
                                                                 backscroll_search, monkeypatch):
    session_builder.claude().user("caching choice for sessions")
    backscroll_index()
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake:other")  # vectors exist, but not for this model
    other = backscroll_search("caching choice", sync=False)
    assert other.mode == "lexical"
    assert ("the embeddings were made by another embedder (fake-hash-384), not this one (fake-hash-384-other): "
            "hybrid search fell back to lexical") in " ".join(other.notes), other.notes
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")

    def broken(self, texts):  # the model's runtime failing (a damaged install)
        raise RuntimeError("onnxruntime: cannot load")

    monkeypatch.setattr(FakeEmbedder, "embed", broken)
    res = backscroll_search("caching choice", sync=False)
    assert res.mode == "lexical" and res.results and any("lexical" in n for n in res.notes)
    with pytest.raises(SemanticUnavailableError):
        backscroll_search("caching choice", sync=False, mode="semantic")


def test_quoted_phrases_lead_but_do_not_gate_the_semantic_list(session_builder, backscroll_index, backscroll_search):
    # issue #16: a phrase is a hint; the record holding it comes first, meaning may still add others
    s = session_builder.claude()
    s.user("use SKIP LOCKED in the dequeue query")
    s.user("the job locked up, then we skipped it")
    backscroll_index()
    res = backscroll_search('"skip locked"')
    assert res.results[0].text == "use SKIP LOCKED in the dequeue query" and res.dropped_filters == ()


def test_the_shortest_replies_are_not_embedded(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("ok")
    s.user("please profile the checkout page")
    s.assistant("Done.")
    out = backscroll_index()
    assert out.embedded == 3, "three prose records are done (two too short to embed), as status counts them"
    assert rows(backscroll_home, "SELECT count(*) AS n FROM embeddings")[0]["n"] == 1
    assert [r["unit_hash"] == "" for r in rows(backscroll_home)] == [True, False, True]
    assert backscroll_index().embedded == 0, "skipped replies are not pending again"


def test_an_unknown_embedder_is_named_as_unknown_by_search(session_builder, backscroll_index, backscroll_search,
                                                           monkeypatch):
    """The note blamed vectors 'made by another embedder' and said to embed again with one that cannot embed."""
    session_builder.claude().user("caching choice for sessions")
    backscroll_index()
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "bogus")
    hybrid = backscroll_search("caching choice", sync=False)
    assert hybrid.mode == "lexical" and hybrid.results
    said = " ".join(hybrid.notes)
    assert "unknown embedder 'bogus'" in said and "another embedder" not in said, hybrid.notes
    with pytest.raises(SemanticUnavailableError, match="unknown embedder 'bogus'") as err:
        backscroll_search("caching choice", sync=False, mode="semantic")
    assert "minilm" in (err.value.hint or "")
