"""Aider: what is the person's, the model's and Aider's own in a chat history, on real files.

tests/data/real/aider holds two histories other projects committed (see its ORIGIN.md): mozgoslav
(Aider 0.86.2 streaming a model's reasoning inside ``<thinking-content-…>`` tags, and "(A)ll"
confirmations Aider answered itself) and zen-mcp-server (start-up banners, ``/copy-context``).
tests/data/aider/relogs is hand-written from Aider's source: ``<think>`` tags, a lone ``</think>``, and
the messages Aider writes a second time (``/ask``, ``/architect`` and the architect's plan).
What each should give is counted from the file here, independently of the reader.
"""


import re
import shutil
import sqlite3
import time
from pathlib import Path

import pytest
from helpers import REAL, TESTS, rows

from backscroll.ingest.sources import aider
from backscroll.types import SessionInfo

DATA = TESTS / "data"
HISTORY = ".aider.chat.history.md"
CONFIRMATION = re.compile(r"\(Y\)es/\(N\)o.*\[\w+\]: ?\w*$")


@pytest.fixture
def indexed(backscroll_home, backscroll_index):
    """The real histories and the hand-written one, each in its repository under a configured root."""
    code = backscroll_home.home / "code"
    for repo, source in [("mozgoslav", REAL / "aider" / "mozgoslav"),
                         ("zen-mcp-server", REAL / "aider" / "zen-mcp-server"),
                         ("webcache", DATA / "aider" / "relogs")]:
        (code / repo).mkdir(parents=True)
        shutil.copyfile(source / HISTORY, code / repo / HISTORY)
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    (backscroll_home.data / "config.toml").write_text(f'[roots]\naider = ["{code}"]\n')
    out = backscroll_index(embed=False)
    assert out.report.lines_skipped == 0, out.report
    return backscroll_home


def records_of(bh, repo: str) -> list[dict]:
    return rows(bh, "SELECT r.* FROM records r JOIN sessions s USING (session_id) WHERE r.agent = 'aider' "
                    "AND s.cwd LIKE ? ORDER BY r.id", (f"%/{repo}",))


def lines_of(path: Path) -> list[str]:
    return path.read_text().split("\n")


def test_streamed_reasoning_is_reasoning_and_the_answer_is_text(indexed):
    lines = lines_of(REAL / "aider" / "mozgoslav" / HISTORY)
    opened = sum(line.startswith("<thinking-content-") for line in lines)
    closed = sum(line.startswith("</thinking-content-") for line in lines)
    assert (opened, closed) == (8, 6)  # two replies were cut short (Ctrl-C) while thinking
    recs = records_of(indexed, "mozgoslav")
    reasoning = [r for r in recs if r["content_type"] == "reasoning"]
    answers = [r for r in recs if r["role"] == "assistant" and r["content_type"] == "text"]
    assert (len(reasoning), len(answers)) == (opened, closed)
    assert all(r["role"] == "assistant" and r["text"].startswith(("Here's a thinking process:", "- [... trimmed"))
               for r in reasoning)
    assert not [r for r in recs if "thinking-content" in r["text"]]
    assert answers[0]["text"].startswith("Привет! Готов к работе.")
    # reasoning and answer of one reply share its line and come in that order
    first = [(r["content_type"], r["line"]) for r in recs if r["role"] == "assistant"][:2]
    assert first == [("reasoning", 42), ("text", 42)]


def test_confirmations_aider_answered_itself_are_not_the_persons_words(indexed):
    lines = lines_of(REAL / "aider" / "mozgoslav" / HISTORY)
    echoes = [line for line in lines if line.startswith("#### ") and CONFIRMATION.search(line.rstrip())]
    noted = [line[2:].strip() for line in lines if line.startswith("> ") and CONFIRMATION.search(line.rstrip())]
    assert (len(echoes), len(noted)) == (8, 16)
    recs = records_of(indexed, "mozgoslav")
    assert [r["text"] for r in recs if r["role"] == "user"] == [
        "hi", "hi", "сам запроси доступ к файлам", "Ты зациклился. Удалось понять причину бага?",
        "Мы работали над задачей"]
    assert {r["author"] for r in recs if r["role"] == "user"} == {"human"}
    # each question with its answer is stored once, in Aider's notes
    tool_text = "\n".join(r["text"] for r in recs if r["role"] == "tool")
    assert sum(tool_text.count(q) for q in set(noted)) == len(noted)
    assert "[Yes]: all" not in tool_text


