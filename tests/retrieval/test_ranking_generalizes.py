"""Ranking that generalizes (issue #16): dates in queries, phrases as hints, filler turns, rare words."""

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sources import constructed

import backscroll
from backscroll import access
from backscroll.indexes.lexical import analyze
from backscroll.retrieval import order, pipeline, priors, ranking
from backscroll.retrieval.query import plan
from backscroll.retrieval.searching import make_filters, now_of
from backscroll.retrieval.temporal import find
from backscroll.retrieval.time_window import closeness, describe, within
from backscroll.types import Filters

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)  # a Friday


def information(text):
    return priors.information(text, ranking.RANKING.filler_words)


def window(text):
    w, rest = find(text, NOW)
    return (w.start.date().isoformat(), w.end.date().isoformat(), rest) if w else (None, None, rest)


@pytest.mark.parametrize("text, start, end, rest", [
    ("What did Maria do on 9 April, 2023?", "2023-04-09", "2023-04-10", "What did Maria do?"),
    ("April 9, 2026 deploy", "2026-04-09", "2026-04-10", "deploy"),
    ("what broke on the 2nd of October", "2026-10-02", "2026-10-03", "what broke"),
    ("notes from 2026-04-09", "2026-04-09", "2026-04-10", "notes"),
    ("what did we ship in July 2023", "2023-07-01", "2023-08-01", "what did we ship"),
    ("before the migration in March", "2026-03-01", "2026-04-01", "before the migration"),
    ("the outage in December", "2025-12-01", "2026-01-01", "the outage"),  # month-only: the latest one
    ("what did I do yesterday", "2026-11-19", "2026-11-20", "what did I do"),
    ("the bug from 8 days ago", "2026-11-12", "2026-11-13", "the bug"),
    ("what did we decide last week", "2026-11-09", "2026-11-16", "what did we decide"),
    ("the review last month", "2026-10-01", "2026-11-01", "the review"),
    ("the standup on Thursday", "2026-11-19", "2026-11-20", "the standup"),
    ("the standup last Friday", "2026-11-13", "2026-11-14", "the standup"),
    ("what broke this morning", "2026-11-20", "2026-11-20", "what broke"),  # up to now (noon)
    # next to another date, or around it
    ("What did Mira do the week before 14 March 2026?", "2026-03-07", "2026-03-14", "What did Mira do?"),
    ("the weekend before 9 June 2026", "2026-06-06", "2026-06-08", ""),  # a Tuesday: the Saturday and Sunday before
    ("the weekend after 14 March 2026", "2026-03-21", "2026-03-23", ""),  # a Saturday: the next one
    ("the week of 14 August 2026", "2026-08-10", "2026-08-17", ""),  # Monday to Sunday
    ("the month before 9 June 2026", "2026-05-01", "2026-06-01", ""),
    ("the launch the month before 9 June", "2026-05-01", "2026-06-01", "the launch"),
    ("the bird I saw the day before yesterday", "2026-11-18", "2026-11-19", "the bird I saw"),
    # weekends, fortnights
    ("what did we do last weekend", "2026-11-14", "2026-11-16", "what did we do"),
    ("two weekends ago", "2026-11-07", "2026-11-09", ""),
    ("a fortnight ago", "2026-10-30", "2026-11-14", ""),
    # seasons, parts of a year, quarters, ranges of months
    ("in the summer of 2026", "2026-06-01", "2026-09-01", ""),
    ("Where did Joaquin go snowshoeing last winter?", "2025-12-01", "2026-03-01", "Where did Joaquin go snowshoeing?"),
    ("winter 2026", "2025-12-01", "2026-03-01", ""),  # the one its January falls in
    ("in spring", "2026-03-01", "2026-06-01", ""),  # the latest one begun
    ("a film in late 2025", "2025-09-01", "2026-01-01", "a film"),
    ("mid-2025", "2025-05-01", "2025-09-01", ""),
    ("what did we decide in Q3 2026", "2026-07-01", "2026-10-01", "what did we decide"),
    ("between January and March 2026", "2026-01-01", "2026-04-01", ""),
    ("from November to February 2026", "2025-11-01", "2026-03-01", ""),
    ("from May to July", "2026-05-01", "2026-08-01", ""),  # without a year: the latest one begun
    ("from December to February", "2025-12-01", "2026-03-01", ""),
    # numeric dates that read one way only
    ("on 19/09/2026", "2026-09-19", "2026-09-20", ""),
    ("on 7/14/2026", "2026-07-14", "2026-07-15", ""),
    ("on 14.07.2026", "2026-07-14", "2026-07-15", ""),
    ("what broke in late October", "2026-10-21", "2026-11-01", "what broke"),  # a third of the month
    ("early March 2026 deploy", "2026-03-01", "2026-03-11", "deploy"),
    ("mid-September", "2026-09-11", "2026-09-21", ""),
    ("late November", "2025-11-21", "2025-12-01", ""),  # on the 20th: last year's
    ("over Christmas", None, None, "over Christmas"),  # holidays are not dates (nobody asked for them)
    ("the actuator in Spring Boot since 31 April, in July 2026", "2026-07-01", "2026-08-01",
     "the actuator in Spring Boot since 31 April,"),  # the first expression that names a window
])
def test_dates_in_the_query_name_a_window(text, start, end, rest):
    assert window(text) == (start, end, rest)


