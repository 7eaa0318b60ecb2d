"""Outputs of run-time length, predicted (CPU, no GPU): a detection head as exporters write it
(NonMaxSuppression, then the selected boxes gathered, their scores and classes, concatenated into
[k, 6] detections of run-time length k) at sizes from a small detector's to YOLO's (8400 boxes, 80
classes), compiled: predicted microseconds in all and per kernel (the selection: candidates
gathered, sorted and walked greedily; placing each class's selection; the gathers), launches, DRAM
bytes and compile seconds (the kernel cache may be warm), from report.json. The selection is a
sequence of steps per batch and class (the sort's passes, then each box tested against the boxes
taken before it), so its prediction counts steps, not bytes, and assumes the worst case: every box
a candidate.

    .venv/bin/python bench/detection.py [--sizes 1x2000x20,1x8400x80] [--max-out 100] [--out DIR]

Writes bench/results/detection-<UTC time>.json (suite `detection`) and prints a table."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from onnx import TensorProto as TP, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# the kernels by name prefix (compiler/ops/detection.py)
STEPS = {"select": ("nms_select",), "place": ("nms_place",)}


def head_nodes(max_out: int, iou: float, score: float) -> tuple[list, dict[str, np.ndarray]]:
    """(nodes, initializers) of the head: boxes [1, n, 4] and scores [1, c, n] -> dets [k, 6]
    (x1, y1, x2, y2, score, class)."""
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "m", "iou", "s"], ["sel"]),
        helper.make_node("Gather", ["sel", "two"], ["box_idx"], axis=1),
        helper.make_node("Gather", ["sel", "one"], ["cls_idx"], axis=1),
        helper.make_node("Squeeze", ["boxes", "zero"], ["flat"]),
        helper.make_node("Gather", ["flat", "box_idx"], ["picked"], axis=0),
        helper.make_node("GatherND", ["scores", "sel"], ["ps"]),
        helper.make_node("Unsqueeze", ["ps", "one1"], ["ps1"]),
        helper.make_node("Cast", ["cls_idx"], ["cf"], to=TP.FLOAT),
        helper.make_node("Unsqueeze", ["cf", "one1"], ["cf1"]),
        helper.make_node("Concat", ["picked", "ps1", "cf1"], ["dets"], axis=1),
    ]
    inits = {"m": np.array([max_out], np.int64), "iou": np.array([iou], np.float32),
             "s": np.array([score], np.float32), "two": np.array(2, np.int64), "one": np.array(1, np.int64),
             "zero": np.array([0], np.int64), "one1": np.array([1], np.int64)}
    return nodes, inits


def detection_head(b: int, n: int, c: int, max_out: int = 100, iou: float = 0.45, score: float = 0.25) -> bytes:
    """boxes [b, n, 4] and scores [b, c, n] -> dets [k, 6] (x1, y1, x2, y2, score, class)."""
    if b != 1:
        raise ValueError("the head squeezes the batch axis: batch 1 only")
    nodes, inits = head_nodes(max_out, iou, score)
    g = helper.make_graph(nodes, "detection_head", [helper.make_tensor_value_info("boxes", TP.FLOAT, [b, n, 4]),
                                                    helper.make_tensor_value_info("scores", TP.FLOAT, [b, c, n])],
                          [helper.make_tensor_value_info("dets", TP.FLOAT, ["k", 6])],
                          [numpy_helper.from_array(a, k) for k, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m.SerializeToString()


def detector_inputs(b: int, n: int, c: int, seed: int = 0) -> dict:
    """Boxes scattered over a 640-pixel image, scores mostly low (as a detector's after sigmoid)."""
    rng = np.random.default_rng(seed)
    xy = rng.random((b, n, 2)).astype(np.float32) * 640
    boxes = np.concatenate([xy, xy + rng.random((b, n, 2)).astype(np.float32) * 120], -1)
    return {"boxes": boxes, "scores": (rng.random((b, c, n)) ** 4).astype(np.float32)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1x2000x20,1x8400x80", help="batch x boxes x classes, comma-separated")
    ap.add_argument("--max-out", type=int, default=100)
    ap.add_argument("--target", default="h100")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rows = []
    for size in a.sizes.split(","):
        b, n, c = (int(x) for x in size.split("x"))
        t0 = time.perf_counter()
        art = compile(detection_head(b, n, c, a.max_out), a.target, CompileOptions(build=False))
        compile_s = time.perf_counter() - t0
        rep = art.report
        kern = rep["kernels"]

        def us_of(prefixes):
            return round(sum(x["predicted_us"] or 0.0 for x in kern if any(x["name"].startswith(p) for p in prefixes)), 3)
        steps = {k: us_of(p) for k, p in STEPS.items()}
        steps["rest"] = round(sum(x["predicted_us"] or 0.0 for x in kern) - sum(steps.values()), 3)
        rows.append({"batch": b, "boxes": n, "classes": c, "max_out": a.max_out,
                     "bound": dict(art.plan.types)["dets"].shape[0],
                     "predicted_us": rep["latency"]["predicted_us"], "steps_us": steps,
                     "launches": rep["launches_per_inference"], "dram_bytes": rep["traffic"]["dram_bytes"],
                     "compile_s": round(compile_s, 2)})
        r = rows[-1]
        print(f"{size:<12} bound {r['bound']:>6} rows  {r['predicted_us']:>10.1f} us  "
              + "  ".join(f"{k} {v:.1f}" for k, v in steps.items())
              + f"  {r['launches']} launches  {r['dram_bytes']} B  compile {compile_s:.1f} s", flush=True)
    from bench.kernels import write_results
    out = write_results("detection", "none (predicted from report.json)",
                        {"target": a.target, "max_out": a.max_out, "build": False}, rows, a.out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
