#!/usr/bin/env python3
"""TeSA propagation time (issue 16): annotate + propagate of one linear layer, MatMul + bias + ReLU
with a magnitude-pruned weight, at BERT-base's shapes, with the contraction path
(compiler/passes/sparta.py `_MaskEval._contracted`) against the grid evaluation it replaces; both
must find the same masks. Compile time on this machine, no GPU.

  python3 bench/tesa.py [--tokens 4096] [--shapes 768x3072,3072x768] [--zeros 0.95]

Writes bench/results/tesa-<UTC time>.json (suite `tesa`) and prints a table."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.kernels import write_results  # noqa: E402
from bench.prune import magnitude  # noqa: E402


def layer(tokens: int, k: int, n: int, zeros: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    w = magnitude(rng.standard_normal((k, n)).astype(np.float32), zeros)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Add", ["m", "b"], ["y"]),
             helper.make_node("Relu", ["y"], ["z"])]
    g = helper.make_graph(nodes, "layer", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, tokens, k])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, tokens, n])],
                          [numpy_helper.from_array(w, "w"),
                           numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "b")])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


def timed(graph, opset, grid: bool):
    from compiler.passes import sparta
    factors = sparta._contraction_factors
    if grid:
        sparta._contraction_factors = lambda te, extents: None
    try:
        t0 = time.perf_counter()
        attrs = sparta.annotate(graph, opset)
        masks = sparta.zero_masks(graph, attrs, opset)
        return time.perf_counter() - t0, masks
    finally:
        sparta._contraction_factors = factors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokens", type=int, default=4096)
    ap.add_argument("--shapes", default="768x3072,3072x768", help="KxN of the weight, comma-separated")
    ap.add_argument("--zeros", type=float, default=0.95)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args(argv)
    from compiler.frontend.onnx_import import import_model
    rows = []
    print(f"{'layer':<22} {'contraction s':>14} {'grid s':>8}  same masks")
    for shape in args.shapes.split(","):
        k, n = (int(x) for x in shape.split("x"))
        im = import_model(layer(args.tokens, k, n, args.zeros).SerializeToString())
        fast_s, fast = timed(im.graph, im.opset, grid=False)
        grid_s, grid = timed(im.graph, im.opset, grid=True)
        same = fast.keys() == grid.keys() and all(np.array_equal(fast[v], grid[v]) for v in fast)
        name = f"{args.tokens}x{k}x{n}"
        rows.append({"name": name, "zeros": args.zeros, "contraction_s": round(fast_s, 3),
                     "grid_s": round(grid_s, 3), "same_masks": same})
        print(f"{name:<22} {fast_s:>14.3f} {grid_s:>8.3f}  {same}", flush=True)
    path = write_results("tesa", "none (compile time on this machine)", vars(args) | {"out": None}, rows, args.out)
    print(f"-> {path}")
    return 0 if all(r["same_masks"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
