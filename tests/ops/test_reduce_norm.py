"""Reductions and normalisations: references against ONNX's ReferenceEvaluator, lowerings through NVRTC.

Every case is one ONNX node on seeded random data. (a) our NumPy reference agrees with
onnx.reference.ReferenceEvaluator; (b) the lowering emits kernels that build for sm_90 and bind
only values they know."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from compiler.ir.kernel import Kernel
from compiler.kinds.row import ROW_OPS, RowOperand, render_row_kernel
from compiler.errors import UnsupportedOp
from compiler.frontend.convert import plain_attribute
from compiler.ir.dtypes import DType
from compiler.ir.graph import Node, TensorType
from compiler.ops.registry import LowerCtx, lookup
from compiler.ir.plan import AliasStep, LaunchStep
from tests.ops.one_node import emit_rendered

ARCH = "sm_90"


@dataclass
class Case:
    """One node: op, opset, attributes, inputs (data and constant inputs), how many outputs."""

    id: str
    op: str
    opset: int
    inputs: list                      # np.ndarray or None (omitted optional input)
    attrs: dict = field(default_factory=dict)
    consts: tuple[int, ...] = ()      # inputs that are compile-time constants (axes, k, axis)
    n_out: int = 1
    onnx_check: bool = True           # compare with ReferenceEvaluator (False where it is wrong)


def rnd(seed: int, shape, dtype=np.float32, lo=None, hi=None) -> np.ndarray:
    """Seeded random data, never all zeros: normal, or uniform in [lo, hi); integers in [-9, 9]."""
    g = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        lo_, hi_ = (0 if dt.kind == "u" else -9) if lo is None else lo, 10 if hi is None else hi
        return g.integers(lo_, hi_, size=shape).astype(dt)
    if dt == np.bool_:
        return g.random(shape) < 0.5
    a = g.standard_normal(shape) if lo is None else g.uniform(lo, hi, size=shape)
    return a.astype(dt)


def i64(*v) -> np.ndarray:
    return np.array(v, dtype=np.int64)


REDUCE_OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]


def _reduce_data(op: str, seed: int, shape, dtype) -> np.ndarray:
    if op == "ReduceLogSum":
        return rnd(seed, shape, dtype, 0.1, 2.0)
    if op == "ReduceProd":
        return rnd(seed, shape, dtype, 0.6, 1.4) if np.dtype(dtype).kind == "f" else rnd(seed, shape, dtype, -2, 3)
    return rnd(seed, shape, dtype)


def reduce_cases() -> list[Case]:
    cases = []
    shape = (3, 4, 5)
    for k, op in enumerate(REDUCE_OPS):
        as_input = 13 if op == "ReduceSum" else 18
        for opset in (11, 18):
            for axes, keep in (((1,), 1), ((0, 2), 0), ((-1,), 0), (None, 1)):
                x = _reduce_data(op, 100 + k, shape, np.float32)
                attrs = {"keepdims": keep}
                inputs, consts = [x], ()
                if axes is not None:
                    if opset >= as_input:
                        inputs, consts = [x, i64(*axes)], (1,)
                    else:
                        attrs["axes"] = list(axes)
                cases.append(Case(f"{op}-o{opset}-ax{axes}-k{keep}", op, opset, inputs, attrs, consts))
        # other dtypes
        for dt in (np.float16, np.float64, np.int32, np.int64):
            if op in ("ReduceLogSumExp", "ReduceLogSum", "ReduceL2", "ReduceMean") and np.dtype(dt).kind == "i":
                continue   # integer log/sqrt/mean: defined by truncation, ReferenceEvaluator rejects some
            x = _reduce_data(op, 200 + k, (4, 6), dt)
            cases.append(Case(f"{op}-o18-{np.dtype(dt).name}", op, 18, [x, i64(1)], {"keepdims": 0}, (1,)))
        # noop_with_empty_axes, and empty axes meaning "all"
        x = _reduce_data(op, 300 + k, (2, 3), np.float32)
        noop_opset = 13 if op == "ReduceSum" else 18
        cases.append(Case(f"{op}-noop", op, noop_opset, [x, np.zeros((0,), np.int64)],
                          {"keepdims": 1, "noop_with_empty_axes": 1}, (1,)))
        cases.append(Case(f"{op}-emptyaxes-all", op, noop_opset, [x, np.zeros((0,), np.int64)],
                          {"keepdims": 0}, (1,)))
        # a reduction over an empty axis: every output is the identity (ReduceMean's is undefined in
        # ONNX: the evaluator gives NaN, onnxruntime and Brickyard 0; test_empty_tensors.py checks it)
        cases.append(Case(f"{op}-emptyset", op, 18, [np.zeros((2, 0, 4), np.float32), i64(1)], {"keepdims": 1}, (1,),
                          onnx_check=op != "ReduceMean"))
    cases.append(Case("ReduceMax-bool", "ReduceMax", 20, [rnd(5, (3, 4), np.bool_), i64(1)], {"keepdims": 0}, (1,)))
    cases.append(Case("ReduceMean-int32-trunc", "ReduceMean", 18, [rnd(6, (3, 7), np.int32), i64(1)],
                      {"keepdims": 0}, (1,)))
    return cases


def arg_cases() -> list[Case]:
    cases = []
    for op in ("ArgMax", "ArgMin"):
        for axis, keep in ((0, 1), (1, 0), (-1, 1)):
            cases.append(Case(f"{op}-ax{axis}-k{keep}", op, 13, [rnd(11, (3, 4, 5))], {"axis": axis, "keepdims": keep}))
        # integer data with ties: first vs last index
        for last in (0, 1):
            cases.append(Case(f"{op}-ties-last{last}", op, 13, [rnd(12, (4, 9), np.int32, -2, 3)],
                              {"axis": 1, "keepdims": 0, "select_last_index": last}))
        cases.append(Case(f"{op}-f16", op, 13, [rnd(13, (5, 6), np.float16)], {"axis": 0}))
    return cases


def softmax_cases() -> list[Case]:
    cases = []
    for op in ("Softmax", "LogSoftmax", "Hardmax"):
        # opset < 13 coerces to 2-D, which onnx's evaluator ignores: see test_softmax_2d_coercion
        for opset, axis in ((11, 1), (11, 0), (11, 2), (13, -1), (13, 1), (13, 0)):
            cases.append(Case(f"{op}-o{opset}-ax{axis}", op, opset, [rnd(21, (3, 4, 5))], {"axis": axis},
                              onnx_check=opset >= 13 or axis == 2))
        cases.append(Case(f"{op}-o13-default", op, 13, [rnd(22, (2, 3, 7))]))
        cases.append(Case(f"{op}-o11-default", op, 11, [rnd(23, (2, 3, 7))], onnx_check=False))
        for dt in (np.float16, np.float64):
            cases.append(Case(f"{op}-{np.dtype(dt).name}", op, 13, [rnd(24, (4, 33), dt)]))
        # long rows: one block per row with shared-memory partials
        cases.append(Case(f"{op}-longrow", op, 13, [rnd(25, (3, 3000)) * 4]))
    return cases


def misc_cases() -> list[Case]:
    cases = []
    for exclusive in (0, 1):
        for reverse in (0, 1):
            for axis in (0, -1):
                cases.append(Case(f"CumSum-e{exclusive}-r{reverse}-ax{axis}", "CumSum", 14,
                                  [rnd(31, (4, 6)), i64(axis).reshape(())],
                                  {"exclusive": exclusive, "reverse": reverse}, (1,)))
    cases.append(Case("CumSum-int32-axis32", "CumSum", 11, [rnd(32, (3, 5), np.int32), np.array(1, np.int32)], {}, (1,)))
    for axis in (0, 1, -1):   # the axis as a run-time input
        cases.append(Case(f"CumSum-runtime-axis{axis}", "CumSum", 14, [rnd(34, (3, 5)), i64(axis).reshape(())],
                          {"reverse": 1}))
    cases.append(Case("CumSum-runtime-axis-int32-excl", "CumSum", 14, [rnd(35, (2, 3, 4)), np.array(1, np.int32)],
                      {"exclusive": 1}))
    cases.append(Case("CumSum-f16", "CumSum", 14, [rnd(33, (2, 9), np.float16), i64(1).reshape(())], {}, (1,)))
    for largest in (1, 0):
        for axis in (-1, 0):
            cases.append(Case(f"TopK-l{largest}-ax{axis}", "TopK", 11, [rnd(41, (5, 6)), i64(3)],
                              {"axis": axis, "largest": largest}, (1,), n_out=2))
        cases.append(Case(f"TopK-ties-l{largest}", "TopK", 11, [rnd(42, (3, 10), np.int32, -2, 3), i64(4)],
                          {"largest": largest, "sorted": 1}, (1,), n_out=2))
    cases.append(Case("TopK-o1-attr", "TopK", 1, [rnd(43, (4, 7))], {"k": 2, "axis": 1}, n_out=2))
    cases.append(Case("TopK-o10", "TopK", 10, [rnd(44, (2, 3, 8)), i64(5)], {"axis": 2}, (1,), n_out=2))
    return cases


def norm_cases() -> list[Case]:
    cases = []
    x = rnd(51, (2, 3, 8))
    for axis in (-1, 1):
        nshape = x.shape[axis:]
        cases.append(Case(f"LayerNorm-ax{axis}", "LayerNormalization", 17,
                          [x, rnd(52, nshape), rnd(53, nshape)], {"axis": axis, "epsilon": 1e-3}, n_out=3))
    cases.append(Case("LayerNorm-nobias-yonly", "LayerNormalization", 17, [x, rnd(54, (8,)), None], {}))
    cases.append(Case("LayerNorm-scale-bcast", "LayerNormalization", 17, [x, rnd(55, (1, 8)), rnd(56, (1, 8))],
                      {"axis": 1}, n_out=1))
    cases.append(Case("LayerNorm-f16", "LayerNormalization", 17,
                      [rnd(57, (4, 40), np.float16), rnd(58, (40,), np.float16), rnd(59, (40,), np.float16)], {}, n_out=3))
    cases.append(Case("LayerNorm-longrow", "LayerNormalization", 17,
                      [rnd(60, (2, 2500)) + 3, rnd(61, (2500,)), rnd(62, (2500,))], {}, n_out=3))
    if onnx.defs.has("RMSNormalization"):
        for axis in (-1, -2):
            cases.append(Case(f"RMSNorm-ax{axis}", "RMSNormalization", 23,
                              [x, rnd(63, x.shape[axis:])], {"axis": axis, "epsilon": 1e-4}))
        cases.append(Case("RMSNorm-f16", "RMSNormalization", 23,
                          [rnd(64, (3, 64), np.float16), rnd(65, (64,), np.float16)], {}))
    bn = [rnd(70, (2, 3, 4, 5)), rnd(71, (3,)), rnd(72, (3,)), rnd(73, (3,)), rnd(74, (3,), lo=0.5, hi=2.0)]
    cases.append(Case("BatchNorm-o15", "BatchNormalization", 15, bn, {"epsilon": 1e-3, "training_mode": 0}))
    # onnx's evaluator takes the schema's default momentum as "training" at opset 9: see
    # test_batchnorm_opset9_is_inference
    cases.append(Case("BatchNorm-o9", "BatchNormalization", 9, bn, {}, onnx_check=False))
    cases.append(Case("BatchNorm-o15-rank2", "BatchNormalization", 15, [rnd(75, (4, 3))] + bn[1:], {}))
    # training mode: the batch's statistics, and the running ones the momentum mixes
    cases.append(Case("BatchNorm-o15-training", "BatchNormalization", 15, bn,
                      {"epsilon": 1e-3, "momentum": 0.8, "training_mode": 1}, n_out=3))
    # a weight standardised as NFNet's convolutions export it: [1, C, fan-in], Y only, momentum 1
    w = [rnd(76, (1, 6, 27)), rnd(77, (6,)), rnd(78, (6,)), rnd(79, (6,)), rnd(69, (6,), lo=0.5, hi=2.0)]
    cases.append(Case("BatchNorm-o15-training-weight", "BatchNormalization", 15, w,
                      {"momentum": 1.0, "training_mode": 1}))
    cases.append(Case("BatchNorm-o15-training-f16", "BatchNormalization", 15,
                      [a.astype(np.float16) for a in bn], {"training_mode": 1}, n_out=3))
    cases.append(Case("InstanceNorm", "InstanceNormalization", 6,
                      [rnd(80, (2, 3, 4, 5)), rnd(81, (3,)), rnd(82, (3,))], {"epsilon": 1e-3}))
    cases.append(Case("InstanceNorm-3d", "InstanceNormalization", 6,
                      [rnd(83, (2, 4, 7)), rnd(84, (4,)), rnd(85, (4,))], {}))
    gx = rnd(90, (2, 6, 3, 2))
    cases.append(Case("GroupNorm-o18", "GroupNormalization", 18, [gx, rnd(91, (3,)), rnd(92, (3,))],
                      {"num_groups": 3, "epsilon": 1e-3}))
    cases.append(Case("GroupNorm-o21", "GroupNormalization", 21, [gx, rnd(93, (6,)), rnd(94, (6,))],
                      {"num_groups": 2}))
    for axis in (-1, 0, 1):
        cases.append(Case(f"LpNorm-p2-ax{axis}", "LpNormalization", 1, [rnd(100, (3, 4, 5))], {"axis": axis, "p": 2}))
    # onnx's ReferenceEvaluator sums x**1 without abs for p=1: positive data keeps it comparable
    cases.append(Case("LpNorm-p1", "LpNormalization", 1, [rnd(101, (4, 6), lo=0.1, hi=2.0)], {"axis": 1, "p": 1}))
    cases.append(Case("MVN-default", "MeanVarianceNormalization", 13, [rnd(110, (2, 3, 4, 5))]))
    cases.append(Case("MVN-axes1", "MeanVarianceNormalization", 13, [rnd(111, (3, 5, 2))], {"axes": [1]}))
    return cases


ALL_CASES = reduce_cases() + arg_cases() + softmax_cases() + misc_cases() + norm_cases()


def _names(case: Case) -> list[str]:
    return ["" if a is None else f"in{k}" for k, a in enumerate(case.inputs)]


def make_model(case: Case) -> onnx.ModelProto:
    names = _names(case)
    outs = [f"out{k}" for k in range(case.n_out)]
    node = helper.make_node(case.op, names, outs, **case.attrs)
    graph_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
                    for n, a in zip(names, case.inputs) if a is not None]
    graph = helper.make_graph([node], case.id, graph_inputs,
                              [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in outs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)])


def ir_node(case: Case) -> Node:
    proto = make_model(case).graph.node[0]
    attrs = tuple(sorted((a.name, plain_attribute(a, op=case.op, node=case.id)) for a in proto.attribute))
    return Node(case.op, case.id, tuple(proto.input), tuple(proto.output), attrs)


def inferred_types(model: onnx.ModelProto) -> list:
    """The output element types ONNX shape inference gives (None where it gives none)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    out = []
    for o in inferred.graph.output:
        code = o.type.tensor_type.elem_type
        out.append(DType.from_onnx(code).np if code else None)
    return out


