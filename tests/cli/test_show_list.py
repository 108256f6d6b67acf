"""Reading what was found: `show` (record in context, whole session) and `list`."""

import json

import pytest
from typer.testing import CliRunner

import backscroll
from backscroll.cli.app import app
from backscroll.cli.render_session import fold
from backscroll.errors import NotFoundError


@pytest.fixture
def session(session_builder, backscroll_index):
    s = session_builder.claude(project="shop")
    for i in range(1, 9):
        s.user(f"message number {i}")
    s.tool("pytest -q", "\n".join(f"line {n}" for n in range(1, 41)))
    s.summary("Numbers and a long test run")
    backscroll_index()
    return s


def rows_of(home, sql, params=()):
    from helpers import rows

    return [r["record_id"] for r in rows(home, sql, params)]


def record_id(home, text):
    from helpers import rows

    return rows(home, "SELECT record_id FROM records WHERE text = ?", (text,))[0]["record_id"]


def test_context_window_around_a_record(session, backscroll_home):
    rid = record_id(backscroll_home, "message number 5")
    view = backscroll.show(rid, context=2, config=backscroll_home.config(), sync=True)
    assert [h.text for h in view.records] == [f"message number {i}" for i in (3, 4, 5, 6, 7)]
    assert view.focus == rid and view.total == 10
    assert [h.rank for h in view.records] == [3, 4, 5, 6, 7], "ranks are positions in the session"


def test_a_record_id_without_its_block_names_its_first_block(session, backscroll_home):
    rid = record_id(backscroll_home, "message number 5")
    assert rid.endswith("#0")
    view = backscroll.show(rid.removesuffix("#0"), context=0, config=backscroll_home.config(), sync=True)
    assert [h.text for h in view.records] == ["message number 5"] and view.focus == rid


def test_the_start_of_a_record_id_names_its_record_as_search_prints_it(session, backscroll_home, session_builder,
                                                                      backscroll_index):
    from backscroll.errors import AmbiguousIdError

    rid = record_id(backscroll_home, "message number 5")
    view = backscroll.show(rid[:8], context=0, config=backscroll_home.config())
    assert [h.text for h in view.records] == ["message number 5"] and view.focus == rid
    c = session_builder.codex(project="infra")  # (its record ids: <session>:<line>#<block>)
    for i in range(40):
        c.user(f"codex prompt {i}")
    backscroll_index()
    some = rows_of(backscroll_home, "SELECT record_id FROM records WHERE record_id LIKE ? ORDER BY record_id",
                   (f"{c.session_id}:1%",))
    every = rows_of(backscroll_home, "SELECT record_id FROM records WHERE session_id = ?", (c.session_id,))
    stem = next(r.split("#")[0] for r in every if any(o != r and o.startswith(r.split("#")[0]) for o in every))
    assert backscroll.show(stem, context=0, config=backscroll_home.config()).focus == f"{stem}#0", \
        "a whole message id without its block is that message, though it starts others"
    with pytest.raises(AmbiguousIdError, match=f"'{c.session_id}:1' is the start of {len(some)} record ids"):
        backscroll.show(f"{c.session_id}:1", config=backscroll_home.config())


def test_a_prefix_starting_a_session_and_another_sessions_record_names_neither(session, backscroll_home,
                                                                               session_builder, backscroll_index):
    from backscroll.errors import AmbiguousIdError

    rid = record_id(backscroll_home, "message number 5")
    other = session_builder.claude(session_id=rid[:8] + "-0000-4000-8000-000000000000")
    other.user("a session whose id starts as a record of another does")
    backscroll_index()
    cfg = backscroll_home.config()
    for ask in (lambda: backscroll.show(rid[:8], config=cfg), lambda: backscroll.resume(rid[:8], config=cfg)):
        with pytest.raises(AmbiguousIdError, match=f"start of session {other.session_id} and of record {rid}"):
            ask()
    assert backscroll.show(other.session_id, config=cfg).records[0].text.startswith("a session whose id")
    assert backscroll.show(rid[:13], context=0, config=cfg).focus == rid


