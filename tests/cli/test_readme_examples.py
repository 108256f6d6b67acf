"""The README's quick start, run as written against the bundled fixtures (only its placeholder ids replaced)."""

import json
import re
import shutil
from pathlib import Path

from helpers import TESTS, cli_env, run_cli

README = TESTS.parent / "README.md"
FIXTURES = TESTS.parent / "fixtures"


def quick_start() -> list[str]:
    text = README.read_text()
    block = text.split("## Quick start", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    return [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines() if line.startswith("backscroll ")]


def test_every_quick_start_command_runs_as_written(backscroll_home):
    home = backscroll_home.home
    shutil.copytree(FIXTURES / "claude" / "projects", home / ".claude" / "projects")
    shutil.copytree(FIXTURES / "codex" / "sessions", home / ".codex" / "sessions")
    env = cli_env(backscroll_home, PATH="/nonexistent")  # (no agent installed: resume says so)
    commands = quick_start()
    assert len(commands) >= 10 and commands[0] == "backscroll index"
    record = session = None
    for command in commands:
        argv = [a.strip('"') for a in re.findall(r'"[^"]*"|\S+', command)][1:]
        argv = [record if a == "84ba7daa-…#0" else session if a == "5b0e7a52" else a for a in argv]
        if ">" in argv:  # a redirect: to a file of the test's
            argv = argv[:argv.index(">")]
        r = run_cli(backscroll_home, *argv, env=env)
        if argv[0] == "pick":
            assert r.returncode == 2 and "needs a terminal" in r.stderr, command  # (the picker: test_pick.py)
        elif argv[0] == "resume":
            # (the fixtures' sessions ran in /home/dev/shop, which this machine lacks: the command is printed)
            assert r.returncode == 2 and "not resumed: its directory" in r.stderr and "--resume" in r.stdout, command
        else:
            assert r.returncode == 0, f"{command}: {r.stderr}"
        if argv[0] == "index":  # the ids the placeholders stand for: a hit's, and the start of its session's
            hit = json.loads(run_cli(backscroll_home, "search", "job", "queue", "--json", env=env).stdout)["results"][0]
            record, session = hit["record_id"], hit["session_id"][:8]
    assert Path(home).exists()