@pytest.mark.parametrize("text", [
    "fiscal weeks after the March clock change", "may I ask about the queue", "timeout 30 seconds",
    "retry at 3 am", "march of the penguins", "the servers fall over", "spring cleaning of the queue",
    "bump to version 1.2.2026", "on 3/4/2026", "summer intern onboarding", "bean injection in Spring Boot",
    "what we configured in Spring",
])
def test_words_that_only_look_like_dates_are_not_dates(text):
    assert find(text, NOW) == (None, text)


def test_the_date_words_leave_the_lexical_terms_and_the_embedded_text():
    p = plan("What did Tomas do on 14 March 2026?", analyze, now=NOW)
    assert p.when is not None and p.when.start.date().isoformat() == "2026-03-14"
    assert p.lexical_terms == ("tomas",) and p.meaning == "What did Tomas do?"
    alone = plan("yesterday", analyze, now=NOW)
    assert alone.when is not None and alone.date_only, "a date alone asks what went on then"
    assert plan("What did Tomas do on 14 March 2026?", analyze).when is None, "no clock, no dates"


def test_an_iso_date_stays_a_search_term_as_records_write_it():
    p = plan("orders_parquet export row count for 2026-09-14", analyze, now=NOW)
    assert p.when is not None and p.when.start.date().isoformat() == "2026-09-14"
    assert {"2026", "09", "14"} <= set(p.lexical_terms), "logs and partitions hold the date as written"
    assert "2026" not in plan("what broke on 14 September 2026", analyze, now=NOW).lexical_terms


def test_closeness_is_one_inside_and_halves_per_day_outside():
    w, _ = find("on 9 April 2026", NOW)
    assert w is not None
    assert closeness(datetime(2026, 4, 9, 18, tzinfo=UTC), w) == 1.0
    assert closeness(datetime(2026, 4, 11, 0, tzinfo=UTC), w) == pytest.approx(0.5)


def _chat(session_builder, turns_by_date):
    for start, turns in turns_by_date:
        s = session_builder.claude("letters", start=start)
        for i, text in enumerate(turns):
            s.user(text) if i % 2 == 0 else s.assistant(text)


def test_a_date_in_the_question_prefers_that_day(session_builder, backscroll_home):
    _chat(session_builder, [
        ("2026-03-14T18:00:00.000Z", ["Priya: How was your weekend?", "Tomas: I hiked the ridge trail to the tower."]),
        ("2026-07-03T18:00:00.000Z", ["Priya: Any news?", "Tomas: I hiked around the lake to clear my head."]),
    ])
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    for when, marker, days in (("on 14 March 2026", "ridge trail", "2026-03-14"),
                               ("in July", "around the lake", "2026-07-01 to 2026-07-31")):
        r = backscroll.search(f"Where did Tomas hike {when}?", config=cfg, mode="lexical",
                              now="2026-11-20T12:00:00Z", sync=True)
        assert marker in r.results[0].text, [h.text for h in r.results]
        assert any(n.startswith(f'read "{when.removeprefix("on ")}" as {days}:') for n in r.notes), r.notes
    undated = backscroll.search("Where did Tomas hike?", config=cfg, mode="lexical", now="2026-11-20T12:00:00Z",
                                sync=True)
    assert not any(n.startswith("read ") for n in undated.notes), "no date, no note about one"


