"""The Copilot CLI's event log, read from a real 1.0.74 ``events.jsonl`` into a real store.

The file in tests/data/real/copilot is a trimmed excerpt of a session the CLI wrote (see ORIGIN.md there):
the person's prompts, the CLI's own ``source: "system"`` reminder, a ``--resume``, a subagent's brief
from the main agent and the compaction summary. What it should give is counted here from its raw lines,
independently of the reader.
"""

import json
import shutil
from collections import Counter
from pathlib import Path

import orjson
from helpers import REAL, rows

from backscroll.ingest.sources import copilot
from backscroll.types import SessionInfo

CLI_FILE = REAL / "copilot" / "copilot-cli-events-1.0.74-starcar.jsonl"
SESSION = "e07fc822-e277-4d5d-898a-1b91eedea7b6"


def events() -> list[dict]:
    return [json.loads(line) for line in CLI_FILE.read_text(encoding="utf-8").splitlines()]


def install(home: Path, data: bytes | None = None) -> Path:
    folder = home / ".copilot" / "session-state" / SESSION
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events.jsonl"
    if data is None:
        shutil.copyfile(CLI_FILE, path)
    else:
        path.write_bytes(data)
    return path


def user_messages_by_source() -> Counter:
    """The ``user.message`` events with text, by who the CLI says sent them (``source``, absent for the person)."""
    seen: Counter[str] = Counter()
    for e in events():
        if e["type"] == "user.message" and e["data"]["content"].strip():
            source = e["data"].get("source", "person")
            seen["agent-" if source.startswith("agent-") else source] += 1
    return seen


def test_every_user_message_is_stored_with_who_wrote_it(backscroll_home, backscroll_index):
    by_source = user_messages_by_source()
    assert by_source == Counter(person=3, system=1, **{"agent-": 1})
    install(backscroll_home.home)
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0
    users = rows(backscroll_home, "SELECT author, text FROM records WHERE role = 'user' ORDER BY id")
    assert Counter(r["author"] for r in users) == Counter(
        human=by_source["person"], harness=by_source["system"], agent=by_source["agent-"])
    assert [r["text"] for r in users if r["author"] == "human"] == [
        "good morning claude. Please pick up where we left off.", "context: last session got interrupted mid car.",
        "session resumed."]
    [reminder] = [r["text"] for r in users if r["author"] == "harness"]
    assert reminder.startswith("<system_reminder>\nIMPORTANT: The tools listed below are deferred")
    [brief] = [r["text"] for r in users if r["author"] == "agent"]
    assert brief.startswith("# Car 46 FIX CYCLE — address round-1 REJECT findings (issue #46)")


def test_session_resumed_is_the_persons_prompt_not_the_clis():
    """What the file shows: after ``session.resume`` the ``userPromptSubmitted`` hook fires for it, as for
    every prompt the person types, and it has no ``source``; the CLI's injections are only in
    ``transformedContent``, which is not read."""
    evs = events()
    at = next(i for i, e in enumerate(evs) if e["type"] == "session.resume")
    hook = next(e for e in evs[at:] if e["type"] == "hook.start")
    assert hook["data"]["hookType"] == "userPromptSubmitted" and hook["data"]["input"]["prompt"] == "session resumed."
    message = next(e for e in evs[at:] if e["type"] == "user.message")
    assert "source" not in message["data"] and message["data"]["content"] == "session resumed."
    assert "<tools_changed_notice>" in message["data"]["transformedContent"]
    _, records, _, _ = copilot.cli_records(CLI_FILE.read_bytes().split(b"\n"), SessionInfo(SESSION, "copilot"))
    [resumed] = [r for r in records if r.text == "session resumed."]
    assert resumed.author == "human"
    assert not any("<current_datetime>" in r.text or "<tools_changed_notice>" in r.text for r in records)


def test_the_compaction_summary_is_stored_once_as_a_summary(backscroll_home, backscroll_index):
    [compaction] = [e for e in events() if e["type"] == "session.compaction_complete"]
    path = install(backscroll_home.home)
    backscroll_index(embed=False)
    with path.open("ab") as f:  # the CLI goes on writing: the log is read whole again
        f.write(orjson.dumps({"type": "user.message", "data": {"content": "thanks"}, "id": "later",
                              "timestamp": "2026-07-24T12:00:00.000Z"}) + b"\n")
    backscroll_index(embed=False)
    summaries = rows(backscroll_home, "SELECT * FROM records WHERE content_type = 'summary'")
    assert [(r["role"], r["text"], r["session_id"]) for r in summaries] == [
        ("assistant", compaction["data"]["summaryContent"].strip(), SESSION)]
    assert summaries[0]["text"].startswith("<overview>\nThe owner (@polecatspeaks) resumed a StarCar session")


