"""Gemini CLI reads comments in its settings.json: `install mcp` edits such a file in place, keeps every comment
where it was written, and `--uninstall` gives back every byte."""

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.integrations import install as inst
from backscroll.integrations import json_text

runner = CliRunner()

COMMENTED = {
    "comments above members": '{\n  // my theme\n  "theme": "dark",\n  /* servers } " */\n  "mcpServers": {\n'
                              '    // docs at https://example.com\n    "x": {"command": "y"} // trailing\n  }\n}\n',
    "a comment after the last member": '{\n  "theme": "dark" // dark mode\n}\n',
    "a comment on the opening line": '{ // top\n  "theme": "dark" /* b */\n}\n',
    "CRLF lines": '{ // top\r\n  "theme": "dark" // d\r\n}\r\n',
    "servers holding only a comment": '{\n  "mcpServers": {\n    // none yet\n  }\n}\n',
    "slashes inside strings": '{"a": "http://q/*x*/", "b": 1/*c*/}',
    "empty servers, a comment after them": '{\n  "mcpServers": {}, // add servers here\n  "theme": "dark"\n}\n',
    "an empty object, a comment after it": '{} // trailing\n',
    "empty servers closed, a comment after": '{"mcpServers": {}} // mine\n',
}


@pytest.fixture
def settings(backscroll_home):
    (backscroll_home.home / ".gemini").mkdir()
    return backscroll_home.home / ".gemini" / "settings.json"


@pytest.mark.parametrize("text", COMMENTED.values(), ids=COMMENTED.keys())
def test_commented_gemini_settings_get_the_server_keep_their_comments_and_come_back_whole(settings, text):
    settings.write_bytes(text.encode())
    res = runner.invoke(app, ["install", "mcp", "--agent", "gemini"])
    assert res.exit_code == 0, res.output
    after = settings.read_bytes().decode()
    assert "backscroll" in json_text.loads(after)["mcpServers"]
    assert {"kind": "mcp", "agent": "gemini", "path": str(settings)} in inst.installed()  # what status shows
    assert [text[a:b] for a, b in json_text.comments(text)] == [after[a:b] for a, b in json_text.comments(after)]
    if "\r\n" in text:
        assert "\n" not in after.replace("\r\n", ""), "the file's line endings"
    inst.run("mcp", "gemini")
    assert settings.read_bytes().decode() == after, "install is idempotent"
    inst.run("mcp", "gemini", uninstall=True)
    assert settings.read_bytes() == text.encode()


def test_a_comment_the_user_wrote_beside_ours_stays_when_ours_goes(settings):
    settings.write_text('{\n  "mcpServers": {\n    "x": {"command": "y"}\n  }\n}\n')
    inst.run("mcp", "gemini")
    settings.write_text(settings.read_text().replace('    "backscroll": {', '    // mine: keep\n    "backscroll": {'))
    inst.run("mcp", "gemini", uninstall=True)
    assert settings.read_text() == '{\n  "mcpServers": {\n    "x": {"command": "y"}\n    // mine: keep\n  }\n}\n'
    assert json_text.loads(settings.read_text()) == {"mcpServers": {"x": {"command": "y"}}}


def test_an_entry_of_another_data_dir_goes_by_its_shape_and_the_comments_beside_it_stay(settings, backscroll_home,
                                                                                       monkeypatch):
    text = '{\n  "mcpServers": {\n    // first\n    "x": {"command": "y"} // x\n  }\n}\n'
    settings.write_text(text)
    inst.run("mcp", "gemini")
    monkeypatch.setenv("BACKSCROLL_HOME", str(backscroll_home.home / "another"))  # no record of installing it
    inst.run("mcp", "gemini", uninstall=True)
    assert settings.read_text() == text


@pytest.mark.parametrize("text", ['{\n  "mcpServers": {\n    // none yet\n  }\n}\n', '{\n  "mcpServers": {\n  }\n}\n',
                                  '{\r\n\t"mcpServers": {\r\n\t\t/* none */\r\n\t}\r\n}\r\n',
                                  '{\n  "mcpServers": { // none yet\n  }\n}\n'],
                         ids=["a line comment", "white space", "a block comment, CRLF and tabs", "the opening line's"])
def test_servers_holding_no_entry_get_no_line_of_spaces_and_come_back_whole_by_shape(settings, backscroll_home,
                                                                                    monkeypatch, text):
    settings.write_bytes(text.encode())
    inst.run("mcp", "gemini")
    installed = settings.read_bytes().decode()
    assert not [line for line in installed.splitlines() if line and not line.strip()], installed
    monkeypatch.setenv("BACKSCROLL_HOME", str(backscroll_home.home / "another"))  # no record: ours goes by its shape
    inst.run("mcp", "gemini", uninstall=True)
    assert settings.read_bytes().decode() == text


