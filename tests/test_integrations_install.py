"""`backscroll install …`: everything written is listed, idempotent, and undone byte for byte."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from backscroll.cli import app
from backscroll.integrations import install as inst

runner = CliRunner()


def snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def agent_home(backscroll_home):
    h = backscroll_home.home
    (h / ".claude").mkdir()
    (h / ".codex").mkdir()
    (h / ".gemini").mkdir()
    (h / ".pi" / "agent").mkdir(parents=True)
    # The user's own files, in styles json.dumps would not reproduce.
    (h / ".claude" / "settings.json").write_text(
        '{"model": "opus",\n    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}')
    (h / ".claude" / "CLAUDE.md").write_text("# Mine\n\nAlways use tabs.")  # no final newline
    (h / ".codex" / "config.toml").write_text(
        '# my codex\nmodel = "gpt-5"  # fast\n\n[mcp_servers.other]\ncommand = "x"\n')
    (h / ".codex" / "AGENTS.md").write_text("Be brief.\n")
    (h / ".gemini" / "settings.json").write_text('{\n\t"theme": "dark",\n\t"mcpServers": {"x": {"command": "y"}}\n}\n')
    (h / ".claude.json").write_text(json.dumps({"numStartups": 3, "projects": {"/p": {"x": 1}}}, indent=2))
    return h


@pytest.mark.parametrize("kind", ["skill", "instructions", "hooks", "mcp"])
def test_install_twice_then_uninstall_restores_every_byte(agent_home, kind):
    before = snapshot(agent_home)
    first = inst.run(kind)
    assert first and any(c.changed for c in first)
    after_first = snapshot(agent_home)
    assert after_first != before
    second = inst.run(kind)
    assert not any(c.changed for c in second), "install is idempotent"
    assert snapshot(agent_home) == after_first
    inst.run(kind, uninstall=True)
    assert snapshot(agent_home) == before


def test_everything_installed_is_listed_by_status_and_removed(agent_home):
    before = snapshot(agent_home)
    for kind in ("skill", "instructions", "hooks", "mcp"):
        res = runner.invoke(app, ["install", kind])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["status", "--json"])
    listed = {(i["kind"], i["agent"]) for i in json.loads(res.stdout)["integrations"]}
    assert {("skill", "claude"), ("skill", "codex"), ("skill", "pi"), ("instructions", "claude"),
            ("instructions", "codex"), ("instructions", "gemini"), ("hooks", "claude"), ("hooks", "codex"),
            ("mcp", "claude"), ("mcp", "codex"), ("mcp", "gemini")} <= listed
    for kind in ("skill", "instructions", "hooks", "mcp"):
        assert runner.invoke(app, ["install", kind, "--uninstall"]).exit_code == 0
    assert snapshot(agent_home) == before
    assert json.loads(runner.invoke(app, ["status", "--json"]).stdout)["integrations"] == []


def test_written_shapes(agent_home):
    inst.run("hooks")
    inst.run("mcp")
    inst.run("skill")
    claude = json.loads((agent_home / ".claude" / "settings.json").read_text())
    assert claude["model"] == "opus" and list(claude) == ["model", "hooks"]
    assert claude["hooks"]["Stop"][0]["hooks"][0]["command"] == "say done", "the user's hooks are kept"
    ups = claude["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    assert ups == {"type": "command", "command": "backscroll hook claude prompt", "timeout": 5}
    assert claude["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    codex_hooks = json.loads((agent_home / ".codex" / "hooks.json").read_text())
    assert set(codex_hooks) == {"hooks"}  # codex denies unknown top-level keys
    assert codex_hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "backscroll hook codex prompt"
    import tomllib

    toml = tomllib.loads((agent_home / ".codex" / "config.toml").read_text())
    assert toml["mcp_servers"]["backscroll"] == {"command": "backscroll", "args": ["mcp"], "startup_timeout_sec": 30}
    assert toml["mcp_servers"]["other"] == {"command": "x"}
    gem = (agent_home / ".gemini" / "settings.json").read_text()
    assert '\n\t"mcpServers"' in gem, "tab indentation is kept"
    assert json.loads(gem)["mcpServers"]["backscroll"]["args"] == ["mcp"]
    assert json.loads((agent_home / ".claude.json").read_text())["mcpServers"]["backscroll"]["command"] == "backscroll"
    skill = (agent_home / ".claude" / "skills" / "backscroll" / "SKILL.md").read_text()
    assert skill.startswith("---\nname: backscroll\n") and "--json --limit 5" in skill
    assert (agent_home / ".agents" / "skills" / "backscroll" / "SKILL.md").read_text() == skill
    assert not (agent_home / ".config" / "opencode").exists(), "agents without a home get nothing"


def test_instruction_block_is_replaced_in_place_and_text_outside_is_kept(agent_home):
    path = agent_home / ".claude" / "CLAUDE.md"
    inst.run("instructions", "claude")
    path.write_text(path.read_text() + "\nMore of my own text.\n")
    old = path.read_text()
    stale = old.replace("All earlier coding-agent sessions", "OLD WORDING")
    path.write_text(stale)
    inst.run("instructions", "claude")
    assert path.read_text() == old
    inst.run("instructions", "claude", uninstall=True)
    assert path.read_text() == "# Mine\n\nAlways use tabs.\nMore of my own text.\n"


def test_dry_run_writes_nothing_and_prints_a_diff(agent_home):
    before = snapshot(agent_home)
    res = runner.invoke(app, ["install", "hooks", "--dry-run"])
    assert res.exit_code == 0
    assert "+" in res.stdout and "backscroll hook claude prompt" in res.stdout
    assert snapshot(agent_home) == before


def test_a_users_own_skill_and_unparseable_settings_are_left_alone(agent_home):
    own = agent_home / ".claude" / "skills" / "backscroll" / "SKILL.md"
    own.parent.mkdir(parents=True)
    own.write_text("my own backscroll notes\n")
    inst.run("skill", "claude")
    inst.run("skill", "claude", uninstall=True)
    assert own.read_text() == "my own backscroll notes\n"
    (agent_home / ".gemini" / "settings.json").write_text('{ // comment\n "a": 1 }')
    res = runner.invoke(app, ["install", "mcp", "--agent", "gemini"])
    assert res.exit_code == 2 and "not plain JSON" in res.output
    assert (agent_home / ".gemini" / "settings.json").read_text() == '{ // comment\n "a": 1 }'


def test_files_created_by_install_are_removed_by_uninstall(backscroll_home):
    h = backscroll_home.home
    (h / ".codex").mkdir()
    before = snapshot(h)
    for kind in ("skill", "instructions", "hooks", "mcp"):
        inst.run(kind, "codex")
    assert (h / ".codex" / "hooks.json").exists() and (h / ".codex" / "config.toml").exists()
    for kind in ("skill", "instructions", "hooks", "mcp"):
        inst.run(kind, "codex", uninstall=True)
    assert snapshot(h) == before


def test_mcp_for_claude_goes_into_its_config_dir_when_claude_config_dir_is_set(agent_home, monkeypatch):
    conf = agent_home / "claude-conf"
    conf.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(conf))
    before = (agent_home / ".claude.json").read_bytes()
    inst.run("mcp")
    assert json.loads((conf / ".claude.json").read_text())["mcpServers"]["backscroll"]["args"] == ["mcp"]
    assert (agent_home / ".claude.json").read_bytes() == before, "the default file is left alone"