def test_aiders_own_notes_are_tool_output_and_keep_every_line(indexed):
    for repo in ("mozgoslav", "zen-mcp-server"):
        recs = records_of(indexed, repo)
        tool_text = "\n".join(r["text"] for r in recs if r["role"] == "tool")
        noted = [line[2:].strip() for line in lines_of(REAL / "aider" / repo / HISTORY) if line.startswith("> ")]
        assert [n for n in noted if n and n not in tool_text] == [], repo
        banners = [r for r in recs if "Aider v0.86" in r["text"]]
        assert banners and all((r["role"], r["content_type"], r["tool_name"], r["author"], r["is_call"])
                               == ("tool", "tool", None, None, 0) for r in banners), repo
    zen = records_of(indexed, "zen-mcp-server")
    first = zen[0]
    assert (first["role"], first["tool_name"], first["text"]) == ("tool", None,
                                                                  "You can skip this check with --no-gitignore")


def test_copy_context_message_is_the_persons_question(indexed):
    lines = lines_of(REAL / "aider" / "zen-mcp-server" / HISTORY)
    asked = [line[len("#### /copy-context "):].strip() for line in lines if line.startswith("#### /copy-context ")]
    assert len(asked) == 5
    recs = records_of(indexed, "zen-mcp-server")
    users = [r for r in recs if r["role"] == "user"]
    assert [r["text"] for r in users] == asked
    assert {r["author"] for r in users} == {"human"}
    calls = [r for r in recs if r["tool_name"] == "/copy-context" and r["is_call"]]
    assert [(r["text"], r["line"]) for r in calls] == [("/copy-context", u["line"]) for u in users]
    outputs = [r for r in recs if r["tool_call_id"] in {c["tool_call_id"] for c in calls} and not r["is_call"]]
    assert len(outputs) == 5 and all("Copied code context to clipboard." in r["text"] for r in outputs)
    titles = {s["title"] for s in rows(indexed, "SELECT title FROM sessions WHERE cwd LIKE '%/zen-mcp-server'")}
    assert asked[0] in titles


def test_think_tags_and_messages_aider_writes_twice(indexed):
    recs = records_of(indexed, "webcache")
    got = [(r["role"], r["content_type"], r["text"]) for r in recs if r["role"] != "tool"]
    assert got == [
        ("user", "text", "why is the cache key missing the locale?"),
        ("assistant", "reasoning", "The key is built from the request path only."),
        ("assistant", "text", "`cache_key()` hashes the path only, so every locale shares one entry; "
                              "add the locale to the key."),
        ("user", "text", "add the locale to the cache key"),
        ("assistant", "text", "Change `cache_key(path)` to `cache_key(path, locale)` in cache.py\n"
                              "and pass `request.locale` from the view."),
        ("assistant", "text", "cache.py\n```python\n<<<<<<< SEARCH\ndef cache_key(path):\n=======\n"
                              "def cache_key(path, locale):\n>>>>>>> REPLACE\n```"),
        ("user", "text", "does the old key still work after the change?"),
        ("assistant", "reasoning", "Old entries were stored under the path alone."),
        ("assistant", "text", "No: entries under the old key are missed once and expire within the hour."),
    ]


@pytest.mark.parametrize(("reply", "reasoning", "answer"), [
    ("<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nplan\n\n</thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>"
     "\n\n\n\nanswer", "plan", "answer"),
    ("<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nplan\n\n</think>\n\nanswer", "plan", "answer"),
    ("<thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>\n\nstill thinking when cut", "still thinking when cut", ""),
    ("<think>\nplan\n</think>\nanswer", "plan", "answer"),
    ("plan\n</think>\n\nanswer", "plan", "answer"),
    ("--------------\n► **THINKING**\n\nplan\n\n------------\n► **ANSWER**\n\nanswer", "plan", "answer"),
    ("Wrap the thought in `<think>` tags, closed by `</think>`.", "", "Wrap the thought in `<think>` tags, closed by "
                                                                        "`</think>`."),
    ("I'll tighten the prompt.\n\nprompt.txt\n```\n<reasoning>\nThink step by step.\n</reasoning>\n```", "",
     "I'll tighten the prompt.\n\nprompt.txt\n```\n<reasoning>\nThink step by step.\n</reasoning>\n```"),
    ("prompt.txt\n```\nThink step by step.\n</think>\n```", "", "prompt.txt\n```\nThink step by step.\n</think>\n```"),
], ids=["aider-tag", "closed-by-the-models-tag", "cut-short", "think-tag", "lone-closing-tag", "rulers",
        "tags-mentioned-in-the-answer", "a-tag-in-edited-code", "a-closing-tag-in-code"])
