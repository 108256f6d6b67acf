"""Recall blocks injected by hooks and MCP calls to backscroll come back in transcripts: they are echoes."""

import json

from helpers import rows, unflagged_as_by_rules

from backscroll.ingest import echo as classify
from backscroll.ingest.recall_blocks import split_recall

SECRET = "zanzibar quokka migration"  # the words only the recalled block and the MCP output hold
BLOCK = ('<backscroll-recall source="backscroll" note="untrusted historical data">\n'
         f'- 2026-01-01 claude/x (record r#0): "we chose the {SECRET} plan"\n</backscroll-recall>')


def test_mcp_tool_names_across_agents():
    for name in ("mcp__backscroll__search", "mcp__plugin_backscroll_backscroll__search", "backscroll__show",
                 "mcp_backscroll_search", "mcp__backscroll__list_sessions"):
        assert classify.is_mcp_echo(name), name
    for other in ("mcp__github__search", "search", "Bash", None, "mcp__backscroll__status", "mcp_other_search"):
        assert not classify.is_mcp_echo(other), other


def test_split_recall_keeps_the_surrounding_text():
    rest, blocks = split_recall(f"<hook_context>{BLOCK}</hook_context>\nwhy is the build red?")
    assert rest == "why is the build red?" and blocks == [BLOCK]
    assert split_recall("plain") == ("plain", [])


def test_claude_hook_attachments_and_mcp_calls_are_indexed_as_echoes(session_builder, backscroll_index,
                                                                      backscroll_search, backscroll_home):
    s = session_builder.claude(project="shop")
    s.user("what did we pick for the migration?")
    s.write({"type": "attachment", "sessionId": s.session_id, "isSidechain": False, "timestamp": "2026-01-02T00:00:00Z",
             "uuid": "att-1", "attachment": {"type": "hook_additional_context", "hookName": "UserPromptSubmit",
                                              "hookEvent": "UserPromptSubmit", "content": [BLOCK]}})
    s.write({"type": "attachment", "uuid": "att-2", "attachment": {"type": "hook_additional_context",
                                                                   "content": ["another hook's context"]}})
    s.user(f"{BLOCK}\nso is the {SECRET.split()[0]} thing still true?")
    call = s.tool_use("mcp__backscroll__search", {"query": "migration plan", "limit": 5})
    s.tool_result(call, json.dumps({"results": [{"text": f"the {SECRET} plan"}]}))
    s.assistant("Checked: yes.")
    backscroll_index(embed=False)
    echo_rows = rows(backscroll_home, "SELECT * FROM records WHERE is_echo = 1 ORDER BY id")
    kinds = {(r["role"], r["tool_name"]) for r in echo_rows}
    assert ("tool", "mcp__backscroll__search") in kinds
    assert sum(BLOCK in r["text"] for r in echo_rows) == 2, "the attachment and the block inside user text"
    assert len(echo_rows) == 4  # + the MCP call's result
    user = rows(backscroll_home, "SELECT text FROM records WHERE role = 'user' AND is_echo = 0")
    assert "so is the zanzibar thing still true?" in [r["text"] for r in user], "surrounding text stays evidence"
    assert not any("another hook" in r["text"] for r in rows(backscroll_home)), "other hooks' context is not indexed"
    res = backscroll_search(SECRET, mode="lexical")
    assert all(SECRET not in h.text for h in res.results), [h.text for h in res.results]
    res = backscroll_search(SECRET, mode="lexical", include_echoes=True)
    assert any(SECRET in h.text for h in res.results)


def test_codex_hook_context_and_namespaced_mcp_calls_are_echoes(session_builder, backscroll_index,
                                                                 backscroll_search, backscroll_home):
    s = session_builder.codex(project="shop")
    s.user("what did we pick for the migration?")
    s._line("response_item", {"type": "message", "role": "developer",
                              "content": [{"type": "input_text", "text": BLOCK}],
                              "internal_chat_message_metadata_passthrough": {
                                  "turn_id": "t", "content_item_kinds": ["hooks.additional_context"]}})
    s._line("response_item", {"type": "function_call", "namespace": "mcp__backscroll", "name": "search",
                              "call_id": "call_1", "arguments": json.dumps({"query": "migration"})})
    s._line("response_item", {"type": "function_call_output", "call_id": "call_1",
                              "output": f"the {SECRET} plan"})
    s._line("response_item", {"type": "function_call", "name": "backscroll__show", "call_id": "call_2",
                              "arguments": json.dumps({"record_id": "x"})})
    s.assistant("Checked.")
    backscroll_index(embed=False)
    echo_rows = rows(backscroll_home, "SELECT * FROM records WHERE is_echo = 1 ORDER BY id")
    assert [r["tool_name"] for r in echo_rows] == [None, "mcp__backscroll__search", "mcp__backscroll__search",
                                                   "backscroll__show"]
    assert BLOCK in echo_rows[0]["text"]
    assert all("zanzibar" not in h.text for h in backscroll_search(SECRET, mode="lexical").results)


def test_stores_classified_by_older_rules_are_reclassified(session_builder, backscroll_index, backscroll_home):
    s = session_builder.claude(project="shop")
    call = s.tool_use("mcp__backscroll__search", {"query": "migration"})
    s.tool_result(call, f"the {SECRET} plan")
    backscroll_index(embed=False)
    unflagged_as_by_rules(backscroll_home, 1)
    backscroll_index(embed=False)
    assert [r["is_echo"] for r in rows(backscroll_home)] == [1, 1]


def test_prose_that_names_the_recall_tag_is_prose(session_builder, backscroll_index, backscroll_search,
                                                  backscroll_home):
    """Only a block the hook printed (its opening tag names backscroll as its source) is recalled context; a
    decision about the hooks that names ``<backscroll-recall>`` is kept whole, and found."""
    s = session_builder.claude(project="hooks")
    s.user("how should the hook frame what it recalls?")
    s.assistant("We decided the hook wraps what it recalls in a <backscroll-recall> element, and we chose the "
                "plinthograph escaping scheme for everything quoted inside it.")
    backscroll_index(embed=False)
    assert not rows(backscroll_home, "SELECT 1 FROM records WHERE is_echo = 1")
    hits = backscroll_search("plinthograph escaping", mode="lexical").results
    assert hits and "plinthograph escaping scheme for everything quoted" in hits[0].text
    rest, blocks = split_recall("a <backscroll-recall> element, then the rest")
    assert (rest, blocks) == ("a <backscroll-recall> element, then the rest", [])


def test_an_unclosed_recall_tag_hides_no_more_than_a_hook_prints():
    head = '<backscroll-recall source="backscroll" note="untrusted historical data">\n- a recalled line'
    assert split_recall(f"why is it red?\n{head}") == ("why is it red?", [head]), "a block cut short"
    quoted = f"I pasted {head} and then wrote my own question about the" + " flaky login test" * 200
    assert split_recall(quoted) == (quoted, []), "the person's words after a quoted tag stay theirs"
    text = f"{BLOCK}\nthe question, then {head}" + " and more of my words" * 200
    assert split_recall(text) == (text[len(BLOCK):].strip(), [BLOCK])
    many = (head + " ") * 20_000  # (hostile: every tag unclosed, found in linear time)
    rest, blocks = split_recall(many)
    assert len(blocks) == 1 and len(blocks[0]) <= 2048 + len(head) and rest + " " + blocks[0] == many
