"""Long output through the user's pager (``$PAGER``, default ``less -R``) when it is longer than the screen."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from backscroll.cli import common


def paged(render: Callable[[], None]) -> None:
    """Run ``render`` (which prints to stdout); on a terminal, output longer than the screen goes
    through ``$PAGER`` (default ``less -R``), unless --no-pager, ``PAGER`` is empty or an agent's shell runs it."""
    import io
    import shlex
    import shutil
    import subprocess

    pager = os.environ.get("PAGER", "less -R")
    # (an agent's shell that gives commands a pseudo-terminal, Codex's, has nobody to press q: a pager would wait)
    if not (common.STATE.pager and pager.strip() and common.is_terminal(sys.stdout)
            and not common.run_by_agent(os.environ)):
        render()
        return
    size = shutil.get_terminal_size()
    real = sys.stdout
    class _TerminalBuffer(io.StringIO):
        def isatty(self) -> bool:  # the renderer keeps its terminal choices (width, colour)
            return True

    buf = _TerminalBuffer()
    sys.stdout = buf
    try:
        render()
    finally:
        sys.stdout = real
    text = buf.getvalue()
    if text.count("\n") < size.lines - 1:
        real.write(text)
        real.flush()
        return
    env = {**os.environ, "LESS": os.environ.get("LESS", "FRX")}
    try:
        proc = subprocess.Popen(shlex.split(pager), stdin=subprocess.PIPE, env=env)
    except (OSError, ValueError):  # (no such program, or a $PAGER shlex cannot read: printed as it is)
        real.write(text)
        return
    import signal

    # Ctrl-C belongs to the pager (less's prompt, its search) while it runs: returning early would leave it
    # fighting the shell for the terminal. It ends when the pager does, as git's does.
    was = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc.communicate(text.encode(getattr(real, "encoding", None) or "utf-8", "replace"))  # (the terminal's)
    except BrokenPipeError:
        proc.wait()
    finally:
        signal.signal(signal.SIGINT, was)
