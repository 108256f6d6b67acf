"""Recall blocks in what an agent logs: the ``<backscroll-recall>`` block a hook injected is history recalled, not
the person's words. Pure."""

from __future__ import annotations

import bisect
import re

# A recall block as ``backscroll hook`` prints it (its opening tag names backscroll as its source), wherever the agent
# logs it; prose that names the tag (``the hook wraps it in <backscroll-recall>``) is prose. An unclosed one is a
# block cut short only where what follows is no longer than a hook prints: else a person's words after a quoted tag.
RECALL_TAG = "backscroll-recall"
RECALL_MAX = 2048  # the most a recall hook prints (``hooks.CAPS``)
_RECALL_OPEN = re.compile(r'<backscroll-recall\s+source="backscroll"[^>]{0,400}>')
_RECALL_CLOSE = "</backscroll-recall>"
_EMPTY_WRAPPER = re.compile(r"<hook_context>\s*</hook_context>")


def split_recall(text: str) -> tuple[str, list[str]]:
    """``text`` without its ``<backscroll-recall>`` blocks, and the blocks (recalled context: echoes)."""
    if RECALL_TAG not in text:
        return text, []
    closes = [m.end() for m in re.finditer(re.escape(_RECALL_CLOSE), text)]
    blocks: list[str] = []
    kept: list[str] = []
    at = 0
    for m in _RECALL_OPEN.finditer(text):
        if m.start() < at:
            continue
        after = bisect.bisect_left(closes, m.end() + len(_RECALL_CLOSE))  # (the first close after the tag)
        end = closes[after] if after < len(closes) else len(text) if len(text) - m.end() <= RECALL_MAX else -1
        if end < 0:  # unclosed, and more follows than a hook prints: a tag quoted in the person's words
            continue
        kept.append(text[at:m.start()])
        blocks.append(text[m.start():end])
        at = end
    kept.append(text[at:])
    return _EMPTY_WRAPPER.sub("", "".join(kept)).strip(), blocks
