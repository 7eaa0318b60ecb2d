"""Movement, indexing and shape ops: each reference against onnx.reference.ReferenceEvaluator on
seeded random one-node models, and each lowering's kernels built with NVRTC for sm_90."""
from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from compiler.errors import UnsupportedOp
from compiler.ir.dtypes import DType
from compiler.ir.graph import Constant, TensorType
from compiler.ops.registry import LowerCtx, lookup
from compiler.ir.plan import AliasStep, LaunchStep, Plan

from .one_node import ir_node, one_node_model
from tests.ops.one_node import emit_rendered

I64 = np.int64


def rnd(seed, shape, dtype=np.float32, lo=-5, hi=5):
    """Seeded random data of a dtype, never all zeros."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(dt, np.integer):
        return rng.integers(max(lo, np.iinfo(dt).min), hi, size=shape).astype(dt)
    return (rng.standard_normal(shape) * 2 + 0.25).astype(dt)


def ints(*v):
    return np.array(v, dtype=I64)


class Case:
    """One node: its inputs ('' name = omitted), attributes, opset and which inputs are constants."""

    def __init__(self, op, inputs, attrs=None, opset=21, consts=(), nout=1, rtol=1e-6, atol=1e-6, lower=True,
                 expect=None, host=True):
        self.op, self.inputs, self.attrs, self.opset = op, list(inputs), dict(attrs or {}), opset
        self.expect = expect   # expected outputs where onnx's evaluator lacks the opset
        self.host = host       # False: the frontend cannot import it (e.g. no shape inference at that opset)
        self.consts, self.nout, self.rtol, self.atol, self.lower = set(consts), nout, rtol, atol, lower

    def model(self):
        return one_node_model(self.op, self.inputs, self.attrs, self.opset, self.nout)

    def ir_node(self, node):
        return ir_node(node)

    def feeds(self):
        return [a for a in self.inputs[:len(self.model()[1].input)]]


def _id(c: Case) -> str:
    attrs = ",".join(f"{k}={v}" for k, v in sorted(c.attrs.items()) if not isinstance(v, onnx.TensorProto))
    return f"{c.op}{c.opset}[{attrs}]" + ",".join("x".join(map(str, a.shape)) if a is not None else "-" for a in c.inputs)


def _cases() -> list[Case]:
    f = rnd
    c = []
    # views
    x = f(1, (2, 3, 4))
    c += [Case("Reshape", [x, ints(4, -1)], consts={1}), Case("Reshape", [x, ints(0, 0, 2, 2)], consts={1}),
          Case("Reshape", [f(2, (0, 3)), ints(3, 0)], {"allowzero": 1}, consts={1}),
          Case("Reshape", [x], {"shape": [6, 4]}, opset=1, expect=[x.reshape(6, 4)], host=False),
          Case("Flatten", [x], {"axis": 2}), Case("Flatten", [x], {"axis": -3}), Case("Flatten", [x], opset=9),
          Case("Squeeze", [f(3, (1, 3, 1, 2)), ints(-2)], consts={1}), Case("Squeeze", [f(3, (1, 3, 1, 2))]),
          Case("Squeeze", [f(3, (1, 3, 1, 2))], {"axes": [0]}, opset=11),
          Case("Unsqueeze", [x, ints(0, -1)], consts={1}), Case("Unsqueeze", [x], {"axes": [1, 4]}, opset=11),
          Case("Identity", [f(4, (5,), np.int32)])]
    # Transpose, Concat, Split
    c += [Case("Transpose", [f(5, (2, 3, 4, 5))], {"perm": [2, 0, 3, 1]}), Case("Transpose", [f(6, (3, 7), np.float16)]),
          Case("Transpose", [f(7, (2, 3, 4), np.int64)], {"perm": [0, 2, 1]})]
    c += [Case("Concat", [f(8, (2, 3)), f(9, (2, 1)), f(10, (2, 0)), f(11, (2, 4))], {"axis": -1}),
          Case("Concat", [f(12, (1, 2), np.bool_), f(13, (3, 2), np.bool_)], {"axis": 0}),
          Case("Concat", [f(14, (2, 2, 2), np.int32)] * 3, {"axis": 1})]
    s = f(15, (4, 7))
    c += [Case("Split", [s], {"axis": 1, "num_outputs": 3}, nout=3, opset=18),
          Case("Split", [s, ints(2, 5)], {"axis": 1}, consts={1}, nout=2, opset=13),
          Case("Split", [s], {"axis": 0, "split": [1, 3]}, nout=2, opset=11),
          Case("Split", [s], {"axis": 0}, nout=2, opset=13),
          Case("Split", [s], {"axis": -1, "num_outputs": 2}, nout=2, opset=18)]
    # Slice
    sl = f(16, (5, 6, 7))
    c += [Case("Slice", [sl, ints(1, -1), ints(4, -7), ints(0, 2), ints(2, -2)], consts={1, 2, 3, 4}),
          Case("Slice", [sl, ints(-100), ints(100)], consts={1, 2}),
          Case("Slice", [sl, ints(10, 0), ints(-10, 2**62), ints(1, 2), ints(-1, 3)], consts={1, 2, 3, 4}),
          Case("Slice", [sl, ints(2), ints(2), ints(0)], consts={1, 2, 3}),
          Case("Slice", [sl], {"starts": [1, 0], "ends": [3, 100], "axes": [0, 2]}, opset=9)]
    # Gathers
    d = f(17, (4, 5, 3))
    c += [Case("Gather", [d, f(18, (2, 3), I64, -4, 4)], {"axis": 0}),
          Case("Gather", [d, f(19, (6,), np.int32, -5, 5)], {"axis": 1}),
          Case("Gather", [d, np.array(-1, I64)], {"axis": -1}),
          Case("GatherElements", [d, f(20, (4, 2, 3), I64, -5, 5)], {"axis": 1}),
          Case("GatherElements", [d, f(21, (3, 5, 3), np.int32, -4, 4)], {"axis": 0}),
          Case("GatherND", [d, f(22, (2, 2), I64, -3, 3)]),
          Case("GatherND", [d, f(23, (4, 1, 2), I64, -3, 3)], {"batch_dims": 1}),
          Case("GatherND", [d, f(24, (2, 3), I64, 0, 3)]),
          Case("GatherND", [f(25, (2, 3, 4), np.int32), f(26, (2, 3, 1), I64, -4, 4)], {"batch_dims": 2})]
    # Scatters
    data = f(27, (4, 5))
    for red in ("none", "add", "mul", "max", "min"):
        c.append(Case("ScatterND", [data, ints(1, -1, 1).reshape(3, 1), f(28, (3, 5))], {"reduction": red}, opset=18))
        c.append(Case("ScatterElements", [data, f(29, (3, 5), I64, -4, 4), f(30, (3, 5))], {"axis": 0, "reduction": red},
                      opset=18))
    c += [Case("ScatterND", [data, ints(0, 1, 3, -1, 2, 2).reshape(3, 2), f(31, (3,))]),
          Case("ScatterND", [f(32, (2, 3, 4), np.int32), ints(1, 0).reshape(1, 2), f(33, (1, 4), np.int32)], opset=11),
          Case("ScatterElements", [data, f(34, (4, 2), I64, -5, 5), f(35, (4, 2))], {"axis": -1}),
          Case("Scatter", [data, f(36, (2, 5), I64, 0, 4), f(37, (2, 5))], {"axis": 0}, opset=9,
               expect=Case("ScatterElements", [data, f(36, (2, 5), I64, 0, 4), f(37, (2, 5))], {"axis": 0}))]
    # Expand, Tile
    c += [Case("Expand", [f(38, (3, 1)), ints(2, 1, 4)], consts={1}), Case("Expand", [f(39, (1, 4)), ints(3, 1)], consts={1}),
          Case("Tile", [f(40, (2, 3), np.int64), ints(2, 3)], consts={1}), Case("Tile", [f(41, (2, 1, 3)), ints(1, 4, 1)], consts={1})]
    # Pad
    p = f(42, (3, 4))
    for mode in ("constant", "reflect", "edge", "wrap"):
        c.append(Case("Pad", [p, ints(1, 2, 2, 1)], {"mode": mode}, consts={1}, opset=19))
        c.append(Case("Pad", [f(43, (2, 3, 4)), ints(1, 2), None, ints(-1)], {"mode": mode}, consts={1, 3}, opset=19))
    c += [Case("Pad", [p, ints(0, -1, 2, 1), np.array(2.5, np.float32)], consts={1}, opset=13,
               expect=[np.pad(p[:, 1:], ((0, 2), (0, 1)), constant_values=2.5)]),
          Case("Pad", [p, ints(0, 1, 0, 1), np.array(3.5, np.float32)], consts={1, 2}, opset=11),
          Case("Pad", [f(44, (3, 4), np.int32), ints(1, 0, 0, 2)], consts={1}, opset=18),
          Case("Pad", [p], {"pads": [1, 1, 0, 0], "value": 1.5}, opset=2),
          Case("Pad", [f(45, (2, 3)), ints(5, 0, 4, 0)], {"mode": "reflect"}, consts={1}, opset=18)]
    # Shape ops
    c += [Case("Shape", [x]), Case("Shape", [x], {"start": 1}), Case("Shape", [x], {"start": -2, "end": -1}),
          Case("Shape", [x], {"end": 10}), Case("Size", [x]),
          Case("ConstantOfShape", [ints(2, 3)], consts={0}),
          Case("ConstantOfShape", [ints(3)], {"value": numpy_helper.from_array(np.array([7], np.int32))}, consts={0}),
          Case("Range", [np.array(1, I64), np.array(17, I64), np.array(3, I64)], consts={0, 1, 2}),
          Case("Range", [np.array(2.5, np.float32), np.array(-1, np.float32), np.array(-0.75, np.float32)], consts={0, 1, 2}),
          Case("Range", [np.array(3, np.int32), np.array(1, np.int32), np.array(1, np.int32)], consts={0, 1, 2}),
          Case("Constant", [], {"value": numpy_helper.from_array(f(46, (2, 3)))}),
          Case("Constant", [], {"value_ints": [3, -1, 4]}), Case("Constant", [], {"value_float": 2.5})]
    # Trilu, EyeLike, OneHot
    t = f(47, (2, 4, 5))
    c += [Case("Trilu", [t]), Case("Trilu", [t, np.array(-1, I64)], {"upper": 0}),
          Case("Trilu", [t, np.array(2, I64)], {"upper": 1}), Case("Trilu", [t, np.array(1, I64)], {"upper": 0}, consts={1}),
          Case("EyeLike", [f(48, (3, 5))], {"k": 1}), Case("EyeLike", [f(49, (4, 3), np.int32)], {"k": -2, "dtype": 1}),
          Case("OneHot", [f(50, (2, 3), I64, -5, 7), np.array(5, I64), np.array([-1.5, 2.0], np.float32)], consts={1}),
          Case("OneHot", [f(51, (3,), np.int32, -4, 4), np.array(4, np.float32), np.array([0, 9], I64)], {"axis": 0},
               consts={1})]
    # DepthToSpace, SpaceToDepth, ReverseSequence, CenterCropPad
    dd = f(52, (2, 8, 2, 3))
    c += [Case("DepthToSpace", [dd], {"blocksize": 2, "mode": "DCR"}), Case("DepthToSpace", [dd], {"blocksize": 2, "mode": "CRD"}),
          Case("SpaceToDepth", [f(53, (1, 3, 4, 6))], {"blocksize": 2}),
          Case("SpaceToDepth", [f(53, (2, 3, 4, 6))], {"blocksize": 2, "mode": "CRD"}, opset=28),
          Case("ReverseSequence", [f(54, (4, 3, 2)), ints(4, 1, 3)], {"batch_axis": 1, "time_axis": 0}),
          Case("ReverseSequence", [f(55, (3, 5)), ints(5, 0, 2)], {"batch_axis": 0, "time_axis": 1}),
          Case("CenterCropPad", [f(56, (5, 6, 3)), ints(3, 9)], {"axes": [0, 1]}, consts={1}),
          Case("CenterCropPad", [f(57, (4, 5)), ints(7, 2)], consts={1}),
          Case("CenterCropPad", [f(66, (3, 8, 5)), ints(9, 4)], {"axes": [-2, -1]}, consts={1})]
    # data-dependent: constant inputs only
    c += [Case("Compress", [f(58, (3, 4)), np.array([1, 0, 1], bool)], {"axis": 0}, consts={0, 1}),
          Case("Compress", [f(59, (3, 4)), f(60, (7,), np.bool_)], consts={0, 1}),
          Case("NonZero", [f(61, (3, 4), np.int32, -1, 2)], consts={0}),
          Case("Unique", [f(62, (10,), I64, 0, 4)], {"sorted": 0}, nout=4, consts={0}),
          Case("Unique", [f(63, (4, 2), np.int32, 0, 2)], {"sorted": 1, "axis": 0}, nout=4, consts={0})]
    # Resize
    img = f(64, (1, 2, 4, 5))
    for mode in ("nearest", "linear", "cubic"):
        for ctm in ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "half_pixel_symmetric"):
            c.append(Case("Resize", [img, None, np.array([1, 1, 1.5, 0.6], np.float32)],
                          {"mode": mode, "coordinate_transformation_mode": ctm}, consts={2}, atol=1e-5))
        c.append(Case("Resize", [img, None, None, ints(3, 8)], {"mode": mode, "axes": [2, 3], "exclude_outside": 1},
                      consts={3}, atol=1e-5))
        for roi_consts in ({1, 3}, {3}):     # roi a constant, and an input read at run time
            c.append(Case("Resize", [img, np.array([0.1, 0.3, 0.9, 1.2], np.float32), None, ints(3, 7)],
                          {"mode": mode, "axes": [2, 3], "coordinate_transformation_mode": "tf_crop_and_resize",
                           "extrapolation_value": -3.0}, consts=roi_consts, atol=1e-5))
        c.append(Case("Resize", [img, None, None, ints(1, 2, 7, 7)], {"mode": mode, "keep_aspect_ratio_policy": "not_larger"},
                      consts={3}, atol=1e-5, opset=18))
    for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
        c.append(Case("Resize", [img, None, np.array([1, 1, 2.5, 1.6], np.float32)], {"mode": "nearest", "nearest_mode": nm},
                      consts={2}))
    u8 = f(65, (1, 1, 3, 4), np.uint8, 0, 255)
    c += [Case("Resize", [u8, None, None, ints(5, 7)], {"mode": "linear", "axes": [-2, -1]}, consts={3},
               expect=Case("Resize", [u8, None, None, ints(5, 7)], {"mode": "linear", "axes": [2, 3]})),
          Case("Resize", [img, None, np.array([1, 1, 2, 2], np.float32)], {"mode": "cubic", "cubic_coeff_a": -0.5},
               consts={2}, opset=13, atol=1e-5),
          Case("Resize", [img, np.array([], np.float32), np.array([1, 1, 2, 3], np.float32)], {"mode": "nearest"},
               consts={1, 2}, opset=11),
          Case("Resize", [img, np.array([1, 1, 2, 3], np.float32)], {"mode": "nearest"}, consts={1}, opset=10)]
    # antialias: the filter stretched by 1 / scale when downsampling (a wider footprint at 0.3
    # than at 0.6), plain taps when upsampling; exclude_outside renormalises over the inside taps
    big = f(66, (1, 2, 11, 13))
    for mode in ("linear", "cubic"):
        for scales in ([1, 1, 0.6, 0.3], [1, 1, 1.5, 0.45]):
            c.append(Case("Resize", [big, None, np.array(scales, np.float32)], {"mode": mode, "antialias": 1},
                          consts={2}, atol=1e-5, opset=18))
        c.append(Case("Resize", [big, None, None, ints(4, 5)], {"mode": mode, "antialias": 1, "axes": [2, 3],
                      "exclude_outside": 1, "coordinate_transformation_mode": "pytorch_half_pixel"},
                      consts={3}, atol=1e-5, opset=18))
    c.append(Case("Resize", [f(67, (1, 1, 12, 9), np.uint8, 0, 255), None, None, ints(5, 4)],
                  {"mode": "linear", "antialias": 1, "axes": [2, 3]}, consts={3}, opset=18))
    return c


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_reference_matches_onnx(case: Case):
    """Our NumPy reference agrees with onnx.reference.ReferenceEvaluator."""
    from onnx.reference import ReferenceEvaluator
    model, node = case.model()
    feeds = {n: a for n, a in zip(node.input, case.inputs) if n}
    if isinstance(case.expect, Case):
        amodel, anode = case.expect.model()
        expected = ReferenceEvaluator(amodel).run(None, {n: a for n, a in zip(anode.input, case.expect.inputs) if n})
    elif case.expect is not None:
        expected = case.expect
    elif case.op == "Resize" and case.opset == 10:
        # onnx's evaluator has no Resize-10 semantics (asymmetric, floor); compare with Resize-19
        alt = Case("Resize", [case.inputs[0], None, case.inputs[1]],
                   {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"})
        amodel, anode = alt.model()
        expected = ReferenceEvaluator(amodel).run(None, {"x0": case.inputs[0], "x2": case.inputs[1]})
    else:
        expected = ReferenceEvaluator(model).run(None, feeds)
    got = lookup(case.op).reference(case.ir_node(node), [feeds.get(n) if n else None for n in node.input], case.opset)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        e = np.asarray(e)
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        assert g.shape == e.shape, (g.shape, e.shape)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=case.rtol, atol=case.atol)
        else:
            np.testing.assert_array_equal(g, e)


def lower_case(case: Case):
    """Lowers one case's node as the pipeline would: types from the reference, constants marked."""
    model, node = case.model()
    ir = case.ir_node(node)
    feeds = [a if n else None for n, a in zip(node.input, case.inputs)]
    outs = lookup(case.op).reference(ir, feeds, case.opset)
    in_types = [TensorType(DType.from_numpy(a.dtype), a.shape) if a is not None else None for a in feeds]
    out_types = [TensorType(DType.from_numpy(o.dtype), o.shape) for o in outs]
    consts = [a if k in case.consts else None for k, a in enumerate(feeds)]
    steps: list = []
    ctx = LowerCtx(ir, in_types, out_types, consts, case.opset, emit=emit_rendered(steps), new_name=lambda s: s)
    lookup(case.op).lower(ctx)
    return steps, out_types