def test_within_narrows_the_filters_to_the_window_and_keeps_the_rest():
    w, _ = find("on 9 April 2026", NOW)
    assert w is not None
    narrowed = within(Filters(project="letters"), w)
    assert narrowed == Filters(project="letters", since="2026-04-09T00:00:00.000Z", until="2026-04-10T00:00:00.000Z")
    later = within(Filters(since="2026-04-09T12:00:00.000Z"), w)
    assert later is not None and later.since == "2026-04-09T12:00:00.000Z", "the later start holds"
    earlier = within(Filters(until="2026-04-09T06:00:00.000Z"), w)
    assert earlier is not None and earlier.until == "2026-04-09T06:00:00.000Z", "the earlier end holds"
    assert within(Filters(since="2026-05-01T00:00:00.000Z"), w) is None, "an explicit --since after it: nothing"
    inside = Filters(since="2026-04-09T08:00:00.000Z", until="2026-04-09T09:00:00.000Z")
    assert within(inside, w) is None, "filters already inside the window: the lists already are the window's"
    year, _ = find("what did we ship in 2026", NOW)
    assert year is not None and within(Filters(), year) is None, "a year is most of a history: no list of its own"


def test_describe_says_which_days_and_when_the_filters_leave_them_out():
    w, _ = find("on 9 April 2026", NOW)
    assert w is not None
    assert describe(w, Filters()).startswith('read "9 April 2026" as 2026-04-09: records from then rank higher')
    outside = describe(w, Filters(since="2026-05-01T00:00:00.000Z"))
    assert "which --since/--until leave out" in outside and "records from then" not in outside
    month, _ = find("in July", NOW)
    assert month is not None and 'as 2026-07-01 to 2026-07-31:' in describe(month, Filters())


def test_a_date_in_the_query_is_a_day_of_the_local_calendar_like_since(monkeypatch):
    """``--since 2026-01-03`` is local midnight; "on 3 January 2026" must name the same day, not the UTC one."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        now = now_of(None)
        assert now.utcoffset() == timedelta(hours=9), "the current time is read in the local zone"
        w, _ = find("on 3 January 2026", now)
        assert w is not None
        day = make_filters(since="2026-01-03", until="2026-01-03")
        assert (day.since, day.until) == ("2026-01-02T15:00:00.000Z", "2026-01-03T15:00:00.000Z")
        assert within(Filters(), w) == Filters(since=day.since, until=day.until), "the same local day"
        assert within(day, w) is None, "--since/--until of that day already are the window"
    finally:
        monkeypatch.undo()
        time.tzset()


def _busy_chat(session_builder, answer, date, busy="cooking again"):
    """Sixty short turns holding the question's words, on other days, then ``answer`` on ``date``."""
    _chat(session_builder, [(f"2026-0{1 + n % 3}-{1 + n // 3:02d}T18:00:00.000Z",
                             ["Priya: Any news?", f"Tomas: {busy}, round {n}."]) for n in range(60)]
          + [(date, ["Priya: How was your Saturday?", answer])])


def test_a_date_in_the_question_proposes_that_days_records(session_builder, backscroll_home):
    """A record of the named day is proposed even when sixty closer word matches on other days fill the
    ranked list's depth; the time preference then puts it first (before, it was never a candidate)."""
    answer = ("Tomas: Long day in the kitchen. I spent the whole afternoon cooking a big pot of napa cabbage kimchi "
              "from the Salt and Saffron book, then the jars had to be burped, which nobody had warned me about.")
    _busy_chat(session_builder, answer, "2026-04-18T18:00:00.000Z")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    r = backscroll.search("What was Tomas cooking on 18 April 2026?", config=cfg, mode="lexical", limit=5,
                   now="2026-11-20T12:00:00Z", sync=True)
    assert r.results[0].text == answer, [h.text for h in r.results]
    undated = backscroll.search("What was Tomas cooking?", config=cfg, mode="lexical", limit=5,
                                now="2026-11-20T12:00:00Z", sync=True)
    assert answer not in [h.text for h in undated.results], "without the date its words alone do not reach it"


