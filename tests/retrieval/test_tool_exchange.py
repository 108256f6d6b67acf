"""A tool output carries the words of the call that produced it (``retrieval.tool_exchange``)."""

from helpers import webhook_session

from backscroll.indexes.lexical_search import shares
from backscroll.retrieval.tool_exchange import Exchanges, is_receipt, outputs_to_add, receipts, with_outputs, without


def test_an_output_joins_the_tool_list_behind_its_call_and_knows_its_call():
    # 1 is a call whose output 2 no list found; 4 is an output found on its own (its call is 3)
    partners = {1: (True, [(2, False)]), 4: (False, [(3, True)])}
    assert outputs_to_add([1, 4], partners) == [2]
    ex = with_outputs([1, 4], partners, allowed={2})
    assert ex.ranked == [1, 2, 4], "the output right behind its call, the rest in the order found"
    assert ex.calls == {2: (1,), 4: (3,)}
    filtered = with_outputs([1, 4], partners, allowed=set())
    assert filtered.ranked == [1, 4], "an output the filters leave out does not join"
    assert filtered.calls == {4: (3,)}
    both = with_outputs([2, 1], {1: (True, [(2, False)]), 2: (False, [(1, True)])}, allowed={2})
    assert both.ranked == [2, 1], "an output the list found keeps its place"


def test_an_outputs_share_counts_the_words_its_call_holds_once():
    weights = {"commit": 1.0, "stripe": 2.0, "webhook": 2.0}
    held = {1: frozenset({"stripe", "webhook"}), 2: frozenset({"commit"})}
    plain = shares(weights, held, [1, 2])
    assert plain == {1: 0.8, 2: 0.2}
    credited = shares(weights, held, [1, 2], also={2: held[1]}, also_share=1.0)
    assert credited == {1: 0.8, 2: 1.0}, "the output holds what it says and what its call asked"
    assert shares(weights, held, [2], also={2: frozenset({"commit", "stripe"})}, also_share=0.5) == {2: 0.4}
    odd = {"a": 0.1, "b": 0.7, "c": 0.2, "d": 0.3}  # sums that float rounding could tell apart
    tie = shares(odd, {1: frozenset("abc"), 2: frozenset("c")}, [1, 2], also={2: frozenset("ab")}, also_share=1.0)
    assert tie[1] == tie[2], "an output holding just its call's words ties with the call exactly (the call first)"


def test_a_receipt_repeats_its_call_and_a_printed_result_does_not():
    write = "Write\nfile_path: /home/dev/shop/docs/agent-memory.md\ncontent: # Agent memory\nRun a search first."
    assert is_receipt("File created successfully at: /home/dev/shop/docs/agent-memory.md", [write])
    path = "migrations/versions/b7e31d0c5a62_index_idempotency_keys.py"
    patch = f"apply_patch *** Begin Patch\n*** Update File: {path}\n+op.create_index('ix_keys_created')"
    assert is_receipt(f"Success. Updated the following files:\nM {path}", [patch])
    assert is_receipt("", ["rm -rf build"]), "an empty output says nothing"
    shell = ("python manage.py shell -c \"o = Order.objects.get(pk=48213); "
             "print([(l.sku, l.total) for l in o.lines.all()], o.total)\"")
    assert not is_receipt("[('TSHIRT-BLK-M', Decimal('34.99')), ('CAP-NAVY', Decimal('35.02'))] 69.01", [shell]), \
        "a short printed result is an answer"
    assert not is_receipt("PostgreSQL 16.4 on x86_64-pc-linux-gnu", ["psql -c 'select version()'"])
    assert not is_receipt("412 messages.log", ["wc -l messages.log"]), "the one new word is the answer"
    assert not is_receipt("app/products/[id]/page.tsx", ["find app -name page.tsx"]), "the path it found"
    todos = ("Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
             "progress. Please proceed with the current tasks if applicable")
    assert is_receipt(todos, ['TodoWrite todos: [{"content": "migrate invoices to bigint"}]']), "boilerplate"
    assert is_receipt("Plan updated", ["update_plan"]) and is_receipt("(no output)", ["ls build"])
    patched = "apply_patch\n*** Update File: pay/cap.py"
    assert is_receipt("Success. Updated the following files:\nM pay/cap.py", [patched]), "a short path too"
    report = "\n".join(f"- the webhook handler {w} its retries" for w in ("logs", "drops", "doubles"))
    assert not is_receipt(report, ["Task: review the webhook handler"]), "a listing in plain words is an answer"
    usage = "Usage: backscroll [OPTIONS] COMMAND\n\nCommands:\n  index   Index new sessions.\n  search  Find records."
    assert not is_receipt(usage, ["backscroll --help"])


def test_a_receipt_gets_no_share_of_its_call_and_does_not_join():
    ex = Exchanges(ranked=[1, 2, 3, 4], calls={2: (1,), 4: (3,)})  # 2 joined behind call 1; 4 was listed
    kept = without(ex, tool=[1, 3, 4], left_out={2, 4})
    assert kept.ranked == [1, 3, 4], "a receipt that joined leaves; one the list found stays, by its own words"
    assert kept.calls == {}
    texts = {1: "git log --oneline -- app/webhooks", 2: "a41c9d2 refactor: parse the payload",
             3: "Write file_path: /srv/a.py", 4: "File created successfully at: /srv/a.py"}
    assert receipts(ex, texts) == {4}


