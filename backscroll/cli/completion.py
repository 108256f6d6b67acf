"""``backscroll completion SHELL``: the shell script that completes backscroll's commands and options."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_BACKSCROLL_COMPLETE"  # what the script sets when it asks backscroll for completions


def completion(
    shell: Annotated[str, typer.Argument(metavar="bash|zsh|fish", help="The shell to complete in.",
                                         autocompletion=common.complete_from(SHELLS),
                                         show_default=False)],
) -> None:
    """Print the script that completes commands and options in your shell.

    bash: eval "$(backscroll completion bash)" in ~/.bashrc; zsh: the same in ~/.zshrc;
    fish: backscroll completion fish > ~/.config/fish/completions/backscroll.fish.
    Completing asks backscroll itself, so it follows the installed version.
    """
    from backscroll.errors import UsageError

    if shell not in SHELLS:
        common.fail(UsageError(f"no completion for the shell {shell!r}", hint=f"use one of: {', '.join(SHELLS)}"),
                    False)
    from typer._completion_shared import get_completion_script

    typer.echo(get_completion_script(prog_name="backscroll", complete_var=COMPLETE_VAR, shell=shell))


def register(app: typer.Typer) -> None:
    app.command("completion")(completion)
