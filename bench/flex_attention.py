"""FlexAttention, predicted (CPU, no GPU): ai.onnx.preview's FlexAttention, which the frontend
expands into its ONNX body (compiler/frontend/expand.py), against the standard Attention op
computing the same, at a few shapes in fp16: plain, with a causal score_mod (an fp32 mask of -inf
above the diagonal added to the scores, as torch's flex_attention masks are written), and with a
soft-cap score_mod (tanh(s / cap) * cap). Each row: the kernels the compiled plan launches,
predicted microseconds, launches and DRAM bytes, from report.json. Where fusion joins the body back
into one attention kernel, FlexAttention costs what the Attention op does.

    .venv/bin/python bench/flex_attention.py [--shapes 1x8x512x64,1x16x2048x64] [--out DIR]

Writes bench/results/flex_attention-<UTC time>.json (suite `flex_attention`) and prints a table."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto as TP, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _vi(name, shape, dtype=TP.FLOAT16):
    return helper.make_tensor_value_info(name, dtype, shape)


def _modifier(name: str, s: int) -> "helper.GraphProto | None":
    x, y = helper.make_tensor_value_info("x", TP.FLOAT, None), helper.make_tensor_value_info("y", TP.FLOAT, None)
    if name == "causal":
        mask = np.triu(np.full((s, s), -np.inf, np.float32), 1)
        return helper.make_graph([helper.make_node("Add", ["x", "mask"], ["y"])], "causal", [x], [y],
                                 [numpy_helper.from_array(mask, "mask")])
    if name == "soft_cap":
        cap = numpy_helper.from_array(np.array(20.0, np.float32), "cap")
        return helper.make_graph([helper.make_node("Div", ["x", "cap"], ["d"]), helper.make_node("Tanh", ["d"], ["t"]),
                                  helper.make_node("Mul", ["t", "cap"], ["y"])], "soft_cap", [x], [y], [cap])
    return None


def flex_attention(b: int, h: int, s: int, d: int, score_mod: str = "plain") -> bytes:
    mod = _modifier(score_mod, s)
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview",
                            **({"score_mod": mod} if mod is not None else {}))
    g = helper.make_graph([node], "flex", [_vi(n, [b, h, s, d]) for n in "QKV"], [_vi("Y", [b, h, s, d])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 26), helper.make_opsetid("ai.onnx.preview", 1)])
    m.ir_version = 11
    return m.SerializeToString()


def attention_op(b: int, h: int, s: int, d: int, causal: bool) -> bytes:
    node = helper.make_node("Attention", ["Q", "K", "V"], ["Y"], **({"is_causal": 1} if causal else {}))
    g = helper.make_graph([node], "attention", [_vi(n, [b, h, s, d]) for n in "QKV"], [_vi("Y", [b, h, s, d])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 10
    return m.SerializeToString()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="1x8x512x64,1x16x2048x64", help="batch x heads x sequence x head size")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rows = []
    for shape in a.shapes.split(","):
        b, h, s, d = (int(x) for x in shape.split("x"))
        cases = [("FlexAttention", mod, flex_attention(b, h, s, d, mod)) for mod in ("plain", "causal", "soft_cap")]
        cases += [("Attention", "plain", attention_op(b, h, s, d, False)),
                  ("Attention", "causal", attention_op(b, h, s, d, True))]
        for op, mod, data in cases:
            rep = compile(data, a.target, CompileOptions(build=False)).report
            rows.append({"shape": shape, "op": op, "score_mod": mod,
                         "kernels": [k["name"].rsplit("_", 1)[0] for k in rep["kernels"]],
                         "predicted_us": rep["latency"]["predicted_us"], "launches": rep["launches_per_inference"],
                         "dram_bytes": rep["traffic"]["dram_bytes"]})
            r = rows[-1]
            print(f"{shape:<14} {op:<14} {mod:<9} {r['predicted_us']:>9.3f} us  {r['launches']} launches  "
                  f"{r['dram_bytes']:>10} B  {', '.join(r['kernels'])}", flush=True)
    from bench.kernels import write_results
    out = write_results("flex_attention", "none (predicted from report.json)",
                        {"target": a.target, "dtype": "float16", "build": False}, rows, a.out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
