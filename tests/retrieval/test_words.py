"""How a search reads a query's words (#48): a "did you mean" only for a near, repeated word; British and
American spellings as one word; a sure correction searched for, and said; a query of question words only; the
parts of a month people name. Real stores, the fake embedder."""

from datetime import UTC, datetime

import pytest

from backscroll.retrieval import temporal
from backscroll.retrieval.spelling import nearest, other_spellings

NOW = datetime(2026, 12, 4, 12, tzinfo=UTC)


@pytest.fixture
def history(session_builder, backscroll_index):
    s = session_builder.claude(project="api")
    s.user("the p99 latency of the checkout endpoint spiked after the deploy")
    s.assistant("The speed regression comes from serializing the cart twice; we optimize it by caching the "
                "serialized payload.")
    s.user("the usage dashboard shows the static assets are slow to serialize")
    s.assistant("TranscriptRenderer serializes the usage payload; speed is fine once static files are cached.")
    backscroll_index(embed=False)
    return s


@pytest.mark.parametrize("word, near, found", [
    ("spiked", {"speed": 5}, None),  # two edits in a six-letter word: not near
    ("outage", {"usage": 9}, None),
    ("slavic", {"static": 9}, None),
    ("pgbounser", {"pgbouncer": 4}, "pgbouncer"),  # one edit
    ("kubrnetis", {"kubernetes": 3}, "kubernetes"),  # two edits in a longer word
    ("lockd", {"locked": 1, "lock": 7}, "lock"),  # the nearer; among as near, the more said
    ("café", {"cafd": 9}, None),  # a word with accents may mean itself without them, nothing else
    ("café", {"cafd": 9, "cafe": 1}, "cafe"),
    ("zürichh", {"zürich": 4}, "zürich"),  # a typo in a word of accents is one still
    ("привт", {"привет": 3}, "привет"),
    ("bdefx", {"bdef": 9}, None),  # letters of a hash
    ("facd", {"face": 2, "fac": 9}, "face"),
])
def test_a_correction_is_offered_only_when_near(word, near, found):
    assert nearest(word, near, lambda w: near.get(w, 0)) == found


def test_a_word_of_english_is_no_typo(history, backscroll_search):
    """"leap" is one edit from "lead", but it is a word: the history lacks it, it did not mistype it."""
    from backscroll.retrieval.spelling import worth_suggesting

    assert not worth_suggesting("leap") and not worth_suggesting("spiked") and worth_suggesting("recieve")
    assert worth_suggesting("runing") and worth_suggesting("writting"), "a misspelling whose stem is a word's"
    s = history
    s.assistant("We lead with the cart service.")
    result = backscroll_search("leap year cart", mode="lexical", weak=True)
    assert any('no record holds "leap"' in n for n in result.notes) and not any("did you mean" in n
                                                                             for n in result.notes), result.notes


def test_british_and_american_spellings_are_known_from_a_word_list():
    assert other_spellings("serialise") == ("serialize",)
    assert other_spellings("optimising") == ("optimizing",)
    assert other_spellings("colour") == ("color",) and other_spellings("color") == ("colour",)
    assert other_spellings("queue") == ()


def test_a_british_spelling_finds_the_american_one_and_says_so(history, backscroll_search):
    result = backscroll_search("serialise the cart payload", mode="lexical")
    assert result.results and "serializ" in result.results[0].text
    assert any('searched for "serialize", as the history spells "serialise"' in n for n in result.notes)
    assert not any("misspelled" in n for n in result.notes), result.notes


def test_a_sure_correction_is_searched_for_and_named(history, backscroll_search):
    result = backscroll_search("TranscriptRendrer", mode="lexical")
    assert result.results and "TranscriptRenderer" in result.results[0].text, (result.notes, result.weak_matches)
    assert any('no record holds "transcriptrendrer": searched for "transcriptrenderer" instead' in n
               for n in result.notes), result.notes


def test_words_that_are_not_near_get_no_did_you_mean(history, backscroll_search):
    result = backscroll_search("outage slavic", mode="lexical", weak=True)
    assert not any("did you mean" in n for n in result.notes), result.notes


@pytest.mark.parametrize("query", ["what did we decide", "the", "what happened?", "how does it work"])
def test_a_query_of_question_words_only_has_nothing_to_search_for(history, backscroll_search, query):
    result = backscroll_search(query)
    assert not result.results and not result.weak_matches
    assert result.notes and result.notes[0].startswith("nothing to search for"), result.notes


def test_a_question_about_something_still_searches(history, backscroll_search):
    result = backscroll_search("what did we decide about the checkout latency", mode="lexical")
    assert result.results and not any(n.startswith("nothing to search for") for n in result.notes)


@pytest.mark.parametrize("text, start, end", [
    ("what broke at the end of August", "2026-08-21", "2026-09-01"),
    ("the last days of March", "2026-03-21", "2026-04-01"),
    ("the beginning of August deploy", "2026-08-01", "2026-08-11"),
    ("start of May", "2026-05-01", "2026-05-11"),
    ("the middle of June", "2026-06-11", "2026-06-21"),
    ("the first days of July 2025", "2025-07-01", "2025-07-11"),
])
def test_the_parts_of_a_month_people_name(text, start, end):
    when, _rest = temporal.find(text, NOW)
    assert when is not None, text
    assert (when.start.date().isoformat(), when.end.date().isoformat()) == (start, end)


def test_the_plain_english_words_are_the_models_first_vocabulary_entries():
    import json
    from importlib import resources

    from backscroll.retrieval.everyday import PLAIN_ENGLISH, common_words, plain_english

    vocab = json.loads(resources.files("backscroll.indexes").joinpath("model", "tokenizer.json").read_text())
    assert common_words() == {w for w, n in vocab["model"]["vocab"].items() if n < PLAIN_ENGLISH}
    assert plain_english("instead") and not plain_english("terraform")


def test_the_command_line_says_why_a_query_of_common_words_finds_nothing_and_not_no_matches(history, backscroll_home):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    r = CliRunner().invoke(app, ["search", "--no-sync", "the", "and", "of"])
    assert r.exit_code == 0 and r.stdout == ""
    assert "nothing to search for" in r.stderr and "No matches" not in r.stderr, r.stderr
    tsv = CliRunner().invoke(app, ["search", "--no-sync", "--format", "tsv", "the", "and", "of"])
    assert "nothing to search for" in tsv.stderr and "No matches" not in tsv.stderr, tsv.stderr
