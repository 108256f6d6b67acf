"""``backscroll pick``: the interactive picker (``cli/picker.py``), and what it does with the hit chosen."""

from __future__ import annotations

import os
import shlex
import sys
from typing import Annotated

import typer

from backscroll.cli import common
from backscroll.request import SearchRequest

FILTERS = ("project", "agent", "session", "file", "since", "until", "role", "content_type")


def pick(
    query: Annotated[list[str] | None, typer.Argument(metavar="[WORDS]...", help="What to search for first.")] = None,
    project: Annotated[str | None, common.option_of(SearchRequest, "project")] = None,
    agent: Annotated[str | None, common.option_of(SearchRequest, "agent")] = None,
    session: Annotated[str | None, common.option_of(SearchRequest, "session")] = None,
    file: Annotated[str | None, common.option_of(SearchRequest, "file")] = None,
    since: Annotated[str | None, common.option_of(SearchRequest, "since")] = None,
    until: Annotated[str | None, common.option_of(SearchRequest, "until")] = None,
    role: Annotated[str | None, common.option_of(SearchRequest, "role")] = None,
    content_type: Annotated[str | None, common.option_of(SearchRequest, "content_type")] = None,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Do not read new session lines first.")] = False,
) -> None:
    """Search as you type, see each hit in its conversation, and pick one.

    Keys: ↑/↓ move · Enter shows the hit in its conversation · Ctrl-R resumes its session in its
    agent · Ctrl-Y copies its id · Ctrl-E opens its source file at its line in $EDITOR ·
    Esc or Ctrl-C quits. Words are searched at once, meaning follows. Filters as in search.
    """
    chosen = {name: value for name, value in zip(FILTERS, (project, agent, session, file, since, until, role,
                                                           content_type), strict=True) if value is not None}

    def body() -> int:
        from backscroll.errors import UsageError

        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("pick needs a terminal", hint="in a script: backscroll search WORDS --format tsv | fzf")
        from backscroll.cli.picker import Picker

        choice = Picker(common.archive, " ".join(query or []), chosen, sync=not no_sync).run()
        return 0 if choice is None else act(choice)

    common.run(body)


def act(choice) -> int:
    """Do what the picker's user chose, now that the screen is theirs again."""
    hit = choice.hit
    if choice.action == "copy":
        sys.stdout.write(common.shell_word(hit.record_id) + "\n")
        return 0
    if choice.action == "show":
        from backscroll.cli.render_session import print_session_view

        with common.archive() as bs:
            view = bs.show(hit.record_id, context=5)
        print_session_view(view, full=False, color=common.color_enabled(sys.stdout))
        return 0
    if choice.action == "resume":
        from backscroll.cli.resume import go

        with common.archive() as bs:
            how = bs.resume(hit.record_id)
        return go(how)
    from backscroll.cli.render import openable
    from backscroll.errors import NotFoundError, UsageError

    named = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    path, line = openable(hit.source_path, hit.line)
    if not os.path.isfile(path):
        raise NotFoundError(f"{path} is not a file this machine has", hint=common.show_command(hit.record_id))
    fix = "set $VISUAL or $EDITOR to an editor on your PATH (EDITOR=nano)"
    try:
        editor = shlex.split(named)
    except ValueError as exc:
        raise UsageError(f"the editor {named[:200]!r} is no command line ({exc})", hint=fix) from None
    if not editor:
        raise UsageError("$VISUAL or $EDITOR names no editor", hint=fix)
    sys.stdout.flush()
    try:
        os.execvp(editor[0], [*editor, f"+{line}", path])
    except OSError as exc:
        raise UsageError(f"cannot run the editor {editor[0][:200]!r}: {exc.strerror}", hint=fix) from None
    return 0  # pragma: no cover (exec does not return)


def register(app: typer.Typer) -> None:
    app.command("pick")(pick)
