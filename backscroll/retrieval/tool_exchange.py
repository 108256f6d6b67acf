"""A tool output carries the words of the call that produced it. Pure.

People ask about an output by what was run to get it: "which commit broke the webhook signature
check" is answered by a ``git log`` listing of hashes and subjects, "how much disk does the message
log take" by a table holding "412 GB", while the words of the question sit in the call
(``git log -- app/webhooks``, ``pg_total_relation_size``). So a tool output's words evidence is
the share of the query that it *or its call* holds (``ranking.Ranking.call_words``), and the output
of every call the lexical tool list found joins that list right behind its call. A call keeps its
own words only: asked about the command, the command still comes before what it printed
(an output holding the same words ties with it and comes after it).

A receipt is not an answer: an output most of whose words its call already holds ("File created
successfully at: <the path written>", "Success. Updated the following files: M <path>", "<resource>
configured") says nothing the call does not, so it gets no share of the call's words and does not
join (``receipts``); it still counts the words it holds itself. A printed result, even a short one
(a number, a list of SKUs and totals), holds words its command does not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from dataclasses import dataclass, replace

RECEIPT_NEW_WORDS = 0.5  # an output with fewer new words than this share of its own is a receipt
RECEIPT_CHARS = 2000  # the start of an output that is read for it (a receipt is a line or two)

Partners = dict[int, tuple[bool, list[tuple[int, bool]]]]  # ``Store.tool_exchanges``: id -> (is call, others)


@dataclass(frozen=True)
class Exchanges:
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
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def is_receipt(output: str, calls: list[str]) -> bool:
    """Whether fewer than ``RECEIPT_NEW_WORDS`` of the output's distinct words are new, not in its calls
    (an empty output says nothing either)."""
    own = _words(output[:RECEIPT_CHARS])
    if not own:
        return True
    new = own - set().union(*(_words(c) for c in calls))
    return len(new) < RECEIPT_NEW_WORDS * len(own)


def receipts(ex: Exchanges, texts: Mapping[int, str]) -> set[int]:
    """The outputs in ``ex`` that are receipts of their calls (``texts``: every output's and call's text)."""
    return {o for o, cs in ex.calls.items() if is_receipt(texts.get(o, ""), [texts.get(c, "") for c in cs])}


def without(ex: Exchanges, tool: list[int], receipts: Set[int]) -> Exchanges:
    """``ex`` with the ``receipts`` credited nothing, and those that joined the tool list (not in ``tool``) out."""
    if not receipts:
        return ex
    listed = set(tool)
    return replace(ex, ranked=[i for i in ex.ranked if i in listed or i not in receipts],
                   calls={o: cs for o, cs in ex.calls.items() if o not in receipts})
