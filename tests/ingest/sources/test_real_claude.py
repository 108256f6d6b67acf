"""Real Claude Code sessions, read faithfully (issue 15): the files under tests/data/real/claude
(see its ORIGIN.md) and small real-shaped lines for what no collected file shows."""


import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import TESTS, rows

from backscroll.ingest.sources.claude_blocks import fork_label

REAL = TESTS / "data" / "real" / "claude"
# Each real file under the name Claude Code gives it (<session uuid>.jsonl); the 1.0.95 file is a
# resumed session whose first lines were copied from session e9f146fa.
FILES = {
    "cc-1.0.108-task-sidechain-5c0375b4.jsonl": "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
    "cc-1.0.95-vibecodingtracker.jsonl": "b162b1ae-97bc-475f-9b5f-ffbf55ca5b3f",
    "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl": "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
    "cc-1.0.98-slash-command-1af7fc5e.jsonl": "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
    "cc-2.1.152-sdk-queue-lastprompt-kvsankar.jsonl": "06090cb1-3e64-433a-bc7e-a621c0f596d2",
    "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl": "5a5a5a5a-0000-4000-8000-000000000001",
}
FE5E = FILES["cc-1.0.98-inline-sidechains-fe5e1c67.jsonl"]
SLASH = FILES["cc-1.0.98-slash-command-1af7fc5e.jsonl"]
TASK = FILES["cc-1.0.108-task-sidechain-5c0375b4.jsonl"]
RESUMED = FILES["cc-1.0.95-vibecodingtracker.jsonl"]
QUEUE = FILES["cc-2.1.152-sdk-queue-lastprompt-kvsankar.jsonl"]
SHAPE = FILES["cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl"]


def install(home, *names, project="-path-to-Demo") -> dict[str, Path]:
    """Copy real files into the Claude projects root; returns session id -> path."""
    folder = home.claude_projects / project
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in names or FILES:
        path = folder / f"{FILES[name]}.jsonl"
        shutil.copy(REAL / name, path)
        out[FILES[name]] = path
    return out


def session_rows(home, sid, sql_tail="ORDER BY id"):
    return rows(home, f"SELECT * FROM records WHERE (session_id = ? OR session_id = ?) {sql_tail}",
                (sid, f"{sid}:sidechain"))


# -- the careful reader: what a person reading each file sees, counted independently of the parser --

_NOISE = re.compile(r"<(system-reminder|command-message|local-command-stdout|local-command-stderr)>.*?</\1>", re.S)
_HARNESS = ("[Request interrupted", "Caveat:", "You have exceeded the maximum number of turns", "<task-notification>")


def _harness_sent(line: dict) -> bool:
    kind = (line.get("origin") or {}).get("kind") or ""
    return kind not in ("", "human", "peer", "coordinator", "observer", "observer-activity")


def careful_reader(path: Path) -> dict[str, int]:
    """Kinds a careful reader counts: the person's (or a lead agent's) words, answers, tool calls,
    tool outputs, reasoning and summaries; each queued prompt once."""
    seen = {"words": 0, "harness": 0, "answers": 0, "tool_calls": 0, "tool_outputs": 0, "reasoning": 0,
            "summaries": 0}
    queued: list[str] = []
    messages: set[tuple[str, int, str]] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        o = json.loads(line)
        t = o.get("type")
        if t == "queue-operation" and o.get("operation") == "enqueue" and isinstance(o.get("content"), str):
            queued.append(o["content"].strip())
            seen["words"] += 1
            continue
        if t == "attachment" and (o.get("attachment") or {}).get("type") == "queued_command":
            prompt = o["attachment"]["prompt"]
            blocks = [{"type": "text", "text": prompt}] if isinstance(prompt, str) else prompt
            whose = "harness" if _harness_sent(o["attachment"]) else "words"
            seen[whose] += sum(1 for b in blocks if b.get("type") in ("text", "image"))
            continue
        if t not in ("user", "assistant"):
            continue
        if o.get("isCompactSummary"):
            seen["summaries"] += 1
            continue
        if o.get("isMeta"):
            continue
        content = o["message"]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for i, b in enumerate(blocks):
            if o.get("uuid"):  # the same message block again (a resumed or forked chain copies it): one; another
                said = b.get("text") or b.get("thinking") or json.dumps(b.get("input") or b.get("content"))
                block = (o["uuid"], i, said)  # (another text under its id is a record of its own)
                if block in messages:
                    continue
                messages.add(block)
            bt = b.get("type")
            if bt == "text":
                text = _NOISE.sub("", b["text"]).strip()
                if t == "user" and _harness_sent(o) and text:
                    seen["harness"] += 1  # (the SDK: an origin of a kind not known is no person's)
                elif "<command-name>" in b["text"]:
                    seen["words"] += 1
                elif not text:
                    continue
                elif t == "assistant":
                    seen["answers"] += 1
                elif text.startswith(_HARNESS):
                    seen["harness"] += 1
                elif text in queued:
                    queued.remove(text)  # the queued prompt, sent
                else:
                    seen["words"] += 1
            elif bt == "image" and t == "user":
                seen["harness" if _harness_sent(o) else "words"] += 1
            elif bt == "thinking" and b.get("thinking", "").strip():
                seen["reasoning"] += 1
            elif bt == "tool_use":
                seen["tool_calls"] += 1
            elif bt == "tool_result":
                c = b.get("content")
                if isinstance(c, list):
                    c = "".join(x.get("text", "[image]") for x in c if isinstance(x, dict))
                if _NOISE.sub("", c or "").strip():
                    seen["tool_outputs"] += 1
    return seen


