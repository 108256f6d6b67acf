"""Reading sessions: one by id or prefix, a page of its records, the list of sessions, and the names of the
projects and agents indexed. Mixed into ``Store``; the wording and the checks are ``browse``'s."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from backscroll.sanitize import composed
from backscroll.types import session_title

# A session without a title is titled by its first prompt: the person's, else the agent's (a subagent's
# task), and only then the harness's (IDE context, an interruption notice, a task notification). The index
# records_first_prompt (schema m014) holds this order: one look-up finds it, as long as the two stay alike.
FIRST_PROMPT = ("r.role = 'user' AND r.content_type = 'text' "  # (a slash command, "/model", only when it is all)
                "ORDER BY coalesce(r.author = 'harness', 0), coalesce(r.author != 'human', 0), r.text LIKE '/%', "
                "r.id LIMIT 1")


# A call's text as the index records_call_text (schema m015) holds it: every call's in time order, but the long ones'
# (1 in 23, 3/5 of the calls' text: a file written whole), left to their records. ``files`` reads its calls there, not
# every record (20,000 sessions: 2.4 s -> 0.55 s a query, for 3% more disk), as long as the two stay alike.
CALL_TEXT = "coalesce(CASE WHEN length(r.text) <= 1000 THEN r.text END, r.text)"


def like_prefix(value: str) -> str:
    """A ``LIKE`` pattern (``\\`` escapes) for the values that start with ``value``: in SQLite and PostgreSQL alike."""
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _where(agent: str | None, project: str | None, since: str | None, until: str | None = None,
           prefix: str = "") -> tuple[list[str], list]:
    """Sessions of an agent and project, active in ``[since, until)``: last busy since, first busy before."""
    where, params = [], []
    for col, value in (("agent", agent), ("project", project)):
        if value:
            where.append(f"{prefix}{col} = ?")
            params.append(value)
    if since:
        where.append(f"coalesce({prefix}updated_at, {prefix}started_at) >= ?")
        params.append(since)
    if until:
        where.append(f"coalesce({prefix}started_at, {prefix}updated_at) < ?")
        params.append(until)
    return where, params


# ``list``'s order, newest first, as the index sessions_newest (schema m016) holds it: a page is read in it, not sorted
# from every session, as long as the two stay alike.
NEWEST = "coalesce(started_at, updated_at) DESC, session_id"

MIN_LISTED = 2  # ``list`` leaves out sessions of fewer records (an aborted start, a lone title line) unless asked


def folded(text: str) -> str:
    """``text`` composed (NFC) and case-folded ("Straße": "strasse"), as ``folded_holds`` compares it."""
    return composed(text).casefold()


def folded_holds(text: str | None, word: str) -> bool:
    return isinstance(text, str) and word in folded(text)  # (``word`` folded: whatever the case of either)


def _like(word: str) -> str:
    return "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _records(session: str, where: str = "") -> str:
    """How many records the session ``session`` (a column) holds, counted by ``record_counts``."""
    return f"(SELECT coalesce(sum(c.records), 0) FROM record_counts c WHERE c.session_id = {session}{where})"


def _first_user(session: str) -> str:
    return f"(SELECT text FROM records r WHERE r.session_id = {session} AND {FIRST_PROMPT})"


_COLUMNS = ("session_id", "agent", "project", "cwd", "title", "started_at", "updated_at", "is_sidechain",
            "parent_session_id")


def _listed(agent: str | None, project: str | None, since: str | None, until: str | None, words: tuple[str, ...],
            everything: bool) -> tuple[str, list]:
    """The sessions ``list`` shows: those holding records (``everything``: any; else ``MIN_LISTED`` or more, and
    not a subagent whose parent the list shows: it is counted under it), whose title or first prompt holds every
    one of ``words`` (each subagent on its own line then); as a query of session columns (and ``first_user`` when
    there are words: else a page's own is read once it is chosen, as its counts are, ``session_list``)."""
    where, params = _where(agent, project, since, until, "s.")
    if not everything and not words:  # (a subagent is folded only under a parent the list shows)
        shown, shown_params = _where(agent, project, since, until, "p.")
        where.append("NOT (s.is_sidechain = 1 AND EXISTS (SELECT 1 FROM sessions p WHERE p.session_id = "
                     f"s.parent_session_id AND {_records('p.session_id')} "
                     f">= {MIN_LISTED}{''.join(' AND ' + w for w in shown)}))")
        params += shown_params
    where.append(f"{_records('s.session_id')} >= {1 if everything else MIN_LISTED}")
    inner = f"""SELECT {', '.join('s.' + c for c in _COLUMNS)}{', ' + _first_user('s.session_id') + ' AS first_user'
                                                             if words else ''}
                FROM sessions s WHERE {' AND '.join(where)}"""
    outer = []
    for word in words:  # (LIKE folds ASCII case in C; any other word is folded by ``folded_holds``)
        ascii_word = word.isascii()
        outer.append("(coalesce(title, '') LIKE ? ESCAPE '\\' OR coalesce(first_user, '') LIKE ? ESCAPE '\\')"
                     if ascii_word else "(folded_holds(title, ?) OR folded_holds(first_user, ?))")
        params += [_like(word) if ascii_word else folded(word)] * 2
    return f"SELECT * FROM ({inner}){' WHERE ' + ' AND '.join(outer) if outer else ''}", params


def project_names_at(db: Path) -> list[str]:
    """The projects of the store at ``db``, read as it is (read-only, no lock, no migration: shell completion);
    none when there is no readable store."""
    if not db.exists():
        return []
    try:
        conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=0.5)
        try:
            return [r[0] for r in conn.execute(
                "SELECT DISTINCT project FROM sessions WHERE project IS NOT NULL ORDER BY project")]
        finally:
            conn.close()
    except sqlite3.Error:
        return []


