"""The Tantivy lexical index, derived from the record store and rebuildable from it.

Documents carry the record's store id, its text twice (plain words and English stems) and raw
fields for every filter. Sync is incremental and idempotent: documents above the last committed
watermark are deleted and re-added, so a crash between Tantivy's commit and the store's never
doubles a document. An index that is missing, from another schema, unreadable, or out of step with
the store is rebuilt with a notice.
"""

from __future__ import annotations

import functools
import json
import math
import os
import shutil
import uuid
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import tantivy
from tantivy import Filter, Occur, Query, SchemaBuilder, TextAnalyzerBuilder, Tokenizer

from backscroll.store.db import Store
from backscroll.types import Filters

LEXICAL_SCHEMA = 4
MAX_WORD = 80  # longer "words" (base64, minified code) are not indexed; a sha256 (64) still is
META_FILE = "backscroll-index.json"
CURRENT = "CURRENT"  # names the generation directory in use
GEN_PREFIX = "gen-"
WRITER_HEAP = 256_000_000
PREFIX_MIN = 4  # query words this long also match longer indexed words they begin
PREFIX_EXPANSIONS = 8
PREFIX_BOOST = 0.35
PARTS_BOOST = 0.5


def _analyzer(stem: bool):
    b = TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(MAX_WORD)).filter(Filter.lowercase())
    if stem:
        b = b.filter(Filter.stemmer("english"))
    return b.build()


_WORDS = _analyzer(False)
_STEMS = _analyzer(True)


def _parts_analyzer():
    """Capitalised pieces of words: ``CheckoutLineSerializer`` -> checkout, line, serializer."""
    return TextAnalyzerBuilder(Tokenizer.regex(r"[A-Z][a-z]+")).filter(Filter.lowercase()).build()


def analyze(text: str) -> list[str]:
    """The index's own word tokenizer (lowercased, long tokens dropped)."""
    return _WORDS.analyze(text)


def stem(token: str) -> str:
    out = _STEMS.analyze(token)
    return out[0] if out else token


def _schema():
    sb = SchemaBuilder()
    sb.add_unsigned_field("id", stored=True, indexed=True, fast=True)
    sb.add_text_field("text", stored=False, tokenizer_name="bs_words")
    sb.add_text_field("stem", stored=False, tokenizer_name="bs_stems", index_option="freq")
    sb.add_text_field("parts", stored=False, tokenizer_name="bs_parts", index_option="freq")
    for name in ("agent", "project", "role", "content_type", "session", "echo", "tool", "author"):
        sb.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_date_field("ts", stored=False, indexed=True, fast=True)
    return sb.build()


SCHEMA = _schema()


@dataclass(frozen=True)
class LexicalQuery:
    terms: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...] = ()


def _reading(method):
    """Turn a damaged segment's error (or Rust panic) during a search into ``LexicalDamaged``."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except BaseException as exc:
            if _unreadable(exc):
                raise LexicalDamaged(f"{type(exc).__name__}: {exc}") from None
            raise

    return wrapper


def _ts(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


class LexicalDamaged(Exception):
    """The index's files could not be read (a damaged segment): rebuild it from the store."""


def _unreadable(exc: BaseException) -> bool:
    """Errors that mean damaged index files: tantivy's ValueError/OSError, or a Rust panic.

    pyo3's ``PanicException`` derives from ``BaseException`` and is not importable by name.
    """
    return isinstance(exc, (ValueError, OSError)) or type(exc).__name__ == "PanicException"


