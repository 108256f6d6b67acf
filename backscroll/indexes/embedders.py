"""Which embedder a process uses, and the id its vectors are stored under, known without numpy or the model
(``--version`` and ``status`` ask; loading them costs a third of a second).

``$BACKSCROLL_EMBEDDER`` names the embedder (``minilm``, the default, or ``NAME[:VARIANT]``). Other names come from a
registry (``register_embedder``): the pytest plugin registers ``fake``, a deterministic hashing embedder for tests; a
process that never loaded the plugin (a CLI subprocess a test starts with ``BACKSCROLL_EMBEDDER=fake``) imports it
lazily from ``backscroll.testing.fake`` (its package needs pytest); production code never does. The model itself and
its batching are in ``embed``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from backscroll.errors import SemanticUnavailableError

if TYPE_CHECKING:
    import numpy as np

MODEL_DIR = Path(__file__).parent / "model"
MODEL_FILE = MODEL_DIR / "minilm-l6-dynint8pc.onnx"
MAX_TOKENS = 256
# A new id re-embeds existing stores once. The 7-bit graph kept the id: its vectors are within 1% of cosine
# of the 8-bit graph's (0.9906), as the 8-bit graph's were of each other on two kinds of CPU (0.9918).
MINILM_ID = f"all-MiniLM-L6-v2-dynint8pc-{MAX_TOKENS}"


class Embedder(Protocol):
    """A text embedder: its vectors are stored under ``model_id``."""

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        ...



def embedder_kind() -> str:
    return os.environ.get("BACKSCROLL_EMBEDDER", "minilm").strip().lower() or "minilm"


# name -> factory(variant) giving an embedder; constructing one must be cheap (model_id() does).
EmbedderFactory = Callable[[str], Embedder]
_REGISTRY: dict[str, EmbedderFactory] = {}
# Names that a process which did not register them can still select: "module:attribute" of the factory.
_LAZY: dict[str, str] = {"fake": "backscroll.testing.fake:fake_embedder"}


def register_embedder(name: str, factory: EmbedderFactory) -> None:
    """Make ``$BACKSCROLL_EMBEDDER=name[:variant]`` select ``factory(variant)`` (tests, other models)."""
    if name == "minilm":
        raise ValueError("minilm is built in")
    _REGISTRY[name] = factory


def unregister_embedder(name: str) -> None:
    _REGISTRY.pop(name, None)


def factory_of(name: str) -> EmbedderFactory:
    if name not in _REGISTRY and name in _LAZY:
        module, _, attr = _LAZY[name].partition(":")
        try:
            _REGISTRY[name] = getattr(importlib.import_module(module), attr)
        except ImportError as exc:
            raise SemanticUnavailableError(f"the {name!r} embedder in $BACKSCROLL_EMBEDDER is for tests ({exc})",
                                           hint="unset $BACKSCROLL_EMBEDDER to use the real model") from None
    if name not in _REGISTRY:
        known = ", ".join(["minilm", *sorted(set(_REGISTRY) | set(_LAZY))])
        raise SemanticUnavailableError(f"unknown embedder {name!r} in $BACKSCROLL_EMBEDDER",
                                       hint=f"use one of: {known}")
    return _REGISTRY[name]


def model_id() -> str:
    """The id vectors are stored under, known without loading the model."""
    name, _, variant = embedder_kind().partition(":")
    if name == "minilm":
        return MINILM_ID
    try:
        return factory_of(name)(variant).model_id
    except SemanticUnavailableError:
        return embedder_kind()  # unusable: ``load`` says why, where semantic search degrades to lexical


def unusable() -> str | None:
    """Why the configured embedder cannot embed (an unknown name, no model file), known without loading it."""
    try:
        check_usable()
    except SemanticUnavailableError as exc:
        return exc.message
    return None


def check_usable() -> None:
    """Raise ``SemanticUnavailableError``, with what to do, when the configured embedder cannot embed."""
    name, _, variant = embedder_kind().partition(":")
    if name != "minilm":
        factory_of(name)(variant)
    elif not MODEL_FILE.exists():
        raise SemanticUnavailableError(f"the embedding model file is missing ({MODEL_FILE})",
                                       hint="install backscroll again: the model ships inside its package")
