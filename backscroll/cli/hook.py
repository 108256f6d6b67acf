"""``backscroll hook claude|codex session-start|prompt``: the recall hook an agent runs (opt-in)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from backscroll.cli import common

if TYPE_CHECKING:
    from backscroll.integrations.recall import Found


def hook(
    agent: Annotated[str, typer.Argument(metavar="claude|codex", help="The agent calling the hook.")],
    event: Annotated[str, typer.Argument(metavar="session-start|prompt", help="The hook event.")],
    dry_run: Annotated[str | None, typer.Option("--dry-run", metavar="PROMPT",
                                                help="Show what this prompt would inject (session-start: give "
                                                     "\"\" and the current directory is used), without an agent.")
                       ] = None,
) -> None:
    """Read the agent's hook JSON on stdin and print past context worth recalling (or nothing).

    Injects only what the relevance judgement, as fitted for hooks (silent for everyday requests), says
    answers the prompt. Never fails the agent: any problem prints nothing, exits 0, and says why on stderr.
    Try a prompt with --dry-run "why does the importer drop rows?" (session-start: --dry-run "" in the
    project).
    """
    if dry_run is not None:
        common.run(lambda: _dry_run(agent, event, dry_run))
    from backscroll.integrations.hooks import main

    raise typer.Exit(main(agent, event, common.STATE.home))


def _dry_run(agent: str, event: str, prompt: str) -> int:
    """What the hook would print for ``prompt`` (or, at session start, for this directory), remembered nowhere."""
    import json
    import os
    import sys

    from backscroll.errors import UsageError
    from backscroll.integrations.git_branch import branch_words
    from backscroll.integrations.hooks import AGENTS, EVENTS, respond
    from backscroll.integrations.recall import prompt_query

    if agent not in AGENTS or event not in EVENTS:
        raise UsageError(f"unknown hook {agent} {event}", hint=f"agents: {', '.join(AGENTS)}; events: "
                         + ", ".join(EVENTS))
    raw = json.dumps({"session_id": "backscroll-dry-run", "prompt": prompt, "cwd": os.getcwd(),
                      "hook_event_name": event}).encode()
    with common.archive() as bs:
        out, found = respond(agent, event, raw, bs.config, dry_run=True)
        if out is not None:
            why = ""
        elif event == "prompt":
            why = (_silent(found) if prompt_query(prompt) else "the prompt is empty" if not prompt.strip() else
                   "the prompt names nothing a past session could be about (only everyday words, no file, error or "
                   "name): a recall hook stays silent for it")
        else:
            why = "" if branch_words(os.getcwd()) else ("this directory's git branch names no work to recall (not "
                                                         "a git checkout, a detached HEAD, or a branch like main)")
    if out is None:
        common.err(f"nothing would be injected: {why or _no_answer(bs.config)}")
    else:
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
        if found is not None and found.elsewhere:
            common.err(f"{found.elsewhere} more passage{'s' if found.elsewhere != 1 else ''} from other projects' "
                       "sessions left out: a prompt recalls only from the project it runs in")
    return 0


def _no_answer(cfg) -> str:
    """Why nothing is recalled when the judgement said no, or was not asked."""
    import os

    if not os.access(cfg.db_path.parent, os.W_OK):
        return ("the data dir cannot be written, and a hook recalls nothing there: it could neither remember what it "
                "injected (once a session) nor open the word index, which Tantivy locks (`backscroll search` reads it)")
    return "no past session answers it surely enough"


def _silent(found: Found | None) -> str:
    """Why a prompt injects nothing, as the judgement saw it ("" when it judged nothing)."""
    sure = found.sure if found is not None else None
    if found is None or sure is None:
        return ""
    if sure[0] < sure[1]:
        return (f"no past session answers it surely enough (the judgement gives {sure[0]:.2f} that one does; "
                f"a hook speaks from {sure[1]:.2f})")
    if found.elsewhere and not found.recalls:
        return ("what answers it best lies in other projects' sessions, and a prompt recalls only from the project "
                "it runs in (backscroll search finds it)")
    return "the passages that answer it quote earlier recalls, or cannot be injected"


def register(app: typer.Typer) -> None:
    app.command("hook")(hook)
