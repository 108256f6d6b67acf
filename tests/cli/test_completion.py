"""``backscroll completion SHELL`` prints a script; the shell then asks backscroll for completions."""

import os
import subprocess
import sys

import pytest


def run(*args, **env):
    return subprocess.run([sys.executable, "-m", "backscroll", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=60)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_script_names_the_variable_backscroll_answers(shell):
    r = run("completion", shell)
    assert r.returncode == 0 and "_BACKSCROLL_COMPLETE" in r.stdout and r.stderr == ""


def test_the_shell_gets_commands_and_options():
    r = run(COMP_WORDS="backscroll sea", COMP_CWORD="1", _BACKSCROLL_COMPLETE="complete_bash")
    assert r.stdout.split() == ["search"]
    r = run(COMP_WORDS="backscroll search --by", COMP_CWORD="2", _BACKSCROLL_COMPLETE="complete_bash")
    assert r.stdout.split() == ["--by-session"]


def test_an_unknown_shell_is_a_usage_error():
    r = run("completion", "tcsh")
    assert r.returncode == 2 and "bash, zsh, fish" in r.stderr


def test_the_shell_gets_values_too(session_builder, backscroll_index, backscroll_home):
    session_builder.claude(project="payments").user("a").assistant("b")
    session_builder.claude(project="pagination-lab").user("c").assistant("d")
    # (bash puts a completion on the line unquoted, Typer's zsh script evaluates it: a folder's name ran as code)
    session_builder.claude(cwd="/home/dev/pay $(touch PWNED)").user("e").assistant("f")
    session_builder.claude(cwd="/home/dev/pad\u202eevil").user("g").assistant("h")
    backscroll_index(embed=False)
    home = {"HOME": str(backscroll_home.home), "BACKSCROLL_HOME": str(backscroll_home.data)}

    def values(line: str) -> list[str]:
        return run(COMP_WORDS=line, COMP_CWORD=str(len(line.split()) - 1), _BACKSCROLL_COMPLETE="complete_bash",
                   **home).stdout.split()

    assert values("backscroll search x --mode sem") == ["semantic"]
    assert values("backscroll search x -t too") == ["tool"]
    assert values("backscroll search x --format j") == ["json", "jsonl"]
    assert "codex" in values("backscroll list --agent c")
    assert values("backscroll search x --project pa") == ["pagination-lab", "payments"]
    assert values("backscroll list -p pa") == ["pagination-lab", "payments"]
    assert values("backscroll install h") == ["hooks"]
    assert values("backscroll show abc --format m") == ["markdown"]
    assert values("backscroll --color a") == ["auto", "always"]
    assert values("backscroll completion z") == ["zsh"]
