"""The SQL on the store's records and sessions (mixed into ``Store``).

Inserting and replacing records, sessions and their titles, redaction counts, and the reads the
derived indexes and the search pipeline make. Reads that want rows by name use a cursor of their
own with ``sqlite3.Row``: the shared connection's row factory is never changed.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

from backscroll.store import tally

RECORD_COLUMNS = (
    "record_id", "session_id", "agent", "project", "cwd", "role", "content_type", "tool_name",
    "tool_call_id", "is_echo", "is_error", "timestamp", "source_path", "line", "text",
    "text_truncated", "content_hash", "is_sidechain", "parent_session_id", "is_call", "author", "is_shell",
    "redaction",  # the rules' version the strings were redacted with: not part of what a record says
)
_READ_COLUMNS = "id, agent, project, role, content_type, session_id, is_echo, timestamp, text, tool_name, author"
_INSERT_RECORD = (
    f"INSERT OR IGNORE INTO records ({', '.join(RECORD_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in RECORD_COLUMNS)})"
)


def content_hash(text: str) -> str:
    """Hash of the text with white space folded: equal for copies that differ only in spacing."""
    return hashlib.blake2b(" ".join(text.split()).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class RecordQueries:
    """Records and sessions: writes at ingest, reads for the derived indexes and for search."""

    conn: sqlite3.Connection
    apart: Callable[..., list[tuple]]  # (``shared_ids.SharedIds``)

    def insert_records(self, rows: list[tuple]) -> int:
        return tally.insert(self.conn, _INSERT_RECORD, rows) if rows else 0  # (every record is inserted here)

    def upsert_records(self, rows: list[tuple], source: str, *, superseded: bool = False
                       ) -> tuple[int, int, int, int]:
        """Store the rows of a re-read ``source``: a record id it stored before is replaced when its content changed
        (the old row tombstoned for the derived indexes) and left alone when not; a record id stored from another
        source is never touched (``shared_ids``: a copy of its record is stored once, another record apart). An
        earlier record whose id is not emitted again but whose text is (new ids, or a line put in above it) is
        replaced too, not added; ``matched`` counts the earlier records the rows account for.

        The ids keep the conversation's order (every view of a session reads its records by id). The
        stored records the rows begin with, unchanged and in the same order, stay as they are; from the
        first difference on (a record changed or added among them, by a newer parser or a file rewritten
        in the middle) the rest is stored again in the rows' order, with the earlier records the rows no
        longer hold (kept) each after the row its predecessor became. A record stored again unchanged
        keeps its text's embedding (the next embedding pass finds it by its hash). A record whose text the
        rows replace with another (a log rewritten in place), not one that goes on (a message streaming),
        keeps its earlier text too, as a version of its own (``<id>~<hash>``).

        ``superseded``: the rows are a newer parser's reading of exactly the bytes the earlier records were
        read from, so an earlier record they no longer hold was a misreading: it is dropped, not kept
        (counted as replaced). Returns (added, replaced, matched, versions kept)."""
        cols = ", ".join(RECORD_COLUMNS)
        line_at = RECORD_COLUMNS.index("line")
        hash_at = RECORD_COLUMNS.index("content_hash")
        earlier = [(r[0], r[1:]) for r in self.conn.execute(
            f"SELECT id, {cols} FROM records WHERE source_path = ? ORDER BY id", (source,))]
        by_record = {old[0]: (rid, old) for rid, old in earlier}
        rows = self.apart(rows)  # (a record another source holds: stored once, or apart when it says otherwise)
        ids = {row[0] for row in rows}
        fresh = [row for row in rows if row[0] not in by_record]
        texts = Counter((row[5], row[hash_at]) for row in fresh)
        migrated = {rid for rid, old in earlier if old[0] not in ids and (old[5], old[hash_at]) in texts}

        def same(old: tuple, row: tuple) -> bool:  # the same record, perhaps on another line
            return old[:line_at] + old[line_at + 1:-1] == row[:line_at] + row[line_at + 1:-1]

        changed = sum(1 for row in rows if row[0] in by_record and not same(by_record[row[0]][1], row))
        matched = sum(1 for row in rows if row[0] in by_record) + len(migrated)
        k = 0  # the rows and the earlier records agree up to here
        while k < len(rows) and k < len(earlier) and rows[k][0] == earlier[k][1][0] and same(earlier[k][1], rows[k]):
            k += 1
        self.conn.executemany("UPDATE records SET line = ? WHERE id = ?",
                              [(rows[n][line_at], earlier[n][0]) for n in range(k)
                               if earlier[n][1][line_at] != rows[n][line_at]])
        rest, tail = rows[k:], earlier[k:]
        position = {row[0]: n for n, row in enumerate(rest)}
        after: dict[int, list[tuple]] = {}
        last = -1
        dropped = versions = 0
        text_at = RECORD_COLUMNS.index("text")
        for rid, old in tail:
            if old[0] in position:
                last = position[old[0]]
                new = rest[last][text_at]
                if not superseded and old[text_at] and new != old[text_at] and not new.startswith(old[text_at]):
                    after.setdefault(last, []).append((f"{old[0]}~{old[hash_at][:8]}", *old[1:]))
                    versions += 1
            elif superseded and rid not in migrated and not re.search(r"~[0-9a-f]{8}$", old[0]):  # (not a version)
                dropped += 1
            elif rid not in migrated:
                after.setdefault(last, []).append(old)
        ordered = [*after.get(-1, []), *(r for n, row in enumerate(rest) for r in (row, *after.get(n, [])))]
        gone = [rid for rid, _old in tail]
        self.conn.executemany("INSERT OR IGNORE INTO tombstones (id) VALUES (?)", [(i,) for i in gone])
        self.conn.executemany("DELETE FROM records WHERE id = ?", [(i,) for i in gone])
        kept = {row[0] for row in ordered}  # those that leave are remembered, for a push to take out of an archive
        self.conn.executemany("INSERT INTO departed (record_id, session_id) VALUES (?, ?)",
                              [old[:2] for _rid, old in tail if old[0] not in kept])
        again = len(ordered) - sum(1 for row in rest if row[0] not in by_record)  # earlier ones stored again
        moved = Counter((old[5], old[hash_at]) for rid, old in earlier if rid in migrated)  # now under new ids
        added = self.insert_records(ordered) - again - sum(min(n, texts[key]) for key, n in moved.items())
        return max(added, 0), changed + len(migrated) + dropped, matched + dropped, versions

    def session_cwd(self, session_id: str) -> str | None:
        """The working directory stored for a session (None when unknown)."""
        row = self.conn.execute("SELECT cwd FROM sessions WHERE session_id = ?", (session_id,)).fetchone()
        return row[0] if row else None

    def upsert_session(self, s: dict) -> None:
        self.conn.execute(
            """INSERT INTO sessions (session_id, agent, project, cwd, title, started_at, updated_at, source_path,
                                     is_sidechain, parent_session_id, title_rank)
               VALUES (:session_id, :agent, :project, :cwd, :title, :started_at, :updated_at, :source_path,
                       :is_sidechain, :parent_session_id, :title_rank)
               ON CONFLICT(session_id) DO UPDATE SET
                 project = coalesce(excluded.project, project), cwd = coalesce(excluded.cwd, cwd),
                 title = CASE WHEN excluded.title IS NOT NULL AND excluded.title_rank >= coalesce(title_rank, 1)
                              THEN excluded.title ELSE title END,
                 title_rank = CASE WHEN excluded.title IS NOT NULL AND excluded.title_rank >= coalesce(title_rank, 1)
                                   THEN excluded.title_rank ELSE title_rank END,
                 started_at = CASE WHEN started_at IS NULL OR excluded.started_at < started_at
                                   THEN excluded.started_at ELSE started_at END,
                 updated_at = CASE WHEN updated_at IS NULL OR excluded.updated_at > updated_at
                                   THEN excluded.updated_at ELSE updated_at END,
                 is_sidechain = excluded.is_sidechain,
                 parent_session_id = coalesce(excluded.parent_session_id, parent_session_id)""",
            s,
        )

    def drop_session_if_empty(self, session_id: str) -> None:
        """Take out the session ``session_id`` when it holds no record (its records are stored under another
        session id now: the old row, and what it said, goes)."""
        self.conn.execute("DELETE FROM sessions WHERE session_id = ? AND NOT EXISTS (SELECT 1 FROM records "
                          "WHERE records.session_id = sessions.session_id)", (session_id,))

    def add_leaf_titles(self, titles: dict[str, str], seen_at: str) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO leaf_titles (leaf_uuid, title, seen_at) VALUES (?, ?, ?)",
                              [(leaf, title, seen_at) for leaf, title in titles.items()])

    def apply_leaf_titles(self) -> int:
        """Title the sessions holding the leaf records of pending summaries; returns how many were
        applied (each is forgotten once its leaf is found; a title the person or the agent gave wins)."""
        done = 0
        for leaf, title, session_id in self.conn.execute(
                "SELECT * FROM (SELECT leaf_uuid, title, (SELECT session_id FROM records WHERE record_id >= "
                "leaf_uuid || '#' AND record_id < leaf_uuid || '$' LIMIT 1) AS sid FROM leaf_titles) "
                "WHERE sid IS NOT NULL").fetchall():
            self.conn.execute("UPDATE sessions SET title = ?, title_rank = 1 WHERE session_id = ? "
                              "AND coalesce(title_rank, 1) <= 1", (title, session_id))
            self.conn.execute("DELETE FROM leaf_titles WHERE leaf_uuid = ?", (leaf,))
            done += 1
        return done

    def add_redactions(self, counts: dict[str, int]) -> None:
        self.conn.executemany(
            "INSERT INTO redactions (kind, count) VALUES (?, ?) "
            "ON CONFLICT(kind) DO UPDATE SET count = count + excluded.count",
            list(counts.items()))

    def call_info(self, session_id: str, call_ids: list[str]) -> dict[str, tuple[str | None, bool]]:
        """``tool_call_id -> (tool_name, is_echo)`` of tool calls already stored for a session."""
        if not call_ids:
            return {}
        out = {}
        for i in range(0, len(call_ids), 500):
            chunk = call_ids[i:i + 500]
            q = ",".join("?" for _ in chunk)
            for cid, name, echo in self.conn.execute(
                f"SELECT tool_call_id, tool_name, is_echo FROM records WHERE tool_call_id IN ({q}) "
                f"AND session_id = ? AND tool_name IS NOT NULL", (*chunk, session_id)
            ):
                out[cid] = (name, bool(echo))
        return out

    # -- reads ---------------------------------------------------------------------------------
    def has_records(self) -> bool:
        return self.conn.execute("SELECT EXISTS (SELECT 1 FROM records)").fetchone()[0] == 1

    def has_agent(self, agent: str) -> bool:
        """Whether any session of ``agent`` is indexed."""
        return self.conn.execute("SELECT EXISTS (SELECT 1 FROM sessions WHERE agent = ?)", (agent,)).fetchone()[0] == 1

    def records_after(self, last_id: int, batch: int = 5000) -> Iterator[list[sqlite3.Row]]:
        """Records with ``id > last_id`` in id order, in batches (for building derived indexes)."""
        cur = self.conn.execute(f"SELECT {_READ_COLUMNS} FROM records WHERE id > ? ORDER BY id", (last_id,))
        while rows := cur.fetchmany(batch):
            yield rows

    def records_by_ids(self, ids: list[int], batch: int = 500) -> Iterator[list[sqlite3.Row]]:
        """The same columns as ``records_after`` for the given ids (repairing a derived index)."""
        for i in range(0, len(ids), batch):
            chunk = ids[i:i + batch]
            yield self.conn.execute(
                f"SELECT {_READ_COLUMNS} FROM records WHERE id IN ({','.join('?' * len(chunk))}) ORDER BY id",
                chunk).fetchall()

    def id_summary(self, up_to: int | None = None) -> tuple[int, int]:
        """``(records, sum of their ids)``, optionally of ids up to ``up_to``: a cheap fingerprint."""
        n, total = self.conn.execute("SELECT count(*), coalesce(sum(id), 0) FROM records WHERE id <= ?",
                                     (up_to if up_to is not None else 2**62,)).fetchone()
        return n, total

    def max_record_id(self) -> int:
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]

    def tombstones(self) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM tombstones")]

    def clear_tombstones(self, ids: list[int]) -> None:
        self.conn.executemany("DELETE FROM tombstones WHERE id = ?", [(i,) for i in ids])

    def ids_with_role(self, ids: list[int], role: str) -> set[int]:
        out: set[int] = set()
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            out.update(r[0] for r in self.conn.execute(
                f"SELECT id FROM records WHERE role = ? AND id IN ({','.join('?' * len(chunk))})", (role, *chunk)))
        return out

    def texts(self, ids: Iterable[int], chars: int) -> dict[int, str]:
        """The first ``chars`` characters of each record's text."""
        ids = list(ids)
        out: dict[int, str] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            out.update(self.conn.execute(
                f"SELECT id, substr(text, 1, ?) FROM records WHERE id IN ({','.join('?' * len(chunk))})",
                (chars, *chunk)).fetchall())
        return out

    def turn_answer(self, session_id: str, after_id: int) -> tuple[str, str] | None:
        """``(record_id, text)`` of the last assistant prose of the turn after record ``after_id``: before
        the session's next user prompt (the turn's conclusion), or None."""
        row = self.conn.execute(
            "SELECT record_id, text FROM records WHERE session_id = ? AND id > ? AND is_echo = 0 "
            "AND role = 'assistant' AND content_type = 'text' AND length(trim(text)) > 0 "
            "AND id < (SELECT coalesce(min(id), 9223372036854775807) FROM records WHERE session_id = ? "
            "AND id > ? AND role = 'user' AND content_type = 'text' AND is_echo = 0) ORDER BY id DESC LIMIT 1",
            (session_id, after_id, session_id, after_id)).fetchone()
        return None if row is None else (row[0], row[1])

    def tool_partners(self, ids: list[int]) -> dict[int, tuple[bool, list[tuple[int, bool]]]]:
        """For each tool row among ``ids``: whether it is the call, and the other rows of its tool call
        as ``(id, is_call)`` (the call, its output), never echoes (the same session and ``tool_call_id``)."""
        out: dict[int, tuple[bool, list[tuple[int, bool]]]] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for a, a_call, b, b_call in self.conn.execute(
                    "SELECT a.id, a.is_call, b.id, b.is_call FROM records a JOIN records b "
                    "ON b.tool_call_id = a.tool_call_id AND b.session_id = a.session_id AND b.id != a.id "
                    "AND b.content_type = 'tool' AND b.is_echo = 0 "
                    "WHERE a.content_type = 'tool' AND a.tool_call_id IS NOT NULL "
                    f"AND a.id IN ({','.join('?' * len(chunk))}) ORDER BY b.id", chunk):
                out.setdefault(a, (bool(a_call), []))[1].append((b, bool(b_call)))
        return out

    def _rows(self) -> sqlite3.Cursor:
        """A cursor yielding ``sqlite3.Row``s; the shared connection's own row factory is never touched."""
        cur = self.conn.cursor()
        cur.row_factory = sqlite3.Row
        return cur

    def fetch(self, ids: Iterable[int]) -> dict[int, sqlite3.Row]:
        ids = list(ids)
        out: dict[int, sqlite3.Row] = {}
        cur = self._rows()
        try:
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                q = ",".join("?" for _ in chunk)
                for row in cur.execute(f"SELECT * FROM records WHERE id IN ({q})", chunk):
                    out[row["id"]] = row
        finally:
            cur.close()
        return out

    def query(self, sql: str, params: tuple | dict = ()) -> list[sqlite3.Row]:
        cur = self._rows()
        try:
            return cur.execute(sql, params).fetchall()
        finally:
            cur.close()
