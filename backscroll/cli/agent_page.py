"""How much ``show`` prints when an agent's shell runs it: what it prints lands whole in a model's context, so it
stays within the budget of an MCP answer, counted as ``--json`` prints it: a session comes a page at a time
(``--limit`` makes the page smaller, not the budget larger), a record comes with the context that fits, and each text
is cut unless ``--max-chars`` says otherwise. An export (markdown) and output into a file are not cut."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import replace
from typing import IO

import orjson

from backscroll.cli.common import run_by_agent
from backscroll.integrations.mcp_budget import MAX_ANSWER_CHARS, MAX_TEXT_CHARS
from backscroll.types import Hit, SessionView

AGENT_PAGE = 50  # records of a session a page holds at most (fewer when their texts pass the budget)


def into_context(env: Mapping[str, str], stdout: IO, fmt: str | None) -> bool:
    """Whether what ``show`` prints goes into an agent's context: run by an agent's shell, not as an export
    and not into a file (``> session.txt`` is read whole by nobody)."""
    return fmt != "markdown" and run_by_agent(env) and not _a_file(stdout)


def fitted(view: SessionView, budget: int = MAX_ANSWER_CHARS, *, pretty: bool = False) -> SessionView:
    """``view`` within ``budget`` characters as JSON prints it (``pretty``: indented; the human form prints less of
    each record): a session page's first records, or a record with the context nearest it (the record asked for
    stays, whatever its length). Pure."""
    hits = list(view.records)
    cost = [_size(h.to_dict(), pretty, 2) + 2 for h in hits]  # (and the comma and line break after it)
    budget -= _size(replace(view, records=()).to_dict(), pretty)  # (the session itself: its cwd, its title)
    at = next((i for i, h in enumerate(hits) if h.record_id == view.focus), None) if view.focus else None
    if at is None:
        kept: list[Hit] = []
        size = 0
        for hit, c in zip(hits, cost, strict=True):
            size += c
            if kept and size > budget:
                break
            kept.append(hit)
        return replace(view, records=tuple(kept))
    first, last = 0, len(hits) - 1
    while first < last and sum(cost[first:last + 1]) > budget:
        if at - first >= last - at:  # (the neighbour farther from the record goes first)
            first += 1
        else:
            last -= 1
    return replace(view, records=tuple(hits[first:last + 1]))


def page_note(view: SessionView, shown: int, cut_at: int = MAX_TEXT_CHARS) -> str | None:
    """What the model reading a bounded page is told: where it ends and how to read on (``shown``: the records
    the page was asked to hold, before the budget; ``cut_at``: the characters a text was cut at, 0 for none);
    None when nothing was left out."""
    if not view.records:
        return None
    first, last = view.records[0].rank, view.records[-1].rank
    whole = (f"texts are cut at {cut_at:,} characters (--max-chars 0: whole); a file (> session.txt) or "
             "--format markdown gets everything") if cut_at else "a file (> session.txt) gets everything"
    cut = (f"note: an agent's shell runs this, so {whole}" if any(h.text_truncated for h in view.records)
           else None)
    if view.focus:
        if len(view.records) >= shown:
            return cut
        return (f"note: an agent's shell runs this, so the context is what fits about {MAX_ANSWER_CHARS:,} "
                f"characters: records {first:,}–{last:,}; {whole}")
    if last >= view.total:
        return cut
    return (f"note: an agent's shell runs this, so a session comes a page at a time, within about "
            f"{MAX_ANSWER_CHARS:,} characters: records {first:,}–{last:,} of {view.total:,}; --offset {last} reads "
            f"on; {whole}")


def _size(value: dict, pretty: bool = False, depth: int = 0) -> int:
    """``value``'s length as --json prints it, compact or indented (``depth``: levels it sits in the document)."""
    if not pretty:
        return len(orjson.dumps(value))
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return len(text) + 2 * depth * (text.count(b"\n") + 1)


def _a_file(stream: IO) -> bool:
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):  # (a stream with no descriptor: captured, not a file)
        return False
