"""What a session's project is called: the repository it ran in, not the last folder of its cwd.

A remote the log records names the project first: it names the same repository on every machine. Else a
cwd inside a git checkout is named after the checkout's top folder, and a linked worktree after its main
repository, so that ``…/pomodoro/claude`` is ``pomodoro`` and seven worktrees of one repository are one
project. A cwd that is no longer on disk, or in no repository, keeps its last folder. The user's home and
the filesystem root are never a project, even when a dotfiles repository sits there. Only ``.git`` entries
are looked at: git is not run and nothing is written; what a hook reads of them is read by ``read_small``, which
never blocks.
"""

from __future__ import annotations

import os
import re
import stat
from functools import lru_cache
from pathlib import Path

_WORKTREE = re.compile(r"^(.*?)[/\\]+(?:\.git[/\\]+)?worktrees[/\\]+[^/\\]+[/\\]*$")


def folder_name(cwd: str) -> str:
    """The last part of a working directory (POSIX or Windows separators). Pure."""
    return cwd.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] or cwd


def remote_name(url: str) -> str | None:
    """The repository a remote URL names: ``git@host:team/pomodoro.git`` -> ``pomodoro``; None when redaction
    took part of it (a secret never names a project). Pure."""
    if "[REDACTED" in url:
        return None
    name = url.strip().rstrip("/").replace("\\", "/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    name = name.removesuffix(".git")
    return name or None


def main_repository(git_file_text: str, here: str) -> str | None:
    """The main repository's folder, from the ``gitdir:`` line of a linked worktree's ``.git`` file (``None``
    for a submodule, which is a project of its own). Pure."""
    line = git_file_text.strip().splitlines()[0] if git_file_text.strip() else ""
    if not line.startswith("gitdir:"):
        return None
    gitdir = os.path.normpath(os.path.join(here, line.removeprefix("gitdir:").strip()))
    m = _WORKTREE.match(gitdir)
    if not m:
        return None
    return m.group(1).removesuffix(".git").rstrip("/\\") or None


@lru_cache(maxsize=4096)
def repository_folder(cwd: str) -> str | None:
    """The folder whose name the repository holding ``cwd`` goes by, if ``cwd`` is inside one on this disk."""
    if not cwd.startswith("/"):
        return None
    home = os.path.expanduser("~").rstrip("/")
    here = os.path.normpath(cwd)
    for _ in range(64):
        if here in ("/", home):
            return None
        dot_git = os.path.join(here, ".git")
        try:
            if os.path.isdir(dot_git):
                return here
            if os.path.isfile(dot_git):
                with open(dot_git, encoding="utf-8", errors="replace") as fh:
                    return main_repository(fh.read(4096), here) or here
        except OSError:
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
    return None


_ORIGIN = re.compile(r'^\s*\[remote\s+"origin"\]\s*$(.*?)(?=^\s*\[|\Z)', re.M | re.S)
_URL = re.compile(r"^\s*url\s*=\s*(\S+)", re.M)


READ_MAX = 4096  # bytes read from a git file (HEAD, a worktree's .git pointer)


def read_small(path: str | Path, limit: int = READ_MAX) -> str | None:
    """A regular file of at most ``limit`` bytes, as text; None for anything else (a FIFO, a device, a
    directory, a larger file, one that cannot be read). Never blocks: a FIFO is opened non-blocking and refused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, limit + 1)
        return None if len(data) > limit else data.decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def origin_url(folder: str) -> str | None:
    """The URL of the ``origin`` remote in the repository at ``folder`` (its ``.git/config``), if it has one (a
    recall hook asks: ``read_small``)."""
    text = read_small(os.path.join(folder, ".git", "config"), 65536)
    if text is None:
        return None
    section = _ORIGIN.search(text)
    url = _URL.search(section.group(1)) if section else None
    return url.group(1) if url else None


@lru_cache(maxsize=4096)  # asked for every record
def project(cwd: str | None, remote: str | None = None) -> str | None:
    """The project of a session that ran in ``cwd``, with the remote URL its log records, if any."""
    if remote and (name := remote_name(remote)):
        return name
    if not cwd:
        return None
    top = repository_folder(cwd)
    return folder_name(top) if top else folder_name(cwd)
