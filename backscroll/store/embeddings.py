"""The store's embeddings: prose waiting for a vector, vectors by content hash and model, the query-vector
cache, and the rows the matrix cache is built from. Vectors are float32 bytes; numpy stays with the caller.
Mixed into ``Store``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Collection, Iterator
from contextlib import AbstractContextManager

from backscroll.store.evidence import CHUNK
from backscroll.types import EMBEDDED_TYPES_SQL

_PENDING = f"unit_hash IS NULL AND content_type IN ({EMBEDDED_TYPES_SQL}) AND is_echo = 0"  # prose without a vector
# The rows of one model's vectors in matrix order (the vector pass, then id) after a pass.
_ROWS = ("FROM records r INDEXED BY records_vector_seq "
         "JOIN embeddings e ON e.content_hash = r.unit_hash AND e.model = ? "
         "WHERE r.vector_seq > ? AND r.vector_seq IS NOT NULL")


class EmbeddingQueries:
    """Vectors and what waits for one."""

    conn: sqlite3.Connection
    waiting_at_most: Callable[[int], AbstractContextManager[None]]  # (``MetaKeys``')

    def forget_other_models(self, model: str) -> None:
        """Every record waits for a vector again, and other models' vectors are deleted (in the caller's
        transaction)."""
        self.conn.execute("UPDATE records SET unit_hash = NULL, vector_seq = NULL WHERE unit_hash IS NOT NULL")
        self.conn.execute("DELETE FROM embeddings WHERE model != ?", (model,))

    def pending_prose(self, at_most: int | None = None) -> int:
        """Prose records without a vector (counting stops at ``at_most`` when given)."""
        if at_most is not None:
            return self.conn.execute(f"SELECT count(*) FROM (SELECT 1 FROM records WHERE {_PENDING} LIMIT ?)",
                                     (at_most,)).fetchone()[0]
        return self.conn.execute(f"SELECT count(*) FROM records WHERE {_PENDING}").fetchone()[0]

    def pending_prose_ids(self) -> Iterator[int]:
        """Ids of the prose records without a vector, newest first (by timestamp, then id)."""
        for row in self.conn.execute(f"SELECT id FROM records WHERE {_PENDING} "
                                     "ORDER BY coalesce(timestamp, '') DESC, id DESC"):
            yield row[0]

    def vector_count(self, model: str) -> int:
        return self.conn.execute("SELECT count(*) FROM embeddings WHERE model = ?", (model,)).fetchone()[0]

    def question_before(self, session_id: str, record_id: int) -> str | None:
        """The text of the session's last prompt before ``record_id``."""
        row = self.conn.execute(
            "SELECT text FROM records WHERE session_id = ? AND id < ? AND role = 'user' AND content_type = 'text' "
            "ORDER BY id DESC LIMIT 1", (session_id, record_id)).fetchone()
        return row[0] if row else None

    def unembedded(self, ids: list[int], also: Collection[int] = ()) -> list[tuple[int, str, str, str]]:
        """``(id, session_id, role, text)`` of those of ``ids`` still without a vector, and of those in ``also``
        whatever they hold."""
        rows: list[tuple[int, str, str, str]] = []
        for i in range(0, len(ids), CHUNK):
            chunk = ids[i:i + CHUNK]
            rows += [(rid, session, role, text) for rid, session, role, text, unit in self.conn.execute(
                f"SELECT id, session_id, role, text, unit_hash FROM records WHERE id IN ({','.join('?' * len(chunk))})",
                chunk) if unit is None or rid in also]
        return rows

    def known_vectors(self, model: str, hashes: list[str]) -> set[str]:
        """Those of the content ``hashes`` that have a vector of ``model`` already."""
        known: set[str] = set()
        for i in range(0, len(hashes), CHUNK):
            chunk = hashes[i:i + CHUNK]
            known.update(r[0] for r in self.conn.execute(
                "SELECT content_hash FROM embeddings WHERE model = ? "
                f"AND content_hash IN ({','.join('?' * len(chunk))})", (model, *chunk)))
        return known

    def save_vectors(self, model: str, seq: int, vectors: list[tuple[str, int, bytes]],
                     records: list[tuple[int, str]], too_short: list[int]) -> None:
        """Store ``(hash, dim, packed bytes)`` vectors, point ``records`` (id, unit hash) at them as pass
        ``seq``, and mark texts too short to embed (in the caller's transaction). A text's first vector stays:
        records given it in earlier passes keep their rows in the matrix, which a new matrix copies."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO embeddings (content_hash, model, dim, vector) VALUES (?, ?, ?, ?)",
            [(h, model, dim, blob) for h, dim, blob in vectors])
        self.conn.executemany("UPDATE records SET unit_hash = ?, vector_seq = ? WHERE id = ?",
                              [(h, seq, rid) for rid, h in records])
        self.conn.executemany("UPDATE records SET unit_hash = '' WHERE id = ?", [(r,) for r in too_short])

    def delete_orphan_vectors(self) -> int:
        """Delete vectors no record's unit uses any more; how many (in the caller's transaction)."""
        return self.conn.execute(
            "DELETE FROM embeddings WHERE content_hash NOT IN "
            "(SELECT unit_hash FROM records WHERE unit_hash IS NOT NULL AND unit_hash != '')").rowcount

    def cached_query_vector(self, model: str, key: str) -> bytes | None:
        row = self.conn.execute("SELECT vector FROM query_vectors WHERE model = ? AND query = ?",
                                (model, key)).fetchone()
        return row[0] if row else None

    def cache_query_vector(self, model: str, key: str, blob: bytes, used_at: str) -> None:
        """Keep a query's vector; never waits for an ``index`` writing (the search waited up to 30 s for a cache)."""
        with self.waiting_at_most(0):
            self.conn.execute("INSERT OR REPLACE INTO query_vectors (model, query, vector, used_at) "
                              "VALUES (?, ?, ?, ?)", (model, key, blob, used_at))

    def prune_query_vectors(self, keep: int) -> None:
        """Keep the ``keep`` most recently used query vectors."""
        self.conn.execute("DELETE FROM query_vectors WHERE rowid NOT IN "
                          "(SELECT rowid FROM query_vectors ORDER BY used_at DESC LIMIT ?)", (keep,))

    def vectors_of(self, ids: list[int], model: str) -> dict[int, bytes]:
        """The stored vector of ``model`` of each of ``ids`` that has one (a search's exact cosines)."""
        out: dict[int, bytes] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            out.update(self.conn.execute(
                "SELECT r.id, e.vector FROM records r JOIN embeddings e ON e.content_hash = r.unit_hash "
                f"AND e.model = ? WHERE r.id IN ({','.join('?' * len(chunk))})", (model, *chunk)).fetchall())
        return out

    # -- the matrix cache's rows ---------------------------------------------------------------------
    def vector_rows(self, model: str, after_seq: int, chunk: int) -> Iterator[list[tuple[int, bytes]]]:
        """``(id, vector bytes)`` in matrix order after pass ``after_seq``, ``chunk`` rows at a time."""
        cur = self.conn.execute(f"SELECT r.id, e.vector {_ROWS} ORDER BY r.vector_seq, r.id", (model, after_seq))
        while part := cur.fetchmany(chunk):
            yield part

    def vector_row_count(self, model: str, after_seq: int = 0) -> int:
        """How many rows ``vector_rows`` gives after pass ``after_seq``."""
        return self.conn.execute(f"SELECT count(*) {_ROWS}", (model, after_seq)).fetchone()[0]

    def vector_dim(self, model: str) -> int | None:
        """How many values a stored vector of ``model`` has (None when there is none)."""
        row = self.conn.execute("SELECT dim FROM embeddings WHERE model = ? LIMIT 1", (model,)).fetchone()
        return row[0] if row else None

    def vectored_fingerprint(self, seq: int) -> tuple[int, int]:
        """``(rows, id sum)`` of the records given a vector up to pass ``seq``."""
        n, total = self.conn.execute(
            "SELECT count(*), coalesce(sum(id), 0) FROM records INDEXED BY records_vector_seq "
            "WHERE vector_seq IS NOT NULL AND vector_seq <= ?", (seq,)).fetchone()
        return n, total

    def vectored_ids(self, seq: int) -> Iterator[int]:
        """The ids of the records given a vector up to pass ``seq`` (the rows a matrix written then holds)."""
        for row in self.conn.execute("SELECT id FROM records INDEXED BY records_vector_seq "
                                     "WHERE vector_seq IS NOT NULL AND vector_seq <= ?", (seq,)):
            yield row[0]

    def vectored_after(self, seq: int) -> int:
        """Records given a vector after pass ``seq``."""
        return self.conn.execute("SELECT count(*) FROM records WHERE vector_seq > ?", (seq,)).fetchone()[0]
