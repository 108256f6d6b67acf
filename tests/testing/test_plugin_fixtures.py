"""The pytest fixtures' own promises: a failure that says why, whole texts, local time pinned, a home that is its
own."""

import time

import pytest

import backscroll
from backscroll.testing import BackscrollHome, IndexRun, SearchRun, SessionFactory


def test_a_failure_shows_the_weak_and_hinted_hits_the_notes_and_the_embedder(session_builder, backscroll_index,
                                                                              assert_recalled):
    s = session_builder.claude(project="shop")
    s.user("why is the cart page slow?")
    s.assistant("The N+1 query is in CartSerializer.get_items: prefetch the items.")
    backscroll_index()
    with pytest.raises(AssertionError) as err:
        assert_recalled("CartSerializer prefetch", "no such marker", role="tool")
    said = str(err.value)
    assert "also matching (outside role; strict=True leaves them out)" in said and "CartSerializer" in said, said
    assert "embedder" in said and "filters" in said
    assert "(nor anywhere in the top 50: is it indexed, and written so?)" in said


def test_a_failure_says_how_near_the_marker_came(session_builder, backscroll_index, assert_recalled):
    """A marker just past k reads apart from one never indexed: the message gives its rank in a deeper search."""
    s = session_builder.claude(project="shop")
    for n in range(6):
        s.user(f"the checkout queue note number {n}: QUEUE-{n}")
    backscroll_index(embed=False)
    first = assert_recalled("checkout queue note", "QUEUE-", k=1, mode="lexical")
    other = next(f"QUEUE-{n}" for n in range(6) if f"QUEUE-{n}" not in first.text)
    with pytest.raises(AssertionError) as err:
        assert_recalled("checkout queue note", other, k=1, mode="lexical")
    said = str(err.value)
    assert "(it is results rank " in said and "of the top 50)" in said, said
    with pytest.raises(AssertionError) as err:
        assert_recalled("zeppelin airship mooring", "airship")
    assert "results:\n  (none)" in str(err.value) and "note:" in str(err.value), str(err.value)


def test_a_failure_tells_a_marker_kept_out_or_written_otherwise_from_one_never_stored(session_builder,
                                                                                      backscroll_index,
                                                                                      assert_recalled):
    s = session_builder.claude(project="shop")
    s.user("which queue for background jobs?").assistant("Postgres, with skip locked: we already run it.")
    s.search_echo("queue decision", "1. [assistant] QUEUE-ECHO-ONLY Postgres with SKIP LOCKED")
    s.tool("cat jobs.log", "\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b[31mqueue worker started\x1b[0m")
    session_builder.claude(project="billing").user("the invoice queue uses Redis streams (REDIS-QUEUE)")
    s.assistant("A long queue log follows. " + "queue line. " * 30_000 + "CUT-MARKER")
    backscroll_index(embed=False)

    def failure(*args, **kw) -> str:
        with pytest.raises(AssertionError) as err:
            assert_recalled(*args, mode="lexical", **kw)
        return str(err.value)

    said = failure("queue decision", "QUEUE-ECHO-ONLY")
    assert "with no filters and echoes let in it is rank " in said and "include_echoes=True lets echoes in" in said
    said = failure("invoice queue redis", "REDIS-QUEUE", project="shop", strict=True)
    assert "not within what was asked; with no filters and echoes let in it is rank " in said, said
    assert "lets echoes in" not in said and "written otherwise" not in said, said
    said = failure("queue skip locked", "SKIP LOCKED")
    assert "results rank 1 holds it written otherwise ('skip locked'): the marker is matched case for" in said, said
    said = failure("long queue log", "CUT-MARKER", k=1)
    assert "was cut when it was stored, and a marker past the cut is not kept" in said, said
    said = failure("queue worker started", "no such marker")
    assert "\x1b" not in said and "\x07" not in said and "queue worker started" in said, said
    assert "(nor anywhere in the top 50: is it indexed, and written so?)" in said


def test_a_marker_at_the_end_of_a_long_answer_is_found(session_builder, backscroll_index, assert_recalled):
    s = session_builder.claude(project="shop")
    s.assistant("Checkout outage incident review. " + "Timeline and context. " * 150
                + "Root cause: the connection pool was exhausted (POOLSIZE-MARKER).")
    backscroll_index()
    assert assert_recalled("checkout outage incident review", "POOLSIZE-MARKER").text_truncated is False


def test_limit_is_refused_for_k(backscroll_home, assert_recalled):
    with pytest.raises(TypeError, match="k=N"):
        assert_recalled("anything", "x", limit=3)