@pytest.mark.parametrize("text", ['{\n  "a": 1, /* never closed\n}\n', '{\n  "a": 1,\n}\n', '{"a": 1, "a": 2}'],
                         ids=["an unclosed comment", "a trailing comma", "a key twice"])
def test_gemini_settings_it_cannot_read_are_left_as_they_are(settings, text):
    settings.write_text(text)
    res = runner.invoke(app, ["install", "mcp", "--agent", "gemini"])
    assert res.exit_code == 2 and "is not JSON" in res.output and "nothing was changed" in res.output
    assert settings.read_text() == text


def test_json_text_reads_comments_as_white_space_and_nothing_inside_a_string_as_one():
    text = '{ // a "quote\n "u": "http://x//y", /* } */ "n": [1, /* 2 */ 3]}'
    assert json_text.loads(text) == {"u": "http://x//y", "n": [1, 3]}
    assert [k for k, _s, _v in json_text.parse(text).members] == ["u", "n"]
    assert len(json_text.comments(text)) == 3


@pytest.mark.parametrize("ledger", [True, False], ids=["recorded", "another data dir"])
@pytest.mark.parametrize("base", ['{\n  "theme": "dark"\n}\n',
                                  '{\n  "mcpServers": {\n    "x": {"command": "y"} // x\n  }\n}\n',
                                  '{\r\n  "mcpServers": {\r\n    "x": {"command": "y"} // x\r\n  }\r\n}\r\n'],
                         ids=["no servers", "a server of theirs", "CRLF lines"])
def test_comments_written_around_our_entry_stay_and_swallow_nothing_when_it_goes(settings, backscroll_home, monkeypatch,
                                                                                 base, ledger):
    """A review found uninstall joining a // comment to what followed it: a closing brace, or the user's own
    server, commented out."""
    settings.write_bytes(base.encode())
    inst.run("mcp", "gemini")
    nl = "\r\n" if "\r\n" in base else "\n"
    ours = f'// search my past sessions{nl}    "backscroll": {{ // ours{nl}      // the command'
    edited = settings.read_bytes().decode().replace('"backscroll": {', ours)
    edited = edited.replace(f'"trust": false{nl}    }}', f'"trust": false{nl}    }} /* added in December */')
    settings.write_bytes(edited.encode())
    if not ledger:
        monkeypatch.setenv("BACKSCROLL_HOME", str(backscroll_home.home / "another"))
    inst.run("mcp", "gemini", uninstall=True)
    after = settings.read_bytes().decode()
    assert "backscroll" not in after
    assert nl == "\n" or "\n" not in after.replace("\r\n", ""), "the file's line endings"
    assert {k: v for k, v in json_text.loads(after).items() if v != {}} == json_text.loads(base)
    for comment in ("// search my past sessions", "// ours", "// the command", "/* added in December */", "// x"):
        assert (comment in edited) == (comment in after), comment


def test_a_file_install_created_stays_when_the_user_wrote_a_comment_in_it(settings):
    inst.run("mcp", "gemini")
    settings.write_text("// my gemini notes: keep me\n" + settings.read_text())
    inst.run("mcp", "gemini", uninstall=True)
    assert settings.read_text().startswith("// my gemini notes: keep me\n") and json_text.loads(settings.read_text()) \
        in ({}, {"mcpServers": {}})


def test_a_line_comment_ends_at_a_line_feed_as_gemini_reads_it(settings):
    settings.write_text('{"a": 1 // c\r}')  # (Gemini reads the brace as part of the comment)
    res = runner.invoke(app, ["install", "mcp", "--agent", "gemini"])
    assert res.exit_code == 2 and "is not JSON" in res.output
    assert settings.read_bytes() == b'{"a": 1 // c\r}'


def test_status_does_not_take_a_claude_file_with_comments_for_an_installed_entry(backscroll_home):
    (backscroll_home.home / ".claude").mkdir()
    inst.run("mcp", "claude")
    assert [i for i in inst.installed() if i["agent"] == "claude" and i["kind"] == "mcp"]
    claude_json = backscroll_home.home / ".claude.json"
    claude_json.write_text(claude_json.read_text() + "// Claude Code reads no comments\n")
    assert not [i for i in inst.installed() if i["agent"] == "claude" and i["kind"] == "mcp"]


def test_the_lines_of_a_block_comment_do_not_set_the_files_indentation(settings):
    """A ``/** … */`` header's `` * `` lines made our entry nest by one space."""
    settings.write_text('/**\n * My settings\n */\n{\n    "theme": "dark",\n    "mcpServers": {}\n}\n')
    inst.run("mcp", "gemini")
    assert '\n        "backscroll": {\n            "command"' in settings.read_text(), settings.read_text()
