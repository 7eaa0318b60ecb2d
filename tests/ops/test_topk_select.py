"""TopK over long rows as a radix select (compiler/ops/topk_select.py): chosen by the lowering's
pricing where it costs less than ranking every pair, and right on the host harness in both thread
orders against the reference (numpy's order: ties to the lower index, NaN above +inf, -0.0 equal
to 0.0) and onnxruntime, for every key width, the smallest and the largest, a row whole or in
segments, along an inner axis, and over a score-filtered list with K known only at run time."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.ops import topk_select
from compiler.ops.reduce import _ref_topk
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend
from tests.ops.test_runtime_extents import score_filtered_topk

ONNX_TYPE = {np.float32: TP.FLOAT, np.float16: TP.FLOAT16, np.float64: TP.DOUBLE, np.int32: TP.INT32,
             np.int64: TP.INT64, np.uint8: TP.UINT8, np.int8: TP.INT8, ml_dtypes.bfloat16: TP.BFLOAT16}


def topk_model(shape, k: int, dtype, largest: int, axis: int = -1) -> bytes:
    out = list(shape)
    out[axis] = k
    t = ONNX_TYPE[dtype]
    g = helper.make_graph([helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)], "g",
                          [helper.make_tensor_value_info("x", t, list(shape))],
                          [helper.make_tensor_value_info("v", t, out), helper.make_tensor_value_info("i", TP.INT64, out)],
                          [numpy_helper.from_array(np.array([k], np.int64), "k")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 9
    return m.SerializeToString()


class _Node:   # what the reference reads of a node
    def __init__(self, **attrs):
        self.attrs = attrs

    def attr(self, name, default=None):
        return self.attrs.get(name, default)


def sample(shape, dtype, seed: int) -> np.ndarray:
    """Values with many ties; floats with NaN, both infinities and both zeros among them, the
    extremes sparse enough (fewer than the tests' K a row) that the best K are not all of them."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -(1 << 40)), min(info.max, 1 << 40), shape, dtype=np.int64).astype(dtype)
        x.flat[::2003], x.flat[1::2011] = info.min, info.max
        x.flat[2::5] = x.flat[3::5]         # repeated values
        return x
    x = np.round(rng.standard_normal(shape), 1).astype(np.float32)
    x.flat[::2003], x.flat[7::2011], x.flat[9::2017] = np.nan, np.inf, -np.inf
    x.flat[11::97], x.flat[13::89] = -0.0, 0.0
    return x.astype(dtype)


def radix_chosen(art) -> list[str]:
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "radix TopK"]
    return [c["chosen"] for c in tech["effect"]["priced"]]


def run_both_orders(art, feed: dict) -> list[dict]:
    return [Executor(art.plan, make_backend("host", mode=mode)).run(feed) for mode in ("default", "shuffle")]


