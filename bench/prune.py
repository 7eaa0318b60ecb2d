"""Pruned variants of an ONNX model, for the sparta benchmarks: each 2-D weight of a MatMul or Gemm
zeroed as a pruning method would leave it, with reference outputs from onnxruntime.

    .venv/bin/python bench/prune.py MODEL.onnx --pattern magnitude --sparsity 0.95 [--out gpu/shared/models]
    .venv/bin/python bench/prune.py MODEL.onnx --pattern block-outliers --sparsity 0.9 --outliers 0.005

Patterns (per weight):
- `magnitude`: the `sparsity` share of elements smallest in magnitude zeroed (unstructured
  magnitude pruning, Han et al.): no tile is zero, so block-sparse kernels find nothing;
- `block-outliers`: the `sparsity` share of 32x32 tiles of least norm zeroed, then the largest
  `outliers` share of the zeroed elements restored (pruning that keeps outlier weights): almost
  every zeroed tile keeps a non-zero. Both are the mixed patterns SparTA's weighted cover is for.

Writes <stem>_<pattern tag>.onnx and .npz (the source model's .npz inputs, outputs run by
onnxruntime on the pruned model) and prints each pruned weight's zero share. numpy, onnx and
onnxruntime only (no PyTorch)."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

BLOCK = 32


def weights(model: onnx.ModelProto) -> list[str]:
    """2-D initializers a MatMul or Gemm multiplies by (its second input), both sides at least a block."""
    inits = {t.name: t for t in model.graph.initializer}
    out = []
    for n in model.graph.node:
        if n.op_type in ("MatMul", "Gemm") and len(n.input) > 1 and n.input[1] in inits:
            dims = inits[n.input[1]].dims
            if len(dims) == 2 and min(dims) >= BLOCK and n.input[1] not in out:
                out.append(n.input[1])
    return out


def magnitude(w: np.ndarray, sparsity: float) -> np.ndarray:
    k = int(sparsity * w.size)
    if k == 0:
        return w
    cut = np.partition(np.abs(w).ravel(), k - 1)[k - 1]
    return np.where(np.abs(w) > cut, w, 0).astype(w.dtype)


def block_outliers(w: np.ndarray, sparsity: float, outliers: float) -> np.ndarray:
    r, c = (d // BLOCK * BLOCK for d in w.shape)
    norms = np.linalg.norm(w[:r, :c].reshape(r // BLOCK, BLOCK, c // BLOCK, BLOCK), axis=(1, 3))
    k = int(sparsity * norms.size)
    drop = np.zeros(w.shape, bool)
    if k:
        cut = np.partition(norms.ravel(), k - 1)[k - 1]
        drop[:r, :c] = np.kron(norms <= cut, np.ones((BLOCK, BLOCK), bool))
    dropped = np.abs(np.where(drop, w, 0)).ravel()
    keep_n = int(outliers * drop.sum())
    restore = np.zeros(w.size, bool)
    if keep_n:
        restore[np.argpartition(dropped, -keep_n)[-keep_n:]] = True
    return np.where(drop & ~restore.reshape(w.shape), 0, w).astype(w.dtype)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--pattern", choices=("magnitude", "block-outliers"), required=True)
    ap.add_argument("--sparsity", type=float, default=0.9, help="share of elements (magnitude) or tiles zeroed")
    ap.add_argument("--outliers", type=float, default=0.005, help="block-outliers: share of zeroed elements restored")
    ap.add_argument("--out", default="gpu/shared/models")
    a = ap.parse_args()
    if not 0 <= a.sparsity < 1 or not 0 <= a.outliers < 1:
        ap.error("--sparsity and --outliers are shares in [0, 1)")
    src = Path(a.model)
    model = onnx.load(str(src))
    names = set(weights(model))
    if not names:
        ap.error(f"{src} has no 2-D MatMul/Gemm weight of at least {BLOCK}x{BLOCK}")
    for t in model.graph.initializer:
        if t.name in names:
            w = numpy_helper.to_array(t)
            p = magnitude(w, a.sparsity) if a.pattern == "magnitude" else block_outliers(w, a.sparsity, a.outliers)
            t.CopyFrom(numpy_helper.from_array(p, t.name))
            print(f"{t.name:<40} {str(list(w.shape)):>12} zeros {np.mean(p == 0):.3f}")
    tag = f"mag{round(a.sparsity * 100)}" if a.pattern == "magnitude" else \
        f"blk{round(a.sparsity * 100)}o{a.outliers:g}".replace(".", "")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    dst = out / f"{src.stem}_{tag}.onnx"
    onnx.save(model, str(dst))
    import onnxruntime as ort
    ref = np.load(src.with_suffix(".npz"))
    feeds = {k[3:]: ref[k] for k in ref if k.startswith("in:")}
    sess = ort.InferenceSession(str(dst), providers=["CPUExecutionProvider"])
    outs = sess.run(None, feeds)
    np.savez(dst.with_suffix(".npz"), **{f"in:{k}": v for k, v in feeds.items()},
             **{f"out:{o.name}": v for o, v in zip(sess.get_outputs(), outs)})
    print(f"-> {dst} ({len(names)} weights pruned)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
