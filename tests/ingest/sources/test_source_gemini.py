"""Gemini CLI sessions, both generations: what the files become, and how rewrites are followed.

The fixtures under tests/data/gemini/tmp mirror ``~/.gemini/tmp``: an older rewritten
``session-*.json`` in a hashed project dir, and newer ``session-*.jsonl`` files (a slug dir with
``.project_root``, a subagent, a ``$set.messages`` checkpoint, and one with bad lines).
"""


import json
import shutil
from pathlib import Path

from helpers import TESTS, rows, texts
from typer.testing import CliRunner

from backscroll.ingest.sources import AGENTS, gemini

DATA = TESTS / "data" / "gemini" / "tmp"
LEGACY = ("bccd7e84132f4363174c32276032828f82bba6370bda1fa716ab6924d4b64e8e/chats/"
          "session-2026-09-14T10-02-7c1e9a4b.json")
MAIN = "webhooks-relay/chats/session-2026-10-03T14-20-5f0d2c61.jsonl"
SUB = ("webhooks-relay/chats/5f0d2c61-8a4e-4b7c-9e21-0c3d7a9b4f10/"
       "a91e4f07-2b6d-4c1e-8f3a-6d0b9c2e7714.jsonl")
CHECKPOINT = ("df2c555f0f518104c13a1496fe9059ea84ce8844f4cf6f524558e1221cba824c/chats/"
              "session-2026-10-05T08-45-c4b71e20.jsonl")
BROKEN = ("be816eb3ded2b0b05c5eef8995ff3edaf0da5ee41dfd1392fa62f232a782385f/chats/"
          "session-2026-10-06T16-05-9e3d5a12.jsonl")

LEGACY_SID = "7c1e9a4b-3f52-4d0e-b6a8-91c2e4f07d35"
MAIN_SID = "5f0d2c61-8a4e-4b7c-9e21-0c3d7a9b4f10"
SUB_SID = "a91e4f07-2b6d-4c1e-8f3a-6d0b9c2e7714"


def gemini_tmp(home) -> Path:
    return home.home / ".gemini" / "tmp"


def install(home, rel: str, data: bytes | None = None) -> Path:
    """Put a fixture where Gemini CLI keeps it (with its project's ``.project_root``, if any)."""
    dest = gemini_tmp(home) / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data if data is not None else (DATA / rel).read_bytes())
    project = Path(rel).parts[0]
    marker = DATA / project / ".project_root"
    if marker.exists():
        shutil.copyfile(marker, gemini_tmp(home) / project / ".project_root")
    return dest


def records_of(home, session_id):
    """Text and tool records (thoughts are reasoning records since issue 15; tests/test_real_sessions_more.py)."""
    return rows(home, "SELECT * FROM records WHERE session_id = ? AND content_type != 'reasoning' ORDER BY id",
                (session_id,))


# -- the older generation: one JSON object, rewritten every turn -------------------------------------

def test_legacy_json_records_of_every_kind(backscroll_home, backscroll_index):
    install(backscroll_home, LEGACY)
    out = backscroll_index()
    assert out.report.unreadable == [] and out.report.lines_skipped == 0

    recs = rows(backscroll_home, "SELECT * FROM records WHERE content_type != 'reasoning' ORDER BY id")
    got = [(r["line"], r["role"], r["tool_name"], r["text"].split("\n")[0][:40]) for r in recs]
    assert got == [
        (1, "user", None, "The nightly invoice job crashes with `Ty"),
        (2, "assistant", None, "I'll look at how invoice totals are comp"),
        (2, "tool", "run_shell_command", 'grep -rn "def total" invoicer/'),
        (2, "tool", "run_shell_command", 'Command: grep -rn "def total" invoicer/'),
        (2, "tool", "read_file", "read_file"),
        (2, "tool", "read_file", "[File content truncated: showing lines 3"),
        (3, "assistant", None, "Found it: `Invoice.total()` adds `settin"),
        (5, "user", None, "Do that, and run the totals tests."),  # line 4 is an info notice
        (6, "tool", "replace", "replace"),
        (6, "tool", "replace", "Successfully modified file: /home/dev/in"),
        (6, "tool", "read_file", "read_file"),
        (6, "tool", "read_file", "File not found: /home/dev/invoicer/tests"),
        (6, "tool", "run_shell_command", "python -m pytest -q tests/test_invoices."),
        (6, "tool", "run_shell_command", "Command: python -m pytest -q tests/test_"),
        (7, "assistant", None, "Done. `load_settings()` now returns `shi"),
    ]
    assert recs[4]["text"] == "read_file\nabsolute_path: /home/dev/invoicer/invoicer/models.py\noffset: 30\nlimit: 20"
    assert "def total(self) -> Decimal:" in recs[5]["text"]
    assert [r["is_error"] for r in recs].index(1) == 11 and sum(r["is_error"] for r in recs) == 1
    assert all(r["content_type"] == ("tool" if r["role"] == "tool" else "text") for r in recs)
    # calls and results share the call id; ids are <session>:<message>#<block>
    assert recs[2]["tool_call_id"] == recs[3]["tool_call_id"] == "run_shell_command-1757844139077-8c2d41f0a7b3e"
    assert recs[0]["record_id"] == f"{LEGACY_SID}:b1f0c6d2-5e7a-4c39-8a41-0d9e3f6b2c17#0"
    assert [r["record_id"].rsplit("#", 1)[1] for r in recs[8:14]] == ["1", "2", "3", "4", "5", "6"]
    assert recs[0]["timestamp"] == "2026-09-14T10:02:11.418Z"
    assert recs[2]["timestamp"] == "2026-09-14T10:02:21.640Z", "a tool call carries its own time"
    everything = " ".join(r["text"] for r in recs)
    assert "Decimal plus float" not in everything, "thoughts are not records"
    assert "Approval mode changed" not in everything and "Quota exceeded" not in everything, "notices are not records"
    assert all(r["agent"] == "gemini" and r["session_id"] == LEGACY_SID for r in recs)
    # issue 15: the hashed folder name is recovered from the absolute paths in the session's tool arguments
    assert recs[0]["cwd"] == "/home/dev/invoicer" and recs[0]["project"] == "invoicer"
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert session["title"] == "Fix Decimal/float TypeError in invoice totals" and session["agent"] == "gemini"
    assert session["is_sidechain"] == 0 and session["started_at"] < session["updated_at"]


