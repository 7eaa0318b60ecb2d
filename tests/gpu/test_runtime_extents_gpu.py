"""On a GPU: outputs of run-time length (docs/adding-ops.md). bench/detection.py's detection head
(NonMaxSuppression over 2000 boxes and 20 classes, then the selected boxes gathered, scored and
concatenated) and NonZero of a mask, each against onnxruntime on the CPU, shapes included, with
its time per inference printed beside its prediction and, where torchvision is installed, beside
torchvision's batched_nms on the same GPU; torchvision's postprocess as exported (the batched_nms
head: a score-filtered list, an If, one NonMaxSuppression over every class, in both forms). What
only a GPU measures: the greedy kernel's block barriers per ranked box, the bit-matrix form's warp
steps (WARP_STEP_US), and whether the trimmed outputs come back right through CuPy. Scripted
loops that grow a list, their iteration count a list's length read on the device."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module, timed_us

cupy, pytestmark = gpu_module()


def _torch_us(fn, reps: int = 20) -> float:
    """Microseconds per call of a PyTorch CUDA function, by CUDA events after one warm-up call."""
    import torch
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / reps


def _target():
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    return dataclasses.replace(get_target("h100"), arch=device_arch())


def test_detection_head_on_gpu():
    import onnxruntime as ort
    from bench.detection import detection_head, detector_inputs
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    b, n, c = 1, 2000, 20
    data = detection_head(b, n, c)      # at most 100 a class, IoU 0.45, score above 0.25
    feeds = detector_inputs(b, n, c)
    boxes, scores = feeds["boxes"], feeds["scores"]
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    target = _target()
    art = compile(data, target, CompileOptions())
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    got = ex.run(feeds)["dets"]
    assert got.shape == want.shape and want.shape[0] > 0, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)
    us = timed_us(ex, feeds)
    line = (f"detection head {b}x{n} boxes, {c} classes: {want.shape[0]} kept, {us:.1f} us measured, "
            f"{art.report['latency']['predicted_us']:.1f} us predicted")
    try:
        import torch
        import torchvision
        tb, ts = torch.from_numpy(boxes[0]).cuda(), torch.from_numpy(scores[0]).cuda()

        def tv():   # per class, score above 0.25, IoU 0.45 (torchvision has no cap of 100 a class)
            cls = torch.arange(c, device="cuda").repeat_interleave(n)
            flat_s, flat_b = ts.reshape(-1), tb.repeat(c, 1)
            keep = flat_s > 0.25
            idx = torchvision.ops.batched_nms(flat_b[keep], flat_s[keep], cls[keep], 0.45)
            return idx
        line += f"; torchvision batched_nms {_torch_us(tv):.1f} us"
    except ImportError:
        line += "; torchvision not installed"
    print(line)


def test_batched_nms_head_on_gpu(monkeypatch):
    """bench/detection.py's batched_nms head at 2000 boxes x 20 classes (scores above 0.05 kept:
    most of the 40000, ranked from sorted runs of 1024), as the micro-model chooses (the bit-matrix
    form, capped at the 100 detections kept, its scan a batch of 8 chunks a round trip), with the
    eager scan in its place (a round trip a chunk that takes a box), with --disable nms_cap (every
    box selectable) and with --disable nms_bitmask (the greedy kernel), right against onnxruntime,
    each timed beside its prediction."""
    import onnxruntime as ort
    from bench.detection import batched_nms_head, detector_inputs
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    n, c = 2000, 20
    data = batched_nms_head(n, c)
    f = detector_inputs(1, n, c)
    feeds = {"boxes": f["boxes"][0], "scores": np.ascontiguousarray(f["scores"][0].T)}
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    from compiler.ops import nms_bitmask
    target = _target()
    for disable in ((), "eager scan", ("nms_cap",), ("nms_bitmask",)):
        with monkeypatch.context() as m:
            if disable == "eager scan":      # both bitmask ways then emit the eager scan
                m.setattr(nms_bitmask, "_scan_batched", nms_bitmask._scan_eager)
            art = compile(data, target, CompileOptions(disable=() if disable == "eager scan" else disable))
        ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
        got = ex.run(feeds)
        for name, w in zip(("det_boxes", "det_scores", "det_labels"), want):
            np.testing.assert_array_equal(got[name], w, err_msg=f"{name} {disable}")
        (tech,) = [t for t in art.report["techniques"] if t["name"] == "bitmask NMS"]
        print(f"batched_nms head {n}x{c} {disable or 'default'}: {want[0].shape[0]} kept, {timed_us(ex, feeds):.1f} us "
              f"measured, {art.report['latency']['predicted_us']:.1f} us predicted, {tech['effect']}")


@pytest.mark.parametrize("shape", [(8, 128), (64, 512), (1000, 1300)])
def test_nonzero_on_gpu(shape):
    """Masks of 1024 elements (the one-block scan: too short for the grid form), 32768 and 1.3
    million (a detector's anchors x classes), each in the form the micro-model takes
    (ops/indexing.py), timed beside its prediction: whether the one-block form's price (one SM's
    stream) and the grid form's hold."""
    import onnxruntime as ort
    from onnx import TensorProto as TP, helper
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    nodes = [helper.make_node("Greater", ["x", "t"], ["mask"]), helper.make_node("NonZero", ["mask"], ["nz"])]
    g = helper.make_graph(nodes, "nz", [helper.make_tensor_value_info("x", TP.FLOAT, list(shape))],
                          [helper.make_tensor_value_info("nz", TP.INT64, [2, "n"])],
                          [helper.make_tensor(name="t", data_type=TP.FLOAT, dims=[], vals=[1.5])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    data = m.SerializeToString()
    target = _target()
    art = compile(data, target, CompileOptions())
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    for _ in range(3):
        feeds = {"x": rng.standard_normal(shape).astype(np.float32)}
        want = sess.run(None, feeds)[0]
        got = ex.run(feeds)["nz"]
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    forms = sorted({k.entry.rsplit("_", 1)[0] for k in art.plan.kernels() if k.entry.startswith("nonzero")})
    print(f"NonZero of {shape} ({', '.join(forms)}): {want.shape[1]} found, {timed_us(ex, feeds):.1f} us measured, "
          f"{art.report['latency']['predicted_us']:.1f} us predicted")


def test_radix_topk_on_gpu(monkeypatch):
    """TopK over long rows (compiler/ops/topk_select.py): a sampler's top 50 of a 151936-word
    vocabulary at batch 1 and 16, and a detector's best 1000 of 8400 x 80 flattened scores, as the
    micro-model chooses, and the top 50 of 32768 also with --disable radix_topk (the ranks: 10^9
    comparisons, where the vocabulary's would take seconds), and RetinaNet's first level (the best
    1000 of 1310400) with two merges (the micro-model's choice) and with one, right against the
    reference (ties to the lower index), each timed beside
    its prediction and, where PyTorch is installed, beside torch.topk on the same GPU. What only a
    GPU measures: the select's passes (each a DRAM round trip a step: `dependent_loads`) and the
    segments' candidates merged again."""
    from compiler.ops import topk_select
    from compiler import compile
    from compiler.ops.reduce import _ref_topk
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from tests.ops.test_topk_select import _Node, topk_model
    target = _target()
    rng = np.random.default_rng(5)
    for shape, k, disables in (((1, 32768), 50, ((), ("radix_topk",))), ((1, 151936), 50, ((),)),
                               ((16, 151936), 50, ((),)), ((1, 672000), 1000, ((),)),
                               ((1, 1310400), 1000, ((), "one merge"))):
        x = np.round(rng.standard_normal(shape), 2).astype(np.float32)    # ties
        want = _ref_topk(_Node(axis=-1, largest=1), [x, np.array([k])], 17)
        for disable in disables:
            with monkeypatch.context() as m:
                if disable == "one merge":      # the two-merge way not offered
                    m.setattr(topk_select, "two_merges", lambda n, k: None)
                art = compile(topk_model(shape, k, np.float32, 1), target,
                              CompileOptions(disable=() if disable == "one merge" else disable))
            ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
            got = ex.run({"x": x})
            np.testing.assert_array_equal(got["i"], want[1], err_msg=f"{shape} {disable}")
            np.testing.assert_array_equal(got["v"], want[0])
            (tech,) = [t for t in art.report["techniques"] if t["name"] == "radix TopK"]
            line = (f"TopK {k} of {shape} {disable or 'default'}: {timed_us(ex, {'x': x}):.1f} us measured, "
                    f"{art.report['latency']['predicted_us']:.1f} us predicted, {tech['effect']['priced']}")
            if not disable:
                try:
                    import torch
                    tx = torch.from_numpy(x).cuda()
                    line += f"; torch.topk {_torch_us(lambda: torch.topk(tx, k)):.1f} us"
                except ImportError:
                    line += "; PyTorch not installed"
            print(line)


def test_loops_appending_to_a_list_on_gpu():
    """A scripted loop that grows a list (frontend/loop_appends.py) over the rows NonZero selects:
    the Loop's iteration count is the list's length, known only on the device, its scan output
    trimmed to it; `torch.cat` appends (a Loop that also stops at its condition) and
    `list.append` (a sequence joined and counted after the Loop), as the persistent kernel runs
    them (docs/grinder.md) and with --disable grinder (the host's loop), each against onnxruntime."""
    import onnxruntime as ort
    from compiler import compile
    from compiler.pipeline import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from onnx import TensorProto, helper
    from tests.frontend.test_loop_appends import _appending_to_a_sequence, _box_feeds, _list_feeds, _selected_rows, _vi
    joined = _appending_to_a_sequence(
        [helper.make_node("ConcatFromSequence", ["seq"], ["joined"], axis=0),
         helper.make_node("SequenceLength", ["seq"], ["length"])],
        [_vi("joined", [None, 3]), _vi("length", [], TensorProto.INT64)])
    target = _target()
    for name, data, feeds in (("cat", _selected_rows(), _box_feeds(4)),
                              ("cat until", _selected_rows(condition=True), _box_feeds(4)),
                              ("append", joined, _list_feeds(4)[1:])):
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        for disable in ((), ("grinder",)):
            art = compile(data, target, CompileOptions(disable=disable))
            ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=target.arch))
            for feed in feeds:
                want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))
                got = ex.run(feed)
                for k, w in want.items():
                    assert got[k].shape == w.shape, (name, disable, k, got[k].shape, w.shape)
                    np.testing.assert_allclose(got[k], w, rtol=1e-6, atol=1e-6, err_msg=f"{name} {disable} {k}")
            print(f"appending loop {name} {disable or 'default'}: {timed_us(ex, feeds[-1]):.1f} us measured, "
                  f"{art.report['latency']['predicted_us']:.1f} us predicted")
