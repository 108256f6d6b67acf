"""The team archive's search statements (mixed into ``archive_pg.Archive``): full-text candidates, word
frequencies for idf, and the nearest vectors by pgvector or an exact scan."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from backscroll.errors import ArchiveError
from backscroll.store.archive_url import said, where

EXACT_UP_TO = 5000  # a word's rows are counted exactly up to this many
# How many neighbours pgvector's HNSW walk keeps: its most. Against the exact ten closest of 120 benchmark queries
# (22,754 vectors), the graph of version 2 (ef_construction 200) finds .998 of them, v1's (64) at 400 wide .963.
HNSW_BREADTH = 1000
# Up to this many rows the closest are found by an exact scan, as the local store finds them (about 90 ms for 23,000
# vectors on two cores); above it the HNSW index answers.
EXACT_MEANING_UP_TO = 150_000
EXACT_TOTAL_UP_TO = 200_000  # the archive's rows are counted exactly up to this many
HIT_COLUMNS = ("member, machine, record_id, session_id, agent, project, cwd, title, role, content_type, author, "
               "tool_name, is_echo, is_error, is_call, ts, text, words, stems, parts, seq, source_path, line, "
               "is_sidechain, parent_session_id")


def psycopg_module():
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the extra is part of the install
        raise ArchiveError("the team archive needs psycopg: pip install 'backscroll[team]'") from None
    return psycopg


def _quoted(term: str) -> str:
    """A lexeme quoted for ``to_tsquery`` (so no operator in a word is read)."""
    return "'" + term.replace("\\", "").replace("'", "''") + "'"


def or_query(terms: Iterable[str]) -> str:
    """A ``to_tsquery`` of any of ``terms``, each quoted as a lexeme."""
    return " | ".join(_quoted(t) for t in terms if t) or "''"


def _holds(term: str, stem: str, longer: tuple[str, ...]) -> tuple[str, tuple]:
    """The clause (and its parameters) of a row holding ``term`` as the local index counts it: as a word, its stem,
    a piece of an identifier, or one of the ``longer`` words it begins."""
    clause = ("(tsv @@ to_tsquery('simple', %s) OR stem_tsv @@ to_tsquery('simple', %s) "
              "OR parts_tsv @@ to_tsquery('simple', %s))")
    return clause, (or_query([term, *longer]), or_query([stem]), or_query([term]))


def _columns(keys: Sequence[tuple[str, str, str]]) -> tuple[list[str], list[str], list[str]]:
    return [m for m, _h, _r in keys], [h for _m, h, _r in keys], [r for _m, _h, r in keys]


def vector_literal(values: Iterable[float]) -> str:
    """A vector as pgvector reads it: ``[0.1,-0.2,…]``."""
    return "[" + ",".join(f"{v:.6g}" for v in values) + "]"


class ArchiveSearch:
    """The search half of an archive connection (``archive_pg.Archive`` gives the connection)."""

    conn: Any
    url: str
    _breadth: int  # the HNSW walk's width this connection has set

    def _run(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple]:
        raise NotImplementedError

    def _rollback(self) -> None:
        raise NotImplementedError

    def has_vector(self) -> bool:
        raise NotImplementedError

    def _rows(self, sql: str, params: Sequence[Any]) -> list[dict]:
        psycopg = psycopg_module()
        try:
            with self.conn.cursor(row_factory=psycopg.rows.dict_row) as cur:
                cur.execute(sql, params)
                return cur.fetchall()
        except psycopg.Error as exc:
            self._rollback()
            raise ArchiveError(f"the archive at {where(self.url)} refused the search: {said(exc, self.url)}") from None

    def holding(self, terms: Mapping[str, tuple[str, tuple[str, ...]]], where_sql: str, params: Sequence[Any],
                per_word: int, kinds: Collection[str]) -> dict[str, list[tuple[str, str, str]]]:
        """For each of ``terms`` (each with its stem and the longer words it begins that count), the keys of up to
        ``per_word`` rows of ``kinds`` the filters admit that hold it: through the GIN indexes, in no order."""
        out = {}
        for term, (stem, longer) in terms.items():
            clause, args = _holds(term, stem, longer)
            out[term] = [tuple(r) for r in self._run(
                f"SELECT member, machine, record_id FROM backscroll.records WHERE {clause} AND content_type = ANY(%s) "
                f"AND {where_sql} LIMIT %s", (*args, list(kinds), *params, per_word))]
        return out

    def rows_of(self, keys: Sequence[tuple[str, str, str]]) -> list[dict]:
        """The rows of ``keys`` (``(member, machine, record_id)``), in no order."""
        if not keys:
            return []
        return self._rows(f"SELECT {HIT_COLUMNS} FROM backscroll.records WHERE (member, machine, record_id) IN "
                          "(SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]))", _columns(keys))

    def average_words(self) -> float:
        """The rows' mean count of words (BM25's average length): from a sample of a large archive."""
        sample = "TABLESAMPLE SYSTEM (5) REPEATABLE (0)" if self.rows_estimate() > 200_000 else ""
        found = self._run("SELECT avg(CASE WHEN words = '' THEN 0 ELSE length(words) - length(replace(words, ' ', '')) "
                          f"+ 1 END) FROM backscroll.records {sample}")[0][0]
        return float(found or 1.0)

    def rows_estimate(self) -> int:
        """About how many rows the archive holds (PostgreSQL's statistics: no count)."""
        # (the planner's count is -1 until the table is first analyzed; the statistics' live rows are right at once)
        return int(self._run("SELECT greatest(reltuples, coalesce(pg_stat_get_live_tuples(oid), 0), 0) FROM pg_class "
                             "WHERE oid = 'backscroll.records'::regclass")[0][0])

    def word_counts(self, terms: Sequence[tuple[str, str]]) -> tuple[int, dict[str, tuple[int, int, int]]]:
        """How many rows the archive holds, and for each ``(term, stem)`` how many hold the term as a word, its
        stem, and the term as a piece of an identifier: exact up to ``EXACT_UP_TO``, the planner's estimate
        above (idf needs a common word's order of magnitude, not its count)."""
        total = self.rows_estimate()
        if total < EXACT_TOTAL_UP_TO:
            total = int(self._run("SELECT count(*) FROM backscroll.records")[0][0])
        out = {}
        for term, stem in terms:
            out[term] = (self._count("tsv", term), self._count("stem_tsv", stem), self._count("parts_tsv", term))
        return total, out

    def _count(self, column: str, lexeme: str, up_to: int = EXACT_UP_TO) -> int:
        sql = f"FROM backscroll.records WHERE {column} @@ to_tsquery('simple', %s)"
        n = self._run(f"SELECT count(*) FROM (SELECT 1 {sql} LIMIT {up_to}) s", (or_query([lexeme]),))[0][0]
        if n >= EXACT_UP_TO:
            plan = self._run(f"EXPLAIN (FORMAT JSON) SELECT 1 {sql}", (or_query([lexeme]),))[0][0]
            n = max(n, int(plan[0]["Plan"]["Plan Rows"]))
        return int(n)

    def expansions(self, term: str, most: int) -> list[str]:
        """The words ``term`` begins (not itself), most rows first, then in order: the local index's prefix walk."""
        rows = self._run("SELECT word FROM ts_stat(format('SELECT tsv FROM backscroll.records WHERE tsv @@ "
                         "to_tsquery(%%L, %%L)', 'simple', %s::text)) WHERE word != %s AND starts_with(word, %s) "
                         "ORDER BY ndoc DESC, word LIMIT %s", (_quoted(term) + ":*", term, term, most))
        return [r[0] for r in rows]

    def only_echoes(self, term: str, stem: str, longer: Sequence[str]) -> bool:
        """Whether no row but query echoes holds ``term`` (as a word, its stem, a part, or a longer word)."""
        clause, args = _holds(term, stem, tuple(longer))
        return not self._run(f"SELECT EXISTS (SELECT 1 FROM backscroll.records WHERE NOT is_echo AND {clause})",
                             args)[0][0]

    def phrases_held(self, phrases: Sequence[Sequence[str]], where_sql: str, params: Sequence[Any]) -> bool:
        """Whether a row the filters admit holds every phrase (its words one after the other)."""
        query = " & ".join("(" + " <-> ".join(_quoted(w) for w in p) + ")" for p in phrases)
        return bool(self._run(f"SELECT EXISTS (SELECT 1 FROM backscroll.records WHERE tsv @@ to_tsquery('simple', %s) "
                              f"AND {where_sql})", (query, *params))[0][0])

    def nearest(self, vector: list[float], where_sql: str, params: Sequence[Any], limit: int) -> list[dict]:
        """The rows closest in meaning (``cosine``): by an exact scan of every admitted vector in an archive of up to
        ``EXACT_MEANING_UP_TO`` rows, else by the HNSW index where there is pgvector."""
        if self.has_vector() and self.rows_estimate() <= EXACT_MEANING_UP_TO:
            literal = vector_literal(vector)
            return self._rows(f"SELECT {HIT_COLUMNS}, 1 - (embedding <=> %s::vector) AS cosine FROM backscroll.records "
                              "WHERE embedding IS NOT NULL AND " + where_sql + " ORDER BY (embedding <=> %s::vector) "
                              "+ 0 LIMIT %s", (literal, *params, literal, limit))  # (+ 0: no index, every vector)
        if self.has_vector():
            literal = vector_literal(vector)
            breadth = min(1000, max(HNSW_BREADTH, limit))  # (1000: pgvector's most)
            if breadth != self._breadth:  # (set once a connection, for the searches it serves)
                self._run("SELECT set_config('hnsw.ef_search', %s, false)", (str(breadth),))
                self._breadth = breadth
            return self._rows(f"SELECT {HIT_COLUMNS}, 1 - (embedding <=> %s::vector) AS cosine FROM backscroll.records "
                              "WHERE embedding IS NOT NULL AND " + where_sql + " ORDER BY embedding <=> %s::vector "
                              "LIMIT %s", (literal, *params, literal, limit))
        import numpy as np

        rows = self._rows(f"SELECT {HIT_COLUMNS}, embedding FROM backscroll.records WHERE embedding IS NOT NULL AND "
                          + where_sql, params)
        if not rows:
            return []
        scores = np.asarray([r.pop("embedding") for r in rows], dtype=np.float32) @ np.asarray(vector, np.float32)
        order = np.argsort(-scores)[:limit]
        return [{**rows[i], "cosine": float(scores[i])} for i in order]

    def first_prompts(self, where_sql: str, params: Sequence[Any], limit: int) -> list[dict]:
        """The first text of each session with a row the filters admit (what it set out to do: the user's, and
        not a slash command, when there is one), the session busy most recently first: the local
        ``Store.first_prompts``."""
        return self._rows(
            f"SELECT {HIT_COLUMNS} FROM (SELECT *, max(ts) OVER w AS busy, row_number() OVER (w ORDER BY "
            "content_type != 'text', role != 'user', text LIKE '/%%', ts, seq) AS nth FROM backscroll.records "
            "WHERE " + where_sql + " WINDOW w AS (PARTITION BY member, machine, session_id)) s "
            "WHERE nth = 1 AND content_type = 'text' ORDER BY busy DESC, record_id "
            "LIMIT %s", (*params, limit))

    def places(self, keys: Sequence[tuple[str, str, str, str]]) -> dict[tuple[str, str, str], int]:
        """Each ``(member, machine, record_id)`` of ``keys`` (with its session after) at its place in its session
        (time, then id), for the session evidence."""
        if not keys:
            return {}
        sessions = sorted({(m, h, s) for m, h, _r, s in keys})
        wanted = {(m, h, r) for m, h, r, _s in keys}
        rows = self._run(
            "SELECT member, machine, record_id, row_number() OVER (PARTITION BY member, machine, session_id "
            "ORDER BY ts NULLS FIRST, seq) FROM backscroll.records WHERE (member, machine, session_id) IN "
            "(SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]))",
            ([m for m, _h, _s in sessions], [h for _m, h, _s in sessions], [s for _m, _h, s in sessions]))
        return {(m, h, r): n for m, h, r, n in rows if (m, h, r) in wanted}

    def has_agent(self, agent: str) -> bool:
        return bool(self._run("SELECT EXISTS (SELECT 1 FROM backscroll.records WHERE agent = %s)", (agent,))[0][0])

    def cosines(self, vector: list[float], keys: Sequence[tuple[str, str, str]]) -> dict[tuple[str, str, str], float]:
        """The query's cosine to each of ``keys`` (``(member, machine, record_id)``) that has a vector: the meaning
        of a candidate only the words proposed."""
        if not keys:
            return {}
        columns = ([m for m, _h, _r in keys], [h for _m, h, _r in keys], [r for _m, _h, r in keys])
        among = ("embedding IS NOT NULL AND (member, machine, record_id) IN "
                 "(SELECT * FROM unnest(%s::text[], %s::text[], %s::text[]))")
        if self.has_vector():
            literal = vector_literal(vector)
            rows = self._run("SELECT member, machine, record_id, 1 - (embedding <=> %s::vector) FROM "
                             "backscroll.records WHERE " + among, (literal, *columns))
            return {(m, h, r): float(c) for m, h, r, c in rows}
        import numpy as np

        rows = self._run("SELECT member, machine, record_id, embedding FROM backscroll.records WHERE " + among, columns)
        query = np.asarray(vector, np.float32)
        return {(m, h, r): float(np.asarray(e, np.float32) @ query) for m, h, r, e in rows}

    def tool_partners(self, keys: Sequence[tuple[str, str, str]]) -> list[dict]:
        """The other rows of each tool row's call (the call, its output: the same member, machine, session and
        ``tool_call_id``; tool rows, never echoes), each with ``partner_of``: the record id it is a partner of."""
        if not keys:
            return []
        columns = ", ".join("b." + c.strip() for c in HIT_COLUMNS.split(","))
        return self._rows(
            f"SELECT {columns}, a.record_id AS partner_of FROM backscroll.records a JOIN backscroll.records b "
            "ON b.member = a.member AND b.machine = a.machine AND b.session_id = a.session_id "
            "AND b.tool_call_id = a.tool_call_id AND b.record_id != a.record_id AND b.content_type = 'tool' "
            "AND NOT b.is_echo WHERE a.content_type = 'tool' AND a.tool_call_id IS NOT NULL AND "
            "(a.member, a.machine, a.record_id) IN (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[])) "
            "ORDER BY b.ts NULLS FIRST, b.record_id",
            ([m for m, _h, _r in keys], [h for _m, h, _r in keys], [r for _m, _h, r in keys]))

    def admitted(self, keys: Sequence[tuple[str, str, str]], where_sql: str,
                 params: Sequence[Any]) -> set[tuple[str, str, str]]:
        """Those of ``keys`` the filters admit."""
        if not keys:
            return set()
        rows = self._run("SELECT member, machine, record_id FROM backscroll.records WHERE (member, machine, "
                         "record_id) IN (SELECT * FROM unnest(%s::text[], %s::text[], %s::text[])) AND " + where_sql,
                         ([m for m, _h, _r in keys], [h for _m, h, _r in keys], [r for _m, _h, r in keys], *params))
        return {(m, h, r) for m, h, r in rows}