def test_a_prefix_of_a_session_whose_parts_ids_extend_its_own_names_the_session(backscroll_home, backscroll_index,
                                                                                session_builder):
    """Kimi's earlier parts (``<id>~1``) and subagents (``<id>:agent-01:…`` records) extend the session's id, and a
    Codex session's records its own: a prefix of the session is the session, however many such records there are."""
    sid = "7f3e9a12-1111-4222-8333-444455556666"
    folder = backscroll_home.home / ".kimi" / "sessions" / "abcd" / sid
    for name, pair in (("context.jsonl", ("fix the login bug", "looking at it")),
                       ("context_1.jsonl", ("an earlier part", "ok")),
                       ("subagents/agent-01/context.jsonl", ("a subagent's task", "its answer"))):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("".join(json.dumps({"role": r, "content": t}) + "\n"
                                           for r, t in zip(("user", "assistant"), pair, strict=True)))
    codex = session_builder.codex(project="infra")
    for i in range(30):
        codex.user(f"codex prompt {i}")
    backscroll_index()
    cfg = backscroll_home.config()
    for prefix, session in ((sid[:8], sid), (sid[:-1], sid), (codex.session_id[:8], codex.session_id)):
        assert backscroll.show(prefix, config=cfg).session["session_id"] == session, prefix
        assert backscroll.resume(prefix, config=cfg).session_id == session, prefix


def test_context_window_at_the_session_edges(session, backscroll_home):
    first = backscroll.show(record_id(backscroll_home, "message number 1"), context=3,
                            config=backscroll_home.config(), sync=True)
    assert [h.text for h in first.records] == [f"message number {i}" for i in (1, 2, 3, 4)]
    last_text = "\n".join(f"line {n}" for n in range(1, 41))
    last = backscroll.show(record_id(backscroll_home, last_text), context=1, config=backscroll_home.config(), sync=True)
    assert [h.text for h in last.records] == ["pytest -q", last_text]


def test_whole_session_with_limit_and_offset(session, backscroll_home):
    cfg = backscroll_home.config()
    whole = backscroll.show(session.session_id, config=cfg, sync=True)
    assert len(whole.records) == 10 and whole.focus is None and whole.session["title"] == "Numbers and a long test run"
    page = backscroll.show(session.session_id, limit=3, offset=4, config=cfg, sync=True)
    assert [h.text for h in page.records] == ["message number 5", "message number 6", "message number 7"]
    assert backscroll.show(session.session_id[:8], limit=1, config=cfg, sync=True).records[0].text == "message number 1"


def test_subagent_session_shows_its_parent(session_builder, backscroll_index, backscroll_home):
    parent = session_builder.claude()
    parent.user("profile checkout")
    sub = parent.subagent()
    sub.assistant("the N+1 query is in CartSerializer.get_items")
    backscroll_index()
    rid = record_id(backscroll_home, "the N+1 query is in CartSerializer.get_items")
    r = CliRunner().invoke(app, ["show", rid])
    assert r.exit_code == 0
    assert f"subagent of session {parent.session_id}" in r.stdout


def test_long_outputs_fold_unless_full(session, backscroll_home):
    sid = session.session_id
    folded = CliRunner().invoke(app, ["show", sid])
    assert "line 1\n" in folded.stdout and "line 20\n" not in folded.stdout and "line 40" in folded.stdout
    assert "more lines (--full shows them)" in folded.stdout
    assert "$ pytest -q" in folded.stdout
    full = CliRunner().invoke(app, ["show", sid, "--full"])
    assert "line 20\n" in full.stdout and "--full shows them" not in full.stdout


def test_fold_is_pure_and_keeps_head_and_tail():
    lines, hidden = fold("\n".join(str(i) for i in range(100)), 12)
    assert lines[:2] == ["0", "1"] and lines[-2:] == ["98", "99"] and hidden == 100 - len(lines)
    assert fold("a\nb", 12) == (["a", "b"], 0)


def test_unknown_ids_are_usage_errors_with_a_hint(session, backscroll_home):
    with pytest.raises(NotFoundError) as exc:
        backscroll.show("no-such-id#0", config=backscroll_home.config(), sync=True)
    assert exc.value.exit_code == 2 and exc.value.hint is not None and "backscroll list" in exc.value.hint
    r = CliRunner().invoke(app, ["show", "no-such-id"])
    assert r.exit_code == 2 and "backscroll search" in r.stderr


def test_show_json_uses_the_hit_shape(session, backscroll_home):
    rid = record_id(backscroll_home, "message number 2")
    r = CliRunner().invoke(app, ["show", rid, "-C", "1", "--json"])
    data = json.loads(r.stdout)
    assert data["kind"] == "record" and data["focus"] == rid and data["total"] == 10
    hit_keys = set(json.loads(CliRunner().invoke(app, ["search", "message", "--json", "--mode", "lexical"]).stdout)
                   ["results"][0])
    assert all(set(rec) == hit_keys for rec in data["records"])
    assert data["session"]["session_id"] == session.session_id


