"""Vectors: the embedding table, the embedding passes, and the query vector cache. Prose only is embedded (never
tool rows or echoes), each record as its exchange unit (``exchange_units``), keyed by content hash and model:
identical text is embedded once, and a model change embeds again. Embedding saves as it goes: an interrupted run
resumes where it stopped. ``embed_pending`` holds the writer lock throughout (a search's few new records);
``embed_in_turns`` takes it only to save (``index``, ``embed`` and the background worker). The memory-mapped
matrix that queries read, and the ranking over it, are in ``matrix`` (``Vectors`` is a ``MatrixCache``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from datetime import UTC
from pathlib import Path

import numpy as np

from backscroll.indexes.embed import Batching, Embedder, text_cost
from backscroll.indexes.embedders import check_usable
from backscroll.indexes.exchange_units import MIN_EMBED_CHARS, unit_text
from backscroll.indexes.matrix import MatrixCache
from backscroll.indexes.packing import pack
from backscroll.store.db import Store, content_hash

BATCH_RECORDS = 64  # batch rows for an embedder without its own batching (the fake)
WINDOW_RECORDS = 2048  # pending records read, sorted by length and embedded at a time
COMMIT_SECONDS = 1.0  # commit the vectors done about this often (an interruption loses less)
MATRIX_REFRESH_ROWS = 20_000  # rewrite the matrix during a long run after this many new rows
QUERY_CACHE_SIZE = 10_000
PRUNE_FLAG = "embeddings_prune"  # set when records were deleted: some embeddings may have lost their units

EmbedderFactory = Callable[[], Embedder]  # called once, when there is something to embed
Turn = Callable[[], AbstractContextManager[bool]]  # the writer lock for one step: yields whether it was given
TURN_RECORDS = 512  # records a background step embeds before it takes the lock to save them


def _batches(embedder: Embedder, texts: list[str]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(indices, vectors)`` batch by batch: the embedder's own token-budget batching when it has one,
    else shortest first in ``BATCH_RECORDS`` rows (little padding either way)."""
    if isinstance(embedder, Batching):
        yield from embedder.batches(texts)
        return
    order = np.argsort(np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts)), kind="stable")
    for i in range(0, len(order), BATCH_RECORDS):
        idx = order[i:i + BATCH_RECORDS]
        yield idx, embedder.embed([texts[j] for j in idx])


