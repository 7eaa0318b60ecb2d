"""Ops whose output extent is known only at run time (NonMaxSuppression, NonZero on a run-time
input): sized to their bound, trimmed on return, and followed through the ops that read them row
by row (compiler/passes/bounded_rows.py); against onnxruntime on the host harness in both thread
orders, and the artifact round trip. What cannot be computed from such a value is refused at
compile time with the node named."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.artifact import load_artifact
from compiler.errors import ShapeError
from compiler.frontend.onnx_import import import_model
from compiler.ir.dataflow import all_steps
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(23)


def model(nodes, inputs, outputs, inits=(), opset=17) -> bytes:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                          [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9
    return m.SerializeToString()


def check(data: bytes, feeds: list[dict], rtol: float = 0.0, disable: tuple[str, ...] = ()):
    """Every output of the compiled model equal to onnxruntime's (within `rtol` where a float sum's
    order differs), shapes included, for each feed, in both thread orders; returns the artifact."""
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    art = compile(data, "h100", CompileOptions(build=False, disable=disable))
    for mode in ("default", "shuffle"):
        ex = Executor(art.plan, make_backend("host", mode=mode))
        for feed in feeds:
            want = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feed)))
            got = ex.run(feed)
            for name, w in want.items():
                assert got[name].shape == w.shape, (name, mode, got[name].shape, w.shape)
                np.testing.assert_allclose(got[name], w, rtol=rtol, atol=0, err_msg=f"{name} ({mode})")
    return art


def boxes_and_scores(b: int, n: int, c: int, spread: float = 10.0, size: float = 8.0, seed: int = 0):
    rng = np.random.default_rng(seed)
    xy = rng.random((b, n, 2)).astype(np.float32) * spread
    wh = rng.random((b, n, 2)).astype(np.float32) * size
    boxes = np.concatenate([xy, xy + wh], -1)
    # ties: some scores repeated, so the order among equal scores (lower index first) matters
    scores = np.round(rng.random((b, c, n)), 2).astype(np.float32)
    return boxes, scores


@pytest.mark.parametrize("center", [0, 1])
@pytest.mark.parametrize("thresholds", ["constant", "run-time", "absent"])
@pytest.mark.parametrize("n,form", [(40, "greedy"), (150, "greedy"), (150, "bitmask")])
def test_nms_against_onnxruntime(center, thresholds, n, form):
    """Two batches, three classes, 40 or 150 boxes; thresholds as initializers, as graph inputs
    read by the kernels, or left out (no score filter, IoU 0: any overlap suppresses); the greedy
    kernel (--disable nms_bitmask) and the bit-matrix form (ops/nms_bitmask.py: 150 boxes are
    three chunks of 64, and the micro-model takes it there)."""
    b, c = 2, 3
    ins = [("boxes", TP.FLOAT, [b, n, 4]), ("scores", TP.FLOAT, [b, c, n])]
    inits, names = [], ["boxes", "scores"]
    cap = 6 if n < 64 else 70       # a class's most: mid-chunk of the bit-matrix form's 64
    values = {"max_out": np.array([cap], np.int64), "iou": np.array([0.3], np.float32),
              "score_min": np.array([0.25], np.float32)}
    if thresholds == "constant":
        inits = list(values.items())
        names += list(values)
    elif thresholds == "run-time":
        ins += [("max_out", TP.INT64, [1]), ("iou", TP.FLOAT, [1]), ("score_min", TP.FLOAT, [1])]
        names += list(values)
    else:
        inits = [("max_out", values["max_out"])]
        names += ["max_out"]
    data = model([helper.make_node("NonMaxSuppression", names, ["sel"], center_point_box=center)],
                 ins, [("sel", TP.INT64, ["k", 3])], inits)
    feeds = []
    for seed in range(3):
        boxes, scores = boxes_and_scores(b, n, c, seed=seed)
        if center:   # [x_center, y_center, width, height]
            boxes = np.concatenate([boxes[..., :2], boxes[..., 2:] - boxes[..., :2]], -1)
        feed = {"boxes": boxes, "scores": scores}
        if thresholds == "run-time":
            feed.update(values)
            if seed == 2:
                feed.update(max_out=np.array([40], np.int64), iou=np.array([0.7], np.float32))
        feeds.append(feed)
    art = check(data, feeds, disable=("nms_bitmask",) if form == "greedy" else ())
    assert art.plan.output_lengths == (("sel", "NonMaxSuppression_0#count", 0),)
    assert dict(art.plan.types)["sel"].shape == (b * c * (n if thresholds == "run-time" else cap), 3)
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "bitmask NMS"]
    assert tech["effect"]["bitmask"] == (form == "bitmask"), tech


def test_nms_selects_fewer_than_the_bound_and_none():
    """A high score threshold leaves some classes empty; one above every score selects nothing."""
    b, n, c = 1, 30, 4
    data = model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "m", "iou", "s"], ["sel"])],
                 [("boxes", TP.FLOAT, [b, n, 4]), ("scores", TP.FLOAT, [b, c, n]), ("s", TP.FLOAT, [1])],
                 [("sel", TP.INT64, ["k", 3])], [("m", np.array([30], np.int64)), ("iou", np.array([0.5], np.float32))])
    boxes, scores = boxes_and_scores(b, n, c, seed=7)
    feeds = [{"boxes": boxes, "scores": scores, "s": np.array([s], np.float32)} for s in (0.9, 2.0)]
    check(data, feeds)
    got = Executor(compile(data, "h100", CompileOptions(build=False)).plan, make_backend("host")).run(feeds[1])
    assert got["sel"].shape == (0, 3)


def test_detection_head_computes_with_the_selection(tmp_path):
    """NMS, then the selected boxes gathered, their scores (GatherND), classes cast and all
    concatenated, the first rows kept (a slice from 0) and a transpose: each follows the selection's
    run-time length; the detections equal onnxruntime's."""
    from bench.detection import head_nodes
    b, n, c = 1, 120, 3
    nodes, inits = head_nodes(max_out=100, iou=0.4, score=0.5)
    nodes += [helper.make_node("Slice", ["dets", "zero", "keep"], ["top"]),
              helper.make_node("Transpose", ["top"], ["top_t"], perm=[1, 0])]
    inits = [*inits.items(), ("keep", np.array([25], np.int64))]
    data = model(nodes, [("boxes", TP.FLOAT, [b, n, 4]), ("scores", TP.FLOAT, [b, c, n])],
                 [("dets", TP.FLOAT, ["k", 6]), ("top", TP.FLOAT, ["t", 6]), ("top_t", TP.FLOAT, [6, "t"])], inits)
    feeds = []
    for seed, thresh in ((1, 0.5), (2, 0.97)):   # more rows than the slice keeps; fewer
        boxes, scores = boxes_and_scores(b, n, c, seed=seed)
        scores = np.where(scores > thresh, scores, 0.0).astype(np.float32)
        feeds.append({"boxes": boxes, "scores": scores})
    art = check(data, feeds)
    lengths = {o: axis for o, _, axis in art.plan.output_lengths}
    assert lengths == {"dets": 0, "top": 0, "top_t": 1}
    # the artifact keeps the run-time extents
    art.save(tmp_path / "a.tar")
    back = load_artifact(tmp_path / "a.tar")
    assert back.plan.output_lengths == art.plan.output_lengths
    got = Executor(back.plan, make_backend("host")).run(feeds[1])
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(["top_t"], feeds[1])[0]
    np.testing.assert_array_equal(got["top_t"], want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_])
