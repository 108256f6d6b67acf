"""The bundled corpus (fixtures/, used by `make demo`) indexes as its README says."""


from pathlib import Path

import pytest
from helpers import TESTS, rows

FIXTURES = TESTS.parent / "fixtures"
DECISION = ("We'll use a Postgres-backed queue with SKIP LOCKED instead of Redis streams, because we already "
            "run Postgres and need transactional enqueue with the order insert.")


@pytest.fixture
def indexed(backscroll_home):
    import backscroll

    cfg = backscroll_home.config(sources=[f"claude:{FIXTURES}/claude/projects", f"codex:{FIXTURES}/codex/sessions"])
    outcome = backscroll.index(config=cfg)
    return cfg, outcome


def test_corpus_indexes_with_bad_lines_counted(indexed, backscroll_home):
    _cfg, outcome = indexed
    skipped = rows(backscroll_home, "SELECT path, line FROM skipped_lines ORDER BY path, line")
    by_file: dict[str, list[int]] = {}
    for s in skipped:
        by_file.setdefault(Path(s["path"]).name, []).append(s["line"])
    # the half-written last lines (Claude line 22, Codex line 38) are not skipped: they wait for completion
    assert by_file == {
        "10a84f49-7571-4485-9b5c-57346fd5364b.jsonl": [6, 9, 14],  # (S5:11 and C3:31, not UTF-8, land)
        "rollout-2026-10-22T16-01-44-01a16458-ce40-7488-93bc-ab8dbedd7351.jsonl": [15, 22, 32],
    }
    assert outcome.report.unreadable == []


def test_corpus_echoes_are_exactly_the_retrieval_calls(indexed, backscroll_home):
    echo_calls = [r["text"] for r in rows(backscroll_home,
                                          "SELECT text FROM records WHERE is_echo = 1 AND tool_call_id IS NOT NULL "
                                          "AND text LIKE '%backscroll search%' ORDER BY id")]
    assert echo_calls == [
        'backscroll search "job queue decision"',
        "cd /home/dev/shop && backscroll search job queue postgres --limit 5",
        '~/.local/bin/backscroll search "SKIP LOCKED" --json | head -50',
        "backscroll search idempotency key",
        "uvx backscroll search retry backoff",
    ]
    n_echo = rows(backscroll_home, "SELECT count(*) AS n FROM records WHERE is_echo = 1")[0]["n"]
    assert n_echo == 10, "five calls and their five outputs"
    traps = rows(backscroll_home, "SELECT text FROM records WHERE is_echo = 0 AND text LIKE '%backscroll search%'")
    assert len(traps) >= 6, "grep, echo, git commit, docs and prose mentioning the words stay ordinary records"


def test_corpus_subagent_and_codex_copies(indexed, backscroll_home):
    sub = rows(backscroll_home, "SELECT * FROM sessions WHERE is_sidechain = 1")
    assert len(sub) == 1 and sub[0]["parent_session_id"] == "34c6be73-9152-4f55-9572-3f0c5df10f7e"
    retry = rows(backscroll_home, "SELECT * FROM records WHERE text LIKE '%capped at 3 attempts, using the order id%' "
                                  "AND is_echo = 0")
    assert len(retry) == 1, "Codex writes the message twice (response_item and event_msg); it is stored once"


def test_corpus_decision_found_despite_echoes(indexed, backscroll_search):
    cfg, _ = indexed
    import backscroll

    result = backscroll.search("job queue postgres", config=cfg, mode="lexical", sync=False, limit=5)
    assert any(DECISION in h.text for h in result.results)
    assert not any(h.is_echo for h in result.results)
    # echoes_hidden counts the echoes the same search would have returned (issue #18): none in the top 5
    assert result.echoes_hidden == 0
    assert backscroll.search("job queue postgres", config=cfg, mode="lexical", sync=False, limit=20).echoes_hidden >= 3

