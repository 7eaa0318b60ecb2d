"""LSTM/GRU/RNN, Attention and RotaryEmbedding: references against ONNX's own evaluators, and every
lowering's kernels built with NVRTC for sm_90."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from compiler.ir.dtypes import DType
from compiler.ir.graph import Node, TensorType
from compiler.ops.registry import LowerCtx, lookup
from compiler.runtime.plan import LaunchStep

_NP2ONNX = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float16): TensorProto.FLOAT16,
            np.dtype(np.float64): TensorProto.DOUBLE, np.dtype(np.int32): TensorProto.INT32,
            np.dtype(np.int64): TensorProto.INT64, np.dtype(np.bool_): TensorProto.BOOL}


def _attr_value(a):
    v = helper.get_attribute_value(a)
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, list):
        return tuple(x.decode() if isinstance(x, bytes) else x for x in v)
    return v


def to_ir_node(n: onnx.NodeProto) -> Node:
    return Node(n.op_type, n.name or n.op_type, tuple(n.input), tuple(n.output),
                tuple((a.name, _attr_value(a)) for a in n.attribute))


def one_node_model(op, inputs: dict, outputs: list[str], opset: int, **attrs):
    """A model of one node; `inputs` maps input names (or '' for an omitted one) to arrays."""
    names = list(inputs)
    node = helper.make_node(op, names, outputs, name=op.lower(), **attrs)
    vis = [helper.make_tensor_value_info(k, _NP2ONNX[v.dtype], v.shape) for k, v in inputs.items() if k]
    outs = [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs if o]
    g = helper.make_graph([node], "g", vis, outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m, node


def reference_eval(model, feeds):
    from onnx.reference import ReferenceEvaluator
    return ReferenceEvaluator(model).run(None, {k: v for k, v in feeds.items() if k})


def ort_eval(model, feeds):
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, {k: v for k, v in feeds.items() if k})


def ours(op, node, feeds, opset):
    ir = to_ir_node(node)
    return lookup(op).reference(ir, [feeds[k] if k else None for k in node.input], opset)


def lower_node(node: onnx.NodeProto, feeds: dict, opset: int, out_shapes, consts=()):
    """Runs the lowering of one node without the pipeline; returns the emitted steps."""
    ir = to_ir_node(node)
    in_types = [TensorType(DType.from_numpy(feeds[k].dtype), feeds[k].shape) if k else None
                for k in node.input]
    out_types = [TensorType(dt, shp) if shp is not None else None for dt, shp in out_shapes]
    cvals = [feeds[k] if k in consts else None for k in node.input]
    steps: list = []
    ctx = LowerCtx(ir, in_types, out_types, cvals, opset, emit=steps.append, new_name=lambda s: s)
    lookup(node.op_type).lower(ctx)
    return steps, ctx


def build_all(steps):
    from compiler.codegen.nvrtc import build_cubin
    kernels = [s.kernel for s in steps if isinstance(s, LaunchStep)]
    assert kernels
    for k in kernels:
        res = build_cubin(k.source, k.entry, "sm_90")
        assert len(res.cubin) > 0
        assert res.spills == 0 or res.registers > 0
    return kernels


# --- recurrent ------------------------------------------------------------------------------

def rnn_inputs(rng, kind, seq, batch, inp, hid, dirs, layout=0, bias=True, lens=False, h0=False,
               c0=False, peep=False, dtype=np.float32):
    """Random inputs; returns (feeds of the present inputs, the node's input names with '' gaps)."""
    G = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    st = (dirs, batch, hid) if layout == 0 else (batch, dirs, hid)
    slots = [
        ("X", True, lambda: rng.standard_normal((seq, batch, inp) if layout == 0 else (batch, seq, inp))),
        ("W", True, lambda: rng.standard_normal((dirs, G * hid, inp)) * 0.4),
        ("R", True, lambda: rng.standard_normal((dirs, G * hid, hid)) * 0.4),
        ("B", bias, lambda: rng.standard_normal((dirs, 2 * G * hid)) * 0.3),
        ("seq_lens", lens, lambda: rng.integers(1, seq + 1, batch)),
        ("h0", h0, lambda: rng.standard_normal(st)),
        ("c0", c0 and kind == "LSTM", lambda: rng.standard_normal(st)),
        ("P", peep and kind == "LSTM", lambda: rng.standard_normal((dirs, 3 * hid)) * 0.5),
    ]
    feeds, keys = {}, []
    for name, present, make in slots:
        if present:
            feeds[name] = make().astype(np.int32 if name == "seq_lens" else dtype)
        keys.append(name if present else "")
    while keys[-1] == "":
        keys.pop()
    return feeds, keys


def rnn_model(kind, feeds, keys, hid, outputs, **attrs):
    vals = {k: feeds[k] for k in keys if k}
    node = helper.make_node(kind, keys, outputs, name=kind.lower(), hidden_size=hid, **attrs)
    vis = [helper.make_tensor_value_info(k, _NP2ONNX[v.dtype], v.shape) for k, v in vals.items()]
    elem = _NP2ONNX[feeds["X"].dtype]
    outs = [helper.make_tensor_value_info(o, elem, None) for o in outputs if o]
    m = helper.make_model(helper.make_graph([node], "g", vis, outs),
                          opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    return m, node


def rnn_ours(kind, node, feeds):
    ir = to_ir_node(node)
    return lookup(kind).reference(ir, [feeds[k] if k else None for k in node.input], 14)


# Combinations ONNX's ReferenceEvaluator implements (it ignores activations, clip, sequence_lens).
REF_CASES = [
    ("LSTM", dict(direction="forward"), dict()),
    ("LSTM", dict(direction="reverse"), dict(h0=True, c0=True)),
    ("LSTM", dict(direction="bidirectional"), dict(h0=True, c0=True, peep=True)),
    ("LSTM", dict(direction="forward", layout=1), dict(h0=True, c0=True, layout=1, peep=True)),
    ("LSTM", dict(direction="forward"), dict(bias=False)),
    ("GRU", dict(direction="forward"), dict()),
    ("GRU", dict(direction="bidirectional", linear_before_reset=1), dict(h0=True)),
    ("GRU", dict(direction="reverse", layout=1), dict(h0=True, layout=1)),
    ("GRU", dict(direction="forward", linear_before_reset=1), dict(bias=False)),
    ("RNN", dict(direction="forward"), dict()),
    ("RNN", dict(direction="bidirectional"), dict(h0=True)),
    ("RNN", dict(direction="forward", layout=1), dict(h0=True, layout=1)),
]


@pytest.mark.parametrize("kind,attrs,opts", REF_CASES)
def test_rnn_reference_matches_onnx(kind, attrs, opts):
    rng = np.random.default_rng(7)
    hid = 5
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds, keys = rnn_inputs(rng, kind, 6, 3, 4, hid, dirs, **opts)
    outs = ["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"]
    model, node = rnn_model(kind, feeds, keys, hid, outs, **attrs)
    want = reference_eval(model, feeds)
    got = rnn_ours(kind, node, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


# Attributes ONNX's evaluator ignores: checked against onnxruntime (layout 0 only there).
ORT_CASES = [
    ("LSTM", dict(activations=["HardSigmoid", "Elu", "Softsign"], activation_alpha=[0.3, 0.8],
                  activation_beta=[0.4]), dict(h0=True)),
    ("LSTM", dict(clip=0.7, input_forget=1), dict(peep=True, c0=True)),
    ("LSTM", dict(direction="bidirectional"), dict(lens=True, h0=True)),
    ("LSTM", dict(direction="reverse", activations=["LeakyRelu", "ScaledTanh", "Affine"],
                  activation_alpha=[0.2, 0.9, 0.5], activation_beta=[1.1, 0.1]), dict(lens=True)),
    ("GRU", dict(activations=["Softplus", "ThresholdedRelu"], activation_alpha=[0.1]), dict()),
    ("GRU", dict(direction="bidirectional", clip=0.5), dict(lens=True, h0=True)),
    ("GRU", dict(direction="reverse", linear_before_reset=1), dict(lens=True)),
    ("RNN", dict(activations=["Relu"]), dict(lens=True)),
    ("RNN", dict(direction="bidirectional", activations=["Sigmoid", "Affine"], activation_alpha=[0.7],
                 activation_beta=[0.2], clip=1.5), dict(h0=True)),
]


@pytest.mark.parametrize("kind,attrs,opts", ORT_CASES)
def test_rnn_reference_matches_onnxruntime(kind, attrs, opts):
    rng = np.random.default_rng(11)
    hid = 4
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds, keys = rnn_inputs(rng, kind, 7, 3, 3, hid, dirs, **opts)
    outs = ["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"]
    model, node = rnn_model(kind, feeds, keys, hid, outs, **attrs)
    want = ort_eval(model, feeds)
    got = rnn_ours(kind, node, feeds)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