def test_a_date_in_the_question_proposes_that_days_records_by_meaning(session_builder, backscroll_home):
    answer = "Tomas: Kimchi day: napa cabbage, gochugaru and far too much garlic, the jars need burping."
    _busy_chat(session_builder, answer, "2026-04-18T18:00:00.000Z", busy="kimchi jars")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=True)
    r = backscroll.search("Tomas kimchi jars on 18 April 2026", config=cfg, mode="semantic", limit=5,
                   now="2026-11-20T12:00:00Z", sync=True)
    assert r.results and r.results[0].text == answer, [h.text for h in r.results]


def test_a_phrase_that_matches_nothing_falls_back_with_a_note(session_builder, backscroll_home):
    _chat(session_builder, [("2026-05-22T20:00:00.000Z", [
        "Priya: I'm halfway through The Quiet Orchard, the novel about a beekeeper.", "Tomas: Sounds lovely."])])
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    r = backscroll.search('Did Priya like "The Quite Orchard"?', config=cfg, mode="lexical", weak=True,
                          sync=True)  # a weak match
    assert r.results and "Quiet Orchard" in r.results[0].text
    assert r.dropped_filters == ("phrase",)
    assert any("quoted phrase" in n for n in r.notes)
    exact = backscroll.search('"the quiet orchard" beekeeper', config=cfg, mode="lexical", sync=True)
    assert exact.dropped_filters == () and "Quiet Orchard" in exact.results[0].text


def test_a_filler_turn_does_not_outrank_a_substantive_one(session_builder, backscroll_home):
    _chat(session_builder, [("2026-03-14T18:00:00.000Z", [
        "Deborah: The recital went well, my daughter played the Chopin nocturne without a single slip "
        "and the whole row of grandparents stood up.",
        "Sam: Wonderful.",
        "Deborah: Let's go into more detail.",
        "Sam: Bye, Deborah!",
    ])])
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    r = backscroll.search("What did Deborah say in more detail about the recital?", config=cfg, mode="lexical",
                          weak=True, sync=True)
    assert "Chopin nocturne" in r.results[0].text, [h.text for h in r.results]


def test_information_prior_counts_content_words():
    assert information("Bye, Deb!") < 0.6
    assert information("Deborah: Let's go into more detail.") < 0.7
    assert information("I had a stall at the county fair and handed out 300 samples of plum jam; "
                                "three shops asked to stock it.") == 1.0


def test_hybrid_keeps_a_rare_word_exact_hit_against_paraphrases(session_builder, backscroll_home):
    """The record with the one rare, telling word ("fair") beats close paraphrases of the common ones.

    As in the issue's report: "exposure" and "dance" are everyday words of this history (a dance class
    and a photography hobby fill it), "fair" is said once, and the paraphrases are much closer in
    meaning than the answer (constructed cosines .62-.50 against .35). Under rank fusion and squared
    coverage the answer fell out of the top results.
    """
    rows = [
        "Priya: I had a stall at the county fair and sold out of plum jam by noon.",  # the answer
        "Tomas: Salsa is going better, I can finally dance without counting the steps.",
        "Priya: I've been posting my jars online to get some exposure, only my aunt likes them.",
        "Tomas: I took long exposure photos of the bridge at night.",
        "Tomas: My cousin is learning to dance the tango for her wedding.",
    ] + [f"Priya: dance class {i} went fine, and I tried a longer exposure on the way home." for i in range(30)]
    _chat(session_builder, [("2026-04-09T19:00:00.000Z", rows)])
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        ids = {text: rid for rid, text in store.conn.execute("SELECT id, text FROM records")}
        q = plan("How did Priya get exposure for her dance at the fair?", analyze)
        # constructed semantic scores: the paraphrases are closer in meaning than the answer
        semantic = [(ids[rows[2]], 0.62), (ids[rows[1]], 0.58), (ids[rows[4]], 0.55), (ids[rows[3]], 0.5),
                    (ids[rows[0]], 0.35)]
        result = pipeline.run(constructed(store, lex, q, semantic), q, make_filters(), pipeline.SearchOptions(limit=5),
                              "hybrid")
    finally:
        store.close()
    assert result.results[0].text == rows[0], [h.text for h in result.results]


