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
