"""`backscroll files` and `search --file`: the sessions whose tool calls touched a file, across agents."""

import json

import pytest
from typer.testing import CliRunner

import backscroll
from backscroll.cli.app import app
from backscroll.errors import NotFoundError
from backscroll.touches import action, summary, touched, touches


@pytest.fixture
def history(session_builder, backscroll_index):
    a = session_builder.claude(project="shop", start="2026-10-01T09:00:00Z")
    a.user("why is the tax rounding off by a cent?")
    a.tool_result(a.tool_use("Read", {"file_path": "/home/dev/shop/src/shop/tax.py"}), "def tax(): ...")
    a.tool_result(a.tool_use("Edit", {"file_path": "/home/dev/shop/src/shop/tax.py", "old_string": "round(x, 2)",
                                      "new_string": "quantize(x)"}), "ok")
    a.assistant("tax.py now rounds once, on the total")
    b = session_builder.codex(project="shop", start="2026-10-05T09:00:00Z")
    b.user("run the tax tests")
    b.tool("pytest -q tests/test_tax.py src/shop/tax.py", "3 passed")
    b.assistant("the tax tests pass")
    c = session_builder.claude(project="shop", start="2026-10-07T09:00:00Z")
    c.user("fix the syntax error")
    c.tool_result(c.tool_use("Edit", {"file_path": "/home/dev/shop/src/shop/syntax.py", "old_string": "a",
                                      "new_string": "b"}), "ok")
    c.assistant("syntax.py fixed; the tax rounding stays as it is")
    backscroll_index()
    return a, b, c


def test_files_lists_the_sessions_that_touched_a_file_latest_first_with_what_they_did(history, backscroll_home):
    a, b, c = history
    cfg = backscroll_home.config()
    found = backscroll.files("src/shop/tax.py", config=cfg, sync=True)
    assert [(f.session_id, f.actions) for f in found] == [(b.session_id, {"ran": 1}),
                                                           (a.session_id, {"edited": 1, "read": 1})]
    assert [f.session_id for f in backscroll.files("/home/dev/shop/src/shop/tax.py", config=cfg)] == [
        b.session_id, a.session_id], "a relative path in a call is read from its session's directory"
    assert [f.session_id for f in backscroll.files("tax.py", config=cfg)] == [b.session_id, a.session_id], \
        "syntax.py is not tax.py"
    assert backscroll.files("/elsewhere/src/shop/tax.py", config=cfg) == []
    human = CliRunner().invoke(app, ["files", "tax.py", "--no-sync"]).stdout
    assert "edited, read" in human and f"backscroll show {found[1].record_id}" in human
    out = json.loads(CliRunner().invoke(app, ["files", "syntax.py", "--json", "--no-sync"]).stdout)
    assert [s["session_id"] for s in out["sessions"]] == [c.session_id] and out["sessions"][0]["actions"] == {
        "edited": 1}
    assert out["sessions"][0]["files"] == ["src/shop/syntax.py"], "which file ended with it, from the session's cwd"


def test_files_says_which_file_a_session_touched_when_the_path_ends_several(history, session_builder,
                                                                             backscroll_index, backscroll_home):
    d = session_builder.claude(project="blog", start="2026-10-08T09:00:00Z")
    d.user("the blog's tax notice")
    d.tool_result(d.tool_use("Read", {"file_path": "/home/dev/blog/pages/tax.py"}), "...")
    d.tool("cat ./tax.py", "...")
    backscroll_index()
    found = backscroll.files("tax.py", config=backscroll_home.config())
    assert [f.files for f in found] == [("tax.py", "pages/tax.py"), ("src/shop/tax.py",), ("src/shop/tax.py",)]
    human = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["files", "tax.py", "--no-sync"]).stdout
    assert "tax.py +1" in human and human.count("src/shop/tax.py") == 2, human
    assert "src/shop" not in CliRunner(env={"COLUMNS": "200"}).invoke(
        app, ["files", "src/shop/tax.py", "--no-sync"]).stdout, "no column when every file is the one asked for"


