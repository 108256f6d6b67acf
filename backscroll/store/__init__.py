"""Stage 2: the SQLite record store, the permanent record (connection, migrations, queries, source files, meta)."""
