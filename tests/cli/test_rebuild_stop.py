"""``rebuild`` stopped midway (Ctrl-C, a supervisor's SIGTERM): it says what is kept and exits 130, the index in use
is left as it was, and the next rebuild finishes."""

import json
import signal
import subprocess
import sys

import pytest
from helpers import cli_env, run_cli

_SLOW_REBUILD = r"""
import sys, time
from backscroll.indexes import lexical
build = lexical.LexicalIndex._sync
def slow(self, *args, **kwargs):
    print("building the new index", file=sys.stderr, flush=True)
    time.sleep(120)
    return build(self, *args, **kwargs)
lexical.LexicalIndex._sync = slow
from backscroll.cli import main
sys.argv = ["backscroll", "rebuild"]
main()
"""


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_a_rebuild_stopped_midway_says_so_and_leaves_the_index_in_use(session_builder, backscroll_home,
                                                                      backscroll_index, stop):
    """SIGTERM ended it silently (143), its new generation left for the next run to find."""
    s = session_builder.claude(project="shop")
    s.user("how do the webhook retries back off?").assistant("exponential backoff with full jitter")
    backscroll_index(embed=False)
    # (a background job's children ignore SIGINT: give it the default a terminal's process has)
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_REBUILD], env=cli_env(backscroll_home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stderr is not None
    seen = []
    while (line := proc.stderr.readline()) and "building the new index" not in line:
        seen.append(line)
    assert line, f"the rebuild ended before its index was built: {seen}"
    proc.send_signal(stop)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted: searches still use the index as it was; run `backscroll rebuild` again" in err, err
    assert run_cli(backscroll_home, "status", "--check").returncode == 0
    found = run_cli(backscroll_home, "search", "webhook retries", "--json", "--no-sync", "--mode", "lexical")
    assert json.loads(found.stdout)["results"], found.stderr
    assert run_cli(backscroll_home, "rebuild").returncode == 0