@functools.lru_cache(maxsize=None)
def _build(source: str, entry: str):
    from compiler.codegen.nvrtc import build_cubin
    return build_cubin(source, entry, "sm_90")


VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"}


@pytest.mark.parametrize("case", [c for c in CASES if c.lower], ids=_id)
def test_lowering_builds(case: Case):
    """Every kernel a lowering emits compiles with NVRTC for sm_90; views emit one alias, no kernel."""
    pytest.importorskip("cuda.bindings")
    steps, out_types = lower_case(case)
    if case.op in VIEW_OPS:
        assert len(steps) == 1 and isinstance(steps[0], AliasStep)
        return
    kernels = [s.kernel for s in steps if isinstance(s, LaunchStep)]
    assert len(kernels) == len(steps)
    if all(t.size > 0 for t in out_types):
        assert kernels, "no kernel emitted"
    written = {p.value for k in kernels for p in k.params if p.output}
    assert {f"y{k}" for k, t in enumerate(out_types) if t.size > 0} <= written <= {f"y{k}" for k in range(len(out_types))}
    for k in kernels:
        res = _build(k.source, k.entry)
        assert res.cubin and res.spills == 0


def test_scatter_emits_copy_then_ordered_updates():
    steps, _ = lower_case(Case("ScatterND", [rnd(1, (4, 5)), ints(1, 1).reshape(2, 1), rnd(2, (2, 5))],
                               {"reduction": "add"}, opset=18))
    assert [s.kernel.config for s in steps][1] == (("schedule", "ordered_updates"),)
    assert steps[0].kernel.expr is not None and "for (long long u = 0; u < 2ll" in steps[1].kernel.source


