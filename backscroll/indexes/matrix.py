"""The vector matrix cache and semantic ranking over it (mixed into ``Vectors``).

Queries read a memory-mapped int8 matrix with a scale per row (``vectors/``: a quarter of float32's
memory, scores within 0.002 and the same top ranks), converted chunk by chunk into a small float32
buffer, plus the few rows embedded since it was written, straight from SQLite. The files are
written beside their final names and renamed over them, with a meta file (checksums, row count,
id sum) written last; a matrix that fails its checks is ignored and rewritten. A new matrix starts from
the old one's rows, copied, when none of them changed since: only the rows embedded since are read
from the store (at a million records, reading every vector again took minutes).
"""

from __future__ import annotations

import json
import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from backscroll.indexes.files import fsync_dir, private_files, sweep_stale_temp_files
from backscroll.indexes.nearest import best_admitted, score_int8
from backscroll.indexes.packing import unpack_rows
from backscroll.store.db import Store

MATRIX_REBUILD_TAIL = 2000
SCORE_CHUNK = 16384  # old rows copied into a new matrix at a time
DIM_DEFAULT = 384


def _sound(meta: dict[str, Any]) -> bool:  # (a hand edit or a bad disk: numbers of another kind or range)
    sums = meta.get("crc32")
    return (all(type(meta.get(k)) is int and 0 <= meta[k] < 1 << 63 for k in ("seq", "rows", "ids_sum"))
            and isinstance(sums, dict) and all(type(sums.get(k)) is int for k in ("ids", "scales", "int8")))


def _crc(arr: np.ndarray, start: int = 0) -> int:
    """CRC-32 of an array's bytes (C order), continuing from ``start``."""
    return zlib.crc32(np.ascontiguousarray(arr).reshape(-1).view(np.uint8).data, start) if arr.size else start


class Verdict(NamedTuple):
    """``MatrixCache.verify``: what is wrong with the matrix files (``problem``), else the record ids they hold and
    the pass (``vector_seq``) they were written at; no ``ids`` when no matrix was written yet."""

    problem: str | None
    ids: np.ndarray | None = None
    seq: int = 0


