"""Human output of search results (rich): one compact entry per hit, then hints on stderr.

Colour only on a terminal and never with ``NO_COLOR``; piped output is plain text, one line per
field, without wrapping. Session text never reaches the terminal raw: control characters other
than newline and tab (escape sequences that write the clipboard, clear the screen or set the
title) are shown as visible symbols (``␛``) in every human output; JSON keeps them, escaped.
"""

from __future__ import annotations

import os
import sys

from backscroll.dates import human_age, local_time
from backscroll.types import Hit, SearchResult

# C0 controls and DEL as their visible Control Pictures (ESC -> ␛), C1 controls as U+FFFD: one
# character for one, so highlight offsets stay valid. Newline and tab are kept.
_CONTROLS = {c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A)}
_CONTROLS[0x7F] = 0x2421
_CONTROLS.update({c: 0xFFFD for c in range(0x80, 0xA0)})


def clean(text: str) -> str:
    """``text`` safe to print on a terminal: every control character except ``\n``/``\t`` made visible. Pure."""
    return text.translate(_CONTROLS)


def _clean_renderable(obj):
    from rich.text import Text

    if isinstance(obj, str):
        return clean(obj)
    if isinstance(obj, Text):
        plain = obj.plain
        safe = clean(plain)
        if safe != plain:
            obj = obj.copy()
            obj.plain = safe
    return obj


def console(color: bool, *, markup: bool = False):
    """A rich console on stdout: colour only when asked, user text never read as markup, and a
    reader that stops early (``| head``) ending the program quietly with status 0."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise BrokenPipeError

        def print(self, *objects, **kw) -> None:
            super().print(*(_clean_renderable(o) for o in objects), **kw)

    import shutil

    terminal = _is_terminal(sys.stdout)
    extra = {} if color else {"color_system": None}  # no colour means no styles at all (bold, dim)
    return _Console(highlight=False, no_color=not color, force_terminal=color or None, soft_wrap=not terminal, **extra,
                    markup=markup, width=shutil.get_terminal_size().columns if terminal else None,
                    file=sys.stdout)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def short_path(path: str) -> str:
    """``~/…`` for paths under the home directory."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home not in ("", "/") and path.startswith(home + os.sep) else path


def show_command(hit: Hit) -> str:
    return f"backscroll show {hit.record_id}"


def _label(hit: Hit, *, subagent: bool = True) -> str:
    """``assistant``, ``tool Bash``, ``output of Bash``, with ``[echo, error, subagent]`` flags."""
    if hit.content_type == "tool":
        what = f"tool {hit.tool_name}" if hit.is_call else f"output of {hit.tool_name or 'a tool'}"
    else:
        what = hit.role
    flags = [name for name, on in (("echo", hit.is_echo), ("error", hit.is_error),
                                   ("subagent", subagent and hit.is_sidechain)) if on]
    return what + (f" [{', '.join(flags)}]" if flags else "")


def _entry(hit: Hit):
    from rich.text import Text

    head = Text()
    head.append(f"{hit.rank:>2}. ", style="bold")
    head.append(f"{hit.agent} · {hit.project or '-'} · {human_age(hit.timestamp)} · ", style="dim")
    head.append(_label(hit), style="magenta" if hit.is_echo else "cyan")
    if hit.match == "meaning":
        head.append(" (meaning only)", style="dim")
    body = Text(hit.snippet)
    for start, end in hit.highlights:
        body.stylize("bold yellow", start, end)
    foot = Text(show_command(hit), style="dim")
    foot.append(f"\n{short_path(hit.source_path)}:{hit.line}")
    return head, body, foot


def print_hits(console, hits: tuple[Hit, ...]) -> None:
    """One entry per hit; on a terminal the snippet wraps to its width, indented, and piped it is one line."""
    from rich.padding import Padding

    for hit in hits:
        head, body, foot = _entry(hit)
        console.print(head)
        if console.soft_wrap:
            console.print(_indent(body))
            console.print(_indent(foot))
        else:
            console.print(Padding(body, (0, 0, 0, 4)))
            console.print(Padding(foot, (0, 0, 0, 4)))