def test_paging_options_are_for_a_session_and_context_for_a_record(session, backscroll_home):
    rid = record_id(backscroll_home, "message number 2")
    for args in (["-n", "2"], ["--offset", "1"]):
        r = CliRunner().invoke(app, ["show", "--no-sync", rid, *args])
        assert r.exit_code == 2 and "page a whole session, not a record" in r.stderr, args
        assert "-C N" in r.stderr and session.session_id in r.stderr
    r = CliRunner().invoke(app, ["show", "--no-sync", session.session_id, "-C", "1"])
    assert r.exit_code == 2 and "applies to a record id" in r.stderr
    page = CliRunner().invoke(app, ["show", "--no-sync", session.session_id, "-n", "2"])
    assert page.exit_code == 0 and f"show {session.session_id} --offset 2 --limit 2" in page.stdout, page.stdout
    path = CliRunner().invoke(app, ["show", "--no-sync", session.session_id, "--path"]).stdout.strip()
    assert path == str(session.path), "a session's --path is its file"

def test_list_newest_first_with_counts_and_titles(session_builder, backscroll_index, backscroll_home):
    a = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    a.user("first session question\nwith a second line")
    b = session_builder.codex(project="infra", start="2026-10-05T09:00:00Z")
    b.user("second session")
    b.search_echo("anything", "output")
    c = session_builder.claude(project="shop", start="2026-10-09T09:00:00Z")
    c.user("third")
    c.summary("A titled session")
    backscroll_index()
    cfg = backscroll_home.config()
    sessions = backscroll.sessions(config=cfg, sync=True, all=True)  # (sessions of one record too)
    assert [s["title"] for s in sessions] == ["A titled session", "second session",
                                              "first session question with a second line"]
    assert [(s["records"], s["echoes"]) for s in sessions] == [(1, 0), (3, 2), (1, 0)]
    assert [s["project"] for s in backscroll.sessions(agent="codex", config=cfg, sync=True, all=True)] == ["infra"]
    assert len(backscroll.sessions(project="shop", since="2026-10-08", config=cfg, sync=True, all=True)) == 1
    assert [s["title"] for s in backscroll.sessions(until="2026-10-05", config=cfg, all=True)] == \
        ["second session", "first session question with a second line"], "a date includes its day"
    assert backscroll.count_sessions(since="2026-10-02", until="2026-10-08", config=cfg, all=True) == 1
    window = CliRunner().invoke(app, ["list", "--json", "--all", "--since", "2026-10-02", "--until", "2026-10-08"])
    assert [s["session_id"] for s in json.loads(window.stdout)["sessions"]] == [b.session_id]
    assert json.loads(window.stdout)["total"] == 1
    r = CliRunner().invoke(app, ["list", "--json", "--all"])
    assert [s["session_id"] for s in json.loads(r.stdout)["sessions"]] == [s["session_id"] for s in sessions]
    human = CliRunner().invoke(app, ["list", "--all"]).stdout
    assert f"backscroll show {b.session_id}" in human


def test_list_columns_stay_aligned_whatever_the_agent_and_project_names(session_builder, backscroll_index):
    session_builder.claude(project="planetfall-seed-signalkit-level-two", start="2026-10-01T09:00:00Z").user("a")
    session_builder.codex(project="cli", start="2026-10-02T09:00:00Z").user("b")
    session_builder.claude(project="shop", start="2026-10-03T09:00:00Z").user("c")
    backscroll_index()
    lines = [ln for ln in CliRunner().invoke(app, ["list", "--all"]).stdout.splitlines() if " rec" in ln]
    assert len(lines) == 3
    assert len({ln.index(" rec") for ln in lines}) == 1, lines  # the counts line up
    assert "planetfall-seed-signalk…" in lines[-1]  # a long project name is cut, not spilled


def test_every_search_hit_names_its_show_command(session, backscroll_home):
    r = CliRunner().invoke(app, ["search", "message", "number", "--mode", "lexical", "--limit", "3"])
    shows = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("backscroll show ")]
    assert len(shows) == 3
    for cmd in shows:
        assert CliRunner().invoke(app, cmd.split()[1:]).exit_code == 0


