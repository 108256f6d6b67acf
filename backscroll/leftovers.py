"""What a read made in a data dir that held no store, taken away again when it found nothing to fill one with:
a mistyped ``--home`` is left as it was."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def entries(where: Path) -> set[str] | None:
    """The names in a data dir (None: there is no such dir), to take away later what a call made in it."""
    try:
        return set(os.listdir(where))
    except FileNotFoundError:
        return None
    except OSError:
        return set()


def unmade(where: Path, before: set[str] | None) -> None:
    """Take away what was made in ``where`` since ``entries`` said what it held (None: the dir itself)."""
    if before is None:
        shutil.rmtree(where, ignore_errors=True)
        return
    for name in (entries(where) or set()) - before:
        path = where / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