@pytest.mark.parametrize("shape", [(37,), (3, 5, 7)])
def test_nonzero_at_run_time(dtype, shape):
    """Coordinates in row-major order, [rank, count]: none, some, all non-zero (-0.0 is zero)."""
    tp = {np.float32: TP.FLOAT, np.float16: TP.FLOAT16, np.int32: TP.INT32, np.bool_: TP.BOOL}[dtype]
    data = model([helper.make_node("NonZero", ["x"], ["y"])], [("x", tp, list(shape))], [("y", TP.INT64, [len(shape), "n"])])
    feeds = []
    for p in (0.0, 0.3, 1.0):
        x = (RNG.random(shape) < p) * RNG.integers(1, 5, size=shape)
        x = x.astype(dtype)
        if dtype in (np.float32, np.float16):
            x = np.where(RNG.random(shape) < 0.2, np.array(-0.0, dtype), x).astype(dtype)
        feeds.append({"x": x})
    art = check(data, feeds)
    assert art.plan.output_lengths == (("y", "NonZero_0#count", 1),)


def test_nonzero_indices_gathered():
    """NonZero's coordinates transposed to rows and gathered from: a mask's selected values."""
    nodes = [helper.make_node("Greater", ["x", "t"], ["mask"]), helper.make_node("NonZero", ["mask"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "rows"], ["picked"]),
             helper.make_node("Mul", ["picked", "picked"], ["sq"])]
    data = model(nodes, [("x", TP.FLOAT, [6, 9])], [("sq", TP.FLOAT, ["n"])], [("t", np.array(0.5, np.float32))])
    check(data, [{"x": RNG.standard_normal((6, 9)).astype(np.float32)} for _ in range(2)])


def _selected_values(nodes, outputs, inits=(), feeds: int = 2):
    """x [6, 9]'s values above 0.5 (NonZero, then GatherND: `picked`, of run-time length) and what
    `nodes` compute from them, against onnxruntime; a feed where none is selected unless `feeds`
    says otherwise."""
    nodes = [helper.make_node("Greater", ["x", "t"], ["mask"]), helper.make_node("NonZero", ["mask"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "rows"], ["picked"])] + nodes
    data = model(nodes, [("x", TP.FLOAT, [6, 9])], outputs, [("t", np.array(0.5, np.float32))] + list(inits))
    rng = np.random.default_rng(5)
    feeds = [{"x": rng.standard_normal((6, 9)).astype(np.float32)} for _ in range(feeds)]
    return data, feeds


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd", "ReduceL2",
                                "ReduceLogSumExp", "ArgMax"])
def test_reductions_over_run_time_rows(op):
    """A reduction over a value of run-time length counts only its real rows (each term past the
    length the combiner's identity, a mean divided by the real count): equal to onnxruntime's,
    the empty selection included (ArgMax of nothing is an error in onnxruntime, so not there)."""
    data, feeds = _selected_values([helper.make_node(op, ["picked"], ["y"], keepdims=0)],
                                   [("y", TP.INT64 if op == "ArgMax" else TP.FLOAT, [])])
    if op != "ArgMax":
        feeds.append({"x": np.full((6, 9), -1, np.float32)})
    art = check(data, feeds, rtol=2e-6)
    assert not art.plan.output_lengths    # the reduced value has a static shape


def test_softmax_over_run_time_rows():
    """Softmax along the run-time axis: its max and sum masked, its output of the same run-time
    length (returned trimmed)."""
    data, feeds = _selected_values([helper.make_node("Softmax", ["picked"], ["y"], axis=0)],
                                   [("y", TP.FLOAT, ["n"])])
    art = check(data, feeds, rtol=2e-6)
    assert [o for o, _, _ in art.plan.output_lengths] == ["y"]


def test_reduction_beside_run_time_rows():
    """Each selected value's share of their total and its distance from their mean: the rows keep
    the run-time length, the reductions they read are masked."""
    nodes = [helper.make_node("ReduceSum", ["picked"], ["total"], keepdims=1),
             helper.make_node("Div", ["picked", "total"], ["share"]),
             helper.make_node("ReduceMean", ["picked"], ["mean"], keepdims=1),
             helper.make_node("Sub", ["picked", "mean"], ["centred"])]
    data, feeds = _selected_values(nodes, [("share", TP.FLOAT, ["n"]), ("centred", TP.FLOAT, ["n"])])
    art = check(data, feeds, rtol=2e-6)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["centred", "share"]


def test_gather_from_run_time_rows_wraps_by_the_real_length():
    """A gather into a value of run-time length at indices the model gives (a graph input here):
    a negative index counts from its real end, not from the bound."""
    nodes = [helper.make_node("Greater", ["x", "t"], ["mask"]), helper.make_node("NonZero", ["mask"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "rows"], ["picked"]),
             helper.make_node("Gather", ["picked", "at"], ["y"], axis=0)]
    data = model(nodes, [("x", TP.FLOAT, [6, 9]), ("at", TP.INT64, [3])], [("y", TP.FLOAT, [3])],
                 [("t", np.array(0.5, np.float32))])
    x = np.random.default_rng(8).standard_normal((6, 9)).astype(np.float32)
    check(data, [{"x": x, "at": np.array([-1, 0, -2], np.int64)}, {"x": x, "at": np.array([2, -3, 1], np.int64)}])


def test_rows_at_constant_positions_of_a_run_time_list():
    """x[0], x[-1] and x[[1, -2]] of a list of run-time length: a position from the front reads
    that row (ONNX requires it in range); one from the end counts from the real end, not the bound."""
    data, feeds = _selected_values(
        [helper.make_node("Gather", ["picked", "first"], ["head"], axis=0),
         helper.make_node("Gather", ["picked", "last"], ["tail"], axis=0),
         helper.make_node("Gather", ["picked", "some"], ["pair"], axis=0)],
        [("head", TP.FLOAT, []), ("tail", TP.FLOAT, []), ("pair", TP.FLOAT, [2])],
        [("first", np.array(0, np.int64)), ("last", np.array(-1, np.int64)), ("some", np.array([1, -2], np.int64))],
        feeds=3)
    assert all(np.count_nonzero(f["x"] > 0.5) >= 2 for f in feeds)
    check(data, feeds)


def _nms_then(nodes, outputs, inits=()):
    return model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "m"], ["sel"])] + nodes,
                 [("boxes", TP.FLOAT, [1, 8, 4]), ("scores", TP.FLOAT, [1, 2, 8])], outputs,
                 [("m", np.array([3], np.int64))] + list(inits))


