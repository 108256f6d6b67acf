"""Query echoes known by what they show: a tool's output that is what ``backscroll search`` or ``show`` printed is
an echo, whatever ran it (a background shell read by another tool, the MCP server under another name, a script).
Pure; part of the echo rules (``echo.VERSION``, docs/architecture.md, "Echo rules").
"""

from __future__ import annotations

import re

from backscroll.ingest.agent_names import AGENT_NAMES

# What ``backscroll search`` and ``show`` print, however the agent ran them: a hit's rank line over its show command
# (its snippet wrapped on a narrow terminal); a session's header; the JSON documents, read by their opening keys,
# compact as printed or inside an agent's own JSON; tsv rows (an id, an age; by session, an agent's name too).
# ``list`` and ``status`` print none.
# Possessive and lazy runs keep every line's match linear: outputs are up to 256 KiB, a line may be one long run.
_AGE = r"(?:\d+(?:s|min|h|d|mo|y) ago|unknown time|in the future)"  # how ``human_age`` says when
_JSON_AT = (r'^[ \t]*+(?:\[?\{\s*\\?"type\\?"\s*:\s*\\?"text\\?"\s*,\s*\\?"text\\?"\s*:\s*\\?")?'
            r'\{\\?"schema_version\\?":\d+,')  # (as backscroll writes JSON: compact)
_SHOWN = r"(?:-- )?'?[\w-][^\s']*+'?(?: --\w+ \S+)*\r?$"  # a record's or a session's id, the options of an archive
_OUTPUT = re.compile(
    r"^ {0,3}\d{1,4}\. (?=[^\n]*? · " + _AGE + r" · )[^\n]*+\n(?:[^\n]*+\n){0,8} {2,}+backscroll show " + _SHOWN
    + r"|^ {2,}+[^\n]*? · " + _AGE + r" · backscroll show " + _SHOWN
    + r"|^session \S++ ++· [^\n]*+\n(?:[^\n]*+\n){0,2}records? \d[\d,]*+(?:–\d[\d,]*+)? of \d"
    r"|^_[^\n]*? · session \S+_\r?$"
    + r"|" + _JSON_AT + r'(?:\\?"query\\?":[^\n]{0,2000}?\\?"mode\\?":\\?"(?:hybrid|lexical|semantic)'
    r'|\\?"kind\\?":\\?"(?:record|session)\\?",\\?"session\\?"'
    r'|\\?"list\\?":\\?"(?:results|also_matching|weak_matches|sessions)\\?",\\?"rank\\?")'
    r"|^[^\s#]++#[^\t\n]*+\t" + _AGE + r"\t[^\t\n]*+\t[^\t\n]*+\t"
    r"|^[^\s#]++\t" + _AGE + r"\t(?:" + "|".join(AGENT_NAMES) + r")\t[^\t\n]*+\t",  # (by session: an agent's)
    re.M)
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_LINE_NUMBERS = re.compile(r"^ *\d+(?:→|\t)", re.M)  # a file read back: Claude Code's Read (``  1→``), ``cat -n``


def marked(text: str) -> bool:
    """Whether ``text`` holds what every shape above holds (looked for before the patterns are run, and by the store
    when it classifies again): a hit's show command, a JSON document's first key, a session's header or markdown line
    (its "·"), a tsv row's age."""
    return ("backscroll show" in text or "schema_version" in text or ("session " in text and "·" in text)
            or ("\t" in text and ("ago\t" in text or "time\t" in text or "future\t" in text)))


def is_retrieval_output(text: str) -> bool:
    """True when a tool's output is what ``backscroll search`` or ``show`` printed: the answers again, verbatim."""
    if not marked(text):
        return False
    text = _ANSI.sub("", text) if "\x1b" in text else text
    numbered = "→" in text or re.match(r" *\d+\t", text)
    return bool(_OUTPUT.search(_LINE_NUMBERS.sub("", text) if numbered else text))
