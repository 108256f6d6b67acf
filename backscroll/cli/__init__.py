"""The ``backscroll`` command line: a thin Typer layer over the library (``cli/app.py``).

``main`` is the entry point. It stays light: a recall hook, which an agent runs on every prompt, is
answered without importing Typer at all.
"""

from __future__ import annotations

from typing import Any

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
    before them makes them words (the options before them stay options). None when the option is a near
    misspelling of one Click names ("Possible options"). Pure."""
    import difflib
    import shlex

    message = str(getattr(exc, "message", exc))
    if "No such option" not in message or "search" not in argv or "--" in argv:
        return None
    rest = argv[argv.index("search") + 1:]
    bad = message.partition("No such option:")[2].split()[:1]
    if bad and difflib.get_close_matches(bad[0], getattr(exc, "possibilities", None) or (), cutoff=0.8):
        return None  # (a misspelt option: Click names the one meant)
    at = next((n for n, a in enumerate(rest) if [a.partition("=")[0]] == bad), None)
    if at is None:  # (not a word as given: -xV read as -x): no sure place for the --
        return None
    words, options = _options_after(rest[at:])
    return ("to search for words that start with '-', put -- before them: "
            + shlex.join(["backscroll", "search", *rest[:at], *options, "--", *words]))


# Commands other tools have that backscroll names otherwise, and what does it here.
COMMAND_SYNONYMS = {"sessions": "list", "ls": "list", "history": "list", "find": "search", "grep": "search",
                    "query": "search", "recall": "search", "export": "show SESSION --format markdown",
                    "transcript": "show SESSION", "view": "show", "open": "show", "sync": "index", "update": "index",
                    "doctor": "status", "info": "status", "continue": "resume"}


def command_hint(exc) -> str | None:
    """For a command backscroll does not have but names otherwise (``sessions``, ``export``): the one it means.
    Pure."""
    message = str(getattr(exc, "message", exc))
    if "No such command" not in message:
        return None
    word = message.partition("No such command")[2].strip(" '\".")
    meant = COMMAND_SYNONYMS.get(word.lower())
    return f"backscroll {meant} does that" if meant and meant != word else None


def _options_after(args: list[str]) -> tuple[list[str], list[str]]:
    """``args`` parted into words and the search options among them (with their values): the options stay in
    front of the ``--``. Pure."""
    from backscroll.search_command import TRAILING_GLOBALS, params

    takes = {flag: p.kind is not bool for p in (*params(), *TRAILING_GLOBALS) for flag in p.flags}
    words: list[str] = []
    options: list[str] = []
    i = 0
    while i < len(args):
        name = args[i].partition("=")[0]
        if i and name in takes:  # (the first is the word read as an option)
            value = takes[name] and "=" not in args[i] and i + 1 < len(args)
            options += args[i:i + 1 + value]
            i += 1 + value
        else:
            words.append(args[i])
            i += 1
    return words, options


def split_globals(argv: list[str]) -> tuple[dict[str, Any], list[str]] | None:
    """``(the global options, the rest)`` of ``argv`` with its global options hoisted in front (``hoist_globals``):
    ``{"home", "color", "pretty", "no_pager"}``; None when something else leads (``--help``, ``--version``, an
    unknown option). Pure."""
    given: dict[str, Any] = {"home": None, "color": "auto", "pretty": False, "no_pager": False}
    i = 0
    while i < len(argv) and argv[i].startswith("--"):
        name, eq, value = argv[i].partition("=")
        if name in GLOBAL_VALUE_OPTIONS and (eq or i + 1 < len(argv)):
            given[name[2:]] = value if eq else argv[i + 1]
            i += 1 if eq else 2
        elif name in GLOBAL_FLAGS:
            given[name[2:].replace("-", "_")] = True
            i += 1
        else:
            return None
    return given, argv[i:]


def hook_call(argv: list[str]) -> tuple[str, str, str | None, list[str]] | None:
    """``(agent, event, home, what else it was given)`` when ``argv`` (globals hoisted) is a ``hook AGENT EVENT``
    call, else None: ``--help``, ``--dry-run`` and a missing word go through Typer. What follows the event is
    ignored, so that a hook an agent runs never fails it (an option of a newer install, say: Claude Code reads
    exit 2 as "block this prompt"). Pure."""
    split = split_globals(argv)
    if split is None:
        return None
    given, words = split
    if len(words) < 3 or words[0] != "hook" or any(w.startswith("-") for w in words[1:3]):
        return None
    if any(w.partition("=")[0] in ("--dry-run", "--help", "-h") for w in words[3:]):
        return None
    return words[1], words[2], given["home"], words[3:]


def search_call(argv: list[str]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """``(the global options, what the command receives)`` when ``argv`` (globals hoisted) is a plain ``search``
    call (``search_command.read``), else None: Typer reads it. Pure."""
    split = split_globals(argv)
    if split is None or split[0]["color"] not in ("auto", "always", "never") or split[1][:1] != ["search"]:
        return None
    from backscroll.search_command import read

    given = read(split[1][1:])
    return None if given is None else (split[0], given)


def command_of(argv: list[str]) -> str | None:
    """The command ``argv`` (globals hoisted) runs, or None (``--help``, ``--version``, no command). Pure."""
    split = split_globals(argv)
    return split[1][0] if split is not None and split[1] and not split[1][0].startswith("-") else None


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

    try:
        _main()
    except KeyboardInterrupt:  # (Ctrl-C while modules load, before a command's own handling starts, as Typer says it)
        sys.stderr.write("aborted\n")
        sys.exit(130)


def usable_streams(hook: bool = False) -> None:
    """Standard streams a command can print to. A terminal whose encoding is not UTF-8 (a latin-1 or ASCII locale,
    ``PYTHONIOENCODING=ascii``) gets ``?`` for what it cannot show (the arrows, dots and session text a command
    prints crashed it otherwise); a pipe or a file gets UTF-8, as the JSON formats always were. A closed stderr
    (``2>&-``) drops notes and warnings; a closed stdout is an error said on stderr, not an internal one nor a
    success that printed nothing (a ``hook`` goes on: it never fails its agent)."""
    import os
    import sys

    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (for the process's life)
    if sys.stdout is None:
        if not hook:
            sys.stderr.write("backscroll: standard output is closed (>&-): there is nowhere to print the answer\n")
            sys.exit(1)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "").replace("_", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            terminal = stream.isatty()
            stream.reconfigure(**({"errors": "replace"} if terminal else {"encoding": "utf-8"}))


def _main() -> None:
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
    argv = hoist_globals(sys.argv[1:])
    hook = hook_call(argv)
    usable_streams(hook=hook is not None)
    if hook is not None:  # every prompt of a hooked agent: answered without Typer
        from backscroll.integrations.hooks import AGENTS, EVENTS
        from backscroll.integrations.hooks import main as run_hook

        if hook[0] not in AGENTS or hook[1] not in EVENTS:  # (a hook line written by hand: still exit 0)
            sys.stderr.write(f"backscroll hook: there is no hook {hook[0]!r} {hook[1]!r}; nothing recalled (agents: "
                             f"{', '.join(AGENTS)}; events: {', '.join(EVENTS)})\n")
            sys.exit(0)
        if hook[3]:
            sys.stderr.write(f"backscroll hook: ignored {' '.join(hook[3])!r} (not an option of this version)\n")
        sys.exit(run_hook(*hook[:3]))
    import os

    plain = None if os.environ.get("_BACKSCROLL_COMPLETE") else search_call(argv)
    if plain is not None:  # an agent's search, every turn: read without Typer too
        from backscroll.cli.search import run_plain

        run_plain(*plain)  # exits
    from typing import cast

    import typer

    from backscroll.cli.app import build

    completing = bool(os.environ.get("_BACKSCROLL_COMPLETE"))
    app = build(None if completing else command_of(argv))  # one command's signature read, not twelve

    # click's ClickException, whichever click Typer ships (0.28 vendors its own copy): typed as Any
    click_error = cast(Any, typer.BadParameter.__mro__[2])
    if completing:  # the shell asks for completions (`backscroll completion`)
        from typer.completion import completion_init

        completion_init()
        app(prog_name="backscroll", complete_var="_BACKSCROLL_COMPLETE")
        return
    if {"--help", "-h"} & set(argv):  # (Typer's help console is rich's own: `--help | head` is no error either)
        from rich.console import Console

        from backscroll.cli.terminal import reader_gone

        Console.on_broken_pipe = reader_gone  # type: ignore[method-assign]
    try:
        code = app(args=argv, standalone_mode=False)
        sys.stdout.flush()  # (what is left of a help page or a version: a full disk is said here, not at exit)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:  # (`--help > /dev/full`: a command's own output says so itself)
        sys.stderr.write(f"backscroll: cannot write the output: {exc.strerror or exc}\n")
        sys.exit(1)
    except click_error as exc:
        dash = dash_hint(sys.argv[1:], exc) or command_hint(exc)
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