def stored_kinds(recs) -> dict[str, int]:
    got = {"words": 0, "harness": 0, "answers": 0, "tool_calls": 0, "tool_outputs": 0, "reasoning": 0,
           "summaries": 0}
    for r in recs:
        if r["role"] == "user":
            got["harness" if r["author"] == "harness" else "words"] += 1
        elif r["content_type"] == "text":
            got["answers"] += 1
        elif r["content_type"] == "reasoning":
            got["reasoning"] += 1
        elif r["content_type"] == "summary":
            got["summaries"] += 1
        elif r["is_call"]:
            got["tool_calls"] += 1
        else:
            got["tool_outputs"] += 1
    return got


@pytest.mark.parametrize("name", list(FILES))
def test_fidelity_every_kind_a_reader_sees_is_stored_once(name, backscroll_home, backscroll_index):
    install(backscroll_home, name)
    backscroll_index(embed=False)
    seen = careful_reader(REAL / name)
    stored = stored_kinds(session_rows(backscroll_home, FILES[name]))
    assert stored == seen, f"{name}: a careful reader sees {seen}, the store holds {stored}"
    recs = session_rows(backscroll_home, FILES[name])
    # (the fixture's trimming cut some reminders' opening tags away: only whole blocks can be known)
    assert not [r for r in recs if "<system-reminder>" in r["text"] or ";base64," in r["text"]]


# -- queued prompts --------------------------------------------------------------------------


