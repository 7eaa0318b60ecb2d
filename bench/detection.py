"""Outputs of run-time length, predicted (CPU, no GPU): two detection heads as exporters write
them, at sizes from a small detector's to YOLO's (8400 boxes, 80 classes), compiled:
- `nms`: NonMaxSuppression per class, then the selected boxes gathered, their scores and classes,
  concatenated into [k, 6] detections of run-time length k;
- `batched_nms`: torchvision's postprocess (boxes scored above 0.05 kept, a run-time list, then
  `batched_nms` on it: an If on its emptiness, one NonMaxSuppression over every class's boxes
  offset apart), as torch.onnx's TorchScript exporter writes it;
- `retinanet`: torchvision's RetinaNet postprocess, as exported, over three levels of n, n/4 and
  n/16 anchors: per level the scores above 0.05, the best min(1000, their number) (TopK, which
  ranks by counting: its work grows with the square of the list's bound), the levels joined along
  the run-time axis, then `batched_nms`.

For each: predicted microseconds in all and per kernel (the selection: candidates
gathered, sorted and walked greedily; placing each class's selection; the gathers), launches, DRAM
bytes and compile seconds (the kernel cache may be warm), from report.json. The selection is the
greedy kernel (`select`: a sequence of steps per batch and class, the sort's passes, then each box
tested against the boxes taken before it) or, where the micro-model prices it lower, the
bit-matrix form (`bitmask`: ranks and overlap bits across the grid, then the decisions 64 boxes a
step: compiler/ops/nms_bitmask.py); `--disable nms_bitmask` keeps the greedy kernel. Its
prediction counts steps, not bytes, and assumes the worst case: every box a candidate (for
`batched_nms`, every box of every class in one selection).

    .venv/bin/python bench/detection.py [--sizes 1x2000x20,1x8400x80] [--heads nms,batched_nms,retinanet]
                                        [--disable nms_bitmask] [--max-out 100] [--out DIR]

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
STEPS = {"select": ("nms_select",), "bitmask": ("nms_candidates", "nms_rank", "nms_mask", "nms_scan"),
         "place": ("nms_place",)}


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


def _i64(*v) -> np.ndarray:
    return np.array(v, np.int64)


def _batched_nms_tail(kb: str, ks: str, kl: str, iou: float, max_det: int) -> tuple[list, dict]:
    """(nodes, initializers) of torchvision's `batched_nms(kb, ks, kl, iou)[:max_det]` as its
    TorchScript exporter writes it, on lists of run-time length: an If on their emptiness (ReduceProd
    of the boxes' Shape equal to 0) whose else branch offsets each class's boxes by the largest
    coordinate (ReduceMax over the list) so one NonMaxSuppression separates the classes, then the
    first `max_det` kept gathered: det_boxes, det_scores, det_labels."""
    then_g = helper.make_graph([helper.make_node("Constant", [], ["none"], value=numpy_helper.from_array(
        np.zeros(0, np.int64)))], "then", [], [helper.make_tensor_value_info("none", TP.INT64, [0])])
    else_nodes = [
        helper.make_node("ReduceMax", [kb], ["max_coordinate"], keepdims=0),
        helper.make_node("Cast", [kl], ["kl_f"], to=TP.FLOAT),
        helper.make_node("Add", ["max_coordinate", "one_f"], ["span"]),
        helper.make_node("Mul", ["kl_f", "span"], ["offsets"]),
        helper.make_node("Slice", ["offsets", "zero", "end", "zero"], ["offsets_all"]),
        helper.make_node("Unsqueeze", ["offsets_all", "one"], ["offsets_col"]),
        helper.make_node("Add", [kb, "offsets_col"], ["boxes_for_nms"]),
        helper.make_node("Unsqueeze", ["boxes_for_nms", "zero"], ["nms_boxes"]),
        helper.make_node("Unsqueeze", [ks, "zero01"], ["nms_scores"]),
        helper.make_node("NonMaxSuppression", ["nms_boxes", "nms_scores", "end", "iou"], ["selected"]),
        helper.make_node("Gather", ["selected", "two"], ["picked"], axis=1),
        helper.make_node("Squeeze", ["picked", "one"], ["keep_sorted"])]
    else_g = helper.make_graph(else_nodes, "else", [], [helper.make_tensor_value_info("keep_sorted", TP.INT64, ["m"])])
    nodes = [
        helper.make_node("Shape", [kb], ["kb_shape"]),
        helper.make_node("ReduceProd", ["kb_shape"], ["kb_numel"], keepdims=0),
        helper.make_node("Equal", ["kb_numel", "zero_s"], ["is_empty"]),
        helper.make_node("If", ["is_empty"], ["nms_keep"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Slice", ["nms_keep", "zero", "max_det", "zero"], ["top"]),
        helper.make_node("Gather", [kb, "top"], ["det_boxes"], axis=0),
        helper.make_node("Gather", [ks, "top"], ["det_scores"], axis=0),
        helper.make_node("Gather", [kl, "top"], ["det_labels"], axis=0)]
    inits = {"one": _i64(1), "zero": _i64(0), "zero01": _i64(0, 1), "two": _i64(2), "zero_s": np.array(0, np.int64),
             "end": _i64(2 ** 63 - 1), "max_det": _i64(max_det), "iou": np.array([iou], np.float32),
             "one_f": np.array(1.0, np.float32)}
    return nodes, inits


def _head_model(name: str, nodes: list, inits: dict, inputs: list) -> bytes:
    g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TP.FLOAT, s) for n, s in inputs],
                          [helper.make_tensor_value_info("det_boxes", TP.FLOAT, ["k", 4]),
                           helper.make_tensor_value_info("det_scores", TP.FLOAT, ["k"]),
                           helper.make_tensor_value_info("det_labels", TP.INT64, ["k"])],
                          [numpy_helper.from_array(a, k) for k, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m.SerializeToString()


def batched_nms_head(n: int, c: int, score: float = 0.05, iou: float = 0.5, max_det: int = 100) -> bytes:
    """boxes [n, 4] and scores [n, c] -> boxes [k, 4], scores [k], labels [k]: torchvision's
    detector postprocess (every box a candidate for every class, those scored above `score` kept,
    then `batched_nms`, at most `max_det` kept) as torch.onnx's TorchScript exporter writes it:
    the kept list is of run-time length, then _batched_nms_tail."""
    nodes = [
        helper.make_node("Unsqueeze", ["boxes", "one"], ["boxes3"]),
        helper.make_node("Expand", ["boxes3", "ncx4"], ["boxes_rep"]),
        helper.make_node("Reshape", ["boxes_rep", "rows4"], ["all_boxes"]),
        helper.make_node("Expand", ["classes", "nc"], ["labels_rep"]),
        helper.make_node("Reshape", ["labels_rep", "flat"], ["all_labels"]),
        helper.make_node("Reshape", ["scores", "flat"], ["all_scores"]),
        helper.make_node("Greater", ["all_scores", "score"], ["above"]),
        helper.make_node("NonZero", ["above"], ["nz"]),
        helper.make_node("Transpose", ["nz"], ["nz_rows"], perm=[1, 0]),
        helper.make_node("Squeeze", ["nz_rows", "one"], ["keep"]),
        helper.make_node("Gather", ["all_boxes", "keep"], ["kb"], axis=0),
        helper.make_node("Gather", ["all_scores", "keep"], ["ks"], axis=0),
        helper.make_node("Gather", ["all_labels", "keep"], ["kl"], axis=0)]
    tail, inits = _batched_nms_tail("kb", "ks", "kl", iou, max_det)
    inits.update({"ncx4": _i64(n, c, 4), "rows4": _i64(-1, 4), "nc": _i64(n, c), "flat": _i64(-1),
                  "classes": np.arange(c, dtype=np.int64).reshape(1, c), "score": np.array(score, np.float32)})
    return _head_model("batched_nms_head", nodes + tail, inits, [("boxes", [n, 4]), ("scores", [n, c])])


def retinanet_head(anchors: tuple[int, ...], c: int, topk: int = 1000, score: float = 0.05, iou: float = 0.5,
                   max_det: int = 100) -> bytes:
    """Per level l: logits_l [anchors_l * c] and boxes_l [anchors_l, 4] -> boxes [k, 4], scores [k],
    labels [k]: torchvision's RetinaNet postprocess as its TorchScript exporter writes it. Per level
    the sigmoid scores above `score` (a list of run-time length), the best min(topk, their number)
    of them (TopK with K from the list's Shape), their anchors and classes (the flat index divided
    and taken modulo c), their boxes gathered; the levels joined (Concat along the run-time axis),
    then _batched_nms_tail."""
    nodes, parts = [], ([], [], [])
    for lv, _ in enumerate(anchors):
        def v(name: str) -> str:
            return f"{name}{lv}"
        nodes += [
            helper.make_node("Sigmoid", [v("logits")], [v("prob")]),
            helper.make_node("Greater", [v("prob"), "score"], [v("above")]),
            helper.make_node("NonZero", [v("above")], [v("nz")]),
            helper.make_node("Transpose", [v("nz")], [v("nz_rows")], perm=[1, 0]),
            helper.make_node("GatherND", [v("prob"), v("nz_rows")], [v("kept")]),
            helper.make_node("Squeeze", [v("nz_rows"), "one"], [v("where")]),
            helper.make_node("Shape", [v("where")], [v("where_shape")]),
            helper.make_node("Gather", [v("where_shape"), "zero_s"], [v("count")], axis=0),
            helper.make_node("Unsqueeze", [v("count"), "zero"], [v("count1")]),
            helper.make_node("Concat", ["topk", v("count1")], [v("both")], axis=0),
            helper.make_node("ReduceMin", [v("both")], [v("k0")], keepdims=0),
            helper.make_node("Reshape", [v("k0"), "one"], [v("k")]),
            helper.make_node("TopK", [v("kept"), v("k")], [v("top_scores"), v("top_at")]),
            helper.make_node("Gather", [v("where"), v("top_at")], [v("flat_index")], axis=0),
            helper.make_node("Div", [v("flat_index"), "classes"], [v("anchor")]),
            helper.make_node("Mod", [v("flat_index"), "classes"], [v("label")]),
            helper.make_node("Gather", [v("boxes"), v("anchor")], [v("top_boxes")], axis=0)]
        for part, name in zip(parts, ("top_boxes", "top_scores", "label")):
            part.append(v(name))
    nodes += [helper.make_node("Concat", parts[0], ["kb"], axis=0),
              helper.make_node("Concat", parts[1], ["ks"], axis=0),
              helper.make_node("Concat", parts[2], ["kl"], axis=0)]
    tail, inits = _batched_nms_tail("kb", "ks", "kl", iou, max_det)
    inits.update({"topk": _i64(topk), "classes": np.array(c, np.int64), "score": np.array(score, np.float32)})
    inputs = [io for lv, n in enumerate(anchors) for io in ((f"logits{lv}", [n * c]), (f"boxes{lv}", [n, 4]))]
    return _head_model("retinanet_head", nodes + tail, inits, inputs)


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
    ap.add_argument("--heads", default="nms,batched_nms,retinanet",
                    help="nms: the ONNX op's head (per class); batched_nms: torchvision's postprocess as exported; "
                    "retinanet: torchvision's RetinaNet postprocess (three levels of n, n/4, n/16 anchors)")
    ap.add_argument("--target", default="h100")
    ap.add_argument("--disable", default="", help="techniques off, comma-separated (nms_bitmask: the greedy kernel)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"))
    a = ap.parse_args()
    from compiler import compile
    from compiler.pipeline import CompileOptions
    rows = []
    for head, size in [(h, sz) for h in a.heads.split(",") for sz in a.sizes.split(",")]:
        b, n, c = (int(x) for x in size.split("x"))
        model = (detection_head(b, n, c, a.max_out) if head == "nms" else
                 batched_nms_head(n, c, max_det=a.max_out) if head == "batched_nms" else
                 retinanet_head((n, n // 4, n // 16), c, max_det=a.max_out))
        t0 = time.perf_counter()
        disable = tuple(x for x in a.disable.split(",") if x)
        art = compile(model, a.target, CompileOptions(build=False, disable=disable))
        compile_s = time.perf_counter() - t0
        rep = art.report
        kern = rep["kernels"]

        def us_of(prefixes):
            return round(sum(x["predicted_us"] or 0.0 for x in kern if any(x["name"].startswith(p) for p in prefixes)), 3)
        steps = {k: us_of(p) for k, p in STEPS.items()}
        steps["rest"] = round(sum(x["predicted_us"] or 0.0 for x in kern) - sum(steps.values()), 3)
        rows.append({"head": head, "batch": b, "boxes": n, "classes": c, "max_out": a.max_out,
                     "bound": dict(art.plan.types)[art.plan.outputs[0]].shape[0],
                     "predicted_us": rep["latency"]["predicted_us"], "steps_us": steps,
                     "launches": rep["launches_per_inference"], "dram_bytes": rep["traffic"]["dram_bytes"],
                     "compile_s": round(compile_s, 2)})
        r = rows[-1]
        print(f"{head:<12} {size:<12} bound {r['bound']:>6} rows  {r['predicted_us']:>10.1f} us  "
              + "  ".join(f"{k} {v:.1f}" for k, v in steps.items())
              + f"  {r['launches']} launches  {r['dram_bytes']} B  compile {compile_s:.1f} s", flush=True)
    from bench.kernels import write_results
    out = write_results("detection", "none (predicted from report.json)",
                        {"target": a.target, "max_out": a.max_out, "build": False, "disable": a.disable}, rows, a.out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
