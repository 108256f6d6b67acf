"""Ranking: evidence fusion, echoes interleaved by rank, coverage, and word matching beyond exact terms."""

from dataclasses import replace

from backscroll.indexes.lexical import analyze
from backscroll.retrieval.fusion import Candidate, Weights, fuse, word_confidence
from backscroll.retrieval.query import classify_shape, plan
from backscroll.retrieval.ranking import RANKING, SEMANTIC_FLOOR, semantic_quality


def _order(cands, shape="keywords"):
    return [f.id for f in fuse(cands, RANKING.weights(shape))]


def test_evidence_adds_up_and_ties_keep_the_order_given():
    w = Weights(meaning=0.8, unembedded_meaning=0.5)
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


def test_words_count_less_when_no_record_holds_half_the_question():
    """A paraphrase's answer shares no word with the question; records holding only its everyday words
    ("how long", "keep") and as close in meaning no longer outrank it once no candidate holds half of it."""
    answer = Candidate(1, 0.0, 0.85, ("semantic",))
    everyday = [Candidate(i, 0.3, 0.6, ("lexical", "semantic")) for i in (2, 3)]
    w = RANKING.weights("natural")
    confidence = word_confidence([answer, *everyday], full=RANKING.words_full, power=RANKING.words_confidence)
    assert confidence < 0.5
    assert [f.id for f in fuse([*everyday, answer], w)][0] == 2, "at full weight the everyday words win"
    assert [f.id for f in fuse([*everyday, answer], replace(w, words=confidence))][0] == 1
    strong = Candidate(4, 0.5, 0.3, ("lexical",))
    assert word_confidence([answer, strong], full=0.5, power=2.0) == 1.0, "half the words held: full weight"
    assert word_confidence([], full=0.5, power=2.0) == 0.0


def test_paraphrase_semantic_hit_beats_partial_lexical_noise():
    noise = [Candidate(i, 0.05, 0.0, ("lexical",)) for i in (1, 2, 3)]
    para = Candidate(9, 0.0, semantic_quality(0.55), ("semantic",))
    assert _order([*noise, Candidate(7, 0.06, None, ("lexical",)), para], "natural")[0] == 9


def test_semantic_quality_runs_from_the_floor_to_a_close_match():
    assert semantic_quality(SEMANTIC_FLOOR) == 0.0 and semantic_quality(0.0) == 0.0
    assert semantic_quality(0.9) == 1.0 and semantic_quality(RANKING.semantic_full) == 1.0
    assert 0.4 < semantic_quality((SEMANTIC_FLOOR + RANKING.semantic_full) / 2) < 0.6


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
    from backscroll.retrieval.echo_order import interleave
    from backscroll.retrieval.fusion import Fused

    originals = [Fused(1, 0.95, ("lexical",)), Fused(2, 0.4, ("lexical",)), Fused(3, 0.3, ("lexical",))]
    pile = [Fused(i, 1.0, ("lexical",)) for i in (5, 6, 7)]  # they quote the query whole
    fused = interleave(originals, pile)
    assert [f.id for f in fused] == [1, 5, 2, 6, 3, 7], "behind a result as strong, never two in a row"
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)
    main = [Fused(1, 0.5, ("lexical",)), Fused(2, 0.4, ("lexical",)), Fused(3, 0.3, ("lexical",))]
    fused = interleave(main, pile)
    assert [f.id for f in fused] == [5, 1, 6, 2, 7, 3], "first when no result comes close, still never two in a row"
    weak = interleave(main, [Fused(8, 0.1, ("lexical",))])
    assert [f.id for f in weak] == [1, 2, 3, 8], "an echo holding one common word stays down"

    assert [f.id for f in interleave([], pile)] == [5, 6, 7], "echoes alone when nothing else matched"
    assert interleave(main, []) == main


def test_near_duplicates_collapse_before_echoes_interleave():
    from backscroll.retrieval.echo_order import interleave
    from backscroll.retrieval.fusion import Fused
    from backscroll.retrieval.order import collapse
    from backscroll.retrieval.source import Facts

    facts = {1: Facts(None, "text", "a", ("s", "h1")), 2: Facts(None, "text", "a", ("s", "h1")),
             3: Facts(None, "text", "b", ("s", "h2")), 9: Facts(None, "tool", "e", ("t", "h9"))}
    main = collapse([Fused(1, 0.5, ()), Fused(2, 0.5, ()), Fused(3, 0.4, ())], facts)
    assert [f.id for f in main] == [1, 3], "the copy of 1 in the same session is dropped"
    assert [f.id for f in interleave(main, [Fused(9, 0.5, ())])] == [1, 9, 3]


def test_prose_without_a_vector_is_not_counted_as_unlike_the_query(session_builder, backscroll_home):
    """A record not embedded yet (or too short to embed) has no meaning score, not a zero one."""
    from sources import constructed

    import backscroll
    from backscroll import access
    from backscroll.retrieval.candidates import candidates, fetch_facts

    s = session_builder.claude()
    s.user("the plum jam sold out").assistant("plum jam again next week")
    s.tool("cat jam.txt", "plum jam: 40 jars")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        ids = {text: rid for rid, text in store.conn.execute("SELECT id, text FROM records")}
        embedded, pending = ids["the plum jam sold out"], ids["plum jam again next week"]
        tool = ids["plum jam: 40 jars"]
        facts = fetch_facts(store, sorted(ids.values()))
        ranked = {"prose": [embedded, pending], "tool": [tool]}
        q = plan("plum jam", analyze)
        source = constructed(store, lex, q, lookup={embedded: 0.5})
        source.cosines = lambda ids: {i: 0.5 for i in ids if i == embedded}  # type: ignore[method-assign]
        got = {c.id: c.meaning for c in candidates(source, q, ranked, facts, [], "hybrid")["main"]}
        lexical = {c.id: c.meaning for c in candidates(source, q, ranked, facts, None, "hybrid")["main"]}
    finally:
        store.close()
    assert (got[embedded] or 0.0) > 0.5
    assert got[pending] is None and got[tool] is None
    assert lexical == {embedded: None, pending: None, tool: None}, "without a meaning ranking, no meaning at all"
