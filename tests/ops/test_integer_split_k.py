"""Integer contractions split along K (compiler/kinds/gemm.py, codegen/tiled.py `_split_k_sum`):
each slice's int32 partial sums go through the float workspace bit for bit and the tile's last
block adds them, so the result is exact. A long-K MatMulInteger and QLinearMatMul, and a
QLinearConv of a small image, whose few output tiles leave the SMs idle unsplit, run split on
the host harness in both block orders and equal NumPy's integer arithmetic exactly."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(5)


def _model(node, inputs, out, inits) -> bytes:
    g = helper.make_graph([node], "m", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info("y", *out)],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _run_split(model: bytes, feeds: dict) -> tuple[list[np.ndarray], int]:
    """The plan's output in both block orders, and the split its contraction took (more than 1)."""
    art = compile(model, "h100", CompileOptions(build=False))
    split = max(k["config"].get("split_k", 1) for k in art.report["kernels"])
    assert split > 1
    return [Executor(art.plan, make_backend("host", mode=mode, seed=3)).run(feeds)["y"]
            for mode in ("default", "shuffle")], split


def test_matmul_integer_split_exact():
    """Large operands of one sign: each slice's partial sums pass 2^24, where an fp32 value would
    round them (odd ones among them), so only their bits carried whole give the exact sum."""
    k = 32768
    a = RNG.integers(200, 256, (4, k)).astype(np.uint8)
    b = RNG.integers(90, 128, (k, 48)).astype(np.int8)
    zp = np.array(3, np.uint8)
    node = helper.make_node("MatMulInteger", ["A", "B", "za"], ["y"])
    model = _model(node, [("A", TP.UINT8, [4, k])], (TP.INT32, [4, 48]), {"B": b, "za": zp})
    want = (a.astype(np.int64) - 3) @ b.astype(np.int64)
    outs, split = _run_split(model, {"A": a})
    assert k // split * 197 * 90 > 1 << 24 and want.max() < 1 << 31 and (want % 2).any()
    for got in outs:
        np.testing.assert_array_equal(got, want.astype(np.int32))


@pytest.mark.parametrize("op", ["QLinearMatMul", "QLinearConv"])
def test_requantized_split_matches_the_unsplit_reference(op):
    """The requantizing epilogue runs once, after the slices are summed: the same bytes as the
    op's NumPy reference (integer sum, then the scale)."""
    from compiler.ops.registry import lookup
    if op == "QLinearMatMul":
        x = RNG.integers(0, 256, (2, 3072)).astype(np.uint8)
        w = RNG.integers(-128, 128, (3072, 32)).astype(np.int8)
        names = ["X", "xs", "xz", "W", "ws", "wz", "ys", "yz"]
        out_shape = [2, 32]
    else:
        x = RNG.integers(0, 256, (1, 256, 4, 4)).astype(np.uint8)
        w = RNG.integers(-128, 128, (32, 256, 3, 3)).astype(np.int8)
        names = ["X", "xs", "xz", "W", "ws", "wz", "ys", "yz"]
        out_shape = [1, 32, 4, 4]
    inits = {"xs": np.float32(0.02), "xz": np.array(128, np.uint8), "W": w, "ws": np.float32(0.01),
             "wz": np.array(0, np.int8), "ys": np.float32(2.5), "yz": np.array(100, np.uint8)}
    attrs = {"pads": [1, 1, 1, 1]} if op == "QLinearConv" else {}
    node = helper.make_node(op, names, ["y"], **attrs)
    model = _model(node, [("X", TP.UINT8, list(x.shape))], (TP.UINT8, out_shape), inits)
    ref = lookup(op, "").reference
    proto_node = _NodeView(attrs)
    want = ref(proto_node, [x, *(np.asarray(inits[n]) for n in names[1:3]), w,
                            *(np.asarray(inits[n]) for n in names[4:])], 17)[0]
    assert np.unique(want).size > 16
    for got in _run_split(model, {"X": x})[0]:
        np.testing.assert_array_equal(got, want)


class _NodeView:
    """What the registry's references read of a node: its attributes."""

    def __init__(self, attrs: dict):
        self.attrs = attrs

    def attr(self, name, default=None):
        return self.attrs.get(name, default)
