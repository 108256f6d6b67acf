"""Opening the archive: the store and the lexical index for a read or a write, and what can go wrong.

A write (index, embed, rebuild) holds the single-writer lock; a read takes it only for a moment to
bring the lexical index in step (and to sync when asked), and otherwise answers from the last
committed state. A store that cannot be written is read as it is; a damaged one is never written.
Nothing here prints: notes are collected in lists or passed to a ``notify`` callback.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

from backscroll.config import Config, resolve
from backscroll.errors import (
    CORRUPT_HINT,
    BackscrollError,
    CorruptStoreError,
    DamagedIndexError,
    DiskFullError,
    LockedError,
    NothingIndexedError,
    ReadOnlyStoreError,
)
from backscroll.indexes.lexical import LexicalDamaged, LexicalIndex
from backscroll.ingest.redact_again import redact_again
from backscroll.interrupts import check
from backscroll.numbers import counted
from backscroll.store.db import Store
from backscroll.store.failures import store_failure
from backscroll.store.lock import lock_wait, writer_lock
from backscroll.types import Notify, quiet

INDEXING_ELSEWHERE = "another backscroll process (or thread) is indexing; answering from the last committed state"
OLDER_ELSEWHERE = ("another backscroll process (or thread) is indexing, and the word index was made by an earlier "
                   "version: answering from it as it is until it can be rebuilt")


def config_for(cfg: Config | None, home, sources) -> Config:
    return cfg if cfg is not None else resolve(home=home, sources=() if sources is None else sources)


def store_errors(fn):
    """Report a full disk, a store that cannot be written or a damaged one as what it is (see
    ``store.failures.store_failure``) instead of an internal error."""

    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            return fn(*args, **kw)
        except BackscrollError:
            raise
        except Exception as exc:
            try:
                db = config_for(kw.get("cfg"), kw.get("home"), kw.get("sources")).db_path
            except Exception:
                raise exc from None
            known = store_failure(exc, db)
            if known is None:
                raise
            raise known from None

    return wrapper


def writable(cfg: Config) -> bool:
    """Whether the existing store (and the directory its journal lives in) may be written."""
    files = [cfg.db_path] + [p for p in (cfg.db_path.with_name(cfg.db_path.name + s) for s in ("-wal", "-shm"))
                             if p.exists()]
    return all(os.access(p, os.W_OK) for p in (*files, cfg.db_path.parent))


def refuse_if_damaged(store: Store) -> None:
    """Write nothing into a damaged store: ``integrity_check`` first (about 1.3 s per 90 MB), unless the
    store's files are as a check, or a writer that found it checked, left them (``Store.vouched``): a
    no-op ``index`` must not cost a pass over the whole history."""
    from backscroll.store import integrity

    if store.vouched():
        store.sound = True
        return
    problems = integrity.integrity_problems(store.path)
    if problems:
        raise CorruptStoreError(
            f"the store {store.path} is damaged (integrity_check: {'; '.join(problems[:3])}); nothing was written "
            "to it",
            hint=CORRUPT_HINT.format(db=store.path))
    store.sound = True


class LazyRedactor:
    """A counting redactor that loads its rules (ours and gitleaks', ~0.1 s) on its first text: a
    sync that finds nothing new, the one every search runs, never pays for them."""

    def __init__(self):
        self._redactor = None

    def __call__(self, text: str) -> str:
        if self._redactor is None:
            from backscroll.ingest.redact import Redactor

            self._redactor = Redactor()
        return self._redactor(text)

    def take_counts(self) -> dict[str, int]:
        return {} if self._redactor is None else self._redactor.take_counts()


def redactor(cfg: Config) -> LazyRedactor | None:
    """A fresh counting redactor, or None when the configuration turned redaction off."""
    return LazyRedactor() if cfg.redact.value else None


@contextmanager
def writing(cfg: Config, wait: float | None, *, must_exist: bool = False,
            hint: str = "run it again when that has finished", notify: Notify = quiet) -> Iterator[Store]:
    """The store, opened with the single-writer lock held (LockedError after ``wait`` seconds; ``notify`` hears
    that it waits)."""
    wait = lock_wait(wait, cfg.env)
    store = Store.open_existing(cfg.db_path) if must_exist else Store.open(cfg.db_path)
    try:
        with writer_lock(cfg, wait, lambda: notify("another backscroll process is writing this store: waiting for "
                                                   f"it to finish (at most {wait:g} s)")) as acquired:
            if not acquired:
                raise LockedError("indexing already in progress in another backscroll process", hint=hint)
            yield store
    finally:
        store.close()


def prepare(cfg: Config, do_sync: bool, notes: list[str], lexical: bool = True, progress=None,
            lexical_progress=None, held: tuple[Store, LexicalIndex] | None = None) -> tuple[Store, LexicalIndex, bool]:
    """Open the store and an up-to-date lexical index (syncing first unless told not to).

    ``held``: the store and index a ``Backscroll`` handle keeps open, brought in step instead of
    opening new ones (the caller closes them). Returns the store, the index and whether this
    process synced (and so may embed new records).
    """
    if held is not None and held[0].readonly:
        if do_sync:  # (one that asked for no sync misses nothing it asked for)
            notes.append(readonly_note(cfg))
        return held[0], held[1], False
    if held is None:
        if not cfg.db_path.exists() and not do_sync:
            raise NothingIndexedError(f"nothing is indexed yet (no store at {cfg.db_path})",
                                      hint="run `backscroll index` first")
        if cfg.db_path.exists() and not writable(cfg):
            return prepare_readonly(cfg, notes, lexical, told=do_sync)
        try:
            store = Store.open(cfg.db_path)
        except ReadOnlyStoreError:
            return prepare_readonly(cfg, notes, lexical, told=do_sync)
        except DiskFullError:  # reading needs no space: answer from the store as it is (a full disk is news)
            return prepare_readonly(cfg, notes, lexical, full=True)
        lex = LexicalIndex(cfg.index_dir)
    else:
        store, lex = held
    for first in (True, False):  # (the second time only to wait for a first build: no snapshot to answer from)
        with writer_lock(cfg, 0.0 if first else lock_wait(None, cfg.env)) as acquired:
            if acquired:
                try:
                    _bring_in_step(cfg, store, lex, do_sync, notes, progress, lexical_progress)
                except Exception as exc:  # (the disk filled, or the index may not be written, as new lines came in)
                    known = exc if isinstance(exc, BackscrollError) else store_failure(exc, cfg.db_path)
                    if not isinstance(known, (DiskFullError, ReadOnlyStoreError)):
                        raise
                    full = isinstance(known, DiskFullError)
                    if held is None:  # reading needs neither: answer from the store as it is
                        store.close()
                        return prepare_readonly(cfg, notes, lexical, full=full)
                    if lexical and not lex.open_for_read(older=True):
                        raise
                    if store.conn.in_transaction:  # (a failed commit SQLite did not roll back itself)
                        store.rollback()
                    notes.append(unwritable_note(cfg, full))
                    return store, lex, False
                return store, lex, do_sync
        if not lexical or lex.open_for_read(older=True):  # (a list reads no index)
            notes.append(OLDER_ELSEWHERE if lex.stale else INDEXING_ELSEWHERE)
            return store, lex, False
    if held is None:
        store.close()
    raise LockedError("the index is being built by another backscroll process and no earlier snapshot exists",
                      hint="try again when it has finished (a first index or search builds it)")


def _bring_in_step(cfg: Config, store: Store, lex: LexicalIndex, do_sync: bool, notes: list[str], progress,
                   lexical_progress) -> None:
    """Under the writer lock: redact again what older rules stored, read new session lines (``do_sync``: a quick
    sync, with a background worker for the meaning it leaves), and bring the lexical index in step."""
    store.sound = store.sound or store.vouched()  # then vouched for again when it is closed
    if cfg.redact.value:  # before anything is read or sent: no secret stored under older rules
        notes.extend(redact_again(store).notes())
    if do_sync:
        from backscroll.ingest.sync import sync  # the readers of twenty agents: only when syncing

        report = sync(store, cfg.roots, progress, redactor=redactor(cfg), quick=True)
        if report.newly_unreadable:  # (said once, not on every search while it stays so: `status` lists them)
            notes.append(f"{counted(report.newly_unreadable, 'session file')} could not be read; see "
                         "`backscroll status`")
    check()  # (a cancelled call: what the sync read is committed; the next one brings the index in step)
    lex.sync(store, notes.append, lexical_progress)
    if do_sync and cfg.embed.value and cfg.background.value:  # meaning for what a search does not embed itself,
        from backscroll import background  # once the word index is in step: the worker waits only seconds for the
        # lock, and gave way to the search that started it when a long catch-up kept it building that index

        background.start(cfg, store, store.pending_prose(at_most=background.SEARCH_EMBEDS + 1))


def unwritable_note(cfg: Config, full: bool) -> str:
    return (f"the disk holding {cfg.db_path.parent} is full: answered from the store as it is, without reading new "
            "session lines" if full else readonly_note(cfg))


def readonly_note(cfg: Config) -> str:
    return (f"the store in {cfg.db_path.parent} cannot be written: answered from it as it is, "
            "without reading new session lines")


def rebuild_damaged(cfg: Config, store: Store, lex: LexicalIndex, exc: LexicalDamaged, notes: list[str]) -> None:
    """A search met a damaged index: rebuild it from the store (under the writer lock) or say why not."""
    with writer_lock(cfg, 0.0) as acquired:
        if not acquired:
            raise DamagedIndexError(f"the lexical index is damaged ({exc}) and another backscroll process is "
                                    "writing, so it cannot be rebuilt now",
                                    hint="run `backscroll rebuild` when the other process has finished")
        lex.rebuild(store, notes.append)
    notes.append("the lexical index was damaged; rebuilt it from the store")


def prepare_readonly(cfg: Config, notes: list[str], lexical: bool = True, full: bool = False,
                     told: bool = True) -> tuple[Store, LexicalIndex, bool]:
    """A store that cannot be written (a backup on read-only media, a full disk) is searched as it is (``told``:
    say so; one that asked for no sync misses nothing it asked for). Tantivy cannot open an index it may not lock,
    so a read-only index is searched from a temporary copy."""
    store = Store.open_readonly(cfg.db_path)
    store.full = full
    if told or full:
        notes.append(unwritable_note(cfg, full))
    if lexical and store.meta_count("lexical_watermark") < store.max_record_id():  # (an index cut short)
        notes.append("the newest records are not searched by words: the word index stopped before them, and a "
                     "store that cannot be written cannot bring it up to date")
    lex = LexicalIndex(cfg.index_dir)
    if lexical and not lex.open_for_read(older=True):
        import atexit
        import tempfile
        from pathlib import Path

        tmp = tempfile.mkdtemp(prefix="backscroll-index-")
        atexit.register(shutil.rmtree, tmp, True)  # (and when the store is closed: a call's copy is the call's)
        store.index_copy = tmp
        if cfg.index_dir.is_dir():
            shutil.copytree(cfg.index_dir, tmp, dirs_exist_ok=True)
            for folder, _dirs, files in os.walk(tmp):  # (the copy keeps read-only modes: Tantivy writes a lock)
                for name in (folder, *(os.path.join(folder, f) for f in files)):
                    os.chmod(name, os.stat(name).st_mode | 0o200)
        lex = LexicalIndex(Path(tmp))
        if not lex.open_for_read(older=True):
            store.close()
            raise ReadOnlyStoreError(
                f"the store in {cfg.db_path.parent} cannot be written, and its search index is missing or unreadable",
                hint="copy the data dir somewhere writable and rebuild the index there", reason="index-unreadable")
    if lex.stale:
        notes.append("the word index was made by an earlier version, and a store that cannot be written cannot "
                     "rebuild it: answered from it as it is")
    return store, lex, False


def nothing_indexed(store: Store, where=None) -> NothingIndexedError:
    """Why nothing is indexed (in the data dir ``where``, when named): no session files found, or found but
    unreadable (or holding no records)."""
    files, bad = store.source_counts()
    yet = f"nothing is indexed in {where} yet" if where else "nothing is indexed yet"
    if bad:
        return NothingIndexedError(f"{yet}: {counted(bad, 'session file')} found but unreadable",
                                   hint="`backscroll status` lists them and why")
    if files:
        return NothingIndexedError(f"{yet}: {counted(files, 'session file')} found, with no records",
                                   hint="`backscroll status` shows where sessions are looked for")
    return NothingIndexedError(
        f"{yet}: no session files were found",
        hint="`backscroll status` shows where sessions are looked for; add more session directories as sources",
        reason="no-files")
