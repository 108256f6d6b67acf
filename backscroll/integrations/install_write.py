"""Writing the agents' files without costing the user anything: reads, checks and atomic replacements.

A file is replaced atomically (a temp file beside it, then a rename), through a symlink to its target, and
the replacement keeps the file's owner, group and mode (``sudo backscroll install`` must not hand a user's
0600 settings to root). A file with no write permission for anyone, or none for us, is the user saying
"do not edit this": it is refused before anything is written. An agent may rewrite its settings while we
edit them: just before the rename the file must still hold what we read, else ``Raced`` is raised (and the
caller plans again from what the file holds now) and the other program's write stands.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Callable
from pathlib import Path

from backscroll.errors import UsageError


class Raced(UsageError):
    """The file changed between our read and our replace; nothing was written to it."""


def read_or_none(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", newline="") as fh:  # keep CRLF as it is
            return fh.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a file; nothing was changed") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; nothing was changed") from None


def check_editable(path: Path) -> None:
    """Refuse a file the user keeps read-only, or whose owner a replacement written by us could not keep, or one in a
    folder we may not write in (a replacement is written beside it; a missing folder is made in the nearest above)."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if os.geteuid() != 0 and not os.access(folder, os.W_OK | os.X_OK):
        owner = folder.stat().st_uid
        raise UsageError(f"{folder} is not yours to write in (owner uid {owner}); nothing was changed",
                         hint=f"a program run with sudo may have made it: `sudo chown -R \"$USER\" "
                              f"{shlex.quote(str(folder))}` gives it back to you; or make the change by hand (a dry "
                              "run shows it)")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    mode = stat.S_IMODE(st.st_mode)
    # Root may write anything (os.access says yes): the mode bits are what the user asked for.
    if not mode & 0o222:
        raise UsageError(f"{path} is read-only (mode {mode:04o}); nothing was changed",
                         hint=f"make it writable (chmod u+w {path}) for backscroll to edit it, or make the change "
                              "by hand (a dry run shows it)")
    # A replacement we write is ours: a file of another user's we could not give back to them.
    if os.geteuid() != 0 and (st.st_uid != os.geteuid() or not os.access(path, os.W_OK)):
        raise UsageError(f"{path} is not yours to edit (owner uid {st.st_uid}, mode {mode:04o}); nothing was "
                         "changed", hint="run it as the file's owner, or make the change by hand (a dry run shows it)")


def race_window(path: Path) -> None:
    """Runs between our read of ``path`` and its replacement: where tests play an agent writing the file."""


def still_as_read(path: Path, before: str | None) -> None:
    """Raise ``Raced`` unless ``path`` still holds ``before`` (None: it is still absent)."""
    race_window(path)
    if read_or_none(path) != before:
        raise Raced(f"{path} changed while backscroll was editing it (another program is writing it); it is left "
                    "as that program wrote it", hint="run the command again once the agent is idle")


def write_text(path: Path, text: str, mode: int | None = None, guard: Callable[[], None] | None = None) -> None:
    """Write atomically, through a symlink to its target, keeping the owner, group and mode of the file there
    (``mode``, else 0644, for a new file) from its first byte. ``guard`` runs just before the rename."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    owner = None
    try:
        st = target.stat()
        mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
    except FileNotFoundError:
        mode = 0o644 if mode is None else mode
    tmp = target.with_name(f".{target.name}.backscroll-{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            if owner is not None and owner != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(fh.fileno(), *owner)  # a new file belongs to whoever writes it
                except PermissionError:
                    raise UsageError(f"backscroll could not keep the owner and group of {path}; nothing was "
                                     "changed", hint="run it as the user who owns the file") from None
            os.fchmod(fh.fileno(), mode)  # after fchown, which clears set-id bits; the umask narrowed it too
            fh.write(text)
        if guard is not None:
            guard()
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