def _indent(text):
    from rich.text import Text

    out = Text("    ")
    out.append_text(text)
    return out


def also_heading(result: SearchResult) -> str:
    dropped = ", ".join(f"--{name.replace('_', '-')} {getattr(result.filters, name)}" for name in result.dropped_filters)
    return f"Also matching without {dropped} (these records are not tagged that way):"


def print_result(result: SearchResult, *, color: bool) -> None:
    out = console(color)
    if result.repeated:
        out.print(result.notes[0] if result.notes else "[repeated search]", style="bold yellow" if color else None)
        return
    if not result.results:  # on stderr: stdout stays empty, so `| wc -l` counts hits
        sys.stderr.write("No matches" + (" with those filters.\n" if result.also_matching else ".\n"))
        sys.stderr.flush()
    print_hits(out, result.results)
    if result.also_matching:
        out.print()
        out.print(also_heading(result), style="bold" if color else None)
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
        sys.stderr.write(clean(line) + "\n")


# -- show and list ------------------------------------------------------------------------------

FOLD_TOOL_LINES = 12
FOLD_TEXT_LINES = 60


def fold(text: str, max_lines: int) -> tuple[list[str], int]:
    """The lines to print and how many were folded away (head and tail kept). Pure."""
    lines = text.splitlines() or [""]
    if max_lines <= 0 or len(lines) <= max_lines:
        return lines, 0
    head = max_lines - 3
    return lines[:head] + lines[-2:], len(lines) - head - 2


def _record_lines(hit: Hit, full: bool) -> tuple[str, list[str], int]:
    from backscroll.ingest.echo import SHELL_TOOLS

    when = local_time(hit.timestamp, seconds=True)
    head = f"[{hit.rank}] {when} · {_label(hit, subagent=False)}"  # the session header says subagent
    text = hit.text
    if hit.is_call and hit.tool_name in SHELL_TOOLS:
        text = "$ " + text
    limit = 0 if full else (FOLD_TOOL_LINES if hit.content_type == "tool" else FOLD_TEXT_LINES)
    lines, folded = fold(text, limit)
    return head, lines, folded


def print_session_view(view, *, full: bool, color: bool) -> None:
    from rich.text import Text

    out = console(color)
    s = view.session
    meta = " · ".join(str(x) for x in (s.get("agent"), s.get("project"), s.get("cwd"),
                                       local_time(s.get("started_at"))) if x)
    out.print(Text(f"session {s['session_id']}", style="bold"), Text(f" · {meta}", style="dim"))
    if s.get("title"):
        out.print(Text(f"title: {s['title']}", style="dim"))
    if s.get("is_sidechain"):
        out.print(Text(f"subagent of session {s.get('parent_session_id') or '(unknown)'}", style="dim"))
    if view.records:
        first, last = view.records[0].rank, view.records[-1].rank
        out.print(Text(f"records {first}–{last} of {view.total}", style="dim"))
    else:
        out.print(Text(f"no records from position {view.offset + 1}: the session has {view.total}", style="dim"))
    out.print()
    for hit in view.records:
        head, lines, folded = _record_lines(hit, full)
        focus = hit.record_id == view.focus
        style = "bold yellow" if focus else ("magenta" if hit.is_echo else "cyan")
        out.print(Text(("▶ " if focus else "  ") + head, style=style))
        for line in lines[: len(lines) - (2 if folded else 0)]:
            out.print(Text("    " + line))
        if folded:
            out.print(Text(f"    … {folded} more lines (--full shows them)", style="dim"))
            for line in lines[-2:]:
                out.print(Text("    " + line))
    if view.records and view.records[-1].rank < view.total and not view.focus:
        out.print(Text(f"\n{view.total - view.records[-1].rank} more: backscroll show {s['session_id']} "
                       f"--offset {view.records[-1].rank}", style="dim"))
    if view.focus:
        out.print(Text(f"\nwhole session: backscroll show {s['session_id']}", style="dim"))


