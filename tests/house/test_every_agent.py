"""A home holding every agent's fixture: ``status`` lists each agent with sessions, and
``list --agent`` and ``search --agent`` answer for each (issue 20's acceptance check)."""


import json
import re
import shutil

from agent_homes import install_all as install_db_agents
from editor_homes import install_all as install_editor_agents
from helpers import TESTS, rows
from typer.testing import CliRunner

from backscroll.cli.app import app
from backscroll.ingest.sources import AGENTS

DATA = TESTS / "data"


def install_everything(bh, session_builder) -> None:
    install_editor_agents(bh)
    install_db_agents(bh.home)
    shutil.copytree(DATA / "gemini" / "tmp", bh.home / ".gemini" / "tmp")
    shutil.copytree(DATA / "opencode" / "storage", bh.home / ".local" / "share" / "opencode" / "storage")
    pi = bh.home / ".pi" / "agent" / "sessions" / "--home-dev-shop--"
    pi.mkdir(parents=True)
    for f in (DATA / "pi").glob("*.jsonl"):
        shutil.copyfile(f, pi / f.name)
    s = session_builder.claude(project="shop")
    s.user("which queue for the background jobs?").assistant("Postgres with SKIP LOCKED.")
    c = session_builder.codex(project="shop")
    c.user("how do we sign webhooks?").assistant("HMAC-SHA256 over the raw body.")


def test_every_registered_agent_has_sessions_and_answers_by_name(backscroll_home, session_builder):
    install_everything(backscroll_home, session_builder)
    runner = CliRunner()
    r = runner.invoke(app, ["index", "--json", "--no-embed"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    status = json.loads(runner.invoke(app, ["status", "--json"], catch_exceptions=False).stdout)
    empty = [name for name in AGENTS if not status["agents"].get(name, {}).get("sessions")]
    assert empty == [], f"agents without sessions: {empty}"
    assert len(AGENTS) >= 17
    for name in AGENTS:
        listed = json.loads(runner.invoke(app, ["list", "--agent", name, "--json", "--no-sync"],
                                          catch_exceptions=False).stdout)
        sessions = listed["sessions"]
        assert sessions and {s["agent"] for s in sessions} == {name}, name
        # the longest word of one of the agent's own answers finds that agent's records under --agent
        (text,) = rows(backscroll_home, "SELECT text FROM records WHERE agent = ? AND role = 'assistant' "
                                        "AND content_type = 'text' ORDER BY id LIMIT 1", (name,))[0].values()
        word = max(re.findall(r"[A-Za-z]{4,}", text), key=len)
        found = runner.invoke(app, ["search", word, "--agent", name, "--strict", "--mode", "lexical", "--json",
                                    "--no-sync"], catch_exceptions=False)
        assert found.exit_code == 0, (name, word, found.output)
        hits = json.loads(found.stdout)["results"]
        assert hits and all(h["agent"] == name for h in hits), (name, word)


def test_reading_every_agent_leaves_no_file_beside_their_databases(backscroll_home, session_builder):
    """The agents' own SQLite databases (OpenCode, Crush, Goose, Zed, Cursor, …) are read without SQLite
    creating ``-wal``/``-shm`` files beside them: nothing is written outside the data dir."""
    install_everything(backscroll_home, session_builder)
    home = backscroll_home.home

    def files() -> set[str]:
        return {str(p.relative_to(home)) for p in home.rglob("*") if p.is_file()}

    before = files()
    databases = [p for p in before if p.endswith((".db", ".vscdb"))]
    assert len(databases) >= 4, databases
    r = CliRunner().invoke(app, ["index", "--no-embed"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert files() - before == set(), "files created beside the agents' databases"
