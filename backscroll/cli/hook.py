"""``backscroll hook claude|codex session-start|prompt``: the recall hook an agent runs (opt-in)."""

from __future__ import annotations

from typing import Annotated

import typer

from backscroll.cli import common


def hook(
    agent: Annotated[str, typer.Argument(metavar="claude|codex", help="The agent calling the hook.")],
    event: Annotated[str, typer.Argument(metavar="session-start|prompt", help="The hook event.")],
) -> None:
    """Read the agent's hook JSON on stdin and print past context worth recalling (or nothing).

    Lexical search only; never fails the agent: any problem prints nothing, exits 0, and says why on stderr.
    """
    from backscroll.integrations.hooks import main

    raise typer.Exit(main(agent, event, common.STATE.home))


def register(app: typer.Typer) -> None:
    app.command("hook")(hook)