def test_reasoning_and_compaction_summaries_are_labelled_as_what_they_are(session_builder, backscroll_index,
                                                                          backscroll_home):
    """JSON says ``reasoning``/``summary``; the terminal said ``assistant`` for both."""
    from helpers import run_cli

    s = session_builder.claude(project="labels")
    s.user("why is the importer slow?")
    s.assistant("The importer parses each row twice.", thinking="the importer loops over rows and parses twice")
    s.compact_summary("Summary: the importer parses each row twice; fix by caching the parsed row.")
    backscroll_index(embed=False)
    shown = run_cli(backscroll_home, "show", s.session_id, "--no-sync", "--no-pager")
    assert "· reasoning" in shown.stdout and "· summary (compaction)" in shown.stdout, shown.stdout
    found = run_cli(backscroll_home, "search", "importer", "parses", "--no-sync", "--mode", "lexical",
                    "--content-type", "reasoning", "--strict")
    assert "· reasoning" in found.stdout and "· assistant" not in found.stdout, found.stdout


def test_show_exports_a_conversation_as_markdown(session_builder, backscroll_index, backscroll_home):
    """`show SESSION --format markdown`: role headings, prose as written, tool calls and reasoning folded,
    and session text cannot close a fence early."""
    from helpers import run_cli

    s = session_builder.claude(project="export")
    s.user("why is the importer slow?")
    s.assistant("It parses each row twice.", thinking="look at the parse loop")
    s.tool("grep -n parse importer.py", "12: rows = [parse(r) for r in rows]\n```\nnot the end of the block")
    s.assistant("Cache the parsed row:\n\n```python\nrow = parse(raw)\n```")
    s.summary("Why the importer is slow")
    backscroll_index(embed=False)
    md = run_cli(backscroll_home, "show", s.session_id, "--format", "markdown", "--no-sync").stdout
    assert md.startswith("# Why the importer is slow\n")
    assert "## User · " in md and "## Assistant · " in md and "It parses each row twice." in md
    assert "<details><summary>reasoning" in md and "<details><summary>Bash: <code>grep -n parse" in md
    assert "````\n12: rows = [parse(r) for r in rows]\n```\nnot the end of the block\n````" in md, md
    assert "```python\nrow = parse(raw)\n```" in md, "prose keeps its own Markdown"
    bad = run_cli(backscroll_home, "show", s.session_id, "--format", "pdf", "--no-sync")
    assert bad.returncode == 2 and "markdown" in bad.stderr


def test_a_markdown_export_renders_no_markup_of_the_session_s_own(session_builder, backscroll_index, backscroll_home):
    """Session text is hostile: a title, a tool's name or prose holding HTML or a Markdown image must stay text
    where the export is pasted (rendered here as GitHub does: CommonMark with raw HTML allowed), code keeps its
    characters, and a fence the text leaves open does not swallow the records after it."""
    from helpers import run_cli
    from markdown_it import MarkdownIt

    s = session_builder.claude(project="export")
    s.user("see <img src=x onerror=alert(1)> and ![pixel](http://tracker.example/p.png) and `<b>kept</b>`\n"
           "```\nunclosed <i>fence</i>")
    call = s.tool_use('<a href="http://evil.example">Bash</a>', {"command": "ls <img src=y>"})
    s.tool_result(call, "done")
    s.assistant("After the fence: <a href=\"http://evil.example\">click</a> & more")
    s.summary('<img src="http://tracker.example/t.png"> title')
    backscroll_index(embed=False)
    md = run_cli(backscroll_home, "show", s.session_id, "--format", "markdown", "--no-sync").stdout
    page = MarkdownIt("commonmark", {"html": True}).render(md)
    assert "<img" not in page and "<a " not in page, page
    assert "<code>&lt;b&gt;kept&lt;/b&gt;</code>" in page, "code keeps its characters"
    assert "<h2>Assistant" in page, "the open fence was closed where its record ended"
    assert "&lt;img src=x onerror=alert(1)&gt;" in page and "click" in page


def test_a_markdown_export_notifies_no_one_and_closes_no_issue(session_builder, backscroll_index, backscroll_home):
    """Pasted into a GitHub issue or PR, the export's prose mentioned every @name it held and `fixes #1` closed
    issue 1: those are code spans now (an e-mail address stays as it is)."""
    import re

    from helpers import run_cli
    from markdown_it import MarkdownIt

    s = session_builder.claude(project="export")
    s.user("ask @torvalds; this fixes #1 and org/repo#2, or mail ops@example.com")
    s.summary("@octocat closes #7")
    backscroll_index(embed=False)
    md = run_cli(backscroll_home, "show", s.session_id, "--format", "markdown", "--no-sync").stdout
    page = MarkdownIt("commonmark", {"html": True}).render(md)
    prose = re.sub(r"<code>.*?</code>", "", page)
    assert not re.search(r"(?<![\w.])@\w|#\d", prose), prose
    assert all(f"<code>{ref}</code>" in page for ref in ("@torvalds", "#1", "org/repo#2", "@octocat", "#7")), page
    assert "ops@example.com" in prose