# A question none of whose words the answer holds; records holding only its everyday words ("how long",
# "keep"), a little less close in meaning (constructed cosines); records holding one rare word each.
PARAPHRASED = "how long do we keep the charge row blocked?"
ANSWER = "The concurrency test passes: the second refund now waits for the first one to commit."
EVERYDAY = [f"We keep the nightly report for a long time, version {i}." for i in range(3)]
RARE = ["The charge went through on the second try.", "Each row of the ledger is immutable.",
        "The deploy was blocked by a failing check."]


def _paraphrase_store(session_builder, backscroll_home, monkeypatch, echoed: str | None = None):
    """The records above, one session each (no neighbours), and two echoes quoting ``echoed``; indexed.
    Returns the opened store (the caller closes it) and a hybrid ``run(limit, include_echoes)``. Meaning
    counts by the cosine alone here (no credit for the place: ``semantic_top`` 1), as for matches past
    a query's closest ten, so that the words evidence is what these tests weigh."""
    for module in (ranking, pipeline, order):
        monkeypatch.setattr(module, "RANKING", replace(module.RANKING, semantic_top=1))
    for n, text in enumerate([ANSWER, *EVERYDAY, *RARE]):
        session_builder.claude("payments", start=f"2026-03-{10 + n}T18:00:00.000Z").assistant(text)
    if echoed:
        recall = session_builder.claude("payments", start="2026-03-20T18:00:00.000Z")
        for n in range(2):
            recall.search_echo(f"ledger {n}", f"1. {echoed} {n}")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    ids = {text: rid for rid, text in store.conn.execute("SELECT id, text FROM records")}
    semantic = [(ids[ANSWER], 0.40), *((ids[t], 0.33) for t in EVERYDAY)]

    def run(limit: int, include_echoes: bool = False):
        opts = pipeline.SearchOptions(limit=limit, include_echoes=include_echoes, weak=True)  # (the order, unjudged)
        q = plan(PARAPHRASED, analyze)
        return pipeline.run(constructed(store, lex, q, semantic), q, make_filters(), opts, "hybrid")

    return store, run


def test_hybrid_lets_meaning_decide_when_no_record_holds_half_the_question(session_builder, backscroll_home,
                                                                           monkeypatch):
    """A paraphrase's answer holds none of the question's words; records holding only its everyday
    ones and a little less close in meaning no longer outrank it (word confidence)."""
    store, run = _paraphrase_store(session_builder, backscroll_home, monkeypatch)
    try:
        assert run(5).results[0].text == ANSWER
        monkeypatch.setattr(order, "RANKING", replace(order.RANKING, words_full=0.0))
        assert run(5).results[0].text in EVERYDAY, "without the confidence the everyday words win"
    finally:
        store.close()


@pytest.mark.parametrize("echoed", ["charge row", "keep the charge blocked"])
def test_the_hidden_echo_count_is_what_include_echoes_would_show(session_builder, backscroll_home, monkeypatch,
                                                                  echoed):
    """The count and the ranking weigh echoes alike, also when the word confidence scales the words
    (no record holds half of the question here): "charge row" echoes fall out of the top 4 once the
    words count less, and counting them with unscaled words said 2 were hidden; the others are shown."""
    store, run = _paraphrase_store(session_builder, backscroll_home, monkeypatch, echoed)
    try:
        shown = sum(1 for h in run(4, include_echoes=True).results if h.is_echo)
        assert run(4).echoes_hidden == shown
        if "blocked" in echoed:
            assert shown == 2, "echoes holding most of the question join the results (the count is not vacuous)"
    finally:
        store.close()


