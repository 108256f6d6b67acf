"""A tool output carries the words of the call that produced it. Pure.

People ask about an output by what was run to get it: "which commit broke the webhook signature
check" is answered by a ``git log`` listing of hashes and subjects, "how much disk does the message
log take" by a table holding "412 GB", while the words of the question sit in the call
(``git log -- app/webhooks``, ``pg_total_relation_size``). So a tool output's words evidence is
the share of the query that it *or its call* holds (as if the output held them), and the output
of every call the lexical tool list found joins that list right behind its call. A call keeps its
own words only: asked about the command, the command still comes before what it printed
(an output holding the same words ties with it and comes after it).

A receipt is not an answer. An output says nothing its call does not when most of its words repeat
the call ("File created successfully at: <the path written>", "Success. Updated the following files:
M <path>"), or when it is a message of a line or two with no new number, path or name in it ("Todos
have been modified successfully. Ensure that you continue...", "Plan updated", "(no output)"). Such an output
gets no share of the call's words and does not join (``receipts``); it still counts the words it
holds itself. A printed result, even a short one ("412 messages.log", a list of SKUs and totals, the
path ``find`` found), holds a number or a name its command does not. When the list itself found an
output before its call, the two keep that order.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from dataclasses import dataclass, replace

from backscroll.indexes.lexical_schema import analyze

RECEIPT_NEW_WORDS = 0.5  # an output with fewer new words than this share of its own is a receipt...
RECEIPT_LINES = 2  # ... and so is a message of this many lines or fewer with no new data token
RECEIPT_CHARS = 2000  # the start of an output that is read for it (a receipt is a line or two)
CALL_CHARS = 4000  # the start of a call it is compared with (a Write or an Edit names its path first)
_DATA = re.compile(r"\d|\w[_./:\\-]\w|[a-z][A-Z]")  # a number, or an identifier's joint: a path, a key, a name

Partners = dict[int, tuple[bool, list[tuple[int, bool]]]]  # ``Store.tool_partners``: id -> (is call, others)


@dataclass(frozen=True)
class Exchanges:
    """The lexical tool list with the outputs of its calls, and which call made each output."""

    ranked: list[int]  # the tool list, each call's output right behind the call
    calls: dict[int, tuple[int, ...]]  # each tool output in ``ranked`` -> the call(s) that produced it


def outputs_to_add(tool: list[int], partners: Partners) -> list[int]:
    """The outputs of the calls in ``tool`` that the list does not hold yet (to be filtered)."""
    listed = set(tool)
    return [b for i in tool if partners.get(i, (False, []))[0]
            for b, b_call in partners[i][1] if not b_call and b not in listed]


def with_outputs(tool: list[int], partners: Partners, allowed: Set[int]) -> Exchanges:
    """The tool list with the ``allowed`` outputs of its calls behind them, and every output's calls."""
    listed = set(tool)
    ranked: list[int] = []
    seen: set[int] = set()
    calls: dict[int, tuple[int, ...]] = {}
    for i in tool:
        if i in seen:
            continue
        ranked.append(i)
        seen.add(i)
        is_call, others = partners.get(i, (False, []))
        if not is_call:
            made_by = tuple(b for b, b_call in others if b_call)
            if made_by:
                calls[i] = made_by
            continue
        for b, b_call in others:
            if not b_call and b in allowed and b not in listed and b not in seen:
                ranked.append(b)
                seen.add(b)
                calls[b] = (i,)
    return Exchanges(ranked, calls)


def _words(text: str) -> set[str]:
    return set(analyze(text))  # the index's words: what a search could find in the output


def is_receipt(output: str, calls: list[str]) -> bool:
    """Whether the output says nothing its calls do not: no new data token (a number, a path, an
    identifier) and either fewer than ``RECEIPT_NEW_WORDS`` of its distinct words new or at most
    ``RECEIPT_LINES`` lines in all. An empty output says nothing either."""
    head = output[:RECEIPT_CHARS]
    own = _words(head)
    if not own:
        return True
    said = "\n".join(c[:CALL_CHARS] for c in calls).lower()
    tokens = (t.strip(".,;:!?()[]{}<>\"'`") for t in head.split())
    if any(_DATA.search(t) and t.lower() not in said for t in tokens):
        return False
    new = own - _words(said)
    lines = sum(1 for line in head.splitlines() if line.strip())
    return len(new) < RECEIPT_NEW_WORDS * len(own) or lines <= RECEIPT_LINES


def receipts(ex: Exchanges, texts: Mapping[int, str]) -> set[int]:
    """The outputs in ``ex`` that are receipts of their calls (``texts``: every output's and call's text)."""
    return {o for o, cs in ex.calls.items() if is_receipt(texts.get(o, ""), [texts.get(c, "") for c in cs])}


def without(ex: Exchanges, tool: list[int], left_out: Set[int]) -> Exchanges:
    """``ex`` with the outputs ``left_out`` credited nothing, and those that joined the tool list (not in
    ``tool``) out of it."""
    if not left_out:
        return ex
    listed = set(tool)
    return replace(ex, ranked=[i for i in ex.ranked if i in listed or i not in left_out],
                   calls={o: cs for o, cs in ex.calls.items() if o not in left_out})
