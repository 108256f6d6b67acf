"""``backscroll install skill|instructions|hooks|mcp``: wire backscroll into the agents (reversibly)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from backscroll.cli import common

KINDS = ("skill", "instructions", "hooks", "mcp")


def install(
    what: Annotated[str, typer.Argument(metavar="skill|instructions|hooks|mcp", help="What to install.",
                                        autocompletion=common.complete_from(("skill", "instructions", "hooks",
                                                                             "mcp")))],
    agent: Annotated[str, typer.Option("--agent", metavar="NAME",
                                       help="claude, codex, gemini, pi, opencode, or all (those whose home exists).",
                                       autocompletion=common.complete_from(("claude", "codex", "gemini", "pi",
                                                                            "opencode", "all")))] = "all",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the changes as a diff; write nothing.")] = False,
    uninstall: Annotated[bool, typer.Option("--uninstall", help="Remove what install wrote.")] = False,
) -> None:
    """Teach your agents about backscroll: a skill, an instructions block, recall hooks or the MCP server.

    Every file written is listed; --uninstall takes out exactly what install added (a file install
    created goes with it); `backscroll status` shows what is installed. Hooks and MCP entries name
    this backscroll by its absolute path. Recall hooks are opt-in: they add up to 2 KB of past context
    at session start and 1.5 KB to a prompt.
    """

    def body() -> int:
        from backscroll.errors import UsageError
        from backscroll.integrations import install as inst

        if what not in KINDS:
            raise UsageError(f"unknown integration {what!r}", hint=f"use one of: {', '.join(KINDS)}")
        changes = inst.run(what, agent, uninstall=uninstall, dry_run=dry_run)
        if not changes:
            common.err(f"backscroll: no agent home found for {what}" + (": nothing to remove" if uninstall else
                                                                         " (--agent NAME writes it anyway)"))
        for c in changes:
            if dry_run:
                sys.stdout.write(c.diff() or f"# {c.what}: {c.path} unchanged\n")
                continue
            if uninstall and not c.changed:
                why = ("does not exist" if c.before is None else "holds changes of yours; it is left as it is"
                       if c.kept else "holds no backscroll entry")
                sys.stdout.write(f"{c.what}: nothing to remove ({c.path} {why})\n")
                continue
            verb = ("removed from" if uninstall else "wrote") if c.changed else "unchanged:"
            sys.stdout.write(f"{c.what}: {verb} {c.path}\n")
            for line in c.notes:
                common.err(line)
        if not uninstall and changes:
            if what in ("skill", "instructions") and (path_note := inst.on_path_note()):
                common.err(path_note)
            if what == "hooks" and any(c.kind == "hooks" and "codex" in c.what and c.changed for c in changes):
                common.err(inst.codex_hooks_note())
            if what == "mcp" and any("claude" in c.what and c.changed for c in changes):
                common.err("claude: `claude mcp add -s user backscroll -- backscroll mcp` does the same through "
                           "claude itself")
        sys.stdout.flush()
        return 0

    common.run(body)


def register(app: typer.Typer) -> None:
    app.command("install")(install)
