"""One pipeline, two stores: the bundled fixtures indexed here and pushed to a throwaway team archive give the same
answers record for record, in every mode and for by-session, weak matches, hints, dates and filters, because both
stores answer the same questions (``retrieval/source.py``) and one pipeline ranks on them."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import TESTS
from team_archives import fresh_archive

from backscroll.archive import Backscroll
from backscroll.types import SearchResult

FIXTURES = TESTS.parent / "fixtures"
SOURCES = (f"claude:{FIXTURES / 'claude' / 'projects'}", f"codex:{FIXTURES / 'codex' / 'sessions'}")
NOW = "2026-11-20T12:00:00Z"

QUERIES = [
    "job queue postgres", "what did we decide about the job queue", "retry backoff", "why did the deploy fail",
    "UniqueViolation", "migration", "rate limit", "flaky test", "docker compose", "webhook signature",
    "how did we fix the slow checkout", '"skip locked"', "what did I do on 22 October", "stripe webhooks last month",
    "kubernetes helm rollout",  # (words no record holds, and one only echoes hold)
    '"results for" queue',  # (a phrase only query echoes hold)
]
OPTIONS: list[dict[str, Any]] = [{}, {"weak": True}, {"by_session": True}, {"role": "user"}, {"agent": "codex"},
           {"content_type": "tool"}, {"since": "2026-10-20", "until": "2026-11-01"}, {"include_echoes": True},
           {"limit": 3, "offset": 2}, {"include_echoes": True, "project": "payments"}]


@pytest.fixture(scope="module")
def both(pg_url, tmp_path_factory):
    """The fixtures indexed in a local store (with the fake embedder's vectors) and pushed to an archive."""
    home = tmp_path_factory.mktemp("one-pipeline")
    bs = Backscroll(home=home, sources=SOURCES)
    bs.index()
    url = fresh_archive(pg_url, "one_pipeline", "postgres")
    with bs:
        assert bs.push(url).pushed > 100
    yield bs, url
    bs.close()


def shape(result: SearchResult) -> dict:
    """What a ranking answered, record for record."""
    return {"results": [h.record_id for h in result.results], "weak": [h.record_id for h in result.weak_matches],
            "also": [h.record_id for h in result.also_matching], "mode": result.mode,
            "sessions": [(s.session_id, [h.record_id for h in s.hits]) for s in result.sessions],
            "match": [h.match for h in result.results], "strength": [h.strength or 0.0 for h in result.results]}


def same(local: dict, remote: dict) -> bool:
    """The same answer, record for record, and strengths (given to three decimals) at most one step apart: PostgreSQL
    and numpy compute a cosine's last float32 bits apart, so a strength on a boundary rounds to .205 on one store
    and .206 on the other."""
    strengths = zip(local["strength"], remote["strength"], strict=False)
    return ({k: v for k, v in local.items() if k != "strength"} == {k: v for k, v in remote.items() if k != "strength"}
            and len(local["strength"]) == len(remote["strength"]) and all(abs(a - b) < 0.0015 for a, b in strengths))


@pytest.mark.parametrize("mode", ["lexical", "semantic", "hybrid"])
def test_the_archive_ranks_as_the_local_store_does(both, mode):
    bs, url = both
    differ = []
    for query in QUERIES:
        for options in OPTIONS:
            local = shape(bs.search(query, mode=mode, now=NOW, **options))
            remote = shape(bs.search(query, mode=mode, now=NOW, archive=url, **options))
            if not same(local, remote):
                differ.append((query, options, local, remote))
    assert not differ, differ[:2]


def test_an_answer_fits_the_tokens_an_agent_gives_it_on_both_stores(both):
    """``max_tokens``: one field of ``SearchRequest`` and one step of ``searching.answer``, so both stores keep it."""
    from backscroll.integrations.mcp_tools import TOOLS

    bs, url = both
    for archive in (None, url):
        whole = bs.search("job queue postgres", mode="lexical", limit=10, max_chars=0, archive=archive)
        fitted = bs.search("job queue postgres", mode="lexical", limit=10, max_chars=0, max_tokens=150,
                           archive=archive)
        assert len(whole.results) == 10
        used = sum(len(h.text) + len(h.snippet) for h in fitted.results)
        assert 0 < len(fitted.results) < 10 and used <= 150 * 4
        assert [h.record_id for h in fitted.results] == [h.record_id for h in whole.results[:len(fitted.results)]]
        assert any("to fit --max-tokens 150" in n and "left out" in n for n in fitted.notes), fitted.notes
        kept_out = len(whole.results) + len(whole.weak_matches) - len(fitted.results) - len(fitted.weak_matches)
        assert fitted.to_dict()["omitted_for_budget"] == kept_out > 0 and whole.omitted_for_budget == 0
        every = bs.search("job queue postgres", mode="lexical", limit=50, max_chars=0, archive=archive, rerun=True)
        cut = bs.search("job queue postgres", mode="lexical", limit=50, max_chars=0, max_tokens=150, archive=archive,
                        rerun=True)
        assert not every.has_more and cut.has_more, "the results left out are the next page's"
        following = bs.search("job queue postgres", mode="lexical", limit=10, offset=len(fitted.results),
                              max_chars=0, archive=archive, rerun=True)
        assert following.results[0].record_id == whole.results[len(fitted.results)].record_id
        last = fitted.results[-1]
        if last.text_truncated:
            assert last.text.endswith("…") and whole.results[len(fitted.results) - 1].text.startswith(last.text[:-1])
    schema = TOOLS["search"].input_schema()["properties"]["max_tokens"]
    assert schema["minimum"] == 1, "the MCP tool takes it too"