def print_sessions(sessions: list[dict], *, color: bool) -> None:
    from rich.text import Text

    out = console(color)
    if not sessions:
        out.print("No sessions.")
        return
    for s in sessions:
        when = local_time(s["started_at"] or s["updated_at"])
        line = Text()
        line.append(f"{when:<16}  ", style="dim")
        line.append(f"{s['agent']:<6} {(s['project'] or '-'):<14} ", style="cyan")
        line.append(f"{s['records']:>5} rec", style="dim")
        line.append(f" {s['echoes']:>3} echo  " if s["echoes"] else "           ", style="magenta")
        line.append(("↳ " if s["is_sidechain"] else "") + (s["title"] or "(untitled)"))
        out.print(line)
        out.print(Text(f"{'':16}  backscroll show {s['session_id']}", style="dim"))


# -- output for agents and pipes: json, jsonl, tsv, ids -------------------------------------------

FORMATS = ("human", "json", "jsonl", "tsv", "ids")


def hit_fields(hit: dict, fields: tuple[str, ...] | None) -> dict:
    return {k: hit[k] for k in fields} if fields else hit


def check_fields(spec: str | None) -> tuple[str, ...] | None:
    """``--fields a,b,c`` as a tuple of hit fields (a usage error names the known ones)."""
    from backscroll.errors import UsageError

    if not spec:
        return None
    known = tuple(Hit.__dataclass_fields__)
    known = tuple(k for k in known if k not in ("highlights", "rowid", "is_call"))
    fields = tuple(dict.fromkeys(f.strip() for f in spec.split(",") if f.strip()))
    unknown = [f for f in fields if f not in known]
    if unknown or not fields:
        raise UsageError(f"unknown field(s) for --fields: {', '.join(unknown) or '(none given)'}",
                         hint=f"known: {', '.join(known)}")
    return fields


def search_document(result: SearchResult, fields: tuple[str, ...] | None, max_bytes: int | None,
                    dumps) -> bytes:
    """The ``--json`` document, its hits cut to ``fields``; with ``max_bytes``, as many whole hits as
    fit (the last ones dropped first, ``omitted_for_budget`` says how many)."""
    doc = result.to_dict()
    doc["results"] = [hit_fields(h, fields) for h in doc["results"]]
    doc["also_matching"] = [hit_fields(h, fields) for h in doc["also_matching"]]
    doc["omitted_for_budget"] = 0
    data = dumps(doc)
    while max_bytes is not None and len(data) + 1 > max_bytes and (doc["results"] or doc["also_matching"]):
        (doc["also_matching"] or doc["results"]).pop()
        doc["omitted_for_budget"] += 1
        data = dumps(doc)
    return data


def jsonl_lines(result: SearchResult, fields: tuple[str, ...] | None, max_bytes: int | None) -> tuple[list[bytes], int]:
    """One compact JSON object per hit (``list`` says results or also_matching); whole lines within ``max_bytes``."""
    import orjson

    lines, used, omitted = [], 0, 0
    for name, hits in (("results", result.results), ("also_matching", result.also_matching)):
        for h in hits:
            line = orjson.dumps({"schema_version": result.schema_version, "list": name,
                                 **hit_fields(h.to_dict(), fields)}) + b"\n"
            if max_bytes is not None and used + len(line) > max_bytes:
                omitted += 1
                continue
            used += len(line)
            lines.append(line)
    return lines, omitted


def tsv_lines(result: SearchResult) -> list[str]:
    """``record id, age, agent, project, snippet`` per hit, tab-separated (for fzf, cut, awk)."""
    out = []
    for h in (*result.results, *result.also_matching):
        cells = (h.record_id, human_age(h.timestamp), h.agent, h.project or "-", h.snippet)
        out.append("\t".join(clean(" ".join(str(c).split())) for c in cells))
    return out
