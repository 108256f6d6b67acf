"""Lexical search and the echo policy, through the library API on real stores."""

import pytest

from backscroll.errors import NothingIndexedError, QueryError, SemanticUnavailableError

DECISION = ("We'll use a Postgres-backed queue with SKIP LOCKED instead of Redis streams, because we already "
            "run Postgres and need transactional enqueue with the order insert.")


@pytest.fixture
def echo_story(session_builder):
    """A decision made once, then searched for repeatedly by an agent whose searches echo it verbatim."""
    first = session_builder.claude(project="shop")
    first.user("Which queue should the background jobs use?")
    first.assistant(DECISION)
    first.tool("pytest -q tests/test_jobs.py", "5 passed in 0.31s")
    for _ in range(3):
        later = session_builder.claude(project="shop")
        later.user("what did we decide about the job queue?")
        later.search_echo("job queue decision", f"1. claude · shop · assistant\n   {DECISION}")
        later.tool("cd /home/dev/shop && backscroll search job queue postgres --limit 5", f"{DECISION}\n(5 results)")
        later.assistant("Per the earlier session: Postgres with SKIP LOCKED.")
    codex = session_builder.codex(project="shop")
    codex.search_echo("job queue postgres", DECISION, argv=True)
    return first


def test_historical_answer_beats_its_echoes(echo_story, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("job queue postgres SKIP LOCKED", mode="lexical")
    top5 = result.results[:5]
    assert any(h.text == DECISION for h in top5)
    assert not any(h.is_echo for h in result.results), "no echo row anywhere by default"
    assert result.echoes_hidden >= 5  # of the 10 rows --include-echoes shows, never two echoes in a row


def test_content_type_tool_finds_the_echo_commands(echo_story, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("backscroll search job queue", content_type="tool", mode="lexical")
    assert any(h.is_echo and h.text.startswith("backscroll search") for h in result.results)
    assert result.echoes_hidden == 0


def test_include_echoes_merges_them_below_the_original(echo_story, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("job queue postgres SKIP LOCKED", include_echoes=True, mode="lexical", limit=20)
    echoes = [h for h in result.results if h.is_echo]
    originals = [h for h in result.results if h.text == DECISION]
    assert echoes and originals
    assert originals[0].rank < echoes[0].rank


def test_include_echoes_lets_them_in_under_hybrid_ranking_too(echo_story, backscroll_index, backscroll_search):
    # Hybrid ranking adds each result's support from its neighbours (echoes get none): --include-echoes
    # must still let the echoes in, and never two in a row.
    backscroll_index()
    result = backscroll_search("job queue postgres SKIP LOCKED", include_echoes=True, limit=10)
    assert result.mode == "hybrid"
    shown = [(h.rank, h.is_echo, h.text[:50]) for h in result.results]
    assert sum(h.is_echo for h in result.results) >= 3, shown
    assert any(h.text == DECISION and not h.is_echo for h in result.results), shown
    assert all(not (a.is_echo and b.is_echo) for a, b in zip(result.results, result.results[1:], strict=False))


def test_words_no_record_holds_count_against_a_search_that_lets_echoes_in(session_builder, backscroll_index,
                                                                       backscroll_search):
    """With echoes searched too, a word only an echo holds is held, and a word nothing holds is named and weighs
    against the answer as it does without echoes (they had made every such search strong)."""
    s = session_builder.claude(project="shop")
    s.user("what is in the rollout log?")
    s.search_echo("rollout", "1. codex · shop · ~/.codex/sessions/rollout-2026-10-14.jsonl")
    backscroll_index()
    for asked in ({"content_type": "tool"}, {"include_echoes": True}):
        res = backscroll_search("kubernetes helm chart rollout", mode="lexical", **asked)
        assert res.results == () and res.weak_matches, asked
        assert any('"kubernetes", "helm", "chart"' in n for n in res.notes), res.notes
    alone = backscroll_search("zeppelinx", mode="lexical")
    assert alone.notes[0].startswith('no record holds any of the query\'s words ("zeppelinx"):')


def test_the_unheld_note_says_when_query_echoes_hold_the_words(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude(project="shop")
    s.user("an unrelated question about tax rounding")
    s.search_echo("zeppelin", "1. claude · shop · the zeppelin hangar plan")
    backscroll_index()
    res = backscroll_search("zeppelin", mode="lexical")
    assert res.echoes_hidden == 2 and res.results == ()  # (the call and what it printed)
    assert res.notes[0].startswith('no record holds any of the query\'s words ("zeppelin") outside query echoes:')


def test_original_tool_output_comes_before_echoed_copies(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.tool("alembic upgrade head", "sqlalchemy.exc.OperationalError: no such column: orders.tenant_id")
    for _ in range(4):
        e = session_builder.claude()
        e.search_echo("no such column tenant_id", "sqlalchemy.exc.OperationalError: no such column: orders.tenant_id")
    backscroll_index()
    result = backscroll_search("OperationalError no such column tenant_id", content_type="tool", mode="lexical")
    assert result.results[0].text.startswith("sqlalchemy.exc.OperationalError") and not result.results[0].is_echo


def test_near_duplicates_collapse_within_a_session(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    for _ in range(3):
        s.user("please   rerun the flaky   test suite")
    backscroll_index()
    result = backscroll_search("flaky test suite", mode="lexical")
    assert len(result.results) == 1


@pytest.mark.parametrize("query", [
    "error: failed", "foo(bar)", '"unterminated', "NOT", "[1 TO", "https://example.com/a/b?x=1",
    "internal/storage/sync.go", "AND OR", "title:foo", "a*b?", "C++ templates", "--limit",
    "naïve café", "日本語", "emoji 🎉 test",
])
def test_user_text_never_raises(query, session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("error: failed to open internal/storage/sync.go via https://example.com/a/b?x=1 foo(bar)")
    backscroll_index()
    backscroll_search(query, mode="lexical")


@pytest.mark.parametrize("query", ["error: failed", "internal/storage/sync.go", "foo(bar)", "https://example.com/a/b"])
def test_punctuated_queries_find_their_text(query, session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("unrelated chatter about lunch")
    s.user("error: failed to open internal/storage/sync.go via https://example.com/a/b foo(bar)")
    backscroll_index()
    assert "sync.go" in backscroll_search(query, mode="lexical").results[0].text


@pytest.mark.parametrize("query", ["", "   ", "!!!", "?? -- ::", "{}", "\\"])
def test_empty_or_punctuation_queries_are_usage_errors(query, session_builder, backscroll_index, backscroll_search):
    session_builder.claude().user("hello")
    backscroll_index()
    with pytest.raises(QueryError) as exc:
        backscroll_search(query)
    assert exc.value.exit_code == 2 and exc.value.hint


def test_a_query_of_one_word_too_long_to_index_says_so(session_builder, backscroll_index, backscroll_search):
    session_builder.claude().user("hello")
    backscroll_index()
    with pytest.raises(QueryError, match="longer than 80 characters") as exc:
        backscroll_search("Zm9v" * 25)  # (a pasted blob)
    assert exc.value.hint == "search the words around it"


def test_quoted_phrase_must_appear_together(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("the lock was skipped, then the job locked up")
    s.user("use SKIP LOCKED in the dequeue query")
    backscroll_index()
    result = backscroll_search('"skip locked"', mode="lexical")
    assert [h.text for h in result.results] == ["use SKIP LOCKED in the dequeue query"]


def test_stemming_matches_other_word_forms(session_builder, backscroll_index, backscroll_search):
    session_builder.claude().user("the migrations are running slowly")
    backscroll_index()
    hit = backscroll_search("migration run", mode="lexical").results[0]
    assert "migrations" in hit.text and hit.snippet and hit.highlights


def test_filters(session_builder, backscroll_index, backscroll_search):
    a = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    a.user("deploy the shop to staging")
    a.assistant("deployed the shop to staging")
    b = session_builder.codex(project="infra", start="2026-11-01T09:00:00Z")
    b.user("deploy the infra to staging")
    b.tool("kubectl rollout status deploy/web", "deployment web successfully rolled out to staging")
    backscroll_index()

    def texts(**kw):
        return sorted(h.text for h in backscroll_search("deploy staging", mode="lexical", weak=True, **kw).results)

    assert texts(project="shop") == ["deploy the shop to staging", "deployed the shop to staging"]
    assert texts(agent="codex") == sorted(["deploy the infra to staging", "kubectl rollout status deploy/web",
                                           "deployment web successfully rolled out to staging"])
    assert texts(role="assistant") == ["deployed the shop to staging"]
    assert texts(content_type="tool") == ["deployment web successfully rolled out to staging",
                                          "kubectl rollout status deploy/web"]
    assert texts(since="2026-10-15") == texts(agent="codex")
    assert texts(until="2026-10-01") == texts(project="shop")
    session = backscroll_search("deploy", mode="lexical", project="infra").results[0].session_id
    scoped = backscroll_search("deploy staging", mode="lexical", session=session).results
    assert all(h.session_id == session for h in scoped)


def test_nothing_indexed_is_exit_3(backscroll_search):
    with pytest.raises(NothingIndexedError) as exc:
        backscroll_search("anything")
    assert exc.value.exit_code == 3


def test_search_syncs_new_lines_first_unless_told_not_to(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("first words")
    backscroll_index()
    s.user("brand new zeppelin idea")
    assert backscroll_search("zeppelin", mode="lexical", sync=False).results == ()
    assert backscroll_search("zeppelin", mode="lexical").results[0].text == "brand new zeppelin idea"


def test_semantic_without_vectors_fails_clearly(session_builder, backscroll_index, backscroll_search, monkeypatch):
    monkeypatch.setenv("BACKSCROLL_EMBED", "0")
    session_builder.claude().user("hello world")
    backscroll_index()
    with pytest.raises(SemanticUnavailableError) as exc:
        backscroll_search("hello", mode="semantic")
    assert exc.value.exit_code == 3
    result = backscroll_search("hello")
    assert result.mode == "lexical" and result.notes


def test_lexical_index_rebuilds_itself_when_missing_or_corrupt(session_builder, backscroll_home, backscroll_index,
                                                              backscroll_search):
    import shutil

    session_builder.claude().user("durable words")
    backscroll_index()
    shutil.rmtree(backscroll_home.data / "index")
    assert backscroll_search("durable", mode="lexical").results[0].text == "durable words"
    index_dir = backscroll_home.data / "index"
    for f in (index_dir / (index_dir / "CURRENT").read_text()).iterdir():  # the generation in use
        if f.suffix in (".idx", ".term", ".store", ".pos") or f.name == "meta.json":
            f.write_bytes(b"garbage")
    result = backscroll_search("durable", mode="lexical")
    assert result.results[0].text == "durable words"
    assert any("rebuild" in n for n in result.notes)


def test_a_word_the_history_holds_is_not_stretched_to_longer_words(session_builder, backscroll_index,
                                                                   backscroll_search):
    """Issue #36: "bread" found ``breadcrumb`` as if it were an answer. A word the history holds matches
    itself; a word it never holds still finds the longer word it begins ("postgres": postgresql)."""
    s = session_builder.claude()
    s.user("the breadcrumb component loses its trail on reload").assistant("The breadcrumb reads the router state.")
    for loaf in ("sourdough bread needs a long proof", "rye bread for the team lunch", "bread and butter tasks"):
        s.user(loaf)
    s.user("which database for the queue?").assistant("We chose postgresql with SKIP LOCKED.")
    backscroll_index(embed=False)
    bread = backscroll_search("bread", mode="lexical", limit=10, weak=True)
    assert bread.results and not any("breadcrumb" in h.text for h in bread.results), [h.text for h in bread.results]
    postgres = backscroll_search("postgres queue", mode="lexical")
    assert postgres.results and "postgresql" in postgres.results[0].text


def test_a_search_with_echoes_judges_in_the_filters_scope_as_one_without(session_builder, backscroll_index,
                                                                         backscroll_search):
    """What the scope holds is judged alike whether echoes are let in or not: a project that says only one of the
    query's words does not borrow the other from another project."""
    shop = session_builder.claude(project="shop")
    shop.user("the zeppelin hangar doors open inward")
    web = session_builder.claude(project="web")
    web.user("the zeppelin parade banner for the landing page")
    web.assistant("banner added to the landing page")
    backscroll_index()
    plain = backscroll_search("zeppelin hangar", project="web", mode="lexical")
    echoes = backscroll_search("zeppelin hangar", project="web", mode="lexical", include_echoes=True)
    assert (bool(plain.results), len(plain.weak_matches)) == (bool(echoes.results), len(echoes.weak_matches))
    assert echoes.evidence == plain.evidence