def test_split_reasoning(reply, reasoning, answer):
    assert aider.split_reasoning(reply) == (reasoning, answer)


def test_the_persons_input_equal_to_the_answer_before_is_kept():
    """Only an architect's plan is logged again as the next input (the editor model's); a person may
    well type what the model just said."""
    lines = ["#### Should the retry limit stay at 3? Answer with one word.", "", "Yes.", "", "#### Yes.", "",
             "Keeping it at 3.", ""]
    records, _title = aider.session_records(lines, 2, SessionInfo("s", "aider"), None)
    assert [(r.role, r.text) for r in records] == [
        ("user", "Should the retry limit stay at 3? Answer with one word."), ("assistant", "Yes."),
        ("user", "Yes."), ("assistant", "Keeping it at 3.")]


def test_a_heading_in_the_models_reply_is_the_models_not_the_persons():
    """Aider writes each input line as ``#### line`` ending in a Markdown line break (two spaces); the model's
    own Markdown headings (``#### Request``) have none (seen in real logs: an API-docs reply read as twenty
    inputs). A file whose trailing spaces were stripped keeps reading ``####`` lines as the person's."""
    lines = ["#### document the upload endpoint  ", "", "Here is the documentation.", "",
             "#### Request", "", "`POST /upload` with a multipart body.", "", "#### 400 Bad Request", "",
             "Returned when the file is missing.", "", "#### now add an example with curl  ", "#### and httpie  ",
             "", "Sure: `curl -F file=@a.pdf`.", ""]
    records, title = aider.session_records(lines, 2, SessionInfo("s", "aider"), None)
    assert [(r.role, r.text.splitlines()[0]) for r in records] == [
        ("user", "document the upload endpoint"), ("assistant", "Here is the documentation."),
        ("user", "now add an example with curl"), ("assistant", "Sure: `curl -F file=@a.pdf`.")]
    assert "#### 400 Bad Request" in records[1].text and records[2].text.endswith("and httpie")
    assert title == "document the upload endpoint"
    stripped = [line.rstrip() for line in lines]  # (and its lines of one input no longer join)
    read = aider.session_records(stripped, 2, SessionInfo("s", "aider"), None)[0]
    assert [r.text for r in read if r.role == "user"][1:3] == ["Request", "400 Bad Request"]


def test_an_architects_plan_logged_again_with_its_reasoning_is_not_the_persons():
    """A model that writes its reasoning in its answer and closes it with ``</think>`` alone: Aider hands the whole
    reply, reasoning and all, to the editor model as its input (seen in a real log, DeepSeek-R1 as architect)."""
    reply = ["Alright, so the user wants retries.", "", "</think>", "", "Add a retry loop to `fetch()`.  "]
    lines = ["> Model: r1 with architect edit format  ", "", "#### /architect retry the download  ", "",
             *[line.rstrip() for line in reply], "", *[f"#### {line}".rstrip() + "  " for line in reply], "",
             "Done: `fetch()` retries three times.", ""]
    records, _title = aider.session_records(lines, 2, SessionInfo("s", "aider"), None)
    assert [(r.role, r.content_type, r.text) for r in records if r.content_type != "tool"] == [
        ("user", "text", "retry the download"), ("assistant", "reasoning", "Alright, so the user wants retries."),
        ("assistant", "text", "Add a retry loop to `fetch()`."),
        ("assistant", "text", "Done: `fetch()` retries three times.")]
    # Architect mode from the command line alone (a banner cut short by warnings has no "Model:" line)
    banner = ["> /Users/dev/.local/bin/aider --architect --model gemini/flash  ", "> Warning: no key set  ", ""]
    plain = [line.replace("/architect ", "") for line in lines[2:]]
    records, _title = aider.session_records([*banner, *plain], 2, SessionInfo("s", "aider"), None)
    assert [r.text for r in records if r.role == "user"] == ["retry the download"]

