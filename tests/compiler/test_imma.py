"""The imma stage (compiler/passes/imma.py): an integer contraction over a constant weight gets raw
8-bit operands (the weight's zero point applied at compile time, the other operand's moved to the
epilogue as zx * sum_k w') and runs on the integer mma of tc_gemm where the micro-model prices it
faster; the results are the same bits as the ops' definitions, on the host harness in both block
orders. Contractions it cannot move keep their form and kernels, and `--disable imma` leaves every
plan as it was."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as TP, helper, numpy_helper

from compiler import compile
from compiler.ops.registry import lookup
from compiler.pipeline import CompileOptions, plan_before
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(21)


def _model(node, inputs, out, inits, opset=17) -> bytes:
    g = helper.make_graph([node], "m", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info("y", *out)],
                          [numpy_helper.from_array(np.asarray(a), n) for n, a in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _reference(node, feeds, inits, names):
    """The op's NumPy reference (compiler/ops: integer sums, then the requantization)."""
    vals = {**feeds, **inits}
    ref = lookup(node.op_type).reference
    return ref(_Node(node), [vals[n] if n else None for n in names], 17)[0]


class _Node:
    """What the references read of a node: its op type and attributes."""

    def __init__(self, node):
        self.op_type = node.op_type
        self.name = node.name
        self._attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def attr(self, name, default=None):
        return self._attrs.get(name, default)


def _integer_mma(art) -> bool:
    return any(k["config"].get("precision") == "int8" and k["config"].get("elem") in ("int8", "uint8")
               for k in art.report["kernels"])


def _run(model: bytes, feeds: dict, disable=()) -> tuple[list[np.ndarray], object]:
    art = compile(model, "h100", CompileOptions(build=False, disable=tuple(disable)))
    outs = [Executor(art.plan, make_backend("host", mode=mode, seed=2)).run(feeds)["y"]
            for mode in ("default", "shuffle")]
    return outs, art


def _matmul_integer(a_shape, b, za, zb):
    node = helper.make_node("MatMulInteger", ["A", "B", "za", "zb"], ["y"])
    inits = {"B": b, "za": za, "zb": zb}
    out = [*a_shape[:-1], b.shape[-1]]
    return node, _model(node, [("A", TP.UINT8, list(a_shape))], (TP.INT32, out), inits), inits


@pytest.mark.parametrize("case", ["scalar", "per_row_a_per_column_b", "shifted_uint8", "batched"])
def test_matmul_integer_on_the_integer_mma_is_exact(case):
    M, K, N = 48, 192, 80
    if case == "scalar":
        b = RNG.integers(-128, 128, (K, N)).astype(np.int8)
        za, zb = np.array(131, np.uint8), np.array(0, np.int8)
    elif case == "per_row_a_per_column_b":      # zero points of A per row, of B per column: B - zb fits int8
        zb = RNG.integers(-20, 20, N).astype(np.int8)
        b = (RNG.integers(-100, 100, (K, N)) + zb).astype(np.int8)
        za = RNG.integers(0, 256, M).astype(np.uint8)
    elif case == "shifted_uint8":                # a uint8 weight around 128: B - zb fits int8
        b = RNG.integers(0, 256, (K, N)).astype(np.uint8)
        za, zb = np.array(7, np.uint8), np.array(128, np.uint8)
    else:
        b = RNG.integers(-128, 128, (3, K, N)).astype(np.int8)
        za, zb = np.array(90, np.uint8), np.array(0, np.int8)
    a_shape = (3, M, K) if case == "batched" else (M, K)
    node, model, inits = _matmul_integer(a_shape, b, za, zb)
    a = RNG.integers(0, 256, a_shape).astype(np.uint8)
    want = _reference(node, {"A": a}, inits, ["A", "B", "za", "zb"])
    outs, art = _run(model, {"A": a})
    assert _integer_mma(art), art.report["kernels"]
    for got in outs:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op", ["QLinearConv", "ConvInteger"])
def test_padded_convolution_reads_the_zero_point_at_its_pads(op):
    """x - zx is 0 at a pad: with x read raw, the pad reads zx, and zx * sum_k w' comes off in the
    epilogue. Strided, padded, with a per-channel weight zero point."""
    C, H, M = 32, 23, 64
    zw = RNG.integers(-10, 10, M).astype(np.int8)
    w = (RNG.integers(-110, 110, (M, C, 3, 3)) + zw[:, None, None, None]).astype(np.int8)
    x = RNG.integers(0, 256, (2, C, H, H)).astype(np.uint8)
    attrs = dict(pads=[1, 2, 1, 0], strides=[2, 1])
    if op == "QLinearConv":
        names = ["X", "xs", "xz", "W", "ws", "wz", "ys", "yz", "B"]
        inits = {"xs": np.array(0.02, np.float32), "xz": np.array(121, np.uint8), "W": w,
                 "ws": (RNG.random(M) * 0.01 + 1e-3).astype(np.float32), "wz": zw,
                 "ys": np.array(0.7, np.float32), "yz": np.array(120, np.uint8),
                 "B": RNG.integers(-3000, 3000, M).astype(np.int32)}
        out_t = TP.UINT8
    else:
        names = ["X", "W", "xz", "wz"]
        inits = {"W": w, "xz": np.array(121, np.uint8), "wz": zw}
        out_t = TP.INT32
    node = helper.make_node(op, names, ["y"], **attrs)
    out_shape = [2, M, 12, 23]
    model = _model(node, [("X", TP.UINT8, [2, C, H, H])], (out_t, out_shape), inits)
    want = _reference(node, {"X": x}, inits, names)
    assert list(want.shape) == out_shape
    outs, art = _run(model, {"X": x})
    assert _integer_mma(art), art.report["kernels"]
    for got in outs:
        np.testing.assert_array_equal(got, want)


