"""The ``backscroll search`` command line as data: one ``Param`` per option.

The request's options come from ``SearchRequest``'s fields; only the options that shape the output
are listed here. The CLI builds its Typer command from ``params()``, and the repeat rule reads an
agent's earlier call with Click's parser built from the same list (``parse``), so the two can never
disagree about an option. Click is imported only when an argv is parsed. A plain call (known options, each
once, values in bounds) is read without Click or Typer at all (``read``): an agent runs one every turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from backscroll.request import kind_of, options


@dataclass(frozen=True)
class Param:
    """One option of ``backscroll search``: the keyword the command receives and how it is written."""

    name: str
    flags: tuple[str, ...]
    kind: type  # bool (a flag), int or str
    default: Any
    brief: str
    metavar: str | None = None
    group: str | None = None  # "filter", "hint" or "output": where ``--help`` lists it
    minimum: int | None = None
    maximum: int | None = None
    asks: bool = False  # a SearchRequest field, passed to the search (the others shape the output)
    multiple: bool = False


OUTPUT = (
    Param("no_sync", ("--no-sync",), bool, False, "Skip the sync first."),
    Param("source", ("--source",), str, None, "Also read sessions here (AGENT:PATH).",
          "PATH", multiple=True),
    Param("as_json", ("--json",), bool, False, "One JSON document.", group="output"),
    Param("fmt", ("--format", "-f"), str, None, "Output format.", "human|json|jsonl|tsv|ids", "output"),
    Param("ids", ("--ids",), bool, False, "Only ids, one a line.", group="output"),
    Param("fields", ("--fields",), str, None, "JSON: only these hit fields.", "A,B", "output"),
    Param("max_bytes", ("--max-bytes",), int, None, "JSON: whole hits in N bytes.", "N", "output", minimum=1),
    Param("pretty", ("--pretty",), bool, False, "Indented JSON.", group="output"),
    Param("no_pager", ("--no-pager",), bool, False, "Never page.", group="output"),
)
# Global options an agent may write after the command (``search x --home DIR``): parsed, never compared.
TRAILING_GLOBALS = (Param("home", ("--home",), str, None, ""), Param("color", ("--color",), str, None, ""))


def request_params() -> tuple[Param, ...]:
    """The request's options, in ``SearchRequest``'s order, without the query (the command's words)."""
    out = []
    for name, annotation, default, opt in options():
        if name != "query":
            kind = kind_of(annotation)
            out.append(Param(name, opt.flags(name), kind, default, opt.brief or opt.help,
                             opt.placeholder(annotation), opt.group, opt.minimum, opt.maximum, asks=True))
    return tuple(out)


def params() -> tuple[Param, ...]:
    """Every option of ``backscroll search``: the request's, then the output's."""
    return request_params() + OUTPUT


@cache
def _command() -> Any:
    import click

    def option(p: Param) -> click.Option:
        if p.kind is bool:
            return click.Option((p.name, *p.flags), is_flag=True, default=False)
        return click.Option((p.name, *p.flags), type=click.INT if p.kind is int else click.STRING,
                            multiple=p.multiple)

    return click.Command("search", add_help_option=False, params=[
        click.Argument(["query"], nargs=-1), *(option(p) for p in (*params(), *TRAILING_GLOBALS))])


def parse(args: list[str]) -> dict[str, Any] | None:
    """The request a ``search …`` argv asks (``{"query": "words", field: value}``: the fields it sets, and for a
    plain call (``read``) the defaults of the others, which the repeat rule's key holds anyway), or None when
    Click cannot parse it as this version's command (an unknown option, a missing value) or it has no words."""
    if not args or args[0] != "search":
        return None
    given = read(list(args[1:]))  # a plain call, as an agent writes it: no Click to import
    if given is None:
        import click

        try:
            given = _command().make_context("search", list(args[1:])).params
        except click.ClickException:
            return None
    words = given.pop("query")
    if not words:
        return None
    asked = {p.name for p in request_params()}
    return {"query": " ".join(words),
            **{k: v for k, v in given.items() if k in asked and v is not None and v is not False}}


def read(args: list[str]) -> dict[str, Any] | None:
    """The keyword arguments ``backscroll search ARGS`` gives the command (``{"query": [words], name: value}``, every
    option present), read without Click; None when anything is not plain: an option unknown here (``--help``), given
    twice, without its value, with a value that starts with ``-``, is not a whole number or is out of its bounds, or
    no words. Typer then reads the call and says what is wrong. Pure."""
    flags = {flag: p for p in params() for flag in p.flags}
    given: dict[str, Any] = {p.name: p.default for p in params()}
    seen: set[str] = set()
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            words.extend(args[i:])
            break
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        p = flags.get(name)
        if p is None or (p.name in seen and not p.multiple):
            return None
        seen.add(p.name)
        if p.kind is bool:
            if eq:
                return None
            given[p.name] = True
            continue
        if not eq:
            if i == len(args):
                return None
            value, i = args[i], i + 1
        if value.startswith("-"):
            return None
        if p.kind is int:
            if not (value.isascii() and value.isdigit()) or (p.minimum is not None and int(value) < p.minimum) or (
                    p.maximum is not None and int(value) > p.maximum):
                return None
            given[p.name] = int(value)
        elif p.multiple:
            given[p.name] = [*(given[p.name] or ()), value]
        else:
            given[p.name] = value
    if not words:
        return None
    return {"query": words, **given}
