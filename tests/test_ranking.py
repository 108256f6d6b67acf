"""Ranking: evidence fusion, echoes interleaved by rank, coverage, and word matching beyond exact terms."""

from backscroll.indexes.lexical import analyze
from backscroll.retrieval.fusion import Candidate, Weights, fuse, rrf
from backscroll.retrieval.query import classify_shape, plan
from backscroll.retrieval.ranking import RANKING, semantic_quality


def _order(cands, shape="keywords"):
    return [f.id for f in fuse(cands, RANKING.weights(shape))]


def test_rrf_orders_by_weighted_reciprocal_rank_and_is_deterministic():
    fused = rrf({"a": [1, 2, 3], "b": [3, 4]}, {"a": 1.0, "b": 1.0}, k=60)
    assert [i for i, _s in fused] == [3, 1, 2, 4]  # 3 is in both lists
    assert fused[0][1] == 1 / 63 + 1 / 61
    assert rrf({"a": [5, 6]}, k=60) == rrf({"a": [5, 6]}, k=60)
    assert [i for i, _s in rrf({"a": [1, 2], "b": [3, 4]})] == [1, 3, 2, 4], "ties keep list order"


def test_evidence_adds_up_and_ties_keep_the_order_given():
    w = Weights(meaning=0.8)
    fused = fuse([Candidate(1, 0.2, 0.1, ("lexical",)), Candidate(2, 0.5, 0.9, ("lexical", "semantic")),
                  Candidate(3, 0.2, 0.1, ("lexical",))], w)
    assert [f.id for f in fused] == [2, 1, 3]
    assert fused[0].score == 0.5 + 0.8 * 0.9
    assert fused[0].lists == ("semantic", "lexical"), "the stronger evidence first"


def test_the_top_of_both_lists_is_not_beaten_by_weaker_evidence():
    # RRF (k = 60) let a record ranked 3rd by words and 15th by meaning beat the first of both lists
    # once a 6 % prior applied: scores must keep the distance between strong and weak evidence.
    top = Candidate(1, 1.0, semantic_quality(0.71), ("lexical", "semantic"))
    weaker = Candidate(2, 1.0, semantic_quality(0.27), ("lexical", "semantic"))
    fused = fuse([weaker, top], RANKING.weights("natural"))
    assert fused[0].id == 1 and fused[1].score < 0.94 * fused[0].score


def test_prose_found_twice_does_not_bury_a_strong_tool_hit():
    prose = [Candidate(i, 0.3, semantic_quality(0.4), ("lexical", "semantic")) for i in (10, 11, 12)]
    tool = Candidate(20, 1.0, None, ("lexical",))
    assert _order([*prose, tool])[0] == 20, "a tool output holding every query word outranks weak prose"
    assert _order([*prose, Candidate(20, 0.05, None, ("lexical",))])[-1] == 20


def test_paraphrase_semantic_hit_beats_partial_lexical_noise():
    noise = [Candidate(i, 0.05, 0.0, ("lexical",)) for i in (1, 2, 3)]
    para = Candidate(9, 0.0, semantic_quality(0.55), ("semantic",))
    assert _order([*noise, Candidate(7, 0.06, None, ("lexical",)), para], "natural")[0] == 9


def test_semantic_quality_runs_from_the_floor_to_a_close_match():
    assert semantic_quality(RANKING.semantic_floor) == 0.0 and semantic_quality(0.0) == 0.0
    assert semantic_quality(0.9) == 1.0 and semantic_quality(RANKING.semantic_full) == 1.0
    assert 0.4 < semantic_quality((RANKING.semantic_floor + RANKING.semantic_full) / 2) < 0.6


def test_query_shapes():
    def shape(text):
        return classify_shape(text, analyze(text))

    assert shape("what did we decide about the job queue?") == "natural"
    assert shape("how do we deploy to staging") == "natural"
    assert shape("internal/storage/sync.go") == "identifier"
    assert shape("UniqueViolation") == "keywords" or shape("UniqueViolation") == "identifier"
    assert shape("foo_bar()") == "identifier"
    assert shape("job queue postgres") == "keywords"
    assert plan("what did we decide about the job queue", analyze).lexical_terms == ("decide", "job", "queue")


def test_long_outputs_holding_every_word_count_fully(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("the build broke")
    s.tool("kubectl describe pod worker", "\n".join([f"line {i} of noise" for i in range(400)] +
                                                   ["Last State: Terminated  Reason: OOMKilled  Exit Code: 137"]))
    for i in range(5):
        session_builder.claude().assistant(f"the worker pod {i} restarted; reason unknown, will look at the exit")
    backscroll_index()
    res = backscroll_search("worker terminated reason OOMKilled exit code", limit=3, max_chars=0)
    assert "OOMKilled" in res.results[0].text


def test_word_parts_and_prefixes_match(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.assistant("The N+1 is in CheckoutLineSerializer.get_variant_image")
    s.tool("psql -c 'select version()'", "PostgreSQL 16.4 on x86_64-pc-linux-gnu")
    s.user("unrelated words about lunch")
    backscroll_index()
    assert "CheckoutLineSerializer" in backscroll_search("serializer", mode="lexical").results[0].text
    assert "PostgreSQL 16.4" in backscroll_search("postgres", mode="lexical").results[0].text


def test_echoes_interleave_behind_originals():
    from backscroll.retrieval.fusion import Fused
    from backscroll.retrieval.pipeline import interleave

    main = [Fused(1, 0.5, ("lexical",)), Fused(2, 0.4, ("lexical",)), Fused(3, 0.3, ("lexical",))]
    pile = [Fused(i, 1.0, ("lexical",)) for i in (5, 6, 7)]  # stronger evidence: they quote the query whole
    fused = interleave(main, pile)
    assert [f.id for f in fused] == [5, 1, 6, 2, 7, 3], "never two echoes in a row while results remain"
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)
    weak = interleave(main, [Fused(8, 0.1, ("lexical",))])
    assert [f.id for f in weak] == [1, 2, 3, 8], "an echo holding one common word stays down"