def test_search_file_keeps_the_search_to_the_sessions_that_touched_it(history, backscroll_home):
    a, b, c = history
    cfg = backscroll_home.config()
    everywhere = backscroll.search("tax rounding", config=cfg, weak=True)
    assert c.session_id in {h.session_id for h in everywhere.results}
    scoped = backscroll.search("tax rounding", file="tax.py", config=cfg, weak=True)
    assert scoped.results and {h.session_id for h in scoped.results} <= {a.session_id, b.session_id}
    assert scoped.filters.file == "tax.py" and "sessions" not in scoped.to_dict()["filters"]
    with pytest.raises(NotFoundError, match="no session's tool calls touched nosuch.py"):
        backscroll.search("tax", file="nosuch.py", config=cfg)


def test_a_call_names_a_file_by_whole_path_components():
    assert touches("Read file_path: /srv/app/models.py", None, "/srv/app/models.py")
    assert touches("apply_patch *** Update File: app/models.py", "/srv", "/srv/app/models.py")
    assert not touches("apply_patch *** Update File: app/models.py", "/elsewhere", "/srv/app/models.py")
    assert touches("sed -i s/a/b/ app/models.py,", "/srv", "models.py")
    assert not touches("vim mymodels.py", "/srv", "models.py")
    assert not touches("cat app/models.pyc", "/srv", "models.py")
    assert [action(t) for t in ("Read", "mcp__fs__write_file", "apply_patch", "Bash", None)] == [
        "read", "wrote", "edited", "ran", "ran"]
    assert summary({"read": 2, "edited": 3, "ran": 1}) == "edited 3×, read 2×, ran"


def test_a_patch_codex_ran_through_its_shell_is_an_edit(session_builder, backscroll_index, backscroll_home):
    s = session_builder.codex(cwd="/srv/app")
    s.user("fix the model and its test")
    s.tool(["apply_patch", "*** Begin Patch\n*** Update File: app/models.py\n@@\n-a\n+b\n*** End Patch"], "Done!")
    s.tool(["bash", "-lc", "cd /srv/app && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: tests/t.py\n+x\n"
                           "*** End Patch\nEOF"], "Done!")
    s.tool("pytest tests/t.py app/models.py", "2 passed")
    backscroll_index()
    cfg = backscroll_home.config()
    assert [f.actions for f in backscroll.files("app/models.py", config=cfg)] == [{"edited": 1, "ran": 1}]
    assert [f.actions for f in backscroll.files("/srv/app/tests/t.py", config=cfg)] == [{"edited": 1, "ran": 1}]
    assert action("shell", "echo apply_patch is a tool") == action("shell", "apply_patchwork x") == "ran"


def test_paths_with_spaces_and_brackets_and_ids_that_read_as_options():
    from backscroll.integrations.resume import resumption

    assert touches("Edit file_path: /home/u/my proj/a.py", None, "/home/u/my proj/a.py")
    assert touches("Read app/[slug]/page.tsx", "/w", "app/[slug]/page.tsx")
    assert touches("cat ./src/x.py", "/w", "/w/src/x.py") and not touches("cat other/src/x.py", "/w", "/w/src/x.py")
    assert touched('Read file_path: "/w/app/[slug]/page.tsx"', "/w", "page.tsx") == "app/[slug]/page.tsx"
    assert touched("pytest -q --cov=src/shop tests/test_tax.py", "/w", "test_tax.py") == "tests/test_tax.py"
    assert touched("Edit file_path: C:\\dev\\shop\\tax.py", "/w", "shop\\tax.py") == "C:/dev/shop/tax.py"
    assert touched("cat /srv/app/models.py", "/srv", "/srv/app/models.py") == "app/models.py", "from its directory"
    assert touched("cat /srv/app/models.py", "/w", "/srv/app/models.py") == "/srv/app/models.py"
    cwd = "/home/u/my proj's dir"  # (a session's own directory with a space and a quote: they are the path's)
    assert touched(f"Edit file_path: {cwd}/src/flux.py old_string: x", cwd, "src/flux.py") == "src/flux.py"
    assert touched(f"cd {cwd}/ && cat lib/flux.py", cwd, "flux.py") == "lib/flux.py"
    assert touched("cp /w/proj/a.py b.py", "/w/proj", "b.py") == "b.py", "a cwd without a space: paths end at one"
    assert touched("Edit file_path: C:\\Users\\Jo Smith\\shop\\src\\a.py", "C:\\Users\\Jo Smith\\shop", "a.py") == \
        "src/a.py", "a cwd logged on Windows"
    how = resumption({"agent": "gemini", "session_id": "--yolo", "cwd": None})
    assert how.argv is None and "a leading -" in how.notes[-1]


