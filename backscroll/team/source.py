"""The team archive as a ranking ``Source``: what the pipeline asks, answered from PostgreSQL.

Rows get small integer ids in the order a search reads them (``Pool``), so the pipeline runs on them unchanged.
Words count as the local index counts them (``indexes.word_weights``: plain, stemmed, identifier parts, longer
words a rare one begins), weighed by the whole archive, as the local index weighs by the whole store; a word's
candidates are read through the GIN indexes (at most ``PER_WORD`` rows each) and ranked by their idf-weighted
share of the query's words, the shorter first among equals (BM25 prefers the shorter row). Meaning comes from
pgvector (else an exact scan) with the query's vector.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC
from typing import Any

from backscroll.indexes.lexical_schema import LexicalQuery, stem
from backscroll.indexes.word_weights import PREFIX_EXPANSIONS, WordCounts, expands, holds, unheld, weight
from backscroll.retrieval.session_evidence import neighbours_by_place
from backscroll.retrieval.source import Facts, Kinds
from backscroll.retrieval.tool_exchange import Partners
from backscroll.sanitize import MESSAGE_MAX, shorten
from backscroll.store.archive_filters import where_sql
from backscroll.store.archive_pg import Archive
from backscroll.store.db import content_hash
from backscroll.types import CONTENT_TYPES, EMBEDDED_TYPES, Filters, Hit, session_title

Key = tuple[str, str, str]  # (member, machine, record_id)
PER_WORD = 5000  # rows a query word proposes at most: ranking that many is what a search can afford
POOL = 8  # the rows holding the largest share of the words, this many times a list's depth, are ranked by BM25
COMMON = 0.02  # a word in more than this share of the archive's rows (and more than PER_WORD) proposes none


@dataclass
class Pool:
    """Every row a search read, by id (the order it was read in), and each one's key."""

    rows: list[dict] = field(default_factory=list)
    ids: dict[Key, int] = field(default_factory=dict)

    def know(self, row: dict) -> int:
        key = row["member"], row["machine"], row["record_id"]
        if key not in self.ids:
            self.ids[key] = len(self.rows)
            self.rows.append(row)
        return self.ids[key]

    def key(self, i: int) -> Key:
        r = self.rows[i]
        return r["member"], r["machine"], r["record_id"]

    def keys(self, ids: Iterable[int]) -> list[Key]:
        return [self.key(i) for i in ids]


def iso(ts) -> str | None:
    """A time as the local store writes one: UTC, to the millisecond (``2026-11-12T11:30:06.984Z``); None for a
    time past what Python holds once in UTC (a hand-made row's, read in another time zone)."""
    try:
        return ts.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z") if ts is not None else None
    except OverflowError:
        return None


# A row's names and paths as a teammate pushed them: bounded where read, as a local store's are where they are written
# (a hand-made row once put 15 MB of them into an agent's context). Ids are bounded by the archive's own indexes.
BOUNDED = ("agent", "project", "cwd", "title", "role", "content_type", "author", "tool_name", "source_path",
           "parent_session_id", "machine")


def bounded(row: dict) -> dict:
    """``row`` with each of ``BOUNDED`` within ``sanitize.MESSAGE_MAX`` characters."""
    return {**row, **{k: shorten(v) for k in BOUNDED if isinstance(v := row.get(k), str) and len(v) > MESSAGE_MAX}}


def shown(row: dict) -> dict:
    """``row`` as it may be shown: bounded (``bounded``; its text to what a local store keeps) and redacted with
    today's rules, whoever pushed it and with whatever rules (an older client's, or a row written by hand)."""
    from backscroll.ingest.redact import redact_optional
    from backscroll.ingest.rows import cap_text

    row = bounded(row)
    if isinstance(text := row.get("text"), str) and (cut := cap_text(text))[1]:
        row["text"], row["text_truncated"] = cut
    return {**row, **{k: redact_optional(v) for k in (*BOUNDED, "text", "first_prompt")
                      if isinstance(v := row.get(k), str)}}


def hit_of(row: dict, rank: int, **kw) -> Hit:
    """An archive row as a hit: as a local one, saying whose it is (``member``, ``machine``)."""
    row = bounded(row)
    record = {**row, "timestamp": iso(row["ts"]), "text_truncated": row.get("text_truncated", False),
              "source_path": row.get("source_path") or "", "line": row.get("line") or 0,
              "id": zlib.crc32(f"{row['member']}|{row['machine']}|{row['record_id']}".encode())}
    return replace(Hit.from_row(record, rank=rank, **kw), member=row["member"], machine=row["machine"])


