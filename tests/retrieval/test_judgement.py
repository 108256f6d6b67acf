"""Judgement (issue #34): the weak line on every surface, dates read as dates, exact strings first,
sessions as the unit, and an echo first when it alone matches. Real stores, the fake embedder."""

import json
from datetime import UTC, datetime

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.indexes.lexical import analyze
from backscroll.retrieval.query import plan

NOW = "2026-11-20T12:00:00Z"
QUEUE = ("We'll use a Postgres-backed job queue with SKIP LOCKED instead of Redis streams: we already run "
         "Postgres and need transactional enqueue with the order insert.")


@pytest.fixture
def cli(backscroll_home):
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def shop(session_builder):
    """Three sessions on three days: a queue decision in October, a cart bug, a November follow-up."""
    october = session_builder.claude(project="shop", start="2026-10-06T10:00:00Z")
    october.user("Which queue should the background jobs use?")
    october.assistant(QUEUE)
    october.tool("pytest -q tests/test_jobs.py", "5 passed in 0.31s")
    cart = session_builder.claude(project="shop", start="2026-10-22T09:00:00Z")
    cart.user("Checkout is slow: GET /api/cart takes 900 ms for a 20-line cart")
    cart.assistant("The cart serializer runs one query per line; prefetch_related('lines__product') fixes it.")
    later = session_builder.claude(project="shop", start="2026-11-12T15:00:00Z")
    later.user("before I touch the retry logic: what did we decide about the job queue? I want to decide today")
    later.assistant("We decided on Postgres with SKIP LOCKED; nothing changed since.")
    return october


# -- the weak line ----------------------------------------------------------------------------------

NEVER = "terraform state lock stuck in the s3 backend"


def test_a_search_for_something_never_discussed_gives_no_results_but_weak_matches(shop, backscroll_index,
                                                                                  backscroll_search):
    backscroll_index()
    result = backscroll_search(NEVER, now=NOW)
    assert result.results == ()
    assert result.weak_matches, "the records sharing a word are kept aside, not thrown away"
    assert any(n.startswith("nothing strong") for n in result.notes)
    asked = backscroll_search(NEVER, now=NOW, weak=True, rerun=True)
    assert [h.record_id for h in asked.results] == [h.record_id for h in result.weak_matches][:len(asked.results)]
    assert asked.weak_matches == ()