def test_a_session_naming_a_file_by_many_paths_lists_a_bounded_few(history, session_builder, backscroll_index,
                                                                  backscroll_home):
    """One session's 100 calls, each naming models.py under another 20,000-character folder, made 2 MB of JSON."""
    m = session_builder.claude(project="shop", start="2026-10-08T09:00:00Z")
    m.user("look at every models.py")
    for n in range(100):
        m.tool(f"cat /srv/{n:03}{'D' * 20_000}/models.py", "class Model: ...")
    backscroll_index()
    [found] = backscroll.files("models.py", config=backscroll_home.config())
    assert len(found.files) == 20 and found.files_more == 80 and max(map(len, found.files)) <= 400, found.files_more
    out = CliRunner().invoke(app, ["files", "models.py", "--json", "--no-sync"]).stdout
    assert len(out) < 20_000 and json.loads(out)["sessions"][0]["files_more"] == 80, len(out)
    human = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["files", "models.py", "--no-sync"]).stdout
    assert " +99" in human, human


def test_a_path_logged_on_windows_is_found_and_a_longer_list_says_so(history, session_builder, backscroll_index,
                                                                     backscroll_home):
    w = session_builder.claude(project="shop", start="2026-10-09T09:00:00Z")
    w.user("round the tax on windows too")
    w.tool_result(w.tool_use("Edit", {"file_path": "C:\\Users\\dev\\shop\\src\\shop\\tax.py", "old_string": "a",
                                      "new_string": "b"}), "ok")
    backscroll_index()
    found = backscroll.files("src/shop/tax.py", config=backscroll_home.config())
    assert found[0].session_id == w.session_id and found[0].actions == {"edited": 1}
    assert backscroll.files("src\\shop\\tax.py", config=backscroll_home.config())[0].session_id == w.session_id
    one = CliRunner().invoke(app, ["files", "tax.py", "--json", "-n", "1", "--no-sync"])
    assert json.loads(one.stdout)["has_more"] and "more sessions touched it: --offset 1 lists the next" in one.stderr
    assert not json.loads(CliRunner().invoke(app, ["files", "tax.py", "--json", "--no-sync"]).stdout)["has_more"]


def test_a_harness_tool_of_its_own_is_named_by_the_words_of_its_name():
    """A harness's own tools (SWE-agent's, AutoCodeRover's) were all "ran"."""
    from backscroll.touches import action

    assert [action(n) for n in ("EditCode", "RequestCodeChange", "ViewCode", "SearchCode", "FindClass", "Bash",
                                "run_shell_command", "createFile", "Finish")] == \
        ["edited", "edited", "read", "read", "read", "ran", "ran", "wrote", "ran"]
    assert {action(n) for n in ("TodoWrite", "write_todos", "WebSearch", "mcp__github__create_issue")} == {"ran"}, \
        "a tool that keeps something else touched no file"
    assert action("edit_notebook") == action("apply_diff") == "edited"


def test_files_names_the_filter_that_left_out_the_sessions_that_touched_it(history):
    r = CliRunner().invoke(app, ["files", "tax.py", "--since", "2026-11-01", "--no-sync"])
    assert r.exit_code == 0 and "No session's tool calls touched tax.py." in r.stderr and not r.stdout
    assert "sessions outside --since touched it (or at no recorded time); without that filter, `files` lists them" \
        in r.stderr
    none = CliRunner().invoke(app, ["files", "nowhere.py", "--since", "2026-11-01", "--no-sync"])
    assert "outside" not in none.stderr, "no session touched it at all: nothing to point at"