def test_legacy_json_rewritten_every_turn_replaces_its_records(backscroll_home, backscroll_index):
    full = json.loads((DATA / LEGACY).read_text())

    def write(n_messages):
        doc = dict(full, messages=full["messages"][:n_messages])
        install(backscroll_home, LEGACY, json.dumps(doc, indent=2).encode())

    write(2)
    first = backscroll_index()
    assert first.report.records_added == 7  # 6 and the first answer's thoughts (reasoning)
    write(5)
    second = backscroll_index()
    # records read again unchanged are left alone: only the new ones are added
    assert (second.report.records_added, second.report.records_replaced) == (3, 0)  # with thoughts
    write(len(full["messages"]))
    third = backscroll_index()
    assert (third.report.records_added, third.report.records_replaced) == (7, 0)
    again = backscroll_index()
    assert (again.report.files_changed, again.report.records_added) == (0, 0)

    recs = rows(backscroll_home)
    assert len(recs) == 17 and len({r["record_id"] for r in recs}) == 17  # 15 and 2 thoughts
    assert [r["line"] for r in recs] == sorted(r["line"] for r in recs)
    users = texts(backscroll_home, role="user")
    assert [t[:37] for t in users] == ["The nightly invoice job crashes with ", "Do that, and run the totals tests."]
    assert len(rows(backscroll_home, "SELECT * FROM sessions")) == 1


def test_truncated_json_is_unreadable_and_loses_nothing(backscroll_home, backscroll_index):
    path = install(backscroll_home, LEGACY)
    backscroll_index()
    before = rows(backscroll_home)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # caught halfway through a rewrite
    out = backscroll_index()
    assert [p for p, _why in out.report.unreadable] == [str(path)]
    assert "JSON" in out.report.unreadable[0][1]
    assert [r["record_id"] for r in rows(backscroll_home)] == [r["record_id"] for r in before]

    from backscroll.cli.app import app

    result = CliRunner().invoke(app, ["index"], catch_exceptions=False)
    assert result.exit_code == 4, "unreadable sources"

    doc = json.loads(data)
    doc["messages"].append({"id": "0c7f9e2a-41b6-4d38-a5e0-8b2d6f1c3e97", "timestamp": "2026-09-14T10:11:02.000Z",
                            "type": "user", "content": "Thanks, please commit it."})
    path.write_text(json.dumps(doc, indent=2))
    out = backscroll_index()
    assert out.report.unreadable == []
    assert texts(backscroll_home, role="user")[-1] == "Thanks, please commit it."
    assert len(rows(backscroll_home)) == len(before) + 1


