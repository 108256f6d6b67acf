"""The fake embedder: a deterministic stand-in for the embedding model in tests.

Registered as ``fake`` (``BACKSCROLL_EMBEDDER=fake[:variant]``) by the plugin's fixtures; a
backscroll process that never loaded the plugin imports ``fake_embedder`` lazily by name
(``backscroll.indexes.embed``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class FakeEmbedder:
    """Deterministic bag-of-words hashing into 384 dimensions: texts sharing words are close.

    ``BACKSCROLL_EMBEDDER=fake:NAME`` gives the same vectors under another model id (to test model changes).
    """

    dim = 384

    def __init__(self, variant: str = ""):
        self.model_id = "fake-hash-384" + (f"-{variant}" if variant else "")

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (out / norms).astype(np.float32)


def fake_embedder(variant: str = "") -> FakeEmbedder:
    """The factory behind ``BACKSCROLL_EMBEDDER=fake[:variant]``."""
    return FakeEmbedder(variant)


def register_fake() -> None:
    """Make ``BACKSCROLL_EMBEDDER=fake[:variant]`` select ``FakeEmbedder`` in this process."""
    from backscroll.indexes.embedders import register_embedder

    register_embedder("fake", fake_embedder)
