"""Going back into a session: the command that re-opens it in its own agent, in its working directory. The
forms are data (``resume.toml``, one table per agent, each naming where it was read); choosing one is pure.

A subagent cannot be resumed alone: its parent session is. An agent without a resume-by-id form gets what
comes closest, in words.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from backscroll.sanitize import HIDDEN, printable

_UNSHOWN = re.compile(f"[\x00-\x1f\x7f-\x9f]|{HIDDEN.pattern}")  # (not NFKC: a macOS path may be decomposed)
SAFE_ID = re.compile(r"[\w.:@+][\w.:@+-]*")  # a session id an agent's command line reads as an id, never an option


@dataclass(frozen=True)
class Resumption:
    """How to go back into a session."""

    agent: str
    session_id: str  # the session resumed (a subagent's parent)
    argv: tuple[str, ...] | None  # None: the agent has no resume-by-id form
    cwd: str | None  # where to run it (None: anywhere)
    notes: tuple[str, ...] = ()
    # Why it must not run from here (its directory gone or not known: the agent would find nothing, or its tools
    # would act on another checkout); the command is still printed, ``cd`` first.
    blocked: str | None = None

    @property
    def command(self) -> str | None:
        """The command as a shell line, ``cd`` first when it must run in a directory."""
        if self.argv is None:
            return None
        line = shlex.join(self.argv)
        if not self.cwd:
            return line
        dash = "" if self.cwd.startswith("/") else "-- "  # (a directory that could read as an option)
        return f"cd {dash}{shlex.quote(self.cwd)} && {line}"

    def to_dict(self) -> dict:
        return {"agent": self.agent, "session_id": self.session_id, "argv": list(self.argv) if self.argv else None,
                "cwd": self.cwd, "command": self.command, "notes": list(self.notes), "blocked": self.blocked}


@functools.cache
def forms() -> Mapping[str, Mapping[str, Any]]:
    """Each agent's resume form (``resume.toml``)."""
    return tomllib.loads(resources.files("backscroll.integrations").joinpath("resume.toml").read_text())


def resumption(session: Mapping[str, Any], *, exists=os.path.isdir) -> Resumption:
    """How to resume ``session`` (a sessions row: agent, session_id, cwd, source_path, is_sidechain,
    parent_session_id; a subagent's row should be its parent's, with ``subagent`` set to the subagent's id)."""
    agent = session["agent"] or ""
    form = forms().get(agent)
    notes: list[str] = []
    if session.get("subagent"):
        notes.append(f"{session['subagent']} is a subagent: its parent session resumes")
    if session.get("earlier_part"):
        notes.append(f"{session['earlier_part']} is what session {session['session_id']} held before a compaction: "
                     "that session resumes")
    if form is None or "none" in form:
        closest = form["none"] if form else f"backscroll does not know how {agent or 'this agent'} resumes a session"
        return Resumption(agent, session["session_id"], None, session.get("cwd"), (*notes, closest))
    source = session.get("source_path") or ""
    if any(mark in source for mark in form.get("editor", ())):  # (read from the editor's storage: no CLI opens it)
        return Resumption(agent, session["session_id"], None, session.get("cwd"), (*notes, form["editor_note"]))
    if session.get("log_gone"):
        return Resumption(agent, session["session_id"], None, session.get("cwd"), (
            *notes, f"{agent} no longer has this session (its log {source} was deleted; backscroll kept it): "
                    f"`backscroll show {shlex.quote(session['session_id'][:40])}` reads it"))
    if not SAFE_ID.fullmatch(session["session_id"] or ""):
        notes.append("its id is not one to put on a command line safely (a space, a leading -): open it with "
                     f"`backscroll show {shlex.quote(session['session_id'][:40])}`")
        return Resumption(agent, session["session_id"], None, session.get("cwd"), tuple(notes))
    values = {"id": session["session_id"], "path": session.get("source_path") or ""}
    argv = tuple(part.format(**values) for part in form["argv"])
    cwd = session.get("cwd") if form.get("cwd") else None
    blocked = None
    if form.get("cwd") and not (cwd and os.path.isabs(cwd)):  # (a relative one would be looked up from here)
        blocked = f"its directory is not known{f' ({cwd!r} is no full path)' if cwd else ''}"
        notes.append(f"{blocked}: run the command where the session ran")
        cwd = None
    elif cwd and _UNSHOWN.search(cwd):  # (a newline, an escape, a bidi mark: no command line shows it as itself)
        blocked = "its directory's name holds a character a command line does not show as itself"
        notes.append(f"{blocked}: run the command where the session ran ({printable(cwd)[:200]})")
        cwd = None
    elif cwd and not exists(cwd):
        blocked = f"its directory {cwd} is not on this machine"
        notes.append(f"{blocked} (`mkdir -p {shlex.quote(cwd)}` makes it, or run the command where it now is)")
    if form.get("note"):
        notes.append(form["note"])
    return Resumption(agent, session["session_id"], argv, cwd, tuple(notes), blocked)
