"""The team archive's search statements (mixed into ``archive_pg.Archive``): full-text candidates, word
frequencies for idf, and the nearest vectors by pgvector or an exact scan."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from backscroll.errors import ArchiveError
from backscroll.store.archive_url import said, where

EXACT_UP_TO = 5000  # a word's rows are counted exactly up to this many
# How many neighbours pgvector's HNSW walk keeps (its default, 40, is fewer than a search ranks once the filters
# took their share: the archive's semantic hit@1 on the agent benchmark was .69 with it, .77 with 400).
HNSW_BREADTH = 400
HIT_COLUMNS = ("member, machine, record_id, session_id, agent, project, cwd, title, role, content_type, author, "
               "tool_name, is_echo, is_error, is_call, ts, text, words")


def psycopg_module():
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the extra is part of the install
        raise ArchiveError("the team archive needs psycopg: pip install 'backscroll[team]'") from None
    return psycopg


def or_query(terms: Iterable[str]) -> str:
    """A ``to_tsquery`` of any of ``terms``, each quoted as a lexeme (so no operator in a word is read)."""
    return " | ".join("'" + t.replace("\\", "").replace("'", "''") + "'" for t in terms if t) or "''"


MATCH = "tsv @@ to_tsquery('simple', %s)"  # a query word, as itself or a piece of an identifier


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

    def lexical(self, weights: dict[str, float], proposing: Sequence[str], where_sql: str, params: Sequence[Any],
                limit: int, kinds: Mapping[str, Collection[str]], per_word: int = 5000) -> dict[str, list[dict]]:
        """For each list of ``kinds`` (its content types), the rows holding any of the ``proposing`` words, the
        largest idf-weighted share of the query's words first (``weights``: each word's idf), as the local index
        ranks; ``ts_rank_cd`` by length breaks ties. Each proposing word's rows are read once through the GIN
        index (at most ``per_word`` of them), and those with the best share of the proposing words are then
        ranked by their share of all the words."""
        held: dict[str, dict[tuple[str, str, str], float]] = {name: {} for name in kinds}
        for term in proposing:
            for member, machine, record_id, kind in self._run(
                    f"SELECT member, machine, record_id, content_type FROM backscroll.records WHERE {MATCH} AND "
                    + where_sql + " LIMIT %s", (or_query([term]), *params, per_word)):
                for name, types in kinds.items():
                    if kind in types:
                        key = member, machine, record_id
                        held[name][key] = held[name].get(key, 0.0) + weights[term]
        return {name: self._best(found, weights, proposing, limit, per_word) for name, found in held.items()}

    def _best(self, held: dict[tuple[str, str, str], float], weights: dict[str, float], proposing: Sequence[str],
              limit: int, per_word: int) -> list[dict]:
        if not held:
            return []
        best = sorted(held.items(), key=lambda kv: -kv[1])
        if len(best) > limit:  # all that tie with the last one kept, for the tie-break to choose among
            best = [kv for kv in best if kv[1] >= best[limit - 1][1]][:per_word]
        columns = ([k[0] for k, _w in best], [k[1] for k, _w in best], [k[2] for k, _w in best], [w for _k, w in best])
        others = [t for t in weights if t not in proposing]
        share = "".join(f" + CASE WHEN {MATCH} THEN %s ELSE 0 END" for _t in others)
        return self._rows(
            # (divided by the row's length: BM25 prefers the shorter of two rows holding the same words; measured in
            # docs/team-archive.md)
            f"SELECT {HIT_COLUMNS}, ts_rank_cd(tsv, to_tsquery('simple', %s), 2) AS rank FROM backscroll.records JOIN "
            "unnest(%s::text[], %s::text[], %s::text[], %s::float8[]) AS s(m, h, r, share) "
            f"ON member = s.m AND machine = s.h AND record_id = s.r ORDER BY s.share{share} DESC, rank DESC, "
            "record_id LIMIT %s",
            (or_query(weights), *columns, *(v for t in others for v in (or_query([t]), weights[t])),
             limit))

    def frequencies(self, terms: Sequence[str], where_sql: str, params: Sequence[Any]) -> tuple[int, list[int]]:
        """About how many rows the archive holds, and how many of those the filters admit hold each of ``terms``:
        counted through the GIN index up to ``EXACT_UP_TO``, the planner's estimate above (idf needs the
        order of magnitude of a common word, not its count)."""
        # (the planner's count is -1 until the table is first analyzed; the statistics' live rows are right at once)
        total = int(self._run("SELECT greatest(reltuples, coalesce(pg_stat_get_live_tuples(oid), 0), 0) FROM pg_class "
                              "WHERE oid = 'backscroll.records'::regclass")[0][0])
        out = []
        for term in terms:
            q = or_query([term])
            sql = f"FROM backscroll.records WHERE {MATCH} AND {where_sql}"
            n = self._run(f"SELECT count(*) FROM (SELECT 1 {sql} LIMIT {EXACT_UP_TO}) s", (q, *params))[0][0]
            if n >= EXACT_UP_TO:
                plan = self._run(f"EXPLAIN (FORMAT JSON) SELECT 1 {sql}", (q, *params))[0][0]
                n = max(n, int(plan[0]["Plan"]["Plan Rows"]))
            out.append(n)
        return max(total, max(out, default=0)), out

    def nearest(self, vector: list[float], where_sql: str, params: Sequence[Any], limit: int) -> list[dict]:
        """The rows closest in meaning (``cosine``), by the HNSW index where there is pgvector, else an
        exact scan of every admitted vector."""
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
            "content_type != 'text', role != 'user', text LIKE '/%%', ts, record_id) AS nth FROM backscroll.records "
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
            "ORDER BY ts NULLS FIRST, record_id) FROM backscroll.records WHERE (member, machine, session_id) IN "
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
