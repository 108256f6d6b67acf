"""Human output of ``show`` (a record in its conversation, or a session) and ``list`` (sessions).

The shared pieces (``console``, labels) come from ``cli/terminal.py``.
"""

from __future__ import annotations

import sys

from backscroll.cli.common import shell_word, show_command
from backscroll.dates import local_time
from backscroll.numbers import page_span
from backscroll.touches import FileTouches
from backscroll.types import Hit, SessionSummary, SessionView

FOLD_TOOL_LINES = 12
FOLD_TEXT_LINES = 60


def fold(text: str, max_lines: int) -> tuple[list[str], int]:
    """The lines to print and how many were folded away (head and tail kept). Pure."""
    lines = text.splitlines() or [""]
    if max_lines <= 0 or len(lines) <= max_lines:
        return lines, 0
    head = max_lines - 3
    return lines[:head] + lines[-2:], len(lines) - head - 2


def _record_lines(hit: Hit, full: bool, shell_tools: frozenset[str]) -> tuple[str, list[str], int]:
    from backscroll.cli.terminal import clean_line, label

    when = local_time(hit.timestamp, seconds=True)
    head = clean_line(f"[{hit.rank}] {when} · {label(hit, subagent=False)}")  # the session header says subagent
    text = hit.text + ("…" if hit.text_truncated else "")  # (cut by --max-chars, or when stored)
    if hit.is_call and hit.tool_name in shell_tools:
        text = "$ " + text
    limit = 0 if full else (FOLD_TOOL_LINES if hit.content_type == "tool" else FOLD_TEXT_LINES)
    lines, folded = fold(text, limit)
    return head, lines, folded  # (not clean yet: print_texts makes a BEL ␇, as search shows it, rich dropping it)


CHUNK_CHARS = 1 << 18  # the text printed at a time: a whole page at once would hold it all twice in memory


def _record_texts(hit: Hit, *, focus: bool, full: bool, shell_tools: frozenset[str]) -> list[tuple[str, str]]:
    """A record as ``show`` prints it: its header, then its text (indented, folded), each with its style."""
    head, lines, folded = _record_lines(hit, full, shell_tools)
    style = "bold yellow" if focus else ("magenta" if hit.is_echo else "cyan")
    shown = lines[: len(lines) - (2 if folded else 0)]
    out = [(("▶ " if focus else "  ") + head, style), ("\n".join("    " + line for line in shown), "")]
    if folded:
        out += [(f"    … {folded} more lines (--full shows them)", "dim"),
                ("\n".join("    " + line for line in lines[-2:]), "")]
    return out


def print_session_view(view: SessionView, *, full: bool, color: bool) -> None:
    from rich.text import Text

    from backscroll.cli.terminal import clean_line, console, print_texts

    out = console(color)
    s = view.session
    owner = f"{s['member']}@{s['machine']}" if s.get("member") else None
    meta = " · ".join(str(x) for x in (owner, s.get("agent"), s.get("project"), s.get("cwd"),
                                       local_time(s.get("started_at"))) if x)
    # (the lines that name an id or a command are never broken by the renderer: they are copied whole)
    out.print(Text(clean_line(f"session {s['session_id']}"), style="bold"),
              Text(clean_line(f" · {meta}"), style="dim"), soft_wrap=True)
    if s.get("title"):
        out.print(Text(clean_line(f"title: {s['title']}"), style="dim"))
    if s.get("is_sidechain"):
        out.print(Text(clean_line(f"subagent of session {s.get('parent_session_id') or '(unknown)'}"), style="dim"))
    if view.records:
        first, last = view.records[0].rank, view.records[-1].rank
        out.print(Text(page_span(first, last, view.total), style="dim"))
    else:
        out.print(Text(f"no records from position {view.offset + 1}: the session has {view.total}", style="dim"))
    out.print()
    from backscroll.ingest.echo import SHELL_TOOLS  # (worked out at each look: once here)

    shell_tools = SHELL_TOOLS
    chunk: list[tuple[str, str]] = []
    size = 0
    for hit in view.records:
        pieces = _record_texts(hit, focus=hit.record_id == view.focus, full=full, shell_tools=shell_tools)
        chunk += pieces
        size += sum(len(text) for text, _ in pieces)
        if size >= CHUNK_CHARS:
            print_texts(out, chunk)
            chunk, size = [], 0
    print_texts(out, chunk)
    show = clean_line(show_command(s["session_id"], s.get("member")))
    if view.records and view.records[-1].rank < view.total and not view.focus:
        out.print(Text(f"\n{view.total - view.records[-1].rank} more: {show} --offset {view.records[-1].rank} "
                       f"--limit {len(view.records)}", style="dim"), soft_wrap=True)
    if view.focus:
        out.print(Text("\n" + clean_line(f"whole session: {show}"), style="dim"), soft_wrap=True)
    if not owner and resumes(s.get("agent")):
        gap = "" if view.focus else "\n"
        out.print(Text(gap + f"back into it: backscroll resume {shell_word(s['session_id'])}", style="dim"),
                  soft_wrap=True)


def resumes(agent: str | None) -> bool:
    """Whether ``agent`` has a command that resumes one of its sessions (``integrations/resume.toml``)."""
    from backscroll.integrations.resume import forms

    form = forms().get(agent or "")
    return form is not None and "none" not in form


PROJECT_WIDTH = 24  # a longer project name is cut (with …) so that the columns stay aligned
PATH_WIDTH = 40  # likewise a file's path, from its start
MIN_PROJECT, MIN_TITLE = 10, 20  # on a narrow terminal the project gives way to the title, down to this


