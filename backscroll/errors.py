"""Errors the library raises and the exit codes the CLI maps them to.

Every error a user can meet carries a stable ``kind`` (kebab-case, for agents to branch on), a
message written for people and a hint naming the next command to try.
"""

from __future__ import annotations

from enum import IntEnum

MAX_COUNT = 1_000_000_000  # the largest --limit, --offset or --context accepted (SQLite takes 64-bit ints)


class ExitCode(IntEnum):
    OK = 0
    INTERNAL = 1
    USAGE = 2
    NOTHING_INDEXED = 3
    UNREADABLE_SOURCES = 4
    LOCKED = 5


class BackscrollError(Exception):
    """Base of every error backscroll raises on purpose."""

    kind = "internal"
    exit_code = ExitCode.INTERNAL

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint

    def to_dict(self) -> dict:
        return {"error": {"kind": self.kind, "message": self.message, "hint": self.hint}}


class UsageError(BackscrollError):
    kind = "usage"
    exit_code = ExitCode.USAGE


class QueryError(UsageError):
    kind = "bad-query"


class NotFoundError(UsageError):
    kind = "not-found"


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


class DiskFullError(BackscrollError):
    """The disk (or the user's quota) is full: nothing is wrong with the store."""

    kind = "disk-full"


class ReadOnlyStoreError(BackscrollError):
    """The store cannot be written (read-only media or permissions); it can still be searched."""

    kind = "read-only-store"


class LockedError(BackscrollError):
    kind = "locked"
    exit_code = ExitCode.LOCKED
