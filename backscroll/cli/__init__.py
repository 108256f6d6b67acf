"""The ``backscroll`` command line: a thin Typer layer over the library API.

One module per command. Commands parse options, call ``backscroll.api``, render, and map errors to
exit codes (``cli/common.py``). Heavy modules are imported inside the commands.
"""

from __future__ import annotations

import inspect
from typing import Annotated

import typer

from backscroll.cli import common

app = typer.Typer(
    name="backscroll",
    help=(
        "A permanent, searchable record of your coding agents' sessions "
        "(Claude Code, Codex CLI, Gemini CLI, Cursor, Copilot and 15 more).\n\n"
        "Start with [bold]backscroll index[/bold], then [bold]backscroll search \"what did we decide about X\"[/bold]. "
        "Earlier [italic]backscroll search[/italic] calls and their output (query echoes) are kept out of results."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        from backscroll.indexes.embed import model_id
        from backscroll.store.schema import schema_version

        typer.echo(f"backscroll {version('backscroll')} (model {model_id()}, store schema {schema_version()})")
        raise typer.Exit()


@app.callback()
def main_callback(
    home: Annotated[str | None, typer.Option(
        "--home", metavar="DIR",
        help="Data directory (store, indexes). Default: $BACKSCROLL_HOME, else the platform's user data dir.")] = None,
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True,
                                          help="Print the version, the embedding model and the store schema.")] = False,
    color: Annotated[str, typer.Option("--color", metavar="auto|always|never",
                                       help="Colour: auto (on a terminal, unless NO_COLOR), always, never.")] = "auto",
    pretty: Annotated[bool, typer.Option("--pretty",
                                         help="Indented JSON even when piped (compact otherwise).")] = False,
    no_pager: Annotated[bool, typer.Option("--no-pager", help="Never page long output on a terminal.")] = False,
) -> None:
    """Global options may also come after the command (`backscroll search x --home DIR`)."""
    if color not in ("auto", "always", "never"):
        raise typer.BadParameter("use auto, always or never", param_hint="--color")
    common.STATE.home = home
    common.STATE.color = color
    common.STATE.pretty = pretty
    common.STATE.pager = not no_pager


def reflow(doc: str | None) -> str | None:
    """A command's docstring with each prose paragraph on one line, so that help wraps at any width.

    Paragraphs whose later lines are indented (a file format, an example block) keep their lines. Pure."""
    if not doc:
        return doc
    out = []
    for para in inspect.cleandoc(doc).split("\n\n"):
        lines = para.split("\n")
        preformatted = para.startswith("\b") or any(line[:1].isspace() for line in lines[1:])
        out.append(para if preformatted else " ".join(line.strip() for line in lines))
    return "\n\n".join(out)


def _register() -> None:
    from backscroll.cli import completion, embed, eval, hook, index, install, list, mcp, rebuild, search, show, status

    for module in (index, search, show, list, status, embed, rebuild, eval, install, hook, mcp, completion):
        module.register(app)
    for info in app.registered_commands:  # Typer keeps a docstring's single line breaks: reflow its paragraphs
        if info.help is None and info.callback is not None:
            info.callback.__doc__ = reflow(info.callback.__doc__)


_register()


GLOBAL_VALUE_OPTIONS = ("--home", "--color")
GLOBAL_FLAGS = ("--no-pager", "--pretty")
OWN_FLAGS = {"search": GLOBAL_FLAGS}  # commands that declare these flags themselves


def hoist_globals(argv: list[str]) -> list[str]:
    """Move global options written after the command (``search x --home DIR``) in front of it. Pure.

    Words after ``--`` stay where they are; ``--pretty`` and ``--no-pager`` that a command declares
    itself are left to it."""
    front, rest, i, command = [], [], 0, None
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        name = arg.split("=", 1)[0]
        if name in GLOBAL_VALUE_OPTIONS:
            if "=" in arg:
                front.append(arg)
            else:
                front.extend(argv[i:i + 2])
                i += 1
        elif name in GLOBAL_FLAGS and name not in OWN_FLAGS.get(command or "", ()):
            front.append(arg)
        else:
            if command is None and not arg.startswith("-"):
                command = arg
            rest.append(arg)
        i += 1
    return front + rest


def dash_hint(argv: list[str], exc) -> str | None:
    """For ``search --skip-checks words``: the words that start with ``-`` were read as an option; ``--``
    before them makes them words. Pure."""
    if "No such option" not in str(getattr(exc, "message", exc)) or "search" not in argv or "--" in argv:
        return None
    at = argv.index("search")
    return ("to search for words that start with '-', put -- before them: backscroll search [OPTIONS] -- "
            + " ".join(a for a in argv[at + 1:]))


def posix_ok() -> bool:
    """Whether this platform has what the store and the writer lock need (``fcntl.flock``)."""
    try:
        import fcntl
    except ImportError:
        return False
    return hasattr(fcntl, "flock")


def main() -> None:
    """Run the CLI. Option errors (an unknown flag, --limit 0) follow the JSON error contract when
    ``--json`` was given, and are Typer's usual usage message otherwise."""
    import sys

    if not posix_ok():
        message = ("backscroll runs on POSIX systems only (Linux, macOS): this Python has no fcntl.flock, "
                   "which its locks need")
        hint = "on Windows, run backscroll inside WSL"
        if "--json" in sys.argv[1:]:
            import orjson

            sys.stderr.write(orjson.dumps({"error": {"kind": "unsupported-platform", "message": message,
                                                     "hint": hint}}).decode() + "\n")
        else:
            sys.stderr.write(f"error: {message}\nhint: {hint}\n")
        sys.exit(1)
    from typing import Any, cast

    # click's ClickException, whichever click Typer ships (0.28 vendors its own copy): typed as Any
    click_error = cast(Any, typer.BadParameter.__mro__[2])
    import os

    if os.environ.get("_BACKSCROLL_COMPLETE"):  # the shell asks for completions (`backscroll completion`)
        from typer.completion import completion_init

        completion_init()
        app(prog_name="backscroll", complete_var="_BACKSCROLL_COMPLETE")
        return
    try:
        code = app(args=hoist_globals(sys.argv[1:]), standalone_mode=False)
    except click_error as exc:
        dash = dash_hint(sys.argv[1:], exc)
        if "--json" in sys.argv[1:]:
            import orjson

            kind = "usage" if exc.exit_code == 2 else "internal"
            sys.stderr.write(orjson.dumps({"error": {"kind": kind, "message": exc.format_message(),
                                                     "hint": dash or "see `backscroll --help`"}}).decode() + "\n")
        else:
            exc.show()
            if dash:
                sys.stderr.write(f"hint: {dash}\n")
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        sys.exit(130)
    sys.exit(code or 0)