def run_reference(case: Case) -> list[np.ndarray]:
    return [np.asarray(o) for o in lookup(case.op).reference(ir_node(case), list(case.inputs), case.opset)]


def tolerance(dt: np.dtype) -> tuple[float, float]:
    if dt == np.float16:
        return 2e-2, 2e-2
    if dt == np.float64:
        return 1e-9, 1e-12
    return 2e-5, 2e-6


def _ids(cases):
    return [c.id for c in cases]


# --- (a) references against onnx's ReferenceEvaluator --------------------------------------------------

@pytest.mark.parametrize("case", [c for c in ALL_CASES if c.onnx_check], ids=_ids([c for c in ALL_CASES if c.onnx_check]))
def test_reference_matches_onnx(case: Case):
    model = make_model(case)
    feeds = {n: a for n, a in zip(_names(case), case.inputs) if a is not None}
    expected = ReferenceEvaluator(model).run(None, feeds)
    got = run_reference(case)
    assert len(got) == len(expected)
    for g, e, t in zip(got, expected, inferred_types(model)):
        e = np.asarray(e)
        assert g.shape == e.shape, (g.shape, e.shape)
        # the element type is the specification's (shape inference), not the evaluator's NumPy promotion
        assert t is None or g.dtype == t, (g.dtype, t)
        if e.dtype.kind in "iub":
            np.testing.assert_array_equal(g, e)
        else:
            assert g.dtype.kind == "f"
            rtol, atol = tolerance(np.dtype(case.inputs[0].dtype) if case.inputs[0].dtype.kind == "f" else e.dtype)
            np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_softmax_2d_coercion(op, axis):
    """Opset < 13 means: flatten to 2-D at axis, normalise each row, reshape back."""
    x = rnd(27, (3, 4, 5))
    got = run_reference(Case("c", op, 11, [x], {"axis": axis}))[0]
    rows = int(np.prod(x.shape[:axis]))
    x2 = x.reshape(rows, -1)
    model = make_model(Case("c2", op, 13, [x2], {"axis": 1}))
    expected = ReferenceEvaluator(model).run(None, {"in0": x2})[0].reshape(x.shape)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)


