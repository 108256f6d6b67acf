"""Scope first, then judge (#48): project, session and dates leave a scope, and the judgement reads the question's
evidence there; when nothing in it answers, the matches outside it follow as ``also_matching``. Real stores."""

import pytest


@pytest.fixture
def two_projects(session_builder, backscroll_index):
    billing = session_builder.claude(project="billing")
    billing.user("InvoiceReconciler.reconcile_batch deadlocks when two workers pick the same batch")
    billing.assistant("InvoiceReconciler.reconcile_batch now takes a row lock with SELECT ... FOR UPDATE SKIP LOCKED "
                      "so two workers never reconcile the same batch.")
    web = session_builder.claude(project="web")
    web.user("the invoice page renders the reconcile button twice")
    web.assistant("The batch list component mounted the reconcile button in both the header and the row; "
                  "it is in the row only now.")
    backscroll_index(embed=False)


def test_an_identifier_absent_from_the_project_asked_is_nothing_strong_with_the_exact_hits_beside(
        two_projects, backscroll_search):
    result = backscroll_search("InvoiceReconciler.reconcile_batch", project="web", mode="lexical")
    assert result.results == ()
    assert result.also_matching and all(h.project == "billing" for h in result.also_matching)
    assert "InvoiceReconciler" in result.also_matching[0].text
    assert "project" in result.dropped_filters
    assert any("nothing strong where --project looks" in n for n in result.notes), result.notes


def test_in_its_own_project_the_identifier_is_found(two_projects, backscroll_search):
    result = backscroll_search("InvoiceReconciler.reconcile_batch", project="billing", mode="lexical")
    assert result.results and result.results[0].project == "billing"
    assert not result.also_matching


def test_strict_keeps_the_scope_alone(two_projects, backscroll_search):
    result = backscroll_search("InvoiceReconciler.reconcile_batch", project="web", mode="lexical", strict=True)
    assert result.results == () and result.also_matching == ()


def test_the_command_line_says_where_the_matches_are(two_projects):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    r = CliRunner().invoke(app, ["search", "InvoiceReconciler.reconcile_batch", "-p", "web", "--mode", "lexical"])
    assert r.exit_code == 0
    assert "Also matching without --project web (outside what they leave)" in r.output
    for fmt in (["--ids"], ["--format", "tsv"]):  # (a line carries no mark: a script takes each for one in scope)
        r = CliRunner().invoke(app, ["search", "InvoiceReconciler.reconcile_batch", "-p", "web", "--mode", "lexical",
                                     *fmt])
        assert r.exit_code == 0 and r.stdout == "", (fmt, r.stdout)
        assert "No matches with those filters." in r.stderr and "left out of these lines: " in r.stderr \
            and "also matching without --project web" in r.stderr and "--json or -f jsonl lists them" in r.stderr


def test_a_date_filter_left_behind_is_named_as_it_was_given(two_projects):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    r = CliRunner().invoke(app, ["search", "InvoiceReconciler.reconcile_batch", "--until", "1990-01-01", "--mode",
                                 "lexical"])
    assert r.exit_code == 0
    assert "Also matching without --until 1990-01-01 (outside what they leave)" in r.output, r.output


def test_a_project_given_as_a_path_that_is_not_indexed_names_the_project_it_found(two_projects, tmp_path,
                                                                                   monkeypatch):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    repo = tmp_path / "shop-api"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    r = CliRunner().invoke(app, ["search", "--no-sync", "invoice", "-p", "."])
    assert r.exit_code != 0 and "no project '.' is indexed (the project at . is 'shop-api')" in r.output, r.output


