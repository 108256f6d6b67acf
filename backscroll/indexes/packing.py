"""How a vector is kept in the store: float16 bytes, half of float32's (a cosine moves by well under 0.001).
Vectors that earlier versions stored as float32 are read as they are, so a store may hold both."""

from __future__ import annotations

import numpy as np


def pack(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float16).tobytes()


def unpack(blob: bytes, dim: int) -> np.ndarray:
    """One stored vector of ``dim`` values, as float32."""
    kind = np.float16 if len(blob) == 2 * dim else np.float32
    return np.frombuffer(blob, dtype=kind).astype(np.float32)


def unpack_rows(blobs: list[bytes], dim: int) -> np.ndarray:
    """Stored vectors as the rows of a float32 matrix (all of one size: read at once)."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    sizes = {len(b) for b in blobs}
    if len(sizes) == 1:
        kind = np.float16 if sizes == {2 * dim} else np.float32
        return np.frombuffer(b"".join(blobs), dtype=kind).reshape(len(blobs), dim).astype(np.float32)
    return np.vstack([unpack(b, dim) for b in blobs])
