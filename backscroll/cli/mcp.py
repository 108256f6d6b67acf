"""``backscroll mcp``: serve search, show, list_sessions and status over MCP (stdio)."""

from __future__ import annotations

import typer

from backscroll.cli import common


def mcp() -> None:
    """Run the MCP server on stdin/stdout (agents start it; `backscroll install mcp` registers it).

    Needs the optional SDK: pip install 'backscroll\\[mcp]'. Exits when stdin closes.
    """
    from backscroll.errors import BackscrollError, ExitCode
    from backscroll.integrations.mcp_server import serve

    try:
        serve(common.STATE.home)
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("mcp"):
            raise
        common.err("backscroll: the MCP server needs the `mcp` package")
        common.err("hint: pip install 'backscroll[mcp]'")
        raise typer.Exit(int(ExitCode.USAGE)) from None
    except BackscrollError as exc:
        common.fail(exc, False)
    raise typer.Exit(0)


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