class SessionQueries:
    """Sessions and the records of one."""

    conn: sqlite3.Connection
    query: Callable[..., list[sqlite3.Row]]  # ``RecordQueries.query``: rows as ``sqlite3.Row``

    def session(self, session_id: str) -> sqlite3.Row | None:
        rows = self.query("SELECT * FROM sessions WHERE session_id = ?", (session_id,))
        return rows[0] if rows else None

    def first_prompt(self, session_id: str) -> str | None:
        """The text that titles a session without a title (``FIRST_PROMPT``)."""
        row = self.conn.execute(f"SELECT text FROM records r WHERE session_id = ? AND {FIRST_PROMPT}",
                                (session_id,)).fetchone()
        return row[0] if row else None

    def holds_place(self, projects: Sequence[str], folder: str | None, besides: str | None) -> bool:
        """Whether a session other than ``besides`` (and those under its id or of which it is the parent: its
        subagents) ran in one of ``projects`` (any case) or in ``folder`` or below it."""
        named = ", ".join("lower(?)" for _ in projects)
        where = f"(lower(project) IN ({named})" + (" OR cwd = ? OR substr(cwd, 1, ?) = ?)" if folder else ")")
        params: list = [*projects] + ([folder, len(folder) + 1, folder.rstrip("/") + "/"] if folder else [])
        if besides:
            where += (" AND session_id != ? AND substr(session_id, 1, ?) != ? AND (parent_session_id IS NULL OR "
                      "parent_session_id != ?)")
            params += [besides, len(besides) + 1, besides + ":", besides]
        return self.conn.execute(f"SELECT 1 FROM sessions WHERE {where} LIMIT 1", params).fetchone() is not None

    def has_session(self, session_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM sessions WHERE session_id = ?", (session_id,)).fetchone() is not None

    def sessions_starting(self, prefix: str, limit: int) -> list[str]:
        """Session ids that start with ``prefix`` (ASCII letters in any case, as ``LIKE`` compares), in order."""
        return [r[0] for r in self.conn.execute(
            "SELECT session_id FROM sessions WHERE session_id LIKE ? ESCAPE '\\' ORDER BY session_id LIMIT ?",
            (like_prefix(prefix), limit))]

    def project_names(self) -> list[str]:
        """The projects indexed, those with most sessions first."""
        return [r[0] for r in self.conn.execute(
            "SELECT project FROM sessions WHERE project IS NOT NULL GROUP BY project ORDER BY count(*) DESC, project")]

    def agent_names(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT agent FROM sessions ORDER BY agent")]

    def records_starting(self, prefix: str, limit: int) -> list[str]:
        """Record ids that start with ``prefix``, in order (read through the ids' index)."""
        return [r[0] for r in self.conn.execute(
            "SELECT record_id FROM records WHERE record_id >= ? AND record_id < ? ORDER BY record_id LIMIT ?",
            (prefix, prefix + "\U0010ffff", limit))]

    def record_elsewhere(self, prefix: str, session_id: str) -> str | None:
        """The first record id starting with ``prefix`` that is not ``session_id``'s own: neither in it, nor in a
        session or under an id that extends its id (a subagent's, an earlier part's)."""
        row = self.conn.execute(
            "SELECT record_id FROM records WHERE record_id >= ? AND record_id < ? AND session_id != ? "
            "AND substr(session_id, 1, ?) != ? AND substr(record_id, 1, ?) != ? ORDER BY record_id LIMIT 1",
            (prefix, prefix + "\U0010ffff", session_id, len(session_id), session_id, len(session_id),
             session_id)).fetchone()
        return row[0] if row else None

    def record_place(self, record_id: str) -> tuple[int, str] | None:
        """``(store id, session id)`` of a record, by its record id."""
        row = self.conn.execute("SELECT id, session_id FROM records WHERE record_id = ?", (record_id,)).fetchone()
        return (row[0], row[1]) if row else None

    def records_around(self, session_id: str, rid: int, context: int) -> tuple[list[sqlite3.Row], int]:
        """The ``context`` records before store id ``rid`` in its session, it and ``context`` after, and the
        place of the first of them in the session (0-based)."""
        before = self.query("SELECT * FROM records WHERE session_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                           (session_id, rid, context))[::-1]
        after = self.query("SELECT * FROM records WHERE session_id = ? AND id >= ? ORDER BY id LIMIT ?",
                          (session_id, rid, context + 1))
        position = self.conn.execute("SELECT count(*) FROM records WHERE session_id = ? AND id < ?",
                                     (session_id, rid)).fetchone()[0]
        return before + after, position - len(before)

    def session_size(self, session_id: str) -> int:
        return self.conn.execute("SELECT count(*) FROM records WHERE session_id = ?", (session_id,)).fetchone()[0]

    def session_records(self, session_id: str, limit: int | None, offset: int) -> list[sqlite3.Row]:
        return self.query("SELECT * FROM records WHERE session_id = ? ORDER BY id LIMIT ? OFFSET ?",
                         (session_id, -1 if limit is None else limit, offset))

    def session_list(self, agent: str | None, project: str | None, since: str | None, until: str | None, limit: int,
                     offset: int, *, words: tuple[str, ...] = (), everything: bool = False) -> list[sqlite3.Row]:
        """The sessions ``list`` shows (``_listed``), newest first, with their record, echo and subagent counts
        and first prompt."""
        sql, params = _listed(agent, project, since, until, words, everything)
        order = f"ORDER BY {NEWEST}"
        # The page first, read newest first through sessions_newest until it is full, then what only its rows show:
        # their counts and first prompt.
        return self.query(f"""
            WITH page AS MATERIALIZED (SELECT * FROM ({sql}) {order} LIMIT ? OFFSET ?)
            SELECT {', '.join('l.' + c for c in _COLUMNS)}, {_records('l.session_id')} AS records,
                   {'l.first_user' if words else _first_user('l.session_id')} AS first_user,
                   {_records('l.session_id', ' AND c.is_echo = 1')} AS echoes,
                   (SELECT count(*) FROM sessions c WHERE c.parent_session_id = l.session_id
                                                      AND c.is_sidechain = 1) AS subagents
            FROM page l {order}""", (*params, limit, offset))

    def session_count(self, agent: str | None, project: str | None, since: str | None, until: str | None, *,
                      words: tuple[str, ...] = (), everything: bool = False) -> int:
        """How many sessions ``session_list`` pages through."""
        sql, params = _listed(agent, project, since, until, words, everything)
        return self.conn.execute(f"SELECT count(*) FROM ({sql})", params).fetchone()[0]

    def activity(self, by: str, since: str | None, until: str | None = None) -> list[tuple[str | None, int, int]]:
        """``(agent | project | month, sessions, records)`` of the records in ``[since, until)``, most records
        first (months: newest first); echoes left out."""
        column = {"agent": "agent", "project": "project", "month": "substr(timestamp, 1, 7)"}[by]
        order = "1 DESC" if by == "month" else "3 DESC, 1"
        if not since and not until:  # (the whole history: counted by ``record_counts``, by month too)
            return [tuple(r) for r in self.conn.execute(
                f"SELECT {by}, count(DISTINCT session_id), sum(records) FROM record_counts WHERE is_echo = 0 "
                f"GROUP BY 1 ORDER BY {order}")]
        bounds = [(op, at) for op, at in ((">=", since), ("<", until)) if at]
        where = " AND ".join(["is_echo = 0", *(f"timestamp {op} ?" for op, _ in bounds)])
        # Only the sessions with records in the window's months are read, through each one's records by time (a
        # time in the window has its month, its first 7 characters, within the window's).
        months = " AND ".join(["is_echo = 0", *(f"month {op[0]}= ?" for op, _ in bounds)])
        return [tuple(r) for r in self.conn.execute(
            f"SELECT {column}, count(DISTINCT session_id), count(*) FROM records WHERE {where} AND session_id IN "
            f"(SELECT session_id FROM record_counts WHERE {months}) GROUP BY 1 ORDER BY {order}",
            [at for _, at in bounds] + [at[:7] for _, at in bounds])]

    def calls_naming(self, name: str, agent: str | None, project: str | None, since: str | None,
                     until: str | None, limit: int) -> list[sqlite3.Row]:
        """The newest ``limit`` tool calls whose text holds ``name`` (a file name), with their session's cwd: of an
        agent and project, made in ``[since, until)``."""
        where, params = _where(agent, project, None, None, "s.")
        for op, at in ((">=", since), ("<", until)):
            if at:
                where.append(f"r.timestamp {op} ?")
                params.append(at)
        where[:0] = ["r.is_call = 1", "r.is_echo = 0", f"{CALL_TEXT} LIKE ? ESCAPE '\\'"]
        params[:0] = [_like(name)]  # (LIKE ignores ASCII case: a file name's case is checked by ``touches``)
        return self.query(f"""
            SELECT r.id, r.record_id, r.session_id, r.tool_name, r.text, r.timestamp, s.cwd
            FROM records r JOIN sessions s ON s.session_id = r.session_id WHERE {' AND '.join(where)}
            ORDER BY r.timestamp DESC, r.id DESC LIMIT ?""", (*params, limit))

    def first_prompts(self, since: str, until: str, *, project: str | None = None, agent: str | None = None,
                      session: str | None = None, sessions: tuple[str, ...] | None = None,
                      limit: int = 100) -> list[int]:
        """The first prose of each session with a record between ``since`` and ``until`` (what it set out to
        do: the user's, and not a slash command, when there is one), the session busy most recently first."""
        where, params = ["timestamp >= ?", "timestamp < ?", "is_echo = 0"], [since, until]
        for column, value in (("project", project), ("agent", agent), ("session_id", session)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        if sessions is not None:
            where.append(f"session_id IN ({','.join('?' * len(sessions)) or 'NULL'})")
            params.extend(sessions)
        rows = self.conn.execute(
            "SELECT id FROM (SELECT id, content_type, max(timestamp) OVER (PARTITION BY session_id) AS busy, "
            "row_number() OVER (PARTITION BY session_id ORDER BY content_type != 'text', role != 'user', "
            "text LIKE '/%', timestamp, id) AS nth "
            f"FROM records WHERE {' AND '.join(where)}) WHERE nth = 1 AND content_type = 'text' "
            "ORDER BY busy DESC LIMIT ?", (*params, limit))
        return [r[0] for r in rows]

    def session_heads(self, session_ids: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        """``(title, started_at)`` of each session, titled as everywhere (``types.session_title``)."""
        ids = list(dict.fromkeys(session_ids))
        out: dict[str, tuple[str | None, str | None]] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for sid, title, started, first in self.conn.execute(
                    f"SELECT s.session_id, s.title, s.started_at, CASE WHEN coalesce(s.title, '') = '' THEN "
                    f"(SELECT text FROM records r WHERE r.session_id = s.session_id AND {FIRST_PROMPT}) END "
                    f"FROM sessions s WHERE s.session_id IN ({marks})", chunk):
                out[sid] = (session_title(title, first), started)
        return out
