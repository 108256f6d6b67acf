"""An agent a question names as its subject ("what did codex do in March?"): a hint, the way dates are.

Only a name said as the subject or the place of the work counts: after "did", "with", "in", "my" ...,
or before "sessions", "said", "suggested" ... ("codex config.toml" is a topic, not a filter). Names that
are everyday words or other things' names too (cursor, goose, amp, pi, zed, crush, roo, kilo, omp, continue,
vibe; hermes, a JavaScript engine) are never read this way.
The name (with "code" or "cli" after it) leaves the words searched; the search prefers that agent's
records, and the others still come as ``also_matching``. Pure.
"""

from __future__ import annotations

import re

SPOKEN = ("claude", "codex", "gemini", "opencode", "copilot", "cline", "aider", "qwen", "kimi", "droid",
          "openhands", "openclaw", "auggie", "kiro")
_NAME = "|".join(SPOKEN)
_BEFORE = r"did|does|do|has|had|was|were|with|in|from|by|using|via|asked|ask|told|my|our|the|of|to"
_AFTER = (r"sessions?|chats?|conversations?|did|does|do|said|says|say|wrote|suggested|proposed|decided|thought|"
          r"told|tried|made|fixed|changed|ran|used|agent")
_SUFFIX = r"(?:[ \t]+(?:code|cli))?"
_SPOKEN = re.compile(rf"(?i)\b(?:{_BEFORE})\s+(?P<a>(?:{_NAME}){_SUFFIX})\b"
                     rf"|\b(?P<b>(?:{_NAME}){_SUFFIX})(?=\s+(?:{_AFTER})\b)")

_SESSIONS = re.compile(r"(?i)\s+(?:sessions?|chats?|conversations?)\b")


def find(text: str) -> tuple[str | None, str]:
    """The agent ``text`` names as its subject, and ``text`` without the name (unchanged when none)."""
    m = _SPOKEN.search(text)
    if m is None:
        return None, text
    group = "a" if m.group("a") else "b"
    start, end = m.span(group)
    if tail := _SESSIONS.match(text, end):  # "codex sessions": the words say where, not what
        end = tail.end()
    return m.group(group).split()[0].lower(), f"{text[:start].rstrip()} {text[end:].lstrip()}".strip()
