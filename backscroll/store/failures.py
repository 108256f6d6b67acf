"""What a failed read or write of the data dir really was (``store_failure``): a full disk, a store that cannot be
written, one another process keeps locked, or a damaged one (when ``integrity_check`` says so), as the error kinds
users and agents branch on (``errors``)."""

from __future__ import annotations

from backscroll.errors import (
    CORRUPT_HINT,
    BackscrollError,
    CorruptStoreError,
    DiskFullError,
    LockedError,
    ReadOnlyStoreError,
)


def disk_is_full(path, margin: int = 64 * 1024) -> bool:
    """Whether the file system holding ``path`` has (almost) no space left: SQLite reports a store it
    cannot make its side files for as a bare "disk I/O error"."""
    import os

    try:
        st = os.statvfs(path)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < margin


def store_failure(exc: BaseException, db_path) -> BackscrollError | None:
    """What a failed read or write of the data dir really was: a full disk, a store that cannot be
    written, a damaged store (only when ``integrity_check`` says so), or None for anything else (a bug)."""
    import errno
    import sqlite3
    from pathlib import Path

    if isinstance(exc, BackscrollError):
        return exc
    text = str(exc)
    low = text.lower()
    eno = getattr(exc, "errno", None)
    data_dir = str(Path(db_path).parent)
    if (eno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG) or "disk is full" in low or "no space left" in low
            or "quota exceeded" in low or "file too large" in low
            or ("disk i/o error" in low and disk_is_full(Path(db_path).parent))):
        return DiskFullError(
            f"the disk holding {data_dir} is full ({text})",
            hint="free some space and run it again: what was stored before is intact, and the next run "
                 "reads again what this one could not store")
    filename = getattr(exc, "filename", None)
    where = Path(str(filename)) if filename is not None else None
    inside = where.relative_to(data_dir).parts if where is not None and where.is_relative_to(data_dir) else None
    in_data_dir = inside is not None
    if ("readonly database" in low or "read-only file system" in low or eno == errno.EROFS
            or (eno in (errno.EACCES, errno.EPERM) and in_data_dir)):
        if not Path(db_path).exists():  # (nothing to read there: no store was ever made)
            return ReadOnlyStoreError(f"no store can be made in {data_dir} ({text})", reason="cannot-create",
                                      hint="point $BACKSCROLL_HOME at a folder you can write, or make this one "
                                           "writable")
        return ReadOnlyStoreError(
            f"the store in {data_dir} cannot be written ({text})",
            hint="search, show, list and status still read it; to index, make the data dir writable or "
                 "copy it somewhere writable and point $BACKSCROLL_HOME at the copy", reason="read-only")
    if eno in (errno.EEXIST, errno.ENOTDIR) and inside and inside[0] in ("index", "vectors"):
        return CorruptStoreError(f"{data_dir}/{inside[0]} is a file, where backscroll keeps a search index's folder "
                                 f"({text})", hint="move it aside: the search index is made again from the store",
                                 reason="path-in-the-way")
    if isinstance(exc, sqlite3.OperationalError) and ("database is locked" in low or "busy" in low):
        return LockedError(f"the store in {data_dir} stayed locked by another process ({text})",
                           hint="another backscroll is writing it (an index or an embed): run this again when it "
                                "is done; nothing was lost", reason="store-busy")
    if isinstance(exc, sqlite3.DatabaseError) and "locked" not in low and "busy" not in low:
        from backscroll.store.integrity import integrity_problems

        problems = integrity_problems(db_path)  # a damaged store shows in many ways ("Could not decode to UTF-8")
        if problems:
            return CorruptStoreError(
                f"the store {db_path} is damaged ({text}; integrity_check: {'; '.join(problems[:3])}); "
                "nothing more is written to it",
                hint=CORRUPT_HINT.format(db=db_path))
    return None