def test_the_output_answers_a_question_asked_in_the_words_of_its_call(session_builder, backscroll_index,
                                                                        backscroll_search):
    """"Which commit broke the stripe webhook signature parsing": the listing of commits holds one word of
    it ("parse"), the git command the rest. Credited with its call's words, the listing comes first,
    ahead of the call (which printed nothing) and of prose about stripe webhooks."""
    webhook_session(session_builder)
    backscroll_index()
    for mode in ("lexical", "hybrid"):
        res = backscroll_search("which commit broke the stripe webhook signature parsing", mode=mode, limit=5,
                                max_chars=0, weak=True)  # (in so small a history "commit" is an unknown word)
        assert "a41c9d2 refactor" in res.results[0].text, (mode, [h.text[:60] for h in res.results])


def test_asked_about_the_command_the_call_comes_first_and_its_output_joins_behind_it(
        session_builder, backscroll_index, backscroll_search):
    """The output holds none of the query's words: before, it was not even a candidate; now it comes
    right behind the call whose words it carries (and no further than it)."""
    webhook_session(session_builder)
    backscroll_index()
    res = backscroll_search("git log oneline webhooks", mode="lexical", content_type="tool", limit=5, max_chars=0)
    texts = [h.text for h in res.results]
    assert texts[0].startswith("git log --oneline"), texts
    assert texts[1].startswith("a41c9d2 refactor"), texts
    assert [h.match for h in res.results[:2]] == ["words", "command"], "it holds none of the words itself"


def test_an_output_outside_the_filters_does_not_join(session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.at("2026-03-02T09:59:00Z").user("run the long export")
    s.at("2026-03-02T09:59:30Z")
    call = s.tool_use("Bash", {"command": "python -m exports.orders_parquet --month 2026-02", "description": "x"})
    s.at("2026-03-02T11:30:00Z").tool_result(call, "wrote 412 files, 11.2 GiB")
    backscroll_index()
    inside = backscroll_search("orders parquet export", mode="lexical", content_type="tool", max_chars=0,
                               since="2026-03-02T09:00:00Z", until="2026-03-02T10:00:00Z")
    assert [h.text[:16] for h in inside.results] == ["python -m export"], "the output ran past --until"
    every = backscroll_search("orders parquet export", mode="lexical", content_type="tool", max_chars=0)
    assert [h.text[:16] for h in every.results] == ["python -m export", "wrote 412 files,"]


def test_a_receipt_does_not_follow_its_write_into_the_results(session_builder, backscroll_index, backscroll_search):
    """Searching what a file says finds the Write that wrote it, not also "File created successfully"."""
    s = session_builder.claude()
    s.user("write down how agents should look up earlier decisions")
    call = s.tool_use("Write", {"file_path": "/home/dev/shop/docs/agent-memory.md",
                                "content": "# Agent memory\nBefore re-deciding the job queue, run backscroll search."})
    s.tool_result(call, "File created successfully at: /home/dev/shop/docs/agent-memory.md")
    backscroll_index()
    for mode in ("lexical", "hybrid"):
        texts = [h.text for h in backscroll_search("re-deciding the job queue", mode=mode, max_chars=0).results]
        assert any(t.startswith("Write") for t in texts), (mode, texts)
        assert not any(t.startswith("File created") for t in texts), (mode, texts)


def test_a_quoted_phrase_stays_a_requirement_for_outputs_found_through_their_call(
        session_builder, backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("how do the workers claim jobs?")
    s.tool("psql -c \"select id from jobs_job where state = 'ready' for update skip locked limit 1\"",
           "  id\n------\n 4811\n(1 row)")
    backscroll_index()
    phrased = [h.text for h in backscroll_search('"skip locked" jobs', mode="lexical", max_chars=0).results]
    assert phrased[0].startswith("psql") and not any("4811" in t for t in phrased), "the row count lacks the phrase"
    plain = [h.text for h in backscroll_search("skip locked jobs", mode="lexical", max_chars=0).results]
    assert plain[0].startswith("psql") and "4811" in plain[1], plain


def test_a_huge_write_is_compared_by_its_start(session_builder, backscroll_index, backscroll_search):
    """The receipt test reads the start of a call (a Write names its path first), not all 200 KB of it."""
    s = session_builder.claude()
    big = "\n".join(f"ledger reconciliation row {n}: settled" for n in range(6000))
    call = s.tool_use("Write", {"file_path": "/srv/ledger/reconciliation.txt", "content": big})
    s.tool_result(call, "File created successfully at: /srv/ledger/reconciliation.txt")
    backscroll_index()
    texts = [h.text[:5] for h in backscroll_search("settled row", mode="lexical", max_chars=0).results]
    assert texts == ["Write"], texts


def test_an_output_found_by_its_command_says_so_in_human_output():
    from backscroll.cli.render import _entry
    from backscroll.types import Hit

    hit = Hit(rank=2, score=0.5, record_id="r#1", session_id="s", agent="claude", project="p", cwd=None,
              role="tool", content_type="tool", tool_name="Bash", is_echo=False, timestamp=None,
              source_path="/x/s.jsonl", line=4, text="a41c9d2 refactor", text_truncated=False,
              snippet="a41c9d2 refactor", matched_by=("lexical",), match="command", strength=0.6)
    assert "(found by its command)" in _entry(hit)[0].plain
