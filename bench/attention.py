"""Attention's kernel choice, predicted (CPU, no GPU): attention as exporters write it (MatMul,
scale, padding mask, Softmax, NaN guard, MatMul, Transpose) compiled at each shape, element type
and target; from report.json's fusion record, the kind the welder stage chose and the predicted
microseconds of each fused kernel that could render it (flash_attention on tensor cores,
flash_attention_simt, flash_decoding (few queries a head: the keys split across blocks) and
resident_rows on SIMT lanes) against the members apart, at prefill shapes and decoder steps.
`--disable welder` is the apart column.

    .venv/bin/python bench/attention.py [--targets h100,a100] [--out DIR]

Writes bench/results/attention-<UTC time>.json (suite `attention`) and prints a table. These are
the micro-model's predictions; tests/gpu/test_flash_attention_gpu.py measures the kernel."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kernels import write_results  # noqa: E402

# batch, heads, queries, keys, head size: prefill (queries = keys), then a decoder's step (one new
# token against the keys cached so far)
SHAPES = [(1, 12, 128, 128, 64), (8, 12, 128, 128, 64), (1, 16, 512, 512, 64), (1, 32, 2048, 2048, 128),
          (1, 12, 1, 1024, 64), (1, 32, 1, 2048, 128), (8, 32, 1, 4096, 128), (1, 32, 1, 16384, 128)]
DTYPES = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "bfloat16": TensorProto.BFLOAT16}


def attention_model(b: int, h: int, sq: int, sk: int, d: int, dtype: str) -> bytes:
    t = DTYPES[dtype]
    consts = [helper.make_tensor("scale", t, [], [1 / np.sqrt(d)]), helper.make_tensor("zero", t, [], [0.0])]
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]), helper.make_node("Mul", ["qk", "scale"], ["sc"]),
             helper.make_node("Add", ["sc", "mask"], ["masked"]), helper.make_node("Softmax", ["masked"], ["p"]),
             helper.make_node("IsNaN", ["p"], ["nan"]), helper.make_node("Where", ["nan", "zero", "p"], ["pz"]),
             helper.make_node("MatMul", ["pz", "v"], ["o"]), helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3])]
    inputs = [helper.make_tensor_value_info(n, t, [b, h, n_, d]) for n, n_ in (("q", sq), ("k", sk), ("v", sk))]
    inputs.append(helper.make_tensor_value_info("mask", t, [b, 1, 1, sk]))
    g = helper.make_graph(nodes, "attention", inputs, [helper.make_tensor_value_info("y", t, [b, sq, h, d])], consts)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    return m.SerializeToString()


def one(b, h, sq, sk, d, dtype, target) -> dict:
    from compiler import compile
    from compiler.pipeline import CompileOptions
    art = compile(attention_model(b, h, sq, sk, d, dtype), target, CompileOptions(build=False))
    fusion = art.report["fusion"]
    shared = [g for g in fusion["groups"] + fusion["declined"] if "Softmax_4" in g["ops"] and "kind" in g.get(
        "predicted_us", {})]   # the row chain holding the softmax (kept, or declined by the cost model)
    pred = shared[0]["predicted_us"] if shared else {}
    return {"shape": [b, h, sq, sk, d], "dtype": dtype, "target": target,
            "chosen": pred.get("kind") if shared and shared[0] in fusion["groups"] else "apart",
            "ops": shared[0]["ops"] if shared else [],
            "fused_kinds_us": pred.get("kinds") or ({pred["kind"]: pred["fused"]} if "kind" in pred else {}),
            "apart_us": pred.get("apart"), "launches": art.report["launches_per_inference"],
            "plan_predicted_us": art.report["latency"]["predicted_us"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", default="h100,a100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    rows = [one(*shape, dtype, target) for target in a.targets.split(",") for dtype in DTYPES for shape in SHAPES]
    print(f"{'target':<6} {'dtype':<9} {'b x h x sq x sk x d':<22} {'chosen':<20} {'flash us':>9} {'simt us':>9} "
          f"{'decode us':>9} {'rows us':>9} {'apart us':>9} {'launches':>8}")
    for r in rows:
        k = r["fused_kinds_us"]
        cell = lambda n: f"{k[n]:9.3f}" if n in k else f"{'-':>9}"   # noqa: E731
        print(f"{r['target']:<6} {r['dtype']:<9} {'x'.join(map(str, r['shape'])):<22} {r['chosen']:<20} "
              f"{cell('flash_attention')} {cell('flash_attention_simt')} {cell('flash_decoding')} {cell('resident_rows')} "
              f"{r['apart_us'] or 0:9.3f} {r['launches']:8d}")
    path = write_results("attention", "none (predicted from report.json)", {"targets": a.targets}, rows, a.out)
    print(f"-> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
