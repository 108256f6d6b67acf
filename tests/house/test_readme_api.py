"""The README's "Python API" example runs: its first ```python block, against a temporary home
holding the bundled Claude Code and Codex fixture sessions (``fixtures/``).

Until the section is in README.md, the same section is read from tests/data/python-api-section.md.
"""

from __future__ import annotations

import re
import shutil

import pytest
from helpers import TESTS

ROOT = TESTS.parent
FALLBACK = TESTS / "data" / "python-api-section.md"


def _section(text: str) -> str | None:
    """The ``## Python API`` section of a Markdown text (up to the next ``## `` heading), or None."""
    match = re.search(r"^## Python API[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1) if match else None


def _example() -> tuple[str, str]:
    readme = ROOT / "README.md"
    for path in (readme, FALLBACK):
        section = _section(path.read_text()) if path.exists() else None
        if section is not None:
            block = re.search(r"^```python\n(.*?)^```", section, re.M | re.S)
            assert block, f"the Python API section of {path.name} has no ```python block"
            return path.name, block.group(1)
    pytest.skip("neither README.md nor tests/data/python-api-section.md has a '## Python API' section")


def test_the_fallback_copy_matches_the_readme_once_it_is_pasted():
    readme = _section((ROOT / "README.md").read_text())
    if readme is None:
        pytest.skip("README.md has no '## Python API' section yet: the example is run from tests/data")
    assert readme.strip() == (_section(FALLBACK.read_text()) or "").strip(), \
        "README.md's Python API section and tests/data/python-api-section.md differ: update the copy"


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

