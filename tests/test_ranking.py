"""Ranking: RRF with qualities, the two-level fusion, coverage, and word matching beyond exact terms."""

from backscroll.indexes.lexical import analyze
from backscroll.retrieval.fusion import rrf
from backscroll.retrieval.pipeline import fuse, semantic_quality
from backscroll.retrieval.query import classify_shape, plan


def test_rrf_orders_by_weighted_reciprocal_rank_and_is_deterministic():
    fused = rrf({"a": [1, 2, 3], "b": [3, 4]}, {"a": 1.0, "b": 1.0}, k=60)
    assert [f.id for f in fused] == [3, 1, 2, 4]  # 3 is in both lists
    assert fused[0].lists == ("b", "a")  # its best contribution first
    assert rrf({"a": [5, 6]}, k=60) == rrf({"a": [5, 6]}, k=60)
    assert [f.id for f in rrf({"a": [1, 2], "b": [3, 4]})] == [1, 3, 2, 4], "ties keep list order"


def test_rrf_quality_scales_each_entry():
    fused = rrf({"a": [(1, 0.1), (2, 1.0)]})
    assert [f.id for f in fused] == [2, 1]
    assert rrf({"a": [(1, 0.0)]})[0].score == 0.0


def test_prose_found_twice_does_not_bury_a_strong_tool_hit():
    lists = {
        "prose": [(10, 0.3), (11, 0.3), (12, 0.3)],
        "semantic": [(10, 0.4), (11, 0.4), (12, 0.4)],
        "tool": [(20, 1.0)],
    }
    order = [f.id for f in fuse(lists, "keywords")]
    assert order.index(20) == 0, "a tool output holding every query word outranks weak prose"
    weak_tool = {**lists, "tool": [(20, 0.05)]}
    assert [f.id for f in fuse(weak_tool, "keywords")][-1] == 20


def test_paraphrase_semantic_hit_beats_partial_lexical_noise():
    lists = {
        "prose": [(1, 0.05), (2, 0.05), (3, 0.04)],  # rows sharing one common word
        "tool": [(7, 0.06)],
        "semantic": [(9, semantic_quality(0.55) * 0.4), (1, semantic_quality(0.2) * 0.4)],
    }
    assert [f.id for f in fuse(lists, "natural")][0] == 9


def test_echoes_interleave_behind_originals():
    lists = {"tool": [(1, 1.0), (2, 1.0)], "echo": [(5, 1.0), (6, 1.0)]}
    order = [f.id for f in fuse(lists, "keywords")]
    assert order[0] == 1 and order.index(5) < order.index(2) + 2


def test_semantic_quality_is_clipped():
    assert semantic_quality(0.0) == 0.0 and semantic_quality(0.9) == 1.0
    assert 0.4 < semantic_quality(0.3) < 0.6


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