def _as_an_older_parser_left_it(bh, repo: str) -> None:
    """A confirmation Aider answered itself, stored as the person's words (what parser version 4 did),
    and the store marked as read by that version."""
    import sqlite3

    first = records_of(bh, repo)[0]
    conn = sqlite3.connect(bh.data / "backscroll.db")
    cols = [c for c in first if c not in ("id", "unit_hash", "vector_seq")]
    fake = {**{c: first[c] for c in cols}, "record_id": first["record_id"] + "~old", "role": "user", "author": "human",
            "content_type": "text", "text": "Add file to the chat? (Y)es/(N)o [Yes]: all", "content_hash": "old"}
    conn.execute(f"INSERT INTO records ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                 [fake[c] for c in cols])
    conn.execute("UPDATE meta SET value = '4' WHERE key = 'parse_version'")
    conn.execute("UPDATE source_files SET parse_version = 4")
    conn.commit()
    conn.close()


def test_what_an_older_parser_misread_is_dropped_when_the_file_is_unchanged(indexed, backscroll_index):
    before = len(records_of(indexed, "webcache"))
    _as_an_older_parser_left_it(indexed, "webcache")
    out = backscroll_index(embed=False)
    assert [r["text"] for r in records_of(indexed, "webcache") if r["text"].startswith("Add file")] == []
    assert len(records_of(indexed, "webcache")) == before and out.report.records_replaced >= 1


def test_what_an_older_parser_read_is_kept_when_the_file_changed_since(indexed, backscroll_index):
    # The file is not what the records were read from: a record the new parser does not find may be
    # one the agent has since cut from its log. The permanent record keeps it.
    _as_an_older_parser_left_it(indexed, "webcache")
    history = indexed.home / "code" / "webcache" / HISTORY
    history.write_text(history.read_text() + "\n#### and the tests?  \n")
    backscroll_index(embed=False)
    texts = [r["text"] for r in records_of(indexed, "webcache")]
    assert "Add file to the chat? (Y)es/(N)o [Yes]: all" in texts and texts[-1] == "and the tests?"


def test_header_times_are_stored_as_utc_and_a_dated_query_reads_them(indexed, backscroll_search, monkeypatch):
    """Aider writes its header in local time with no zone; the store holds UTC like every other agent's,
    and a question naming a day compares record times with it (a time with no zone, as an older reader
    stored it, used to stop every dated search with a TypeError)."""
    stamps = {r["timestamp"] for r in records_of(indexed, "mozgoslav")}
    assert stamps and all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", t) for t in stamps), stamps
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # the header's 22:40:12 is 17:10:12 UTC there
    time.tzset()
    try:
        assert aider.header_time("2026-04-22T22:40:12") == "2026-04-22T17:10:12.000Z"
    finally:
        monkeypatch.undo()
        time.tzset()
    with sqlite3.connect(indexed.data / "backscroll.db") as db:  # as an older reader stored them
        db.execute("UPDATE records SET timestamp = substr(timestamp, 1, 19) WHERE agent = 'aider'")
    for mode in ("lexical", "hybrid"):
        result = backscroll_search("which API key did lm_studio reject on 22 April 2026", mode=mode, sync=False)
        assert result.results and result.results[0].agent == "aider", mode


def test_an_impossible_session_time_costs_no_session_and_runs_in_one_second_stay_apart(backscroll_home,
                                                                                      backscroll_index):
    repo = backscroll_home.home / "code" / "app"
    repo.mkdir(parents=True)
    sessions = [("2026-01-05 10:00:00", "first scripted run"), ("2026-01-05 10:00:00", "second scripted run"),
                ("9999-99-99 99:99:99", "a header no clock can give"), ("0001-01-01 00:00:00", "nor this one"),
                ("9999-12-31 23:59:59", "nor the index"), ("2026-01-06 09:00:00", "the next day")]
    (repo / HISTORY).write_text("".join(f"\n# aider chat started at {when}\n\n#### {asked}  \n\nDone.  \n"
                                        for when, asked in sessions))
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    (backscroll_home.data / "config.toml").write_text(f'[roots]\naider = ["{repo.parent}"]\n')
    out = backscroll_index(embed=False)
    assert not out.report.unreadable, out.report.unreadable
    got = rows(backscroll_home, "SELECT session_id, text FROM records WHERE role = 'user' ORDER BY id")
    assert [r["text"] for r in got] == [asked for _when, asked in sessions], "every session's words landed"
    assert len({got[n]["session_id"] for n in (1, 2, 3, 4)}) == 1, "the impossible headers are the run's text"
    assert len({r["session_id"] for r in got}) == 3, "one session per run, even in the same second; none at 9999"