def test_a_speaker_label_is_not_content():
    assert information("Deborah: Bye!") == information("Bye!")
    assert information("Deborah: Bye!") < information("Deborah Bye now")
    assert information("TypeError: cannot read property length of undefined") > 0.7


def test_contractions_and_light_verbs_are_not_search_terms():
    assert plan("What happened to Tomas's job?", analyze).lexical_terms == ("happened", "tomas", "job")
    assert plan("How did Priya get exposure at the fair?", analyze).lexical_terms == ("priya", "exposure", "fair")
    assert plan("tomas s job", analyze).lexical_terms == ("tomas", "s", "job"), "keywords keep every word"


def test_meaning_counts_by_cosine_and_by_its_place_among_the_closest():
    floor, full, top = ranking.SEMANTIC_FLOOR, ranking.RANKING.semantic_full, ranking.RANKING.semantic_top
    assert ranking.semantic_quality(floor) == 0.0 and ranking.semantic_quality(full) == 1.0
    modest = 0.3  # a paraphrase of a long question: a modest cosine ...
    assert ranking.semantic_quality(modest) < 0.2
    # ... but the closest record of all for this query: a strong match
    assert ranking.semantic_quality(modest, rank=1) == 1.0
    assert 0.5 < ranking.semantic_quality(modest, rank=2) < 1.0, "the next ones count less, by their place"
    assert ranking.semantic_quality(modest, rank=top) == ranking.semantic_quality(modest), "past the top: the cosine"
    assert ranking.semantic_quality(0.2, rank=1) == 0.0, "below the floor even the closest record is no evidence"
    places = [ranking.semantic_quality(modest, rank=r) for r in range(1, top + 1)]
    assert places == sorted(places, reverse=True)


def test_records_unrelated_to_the_query_do_not_change_how_its_matches_count(session_builder, backscroll_home):
    """The calibration reads the candidates' places, not the whole store: a history that grows by
    thousands of records about something else leaves the strength of the query's matches alone (a
    mean and spread of every similarity fell with them, and most of the top ten reached full meaning)."""
    from backscroll.retrieval.candidates import candidates, fetch_facts

    close = {"the fair stall sold plum jam": 0.33, "the fair was rained off": 0.31, "lunch at the station": 0.05}
    s = session_builder.claude()
    for text in close:
        s.user(text)
    for i in range(300):  # a history grown by records about something else
        s.assistant(f"the build {i} finished on the runner")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        ids = {text: rid for rid, text in store.conn.execute("SELECT id, text FROM records") if text in close}
        others = [rid for (rid,) in store.conn.execute("SELECT id FROM records") if rid not in ids.values()]
        facts = fetch_facts(store, sorted(ids.values()))
        q = plan("plum jam at the fair", analyze)

        def meanings(unrelated: int) -> dict[str, float]:
            lookup = {**{ids[t]: c for t, c in close.items()}, **dict.fromkeys(others[:unrelated], 0.1)}
            got = candidates(constructed(store, lex, q, lookup=lookup), q, {"prose": sorted(ids.values())}, facts,
                             [], "hybrid")["main"]
            return {t: next(c.meaning or 0.0 for c in got if c.id == rid) for t, rid in ids.items()}

        alone, grown = meanings(0), meanings(300)
    finally:
        store.close()
    assert alone["the fair stall sold plum jam"] == 1.0, "the closest record counts fully"
    assert alone["the fair stall sold plum jam"] > alone["the fair was rained off"] > alone["lunch at the station"]
    assert alone["lunch at the station"] == 0.0
    assert grown == pytest.approx(alone)


def test_a_word_no_record_holds_does_not_weaken_the_words_evidence(session_builder, backscroll_home):
    _chat(session_builder, [("2026-04-09T19:00:00.000Z", ["Priya: the county fair was a success",
                                                          "Tomas: the weather was grey"])])
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        ids = {text: rid for rid, text in store.conn.execute("SELECT id, text FROM records")}
        fair = ids["Priya: the county fair was a success"]
        from backscroll.indexes.lexical import LexicalQuery

        cov = lex.coverage(LexicalQuery(("county", "fair", "zyzzogeton")), [fair])
    finally:
        store.close()
    assert cov[fair] == 1.0