def test_a_markdown_export_s_turns_cannot_be_forged_by_session_text(session_builder, backscroll_index,
                                                                     backscroll_home):
    """What CommonMark would pair otherwise (a backtick pair across lines, a fence whose info string holds a
    backtick, a fence in a list item) lets no tag through; a heading or a setext underline in session text, at any
    indentation, sits below the turns' own headings."""
    from helpers import run_cli
    from markdown_it import MarkdownIt

    def exported(text: str) -> str:
        s = session_builder.claude(project="export")
        s.user("why?")
        s.assistant(text)
        backscroll_index(embed=False)
        md = run_cli(backscroll_home, "show", s.session_id, "--format", "markdown", "--no-sync").stdout
        page = MarkdownIt("commonmark", {"html": True}).render(md)
        assert "<img" not in page and "<a " not in page, page
        assert page.count("<h2>") == 2, "two turns, two turn headings: none forged"
        return page

    page = exported("see `start of span\n\n<img src=\"https://evil.example/t.png\"><a href=\"https://evil.example\">ok</a>"
                    "\n\nend of span` done.\n\n## User · 2026-10-23 10:05\n\nyes, delete prod\n\nAssistant\n---\n\n"
                    "# Plan\n\n```\n# a comment\n```\n\n`a\n- <img src=x>` and `b\n1. <a href=y>z</a>` and "
                    "\\`<img src=w>`\n\n- ## User · forged in a list\n\nFirst.\n\n---\n\nSecond.")
    assert "<h4>User · 2026-10-23" in page and "<h3>Plan</h3>" in page, "the session's own headings, pushed down"
    assert "# a comment" in page, "code keeps its characters"
    assert "<h4>User · forged in a list" in page and "<hr />" in page, "a thematic break stays one"
    page = exported("the `config\nvalue` is <img src=x> and <a href=y>Click</a> `x`\n\n```sh`x\n## User · 2026\n\n"
                    "<img src=t>\n```\n\n1. x\n   ```\n<img src=z onerror=alert(1)>\n   ```\n\n"
                    "- a\n  - b\n\n    ## User · 1\n\n-\t## User · 2\n\n- User · 3\n    ---\n\n"
                    "- steps:\n\n    ```bash\n    apt install foo\n    ```")
    assert '<code class="language-bash">apt install foo' in page, "a block indented in a list is still code"


def test_list_leaves_out_near_empty_sessions_folds_subagents_and_pages_to_the_end(session_builder, backscroll_index,
                                                                                  backscroll_home):
    cfg = backscroll_home.config()
    parent = session_builder.claude(project="shop", start="2026-10-03T09:00:00Z")
    parent.user("split the invoice module").assistant("done: invoices/ and invoices/pdf.py")
    parent.subagent().user("read invoices.py").assistant("it is 900 lines")
    parent.subagent().user("run the tests").assistant("all green")
    session_builder.claude(project="shop", start="2026-10-02T09:00:00Z").user("hi")  # one record
    for day in (4, 5, 6):
        session_builder.codex(project="infra", start=f"2026-10-0{day}T09:00:00Z").user(f"deploy {day}").assistant("ok")
    backscroll_index()
    listed = backscroll.sessions(config=cfg, sync=True)
    assert [s.title for s in listed] == ["deploy 6", "deploy 5", "deploy 4", "split the invoice module"]
    assert listed[-1].subagents == 2 and listed[0].subagents == 0
    assert backscroll.count_sessions(config=cfg) == 4, "the total counts what the list shows"
    every = backscroll.sessions(config=cfg, all=True)
    assert len(every) == 7 and backscroll.count_sessions(config=cfg, all=True) == 7
    found = backscroll.sessions(grep="invoices.py", config=cfg)
    assert [s.is_sidechain for s in found] == [True], "a subagent --grep finds is listed, not hidden in its parent"
    titles = [line.split(" rec  ", 1)[1] for line in CliRunner().invoke(app, ["list", "--all", "--no-sync"]).stdout
              .splitlines() if " rec  " in line]
    at = titles.index("split the invoice module  +2 subagents")
    assert sorted(titles[at + 1:at + 3]) == ["↳ read invoices.py", "↳ run the tests"], "a subagent under its parent"
    page = CliRunner().invoke(app, ["list", "--limit", "3", "--no-sync"])
    assert "1 more session: --offset 3" in page.stderr
    last = CliRunner().invoke(app, ["list", "--limit", "3", "--offset", "3", "--no-sync"])
    assert "split the invoice module" in last.stdout and "+2 subagents" in last.stdout and "more" not in last.stderr
    past = CliRunner().invoke(app, ["list", "--offset", "9", "--no-sync"])
    assert "No sessions." in past.stderr and not past.stdout
    assert "4 sessions in all: --offset 9 is past the last" in past.stderr