@pytest.mark.parametrize("path", ["*", "_", "?", "%", "src/*", "/"])
def test_a_path_that_names_no_file_is_a_usage_error(history, session_builder, backscroll_index, path):
    """A name without a letter or digit is a shell's or code's token (``for _ in``, ``a * b``), never a file a
    call touched."""
    s = session_builder.claude(project="shop")
    s.tool_result(s.tool_use("Bash", {"command": "for _ in 1 2; do echo $(( 2 * 3 )) % ?; done"}), "6")
    backscroll_index()
    r = CliRunner().invoke(app, ["files", path, "--no-sync"])
    assert r.exit_code == 2 and "names no file" in r.stderr, (path, r.stderr, r.stdout)


def test_files_pages_with_offset_and_bounds_with_until_as_list_does(history, backscroll_home):
    a, b, _c = history
    cfg = backscroll_home.config()
    assert [f.session_id for f in backscroll.files("tax.py", until="2026-10-04", config=cfg)] == [a.session_id]
    assert [f.session_id for f in backscroll.files("tax.py", offset=1, config=cfg)] == [a.session_id]
    page = CliRunner().invoke(app, ["files", "tax.py", "-n", "1", "--offset", "1", "--json", "--no-sync"])
    assert [s["session_id"] for s in json.loads(page.stdout)["sessions"]] == [a.session_id]
    assert json.loads(page.stdout)["offset"] == 1 and not json.loads(page.stdout)["has_more"]
    past = CliRunner().invoke(app, ["files", "tax.py", "--offset", "5", "--no-sync"])
    assert past.exit_code == 0 and "--offset 5 is past the last session that touched it" in past.stderr
    assert "No session's tool calls touched" not in past.stderr, "sessions did touch it: the page is past them"
    early = CliRunner().invoke(app, ["files", "tax.py", "--until", "2026-09-30", "--no-sync"])
    assert "sessions outside --until touched it" in early.stderr
    nowhere = CliRunner().invoke(app, ["files", "nowhere.py", "--offset", "3", "--no-sync"])
    assert "No session's tool calls touched nowhere.py." in nowhere.stderr and "past the last" not in nowhere.stderr
    later = CliRunner().invoke(app, ["files", "tax.py", "--since", "2026-11-01", "--offset", "2", "--no-sync"])
    assert "sessions outside --since touched it" in later.stderr and "past the last" not in later.stderr
    most = CliRunner().invoke(app, ["files", "tax.py", "-n", "1000", "--json", "--no-sync"])
    assert most.exit_code == 0 and len(json.loads(most.stdout)["sessions"]) == 2, most.stderr
    swapped = CliRunner().invoke(app, ["files", "tax.py", "--since", "2026-10-06", "--until", "2026-10-02"])
    assert swapped.exit_code == 2 and "is not before --until" in swapped.stderr


def test_a_window_bounds_the_touches_themselves_not_the_sessions_that_made_them(history, session_builder,
                                                                                 backscroll_index, backscroll_home):
    a, b, _c = history
    again = session_builder.claude(project="shop", session_id=a.session_id).at("2026-10-20T10:00:00Z")
    again.tool_result(again.tool_use("Edit", {"file_path": "/home/dev/shop/src/shop/tax.py", "old_string": "x",
                                              "new_string": "y"}), "ok")
    backscroll_index()
    cfg = backscroll_home.config()
    before = backscroll.files("tax.py", until="2026-10-10", config=cfg)
    assert [(f.session_id, f.actions) for f in before] == [(b.session_id, {"ran": 1}),
                                                           (a.session_id, {"edited": 1, "read": 1})]
    assert (before[1].last_at or "") < "2026-10-10", "not the touch of 10-20, after the window"
    after = backscroll.files("tax.py", since="2026-10-15", config=cfg)
    assert [(f.session_id, f.actions) for f in after] == [(a.session_id, {"edited": 1})]


def test_files_finds_a_file_asked_through_a_symlink_and_one_a_session_named_through_one(
        session_builder, backscroll_index, backscroll_home, tmp_path):
    real = tmp_path / "work" / "my shop"
    (real / "src").mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    physical = session_builder.claude(cwd=str(real))  # (getcwd's answer: the physical path)
    physical.user("tidy the worker")
    physical.tool_result(physical.tool_use("Read", {"file_path": f"{real}/src/worker.py"}), "...")
    linked = session_builder.codex(cwd=str(tmp_path / "link"))  # (an agent that kept $PWD)
    linked.user("run the worker's tests")
    linked.tool("pytest src/worker.py", "1 passed")
    backscroll_index()
    cfg = backscroll_home.config()
    both = {physical.session_id, linked.session_id}
    assert {f.session_id for f in backscroll.files(f"{tmp_path}/link/src/worker.py", config=cfg)} == both
    assert {f.session_id for f in backscroll.files(f"{real}/src/worker.py", config=cfg)} == both
    assert backscroll.files(f"{tmp_path}/elsewhere/src/worker.py", config=cfg) == []


