"""Human output of search results (rich): one compact entry per hit, then hints on stderr.

Colour only on a terminal and never with ``NO_COLOR``; piped output is plain text, one line per
field, without wrapping. Session text never reaches the terminal raw: control characters other
than newline and tab (escape sequences that write the clipboard, clear the screen or set the
title) are shown as visible symbols (``␛``) in every human output; JSON keeps them, escaped.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from backscroll.cli.terminal import clean, clean_line, console, label
from backscroll.dates import human_age
from backscroll.types import Hit, SearchResult


def short_path(path: str) -> str:
    """``~/…`` for paths under the home directory."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home not in ("", "/") and path.startswith(home + os.sep) else path


def show_command(hit: Hit) -> str:
    from backscroll.cli.common import show_command as command

    return command(hit.record_id, hit.member)


def whose(hit: Hit) -> str:
    """``alice@laptop · `` for a team archive's hit (whose it is), nothing for a local one."""
    return f"{hit.member}@{hit.machine} · " if hit.member else ""


def openable(source_path: str, line: int) -> tuple[str, int]:
    """The file and line an editor opens (``$EDITOR +LINE PATH``) for a record read at ``source_path``: a unit
    keyed ``<file>#<part>`` (aider's chat history, an agent's database) is its file; a folder of event files
    (OpenHands) is the event's own file."""
    import glob

    if "#" in source_path and not os.path.exists(source_path):
        head = source_path.rsplit("#", 1)[0]
        if os.path.isfile(head):
            return head, line
    if os.path.isdir(source_path):
        events = os.path.join(glob.escape(source_path), "events")
        found = sorted(glob.glob(os.path.join(events, f"{line}.json")) or
                       glob.glob(os.path.join(events, f"event-{line:05d}*.json")))
        if found:
            return found[0], 1
    return source_path, line


def location(hit: Hit) -> str:
    """Where the record was read, as ``path:line`` an editor opens; on the team archive, whose machine that path
    is on (as read there)."""
    if hit.member:
        return f"{hit.member}@{hit.machine}: {short_path(hit.source_path)}:{hit.line}"
    path, line = openable(hit.source_path, hit.line)
    return f"{short_path(path)}:{line}"


def _entry(hit: Hit):
    from rich.text import Text

    head = Text()
    head.append(f"{hit.rank:>2}. ", style="bold")
    head.append(clean_line(f"{whose(hit)}{hit.agent} · {hit.project or '-'} · {human_age(hit.timestamp)} · "),
                style="dim")
    head.append(clean_line(label(hit)), style="magenta" if hit.is_echo else "cyan")
    if hit.match == "meaning":
        head.append(" (meaning only)", style="dim")
    elif hit.match == "command":
        head.append(" (found by its command)", style="dim")
    body = Text(clean(hit.snippet))  # one character for one: the highlight offsets hold
    for start, end in hit.highlights:
        body.stylize("bold yellow", start, end)
    foot = Text(clean_line(show_command(hit)), style="dim")
    where = Text(clean_line(location(hit)))
    return head, body, foot, where


def print_hits(console, hits: tuple[Hit, ...]) -> None:
    """One entry per hit; on a terminal the snippet wraps to its width, indented, and piped it is one line.
    The ``backscroll show`` command and the path:line are one unfolded line each, indented."""
    from rich.padding import Padding

    for hit in hits:
        head, body, foot, where = _entry(hit)
        console.print(head)
        if console.soft_wrap:
            console.print(_indent(body))
        else:
            console.print(Padding(body, (0, 0, 0, 4)))
        # the command and path:line are never folded by us, so that a terminal selection copies them whole
        console.print(_indent(foot), soft_wrap=True)
        console.print(_indent(where), soft_wrap=True)


def _indent(text):
    from rich.text import Text

    out = Text("    ")
    out.append_text(text)
    return out