def test_batchnorm_opset9_is_inference():
    """One output at opset 9 is inference with the given statistics, as training_mode=0 at opset 15."""
    c = next(c for c in norm_cases() if c.id == "BatchNorm-o9")
    got = run_reference(c)[0]
    model = make_model(Case("bn15", "BatchNormalization", 15, c.inputs, {"training_mode": 0}))
    expected = ReferenceEvaluator(model).run(None, {f"in{k}": a for k, a in enumerate(c.inputs)})[0]
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)


def test_cases_are_not_degenerate():
    """The random data is really random: no case's data input is constant."""
    for c in ALL_CASES:
        x = c.inputs[0]
        if x.size > 1 and x.dtype != np.bool_:
            assert np.ptp(x.astype(np.float64)) > 0, c.id


# --- (b) lowerings build with NVRTC --------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _build(source: str, entry: str):
    from compiler.codegen.nvrtc import build_cubin
    return build_cubin(source, entry, ARCH)


def lower_case(case: Case) -> tuple[list, LowerCtx]:
    node = ir_node(case)
    outs = run_reference(case)
    in_types = [None if a is None else TensorType(DType.from_numpy(a.dtype), tuple(a.shape)) for a in case.inputs]
    out_types = [TensorType(DType.from_numpy(o.dtype), tuple(o.shape)) for o in outs]
    consts = [a if k in case.consts else None for k, a in enumerate(case.inputs)]
    steps: list = []
    ctx = LowerCtx(node, in_types, out_types, consts, case.opset, emit=emit_rendered(steps), new_name=lambda s: s)
    lookup(case.op).lower(ctx)
    return steps, ctx


