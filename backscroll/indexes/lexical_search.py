"""The query side of the lexical index: ranked search, counts, prefix expansions, and coverage.

A query word matches as itself, its English stem, a capitalised part of an identifier, and (weakly,
when the word itself is rare) the longer indexed words it begins; two to eight words also match as a
loose phrase.
Filters become exact-term clauses on the raw fields (``within`` applies them to given records).
``coverage`` measures how much of a query a record holds (idf-weighted), independent of the record's
length; ``held`` names the words, so a tool output can be credited with its call's. Mixed into ``LexicalIndex``.
"""

from __future__ import annotations

from typing import Any, cast

import tantivy
from tantivy import Occur, Query

from backscroll.indexes.lexical_schema import SCHEMA, LexicalQuery, reading, stem, to_datetime
from backscroll.indexes.word_weights import PREFIX_EXPANSIONS, expands, idf, unheld
from backscroll.types import Filters

PREFIX_BOOST = 0.35
PARTS_BOOST = 0.5

Clause = tuple[Occur, Query]


def shares(weights: dict[str, float], held: dict[int, frozenset[str]], ids: list[int],
           also: dict[int, frozenset[str]] | None = None, also_share: float = 0.0) -> dict[int, float]:
    """Each record's idf-weighted share of the query's words (``LexicalIndex.held``). The words in
    ``also`` (for a tool output: what its call holds) count ``also_share`` each. Pure."""
    total = sum(weights.values()) or 1.0
    out = {}
    for i in ids:
        own, more = held.get(i, frozenset()), (also or {}).get(i, frozenset())
        # summed in the query's order: an output holding just its call's words ties with it exactly
        got = sum(w if t in own else also_share * w if t in more else 0.0 for t, w in weights.items())
        out[i] = min(1.0, got / total)
    return out


def record_ids(searcher: tantivy.Searcher, hits: list[tuple[Any, tantivy.DocAddress]]) -> list[int]:
    """The record id of each hit (the ``id`` fast field, which every document has)."""
    return cast(list[int], searcher.fast_field_values("id", [addr for _score, addr in hits]))


