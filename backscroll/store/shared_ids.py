"""Record ids another source holds already (mixed into ``Store``).

A fork, a resumed session's new file or a copy repeats the records it was made from under the same ids: those are
stored once. A log that gives another source's id to a record that says something else (a hand-made or hostile
file, a tool that reuses ids, a second line of one log under the same id) never takes that record's place: its
record is stored under an id of its own, ``<id>~<hash>``, as a record's earlier text is kept.
"""

from __future__ import annotations

import sqlite3

from backscroll.store.queries import RECORD_COLUMNS

_ID, _SOURCE, _TEXT, _HASH = (RECORD_COLUMNS.index(c) for c in ("record_id", "source_path", "text", "content_hash"))


def same_record(stored: str, read: str) -> bool:
    """Whether two texts under one id are one record: equal, or one goes on from the other (a copy made while a
    reply was still being written). Pure."""
    return read.startswith(stored) or stored.startswith(read)


class SharedIds:
    conn: sqlite3.Connection

    def apart(self, rows: list[tuple], *, appended: bool = False) -> list[tuple]:
        """``rows`` (of one source) without the records another source holds under the same id, and with an id of
        its own for a row whose id another source holds for a record that says something else (``appended``: lines
        read on from where a file was read before, so its own earlier lines and these are held apart too)."""
        held: dict[str, tuple[str, str]] = {}
        for i in range(0, len(rows), 500):
            chunk = rows[i:i + 500]
            held.update((r[0], (r[1], r[2])) for r in self.conn.execute(
                f"SELECT record_id, source_path, content_hash FROM records WHERE record_id IN "
                f"({','.join('?' * len(chunk))})", [row[_ID] for row in chunk]))
        out = []
        texts: dict[str, str] = {}  # (this read's own records: a log that gives one id to two of its lines)
        for row in rows:
            found = held.get(row[_ID])
            if found is None or (found[0] == row[_SOURCE] and not appended):  # (a file read again: replaced)
                if appended:
                    held[row[_ID]], texts[row[_ID]] = (row[_SOURCE], row[_HASH]), row[_TEXT]
                out.append(row)
            elif found[1] != row[_HASH] and not same_record(texts.get(row[_ID]) or self._text(row[_ID]), row[_TEXT]):
                out.append((f"{row[_ID]}~{row[_HASH][:8]}", *row[1:]))
            # (else a fork's or a copy's record, or this one read again, stored once already)
        return out

    def _text(self, record_id: str) -> str:
        return self.conn.execute("SELECT text FROM records WHERE record_id = ?", (record_id,)).fetchone()[0]
