"""The plugin bundles under integrations/ stay in step with what `backscroll install` writes."""


import json

from helpers import TESTS

from backscroll.integrations import install as inst
from backscroll.integrations.install_entries import hook_groups

ROOT = TESTS.parent / "integrations"


def test_bundle_files_parse_and_match_the_installer():
    for p in ROOT.rglob("*.json"):
        json.loads(p.read_text())
    assert (ROOT / "backscroll" / "skills" / "backscroll" / "SKILL.md").read_text() == inst.skill_text()
    for agent, name in (("claude", "hooks.json"), ("codex", "codex-hooks.json")):
        bundled = json.loads((ROOT / "backscroll-recall" / "hooks" / name).read_text())
        assert bundled["hooks"] == {e: [g] for e, g in hook_groups(agent, "backscroll").items()}
        assert set(bundled) <= {"description", "hooks"}  # codex denies other top-level keys
    codex = json.loads((ROOT / "backscroll" / ".codex-plugin" / "plugin.json").read_text())
    assert (ROOT / "backscroll" / codex["skills"]).is_dir() and (ROOT / "backscroll" / codex["mcpServers"]).is_file()
    recall = json.loads((ROOT / "backscroll-recall" / ".codex-plugin" / "plugin.json").read_text())
    assert (ROOT / "backscroll-recall" / recall["hooks"]).is_file()
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    for plugin in market["plugins"]:
        assert (ROOT / plugin["source"] / ".claude-plugin" / "plugin.json").is_file()


def test_the_main_plugin_turns_no_hook_on_and_declares_its_mcp_server_once():
    """A Claude plugin's hooks/hooks.json is enabled on install: the opt-in hooks are a plugin of their own."""
    main = ROOT / "backscroll"
    assert not (main / "hooks").exists()
    manifest = json.loads((main / ".claude-plugin" / "plugin.json").read_text())
    assert "hooks" not in manifest and "mcpServers" not in manifest, "the MCP server is declared in .mcp.json only"
    assert json.loads((main / ".mcp.json").read_text())["mcpServers"]["backscroll"]["args"] == ["mcp"]
    assert "hooks" not in json.loads((main / ".codex-plugin" / "plugin.json").read_text())


def test_codex_marketplace_has_what_codex_asks_for():
    market = json.loads((ROOT / ".agents" / "plugins" / "marketplace.json").read_text())
    assert market["interface"]["displayName"]
    for entry in market["plugins"]:
        assert entry["policy"]["installation"] in ("AVAILABLE", "INSTALLED_BY_DEFAULT", "NOT_AVAILABLE")
        assert entry["policy"]["authentication"] in ("ON_INSTALL", "ON_USE")
        assert entry["category"]
        assert (ROOT / entry["source"]["path"] / ".codex-plugin" / "plugin.json").is_file()


def test_skill_front_matter():
    text = inst.skill_text()
    head = text.split("---")[1]
    assert "name: backscroll" in head and "description:" in head
    assert "backscroll search" in text and "--json --limit 5" in text and "backscroll show" in text
    assert "loop" in text and "repeated" in text and "also_matching" in text
