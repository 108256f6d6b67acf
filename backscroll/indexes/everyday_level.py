"""A history's everyday level: how close its records come, by meaning, to everyday coding requests ("commit
and push", "add a changelog entry"). Every coding history holds something near those, and a big one holds
something nearer; a recall hook's prompt must rise above this level, not above a constant, to be about past
work (docs/ranking.md, "The everyday level").

The requests are shipped (``everyday_requests.txt``); each one's closest record is read from the vector
matrix, and the level is the ``QUANTILE`` of those cosines. It is kept beside the matrix and measured again
when the history has grown (or shrunk) by ``REMEASURE`` since.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from backscroll.indexes.files import private_files

if TYPE_CHECKING:
    from backscroll.indexes.embed import Embedder
    from backscroll.indexes.vectors import Vectors

QUANTILE = 0.9  # the level: nine requests in ten come no closer to the history than this
REMEASURE = 0.1  # measured again once the embedded records grew (or shrank) by a tenth
CHUNK = 16384  # matrix rows scored at once


def requests() -> list[str]:
    text = resources.files("backscroll.indexes").joinpath("everyday_requests.txt").read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def quantile(closest: Sequence[float], q: float = QUANTILE) -> float:
    """The level from each request's closest cosine: the ``q`` quantile (the lower of two neighbours). Pure."""
    ranked = sorted(closest)
    return float(ranked[min(len(ranked) - 1, max(0, math.ceil(q * len(ranked)) - 1))])


def closest_each(vecs: Vectors, queries: np.ndarray) -> tuple[np.ndarray, int]:
    """Each query's highest similarity to any embedded record (on the int8 matrix, within 0.002), and how many
    records there are."""
    base_ids, base, scales, tail_ids, tail = vecs.load()
    q = np.ascontiguousarray(queries.T, dtype=np.float32)
    best = np.full(len(queries), -1.0, dtype=np.float32)
    if base is not None and scales is not None:
        for start in range(0, len(base), CHUNK):
            rows = base[start:start + CHUNK].astype(np.float32) * scales[start:start + CHUNK, None]
            np.maximum(best, (rows @ q).max(axis=0), out=best)
    if len(tail_ids):
        np.maximum(best, (tail @ q).max(axis=0), out=best)
    return best, len(base_ids) + len(tail_ids)


def level(vecs: Vectors, embedder: Callable[[], Embedder], records: int) -> float | None:
    """The history's everyday level, from the copy kept beside the matrix while the history is about the size
    it was measured at (``records`` with a vector now); None with no vectors."""
    if not records:
        return None
    kept = vecs.dir / f"everyday-{vecs.model}.json"
    try:
        was = json.loads(kept.read_text())
        if abs(records - was["records"]) <= REMEASURE * was["records"]:
            return float(was["level"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # (none yet, or unreadable: measured again)
    probes = _probe_vectors(vecs, embedder)
    closest, n = closest_each(vecs, probes)
    if not n:
        return None
    found = round(quantile(closest.tolist()), 4)
    _keep(kept, json.dumps({"records": n, "level": found}).encode())
    return found


def _probe_vectors(vecs: Vectors, embedder: Callable[[], Embedder]) -> np.ndarray:
    """The requests' vectors, embedded once per model and kept beside the matrix."""
    path = vecs.dir / f"everyday-{vecs.model}.npy"
    texts = requests()
    try:
        kept = np.load(path)
        if kept.shape[0] == len(texts):
            return kept
    except (OSError, ValueError):
        pass
    found = embedder().embed(texts).astype(np.float32)
    buf = io.BytesIO()
    np.save(buf, found)
    _keep(path, buf.getvalue())
    return found


def _keep(path: Path, data: bytes) -> None:
    """Write ``data`` beside ``path`` and rename it over (owner-only); a read-only data dir keeps nothing (the
    level is measured again next time)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        with private_files():
            tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
