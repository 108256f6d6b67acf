"""Vectors: the embedding table, exchange units, the memory-mapped matrix, and semantic ranking.

What is embedded: prose only (user and assistant text, never tool rows or echoes), and not the
shortest replies ("ok", "thanks"), which would only add noise. An assistant
answer is embedded with the user message it answers (an exchange unit: people ask the way the
question was first asked); a user message is a unit of its own. Units are keyed by content hash and
model, so identical text is embedded once and a model change re-embeds. Embedding runs in
committed batches: an interrupted run resumes where it stopped.

Queries read a memory-mapped int8 matrix with a scale per row (``vectors/``: a quarter of float32's
memory, scores within 0.002 and the same top ranks), converted chunk by chunk into a small float32
buffer, plus the few rows embedded since it was written, straight from SQLite.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import numpy as np

from backscroll.store.db import Store, content_hash

MIN_EMBED_CHARS = 12  # shorter prose is not embedded (lexical search still finds it)
UNIT_USER_CHARS = 300  # the question's share of an exchange unit (about 60 tokens of the 256)
BATCH_RECORDS = 64  # batch rows for an embedder without its own batching (the fake)
WINDOW_RECORDS = 2048  # pending records read, sorted by length and embedded at a time
COMMIT_SECONDS = 1.0  # commit the vectors done about this often (an interruption loses less)
MATRIX_REFRESH_ROWS = 20_000  # rewrite the matrix during a long run after this many new rows
MATRIX_REBUILD_TAIL = 2000
SCORE_CHUNK = 16384
QUERY_CACHE_SIZE = 10_000
DIM_DEFAULT = 384
PRUNE_FLAG = "embeddings_prune"  # set when records were deleted: some embeddings may have lost their units


def _crc(arr: np.ndarray) -> int:
    return zlib.crc32(memoryview(np.ascontiguousarray(arr).reshape(-1)).cast("B")) if arr.size else 0


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)



def _batches(embedder, texts: list[str]):
    """``(indices, vectors)`` batch by batch: the embedder's own token-budget batching when it has one,
    else shortest first in ``BATCH_RECORDS`` rows (little padding either way)."""
    if hasattr(embedder, "batches"):
        yield from embedder.batches(texts)
        return
    order = np.argsort(np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts)), kind="stable")
    for i in range(0, len(order), BATCH_RECORDS):
        idx = order[i:i + BATCH_RECORDS]
        yield idx, embedder.embed([texts[j] for j in idx])


def unit_text(role: str, text: str, question: str | None) -> str:
    """The text a prose record is embedded as. Pure."""
    if role == "assistant" and question:
        return question[:UNIT_USER_CHARS] + "\n\n" + text
    return text


class Vectors:
    def __init__(self, store: Store, directory: Path, model_id: str):
        self.store = store
        self.dir = Path(directory)
        self.model = model_id
        self.cache_damaged = False  # set by load() when the matrix files could not be read

    # -- model bookkeeping ---------------------------------------------------------------------
    def ensure_model(self) -> bool:
        """Forget units computed for another model. True when that happened (everything re-embeds)."""
        current = self.store.get_meta("vectors_model")
        if current == self.model:
            return False
        self.store.begin()
        self.store.conn.execute("UPDATE records SET unit_hash = NULL, vector_seq = NULL WHERE unit_hash IS NOT NULL")
        self.store.conn.execute("DELETE FROM embeddings WHERE model != ?", (self.model,))
        self.store.set_meta("vectors_model", self.model)
        self.store.commit()
        self._drop_matrix()
        return current is not None

    def pending(self) -> int:
        return self.store.conn.execute(
            "SELECT count(*) FROM records WHERE unit_hash IS NULL AND content_type IN ('text', 'summary') AND is_echo = 0"
        ).fetchone()[0]

    def count(self) -> int:
        return self.store.conn.execute("SELECT count(*) FROM embeddings WHERE model = ?", (self.model,)).fetchone()[0]

    # -- embedding -----------------------------------------------------------------------------
    def _question_before(self, session_id: str, record_id: int) -> str | None:
        row = self.store.conn.execute(
            "SELECT text FROM records WHERE session_id = ? AND id < ? AND role = 'user' AND content_type = 'text' "
            "ORDER BY id DESC LIMIT 1", (session_id, record_id)).fetchone()
        return row[0] if row else None

    def pending_ids(self) -> np.ndarray:
        """Ids of the prose records without a vector, newest first (by timestamp, then id)."""
        cur = self.store.conn.execute(
            "SELECT id FROM records WHERE unit_hash IS NULL AND content_type IN ('text', 'summary') AND is_echo = 0 "
            "ORDER BY coalesce(timestamp, '') DESC, id DESC")
        return np.fromiter((r[0] for r in cur), dtype=np.int64)

    def _window_units(self, ids: np.ndarray) -> tuple[list[tuple[int, str, str]], list[int]]:
        """``(record id, unit hash, unit text)`` for a window of pending records, and the too-short ones."""
        rows = []
        for i in range(0, len(ids), 500):
            chunk = [int(x) for x in ids[i:i + 500]]
            rows += self.store.conn.execute(
                f"SELECT id, session_id, role, text FROM records WHERE id IN ({','.join('?' * len(chunk))}) "
                "AND unit_hash IS NULL", chunk).fetchall()
        rows.sort(key=lambda r: (r[1], r[0]))  # each session in order, for the question before an answer
        units: list[tuple[int, str, str]] = []
        too_short: list[int] = []
        question: dict[str, str | None] = {}
        for rid, session, role, text in rows:
            if session not in question:
                question[session] = self._question_before(session, rid)
            if len(text.strip()) < MIN_EMBED_CHARS:  # "ok", "thanks", "Done." say nothing to search for
                too_short.append(rid)
            else:
                u = unit_text(role, text, question[session])
                units.append((rid, content_hash(u), u))
            if role == "user":
                question[session] = text
        return units, too_short

    def _known(self, hashes: list[str]) -> set[str]:
        known: set[str] = set()
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            known.update(r[0] for r in self.store.conn.execute(
                f"SELECT content_hash FROM embeddings WHERE model = ? AND content_hash IN ({','.join('?' * len(chunk))})",
                (self.model, *chunk)))
        return known

    def _commit(self, seq: int, vectors: dict[str, np.ndarray], records: list[tuple[int, str]],
                too_short: list[int]) -> None:
        self.store.begin()
        try:
            self.store.conn.executemany(
                "INSERT OR REPLACE INTO embeddings (content_hash, model, dim, vector) VALUES (?, ?, ?, ?)",
                [(h, self.model, len(v), v.astype(np.float32).tobytes()) for h, v in vectors.items()])
            self.store.conn.executemany("UPDATE records SET unit_hash = ?, vector_seq = ? WHERE id = ?",
                                        [(h, seq, rid) for rid, h in records])
            self.store.conn.executemany("UPDATE records SET unit_hash = '' WHERE id = ?", [(r,) for r in too_short])
            self.store.set_meta("vector_seq", str(seq))
            self.store.commit()
        except BaseException:
            self.store.rollback()
            raise

    def embed_pending(self, embedder_factory: Callable[[], object], *, limit: int | None = None,
                      progress: Callable[[int, int], None] | None = None) -> int:
        """Embed prose records that have no vector yet, newest first; returns how many new units were embedded.

        Pending records are read in windows of ``WINDOW_RECORDS`` (newest first); each window's texts
        are embedded in token-budget batches and committed about every ``COMMIT_SECONDS``, so an
        interruption (Ctrl-C) keeps all but the batch in flight and the next run resumes.
        ``progress(records_done, units_embedded)`` is called after each commit.
        """
        self.ensure_model()
        embedder = None
        done, embedded = 0, 0
        seq = int(self.store.get_meta("vector_seq") or 0)
        since_matrix = 0
        ids = self.pending_ids()
        if limit is not None:
            ids = ids[:limit]
        for start in range(0, len(ids), WINDOW_RECORDS):
            units, too_short = self._window_units(ids[start:start + WINDOW_RECORDS])
            known = self._known(sorted({h for _r, h, _u in units}))
            todo: dict[str, str] = {}
            for _rid, h, u in units:
                if h not in known and h not in todo:
                    todo[h] = u
            waiting = [(rid, h) for rid, h, _u in units]  # records not yet committed
            finished: dict[str, np.ndarray] = {}  # vectors computed, not yet committed
            window_done = len(ids[start:start + WINDOW_RECORDS]) - len(units)  # too short, or already taken

            def flush() -> None:
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
                    progress(done, embedded)

            try:
                if todo:
                    if embedder is None:
                        embedder = embedder_factory()
                    hashes = list(todo)
                    texts = [todo[h] for h in hashes]
                    last = time.monotonic()
                    for idx, vecs in _batches(embedder, texts):
                        for i, v in zip(idx, vecs):
                            finished[hashes[i]] = v
                        if time.monotonic() - last >= COMMIT_SECONDS:
                            flush()
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

    # -- the matrix cache ----------------------------------------------------------------------
    def _paths(self) -> tuple[Path, Path, Path, Path]:
        tag = self.model.replace("/", "_")
        return (self.dir / f"{tag}.int8.npy", self.dir / f"{tag}.scales.npy", self.dir / f"{tag}.ids.npy",
                self.dir / f"{tag}.meta.json")

    def _drop_matrix(self) -> None:
        if self.dir.exists():
            for p in self.dir.iterdir():
                try:
                    p.unlink()
                except OSError:
                    pass

    _ROWS_SQL = ("FROM records r INDEXED BY records_vector_seq "
                 "JOIN embeddings e ON e.content_hash = r.unit_hash AND e.model = ? "
                 "WHERE r.vector_seq > ? AND r.vector_seq IS NOT NULL")

    def _iter_rows(self, after_seq: int, chunk: int = 8192):
        """``(ids, float32 rows)`` chunk by chunk, in matrix order: memory stays flat at any store size."""
        cur = self.store.conn.execute(f"SELECT r.id, e.vector {self._ROWS_SQL} ORDER BY r.vector_seq, r.id",
                                      (self.model, after_seq))
        while True:
            part = cur.fetchmany(chunk)
            if not part:
                return
            ids = np.fromiter((r[0] for r in part), dtype=np.int64, count=len(part))
            m = np.frombuffer(b"".join(r[1] for r in part), dtype=np.float32).reshape(len(part), -1)
            yield ids, m

    def _rows(self, after_seq: int) -> tuple[np.ndarray, np.ndarray]:
        ids_parts, parts = [], []
        for ids, m in self._iter_rows(after_seq):
            ids_parts.append(ids)
            parts.append(m)
        if not ids_parts:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(ids_parts), np.vstack(parts) if len(parts) > 1 else parts[0]

    def _meta(self) -> dict | None:
        meta = self._paths()[3]
        try:
            data = json.loads(meta.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            self.cache_damaged = True
            return None
        if not isinstance(data, dict):
            self.cache_damaged = True
            return None
        return data if data.get("model") == self.model else None

    def write_matrix(self) -> int:
        """Write the full matrix cache from the store; returns its rows.

        Each file is written beside its final name, fsynced and renamed over it, then the directory
        is fsynced; the meta file (with a checksum of each array) goes last. Files are owner-only.
        """
        from backscroll.indexes.lexical import private_files

        seq = int(self.store.get_meta("vector_seq") or 0)
        n = self.store.conn.execute(f"SELECT count(*) {self._ROWS_SQL}", (self.model, 0)).fetchone()[0]
        dim = DIM_DEFAULT
        first = self.store.conn.execute(f"SELECT length(e.vector) {self._ROWS_SQL} LIMIT 1", (self.model, 0)).fetchone()
        if first:
            dim = first[0] // 4
        mpath, spath, ipath, meta = self._paths()
        ids = np.zeros(n, dtype=np.int64)
        scales = np.zeros(n, dtype=np.float32)
        crc_int8 = 0
        with private_files():
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            # The int8 rows are written chunk by chunk into the file (never all in memory at once).
            mtmp = mpath.with_name(f".{mpath.name}.{os.getpid()}.tmp.npy")
            try:
                if not n:  # an empty file cannot be memory-mapped
                    np.save(mtmp, np.zeros((0, 0), dtype=np.int8))
                q8 = np.lib.format.open_memmap(mtmp, mode="w+", dtype=np.int8, shape=(n, dim)) if n else None
                at = 0
                for part_ids, m in self._iter_rows(0):
                    k = min(len(part_ids), n - at)  # the writer lock is held: the count cannot change
                    m = m[:k]
                    sc = np.abs(m).max(axis=1) / 127.0
                    sc[sc == 0] = 1.0
                    block = np.round(m / sc[:, None]).astype(np.int8)
                    q8[at:at + k] = block
                    ids[at:at + k] = part_ids[:k]
                    scales[at:at + k] = sc
                    crc_int8 = zlib.crc32(memoryview(np.ascontiguousarray(block).reshape(-1)).cast("B"), crc_int8)
                    at += k
                if q8 is not None:
                    q8.flush()
                    del q8
                with open(mtmp, "rb+") as fh:
                    os.fsync(fh.fileno())
                os.replace(mtmp, mpath)
            finally:
                mtmp.unlink(missing_ok=True)
            arrays = {"scales": (spath, scales), "ids": (ipath, ids)}
            for path, arr in arrays.values():
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npy")
                try:
                    with open(tmp, "wb") as fh:
                        np.save(fh, arr)
                        fh.flush()
                        os.fsync(fh.fileno())
                    os.replace(tmp, path)
                finally:  # a full disk leaves no half-written temp file behind
                    tmp.unlink(missing_ok=True)
            _fsync_dir(self.dir)
            crcs = {"int8": crc_int8 if n else 0, **{k: _crc(arr) for k, (_p, arr) in arrays.items()}}
            meta_tmp = meta.with_name(f".{meta.name}.{os.getpid()}.tmp")
            try:
                with open(meta_tmp, "w") as fh:
                    fh.write(json.dumps({"model": self.model, "seq": seq, "rows": int(n),
                                         "ids_sum": int(ids.sum()), "crc32": crcs}))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(meta_tmp, meta)
            finally:
                meta_tmp.unlink(missing_ok=True)
            _fsync_dir(self.dir)
        return n

    def _store_fingerprint(self, seq: int) -> tuple[int, int]:
        """``(rows, id sum)`` the matrix written at ``seq`` should hold, if no record was deleted since."""
        n, total = self.store.conn.execute(
            "SELECT count(*), coalesce(sum(id), 0) FROM records INDEXED BY records_vector_seq "
            "WHERE vector_seq IS NOT NULL AND vector_seq <= ?", (seq,)).fetchone()
        return n, total

    def refresh_matrix(self, force: bool = False) -> bool:
        """Rewrite the matrix when it is missing, unreadable, far behind or holds records since
        deleted. True when rewritten."""
        meta = self._meta()
        seq = int(self.store.get_meta("vector_seq") or 0)
        if not force and meta is not None:
            behind = self.store.conn.execute("SELECT count(*) FROM records WHERE vector_seq > ?",
                                             (meta["seq"],)).fetchone()[0]
            if behind < MATRIX_REBUILD_TAIL and self._load_base(meta) is not None \
                    and (meta.get("rows"), meta.get("ids_sum")) == self._store_fingerprint(meta["seq"]):
                return False
        if seq == 0 and meta is None and not force and not self.cache_damaged:
            return False
        self.write_matrix()
        self.cache_damaged = False
        return True

    def _load_base(self, meta: dict):
        """The matrix files checked against the meta (shapes, types, checksums); None when damaged."""
        mpath, spath, ipath, _ = self._paths()
        try:
            base = np.load(mpath, mmap_mode="r")
            scales = np.load(spath)
            base_ids = np.load(ipath)
            rows, sums = int(meta["rows"]), meta["crc32"]
            if not (base.dtype == np.int8 and base.ndim == 2 and scales.dtype == np.float32 and scales.ndim == 1
                    and base_ids.dtype == np.int64 and base_ids.ndim == 1):
                raise ValueError("unexpected array types")
            if not (len(base_ids) == base.shape[0] == len(scales) == rows):
                raise ValueError("matrix, scales and ids disagree")
            if (_crc(base_ids) != sums["ids"] or _crc(scales) != sums["scales"] or _crc(base) != sums["int8"]
                    or int(base_ids.sum()) != meta["ids_sum"]):
                raise ValueError("checksum mismatch")
        except (OSError, ValueError, EOFError, KeyError, TypeError):
            self.cache_damaged = True
            return None
        return base_ids, base, scales

    def load(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray, np.ndarray]:
        """(ids, int8 rows, scales) of the memory-mapped matrix, then (ids, float32 rows) embedded since.

        A matrix that fails its checks is ignored (``cache_damaged``): every vector comes from the store.
        """
        meta = self._meta()
        base_ids, base, scales, after = np.zeros(0, dtype=np.int64), None, None, 0
        if meta is not None:
            loaded = self._load_base(meta)
            if loaded is not None:
                base_ids, base, scales = loaded
                after = meta["seq"]
        tail_ids, tail = self._rows(after)
        return base_ids, base, scales, tail_ids, tail

    # -- pruning -------------------------------------------------------------------------------
    def prune_orphans(self) -> int:
        """Delete embeddings no current record's unit uses (their records were replaced or deleted).

        Runs only after records were replaced (ingest flags it): one pass, set-based.
        """
        if self.store.get_meta(PRUNE_FLAG) is None:
            return 0
        self.store.begin()
        try:
            n = self.store.conn.execute(
                "DELETE FROM embeddings WHERE content_hash NOT IN "
                "(SELECT unit_hash FROM records WHERE unit_hash IS NOT NULL AND unit_hash != '')").rowcount
            self.store.conn.execute("DELETE FROM meta WHERE key = ?", (PRUNE_FLAG,))
            self.store.commit()
        except BaseException:
            self.store.rollback()
            raise
        return n

    @staticmethod
    def _score_int8(m8: np.ndarray, scales: np.ndarray, q: np.ndarray) -> np.ndarray:
        out = np.empty(len(m8), dtype=np.float32)
        buf = np.empty((min(SCORE_CHUNK, len(m8)), m8.shape[1]), dtype=np.float32)
        for start in range(0, len(m8), SCORE_CHUNK):
            chunk = m8[start:start + SCORE_CHUNK]
            b = buf[: len(chunk)]
            np.copyto(b, chunk, casting="unsafe")
            out[start:start + len(chunk)] = b @ q
        return out * scales

    def similarities(self, qvec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cosine similarity of the query to every embedded record: ``(ids, scores)``."""
        base_ids, base, scales, tail_ids, tail = self.load()
        q = qvec.astype(np.float32)
        parts_ids, parts_scores = [], []
        if base is not None and len(base_ids):
            parts_ids.append(base_ids)
            parts_scores.append(self._score_int8(base, scales, q))
        if len(tail_ids):
            parts_ids.append(tail_ids)
            parts_scores.append(tail @ q)
        if not parts_ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        return np.concatenate(parts_ids), np.concatenate(parts_scores)

    @staticmethod
    def top(ids: np.ndarray, scores: np.ndarray, k: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """The ``k`` best ``(id, similarity)`` among ``allowed`` (all when None), best first."""
        if len(ids) == 0:
            return []
        if allowed is not None:
            mask = np.isin(ids, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
            scores = np.where(mask, scores, -np.inf)
        k = min(k, len(ids))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(int(ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]

    def search(self, qvec: np.ndarray, k: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """The ``k`` nearest records as ``(id, cosine similarity)``, best first."""
        ids, scores = self.similarities(qvec)
        return self.top(ids, scores, k, allowed)

    # -- query vectors -------------------------------------------------------------------------
    def prune_query_cache(self, keep: int = QUERY_CACHE_SIZE) -> None:
        """Keep the ``keep`` most recently used query vectors."""
        self.store.conn.execute(
            "DELETE FROM query_vectors WHERE rowid NOT IN "
            "(SELECT rowid FROM query_vectors ORDER BY used_at DESC LIMIT ?)", (keep,))

    def query_vector(self, query: str, embedder_factory: Callable[[], object]) -> np.ndarray:
        """The query's vector, from the cache in the store when this query was embedded before."""
        key = content_hash(query.lower())  # a hash: the query's words are never stored
        row = self.store.conn.execute("SELECT vector FROM query_vectors WHERE model = ? AND query = ?",
                                      (self.model, key)).fetchone()
        if row:
            return np.frombuffer(row[0], dtype=np.float32).copy()
        from backscroll.errors import SemanticUnavailableError

        try:
            vec = embedder_factory().embed([query])[0].astype(np.float32)
        except SemanticUnavailableError:
            raise
        except Exception as exc:  # a broken runtime must not break the lexical half of a search
            raise SemanticUnavailableError(f"the embedding model failed: {type(exc).__name__}: {exc}") from None
        from datetime import datetime

        try:
            self.store.conn.execute(
                "INSERT OR REPLACE INTO query_vectors (model, query, vector, used_at) VALUES (?, ?, ?, ?)",
                (self.model, key, vec.tobytes(), datetime.now(UTC).isoformat()))
        except Exception:  # a read-only or busy store only loses the cache entry
            pass
        return vec