@pytest.mark.parametrize("case,message", [
    ("offset", "reads axis 0 at a computed position"),
    ("columns", "it is viewed as [3, 6], which mixes its rows"),
])
def test_what_cannot_compute_with_a_run_time_extent_is_refused(case, message):
    nodes, outs, inits = {
        "offset": ([helper.make_node("Slice", ["sel", "one", "big", "zero"], ["y"])], [("y", TP.INT64, ["n", 3])],
                   [("one", np.array([1], np.int64)), ("big", np.array([99], np.int64)),
                    ("zero", np.array([0], np.int64))]),
        # (a flatten, [-1], keeps the real elements first: test_shapes_measured_from_a_run_time_list)
        "columns": ([helper.make_node("Reshape", ["sel", "flat"], ["y"])], [("y", TP.INT64, [3, "n"])],
                    [("flat", np.array([3, -1], np.int64))]),
    }[case]
    with pytest.raises(ShapeError, match=message.replace("[", r"\[").replace("]", r"\]")) as e:
        compile(_nms_then(nodes, outs, inits), "h100", CompileOptions(build=False))
    assert e.value.node


def test_shape_and_size_read_the_run_time_extent():
    """Shape and Size of the selection, and of a value computed from it, report the real extent
    (computed on the device from the count), and a value computed from them is right: an empty
    selection's test as exporters write it (ReduceProd of the shape, compared with 0)."""
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "m", "iou", "s"], ["sel"]),
             helper.make_node("Shape", ["sel"], ["shape"]),
             helper.make_node("Size", ["sel"], ["size"]),
             helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1),
             helper.make_node("Shape", ["idx"], ["idx_shape"]),
             helper.make_node("ReduceProd", ["idx_shape"], ["n"], keepdims=0),
             helper.make_node("Equal", ["n", "zero"], ["empty"])]
    data = model(nodes, [("boxes", TP.FLOAT, [1, 8, 4]), ("scores", TP.FLOAT, [1, 2, 8])],
                 [("shape", TP.INT64, [2]), ("size", TP.INT64, []), ("idx_shape", TP.INT64, [1]),
                  ("empty", TP.BOOL, [])],
                 [("m", np.array([3], np.int64)), ("iou", np.array([0.5], np.float32)),
                  ("s", np.array([0.2], np.float32)), ("two", np.array(2, np.int64)), ("zero", np.array(0, np.int64))])
    boxes, scores = boxes_and_scores(1, 8, 2, seed=3)
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    assert [bool(sess.run(["empty"], f)[0]) for f in ({"boxes": boxes, "scores": scores},
                                                      {"boxes": boxes, "scores": scores * 0})] == [False, True]
    check(data, [{"boxes": boxes, "scores": scores}, {"boxes": boxes, "scores": scores * 0}])


def test_shape_of_other_axes_is_allowed():
    """Shape of the columns only is static: it folds, and the selection is still returned trimmed."""
    data = _nms_then([helper.make_node("Shape", ["sel"], ["cols"], start=1),
                      helper.make_node("Identity", ["sel"], ["out"])],
                     [("cols", TP.INT64, [1]), ("out", TP.INT64, ["k", 3])])
    boxes, scores = boxes_and_scores(1, 8, 2, seed=3)
    check(data, [{"boxes": boxes, "scores": scores}])


def test_nms_with_every_box_selectable_keeps_the_taken_boxes_in_global_memory():
    """max_output_boxes_per_class a run-time input: every box may be taken, 2100 of them, more
    corners than the greedy kernel keeps in shared memory; the global scratch gives the same
    selection. The bit-matrix form (the micro-model's choice here: 33 chunks of 64) too."""
    n = 2100
    data = model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "m", "iou"], ["sel"])],
                 [("boxes", TP.FLOAT, [1, n, 4]), ("scores", TP.FLOAT, [1, 1, n]), ("m", TP.INT64, [1])],
                 [("sel", TP.INT64, ["k", 3])], [("iou", np.array([0.5], np.float32))])
    greedy = compile(data, "h100", CompileOptions(build=False, disable=("nms_bitmask",)))
    (select,) = [s.kernel for s in greedy.plan.steps if hasattr(s, "kernel") and s.kernel.entry.startswith("nms_select")]
    assert any(p.value.endswith("taken_boxes") for p in select.params), [p.value for p in select.params]
    bitmask = compile(data, "h100", CompileOptions(build=False))
    assert any(k["name"].startswith("nms_scan") for k in bitmask.report["kernels"])
    boxes, scores = boxes_and_scores(1, n, 1, spread=400.0, size=20.0, seed=5)
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for art in (greedy, bitmask):
        ex = Executor(art.plan, make_backend("host"))
        for m in (n, 700):
            feed = {"boxes": boxes, "scores": scores, "m": np.array([m], np.int64)}
            (want,) = sess.run(None, feed)
            got = ex.run(feed)["sel"]
            assert got.shape == want.shape and want.shape[0] > 0
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("max_out,scan", [(4, "bitmask, eager scan"), (1500, "bitmask")])
def test_nms_scan_forms(max_out, scan):
    """The bit-matrix form's two scans (ops/nms_bitmask.py), priced against each other: 5000 boxes
    of one class are 79 chunks; taking at most 4, the eager scan (a round trip a chunk that takes a
    box) is predicted faster than loading 10 batches, and taking up to 1500, the batched one.
    Each against onnxruntime: over scattered boxes, of which it takes fewer than 1500 (the scan
    walks every batch), and over boxes that all overlap but a far few."""
    n = 5000
    data = model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "m", "iou"], ["sel"])],
                 [("boxes", TP.FLOAT, [1, n, 4]), ("scores", TP.FLOAT, [1, 1, n])],
                 [("sel", TP.INT64, ["k", 3])], [("m", np.array([max_out], np.int64)),
                                                 ("iou", np.array([0.3], np.float32))])
    feeds = [dict(zip(("boxes", "scores"), boxes_and_scores(1, n, 1, spread=60.0, size=20.0, seed=0)))]
    # and boxes that all overlap the best but three far apart: the four taken are chunks apart, each
    # later chunk's others suppressed by the first
    rng = np.random.default_rng(3)
    xy = rng.random((n, 2)).astype(np.float32)
    xy[[1234, 2345, 4321]] = [[100.0, 0.0], [200.0, 0.0], [300.0, 0.0]]
    feeds.append({"boxes": np.concatenate([xy, xy + 10.0], -1)[None], "scores": rng.random((1, 1, n)).astype(np.float32)})
    art = check(data, feeds)
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "bitmask NMS"]
    (priced,) = tech["effect"]["priced"]
    assert priced["chosen"] == scan and set(priced["predicted_us"]) == {"greedy", "bitmask", "bitmask, eager scan"}
    if max_out > 4:
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        assert 64 * 8 < max(len(sess.run(None, f)[0]) for f in feeds) < max_out