@pytest.mark.parametrize("case", ALL_CASES, ids=_ids(ALL_CASES))
def test_lowering_builds(case: Case):
    steps, ctx = lower_case(case)
    node = ctx.node
    known = {n for n in node.inputs if n} | set(ctx.temps)
    written: set[str] = set()
    for s in steps:
        assert isinstance(s, (LaunchStep, AliasStep))
        if isinstance(s, AliasStep):
            written.add(s.dst)
            continue
        k: Kernel = s.kernel
        for p in k.params:
            if not p.output:
                assert p.value in known | written, f"{k.entry} reads {p.value} before it is written"
            else:
                assert p.value in set(node.outputs) | set(ctx.temps), p.value
                written.add(p.value)
        assert all(g >= 1 for g in k.grid) and all(b >= 1 for b in k.block)
        r = _build(k.source, k.entry)
        # double exp/log may spill a little through libdevice's slow path; nothing else should
        assert r.cubin and (r.spills == 0 or "double" in k.source), (k.entry, r.spills)
    outs = run_reference(case)
    for name, o in zip(node.outputs, outs):
        if name and o.size:
            assert name in written, f"output {name} is never written"


def test_empty_output_emits_nothing():
    case = Case("sum-empty-out", "ReduceSum", 13, [np.zeros((0, 3), np.float32), i64(1)], {"keepdims": 1}, (1,))
    steps, _ = lower_case(case)
    assert steps == []


