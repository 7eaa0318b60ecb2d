"""Zero-size tensors: one-node models (and a few chains) with a zero-size dimension, compiled for
h100 and run on the host harness in a poisoned arena, against onnxruntime.

ONNX semantics: an output with no elements needs no kernel (its buffer holds no bytes); a reduction
over an empty set gives the identity of its combiner (0 for sums, 1 for products, the lowest value
for max, ...), MatMul with K=0 gives zeros. Where onnxruntime refuses a case, or is wrong (an
uninitialised result), the expected values are written out from the ONNX specification. What has
no defined result is refused with a ShapeError naming the op, the node and the zero-size tensor,
never with UnsupportedOp."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from compiler.errors import ShapeError, UnsupportedOp
from compiler.pipeline import CompileOptions
from compiler.ir.plan import LaunchStep
from tests.ops.one_node import PoisonedHostBackend

F32, I64 = np.float32, np.int64


def rnd(seed: int, shape, dtype=F32) -> np.ndarray:
    """Seeded random data, never zeros (integers in [1, 5))."""
    g = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return g.integers(1, 5, size=shape).astype(dtype)
    if np.dtype(dtype) == np.bool_:
        return g.random(shape) < 0.5
    return (g.standard_normal(shape) + 0.25).astype(dtype)


class Const:
    """An input given as an initializer (compile-time constant)."""

    def __init__(self, value, dtype=I64):
        self.value = np.asarray(value, dtype=dtype)


class Case:
    def __init__(self, id, op, inputs, attrs=None, opset=18, nout=1, expect=None, kernels=None):
        # expect: output arrays from the ONNX specification, where onnxruntime refuses or is wrong;
        # kernels: how many kernels the plan must have (None: not checked; 0 for empty outputs)
        self.id, self.op, self.inputs, self.attrs = id, op, inputs, dict(attrs or {})
        self.opset, self.nout, self.expect, self.kernels = opset, nout, expect, kernels

    def __repr__(self):
        return self.id

    def model(self) -> tuple[bytes, dict]:
        names, vis, inits, feeds = [], [], [], {}
        for k, a in enumerate(self.inputs):
            if a is None:
                names.append("")
                continue
            n = f"x{k}"
            names.append(n)
            if isinstance(a, Const):
                inits.append(numpy_helper.from_array(a.value, n))
            else:
                vis.append(helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape))
                feeds[n] = a
        while names and names[-1] == "":
            names.pop()
        outs = [f"y{k}" for k in range(self.nout)]
        node = helper.make_node(self.op, names, outs, name=f"{self.op.lower()}_node", **self.attrs)
        graph = helper.make_graph([node], "g", vis, [helper.make_tensor_value_info(o, 0, None) for o in outs],
                                  initializer=inits)
        return typed_model(graph, self.opset), feeds


def typed_model(graph: onnx.GraphProto, opset: int) -> bytes:
    """The model with its outputs typed by ONNX's shape inference (the importer wants typed outputs)."""
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    known = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    for o in m.graph.output:
        o.CopyFrom(known[o.name])
    return m.SerializeToString()


def ort_run(model: bytes, feeds: dict) -> list:
    import onnxruntime as ort
    return ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feeds)


def compile_and_run(model: bytes, feeds: dict, input_shapes=()):
    from compiler import compile
    from compiler.runtime.executor import Executor
    art = compile(model, "h100", CompileOptions(input_shapes=tuple(input_shapes)))
    got = Executor(art.plan, PoisonedHostBackend()).run(feeds)
    return art, [got[n] for n in art.plan.outputs]


def assert_same(got, want, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, got.shape, want.dtype, want.shape)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-5,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def assert_no_kernel_writes_nothing(art) -> None:
    """Every launch writes at least one value that has elements."""
    types = dict(art.plan.types)
    for s in art.plan.steps:
        if isinstance(s, LaunchStep):
            outs = [types[p.value] for p in s.kernel.params if p.output]
            assert any(t.size for t in outs), (s.kernel.entry, outs)


# --- the cases ----------------------------------------------------------------------------------

def E(seed, *shape, dtype=F32):
    """An input with a zero-size dimension (random data would be here if it had elements)."""
    assert 0 in shape
    return rnd(seed, shape, dtype)


REDUCES = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
           "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]


