"""The Tantivy lexical index, derived from the record store and rebuildable from it.

This module owns the index's files and its sync: generations, publishing, consistency checks and repair. The schema
and documents are in ``lexical_schema``, the query side in ``lexical_search`` (callers import their names from here).
Sync is incremental and idempotent: documents above the last committed watermark (and a record changed in place,
tombstoned) are deleted and re-added, so a crash between Tantivy's commit and the store's never doubles a document.
An index missing, of another schema, unreadable or out of step with the store is rebuilt with a notice.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from contextlib import suppress
from itertools import chain
from pathlib import Path
from typing import Protocol

import tantivy
from tantivy import Query

from backscroll.indexes.files import fsync_dir, index_entry, private_files
from backscroll.indexes.lexical_schema import (
    LEXICAL_SCHEMA,
    SCHEMA,
    LexicalDamaged,
    LexicalQuery,
    analyze,
    document,
    reading,
    register_tokenizers,
    rust_quiet,
    stem,
    unreadable,
)
from backscroll.indexes.lexical_search import LexicalSearch, record_ids
from backscroll.interrupts import stops_held
from backscroll.store.db import Store
from backscroll.store.meta import REBUILD_LEXICAL
from backscroll.types import quiet

__all__ = ["SCHEMA", "LexicalDamaged", "LexicalIndex", "LexicalQuery", "SyncProgress", "analyze", "private_files",
           "stem"]

META_FILE = "backscroll-index.json"
CURRENT = "CURRENT"  # names the generation directory in use
GEN_PREFIX = "gen-"
WRITER_HEAP = 256_000_000
READ_SINCE = 4  # the oldest schema with today's fields: read as it is by a process that may not rebuild it


class SyncProgress(Protocol):
    """What ``LexicalIndex.sync`` reports to: the documents to add, each batch added, the end."""

    def start(self, total: int) -> None: ...
    def add(self, n: int) -> None: ...
    def finish(self) -> None: ...


class LexicalIndex(LexicalSearch):
    """The index under ``path``: ``CURRENT`` names the generation directory searches open.

    A rebuild writes a new generation beside the one in use and swaps ``CURRENT`` (a rename) when
    it is committed, so concurrent searches keep answering from the old one until then.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.dir: Path | None = None
        self.index: tantivy.Index | None = None
        self.generation: str | None = None
        self.unpublished = self.stale = False  # made here, not yet named by CURRENT; written by an earlier version

    # -- opening ---------------------------------------------------------------------------
    def _current(self) -> Path | None:
        try:
            name = (self.path / CURRENT).read_text().strip()
        except (OSError, ValueError):
            return None
        if not name.startswith(GEN_PREFIX) or "/" in name or ".." in name:
            return None
        return self.path / name

    @staticmethod
    def _read_meta(directory: Path, since: int = LEXICAL_SCHEMA) -> dict | None:  # (of schema ``since`` to today's)
        try:
            meta = json.loads((directory / META_FILE).read_text())
            schema = meta.get("schema")
        except (OSError, ValueError, AttributeError):
            return None
        return meta if type(schema) is int and since <= schema <= LEXICAL_SCHEMA else None

    def older(self) -> bool:
        """Whether the index in use was written by an earlier version: the next sync rebuilds it, as a missing one."""
        meta = self._read_meta(directory, since=0) if (directory := self._current()) else None
        return meta is not None and meta["schema"] < LEXICAL_SCHEMA

    def open_for_read(self, older: bool = False) -> bool:
        """Open the current, compatible index (``older``: or one an earlier version wrote, to answer from as it is
        where it may not be rebuilt now). False when it must be (re)built first."""
        for _attempt in range(3):  # a rebuild may swap generations between reading CURRENT and opening
            directory = self._current()
            meta = self._read_meta(directory, READ_SINCE if older else LEXICAL_SCHEMA) if directory else None
            if meta is None:
                if directory is not None and self._current() != directory:
                    continue
                return False
            try:
                with private_files(), rust_quiet():
                    idx = register_tokenizers(tantivy.Index.open(str(directory)))
                    idx.searcher()
            except BaseException as exc:  # corrupt files, wrong schema: rebuild
                if not unreadable(exc):
                    raise
                if self._current() != directory:
                    continue
                return False
            self.index, self.dir, self.generation = idx, directory, meta.get("generation")
            self.unpublished, self.stale = False, meta["schema"] != LEXICAL_SCHEMA
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
            index = register_tokenizers(tantivy.Index(SCHEMA, path=str(directory), reuse=False))
            (directory / META_FILE).write_text(json.dumps({"schema": LEXICAL_SCHEMA, "generation": generation}))
        self.index, self.dir, self.generation, self.unpublished, self.stale = index, directory, generation, True, False

    def _publish(self) -> None:
        """Name the new generation in CURRENT (an atomic rename); ``_sweep`` removes the others."""
        directory = self.dir
        if directory is None:
            raise RuntimeError("no generation to publish")
        tmp = self.path / f".{CURRENT}.{os.getpid()}.tmp"
        with private_files():
            with open(tmp, "w") as fh:
                fh.write(directory.name)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path / CURRENT)
        fsync_dir(self.path)
        self.unpublished = False

    def _sweep(self) -> None:
        """Remove every generation but the one published and this object's (older ones, one a stopped rebuild left)
        and the files of the pre-generation layout: under the writer lock, so no other process is building one."""
        keep = {CURRENT, self.dir.name if self.dir else None, (self._current() or self.path).name}
        for p in self.path.iterdir():
            if p.name not in keep and index_entry(p, GEN_PREFIX):
                with suppress(OSError):
                    shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()

    # -- consistency -----------------------------------------------------------------------
    @reading
    def id_summary(self) -> tuple[int, int]:
        """``(documents, sum of their record ids)``: compared with the store's, cheaply."""
        agg = self._opened().searcher().aggregate(
            Query.all_query(), {"n": {"value_count": {"field": "id"}}, "s": {"sum": {"field": "id"}}})
        return int(agg["n"]["value"] or 0), int(agg["s"]["value"] or 0)

    @reading
    def doc_ids(self) -> list[int]:
        """Every document's record id (the full comparison, on repair)."""
        searcher = self._opened().searcher()
        if not (n := searcher.num_docs):
            return []
        return record_ids(searcher, searcher.search(Query.all_query(), n, count=False).hits)

    @staticmethod
    def _delete_ids(writer: tantivy.IndexWriter, ids: list[int]) -> None:
        # delete_documents_by_term on a u64 field deletes nothing: delete by a term-set query.
        for i in range(0, len(ids), 1000):
            writer.delete_documents_by_query(Query.term_set_query(SCHEMA, "id", list(ids[i:i + 1000])))

    def repair(self, store: Store, notify: Callable[[str], None]) -> tuple[int, int]:
        """Make the documents exactly the store's records: ``(stale removed, missing added)``."""
        indexed = set(self.doc_ids())
        stored = store.record_ids()
        ghosts, missing = sorted(indexed - stored), sorted(stored - indexed)
        if not ghosts and not missing:
            return 0, 0
        with private_files():
            writer = self._opened().writer(heap_size=WRITER_HEAP)
            try:
                self._delete_ids(writer, ghosts)
                for batch in store.records_by_ids(missing):
                    for row in batch:
                        writer.add_document(document(row))
                writer.commit()
                writer.wait_merging_threads()
            except BaseException:
                with suppress(Exception):
                    writer.rollback()
                raise
        self._opened().reload()
        notify(f"the lexical index was out of step with the store: removed {len(ghosts)} stale and added "
               f"{len(missing)} missing document(s)")
        return len(ghosts), len(missing)

    def in_step(self, store: Store) -> bool:
        """Whether the documents' count and id sum equal the store's (after a sync)."""
        return self.id_summary() == store.id_summary()

    def rebuild(self, store: Store, notify: Callable[[str], None] = quiet,
                progress: SyncProgress | None = None) -> int:
        """A new generation from the store alone, swapped in when complete."""
        self.create()
        return self.sync(store, notify, progress)

    # -- sync ------------------------------------------------------------------------------
    def sync(self, store: Store, notify: Callable[[str], None] = quiet, progress: SyncProgress | None = None,
             check: bool = False) -> int:
        """Bring the index up to the store; returns the number of documents added. ``progress`` (optional) gets
        ``start(total)``, ``add(n)`` per batch and ``finish()``. ``check`` then compares the documents with the
        store's records (count and id sum; the full sets when those differ) and repairs any difference; an unreadable
        index is rebuilt. Generations a stopped rebuild left are removed."""
        if (self.index is None or self.stale) and not self.open_for_read():
            if (self.path / CURRENT).exists():  # (an unfinished first build has none: building it is the next step)
                why = "was made by an earlier version" if self.older() else "was missing or unreadable"
                notify(f"the lexical index {why}; rebuilding it from the store")
            self.create()
        elif not self.unpublished:
            self._sweep()
        try:
            added = self._sync(store, notify, progress)
            if check and not self.in_step(store):
                self.repair(store, notify)
            return added
        except LexicalDamaged:
            notify("the lexical index could not be read; rebuilding it from the store")
            self.create()
            return self._sync(store, notify, progress)

    def _sync(self, store: Store, notify: Callable[[str], None], progress: SyncProgress | None) -> int:
        created = self.unpublished
        known_gen = store.get_meta("lexical_generation")
        if known_gen is not None and known_gen != self.generation and not created:
            self.open_for_read()  # another index object or process published a newer generation: read that one
        if known_gen != self.generation:
            if known_gen is not None and not created:  # (asked for: a new generation, none of the old files)
                if known_gen != REBUILD_LEXICAL:
                    notify("the lexical index is out of step with the store; rebuilding it")
                self.create()
                created = True
        watermark = 0 if known_gen != self.generation else store.meta_count("lexical_watermark")  # (a new one: none)
        top = store.max_record_id()
        tombs = store.tombstones()
        if top <= watermark and not tombs and known_gen == self.generation and not created:
            self._opened().reload()  # what another writer committed (a handle's own index(), another process)
            return 0
        added = 0
        if progress is not None:
            progress.start(store.outbox_count(watermark) + sum(1 for i in tombs if i <= watermark))  # (ids have gaps)
        try:
            with private_files():
                writer = self._opened().writer(heap_size=WRITER_HEAP)
                try:
                    writer.delete_documents_by_query(
                        Query.range_query(SCHEMA, "id", tantivy.FieldType.Unsigned, watermark + 1, None))
                    self._delete_ids(writer, tombs)
                    for batch in chain(store.records_by_ids([i for i in tombs if i <= watermark]),
                                       store.records_after(watermark)):
                        for row in batch:
                            writer.add_document(document(row))
                        added += len(batch)
                        if progress is not None:
                            progress.add(len(batch))
                    writer.commit()
                    writer.wait_merging_threads()
                except BaseException as exc:
                    with suppress(Exception):
                        writer.rollback()
                    if unreadable(exc) and not isinstance(exc, OSError):
                        raise LexicalDamaged(str(exc)) from None
                    raise
        finally:
            if progress is not None:
                progress.finish()
        with stops_held():  # (a stop between the two would leave CURRENT and the store naming different indexes)
            if self.unpublished:
                self._publish()
            store.begin()
            store.set_meta("lexical_generation", self.generation)
            store.set_meta("lexical_watermark", str(top))
            store.clear_tombstones(tombs)
            store.commit()
        self._sweep()  # (the generations this one replaced, once the store names it)
        self._opened().reload()
        return added