def also_heading(result: SearchResult, given: Mapping[str, Any] | None = None) -> str:
    """The heading of ``also_matching``: the filters left behind, as given (``given``: the request's own values;
    else as the search read them)."""
    from backscroll.retrieval.policy.hints import SCOPE_FILTERS

    names = [n for n in result.dropped_filters if hasattr(result.filters, n)]
    dropped = ", ".join(f"--{name.replace('_', '-')} {(given or {}).get(name) or getattr(result.filters, name)}"
                        for name in names)
    why = ("outside what they leave" if set(names) & set(SCOPE_FILTERS) else
           "other agents' records" if names == ["agent"] else "these records are not tagged that way")
    return f"Also matching without {dropped} ({why}):"


def print_result(result: SearchResult, *, color: bool, offset: int = 0, given: Mapping[str, Any] | None = None
                 ) -> None:
    out = console(color)
    if result.repeated:
        out.print(result.notes[0] if result.notes else "[repeated search]", style="bold yellow" if color else None)
        return
    if says_no_matches(result) and not result.weak_matches:  # on stderr: stdout stays empty, so `| wc -l` counts
        sys.stderr.write(f"No matches past --offset {offset}.\n" if offset else
                         "No matches" + (" with those filters.\n" if result.also_matching else ".\n"))
        sys.stderr.flush()
    if result.sessions:
        print_by_session(out, result, color=color, offset=offset)
    else:
        print_hits(out, result.results)
    if result.also_matching:
        out.print()
        out.print(also_heading(result, given), style="bold" if color else None)
        print_hits(out, result.also_matching)


def says_no_matches(result: SearchResult) -> bool:
    """Whether an empty answer is told as "No matches" (not when the query had nothing to search for: its note
    says why)."""
    from backscroll.retrieval.query import NOTHING_TO_SEARCH

    return not result.results and not any(n.startswith(NOTHING_TO_SEARCH) for n in result.notes)


def print_by_session(out, result: SearchResult, *, color: bool, offset: int = 0) -> None:
    """``--by-session``: a heading per session (its title, project, agent, when), then its best hits; numbered on
    from ``offset`` (a later page's first session is ``offset + 1``)."""
    from backscroll.cli.common import show_command as command
    from backscroll.sanitize import within

    for n, s in enumerate(result.sessions, start=offset + 1):
        if n > offset + 1:
            out.print()
        title = within(" ".join((s.title or "(untitled)").split()), 100)  # (a title reads to its cut, not around it)
        out.print(clean_line(f"{n}. {title}"), style="bold" if color else None, soft_wrap=True)
        owner = whose(s.hits[0]) if s.hits else ""
        show = command(s.session_id, s.hits[0].member if s.hits else None)
        out.print(clean_line(f"   {owner}{s.agent} · {s.project or '-'} · {human_age(s.started_at)} · {show}"),
                  style="dim" if color else None, soft_wrap=True)
        print_hits(out, s.hits)


def stderr_hints(result: SearchResult, offset: int = 0) -> list[str]:
    if result.repeated:
        return []
    from backscroll.retrieval.judgement import NOTHING_STRONG

    lines = [n for n in result.notes if not n.startswith(NOTHING_STRONG)]
    if result.weak_matches and not result.results:  # (no count: the page holds as many as -n, not all there are)
        lines.append(f"{NOTHING_STRONG}; weak matches held back: --weak to see them")
    if result.echoes_hidden:
        lines.append(
            f"{result.echoes_hidden} query {'echo' if result.echoes_hidden == 1 else 'echoes'} hidden "
            "(earlier backscroll searches and their output); "
            "show them with --include-echoes, or --content-type tool"
        )
    if result.has_more and result.results:
        shown = len(result.sessions) if result.sessions else len(result.results)
        lines.append(f"more {'sessions' if result.sessions else 'results'}: --offset {offset + shown}")
    if says_no_matches(result) and not offset and not result.also_matching and not result.weak_matches:
        tips = []
        f = result.filters
        if any(v for v in (f.role, f.author, f.agent, f.content_type, f.project, f.session, f.file, f.since,
                            f.until)):
            tips.append("drop a filter")
        tips.append("try other words")
        lines.append("no results: " + ", or ".join(tips) + "; `backscroll status` shows what is indexed")
    return lines


def write_stderr(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(clean(line) + "\n")
