"""Priors: what a record's kind, length and time say before its words and meaning do. Pure.

They scale a candidate's fused evidence (``fusion.score``), which is why that score must be one
that means something: a prior adjusts the evidence, it never replaces it.

- ``information``: near-empty prose ("Bye, Deb!", "Let's go into more detail.") carries the little
  it says, and a one-line answer nearly all it says. A sentence that puts a topic off ("Let's talk
  more about the trip next time", "Tell me about the pew later") names the topic without saying
  anything of it: it is not counted (``deferral``).
- ``reasoning`` (a weight): the agent's own thinking helps find a session but counts less than what it said
  or did.
- a date in the query (``temporal``): records inside its window count up to ``1 + time_boost``
  times, decaying outside it.
- the speaker the query names: in a chat stored as ``Name: text`` turns, a question about what one
  participant did or said ("What did Ivo find at the flea market?") is answered by that participant's
  own turns, so a turn spoken by a name the query holds counts ``1 + speaker_boost`` times. Records
  without such a label (an agent's sessions) are not affected.
"""

from __future__ import annotations

import re

from backscroll.retrieval.query import STOPWORDS

_WORD = re.compile(r"[A-Za-z0-9']+")
# "Name: " at the start of a line of a chat log (a speaker, not something the line says).
_SPEAKER = re.compile(r"^\s*[A-Z][\w.'-]{0,30}:\s")
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
# A sentence that defers: a time to come, and an ask to talk or hear about it (both, and short).
_LATER = re.compile(r"\b(?:next time|later|another time|some other time)\b", re.IGNORECASE)
_TALK = re.compile(r"\b(?:let'?s|let us|tell me|talk|catch up|go into|more detail)\b", re.IGNORECASE)
# The longest deferral in the eval chats runs 88 characters ("Let's talk about the telescope more next
# time, I want to show you Saturn when it's back."); a sentence twice that long says more than that.
DEFERRAL_CHARS = 160


def deferral(sentence: str) -> bool:
    """Whether a sentence only puts its topic off ("Let's go into more detail about the bear next
    time", "Tell me more next time about Elif!"). Pure."""
    return len(sentence) <= DEFERRAL_CHARS and bool(_LATER.search(sentence)) and bool(_TALK.search(sentence))


def information(text: str, full_words: int) -> float:
    """The evidence a short prose record can carry, in (0, 1]: 1 from ``full_words`` content words up.

    Content words are the distinct words that are not stopwords, after a leading speaker label
    ("Deborah: ") — a name in front of a pleasantry is not content — and outside sentences that only
    put the topic off (``deferral``). ``sqrt(words / full_words)``.
    """
    body = _SPEAKER.sub("", text[:400], count=1)
    said = " ".join(s for s in _SENTENCES.split(body) if not deferral(s)) if _LATER.search(body) else body
    words = {w.lower() for w in _WORD.findall(said)} - STOPWORDS
    return min(1.0, (max(len(words), 1) / full_words) ** 0.5)


_NAME = re.compile(r"\b[A-Z][a-z]+(?:['\u2019]s)?\b")


def names(query: str) -> frozenset[str]:
    """The capitalised words of a query that are not stopwords (its names, as people write them: "What
    did Ivo find?" names Ivo), without a possessive ending. Pure."""
    found = (re.sub(r"['\u2019]s$", "", w) for w in _NAME.findall(query))
    return frozenset(w for w in found if w.lower() not in STOPWORDS)


def speaker(text: str) -> str | None:
    """The speaker label a chat turn is stored with ("Noor: ..."), or None."""
    m = _SPEAKER.match(text)
    return m.group(0).strip().rstrip(":") if m else None


def factor(content_type: str, text: str, closeness: float | None, *, full_words: int, reasoning: float,
           time_boost: float, named: frozenset[str] = frozenset(), speaker_boost: float = 0.0) -> float:
    """How much a record's evidence counts: its kind and length, its closeness to a date in the query, and
    whether its speaker is the one the query names."""
    f = information(text, full_words) if content_type == "text" else reasoning if content_type == "reasoning" else 1.0
    if closeness is not None:
        f *= 1 + time_boost * closeness
    if named and content_type == "text" and speaker(text) in named:
        f *= 1 + speaker_boost
    return f
