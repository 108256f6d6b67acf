"""The store's ``meta`` table: small named values, each key written by one stage.

Keys in use: ``lexical_generation`` and ``lexical_watermark`` (the lexical index's sync, ``indexes.lexical``);
``vectors_model``, ``vector_seq`` and ``embeddings_prune`` (the embedding pass, ``indexes.vectors``; ingest
sets the prune flag); ``classifier_version`` (echo re-classification, ``ingest``); ``redaction_version`` and
``revision_seq`` (records redacted again under newer rules, ``ingest.redact_again``); ``archive_pushed:*``,
``archive_revised:*`` and ``archive_vectored:*`` (a push's marks, ``team.push``); ``resumed_files`` (the
session files ``backscroll resume`` went back into, read by ``ingest.quick``). Migrations may delete a key to
make its stage start over.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import orjson

# ``lexical_generation`` set to this asks for a new generation of the lexical index, built from the store alone
# (no file of the old one kept: its deleted documents' terms go with it).
REBUILD_LEXICAL = "rebuild"
RESUMED_KEY, RESUMED_KEPT = "resumed_files", 32  # the session files ``resume`` went back into, the newest kept


class MetaKeys:
    """Reads and writes of ``meta`` on the store's connection (a mixin of ``Store``)."""

    conn: sqlite3.Connection

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def meta_count(self, key: str) -> int:
        """A counter kept in ``meta`` (a sequence, a watermark: 0 when unset). Raises ``CorruptStoreError`` when its
        value is no count (only a damaged store holds one: every stage would misread it)."""
        value = self.get_meta(key)
        try:
            count = int(value or 0)
        except ValueError:
            count = -1
        if not 0 <= count < 1 << 63:
            from backscroll.errors import CorruptStoreError

            mend = ("`backscroll rebuild` makes the lexical index again, and this count with it"
                    if key == "lexical_watermark" else "restore the data dir from a backup")
            raise CorruptStoreError(f"the store's {key} ({value!r:.40}) is no count: the store was damaged",
                                    hint=f"{mend}; a damaged store is a bug or a bad disk: please report it")
        return count

    def set_meta(self, key: str, value: str | None) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def _resumed(self) -> dict[str, int]:
        try:
            kept = orjson.loads(self.get_meta(RESUMED_KEY) or "{}")
        except orjson.JSONDecodeError:
            return {}
        return {p: at for p, at in kept.items() if isinstance(at, int)} if isinstance(kept, dict) else {}

    def resumed_files(self, since_ns: int) -> list[str]:
        """The session files ``resume`` went back into after ``since_ns`` (their agent writes them again)."""
        return [path for path, at in self._resumed().items() if at > since_ns]

    def note_resumed(self, path: str, at_ns: int) -> bool:
        """Remember, in a transaction of its own, that ``resume`` went back into the session of ``path`` (the newest
        ``RESUMED_KEPT``). Never waits long nor raises: False when the store could not be written at once."""
        kept = sorted(((p, at) for p, at in self._resumed().items() if p != path), key=lambda item: item[1])
        newest = dict([*kept[max(0, len(kept) - RESUMED_KEPT + 1):], (path, at_ns)])
        with self.waiting_at_most(500):
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self.set_meta(RESUMED_KEY, orjson.dumps(newest).decode())
                self.conn.execute("COMMIT")
                return True
            except (sqlite3.Error, OSError):
                if self.conn.in_transaction:
                    self.conn.rollback()
                return False

    @contextmanager
    def waiting_at_most(self, ms: int) -> Iterator[None]:
        """Statements inside wait at most ``ms`` for another process's write (a write the caller can go without:
        an ``index`` holds the store for seconds at a time)."""
        waits = self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        self.conn.execute(f"PRAGMA busy_timeout = {int(ms)}")
        try:
            yield
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(waits)}")