def test_gather_negative_index_is_wrapped_by_select():
    steps, _ = lower_case(Case("Gather", [rnd(3, (4, 5)), ints(-1, 2)], {"axis": 1}))
    src = steps[0].kernel.source
    assert "< (0ll)" in src and "+ (5ll)" in src


@pytest.mark.parametrize("case", [
    Case("Range", [np.array(1, I64), np.array(5, I64), np.array(1, I64)]),
    Case("Unique", [rnd(4, (6,), np.int32, 0, 3)], nout=4),
    Case("Slice", [rnd(5, (4, 4)), ints(1), ints(3)]),
    Case("Resize", [rnd(6, (1, 1, 2, 2)), None, np.array([1, 1, 2, 2], np.float32)], {"antialias": 1, "mode": "nearest"},
         consts={2}),
], ids=lambda c: c.op)
def test_unsupported_is_reported(case: Case):
    model, node = case.model()
    ir = case.ir_node(node)
    feeds = [a if n else None for n, a in zip(node.input, case.inputs)]
    in_types = [TensorType(DType.from_numpy(a.dtype), a.shape) if a is not None else None for a in feeds]
    out_t = [TensorType(DType.int64, (4,))]
    consts = [a if k in case.consts else None for k, a in enumerate(feeds)]
    ctx = LowerCtx(ir, in_types, out_t, consts, case.opset, emit=lambda s: None, new_name=lambda s: s)
    with pytest.raises(UnsupportedOp):
        lookup(case.op).lower(ctx)


