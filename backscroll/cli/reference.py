"""The command-line reference (``docs/cli.md``), written from the commands themselves: every command, its help
and every option with its flags, value, default and help. ``scripts/cli_reference.py`` writes the file; a test
holds the file to what the commands say, so the reference is never out of date."""

from __future__ import annotations

import re
from typing import Any

_MARKUP = re.compile(r"\[/?(?:bold|italic|dim|cyan|magenta|yellow|red|green)\]")


def _plain(text: str | None) -> str:
    return " ".join(_MARKUP.sub("", text or "").split())


def _option_row(param: Any) -> str:
    flags = ", ".join(f"`{o}`" for o in (*param.opts, *param.secondary_opts))
    if param.is_flag:
        value = ""
    else:
        metavar = param.metavar or (param.type.name.upper() if param.type is not None else "")
        value = f"`{metavar}`".replace("|", r"\|") if metavar else ""
    shown = param.default not in (None, False, (), []) and not param.is_flag
    default = f"`{param.default}`" if shown else ""
    meaning = _plain(param.help).replace("|", r"\|")
    return f"| {flags} | {value} | {default} | {meaning} |"


def _command(name: str, command: Any, depth: int) -> list[str]:
    out = [f"{'#' * depth} `{name}`", "", _plain(command.help) or "(no help)", ""]
    arguments = [p for p in command.params if p.param_type_name == "argument"]
    options = [p for p in command.params if p.param_type_name == "option" and not p.hidden
               and p.name not in ("help",)]
    if arguments:
        out += ["Arguments: " + ", ".join(f"`{a.metavar or a.name.upper()}`" for a in arguments), ""]
    if options:
        out += ["| option | value | default | meaning |", "|---|---|---|---|", *map(_option_row, options), ""]
    for sub_name, sub in sorted(getattr(command, "commands", {}).items()):
        out += _command(f"{name} {sub_name}", sub, depth + 1)
    return out


def reference() -> str:
    """``docs/cli.md``'s text."""
    import typer

    from backscroll.cli.app import build

    root = typer.main.get_command(build())
    lines = ["# Command-line reference", "",
             "Every command and option, as `--help` gives them (written by `scripts/cli_reference.py` from the "
             "commands themselves; a test keeps this file in step). Global options may come before or after "
             "the command.", ""]
    lines += _command("backscroll", type("Root", (), {"help": root.help, "params": root.params})(), 2)
    for name, command in sorted(root.commands.items()):  # type: ignore[attr-defined]
        lines += _command(f"backscroll {name}", command, 2)
    return "\n".join(lines).rstrip() + "\n"