class Vectors(MatrixCache):
    """The vectors of one model in a store, with their matrix cache under ``directory``."""

    def __init__(self, store: Store, directory: Path, model_id: str):
        self.store = store
        self.dir = Path(directory)
        self.model = model_id
        self.cache_damaged = False  # set by load() when the matrix files could not be read

    # -- model bookkeeping ---------------------------------------------------------------------
    def ensure_model(self) -> bool:
        """Forget units computed for another model; True when that happened (everything re-embeds). An embedder
        that cannot embed (a mistyped ``$BACKSCROLL_EMBEDDER``) forgets nothing: ``SemanticUnavailableError``."""
        if (current := self.store.get_meta("vectors_model")) == self.model:
            return False
        check_usable()  # (a mistyped $BACKSCROLL_EMBEDDER raises, with the names it takes)
        self.store.begin()
        self.store.forget_other_models(self.model)
        self.store.set_meta("vectors_model", self.model)
        self.store.commit()
        self._drop_matrix()
        return current is not None

    def pending(self) -> int:
        return self.store.pending_prose()

    def count(self) -> int:
        return self.store.vector_count(self.model)

    # -- embedding -----------------------------------------------------------------------------
    def pending_ids(self) -> np.ndarray:
        """Ids of the prose records without a vector, newest first (by timestamp, then id)."""
        return np.fromiter(self.store.pending_prose_ids(), dtype=np.int64)

    def _window_units(self, ids: np.ndarray, saved: AbstractSet[int] = frozenset()) -> tuple[list, list[int]]:
        """``(record id, unit hash, unit text)`` for a window of pending records (and those ``saved`` since), and the
        too-short ones."""
        rows = self.store.unembedded([int(x) for x in ids], saved)
        rows.sort(key=lambda r: (r[1], r[0]))  # each session in order, for the question before an answer
        units: list[tuple[int, str, str]] = []
        too_short: list[int] = []
        question: dict[str, str | None] = {}
        for rid, session, role, text in rows:
            if session not in question:
                question[session] = self.store.question_before(session, rid)
            if len(text.strip()) < MIN_EMBED_CHARS:  # "ok", "thanks", "Done." say nothing to search for
                too_short.append(rid)
            else:
                u = unit_text(role, text, question[session])
                units.append((rid, content_hash(u), u))
            if role == "user":
                question[session] = text
        return units, too_short

    def _to_embed(self, units: list[tuple[int, str, str]]) -> tuple[set[str], dict[str, str]]:
        """The window's units that already have a vector, and the text of each other unit (identical texts once)."""
        known = self.store.known_vectors(self.model, sorted({h for _r, h, _u in units}))
        return known, {h: u for _r, h, u in units if h not in known}

    def _commit(self, seq: int, vectors: dict[str, np.ndarray], records: list[tuple[int, str]],
                too_short: list[int]) -> None:
        self.store.begin()
        try:
            self.store.save_vectors(self.model, seq, [(h, len(v), pack(v)) for h, v in vectors.items()], records,
                                    too_short)
            self.store.set_meta("vector_seq", str(seq))
            self.store.commit()
        except BaseException:
            self.store.rollback()
            raise

    def embed_pending(self, embedder_factory: EmbedderFactory, *, limit: int | None = None,
                      progress: Callable[[int, int, float], None] | None = None) -> int:
        """Embed prose records that have no vector yet, newest first; returns how many new units were embedded.

        Pending records are read in windows of ``WINDOW_RECORDS`` (newest first); each window's texts
        are embedded in token-budget batches and committed about every ``COMMIT_SECONDS``, so an
        interruption (Ctrl-C) keeps all but the batch in flight and the next run resumes.
        ``progress(records_done, units_embedded, worked)`` is called after each commit; ``worked`` is the
        records' worth of work done (a window's done part weighed by ``text_cost``), what time left goes by.
        """
        self.ensure_model()
        embedder: Embedder | None = None
        done = embedded = since_matrix = 0
        seq = self.store.meta_count("vector_seq")
        ids = self.pending_ids()[:limit]
        for start in range(0, len(ids), WINDOW_RECORDS):
            window = ids[start:start + WINDOW_RECORDS]
            units, too_short = self._window_units(window)
            known, todo = self._to_embed(units)
            waiting = [(rid, h) for rid, h, _u in units]  # records not yet committed
            finished: dict[str, np.ndarray] = {}  # vectors computed, not yet committed
            window_done = len(window) - len(units)  # too short, or already taken
            costs = text_cost(list(todo.values()))
            cost_done, cost_all = 0.0, float(costs.sum()) or 1.0

            def flush(share: float = 1.0, known: set[str] = known, base: int = done, size: int = len(window)) -> None:
                """Commit what is ready; ``share``: of the window's work done, what time left goes by."""
                nonlocal seq, waiting, finished, too_short, done, embedded, window_done, since_matrix
                ready = [(rid, h) for rid, h in waiting if h in known or h in finished]
                if not ready and not too_short:
                    return
                seq += 1
                self._commit(seq, finished, ready, too_short)
                known.update(finished)
                embedded += len(finished)
                since_matrix += len(ready)
                done += len(ready) + window_done
                waiting = [(rid, h) for rid, h in waiting if h not in known]
                finished, too_short, window_done = {}, [], 0
                if progress:
                    progress(done, embedded, base + size * (share if waiting else 1.0))

            try:
                if todo:
                    if embedder is None:
                        embedder = embedder_factory()
                    hashes = list(todo)
                    texts = [todo[h] for h in hashes]
                    last = time.monotonic()
                    for idx, vecs in _batches(embedder, texts):
                        for i, v in zip(idx, vecs, strict=True):
                            finished[hashes[i]] = v
                        cost_done += float(costs[idx].sum())
                        if time.monotonic() - last >= COMMIT_SECONDS:
                            flush(cost_done / cost_all)
                            last = time.monotonic()
                flush()
            except BaseException:  # Ctrl-C: keep what is done (only the batch in flight is lost)
                try:
                    flush()
                except Exception:
                    pass
                raise
            if since_matrix >= MATRIX_REFRESH_ROWS:  # keeps a search's unmapped tail small during a long run
                self.write_matrix()
                since_matrix = 0
        return embedded

    def embed_in_turns(self, embedder: Embedder, turn: Turn, *, step: int = TURN_RECORDS, every: float | None = None,
                       progress: Callable[[int, int], None] | None = None) -> int:
        """Embed prose records without a vector, newest first, ``step`` at a time, computing without the writer lock
        and taking it (``turn()`` yields whether it was given) only to save: at a step's end and every ``every``
        seconds. Records changed meanwhile (redacted, replaced, embedded by another) are left out; the pending list
        is read once a pass. It stops, never switching the store's model, when the vectors are another model's, none
        are pending, a pass saves none or the lock is refused. Returns the units embedded; ``progress(records_done,
        units_embedded)`` after a save. (The matrix is written from a snapshot, without the lock.)"""
        with turn() as given:
            if not given or self.store.get_meta("vectors_model") not in (None, self.model):
                return 0
            self.ensure_model()  # a store never embedded: nothing of another model to forget
        done = embedded = since_matrix = 0
        queue, at, saved, refused = np.empty(0, dtype=np.int64), 0, True, False

        def save(ids: np.ndarray, units: list, too_short: list[int], finished: dict) -> list | None:
            """Save what of the step is ready; the step's units still to save, or None when the lock was refused."""
            nonlocal done, embedded, since_matrix, saved
            with turn() as given:
                if not given or self.store.get_meta("vectors_model") != self.model:
                    return None  # (the matrix is left to the writer that kept the lock, or took the model)
                now_units, now_short = self._window_units(ids, step_saved)  # as the store holds them now
                same = {(r, h) for r, h, _u in units} & {(r, h) for r, h, _u in now_units}
                have = self.store.known_vectors(self.model, sorted({h for _r, h in same}))
                ready = sorted((r, h) for r, h in same if h in finished or h in have)
                short = sorted(set(too_short) & set(now_short))
                used = {h for _r, h in ready}
                if ready or short:
                    self._commit(self.store.meta_count("vector_seq") + 1,
                                 {h: v for h, v in finished.items() if h in used}, ready, short)
            if ready or short:
                step_saved.update([r for r, _h in ready] + short)
                saved, embedded, done = True, embedded + len(used & set(finished)), done + len(ready) + len(short)
                since_matrix += len(ready)
                if since_matrix >= MATRIX_REFRESH_ROWS:
                    self.write_matrix()
                    since_matrix = 0
                if progress:
                    progress(done, embedded)
            left = same - set(ready)
            return [u for u in units if (u[0], u[1]) in left]

        while not refused:
            if at >= len(queue):
                if not saved:
                    break  # (a whole pass saved nothing: what is left keeps changing, or is another's)
                queue, at, saved = self.pending_ids(), 0, False
                if not len(queue):
                    break
            ids, at, step_saved = queue[at:at + step], at + step, set[int]()
            units, too_short = self._window_units(ids)  # (records embedded meanwhile are not in it)
            _known, todo = self._to_embed(units)
            hashes, last, finished = list(todo), time.monotonic(), dict[str, np.ndarray]()
            for idx, vecs in _batches(embedder, [todo[h] for h in hashes]) if todo else ():
                finished.update((hashes[i], v) for i, v in zip(idx, vecs, strict=True))
                if every is not None and time.monotonic() - last >= every:
                    if (left := save(ids, units, too_short, finished)) is None:
                        break
                    units, too_short, finished, last = left, [], dict[str, np.ndarray](), time.monotonic()
            else:
                left = save(ids, units, too_short, finished)
            refused = left is None
        if since_matrix and not refused:  # (a few rows more are read from the store by a search, not rewritten)
            self.refresh_matrix()
        return embedded

    # -- pruning -------------------------------------------------------------------------------
    def prune_orphans(self) -> int:
        """Delete embeddings no current record's unit uses (their records were replaced or deleted).

        Runs only after records were replaced (ingest flags it): one pass, set-based.
        """
        if self.store.get_meta(PRUNE_FLAG) is None:
            return 0
        self.store.begin()
        try:
            n = self.store.delete_orphan_vectors()
            self.store.set_meta(PRUNE_FLAG, None)
            self.store.commit()
        except BaseException:
            self.store.rollback()
            raise
        return n

    # -- query vectors -------------------------------------------------------------------------
    def prune_query_cache(self, keep: int = QUERY_CACHE_SIZE) -> None:
        """Keep the ``keep`` most recently used query vectors."""
        self.store.prune_query_vectors(keep)

    def query_vector(self, query: str, embedder_factory: EmbedderFactory) -> np.ndarray:
        """The query's vector, from the cache in the store when this query was embedded before."""
        key = content_hash(query.lower())  # a hash: the query's words are never stored
        cached = self.store.cached_query_vector(self.model, key)
        if cached:
            return np.frombuffer(cached, dtype=np.float32).copy()
        from backscroll.errors import SemanticUnavailableError

        try:
            vec = embedder_factory().embed([query])[0].astype(np.float32)
        except SemanticUnavailableError:
            raise
        except Exception as exc:  # a broken runtime must not break the lexical half of a search
            raise SemanticUnavailableError(f"the embedding model failed: {type(exc).__name__}: {exc}") from None
        from datetime import datetime

        try:
            self.store.cache_query_vector(self.model, key, vec.tobytes(), datetime.now(UTC).isoformat())
        except Exception:  # a read-only or busy store only loses the cache entry
            pass
        return vec