def test_list_grep_keeps_sessions_whose_title_or_first_prompt_holds_every_word(session_builder, backscroll_index,
                                                                               backscroll_home):
    cfg = backscroll_home.config()
    a = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    a.user("the job queue drops retries").assistant("fixed")
    b = session_builder.claude(project="shop", start="2026-10-02T09:00:00Z")
    b.user("something else").assistant("ok")
    b.summary("Job Queue: 100% of retries_kept")
    session_builder.claude(project="shop", start="2026-10-03T09:00:00Z").user("queue only").assistant("ok")
    backscroll_index()
    assert [s.session_id for s in backscroll.sessions(grep="QUEUE retries", config=cfg, sync=True)] == [
        b.session_id, a.session_id]
    assert [s.session_id for s in backscroll.sessions(grep="100%", config=cfg)] == [b.session_id], "% is a character"
    assert backscroll.sessions(grep="retries_", config=cfg)[0].session_id == b.session_id, "_ is a character"
    assert backscroll.count_sessions(grep="queue", config=cfg) == 3
    out = json.loads(CliRunner().invoke(app, ["list", "--grep", "drops", "--json", "--no-sync"]).stdout)
    assert out["total"] == 1 and out["sessions"][0]["session_id"] == a.session_id


def test_one_title_per_session_in_list_show_and_by_session(session_builder, backscroll_index, backscroll_home):
    cfg = backscroll_home.config()
    s = session_builder.codex(project="pay", start="2026-10-01T09:00:00Z")
    s.user("capture   retries\nare not idempotent " + "x" * 200).assistant("added an idempotency key to capture")
    backscroll_index()
    listed = backscroll.sessions(config=cfg, sync=True)[0].title
    shown = backscroll.show(s.session_id, config=cfg).session["title"]
    found = backscroll.search("idempotency key capture", by_session=True, weak=True, config=cfg)
    assert listed == shown == found.sessions[0].title and listed is not None
    assert listed.startswith("capture retries are not idempotent x") and len(listed) == 120


def test_every_location_opens_in_an_editor_at_its_line(tmp_path):
    from backscroll.cli.render import openable

    history = tmp_path / ".aider.chat.history.md"
    history.write_text("# aider chat\n")
    assert openable(f"{history}#60074", 60084) == (str(history), 60084), "aider's unit key is its file"
    v0 = tmp_path / "sessions" / "a1b2"
    (v0 / "events").mkdir(parents=True)
    (v0 / "events" / "6.json").write_text("{}")
    assert openable(str(v0), 6) == (str(v0 / "events" / "6.json"), 1), "an OpenHands event is its own file"
    v1 = tmp_path / "conversations" / "c3d4"
    (v1 / "events").mkdir(parents=True)
    (v1 / "events" / "event-00012-9f8e.json").write_text("{}")
    assert openable(str(v1), 12) == (str(v1 / "events" / "event-00012-9f8e.json"), 1)
    plain = tmp_path / "s.jsonl"
    assert openable(str(plain), 3) == (str(plain), 3)


def test_list_on_a_terminal_cuts_each_title_to_its_width_and_a_pipe_gets_all_of_it(session_builder, backscroll_index,
                                                                                 backscroll_home):
    from helpers import run_cli, run_tty

    title = "the importer drops rows whose date column is empty, " * 4
    session_builder.claude(project="a-project-with-a-rather-long-name").user(title.strip()).assistant("fixed")
    backscroll_index()
    status, out = run_tty(backscroll_home, "list", columns=80)
    import re

    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in out.splitlines() if "rec" in line]
    assert status == 0 and len(lines) == 1 and lines[0].endswith("…") and len(lines[0]) <= 80
    assert "the importer drops" in lines[0], "no echo column spends the title's room when no session has echoes"
    piped = run_cli(backscroll_home, "list").stdout
    assert title.strip()[:100] in piped
    status, narrow = run_tty(backscroll_home, "list", columns=60)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in narrow.splitlines()]
    assert any(line.endswith("the importer…") or "the importer d" in line for line in plain), \
        "on a narrow terminal the project gives way to the title"
    shown = [line for line in plain if "backscroll show" in line]
    assert len(shown) == 1 and len(shown[0].split("backscroll show ")[1].strip()) == 36, "the command is never broken"
    status, pane = run_tty(backscroll_home, "list", columns=40)  # (a split pane: the columns leave no room beside)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in pane.splitlines()]
    assert any(line.startswith("  the importer drops rows") and len(line) <= 40 for line in plain), plain