def _int8_specs(model: bytes) -> list:
    return [s for s in plan_before("welder", model).specs() if getattr(s, "precision", None) == "int8"]


def test_what_cannot_move_keeps_its_form():
    # a weight whose shifted values pass 8 bits: int8 values minus -100 reach 227 and fall to -28
    b = RNG.integers(-128, 128, (64, 32)).astype(np.int8)
    node, model, inits = _matmul_integer((16, 64), b, np.array(3, np.uint8), np.array(-100, np.int8))
    assert not _int8_specs(model)
    a = RNG.integers(0, 256, (16, 64)).astype(np.uint8)
    outs, art = _run(model, {"A": a})
    assert not _integer_mma(art)
    for got in outs:
        np.testing.assert_array_equal(got, _reference(node, {"A": a}, inits, ["A", "B", "za", "zb"]))
    # two run-time operands: their zero points would need sums at run time
    node = helper.make_node("MatMulInteger", ["A", "B", "za"], ["y"])
    model = _model(node, [("A", TP.UINT8, [16, 64]), ("B", TP.INT8, [64, 32])], (TP.INT32, [16, 32]),
                   {"za": np.array(5, np.uint8)})
    assert not _int8_specs(model)


@pytest.mark.parametrize("zero_points", [False, True])
def test_two_run_time_operands_without_zero_points(zero_points):
    """Symmetric int8 x int8 (as torch._int_mm takes them): the products are the mma's already,
    whether the zero points are absent or constants of zeros; B read n-contiguous takes the
    transposing loader."""
    names = ["A", "B", "za", "zb"] if zero_points else ["A", "B"]
    inits = {"za": np.array(0, np.int8), "zb": np.zeros(80, np.int8)} if zero_points else {}
    node = helper.make_node("MatMulInteger", names, ["y"])
    model = _model(node, [("A", TP.INT8, [64, 160]), ("B", TP.INT8, [160, 80])], (TP.INT32, [64, 80]), inits)
    a = RNG.integers(-128, 128, (64, 160)).astype(np.int8)
    b = RNG.integers(-128, 128, (160, 80)).astype(np.int8)
    outs, art = _run(model, {"A": a, "B": b})
    assert _integer_mma(art), art.report["kernels"]
    for got in outs:
        np.testing.assert_array_equal(got, a.astype(np.int32) @ b.astype(np.int32))


def test_disable_imma_leaves_the_plan_as_it_was():
    b = RNG.integers(-128, 128, (256, 96)).astype(np.int8)
    node, model, inits = _matmul_integer((64, 256), b, np.array(77, np.uint8), np.array(0, np.int8))
    a = RNG.integers(0, 256, (64, 256)).astype(np.uint8)
    on, art_on = _run(model, {"A": a})
    off, art_off = _run(model, {"A": a}, disable=["imma"])
    assert _integer_mma(art_on) and not _integer_mma(art_off)
    np.testing.assert_array_equal(on[0], off[0])
    consts = {d: {n for n, _ in plan_before("welder", model, options=CompileOptions(disable=d)).constants}
              for d in ((), ("imma",))}
    assert {"B.imma", "B.imma_sums"} <= consts[()] and "B" not in consts[()]     # B's only reader moved
    assert "B" in consts["imma",] and not any(n.startswith("B.imma") for n in consts["imma",])
    imma = next(t for t in art_on.report["techniques"] if t["stage"] == "imma")
    assert imma["enabled"] and imma["effect"]["contractions"] == 1 and imma["effect"]["integer_mma_kernels"] == 1
    imma_off = next(t for t in art_off.report["techniques"] if t["stage"] == "imma")
    assert not imma_off["enabled"]


def test_the_sums_wrap_as_the_definition_does():
    """Products of 255 * -128 over K = 70000 pass int32: the rewritten sum equals the definition's
    modulo 2^32, bit for bit."""
    K = 70000
    b = np.full((K, 8), -128, np.int8)
    b[::5] = -100
    node, model, inits = _matmul_integer((2, K), b, np.array(1, np.uint8), np.array(0, np.int8))
    a = np.full((2, K), 255, np.uint8)
    want = _reference(node, {"A": a}, inits, ["A", "B", "za", "zb"])
    exact = (a.astype(np.int64) - 1) @ b.astype(np.int64)
    assert (exact != want).any()          # the definition's int32 sums wrapped
    outs, art = _run(model, {"A": a})
    assert _int8_specs(model)
    for got in outs:
        np.testing.assert_array_equal(got, want)