def _host_model(case: Case, outputs: list):
    """The case's model with its constant inputs as initializers (as a real model would hold them)."""
    model, node = case.model()
    g = model.graph
    typed = [helper.make_tensor_value_info(o.name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
             for o, a in zip(g.output, outputs)]
    del g.output[:]
    g.output.extend(typed)
    keep = [vi for vi in g.input if int(vi.name[1:]) not in case.consts]
    inits = [numpy_helper.from_array(case.inputs[int(vi.name[1:])], vi.name) for vi in g.input
             if int(vi.name[1:]) in case.consts]
    del g.input[:]
    g.input.extend(keep)
    g.initializer.extend(inits)
    return model, [case.inputs[int(vi.name[1:])] for vi in keep]


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c.lower and c.host], ids=_id)
def test_host_run_matches_reference(case: Case):
    """The compiled node, run on the CPU through the host harness, matches the reference."""
    from compiler.onnx_backend import BrickyardBackend
    _, node = case.model()
    expected = lookup(case.op).reference(case.ir_node(node), [a if n else None for n, a in zip(node.input, case.inputs)],
                                         case.opset)
    model, feeds = _host_model(case, expected)
    got = BrickyardBackend.prepare(model, "CPU").run(feeds)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("case", [c for c in CASES if c.lower], ids=_id)