# --- routing: which ops take the row kernel -------------------------------------------------------------

def _schedules(case: Case) -> list[str]:
    steps, _ = lower_case(case)
    return [dict(s.kernel.config).get("schedule", "") for s in steps if isinstance(s, LaunchStep)]


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_routing(op):
    x = rnd(1, (2, 3, 16))
    # the last axis: tensor expressions in one kernel, which fusion can extend, its rows in
    # registers (kinds/register_rows.py: a warp a short row, several a long one); several trailing
    # axes: the hand-written row kernel
    assert _schedules(Case("inner", op, 13, [x], {"axis": -1})) == ["register_rows"]
    assert _schedules(Case("long", op, 13, [rnd(2, (2, 4096))])) == ["register_rows"]
    assert _schedules(Case("coerced", op, 11, [x], {"axis": 1})) == ["row_warp"]
    assert _schedules(Case("coerced_long", op, 11, [rnd(2, (2, 2, 2048))], {"axis": 1})) == ["row_block"]
    assert _schedules(Case("middle", op, 13, [x], {"axis": 1})) == ["simt_elementwise"] * 3


def test_norm_routing():
    # inference norms are row chains of tensor expressions (fusion can extend them); only
    # LayerNormalization asked for its training outputs (mean, inv_std_dev) is the row kernel
    for c in norm_cases():
        if c.op in ("LayerNormalization", "RMSNormalization", "InstanceNormalization", "GroupNormalization"):
            want = ["row_warp"] if c.op == "LayerNormalization" and c.n_out > 1 else ["register_rows"]
            if c.id == "LayerNorm-longrow":
                want = ["row_block"]
            assert _schedules(c) == want, c.id


