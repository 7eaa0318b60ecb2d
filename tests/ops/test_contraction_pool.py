"""Contractions and pooling: references against ONNX's ReferenceEvaluator, lowerings evaluated
element by element (a NumPy interpreter of the tensor expressions) and built with NVRTC."""
from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from compiler.ir.dtypes import DType
from compiler.ir.graph import Node, TensorType
from compiler.ir.texpr import Binary, Cast, Const, Load, Select, TensorExpr, Unary, Var
from compiler.ops.contraction import parse_einsum
from compiler.ops.registry import LowerCtx, lookup
from compiler.ir.plan import LaunchStep
from tests.ops.one_node import emit_rendered

F32, F16 = np.float32, np.float16


# --- cases ---------------------------------------------------------------------------------------

def _rng(seed):
    return np.random.default_rng(seed)


def _f(shape, dtype=F32, seed=0):
    return _rng(seed).standard_normal(shape).astype(dtype)


def _q(shape, dtype, seed=0):
    info = np.iinfo(dtype)
    return _rng(seed).integers(info.min, int(info.max) + 1, size=shape).astype(dtype)


def _scalar(v, dtype):
    return np.array(v, dtype=dtype)


class Case:
    def __init__(self, op, inputs, attrs=None, n_out=1, opset=21, id=None, rtol=1e-4, atol=1e-5):
        self.op, self.inputs, self.attrs, self.n_out, self.opset = op, inputs, attrs or {}, n_out, opset
        self.id = id or op
        self.rtol, self.atol = rtol, atol

    def __repr__(self):
        return self.id