def test_lowered_kernels_run_on_host(case: Case):
    """The lowering's own steps (no frontend folding), run by the host harness, match the reference."""
    from compiler.runtime.executor import Executor, HostBackend
    model, node = case.model()
    feeds = [a if n else None for n, a in zip(node.input, case.inputs)]
    expected = lookup(case.op).reference(case.ir_node(node), feeds, case.opset)
    steps, out_types = lower_case(case)
    names = [n for n in node.input if n]
    types = {n: TensorType(DType.from_numpy(a.dtype), a.shape) for n, a in zip(node.input, case.inputs) if n}
    types.update({f"y{k}": t for k, t in enumerate(out_types)})
    arena, off = [], 0
    for k, t in enumerate(out_types):   # outputs in a fresh, unzeroed arena: unwritten elements show
        arena.append((f"y{k}", off))
        off += -(-t.nbytes // 256) * 256
    constants = tuple((f"x{k}", Constant.from_array(case.inputs[k])) for k in sorted(case.consts))
    plan = Plan(inputs=tuple(n for n in names if int(n[1:]) not in case.consts), outputs=tuple(types)[len(names):],
                steps=tuple(steps), types=tuple(types.items()), constants=constants, arena=tuple(arena), arena_bytes=off)
    got = Executor(plan, HostBackend()).run({n: case.inputs[int(n[1:])] for n in plan.inputs})
    for k, e in enumerate(expected):
        g = got[f"y{k}"]
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, g.shape, e.dtype, e.shape)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, e)
