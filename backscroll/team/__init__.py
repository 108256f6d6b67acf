"""The team archive: this machine's records pushed to a PostgreSQL database the team shares, and searched
there with the same rules (``push``; the SQL is in ``store/archive_pg.py``)."""