def test_a_cwd_or_a_path_holding_a_nul_is_no_symlink_to_follow(session_builder, backscroll_index, backscroll_home):
    s = session_builder.codex(cwd="/srv/app\x00evil")  # (a log can hold anything; the store keeps it)
    s.user("fix the model")
    s.tool("sed -i s/a/b/ models.py", "")
    backscroll_index()
    cfg = backscroll_home.config()
    assert [f.session_id for f in backscroll.files("models.py", config=cfg)] == [s.session_id]
    assert backscroll.files("/srv/app/models.py", config=cfg) == []
    with pytest.raises(NotFoundError):
        backscroll.search("model", file="/srv/a\x00b.py", config=cfg)


def test_a_file_named_at_the_end_of_a_long_call_is_found_as_in_a_short_one(history, session_builder,
                                                                            backscroll_index, backscroll_home):
    """The calls' index holds the text of the short ones (``sessions.CALL_TEXT``); a long call is read whole."""
    s = session_builder.codex(project="shop", start="2026-10-09T09:00:00Z")
    s.user("lint everything, then the tax module")
    s.tool("ruff check " + " ".join(f"src/shop/m{i}.py" for i in range(200)) + " src/shop/tax.py", "ok")
    s.tool("echo " + "é" * 970 + " && cat src/shop/tax.py", "ok")  # (under 1,000 characters: twice the bytes)
    backscroll_index()
    found = backscroll.files("tax.py", config=backscroll_home.config())
    assert [(f.session_id, f.actions) for f in found][0] == (s.session_id, {"ran": 2})


@pytest.mark.parametrize("filters", [{}, {"since": "2026-10-02", "until": "2026-10-06"}, {"agent": "codex"},
                                     {"project": "shop", "since": "2026-10-02"}])
def test_the_calls_naming_a_file_are_read_through_their_index_not_every_record(history, backscroll_home, filters,
                                                                              monkeypatch):
    """At 20,000 sessions a scan of every record took seconds; the calls' index holds their text, in time order."""
    from backscroll.store.db import Store
    from backscroll.store.sessions import CALL_TEXT

    asked: list = []

    def query(sql: str, params: tuple = ()) -> list:
        asked.append((sql, params))
        return []

    store = Store.open(backscroll_home.data / "backscroll.db")
    try:
        monkeypatch.setattr(store, "query", query)
        store.calls_naming("tax.py", filters.get("agent"), filters.get("project"), filters.get("since"),
                           filters.get("until"), 100)
        plan = " ".join(r[3] for r in store.conn.execute(f"EXPLAIN QUERY PLAN {asked[0][0]}", asked[0][1]))
        assert "USING INDEX records_call_text" in plan and "TEMP B-TREE" not in plan, plan
        index = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'records_call_text'").fetchone()[0]
        short = CALL_TEXT.removeprefix("coalesce(").rsplit(",", 1)[0].replace("r.", "")
        assert short in index and CALL_TEXT in asked[0][0], "the text as the index holds it, or read from the records"
    finally:
        store.close()


def test_a_store_from_before_the_calls_index_gains_it_and_lists_the_same(history, backscroll_home):
    import sqlite3

    from backscroll.store.schema import schema_version

    db, cfg = backscroll_home.data / "backscroll.db", backscroll_home.config()
    before = backscroll.files("tax.py", config=cfg)
    conn = sqlite3.connect(db)  # (as backscroll's schema 14 left it)
    conn.execute("DROP INDEX records_call_text")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm015_call_text'")
    conn.execute("PRAGMA user_version = 14")
    conn.commit()
    assert backscroll.files("tax.py", config=cfg) == before
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'records_call_text'").fetchone() == (1,)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema_version()
    conn.close()