def test_local_time_is_utc_in_a_test(session_builder, backscroll_index, backscroll_search):
    assert time.localtime(0).tm_hour == 0 and time.strftime("%Z") in ("UTC", "GMT")
    session_builder.claude().at("2026-10-15T03:00:00Z").assistant("Rotated the API signing key (KEYROT-0315).")
    backscroll_index()
    found = backscroll_search("rotated api signing key", since="2026-10-15", mode="lexical")
    assert any("KEYROT" in h.text for h in found.results)


def test_a_home_made_outside_the_fixture_reads_only_its_own_sessions(tmp_path, monkeypatch):
    elsewhere = tmp_path / "the-users-home"
    SessionFactory(BackscrollHome(tmp_path, elsewhere, tmp_path / "unused")).claude().assistant("CANARY-REAL-HOME")
    monkeypatch.setenv("HOME", str(elsewhere))  # the process's own HOME holds a session
    mine = BackscrollHome(tmp_path / "mine", tmp_path / "mine" / "home", tmp_path / "mine" / "data")
    mine.home.mkdir(parents=True)
    SessionFactory(mine).claude().assistant("Background jobs use Postgres with SKIP LOCKED.")
    backscroll.index(config=mine.config(), embed=False)
    found = backscroll.search("CANARY-REAL-HOME SKIP LOCKED", config=mine.config(), mode="lexical", weak=True)
    texts = [h.text for h in (*found.results, *found.weak_matches)]
    assert texts and not any("CANARY" in t for t in texts), texts


def test_now_pins_the_ages_and_dates_of_since_and_until_too(session_builder, backscroll_index, backscroll_search):
    session_builder.codex(start="2026-10-19T08:00:00Z").user("we chose nats for the notifier")
    backscroll_index(embed=False)
    pinned = backscroll_search("notifier", since="2d", now="2026-10-20T12:00:00Z", mode="lexical")
    assert pinned.filters.since == "2026-10-18T12:00:00.000Z" and pinned.results
    today = backscroll_search("notifier", since="yesterday", until="today", now="2026-10-20T12:00:00Z",
                              mode="lexical")
    assert (today.filters.since, today.filters.until) == ("2026-10-19T00:00:00.000Z", "2026-10-21T00:00:00.000Z")
    assert today.results


def test_since_and_until_take_a_datetime_or_a_date(session_builder, backscroll_index, backscroll_search,
                                                   backscroll_home):
    """The library takes ``since=``/``until=`` as a ``datetime`` (a naive one is local time) or a ``date``, as the
    text it stands for."""
    from datetime import UTC, date, datetime

    session_builder.codex(start="2026-10-19T08:00:00Z").user("we chose nats for the notifier")
    backscroll_index(embed=False)
    as_text = backscroll_search("notifier", since="2026-10-19T07:00:00Z", until="2026-10-20", mode="lexical")
    typed = backscroll_search("notifier", since=datetime(2026, 10, 19, 7, tzinfo=UTC), until=date(2026, 10, 20),
                              mode="lexical")
    assert (typed.filters.since, typed.filters.until) == (as_text.filters.since, as_text.filters.until)
    assert typed.results and [h.record_id for h in typed.results] == [h.record_id for h in as_text.results]
    import backscroll

    session_builder.claude(start="2026-10-19T09:00:00Z").user("and the retry policy?").assistant("three tries")
    backscroll_index(embed=False)
    cfg = backscroll_home.config()
    listed = backscroll.sessions(config=cfg, since=date(2026, 10, 19))
    assert listed and listed == backscroll.sessions(config=cfg, since="2026-10-19")


@pytest.mark.parametrize("now", ["2026-10-20", "2026-10-20T12:00:00", "naive datetime"])
def test_a_clock_without_a_zone_is_local_time(session_builder, backscroll_index, backscroll_search, now):
    from datetime import datetime

    session_builder.claude(start="2026-10-19T08:00:00Z").user("we chose nats for the notifier yesterday")
    backscroll_index(embed=False)
    clock = datetime(2026, 10, 20, 12) if now == "naive datetime" else now
    found = backscroll_search("notifier yesterday", now=clock, mode="lexical")
    assert found.results


def test_a_session_id_the_agents_would_not_name_a_file_by_is_refused(session_builder):
    for start in (session_builder.claude, session_builder.codex):
        with pytest.raises(ValueError, match="not a UUID.*uuid_for"):
            start(session_id="checkout-bug")
    with pytest.raises(ValueError, match="names no folder"):
        session_builder.claude(project="")


