"""The archive's emulation of the local index's BM25 order (team/bm25.py)."""

from backscroll.team import bm25


def _stem(t: str) -> str:
    return t[:-1] if t.endswith("s") else t


def test_phrase_count_allows_two_extra_tokens_in_all():
    tokens = "the cache key was the cache of the key".split()
    assert bm25.phrase_count(tokens, ["cache", "key"]) == 2  # "cache key", "cache of the key"
    assert bm25.phrase_count("cache a b key".split(), ["cache", "key"]) == 1
    assert bm25.phrase_count("cache a b c key".split(), ["cache", "key"]) == 0
    assert bm25.phrase_count("key cache".split(), ["cache", "key"]) == 0


def test_rarer_words_weigh_more_and_shorter_rows_win_among_equals():
    dfs = {"flaky": (5, 5, 0), "test": (500, 600, 0)}
    rare = bm25.score(["flaky"], dfs, 10_000, 20.0, "a flaky run".split(), [], _stem)
    common = bm25.score(["test"], dfs, 10_000, 20.0, "a test run".split(), [], _stem)
    assert rare > common > 0
    short = bm25.score(["flaky"], dfs, 10_000, 20.0, "flaky again".split(), [], _stem)
    long = bm25.score(["flaky"], dfs, 10_000, 20.0, ("flaky " + "word " * 60).split(), [], _stem)
    assert short > long


def test_stems_and_identifier_parts_count_less_than_the_word_itself():
    dfs = {"test": (50, 60, 40)}
    plain = bm25.score(["test"], dfs, 10_000, 10.0, "run test now".split(), [], _stem)
    stemmed = bm25.score(["test"], dfs, 10_000, 10.0, "run tests now".split(), [], _stem)
    part = bm25.score(["test"], dfs, 10_000, 10.0, "run runtestnow".split(), ["test"], _stem)
    assert plain > stemmed > 0 and plain > part > 0


def test_words_together_score_above_words_apart():
    dfs = {"cache": (30, 30, 0), "key": (30, 30, 0)}
    together = bm25.score(["cache", "key"], dfs, 1000, 10.0, "the cache key is set".split(), [], _stem)
    apart = bm25.score(["cache", "key"], dfs, 1000, 10.0, "key then the whole cache".split(), [], _stem)
    assert together > apart


def test_a_word_no_row_holds_adds_nothing():
    assert bm25.score(["zzz"], {"zzz": (0, 0, 0)}, 100, 5.0, "zzz".split(), [], _stem) == 0.0