def test_real_enqueue_then_dequeue_then_user_line_is_one_human_record(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-2.1.152-sdk-queue-lastprompt-kvsankar.jsonl")
    backscroll_index(embed=False)
    users = [r for r in session_rows(backscroll_home, QUEUE) if r["role"] == "user"]
    assert [(r["text"], r["author"]) for r in users] == [("[REDACTED_PROMPT]", "human")]


def test_real_queued_command_attachments_are_read_and_an_origin_of_a_kind_not_known_is_no_persons(
        backscroll_home, backscroll_index):
    install(backscroll_home, "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl")
    backscroll_index(embed=False)
    lines = {r["line"]: r for r in session_rows(backscroll_home, SHAPE) if r["role"] == "user"}
    for line in (39, 43, 45, 59):  # attachment/queued_command: before, lost entirely
        assert lines[line]["text"]
    # (the person's, but for an ``origin`` of a kind this version does not know: the fixture trimmed its kinds)
    assert lines[39]["author"] == "human" and {lines[n]["author"] for n in (43, 45, 59)} == {"harness"}
    at45 = [r["text"] for r in session_rows(backscroll_home, SHAPE) if r["line"] == 45]
    assert "[image]" in at45  # the pasted image is a placeholder, never its bytes


def _claude_line(s, kind, **extra):
    obj = {"type": kind, "sessionId": s.session_id, "timestamp": s.clock.tick(), **extra}
    s.write(obj)


def test_queued_prompt_is_stored_once_however_it_reaches_the_model(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("refactor the cart service")
    _claude_line(s, "queue-operation", operation="enqueue", content="also rename CartService to Basket")
    _claude_line(s, "queue-operation", operation="dequeue")
    s.user("also rename CartService to Basket")  # the queued prompt, sent as a turn
    _claude_line(s, "queue-operation", operation="enqueue", content="and keep the old import working")
    _claude_line(s, "queue-operation", operation="remove")
    s.write({"type": "attachment", "uuid": "att-1", "sessionId": s.session_id, "timestamp": s.clock.tick(),
             "attachment": {"type": "queued_command", "prompt": "and keep the old import working"}})
    _claude_line(s, "queue-operation", operation="enqueue",
                 content="<task-notification><task-id>b1</task-id><status>completed</status></task-notification>")
    s.user("and keep the old import working")  # typed again, later: a second request, kept
    backscroll_index(embed=False)
    users = [(r["text"], r["author"]) for r in rows(backscroll_home) if r["role"] == "user"]
    assert users == [("refactor the cart service", "human"), ("also rename CartService to Basket", "human"),
                     ("and keep the old import working", "human"), ("and keep the old import working", "human")]


def test_queued_prompt_sent_in_a_later_sync_is_not_doubled(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    _claude_line(s, "queue-operation", operation="enqueue", content="check the flaky login test")
    backscroll_index(embed=False)
    _claude_line(s, "queue-operation", operation="dequeue")
    s.user("check the flaky login test")
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home) if r["role"] == "user"] == ["check the flaky login test"]


def test_a_session_opened_by_a_queue_line_gives_its_first_prompt_the_sessions_project(
        session_builder, backscroll_home, backscroll_index):
    # Claude Code 2.1.16x (desktop, SDK) writes every first prompt as a queue line, which has no cwd,
    # before the lines that carry one: the prompt was stored with no project and no cwd.
    s = session_builder.claude()
    _claude_line(s, "queue-operation", operation="enqueue", content="why does the benchmark count tokens twice")
    _claude_line(s, "queue-operation", operation="dequeue")
    s.user("why does the benchmark count tokens twice")
    s.assistant("It adds the cache reads to the input tokens.")
    backscroll_index(embed=False)
    recs = rows(backscroll_home)
    assert [r["text"] for r in recs if r["role"] == "user"] == ["why does the benchmark count tokens twice"]
    (session,) = rows(backscroll_home, "SELECT * FROM sessions")
    assert session["cwd"] and {(r["project"], r["cwd"]) for r in recs} == {(session["project"], session["cwd"])}


# -- slash commands ----------------------------------------------------------------------------


def test_real_slash_commands_are_the_persons_words_and_the_expansion_is_not(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl", "cc-1.0.98-slash-command-1af7fc5e.jsonl",
            "cc-1.0.95-vibecodingtracker.jsonl")
    backscroll_index(embed=False)
    human: dict[str, list[str]] = {r["session_id"]: [] for r in rows(backscroll_home)}
    for r in rows(backscroll_home, "SELECT * FROM records WHERE author = 'human' ORDER BY id"):
        human[r["session_id"]].append(r["text"])
    assert human[FE5E][0] == "/orchestrator create TODO app by Next.js"
    assert human[SLASH] == ["/init"]
    assert "/mcp" in human[RESUMED] and "/exit" in human[RESUMED]
    everything = " ".join(r["text"] for r in rows(backscroll_home))
    assert "Please analyze this codebase and create a CLAUDE.md" not in everything  # the isMeta expansion
    assert "(no content)" not in everything and "<command-message>" not in everything


# -- titles ------------------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["leaf first", "summary first"])
def test_real_summary_titles_the_session_that_holds_its_leaf(order, backscroll_home, backscroll_index):
    first, second = ("cc-1.0.98-slash-command-1af7fc5e.jsonl", "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl")
    if order == "summary first":
        first, second = second, first
    install(backscroll_home, first)
    backscroll_index(embed=False)
    install(backscroll_home, second)
    backscroll_index(embed=False)
    titles = {r["session_id"]: r["title"] for r in rows(backscroll_home, "SELECT * FROM sessions")}
    # fe5e1c67 L1's leafUuid 549b3502... is a record of 1af7fc5e, not of fe5e1c67.
    assert titles[SLASH] == "Empty Repo Setup: CLAUDE.md Foundation Created"
    assert titles[FE5E] == "/orchestrator create TODO app by Next.js"  # starts with a slash command


def test_a_sync_that_reads_nothing_looks_up_no_waiting_leaf(backscroll_home, backscroll_index, monkeypatch):
    """Summaries whose leaf is in no stored record wait for one; a search's sync that read nothing new looked each
    of them up again (thousands in a large history)."""
    from backscroll.store.db import Store

    install(backscroll_home, "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl")  # its summary's leaf is another's
    backscroll_index(embed=False)
    assert rows(backscroll_home, "SELECT count(*) AS n FROM leaf_titles")[0]["n"] >= 1
    calls: list[int] = []
    real = Store.apply_leaf_titles
    def counted(self) -> int:
        calls.append(1)
        return real(self)

    monkeypatch.setattr(Store, "apply_leaf_titles", counted)
    backscroll_index(embed=False)
    assert calls == []
    install(backscroll_home, "cc-1.0.98-slash-command-1af7fc5e.jsonl")
    backscroll_index(embed=False)
    assert calls == [1]
    titles = {r["session_id"]: r["title"] for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert titles[SLASH] == "Empty Repo Setup: CLAUDE.md Foundation Created"


def test_real_custom_title_beats_ai_title(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl")
    backscroll_index(embed=False)
    titles = {r["session_id"]: r["title"] for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert titles[SHAPE] == "Stage0 small fixture"  # custom-title L15, not ai-title L16


def test_ai_title_then_later_custom_title(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("fix the invoice rounding")
    _claude_line(s, "ai-title", aiTitle="Invoice rounding fix")
    backscroll_index(embed=False)
    assert rows(backscroll_home, "SELECT title FROM sessions")[0]["title"] == "Invoice rounding fix"
    _claude_line(s, "custom-title", customTitle="billing: rounding")
    _claude_line(s, "ai-title", aiTitle="Invoice rounding fix, take two")
    backscroll_index(embed=False)
    assert rows(backscroll_home, "SELECT title FROM sessions")[0]["title"] == "billing: rounding"


# -- compaction ----------------------------------------------------------------------------------


def test_real_compact_summary_is_a_summary_not_the_persons_words(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl")
    backscroll_index(embed=False)
    (rec,) = [r for r in session_rows(backscroll_home, SHAPE) if r["line"] == 22]
    assert (rec["role"], rec["content_type"], rec["author"], rec["text"]) == (
        "assistant", "summary", None, "Summary of prior context.")


def test_compaction_summary_stored_once_and_its_prompt_is_not_user_text(session_builder, backscroll_home,
                                                                         backscroll_index):
    s = session_builder.claude()
    s.user("migrate the orders table to UUID keys")
    s.assistant("Migration written and applied.")
    sub = s.subagent()
    sub.path = sub.path.with_name("agent-acompact-7f3e2a.jsonl")
    sub.user("Your task is to create a detailed summary of the conversation so far, paying close attention...")
    sub.assistant("<summary>The user migrated the orders table to UUID keys.</summary>")
    summary = ("This session is being continued from a previous conversation that ran out of context. "
               "<summary>The user migrated the orders table to UUID keys.</summary>")
    s.write(s._envelope("user", {"role": "user", "content": summary}, isCompactSummary=True,
                        isVisibleInTranscriptOnly=True))
    backscroll_index(embed=False)
    recs = rows(backscroll_home)
    assert [r["content_type"] for r in recs if "UUID keys" in r["text"] and r["role"] != "user"] == ["summary"]
    assert not [r for r in recs if "create a detailed summary" in r["text"]]


def _forked(s, label: str):
    """A helper Claude Code forks from ``s``'s conversation: its file begins with ``s``'s lines, uuids kept."""
    fork = s.subagent()
    fork.path = fork.path.with_name(f"agent-a{label}-0123456789abcdef.jsonl")
    for line in s.path.read_text().splitlines():
        fork.write({**json.loads(line), "isSidechain": True, "agentId": f"a{label}-0123456789abcdef"})
    return fork


def test_a_side_question_is_the_persons_and_its_copy_of_the_conversation_is_stored_once(
        session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("move the login form to the sidebar")
    s.assistant("Moved it.")
    side = _forked(s, "side_question")
    side.user("<system-reminder>This is a side question from the user. You must answer this question directly in "
              "a single response.\n\nSimply answer the question with the information you have.</system-reminder>"
              "\n\nwhich port does the dev server listen on?")
    side.assistant("Port 5173, from vite.config.ts.")
    memory = _forked(s, "session_memory")
    memory.user("IMPORTANT: This message and these instructions are NOT part of the actual user conversation.")
    guess = _forked(s, "prompt_suggestion")
    guess.user("[SUGGESTION MODE: Suggest what the user might naturally type next into Claude Code.]")
    guess.assistant("run the tests")
    backscroll_index(embed=False)
    recs = rows(backscroll_home)
    assert [(r["text"], r["session_id"] == s.session_id) for r in recs if "login form" in r["text"]] == [
        ("move the login form to the sidebar", True)]
    asked = [(r["author"], r["is_sidechain"]) for r in recs if r["text"] == "which port does the dev server listen on?"]
    assert asked == [("human", 1)]
    assert [r["session_id"] for r in recs if r["text"] == "Port 5173, from vite.config.ts."] == [asked_in(side)]
    assert not [r for r in recs if r["text"].startswith(("IMPORTANT: This message", "[SUGGESTION MODE"))]
    assert not [r for r in recs if r["text"] == "run the tests"]
    assert fork_label(f"{s.session_id}:agent-a3f2c1b4d5e6f7a8") is None  # a subagent the agent asked for


def asked_in(fork) -> str:
    return f"{fork.session_id}:{fork.path.stem}"


# -- sidechains, subagents and who wrote what ------------------------------------------------------


def test_real_inline_sidechains_are_a_linked_subsession_with_agent_prompts(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl")
    backscroll_index(embed=False)
    main = rows(backscroll_home, "SELECT * FROM records WHERE session_id = ?", (FE5E,))
    side = rows(backscroll_home, "SELECT * FROM records WHERE session_id = ?", (FE5E + ":sidechain",))
    assert len(side) == 394 and len(main) == 31  # 405 of 438 lines are the subagents'
    assert all(r["is_sidechain"] == 1 and r["parent_session_id"] == FE5E for r in side)
    prompts = [r for r in side if r["role"] == "user"]
    assert len(prompts) == 5 and {r["author"] for r in prompts} == {"agent"}
    assert prompts[0]["text"].startswith("Create React components for the TODO app")
    assert [r["text"] for r in main if r["author"] == "human"] == [
        "/orchestrator create TODO app by Next.js", "Thanks! Please update CLAUDE.md for current changes"]
    sess = {r["session_id"]: r for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert sess[FE5E + ":sidechain"]["parent_session_id"] == FE5E and sess[FE5E + ":sidechain"]["is_sidechain"] == 1


def test_subagent_prompt_is_the_agents_and_harness_nags_are_the_harness(session_builder, backscroll_home,
                                                                       backscroll_index, backscroll_search):
    s = session_builder.claude()
    s.user("audit the payment webhooks for replay attacks")
    sub = s.subagent()
    sub.user("Audit the payment webhooks for replay attacks; report file and line")
    sub.assistant("Webhook handler lacks a timestamp check.")
    s.user("You have exceeded the maximum number of turns for this request. payment webhooks")
    s.user("[Request interrupted by user] payment webhooks")
    # A prompt hook stopped the turn (seen in a real 2.1.29 session: another session was active)
    s.user("Operation stopped by hook: Another session is active: payment webhooks\n\n"
           "Press the up arrow key to get your prompt back.")
    backscroll_index(embed=False)
    authors = {r["text"][:12]: r["author"] for r in rows(backscroll_home) if r["role"] == "user"}
    assert authors == {"audit the pa": "human", "Audit the pa": "agent", "You have exc": "harness",
                       "[Request int": "harness", "Operation st": "harness"}
    hits = backscroll_search("payment webhooks", author="human", mode="lexical", strict=True).results
    assert [h.text for h in hits] == ["audit the payment webhooks for replay attacks"]
    assert hits[0].to_dict()["author"] == "human"


def test_ide_context_in_a_turn_is_the_harness_and_the_prompt_beside_it_the_persons(session_builder, backscroll_home,
                                                                                   backscroll_index, backscroll_search):
    # Claude Code in VS Code/JetBrains: the selection and the open file come as blocks of the person's turn.
    selection = ("<ide_selection>The user selected the lines 64 to 64 from /src/managers/DomainManager.ts:\n"
                 "const { getPrimaryDomainsBatch } = await import('@sns/sdk');\n\n"
                 "This may or may not be related to the current task.</ide_selection>")
    s = session_builder.claude()
    s.write(s._envelope("user", {"role": "user", "content": [
        {"type": "text", "text": selection}, {"type": "text", "text": "why does the domain batch lookup time out?"}]}))
    s.user("<ide_opened_file>The user opened the file /src/app/page.tsx in the IDE. This may or may not be "
           "related to the current task.</ide_opened_file>")
    s.user("<ide_opened_file>The user opened the file /src/app/page.tsx in the IDE.</ide_opened_file> "
           "fix the domain lookup here")
    backscroll_index(embed=False)
    users = [(r["text"][:15], r["author"]) for r in rows(backscroll_home) if r["role"] == "user"]
    assert users == [("<ide_selection>", "harness"), ("why does the do", "human"), ("<ide_opened_fil", "harness"),
                     ("<ide_opened_fil", "human")], "the person's words beside IDE context stay theirs"
    assert any("getPrimaryDomainsBatch" in r["text"] for r in rows(backscroll_home)), "the context is kept"
    hits = backscroll_search("domain", author="human", mode="lexical", strict=True).results
    assert sorted(h.text[:15] for h in hits) == ["<ide_opened_fil", "why does the do"]
    import backscroll
    (listed,) = backscroll.sessions(config=backscroll_home.config(), sync=False)
    assert listed.title == "why does the domain batch lookup time out?", "titled by the person's first prompt"
    assert backscroll.show(s.session_id, config=backscroll_home.config(), sync=False).session["title"] == listed.title


def test_real_project_is_the_sessions_first_cwd(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl")
    backscroll_index(embed=False)
    recs = session_rows(backscroll_home, FE5E)
    assert {r["project"] for r in recs} == {"Demo"}
    assert {r["cwd"] for r in recs} >= {"/path/to/Demo", "/path/to/Demo/todo-app"}  # kept per line


# -- bash mode, reminders, attachments, reasoning -------------------------------------------------------


def test_bash_mode_lines_are_a_shell_call_and_its_output(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("<bash-input>git log --oneline -3</bash-input>")
    s.user("<bash-stdout>a1b2c3 fix: rounding</bash-stdout><bash-stderr></bash-stderr>")
    s.user("<bash-input>backscroll search rounding</bash-input>")
    s.user("<bash-stdout>1. [user] rounding...</bash-stdout><bash-stderr></bash-stderr>")
    backscroll_index(embed=False)
    got = [(r["role"], r["tool_name"], r["is_call"], r["is_echo"], r["text"]) for r in rows(backscroll_home)]
    assert got == [("tool", "bash", 1, 0, "git log --oneline -3"), ("tool", "bash", 0, 0, "a1b2c3 fix: rounding"),
                   ("tool", "bash", 1, 1, "backscroll search rounding"),
                   ("tool", "bash", 0, 1, "1. [user] rounding...")]


def test_real_system_reminders_are_stripped_from_tool_results(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.108-task-sidechain-5c0375b4.jsonl", "cc-1.0.95-vibecodingtracker.jsonl",
            "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl")
    backscroll_index(embed=False)
    assert not rows(backscroll_home, "SELECT id FROM records WHERE text LIKE '%<system-reminder>%'")
    # 5c0375b4 L21's result is still there, without its reminder
    (r21,) = rows(backscroll_home, "SELECT * FROM records WHERE session_id LIKE ? AND line = 21", (TASK + "%",))
    assert r21["text"].strip()


def test_attached_documents_and_images_are_placeholders(session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    blob = "JVBERi0xLjQK" * 50
    s.write(s._envelope("user", {"role": "user", "content": [
        {"type": "document", "title": "q3-report.pdf", "source": {"type": "base64", "media_type": "application/pdf",
                                                                 "data": blob}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": blob}},
        {"type": "text", "text": "summarise the attached report"}]}))
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home)] == ["[document: q3-report.pdf]", "[image]",
                                                          "summarise the attached report"]
    assert not rows(backscroll_home, "SELECT id FROM records WHERE text LIKE '%JVBER%'")


def test_real_thinking_blocks_are_reasoning(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.95-vibecodingtracker.jsonl")
    backscroll_index(embed=False)
    reasoning = [r for r in rows(backscroll_home) if r["content_type"] == "reasoning"]
    assert len(reasoning) == 5 and {r["role"] for r in reasoning} == {"assistant"}
    assert reasoning[0]["line"] == 2 and reasoning[0]["text"].startswith("用戶要求多個任務")
    assert not [r for r in reasoning if "signature" in r["text"]]


# -- forks and resumes ----------------------------------------------------------------------------


def test_real_resumed_file_points_at_its_origin(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.95-vibecodingtracker.jsonl")
    backscroll_index(embed=False)
    sess = rows(backscroll_home, "SELECT * FROM sessions WHERE session_id = ?", (RESUMED,))[0]
    assert sess["parent_session_id"] == "e9f146fa-3b20-48d0-9be4-d99ca901cae4"


def test_forked_session_does_not_double_the_records_it_copies(session_builder, backscroll_home, backscroll_index):
    a = session_builder.claude(session_id="aaaaaaaa-0000-4000-8000-000000000001")
    a.user("why is the nightly export slow")
    a.assistant("The export query scans the whole events table.")
    backscroll_index(embed=False)
    fork = a.path.with_name("bbbbbbbb-0000-4000-8000-000000000002.jsonl")
    copied = [json.loads(x) for x in a.path.read_text().splitlines()]
    with fork.open("w") as fh:  # --fork-session: the prior chain again, same uuids, the new session id
        for obj in copied:
            obj["sessionId"] = "bbbbbbbb-0000-4000-8000-000000000002"
            obj["forkedFrom"] = {"sessionId": a.session_id, "messageUuid": obj["uuid"]}
            fh.write(json.dumps(obj) + "\n")
        fh.write(json.dumps({**copied[-1], "uuid": "c1", "parentUuid": copied[-1]["uuid"], "type": "user",
                             "sessionId": "bbbbbbbb-0000-4000-8000-000000000002",
                             "message": {"role": "user", "content": "add an index on events.created_at"}}) + "\n")
    backscroll_index(embed=False)
    recs = rows(backscroll_home)
    assert [r["text"] for r in recs].count("why is the nightly export slow") == 1
    assert len(recs) == 3
    sess = {r["session_id"]: r for r in rows(backscroll_home, "SELECT * FROM sessions")}
    assert sess["bbbbbbbb-0000-4000-8000-000000000002"]["parent_session_id"] == a.session_id


# -- existing stores are read again -----------------------------------------------------------------


def test_a_record_the_old_parser_misread_is_dropped_when_the_file_still_holds_what_was_read(
        session_builder, backscroll_home, backscroll_index):
    s = session_builder.claude()
    s.user("<ide_selection>the whole spec</ide_selection>")
    s.user("why does the importer drop the BOM?")
    backscroll_index(embed=False)
    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    first = conn.execute("SELECT * FROM records ORDER BY id LIMIT 1").fetchone()
    names = [d[0] for d in conn.execute("SELECT * FROM records LIMIT 0").description]
    old = dict(zip(names, first, strict=True))
    old.update(record_id=old["record_id"] + "~v4", text="the whole spec", author="human", content_hash="v4")
    del old["id"]
    conn.execute(f"INSERT INTO records ({', '.join(old)}) VALUES ({', '.join('?' * len(old))})", list(old.values()))
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'parse_version'")
    conn.execute("UPDATE source_files SET parse_version = 4")
    conn.commit()
    conn.close()
    s.user("and the tests?")  # the file grew since: what was read before is still there
    backscroll_index(embed=False)
    assert [r["text"] for r in rows(backscroll_home) if r["role"] == "user"] == [
        "<ide_selection>the whole spec</ide_selection>", "why does the importer drop the BOM?", "and the tests?"]


def test_store_indexed_by_the_old_parser_is_read_again_and_fixed(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.98-inline-sidechains-fe5e1c67.jsonl")
    backscroll_index(embed=False)
    before = len(rows(backscroll_home))
    db = backscroll_home.data / "backscroll.db"
    conn = sqlite3.connect(db)
    # What the old parser left: sidechain lines in the main session, every user text the person's.
    conn.execute("UPDATE records SET session_id = ?, is_sidechain = 0, parent_session_id = NULL, author = "
                 "CASE WHEN role = 'user' THEN 'human' END WHERE session_id = ?", (FE5E, FE5E + ":sidechain"))
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'parse_version'")
    conn.execute("UPDATE source_files SET parse_version = 1")
    conn.commit()
    conn.close()
    out = backscroll_index(embed=False)
    recs = rows(backscroll_home)
    assert len(recs) == before and out.report.records_replaced > 0
    assert len([r for r in recs if r["author"] == "agent"]) == 5
    assert len([r for r in recs if r["session_id"] == FE5E + ":sidechain"]) == 394
    assert any("read again by a newer parser" in n for _p, n in out.report.notices)
    assert backscroll_index(embed=False).report.files_changed == 0  # once


def test_migration_007_gives_existing_user_rows_an_author(backscroll_home, backscroll_index):
    install(backscroll_home, "cc-1.0.98-slash-command-1af7fc5e.jsonl")
    backscroll_index(embed=False)
    db = backscroll_home.data / "backscroll.db"
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX records_first_prompt")  # (a later migration's, on the column)
    conn.execute("ALTER TABLE records DROP COLUMN author")
    conn.execute("DROP TABLE unknown_entries")
    conn.execute("DROP TABLE leaf_titles")
    conn.execute("ALTER TABLE sessions DROP COLUMN title_rank")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm007_author_and_unknown_entries'")
    conn.execute("PRAGMA user_version = 6")
    conn.commit()
    conn.close()
    from backscroll.store.db import Store

    store = Store.open(db)
    try:
        got = store.conn.execute("SELECT role, author, count(*) FROM records GROUP BY 1, 2").fetchall()
    finally:
        store.close()
    assert ("user", "human", 1) in got and all(a is None for r, a, _n in got if r != "user")


# -- status ------------------------------------------------------------------------------------------


def test_status_reports_kinds_unknown_types_and_silent_roots(backscroll_home, backscroll_index):
    import backscroll

    paths = install(backscroll_home, "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl",
                    "cc-1.0.95-vibecodingtracker.jsonl")
    gemini = backscroll_home.home / ".gemini" / "tmp" / "abc123"
    (gemini / "chats").mkdir(parents=True)
    (gemini / "logs.json").write_text("[]")  # (Gemini's own, before any session: no warning for it alone)
    (gemini / "chats" / "session-2027-01-01T00-00-abcd1234.jsonl").write_text('{"hologram": true}\n')
    backscroll_index(embed=False)
    info = backscroll.status(config=backscroll_home.config())
    claude = info["agents"]["claude"]
    assert claude["files"] == 2 and claude["sessions"] == 3  # two files, one inline sidechain
    assert claude["kinds"]["reasoning"] == 7 and claude["kinds"]["summary"] == 1
    assert claude["kinds"]["tool_call"] > 0 and claude["kinds"]["tool_output"] > 0
    unknown = {u["entry_type"]: u for u in claude["unknown"]}
    assert set(unknown) == {"started", "result", "relocated", "bridge-session", "atis-latch"}
    assert unknown["started"]["example"] == f"{paths[SHAPE]}:25"
    assert any(w.startswith("gemini:") for w in info["warnings"])
    assert not any(w.startswith("claude:") for w in info["warnings"])


def test_status_counts_sessions_gone_from_disk_and_warns_past_cleanup_period(backscroll_home, backscroll_index):
    import backscroll

    paths = install(backscroll_home, "cc-1.0.98-slash-command-1af7fc5e.jsonl", "cc-1.0.95-vibecodingtracker.jsonl")
    (backscroll_home.home / ".claude" / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 7}))
    backscroll_index(embed=False)
    paths[SLASH].unlink()  # Claude Code cleaned it up; backscroll keeps it
    conn = sqlite3.connect(backscroll_home.data / "backscroll.db")
    conn.execute("UPDATE source_files SET indexed_at = '2020-01-01T00:00:00.000Z'")
    conn.commit()
    conn.close()
    info = backscroll.status(config=backscroll_home.config())
    assert info["agents"]["claude"]["gone_from_disk"] == 1 and info["agents"]["claude"]["agent_keeps_days"] == 7
    assert any("older than the 7 days" in w for w in info["warnings"])


def test_status_cli_shows_kinds_and_warnings(backscroll_home, backscroll_index):
    from typer.testing import CliRunner

    from backscroll.cli.app import app

    install(backscroll_home, "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl")
    backscroll_index(embed=False)
    runner = CliRunner()
    out = runner.invoke(app, ["status"]).stdout
    assert "reasoning" in out and "unknown type 'started'" in out
    data = json.loads(runner.invoke(app, ["status", "--json"]).stdout)
    assert data["agents"]["claude"]["unknown"][0]["count"] == 1


# -- search over the new kinds ----------------------------------------------------------------------


def test_content_type_reasoning_and_summary_are_searchable(backscroll_home, backscroll_search):
    install(backscroll_home, "cc-1.0.95-vibecodingtracker.jsonl", "cc-2.1.80-2.1.220-coverage-agent-sessions.jsonl")
    hits = backscroll_search("toolchain", content_type="reasoning", mode="lexical", strict=True).results
    assert hits and {h.content_type for h in hits} == {"reasoning"}
    hits = backscroll_search("prior context", content_type="summary", mode="lexical", strict=True).results
    assert [h.content_type for h in hits] == ["summary"]


def test_hook_notices_are_known_attachments_that_hold_nothing_to_index():
    # Seen in real 2.1.18x sessions with a SessionStart hook and a Stop hook: `status` listed them as
    # entry types it did not understand.
    from backscroll.ingest.sources import claude
    from backscroll.types import SessionInfo

    info = SessionInfo("s", "claude")
    for att in ({"type": "hook_system_message", "content": "Entire CLI will link this conversation to a commit.",
                 "hookName": "SessionStart:startup", "hookEvent": "SessionStart"},
                {"type": "hook_cancelled", "hookName": "Stop", "hookEvent": "Stop", "command": "entire hooks stop"}):
        parsed = claude.parse_line({"type": "attachment", "attachment": att, "uuid": "u1", "sessionId": "s",
                                    "timestamp": "2026-06-23T22:20:25.283Z"}, 3, info)
        assert (parsed.records, parsed.unknown) == ([], None), att["type"]
    assert claude.parse_line({"type": "attachment", "attachment": {"type": "brand_new"}}, 4, info).unknown \
        == "attachment/brand_new"
