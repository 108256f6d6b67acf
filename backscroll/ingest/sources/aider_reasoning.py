"""The model's reasoning in a reply as Aider logged it: between its own rulers (``THINKING``/``ANSWER``), inside
``<think>``-style tags (Aider's own tag or the model's), or before a lone closing tag. Pure."""

from __future__ import annotations

import re

_RULERS = re.compile(r"-{3,}\s*\n► \*\*THINKING\*\*\s*\n(.*?)\n-{3,}\s*\n► \*\*ANSWER\*\*\s*\n?", re.DOTALL)
# Aider's own tag (``REASONING_TAG`` in aider/reasoning_tags.py) and the ones models write themselves.
_REASONING_TAGS = r"thinking-content-[0-9a-f]+|think|thinking|reasoning"
_OPENING_TAG = re.compile(rf"\s*<(?:{_REASONING_TAGS})>")
_CLOSING_TAG = re.compile(rf"</(?:{_REASONING_TAGS})>")
# A closing tag alone on its line with no opening one: the model's template opened the thought.
_LONE_CLOSING_TAG = re.compile(r"^[ \t]*</think>[ \t]*$", re.MULTILINE)


def split_reasoning(reply: str) -> tuple[str, str]:
    """``(reasoning, answer)`` of one reply as Aider logged it; the reasoning is empty when there is none."""
    rulers = _RULERS.search(reply + "\n")
    if rulers:
        return rulers.group(1).strip(), (reply[:rulers.start()] + reply[rulers.end():]).strip()
    opening = _OPENING_TAG.match(reply)
    if opening:
        closing = _CLOSING_TAG.search(reply, opening.end())
        if not closing:
            return reply[opening.end():].strip(), ""  # cut short while thinking
        return reply[opening.end():closing.start()].strip(), reply[closing.end():].strip()
    closing = _LONE_CLOSING_TAG.search(reply)
    if closing and "```" not in reply[:closing.start()]:  # not a tag in code the reply shows
        return reply[:closing.start()].strip(), reply[closing.end():].strip()
    return "", reply.strip()
