"""What every command shares: the global options, stderr messages, JSON output, error mapping.

It imports no Typer: a plain ``search`` runs without it (``backscroll.cli.search_call``). A command ends by
raising ``SystemExit`` with its code, which Typer lets through as it is.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from backscroll.errors import BackscrollError, ExitCode
from backscroll.sanitize import escaped_controls

if TYPE_CHECKING:
    import typer


@dataclass
class _State:
    home: str | None = None
    pretty: bool = False  # --pretty: indented JSON even when piped
    color: str = "auto"  # --color auto|always|never
    pager: bool = True  # --no-pager turns it off
    archive: str | None = None  # the team archive a command reads (--archive): its follow-up commands name it


STATE = _State()
_WARNED: set[str] = set()


def err(message: str) -> None:
    """A line for people, on stderr (control characters from session text or paths made visible; an
    identifier or a path taken from a session never makes it longer than a few screens)."""
    from backscroll.cli.terminal import clean
    from backscroll.sanitize import shorten

    sys.stderr.write(clean(shorten(message, 4000)) + "\n")
    sys.stderr.flush()


def json_bytes(obj) -> bytes:
    """``obj`` as JSON: compact when piped (an agent reads it), indented on a terminal or with --pretty.
    Every document carries ``schema_version``."""
    import orjson

    if isinstance(obj, dict) and "schema_version" not in obj:
        obj = {"schema_version": 1, **obj}
    option = orjson.OPT_INDENT_2 if STATE.pretty or is_terminal(sys.stdout) else 0
    try:
        return escaped_controls(orjson.dumps(obj, option=option))
    except TypeError:  # a path that is not UTF-8 (Linux allows it): its bytes as ``\xNN``, as the store keeps them
        return escaped_controls(orjson.dumps(_utf8(obj), option=option))


def _utf8(obj):
    from backscroll.ingest.rows import store_text

    if isinstance(obj, str):
        return store_text(obj)
    if isinstance(obj, dict):
        return {_utf8(k): _utf8(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_utf8(v) for v in obj]
    return obj


def shell_word(ident: str) -> str:
    """An id as a shell reads it back (an id is a log's text: a space, ``$(…)``, a ``;`` in it are quoted), on one
    line (``terminal.clean_line``): what is printed or copied to be pasted after ``backscroll show``."""
    import shlex

    from backscroll.cli.terminal import clean_line
    from backscroll.sanitize import plain_id

    ident = clean_line(ident)
    if plain_id(ident):
        return ident
    return f"-- {shlex.quote(ident)}" if ident.startswith("-") else shlex.quote(ident)


def show_command(ident: str, member: str | None = None) -> str:
    """``backscroll show ID``, with the ``--archive`` this command read when the id is a team archive's."""
    import shlex

    ident = shell_word(ident)
    if member:
        from backscroll.store.archive_url import for_command

        where = f" --archive {for_command(STATE.archive) if STATE.archive else 'URL'} --member {shlex.quote(member)}"
    else:
        where = ""
    if ident.startswith("-- "):  # (the options before the --, the id after it)
        return f"backscroll show{where} {ident}"
    return f"backscroll show {ident}{where}"


def emit_json(obj) -> None:
    sys.stdout.buffer.write(json_bytes(obj) + b"\n")
    sys.stdout.flush()


def is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


# Variables an agent's shell tool sets in the environment of the commands it runs: Claude Code's Bash
# tool (CLAUDECODE), Codex's exec (CODEX_THREAD_ID in every shell it starts; CODEX_SANDBOX and
# CODEX_SANDBOX_NETWORK_DISABLED only when sandboxed), which runs commands on a pseudo-terminal and so
# looks like a person at a terminal.
AGENT_SHELL_VARS = ("CLAUDECODE", "CODEX_THREAD_ID", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED")


def run_by_agent(env: Mapping[str, str]) -> bool:
    """Whether this process was started by an agent's shell tool, whatever its stdin/stdout are. Pure."""
    return any(env.get(name) for name in AGENT_SHELL_VARS)


def color_enabled(stream) -> bool:
    if STATE.color != "auto":
        return STATE.color == "always"
    if os.environ.get("NO_COLOR"):
        return False
    return is_terminal(stream)


def fail(exc: BackscrollError, as_json: bool) -> NoReturn:
    from backscroll.cli.hints import worded

    worded(exc)
    if as_json:
        import orjson

        sys.stderr.write(orjson.dumps(exc.to_dict()).decode() + "\n")
    else:
        err(f"backscroll: {exc.message}")
        if exc.hint:
            err(f"hint: {exc.hint}")
    raise SystemExit(int(exc.exit_code))


READ_ON = "interrupted: the next run reads what this one did not save"
KEPT = "interrupted: what was saved is kept, and the next run goes on from there"  # (read or embedded: both hold)


def run(fn: Callable[[], int | None], *, as_json: bool = False, stoppable: bool = False,
        interrupted: str = READ_ON) -> None:
    """Run a command body, turning errors into messages and exit codes instead of tracebacks; ``stoppable``: a long
    write that SIGTERM or SIGHUP (a supervisor's stop, a closed terminal) ends as Ctrl-C does, saying what is kept
    (``interrupted``)."""
    from backscroll.store.schema import ANNOUNCE

    kept = _stopped_as_ctrl_c() if stoppable else {}
    ANNOUNCE.set(err)
    try:
        code = fn()
    except BackscrollError as exc:
        fail(exc, as_json)
    except KeyboardInterrupt:
        from backscroll.errors import Interrupted

        fail(Interrupted(interrupted), as_json)
    except BrokenPipeError:  # the reader stopped early (`| head`): not an error
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        raise SystemExit(0) from None
    except SystemExit:
        raise
    except Exception as exc:  # a bug: say so briefly, never dump locals (transcripts hold secrets)
        if os.environ.get("BACKSCROLL_DEBUG") or _typer_exit(exc):
            raise
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):  # (output to a full disk)
            from backscroll.errors import DiskFullError

            fail(DiskFullError(f"the disk is full: {exc.strerror}", hint="free some space, then run it again"), as_json)
        internal = BackscrollError(f"internal error: {type(exc).__name__}: {exc}",
                                   hint="set BACKSCROLL_DEBUG=1 for a traceback and report it")
        fail(internal, as_json)
    except BaseException as exc:  # pyo3's PanicException (a Rust panic) is not an Exception
        if type(exc).__name__ != "PanicException" or os.environ.get("BACKSCROLL_DEBUG"):
            raise
        fail(BackscrollError(f"internal error: a panic in the search engine: {exc}",
                             hint="`backscroll rebuild` recreates the index from the store"), as_json)
    finally:
        if kept:
            import signal

            for signum, handler in kept.items():
                signal.signal(signum, handler)
    raise SystemExit(int(code or ExitCode.OK))


def _stopped_as_ctrl_c() -> dict:
    """SIGTERM and SIGHUP raise KeyboardInterrupt from here on; returns the handlers they had."""
    import signal

    def stop(_signum, _frame) -> None:
        raise KeyboardInterrupt

    return {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}


def _typer_exit(exc: Exception) -> bool:
    """Whether ``exc`` is Typer's own way out (``typer.Exit``, ``typer.Abort``), raised inside a command's body."""
    typer = sys.modules.get("typer")
    return typer is not None and isinstance(exc, typer.Exit | typer.Abort)


def archive(cfg=None):
    """The archive a command works on (``--home``, ``--source``): ``with common.archive() as bs: ...``."""
    from backscroll.archive import Backscroll

    return Backscroll(config=cfg if cfg is not None else config())


def config(sources: list[str] | None = None):
    from backscroll.config import resolve

    cfg = resolve(home=STATE.home, sources=tuple(sources or ()))
    for warning in cfg.warnings:
        if warning not in _WARNED:  # once per run, however often a command resolves the config
            _WARNED.add(warning)
            err(f"warning: {warning}")
    return cfg


def option_of(request: type, name: str) -> typer.models.OptionInfo:
    """The command line's option for a request field (``request.py``): its flags, bounds, placeholder and help."""
    import typer

    from backscroll.request import kind_of, option, options

    opt = option(name, request)
    annotation = next(a for n, a, _d, _o in options(request) if n == name)
    complete = complete_projects if name == "project" else complete_from(opt.choices) if opt.choices else None
    return typer.Option(*opt.flags(name), min=opt.minimum, max=opt.maximum, help=opt.brief or opt.help,
                        metavar=opt.placeholder(annotation) if kind_of(annotation) is not bool else None,
                        autocompletion=complete)


def complete_from(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    """A shell completion of an option's values: its choices that begin with what was typed."""
    return lambda incomplete: [c for c in choices if c.startswith(incomplete)]


def complete_projects(incomplete: str) -> list[str]:
    """The indexed projects that begin with what was typed, read from the store as it is (no sync, no lock;
    nothing when there is no store yet). Only names a shell reads as one word as they are: the shell puts a
    completion on the command line unquoted (bash) or evaluates it (Typer's zsh script), and a project is named
    by a folder, which a session can name ``x $(touch y)``."""
    from backscroll.config import resolve
    from backscroll.sanitize import plain_id
    from backscroll.store.sessions import project_names_at

    return [n for n in project_names_at(resolve(home=STATE.home).home.value / "backscroll.db")
            if n.startswith(incomplete) and plain_id(n)]
