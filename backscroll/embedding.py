"""Embedding what the store holds without a vector, in turns with other writers: the store's writer lock is taken
only to save each step, so a search's sync, a second ``index`` or a ``push`` goes between two steps. ``index`` and
``embed`` embed in the foreground (newest first, with progress, an announcement on a large backlog, and Ctrl-C
keeping what was saved); a search's detached worker (``background``) embeds the same way at low priority, and gives
way while a foreground run is at work. One foreground run at a time (its own lock file): another one leaves the
embedding to it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from backscroll.store.db import vouch
from backscroll.store.lock import file_lock, lock_held, writer_lock
from backscroll.types import Notify, quiet

if TYPE_CHECKING:
    from backscroll.config import Config
    from backscroll.indexes.vectors import Turn
    from backscroll.store.db import Store

EMBED_NOTICE_MIN = 500  # pending texts from which `index` says that lexical search is ready first
FOREGROUND_LOCK = "embed-foreground.lock"
TURN_WAIT_S = 60.0  # how long a foreground step waits for the writer lock (another process's sync)


def _foreground_lock(cfg: Config, wait: float = 0.0) -> AbstractContextManager[bool]:
    return file_lock(cfg.home.value / FOREGROUND_LOCK, wait)


def foreground_running(cfg: Config) -> bool:
    """Whether an ``index`` or ``embed`` is embedding in this data dir now."""
    return lock_held(cfg.home.value / FOREGROUND_LOCK)


def turns(cfg: Config, store: Store, wait: float, refused: Callable[[], None] = lambda: None,
          give_way: bool = False) -> Turn:
    """A step's hold on the writer lock (waiting ``wait`` seconds), keeping the store vouched for; ``refused()``
    when it is not given. ``give_way``: not given while a foreground run is embedding (the worker's turns)."""

    @contextlib.contextmanager
    def turn() -> Iterator[bool]:
        if give_way and foreground_running(cfg):
            refused()
            yield False
            return
        with writer_lock(cfg, wait) as given:
            if not given:
                refused()
            with _keeping_vouched(store, given):
                yield given

    return turn


@contextlib.contextmanager
def _keeping_vouched(store: Store, given: bool) -> Iterator[None]:
    """A write under the writer lock that keeps the store vouched for when it was (found as a check left it, then
    written under the lock): otherwise the next ``index`` would check the whole store, minutes at millions of
    records. (A search caching its query vector writes without the lock: an ordinary committed write.)"""
    sound = given and store.vouched()
    yield
    if sound:
        vouch(store.path)


def close(cfg: Config, store: Store, wait: float) -> None:
    """Close a store written in turns, under the writer lock: closing checkpoints the journal, vouched again after."""
    with writer_lock(cfg, wait) as given:
        store.sound = given and store.vouched()
        store.close()


def embed_pending(cfg: Config, progress=None, notify: Notify = quiet, announce: bool = False) -> tuple[int, float]:
    """Embed every prose record without a vector (newest first), in turns, then bring the matrix cache up to date.
    Returns the prose records this run did (given their vector, or found too short to embed: the count ``status``
    shows and the announcement names; records with the same text share one embedding) and the seconds it took.

    ``announce``: say first that lexical search already covers everything (``index`` on a large backlog). Ctrl-C
    keeps what was saved and says so before the KeyboardInterrupt goes on. When another foreground run is embedding,
    it says so and leaves the rest to it: a run looks once more after it lets go, for what an ``index`` left to it
    while it was ending. When another writer keeps the lock past ``TURN_WAIT_S``, it stops and says what is left.
    """
    import time

    t0 = time.perf_counter()
    done = 0
    for again in (False, True):
        with _foreground_lock(cfg, wait=0.0 if again else 1.0) as mine:  # (a moment: another's `status` checking)
            if not mine:
                if not again:
                    notify("another backscroll process is embedding this history: it goes on there (`backscroll "
                           "status` shows what is left)")
                break
            n, stopped = _run(cfg, None if again else progress, notify, announce and not again)
            done += n
        if stopped or not _pending(cfg):
            break
    return done, time.perf_counter() - t0


def _pending(cfg: Config) -> bool:
    from backscroll.store.db import Store

    store = Store.open_readonly(cfg.db_path)
    try:
        return store.pending_prose(at_most=1) > 0
    finally:
        store.close()


def _run(cfg: Config, progress, notify: Notify, announce: bool) -> tuple[int, bool]:
    """One run holding the foreground lock: the records it did, and whether it stopped short (another writer kept
    the lock)."""
    from backscroll.store.db import Store

    store = Store.open(cfg.db_path)
    interrupted = False
    try:
        return _embed(cfg, store, progress, notify, announce)
    except BaseException:
        interrupted = True
        raise
    finally:  # (interrupted: out at once, not waiting on another writer to close vouched for)
        close(cfg, store, 1.0 if interrupted else TURN_WAIT_S)


def _embed(cfg: Config, store: Store, progress, notify: Notify, announce: bool) -> tuple[int, bool]:
    from backscroll.indexes import embed
    from backscroll.indexes.vectors import COMMIT_SECONDS, WINDOW_RECORDS, Vectors

    refused: list[bool] = []
    turn = turns(cfg, store, TURN_WAIT_S, refused=lambda: refused.append(True))
    vecs = Vectors(store, cfg.vectors_dir, embed.model_id())
    busy = ("another backscroll process kept the store busy for over a minute; `backscroll embed` (or the next "
            "`index`) embeds the rest")
    with turn() as given:
        if not given:
            notify(f"embedding skipped: {busy}")
            return 0, True
        old_model = store.get_meta("vectors_model")
        if vecs.ensure_model():
            notify(f"the embedding model changed ({old_model} → {vecs.model}): every text is embedded again, once")
        total, searchable = vecs.pending(), store.record_count()
    if announce and total >= EMBED_NOTICE_MIN:
        notify(f"{searchable:,} records searchable now; embedding {total:,} prose records for meaning-based search, "
               "newest first (Ctrl-C is safe: `backscroll embed` resumes)")
    done = {"records": 0, "units": 0}

    def step(records: int, _units: int) -> None:
        done["records"] = records
        if progress is not None:
            progress.advance(min(records, total))

    if total and progress is not None:
        progress.start(total)
    try:
        if total:
            # (the windows and batches of a run under the lock, so the same vectors; saved about every second)
            done["units"] = vecs.embed_in_turns(embed.load(bulk=True), turn, step=WINDOW_RECORDS, every=COMMIT_SECONDS,
                                                progress=step)
    except KeyboardInterrupt:
        if progress is not None:
            progress.finish()
            progress = None
        notify(f"embedding interrupted: {done['records']:,} of {total:,} prose records were done and are kept; "
               "`backscroll embed` (or the next `index`) resumes")
        raise
    finally:
        if total and progress is not None:
            progress.finish()
    if refused:  # (no second minute's wait for the end's tidying: the next run does it)
        left = vecs.pending()
        if left:
            notify(f"embedding stopped with {left:,} prose records left: {busy}")
        return done["records"], True
    with turn() as given:
        if given:
            pruned = vecs.prune_orphans()
            if pruned or not done["units"]:  # (a run that embedded brought the matrix up to date as it ended)
                vecs.refresh_matrix(force=pruned > 0)
            vecs.prune_query_cache()
    return done["records"], bool(refused)