def test_a_real_answer_stays_above_the_weak_line(shop, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("postgres job queue skip locked", now=NOW)
    assert result.results and QUEUE in result.results[0].text
    assert result.results[0].strength is not None and result.results[0].strength >= 0.6
    assert not any(n.startswith("nothing strong") for n in result.notes)


def test_the_cli_says_nothing_strong_and_exits_zero(shop, cli):
    cli("index")
    r = cli("search", "--no-sync", "-n", "1", *NEVER.split())
    assert r.exit_code == 0
    assert r.stdout == ""
    # (no count: a page of one holds one weak match, however many there are)
    assert "nothing strong; weak matches held back: --weak to see them" in r.stderr, r.stderr
    data = json.loads(cli("search", "--no-sync", "--json", "--rerun", *NEVER.split()).stdout)
    assert data["results"] == [] and data["weak_matches"]
    shown = cli("search", "--no-sync", "--weak", "--rerun", *NEVER.split())
    assert shown.exit_code == 0 and shown.stdout.strip(), "--weak shows them"


def test_mcp_holds_weak_matches_back_too(shop, backscroll_index, backscroll_home, monkeypatch):
    from backscroll.integrations.mcp_tools import Tools

    backscroll_index()
    monkeypatch.setenv("BACKSCROLL_HOME", str(backscroll_home.data))
    answer = Tools(str(backscroll_home.data)).call("search", {"query": NEVER})
    doc = answer.document
    assert not answer.is_error
    assert doc["results"] == [] and doc["weak_matches"]
    asked = Tools(str(backscroll_home.data)).call("search", {"query": NEVER, "weak": True, "rerun": True}).document
    assert asked["results"]


def test_the_recall_hook_injects_nothing_for_a_prompt_never_discussed(shop, backscroll_index, backscroll_home):
    from backscroll.integrations import recall
    from backscroll.integrations.hooks import HookInput

    backscroll_index()
    inp = HookInput(session_id="s-new", transcript_path=None, cwd="/home/dev/shop", prompt=NEVER, source=None)
    assert recall.find(backscroll_home.config(), NEVER, inp).recalls == []


# -- dates ------------------------------------------------------------------------------------------

def test_date_words_leave_the_word_query():
    now = datetime(2026, 11, 20, 12, tzinfo=UTC)
    p = plan("what did we decide in October", analyze, now=now)
    assert p.when is not None and p.when.start.month == 10
    assert p.lexical_terms == () and p.date_only
    p = plan("the job queue bug we fixed on 22 October", analyze, now=now)
    assert "october" not in p.lexical_terms and "22" not in p.lexical_terms and "queue" in p.lexical_terms
    assert not p.date_only
    p = plan("what did we do on 2026-10-22?", analyze, now=now)  # an ISO date alone: a question about the day
    assert p.when is not None and p.lexical_terms == () and p.date_only
    p = plan("orders_parquet export row count for 2026-09-14", analyze, now=now)  # beside words: a term too
    assert "2026" in p.lexical_terms and not p.date_only


@pytest.mark.parametrize("query, day", [("what happened on 22 October", "2026-10-22"),
                                        ("what did we do on 2026-10-22?", "2026-10-22"),
                                        ("what did we decide in October", "2026-10"),
                                        ("what did I work on on 12 November?", "2026-11-12")])
def test_a_question_about_a_date_puts_that_dates_session_first(shop, backscroll_index, backscroll_search, query, day):
    backscroll_index()
    result = backscroll_search(query, now=NOW)
    assert result.results, result.notes
    assert (result.results[0].timestamp or "").startswith(day), [(h.timestamp, h.snippet[:60]) for h in result.results]
    assert result.results[0].strength == 1.0


def test_a_record_inside_the_window_beats_an_equal_one_outside(shop, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("postgres skip locked in November", now=NOW, mode="lexical")
    assert result.results[0].timestamp.startswith("2026-11"), [(h.timestamp, h.snippet[:60]) for h in result.results]
    result = backscroll_search("postgres skip locked in October", now=NOW, mode="lexical", rerun=True)
    assert result.results[0].timestamp.startswith("2026-10")


def test_a_window_that_holds_nothing_says_so(shop, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("what did I do on 3 March", now=NOW)
    assert result.results == ()
    assert any("nothing was recorded then" in n for n in result.notes)



def test_a_question_about_a_time_pages_through_its_sessions(shop, backscroll_index, backscroll_search):
    """October holds two sessions: a page of one says there is more, and the next page says there is not."""
    backscroll_index()
    first = backscroll_search("what did we do in October", now=NOW, limit=1)
    assert len(first.results) == 1 and first.has_more
    second = backscroll_search("what did we do in October", now=NOW, limit=1, offset=1, rerun=True)
    assert len(second.results) == 1 and not second.has_more
    assert second.results[0].session_id != first.results[0].session_id
    by_session = backscroll_search("what did we do in October", now=NOW, limit=1, by_session=True, rerun=True)
    assert len(by_session.sessions) == 1 and by_session.has_more

# -- exact strings ----------------------------------------------------------------------------------

def test_an_exact_error_message_beats_a_paraphrase_rich_neighbour(session_builder, backscroll_index,
                                                                   backscroll_search):
    error = "psycopg2.errors.LockNotAvailable: could not obtain lock on row in relation jobs_job"
    s = session_builder.claude(project="shop")
    s.user("the worker crashed overnight")
    s.tool("python manage.py run_jobs", f"Traceback (most recent call last):\n  ...\n{error}", is_error=True)
    other = session_builder.claude(project="api")
    other.user("why could the worker not obtain a lock on the jobs row? the relation was locked by another "
               "transaction and the error said lock not available")
    other.assistant("Another transaction held the row lock on the relation: could not obtain it, so it errored.")
    backscroll_index()
    result = backscroll_search(error)
    assert error in result.results[0].text, [h.snippet[:80] for h in result.results]


# -- sessions ---------------------------------------------------------------------------------------

def test_by_session_lists_distinct_sessions_with_their_best_hits(shop, backscroll_index, backscroll_search):
    backscroll_index()
    result = backscroll_search("job queue postgres", by_session=True, now=NOW, weak=True)
    ids = [s.session_id for s in result.sessions]
    assert len(ids) == len(set(ids)) >= 2
    assert all(1 <= len(s.hits) <= 3 for s in result.sessions)
    assert all(h.session_id == s.session_id for s in result.sessions for h in s.hits)
    doc = result.to_dict()
    assert doc["sessions"][0]["hits"] and "title" in doc["sessions"][0]


def test_by_session_shows_the_runner_up_session_one_session_buries(session_builder, backscroll_index,
                                                                     backscroll_search):
    busy = session_builder.claude(project="shop")
    for n in range(6):
        busy.user(f"the retry backoff for the payment webhook, attempt {n}")
        busy.assistant(f"retry backoff for the payment webhook: doubled to {2 ** n} s")
    other = session_builder.claude(project="shop")
    other.user("retry backoff for the payment webhook in the other service")
    backscroll_index()
    plain = backscroll_search("retry backoff payment webhook", mode="lexical", limit=5)
    assert len({h.session_id for h in plain.results}) == 1, "the busy session fills a plain list"
    grouped = backscroll_search("retry backoff payment webhook", mode="lexical", limit=5, by_session=True,
                                rerun=True)
    assert len(grouped.sessions) == 2 and [len(s.hits) for s in grouped.sessions] == [3, 1]


def test_by_session_lists_as_many_sessions_as_asked_however_busy_the_first(session_builder, backscroll_index,
                                                                          backscroll_search):
    for n in range(3):  # three sessions of fifteen matching records, each session's above the next one's
        busy = session_builder.claude(project="shop")
        for i in range(15):
            busy.user(" ".join(["retry backoff payment webhook"] * (3 - n)) + f" (attempt {i})")
    backscroll_index()
    pages = {(n, offset): backscroll_search("retry backoff payment webhook", mode="lexical", limit=n, offset=offset,
                                            by_session=True, weak=True, rerun=True).sessions
             for n, offset in ((3, 0), (1, 2))}
    assert len(pages[(3, 0)]) == 3, "-n counts sessions, however many records the first ones hold"
    assert [s.session_id for s in pages[(1, 2)]] == [pages[(3, 0)][2].session_id], "--offset skips sessions"

    assert pages[(3, 0)] and not backscroll_search("retry backoff payment webhook", mode="lexical", limit=3,
                                                   by_session=True, weak=True, rerun=True).has_more
    assert backscroll_search("retry backoff payment webhook", mode="lexical", limit=2, by_session=True, weak=True,
                             rerun=True).has_more, "a third session waits on the next page"


def test_has_more_says_whether_the_next_page_holds_anything(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude(project="shop")
    for i in range(7):
        s.user(f"retry backoff payment webhook, attempt {i}")
    backscroll_index()

    def page(limit, offset=0, **kw):
        return backscroll_search("retry backoff payment webhook", mode="lexical", limit=limit, offset=offset,
                                 rerun=True, **kw)

    assert page(5).has_more and len(page(5).results) == 5
    assert not page(5, offset=5).has_more and len(page(5, offset=5).results) == 2
    assert not page(7).has_more and page(6).has_more
    assert page(6, weak=True).has_more and not page(7, weak=True).has_more
    weak = [backscroll_search("the webhook of kubernetes helm charts", limit=n, rerun=True) for n in (1, 50)]
    assert not weak[0].results and len(weak[1].weak_matches) > 1, "nothing strong, and weak matches to page"
    assert not weak[0].has_more, "no results, so no next page of them: an agent's `while has_more` loop ends"


def test_every_page_of_a_search_is_cut_from_one_ranking(session_builder, backscroll_index, backscroll_search):
    """A later page reaches further down the same ranking: an agent's ``while has_more`` loop sees each hit once,
    and the first page is the page a search of that size shows. (Lists read deeper for a later page reordered
    the whole ranking: pages repeated and skipped hits.)"""
    noise = "ledger invoice refund payout receipt coupon tax checkout cart order".split()
    for n in range(12):
        s = session_builder.claude(project="shop")
        for i in range(10):
            s.user(f"payment webhook retry {n}.{i} " + " ".join(noise[: (n + i) % 10]))
            s.assistant(f"webhook retry, webhook retry, the payment retry {n}.{i}: " + " ".join(noise) * (i % 4))
    backscroll_index()
    for by_session in (False, True):
        seen, offset = [], 0
        while True:
            page = backscroll_search("payment webhook retry", limit=10, offset=offset, rerun=True, weak=True,
                                     by_session=by_session)
            seen += [g.session_id for g in page.sessions] if by_session else [h.record_id for h in page.results]
            offset += 10
            if not page.has_more:
                break
        first = backscroll_search("payment webhook retry", limit=10, rerun=True, weak=True, by_session=by_session)
        assert offset > 10 and len(seen) == len(set(seen)), "no hit on two pages"
        if not by_session:  # (240 records hold the words: past the ranking, 50 deep, a deeper one follows)
            assert len(seen) == 240 and not any("deeper" in n for n in page.notes)
            whole = backscroll_search("payment webhook retry", limit=240, rerun=True, weak=True)
            assert seen == [h.record_id for h in whole.results], "one ranking, however it is paged"
        assert not any("deeper" in n for n in first.notes), "page 1 says nothing of the ranking's depth"
        assert seen[:10] == ([g.session_id for g in first.sessions] if by_session else
                             [h.record_id for h in first.results])
    every = backscroll_search("payment webhook retry", limit=20, rerun=True, weak=True, by_session=True)
    assert len(every.sessions) == 12 and not every.has_more and not any("deeper" in n for n in every.notes)


def test_the_first_hits_are_the_same_whatever_the_limit(session_builder, backscroll_index, backscroll_search):
    """MCP asks for 5, the command line for 10, an agent for 50: one ranking, so one first hit. (Lists read
    5 x limit deep let in records the fusion put above the first page's: long ones holding every word, which
    BM25 ranks below many short ones holding two.)"""
    filler = " ".join(f"line{i} of the build log" for i in range(400))
    pairs = ("payment webhook", "webhook retry", "payment retry")
    for n in range(12):
        s = session_builder.claude(project="shop")
        for i in range(20):
            s.user(f"{pairs[(n + i) % 3]} {n}.{i}")
        if n % 4 == 0:
            s.tool("make logs", f"{filler} payment webhook retry {filler}")
    backscroll_index()
    firsts = [[h.record_id for h in backscroll_search("payment webhook retry", mode="lexical", limit=n, rerun=True,
                                                        weak=True).results[:5]] for n in (5, 10, 20, 50, 200)]
    assert all(f == firsts[0] for f in firsts), firsts


def test_pages_within_a_token_budget_follow_on_without_a_gap_or_a_repeat(session_builder, backscroll_index,
                                                                         backscroll_search):
    """Under ``max_tokens`` a page keeps a prefix of its results, so the next page, at ``offset + shown``, goes on
    from the last one shown; a budget smaller than any result still shows the first, cut, and says there is more."""
    s = session_builder.claude(project="shop")
    for i in range(14):
        s.user(f"retry backoff payment webhook, attempt {i}: " + "the gateway timed out. " * (1 + 60 * (i % 3 == 1)))
    backscroll_index()

    def page(offset, **kw):
        return backscroll_search("retry backoff payment webhook", mode="lexical", limit=5, offset=offset,
                                 max_chars=0, rerun=True, **kw)

    whole, offset = [], 0
    while True:
        p = page(offset)
        whole += [h.record_id for h in p.results]
        offset += len(p.results)
        if not p.has_more:
            break
    seen, offset = [], 0
    for _ in range(40):
        p = page(offset, max_tokens=120)
        assert p.results, "never an empty page while there is more"
        seen += [h.record_id for h in p.results]
        offset += len(p.results)
        if not p.has_more:
            break
    assert seen == whole and len(whole) == 14
    tiny = page(0, max_tokens=1)
    assert len(tiny.results) == 1 and tiny.has_more


def test_a_budget_keeps_a_prefix_of_the_results_so_the_next_page_starts_after_it():
    from backscroll.retrieval.budget import FRAME, chars_of, fitted
    from backscroll.types import Filters, Hit, SearchResult

    def hit(n, chars):
        return Hit(rank=n, score=1.0, record_id=f"r{n}", session_id="s", agent="claude", project=None, cwd=None,
                   role="user", content_type="text", tool_name=None, is_echo=False, timestamp=None,
                   source_path="x.jsonl", line=n, text="word " * (chars // 5), text_truncated=False, snippet="",
                   matched_by=("lexical",))

    result = SearchResult(query="word", mode="lexical", filters=Filters(),
                          results=(hit(1, 300), hit(2, 50), hit(3, 5000), hit(4, 40)))
    room = FRAME + chars_of(result.results[0]) + chars_of(result.results[1]) + 100
    page = fitted(result, room // 4)  # (the first two whole, the third no longer worth cutting)
    assert [h.record_id for h in page.results] == ["r1", "r2"] and page.has_more, "r4 waits on the next page"


def test_a_budget_bounds_the_whole_json_answer(session_builder, backscroll_index, backscroll_search):
    """Every field counts, and by session each hit twice (it is listed in its session too)."""
    import json

    for n in range(6):
        s = session_builder.claude(project="shop")
        for i in range(5):
            s.user(f"retry backoff payment webhook, attempt {n}.{i}: " + "the gateway timed out. " * 20)
    backscroll_index()
    for by_session in (False, True):
        for budget in (1000, 2000, 4000):
            answer = backscroll_search("retry backoff payment webhook", mode="lexical", limit=20, max_chars=0,
                                       rerun=True, max_tokens=budget, by_session=by_session)
            assert answer.results and len(json.dumps(answer.to_dict())) <= 4 * budget * 1.1, (budget, by_session)


def test_a_page_past_the_end_of_an_answer_holds_no_weak_matches(session_builder, backscroll_index,
                                                                backscroll_search):
    """Past the last session of a question that has an answer, a page is empty: its weak matches would say
    "nothing strong" of a question whose answer the earlier pages showed."""
    for n in range(3):
        session_builder.claude(project="shop").user(f"the payment webhook retry uses exponential backoff ({n})")
    blog = session_builder.claude(project="blog")
    for i in range(30):
        blog.user(f"draft {i}: retry the spell check of chapter {i}")
    backscroll_index()
    pages = [backscroll_search("payment webhook retry backoff", mode="lexical", limit=1, offset=k, by_session=True,
                               rerun=True) for k in range(5)]
    assert all(p.sessions for p in pages[:3]) and not pages[3].sessions
    assert not pages[3].weak_matches and not pages[4].weak_matches


def test_by_session_on_the_command_line(shop, cli):
    cli("index")
    r = cli("search", "--no-sync", "--by-session", "--weak", "job", "queue", "postgres")
    assert r.exit_code == 0
    assert r.stdout.startswith("1. ") and "backscroll show" in r.stdout
    page = cli("search", "--no-sync", "--by-session", "--weak", "-n", "1", "--offset", "1", "job", "queue", "postgres")
    assert page.exit_code == 0 and page.stdout.startswith("2. "), "a later page numbers its sessions on"
    past = cli("search", "--no-sync", "--offset", "900", "job", "queue", "postgres")
    assert past.exit_code == 0 and past.stdout == ""
    assert "No matches past --offset 900" in past.stderr and "try other words" not in past.stderr
    first = cli("search", "--no-sync", "--by-session", "--weak", "-n", "1", "job", "queue", "postgres")
    assert "more sessions: --offset 1" in first.stderr, "the first of two sessions says where the next page starts"
    assert "more sessions" not in page.stderr and "more" not in past.stderr
    ids = cli("search", "--no-sync", "--ids", "--offset", "900", "job", "queue", "postgres")
    assert ids.stdout == "" and "No matches past --offset 900" in ids.stderr


# -- echoes -----------------------------------------------------------------------------------------

def test_an_echo_comes_first_when_it_alone_matches(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude(project="shop")
    s.user("list the files")
    s.tool("ls", "README.md\nfrobnicator.py\nsetup.cfg")
    s.search_echo("frobnicator retry budget", "1. claude · shop · the frobnicator retry budget is 3 attempts")
    backscroll_index()
    result = backscroll_search("frobnicator retry budget", content_type="tool", mode="lexical")
    assert result.results[0].is_echo, [(h.is_echo, h.snippet[:60]) for h in result.results]


@pytest.mark.parametrize("word, meant, typo", [("harbor", "harbour", True), ("kuberntes", "kubernetes", True),
                                               ("redis", "reds", False), ("grafana", "grana", False),
                                               ("firebase", "figurebase", False), ("ansible", "visible", False)])
def test_only_a_near_misspelling_counts_as_a_word_the_history_holds(word, meant, typo):
    from backscroll.retrieval.spelling import surely_a_typo

    assert surely_a_typo(word, meant) is typo


def test_a_question_is_judged_on_the_same_hits_whatever_the_limit(session_builder, backscroll_index,
                                                                  backscroll_search):
    """A search of one result, of fifty, a weak one and a hook's (20 asked) read the evidence of the same
    hits (``results.EVIDENCE_HITS``), so a question is judged alike on every surface."""
    notes = session_builder.claude(project="ops", start="2026-10-01T09:00:00Z")
    for n in range(30):  # more hits than the judgement reads, holding more or less of the question
        notes.user(f"note {n}: the deploy ran" + (" and the canary rollback held" if n % 7 == 3 else ""))
        notes.assistant(f"ok {n}" + (", canary rollback noted in the runbook" if n % 11 == 5 else ""))
    backscroll_index()
    question = "deploy canary rollback runbook"
    read = {(limit, weak, by): backscroll_search(question, now=NOW, limit=limit, weak=weak, by_session=by,
                                                 rerun=True).evidence
            for limit in (1, 2, 10, 20, 50) for weak in (False, True) for by in (False, True)}
    assert len(set(read.values())) == 1, read


def test_every_use_and_mode_has_a_fit_of_the_judgement():
    from backscroll.retrieval import relevance

    for use in relevance.USES:
        for mode in ("hybrid", "lexical", "semantic"):
            fit = relevance.model(use, mode)
            assert len(fit.weights) == len(relevance.FEATURES) and 0 < fit.point < 1, (use, mode)
    with pytest.raises(RuntimeError, match="no fit for a search in fuzzy mode"):
        relevance.model("search", "fuzzy")


def test_the_meaning_only_note_is_for_searches_that_asked_for_words_too(shop, backscroll_index, backscroll_search):
    backscroll_index()
    found = backscroll_search("background jobs queue", mode="semantic", weak=True, rerun=True)
    assert found.results and not any("matches by meaning only" in n for n in found.notes), found.notes


def test_no_next_page_is_promised_past_the_largest_offset(session_builder, backscroll_index, backscroll_search,
                                                          monkeypatch):
    from backscroll.retrieval import searching

    s = session_builder.claude(project="shop")
    for i in range(30):
        s.user(f"retry backoff payment webhook, attempt {i}")
    backscroll_index()
    monkeypatch.setattr(searching, "MAX_LIMIT", 20)  # (the offset's bound, 1000, as if it were 20)
    page = backscroll_search("retry backoff payment webhook", mode="lexical", limit=10, offset=15, rerun=True)
    assert len(page.results) == 10 and not page.has_more
    assert any("no page starts past offset 20" in n for n in page.notes)
    assert backscroll_search("retry backoff payment webhook", mode="lexical", limit=5, offset=10, rerun=True).has_more
