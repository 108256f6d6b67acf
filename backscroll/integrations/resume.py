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

SAFE_ID = re.compile(r"[\w.:@+][\w.:@+-]*")  # a session id an agent's command line reads as an id, never an option


@dataclass(frozen=True)
class Resumption:
    """How to go back into a session."""

    agent: str
    session_id: str  # the session resumed (a subagent's parent)
    argv: tuple[str, ...] | None  # None: the agent has no resume-by-id form
    cwd: str | None  # where to run it (None: anywhere)
    notes: tuple[str, ...] = ()

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
                "cwd": self.cwd, "command": self.command, "notes": list(self.notes)}


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
    if not SAFE_ID.fullmatch(session["session_id"] or ""):
        notes.append("its id is not one to put on a command line safely (a space, a leading -): open it with "
                     f"`backscroll show {shlex.quote(session['session_id'][:40])}`")
        return Resumption(agent, session["session_id"], None, session.get("cwd"), tuple(notes))
    values = {"id": session["session_id"], "path": session.get("source_path") or ""}
    argv = tuple(part.format(**values) for part in form["argv"])
    cwd = session.get("cwd") if form.get("cwd") else None
    if cwd and not exists(cwd):
        notes.append(f"its directory {cwd} is not on this machine: the command runs where you are")
        cwd = None
    if form.get("note"):
        notes.append(form["note"])
    return Resumption(agent, session["session_id"], argv, cwd, tuple(notes))
