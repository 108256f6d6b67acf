"""The README's "Python API" example runs: its first ```python block, against a temporary home
holding the bundled Claude Code and Codex fixture sessions (``fixtures/``)."""

from __future__ import annotations

import re
import shutil

from helpers import TESTS

ROOT = TESTS.parent


def _section(text: str) -> str | None:
    """The ``## Python API`` section of a Markdown text (up to the next ``## `` heading), or None."""
    match = re.search(r"^## Python API[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else None


def _example() -> tuple[str, str]:
    section = _section((ROOT / "README.md").read_text())
    assert section is not None, "README.md has no '## Python API' section"
    block = re.search(r"^```python\n(.*?)^```", section, re.M | re.S)
    assert block, "the Python API section of README.md has no ```python block"
    return "README.md", block.group(1)


def test_the_python_api_example_runs(backscroll_home, monkeypatch, capsys):
    source, code = _example()
    shutil.copytree(ROOT / "fixtures" / "claude" / "projects", backscroll_home.claude_projects, dirs_exist_ok=True)
    shutil.copytree(ROOT / "fixtures" / "codex" / "sessions", backscroll_home.codex_sessions, dirs_exist_ok=True)
    monkeypatch.setenv("BACKSCROLL_HOME", str(backscroll_home.data))
    monkeypatch.setenv("BACKSCROLL_EMBEDDER", "fake")  # the example embeds; the real model is tested elsewhere
    exec(compile(code, f"<{source}: Python API example>", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert re.search(r"^[1-9]\d* new records$", out, re.M), out
    assert re.search(r"^\d+ sessions, \d+ records$", out, re.M), out
    assert "not-found - " in out, out
    assert (backscroll_home.data / "backscroll.db").exists()


def test_the_readme_error_table_says_what_cli_and_mcp_answer_for_an_unknown_project(session_builder,
                                                                                     backscroll_index,
                                                                                     backscroll_home):
    """`--project nosuch` was `not-found` in the CLI while the README's table said `usage`."""
    import json
    import subprocess
    import sys

    from backscroll.integrations.mcp_tools import Tools

    readme = (TESTS.parent / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `not-found` |"))
    assert "--project nosuch" in row
    assert "project" not in next(line for line in readme.splitlines() if line.startswith("| `usage` |"))
    session_builder.claude(project="shop").user("the retry budget")
    backscroll_index(embed=False)
    env = {"HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data), "PATH": ""}
    r = subprocess.run([sys.executable, "-m", "backscroll", "search", "retry", "--project", "nosuch", "--json",
                        "--no-sync"], capture_output=True, text=True, env=env, timeout=60)
    assert json.loads(r.stderr.strip().splitlines()[-1])["error"]["kind"] == "not-found"
    answer = Tools(str(backscroll_home.data)).call("search", {"query": "retry", "project": "nosuch"})
    assert answer.is_error and answer.document["error"]["kind"] == "not-found"