def test_an_aider_sessions_path_is_its_chat_history_file(backscroll_home, backscroll_index):
    from helpers import index_aider_repo

    code = index_aider_repo(backscroll_home, backscroll_index, "afi-core")
    sid = backscroll.sessions(config=backscroll_home.config())[0]["session_id"]
    r = CliRunner().invoke(app, ["show", "--no-sync", sid, "--path"])
    assert r.exit_code == 0 and r.stdout.strip() == str(code / ".aider.chat.history.md"), r.stdout

    assert "no longer on disk" not in r.stderr
    (code / ".aider.chat.history.md").unlink()  # (aider's history pruned: the store still holds the session)
    r = CliRunner().invoke(app, ["show", "--no-sync", sid, "--path"])
    assert r.exit_code == 0 and r.stdout.startswith(str(code / ".aider.chat.history.md"))
    assert "is no longer on disk" in r.stderr, r.stderr

def test_resume_and_session_take_the_start_of_a_record_id_too(session, backscroll_home):
    from backscroll.browse import resumable

    rid = record_id(backscroll_home, "message number 5")
    assert backscroll.search("message number", config=backscroll_home.config(), session=rid[:8],
                             mode="lexical").filters.session == session.session_id
    from backscroll.store.db import Store

    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        assert resumable(store, rid[:8])["session_id"] == session.session_id
    finally:
        store.close()


def test_a_long_first_prompt_titles_its_session_cut_at_a_word(session_builder, backscroll_index, backscroll_home):
    prompt = "we're adding retries to refund_payment() now. what did we settle on for capture retries last month? " \
             "check backscroll, then tell me"
    session_builder.claude(project="pay").user(prompt)
    backscroll_index()
    [s] = backscroll.sessions(config=backscroll_home.config(), all=True)
    assert s.title is not None and len(s.title) <= 120 and s.title.endswith("check backscroll,…"), s.title


def test_show_marks_a_text_it_cut_with_an_ellipsis(session, backscroll_home):
    r = CliRunner().invoke(app, ["show", session.session_id, "--max-chars", "10", "--no-sync"])
    assert r.exit_code == 0 and "message nu…" in r.stdout, r.stdout
    assert "message number 1…" not in CliRunner().invoke(app, ["show", session.session_id, "--no-sync"]).stdout
    md = CliRunner().invoke(app, ["show", session.session_id, "--max-chars", "10", "--format", "markdown",
                                  "--no-sync"])
    assert "message nu…" in md.stdout, md.stdout


def test_ctrl_c_in_the_pager_is_the_pagers_and_backscroll_waits_for_it(session_builder, backscroll_index,
                                                                         backscroll_home, tmp_path):
    """Ctrl-C at less's prompt made backscroll say "interrupted" and return while less still held the terminal."""
    import shlex

    from helpers import run_tty

    s = session_builder.claude(project="shop")
    for n in range(12):
        s.user(f"question {n} about the queue").assistant(f"answer {n}: Postgres")
    backscroll_index(embed=False)
    mark = tmp_path / "pager-done"
    # (a pager that is sent Ctrl-C once it shows, as the terminal sends it to the whole foreground group, then reads
    # on; backscroll ignores Ctrl-C from the moment the pager has started, a person presses it later)
    script = f"trap '' INT; sleep 1; kill -INT 0; sleep 0.3; cat > /dev/null; echo done > {shlex.quote(str(mark))}"
    status, out = run_tty(backscroll_home, "show", s.session_id, lines=6, pager=shlex.join(["sh", "-c", script]))
    assert status == 0 and "interrupted" not in out and "aborted" not in out, (status, out[-500:])
    assert mark.read_text() == "done\n", "backscroll returned once the pager was done"
    status, out = run_tty(backscroll_home, "show", s.session_id, lines=6, pager="'less")
    assert status == 0 and "answer 11: Postgres" in out, out[-300:]  # (a $PAGER shlex cannot read: printed)