def _conv_cases():
    out = []
    x2 = _f((2, 4, 7, 6), seed=1)
    w2 = _f((6, 4, 3, 3), seed=2)
    b6 = _f((6,), seed=3)
    out += [
        Case("Conv", [x2, w2], {}, id="conv2d_plain"),
        Case("Conv", [x2, w2, b6], {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}, id="conv2d_pad_bias"),
        Case("Conv", [x2, w2], {"strides": [2, 1], "pads": [0, 2, 1, 0]}, id="conv2d_stride_asym"),
        Case("Conv", [x2, w2], {"dilations": [2, 1], "pads": [2, 1, 2, 1]}, id="conv2d_dilated"),
        Case("Conv", [x2, _f((6, 2, 3, 3), seed=4), b6], {"group": 2, "strides": [2, 2], "pads": [1, 1, 1, 1]},
             id="conv2d_group2"),
        Case("Conv", [x2, _f((8, 1, 3, 3), seed=5)], {"group": 4, "pads": [1, 1, 1, 1]}, id="conv2d_depthwise"),
        Case("Conv", [x2, w2], {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, id="conv2d_same_upper"),
        Case("Conv", [x2, _f((6, 4, 2, 4), seed=6)], {"auto_pad": "SAME_LOWER", "strides": [1, 2]},
             id="conv2d_same_lower"),
        Case("Conv", [x2, w2], {"auto_pad": "VALID", "strides": [2, 2]}, id="conv2d_valid"),
        Case("Conv", [x2, _f((6, 4, 1, 1), seed=7)], {}, id="conv2d_1x1"),
        Case("Conv", [_f((2, 3, 11), seed=8), _f((5, 3, 3), seed=9), _f((5,), seed=10)],
             {"strides": [2], "pads": [2, 1], "dilations": [2]}, id="conv1d"),
        Case("Conv", [_f((1, 2, 5, 4, 6), seed=11), _f((4, 2, 3, 2, 3), seed=12)],
             {"pads": [1, 0, 1, 1, 1, 0], "strides": [1, 2, 2]}, id="conv3d"),
        Case("Conv", [x2.astype(F16), w2.astype(F16), b6.astype(F16)], {"pads": [1, 1, 1, 1]}, id="conv2d_f16",
             rtol=2e-2, atol=2e-2),
        # ConvTranspose
        Case("ConvTranspose", [_f((2, 4, 3, 4), seed=13), _f((4, 3, 3, 3), seed=14)], {}, id="convT_plain"),
        Case("ConvTranspose", [_f((2, 4, 3, 4), seed=13), _f((4, 3, 3, 3), seed=14), _f((3,), seed=15)],
             {"strides": [2, 2], "pads": [1, 0, 1, 1]}, id="convT_stride_pad_bias"),
        Case("ConvTranspose", [_f((1, 4, 3, 3), seed=16), _f((4, 2, 3, 2), seed=17)],
             {"strides": [3, 2], "output_padding": [1, 1]}, id="convT_output_padding"),
        Case("ConvTranspose", [_f((1, 4, 3, 3), seed=16), _f((4, 2, 3, 3), seed=17)],
             {"strides": [3, 2], "output_shape": [10, 8]}, id="convT_output_shape"),
        Case("ConvTranspose", [_f((1, 4, 3, 3), seed=18), _f((4, 1, 3, 3), seed=19)],
             {"group": 2, "dilations": [2, 2], "strides": [2, 1]}, id="convT_group_dilated"),
        Case("ConvTranspose", [_f((1, 2, 4, 3), seed=20), _f((2, 3, 3, 3), seed=21)],
             {"auto_pad": "SAME_UPPER", "strides": [2, 2]}, id="convT_same_upper"),
        Case("ConvTranspose", [_f((2, 2, 5), seed=22), _f((2, 3, 4), seed=23)], {"strides": [2], "pads": [1, 2]},
             id="convT_1d"),
        Case("ConvTranspose", [_f((1, 2, 2, 3, 2), seed=24), _f((2, 2, 2, 2, 3), seed=25)], {"strides": [2, 1, 2]},
             id="convT_3d"),
        # integer / quantised
        Case("ConvInteger", [_q((1, 3, 5, 5), np.uint8, 26), _q((4, 3, 3, 3), np.uint8, 27), _scalar(128, np.uint8)],
             {"pads": [1, 1, 1, 1]}, id="conv_integer_u8"),
        Case("ConvInteger", [_q((1, 2, 6, 5), np.int8, 28), _q((4, 2, 2, 2), np.int8, 29), _scalar(-3, np.int8),
                             _q((4,), np.int8, 30)], {"strides": [2, 1]}, id="conv_integer_i8_perchan"),
        Case("QLinearConv", [_q((1, 4, 5, 5), np.uint8, 31), _scalar(0.02, F32), _scalar(120, np.uint8),
                             _q((6, 2, 3, 3), np.uint8, 32), _scalar(0.01, F32), _scalar(128, np.uint8),
                             _scalar(0.05, F32), _scalar(100, np.uint8), _rng(33).integers(-500, 500, 6).astype(np.int32)],
             {"pads": [1, 1, 1, 1], "group": 2}, id="qlinear_conv_u8"),
        Case("QLinearConv", [_q((1, 2, 5, 5), np.int8, 34), _scalar(0.03, F32), _scalar(-2, np.int8),
                             _q((3, 2, 3, 3), np.int8, 35), np.array([0.01, 0.02, 0.015], F32),
                             np.array([0, 3, -2], np.int8), _scalar(0.2, F32), _scalar(5, np.int8)],
             {"strides": [2, 2]}, id="qlinear_conv_i8_perchan"),
    ]
    return out


def _matmul_cases():
    out = []
    for sa, sb in [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 1, 3, 4), (3, 4, 5)),
                   ((5, 3, 4), (4, 2)), ((4,), (2, 4, 3))]:
        out.append(Case("MatMul", [_f(sa, seed=1), _f(sb, seed=2)], id=f"matmul_{sa}x{sb}"))
    out.append(Case("MatMul", [_f((2, 3, 8), F16, 3), _f((8, 5), F16, 4)], id="matmul_f16", rtol=1e-2, atol=1e-2))
    out.append(Case("MatMul", [_rng(5).integers(-9, 9, (3, 4)).astype(np.int32),
                               _rng(6).integers(-9, 9, (4, 2)).astype(np.int32)], id="matmul_i32"))
    a, b = _f((3, 4), seed=7), _f((4, 5), seed=8)
    at, bt = np.ascontiguousarray(a.T), np.ascontiguousarray(b.T)
    for ta, tb, alpha, beta, c in [(0, 0, 1.0, 1.0, None), (1, 0, 0.5, 1.0, _f((5,), seed=9)),
                                   (0, 1, 1.0, -2.0, _f((3, 1), seed=10)), (1, 1, 2.0, 0.25, _f((3, 5), seed=11)),
                                   (0, 0, 1.0, 3.0, _f((1, 5), seed=12)), (0, 0, 1.5, 0.5, _f((), seed=13))]:
        ins = [at if ta else a, bt if tb else b] + ([c] if c is not None else [])
        out.append(Case("Gemm", ins, {"transA": ta, "transB": tb, "alpha": alpha, "beta": beta},
                        id=f"gemm_t{ta}{tb}_a{alpha}_b{beta}_c{None if c is None else c.shape}"))
    for eq, shapes in [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                       ("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("ij->", [(3, 4)]), ("ji", [(3, 4)]),
                       ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("i,j->ij", [(3,), (4,)]),
                       ("bhid,bhjd->bhij", [(1, 2, 3, 4), (1, 2, 5, 4)]), ("iij->j", [(3, 3, 4)]),
                       ("ij,ij->i", [(3, 4), (3, 4)]), ("...i,...i", [(2, 3, 4), (3, 4)]),
                       ("abc,cd,de->aeb", [(2, 3, 4), (4, 5), (5, 2)]), ("i...->...", [(3, 2, 2)])]:
        out.append(Case("Einsum", [_f(s, seed=20 + k) for k, s in enumerate(shapes)], {"equation": eq},
                        id=f"einsum_{eq}"))
    out += [
        Case("MatMulInteger", [_q((3, 4), np.uint8, 40), _q((4, 5), np.uint8, 41), _scalar(12, np.uint8),
                               _scalar(200, np.uint8)], id="matmul_integer_u8"),
        Case("MatMulInteger", [_q((2, 3, 4), np.int8, 42), _q((4, 5), np.int8, 43)], id="matmul_integer_nozp"),
        Case("MatMulInteger", [_q((3, 4), np.uint8, 44), _q((4, 5), np.int8, 45), _q((3, 1), np.uint8, 46),
                               _q((5,), np.int8, 47)], id="matmul_integer_vector_zp"),
        Case("QLinearMatMul", [_q((3, 4), np.uint8, 48), _scalar(0.05, F32), _scalar(110, np.uint8),
                               _q((4, 5), np.uint8, 49), _scalar(0.02, F32), _scalar(130, np.uint8),
                               _scalar(0.1, F32), _scalar(120, np.uint8)], id="qlinear_matmul_u8"),
        Case("QLinearMatMul", [_q((2, 3, 4), np.int8, 50), _scalar(0.05, F32), _scalar(-3, np.int8),
                               _q((4, 5), np.int8, 51), _scalar(0.02, F32), _scalar(4, np.int8),
                               _scalar(0.03, F32), _scalar(-1, np.int8)], id="qlinear_matmul_i8"),
    ]
    return out


def _pool_cases():
    out = []
    x2 = _f((2, 3, 7, 8), seed=60)
    x1 = _f((2, 3, 9), seed=61)
    x3 = _f((1, 2, 5, 6, 4), seed=62)
    combos = [
        ({"kernel_shape": [3, 3]}, "plain"),
        ({"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1]}, "stride_pad"),
        ({"kernel_shape": [3, 3], "strides": [2, 2], "ceil_mode": 1}, "ceil"),
        ({"kernel_shape": [3, 3], "strides": [2, 3], "pads": [1, 1, 1, 1], "ceil_mode": 1}, "ceil_pad"),
        ({"kernel_shape": [2, 2], "dilations": [2, 2], "pads": [1, 1, 0, 0]}, "dilated"),
        ({"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "SAME_UPPER"}, "same_upper"),
        ({"kernel_shape": [2, 3], "strides": [2, 1], "auto_pad": "SAME_LOWER"}, "same_lower"),
        ({"kernel_shape": [3, 3], "strides": [2, 2], "auto_pad": "VALID"}, "valid"),
    ]
    for attrs, name in combos:
        out.append(Case("MaxPool", [x2], attrs, id=f"maxpool2d_{name}"))
        out.append(Case("MaxPool", [x2], attrs, n_out=2, id=f"maxpool2d_{name}_indices"))
        avg = dict(attrs)
        out.append(Case("AveragePool", [x2], avg, id=f"avgpool2d_{name}"))
        out.append(Case("AveragePool", [x2], dict(avg, count_include_pad=1), id=f"avgpool2d_{name}_incl"))
        out.append(Case("LpPool", [x2], dict(attrs, p=3 if "pads" in attrs else 2), id=f"lppool2d_{name}"))
    out += [
        Case("MaxPool", [x2], {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 1, 1, 0], "storage_order": 1},
             n_out=2, id="maxpool2d_colmajor_indices"),
        Case("MaxPool", [x1], {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}, n_out=2, id="maxpool1d"),
        Case("MaxPool", [x3], {"kernel_shape": [2, 3, 2], "strides": [2, 2, 1], "pads": [0, 1, 1, 1, 1, 0]},
             n_out=2, id="maxpool3d"),
        Case("MaxPool", [_q((1, 2, 5, 5), np.int8, 63)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, n_out=2,
             id="maxpool_int8"),
        Case("MaxPool", [_q((1, 2, 5, 5), np.uint8, 64)], {"kernel_shape": [2, 2], "strides": [2, 2]}, id="maxpool_u8"),
        Case("MaxPool", [x2.astype(F16)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, id="maxpool_f16"),
        Case("AveragePool", [x1], {"kernel_shape": [4], "strides": [3], "pads": [2, 1], "ceil_mode": 1,
                                   "count_include_pad": 1}, id="avgpool1d"),
        Case("AveragePool", [x3], {"kernel_shape": [3, 2, 2], "pads": [1, 0, 1, 1, 1, 0], "dilations": [1, 2, 1]},
             id="avgpool3d"),
        Case("AveragePool", [x2.astype(F16)], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, id="avgpool_f16",
             rtol=1e-2, atol=1e-2),
        Case("LpPool", [x1], {"kernel_shape": [3], "strides": [2], "p": 1}, id="lppool1d_p1"),
        # windows wider than their input (EfficientNet's pooler: AveragePool of its width, ceil_mode)
        *[Case("AveragePool", [x2], {"kernel_shape": [64, 64], "strides": [64, 64], "ceil_mode": 1,
                                     "count_include_pad": incl}, id=f"avgpool2d_wider_than_input_incl{incl}")
          for incl in (0, 1)],
        Case("MaxPool", [x2], {"kernel_shape": [9, 10], "strides": [4, 4], "pads": [2, 2, 2, 2]}, n_out=2,
             id="maxpool2d_wider_than_input_indices"),
        Case("MaxPool", [x2], {"kernel_shape": [12, 3], "strides": [12, 1], "pads": [5, 0, 5, 0]}, n_out=2,
             id="maxpool2d_first_positions_padding_indices"),
        Case("LpPool", [x2], {"kernel_shape": [12, 3], "strides": [12, 1], "pads": [5, 0, 5, 0], "p": 2},
             id="lppool2d_first_positions_padding"),
        Case("LpPool", [x3], {"kernel_shape": [2, 2, 2], "p": 2, "pads": [1, 1, 0, 0, 1, 1]}, id="lppool3d"),
    ]
    # MaxUnpool of a real MaxPool's values and indices
    from compiler.ops.pooling import _ref_maxpool
    pool = Node("MaxPool", "p", ("x",), ("y", "i"), (("kernel_shape", (2, 2)), ("strides", (2, 2))))
    pv, pi = _ref_maxpool(pool, [x2], 21)
    ev, ei = _ref_maxpool(pool, [_f((2, 3, 6, 8), seed=65)], 21)
    out += [
        Case("MaxUnpool", [ev, ei], {"kernel_shape": [2, 2], "strides": [2, 2]}, id="maxunpool2d"),
        Case("MaxUnpool", [pv, pi, np.array(x2.shape, np.int64)], {"kernel_shape": [2, 2], "strides": [2, 2]},
             id="maxunpool2d_output_shape"),
    ]
    for x, nm in [(x1, "1d"), (x2, "2d"), (x3, "3d")]:
        out.append(Case("GlobalAveragePool", [x], id=f"gap_{nm}"))
        out.append(Case("GlobalMaxPool", [x], id=f"gmp_{nm}"))
        out.append(Case("GlobalLpPool", [x], {"p": 3} if nm == "2d" else {}, id=f"glp_{nm}"))
    return out


CASES = _conv_cases() + _matmul_cases() + _pool_cases()


# --- ONNX plumbing ------------------------------------------------------------------------------------

def _model(case: Case) -> onnx.ModelProto:
    names = [f"x{k}" for k in range(len(case.inputs))]
    outs = ["y", "indices"][:case.n_out]
    node = helper.make_node(case.op, names, outs, **case.attrs)
    vin = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in zip(names, case.inputs)]
    vout = [helper.make_tensor_value_info(n, onnx.TensorProto.UNDEFINED, None) for n in outs]
    g = helper.make_graph([node], "g", vin, vout)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", case.opset)], ir_version=10)


def _ir_node(case: Case) -> Node:
    proto = _model(case).graph.node[0]
    attrs = []
    for a in proto.attribute:
        v = helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, list):
            v = tuple(v)
        attrs.append((a.name, v))
    return Node(case.op, "n0", tuple(proto.input), tuple(proto.output), tuple(sorted(attrs)))


# Cases where onnx.reference is known to deviate from the spec; onnxruntime is the oracle there.
_ORT_ORACLE = {
    "convT_group_dilated": "grouped ConvTranspose fails (reshape of W per group)",
    "maxpool_int8": "int8 MaxPool fails (NaN fill cast to int)",
    "maxpool2d_same_lower": "SAME_LOWER output extent floor(in/stride) where the spec says ceil",
    "maxpool2d_same_lower_indices": "SAME_LOWER output extent floor(in/stride) where the spec says ceil",
    "lppool2d_ceil": "LpPool rescales by kernel_size/valid_count in ceil_mode windows",
    "avgpool2d_wider_than_input_incl0": "a ceil_mode window wider than the input averages to NaN",
    "avgpool2d_wider_than_input_incl1": "a ceil_mode window wider than the input averages to 0",
    "gmp_1d": "GlobalMaxPool reduces the wrong axes for non-2-D inputs",
    "gmp_3d": "GlobalMaxPool reduces the wrong axes for non-2-D inputs",
    "glp_1d": "GlobalLpPool has no implementation", "glp_2d": "GlobalLpPool has no implementation",
    "glp_3d": "GlobalLpPool has no implementation",
    "maxunpool2d_output_shape": "MaxUnpool allocates the inferred extent, ignoring output_shape",
}


def _feeds(case: Case):
    return {f"x{k}": a for k, a in enumerate(case.inputs)}


@functools.lru_cache(maxsize=None)
def _onnx_outputs(case: Case):
    model = _model(case)
    if case.id in _ORT_ORACLE:
        import onnxruntime as ort
        model = onnx.shape_inference.infer_shapes(model)
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, _feeds(case))
    outs = ReferenceEvaluator(model).run(None, _feeds(case))
    if case.op == "MaxPool" and case.n_out == 2 and all(s == 1 for s in case.attrs.get("strides", [1])) \
            and all(d == 1 for d in case.attrs.get("dilations", [1])):
        # onnx.reference's unit-stride path returns wrong indices: rebuild them from the values
        # (inputs are continuous random data, so every maximum is unique in its window)
        x = case.inputs[0]
        outs[1] = _indices_of_values(x, outs[0], case)
    return outs


def _indices_of_values(x, y, case):
    """Flat input index of each pooled value, found among the window's candidates by value."""
    flat = x.reshape(x.shape[0], x.shape[1], -1)
    idx = np.zeros(y.shape, dtype=np.int64)
    plane = flat.shape[-1]
    for n, c in np.ndindex(*y.shape[:2]):
        for o in np.ndindex(*y.shape[2:]):
            hits = np.flatnonzero(flat[n, c] == y[(n, c) + o])
            assert hits.size == 1, case.id
            idx[(n, c) + o] = (n * x.shape[1] + c) * plane + hits[0]
    return idx


def _assert_close(got, want, case):
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol, atol=case.atol)
    elif want.dtype.kind in "iu" and case.op.startswith("QLinear"):
        # requantisation rounds at .5 boundaries: allow one step where float orders differ
        assert np.abs(got.astype(np.int64) - want.astype(np.int64)).max() <= 1
    else:
        np.testing.assert_array_equal(got, want)


# --- (a) references -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES, ids=repr)
def test_reference_matches_onnx(case):
    want = _onnx_outputs(case)
    got = lookup(case.op).reference(_ir_node(case), list(case.inputs), case.opset)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _assert_close(np.asarray(g), np.asarray(w), case)


def test_inputs_are_not_degenerate():
    for case in CASES:
        for a in case.inputs:
            if a.size > 1:
                assert np.unique(a).size > 1, case.id


# --- (b) lowerings: evaluated as tensor expressions and built with NVRTC ------------------------------

def _lower(case: Case):
    node = _ir_node(case)
    want = _onnx_outputs(case)
    in_types = [TensorType(DType.from_numpy(a.dtype), tuple(a.shape)) for a in case.inputs]
    out_types = [TensorType(DType.from_numpy(w.dtype), tuple(w.shape)) for w in want]
    steps = []
    ctx = LowerCtx(node, in_types, out_types, [None] * len(case.inputs), case.opset, emit=emit_rendered(steps),
                   new_name=lambda s: s)
    lookup(case.op).lower(ctx)
    return steps, want


_UNARY = {"neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "round": np.rint, "exp": np.exp}
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal, "and": np.logical_and, "or": np.logical_or}


def _compute_np(dt: DType):
    return np.dtype(np.float32) if dt in (DType.float16, DType.bfloat16) else dt.np


def _c_div(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


class TexprInterpreter:
    """Evaluates a TensorExpr for every output element at once, with C's semantics: truncating
    integer division, lazy select (a load is checked in bounds only where its branch is taken)."""

    def __init__(self, te: TensorExpr, arrays):
        self.te = te
        self.arrays = [np.asarray(a).astype(_compute_np(t.dtype)) for a, t in zip(arrays, te.inputs)]

    def ev(self, e, env, mask):
        if isinstance(e, Var):
            return env[e.name]
        if isinstance(e, Const):
            return np.array(e.value, dtype=_compute_np(e.dtype))
        if isinstance(e, Load):
            idx = [np.asarray(self.ev(i, env, mask), dtype=np.int64) for i in e.index]
            arr = self.arrays[e.arg]
            if not idx:
                return arr[()]
            b = np.broadcast_arrays(mask, *idx)
            m, idx = b[0], b[1:]
            for d, ix in enumerate(idx):
                bad = m & ((ix < 0) | (ix >= arr.shape[d]))
                assert not bad.any(), f"{self.te.name}: load of input {e.arg} out of bounds on axis {d}"
            return arr[tuple(np.clip(ix, 0, arr.shape[d] - 1) for d, ix in enumerate(idx))]
        if isinstance(e, Unary):
            return _UNARY[e.fn](self.ev(e.x, env, mask))
        if isinstance(e, Binary):
            a, b = self.ev(e.a, env, mask), self.ev(e.b, env, mask)
            with np.errstate(all="ignore"):
                if e.fn in _CMP:
                    return _CMP[e.fn](a, b)
                if e.fn == "add": return (a + b).astype(_compute_np(e.dtype))
                if e.fn == "sub": return (a - b).astype(_compute_np(e.dtype))
                if e.fn == "mul": return (a * b).astype(_compute_np(e.dtype))
                if e.fn == "div": return (a / b).astype(_compute_np(e.dtype))
                if e.fn == "idiv": return _c_div(a, b)
                if e.fn == "imod": return a - b * _c_div(a, b)
                if e.fn == "min": return np.minimum(a, b)
                if e.fn == "max": return np.maximum(a, b)
                if e.fn == "pow": return np.power(a, b)
            raise NotImplementedError(e.fn)
        if isinstance(e, Select):
            c = np.asarray(self.ev(e.cond, env, mask), dtype=bool)
            return np.where(c, self.ev(e.a, env, mask & c), self.ev(e.b, env, mask & ~c))
        if isinstance(e, Cast):
            x = np.asarray(self.ev(e.x, env, mask))
            if e.dtype is DType.bool:
                return x != 0
            return x.astype(_compute_np(e.dtype))
        raise TypeError(type(e).__name__)

    def run(self) -> np.ndarray:
        te, out = self.te, self.te.output
        red = te.reduce.axes if te.reduce else ()
        full = tuple(out.shape) + tuple(n for _, n in red)
        grids = np.ogrid[tuple(slice(0, n) for n in full)] if full else []
        env = {f"i{k}": grids[k] for k in range(out.rank)}
        env.update({name: grids[out.rank + k] for k, (name, _) in enumerate(red)})
        val = np.broadcast_to(self.ev(te.body, env, np.ones(full, dtype=bool)), full)
        if te.reduce is not None:
            flat = val.reshape(tuple(out.shape) + (-1,))
            op = te.reduce.op
            if op == "sum":
                acc = flat.sum(axis=-1, dtype=flat.dtype)
            elif op == "max":
                acc = flat.max(axis=-1)
            elif op == "min":
                acc = flat.min(axis=-1)
            elif op == "argmax":
                acc = flat.argmax(axis=-1).astype(np.int64)
            else:
                raise NotImplementedError(op)
            if te.epilogue is not None:
                oenv = {f"i{k}": g for k, g in enumerate(np.ogrid[tuple(slice(0, n) for n in out.shape)])} \
                    if out.rank else {}
                oenv["acc"] = acc
                val = np.broadcast_to(self.ev(te.epilogue, oenv, np.ones(out.shape, dtype=bool)), out.shape)
            else:
                val = acc
        return np.asarray(val).astype(out.dtype.np)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_lowering_computes_the_reference(case):
    steps, want = _lower(case)
    launches = [s for s in steps if isinstance(s, LaunchStep)]
    assert len(launches) == case.n_out
    for k, (step, w) in enumerate(zip(launches, want)):
        kern = step.kernel
        assert kern.params[-1].value == ["y", "indices"][k] and kern.params[-1].output
        by_name = {f"x{j}": a for j, a in enumerate(case.inputs)}
        args = [by_name[p.value] for p in kern.params[:-1]]
        got = TexprInterpreter(kern.expr, args).run()
        _assert_close(got, np.asarray(w), case)


@pytest.mark.parametrize("case_id,extent", [("avgpool2d_wider_than_input_incl0", 7 * 8),
                                             ("maxpool2d_first_positions_padding_indices", 7 * 3)])
def test_a_pool_reduces_over_the_window_positions_inside_its_input(case_id, extent):
    """A window wider than its input reduces over the positions some output reads inside it (a
    64x64 window over 7x8: 56 steps, not 4096; a window whose first 5 rows are padding for its one
    output row: from the 6th row on)."""
    (case,) = [c for c in CASES if c.id == case_id]
    steps, _ = _lower(case)
    for step in (s for s in steps if isinstance(s, LaunchStep)):
        assert step.kernel.expr.reduce.extent == extent


# one case per op and per distinct expression shape is enough to exercise the C renderer with NVRTC
_BUILD = [c for c in CASES if c.id in {
    "conv2d_pad_bias", "conv2d_group2", "conv2d_depthwise", "conv1d", "conv3d", "conv2d_f16", "convT_stride_pad_bias",
    "convT_group_dilated", "conv_integer_i8_perchan", "qlinear_conv_u8", "matmul_(2, 1, 3, 4)x(3, 4, 5)",
    "matmul_(4,)x(4,)", "matmul_f16", "gemm_t11_a2.0_b0.25_c(3, 5)", "einsum_...ij,...jk->...ik", "einsum_iij->j",
    "matmul_integer_vector_zp", "qlinear_matmul_i8", "maxpool2d_ceil_pad_indices", "maxpool_int8",
    "maxpool2d_colmajor_indices", "avgpool2d_ceil_pad_incl", "avgpool2d_dilated", "lppool2d_stride_pad",
    "avgpool_f16", "gap_2d", "gmp_3d", "glp_2d", "maxunpool2d", "maxpool2d_first_positions_padding_indices"}]


def test_build_list_is_complete():
    assert len(_BUILD) == 30
    assert {c.op for c in _BUILD} == {c.op for c in CASES}


@pytest.mark.parametrize("case", _BUILD, ids=repr)
def test_kernels_build_with_nvrtc(case):
    from compiler.codegen.nvrtc import build_cubin
    steps, _ = _lower(case)
    for s in steps:
        res = build_cubin(s.kernel.source, s.kernel.entry, "sm_90")
        assert res.cubin and res.registers > 0 and res.spills == 0


# --- unit checks of the einsum parser ---------------------------------------------------------------

def test_einsum_parse_implicit_and_ellipsis():
    s = parse_einsum("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)])
    assert s.output == (".0", ".1", "i", "k")
    assert dict(s.sizes)[".1"] == 5 and dict(s.sizes)["j"] == 4
    assert parse_einsum("ii", [(3, 3)]).output == ()
    assert parse_einsum("ba", [(3, 4)]).output == ("a", "b")
    with pytest.raises(ValueError):
        parse_einsum("ij,jk->ik", [(3, 4)])
