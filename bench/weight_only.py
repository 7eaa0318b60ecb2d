"""Weight-only quantized Linears, predicted (CPU, no GPU): one K x N product in fp16 over M tokens
with its weight in fp16, in int8 (DequantizeLinear, per-column scales) and in int4 (onnxruntime's
MatMulNBits, block 32 with packed zero points and block 128 symmetric): the kind Roller chose,
predicted microseconds and DRAM bytes from report.json. Quantizing a weight pays only where the
kernel that unpacks it is no slower than the dense one; this shows where that holds.

    .venv/bin/python bench/weight_only.py [--k 4096] [--n 4096] [--tokens 1,8,128] [--out DIR]

Writes bench/results/weight_only-<UTC time>.json (suite `weight_only`) and prints a table."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _model(nodes, m: int, k: int, n: int, inits: dict, domains=()) -> bytes:
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "linear", [vi("a", TensorProto.FLOAT16, [m, k])], [vi("y", TensorProto.FLOAT16, [m, n])],
                          [numpy_helper.from_array(v, name) for name, v in inits.items()])
    ops = [helper.make_opsetid("", 21)] + [helper.make_opsetid(d, 1) for d in domains]
    mp = helper.make_model(g, opset_imports=ops)
    mp.ir_version = 10
    return mp.SerializeToString()


def variants(m: int, k: int, n: int, rng) -> dict[str, bytes]:
    from compiler.ops.contrib_quant import pack_bits
    out = {"fp16": _model([helper.make_node("MatMul", ["a", "w"], ["y"])], m, k, n,
                          {"w": (rng.standard_normal((k, n)) * 0.02).astype(np.float16)})}
    out["int8"] = _model([helper.make_node("DequantizeLinear", ["wq", "s"], ["w"], axis=1),
                          helper.make_node("MatMul", ["a", "w"], ["y"])], m, k, n,
                         {"wq": rng.integers(-127, 128, (k, n)).astype(np.int8),
                          "s": (rng.random(n) * 0.001).astype(np.float16)})
    for block, zero in ((32, True), (128, False)):
        kb = -(-k // block)
        q = rng.integers(0, 16, (n * kb, block)).astype(np.uint8)
        inits = {"B": pack_bits(q, 4).reshape(n, kb, block // 2), "scales": (rng.random((n, kb)) * 0.01).astype(np.float16)}
        if zero:
            inits["zp"] = pack_bits(rng.integers(0, 16, (n, kb)).astype(np.uint8), 4)
        node = helper.make_node("MatMulNBits", ["a", *inits], ["y"], domain="com.microsoft", K=k, N=n, bits=4,
                                block_size=block)
        out[f"int4 b{block}{'' if zero else ' sym'}"] = _model([node], m, k, n, inits, ("com.microsoft",))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=4096)
    ap.add_argument("--n", type=int, default=4096)
    ap.add_argument("--tokens", default="1,8,128")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rng = np.random.default_rng(0)
    rows = []
    for m in (int(t) for t in a.tokens.split(",")):
        dense_us = None
        for name, data in variants(m, a.k, a.n, rng).items():
            rep = compile(data, a.target, CompileOptions(build=False)).report
            kinds = [k["config"].get("schedule") for k in rep["kernels"]]
            us = rep["latency"]["predicted_us"]
            dense_us = us if name == "fp16" else dense_us
            rows.append({"tokens": m, "weight": name, "kinds": kinds, "launches": rep["launches_per_inference"],
                         "predicted_us": us, "dram_bytes": rep["traffic"]["dram_bytes"],
                         "vs_fp16": round(us / dense_us, 4)})
            r = rows[-1]
            print(f"M={m:<4} {name:<14} {','.join(kinds):<28} {us:>9.3f} us  {r['dram_bytes']:>10} B  "
                  f"x{r['vs_fp16']:.3f} of fp16", flush=True)
    from bench.kernels import write_results
    out = write_results("weight_only", "none (predicted from report.json)",
                        {"target": a.target, "k": a.k, "n": a.n, "build": False}, rows, a.out)
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
