"""The plugin bundles under integrations/ stay in step with what `backscroll install` writes."""

import json
from pathlib import Path

from backscroll.integrations import install as inst

ROOT = Path(__file__).resolve().parents[1] / "integrations"


def test_bundle_files_parse_and_match_the_installer():
    for p in ROOT.rglob("*.json"):
        json.loads(p.read_text())
    assert (ROOT / "backscroll" / "skills" / "backscroll" / "SKILL.md").read_text() == inst.skill_text()
    for agent, name in (("claude", "hooks.json"), ("codex", "codex-hooks.json")):
        bundled = json.loads((ROOT / "backscroll" / "hooks" / name).read_text())
        assert bundled["hooks"] == inst.add_hooks({}, agent)["hooks"]
        assert set(bundled) <= {"description", "hooks"}  # codex denies other top-level keys
    codex = json.loads((ROOT / "backscroll" / ".codex-plugin" / "plugin.json").read_text())
    assert (ROOT / "backscroll" / codex["hooks"]).is_file() and (ROOT / "backscroll" / codex["skills"]).is_dir()
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert (ROOT / market["plugins"][0]["source"] / ".claude-plugin" / "plugin.json").is_file()


def test_skill_front_matter():
    text = inst.skill_text()
    head = text.split("---")[1]
    assert "name: backscroll" in head and "description:" in head
    assert "backscroll search" in text and "--json --limit 5" in text and "backscroll show" in text
    assert "loop" in text and "repeated" in text and "also_matching" in text