@contextmanager
def private_files():
    """Create files owner-only (0600, directories 0700) inside the block, whatever the umask."""
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class LexicalIndex:
    """The index under ``path``: ``CURRENT`` names the generation directory searches open.

    A rebuild writes a new generation beside the one in use and swaps ``CURRENT`` (a rename) when
    it is committed, so concurrent searches keep answering from the old one until then.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.dir: Path | None = None
        self.index: tantivy.Index | None = None
        self.generation: str | None = None
        self.unpublished = False  # created by this process, not yet named by CURRENT

    # -- opening ---------------------------------------------------------------------------
    def _register(self, idx: tantivy.Index) -> tantivy.Index:
        idx.register_tokenizer("bs_words", _analyzer(False))
        idx.register_tokenizer("bs_stems", _analyzer(True))
        idx.register_tokenizer("bs_parts", _parts_analyzer())
        return idx

    def _current(self) -> Path | None:
        try:
            name = (self.path / CURRENT).read_text().strip()
        except (OSError, ValueError):
            return None
        if not name.startswith(GEN_PREFIX) or "/" in name or ".." in name:
            return None
        return self.path / name

    @staticmethod
    def _read_meta(directory: Path) -> dict | None:
        try:
            meta = json.loads((directory / META_FILE).read_text())
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) and meta.get("schema") == LEXICAL_SCHEMA else None

    def open_for_read(self) -> bool:
        """Open the current, compatible index. False when it must be (re)built first."""
        for _attempt in range(3):  # a rebuild may swap generations between reading CURRENT and opening
            directory = self._current()
            meta = self._read_meta(directory) if directory is not None else None
            if meta is None:
                if directory is not None and self._current() != directory:
                    continue
                return False
            try:
                with private_files():
                    idx = self._register(tantivy.Index.open(str(directory)))
                    idx.searcher()
            except BaseException as exc:  # corrupt files, wrong schema: rebuild
                if not _unreadable(exc):
                    raise
                if self._current() != directory:
                    continue
                return False
            self.index, self.dir, self.generation, self.unpublished = idx, directory, meta.get("generation"), False
            return True
        return False

    def exists(self) -> bool:
        return self.path.exists() and any(self.path.iterdir())

    def create(self) -> None:
        """Start a new, empty generation beside the current one; ``sync`` publishes it once committed."""
        generation = uuid.uuid4().hex
        directory = self.path / f"{GEN_PREFIX}{generation}"
        with private_files():
            self.path.mkdir(parents=True, exist_ok=True, mode=0o700)
            directory.mkdir(mode=0o700)
            index = self._register(tantivy.Index(SCHEMA, path=str(directory), reuse=False))
            (directory / META_FILE).write_text(json.dumps({"schema": LEXICAL_SCHEMA, "generation": generation}))
        self.index, self.dir, self.generation, self.unpublished = index, directory, generation, True

    def _publish(self) -> None:
        """Name the new generation in CURRENT (an atomic rename), then remove every other one."""
        tmp = self.path / f".{CURRENT}.{os.getpid()}.tmp"
        with private_files():
            with open(tmp, "w") as fh:
                fh.write(self.dir.name)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path / CURRENT)
        _fsync_dir(self.path)
        self.unpublished = False
        for p in self.path.iterdir():  # older generations, and the files of the pre-generation layout
            if p.name == CURRENT or p == self.dir:
                continue
            try:
                shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
            except OSError:
                pass

    # -- consistency -----------------------------------------------------------------------
    def id_summary(self) -> tuple[int, int]:
        """``(documents, sum of their record ids)``: compared with the store's, cheaply."""
        try:
            agg = self.index.searcher().aggregate(
                Query.all_query(), {"n": {"value_count": {"field": "id"}}, "s": {"sum": {"field": "id"}}})
        except BaseException as exc:
            if _unreadable(exc):
                raise LexicalDamaged(str(exc)) from None
            raise
        return int(agg["n"]["value"] or 0), int(agg["s"]["value"] or 0)

    def doc_ids(self) -> list[int]:
        """Every document's record id (the full comparison, on repair)."""
        try:
            searcher = self.index.searcher()
            n = searcher.num_docs
            if not n:
                return []
            hits = searcher.search(Query.all_query(), n, count=False).hits
            return list(searcher.fast_field_values("id", [a for _s, a in hits]))
        except BaseException as exc:
            if _unreadable(exc):
                raise LexicalDamaged(str(exc)) from None
            raise

    @staticmethod
    def _document(row) -> tantivy.Document:
        rid, agent, project, role, ctype, session, echo, ts, text, tool, author = row
        doc = tantivy.Document()
        doc.add_unsigned("id", rid)
        doc.add_text("text", text)
        doc.add_text("stem", text)
        doc.add_text("parts", text)
        doc.add_text("agent", agent)
        doc.add_text("project", project or "")
        doc.add_text("role", role)
        doc.add_text("content_type", ctype)
        doc.add_text("session", session)
        doc.add_text("echo", "1" if echo else "0")
        if tool:
            doc.add_text("tool", tool)
        if author:
            doc.add_text("author", author)
        when = _ts(ts)
        if when is not None:
            doc.add_date("ts", when)
        return doc

    @staticmethod
    def _delete_ids(writer, ids: list[int]) -> None:
        # delete_documents_by_term on a u64 field deletes nothing: delete by a term-set query.
        for i in range(0, len(ids), 1000):
            writer.delete_documents_by_query(Query.term_set_query(SCHEMA, "id", list(ids[i:i + 1000])))

    def repair(self, store: Store, notify: Callable[[str], None]) -> tuple[int, int]:
        """Make the documents exactly the store's records: ``(stale removed, missing added)``."""
        indexed = set(self.doc_ids())
        stored = {r[0] for r in store.conn.execute("SELECT id FROM records")}
        ghosts, missing = sorted(indexed - stored), sorted(stored - indexed)
        if not ghosts and not missing:
            return 0, 0
        with private_files():
            writer = self.index.writer(heap_size=WRITER_HEAP)
            try:
                self._delete_ids(writer, ghosts)
                for batch in store.records_by_ids(missing):
                    for row in batch:
                        writer.add_document(self._document(row))
                writer.commit()
                writer.wait_merging_threads()
            except BaseException:
                try:
                    writer.rollback()
                except Exception:
                    pass
                raise
        self.index.reload()
        notify(f"the lexical index was out of step with the store: removed {len(ghosts)} stale and added "
               f"{len(missing)} missing document(s)")
        return len(ghosts), len(missing)

    def in_step(self, store: Store) -> bool:
        """Whether the documents' count and id sum equal the store's (after a sync)."""
        return self.id_summary() == store.id_summary()

    def rebuild(self, store: Store, notify: Callable[[str], None] = lambda _m: None, progress=None) -> int:
        """A new generation from the store alone, swapped in when complete."""
        self.create()
        return self.sync(store, notify, progress)

    # -- sync ------------------------------------------------------------------------------
    def sync(self, store: Store, notify: Callable[[str], None] = lambda _m: None, progress=None,
             check: bool = False) -> int:
        """Bring the index up to the store; returns the number of documents added.

        ``progress`` (optional) gets ``start(total)``, ``add(n)`` per batch and ``finish()``.
        ``check`` then compares the documents with the store's records (count and id sum; the
        full sets when those differ) and repairs any difference; an unreadable index is rebuilt.
        """
        if self.index is None and not self.open_for_read():
            if self.exists():
                notify("the lexical index was missing or unreadable; rebuilding it from the store")
            self.create()
        try:
            added = self._sync(store, notify, progress)
            if check and not self.in_step(store):
                self.repair(store, notify)
            return added
        except LexicalDamaged:
            notify("the lexical index could not be read; rebuilding it from the store")
            self.create()
            return self._sync(store, notify, progress)

    def _sync(self, store: Store, notify: Callable[[str], None], progress) -> int:
        created = self.unpublished
        known_gen = store.get_meta("lexical_generation")
        watermark = int(store.get_meta("lexical_watermark") or 0)
        if known_gen != self.generation:
            if known_gen is not None and not created:
                notify("the lexical index is out of step with the store; rebuilding it")
                self.create()
                created = True
            watermark = 0
        top = store.max_record_id()
        tombs = store.tombstones()
        if top <= watermark and not tombs and known_gen == self.generation and not created:
            return 0
        added = 0
        if progress is not None:
            progress.start(top - watermark)
        try:
            with private_files():
                writer = self.index.writer(heap_size=WRITER_HEAP)
                try:
                    writer.delete_documents_by_query(
                        Query.range_query(SCHEMA, "id", tantivy.FieldType.Unsigned, watermark + 1, None))
                    self._delete_ids(writer, tombs)
                    for batch in store.records_after(watermark):
                        for row in batch:
                            writer.add_document(self._document(row))
                        added += len(batch)
                        if progress is not None:
                            progress.add(len(batch))
                    writer.commit()
                    writer.wait_merging_threads()
                except BaseException as exc:
                    try:
                        writer.rollback()
                    except Exception:
                        pass
                    if _unreadable(exc) and not isinstance(exc, OSError):
                        raise LexicalDamaged(str(exc)) from None
                    raise
        finally:
            if progress is not None:
                progress.finish()
        if self.unpublished:
            self._publish()
        store.begin()
        store.set_meta("lexical_generation", self.generation)
        store.set_meta("lexical_watermark", str(top))
        store.clear_tombstones(tombs)
        store.commit()
        self.index.reload()
        return added

    # -- search ----------------------------------------------------------------------------
    @_reading
    def expansions(self, term: str) -> list[str]:
        """Indexed words that start with ``term`` (``postgres`` -> ``postgresql``), most frequent first."""
        if len(term) < PREFIX_MIN or term.isdigit():
            return []
        cache = self.__dict__.setdefault("_expansions", {})
        if term not in cache:
            found = self.index.searcher().terms_with_prefix("text", term, limit=PREFIX_EXPANSIONS + 1)
            cache[term] = [t for t, _n in found if t != term][:PREFIX_EXPANSIONS]
        return cache[term]

    def _term_clauses(self, t: str) -> list:
        """A query word as itself, its stem, and (weakly) the longer words it begins."""
        clauses = [(Occur.Should, Query.term_query(SCHEMA, "text", t)),
                   (Occur.Should, Query.boost_query(Query.term_query(SCHEMA, "stem", stem(t), "freq"), 0.6)),
                   (Occur.Should, Query.boost_query(Query.term_query(SCHEMA, "parts", t, "freq"), PARTS_BOOST))]
        for longer in self.expansions(t):
            clauses.append((Occur.Should, Query.boost_query(Query.term_query(SCHEMA, "text", longer), PREFIX_BOOST)))
        return clauses

    def _text_query(self, q: LexicalQuery):
        clauses = []
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
    def filter_clauses(f: Filters, content_type: str | None, echo: bool | None) -> list:
        clauses = []
        ctype = content_type or f.content_type
        for field, value in (("agent", f.agent), ("project", f.project), ("role", f.role),
                             ("session", f.session), ("author", f.author)):
            if value:
                clauses.append((Occur.Must, Query.term_query(SCHEMA, field, value)))
        if isinstance(ctype, tuple):  # one of several kinds (prose: text, summaries, reasoning)
            clauses.append((Occur.Must, Query.term_set_query(SCHEMA, "content_type", list(ctype))))
        elif ctype:
            clauses.append((Occur.Must, Query.term_query(SCHEMA, "content_type", ctype)))
        if echo is not None:
            clauses.append((Occur.Must, Query.term_query(SCHEMA, "echo", "1" if echo else "0")))
        if f.since or f.until:
            clauses.append((Occur.Must, Query.range_query(SCHEMA, "ts", tantivy.FieldType.Date,
                                                          _ts(f.since), _ts(f.until), True, f.until is None)))
        return clauses

    @_reading
    def search(self, q: LexicalQuery, f: Filters, *, content_type: str | None, echo: bool | None,
               limit: int) -> list[tuple[int, float]]:
        """Ranked ``(record id, score)`` for the query under the filters."""
        query = Query.boolean_query([(Occur.Must, self._text_query(q)), *self.filter_clauses(f, content_type, echo)])
        searcher = self.index.searcher()
        hits = searcher.search(query, limit, count=False).hits
        if not hits:
            return []
        ids = searcher.fast_field_values("id", [addr for _s, addr in hits])
        return [(rid, score) for (score, _a), rid in zip(hits, ids)]

    @_reading
    def coverage(self, q: LexicalQuery, ids: list[int]) -> dict[int, float]:
        """For each record id, the share of the query it contains: idf-weighted, 0 to 1.

        A term counts as present in its plain or stemmed form. Unlike a BM25 score this does not
        shrink with the document's length, so a long log holding every query word covers it fully.
        """
        if not ids or not q.terms:
            return {i: 1.0 for i in ids}
        searcher = self.index.searcher()
        n = max(searcher.num_docs, 1)
        among = Query.term_set_query(SCHEMA, "id", list(ids))
        weights: dict[str, float] = {}
        present: dict[int, float] = {}
        for t in q.terms:
            st = stem(t)
            df = max(searcher.doc_freq("text", t), searcher.doc_freq("stem", st))
            w = math.log(1 + (n - df + 0.5) / (df + 0.5))
            weights[t] = w
            either = Query.boolean_query(self._term_clauses(t))
            hits = searcher.search(Query.boolean_query([(Occur.Must, among), (Occur.Must, either)]), len(ids)).hits
            for rid in searcher.fast_field_values("id", [a for _s, a in hits]) if hits else []:
                present[rid] = present.get(rid, 0.0) + w
        total = sum(weights.values()) or 1.0
        return {i: min(1.0, present.get(i, 0.0) / total) for i in ids}

    @_reading
    def count(self, q: LexicalQuery, f: Filters, *, content_type: str | None, echo: bool | None) -> int:
        query = Query.boolean_query([(Occur.Must, self._text_query(q)), *self.filter_clauses(f, content_type, echo)])
        return self.index.searcher().search(query, 1, count=True).count