def print_sessions(sessions: list[SessionSummary], *, color: bool) -> None:
    from rich.text import Text

    from backscroll.cli.terminal import clean_line, console, print_lines

    out = console(color)
    if not sessions:  # (on stderr, as a search's "No matches.": a count of stdout's lines is a count of sessions)
        sys.stderr.write("No sessions.\n")
        return
    agent_width = max(len(_owned(s)) for s in sessions)
    echoes = any(s.echoes for s in sessions)  # (their column only when a session has some)
    before_title = 16 + 2 + agent_width + 1 + 1 + 9 + (11 if echoes else 2)  # (all but the project and the title)
    project_width = min(PROJECT_WIDTH, max(len(s.project or "-") for s in sessions),
                        PROJECT_WIDTH if out.soft_wrap else max(MIN_PROJECT, out.width - before_title - MIN_TITLE))
    # (too narrow for a title beside the columns, a split pane: each title on a line of its own below them)
    apart = not out.soft_wrap and out.width - before_title - project_width < MIN_TITLE
    lines: list[tuple[Text, bool]] = []  # (a line, and whether it is printed whole: else cut at a terminal's width)
    for s in under_parents(sessions):
        when = local_time(s.started_at or s.updated_at)
        line = Text()
        line.append(f"{when:<16}  ", style="dim")
        project = cut(s.project or '-', project_width)
        line.append(clean_line(f"{_owned(s):<{agent_width}} {project:<{project_width}} "), style="cyan")
        line.append(f"{s.records:>5} rec", style="dim")
        line.append(f" {s.echoes:>3} echo" if s.echoes else "", style="magenta")
        title = Text(clean_line(("↳ " if s.is_sidechain else "") + (s.title or "(untitled)")))
        if s.subagents:
            title.append(f"  +{s.subagents} subagent{'s' if s.subagents != 1 else ''}", style="dim")
        if apart:
            lines.append((line, False))
            line = Text("  ")
        else:
            line.append("  " if s.echoes else " " * (11 if echoes else 2))
        lines.append((line.append_text(title), False))
        lines.append((Text(clean_line(f"{'':16}  {show_command(s.session_id, s.member)}"), style="dim"),
                      True))  # (never broken: a command to copy whole)
    print_lines(out, lines)


def under_parents(sessions: list[SessionSummary]) -> list[SessionSummary]:
    """``sessions`` in their order, each subagent (``↳``) moved under its parent when the parent is listed too: the
    arrow reads as the line above's child. Pure."""
    listed = {s.session_id for s in sessions}
    children: dict[str, list[SessionSummary]] = {}
    for s in sessions:
        if s.is_sidechain and s.parent_session_id in listed:
            children.setdefault(s.parent_session_id, []).append(s)
    out: list[SessionSummary] = []

    def place(s: SessionSummary) -> None:
        out.append(s)
        for child in children.pop(s.session_id, []):
            place(child)

    for s in sessions:
        if not (s.is_sidechain and s.parent_session_id in listed):
            place(s)
    return out + [s for rest in children.values() for s in rest]  # (a parent listed only as someone's child: kept)


def print_file_sessions(found: list[FileTouches], path: str, *, color: bool) -> None:
    from rich.text import Text

    from backscroll.cli.terminal import clean_line, console, one_line
    from backscroll.touches import summary

    out = console(color)
    if not found:
        sys.stderr.write(clean_line(f"No session's tool calls touched {path}.") + "\n")
        return
    agent_width = max(len(f.agent or "") for f in found)
    project_width = min(PROJECT_WIDTH, max(len(f.project or "-") for f in found))
    action_width = max(len(summary(f.actions)) for f in found)
    which = {f.session_id: _which(f, path) for f in found}  # (a relative path: which file ended with it)
    which_width = 0 if set(which.values()) <= {"", path} else min(PATH_WIDTH, max(len(w) for w in which.values()))
    for f in found:
        line = Text()
        line.append(f"{local_time(f.last_at):<16}  ", style="dim")
        project = cut(f.project or '-', project_width)
        line.append(clean_line(f"{f.agent or '':<{agent_width}} {project:<{project_width}}  "), style="cyan")
        line.append(f"{summary(f.actions):<{action_width}}", style="bold")
        if which_width:
            line.append(clean_line(f"  {cut_start(which[f.session_id], which_width):<{which_width}}"))
        line.append(clean_line(f"  {f.title or '(untitled)'}"))
        one_line(out, line)
        out.print(Text(f"{'':16}  {show_command(f.record_id)}", style="dim"), soft_wrap=True)


def _which(f: FileTouches, path: str) -> str:
    """The file a session touched (and how many others) when the path asked for ends several (``models.py``)."""
    if path.startswith("/") or not f.files:
        return ""
    others = len(f.files) - 1 + f.files_more
    return f.files[0] + (f" +{others}" if others else "")


def cut_start(path: str, width: int) -> str:
    """``path`` in ``width`` characters: a longer one loses its start (``…db/models.py``)."""
    return path if len(path) <= width else "…" + path[len(path) - width + 1:]


def cut(name: str, width: int) -> str:
    """``name`` in ``width`` characters: a longer one cut, with …, so that the columns stay aligned."""
    return name if len(name) <= width else name[:width - 1] + "…"


def _owned(s: SessionSummary) -> str:
    """The agent, and on the team archive whose session it is (``alice@laptop claude``)."""
    return (f"{s.member}@{s.machine} " if s.member else "") + (s.agent or "")