def test_a_filter_left_behind_is_shown_as_text_never_as_markup_or_control_characters(capsys):
    from backscroll.cli.render import print_result
    from backscroll.types import Filters, Hit, SearchResult

    other = Hit(rank=1, score=1.0, record_id="r#0", session_id="s", agent="claude", project="billing", cwd=None,
                role="user", content_type="text", text="the batch", snippet="the batch", timestamp=None,
                source_path="", line=1, tool_name=None, is_echo=False, text_truncated=False, matched_by=())
    print_result(SearchResult(query="q", mode="lexical", filters=Filters(project="[bold]web\x1b[2J"), results=(),
                              also_matching=(other,), dropped_filters=("project",)), color=False)
    out = capsys.readouterr().out
    assert "Also matching without --project [bold]web" in out and "\x1b" not in out, repr(out)


def test_a_match_inside_the_scope_is_never_shown_as_outside_it():
    """The scope's judgement may find its own records weak (their words are common there) while the wide search
    finds one strong: that record is not "outside" (seen on real logs: -p ielts listed an ielts hit as outside)."""
    from dataclasses import replace

    from backscroll.retrieval.policy.hints import outside_scope
    from backscroll.types import Filters, Hit, SearchResult

    def hit(rowid, project, when="2026-10-02T09:00:00.000Z"):
        return Hit(rank=rowid, score=1.0, record_id=f"r{rowid}", session_id=f"s{rowid}", agent="claude",
                   project=project, cwd=None, role="assistant", content_type="text", tool_name=None, is_echo=False,
                   timestamp=when, source_path="x.jsonl", line=rowid, text="essay checker", text_truncated=False,
                   snippet="essay checker", matched_by=("lexical",), rowid=rowid)

    wide = SearchResult(query="essay checker", mode="hybrid", filters=Filters(),
                        results=(hit(1, "ielts"), hit(2, "blog"), hit(3, "ielts", "2025-01-01T00:00:00.000Z")))
    scoped = Filters(project="ielts")
    empty = SearchResult(query="essay checker", mode="hybrid", filters=scoped, results=())
    found = outside_scope(empty, scoped, lambda f: wide, strict=False)
    assert [h.record_id for h in found.also_matching] == ["r2"]
    dated = Filters(project="ielts", since="2026-01-01T00:00:00Z")
    found = outside_scope(replace(empty, filters=dated), dated, lambda f: wide, strict=False)
    assert [h.record_id for h in found.also_matching] == ["r2", "r3"], "an ielts record before --since is outside"
    undated = SearchResult(query="essay checker", mode="hybrid", filters=Filters(), results=(hit(4, "ielts", None),))
    until = Filters(project="ielts", until="2027-01-01T00:00:00Z")
    found = outside_scope(replace(empty, filters=until), until, lambda f: undated, strict=False)
    assert [h.record_id for h in found.also_matching] == ["r4"], "a record with no time is outside any date filter"


def test_a_hinted_search_never_lists_a_record_the_hint_holds_as_not_tagged_that_way():
    """``--role user`` held a user's record back as weak; the search without the hint found it strong and listed it
    under "Also matching without --role user (these records are not tagged that way)", and in weak_matches too."""
    from backscroll.retrieval.policy.hints import also_matching
    from backscroll.types import Filters, Hit, SearchResult

    def hit(rowid, role):
        return Hit(rank=rowid, score=1.0, record_id=f"r{rowid}", session_id=f"s{rowid}", agent="claude",
                   project="shop", cwd=None, role=role, content_type="text", tool_name=None, is_echo=False,
                   timestamp=None, source_path="x.jsonl", line=rowid, text=f"skip locked queue {rowid}",
                   text_truncated=False, snippet="", matched_by=("lexical",), rowid=rowid)

    hinted = Filters(role="user")
    weak = SearchResult(query="skip locked", mode="hybrid", filters=hinted, results=(), weak_matches=(hit(1, "user"),))
    wide = SearchResult(query="skip locked", mode="hybrid", filters=Filters(),
                        results=(hit(1, "user"), hit(2, "assistant"), hit(3, "user"), hit(4, "assistant")))
    found = also_matching(weak, hinted, lambda f: wide, strict=False)
    assert [h.record_id for h in found.also_matching] == ["r2", "r4"]
