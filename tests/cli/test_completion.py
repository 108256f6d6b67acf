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
