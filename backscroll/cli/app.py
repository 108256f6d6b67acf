"""The Typer application: the global options and every command, one module per command.

Commands parse options, call the library, render, and map errors to exit codes (``cli/common.py``).
Heavy modules are imported inside the commands. ``backscroll.cli.main`` imports this only when a call
needs it (a hook does not).
"""

from __future__ import annotations

import inspect
import sys
from typing import Annotated

import typer

from backscroll.cli import common

# each is ``backscroll.cli.<name>``, whose ``register`` adds it
COMMANDS = ("index", "search", "show", "list", "files", "resume", "pick", "status", "stats", "embed", "rebuild", "eval",
            "install", "hook", "mcp", "completion", "push", "archive")


def _typer() -> typer.Typer:
    return typer.Typer(
        name="backscroll",
        help=(
            "A permanent, searchable record of your coding agents' sessions "
            "(Claude Code, Codex CLI, Gemini CLI, Cursor, Copilot and 21 more).\n\n"
            "Start with [bold]backscroll index[/bold], then "
            "[bold]backscroll search \"what did we decide about X\"[/bold]. "
            "Earlier [italic]backscroll search[/italic] calls and their output (query echoes) are kept out of "
            "results."
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

        from backscroll.indexes.embedders import model_id
        from backscroll.store.schema import schema_version

        typer.echo(f"backscroll {version('backscroll')} (model {model_id()}, store schema {schema_version()})")
        raise typer.Exit()


def _colour(value: str) -> str:
    """``--color``, taken before ``--help`` (an eager option) so that help and usage errors follow it too."""
    if value not in ("auto", "always", "never"):
        raise typer.BadParameter("use auto, always or never", param_hint="--color")
    common.STATE.color = value
    if value == "never" or "typer.rich_utils" in sys.modules:  # (each run sets it: one process may run several)
        from typer import rich_utils

        rich_utils.COLOR_SYSTEM = None if value == "never" else "auto"  # (None: no style at all, bold included)
    return value


def main_callback(
    home: Annotated[str | None, typer.Option(
        "--home", metavar="DIR",
        help="Data directory (store, indexes). Default: $BACKSCROLL_HOME, else the platform's user data dir.")] = None,
    version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True,
                                          help="Print the version, the embedding model and the store schema.")] = False,
    color: Annotated[str, typer.Option("--color", metavar="auto|always|never", callback=_colour, is_eager=True,
                                       help="Colour: auto (on a terminal, unless NO_COLOR), always, never.",
                                       autocompletion=common.complete_from(("auto", "always", "never")))] = "auto",
    pretty: Annotated[bool, typer.Option("--pretty",
                                         help="Indented JSON even when piped (compact otherwise).")] = False,
    no_pager: Annotated[bool, typer.Option("--no-pager", help="Never page long output on a terminal.")] = False,
) -> None:
    """Global options may also come after the command (`backscroll search x --home DIR`)."""
    common.STATE.home = home
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


def build(only: str | None = None) -> typer.Typer:
    """The application with every command, or with just ``only`` when a call names one of ``COMMANDS``:
    Typer reads every command's signature when it starts, which an agent's call need not pay for."""
    import importlib

    application = _typer()
    application.callback()(main_callback)
    for name in (only,) if only in COMMANDS else COMMANDS:
        importlib.import_module(f"backscroll.cli.{name}").register(application)
    for info in application.registered_commands:  # Typer keeps a docstring's single line breaks: reflow them
        if info.help is None and info.callback is not None:
            info.callback.__doc__ = reflow(info.callback.__doc__)
    return application


def __getattr__(name: str):
    """``app``: the application with every command (tests, ``--help``), built on first use."""
    if name == "app":
        globals()["app"] = built = build()
        return built
    raise AttributeError(name)
