"""Human output of search results (rich): one compact entry per hit, then hints on stderr.

Colour only on a terminal and never with ``NO_COLOR``; piped output is plain text, one line per
field, without wrapping.
"""

from __future__ import annotations

import sys

from .dates import human_age
from .records import Hit, SearchResult


def show_command(hit: Hit) -> str:
    return f"backscroll show {hit.record_id}"


def _label(hit: Hit) -> str:
    if hit.content_type == "tool":
        what = f"tool {hit.tool_name}" if hit.tool_name else "tool output"
        if hit.role == "tool" and hit.tool_name and not hit.text.startswith(hit.tool_name):
            pass
    else:
        what = hit.role
    flags = []
    if hit.is_echo:
        flags.append("echo")
    if hit.is_error:
        flags.append("error")
    if hit.is_sidechain:
        flags.append("subagent")
    return what + (f" [{', '.join(flags)}]" if flags else "")


def _entry(hit: Hit):
    from rich.text import Text

    head = Text()
    head.append(f"{hit.rank:>2}. ", style="bold")
    head.append(f"{hit.agent} · {hit.project or '-'} · {human_age(hit.timestamp)} · ", style="dim")
    head.append(_label(hit), style="magenta" if hit.is_echo else "cyan")
    body = Text("    " + hit.snippet)
    for start, end in hit.highlights:
        body.stylize("bold yellow", start + 4, end + 4)
    foot = Text("    " + show_command(hit), style="dim")
    return head, body, foot


def print_hits(console, hits: tuple[Hit, ...]) -> None:
    for hit in hits:
        for line in _entry(hit):
            console.print(line, soft_wrap=True)


def also_heading(result: SearchResult) -> str:
    dropped = ", ".join(f"--{name.replace('_', '-')} {getattr(result.filters, name)}" for name in result.dropped_filters)
    return f"Also matching without {dropped} (these records are not tagged that way):"


def print_result(result: SearchResult, *, color: bool) -> None:
    from rich.console import Console

    out = Console(highlight=False, no_color=not color, force_terminal=color or None, soft_wrap=True)
    if result.repeated:
        out.print(result.notes[0] if result.notes else "[repeated search]", style="bold yellow" if color else None,
                  markup=False)
        return
    if not result.results:
        out.print("No matches" + (" with those filters." if result.also_matching else "."),
                  style="dim" if color else None)
    print_hits(out, result.results)
    if result.also_matching:
        out.print()
        out.print(also_heading(result), style="bold" if color else None, markup=False)
        print_hits(out, result.also_matching)


def stderr_hints(result: SearchResult) -> list[str]:
    if result.repeated:
        return []
    lines = list(result.notes)
    if result.echoes_hidden:
        lines.append(
            f"{result.echoes_hidden} query echo(es) hidden (earlier backscroll searches and their output); "
            "show them with --include-echoes, or --content-type tool"
        )
    if not result.results and not result.also_matching:
        tips = []
        if any(v for v in (result.filters.role, result.filters.agent, result.filters.content_type,
                           result.filters.project, result.filters.session, result.filters.since,
                           result.filters.until)):
            tips.append("drop a filter")
        tips.append("try other words")
        lines.append("no results: " + ", or ".join(tips) + "; `backscroll status` shows what is indexed")
    return lines


def write_stderr(lines: list[str]) -> None:
    for line in lines:
        sys.stderr.write(line + "\n")
