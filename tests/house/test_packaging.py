"""Packaging: what backscroll imports is what it declares; licence, typing marker, POSIX only."""


import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions

import pytest
from helpers import TESTS

ROOT = TESTS.parent
PACKAGE = ROOT / "backscroll"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# Imported only where they are optional: the pytest plugin runs under pytest; Zed's zstd readers
# fall back from one to the next (the ``zed`` extra names one); the MCP SDK only for ``backscroll mcp``
# (the ``mcp`` extra, which brings its own ``mcp_types`` and ``anyio``); psycopg only for the team archive
# (the ``team`` extra).
OPTIONAL = {"pytest", "zstandard", "pyzstd", "compression", "mcp", "mcp_types", "anyio", "psycopg"}


def _third_party_imports() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != "backscroll":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def _declared() -> set[str]:
    return {re.split(r"[\s<>=!~;\[]", req, maxsplit=1)[0].lower().replace("_", "-")
            for req in PYPROJECT["project"]["dependencies"]}


def test_every_third_party_import_is_a_declared_dependency():
    dists = packages_distributions()
    declared = _declared()
    missing = {}
    for module, where in _third_party_imports().items():
        if module in OPTIONAL:
            continue
        names = {d.lower().replace("_", "-") for d in dists.get(module, [module])}
        if not names & declared:
            missing[module] = sorted(where)
    assert missing == {}, f"imported but not declared in [project] dependencies: {missing}"


def test_optional_imports_are_guarded_or_in_an_extra():
    extras = {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]
              for reqs in PYPROJECT["project"]["optional-dependencies"].values() for r in reqs}
    assert {"pytest", "zstandard"} <= extras


