"""Errors the library raises and the exit codes the CLI maps them to.

Every error a user can meet carries a stable ``kind`` (kebab-case, for agents to branch on), a
message written for people and a hint naming the next thing to try. A ``reason`` (not part of the
JSON) tells situations of one kind apart; the CLI words its hints by kind and reason
(``cli/hints.py``), so the library's own hints never name command-line flags.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from backscroll.status_types import StatusReport

MAX_COUNT = 1_000_000_000  # the largest --limit, --offset or --context accepted (SQLite takes 64-bit ints)
# The longest record or session id accepted: the longest real one is two file names (255 bytes each) and a
# record number; a 60,000-character prefix was too long a LIKE pattern for SQLite (an internal error).
MAX_ID = 1024
MAX_PATH = 4096  # a file named (Linux's PATH_MAX): SQLite refuses a LIKE pattern past 50,000 bytes
MAX_WORDS = 1000  # the words a session's title or first prompt is looked through for


class ExitCode(IntEnum):
    OK = 0
    INTERNAL = 1
    USAGE = 2
    NOTHING_INDEXED = 3
    UNREADABLE_SOURCES = 4
    LOCKED = 5
    ARCHIVE = 6  # the team archive could not be reached, or refused
    CHECK_FAILED = 7  # `status --check` found a problem in the store or its indexes
    INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT


class BackscrollError(Exception):
    """Base of every error backscroll raises on purpose."""

    kind = "internal"
    exit_code = ExitCode.INTERNAL

    def __init__(self, message: str, hint: str | None = None, *, reason: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.reason = reason
        self.partial_status: StatusReport | None = None  # status(): what was found before the store failed

    def to_dict(self) -> dict:
        return {"error": {"kind": self.kind, "message": self.message, "hint": self.hint}}


class UsageError(BackscrollError):
    kind = "usage"
    exit_code = ExitCode.USAGE


class QueryError(UsageError):
    kind = "bad-query"


class NotFoundError(UsageError):
    kind = "not-found"


class AmbiguousIdError(UsageError):
    """A prefix that starts more than one session id (the message lists them)."""

    kind = "ambiguous-id"


class CannotResumeError(UsageError):
    """``resume``: the session's agent has no resume command, or is not installed here."""

    kind = "cannot-resume"


class ArchiveError(BackscrollError):
    """The team archive could not be reached or refused a statement (the message never holds a password)."""

    kind = "archive"
    exit_code = ExitCode.ARCHIVE


class NothingIndexedError(BackscrollError):
    kind = "nothing-indexed"
    exit_code = ExitCode.NOTHING_INDEXED


class SemanticUnavailableError(BackscrollError):
    kind = "semantic-unavailable"
    exit_code = ExitCode.NOTHING_INDEXED


class NewerSchemaError(BackscrollError):
    kind = "newer-schema"
    exit_code = ExitCode.NOTHING_INDEXED


class CorruptStoreError(BackscrollError):
    kind = "corrupt-store"


class CheckFailedError(BackscrollError):
    """``status --check`` found a problem: the report names each one and what to run."""

    kind = "check-failed"
    exit_code = ExitCode.CHECK_FAILED


class DiskFullError(BackscrollError):
    """The disk (or the user's quota) is full: nothing is wrong with the store."""

    kind = "disk-full"


class ReadOnlyStoreError(BackscrollError):
    """The store cannot be written (read-only media or permissions); it can still be searched."""

    kind = "read-only-store"


class LockedError(BackscrollError):
    kind = "locked"
    exit_code = ExitCode.LOCKED


class Interrupted(BackscrollError):
    """Ctrl-C (SIGINT): what was saved is kept."""

    kind = "interrupted"
    exit_code = ExitCode.INTERRUPTED


class DamagedIndexError(LockedError):
    """The derived index cannot be read and another process holds the lock needed to rebuild it."""

    kind = "damaged-index"


CORRUPT_HINT = ("do not delete it: it holds records whose session files may be gone. Recover what it holds with "
                "`sqlite3 {db} .recover > recovered.sql`, then `sqlite3 new.db < recovered.sql` and put new.db "
                "in its place (keep the damaged file)")
