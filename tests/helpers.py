"""Small helpers for reading the store in tests (real SQLite, no mocks)."""

import sqlite3


def rows(home, sql="SELECT * FROM records ORDER BY id", params=()):
    conn = sqlite3.connect(home.data / "backscroll.db")
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def texts(home, **where):
    clause = " AND ".join(f"{k} = ?" for k in where) or "1"
    sql = f"SELECT text FROM records WHERE {clause} ORDER BY id"
    return [r["text"] for r in rows(home, sql, tuple(where.values()))]