def assert_topk(got: dict, want: list[np.ndarray]):
    np.testing.assert_array_equal(got["i"], want[1])
    if want[0].dtype == ml_dtypes.bfloat16:    # compared as float32, where NaN equals NaN
        got, want = {"v": got["v"].astype(np.float32)}, [want[0].astype(np.float32)]
    np.testing.assert_array_equal(got["v"], want[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.float64, np.int32, np.int64,
                                   np.uint8, np.int8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("largest", [1, 0])
def test_radix_select_matches_the_reference(dtype, largest):
    """Rows of 3000 (5 of them: one block a row; 6000 for 64-bit integers, whose eight passes
    the micro-model prices above ranking rows of 3000) or one row of 30000 (segments, then their
    candidates again): every key width and order, ties, NaN and zeros of both signs."""
    row = 6000 if dtype == np.int64 else 3000
    for shape, k, form in (((5, row), 12, "radix select"), ((1, 30000), 20, "segmented radix select")):
        x = sample(shape, dtype, seed=shape[1] + largest)
        art = compile(topk_model(shape, k, dtype, largest), "h100", CompileOptions(build=False))
        assert radix_chosen(art) == [form]
        want = _ref_topk(_Node(axis=-1, largest=largest), [x, np.array([k])], 17)
        for got in run_both_orders(art, {"x": x}):
            assert_topk(got, want)


@pytest.mark.parametrize("dtype,shape,k", [(np.float32, (1, 400000), 300), (np.float32, (2, 200000), 500),
                                           (np.int64, (1, 400000), 300), (np.float16, (1, 300000), 1000)],
                         ids=["f32", "f32-two-rows", "i64", "f16"])
@pytest.mark.parametrize("largest", [1, 0])
def test_radix_select_with_two_merges(dtype, shape, k, largest):
    """A row of hundreds of thousands (a detector's level of anchors x classes): its segments'
    candidates selected again in segments, then whole (S1 x K, then S2 x K: topk_select.two_merges),
    predicted faster than one merge of S x K; the same selection as the reference, in both thread
    orders. The values are rounded (ties across segments) with a few NaN, infinities and zeros of
    both signs scattered: fewer than K, so the best K are spread over the row."""
    rng = np.random.default_rng(shape[1] + k + largest)
    if np.dtype(dtype).kind == "i":
        x = rng.integers(-(1 << 40), 1 << 40, shape, dtype=np.int64) // (1 << 30)     # about 2000 values
    else:
        x = np.round(rng.standard_normal(shape), 2).astype(np.float32)
        for v in (np.nan, np.inf, -np.inf, 0.0, -0.0):
            x.flat[rng.integers(0, x.size, k // 10)] = v
    x = x.astype(dtype)
    art = compile(topk_model(shape, k, dtype, largest), "h100", CompileOptions(build=False))
    assert radix_chosen(art) == ["segmented radix select, two merges"]
    merges = [kn for kn in art.report["kernels"] if kn["name"].startswith("topk_merge")]
    s1, s2 = topk_select.two_merges(shape[1], k)
    assert sorted(kn["grid"][0] for kn in merges) == sorted([shape[0] * s2, shape[0]])
    assert [kn["grid"][0] for kn in art.report["kernels"] if kn["name"].startswith("topk_select")] == [shape[0] * s1]
    want = _ref_topk(_Node(axis=-1, largest=largest), [x, np.array([k])], 17)
    for got in run_both_orders(art, {"x": x}):
        assert_topk(got, want)


def test_radix_select_along_an_inner_axis_and_against_onnxruntime():
    """TopK along axis 1 of [2, 4000, 3] (a row's elements 3 apart) and the smallest along the
    last axis: equal to onnxruntime (no NaN: its order for NaN is its own), and to the ranks
    (--disable radix_topk) where the rows are short enough to rank on the host."""
    rng = np.random.default_rng(4)
    for shape, axis, largest in (((2, 4000, 3), 1, 1), ((3, 2500), -1, 0)):
        x = np.round(rng.standard_normal(shape), 2).astype(np.float32)
        data = topk_model(shape, 9, np.float32, largest, axis)
        art = compile(data, "h100", CompileOptions(build=False))
        assert radix_chosen(art) == ["radix select"]
        want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})
        for got in run_both_orders(art, {"x": x}):
            assert_topk(got, want)
        ranks = compile(data, "h100", CompileOptions(build=False, disable=("radix_topk",)))
        assert radix_chosen(ranks) == []
        assert not any(k["name"].startswith("topk_select") for k in ranks.report["kernels"])
        assert_topk(Executor(ranks.plan, make_backend("host")).run({"x": x}), want)


def test_short_rows_and_whole_rows_are_ranked():
    """Rows under topk_select.MIN_AXIS, and K the whole row (a sort), are not priced: ranked."""
    for shape, k in (((4, 1000), 10), ((2, 2000), 2000)):
        art = compile(topk_model(shape, k, np.float32, 1), "h100", CompileOptions(build=False))
        assert radix_chosen(art) == []
        assert any(k["name"].startswith("topk_rank") for k in art.report["kernels"])


def test_radix_select_of_a_score_filtered_list_with_a_run_time_k():
    """RetinaNet's per-level step as torchvision exports it (test_runtime_extents.score_filtered_topk)
    over 6000 anchors: the select reads K = min(100, the list's length) and the list's real length;
    right against onnxruntime with many, fewer than K and no scores above the threshold."""
    data = score_filtered_topk(6000)
    art = compile(data, "h100", CompileOptions(build=False))
    assert radix_chosen(art)[0].endswith("radix select")
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(12)
    feeds = [{"scores": np.round(rng.random(6000) ** p, 3).astype(np.float32)} for p in (1.0, 90.0)]
    feeds.append({"scores": np.zeros(6000, np.float32)})
    for feed in feeds:
        want = dict(zip(["top", "where"], sess.run(None, feed)))
        for got in run_both_orders(art, feed):
            for name in want:
                np.testing.assert_array_equal(got[name], want[name], err_msg=name)