def test_license_and_typing_marker_ship():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "the backscroll authors" in (ROOT / "LICENSE").read_text()
    assert (PACKAGE / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["backscroll"]
    assert "Operating System :: POSIX" in project["classifiers"]


def test_the_cli_refuses_a_platform_without_fcntl_clearly():
    code = ("import sys; sys.modules['fcntl'] = None; sys.argv = ['backscroll', *sys.argv[1:]]; "
            "from backscroll.cli import main; main()")
    for extra, want in (([], "error: backscroll runs on POSIX systems only"), (["--json"], '"unsupported-platform"')):
        r = subprocess.run([sys.executable, "-c", code, "status", *extra], capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and r.stdout == "", r
        assert want in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_the_light_list_of_agent_names_is_the_registry():
    from backscroll.ingest.agent_names import AGENT_NAMES
    from backscroll.ingest.sources import AGENTS

    assert AGENT_NAMES == tuple(AGENTS)


def test_a_search_that_does_not_sync_loads_no_reader(tmp_path):
    """Config resolution names the agents without importing their readers; the roots are found on use."""
    import subprocess
    import sys

    code = ("import sys; from backscroll.config import resolve; cfg = resolve(home=sys.argv[1]); "
            "assert 'backscroll.ingest.sources' not in sys.modules, 'readers loaded'; "
            "roots = cfg.roots; assert 'backscroll.ingest.sources' in sys.modules and roots")
    r = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_lexical_search_without_sync_loads_no_reader_nor_numpy(backscroll_home, session_builder, backscroll_index):
    import subprocess
    import sys

    from helpers import cli_env

    session_builder.claude().user("which queue for the jobs?").assistant("Postgres with SKIP LOCKED.")
    backscroll_index(embed=False)
    code = ("import sys; sys.argv = ['backscroll', 'search', '--no-sync', '--mode', 'lexical', 'queue', '--json']\n"
            "from backscroll.cli import main\ntry:\n    main()\nfinally:\n"
            "    print('LOADED' if 'backscroll.ingest.sources' in sys.modules else 'CLEAN', file=sys.stderr)\n"
            "    print('NUMPY' if 'numpy' in sys.modules else 'NO-NUMPY', file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], env=cli_env(backscroll_home), capture_output=True, text=True)
    assert '"results":[{' in r.stdout and r.stderr.strip().endswith("CLEAN\nNO-NUMPY"), r.stderr


@pytest.mark.parametrize("argv", [["--version"], ["status"], ["status", "--json"], ["list", "--no-sync"]])
def test_commands_that_embed_nothing_load_no_numpy(backscroll_home, session_builder, backscroll_index, argv):
    """Importing numpy costs a third of a second: ``--version`` and ``status`` only name the model."""
    import subprocess
    import sys

    from helpers import cli_env

    session_builder.claude().user("which queue for the jobs?").assistant("Postgres with SKIP LOCKED.")
    backscroll_index(embed=False)
    code = (f"import sys; sys.argv = ['backscroll', *{argv!r}]\n"
            "from backscroll.cli import main\ntry:\n    main()\nfinally:\n"
            "    print('NUMPY' if 'numpy' in sys.modules else 'NO-NUMPY', file=sys.stderr)")
    env = {**cli_env(backscroll_home), "BACKSCROLL_EMBEDDER": "minilm"}  # (the tests' fake is numpy's)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout and r.stderr.strip().endswith("NO-NUMPY"), r.stderr


def test_a_hook_call_is_answered_without_typer(backscroll_home, session_builder, backscroll_index):
    """Hooked agents run ``backscroll hook … prompt`` on every prompt: Typer and Click are not imported."""
    import subprocess
    import sys

    from helpers import cli_env

    session_builder.claude().user("which queue for the jobs?").assistant("Postgres with SKIP LOCKED for the jobs.")
    backscroll_index(embed=False)
    code = ("import sys; sys.argv = ['backscroll', 'hook', 'claude', 'prompt', '--home', sys.argv[1]]\n"
            "from backscroll.cli import main\ntry:\n    main()\nfinally:\n"
            "    print('TYPER' if 'typer' in sys.modules or 'click' in sys.modules else 'LIGHT', file=sys.stderr)")
    prompt = '{"prompt": "which queue did we pick for the jobs?", "session_id": "s1", "cwd": "/tmp"}'
    r = subprocess.run([sys.executable, "-c", code, str(backscroll_home)], env=cli_env(backscroll_home),
                       input=prompt, capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr.strip().endswith("LIGHT"), r.stderr


def test_hook_call_reads_only_a_plain_hook_invocation():
    from backscroll.cli import hoist_globals, hook_call

    assert hook_call(hoist_globals(["hook", "claude", "prompt", "--home", "/h"])) == ("claude", "prompt", "/h", [])
    argv = ["--home=/h", "--color", "never", "hook", "codex", "session-start"]
    assert hook_call(argv) == ("codex", "session-start", "/h", [])
    assert hook_call(["hook", "claude", "prompt"]) == ("claude", "prompt", None, [])
    assert hook_call(["hook", "claude", "prompt", "--budget", "3"]) == ("claude", "prompt", None, ["--budget", "3"])
    for argv in (["hook", "claude"], ["hook", "--help"], ["hook", "claude", "prompt", "--help"],
                 ["hook", "claude", "prompt", "--dry-run=why"], ["hook", "claude", "prompt", "--dry-run", "x"],
                 ["search", "claude", "prompt"], ["--verbose", "hook", "claude", "prompt"]):
        assert hook_call(argv) is None, argv


def test_a_call_builds_only_the_command_it_runs(backscroll_home):
    """Typer reads every registered command's signature at start-up: a call registers only its own."""
    import subprocess
    import sys

    from helpers import cli_env

    from backscroll.cli import command_of

    assert command_of(["--home", "/h", "--color", "never", "search", "x"]) == "search"
    assert command_of(["--help"]) is None and command_of([]) is None and command_of(["--home", "/h"]) is None
    code = ("import sys; sys.argv = ['backscroll', 'status', '--json']\n"
            "from backscroll.cli import main\ntry:\n    main()\nfinally:\n"
            "    others = [m for m in ('search', 'install', 'eval', 'mcp', 'completion')\n"
            "              if f'backscroll.cli.{m}' in sys.modules]\n"
            "    print('OTHERS', others, file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", code], env=cli_env(backscroll_home), capture_output=True, text=True)
    assert r.returncode == 0 and "OTHERS []" in r.stderr, r.stderr


def test_help_and_a_mistyped_command_still_know_every_command(backscroll_home):
    import subprocess
    import sys

    from helpers import cli_env

    from backscroll.cli.app import COMMANDS

    r = subprocess.run([sys.executable, "-m", "backscroll", "--help"], env=cli_env(backscroll_home),
                       capture_output=True, text=True)
    assert all(f" {name} " in r.stdout for name in COMMANDS), r.stdout
    r = subprocess.run([sys.executable, "-m", "backscroll", "serch", "x"], env=cli_env(backscroll_home),
                       capture_output=True, text=True)
    assert r.returncode == 2 and "Did you mean 'search'?" in r.stderr, r.stderr