class MatrixCache:
    """The matrix files under ``self.dir`` for ``self.model``, and the scoring of a query against them."""

    store: Store
    dir: Path
    model: str
    cache_damaged: bool

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

    def _iter_rows(self, after_seq: int, chunk: int = 8192) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """``(ids, float32 rows)`` chunk by chunk, in matrix order: memory stays flat at any store size."""
        dim = self.store.vector_dim(self.model) or DIM_DEFAULT
        for part in self.store.vector_rows(self.model, after_seq, chunk):
            ids = np.fromiter((r[0] for r in part), dtype=np.int64, count=len(part))
            yield ids, unpack_rows([r[1] for r in part], dim)

    def _rows(self, after_seq: int) -> tuple[np.ndarray, np.ndarray]:
        ids_parts: list[np.ndarray] = []
        parts: list[np.ndarray] = []
        for ids, m in self._iter_rows(after_seq):
            ids_parts.append(ids)
            parts.append(m)
        if not ids_parts:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        return np.concatenate(ids_parts), np.vstack(parts) if len(parts) > 1 else parts[0]

    def _meta(self) -> dict[str, Any] | None:
        meta = self._paths()[3]
        try:
            data = json.loads(meta.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            self.cache_damaged = True
            return None
        if not isinstance(data, dict) or not _sound(data):
            self.cache_damaged = True
            return None
        return data if data.get("model") == self.model else None

    def write_matrix(self) -> int:
        """Write the full matrix cache from the store; returns its rows.

        Each file is written beside its final name, fsynced and renamed over it, then the directory
        is fsynced; the meta file (with a checksum of each array) goes last. Files are owner-only.
        """
        with self.store.reading():  # one snapshot: written without the writer lock, the rows still match the seq
            return self._write_matrix()

    def _write_matrix(self) -> int:
        seq = self.store.meta_count("vector_seq")
        dim = self.store.vector_dim(self.model) or DIM_DEFAULT
        mpath, spath, ipath, meta = self._paths()
        sweep_stale_temp_files(self.dir)  # (a matrix is hundreds of MB)
        kept = self._reusable(seq, dim)
        after, crc_int8 = (kept[3], kept[4]) if kept is not None else (0, 0)
        # Only the rows since the copied matrix are counted: counting every vector joins each record to its
        # vector, seconds at a million records, on every write.
        n = (len(kept[0]) if kept is not None else 0) + self.store.vector_row_count(self.model, after)
        ids = np.zeros(n, dtype=np.int64)
        scales = np.zeros(n, dtype=np.float32)
        with private_files():
            self.dir.mkdir(parents=True, exist_ok=True, mode=0o700)
            # The int8 rows are written chunk by chunk into the file (never all in memory at once).
            mtmp = mpath.with_name(f".{mpath.name}.{os.getpid()}.tmp.npy")
            try:
                if not n:  # an empty file cannot be memory-mapped
                    np.save(mtmp, np.zeros((0, 0), dtype=np.int8))
                else:
                    q8 = np.lib.format.open_memmap(mtmp, mode="w+", dtype=np.int8, shape=(n, dim))
                    at = 0
                    if kept is not None:  # the old rows, copied as they are (in matrix order: they come first)
                        base_ids, base, base_scales = kept[:3]
                        at = len(base_ids)
                        for start in range(0, at, SCORE_CHUNK):
                            end = min(at, start + SCORE_CHUNK)
                            q8[start:end] = base[start:end]
                        ids[:at], scales[:at] = base_ids, base_scales
                    for part_ids, m in self._iter_rows(after):
                        k = min(len(part_ids), n - at)  # one read snapshot: the count cannot change
                        m = m[:k]
                        sc = np.abs(m).max(axis=1) / 127.0
                        sc[sc == 0] = 1.0
                        block = np.round(m / sc[:, None]).astype(np.int8)
                        q8[at:at + k] = block
                        ids[at:at + k] = part_ids[:k]
                        scales[at:at + k] = sc
                        crc_int8 = _crc(block, crc_int8)
                        at += k
                    q8.flush()
                    del q8
                with open(mtmp, "rb+") as fh:
                    os.fsync(fh.fileno())
                written = os.stat(mtmp)
                os.replace(mtmp, mpath)
            finally:
                mtmp.unlink(missing_ok=True)
            arrays: dict[str, tuple[Path, np.ndarray]] = {"scales": (spath, scales), "ids": (ipath, ids)}
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
            fsync_dir(self.dir)
            crcs = {"int8": crc_int8 if n else 0, **{k: _crc(arr) for k, (_p, arr) in arrays.items()}}
            meta_tmp = meta.with_name(f".{meta.name}.{os.getpid()}.tmp")
            try:
                with open(meta_tmp, "w") as fh:
                    fh.write(json.dumps({"model": self.model, "seq": seq, "rows": int(n),
                                         "ids_sum": int(ids.sum()), "crc32": crcs,
                                         "int8_stat": [written.st_size, written.st_mtime_ns]}))
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(meta_tmp, meta)
            finally:
                meta_tmp.unlink(missing_ok=True)
            fsync_dir(self.dir)
        self.cache_damaged = False  # (whatever was found damaged on the way is written afresh now)
        return n

    def _reusable(self, seq: int, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int] | None:
        """``(ids, int8 rows, scales, its seq, its int8 checksum)`` of the matrix written last, when it is intact
        and still holds exactly the store's records given a vector up to its pass (none replaced or deleted since);
        else None."""
        meta = self._meta()
        if meta is None or meta["seq"] > seq:  # (``_meta`` vouches for its kinds)
            return None
        loaded = self._current_base(meta)
        if loaded is None or loaded[1].shape[1:] != (dim,):
            return None
        return (*loaded, meta["seq"], int(meta["crc32"]["int8"]))

    def _current_base(self, meta: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The matrix's arrays when they are intact and still hold exactly the store's vectors up to its pass."""
        loaded = self._load_base(meta)
        # (what the matrix written at its pass should hold, if no record was deleted since)
        if loaded is None or (meta.get("rows"), meta.get("ids_sum")) != self.store.vectored_fingerprint(meta["seq"]):
            return None
        return loaded

    def refresh_matrix(self, force: bool = False) -> bool:
        """Rewrite the matrix when it is missing, unreadable, far behind or holds records since
        deleted, or was written before its meta kept the file's size and mtime (once). True when rewritten."""
        meta = self._meta()
        seq = self.store.meta_count("vector_seq")
        if not force and meta is not None:
            behind = self.store.vectored_after(meta["seq"])
            if behind < MATRIX_REBUILD_TAIL and "int8_stat" in meta and self._current_base(meta) is not None:
                return False
        if seq == 0 and meta is None and not force and not self.cache_damaged:
            return False
        self.write_matrix()
        return True

    def _load_base(self, meta: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
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
            if (_crc(base_ids) != sums["ids"] or _crc(scales) != sums["scales"]
                    or int(base_ids.sum()) != meta["ids_sum"] or not self._int8_intact(mpath, base, meta)):
                raise ValueError("checksum mismatch")
        except (OSError, ValueError, EOFError, KeyError, TypeError):
            self.cache_damaged = True
            return None
        return base_ids, base, scales

    def verify(self) -> Verdict:
        """The matrix files checked in full (``status --check``): what a query checks before it trusts them (shapes,
        types, checksums), and the int8 rows' checksum read whole (a query skips it while the file is the one
        written)."""
        meta = self._meta()
        if meta is None:
            return Verdict(f"its meta file {self._paths()[3]} cannot be read" if self.cache_damaged else None)
        loaded = self._load_base(meta)
        if loaded is None:
            return Verdict(f"its files in {self.dir} fail their checks (shapes, types or checksums)")
        if _crc(loaded[1]) != meta["crc32"]["int8"]:
            return Verdict(f"its int8 rows ({self._paths()[0]}) fail their checksum")
        return Verdict(None, loaded[0], meta["seq"])

    @staticmethod
    def _int8_intact(path: Path, base: np.ndarray, meta: dict[str, Any]) -> bool:
        """The int8 rows' checksum holds. Read in full only when the file is not the one written (its size
        and mtime differ from the meta's): the whole matrix is 384 MB at a million records, and scoring reads
        it anyway."""
        st = os.stat(path)
        if meta.get("int8_stat") == [st.st_size, st.st_mtime_ns]:
            return True
        return _crc(base) == meta["crc32"]["int8"]

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

    def similarities(self, qvec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cosine similarity of the query to every embedded record: ``(ids, scores)``."""
        base_ids, base, scales, tail_ids, tail = self.load()
        q = qvec.astype(np.float32)
        parts_ids: list[np.ndarray] = []
        parts_scores: list[np.ndarray] = []
        if base is not None and scales is not None and len(base_ids):  # scales come with the base
            parts_ids.append(base_ids)
            parts_scores.append(score_int8(base, scales, q))
        if len(tail_ids):
            parts_ids.append(tail_ids)
            parts_scores.append(tail @ q)
        if not parts_ids:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        return np.concatenate(parts_ids), np.concatenate(parts_scores)

    top = staticmethod(best_admitted)
