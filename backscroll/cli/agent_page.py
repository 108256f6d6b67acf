"""How much ``show`` prints when an agent's shell runs it: what it prints lands whole in a model's context, so a
session comes a page at a time and each text is cut, within the budget of an MCP answer, unless the command asks
for a page size, a text length, an export (markdown) or writes to a file."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import replace
from typing import IO

from backscroll.cli.common import run_by_agent
from backscroll.integrations.mcp_budget import MAX_ANSWER_CHARS, MAX_TEXT_CHARS
from backscroll.types import Hit, SessionView

AGENT_PAGE = 50  # records of a session a page holds at most (fewer when their texts pass the budget)


def into_context(env: Mapping[str, str], stdout: IO, fmt: str | None) -> bool:
    """Whether what ``show`` prints goes into an agent's context: run by an agent's shell, not as an export
    and not into a file (``> session.txt`` is read whole by nobody)."""
    return fmt != "markdown" and run_by_agent(env) and not _a_file(stdout)


def fitted(view: SessionView, budget: int = MAX_ANSWER_CHARS) -> SessionView:
    """A session page's first records whose texts fit ``budget`` characters (one at least); a record with its
    context is as it was (its record is the one asked for). Pure."""
    if view.focus:
        return view
    kept: list[Hit] = []
    size = 0
    for hit in view.records:
        size += len(hit.text)
        if kept and size > budget:
            break
        kept.append(hit)
    return replace(view, records=tuple(kept))


def page_note(view: SessionView) -> str | None:
    """What the person (or model) reading a bounded page is told: where it ends and how to read on."""
    if view.focus or not view.records or view.records[-1].rank >= view.total:
        return None
    last = view.records[-1].rank
    return (f"note: an agent's shell runs this, so the session comes a page at a time: records "
            f"{view.records[0].rank:,}–{last:,} of {view.total:,}; --offset {last} reads on, --limit N sets the "
            f"page, and texts are cut at {MAX_TEXT_CHARS:,} characters (--max-chars 0: whole)")


def _a_file(stream: IO) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # (a stream with no descriptor: captured, not a file)
        return False
