"""The pytest fixtures' own promises: a failure that says why, whole texts, local time pinned, a home that is its
own."""

import time

import pytest

import backscroll
from backscroll.testing import BackscrollHome, SessionFactory


def test_a_failure_shows_the_weak_and_hinted_hits_the_notes_and_the_embedder(session_builder, backscroll_index,
                                                                              assert_recalled):
    s = session_builder.claude(project="shop")
    s.user("why is the cart page slow?")
    s.assistant("The N+1 query is in CartSerializer.get_items: prefetch the items.")
    backscroll_index()
    with pytest.raises(AssertionError) as err:
        assert_recalled("CartSerializer prefetch", "no such marker", role="tool")
    said = str(err.value)
    assert "also matching (a hinted filter left them out: role)" in said and "CartSerializer" in said, said
    assert "embedder" in said and "filters" in said
    with pytest.raises(AssertionError) as err:
        assert_recalled("zeppelin airship mooring", "airship")
    assert "results:\n  (none)" in str(err.value) and "note:" in str(err.value), str(err.value)


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
