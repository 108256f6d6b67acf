"""Reading and writing the agents' files: text as it is (CRLF kept), written atomically.

A file is replaced atomically (a temp file beside it, then a rename), through a symlink to its target,
with the file's mode from the first byte.
"""

from __future__ import annotations

import os
from pathlib import Path

from backscroll.errors import UsageError


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


def write_text(path: Path, text: str, mode: int | None = None) -> None:
    """Write atomically (a temp file beside the target, then a rename), through a symlink to its target.
    The temp file has the target's mode (``mode`` for a new file) from its first byte."""
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644 if mode is None else mode
    tmp = target.with_name(f".{target.name}.backscroll-{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)  # the umask narrowed it at creation
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, target)
