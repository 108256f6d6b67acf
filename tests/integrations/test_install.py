"""`backscroll install …`: everything written is listed, idempotent, and undone byte for byte."""

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.integrations import install as inst

runner = CliRunner()
BACKSCROLL = str(Path(sys.executable).with_name("backscroll"))  # agents start outside the venv: the absolute path


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
    assert ups == {"type": "command", "command": f"{BACKSCROLL} hook claude prompt", "timeout": 5}
    assert claude["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    codex_hooks = json.loads((agent_home / ".codex" / "hooks.json").read_text())
    assert set(codex_hooks) == {"hooks"}  # codex denies unknown top-level keys
    assert codex_hooks["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == f"{BACKSCROLL} hook codex prompt"
    import tomllib

    toml = tomllib.loads((agent_home / ".codex" / "config.toml").read_text())
    assert toml["mcp_servers"]["backscroll"] == {"command": BACKSCROLL, "args": ["mcp"], "startup_timeout_sec": 30}
    assert toml["mcp_servers"]["other"] == {"command": "x"}
    gem = (agent_home / ".gemini" / "settings.json").read_text()
    assert '\n\t"mcpServers"' in gem, "tab indentation is kept"
    assert json.loads(gem)["mcpServers"]["backscroll"]["args"] == ["mcp"]
    assert json.loads((agent_home / ".claude.json").read_text())["mcpServers"]["backscroll"]["command"] == BACKSCROLL
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
    # claude's settings.json has no final newline: diff's marker says so, and the next file's header is a line
    out = runner.invoke(app, ["install", "hooks", "--dry-run", "--agent", "all"]).stdout
    assert "\n\\ No newline at end of file\n" in out
    assert all(line.startswith(("--- ", "+++ ", "@@", " ", "+", "-", "\\", "#")) for line in out.splitlines()), out


def test_uninstall_with_nothing_installed_names_no_file_it_did_not_touch(agent_home):
    res = runner.invoke(app, ["install", "hooks", "--uninstall", "--agent", "codex"])
    assert res.exit_code == 0 and "hooks (codex): nothing to remove (" in res.stdout and "does not exist" in res.stdout
    assert not (agent_home / ".codex" / "hooks.json").exists()
    settings = agent_home / ".claude" / "settings.json"  # there, holding the user's own hooks only
    res = runner.invoke(app, ["install", "hooks", "--uninstall", "--agent", "claude"])
    assert "nothing to remove (" in res.stdout and "holds no backscroll entry" in res.stdout, res.stdout
    assert settings.exists()


def test_a_users_own_skill_and_unparseable_settings_are_left_alone(agent_home):
    own = agent_home / ".claude" / "skills" / "backscroll" / "SKILL.md"
    own.parent.mkdir(parents=True)
    own.write_text("my own backscroll notes\n")
    inst.run("skill", "claude")
    inst.run("skill", "claude", uninstall=True)
    assert own.read_text() == "my own backscroll notes\n"
    (agent_home / ".claude.json").write_text('{ // comment\n "a": 1 }')  # (Claude Code reads no comments)
    res = runner.invoke(app, ["install", "mcp", "--agent", "claude"])
    assert res.exit_code == 2 and "not plain JSON" in res.output
    assert (agent_home / ".claude.json").read_text() == '{ // comment\n "a": 1 }'


def test_settings_holding_a_key_twice_are_refused_not_edited_where_the_agent_never_looks(agent_home):
    """JSON.parse keeps the last "hooks": an edit of the first would install hooks the agent never runs."""
    settings = agent_home / ".claude" / "settings.json"
    text = '{\n  "hooks": {"Stop": []},\n  "model": "x",\n  "hooks": {"Notification": []}\n}\n'
    settings.write_text(text)
    res = runner.invoke(app, ["install", "hooks", "--agent", "claude"])
    assert res.exit_code == 2 and 'the key "hooks" appears twice' in res.output and "each key once" in res.output
    assert settings.read_text() == text
    runner.invoke(app, ["install", "hooks", "--agent", "claude", "--uninstall"])
    assert settings.read_text() == text


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


def test_uninstall_removes_the_directories_install_created_once_empty(backscroll_home):
    h = backscroll_home.home
    (h / ".claude").mkdir()
    (h / ".codex").mkdir()
    inst.run("skill", "claude")
    inst.run("skill", "codex")
    made = {p.relative_to(h) for p in h.rglob("*") if p.is_dir()} - {Path(".claude"), Path(".codex")}
    assert {Path(".claude/skills"), Path(".agents"), Path(".agents/skills")} <= made  # (codex reads ~/.agents)
    (h / ".agents" / "skills" / "mine").mkdir()  # the user's own skill, made meanwhile
    inst.run("skill", "claude", uninstall=True)
    inst.run("skill", "codex", uninstall=True)
    assert not (h / ".claude" / "skills").exists(), "created by install, empty again: removed"
    assert (h / ".agents" / "skills" / "mine").is_dir(), "a directory holding the user's own is kept"
    assert (h / ".claude").is_dir() and (h / ".codex").is_dir(), "the agents' own directories stay"


def test_mcp_for_claude_goes_into_its_config_dir_when_claude_config_dir_is_set(agent_home, monkeypatch):
    conf = agent_home / "claude-conf"
    conf.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(conf))
    before = (agent_home / ".claude.json").read_bytes()
    inst.run("mcp")
    assert json.loads((conf / ".claude.json").read_text())["mcpServers"]["backscroll"]["args"] == ["mcp"]
    assert (agent_home / ".claude.json").read_bytes() == before, "the default file is left alone"


# -- uninstall never costs the user a byte ---------------------------------------------------------------

def test_an_orphaned_begin_marker_never_makes_uninstall_cut_the_users_notes(agent_home):
    path = agent_home / ".claude" / "CLAUDE.md"
    mine = "# Mine\n\n<!-- backscroll:begin v0 (a block I half deleted long ago)\n\nMy notes about the deploy.\n"
    path.write_text(mine)
    inst.run("instructions", "claude")
    assert path.read_text().startswith(mine)
    inst.run("instructions", "claude", uninstall=True)
    assert path.read_text() == mine


def test_a_users_own_mcp_entry_is_kept_through_install_and_uninstall(agent_home):
    path = agent_home / ".claude.json"
    own = {"numStartups": 3, "mcpServers": {"backscroll": {"command": "backscroll", "args": ["mcp"],
                                                           "env": {"BACKSCROLL_HOME": "/data/bs"}}}}
    path.write_text(json.dumps(own, indent=2))
    before = path.read_bytes()
    res = runner.invoke(app, ["install", "mcp", "--agent", "claude"])
    assert res.exit_code == 0 and "unchanged" in res.stdout and "of your own" in res.stderr
    assert runner.invoke(app, ["install", "mcp", "--agent", "claude", "--uninstall"]).exit_code == 0
    assert path.read_bytes() == before


def test_a_symlinked_settings_file_stays_a_link_and_its_target_is_restored(agent_home, tmp_path):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "claude-settings.json"
    target.write_text((agent_home / ".claude" / "settings.json").read_text())
    link = agent_home / ".claude" / "settings.json"
    link.unlink()
    link.symlink_to(target)
    before = target.read_bytes()
    inst.run("hooks", "claude")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "hook claude prompt" in target.read_text()
    inst.run("hooks", "claude", uninstall=True)
    assert link.is_symlink() and target.read_bytes() == before


def test_an_existing_empty_file_stays_and_a_file_install_created_goes(agent_home):
    claude_md = agent_home / ".claude" / "CLAUDE.md"
    claude_md.write_text("")
    (agent_home / ".claude.json").unlink()
    inst.run("instructions", "claude")
    inst.run("mcp", "claude")
    assert (agent_home / ".claude.json").exists()
    inst.run("instructions", "claude", uninstall=True)
    inst.run("mcp", "claude", uninstall=True)
    assert claude_md.exists() and claude_md.read_text() == ""
    assert not (agent_home / ".claude.json").exists(), "install created it: uninstall removes it"
    assert not (agent_home / ".claude" / "skills").exists()


@pytest.mark.parametrize("original", [
    '{\r\n  "theme": "dark",\r\n  "limits": {"max": 1E3, "ratio": 1.10, "big": 12345678901234567890},\r\n'
    '  "mcpServers": {}\r\n}\r\n',
    '{"a":1,"mcpServers":{"x":{"command":"y"}}}',
    '{}',
    '\t{ "hooks" : { "Stop" : [ ] } , "n" : -0.0e-0 }\n',
])
def test_install_then_uninstall_gives_back_every_byte_of_any_json_style(agent_home, original):
    for path in (agent_home / ".gemini" / "settings.json", agent_home / ".claude" / "settings.json"):
        path.write_bytes(original.encode())
    inst.run("mcp", "gemini")
    inst.run("hooks", "claude")
    gem = (agent_home / ".gemini" / "settings.json").read_bytes()
    assert json.loads(gem)["mcpServers"]["backscroll"]["args"] == ["mcp"]
    if "1E3" in original:
        assert b"1E3" in gem and b"1.10" in gem and gem.count(b"\n") == gem.count(b"\r\n"), "CRLF throughout"
    inst.run("mcp", "gemini", uninstall=True)
    inst.run("hooks", "claude", uninstall=True)
    for path in (agent_home / ".gemini" / "settings.json", agent_home / ".claude" / "settings.json"):
        assert path.read_bytes() == original.encode(), path


def test_uninstall_keeps_what_the_agent_changed_meanwhile(agent_home):
    path = agent_home / ".claude.json"
    inst.run("mcp", "claude")
    data = path.read_text()
    path.write_text(data.replace('"numStartups": 3', '"numStartups": 4'))  # Claude Code writes it all the time
    inst.run("mcp", "claude", uninstall=True)
    assert path.read_text() == json.dumps({"numStartups": 4, "projects": {"/p": {"x": 1}}}, indent=2)


def test_secrets_files_keep_their_mode_and_no_copy_is_left_readable(agent_home):
    path = agent_home / ".claude.json"
    path.chmod(0o600)
    old_backup = path.with_name(".claude.json.backscroll-backup")
    old_backup.write_text(path.read_text())  # what an older release left behind, readable by all
    old_backup.chmod(0o644)
    inst.run("mcp", "claude")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not old_backup.exists()
    assert not [p for p in path.parent.iterdir() if "backscroll" in p.name and p.name.startswith(".claude.json")]
    new = agent_home / ".gemini" / "settings.json"
    new.unlink()
    inst.run("mcp", "gemini")
    assert stat.S_IMODE(new.stat().st_mode) == 0o600, "a config file install creates is private"


@pytest.mark.parametrize("kind,text,what", [
    ("hooks", '{"hooks": []}', '"hooks" is a JSON array'),
    ("hooks", '{"hooks": {"SessionStart": {"matcher": "x"}}}',
     '"hooks.SessionStart" is a JSON object, where an array was'),
    ("mcp", '{"mcpServers": {"backscroll": "mine"}}', '"mcpServers.backscroll" is a JSON string'),
    ("mcp", '{"mcpServers": []}', '"mcpServers" is a JSON array'),
])
def test_unexpected_but_valid_shapes_are_refused_with_the_file_named(agent_home, kind, text, what):
    path = agent_home / ".claude" / "settings.json" if kind == "hooks" else agent_home / ".claude.json"
    path.write_text(text)
    res = runner.invoke(app, ["install", kind, "--agent", "claude"])
    assert res.exit_code == 2, res.output
    assert str(path) in res.output and what in res.output and "internal" not in res.output
    assert path.read_text() == text


def test_agents_get_the_absolute_path_of_this_backscroll(agent_home):
    inst.run("mcp", "gemini")
    inst.run("hooks", "codex")
    entry = json.loads((agent_home / ".gemini" / "settings.json").read_text())["mcpServers"]["backscroll"]
    assert os.path.isabs(entry["command"]) and os.access(entry["command"], os.X_OK)
    command = json.loads((agent_home / ".codex" / "hooks.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]
    assert command["command"].split()[0] == entry["command"]


def test_opencode_is_found_by_its_data_folder_too(backscroll_home):
    (backscroll_home.home / ".local" / "share" / "opencode").mkdir(parents=True)
    assert [a for a, _p in inst.skill_targets("all")] == ["opencode"]


@pytest.mark.parametrize("config,warns_flag", [("", False), ("[features]\nhooks = true\n", False),
                                               ("[features]\ncodex_hooks = true\n", False),
                                               ("[features]\nhooks = false\n", True)])
def test_codex_hooks_note_names_the_flag_only_when_it_is_off(agent_home, config, warns_flag):
    (agent_home / ".codex" / "config.toml").write_text(config)
    res = runner.invoke(app, ["install", "hooks", "--agent", "codex"])
    assert res.exit_code == 0
    assert "/hooks" in res.stderr and ("[features] hooks = true" in res.stderr) == warns_flag


def test_an_agent_a_kind_cannot_be_installed_for_is_named_as_such(agent_home):
    from backscroll.errors import UsageError

    with pytest.raises(UsageError, match="hooks can be installed for claude and codex only"):
        inst.plan_hooks("gemini")
    with pytest.raises(UsageError, match="unknown agent 'gemni'"):
        inst.plan_hooks("gemni")