def test_sparta_does_not_take_the_padding_for_a_zero_pattern():
    """Tensor scrambling would see the rows past the selection zero in every run and call the
    selection (and what is gathered from it) sparse; its zeros depend on the data, so SparTA leaves
    such an op's outputs dense."""
    from bench.detection import detection_head
    art = compile(detection_head(1, 50, 3), "h100", CompileOptions(build=False))
    tensors = art.report["sparsity"]["tensors"]
    assert art.report["sparsity"]["enabled"] and not {"sel", "box_idx", "cls_idx", "dets"} & set(tensors), tensors


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("constant_condition", [False, True])
def test_compress(axis, constant_condition):
    """Compress on a run-time condition (sized to the condition's length, trimmed to its true
    count, a Relu computed on the kept rows) and on a constant one (an exact, static extent; the
    positions still scanned on the device); a condition longer than the axis is cut to it."""
    n = 7 if axis is None else 5
    cond = RNG.random(n) < 0.5
    ins = [("x", TP.FLOAT, [3, 5])] + ([] if constant_condition else [("c", TP.BOOL, [n])])
    data = model([helper.make_node("Compress", ["x", "c"], ["y"], **({} if axis is None else {"axis": axis})),
                  helper.make_node("Relu", ["y"], ["z"])], ins,
                 [("z", TP.FLOAT, ["k"] if axis is None else ["a", "b"])], [("c", cond)] if constant_condition else ())
    feeds = []
    for p in (0.0, 0.5, 1.0):
        feed = {"x": RNG.standard_normal((3, 5)).astype(np.float32)}
        if not constant_condition:
            feed["c"] = RNG.random(n) < p
        feeds.append(feed)
    art = check(data, feeds)
    axis_of_length = 0 if axis is None else axis % 2
    assert art.plan.output_lengths == (() if constant_condition else (("z", "Compress_0#count", axis_of_length),))


@pytest.mark.parametrize("n,form", [(60, "greedy"), (300, "bitmask"), (4000, "bitmask")])
def test_nms_of_a_score_filtered_list(n, form):
    """Boxes kept by a score test (NonZero, then gathered: a list of run-time length) suppressed
    by NonMaxSuppression, which takes the real number of boxes as its candidates (no score
    threshold of its own, so the padding would be candidates otherwise), and the kept boxes
    gathered from the filtered list: as torchvision's detectors export their postprocess. In
    both forms (ops/nms_bitmask.py); about 2400 of 4000 candidates are ranked from three sorted
    runs of 1024, their scores tied in hundredths across the runs, and fewer than the 3500 asked
    for are taken, so the scan walks all their chunks, batch after batch of the 8 it loads at once,
    keeping the taken boxes' ranks in its scratch (more than it keeps in shared memory)."""
    cap = 100 if n <= 1024 else 3500
    nodes = [helper.make_node("Greater", ["scores", "t"], ["mask"]),
             helper.make_node("NonZero", ["mask"], ["nz"]),
             helper.make_node("Squeeze", ["nz", "zero"], ["keep"]),
             helper.make_node("Gather", ["boxes", "keep"], ["kb"], axis=0),
             helper.make_node("Gather", ["scores", "keep"], ["ks"], axis=0),
             helper.make_node("Unsqueeze", ["kb", "zero"], ["kb3"]),
             helper.make_node("Unsqueeze", ["ks", "zero01"], ["ks3"]),
             helper.make_node("NonMaxSuppression", ["kb3", "ks3", "m", "iou"], ["sel"]),
             helper.make_node("Gather", ["sel", "two"], ["pick"], axis=1),
             helper.make_node("Gather", ["kb", "pick"], ["out_boxes"], axis=0),
             helper.make_node("Gather", ["ks", "pick"], ["out_scores"], axis=0)]
    data = model(nodes, [("boxes", TP.FLOAT, [n, 4]), ("scores", TP.FLOAT, [n])],
                 [("out_boxes", TP.FLOAT, ["k", 4]), ("out_scores", TP.FLOAT, ["k"])],
                 [("t", np.array(0.4, np.float32)), ("zero", np.array([0], np.int64)),
                  ("zero01", np.array([0, 1], np.int64)), ("m", np.array([cap], np.int64)),
                  ("iou", np.array([0.3], np.float32)), ("two", np.array(2, np.int64))])
    feeds = []
    for seed in range(3):
        boxes, scores = boxes_and_scores(1, n, 1, seed=seed)
        feeds.append({"boxes": boxes[0], "scores": scores[0, 0]})
    feeds.append({"boxes": feeds[0]["boxes"], "scores": np.zeros(n, np.float32)})   # none kept
    art = check(data, feeds)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["out_boxes", "out_scores"]
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "bitmask NMS"]
    assert tech["effect"]["bitmask"] == (form == "bitmask"), tech
    sorted_runs = [k for k in art.report["kernels"] if k["name"].startswith("nms_sort_runs")]
    assert [k["grid"][0] for k in sorted_runs] == ([4] if n > 1024 else [])
    if n > 1024:
        sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
        assert max(len(sess.run(["out_scores"], f)[0]) for f in feeds) < cap
    scans = [s.kernel for s in all_steps(art.plan) if hasattr(s, "kernel") and s.kernel.entry.startswith("nms_scan")]
    assert [any(p.value.endswith("nms_picked") for p in k.params) for k in scans] == \
        ([] if form == "greedy" else [n > 1024])


@pytest.mark.parametrize("shorter", ["slice", "empty constant"])
@pytest.mark.parametrize("grinder", [True, False])
def test_if_branches_one_axis_apart(shorter, grinder):
    """If branches whose outputs differ only in one axis's length (ONNX allows it): the output has
    a length only known at run time, the shorter branch's padded with zeros, and what follows
    computes with it row by row; on the device (grinder) and on the host."""
    short = (helper.make_node("Slice", ["x", "zero", "three", "zero"], ["t"]) if shorter == "slice" else
             helper.make_node("Constant", [], ["t"], value=numpy_helper.from_array(np.zeros((0, 4), np.float32))))
    then_g = helper.make_graph([short], "then", [], [helper.make_tensor_value_info("t", TP.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Relu", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TP.FLOAT, [5, 4])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
             helper.make_node("Mul", ["y", "y"], ["sq"]),
             helper.make_node("ReduceSum", ["y", "zero"], ["total"], keepdims=0)]
    data = model(nodes, [("c", TP.BOOL, []), ("x", TP.FLOAT, [5, 4])],
                 [("sq", TP.FLOAT, ["n", 4]), ("total", TP.FLOAT, [4])],
                 [("zero", np.array([0], np.int64)), ("three", np.array([3], np.int64))], opset=17)
    x = np.random.default_rng(4).standard_normal((5, 4)).astype(np.float32)
    art = check(data, [{"c": np.array(v), "x": x} for v in (True, False)], rtol=1e-6,
                disable=() if grinder else ("grinder",))
    assert [o for o, _, _ in art.plan.output_lengths] == ["sq"]
    runs = {r["node"]: r["runs"] for r in art.report["control_flow"]["regions"]}
    assert (list(runs.values()) == ["host"]) == (not grinder), runs


def test_if_branches_both_of_run_time_length():
    """Both branches give a value of run-time length of one static type (the values above or below
    a threshold): the If's output has the taken branch's length, and a mean over it is masked."""
    def branch(cmp: str, name: str):
        nodes = [helper.make_node(cmp, ["x", "t"], [f"{name}_mask"]),
                 helper.make_node("NonZero", [f"{name}_mask"], [f"{name}_nz"]),
                 helper.make_node("Transpose", [f"{name}_nz"], [f"{name}_rows"], perm=[1, 0]),
                 helper.make_node("GatherND", ["x", f"{name}_rows"], [f"{name}_out"])]
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(f"{name}_out", TP.FLOAT, ["n"])])
    nodes = [helper.make_node("If", ["c"], ["picked"], then_branch=branch("Greater", "above"),
                              else_branch=branch("Less", "below")),
             helper.make_node("ReduceMean", ["picked"], ["mean"], keepdims=0),
             helper.make_node("Neg", ["picked"], ["neg"])]
    data = model(nodes, [("c", TP.BOOL, []), ("x", TP.FLOAT, [6, 9])], [("mean", TP.FLOAT, []), ("neg", TP.FLOAT, ["n"])],
                 [("t", np.array(0.5, np.float32))])
    x = np.random.default_rng(6).standard_normal((6, 9)).astype(np.float32)
    art = check(data, [{"c": np.array(v), "x": x} for v in (True, False)], rtol=2e-6)
    assert [o for o, _, _ in art.plan.output_lengths] == ["neg"]