def test_an_agents_pseudo_terminal_gets_no_pager(session_builder, backscroll_index, backscroll_home, tmp_path):
    """Codex runs commands on a pseudo-terminal: a long `show` went through less, which waited for a key nobody
    would press."""
    import shlex

    from helpers import cli_env, run_tty

    s = session_builder.claude(project="shop")
    for n in range(12):
        s.user(f"question {n} about the queue").assistant(f"answer {n}: Postgres")
    backscroll_index(embed=False)
    mark = tmp_path / "paged"
    pager = shlex.join(["sh", "-c", f"cat > /dev/null; echo yes > {shlex.quote(str(mark))}"])
    for command in (["show", s.session_id], ["list", "--all"], ["search", "queue", "--no-sync"]):
        status, out = run_tty(backscroll_home, *command, lines=6, pager=pager,
                              env=cli_env(backscroll_home, CODEX_SANDBOX="seatbelt"))
        assert status == 0 and not mark.exists(), (command, out[-300:])
    status, out = run_tty(backscroll_home, "show", s.session_id, lines=6, pager=pager)
    assert status == 0 and mark.read_text() == "yes\n", "a person's terminal still pages"


def test_an_agents_pseudo_terminal_gets_no_progress_bars(session_builder, backscroll_home):
    """Codex keeps everything its pseudo-terminal shows: every repaint of a progress bar went into the output the
    model reads."""
    from helpers import cli_env, run_tty

    for n in range(40):
        session_builder.claude(project="shop").user(f"question {n} about the queue").assistant(f"answer {n}")
    status, out = run_tty(backscroll_home, "index", "--no-embed",
                          env=cli_env(backscroll_home, CODEX_SANDBOX_NETWORK_DISABLED="1"))
    assert status == 0 and "indexed 40 changed files" in out and "reading sessions" not in out, out[-500:]
    status, out = run_tty(backscroll_home, "rebuild")
    assert status == 0 and "indexing words" in out, "a person's terminal still shows them"


def test_shows_commands_stay_whole_lines_on_a_narrow_terminal(session_builder, backscroll_index, backscroll_home,
                                                              backscroll_search):
    """`show`'s next-page command was broken at the terminal's width: pasted, it ran `--limit` empty and then `2`."""
    from helpers import cli_env, run_tty

    s = session_builder.claude(project="shop", cwd="/home/dev/a-rather-long-folder/of-projects/shop")
    plain = cli_env(backscroll_home, NO_COLOR="1")
    for n in range(6):
        s.user(f"question {n}").assistant(f"answer {n}")
    backscroll_index(embed=False)
    for columns in (80, 40):
        status, out = run_tty(backscroll_home, "show", s.session_id, "--limit", "2", columns=columns, env=plain)
        assert status == 0, out
        assert f"10 more: backscroll show {s.session_id} --offset 2 --limit 2\n" in out, out
        assert f"back into it: backscroll resume {s.session_id}\n" in out, out
        assert f"session {s.session_id} " in out, out
    record = backscroll_search("answer 3", mode="lexical").results[0].record_id
    status, out = run_tty(backscroll_home, "show", record, columns=40, env=plain)
    assert f"whole session: backscroll show {s.session_id}\n" in out, out


def test_a_markdown_export_with_full_keeps_long_outputs_whole(session_builder, backscroll_index, backscroll_home):
    from helpers import run_cli

    s = session_builder.claude(project="export")
    s.tool("seq 500", "\n".join(str(n) for n in range(1, 501)))
    backscroll_index(embed=False)
    folded = run_cli(backscroll_home, "show", s.session_id, "-f", "markdown", "--no-sync").stdout
    whole = run_cli(backscroll_home, "show", s.session_id, "-f", "markdown", "--full", "--no-sync").stdout
    assert "lines folded" in folded and "\n250\n" not in folded
    assert "lines folded" not in whole and "\n250\n" in whole and "\n500\n" in whole


def test_list_grep_folds_the_case_of_every_letter(session_builder, backscroll_index, backscroll_home):
    """SQLite's LIKE folds ASCII alone: "ÄRZTE" missed "Ärzte", and "STRAẞE" "Straße"."""
    cfg = backscroll_home.config()
    a = session_builder.claude(project="praxis", start="2026-10-01T09:00:00Z")
    a.user("Überprüfung der Ärzte-API in der Hauptstraße").assistant("erledigt")
    b = session_builder.claude(project="praxis", start="2026-10-02T09:00:00Z")
    b.user("the ÉCOLE import").assistant("done")
    backscroll_index()
    for grep, found in (("ärzte", a), ("ÄRZTE überprüfung", a), ("HAUPTSTRAẞE", a), ("école", b),
                        ("E\u0301COLE", b)):
        assert [s.session_id for s in backscroll.sessions(grep=grep, config=cfg, sync=True)] == [found.session_id], grep
    assert backscroll.count_sessions(grep="ärzte école", config=cfg) == 0
