"""Amp, Goose, Factory Droid, Crush, Zed and OpenHands through the CLI: a home holding every fixture.

``status`` counts sessions for each agent, ``list --agent`` and ``search --agent`` answer for each,
and ``[roots]`` in the config file may name several directories for one agent.
"""

import json

import pytest
from agent_homes import install_all, install_crush
from typer.testing import CliRunner

from backscroll.cli.app import app

NEW_AGENTS = ("amp", "goose", "droid", "crush", "zed", "openhands")
# A phrase each agent's fixture holds in an assistant answer.
ANSWERS = {
    "amp": ("seeded random", "Inject a seeded random.Random"),
    "goose": ("token bucket", "token bucket of 2 requests"),
    "droid": ("round once", "round once, like the API"),
    "crush": ("three-way merge", "merge per field (three-way merge)"),
    "zed": ("CachedSession expire_after", "CachedSession with expire_after=600"),
    "openhands": ("csv.reader quoted memos", "parses rows with csv.reader"),
}


@pytest.fixture
def cli(backscroll_home):
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(app, list(args), catch_exceptions=False)

    return invoke


def test_status_lists_every_new_agent_with_sessions(cli, backscroll_home):
    install_all(backscroll_home.home)
    r = cli("index", "--json", "--no-embed")
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["unreadable"] == [] and report["lines_skipped"] == 0
    r = cli("status", "--json")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    for name in NEW_AGENTS:
        assert info["agents"][name]["sessions"] > 0 and info["agents"][name]["records"] > 0, name
    found = {r["agent"] for r in info["roots"] if r["exists"]}  # an agent may read several places (OpenHands)
    assert set(NEW_AGENTS) <= found


@pytest.mark.parametrize("agent", NEW_AGENTS)
def test_list_and_search_by_agent(cli, backscroll_home, agent):
    install_all(backscroll_home.home)
    r = cli("list", "--agent", agent, "--json", "--all")
    assert r.exit_code == 0, r.output
    sessions = json.loads(r.stdout)["sessions"]
    assert sessions and {s["agent"] for s in sessions} == {agent}

    query, marker = ANSWERS[agent]
    r = cli("search", *query.split(), "--agent", agent, "--json", "--mode", "lexical")
    assert r.exit_code == 0, r.output
    hits = json.loads(r.stdout)["results"]
    assert hits and all(h["agent"] == agent for h in hits)
    assert any(marker in h["text"] for h in hits[:3]), [h["text"][:80] for h in hits]


def test_config_roots_may_list_several_directories_for_one_agent(cli, backscroll_home):
    # Crush keeps a database in each project; the global projects.json is left out here on purpose.
    install_crush(backscroll_home.home, register=False)
    other = backscroll_home.root / "elsewhere"
    other.mkdir()
    backscroll_home.data.mkdir(parents=True, exist_ok=True)
    (backscroll_home.data / "config.toml").write_text(
        f'[roots]\ncrush = ["{other}", "{backscroll_home.home / "dev"}"]\n')
    roots = [(r.path, r.origin) for r in backscroll_home.config().roots if r.agent == "crush"]
    assert roots == [(other, "config"), (backscroll_home.home / "dev", "config")]
    r = cli("list", "--agent", "crush", "--json", "--all")
    sessions = json.loads(r.stdout)["sessions"]
    assert {s["title"] for s in sessions} == {"Sync conflicts on save", "Find where notes are merged"}


def test_every_new_shell_tool_is_known_to_the_echo_rules(backscroll_home, backscroll_index):
    """Reclassification (after an echo-rule change) and the ``$`` prefix in views read this list."""
    from backscroll.ingest import echo as classify
    from backscroll.ingest import sync as ingest
    from backscroll.ingest.sources import amp, crush, droid, goose, openhands, zed
    from backscroll.store.db import Store

    for module in (amp, crush, droid, goose, openhands, zed):
        assert module.SHELL_TOOLS <= classify.SHELL_TOOLS, module.__name__
    install_all(backscroll_home.home)
    backscroll_index(embed=False)
    store = Store.open(backscroll_home.config().db_path)
    try:
        store.set_meta("classifier_version", "0")
        store.conn.execute("UPDATE records SET is_echo = 0")
        assert ingest.reclassify(store) == 6, "each agent's one echo call is found again"
    finally:
        store.close()