def test_batched_nms_head_as_torchvision_exports_it(tmp_path):
    """torchvision's detector postprocess as its exporter writes it (bench/detection.py's
    batched_nms_head): a score-filtered list of run-time length, an If on its emptiness (its
    Shape's product equal to 0) whose else branch takes the largest coordinate of the list (a
    reduction over its run-time rows) to offset classes apart before one NonMaxSuppression, and
    the first 100 kept gathered: right against onnxruntime, the empty list included."""
    from bench.detection import batched_nms_head
    n, c = 60, 4
    data = batched_nms_head(n, c, score=0.3, max_det=25)
    feeds = []
    for seed in range(2):
        boxes, scores = boxes_and_scores(1, n, c, spread=40.0, size=12.0, seed=seed)
        feeds.append({"boxes": boxes[0], "scores": np.ascontiguousarray(scores[0].T)})
    feeds.append({"boxes": feeds[0]["boxes"], "scores": feeds[0]["scores"] * 0.1})   # none above 0.3
    art = check(data, feeds)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["det_boxes", "det_labels", "det_scores"]
    # the artifact keeps the branches' extents
    art.save(tmp_path / "a.tar")
    back = Executor(load_artifact(tmp_path / "a.tar").plan, make_backend("host"))
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for feed in feeds:
        for name, want in zip([o.name for o in sess.get_outputs()], sess.run(None, feed)):
            np.testing.assert_array_equal(back.run(feed)[name], want)


def test_loop_body_reads_a_run_time_value_from_outside():
    """A Loop body reading a value of run-time length from outside computes with it as outside
    does (its sum masked to the real count); taking it as a carried value is refused."""
    body = helper.make_graph(
        [helper.make_node("ReduceSum", ["picked"], ["s"], keepdims=0),
         helper.make_node("Add", ["acc", "s"], ["acc_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"])], "body",
        [helper.make_tensor_value_info("i", TP.INT64, []), helper.make_tensor_value_info("cond", TP.BOOL, []),
         helper.make_tensor_value_info("acc", TP.FLOAT, [])],
        [helper.make_tensor_value_info("cond_out", TP.BOOL, []), helper.make_tensor_value_info("acc_out", TP.FLOAT, [])])
    data, feeds = _selected_values([helper.make_node("Loop", ["trips", "", "start"], ["total"], body=body)],
                                   [("total", TP.FLOAT, [])],
                                   [("trips", np.array(3, np.int64)), ("start", np.array(0.5, np.float32))])
    check(data, feeds, rtol=2e-6)
    carried = helper.make_graph(
        [helper.make_node("Identity", ["acc"], ["acc_out"]), helper.make_node("Identity", ["cond"], ["cond_out"])],
        "body", [helper.make_tensor_value_info("i", TP.INT64, []), helper.make_tensor_value_info("cond", TP.BOOL, []),
                 helper.make_tensor_value_info("acc", TP.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TP.BOOL, []), helper.make_tensor_value_info("acc_out", TP.FLOAT, None)])
    data, _ = _selected_values([helper.make_node("Loop", ["trips", "", "picked"], ["same"], body=carried)],
                               [("same", TP.FLOAT, ["n"])], [("trips", np.array(3, np.int64))])
    with pytest.raises(ShapeError, match="takes it as an input of its body"):
        compile(data, "h100", CompileOptions(build=False))


@pytest.mark.parametrize("largest", [1, 0])
def test_topk_with_a_run_time_k(largest):
    """TopK whose K is a graph input: both outputs sized to the axis and trimmed to K on return
    (OpDef.bounded), ties to the lower index; K of 0 and of the whole axis included."""
    data = model([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)],
                 [("x", TP.FLOAT, [3, 20]), ("k", TP.INT64, [1])], [("v", TP.FLOAT, [3, "k"]), ("i", TP.INT64, [3, "k"])])
    x = np.round(np.random.default_rng(9).standard_normal((3, 20)), 1).astype(np.float32)   # ties
    art = check(data, [{"x": x, "k": np.array([k], np.int64)} for k in (5, 0, 20)])
    assert [(o, axis) for o, _, axis in art.plan.output_lengths] == [("v", 1), ("i", 1)]