def cases() -> list[Case]:
    h0, c0 = rnd(81, (1, 1, 2)), rnd(82, (1, 1, 2))
    c = [
        # elementwise, with broadcasting into and out of the empty axis
        Case("Relu", "Relu", [E(1, 2, 0, 3)], kernels=0),
        Case("Exp-1d", "Exp", [E(2, 0)], kernels=0),
        Case("Add-bcast", "Add", [E(3, 2, 0, 3), rnd(4, (1, 3))], kernels=0),
        Case("Mul-bcast-from-1", "Mul", [rnd(5, (3, 1)), E(6, 1, 0)], kernels=0),
        Case("Where", "Where", [rnd(7, (0, 3), np.bool_), rnd(8, (1, 3)), E(9, 0, 1)], kernels=0),
        Case("Cast", "Cast", [E(10, 4, 0)], {"to": onnx.TensorProto.INT32}, kernels=0),
        Case("Sum-3", "Sum", [E(11, 0, 3), rnd(12, (3,)), rnd(13, (1, 3))], opset=13, kernels=0),
        # contractions: K=0 gives zeros (plus Gemm's C), M=0 / N=0 / batch 0 give empty outputs
        Case("MatMul-K0", "MatMul", [E(14, 3, 0), E(15, 0, 4)], kernels=1),
        Case("MatMul-K0-batched", "MatMul", [E(16, 2, 3, 0), E(17, 2, 0, 4)], kernels=1),
        Case("MatMul-K0-int32", "MatMul", [E(18, 2, 0, dtype=np.int32), E(19, 0, 3, dtype=np.int32)], opset=13),
        Case("MatMul-K0-half", "MatMul", [E(20, 2, 0, dtype=np.float16), E(21, 0, 3, dtype=np.float16)], opset=13),
        Case("MatMul-M0", "MatMul", [E(22, 0, 5), rnd(23, (5, 4))], kernels=0),
        Case("MatMul-N0", "MatMul", [rnd(24, (3, 5)), E(25, 5, 0)], kernels=0),
        Case("MatMul-batch0", "MatMul", [E(26, 0, 3, 5), rnd(27, (5, 4))], kernels=0),
        Case("Gemm-K0", "Gemm", [E(28, 3, 0), E(29, 4, 0), rnd(30, (3, 4))], {"alpha": 1.5, "beta": 0.5, "transB": 1},
             opset=13),
        Case("Gemm-K0-const-weight", "Gemm", [E(31, 3, 0), Const(np.zeros((0, 4)), F32), Const(rnd(32, (4,)), F32)],
             opset=13),
        Case("Gemm-M0", "Gemm", [E(33, 0, 5), rnd(34, (5, 4)), rnd(35, (4,))], opset=13, kernels=0),
        Case("Einsum-K0", "Einsum", [E(36, 3, 0), E(37, 0, 4)], {"equation": "ij,jk->ik"}, opset=13),
        Case("Conv-batch0", "Conv", [E(38, 0, 3, 8, 8), Const(rnd(39, (4, 3, 3, 3)), F32)], {"pads": [1, 1, 1, 1]},
             opset=13, kernels=0),
        Case("Conv-C0-bias", "Conv", [E(40, 1, 0, 5, 5), Const(np.zeros((4, 0, 3, 3)), F32),
                                      Const(rnd(41, (4,)), F32)], opset=13),
        Case("ConvTranspose-C0-bias", "ConvTranspose", [E(42, 1, 0, 3, 3), Const(np.zeros((0, 3, 2, 2)), F32),
                                                        Const(rnd(43, (3,)), F32)], opset=11),
        # normalisations, softmax, pooling over empty tensors
        Case("Softmax-rows0", "Softmax", [E(44, 0, 4)], opset=13, kernels=0),
        Case("Softmax-axis0", "Softmax", [E(45, 3, 0)], opset=13, kernels=0),
        Case("LayerNorm-rows0", "LayerNormalization", [E(46, 0, 4), Const(rnd(47, (4,)), F32),
                                                       Const(rnd(48, (4,)), F32)], opset=17, kernels=0),
        Case("BatchNorm-N0", "BatchNormalization",
             [E(49, 0, 3, 4)] + [Const(rnd(50 + k, (3,)) ** 2 + 0.5, F32) for k in range(4)], opset=15, kernels=0),
        Case("MaxPool-N0", "MaxPool", [E(54, 0, 3, 8, 8)], {"kernel_shape": [2, 2], "strides": [2, 2]}, opset=12,
             kernels=0),
        Case("GlobalAveragePool-HW0", "GlobalAveragePool", [E(55, 1, 3, 0, 0)], opset=13,
             expect=[np.full((1, 3, 1, 1), np.nan, F32)]),   # the mean of nothing: 0/0 (onnxruntime refuses)
        Case("GlobalMaxPool-HW0", "GlobalMaxPool", [E(56, 1, 3, 0)], opset=13,
             expect=[np.full((1, 3, 1), -np.inf, F32)]),     # ReduceMax's identity (onnxruntime refuses)
        # movement and indexing
        Case("Concat-empty-piece", "Concat", [rnd(57, (2, 3)), E(58, 0, 3), rnd(59, (1, 3))], {"axis": 0}, opset=13),
        Case("Concat-all-empty", "Concat", [E(60, 0, 3), E(61, 0, 3)], {"axis": 0}, opset=13, kernels=0),
        Case("Slice-to-empty", "Slice", [rnd(62, (4, 3)), Const([2]), Const([2]), Const([0])], opset=13, kernels=0),
        Case("Gather-empty-indices", "Gather", [rnd(63, (5, 3)), np.zeros((0, 2), I64)], opset=13, kernels=0),
        Case("Gather-from-empty-columns", "Gather", [E(64, 5, 0), np.array([1, 3], I64)], opset=13, kernels=0),
        Case("GatherElements-empty", "GatherElements", [rnd(65, (3, 4)), np.zeros((0, 4), I64)], opset=13,
             kernels=0),
        Case("Reshape", "Reshape", [E(66, 2, 0, 3), Const([3, 0])], {"allowzero": 1}, opset=14, kernels=0),
        Case("Transpose", "Transpose", [E(67, 2, 0, 3)], {"perm": [2, 0, 1]}, opset=13, kernels=0),
        Case("Expand-to-empty", "Expand", [rnd(68, (1, 3)), Const([0, 3])], opset=13, kernels=0),
        Case("Tile-zero-repeats", "Tile", [rnd(69, (2, 3)), Const([0, 2])], opset=13, kernels=0),
        Case("Pad-constant", "Pad", [E(70, 2, 0), Const([0, 1, 0, 2]), Const(1.5, F32)], opset=18, kernels=1),
        Case("Resize-batch0", "Resize", [E(71, 0, 3, 4, 4), None, Const([1, 1, 2, 2], F32)], {"mode": "nearest"},
             kernels=0),
        Case("Split-empty-piece", "Split", [rnd(72, (4, 3)), Const([4, 0])], opset=18, nout=2),
        Case("TopK-k0", "TopK", [rnd(73, (3, 5)), Const([0])], {"axis": 1}, opset=13, nout=2, kernels=0),
        Case("CumSum-empty-axis", "CumSum", [E(74, 3, 0), Const(1, np.int32)], opset=14, kernels=0),
        Case("ScatterND-no-updates", "ScatterND", [rnd(75, (3, 4)), np.zeros((0, 1), I64), E(76, 0, 4)], opset=18),
        Case("ArgMax-rows0", "ArgMax", [E(77, 0, 3)], {"axis": 1}, opset=13, kernels=0),
        # a recurrence over no time steps: Y is empty and the final states are the initial ones
        # (onnxruntime gives zeros, or memory it never initialised)
        Case("LSTM-seq0", "LSTM", [E(78, 0, 1, 3), Const(rnd(79, (1, 8, 3)), F32), Const(rnd(80, (1, 8, 2)), F32),
                                   None, None, h0, c0],
             {"hidden_size": 2}, opset=14, nout=3, expect=[np.zeros((0, 1, 1, 2), F32), h0, c0]),
        # DynamicQuantizeLinear of nothing behaves as of all zeros (scale 1/255, as the ONNX evaluator
        # gives for zeros; onnxruntime says 1.0 for both)
        Case("DynamicQuantizeLinear", "DynamicQuantizeLinear", [E(83, 0, 3)], opset=13, nout=3,
             expect=[np.zeros((0, 3), np.uint8), np.array(1 / 255, F32), np.array(0, np.uint8)]),
        Case("NLLLoss-mean-N0", "NegativeLogLikelihoodLoss", [E(84, 0, 3), np.zeros((0,), I64)], opset=13),
    ]
    # reductions: over an empty axis (the identity), over a non-empty axis of an empty tensor (empty)
    for k, op in enumerate(REDUCES):
        c.append(Case(f"{op}-empty-axis", op, [E(100 + k, 2, 0, 3), Const([1])], {"keepdims": 1}, kernels=1))
        c.append(Case(f"{op}-all-of-empty", op, [E(120 + k, 0, 3)], {"keepdims": 0}, kernels=1))
        c.append(Case(f"{op}-other-axis", op, [E(140 + k, 2, 0, 3), Const([2])], {"keepdims": 0}, kernels=0))
    for dt in (np.int32, np.int64):
        for op in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceMean", "ReduceL2", "ReduceLogSum",
                   "ReduceLogSumExp"):
            c.append(Case(f"{op}-{np.dtype(dt).name}", op, [E(160, 3, 0, dtype=dt), Const([1])], {"keepdims": 0}))
    c.append(Case("ReduceMin-half", "ReduceMin", [E(170, 3, 0, dtype=np.float16), Const([1])], {"keepdims": 0}))
    c.append(Case("ReduceMax-bool", "ReduceMax", [E(171, 3, 0, dtype=np.bool_), Const([1])], {"keepdims": 0},
                  opset=20, expect=[np.zeros((3,), np.bool_)]))   # False < True (onnxruntime refuses)
    c.append(Case("ReduceSum-opset13", "ReduceSum", [E(172, 2, 0), Const([1])], {"keepdims": 0}, opset=13))
    c.append(Case("ReduceMax-axes-attribute", "ReduceMax", [E(173, 2, 0)], {"keepdims": 0, "axes": [1]}, opset=13))
    return c


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_matches_onnx_semantics(case: Case):
    model, feeds = case.model()
    art, got = compile_and_run(model, feeds)
    want = case.expect if case.expect is not None else ort_run(model, feeds)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert_same(g, w, f"{case.id} output {k}")
    assert_no_kernel_writes_nothing(art)
    if case.kernels is not None:
        assert len(art.plan.kernels()) == case.kernels, [k.entry for k in art.plan.kernels()]