def test_a_subagents_messages_are_the_agents_by_source_or_by_agent_id():
    """The brief is marked by ``source: "agent-<session id>"``; every event of the subagent's also carries
    a top-level ``agentId`` (the ``task`` call's id), which is enough on its own."""
    lines = [orjson.dumps(e) for e in (
        {"type": "session.start", "data": {"sessionId": SESSION}, "id": "s"},
        {"type": "user.message", "data": {"content": "brief", "source": f"agent-{SESSION}"}, "id": "a"},
        {"type": "user.message", "data": {"content": "follow-up"}, "agentId": "toolu_1", "id": "b"},
        {"type": "user.message", "data": {"content": "reminder", "source": "system"}, "id": "c"},
        {"type": "user.message", "data": {"content": "typed"}, "id": "d"},
        {"type": "session.compaction_complete", "data": {"summaryContent": "  "}, "id": "e"},  # empty: nothing
        {"type": "user.message", "data": {"content": "<skill-context>pdf</skill-context>", "source": "skill-pdf"},
         "id": "f"},  # a skill's hidden injection (the SDK's ``UserMessageData.source``)
        {"type": "user.message", "data": {"content": "keep going", "isAutopilotContinuation": True}, "id": "g"},
        {"type": "user.message", "data": {"content": "tools changed", "source": "system"}, "agentId": "toolu_1",
         "id": "h"},  # the CLI's own, in a subagent's conversation
    )]
    _, records, skipped, _ = copilot.cli_records(lines, SessionInfo(SESSION, "copilot"))
    assert skipped == []
    assert [(r.text, r.author) for r in records] == [
        ("brief", "agent"), ("follow-up", "agent"), ("reminder", "harness"), ("typed", "human"),
        ("<skill-context>pdf</skill-context>", "harness"), ("keep going", "harness"), ("tools changed", "harness")]


def test_a_subagents_events_are_a_session_of_their_own_linked_to_the_main_one(backscroll_home, backscroll_index):
    """The subagent's brief, replies and calls (top-level ``agentId``) are interleaved with the main
    conversation in the one file; they become the session ``<session>:<agentId>``. A store that read
    them into the main session (an older parser) has them moved, not copied, when the file is read again."""
    raw = events()
    agents = {e["agentId"] for e in raw if e.get("agentId")}
    assert len(agents) == 1
    (agent,) = agents
    counted = sum(1 for e in raw if e.get("agentId") == agent and e["type"] in ("user.message", "assistant.message",
                                                                             "tool.execution_complete"))
    stripped = b"".join(orjson.dumps({k: v for k, v in e.items() if k != "agentId"}) + b"\n" for e in raw)
    path = install(backscroll_home.home, stripped)  # as an older parser saw it: all in the main session
    backscroll_index(embed=False)
    before = rows(backscroll_home, "SELECT count(*) AS n FROM records")[0]["n"]
    shutil.copyfile(CLI_FILE, path)  # the same events, read again (by a newer parser, or rewritten)
    backscroll_index(embed=False)
    sessions = {s["session_id"]: s for s in rows(backscroll_home, "SELECT * FROM sessions")}
    sub = f"{SESSION}:{agent}"
    assert set(sessions) == {SESSION, sub}
    assert (sessions[sub]["is_sidechain"], sessions[sub]["parent_session_id"]) == (1, SESSION)
    assert sessions[SESSION]["is_sidechain"] == 0
    recs = rows(backscroll_home, "SELECT * FROM records WHERE session_id = ? ORDER BY id", (sub,))
    assert len(recs) >= counted and recs[0]["text"].startswith("# Car 46 FIX CYCLE")
    assert all(r["is_sidechain"] == 1 and r["parent_session_id"] == SESSION for r in recs)
    assert rows(backscroll_home, "SELECT count(*) AS n FROM records")[0]["n"] == before  # moved, none doubled