def test_a_session_id_asked_for_again_goes_on_with_that_session(session_builder, backscroll_index,
                                                                 backscroll_search):
    sid = "11111111-2222-3333-4444-555555555555"
    first = session_builder.claude(session_id=sid)
    first.user("first visit talks about alpha bravo").assistant("alpha answer one")
    again = session_builder.claude(session_id=sid.upper())
    assert again is first
    again.user("second visit talks about charlie delta").assistant("charlie answer two")
    codex = session_builder.codex(session_id="22222222-2222-3333-4444-555555555555")
    codex.user("echo about zulu")
    session_builder.codex(session_id="22222222-2222-3333-4444-555555555555").user("and then about yankee")
    assert backscroll_index(embed=False).report.records_added == 6
    assert backscroll_search("charlie", mode="lexical").results
    assert backscroll_search("yankee", mode="lexical").results
    with pytest.raises(ValueError, match="was started in /home/dev/shop"):
        session_builder.claude(project="infra", session_id=sid)
    with pytest.raises(ValueError, match=r"has started already: move its clock with \.at"):
        session_builder.claude(session_id=sid, start="2026-11-01T09:00:00Z")


def test_two_factories_on_one_home_never_write_into_each_others_sessions(backscroll_home: BackscrollHome,
                                                                           backscroll_index: IndexRun,
                                                                           backscroll_search: SearchRun) -> None:
    """Each factory counts its own sessions: a second one (a helper per scenario) takes the next id free in the home,
    and one resuming a session another began writes lines of ids of its own (the indexer drops a repeated id)."""
    first, second = SessionFactory(backscroll_home), SessionFactory(backscroll_home)
    early, late = first.claude(), second.claude()  # (both started before either writes a line)
    late.user("late question about zqflate")
    early.user("early question about zqfearly")
    chat = first.cursor()
    again = second.cursor(session_id=chat.session_id)
    chat.user("cursor chat about zqfchat")
    again.user("the same chat again about zqfagain")
    chat.assistant("and on about zqfon")
    for factory, word in ((first, "zqfone"), (second, "zqftwo")):
        factory.claude().user(f"question about {word}").assistant(f"answer: {word}")
        factory.codex().user(f"codex question about {word}")
        factory.cursor().user(f"cursor question about {word}")
        factory.copilot().user(f"copilot question about {word}")
    sid = first.claude().session_id
    first.claude(session_id=sid).user("alpha")
    second.claude(session_id=sid).user("resumed by another about zqfthree")
    assert backscroll_index(embed=False).report.records_added == 2 * 5 + 2 + 5
    for word in ("zqfone", "zqftwo", "zqfthree", "zqflate", "zqfearly", "zqfchat", "zqfagain", "zqfon"):
        assert backscroll_search(word, mode="lexical", include_echoes=True).results, word
    found = {h.text for h in backscroll_search("question", mode="lexical", limit=50).results}
    assert {f"{agent} question about {word}" for agent in ("codex", "cursor", "copilot")
            for word in ("zqfone", "zqftwo")} <= found, found


def test_a_session_id_that_names_a_folder_stays_one_folder(session_builder):
    for start in (session_builder.cursor, session_builder.copilot):
        for bad in ("/tmp/elsewhere", "../../escaped", "weird/nested", "..", ""):
            with pytest.raises(ValueError, match="names the session's folder"):
                start(session_id=bad)
        assert start(session_id="chat-2026.11_a").session_id == "chat-2026.11_a"


def test_assert_recalled_refuses_what_would_check_nothing(session_builder, backscroll_index, assert_recalled):
    session_builder.claude().user("where is the N+1?").assistant("The N+1 query is in CartSerializer; it fixes it")
    backscroll_index(embed=False)
    with pytest.raises(ValueError, match="empty one"):
        assert_recalled("CartSerializer", "")
    with pytest.raises(TypeError, match="no max_chars"):
        assert_recalled("CartSerializer", "fixes it", max_chars=10)
    with pytest.raises(ValueError, match="k must be a whole number from 1"):
        assert_recalled("CartSerializer", "fixes it", k=0)
    assert_recalled("CartSerializer", "fixes it")


def test_backscrolls_variables_are_cleared(monkeypatch, request):
    import os

    monkeypatch.setenv("BACKSCROLL_DEBUG", "1")
    monkeypatch.setenv("BACKSCROLL_ARCHIVE_URL", "postgresql://someone@db/agents")
    request.getfixturevalue("backscroll_home")
    assert "BACKSCROLL_DEBUG" not in os.environ and "BACKSCROLL_ARCHIVE_URL" not in os.environ
    assert os.environ["TZ"] == "UTC"
