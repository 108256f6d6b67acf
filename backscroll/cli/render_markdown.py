"""``show … --format markdown``: a conversation as Markdown, to paste into an issue or a pull request.

Each turn under a heading naming who spoke and when; prose as it was written; tool calls and their
outputs, reasoning and compaction summaries folded (``<details>``), their text in code blocks. A fence
is always longer than any run of backticks in the text it holds, so session text cannot close it
early; control characters are made visible (``render.clean``). Session text's code blocks are written in fences
of our own, its code spans as ``<code>``; outside code it is escaped: no tag it holds (``<img src=…>``, ``<a
href=…>``), no Markdown image and no backtick of its own renders where the export is pasted (what CommonMark
would pair is never left to it), a fence it leaves open is closed where its record ends, and its headings sit
below the turns' (``##``). Pure: a ``SessionView`` in, text out.
"""

from __future__ import annotations

import html
import re

from backscroll.dates import local_time
from backscroll.numbers import page_span
from backscroll.types import Hit, SessionView

FOLD_OUTPUT_LINES = 200  # lines of a tool output kept (head and tail) in an export


def _fence(text: str, info: str = "") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def _summary_line(text: str, width: int = 80) -> str:
    from backscroll.sanitize import within

    return html.escape(within(" ".join(text.split()), width), quote=False)  # (in HTML: no Markdown is read there)


def _inline(text: str) -> str:
    """Text that is not code, made inert: no tag, entity, Markdown image or code span of its own renders (a
    backtick left to CommonMark could pair with another across lines, past what this module escaped), and no
    ``@mention`` or ``#123`` reference GitHub would act on (notify, cross-link, close an issue): those are code."""
    text = html.escape(text, quote=False).replace("![", "!\\[")
    if "`" in text:
        text = re.sub(r"\\(?=`)", r"\\\\", text).replace("`", "\\`")
    return _REFERENCE.sub(lambda m: _code(m.group()), text) if "@" in text or "#" in text else text


# What GitHub links in prose: a mention (``@name``, ``@org/team``) and an issue or pull request (``#12``,
# ``owner/repo#12``); not an e-mail address (``a@b.com``), nor a heading or an entity.
_REFERENCE = re.compile(r"(?<![\w.@/&`])@[A-Za-z0-9][\w.-]*(?<![.-])(?:/[\w.-]+)?"
                        r"|(?<![\w&#/`;])(?:[\w.-]+/[\w.-]+)?#\d+\b")


def _code(text: str) -> str:
    """A code span's text as an HTML ``<code>`` whose every character shows as written: escaped for HTML, and its
    Markdown punctuation too (inside a tag, CommonMark still reads ``*`` and ``_``)."""
    return "<code>" + html.escape(_MARKUP.sub(r"\\\g<0>", text), quote=False) + "</code>"


_MARKUP = re.compile(r"[\\`*_\[\]!|~]")  # (what CommonMark and GitHub read inline)


# A fenced block at any indentation (in a list item too): written again in a fence of our own at the margin.
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<ticks>`{3,}|~{3,})(?P<info>[^\n]*)"
                    r"(?:\n(?P<body>(?:.*?\n)??)[ \t]*(?P=ticks)[`~]*[ \t]*(?:\n|$)|(?P<rest>.*))",
                    re.MULTILINE | re.DOTALL)
# A code span on one line, not opened by an escaped backtick: where CommonMark could read it otherwise (a span
# across lines ends at any block that starts between), its text is escaped as prose is, which is only ever safe.
_CODE_SPAN = re.compile(r"(?<![\\`])(`+)(?!`)[^\n]+?(?<!`)\1(?!`)")
# A heading in session text is pushed two levels down, below the turns' own (``##``), at any indentation, in a list
# item or a quote too, and a setext underline (``---``, ``===`` under a line of text) is escaped: session text cannot
# forge a turn.
_HEADING = re.compile(r"^((?:[ \t]*(?:[-+*]|\d{1,9}[.)]|>)(?=[ \t]))*[ \t]*)(#{1,6})(?=[ \t]|$)", re.MULTILINE)
_UNDERLINE = re.compile(r"^([^\n]*\S[^\n]*\n[ \t]*)(?=(?:=+|-+)[ \t]*$)", re.MULTILINE)


