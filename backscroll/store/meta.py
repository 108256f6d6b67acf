"""The store's ``meta`` table: small named values, each key written by one stage.

Keys in use: ``lexical_generation`` and ``lexical_watermark`` (the lexical index's sync,
``indexes.lexical``); ``vectors_model``, ``vector_seq`` and ``embeddings_prune`` (the embedding
pass, ``indexes.vectors``; ingest sets the prune flag); ``classifier_version`` (echo
re-classification, ``ingest``); ``redaction_version`` and ``revision_seq`` (records redacted again under
newer rules, ``ingest.redact_again``); ``archive_pushed:*`` and ``archive_revised:*`` (a push's marks,
``team.push``). Migrations may delete a key to make its stage start over.
"""

from __future__ import annotations

import sqlite3

# ``lexical_generation`` set to this asks for a new generation of the lexical index, built from the store alone
# (no file of the old one kept: its deleted documents' terms go with it).
REBUILD_LEXICAL = "rebuild"


class MetaKeys:
    """Reads and writes of ``meta`` on the store's connection (a mixin of ``Store``)."""

    conn: sqlite3.Connection

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str | None) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
