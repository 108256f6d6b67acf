"""OpenCode: the live SQLite database (v1.2+) and the older storage/ JSON tree, read into records.

The database is built here with OpenCode's real tables (``session``, ``message``, ``part`` with JSON
``data``), in WAL mode, by a connection that stays open like OpenCode's own; the older tree is the
fixture under ``tests/data/opencode/storage``.
"""


import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import rows, texts
from opencode_db import DATA, OCSession, OpenCodeDB, oc_root

from backscroll.ingest.sources import AGENTS, opencode


@pytest.fixture(autouse=True)
def _no_opencode_env(monkeypatch):
    monkeypatch.delenv("OPENCODE_DATA_DIR", raising=False)


@pytest.fixture
def oc_db(backscroll_home):
    db = OpenCodeDB(oc_root(backscroll_home) / "opencode.db")
    yield db
    db.close()


FIXED = "Fixed: checkout now answers 400 `cart is empty` instead of raising IndexError on cart.lines[0]."


def _checkout_session(db: OpenCodeDB) -> OCSession:
    s = db.session("Checkout returns 500 on empty carts")
    s.user("why does checkout return 500 when the cart is empty?",
           synthetic='Called the Read tool with the following input: {"filePath":"/home/dev/shop/checkout.py"}',
           file="/home/dev/shop/checkout.py")
    a = s.assistant()
    a.reasoning("The handler probably indexes the first cart line without checking for an empty cart.")
    a.text("Let me read the handler and run its tests.")
    a.tool("read", {"filePath": "/home/dev/shop/checkout.py", "offset": 0, "limit": 40},
           "<file>\n00012| def checkout(cart):\n00013|     first = cart.lines[0]\n</file>", title="checkout.py")
    a.bash("pytest -q tests/test_checkout.py",
           "F.\nFAILED tests/test_checkout.py::test_empty_cart - IndexError: list index out of range\n"
           "1 failed, 1 passed")
    a.tool("edit", {"filePath": "/home/dev/shop/checkout.py", "oldString": "cart.lines[0]",
                    "newString": "cart.first()"},
           status="error", error="Error: oldString not found in content")
    a.patch("/home/dev/shop/checkout.py")
    a.finish("tool-calls")
    b = s.assistant()
    b.text(FIXED)
    b.tool("bash", {"command": "pytest -q", "description": "Run the whole suite"}, status="running")
    b.finish()
    return s


def test_database_records_of_every_kind(oc_db, backscroll_home, backscroll_index):
    s = _checkout_session(oc_db)
    out = backscroll_index()
    assert out.report.unreadable == [] and out.report.lines_skipped == 0

    every = rows(backscroll_home)
    reasoning = [r for r in every if r["content_type"] == "reasoning"]  # issue 15: reasoning parts are records
    assert [(r["role"], r["text"].splitlines()[0][:40], r["line"]) for r in reasoning] == [
        ("assistant", "The handler probably indexes the first c", 5)]
    recs = [r for r in every if r["content_type"] != "reasoning"]
    got = [(r["role"], r["tool_name"], r["is_error"], r["text"].splitlines()[0]) for r in recs]
    assert got == [
        ("user", None, 0, "why does checkout return 500 when the cart is empty?"),
        ("assistant", None, 0, "Let me read the handler and run its tests."),
        ("tool", "read", 0, "read"),
        ("tool", "read", 0, "<file>"),  # the result is named after its call
        ("tool", "bash", 0, "pytest -q tests/test_checkout.py"),
        ("tool", "bash", 0, "F."),
        ("tool", "edit", 0, "edit"),
        ("tool", "edit", 1, "Error: oldString not found in content"),
        ("assistant", None, 0, FIXED),
        ("tool", "bash", 0, "pytest -q"),  # still running: a call without a result
    ]
    assert recs[2]["text"] == "read\nfilePath: /home/dev/shop/checkout.py\noffset: 0\nlimit: 40"
    assert recs[4]["text"] == "pytest -q tests/test_checkout.py", "a bash call is exactly its command"
    joined = "\n".join(r["text"] for r in recs)
    assert "Called the Read tool" not in joined, "synthetic text is not what the user wrote"
    assert "4f2a9c1e0b7d3a5c8e6f" not in joined, "step, snapshot and patch parts are not records"

    assert {r["session_id"] for r in recs} == {s.session_id}
    assert all(r["agent"] == "opencode" and r["source_path"] == f"{oc_db.path}#{s.session_id}" for r in recs)
    assert recs[0]["record_id"].startswith(f"{s.session_id}:prt_") and recs[0]["record_id"].endswith("#0")
    assert recs[3]["record_id"] == recs[2]["record_id"][:-2] + "#1" and recs[3]["line"] == recs[2]["line"]
    assert [r["line"] for r in recs] == sorted(r["line"] for r in recs) and recs[0]["line"] == 1
    assert recs[1]["line"] == 6, "lines count every part: text, synthetic text, file, step-start, reasoning, text"
    assert recs[0]["cwd"] == "/home/dev/shop" and recs[0]["project"] == "shop"
    assert all(r["timestamp"].endswith("Z") and r["timestamp"] >= "2026-09-21" for r in recs)
    assert recs[0]["timestamp"] < recs[1]["timestamp"] <= recs[4]["timestamp"]

    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (session["session_id"], session["agent"], session["title"], session["cwd"], session["is_sidechain"]) == (
        s.session_id, "opencode", "Checkout returns 500 on empty carts", "/home/dev/shop", 0)