def test_records_only_the_lexical_list_found_still_count_their_meaning(session_builder, backscroll_home):
    """Two records hold the query's words alike; the one the model finds close in meaning comes first,
    though neither is in the semantic list (the similarity of every candidate is looked up)."""
    _chat(session_builder, [("2026-04-09T19:00:00.000Z", [
        "Priya: the plum jam stall at the fair sold out by noon",
        "Tomas: the plum jam stall at the fair was closed for rain",
    ])])
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        ids = {text.split(":")[0]: rid for rid, text in store.conn.execute("SELECT id, text FROM records")}
        q = plan("how did the plum jam stall at the fair do", analyze)

        def run(cosines):
            result = pipeline.run(constructed(store, lex, q, [], cosines), q, make_filters(),
                                  pipeline.SearchOptions(limit=2), "hybrid")
            return [h.text.split(":")[0] for h in result.results]

        assert run({ids["Priya"]: 0.1, ids["Tomas"]: 0.7}) == ["Tomas", "Priya"]
        assert run({ids["Priya"]: 0.7, ids["Tomas"]: 0.1}) == ["Priya", "Tomas"]
    finally:
        store.close()


def test_a_word_held_only_as_an_identifier_part_counts(session_builder, backscroll_home):
    s = session_builder.claude()
    s.assistant("The N+1 is in CheckoutLineSerializer.get_variant_image")
    s.user("unrelated words about lunch")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg, embed=False)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        ids = {text: rid for rid, text in store.conn.execute("SELECT id, text FROM records")}
        from backscroll.indexes.lexical import LexicalQuery

        cov = lex.coverage(LexicalQuery(("serializer", "lunch")), sorted(ids.values()))
    finally:
        store.close()
    assert cov[ids["The N+1 is in CheckoutLineSerializer.get_variant_image"]] > 0.3
    assert cov[ids["unrelated words about lunch"]] < 0.7


def test_a_searchs_cosines_are_the_stored_vectors_exact_ones(session_builder, backscroll_home):
    from backscroll.indexes.packing import unpack

    """The matrix's int8 rows only choose the closest records; every cosine a search weighs is the exact one of the
    stored float vectors (as the team archive's), and there is none before the query has a vector."""

    from backscroll.indexes.embed import load, model_id
    from backscroll.retrieval import meaning
    from backscroll.retrieval.local import LocalSource

    s = session_builder.claude()
    s.user("the plum jam stall at the fair sold out by noon").assistant("we will bring twice the jars next year")
    cfg = backscroll_home.config()
    backscroll.index(config=cfg)
    store, lex, _fresh = access.prepare(cfg, False, [])
    try:
        q = plan("plum jam at the fair", analyze)
        source = LocalSource(store, lex, cfg, q, "hybrid")
        assert source.cosines([1, 2]) == {}, "no meaning ranking yet: nothing to look up (numpy never loaded for it)"
        nearest = source.by_meaning(make_filters(), 10)
        assert nearest is not None and len(nearest) == 2
        query = load(bulk=False).embed([q.meaning or q.text])[0]
        stored = store.vectors_of([i for i, _c in nearest], model_id())
        for i, c in nearest:
            assert c == pytest.approx(float(unpack(stored[i], len(query)) @ query), abs=1e-6)
        assert source.cosines([i for i, _c in nearest]) == pytest.approx(dict(nearest))
        assert meaning.cosines(store, {}, [1]) == {}
    finally:
        store.close()




def test_ranking_counts_words_as_the_index_reads_them():
    """One notion of a word (``analyze``): "didn't" and "I'm" are stopwords' pieces to the prior as to a query, and a
    highlight stops where the index splits a word (``retry_backoff`` is two words)."""
    from backscroll.retrieval.snippet import make_snippet

    assert information("Didn't I'm We'll") == information("Bye!")
    assert information("café naïve résumé") == information("cafe naive resume")
    _, spans = make_snippet("use retry_backoff here", ("retry",))
    assert spans == ((4, 9),)
