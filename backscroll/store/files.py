"""The store's record of its source files: how far each was read, and what went wrong reading it.

``FileState`` is a file's checkpoint (size, mtime, offset, digests of its head and tail, the
parser's session state); diagnostics are lines skipped, files or directories that could not be
read, notices about rewritten files, and entry types a parser did not know. Mixed into ``Store``.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

import orjson

# What tells a source file is unchanged since it was read: ``(agent, size, mtime_ns, parse_version)`` (the parser
# version that read it). A plain tuple: a sync builds one per known file, thousands of them, on every call.
FileMark = tuple[str, int, int, int]
_MARK = "path, agent, size, mtime_ns, parse_version"


@dataclass(frozen=True)
class FileState:
    """How far a source file has been read, and how to tell whether it was rewritten since."""

    path: str
    agent: str
    size: int
    mtime_ns: int
    offset: int
    lines: int
    head_digest: str
    tail_digest: str
    session_id: str
    session_state: dict



class SourceQueries:
    """Source-file checkpoints and diagnostics."""

    conn: sqlite3.Connection

    def file_marks(self) -> dict[str, FileMark]:
        """Every known source file's agent, size and mtime: all a sync needs to tell it is unchanged."""
        return {row[0]: row[1:] for row in self.conn.execute(f"SELECT {_MARK} FROM source_files")}

    def file_marks_under(self, directory: str) -> dict[str, FileMark]:
        """The marks of the known files under ``directory`` (any depth)."""
        low = directory.rstrip(os.sep) + os.sep
        high = low[:-1] + chr(ord(os.sep) + 1)
        return {row[0]: row[1:] for row in self.conn.execute(
            f"SELECT {_MARK} FROM source_files WHERE path >= ? AND path < ?", (low, high))}

    def marks_of(self, paths: list[str]) -> dict[str, FileMark]:
        """The marks of those of ``paths`` that are known."""
        return {row[0]: row[1:] for row in self.conn.execute(
            f"SELECT {_MARK} FROM source_files WHERE path IN ({','.join('?' * len(paths))})",
            paths)} if paths else {}

    def recent_marks(self, since_ns: int, limit: int) -> dict[str, FileMark]:
        """The marks of the ``limit`` known files last written most recently, after ``since_ns``."""
        return {row[0]: row[1:] for row in self.conn.execute(
            f"SELECT {_MARK} FROM source_files WHERE mtime_ns > ? ORDER BY mtime_ns DESC LIMIT ?", (since_ns, limit))}

    def marks_after(self, path: str, limit: int) -> list[tuple[str, str, int, int, int]]:
        """Up to ``limit`` known files' marks after ``path``, in path order (a sync's turn through them)."""
        return self.conn.execute(f"SELECT {_MARK} FROM source_files WHERE path > ? ORDER BY path LIMIT ?",
                                 (path, limit)).fetchall()

    def source_dirs(self, root: str) -> dict[str, int]:
        """The directories last walked under ``root`` and the mtime each had when listed."""
        return dict(self.conn.execute("SELECT path, mtime_ns FROM source_dirs WHERE root = ?", (root,)))

    def save_source_dirs(self, root: str, dirs: dict[str, int], gone: Iterable[str] = ()) -> None:
        """Remember directories' mtimes under ``root``; forget ``gone``."""
        self.conn.executemany("DELETE FROM source_dirs WHERE root = ? AND path = ?", [(root, d) for d in gone])
        self.conn.executemany("INSERT OR REPLACE INTO source_dirs (root, path, mtime_ns) VALUES (?, ?, ?)",
                              [(root, d, m) for d, m in dirs.items()])

    def file_state(self, path: str) -> FileState | None:
        """The checkpoint of one source file, if it was read before."""
        row = self.conn.execute(
            "SELECT path, agent, size, mtime_ns, offset, lines, head_digest, tail_digest, session_id, session_state "
            "FROM source_files WHERE path = ?", (path,)).fetchone()
        if row is None:
            return None
        return FileState(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8],
                         orjson.loads(row[9]) if row[9] else {})

    def save_file_state(self, st: FileState, indexed_at: str, parse_version: int) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO source_files (path, agent, size, mtime_ns, offset, lines, head_digest, "
            "tail_digest, session_id, session_state, indexed_at, parse_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (st.path, st.agent, st.size, st.mtime_ns, st.offset, st.lines, st.head_digest, st.tail_digest,
             st.session_id, orjson.dumps(st.session_state).decode(), indexed_at, parse_version),
        )

    def read_by_older(self, version: int) -> list[tuple[str, str]]:
        """``(agent, path)`` of each known file an older parser than ``version`` read (away when a newer came)."""
        return self.conn.execute("SELECT agent, path FROM source_files WHERE parse_version < ? ORDER BY path",
                                 (version,)).fetchall()

    def source_records(self, path: str) -> int:
        """How many stored records were read from ``path`` (a file, or a unit key)."""
        return self.conn.execute("SELECT count(*) FROM records WHERE source_path = ?", (path,)).fetchone()[0]

    def sources_holding(self, record_ids: list[str], besides: str) -> set[str]:
        """The sources other than ``besides`` that records with these ids were read from."""
        held: set[str] = set()
        for i in range(0, len(record_ids), 500):
            chunk = record_ids[i:i + 500]
            held.update(path for (path,) in self.conn.execute(
                f"SELECT DISTINCT source_path FROM records WHERE record_id IN ({','.join('?' * len(chunk))}) "
                "AND source_path != ?", (*chunk, besides)))
        return held

    def move_source(self, old: str, new: str) -> None:
        """The file once read at ``old`` is now at ``new``: its records and sessions name ``new``; what was
        noted about ``old`` goes (``new`` is read as a file of its own)."""
        self.conn.execute("UPDATE records SET source_path = ? WHERE source_path = ?", (new, old))
        self.conn.execute("UPDATE sessions SET source_path = ? WHERE source_path = ?", (new, old))
        for table in ("source_files", "skipped_lines", "source_issues", "unknown_entries"):
            self.conn.execute(f"DELETE FROM {table} WHERE path = ?", (old,))

    def forget_skipped(self, path: str) -> None:
        self.conn.execute("DELETE FROM skipped_lines WHERE path = ?", (path,))

    # -- source issues: unreadable files and directories, and notices about rewritten files ----------
    def source_issues(self) -> dict[str, tuple[str, str, int | None, int | None]]:
        """``path -> (kind, reason, size, mtime_ns)``; kinds: ``unreadable``, ``directory``, ``rewritten``."""
        return {p: (k, r, sz, mt) for p, k, r, sz, mt in self.conn.execute(
            "SELECT path, kind, reason, size, mtime_ns FROM source_issues")}

    def set_source_issue(self, path: str, kind: str, reason: str, seen_at: str,
                         size: int | None = None, mtime_ns: int | None = None) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO source_issues (path, kind, reason, size, mtime_ns, seen_at) VALUES (?,?,?,?,?,?)",
            (path, kind, reason, size, mtime_ns, seen_at))

    def clear_source_issue(self, path: str, kinds: tuple[str, ...] = ("unreadable",)) -> None:
        self.conn.execute(f"DELETE FROM source_issues WHERE path = ? AND kind IN ({','.join('?' * len(kinds))})",
                          (path, *kinds))

    def diagnosed_paths(self) -> set[str]:
        """Paths with skipped lines or source issues (to drop the ones whose file is gone)."""
        return {r[0] for r in self.conn.execute("SELECT path FROM skipped_lines UNION SELECT path FROM source_issues")}

    def forget_diagnostics(self, path: str) -> None:
        self.conn.execute("DELETE FROM skipped_lines WHERE path = ?", (path,))
        self.conn.execute("DELETE FROM source_issues WHERE path = ?", (path,))

    def add_skipped(self, path: str, items: Iterable[tuple[int, str]], seen_at: str) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO skipped_lines (path, line, reason, seen_at) VALUES (?, ?, ?, ?)",
            [(path, line, reason, seen_at) for line, reason in items],
        )

    def add_unknown(self, path: str, agent: str, counts: dict[str, tuple[int, int]]) -> None:
        """Add ``entry type -> (count, example line)`` seen in ``path`` (kept per file: a re-read
        calls ``forget_unknown`` first)."""
        self.conn.executemany(
            "INSERT INTO unknown_entries (path, agent, entry_type, count, example_line) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(path, entry_type) DO UPDATE SET count = count + excluded.count",
            [(path, agent, t, n, line) for t, (n, line) in counts.items()])

    def forget_unknown(self, path: str) -> None:
        self.conn.execute("DELETE FROM unknown_entries WHERE path = ?", (path,))

