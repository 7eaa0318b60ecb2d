"""One attention written the ways models carry it, predicted (CPU, no GPU): as exporters write it
(MatMul, scale, Softmax, MatMul on (B, H, S, D)), as the ONNX Attention op on 4-D and on 3-D inputs
(heads folded into the hidden axis), and as onnxruntime's com.microsoft MultiHeadAttention; then the
self-attention with its QKV projection as the plain ops and as one com.microsoft Attention node.
Each form should compile to the same kernels: launches, the attention's kind, predicted time and
DRAM bytes from report.json.

    .venv/bin/python bench/attention_forms.py [--target h100] [--out DIR]

Writes bench/results/attention_forms-<UTC time>.json (suite `attention_forms`) and prints a table."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPES = [(12, 128, 64), (12, 512, 64), (16, 1024, 64)]      # heads, sequence, head size (batch 1)
TYPES = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16}


def _model(nodes, inputs, outputs, inits=(), opset=23, ms=False) -> bytes:
    vi = helper.make_tensor_value_info
    g = helper.make_graph(nodes, "attention", [vi(n, t, s) for n, t, s in inputs], [vi(n, t, s) for n, t, s in outputs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    ops = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if ms else [])
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 10
    return m.SerializeToString()


def forms(h: int, s: int, d: int, dtype: str) -> dict[str, bytes]:
    t, hid = TYPES[dtype], h * d
    np_t = np.float16 if dtype == "float16" else np.float32
    four, three = [1, h, s, d], [1, s, hid]
    out = {"exported (B,H,S,D)": _model(
        [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]), helper.make_node("MatMul", ["q", "kt"], ["qk"]),
         helper.make_node("Mul", ["qk", "scale"], ["sc"]), helper.make_node("Softmax", ["sc"], ["p"]),
         helper.make_node("MatMul", ["p", "v"], ["y"])],
        [(n, t, four) for n in "qkv"], [("y", t, four)], [("scale", np.array(1 / np.sqrt(d), np_t))])}
    out["Attention 4-D"] = _model([helper.make_node("Attention", ["q", "k", "v"], ["y"])],
                                  [(n, t, four) for n in "qkv"], [("y", t, four)])
    out["Attention 3-D"] = _model([helper.make_node("Attention", ["q", "k", "v"], ["y"], q_num_heads=h, kv_num_heads=h)],
                                  [(n, t, three) for n in "qkv"], [("y", t, three)])
    out["com.microsoft MultiHeadAttention"] = _model(
        [helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y"], domain="com.microsoft", num_heads=h)],
        [(n, t, three) for n in "qkv"], [("y", t, three)], opset=18, ms=True)
    rng = np.random.default_rng(0)
    w, b = (rng.standard_normal((hid, 3 * hid)) * 0.02).astype(np_t), (rng.standard_normal(3 * hid) * 0.02).astype(np_t)
    plain, ms = self_attention(w, b, s, h, dtype)
    out["projection + attention, plain ops"] = plain
    out["projection + attention, com.microsoft Attention"] = ms
    return out


def self_attention(w: np.ndarray, b: np.ndarray, s: int, h: int, dtype: str, mask: bool = False) -> tuple[bytes, bytes]:
    """BERT's self-attention over (1, s, hidden) with its packed QKV projection `w` (+ `b`), as the
    plain ops an exporter writes (MatMul, Add, Split, per-head Reshape and Transpose, scaled Q.K^T,
    Softmax, P.V, heads merged back) and as the one com.microsoft Attention node onnxruntime's
    optimizer writes for them. With `mask`, an int32 (1, s) input of 0/1 masks keys: the plain ops
    add (1 - mask) * -10000, the node takes it as its raw mask index (the same meaning)."""
    t, hid = TYPES[dtype], w.shape[0]
    d = hid // h
    np_t = np.float16 if dtype == "float16" else np.float32
    three = [1, s, hid]
    plain = [helper.make_node("MatMul", ["x", "w"], ["p0"]), helper.make_node("Add", ["p0", "b"], ["p"]),
             helper.make_node("Split", ["p", "three"], ["q0", "k0", "v0"], axis=2)]
    for n in "qkv":
        plain += [helper.make_node("Reshape", [f"{n}0", "bshd"], [f"{n}1"]),
                  helper.make_node("Transpose", [f"{n}1"], [n], perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])]
    plain += [helper.make_node("MatMul", ["q", "k"], ["s0"]), helper.make_node("Mul", ["s0", "scale"], ["s1"])]
    inits = [("w", w), ("b", b), ("three", np.array([hid] * 3, np.int64)), ("bshd", np.array([1, s, h, d], np.int64)),
             ("scale", np.array(1 / np.sqrt(d), np_t)), ("bsh", np.array(three, np.int64))]
    inputs = [("x", t, three)] + ([("mask", TensorProto.INT32, [1, s])] if mask else [])
    if mask:
        plain += [helper.make_node("Cast", ["mask"], ["mf"], to=t), helper.make_node("Sub", ["one", "mf"], ["mi"]),
                  helper.make_node("Mul", ["mi", "mfv"], ["mb"]), helper.make_node("Unsqueeze", ["mb", "axes"], ["mb4"]),
                  helper.make_node("Add", ["s1", "mb4"], ["s2"])]
        inits += [("one", np.array(1, np_t)), ("mfv", np.array(-10000, np_t)), ("axes", np.array([1, 2], np.int64))]
    plain += [helper.make_node("Softmax", ["s2" if mask else "s1"], ["pr"]), helper.make_node("MatMul", ["pr", "v"], ["o0"]),
              helper.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]), helper.make_node("Reshape", ["o1", "bsh"], ["y"])]
    node = helper.make_node("Attention", ["x", "w", "b"] + (["mask"] if mask else []), ["y"], domain="com.microsoft",
                            num_heads=h)
    return (_model(plain, inputs, [("y", t, three)], inits, opset=18),
            _model([node], inputs, [("y", t, three)], [("w", w), ("b", b)], opset=18, ms=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rows = []
    for h, s, d in SHAPES:
        for dtype in TYPES:
            for name, data in forms(h, s, d, dtype).items():
                rep = compile(data, a.target, CompileOptions(build=False)).report
                kinds = [k["config"].get("schedule") for k in rep["kernels"]]
                rows.append({"heads": h, "sequence": s, "head_size": d, "dtype": dtype, "form": name, "kinds": kinds,
                             "launches": rep["launches_per_inference"], "predicted_us": rep["latency"]["predicted_us"],
                             "dram_bytes": rep["traffic"]["dram_bytes"]})
                r = rows[-1]
                print(f"{h:>3}x{s:<5}x{d:<4} {dtype:<8} {name:<48} {r['launches']:>2} launches {r['predicted_us']:>9.3f} us "
                      f"{r['dram_bytes']:>10} B  {','.join(kinds)}", flush=True)
    from bench.kernels import write_results
    out = write_results("attention_forms", "none (predicted from report.json)", {"target": a.target, "build": False},
                        rows, a.out)
    print(f"-> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