def test_resumed_older_session_migrated_to_jsonl_is_stored_once(backscroll_home, backscroll_index):
    """Resuming a ``.json`` session makes Gemini CLI copy it into ``<same name>.jsonl`` and go on there."""
    install(backscroll_home, LEGACY)
    doc = json.loads((DATA / LEGACY).read_text())
    header = {k: doc[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated", "summary")}
    more = {"id": "3e9b0d64-a2c7-4f15-8b3e-d0f6a1c9e574", "timestamp": "2026-09-15T08:30:12.000Z", "type": "user",
            "content": [{"text": "Also round the shipping fee to cents when printing invoices."}]}
    install(backscroll_home, LEGACY + "l", _jsonl(header, *doc["messages"], {"$set": {"sessionId": doc["sessionId"]}},
                                                  more))
    out = backscroll_index()
    assert out.report.files_changed == 2
    recs = rows(backscroll_home)
    assert len(recs) == 18 and len({r["record_id"] for r in recs}) == 18  # 16 and 2 thoughts
    assert texts(backscroll_home, role="user")[-1] == "Also round the shipping fee to cents when printing invoices."
    assert len(rows(backscroll_home, "SELECT * FROM sessions")) == 1


# -- the newer generation: JSONL with upserts, patches, rewinds and checkpoints ----------------------

def test_jsonl_records_upserts_and_rewinds(backscroll_home, backscroll_index):
    install(backscroll_home, MAIN)
    out = backscroll_index()
    assert out.report.lines_skipped == 0

    recs = records_of(backscroll_home, MAIN_SID)
    got = [(r["line"], r["role"], r["tool_name"], r["record_id"].rsplit("#", 1)[1]) for r in recs]
    assert got == [
        (1, "user", None, "0"),
        (2, "tool", "run_shell_command", "1"), (2, "tool", "run_shell_command", "2"),  # no text in that turn
        (3, "tool", "run_shell_command", "1"), (3, "tool", "run_shell_command", "2"),
        (4, "assistant", None, "0"), (4, "tool", "read_file", "1"), (4, "tool", "read_file", "2"),
        (6, "user", None, "0"),  # line 5 is an info notice
        (7, "tool", "replace", "1"), (7, "tool", "replace", "2"),
        (7, "tool", "run_shell_command", "3"), (7, "tool", "run_shell_command", "4"),
        (8, "assistant", None, "0"),
    ]
    # the rewritten assistant turn: one record, the final text (its text parts joined)
    answer = [r for r in recs if r["record_id"] == f"{MAIN_SID}:f29b4c6e-0d83-4a71-b5e9-3c1a7f8d2e64#0"]
    assert len(answer) == 1
    assert answer[0]["text"].startswith("Yes. In March the same failure came from the body parser running before "
                                        "verification. `stripe.Webhook.construct_event` must get the raw request bytes")
    assert len([r for r in recs if r["text"].startswith("backscroll search")]) == 1, "upserted turn counted once"
    # $rewindTo dropped the rewound prompt, its answer and its failed edit
    everything = " ".join(r["text"] for r in recs)
    assert "for every route" not in everything and "expected 1 occurrence" not in everything
    assert "get_data() and parse the JSON myself" not in everything
    assert recs[8]["text"] == "Only change the Stripe webhook route; the admin routes should keep get_json()."
    session = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id = ?", (MAIN_SID,))[0]
    assert session["title"] == "Stripe webhook signature failures after the proxy change"  # from a $set


def test_jsonl_rewritten_turn_is_replaced_across_syncs(backscroll_home, backscroll_index):
    lines = (DATA / MAIN).read_bytes().splitlines(keepends=True)
    path = install(backscroll_home, MAIN, b"".join(lines[:8]))  # the answer's first, shorter version
    backscroll_index()
    rid = f"{MAIN_SID}:f29b4c6e-0d83-4a71-b5e9-3c1a7f8d2e64#0"
    first = rows(backscroll_home, "SELECT text FROM records WHERE record_id = ?", (rid,))
    assert [r["text"] for r in first] == ["Yes. In March the same failure came from the body parser running before "
                                          "verification."]
    path.write_bytes(b"".join(lines))
    backscroll_index()
    backscroll_index()
    final = rows(backscroll_home, "SELECT text FROM records WHERE record_id = ?", (rid,))
    assert len(final) == 1 and "raw request bytes" in final[0]["text"]
    recs = rows(backscroll_home)
    assert len(recs) == 17 and len({r["record_id"] for r in recs}) == 17  # 14 and 3 thoughts


def test_jsonl_checkpoint_adds_a_compressions_summary_and_keeps_what_it_left_out(backscroll_home, backscroll_index):
    """A ``$set.messages`` checkpoint (a compression's new context) adds its summary, filed as one, and what it
    left out or masked stays: the file still holds it, and a first index after the compression reads it."""
    install(backscroll_home, CHECKPOINT)
    backscroll_index()
    recs = rows(backscroll_home, "SELECT * FROM records WHERE content_type != 'reasoning' ORDER BY id")
    got = [(r["line"], r["role"], r["content_type"], r["tool_name"], r["text"].split("\n")[0][:40]) for r in recs]
    assert got == [
        (1, "user", "text", None, "What does scripts/migrate.py do with --d"),
        (2, "assistant", "text", None, "With --dry-run it opens a transaction, a"),
        (2, "tool", "tool", "read_file", "read_file"),
        (2, "tool", "tool", "read_file", "def main(argv=None):"),
        (3, "user", "text", None, "Summarise docs/migrations.md"),
        (4, "assistant", "text", None, "Three phases: expand (add the new ledger"),
        (4, "tool", "tool", "read_file", "read_file"),
        (4, "tool", "tool", "read_file", "# Ledger schema migrations"),  # as read, not the checkpoint's mask
        (5, "assistant", "summary", None, "<state_snapshot>"),
        (6, "assistant", "text", None, "Got it. Thanks for the additional contex"),
        (7, "user", "text", None, "Does the contract phase need downtime?"),  # appended after the checkpoint
        (8, "assistant", "text", None, "No. The contract phase only drops amount"),
    ]
    assert [r["author"] for r in recs if r["role"] == "user"] == ["human", "human", "human"]
    # no .project_root: the directories field names the project
    assert {(r["cwd"], r["project"]) for r in recs} == {("/home/dev/ledger", "ledger")}


def test_project_root_file_gives_cwd_and_project(backscroll_home, backscroll_index):
    install(backscroll_home, MAIN)
    backscroll_index()
    recs = records_of(backscroll_home, MAIN_SID)
    assert {(r["cwd"], r["project"]) for r in recs} == {("/home/dev/webhooks-relay", "webhooks-relay")}
    session = rows(backscroll_home, "SELECT * FROM sessions")[0]
    assert (session["cwd"], session["project"], session["agent"]) == ("/home/dev/webhooks-relay", "webhooks-relay",
                                                                      "gemini")


def test_subagent_is_a_session_linked_to_its_parent(backscroll_home, backscroll_index):
    install(backscroll_home, MAIN)
    install(backscroll_home, SUB)
    backscroll_index()
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert set(sessions) == {MAIN_SID, SUB_SID}
    child = sessions[SUB_SID]
    assert (child["is_sidechain"], child["parent_session_id"], child["project"]) == (1, MAIN_SID, "webhooks-relay")
    assert sessions[MAIN_SID]["is_sidechain"] == 0
    sub = records_of(backscroll_home, SUB_SID)
    assert [(r["role"], r["tool_name"]) for r in sub] == [("user", None), ("tool", "search_file_content"),
                                                           ("tool", "search_file_content"), ("assistant", None)]
    assert sub[1]["text"] == "search_file_content\npattern: get_json\\(|request\\.json\ndir_path: relay"
    assert all(r["is_sidechain"] == 1 and r["parent_session_id"] == MAIN_SID for r in sub)


def test_older_subagent_file_under_its_parents_id_is_a_session_of_its_own(backscroll_home, backscroll_index):
    # Seen in real Gemini CLI files of March 2026: a subagent run (codebase_investigator, cli_help) is
    # its own session-*.json beside the parent's, "kind": "subagent", with the parent's sessionId and a
    # summary of its own. It was merged into the parent, which became a "subagent" titled by the child.
    sid = "ea9f470a-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
    folder = "2d33ff91aa8e4c1b9f0e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a49382/chats"

    def message(n, kind, text):
        return {"id": f"m{n}", "timestamp": f"2026-03-21T03:{20 + n:02d}:00.000Z", "type": kind, "content": text}

    main = {"sessionId": sid, "projectHash": "x", "startTime": "2026-03-21T03:21:00.000Z", "kind": "main",
            "messages": [message(1, "user", "audit the installer for hard-coded home paths"),
                         message(2, "gemini", "I'll ask an investigator to map the install scripts.")]}
    sub = {"sessionId": sid, "projectHash": "x", "startTime": "2026-03-21T03:42:00.000Z", "kind": "subagent",
           "summary": "Map the install scripts",
           "messages": [message(3, "user", "Your task is to map every install script and the paths it writes."),
                        message(4, "gemini", "setup.sh writes ~/.aim; install.py hard-codes /home/kingb."),
                        message(5, "user", "You have exceeded the maximum number of turns. You have one final "
                                           "chance to complete the task with a short grace period.")]}
    install(backscroll_home, f"{folder}/session-2026-03-21T03-21-ea9f470a.json", json.dumps(main).encode())
    install(backscroll_home, f"{folder}/session-2026-03-21T03-42-ea9f470a.json", json.dumps(sub).encode())
    backscroll_index()
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    child_id = f"{sid}:session-2026-03-21T03-42-ea9f470a"
    assert set(sessions) == {sid, child_id}
    assert (sessions[sid]["is_sidechain"], sessions[sid]["title"]) == (0, None)
    child = sessions[child_id]
    assert (child["is_sidechain"], child["parent_session_id"], child["title"]) == (1, sid, "Map the install scripts")
    assert texts(backscroll_home, session_id=sid) == ["audit the installer for hard-coded home paths",
                                                      "I'll ask an investigator to map the install scripts."]
    users = rows(backscroll_home, "SELECT author FROM records WHERE session_id = ? AND role = 'user' ORDER BY id",
                 (child_id,))
    assert [u["author"] for u in users] == ["agent", "harness"]  # the brief, then Gemini CLI's own warning
    # A store an older parser built has the parent titled by its child (and ending when the child did):
    # read again by this parser, from unchanged files, it takes its title and times from its own file.
    import sqlite3

    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    conn.execute("UPDATE sessions SET title = 'Map the install scripts', updated_at = '2026-03-21T03:45:00.000Z' "
                 "WHERE session_id = ?", (sid,))
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'parse_version'")
    conn.execute("UPDATE source_files SET parse_version = 4")
    conn.commit()
    conn.close()
    backscroll_index()
    (parent,) = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id = ?", (sid,))
    assert (parent["title"], parent["updated_at"]) == (None, "2026-03-21T03:22:00.000Z")


def test_a_subagent_whose_file_names_no_directory_is_in_its_parents_project(backscroll_home, backscroll_index):
    # Older Gemini CLI folders are named by the SHA-256 of the project root, which is found from the
    # absolute paths in a session's tool calls; a subagent that made none had no project at all.
    import hashlib

    sid = "b26e4930-0000-4000-8000-000000000001"
    folder = hashlib.sha256(b"/home/dev/aim").hexdigest() + "/chats"
    call = {"id": "c1", "name": "read_file", "args": {"file_path": "/home/dev/aim/setup.sh"}, "status": "success",
            "timestamp": "2026-03-21T03:21:30.000Z"}
    main = {"sessionId": sid, "kind": "main", "messages": [
        {"id": "m1", "timestamp": "2026-03-21T03:21:00.000Z", "type": "user", "content": "check setup.sh"},
        {"id": "m2", "timestamp": "2026-03-21T03:21:30.000Z", "type": "gemini", "content": "Reading it.",
         "toolCalls": [call]}]}
    sub = {"sessionId": sid, "kind": "subagent", "messages": [
        {"id": "s1", "timestamp": "2026-03-21T03:42:00.000Z", "type": "user", "content": "Summarise the installer."},
        {"id": "s2", "timestamp": "2026-03-21T03:42:30.000Z", "type": "gemini", "content": "It copies hooks."}]}
    install(backscroll_home, f"{folder}/session-2026-03-21T03-21-b26e4930.json", json.dumps(main).encode())
    install(backscroll_home, f"{folder}/session-2026-03-21T03-42-b26e4930.json", json.dumps(sub).encode())
    backscroll_index()
    projects = {s["session_id"]: s["project"] for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert projects == {sid: "aim", f"{sid}:session-2026-03-21T03-42-b26e4930": "aim"}
    assert {r["project"] for r in rows(backscroll_home)} == {"aim"}


def test_a_session_naming_no_path_finds_its_hashed_folders_root_from_another(backscroll_home, backscroll_index):
    import hashlib

    folder = hashlib.sha256(b"/home/dev/aim").hexdigest() + "/chats"

    def session(sid, stamp, messages):
        return f"{folder}/session-{stamp}-{sid[:8]}.json", {"sessionId": sid, "kind": "main", "messages": messages}

    call = {"id": "c1", "name": "read_file", "args": {"file_path": "/home/dev/aim/hooks/end.py"}, "status": "success"}
    chat = session("aaaa0001-0000-4000-8000-000000000001", "2026-03-20T10-00", [
        {"id": "m1", "timestamp": "2026-03-20T10:00:00Z", "type": "user", "content": "what is a session hook?"},
        {"id": "m2", "timestamp": "2026-03-20T10:00:05Z", "type": "gemini", "content": "A script Gemini CLI runs."}])
    work = session("bbbb0002-0000-4000-8000-000000000002", "2026-03-21T09-00", [
        {"id": "m1", "timestamp": "2026-03-21T09:00:00Z", "type": "user", "content": "fix the end hook"},
        {"id": "m2", "timestamp": "2026-03-21T09:00:05Z", "type": "gemini", "content": "Reading it.",
         "toolCalls": [call]}])
    empty = session("cccc0003-0000-4000-8000-000000000003", "2026-03-22T09-00", [
        {"id": "w1", "timestamp": "2026-03-22T09:00:00Z", "type": "warning", "content": "Hook(s) failed"}])
    for rel, obj in (chat, work, empty):
        install(backscroll_home, rel, json.dumps(obj).encode())
    backscroll_index()
    projects = {s["session_id"][:4]: s["project"] for s in rows(backscroll_home, "SELECT * FROM sessions")}
    assert projects == {"aaaa": "aim", "bbbb": "aim"}  # (a file with only a warning gives no session)


def test_a_root_only_tool_outputs_name_is_found(backscroll_home, backscroll_index):
    """Issue #36: a session whose calls use relative paths (``ls .``, ``cat app.py``) showed project ``-``
    although its tool outputs print the folder."""
    import hashlib

    folder = hashlib.sha256(b"/home/dev/pomodoro").hexdigest() + "/chats"
    calls = [{"id": "c1", "name": "list_directory", "args": {"path": "."}, "status": "success",
              "resultDisplay": "Listed 3 item(s) in /home/dev/pomodoro/src."},
             {"id": "c2", "name": "run_shell_command", "args": {"command": "pytest -q"}, "status": "success",
              "result": [{"functionResponse": {"id": "c2", "name": "run_shell_command", "response": {
                  "output": "Command: pytest -q\nDirectory: (root)\nOutput: rootdir: /home/dev/pomodoro\n1 passed"}}}]}]
    sid = "dddd0004-0000-4000-8000-000000000004"
    obj = {"sessionId": sid, "kind": "main", "messages": [
        {"id": "m1", "timestamp": "2026-03-23T09:00:00Z", "type": "user", "content": "run the timer tests"},
        {"id": "m2", "timestamp": "2026-03-23T09:00:05Z", "type": "gemini", "content": "Running them.",
         "toolCalls": calls}]}
    install(backscroll_home, f"{folder}/session-2026-03-23T09-00-dddd0004.json", json.dumps(obj).encode())
    backscroll_index()
    assert [(s["project"], s["cwd"]) for s in rows(backscroll_home, "SELECT * FROM sessions")] == [
        ("pomodoro", "/home/dev/pomodoro")]


def test_shell_calls_running_backscroll_search_are_echoes(backscroll_home, backscroll_index, backscroll_search):
    install(backscroll_home, MAIN)
    backscroll_index()
    recs = records_of(backscroll_home, MAIN_SID)
    by_call: dict[str, list] = {}
    for r in recs:
        if r["tool_call_id"]:
            by_call.setdefault(r["tool_call_id"], []).append(r)
    echo = by_call["run_shell_command-1791037238220-5c1d7e09a4b2f"]
    grep = by_call["run_shell_command-1791037246318-a08f2c5d71e36"]
    assert echo[0]["text"] == 'backscroll search "webhook signature" --limit 5'
    assert [r["is_echo"] for r in echo] == [1, 1], "the call and its result"
    assert grep[0]["text"] == 'grep -rn "backscroll search" docs/runbook.md'
    assert [r["is_echo"] for r in grep] == [0, 0], "mentioning backscroll search is not running it"
    assert sum(r["is_echo"] for r in recs) == 2
    res = backscroll_search("body parser ran first", mode="lexical")
    assert not any(h.is_echo for h in res.results) and res.echoes_hidden >= 1


def test_bad_jsonl_lines_are_skipped_and_counted(backscroll_home, backscroll_index):
    path = install(backscroll_home, BROKEN)
    out = backscroll_index()
    assert texts(backscroll_home) == [
        "Why does the price cache miss on every request for EU customers?",
        "The cache key includes the Accept-Language header, and EU browsers send a different value on almost every "
        "request. Key the cache on the resolved currency instead.",
        "caf\ufffd pricing too?",  # (a byte that is not UTF-8, read as U+FFFD)
        "Do that.",
    ]
    assert out.report.lines_skipped == 3 and out.report.unreadable == []
    skipped = rows(backscroll_home, "SELECT line, reason FROM skipped_lines ORDER BY line")
    assert [r["line"] for r in skipped] == [3, 4, 6], "the half-written last line is not counted"
    reasons = " | ".join(r["reason"] for r in skipped)
    assert "malformed JSON" in reasons and "list" in reasons

    with path.open("ab") as fh:  # the agent finishes writing the last line
        fh.write(b'ency, so EU requests hit it again.","thoughts":[],"model":"gemini-2.5-pro"}\n')
    out = backscroll_index()
    assert texts(backscroll_home, role="assistant")[-1] == ("Keyed the price cache on the resolved currency, so EU "
                                                            "requests hit it again.")
    assert out.report.lines_skipped == 3
    assert rows(backscroll_home, "SELECT count(*) AS n FROM skipped_lines")[0]["n"] == 3
    assert len(rows(backscroll_home)) == 5


def test_search_finds_a_gemini_answer(backscroll_home, backscroll_search):
    install(backscroll_home, LEGACY)
    install(backscroll_home, MAIN)
    res = backscroll_search("shipping fee Decimal float", mode="lexical")
    top = res.results[0]
    assert (top.agent, top.role, top.session_id) == ("gemini", "assistant", LEGACY_SID)
    assert "shipping_fee" in top.text
    res = backscroll_search("construct_event raw request bytes", mode="lexical")
    assert res.results and all(h.agent == "gemini" for h in res.results)
    assert any(h.role == "assistant" and h.project == "webhooks-relay" for h in res.results[:3])


def test_gemini_home_moves_the_root(backscroll_home, backscroll_index, monkeypatch):
    alt = backscroll_home.root / "gemini-home"
    monkeypatch.setenv("GEMINI_HOME", str(alt))
    dest = alt / "tmp" / MAIN
    dest.parent.mkdir(parents=True)
    dest.write_bytes((DATA / MAIN).read_bytes())
    backscroll_index()
    assert len(records_of(backscroll_home, MAIN_SID)) == 14
    assert gemini.default_root({"GEMINI_HOME": str(alt)}) == (alt / "tmp", "env $GEMINI_HOME")
    assert gemini.default_root({"HOME": "/home/dev"}) == (Path("/home/dev/.gemini/tmp"), "default")
    root = next(r for r in backscroll_home.config().roots if r.agent == "gemini")
    assert (root.path, root.origin) == (alt / "tmp", "env $GEMINI_HOME")


def test_gemini_cli_home_moves_the_root_as_gemini_cli_does(backscroll_home, backscroll_index, monkeypatch):
    """Gemini CLI's own variable names a home, of which it keeps ``.gemini`` (``utils/paths.ts``)."""
    alt = backscroll_home.root / "elsewhere"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(alt))
    dest = alt / ".gemini" / "tmp" / MAIN
    dest.parent.mkdir(parents=True)
    dest.write_bytes((DATA / MAIN).read_bytes())
    backscroll_index()
    assert len(records_of(backscroll_home, MAIN_SID)) == 14
    root = next(r for r in backscroll_home.config().roots if r.agent == "gemini")
    assert (root.path, root.origin) == (alt / ".gemini" / "tmp", "env $GEMINI_CLI_HOME")


# -- the pure parts ---------------------------------------------------------------------------------

def test_registry_claims_and_session_for():
    assert AGENTS["gemini"] is gemini.AGENT and gemini.AGENT.read_whole is not None
    chats = Path("/h/.gemini/tmp/abc/chats")
    assert gemini.claims(chats / "session-2026-10-01T09-00-1a2b3c4d.json")
    assert gemini.claims(chats / "session-2026-10-01T09-00-1a2b3c4d.jsonl")
    assert gemini.claims(chats / "parent-id" / "child-id.jsonl")
    assert not gemini.claims(chats / "notes.json")
    assert not gemini.claims(Path("/h/.gemini/tmp/abc/logs.json"))
    assert not gemini.claims(Path("/h/.gemini/tmp/abc/checkpoint-before-refactor.json"))
    assert not gemini.claims(Path("/h/.gemini/tmp/abc/session-x.jsonl")), "not under chats/"
    s = gemini.session_for(chats / "parent-id" / "child-id.jsonl")
    assert (s.session_id, s.agent, s.is_sidechain, s.parent_session_id) == ("child-id", "gemini", True, "parent-id")
    s = gemini.session_for(chats / "session-2026-10-01T09-00-1a2b3c4d.jsonl")
    assert (s.session_id, s.is_sidechain, s.parent_session_id) == ("session-2026-10-01T09-00-1a2b3c4d", False, None)


def _jsonl(*objs) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def test_parse_jsonl_upserts_in_place_and_rewinds():
    def msg(mid, text, kind="user"):
        return {"id": mid, "timestamp": "2026-10-01T09:00:00Z", "type": kind, "content": text}

    conv = gemini.parse_jsonl(_jsonl(
        {"sessionId": "s", "projectHash": "h"},
        msg("a", "first"), msg("b", "draft", "gemini"), msg("c", "third"),
        msg("b", "final answer", "gemini"),  # rewritten: keeps its place
        {"$set": {"summary": "t"}},
    ))
    assert [(m["id"], m["content"]) for m in conv.messages] == [("a", "first"), ("b", "final answer"), ("c", "third")]
    assert conv.meta["summary"] == "t" and conv.meta["sessionId"] == "s"

    conv = gemini.parse_jsonl(_jsonl(msg("a", "x"), msg("b", "y"), msg("c", "z"), {"$rewindTo": "b"}, msg("d", "w")))
    assert [m["id"] for m in conv.messages] == ["a", "d"]
    conv = gemini.parse_jsonl(_jsonl(msg("a", "x"), {"$rewindTo": "unknown"}))
    assert [m["id"] for m in conv.messages] == ["a"], "a rewind to a message never seen drops nothing"


def test_result_text_and_content_shapes():
    assert gemini.result_text({"result": "plain text"}) == "plain text"
    via_content = {"result": [{"functionResponse": {"response": {"content": "via content"}}}]}
    assert gemini.result_text(via_content) == "via content"
    assert gemini.result_text({"result": [{"functionResponse": {"response": {"output": ""}}}],
                               "resultDisplay": "shown instead"}) == "shown instead"
    assert gemini.result_text({"result": [{"functionResponse": {"response": {"output": "img"}}},
                                          {"inlineData": {"mimeType": "image/png", "data": "iVBO"}}]}) == "img"
    assert gemini.result_text({"result": None, "resultDisplay": {"fileDiff": "..."}}) == ""
    from backscroll.types import SessionInfo

    session = SessionInfo("s", "gemini")
    user = {"id": "u", "type": "user", "content": [
        {"text": "explain @src/app.py"}, {"text": "\n--- Content from referenced files ---"},
        {"text": "\nContent from @src/app.py:\n"}, {"text": "print('hi')"}, {"text": "\n--- End of content ---"}]}
    assert [r.text for r in gemini.message_records(user, 1, session)] == ["explain @src/app.py"]
    shown = {"id": "u", "type": "user", "content": "expanded prompt text", "displayContent": [{"text": "what I typed"}]}
    assert [r.text for r in gemini.message_records(shown, 1, session)] == ["what I typed"]
    model = {"id": "g", "type": "gemini", "content": [{"text": "hidden", "thought": True}, {"text": "Visible."},
                                                      {"functionCall": {"name": "ls", "args": {}}}]}
    assert [(r.content_type, r.text) for r in gemini.message_records(model, 1, session)] == [
        ("reasoning", "hidden"), ("text", "Visible.")]
    assert gemini.message_records({"id": "w", "type": "warning", "content": "careful"}, 1, session) == []


def test_text_gemini_composes_in_the_persons_turn_is_the_harnesss():
    """The environment context every session opens with, a hook's context (alone or added to a prompt), the
    editor's context and the ``!`` shell mode's report are Gemini's words, not the person's; a compression's
    ``<state_snapshot>`` is a summary."""
    from backscroll.types import SessionInfo

    session = SessionInfo("s", "gemini")

    def said(text):
        msg = {"id": "m", "type": "user", "timestamp": "2026-10-01T09:00:00Z", "content": [{"text": text}]}
        return [(r.role, r.content_type, r.author, r.text) for r in gemini.message_records(msg, 1, session)]

    for opening in ("<session_context>\nThis is the Gemini CLI.\n</session_context>",
                    "<hook_context>branch: main</hook_context>",
                    "Here is the user's editor context as a JSON object. This is for your information only.\n{}",
                    "I ran the following shell command:\n```sh\nls\n```"):
        assert said(opening) == [("user", "text", "harness", opening)]
    assert said("<state_snapshot>\n<overall_goal>x</overall_goal>\n</state_snapshot>")[0][:3] == (
        "assistant", "summary", None)
    # (newer Gemini CLI asks the model to reason in a scratchpad first: the summary is the snapshot)
    assert said("<scratchpad>\nGoal: fix the flaky test\n</scratchpad>\n<state_snapshot>\n<overall_goal>x"
                "</overall_goal>\n</state_snapshot>") == [
        ("assistant", "summary", None, "<state_snapshot>\n<overall_goal>x</overall_goal>\n</state_snapshot>")]
    assert said("<scratchpad> is a word I made up") == [("user", "text", "human", "<scratchpad> is a word I made up")]
    two = {"id": "m", "type": "user", "content": [{"text": "why does it deadlock?"},
                                                  {"text": "<hook_context>branch: main</hook_context>"}]}
    assert [(r.author, r.text) for r in gemini.message_records(two, 1, session)] == [
        ("human", "why does it deadlock?"), ("harness", "<hook_context>branch: main</hook_context>")]
    mentioned = "why does my <hook_context> tag vanish?"
    assert said(mentioned) == [("user", "text", "human", mentioned)]
    plain = "Tell me about <session_context> tags"
    assert said(plain) == [("user", "text", "human", plain)]


def test_a_rewind_after_a_compression_cuts_as_gemini_does():
    """A rewind cuts Gemini's own order, the compression's context first: rewinding to a turn it kept leaves its
    summary, which came before that turn there, and the turns said before the compression."""
    def msg(mid, text, kind="user"):
        return {"id": mid, "timestamp": "2026-10-01T09:00:00Z", "type": kind, "content": text}

    conv = gemini.parse_jsonl(_jsonl(
        msg("a", "first"), msg("b", "second", "gemini"), msg("c", "kept"),
        {"$set": {"messages": [msg("s", "<state_snapshot>x</state_snapshot>"), msg("c", "kept")]}},
        msg("d", "after"), {"$rewindTo": "c"}, msg("e", "instead")))
    assert [m["id"] for m in conv.messages] == ["a", "b", "s", "e"]
