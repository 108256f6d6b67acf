"""Lines newer Codex releases write (codex-rs ``RolloutItem``, ``ResponseItem`` and ``EventMsg``): a message between
agents on a line of its own is the sending agent's; bookkeeping is read and left out, not reported as unknown."""

from __future__ import annotations

from backscroll.ingest.sources import codex
from backscroll.types import SessionInfo

T = "2026-05-01T10:00:00.000Z"
LINES = [
    {"type": "inter_agent_communication", "payload": {
        "author": "/root/worker", "recipient": "/root", "other_recipients": [],
        "content": "Tests pass on branch fix-db.", "trigger_turn": True}},
    {"type": "retained_context", "payload": {"type": "verified_answer", "turn_id": "turn-1", "call_id": "call-1",
                                             "questions": [{"question": "Which database?", "answer": "Postgres"}]}},
    {"type": "token_usage_record", "payload": {"input_tokens": 10, "output_tokens": 5}},
    {"type": "security_risk_score", "payload": {"scores": {"action_risk": 0.12}}},
    {"type": "response_item", "payload": {"type": "context_compaction", "encrypted_content": "gAAAAB..."}},
    {"type": "response_item", "payload": {"type": "configuration_update", "reasoning": {"effort": "high"}}},
    {"type": "event_msg", "payload": {"type": "thread_rolled_back", "num_turns": 1}},
    {"type": "inter_agent_communication", "payload": {"author": "/root", "recipient": "/root/worker", "content": "",
                                                       "encrypted_content": "gAAAAB..."}},
]


def test_newer_lines_are_read_and_none_is_unknown():
    session = SessionInfo("019f0000-0000-7000-8000-000000000001", "codex", cwd="/work/app")
    parsed = [codex.parse_line({"timestamp": T, **line}, n, session) for n, line in enumerate(LINES, 1)]
    assert [p.unknown for p in parsed] == [None] * len(parsed)
    records = [r for p in parsed for r in p.records]
    assert [(r.role, r.author, r.text) for r in records] == [("user", "agent", "Tests pass on branch fix-db.")]
    assert records[0].timestamp is not None and records[0].cwd == "/work/app"


def test_a_message_a_compaction_or_a_parent_thread_wrote_is_a_copy_not_a_second_turn():
    """Newer Codex marks a response item with ``metadata``: a compaction's output, a parent thread's turn copied
    into a subagent's, an answer kept for the model's context (``CodexHarnessMetadata``); the originals are read where
    they were written."""
    session = SessionInfo("019f0000-0000-7000-8000-000000000002", "codex", cwd="/work/app")
    said = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "use the staging database"}]}
    for metadata in ({"client_authored": False, "compaction_output": True},
                     {"client_authored": True, "inherited_user_message": True},
                     {"client_authored": False, "delivered_assistant_message": "msg-7"}):
        line = {"timestamp": T, "type": "response_item", "payload": said, "metadata": metadata}
        assert codex.parse_line(line, 1, session).records == []
    original = {"timestamp": T, "type": "response_item", "payload": said, "metadata": {"client_authored": True}}
    assert [r.text for r in codex.parse_line(original, 2, session).records] == ["use the staging database"]
