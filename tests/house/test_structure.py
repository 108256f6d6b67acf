"""The house rules a maintainer relies on (issue #37), checked on every ``make check``: no import circle between
modules, no module over 300 lines, and SQL only in ``store/`` (readers of agents' own databases aside)."""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import TESTS

PACKAGE = TESTS.parent / "backscroll"
MAX_LINES = 300
# Readers of other programs' SQLite databases (an agent's store, a fake one in tests) speak SQL to those.
AGENT_DATABASES = ("ingest/sources/", "testing/")
# Known debt, to be paid down: this list may only shrink.
LONG_MODULES: set[str] = set()
SQL_OUTSIDE_STORE: set[str] = set()


def modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The backscroll modules ``name`` imports anywhere (inside functions too: a deferred import is still an
    arrow), except for typing."""
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and \
                node.module.startswith("backscroll"):
            base = node.module
            found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names)
    # a package imported on the way to its own submodule is not an arrow back
    return {m for m in found if m in known and m != name and not name.startswith(m + ".")}


def test_no_import_circle():
    mods = modules()
    graph = {name: imports(name, path, set(mods)) for name, path in mods.items()}
    cycles, state = [], dict.fromkeys(graph, 0)

    def walk(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state[nxt] == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif state[nxt] == 0:
                walk(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state[node] == 0:
            walk(node, [])
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_module_over_300_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert set(long) <= LONG_MODULES, f"over {MAX_LINES} lines: {dict(sorted(long.items()))}"
    assert not LONG_MODULES - set(long), f"paid, take them off LONG_MODULES: {LONG_MODULES - set(long)}"


def test_sql_only_in_the_store():
    sites = {}
    for path in PACKAGE.rglob("*.py"):
        rel = str(path.relative_to(PACKAGE))
        if rel.startswith(("store/", *AGENT_DATABASES)):
            continue
        n = sum(path.read_text().count(call) for call in ("execute(", "executemany(", "executescript("))
        if n:
            sites[rel] = n
    assert set(sites) <= SQL_OUTSIDE_STORE, f"SQL outside store/: {dict(sorted(sites.items()))}"
    assert not SQL_OUTSIDE_STORE - set(sites), f"paid, take them off the list: {SQL_OUTSIDE_STORE - set(sites)}"


def test_the_command_line_reference_says_what_the_commands_say():
    """docs/cli.md is written from the commands (``scripts/cli_reference.py``): every command and option is in it,
    with its help, and it is never out of step with them."""
    import typer

    from backscroll.cli.app import build
    from backscroll.cli.reference import reference

    written = (PACKAGE.parent / "docs" / "cli.md").read_text()
    assert written == reference(), "docs/cli.md is out of date: run scripts/cli_reference.py"
    root = typer.main.get_command(build())
    undocumented = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        subcommands = getattr(command, "commands", {}).items()
        for cmd_name, cmd in [(name, command), *((f"{name} {n}", c) for n, c in subcommands)]:
            if not (cmd.help or "").strip():
                undocumented.append(cmd_name)
            for p in cmd.params:
                if p.param_type_name == "option" and not p.hidden and not (p.help or "").strip():
                    undocumented.append(f"{cmd_name} {p.opts[0]}")
            assert f"`backscroll {cmd_name}`" in written
    assert not undocumented, undocumented


def test_tests_mirror_the_packages():
    """A module's tests are found where the module is: ``tests/<package>/`` (``tests/house/`` for what holds across
    the whole house); the shared helpers sit at ``tests/``'s root."""
    tests = PACKAGE.parent / "tests"
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    for path in tests.rglob("test_*.py"):
        part = path.relative_to(tests).parts
        if part[0] == "data":
            continue
        assert len(part) > 1 and (part[0] in packages or part[0] == "house"), f"{path}: not under a package's folder"
        if len(part) > 2:
            assert (PACKAGE / part[0] / part[1]).is_dir(), f"{path}: {part[1]} is no package of backscroll/{part[0]}"
