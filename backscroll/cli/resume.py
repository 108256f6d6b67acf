"""``backscroll resume``: go back into the session of a hit, in its own agent and its working directory."""

from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from backscroll.cli import common
from backscroll.cli.terminal import clean, clean_line

if TYPE_CHECKING:
    from backscroll.integrations.resume import Resumption


def resume(
    ident: Annotated[str, typer.Argument(metavar="ID", help="A hit's record id, or a session id (or 6+ characters "
                                                             "of it).")],
    print_only: Annotated[bool, typer.Option("--print", help="Print the command instead of running it.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the command as JSON (argv, cwd) on stdout.")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
) -> None:
    """Re-open a session in its own agent, in its working directory (claude --resume, codex resume, ...).

    A hit's id resumes its session; a subagent's resumes its parent. Without --print the agent
    replaces backscroll in this terminal. An agent with no resume command, or not installed here,
    gets a message, and the command is printed all the same.

    Examples: backscroll resume 84ba7daa-…#0   ·   backscroll resume 5b0e7a52 --print
    """

    def body() -> int:
        with common.archive() as bs:
            how = bs.resume(ident, sync=not no_sync, notify=common.err)
        return go(how, print_only=print_only, as_json=as_json)

    common.run(body, as_json=as_json)


def go(how: Resumption, *, print_only: bool = False, as_json: bool = False) -> int:
    """Print, or run in place of this process, the command ``how`` says (``resume`` and the picker)."""
    from backscroll.errors import CannotResumeError

    for note in how.notes if how.argv else how.notes[:-1]:  # (the last, without a command, is the hint)
        common.err(clean_line(note))
    if as_json:
        common.emit_json({"schema_version": 1, **how.to_dict()})
    elif print_only and how.command:
        sys.stdout.write(clean(how.command) + "\n")
    if how.argv is None or how.command is None:
        raise CannotResumeError(f"{how.agent} has no command to resume this session", hint=how.notes[-1])
    if print_only or as_json:
        return 0
    if how.blocked:  # (run here, the agent would find nothing, or its tools would act on another checkout)
        sys.stdout.write(clean(how.command) + "\n")
        raise CannotResumeError(f"not resumed: {how.blocked}",
                                hint="run the command above where the session's directory is (or make it first)")
    exe = shutil.which(how.argv[0])  # (found before the chdir: never a program of the session's directory)
    if exe is not None:
        exe = os.path.abspath(exe)  # (a relative PATH entry, ".", "node_modules/.bin", names one of the cwd here)
    if exe is None:
        sys.stdout.write(clean(how.command) + "\n")
        raise CannotResumeError(f"{how.argv[0]} is not installed here (not on PATH)",
                                hint="run the command above where it is")
    common.err(clean_line(f"resuming {how.agent} session {how.session_id}" + (f" in {how.cwd}" if how.cwd else "")))
    if how.cwd:
        os.chdir(how.cwd)
    sys.stdout.flush()
    sys.stderr.flush()
    import signal

    for name in ("SIGPIPE", "SIGXFSZ"):  # (Python ignores them; an exec'd agent would inherit that)
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execv(exe, list(how.argv))
    except OSError as exc:
        sys.stdout.write(clean(how.command) + "\n")
        raise CannotResumeError(f"{exe} could not be run: {exc.strerror or exc}",
                                hint="run the command above where it is") from None
    return 0  # pragma: no cover (exec does not return)


def register(app: typer.Typer) -> None:
    app.command("resume")(resume)
