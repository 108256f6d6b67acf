"""`backscroll install` never costs the user a byte, a permission or a concurrent write (issue #46, item 5)."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.integrations import install as inst

runner = CliRunner()

# Every JSON file install edits: (kind, agent, path under HOME).
JSON_TARGETS = [("hooks", "claude", ".claude/settings.json"), ("hooks", "codex", ".codex/hooks.json"),
                ("mcp", "claude", ".claude.json"), ("mcp", "gemini", ".gemini/settings.json")]


@pytest.fixture
def home(backscroll_home) -> Path:
    h = backscroll_home.home
    for agent in (".claude", ".codex", ".gemini"):
        (h / agent).mkdir()
    return h


def cli(*args: str):
    return runner.invoke(app, ["install", *args])


# -- 2. Codex: a comment the user writes after our table -----------------------------------------------

@pytest.mark.parametrize("gap", ["\n", ""])
def test_a_comment_after_our_codex_table_survives_uninstall(home, gap):
    path = home / ".codex" / "config.toml"
    path.write_text('model = "gpt-5"\n')
    inst.run("mcp", "codex")
    tail = f'{gap}# my work profile: keep it fast\n\n[profiles.work]\nmodel = "o3"\n'
    path.write_text(path.read_text() + tail)
    inst.run("mcp", "codex", uninstall=True)
    assert path.read_text() == 'model = "gpt-5"\n' + tail