def test_unsupported_is_explicit():
    with pytest.raises(UnsupportedOp):
        x = rnd(3, (2, 5))
        c = Case("axes-not-const", "ReduceSum", 13, [x, i64(1)], {})
        lower_case(c)   # consts=() : the axes input is not a constant


# --- the row kernel template itself -----------------------------------------------------------------------

@pytest.mark.parametrize("op", ROW_OPS)
@pytest.mark.parametrize("n,warp", [(7, True), (1500, False), (64, False)])
@pytest.mark.parametrize("dt", [DType.float32, DType.bfloat16, DType.float64])
def test_row_kernel_template_builds(op, n, warp, dt):
    kw = {}
    if op in ("layernorm", "rmsnorm"):
        kw["scale"] = RowOperand(dt, "s")
        kw["epsilon"] = 1e-5
    if op == "layernorm":
        kw.update(bias=RowOperand(dt, "b"), mean=RowOperand(DType.float32, "m"), invstd=RowOperand(DType.float32, "i"))
    k = render_row_kernel(op, rows=5, n=n, x=RowOperand(dt, "x"), y=RowOperand(dt, "y"), warp_per_row=warp,
                          block_threads=64 if not warp and n == 64 else None, **kw)
    assert "BY_KERNEL_NAME" not in k.source and k.entry in k.source
    assert "__shfl_xor_sync" in k.source
    if warp:
        assert k.shared_bytes == 0 and "__syncthreads" not in k.source
        assert k.grid[0] * (k.block[0] // 32) >= 5
    else:
        assert k.grid == (5, 1, 1)
        assert k.shared_bytes == (k.block[0] // 32) * (8 if dt is DType.float64 else 4)
        assert "BY_SHARED_BUFFER" in k.source and "__shared__" not in k.source
    assert [p.output for p in k.params] == [False] * (1 + len([v for v in ("scale", "bias") if v in kw])) + \
        [True] * (1 + len([v for v in ("mean", "invstd") if v in kw]))
    r = _build(k.source, k.entry)
    assert r.cubin and (r.spills == 0 or dt is DType.float64)


def test_row_kernel_rejects_bad_shapes():
    x, y = RowOperand(DType.float32, "x"), RowOperand(DType.float32, "y")
    with pytest.raises(ValueError):
        render_row_kernel("softmax", rows=0, n=4, x=x, y=y)
    with pytest.raises(ValueError):
        render_row_kernel("softmax", rows=2, n=4000, x=x, y=y, block_threads=100)
    with pytest.raises(ValueError):
        render_row_kernel("rmsnorm", rows=2, n=4, x=x, y=y, mean=x)


# --- (c) the kernels run on the host harness and agree with the reference --------------------------------

def _host_cases() -> list[Case]:
    """Every softmax/normalisation/misc case and a spread of reductions (one host module for all)."""
    picked = [c for c in ALL_CASES if not c.op.startswith("Reduce")]
    picked += [c for c in ALL_CASES if c.op.startswith("Reduce") and
               ("-o18-" in c.id or "noop" in c.id or "empty" in c.id or "-o11-ax(0, 2)" in c.id or "bool" in c.id
                or "trunc" in c.id)]
    return picked


HOST_CASES = _host_cases()


@functools.lru_cache(maxsize=None)
def _host_module(mode: str):
    from compiler.runtime.host_harness import build_host_module
    kernels = [s.kernel for c in HOST_CASES for s in lower_case(c)[0] if isinstance(s, LaunchStep)]
    return build_host_module(kernels, mode=mode, seed=1234)


def run_on_host(case: Case, mode: str) -> list[np.ndarray]:
    """Executes the lowering's steps on the host harness; unwritten outputs keep a sentinel."""
    steps, ctx = lower_case(case)
    refs = run_reference(case)
    bufs: dict[str, np.ndarray] = {}
    for name, a in zip(ctx.node.inputs, case.inputs):
        if name:
            bufs[name] = np.ascontiguousarray(a)
    for name, t in ctx.temps.items():
        bufs[name] = np.zeros(t.shape, t.dtype.np)
    for name, r in zip(ctx.node.outputs, refs):
        sentinel = 77 if r.dtype.kind in "iub" else np.nan
        bufs[name] = np.full(r.shape, sentinel, dtype=r.dtype) if r.dtype != np.bool_ else np.zeros(r.shape, bool)
    module = _host_module(mode)
    for s in steps:
        if isinstance(s, AliasStep):     # the destination is the source's bytes under its shape
            bufs[s.dst] = bufs[s.src].reshape(bufs[s.dst].shape)
            continue
        module.launch(s.kernel, [bufs[p.value] for p in s.kernel.params])
    return [bufs[n] for n in ctx.node.outputs]


def _host_tolerance(dt: np.dtype) -> tuple[float, float]:
    if dt == np.float16:
        return 2e-3, 2e-3          # same float32 math on both sides, one final rounding each
    if dt == np.float64:
        return 1e-12, 1e-13
    return 2e-6, 2e-6


@pytest.mark.parametrize("case", HOST_CASES, ids=_ids(HOST_CASES))
def test_runs_on_host(case: Case):
    refs = run_reference(case)
    got = run_on_host(case, "default")
    for g, r in zip(got, refs):
        assert g.dtype == r.dtype and g.shape == r.shape
        if r.dtype.kind in "iub":
            np.testing.assert_array_equal(g, r)
        else:
            rtol, atol = _host_tolerance(r.dtype)
            np.testing.assert_allclose(g.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=atol,
                                       equal_nan=True)
            assert np.isnan(g).sum() == np.isnan(r).sum()


ROW_HOST_CASES = [c for c in HOST_CASES if any(s.startswith("row_") for s in _schedules(c))]


@pytest.mark.parametrize("case", ROW_HOST_CASES, ids=_ids(ROW_HOST_CASES))
def test_row_kernels_shuffle_mode(case: Case):
    """Threads scheduled in seeded random order: a missing barrier would change the result."""
    a = run_on_host(case, "default")
    b = run_on_host(case, "shuffle")
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