class LexicalSearch:
    """Searches over an open index (``self.index``)."""

    index: tantivy.Index | None

    def _opened(self) -> tantivy.Index:
        if self.index is None:
            raise RuntimeError("the lexical index is not open: call open_for_read, create or sync first")
        return self.index

    def _facts(self, searcher: tantivy.Searcher) -> dict:
        """Facts about the index's words (prefix expansions, idf, the echo count), kept while the index
        holds what it held: one search asks them several times (its lists, the coverage of its
        candidates, the unheld words), and a handle that lives on (a library user's) still sees the
        words a later index adds, by this process or another."""
        stamp = (searcher.num_docs, searcher.num_segments)
        held = self.__dict__.get("_word_facts")
        if held is None or held[0] != stamp:
            held = self.__dict__["_word_facts"] = (stamp, {})
        return held[1]

    @reading
    def expansions(self, term: str) -> list[str]:
        """Indexed words that start with ``term`` (``postgres`` -> ``postgresql``), most frequent first, for a
        word the history holds rarely or not at all."""
        if not expands(term, 0):
            return []
        searcher = self._opened().searcher()
        facts = self._facts(searcher)
        if ("prefix", term) not in facts:
            found = searcher.terms_with_prefix("text", term, limit=PREFIX_EXPANSIONS + 1)
            rare = expands(term, self._own_freq(searcher, term))
            facts[("prefix", term)] = [t for t, _n in found if t != term][:PREFIX_EXPANSIONS] if rare else []
        return facts[("prefix", term)]

    def _own_freq(self, searcher: tantivy.Searcher, term: str) -> int:
        """How many records hold the word itself or its stem (kept with the index's facts)."""
        facts = self._facts(searcher)
        if ("own", term) not in facts:
            facts[("own", term)] = max(searcher.doc_freq("text", term), searcher.doc_freq("stem", stem(term)))
        return facts[("own", term)]

    def _term_clauses(self, t: str, expand: bool = True) -> list[Clause]:
        """A query word as itself, its stem, and (weakly) the longer words it begins."""
        clauses = [(Occur.Should, Query.term_query(SCHEMA, "text", t)),
                   (Occur.Should, Query.boost_query(Query.term_query(SCHEMA, "stem", stem(t), "freq"), 0.6)),
                   (Occur.Should, Query.boost_query(Query.term_query(SCHEMA, "parts", t, "freq"), PARTS_BOOST))]
        for longer in self.expansions(t) if expand else []:
            clauses.append((Occur.Should, Query.boost_query(Query.term_query(SCHEMA, "text", longer), PREFIX_BOOST)))
        return clauses

    def _text_query(self, q: LexicalQuery) -> Query:
        clauses: list[Clause] = []
        for t in q.terms:
            clauses.extend(self._term_clauses(t))
        if 2 <= len(q.terms) <= 8:
            clauses.append((Occur.Should, Query.boost_query(Query.phrase_query(SCHEMA, "text", list(q.terms), 2), 1.5)))
        text_q = Query.boolean_query(clauses)
        if not q.phrases:
            return text_q
        musts = [(Occur.Must, Query.phrase_query(SCHEMA, "text", list(p))) for p in q.phrases]
        return Query.boolean_query([(Occur.Must, text_q), *musts])

    @staticmethod
    def filter_clauses(f: Filters, content_type: str | tuple[str, ...] | None, echo: bool | None) -> list[Clause]:
        clauses: list[Clause] = []
        ctype = content_type or f.content_type
        for field, value in (("agent", f.agent), ("project", f.project), ("role", f.role),
                             ("session", f.session), ("author", f.author)):
            if value:
                clauses.append((Occur.Must, Query.term_query(SCHEMA, field, value)))
        if f.sessions is not None:
            clauses.append((Occur.Must, Query.term_set_query(SCHEMA, "session", list(f.sessions) or [""])))
        if isinstance(ctype, tuple):  # one of several kinds (prose: text, summaries, reasoning)
            clauses.append((Occur.Must, Query.term_set_query(SCHEMA, "content_type", list(ctype))))
        elif ctype:
            clauses.append((Occur.Must, Query.term_query(SCHEMA, "content_type", ctype)))
        if echo is not None:
            clauses.append((Occur.Must, Query.term_query(SCHEMA, "echo", "1" if echo else "0")))
        if f.since or f.until:
            clauses.append((Occur.Must, Query.range_query(SCHEMA, "ts", tantivy.FieldType.Date,
                                                          to_datetime(f.since), to_datetime(f.until), True,
                                                          f.until is None)))
        return clauses

    @reading
    def search(self, q: LexicalQuery, f: Filters, *, content_type: str | tuple[str, ...] | None, echo: bool | None,
               limit: int) -> list[tuple[int, float]]:
        """Ranked ``(record id, score)`` for the query under the filters."""
        query = Query.boolean_query([(Occur.Must, self._text_query(q)), *self.filter_clauses(f, content_type, echo)])
        searcher = self._opened().searcher()
        hits = searcher.search(query, limit, count=False).hits
        if not hits:
            return []
        ids = record_ids(searcher, hits)
        return [(rid, score) for (score, _a), rid in zip(hits, ids, strict=True)]

    def _idf(self, searcher: tantivy.Searcher, term: str, echoes: bool = False) -> float | None:
        """The term's idf, or None when no record holds it (as itself, its stem, a part of an
        identifier, or the start of a longer word) but query echoes: a word only an earlier search
        holds is not in the history (unless ``echoes`` are searched too)."""
        facts = self._facts(searcher)
        if ("idf", term, echoes) not in facts:
            facts[("idf", term, echoes)] = self._held_idf(searcher, term, facts, echoes)
        return facts[("idf", term, echoes)]

    def _held_idf(self, searcher: tantivy.Searcher, term: str, facts: dict, echoes: bool = False) -> float | None:
        n = max(searcher.num_docs, 1)
        df = self._own_freq(searcher, term)
        if df == 0 and not searcher.doc_freq("parts", term) and not self.expansions(term):
            return None  # (a word held only as a part of an identifier, "serializer", is held)
        if echoes:
            return idf(n, df)
        if "echo_docs" not in facts:  # a word more documents hold than there are echoes is a record's
            facts["echo_docs"] = searcher.search(Query.term_query(SCHEMA, "echo", "1"), 1, count=True).count  # type: ignore[attr-defined]
        if df <= facts["echo_docs"]:  # perhaps only echoes hold it: look
            either = Query.boolean_query(self._term_clauses(term))
            not_echo = Query.term_query(SCHEMA, "echo", "0")
            if not searcher.search(Query.boolean_query([(Occur.Must, either), (Occur.Must, not_echo)]), 1).hits:
                return None
        return idf(n, df)

    @reading
    def coverage(self, q: LexicalQuery, ids: list[int]) -> dict[int, float]:
        """For each record id, the share of the query it contains: idf-weighted, 0 to 1 (``held``, summed).

        Unlike a BM25 score this does not shrink with the document's length, so a long log holding
        every query word covers it fully. A query without words is held by every record."""
        if not q.terms:
            return dict.fromkeys(ids, 1.0)
        weights, held = self.held(q, ids)
        return shares(weights, held, ids)

    @reading
    def held(self, q: LexicalQuery, ids: list[int], echoes: bool = False
             ) -> tuple[dict[str, float], dict[int, frozenset[str]]]:
        """The query's words with their idf, and for each record id the words it holds.

        A word counts as held in its plain or stemmed form, as a part of an identifier, or, when the
        history never holds the word itself, as the start of a longer word. A query word that no record
        holds (but query echoes) is left out: it tells no record from another, and counting it ("how did
        Priya *get* ...") only made every lexical match look weaker than a semantic one (``unheld`` names
        those words)."""
        if not ids or not q.terms:
            return {}, {}
        searcher = self._opened().searcher()
        among = Query.term_set_query(SCHEMA, "id", list(ids))
        weights: dict[str, float] = {}
        held: dict[int, set[str]] = {}
        for t in q.terms:
            w = self._idf(searcher, t, echoes)
            if w is None:
                continue
            weights[t] = w
            # a longer word holds this one only when the history never says it ("postgres": postgresql)
            either = Query.boolean_query(self._term_clauses(t, expand=not self._own_freq(searcher, t)))
            hits = searcher.search(Query.boolean_query([(Occur.Must, among), (Occur.Must, either)]), len(ids)).hits
            for rid in record_ids(searcher, hits) if hits else []:
                held.setdefault(rid, set()).add(t)
        return weights, {i: frozenset(ts) for i, ts in held.items()}

    @reading
    def within(self, ids: list[int], f: Filters, *, content_type: str | None, echo: bool | None) -> set[int]:
        """Those of ``ids`` that the filters let through (the same clauses as ``search``)."""
        if not ids:
            return set()
        query = Query.boolean_query([(Occur.Must, Query.term_set_query(SCHEMA, "id", list(ids))),
                                     *self.filter_clauses(f, content_type, echo)])
        searcher = self._opened().searcher()
        hits = searcher.search(query, len(ids), count=False).hits
        return set(record_ids(searcher, hits)) if hits else set()

    @reading
    def unheld(self, q: LexicalQuery, scope: Filters | None = None, echoes: bool = False
               ) -> tuple[tuple[str, ...], float]:
        """The query's words that no record holds (query echoes aside, unless ``echoes``), and the
        idf-weighted share of the query that the other words make up (1.0 when every word is held
        somewhere). An unheld word weighs as much as the rarest word can: it is not in the history at
        all (a typo, or a topic never discussed). With ``scope``: no record the filters admit holds it."""
        if not q.terms:
            return (), 1.0
        searcher = self._opened().searcher()
        weights = {t: self._idf(searcher, t, echoes) for t in dict.fromkeys(q.terms)}
        if scope is not None and scope != Filters():
            admitted = self.filter_clauses(scope, None, None if echoes else False)
            for t in [t for t, w in weights.items() if w is not None]:
                either = Query.boolean_query(self._term_clauses(t, expand=not self._own_freq(searcher, t)))
                if not searcher.search(Query.boolean_query([(Occur.Must, either), *admitted]), 1).hits:
                    weights[t] = None
        return unheld(weights, searcher.num_docs)

    @reading
    def near_misses(self, word: str, limit: int = 20) -> list[int]:
        """Store ids of records holding a word within a typo or two of ``word`` (Tantivy's fuzzy query)."""
        distance = 1 if len(word) < 6 else 2
        searcher = self._opened().searcher()
        query = Query.fuzzy_term_query(SCHEMA, "text", word, distance=distance)
        return record_ids(searcher, searcher.search(query, limit, count=False).hits)

    def doc_freq(self, word: str) -> int:
        return self._opened().searcher().doc_freq("text", word)

    @reading
    def holding(self, words: tuple[str, ...], ids: list[int]) -> set[int]:
        """Those of ``ids`` whose text holds ``words`` (two or more) in this order, one after the other."""
        if not ids or len(words) < 2:
            return set()
        among = Query.term_set_query(SCHEMA, "id", list(ids))
        phrase = Query.phrase_query(SCHEMA, "text", list(words))
        searcher = self._opened().searcher()
        hits = searcher.search(Query.boolean_query([(Occur.Must, among), (Occur.Must, phrase)]), len(ids)).hits
        return set(record_ids(searcher, hits)) if hits else set()

    @reading
    def count(self, q: LexicalQuery, f: Filters, *, content_type: str | tuple[str, ...] | None,
              echo: bool | None) -> int:
        query = Query.boolean_query([(Occur.Must, self._text_query(q)), *self.filter_clauses(f, content_type, echo)])
        result = self._opened().searcher().search(query, 1, count=True)
        return result.count  # type: ignore[attr-defined]  # tantivy's stub omits SearchResult.count
