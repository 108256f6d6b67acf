"""Session evidence: a record gains part of what its neighbours in the session found (hybrid search only)."""

from backscroll.retrieval.fusion import Fused
from backscroll.retrieval.ranking import RANKING
from backscroll.retrieval.session_evidence import with_session_evidence


def _f(i, score):
    return Fused(i, score, ("lexical",))


def _order(fused, sessions, weight=0.2, count=2, reach=5):
    return [f.id for f in with_session_evidence(fused, sessions, weight=weight, count=count, reach=reach)]


def test_a_record_whose_session_also_matches_outranks_a_slightly_stronger_lone_one():
    fused = [_f(1, 1.0), _f(2, 0.9), _f(3, 0.5), _f(4, 0.4)]
    sessions = {1: "lone", 2: "answer", 3: "answer", 4: "answer"}
    assert _order(fused, sessions) == [2, 1, 3, 4], "0.9 + 0.2 * (0.5 + 0.4) beats a lone 1.0"
    assert _order(fused, sessions, weight=0.0) == [1, 2, 3, 4], "no weight, no change"


def test_much_stronger_evidence_is_not_overturned_by_a_busy_session():
    fused = [_f(1, 1.6), _f(2, 0.9), *(_f(i, 0.5) for i in range(3, 13))]
    sessions = {1: "lone", **{i: "busy" for i in range(2, 13)}}
    ranked = with_session_evidence(fused, sessions, weight=0.2, count=2, reach=20)
    assert ranked[0].id == 1, "a busy stretch gains at most two neighbours' worth"
    assert ranked[1].score == 0.9 + 0.2 * (0.5 + 0.5)


def test_a_record_does_not_support_itself_and_unknown_records_stand_alone():
    fused = [_f(1, 1.0), _f(2, 1.0), _f(3, 0.95)]
    ranked = with_session_evidence(fused, {1: "a", 2: "b"}, weight=0.2, count=2, reach=5)
    assert [f.score for f in ranked] == [1.0, 1.0, 0.95], "alone in its session (or unknown): no bonus"
    pair = with_session_evidence([_f(1, 1.0), _f(2, 1.0)], {1: "a", 2: "a"}, weight=0.2, count=2, reach=5)
    assert [f.score for f in pair] == [1.2, 1.2], "each is supported by the other, not by itself"


def test_only_near_neighbours_support_a_record():
    fused = [_f(1, 1.0), _f(100, 0.95), _f(103, 0.5), _f(160, 0.5)]
    sessions = {1: "lone", 100: "long", 103: "long", 160: "long"}
    ranked = with_session_evidence(fused, sessions, weight=0.2, count=2, reach=5)
    scores = {f.id: f.score for f in ranked}
    assert scores[100] == 0.95 + 0.2 * 0.5, "103 is three records away and counts; 160 is sixty away and does not"
    assert scores[160] == 0.5, "a chance match far along a long session stands alone"
    assert [f.id for f in ranked][:2] == [100, 1]


def test_the_ranking_constants_are_the_measured_ones():
    assert 0 < RANKING.session_weight < 0.5 and RANKING.session_records >= 1 and RANKING.session_reach >= 1


def test_hybrid_search_lifts_the_answer_its_session_supports(session_builder, backscroll_index, backscroll_search):
    # The answer holds fewer of the query's words than a record that matches by chance, alone in a
    # session about something else; the answer's session also holds the question and the follow-up.
    talk = session_builder.claude(project="shop")
    talk.user("How should the refund ledger store currency amounts? Floats lose cents.")
    talk.assistant("Ledger rows store amounts as integer minor units, never floats.")
    talk.user("Good: the refund ledger migration converts the currency columns to integers then.")
    other = session_builder.claude(project="ops")
    other.user("The grafana refund ledger currency dashboard panel amounts are blank this morning.")
    for i in range(6):
        session_builder.claude(project=f"noise{i}").assistant(f"Unrelated note {i} about deploy windows and lunch.")
    backscroll_index()
    query = "refund ledger currency amounts integer"
    lexical = backscroll_search(query, mode="lexical", limit=5, max_chars=0)
    hybrid = backscroll_search(query, mode="hybrid", limit=5, max_chars=0)
    lone = "grafana refund ledger"
    assert lexical.results and lone in lexical.results[0].text, "words alone put the chance match first"
    assert hybrid.mode == "hybrid"
    assert lone not in hybrid.results[0].text, [h.text[:60] for h in hybrid.results]


def test_echoes_are_weighed_against_a_results_own_evidence_not_its_support():
    from backscroll.retrieval.pipeline import interleave

    fused = [_f(1, 0.8), _f(2, 0.7), _f(3, 0.7), _f(4, 0.7)]
    supported = with_session_evidence(fused, dict.fromkeys((1, 2, 3, 4), "s"), weight=0.25, count=2, reach=5)
    assert supported[0].score > 1.0 and supported[0].evidence == 0.8, "the support is kept apart"
    out = interleave(supported, [Fused(9, 1.0, ("lexical",))])
    assert [f.id for f in out][:3] == [1, 9, 2], "an echo at 0.9 of 1.0 beats a result whose own evidence is 0.7"
    assert [f.id for f in interleave(supported, [Fused(9, 0.5, ("lexical",))])][-1] == 9