def _demoted(text: str) -> str:
    if "#" in text:
        text = _HEADING.sub(lambda m: m.group(1) + "#" * min(len(m.group(2)) + 2, 6), text)
    return _UNDERLINE.sub(r"\1\\", text) if "-" in text or "=" in text else text


def _prose(text: str) -> str:
    """Prose as Markdown: its code blocks in fences of our own (``_fence``: one CommonMark cannot read otherwise, a
    fence left open closed where its record ends), its code spans as ``<code>``, everything else ``_inline``."""
    out, last = [], 0
    for block in _FENCE.finditer(text):
        out.append(_spans(_demoted(text[last:block.start()])))
        language = re.match(r"[\w+.#-]{0,30}", block["info"].strip())  # (the first word, and only word characters)
        body = block["body"] if block["rest"] is None else block["rest"].removeprefix("\n")  # (else: never closed)
        width = len(block["indent"])  # (its lines lose the indentation its fence had, as CommonMark's do)
        body = "\n".join(re.sub(rf"^[ \t]{{0,{width}}}", "", line) for line in (body or "").rstrip("\n").split("\n"))
        out.append(_fence(body, language.group(0) if language else "") + "\n")
        last = block.end()
    out.append(_spans(_demoted(text[last:])))
    return "".join(out)


def _spans(text: str) -> str:
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        ticks = span.group(1)
        out += [_inline(text[last:span.start()]), _code(span.group(0)[len(ticks):-len(ticks)])]
        last = span.end()
    out.append(_inline(text[last:]))
    return "".join(out)


def _record(hit: Hit, full: bool = False) -> str:
    from backscroll.cli.render import clean
    from backscroll.cli.render_session import fold

    when = local_time(hit.timestamp) or "undated"
    text = clean(hit.text) + ("…" if hit.text_truncated else "")  # (cut by --max-chars, or when stored)
    if hit.content_type == "tool":
        lines, folded = fold(text, 0 if full else FOLD_OUTPUT_LINES)
        body = "\n".join(lines) + (f"\n… {folded} lines folded …" if folded else "")
        if hit.is_call:
            title = f"{_summary_line(clean(hit.tool_name or 'tool'))}: <code>{_summary_line(text)}</code>"
        else:
            failed = " (error)" if hit.is_error else ""
            title = f"output of {_summary_line(clean(hit.tool_name or 'a tool'))}{failed}"
        return f"<details><summary>{title}</summary>\n\n{_fence(body)}\n\n</details>"
    if hit.content_type in ("reasoning", "summary"):
        label = "reasoning" if hit.content_type == "reasoning" else "compaction summary"
        return f"<details><summary>{label} · {when}</summary>\n\n{_fence(text)}\n\n</details>"
    who = {"user": "User", "assistant": "Assistant"}.get(hit.role) or _inline(" ".join(clean(hit.role).split()))[:40]
    return f"## {who} · {when}\n\n{_prose(text)}"


def session_markdown(view: SessionView, full: bool = False) -> str:
    """The page of the session ``view`` holds, as Markdown (``full``: long tool outputs whole, as ``--full`` asks)."""
    from backscroll.cli.render import clean

    s = view.session
    title = _inline(" ".join(clean(s.get("title") or "Untitled session").split()))
    owner = f"{s['member']}@{s.get('machine')}" if s.get("member") else None  # (a team archive's: whose, from where)
    facts = " · ".join(_inline(" ".join(clean(str(x)).split())) for x in (owner, s.get("agent"), s.get("project"),
                                                         local_time(s.get("started_at")),
                                                         f"session {s.get('session_id')}") if x)
    parts = [f"# {title}", f"_{facts}_"]
    if view.offset or view.offset + len(view.records) < view.total:
        parts.append(f"_{page_span(view.offset + 1, view.offset + len(view.records), view.total)}_")
    parts += [_record(h, full) for h in view.records]
    return "\n\n".join(parts) + "\n"