def _chain_model() -> tuple[bytes, dict]:
    """x (N, 4) -> Relu -> MatMul W -> [Concat with a constant row -> ReduceSum over rows], ReduceMax,
    with the empty intermediate also a graph output."""
    w = numpy_helper.from_array(rnd(200, (4, 3)), "w")
    row = numpy_helper.from_array(rnd(201, (1, 3)), "row")
    axes = numpy_helper.from_array(np.array([0], I64), "axes")
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "w"], ["h"], name="matmul"),
             helper.make_node("Concat", ["h", "row"], ["c"], axis=0, name="concat"),
             helper.make_node("ReduceSum", ["c", "axes"], ["s"], keepdims=0, name="sum"),
             helper.make_node("ReduceMax", ["h", "axes"], ["m"], keepdims=0, name="max")]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info(n, 0, None) for n in ("s", "m", "h")],
                              initializer=[w, row, axes])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 10
    for o, shape in zip(m.graph.output, ((3,), (3,), ("N", 3))):
        o.CopyFrom(helper.make_tensor_value_info(o.name, onnx.TensorProto.FLOAT, shape))
    return m.SerializeToString(), {"x": np.zeros((0, 4), F32)}


def test_empty_intermediates_flow_through_a_chain():
    """A dynamic dimension fixed to 0: the empty intermediates have no producer and no arena bytes;
    what reads them (Concat, the reductions) still runs and matches onnxruntime."""
    model, feeds = _chain_model()
    art, got = compile_and_run(model, feeds, input_shapes=[("x", (0, 4))])
    for g, w in zip(got, ort_run(model, feeds)):
        assert_same(g, w)
    assert_no_kernel_writes_nothing(art)
    assert {n for k in art.plan.kernels() for n in k.ops} == {"concat", "sum", "max"}
    types, arena = dict(art.plan.types), dict(art.plan.arena)
    assert arena["h"] == 0 and types["h"].nbytes == 0
    assert 0 < art.plan.arena_bytes <= sum(-(-types[n].nbytes // 256) * 256 for n in ("c", "s", "m"))


def test_memory_plan_gives_empty_values_no_bytes():
    from compiler.ir.kernel import Kernel, KernelParam
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import TensorType
    from compiler.ir.verify import verify_plan
    from compiler.passes.memory_plan import plan_memory
    from compiler.ir.plan import Plan

    def kernel(reads, write):
        params = tuple(KernelParam("float", r, False) for r in reads) + (KernelParam("float", write, True),)
        return Kernel(entry=f"k_{write}", source="", params=params, grid=(1, 1, 1), block=(32, 1, 1))

    types = {"x": TensorType(DType.float32, (4,)), "e": TensorType(DType.float32, (0, 4)),
             "a": TensorType(DType.float32, (4,)), "y": TensorType(DType.float32, (4,))}
    # "e" has no writer (it is empty); "a" and "y" read it
    plan = Plan(inputs=("x",), outputs=("y", "e"), types=tuple(types.items()), constants=(),
                steps=(LaunchStep(kernel(["x", "e"], "a")), LaunchStep(kernel(["a", "e"], "y"))))
    verify_plan(plan)
    planned = plan_memory(plan)
    verify_plan(planned)
    arena = dict(planned.arena)
    assert arena["e"] == 0 and arena["a"] != arena["y"]
    assert planned.arena_bytes == 512


# --- refused: no defined result -----------------------------------------------------------------

REFUSED = [
    (Case("ArgMax-empty-axis", "ArgMax", [E(300, 2, 0)], {"axis": 1}, opset=13), "x0", [2, 0]),
    (Case("Pad-reflect-empty-axis", "Pad", [E(301, 2, 0), Const([0, 1, 0, 1])], {"mode": "reflect"}), "x0", [2, 0]),
    (Case("Pad-edge-empty-axis", "Pad", [E(302, 2, 0), Const([0, 1, 0, 1])], {"mode": "edge"}), "x0", [2, 0]),
    (Case("Gather-from-empty-axis", "Gather", [E(303, 0, 3), np.array([0, 1], I64)], opset=13), "x0", [0, 3]),
    (Case("Gather-from-empty-axis-const", "Gather", [E(304, 0, 3), Const([0])], opset=13), "x0", [0, 3]),
    (Case("GatherElements-from-empty-axis", "GatherElements", [E(305, 3, 0), rnd(307, (3, 2), I64)], {"axis": 1},
          opset=13), "x0", [3, 0]),
    (Case("GatherND-from-empty-axis", "GatherND", [E(306, 0, 4), rnd(308, (2, 1), I64)], opset=13), "x0", [0, 4]),
]


@pytest.mark.parametrize("case,tensor,shape", REFUSED, ids=[c.id for c, _, _ in REFUSED])
def test_refused_with_a_shape_error_naming_the_tensor(case: Case, tensor: str, shape: list):
    model, feeds = case.model()
    with pytest.raises(Exception):
        ort_run(model, feeds)   # onnxruntime refuses these too
    with pytest.raises(ShapeError) as info:
        compile_and_run(model, feeds)
    err = info.value
    assert not isinstance(err, UnsupportedOp) and err.category == "shape"
    assert err.node == f"{case.op.lower()}_node"
    text = err.one_line()
    assert case.op in text and f"'{tensor}' {shape}" in text, text


def test_a_lowering_refusal_on_a_zero_size_tensor_is_a_shape_error():
    """A channel count of 0 that does not match the weight: ShapeError naming X, not UnsupportedOp."""
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x0", "x1"], ["y0"], name="conv_node")], "g",
        [helper.make_tensor_value_info("x0", onnx.TensorProto.FLOAT, [1, 0, 5, 5])],
        [helper.make_tensor_value_info("y0", onnx.TensorProto.FLOAT, [1, 2, 3, 3])],
        initializer=[numpy_helper.from_array(rnd(311, (2, 1, 3, 3)), "x1")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 10
    with pytest.raises(ShapeError) as info:
        compile_and_run(m.SerializeToString(), {"x0": E(310, 1, 0, 5, 5)})
    assert not isinstance(info.value, UnsupportedOp)
    assert info.value.node == "conv_node" and "'x0' [1, 0, 5, 5]" in info.value.one_line()


def test_a_lowering_crash_on_a_zero_size_tensor_is_a_shape_error(monkeypatch):
    """A lowering that fails on a zero-size tensor reports a ShapeError naming it (with the cause)."""
    import dataclasses

    from compiler.ops import registry
    registry.lookup("Concat")

    def broken(ctx):
        raise ZeroDivisionError("integer modulo by zero")

    for key in [("", "Concat"), ("ai.onnx", "Concat")]:
        monkeypatch.setitem(registry.REGISTRY, key, dataclasses.replace(registry.REGISTRY[key], lower=broken))
    case = next(c for c in CASES if c.id == "Concat-empty-piece")
    model, feeds = case.model()
    with pytest.raises(ShapeError) as info:
        compile_and_run(model, feeds)
    assert "'x1' [0, 3]" in info.value.one_line() and "ZeroDivisionError" in info.value.one_line()
