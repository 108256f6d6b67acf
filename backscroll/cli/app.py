"""The Typer application: the global options and every command, one module per command.

Commands parse options, call the library, render, and map errors to exit codes (``cli/common.py``).
Heavy modules are imported inside the commands. ``backscroll.cli.main`` imports this only when a call
needs it (a hook does not).
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