def test_only_changed_sessions_are_read_again(oc_db, backscroll_home, backscroll_index):
    a = oc_db.session("Flaky payment webhook", "/home/dev/payments")
    a.user("the stripe webhook test is flaky")
    t = a.assistant()
    t.bash("pytest -q tests/test_webhook.py --count 20", "2 failed, 18 passed")
    t.text("It depends on dict ordering of the event payload.")
    t.finish()
    b = oc_db.session("Add a healthcheck", "/home/dev/api")
    b.user("add a /healthz endpoint")
    tb = b.assistant()
    tb.text("Added GET /healthz returning 200 with the git sha.")
    tb.finish()
    first = backscroll_index()
    assert first.report.records_added == 6
    of_b = "SELECT id, record_id FROM records WHERE session_id = ? ORDER BY id"
    b_before = rows(backscroll_home, of_b, (b.session_id,))

    a.user("can you pin the ordering?")  # touches the session, as a new prompt does
    t2 = a.assistant()
    t2.text("Sorted the payload keys before signing; 20 of 20 runs pass now.")
    t2.finish()
    second = backscroll_index()
    assert second.report.records_replaced == 0, "session A's unchanged records are left alone"
    assert second.report.records_added == 2
    third = backscroll_index()
    fourth = backscroll_index()
    assert (third.report.files_changed, third.report.records_added) == (0, 0)
    assert (fourth.report.files_changed, fourth.report.records_added) == (0, 0)

    assert rows(backscroll_home, of_b, (b.session_id,)) == b_before, "the untouched session keeps its store ids"
    recs = rows(backscroll_home)
    assert len(recs) == len({r["record_id"] for r in recs}) == 8
    assert texts(backscroll_home, session_id=a.session_id)[-1].startswith("Sorted the payload keys")
    state = rows(backscroll_home, "SELECT session_state FROM source_files")[0]["session_state"]
    state = json.loads(state)
    assert set(state["sessions"]) == {a.session_id, b.session_id} and state["watermark"].endswith("Z")


def test_new_parts_are_noticed_even_when_the_session_row_is_not_touched(oc_db, backscroll_home, backscroll_index):
    s = oc_db.session("Slow search page", "/home/dev/shop")
    s.user("the search page is slow")
    turn = s.assistant()
    turn.bash("EXPLAIN ANALYZE SELECT * FROM products WHERE name ILIKE '%shoe%'",
              "Seq Scan on products (cost=0.00..4521.00)")
    backscroll_index()
    turn.text("A trigram GIN index on products.name turns the seq scan into an index scan.")  # streamed, no touch
    out = backscroll_index()
    assert out.report.records_added == 1
    assert texts(backscroll_home)[-1].startswith("A trigram GIN index")


def test_a_live_writer_in_wal_mode_is_read_and_wal_only_changes_are_noticed(oc_db, backscroll_home, backscroll_index):
    s = oc_db.session("Migrate to uv", "/home/dev/tooling")
    s.user("switch the project from poetry to uv")
    turn = s.assistant()
    turn.bash("uv init --no-readme && uv add -r requirements.txt", "Resolved 42 packages in 310ms")
    backscroll_index()  # the writer's connection is open: its commits are in the WAL, not the main file
    wal = Path(f"{oc_db.path}-wal")
    assert wal.stat().st_size > 0
    main_before = (oc_db.path.stat().st_size, oc_db.path.stat().st_mtime_ns)
    assert len(texts(backscroll_home)) == 3

    oc_db.conn.execute("BEGIN IMMEDIATE")  # a write in progress: not visible until it commits
    turn.text("Done: pyproject.toml now uses uv with a lockfile; poetry.lock is removed.")
    out = backscroll_index()
    assert out.report.unreadable == [] and len(texts(backscroll_home)) == 3
    oc_db.conn.execute("COMMIT")
    turn.finish()
    assert (oc_db.path.stat().st_size, oc_db.path.stat().st_mtime_ns) == main_before, "the change is only in the WAL"
    out = backscroll_index()
    assert out.report.files_changed == 1
    assert texts(backscroll_home)[-1] == "Done: pyproject.toml now uses uv with a lockfile; poetry.lock is removed."


