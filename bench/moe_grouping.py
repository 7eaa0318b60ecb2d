"""Grouped experts, predicted (CPU, no GPU): one com.microsoft MoE layer (SwiGLU with gpt-oss's
attributes, gpt-oss-20b's sizes by default) over a sweep of token counts, compiled with the pairs
sorted by expert into groups (compiler/ops/moe_groups.py) and with `--disable grouped_experts`
(each token-expert pair its own matrix-vector product): the way the compiler chose (pairs, or
grouped by the rank or the scan sort) with each way's pricing, predicted microseconds, launches,
DRAM bytes and the time of the expert FCs and of the sort, from report.json.
The crossing of the two columns is where grouping starts to pay (MIN_MEAN_ROWS).

    .venv/bin/python bench/moe_grouping.py [--hidden 2880] [--inter 2880] [--experts 32] [--k 4]
        [--tokens 1,16,32,64,128,512,2048] [--precision fp16] [--out DIR]

Writes bench/results/moe_grouping-<UTC time>.json (suite `moe_grouping`) and prints a table."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# gpt-oss's MoE attributes, as onnxruntime-genai's builder writes them
GPT_OSS = dict(activation_type="swiglu", swiglu_fusion=1, activation_alpha=1.702, activation_beta=1.0,
               swiglu_limit=7.0, normalize_routing_weights=1)
# the sorts' kernels (compiler/ops/moe_groups.py: the rank sort's and the scan sort's)
SORT_KERNELS = ("expert_count", "expert_rank", "expert_member", "expert_within_chunk", "expert_chunks_before",
                "expert_group_start", "expert_slot", "expert_of_group")


def moe_layer(tokens: int, hidden: int, inter: int, experts: int, k: int, weights: dict) -> bytes:
    f16 = TensorProto.FLOAT16
    vi = helper.make_tensor_value_info
    node = helper.make_node("MoE", ["x", "r", "w1", "b1", "w2", "b2"], ["y"], domain="com.microsoft", k=k, **GPT_OSS)
    g = helper.make_graph([node], "moe", [vi("x", f16, [tokens, hidden]), vi("r", f16, [tokens, experts])],
                          [vi("y", f16, [tokens, hidden])],
                          [numpy_helper.from_array(v, name) for name, v in weights.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m.SerializeToString()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hidden", type=int, default=2880)
    ap.add_argument("--inter", type=int, default=2880)
    ap.add_argument("--experts", type=int, default=32)
    ap.add_argument("--k", type=int, default=4)
    ap.add_argument("--tokens", default="1,16,32,64,128,512,2048")
    ap.add_argument("--precision", default="fp16")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from compiler import compile
    from compiler.ops.moe_groups import group_rows
    from compiler.pipeline import CompileOptions
    rng = np.random.default_rng(0)
    H, I, E = a.hidden, a.inter, a.experts

    def w(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float16)
    weights = {"w1": w(E, 2 * I, H), "b1": w(E, 2 * I), "w2": w(E, H, I), "b2": w(E, H)}
    rows = []
    for t in (int(x) for x in a.tokens.split(",")):
        data = moe_layer(t, H, I, E, a.k, weights)
        for layout, disable in (("chosen", ()), ("pairs", ("grouped_experts",))):
            t0 = time.perf_counter()
            rep = compile(data, a.target, CompileOptions(build=False, precision=a.precision, disable=disable)).report
            compile_s = time.perf_counter() - t0
            kern = rep["kernels"]

            def us_of(*prefixes):
                return round(sum(x["config"].get("predicted_us") or 0.0 for x in kern
                                 if any(p in x["name"] for p in prefixes)), 3)
            grouped = any("expert_slot_token" in x["name"] for x in kern)
            fcs = {x["name"].rsplit("_", 1)[0]: x["config"].get("tiles") for x in kern if "expert_fc" in x["name"]}
            (tech,) = [x for x in rep["techniques"] if x["name"] == "grouped experts"]
            priced = tech["effect"].get("priced") or [{}]
            rows.append({"tokens": t, "layout": layout, "grouped": grouped, "way": priced[0].get("chosen"),
                         "ways_us": priced[0].get("predicted_us"),
                         "group_rows": group_rows(t, a.k, E) if grouped else None,
                         "predicted_us": rep["latency"]["predicted_us"], "launches": rep["launches_per_inference"],
                         "dram_bytes": rep["traffic"]["dram_bytes"], "fc_us": us_of("expert_fc"),
                         "sort_us": us_of(*SORT_KERNELS, "colaunch"), "fc_tiles": fcs,
                         "compile_s": round(compile_s, 2)})
            r = rows[-1]
            print(f"tokens={t:<5} {layout:<6} {str(r['way'] or 'unpriced'):<20} {r['predicted_us']:>10.3f} us  "
                  f"fc {r['fc_us']:>10.3f} us  sort+co-launched {r['sort_us']:>8.3f} us  "
                  f"{r['launches']:>3} launches  {r['dram_bytes']:>11} B  compile {compile_s:.1f} s", flush=True)
    from bench.kernels import write_results
    out = write_results("moe_grouping", "none (predicted from report.json)",
                        {"target": a.target, "hidden": H, "inter": I, "experts": E, "k": a.k,
                         "precision": a.precision, "build": False}, rows, a.out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
