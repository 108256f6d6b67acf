"""``record_counts``: how many records each session holds, per agent, project, month, echo flag and kind, kept in
the same transaction as every change to the records (so that it cannot drift from them): inserts counted by
``insert_records``, through which every record is written (a trigger per inserted row doubled the insert's own
cost), updates and deletes by triggers. ``status``, ``stats`` and ``list`` count sessions' records from it
without reading the records."""

from __future__ import annotations

import sqlite3

# The columns a count is kept by: the records' own (a redaction may change a record's project), and its month.
KEY = ("session_id", "agent", "project", "month", "is_echo", "content_type", "is_call", "role")


def _of(column: str, row: str) -> str:
    """A key column's value for the record ``row`` (``new``, ``old``; "": the row scanned)."""
    at = f"{row}." if row else ""
    return f"substr({at}timestamp, 1, 7)" if column == "month" else at + column


def _values(r: str) -> str:
    return ", ".join(_of(c, r) + (" AS month" if c == "month" else "") for c in KEY)


def _match(r: str) -> str:  # (IS: a project, a month or a flag may be NULL, and NULL = NULL is not true)
    return " AND ".join(f"{c} IS {_of(c, r)}" for c in KEY)


def _add(r: str) -> str:
    return (f"INSERT INTO record_counts ({', '.join(KEY)}, records, id_sum) SELECT {_values(r)}, 0, 0 "
            f"WHERE NOT EXISTS (SELECT 1 FROM record_counts WHERE {_match(r)}); "
            f"UPDATE record_counts SET records = records + 1, id_sum = id_sum + {r}.id WHERE {_match(r)};")


def _remove(r: str) -> str:
    return (f"DELETE FROM record_counts WHERE {_match(r)} AND records <= 1; "
            f"UPDATE record_counts SET records = records - 1, id_sum = id_sum - {r}.id WHERE {_match(r)};")


def _changed() -> str:
    return " OR ".join(f"{_of(c, 'old')} IS NOT {_of(c, 'new')}" for c in (*KEY, "id"))


# What reads the counts without the table (schema m016): a session's counts (``list``: two look-ups per session), and
# the counts in agent and project order with the sessions beside them (``status``: by kind and project, no sort of the
# table). Each holds what its readers read, so that none reads the table's rows.
INDEXES = ("record_counts_session ON record_counts (session_id, is_echo, records)",
           "record_counts_kinds ON record_counts (agent, project, is_echo, content_type, is_call, role, records, "
           "session_id)")


def indexes(conn: sqlite3.Connection) -> None:
    for index in INDEXES:
        conn.execute(f"CREATE INDEX IF NOT EXISTS {index}")


def create(conn: sqlite3.Connection) -> None:
    """The table, filled from the records as they are, and the triggers that keep it (a migration that rebuilds
    ``records`` drops them: it must call this again)."""
    columns = ", ".join(f"{c} {'INTEGER' if c.startswith('is_') else 'TEXT'}" for c in KEY)
    conn.execute("DROP TABLE IF EXISTS record_counts")
    conn.execute(f"CREATE TABLE record_counts ({columns}, records INTEGER NOT NULL, id_sum INTEGER NOT NULL)")
    conn.execute(f"INSERT INTO record_counts SELECT {_values('')}, count(*), sum(id) "
                 f"FROM records GROUP BY {', '.join(str(i + 1) for i in range(len(KEY)))}")
    conn.execute(f"CREATE INDEX record_counts_key ON record_counts ({', '.join(KEY)})")
    indexes(conn)
    for name, event, body in (("delete", "DELETE", _remove("old")),
                              ("update", f"UPDATE OF {', '.join(c for c in (*KEY, 'id', 'timestamp') if c != 'month')}",
                               f"{_remove('old')} {_add('new')}")):
        when = f" WHEN {_changed()}" if name == "update" else ""
        conn.execute(f"DROP TRIGGER IF EXISTS record_counts_{name}")
        conn.execute(f"CREATE TRIGGER record_counts_{name} AFTER {event} ON records{when} BEGIN {body} END")


def insert(conn: sqlite3.Connection, sql: str, rows: list[tuple]) -> int:
    """Insert ``rows`` (``sql``: an ``INSERT OR IGNORE INTO records``) and count those inserted, whose ids are above
    every earlier one (AUTOINCREMENT); how many were inserted, not ignored."""
    after = conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]
    added = conn.executemany(sql, rows).rowcount
    grouped = (f"SELECT {_values('')}, count(*) AS n, sum(id) AS s FROM records WHERE id > ? "
               f"GROUP BY {', '.join(str(i + 1) for i in range(len(KEY)))}")
    found = " AND ".join(f"c.{k} IS g.{k}" for k in KEY)
    conn.execute(f"UPDATE record_counts AS c SET records = c.records + g.n, id_sum = c.id_sum + g.s "
                 f"FROM ({grouped}) AS g WHERE {found}", (after,))
    conn.execute(f"INSERT INTO record_counts ({', '.join(KEY)}, records, id_sum) SELECT g.* FROM ({grouped}) AS g "
                 f"WHERE NOT EXISTS (SELECT 1 FROM record_counts c WHERE {found})", (after,))
    return added


def _differing(counted: str, against: str) -> str:
    """The keys whose records or id sum differ between ``counted`` (a select of the key, ``n`` and ``s``) and the
    table ``against``, or that one side lacks: each with the records it misses there and their id sum."""
    keys = ", ".join(KEY)
    return (f"SELECT {keys}, sum(n), sum(s) FROM ({counted} UNION ALL SELECT {keys}, -records, -id_sum "
            f"FROM {against}) GROUP BY {keys} HAVING sum(n) != 0 OR sum(s) != 0")


def drift(conn: sqlite3.Connection) -> list[tuple]:
    """The rows of ``record_counts`` that differ from a count of the records themselves (a pass over every record,
    ``status --check``): each key with the records it misses (negative: counted but not there) and their id sum."""
    counted = (f"SELECT {_values('')}, count(*) AS n, sum(id) AS s FROM records NOT INDEXED "  # (in file order)
               f"GROUP BY {', '.join(str(i + 1) for i in range(len(KEY)))}")
    return conn.execute(_differing(counted, "record_counts")).fetchall()


def recount(conn: sqlite3.Connection) -> int:
    """``record_counts`` made again from the records (``create``, in the caller's transaction); how many of its rows
    changed (as ``drift`` counts them)."""
    conn.execute("CREATE TEMP TABLE record_counts_before AS SELECT * FROM record_counts")
    create(conn)
    made = f"SELECT {', '.join(KEY)}, records AS n, id_sum AS s FROM record_counts"
    changed = conn.execute(f"SELECT count(*) FROM ({_differing(made, 'temp.record_counts_before')})").fetchone()[0]
    conn.execute("DROP TABLE temp.record_counts_before")
    return changed