@dataclass
class ArchiveSource:
    """The archive, for one search: the query's vector (None: no meaning), the member asked for, what was read."""

    archive: Archive
    vector: list[float] | None
    member: str | None = None
    notes: list[str] = field(default_factory=list)
    unread: bool = False  # (what was pushed is what it holds)
    pool: Pool = field(default_factory=Pool)
    _counts: dict[str, WordCounts] = field(default_factory=dict)
    _total: int = 0
    _cosines: dict[int, float] = field(default_factory=dict)
    _dfs: dict[str, tuple[int, int, int]] = field(default_factory=dict)  # (word, stem, part) document frequencies
    _average: float = 0.0  # the archive's mean tokens a row
    _stems: dict[str, str] = field(default_factory=dict)

    def _where(self, scope: Filters, echo: bool | None = False,
               kinds: tuple[str, ...] | None = None) -> tuple[str, list[Any]]:
        return where_sql(scope, include_echoes=echo is not False, echoes_only=echo is True, member=self.member,
                         kinds=kinds)

    # -- words ---------------------------------------------------------------------------------
    def counts(self, terms: Iterable[str]) -> dict[str, WordCounts]:
        """What the whole archive says of each word (read once a search)."""
        new = [t for t in dict.fromkeys(terms) if t not in self._counts]
        if new:
            self._total, found = self.archive.word_counts([(t, stem(t)) for t in new])
            for t in new:
                text, stemmed, parts = self._dfs[t] = found[t]
                own = max(text, stemmed)
                longer = tuple(self.archive.expansions(t, PREFIX_EXPANSIONS)) if expands(t, own) else ()
                counts = WordCounts(own, parts, longer)
                if weight(self._total, counts) is not None:
                    counts = replace(counts, only_echoes=self.archive.only_echoes(t, stem(t), longer))
                self._counts[t] = counts
        return {t: self._counts[t] for t in terms}

    def _weights(self, terms: Iterable[str], echoes: bool) -> dict[str, float]:
        counts = self.counts(terms)
        found = {t: weight(self._total, c, echoes) for t, c in counts.items()}
        return {t: w for t, w in found.items() if w is not None}

    def _held_by(self, row: dict, terms: Iterable[str]) -> frozenset[str]:
        words, stems, parts = set(row["words"].split()), set(row["stems"].split()), set(row["parts"].split())
        return frozenset(t for t in terms if holds(t, self._counts[t], stem(t), words, stems, parts))

    def held(self, q: LexicalQuery, ids: Sequence[int], echoes: bool
             ) -> tuple[dict[str, float], dict[int, frozenset[str]]]:
        if not ids or not q.terms:
            return {}, {}
        weights = self._weights(q.terms, echoes)
        held = {i: self._held_by(self.pool.rows[i], weights) for i in ids}
        return weights, {i: ts for i, ts in held.items() if ts}

    def unheld(self, q: LexicalQuery, scope: Filters | None = None, echoes: bool = False
               ) -> tuple[tuple[str, ...], float]:
        if not q.terms:
            return (), 1.0
        counts = self.counts(q.terms)
        weights = {t: weight(self._total, c, echoes) for t, c in counts.items()}
        if scope is not None and scope != Filters():
            held = [t for t, w in weights.items() if w is not None]
            found = self.archive.holding({t: (stem(t), counts[t].expansions) for t in held},
                                         *self._where(scope, None if echoes else False), 1, CONTENT_TYPES)
            weights.update({t: None for t in held if not found[t]})
        return unheld(weights, self._total)

    def by_words(self, q: LexicalQuery, scope: Filters, kinds: Kinds, *, echo: bool, depth: int) -> list[int]:
        if not q.terms:
            return []
        counts = self.counts(q.terms)
        weights = self._weights(q.terms, echo)
        common = max(COMMON * self._total, PER_WORD)
        proposing = [t for t in weights if counts[t].own + counts[t].parts <= common] or \
            sorted(weights, key=lambda t: counts[t].own)[:1]
        kinds = (kinds,) if isinstance(kinds, str) else kinds
        found = self.archive.holding({t: (stem(t), counts[t].expansions) for t in proposing},
                                     *self._where(scope, echo), PER_WORD, kinds)
        score: dict[Key, float] = {}
        for t, keys in found.items():
            for key in keys:
                score[key] = score.get(key, 0.0) + weights[t]
        pool = sorted(score.items(), key=lambda kv: -kv[1])[:max(depth * POOL, PER_WORD // 10)]
        rows = [self.pool.know(r) for r in self.archive.rows_of([k for k, _s in pool])]
        if q.phrases:
            rows = [i for i in rows if all(_in_order(self.pool.rows[i]["words"], p) for p in q.phrases)]
        # as the local index orders them (BM25), the shorter first among equals (as the pipeline breaks ties)
        ranked = {i: self._bm25(q.terms, self.pool.rows[i]) for i in rows}
        rows.sort(key=lambda i: (-ranked[i], len(self.pool.rows[i]["text"]), self.pool.rows[i]["record_id"]))
        return rows[:depth]

    def _bm25(self, terms: Sequence[str], row: dict) -> float:
        from backscroll.team import bm25

        if not self._average:
            self._average = self.archive.average_words()
        dfs = {t: self._dfs.get(t, (0, 0, 0)) for t in terms}
        return bm25.score(list(dict.fromkeys(terms)), dfs, self._total, self._average, row["words"].split(),
                          row["parts"].split(), self._stem)

    def _stem(self, token: str) -> str:
        if token not in self._stems:
            self._stems[token] = stem(token)
        return self._stems[token]

    def holding(self, words: tuple[str, ...], ids: list[int]) -> set[int]:
        return {i for i in ids if len(words) >= 2 and _in_order(self.pool.rows[i]["words"], words)}

    def holds_phrases(self, q: LexicalQuery, scope: Filters, echoes: bool = False) -> bool:
        return self.archive.phrases_held(q.phrases, *self._where(scope, None if echoes else False))

    def suggestions(self, missing: tuple[str, ...]) -> dict[str, str]:
        return {}  # (the archive keeps no spelling index: no "did you mean")

    # -- meaning -------------------------------------------------------------------------------
    def by_meaning(self, scope: Filters, depth: int) -> list[tuple[int, float]] | None:
        if self.vector is None:
            return None
        out = []
        for row in self.archive.nearest(self.vector, *self._where(scope, False, EMBEDDED_TYPES), depth):
            i = self.pool.know(row)
            self._cosines[i] = row["cosine"]
            out.append((i, row["cosine"]))
        return out

    def cosines(self, ids: Iterable[int]) -> dict[int, float]:
        if self.vector is None:
            return {}
        wanted = [i for i in ids if i not in self._cosines]
        found = self.archive.cosines(self.vector, self.pool.keys(wanted))
        self._cosines.update({self.pool.ids[k]: c for k, c in found.items()})
        return {i: self._cosines[i] for i in ids if i in self._cosines}

    # -- facts ---------------------------------------------------------------------------------
    def first_prompts(self, window: Filters, limit: int) -> list[int]:
        only = Filters(project=window.project, agent=window.agent, session=window.session, since=window.since,
                       until=window.until)
        return [self.pool.know(r) for r in self.archive.first_prompts(*self._where(only), limit)]

    def facts(self, ids: Sequence[int]) -> dict[int, Facts]:
        rows = self.pool.rows
        # (keyed by the session alone: the same session pushed from two machines, or by two members, is one)
        return {i: Facts(iso(rows[i]["ts"]), rows[i]["content_type"], rows[i]["text"][:400],
                         (rows[i]["session_id"], content_hash(rows[i]["text"])), len(rows[i]["text"]),
                         rows[i]["record_id"]) for i in ids}

    def neighbours(self, facts: dict[int, Facts], ids: Iterable[int], reach: int) -> dict[int, set[int]]:
        ids = [i for i in ids if i in facts]
        places = self.archive.places([(*self.pool.key(i), self.pool.rows[i]["session_id"]) for i in ids])
        return neighbours_by_place({i: (facts[i].key[0], places[self.pool.key(i)]) for i in ids
                                    if self.pool.key(i) in places}, reach)

    def tool_partners(self, ids: list[int]) -> Partners:
        partners: Partners = {}
        for row in self.archive.tool_partners(self.pool.keys(ids)):
            a = self.pool.ids[(row["member"], row["machine"], row["partner_of"])]
            partners.setdefault(a, (bool(self.pool.rows[a]["is_call"]), []))[1].append(
                (self.pool.know(row), bool(row["is_call"])))
        return partners

    def admitted(self, ids: list[int], scope: Filters) -> set[int]:
        found = self.archive.admitted(self.pool.keys(ids), *self._where(scope, False, ("tool",)))
        return {self.pool.ids[k] for k in found}

    def texts(self, ids: Iterable[int], chars: int) -> dict[int, str]:
        return {i: self.pool.rows[i]["text"][:chars] for i in ids}

    # -- results -------------------------------------------------------------------------------
    def rows(self, ids: Sequence[int]) -> dict[int, Any]:
        return {i: shown(self.pool.rows[i]) for i in ids}

    def hit(self, row: Any, **shape: Any) -> Hit:
        return hit_of(row, **shape)

    def session_heads(self, session_ids: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        from backscroll.ingest.redact import redact_optional

        return {s: (session_title(redact_optional(title), None), iso(started))
                for s, title, started in self.archive.session_heads(list(session_ids))}


def _in_order(words: str, phrase: Sequence[str]) -> bool:
    """Whether a row's ``words`` (its tokens in order) hold ``phrase``'s words one after the other."""
    return f" {' '.join(phrase)} " in f" {words} "