def test_a_locked_database_is_reported_and_read_on_the_next_sync(oc_db, backscroll_home, backscroll_index, monkeypatch):
    monkeypatch.setattr(opencode, "BUSY_TIMEOUT", 0.05)
    monkeypatch.setattr(opencode, "BUSY_PAUSE", 0.0)
    s = oc_db.session("Lock test")
    s.user("rotate the api keys")
    oc_db.close()
    locker = subprocess.Popen(  # (another process: the writer holds the database alone, and keeps no -shm)
        [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
         "c.execute('PRAGMA locking_mode=EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE'); print('held', flush=True); "
         "sys.stdin.read()", str(oc_db.path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert locker.stdout is not None and locker.stdout.readline() == "held\n"
        out = backscroll_index()
        assert [p for p, _why in out.report.unreadable] == [str(oc_db.path)]
        assert "locked" in out.report.unreadable[0][1]
        assert texts(backscroll_home) == []
    finally:
        locker.communicate("", timeout=30)
    out = backscroll_index()
    assert out.report.unreadable == [] and texts(backscroll_home) == ["rotate the api keys"]


def test_subagent_sessions_are_linked_to_their_parent(oc_db, backscroll_home, backscroll_index):
    parent = oc_db.session("Audit the auth module", "/home/dev/api")
    parent.user("audit the auth module for timing attacks")
    turn = parent.assistant()
    turn.tool("task", {"description": "Find token comparisons", "prompt": "Find every place tokens are compared",
                       "subagent_type": "explore"}, "auth/tokens.py:31 compares with ==")
    child = oc_db.session("Find token comparisons (@explore subagent)", "/home/dev/api", parent=parent)
    child.user("Find every place tokens are compared")
    ct = child.assistant()
    ct.tool("grep", {"pattern": "token ==|== token", "include": "*.py"}, "auth/tokens.py:31: if token == expected:")
    ct.text("auth/tokens.py:31 compares the token with == instead of hmac.compare_digest.")
    ct.finish()
    backscroll_index()
    sess = {r["session_id"]: r for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert sess[child.session_id]["is_sidechain"] == 1
    assert sess[child.session_id]["parent_session_id"] == parent.session_id
    assert sess[parent.session_id]["is_sidechain"] == 0 and sess[parent.session_id]["parent_session_id"] is None
    rec = rows(backscroll_home, "SELECT * FROM records WHERE text LIKE '%compare_digest%'")[0]
    assert (rec["session_id"], rec["is_sidechain"]) == (child.session_id, 1)
    assert rec["parent_session_id"] == parent.session_id


def test_backscroll_search_calls_are_echoes_and_mentions_are_not(oc_db, backscroll_home, backscroll_index,
                                                                  backscroll_search):
    s = oc_db.session("Recall the staging port")
    s.user("which port does staging use?")
    turn = s.assistant()
    turn.bash("backscroll search foo", "1. [assistant] staging listens on 8443 behind the foo proxy")
    turn.bash('grep "backscroll search" x', "x:3: run backscroll search foo to recall")
    turn.text("Staging listens on 8443 behind the foo proxy.")
    turn.finish()
    backscroll_index()
    recs = rows(backscroll_home)
    assert [(r["text"].splitlines()[0], r["is_echo"]) for r in recs] == [
        ("which port does staging use?", 0),
        ("backscroll search foo", 1),
        ("1. [assistant] staging listens on 8443 behind the foo proxy", 1),
        ('grep "backscroll search" x', 0),
        ("x:3: run backscroll search foo to recall", 0),
        ("Staging listens on 8443 behind the foo proxy.", 0),
    ]
    res = backscroll_search("foo proxy", mode="lexical")
    assert not any(h.is_echo for h in res.results) and res.echoes_hidden == 2


def test_a_malformed_part_is_skipped_and_counted_and_the_rest_lands(oc_db, backscroll_home, backscroll_index):
    s = oc_db.session("Bad row")
    mid = s.user("why is the cache hit rate 3%?")
    s.part(mid, '{"type": "text", "text": "cut in the mid')
    turn = s.assistant()
    turn.text("The cache key includes a timestamp, so nothing is ever reused.")
    turn.finish()
    out = backscroll_index()
    assert texts(backscroll_home) == ["why is the cache hit rate 3%?",
                                      "The cache key includes a timestamp, so nothing is ever reused."]
    assert out.report.lines_skipped == 1
    skipped = rows(backscroll_home, "SELECT * FROM skipped_lines")
    assert [(r["path"], r["line"]) for r in skipped] == [(f"{oc_db.path}#{s.session_id}", 2)]
    assert "malformed JSON" in skipped[0]["reason"]


def test_search_finds_an_opencode_answer(oc_db, backscroll_home, backscroll_search):
    s = oc_db.session("Queue choice", "/home/dev/shop")
    s.user("which job queue should the shop use?")
    turn = s.assistant()
    turn.text("Use Postgres with SELECT ... FOR UPDATE SKIP LOCKED: we already run Postgres, no Redis needed.")
    turn.finish()
    res = backscroll_search("skip locked instead of redis", mode="lexical")
    top = res.results[0]
    assert top.agent == "opencode" and "SKIP LOCKED" in top.text and top.session_id == s.session_id
    assert top.source_path == f"{oc_db.path}#{s.session_id}" and top.project == "shop"


def test_iso_text_timestamps_are_normalised(backscroll_home, backscroll_index):
    db = OpenCodeDB(oc_root(backscroll_home) / "opencode.db", iso_times=True)
    try:
        s = db.session("ISO times")
        s.user("what time is it in the ledger?")
        s.part(s.user("second question"), {"type": "text", "text": "part without its own time"})
        backscroll_index()
        part_times = [t for (t,) in db.conn.execute("SELECT time_created FROM part ORDER BY rowid")]
        assert all(isinstance(t, str) and t.endswith("Z") for t in part_times)
        assert [r["timestamp"] for r in rows(backscroll_home)] == part_times
        s.user("a third")  # touch with ISO time_updated: noticed
        assert backscroll_index().report.records_added == 1
    finally:
        db.close()


# -- the older storage/ tree -------------------------------------------------------------------

PARENT = "ses_6a1f2c3d4ffeQ7rT9wXyZa1bC2"
CHILD = "ses_6a1f2b8e0ffdKx2Lm4Np6Qr8St"
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"


def _storage(home) -> Path:
    dest = oc_root(home) / "storage"
    shutil.copytree(DATA / "storage", dest)
    return dest


def test_storage_tree_records_and_subagent(backscroll_home, backscroll_index):
    storage = _storage(backscroll_home)
    out = backscroll_index()
    assert out.report.files_seen == 2 and out.report.unreadable == []
    recs = rows(backscroll_home, "SELECT * FROM records WHERE session_id = ? AND content_type != 'reasoning' "
                "ORDER BY id", (PARENT,))
    assert [(r["role"], r["tool_name"], r["text"].splitlines()[0]) for r in recs] == [
        ("user", None, "the nightly stock sync job keeps timing out against the warehouse API, can you find out why?"),
        ("tool", "bash", 'rg -n "timeout" inventory/'),
        ("tool", "bash", "inventory/sync.py:14:    resp = client.get(url, timeout=5)"),
        ("tool", "task", "task"),
        ("tool", "task", "Two callers: inventory/sync.py:14 (timeout=5) and inventory/reports.py:40 (no timeout)."),
        ("tool", "edit", "edit"),  # empty output: no result record
        ("assistant", None, "The warehouse API takes 8-12s on large SKU pages but the sync job used a 5s client "
                            "timeout. I raised it to 30s in inventory/sync.py; reports.py passes no timeout at all "
                            "and should get one too."),
    ]
    assert recs[0]["timestamp"] == "2026-09-05T09:27:00.000Z" and recs[1]["timestamp"] == "2026-09-05T09:27:03.500Z"
    assert recs[0]["source_path"] == str(storage / "session" / PROJECT / f"{PARENT}.json")
    assert recs[-1]["record_id"] == f"{PARENT}:prt_95e0c3e1000dGh5Ij6Kl7Mn8Op#0" and recs[-1]["line"] == 10
    sess = {r["session_id"]: r for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert sess[PARENT]["title"] == "Stock sync job times out" and sess[PARENT]["project"] == "inventory"
    assert (sess[CHILD]["is_sidechain"], sess[CHILD]["parent_session_id"]) == (1, PARENT)
    assert texts(backscroll_home, session_id=CHILD)[-1].startswith("Two callers")


def test_storage_tree_notices_new_parts_and_never_duplicates(backscroll_home, backscroll_index):
    storage = _storage(backscroll_home)
    backscroll_index()
    child_ids = rows(backscroll_home, "SELECT id FROM records WHERE session_id = ?", (CHILD,))
    mid = "msg_95e0c3e10009St9Uv0Wx1Yz2Ab"
    new = storage / "part" / mid / "prt_95e0c3e1000dZz0Follow0Up01.json"
    new.write_text(json.dumps({"id": new.stem, "sessionID": PARENT, "messageID": mid, "type": "text",
                               "text": "Also added retries with jitter around the warehouse call."}))
    out = backscroll_index()
    assert out.report.files_changed == 1 and out.report.records_replaced == 0 and out.report.records_added == 1
    assert "Also added retries with jitter around the warehouse call." in texts(backscroll_home, session_id=PARENT)
    assert rows(backscroll_home, "SELECT id FROM records WHERE session_id = ?", (CHILD,)) == child_ids
    # a part rewritten in place (same directory entries) is noticed too
    part = storage / "part" / mid / "prt_95e0c3e1000bMn7Op8Qr9St0Uv.json"
    data = json.loads(part.read_text())
    data["state"]["output"] = "Edit applied successfully."
    part.write_text(json.dumps(data))
    backscroll_index()
    assert "Edit applied successfully." in texts(backscroll_home, session_id=PARENT)
    for _ in range(2):
        assert backscroll_index().report.files_changed == 0
    recs = rows(backscroll_home)
    assert len(recs) == len({r["record_id"] for r in recs}) == 14  # 13 and one reasoning part


def test_a_session_in_both_generations_is_stored_once(backscroll_home, backscroll_index):
    """OpenCode copies the older storage into the database on upgrade and leaves the files behind."""
    _storage(backscroll_home)
    db = OpenCodeDB(oc_root(backscroll_home) / "opencode.db", project=PROJECT)
    try:
        db.session("Stock sync job times out", "/home/dev/inventory", session_id=PARENT)
        mid, pid, t = "msg_95e0c3d2b001Hq4Rz7Ux1Wb3Yd", "prt_95e0c3d2b002Ab1Cd2Ef3Gh4Ij", 1788600420000
        question = "the nightly stock sync job keeps timing out against the warehouse API, can you find out why?"
        db.conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
                        (mid, PARENT, t, t, json.dumps({"role": "user", "time": {"created": t}})))
        db.conn.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
                        (pid, mid, PARENT, t, t, json.dumps({"type": "text", "text": question})))
        backscroll_index()
    finally:
        db.close()
    recs = rows(backscroll_home, "SELECT * FROM records WHERE text LIKE 'the nightly stock sync%'")
    assert len(recs) == 1 and recs[0]["source_path"] == f"{db.path}#{PARENT}", "the database is read first"


# -- finding the files -------------------------------------------------------------------------

def test_discovery_claims_the_database_and_session_files_only(oc_db, backscroll_home):
    storage = _storage(backscroll_home)
    root = oc_root(backscroll_home)
    (root / "log").mkdir()
    (root / "log" / "2026-09-21T125320.log").write_text("INFO service=db opening database\n")
    (root / "snapshot" / PROJECT / "objects").mkdir(parents=True)
    oc_db.session("touch").user("hello")  # creates -wal and -shm beside the database
    found = list(opencode.AGENT.discover(root))
    assert found == [oc_db.path, storage / "session" / PROJECT / f"{CHILD}.json",
                     storage / "session" / PROJECT / f"{PARENT}.json"]
    assert AGENTS["opencode"] is opencode.AGENT
    assert not opencode.claims(storage / "message" / PARENT / "msg_95e0c3d2b001Hq4Rz7Ux1Wb3Yd.json")
    assert not opencode.claims(storage / "part" / "msg_95e0c3d2b001Hq4Rz7Ux1Wb3Yd" / "prt_95e0c3d2b002Ab1C.json")
    assert not opencode.claims(Path(f"{oc_db.path}-wal")) and opencode.claims(root / "opencode-dev.db")


def test_default_root_follows_opencode_and_xdg_variables(tmp_path):
    home = {"HOME": str(tmp_path)}
    assert opencode.default_root(home) == (tmp_path / ".local/share/opencode", "default")
    assert opencode.default_root({**home, "XDG_DATA_HOME": "/xdg"}) == (Path("/xdg/opencode"), "env $XDG_DATA_HOME")
    assert opencode.default_root({**home, "XDG_DATA_HOME": "/xdg", "OPENCODE_DATA_DIR": "/oc"}) == (
        Path("/oc"), "env $OPENCODE_DATA_DIR")


def test_stat_includes_the_wal(oc_db):
    s = oc_db.session("stat")
    before = opencode.stat(oc_db.path)
    s.user("one more row")
    after = opencode.stat(oc_db.path)
    assert after != before and after[0] > before[0]


def test_a_hostile_row_never_makes_index_or_status_print_megabytes(oc_db, backscroll_home):
    """A 5 MB session id reached every `index` note and every `status` (human and JSON) whole."""
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    s = oc_db.session("hostile", session_id="ses_" + "A" * 5_000_000)
    for text in ("hello there", "second message", "third"):
        s.user(text)
    runner = CliRunner()
    assert runner.invoke(app, ["index", "--no-embed"]).exit_code == 0
    oc_db.conn.execute("DELETE FROM part WHERE message_id IN (SELECT id FROM message ORDER BY id DESC LIMIT 2)")
    oc_db.conn.execute("DELETE FROM message WHERE id IN (SELECT id FROM message ORDER BY id DESC LIMIT 2)")
    r = runner.invoke(app, ["index", "--no-embed"])
    assert r.exit_code == 0 and "note:" in r.stderr and len(r.stderr) < 5000, len(r.stderr)
    for args in (["status"], ["status", "--json"], ["index", "--no-embed", "--json"]):
        r = runner.invoke(app, args)
        assert r.exit_code == 0 and len(r.stdout) + len(r.stderr) < 20_000, (args, len(r.stdout), len(r.stderr))


def test_an_error_the_person_saw_and_an_interrupted_tools_partial_output_are_kept():
    """OpenCode ``message-v2.ts``: an assistant message's ``error`` (an API error, an abort) is what the person saw,
    the harness's; an interrupted tool's ``state.metadata.output`` is its output so far, before the error."""
    from backscroll.ingest.sources.opencode_records import _Message, _Part, _unit
    from backscroll.types import SessionInfo

    tool = {"type": "tool", "tool": "bash", "callID": "c1", "state": {
        "status": "error", "input": {"command": "./migrate.sh"}, "error": "Tool execution aborted",
        "metadata": {"interrupted": True, "output": "applied 3 of 7 migrations"}}}
    msg = _Message("m1", {"role": "assistant", "time": {"created": 1767261600000},
                          "error": {"name": "APIError", "data": {"message": "529 Overloaded"}}},
                   None, [_Part("p1", tool)])
    unit = _unit("k", SessionInfo("s", "opencode"), [msg])
    assert [(r.role, r.author, r.is_error, r.text) for r in unit.records] == [
        ("tool", None, False, "./migrate.sh"),
        ("tool", None, True, "applied 3 of 7 migrations\nTool execution aborted"),
        ("user", "harness", False, "529 Overloaded")]


def test_a_session_only_the_newer_session_message_table_holds_is_read():
    """OpenCode's newer projection (``session_message``: ``SessionMessage`` rows, ``type`` in a column of its own):
    the person's text, the assistant's text, reasoning and tools, a ``!`` command, a compaction's summary and an
    error; what OpenCode adds itself is not a record."""
    from backscroll.ingest.sources.opencode_db import v2_message
    from backscroll.ingest.sources.opencode_records import _unit
    from backscroll.types import SessionInfo

    t = {"created": 1767261600000}
    rows: list[tuple[str, str, dict]] = [
        ("msg_1", "user", {"text": "why does the parser hang?", "time": t}),
        ("msg_2", "synthetic", {"sessionID": "s", "text": "<system-reminder>", "time": t}),
        ("msg_3", "assistant", {"agent": "build", "time": t, "content": [
            {"type": "reasoning", "id": "r", "text": "A loop on empty input."},
            {"type": "tool", "id": "call_1", "name": "read", "time": t, "state": {
                "status": "completed", "input": {"path": "parser.py"}, "structured": {},
                "content": [{"type": "text", "text": "while not done:"}]}},
            {"type": "text", "id": "x", "text": "It loops when the input is empty."}],
            "error": {"type": "unknown", "message": "stream cut"}}),
        ("msg_4", "shell", {"callID": "sh_1", "command": "pytest -x", "output": "1 failed", "time": t}),
        ("msg_5", "compaction", {"reason": "auto", "summary": "Parser hangs on empty input.", "recent": "", "time": t}),
        ("msg_6", "model-switched", {"model": {"id": "m"}, "time": t}),
    ]
    messages = [m for mid, kind, data in rows if (m := v2_message(mid, kind, data, 1767261600000)) is not None]
    unit = _unit("k", SessionInfo("s", "opencode"), messages)
    assert [(r.role, r.author, r.content_type, r.text) for r in unit.records] == [
        ("user", "human", "text", "why does the parser hang?"),
        ("assistant", None, "reasoning", "A loop on empty input."),
        ("tool", None, "tool", "read\npath: parser.py"),
        ("tool", None, "tool", "while not done:"),
        ("assistant", None, "text", "It loops when the input is empty."),
        ("user", "harness", "text", "stream cut"),
        ("tool", None, "tool", "pytest -x"),
        ("tool", None, "tool", "1 failed"),
        ("assistant", None, "summary", "Parser hangs on empty input."),
    ]


def test_the_newer_table_is_read_for_a_session_only_it_holds_and_never_twice(oc_db, backscroll_home,
                                                                               backscroll_index):
    import json

    s = _checkout_session(oc_db)
    only_v2 = oc_db.session("Parser hangs")
    oc_db.conn.execute("CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT "
                       "NULL, seq INTEGER NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL)")
    first = oc_db.conn.execute("SELECT id FROM message WHERE session_id = ? ORDER BY time_created",
                               (s.session_id,)).fetchone()[0]
    made = [(mid, sid, "user", n, oc_db.now, oc_db.now, json.dumps({"text": text, "time": {"created": 1}}))
            for n, (mid, sid, text) in enumerate(((first, s.session_id, "the projection of a prompt read from message"),
                                                  ("msg_a1", only_v2.session_id, "why does the parser hang?")))]
    oc_db.conn.executemany("INSERT INTO session_message VALUES (?, ?, ?, ?, ?, ?, ?)", made)
    backscroll_index(embed=False)
    texts_ = [r["text"] for r in rows(backscroll_home)]
    assert "why does the parser hang?" in texts_ and "the projection of a prompt read from message" not in texts_
    oc_db.conn.execute("INSERT INTO session_message VALUES ('msg_b', ?, 'user', 9, 1, 1, ?)",
                       (only_v2.session_id, json.dumps({"text": "and on empty input?", "time": {"created": 1}})))
    assert backscroll_index(embed=False).report.records_added == 1, "a new row of the newer table is noticed"


def test_a_session_continued_after_opencode_moved_to_the_newer_table_keeps_its_later_turns(oc_db, backscroll_home,
                                                                                           backscroll_index):
    """OpenCode's newer core writes a session's new turns only to ``session_message`` and copies its older ones there
    (``evt_legacy_backfill_`` rows); a fork copies its parent's rows (``<event>_<seq>``) and names it."""
    import json

    s = _checkout_session(oc_db)
    oc_db.conn.execute("CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT "
                       "NULL, seq INTEGER NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL)")
    first = oc_db.conn.execute("SELECT min(time_created) FROM message WHERE session_id = ?",
                               (s.session_id,)).fetchone()[0]
    later = oc_db.tick()

    def user(text: str) -> str:
        return json.dumps({"text": text, "time": {"created": 1}})

    oc_db.conn.executemany("INSERT INTO session_message VALUES (?, ?, 'user', ?, ?, ?, ?)", [
        ("evt_legacy_backfill_m_0001", s.session_id, 1, first, first, user("a copy of the first prompt")),
        ("msg_new1", s.session_id, 2, later, later, user("now make the empty-cart message friendlier"))])
    oc_db.conn.execute("ALTER TABLE session ADD COLUMN fork_session_id TEXT")
    fork = oc_db.session("Checkout (fork #1)")
    oc_db.conn.execute("UPDATE session SET fork_session_id = ? WHERE id = ?", (s.session_id, fork.session_id))
    oc_db.conn.executemany("INSERT INTO session_message VALUES (?, ?, 'user', ?, ?, ?, ?)", [
        ("evt_fork1_2", fork.session_id, 2, later, later, user("now make the empty-cart message friendlier")),
        ("msg_fork1", fork.session_id, 3, oc_db.tick(), oc_db.now, user("try it with a 404 instead"))])
    s.user("an older opencode, still running, wrote this one")  # (the older table after the newer's first row)
    dual = s.user("OpenCode's experimental event system wrote this one to both tables")
    when = oc_db.conn.execute("SELECT time_created FROM message WHERE id = ?", (dual,)).fetchone()[0]
    oc_db.conn.execute("INSERT INTO session_message VALUES ('msg_dual', ?, 'user', 4, ?, ?, ?)",
                       (s.session_id, when, when, user("OpenCode's experimental event system wrote this one to both "
                                                       "tables")))
    backscroll_index(embed=False)
    said = [(r["session_id"], r["text"]) for r in rows(backscroll_home) if r["role"] == "user"]
    assert (s.session_id, "now make the empty-cart message friendlier") in said
    assert (s.session_id, "an older opencode, still running, wrote this one") in said
    assert [t for _, t in said].count("OpenCode's experimental event system wrote this one to both tables") == 1
    assert (fork.session_id, "try it with a 404 instead") in said
    assert not any("a copy of the first prompt" in t for _, t in said)
    assert [t for sid, t in said if sid == fork.session_id] == ["try it with a 404 instead"]
    parent = rows(backscroll_home, "SELECT DISTINCT parent_session_id FROM records WHERE session_id = ?",
                  (fork.session_id,))
    assert [r["parent_session_id"] for r in parent] == [s.session_id]


def test_a_row_of_the_newer_table_updated_in_place_is_read_again(oc_db, backscroll_home, backscroll_index):
    """An assistant's step grows one ``session_message`` row in place (its text and tools are updates), and an
    early table has no ``seq``: both are read, and an odd ``content`` costs nothing."""
    import json

    only_v2 = oc_db.session("Parser hangs")
    oc_db.conn.execute("CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT "
                       "NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL)")
    empty = {"agent": "build", "time": {"created": 1}, "content": []}
    oc_db.conn.executemany("INSERT INTO session_message VALUES (?, ?, ?, 1, 1, ?)", [
        ("msg_1", only_v2.session_id, "user", json.dumps({"text": "why does the parser hang?",
                                                          "time": {"created": 1}})),
        ("msg_2", only_v2.session_id, "assistant", json.dumps(empty)),
        ("msg_3", only_v2.session_id, "assistant", json.dumps({**empty, "content": 5}))])
    oc_db.session("No messages yet")  # (read from the newer table too: nothing there)
    backscroll_index(embed=False)
    grown = {**empty, "content": [{"type": "text", "id": "t", "text": "It loops on empty input."}]}
    oc_db.conn.execute("UPDATE session_message SET time_updated = 2, data = ? WHERE id = 'msg_2'", (json.dumps(grown),))
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home)] == ["why does the parser hang?", "It loops on empty input."]


def test_the_persons_answers_to_the_question_tool_are_their_words(oc_db, backscroll_home, backscroll_index):
    """OpenCode's ``question`` tool keeps the options picked in ``metadata.answers`` (a list per question): they are
    stored as the person's text beside each question; its output text alone (a question unanswered) stays output."""
    s = oc_db.session("Storage layer")
    s.user("set up the storage layer")
    a = s.assistant()
    asked = {"questions": [{"header": "DB", "question": "Which database should we use?", "multiple": False,
                            "options": [{"label": "SQLite", "description": "a file"},
                                        {"label": "PostgreSQL", "description": "a server"}]},
                           {"header": "Extras", "question": "Which extras?", "multiple": True,
                            "options": [{"label": "Backups"}, {"label": "Metrics"}]}]}
    said = ('User has answered your questions: "Which database should we use?"="SQLite", "Which extras?"='
            '"Backups, Metrics". You can now continue with the user\'s answers in mind.')
    a.tool("question", asked, said, metadata={"answers": [["SQLite"], ["Backups", "Metrics"]]})
    a.tool("question", asked, "The user dismissed this question", status="error", error="dismissed")
    a.finish()
    backscroll_index()
    got = [(r["role"], r["author"], r["text"]) for r in rows(backscroll_home) if r["role"] != "tool"]
    assert got == [("user", "human", "set up the storage layer"),
                   ("user", "human", "Which database should we use? → SQLite\nWhich extras? → Backups, Metrics")]
    outputs = [r["text"] for r in rows(backscroll_home) if r["role"] == "tool"]
    assert len(outputs) == 3 and outputs[2] == "dismissed" and said not in outputs


def test_a_wal_no_writer_keeps_is_read_from_a_copy_and_nothing_is_made_beside_it(tmp_path, backscroll_home,
                                                                                 backscroll_index):
    """A database copied with its ``-wal`` and no ``-shm`` (a backup, a synced folder): SQLite made the ``-shm`` in
    the agent's folder, and in a folder it could not write it read nothing at all."""
    writer = OpenCodeDB(tmp_path / "live" / "opencode.db")
    writer.conn.execute("PRAGMA wal_autocheckpoint = 0")
    s = writer.session("Backup restore", "/home/dev/tooling")
    s.user("restore the nightly backup of the ledger")  # (its commit only in the WAL)
    root = oc_root(backscroll_home)
    root.mkdir(parents=True)
    for name in ("opencode.db", "opencode.db-wal"):
        shutil.copyfile(writer.path.parent / name, root / name)
    writer.close()
    assert "restore the nightly backup" not in (root / "opencode.db").read_bytes().decode("utf-8", "replace")
    before = sorted((p.name, p.read_bytes()) for p in root.iterdir())
    left = backscroll_home.data / "scratch" / "backscroll-db-killed"  # (a copy a run killed mid-read left)
    left.mkdir(parents=True)
    (left / "copy.db").write_bytes(b"secrets")
    os.utime(left, (1_700_000_000, 1_700_000_000))
    root.chmod(0o555)
    try:
        out = backscroll_index(embed=False)
    finally:
        root.chmod(0o755)
    assert not out.report.unreadable and "restore the nightly backup of the ledger" in texts(backscroll_home)
    assert sorted((p.name, p.read_bytes()) for p in root.iterdir()) == before, "nothing made or changed beside it"
    scratch = backscroll_home.data / "scratch"
    assert scratch.is_dir() and (scratch.stat().st_mode & 0o777) == 0o700 and not list(scratch.iterdir()), \
        "the copy was made in the data dir, owner-only, and removed after the read"


def _asked(oc_db, n: int) -> list:
    """``n`` sessions of one question each."""
    sessions = []
    for i in range(n):
        s = oc_db.session(f"task {i}")
        s.user(f"question {i}")
        sessions.append(s)
    return sessions


def _damaged(oc_db, marker: bytes) -> bytes:
    """Damage the page of the database that holds ``marker`` (its header); returns the database as it was."""
    oc_db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    oc_db.close()
    data = bytearray(mended := oc_db.path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    at = data.find(marker) // page * page
    data[at + 1:at + 5] = b"\xff\xff\xff\xff"  # (a damaged page header)
    oc_db.path.write_bytes(bytes(data))
    return mended


def test_a_damaged_page_costs_only_the_sessions_whose_rows_sit_on_it(oc_db, backscroll_home, backscroll_index):
    """One damaged page of ``part`` made the whole database unreadable: every session of the history lost."""
    for n in range(30):
        s = oc_db.session(f"task {n}")
        s.user(f"question {n}")
        turn = s.assistant()
        turn.text(f"ocreply{n} done " + "x" * 1500)
        turn.finish()
    mended = _damaged(oc_db, b"ocreply17 done")
    out = backscroll_index(embed=False)
    assert not out.report.unreadable and out.report.lines_skipped >= 1
    replies = rows(backscroll_home, "SELECT text FROM records WHERE text LIKE 'ocreply%'")
    landed = {r["text"].split()[0] for r in replies}
    assert "ocreply17" not in landed and len(landed) >= 25, sorted(landed)
    again = backscroll_index(embed=False)
    assert again.report.records_added == 0 and not again.report.unreadable
    oc_db.path.write_bytes(bytes(mended))  # (the page mended: the session lands at the next sync)
    backscroll_index(embed=False)
    assert any(t.startswith("ocreply17 ") for t in texts(backscroll_home))


def test_a_part_updated_in_place_is_read_again(oc_db, backscroll_home, backscroll_index):
    """OpenCode finishes an interrupted tool by writing its part again in place: no new row, the session's own time
    unchanged. The output never landed."""
    s = oc_db.session("Long build")
    s.user("run the full build")
    turn = s.assistant()
    pid = turn.tool("bash", {"command": "make all"}, status="running")
    backscroll_index(embed=False)
    done = {"type": "tool", "callID": "toolu_01x", "tool": "bash", "state": {
        "status": "completed", "input": {"command": "make all"}, "output": "zbuildfinished: 312 targets",
        "title": "bash", "metadata": {}, "time": {"start": 1, "end": 2}}}
    oc_db.conn.execute("UPDATE part SET data = ?, time_updated = time_updated + 5000 WHERE id = ?",
                       (json.dumps(done), pid))
    backscroll_index(embed=False)
    assert any("zbuildfinished" in t for t in texts(backscroll_home))


def test_a_session_read_before_that_a_damaged_page_keeps_out_is_read_once_mended(oc_db, backscroll_home,
                                                                                 backscroll_index):
    sessions = _asked(oc_db, 30)
    backscroll_index(embed=False)
    sid = sessions[17].session_id
    (was,) = oc_db.conn.execute("SELECT time_updated FROM session WHERE id = ?", (sid,)).fetchone()
    turn = sessions[17].assistant()
    turn.text("ocreply17 late " + "x" * 1500)  # (new rows of a session read before, on the page to be damaged)
    turn.finish()
    for s in sessions[18:]:  # (and later rows after it: the damaged page is no longer the newest)
        later = s.assistant()
        later.text("later reply " + "y" * 1500)
        later.finish()
    oc_db.conn.execute("UPDATE session SET time_updated = ? WHERE id = ?", (was, sid))  # (its rows alone say so)
    mended = _damaged(oc_db, b"ocreply17 late")
    backscroll_index(embed=False)
    assert not any(t.startswith("ocreply17 ") for t in texts(backscroll_home))
    oc_db.path.write_bytes(mended)
    backscroll_index(embed=False)
    assert any(t.startswith("ocreply17 late") for t in texts(backscroll_home)), "tried again, not left behind"


def test_a_sync_that_copies_no_database_makes_no_scratch_folder(oc_db, backscroll_home, backscroll_index):
    """The folder for copies is made by the first copy: the sync before every search does no work for it."""
    oc_db.session("Plain").user("a plain question")
    backscroll_index(embed=False)
    assert not (backscroll_home.data / "scratch").exists()


def test_a_damaged_page_among_the_newest_rows_costs_only_its_session(oc_db, backscroll_home, backscroll_index):
    """The newest rows tell which sessions changed since the last read: a damaged page there stopped the read of
    the whole database, so no session's new rows landed."""
    sessions = _asked(oc_db, 20)
    backscroll_index(embed=False)
    sessions[3].user("ocfresh three asks again")  # (a session read before gains a row: not on the damaged page)
    oc_db.session("a new one").user("ocfresh new session")
    turn = sessions[17].assistant()
    turn.text("ocreply17 newest " + "x" * 3000)  # (the newest rows, on the page to be damaged)
    turn.finish()
    page = oc_db.conn.execute("PRAGMA page_size").fetchone()[0]
    mended = _damaged(oc_db, b"ocreply17 newest")
    assert mended.find(b"ocfresh") // page != mended.find(b"ocreply17 newest") // page, "on pages of their own"
    out = backscroll_index(embed=False)
    assert not out.report.unreadable, out.report.unreadable
    landed = texts(backscroll_home)
    assert "ocfresh three asks again" in landed and "ocfresh new session" in landed
    assert not any(t.startswith("ocreply17 ") for t in landed)
    oc_db.path.write_bytes(mended)
    backscroll_index(embed=False)
    assert any(t.startswith("ocreply17 newest") for t in texts(backscroll_home)), "tried again, not left behind"


@pytest.mark.parametrize("where", ["max(rowid)", "max(time_updated)", "FROM part WHERE"])
def test_a_writer_holding_the_database_is_waited_for_not_taken_for_damage(oc_db, where):
    """A busy or locked database, met while telling which sessions changed or reading one, was taken for a damaged
    page: every session was read again, and a new one stored as unreadable, instead of the read being tried again."""
    import sqlite3

    from backscroll.ingest.sources import opencode_db

    for n in range(3):
        turn = oc_db.session(f"task {n}").assistant()
        turn.text(f"reply {n}")
        turn.finish()
    oc_db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    read = sqlite3.connect(oc_db.path)
    state = opencode_db.read_snapshot(read, oc_db.path, {}).state
    oc_db.session("a new one").user("a question written meanwhile")

    class Busy(sqlite3.Connection):
        def execute(self, sql, *args):
            if where in sql:
                raise sqlite3.OperationalError("database is locked")
            return super().execute(sql, *args)

    busy = sqlite3.connect(oc_db.path, factory=Busy)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        opencode_db.read_snapshot(busy, oc_db.path, state)
    busy.close()
    read.close()
