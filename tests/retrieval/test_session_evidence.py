"""Session evidence: a record gains part of what its neighbours in the session found (hybrid search only)."""

from backscroll.retrieval.fusion import Fused
from backscroll.retrieval.session_evidence import with_session_evidence


def _f(i, score):
    return Fused(i, score, ("lexical",))


def _near(*groups):
    """Neighbours: every id of a group is near every other one of it."""
    out: dict[int, set[int]] = {}
    for g in groups:
        for i in g:
            out.setdefault(i, set()).update(j for j in g if j != i)
    return out


def _order(fused, near, weight=0.2, count=2):
    return [f.id for f in with_session_evidence(fused, near, weight=weight, count=count)]


def test_a_record_whose_neighbours_also_match_outranks_a_slightly_stronger_lone_one():
    fused = [_f(1, 1.0), _f(2, 0.9), _f(3, 0.5), _f(4, 0.4)]
    near = _near((2, 3, 4))
    assert _order(fused, near) == [2, 1, 3, 4], "0.9 + 0.2 * (0.5 + 0.4) beats a lone 1.0"
    assert _order(fused, near, weight=0.0) == [1, 2, 3, 4], "no weight, no change"


def test_much_stronger_evidence_is_not_overturned_by_a_busy_stretch():
    fused = [_f(1, 1.6), _f(2, 0.9), *(_f(i, 0.5) for i in range(3, 13))]
    ranked = with_session_evidence(fused, _near(tuple(range(2, 13))), weight=0.2, count=2)
    assert ranked[0].id == 1, "a busy stretch gains at most two neighbours' worth"
    assert ranked[1].score == 0.9 + 0.2 * (0.5 + 0.5)


def test_a_record_does_not_support_itself_and_only_candidates_count():
    ranked = with_session_evidence([_f(1, 1.0), _f(2, 1.0), _f(3, 0.95)], {1: {1, 7}, 3: {8}}, weight=0.2, count=2)
    assert [f.score for f in ranked] == [1.0, 1.0, 0.95], "itself, and records not among the candidates, lend nothing"
    pair = with_session_evidence([_f(1, 1.0), _f(2, 1.0)], _near((1, 2)), weight=0.2, count=2)
    assert [f.score for f in pair] == [1.2, 1.2], "each is supported by the other"
    assert [f.evidence for f in pair] == [1.0, 1.0], "and keeps its own evidence apart"


def test_echoes_are_weighed_against_a_results_own_evidence_not_its_support():
    from backscroll.retrieval.echo_order import interleave

    fused = [_f(1, 0.8), _f(2, 0.7), _f(3, 0.7), _f(4, 0.7)]
    supported = with_session_evidence(fused, _near((1, 2, 3, 4)), weight=0.25, count=2)
    assert supported[0].score > 1.0 and supported[0].evidence == 0.8
    out = interleave(supported, [Fused(9, 1.0, ("lexical",))])
    assert [f.id for f in out][:3] == [9, 1, 2], "an echo at 0.9 of 1.0 beats the best result's own evidence, 0.8"
    assert [f.id for f in interleave(supported, [Fused(9, 0.5, ("lexical",))])][-1] == 9


def _story(session_builder, backscroll_index, *, sync_between: bool, follow_up: bool = True):
    """The answer holds fewer of the query's words than a record that matches by chance, alone in a
    session about something else; the question and the follow-up sit right beside the answer."""
    talk = session_builder.claude(project="shop")
    talk.user("How should the refund ledger store currency amounts? Floats lose cents.")
    if sync_between:  # a live session: other sessions' records are indexed before its answer
        backscroll_index()
    other = session_builder.claude(project="ops")
    other.user("The grafana refund ledger currency dashboard panel amounts are blank this morning.")
    for i in range(8):
        session_builder.claude(project=f"noise{i}").assistant(f"Unrelated note {i} about deploy windows and lunch.")
    if sync_between:
        backscroll_index()
    talk.assistant("Ledger rows store amounts as integer minor units, never floats.")
    if follow_up:
        talk.user("Good: the refund ledger migration converts the currency columns to integers then.")
    backscroll_index()


QUERY = "refund ledger currency amounts integer"
LONE = "grafana refund ledger"


def test_hybrid_search_lifts_the_answer_its_neighbours_support(session_builder, backscroll_index, backscroll_search):
    _story(session_builder, backscroll_index, sync_between=False)
    lexical = backscroll_search(QUERY, mode="lexical", limit=5, max_chars=0)
    hybrid = backscroll_search(QUERY, mode="hybrid", limit=5, max_chars=0)
    assert lexical.results and LONE in lexical.results[0].text, "words alone put the chance match first"
    assert hybrid.mode == "hybrid"
    assert LONE not in hybrid.results[0].text, [h.text[:60] for h in hybrid.results]
    semantic = backscroll_search(QUERY, mode="semantic", limit=5, max_chars=0)
    scores = [h.score for h in semantic.results]
    assert scores == sorted(scores, reverse=True) and all(s <= 1.0 for s in scores), "meaning alone: no support"


def test_neighbours_are_near_in_the_session_not_in_record_ids(session_builder, backscroll_index, backscroll_search,
                                                             backscroll_home):
    # A live session synced between other sessions' records: its question and its answer are far apart
    # in record ids, and still neighbours.
    from helpers import rows

    _story(session_builder, backscroll_index, sync_between=True, follow_up=False)  # only the question supports
    ids = {r["text"][:12]: r["id"] for r in rows(backscroll_home)}
    assert ids["Ledger rows "] - ids["How should t"] > 5, "the premise: ids alone would part them"
    hybrid = backscroll_search(QUERY, mode="hybrid", limit=5, max_chars=0)
    assert LONE not in hybrid.results[0].text, [h.text[:60] for h in hybrid.results]