def score_filtered_topk(n: int) -> bytes:
    """A detector's per-level candidates as torchvision's RetinaNet postprocess exports them, over
    n scores: those above 0.05 (a list of run-time length), K = min(100, their number) from its
    Shape, TopK over the list, and the kept boxes' positions gathered (outputs top, where)."""
    nodes = [helper.make_node("Greater", ["scores", "t"], ["above"]),
             helper.make_node("NonZero", ["above"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
             helper.make_node("GatherND", ["scores", "rows"], ["kept"]),
             helper.make_node("Squeeze", ["rows", "one"], ["positions"]),
             helper.make_node("Shape", ["positions"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["count"]),
             helper.make_node("Unsqueeze", ["count", "zero1"], ["count1"]),
             helper.make_node("Concat", ["hundred", "count1"], ["both"], axis=0),
             helper.make_node("ReduceMin", ["both"], ["k0"], keepdims=0),
             helper.make_node("Reshape", ["k0", "one"], ["k"]),
             helper.make_node("TopK", ["kept", "k"], ["top", "at"]),
             helper.make_node("Gather", ["positions", "at"], ["where"])]
    return model(nodes, [("scores", TP.FLOAT, [n])], [("top", TP.FLOAT, ["k"]), ("where", TP.INT64, ["k"])],
                 [("t", np.array(0.05, np.float32)), ("one", np.array([1], np.int64)),
                  ("zero", np.array(0, np.int64)), ("zero1", np.array([0], np.int64)),
                  ("hundred", np.array([100], np.int64))])


def test_topk_of_a_score_filtered_list():
    """score_filtered_topk over 900 scores (its ranks counting the real entries only): right
    against onnxruntime with more, fewer and no scores above the threshold."""
    data = score_filtered_topk(900)
    rng = np.random.default_rng(10)
    feeds = [{"scores": (rng.random(900) ** p).astype(np.float32)} for p in (1.0, 60.0)]   # many above, a few
    feeds.append({"scores": np.zeros(900, np.float32)})                                     # none
    art = check(data, feeds)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["top", "where"]


def test_concat_along_a_run_time_axis():
    """Candidates of two levels (scores above a threshold in each, lists of run-time length) and a
    fixed row joined along their rows: each list's real rows at the sum of the real lengths before
    it, zeros after, the length the sum; its Shape, a softmax over it and the rows themselves right
    against onnxruntime, with lists of some, all and no rows."""
    def level(k):
        return [helper.make_node("Greater", [f"s{k}", "t"], [f"m{k}"]), helper.make_node("NonZero", [f"m{k}"], [f"z{k}"]),
                helper.make_node("Transpose", [f"z{k}"], [f"r{k}"], perm=[1, 0]),
                helper.make_node("GatherND", [f"s{k}", f"r{k}"], [f"kept{k}"])]
    nodes = level(0) + level(1) + [
        helper.make_node("Concat", ["kept0", "fixed", "kept1"], ["all"], axis=0),
        helper.make_node("Shape", ["all"], ["n"]),
        helper.make_node("Softmax", ["all"], ["p"], axis=0)]
    data = model(nodes, [("s0", TP.FLOAT, [30]), ("s1", TP.FLOAT, [12])],
                 [("all", TP.FLOAT, ["k"]), ("n", TP.INT64, [1]), ("p", TP.FLOAT, ["k"])],
                 [("t", np.array(0.5, np.float32)), ("fixed", np.array([2.0, -1.0], np.float32))])
    rng = np.random.default_rng(12)
    feeds = [{"s0": rng.random(30).astype(np.float32), "s1": rng.random(12).astype(np.float32)},
             {"s0": np.ones(30, np.float32), "s1": np.zeros(12, np.float32)},
             {"s0": np.zeros(30, np.float32), "s1": np.ones(12, np.float32)}]
    art = check(data, feeds, rtol=2e-6)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["all", "p"]


def test_retinanet_head_as_torchvision_exports_it():
    """torchvision's RetinaNet postprocess as its exporter writes it (bench/detection.py's
    retinanet_head): per level a score-filtered list, TopK with K = min(50, its length), anchors
    and classes by division and modulo, boxes gathered; the levels joined along the run-time axis
    (one length for the boxes, scores and labels joined alike), then batched_nms: right against
    onnxruntime with many, a few and no candidates."""
    from bench.detection import retinanet_head
    anchors, c = (120, 30), 4
    data = retinanet_head(anchors, c, topk=50, max_det=30)
    rng = np.random.default_rng(13)
    base = {}
    for lv, n in enumerate(anchors):
        base[f"logits{lv}"] = rng.standard_normal(n * c).astype(np.float32)
        xy = rng.random((n, 2)).astype(np.float32) * 200
        base[f"boxes{lv}"] = np.concatenate([xy, xy + rng.random((n, 2)).astype(np.float32) * 60], -1)
    feeds = [base]
    for shift in (-5.5, -20.0):          # a few candidates; none
        feeds.append({k: (a + shift if k.startswith("logits") else a) for k, a in base.items()})
    art = check(data, feeds, rtol=1e-6)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["det_boxes", "det_labels", "det_scores"]
    # K = min(50, n) is at most 50 (frontend/element_bounds.py): each level's candidates are sized
    # to 50, not to its anchors x classes, and the joined list to 100
    types = dict(art.plan.types)
    assert (types["top_scores0"].shape, types["top_scores1"].shape, types["ks"].shape) == ((50,), (50,), (100,))


def test_constant_of_shape_of_a_run_time_list():
    """`torch.full_like(kept, label)` as torchvision's SSD and Faster R-CNN export it: ConstantOfShape
    of the Shape of a list of run-time length (frontend/element_bounds.py: its element bounded, its
    source the list's extent). The filled value shares the list's count, so the two compute
    together (an Add, a sum over the rows); from a shape whose run-time element is a min() of it
    (no source), the fill has its own count. Right against onnxruntime with some and no rows."""
    fill = helper.make_tensor("v", TP.INT64, [1], [7])
    nodes = [helper.make_node("Greater", ["scores", "t"], ["above"]),
             helper.make_node("NonZero", ["above"], ["nz"]),
             helper.make_node("Transpose", ["nz"], ["rows"], perm=[1, 0]),
             helper.make_node("GatherND", ["scores", "rows"], ["kept"]),
             helper.make_node("Unsqueeze", ["kept", "one"], ["kept2"]),          # [n, 1]: its axis 1 static
             helper.make_node("Shape", ["kept2"], ["shape"]),
             helper.make_node("ConstantOfShape", ["shape"], ["labels"], value=fill),
             helper.make_node("Cast", ["labels"], ["lf"], to=TP.FLOAT),
             helper.make_node("Add", ["kept2", "lf"], ["sum"]),
             helper.make_node("ReduceSum", ["sum"], ["total"], keepdims=0),
             # min(n, 50) has no source: a fill of its own run-time length
             helper.make_node("Shape", ["kept"], ["n"]),
             helper.make_node("Min", ["n", "fifty"], ["m"]),
             helper.make_node("ConstantOfShape", ["m"], ["capped"], value=fill)]
    data = model(nodes, [("scores", TP.FLOAT, [300])],
                 [("labels", TP.INT64, ["k", 1]), ("sum", TP.FLOAT, ["k", 1]), ("total", TP.FLOAT, []),
                  ("capped", TP.INT64, ["c"])],
                 [("t", np.array(0.5, np.float32)), ("one", np.array([1], np.int64)),
                  ("fifty", np.array([50], np.int64))])
    rng = np.random.default_rng(3)
    feeds = [{"scores": rng.random(300).astype(np.float32)}, {"scores": (rng.random(300) ** 9).astype(np.float32)},
             {"scores": np.zeros(300, np.float32)}]
    art = check(data, feeds, rtol=1e-6)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["capped", "labels", "sum"]
    # the import could not tell kept2's run-time axis from its static one (both within the bound):
    # the fill lists both, and the lowering takes the one the list has
    fills = [n for n in import_model(onnx.load_from_string(data)).graph.nodes if n.op == "ConstantOfShape"]
    assert [(n.attr("extent_sources"), n.attr("run_time_axis")) for n in fills] == [
        (((0, "kept2", 0), (1, "kept2", 1)), None), (None, 0)]


def _kept_rows(nodes: list, scores: str = "scores", boxes: str = "boxes", out: str = "kb") -> list:
    """A score-filtered list as torchvision keeps one: the indices of the scores above `t`
    (NonZero), the boxes gathered at them: `out` has a run-time length on axis 0."""
    return nodes + [helper.make_node("Greater", [scores, "t"], ["above"]),
                    helper.make_node("NonZero", ["above"], ["nz"]),
                    helper.make_node("Squeeze", ["nz", "zero"], ["idx"]),
                    helper.make_node("Gather", [boxes, "idx"], [out], axis=0)]


def _list_feeds(n: int, shape: tuple, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    boxes = rng.random((n,) + shape).astype(np.float32) * 10
    return [{"scores": rng.random(n).astype(np.float32), "boxes": boxes},
            {"scores": (rng.random(n) ** 12).astype(np.float32), "boxes": boxes},     # a few rows
            {"scores": np.zeros(n, np.float32), "boxes": boxes}]                      # none


def test_shapes_measured_from_a_run_time_list():
    """The shape arithmetic of torchvision's box postprocess on a list of run-time length, each a
    target shape the import bounds (frontend/element_bounds.py) and the lowering checks against the
    list's rows: `boxes.reshape(boxes.shape)` (Reshape to its own Shape), `reshape(n, 12)`, a
    Slice to `n` (`split(boxes_per_image)` of one image: ends 0 + n), `reshape(-1, 4)` merging
    the rows with the axes after them (a count of its own, n * 3), `arange(num_classes)` of a
    Shape the import cannot pin, viewed (1, -1) and `expand_as` the list (the output takes its
    count). Right against onnxruntime with some, a few and no rows."""
    i64 = lambda *v: np.array(v, np.int64)    # noqa: E731
    nodes = _kept_rows([]) + [
        helper.make_node("Shape", ["kb"], ["kshape"]),
        helper.make_node("Reshape", ["kb", "kshape"], ["same"]),
        helper.make_node("Gather", ["kshape", "zero_s"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "zero"], ["n1"]),
        helper.make_node("Concat", ["n1", "twelve"], ["n_rest"], axis=0),
        helper.make_node("Reshape", ["kb", "n_rest"], ["flat"]),                  # [n, 12]
        helper.make_node("Add", ["zero", "n1"], ["end"]),
        helper.make_node("Slice", ["same", "zero", "end", "zero"], ["head"]),     # all n rows
        helper.make_node("Reshape", ["head", "four"], ["merged"]),                # [n * 3, 4]
        helper.make_node("ReduceSum", ["merged", "zero"], ["merged_sum"], keepdims=0),
        helper.make_node("Gather", ["kshape", "one_s"], ["classes"], axis=0),    # 3, static
        helper.make_node("Range", ["zero_s", "classes", "one_s"], ["labels0"]),
        helper.make_node("Reshape", ["labels0", "one_minus1"], ["labels1"]),      # [1, 3]
        helper.make_node("Slice", ["flat", "zero", "three", "one"], ["firsts"]),  # [n, 3]
        helper.make_node("Shape", ["firsts"], ["fshape"]),
        helper.make_node("Expand", ["labels1", "fshape"], ["labels"])]            # [n, 3]
    data = model(nodes, [("scores", TP.FLOAT, [200]), ("boxes", TP.FLOAT, [200, 3, 4])],
                 [("same", TP.FLOAT, ["n", 3, 4]), ("flat", TP.FLOAT, ["n", 12]), ("merged", TP.FLOAT, ["m", 4]),
                  ("merged_sum", TP.FLOAT, [4]), ("labels", TP.INT64, ["n", 3])],
                 [("t", np.array(0.5, np.float32)), ("zero", i64(0)), ("zero_s", np.array(0, np.int64)),
                  ("one_s", np.array(1, np.int64)), ("twelve", i64(12)), ("four", i64(-1, 4)),
                  ("one_minus1", i64(1, -1)), ("three", i64(3)), ("one", i64(1))])
    art = check(data, _list_feeds(200, (3, 4), 5), rtol=1e-5)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["flat", "labels", "merged", "same"]
    types = dict(art.plan.types)
    assert (types["merged"].shape, types["labels"].shape) == ((600, 4), (200, 3))    # at the bounds


def test_a_reshape_that_mixes_run_time_rows_is_refused():
    """`reshape(3, -1)` of a [n, 4] list of run-time length would put padding between real rows:
    refused at compile time, the node named."""
    nodes = _kept_rows([]) + [helper.make_node("Shape", ["kb"], ["kshape"]),
                              helper.make_node("Gather", ["kshape", "zero_s"], ["n"], axis=0),
                              helper.make_node("Unsqueeze", ["n", "zero"], ["n1"]),
                              helper.make_node("Concat", ["four", "n1"], ["shape"], axis=0),
                              helper.make_node("Reshape", ["kb", "shape"], ["mixed"])]     # [4, n]
    data = model(nodes, [("scores", TP.FLOAT, [50]), ("boxes", TP.FLOAT, [50, 4])], [("mixed", TP.FLOAT, [4, "n"])],
                 [("t", np.array(0.5, np.float32)), ("zero", np.array([0], np.int64)),
                  ("zero_s", np.array(0, np.int64)), ("four", np.array([4], np.int64))])
    with pytest.raises(ShapeError, match="Reshape"):
        compile(data, "h100", CompileOptions(build=False))


def test_run_time_rois_and_their_scatter():
    """torchvision's MultiScaleRoIAlign on a list of run-time length: RoiAlign of the kept boxes
    (the padding rows past their count are zeros, not sampled), then per level the ROIs whose
    area passes a threshold (NonZero of a run-time list: the padding is not counted), aligned and
    scattered back into their rows (ScatterElements whose indices and updates have the level's
    run-time length: the padding updates are skipped). Right against onnxruntime with some, a few
    and no rows."""
    nodes = _kept_rows([]) + [
        helper.make_node("Shape", ["kb"], ["kshape"]),
        helper.make_node("Slice", ["kshape", "zero", "one"], ["n1"]),      # Shape[:1]
        helper.make_node("ConstantOfShape", ["n1"], ["bidx"], value=helper.make_tensor("v", TP.INT64, [1], [0])),
        helper.make_node("RoiAlign", ["x", "kb", "bidx"], ["pooled"], output_height=2, output_width=2,
                         sampling_ratio=2, spatial_scale=0.5),
        # a level: the boxes narrower than 6 (the padding's width, 0, would pass: it is not counted)
        helper.make_node("Split", ["kb", "split"], ["x1", "y1", "x2", "y2"], axis=1),
        helper.make_node("Sub", ["x2", "x1"], ["w"]),
        helper.make_node("Squeeze", ["w", "one"], ["w1"]),
        helper.make_node("Less", ["w1", "six"], ["wide"]),
        helper.make_node("NonZero", ["wide"], ["wnz"]),
        helper.make_node("Squeeze", ["wnz", "zero"], ["widx"]),
        helper.make_node("Gather", ["kb", "widx"], ["wboxes"], axis=0),
        helper.make_node("Gather", ["bidx", "widx"], ["wbidx"], axis=0),
        helper.make_node("RoiAlign", ["x", "wboxes", "wbidx"], ["wpooled"], output_height=2, output_width=2,
                         sampling_ratio=2, spatial_scale=0.5),
        helper.make_node("Reshape", ["widx", "col"], ["widx4"]),
        helper.make_node("Shape", ["wpooled"], ["wshape"]),
        helper.make_node("Expand", ["widx4", "wshape"], ["scatter_at"]),
        helper.make_node("ScatterElements", ["pooled", "scatter_at", "wpooled"], ["levels"], axis=0)]
    data = model(nodes, [("scores", TP.FLOAT, [60]), ("boxes", TP.FLOAT, [60, 4]), ("x", TP.FLOAT, [1, 3, 16, 16])],
                 [("pooled", TP.FLOAT, ["n", 3, 2, 2]), ("widx", TP.INT64, ["w"]), ("levels", TP.FLOAT, ["n", 3, 2, 2])],
                 [("t", np.array(0.5, np.float32)), ("zero", np.array([0], np.int64)), ("one", np.array([1], np.int64)),
                  ("split", np.array([1, 1, 1, 1], np.int64)), ("six", np.array(6.0, np.float32)),
                  ("col", np.array([-1, 1, 1, 1], np.int64))], opset=16)
    rng = np.random.default_rng(8)
    xy = rng.random((60, 2)).astype(np.float32) * 20
    boxes = np.concatenate([xy, xy + rng.random((60, 2)).astype(np.float32) * 10], -1)
    boxes[0] = [1, 1, 2, 2]     # the padding rows gather box 0 (index 0): narrow, so they would pass
    x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    feeds = [{"scores": s, "boxes": boxes, "x": x} for s in (
        rng.random(60).astype(np.float32), (rng.random(60) ** 12).astype(np.float32), np.zeros(60, np.float32))]
    art = check(data, feeds, rtol=1e-5)
    assert sorted(o for o, _, _ in art.plan.output_lengths) == ["levels", "pooled", "widx"]


def test_nonzero_of_long_inputs_in_blocks():
    """NonZero and Compress over a long input take the grid form where the micro-model prices it
    lower (ops/indexing.py: a block a chunk counts, then each block writes its chunk's coordinates
    after the counts before it): a mask of 400000 elements, and the indices of a score-filtered
    list of up to 200000 passing a second test, whose padding (the score at index 0, which passes)
    is not counted. Right against onnxruntime with many, few and no elements."""
    n = 200000
    nodes = [helper.make_node("Greater", ["x", "t"], ["mask"]),
             helper.make_node("NonZero", ["mask"], ["mask_nz"]),
             helper.make_node("Flatten", ["mask"], ["flat"], axis=0),
             helper.make_node("Squeeze", ["flat", "zero"], ["m1"]),
             helper.make_node("Compress", ["x", "m1"], ["kept_x"])]
    nodes = _kept_rows(nodes, boxes="scores", out="kept") + [
        helper.make_node("Less", ["kept", "low"], ["low_mask"]),
        helper.make_node("NonZero", ["low_mask"], ["low_nz"])]
    data = model(nodes, [("x", TP.FLOAT, [4, 100000]), ("scores", TP.FLOAT, [n])],
                 [("mask_nz", TP.INT64, [2, "k"]), ("kept_x", TP.FLOAT, ["k"]), ("low_nz", TP.INT64, [1, "j"])],
                 [("t", np.array(0.5, np.float32)), ("zero", np.array([0], np.int64)),
                  ("low", np.array(0.6, np.float32))])
    rng = np.random.default_rng(4)
    feeds = []
    for x, scores in ((rng.random((4, 100000)), rng.random(n)), (rng.random((4, 100000)) ** 40, rng.random(n) ** 40),
                      (np.zeros((4, 100000)), np.zeros(n))):
        scores = scores.astype(np.float32)
        scores[0] = 0.1        # the padding rows gather it: below 0.6, so they would pass
        feeds.append({"x": x.astype(np.float32), "scores": scores})
    check(data, feeds)
    alone = compile(data, "h100", CompileOptions(build=False, disable=("rammer",)))     # each kernel its own launch
    entries = [k.entry for k in alone.plan.kernels()]
    assert sum(e.startswith("nonzero_counts") for e in entries) == 4, entries    # NonZero, Compress, the lists'
    grid = next(t for t in alone.report["techniques"] if t["name"] == "grid NonZero")
    assert grid["enabled"] and grid["effect"]["nonzero_nodes"] == 4 and grid["effect"]["grid"] == 4, grid
    assert {c["chosen"] for c in grid["effect"]["priced"]} == {"grid"}, grid
    from compiler.report_html import report_html
    assert "grid NonZero (lower): 4 of 4 nodes take this form" in report_html(alone.report)
    # --disable nonzero_grid: every scan one block, still right
    check(data, feeds, disable=("nonzero_grid",))
    one = compile(data, "h100", CompileOptions(build=False, disable=("rammer", "nonzero_grid")))
    assert not any(k.entry.startswith("nonzero_counts") for k in one.plan.kernels())
    off = next(t for t in one.report["techniques"] if t["name"] == "grid NonZero")
    assert not off["enabled"] and off["effect"]["grid"] == 0, off


def test_an_empty_output_keeps_the_run_time_length_of_its_other_axes():
    """A selection given a leading axis and sliced empty along it is [0, real boxes, 3], as
    onnxruntime gives it, not [0, bound, 3] (an empty output was skipped before its run-time axis
    was followed); a slice from row 1 of the rows of an empty value is refused as for a full one.
    Found by tests/frontend/test_selection_caps.py's random readers."""
    b, n, c = 1, 150, 2
    inits = [("max_out", np.array([np.iinfo(np.int64).max], np.int64)), ("iou", np.array([0.3], np.float32)),
             ("score_min", np.array([0.25], np.float32)), ("zero", np.array([0], np.int64)),
             ("one", np.array([1], np.int64)), ("big", np.array([1000], np.int64)), ("two", np.array([2], np.int64))]
    nms = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_min"], ["sel"])
    ins = [("boxes", TP.FLOAT, [b, n, 4]), ("scores", TP.FLOAT, [b, c, n])]
    data = model([nms, helper.make_node("Unsqueeze", ["sel", "zero"], ["lead"]),
                  helper.make_node("Slice", ["lead", "one", "big", "zero"], ["empty"])],
                 ins, [("empty", TP.INT64, [0, "k", 3])], inits)
    feeds = []
    for seed in range(2):
        boxes, scores = boxes_and_scores(b, n, c, seed=seed)
        feeds.append({"boxes": boxes, "scores": scores})
    art = check(data, feeds)
    assert [o for o, _, _ in art.plan.output_lengths] == ["empty"]
    # columns 1 to 1 of each row: empty; then rows from 1: refused, as the same slice of full rows
    data = model([nms, helper.make_node("Slice", ["sel", "one", "one", "one"], ["cols"]),
                  helper.make_node("Slice", ["cols", "one", "big", "zero"], ["rows"])],
                 ins, [("rows", TP.INT64, ["k", 0])], inits)
    with pytest.raises(ShapeError, match="computed position"):
        compile(data, "h100", CompileOptions(build=False))


def test_a_fused_reader_leaves_the_length_an_output_is_trimmed_to():
    """A selection joined to itself (Concat along its rows: a length of its own, the sum), a
    CumSum along the columns, a Softmax along the rows: fusion joins the softmax with what reads the
    joined length, and the step computing that length, read by no kernel any more, was dropped
    though the output is trimmed to it (the run failed looking it up). Found by random readers of
    run-time lists against onnxruntime."""
    b, n, c = 1, 100, 2
    inits = [("max_out", np.array([5], np.int64)), ("iou", np.array([0.4], np.float32)),
             ("score_min", np.array([0.3], np.float32)), ("ax", np.array(1, np.int64))]
    data = model([helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_min"], ["sel"]),
                  helper.make_node("Cast", ["sel"], ["f"], to=TP.FLOAT),
                  helper.make_node("Concat", ["f", "f"], ["twice"], axis=0),
                  helper.make_node("CumSum", ["twice", "ax"], ["sums"]),
                  helper.make_node("Softmax", ["sums"], ["out"], axis=0)],
                 [("boxes", TP.FLOAT, [b, n, 4]), ("scores", TP.FLOAT, [b, c, n])], [("out", TP.FLOAT, ["k", 3])],
                 inits)
    feeds = []
    for seed in range(2):
        boxes, scores = boxes_and_scores(b, n, c, seed=seed)
        feeds.append({"boxes": boxes, "scores": scores})
    for disable in ((), ("welder",)):
        art = check(data, feeds, rtol=1e-6, disable=disable)
        assert [o for o, _, _ in art.plan.output_lengths] == ["out"]
