"""LSTM/GRU/RNN, Attention and RotaryEmbedding: references against ONNX's own evaluators, and every
lowering's kernels built with NVRTC for sm_90."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from compiler.ir.dtypes import DType
from compiler.ir.graph import Node, TensorType
from compiler.ops import recurrence_kernels as rk
from compiler.ops.registry import LowerCtx, lookup
from compiler.ir.plan import AliasStep, LaunchStep
from tests.ops.one_node import emit_rendered

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
    out_types = [TensorType(dt, shp) if dt is not None else None for dt, shp in out_shapes]
    cvals = [feeds[k] if k in consts else None for k in node.input]
    steps: list = []
    ctx = LowerCtx(ir, in_types, out_types, cvals, opset, emit=emit_rendered(steps), new_name=lambda s: s)
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
    ("GRU", dict(activations=["HardSigmoid", "ThresholdedRelu"], activation_alpha=[0.25, 0.1],
                 activation_beta=[0.45]), dict()),
    ("GRU", dict(direction="bidirectional", clip=0.5), dict(lens=True, h0=True)),
    ("GRU", dict(direction="reverse", linear_before_reset=1), dict(lens=True)),
    ("RNN", dict(activations=["Relu"]), dict(lens=True)),
    ("RNN", dict(activations=["Softplus"]), dict(h0=True)),
    # onnxruntime's RNN indexes alphas by activation position (LSTM/GRU consume them in order, as
    # the spec says); with one alpha-taking activation per direction both readings agree
    ("RNN", dict(direction="bidirectional", activations=["Affine", "Affine"], activation_alpha=[0.7, 0.6],
                 activation_beta=[0.2, 0.1], clip=1.5), dict(h0=True)),
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


def rnn_out_shapes(kind, feeds, hid, dirs, layout, n_out):
    X = feeds["X"]
    dt = DType.from_numpy(X.dtype)
    seq, batch = (X.shape[0], X.shape[1]) if layout == 0 else (X.shape[1], X.shape[0])
    y = (seq, dirs, batch, hid) if layout == 0 else (batch, seq, dirs, hid)
    st = (dirs, batch, hid) if layout == 0 else (batch, dirs, hid)
    return [(dt, y), (dt, st), (dt, st)][:n_out]


LOWER_CASES = [
    ("LSTM", dict(), dict(h0=True, c0=True), 128, np.float32),   # the shape of shared/models/lstm.onnx
    ("LSTM", dict(direction="bidirectional", clip=2.0, activations=["HardSigmoid", "Tanh", "Elu"] * 2),
     dict(lens=True, peep=True, h0=True), 300, np.float32),
    ("LSTM", dict(direction="reverse", input_forget=1, layout=1), dict(layout=1, peep=True), 16, np.float16),
    ("GRU", dict(), dict(h0=True), 200, np.float32),
    ("GRU", dict(direction="bidirectional", linear_before_reset=1), dict(lens=True), 24, np.float64),
    ("RNN", dict(activations=["Relu"]), dict(bias=False), 64, np.float32),
]


@pytest.mark.parametrize("kind,attrs,opts,hid,dtype", LOWER_CASES)
def test_rnn_lowering_builds(kind, attrs, opts, hid, dtype):
    rng = np.random.default_rng(3)
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds, keys = rnn_inputs(rng, kind, 5, 2, 8, hid, dirs, dtype=dtype, **opts)
    outs = ["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"]
    _, node = rnn_model(kind, feeds, keys, hid, outs, **attrs)
    steps, ctx = lower_node(node, feeds, 14, rnn_out_shapes(kind, feeds, hid, dirs, attrs.get("layout", 0), len(outs)))
    kernels = build_all(steps)
    assert len(kernels) == 2                       # projection, then the device-side time loop
    rec = kernels[1]
    assert rec.params[0].value in ctx.temps
    # an R of 44 KB or more takes one SM longer to stream (29.5 GB/s) than a grid barrier (1.5 us):
    # LSTM 128 fp32 (256 KB), 300, GRU 200 (469 KB) take the grid form; LSTM 16 fp16 (2 KB), GRU 24
    # fp64 (13.5 KB), RNN 64 fp32 (16 KB) one block per sequence
    form = dict(rec.config)["form"]
    assert form == ("grid" if hid in (128, 300, 200) else "block")
    if form == "block":   # one block per (batch element, direction), barriers only inside the block
        assert not rec.cooperative and rec.grid == (2, dirs, 1) and "by_grid_sync" not in rec.source
        assert [p.value for p in rec.params if p.output] == outs
        return
    # one cooperative launch over the hidden units' slices, a grid barrier per step (GRU's default
    # form: two), its state in a plan temporary
    slice_w, slices, blocks = rk.recurrence_grid(hid, dirs)
    assert rec.cooperative and rec.grid == (blocks, dirs, 1) and blocks == slices == -(-hid // slice_w)
    barriers = 2 if kind == "GRU" and not attrs.get("linear_before_reset") else 1
    assert "for (int s = 0; s < steps; ++s)" in rec.source
    assert rec.source.count("by_grid_sync();") == 1 + barriers
    assert [p.value for p in rec.params if p.output] == outs + [rec.params[-1].value]
    assert rec.params[-1].value in ctx.temps


# --- attention ------------------------------------------------------------------------------

def attention_feeds(rng, *, rank=4, b=2, hq=4, hkv=2, sq=3, skv=5, dqk=8, dv=6, past=0,
                    mask=None, nonpad=False, dtype=np.float32):
    """Random Q/K/V (+ mask, past) as an ordered dict of input name -> array ('' = omitted)."""
    def t(heads, s, d):
        shape = (b, heads, s, d) if rank == 4 else (b, s, heads * d)
        return rng.standard_normal(shape).astype(dtype)
    feeds = {"Q": t(hq, sq, dqk), "K": t(hkv, skv, dqk), "V": t(hkv, skv, dv)}
    total = past + skv
    if mask == "bool":
        m = rng.random((sq, total)) > 0.3
        m[:, 0] = True
        feeds["mask"] = m
    elif mask == "bool_short":             # shorter than the keys: the rest is masked out
        feeds["mask"] = rng.random((b, 1, sq, total - 2)) > 0.4
    elif mask == "float3d":
        feeds["mask"] = rng.standard_normal((hq, sq, total)).astype(dtype)
    elif mask == "float4d":
        feeds["mask"] = rng.standard_normal((b, 1, sq, total)).astype(dtype)
    if past:
        feeds.setdefault("mask", None)
        feeds["past_key"] = rng.standard_normal((b, hkv, past, dqk)).astype(dtype)
        feeds["past_value"] = rng.standard_normal((b, hkv, past, dv)).astype(dtype)
    if nonpad:
        feeds.setdefault("mask", None)
        feeds["past_key"] = feeds["past_value"] = None
        feeds["nonpad"] = rng.integers(sq, skv + 1, b).astype(np.int64)
    return feeds


def attention_model(feeds, outputs, opset=23, **attrs):
    keys = [k if v is not None else "" for k, v in feeds.items()]
    present = {k: v for k, v in feeds.items() if v is not None}
    elem = _NP2ONNX[feeds["Q"].dtype]
    node = helper.make_node("Attention", keys, outputs, name="attention", **attrs)
    vis = [helper.make_tensor_value_info(k, _NP2ONNX[v.dtype], v.shape) for k, v in present.items()]
    outs = [helper.make_tensor_value_info(o, elem, None) for o in outputs if o]
    m = helper.make_model(helper.make_graph([node], "g", vis, outs),
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m, node, present


ATTN_CASES = [
    (dict(), dict(hkv=4), ["Y"]),
    (dict(is_causal=1), dict(sq=5), ["Y"]),
    (dict(scale=0.3), dict(), ["Y"]),                                   # GQA
    (dict(softcap=2.0, qk_matmul_output_mode=1), dict(mask="float3d", hkv=1), ["Y", "", "", "QK"]),
    (dict(qk_matmul_output_mode=2), dict(mask="bool"), ["Y", "", "", "QK"]),
    (dict(qk_matmul_output_mode=3, is_causal=1), dict(mask="bool_short", sq=5, skv=5), ["Y", "", "", "QK"]),
    (dict(is_causal=1), dict(past=4, mask="float4d", sq=2, skv=2), ["Y", "PK", "PV"]),
    (dict(q_num_heads=4, kv_num_heads=2), dict(rank=3), ["Y"]),
    (dict(q_num_heads=4, kv_num_heads=2, is_causal=1), dict(rank=3, past=3, sq=2, skv=2), ["Y", "PK", "PV"]),
    (dict(), dict(dtype=np.float16, mask="float4d"), ["Y", "", "", "QK"]),
    # opset 24 nonpad_kv_seqlen (external cache), opset 25 sliding windows
    (dict(is_causal=1, opset=24), dict(nonpad=True, sq=2, skv=6), ["Y"]),
    (dict(left_window_size=1, right_window_size=2, opset=25), dict(sq=5, skv=5, mask="float3d"), ["Y"]),
    (dict(left_window_size=2, is_causal=1, opset=25), dict(past=3, sq=2, skv=2), ["Y", "PK", "PV"]),
]


@pytest.mark.parametrize("attrs,opts,outputs", ATTN_CASES)
def test_attention_reference_matches_onnx(attrs, opts, outputs):
    rng = np.random.default_rng(5)
    feeds = attention_feeds(rng, **opts)
    model, node, present = attention_model(feeds, outputs, **attrs)
    want = reference_eval(model, present)
    got = lookup("Attention").reference(to_ir_node(node), [feeds[k] if k else None for k in node.input], 23)
    got = [g for g, o in zip(got, outputs) if o]
    tol = 2e-2 if opts.get("dtype") == np.float16 else 1e-5
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol, atol=tol)


def test_attention_fully_masked_row_is_zero():
    rng = np.random.default_rng(9)
    feeds = attention_feeds(rng, mask="bool")
    feeds["mask"][1, :] = False
    _, node, _ = attention_model(feeds, ["Y"])
    (y,) = lookup("Attention").reference(to_ir_node(node), list(feeds.values()), 23)
    assert np.all(y[:, :, 1] == 0) and np.all(np.isfinite(y)) and np.abs(y[:, :, 0]).sum() > 0


def attention_out_types(feeds, node, outputs):
    ref = lookup("Attention").reference(to_ir_node(node), [feeds[k] if k else None for k in node.input], 23)
    return [(DType.from_numpy(r.dtype), r.shape) if o else (None, None) for r, o in zip(ref, outputs)]


@pytest.mark.parametrize("attrs,opts,outputs", ATTN_CASES)
def test_attention_lowering_builds(attrs, opts, outputs):
    rng = np.random.default_rng(5)
    feeds = attention_feeds(rng, **opts)
    _, node, _ = attention_model(feeds, outputs, **attrs)
    outs = attention_out_types(feeds, node, outputs)
    steps, ctx = lower_node(node, feeds, 23, outs)
    kernels = build_all(steps)
    written = {p.value for k in kernels for p in k.params if p.output}
    # a 3-D Y is the heads' output transposed, then reshaped: an alias of a written value
    written |= {s.dst for s in steps if isinstance(s, AliasStep) and s.src in written}
    for o in outputs:
        if o:
            assert o in written
    assert any(k.expr is not None and k.expr.reduce is not None and k.expr.reduce.op == "max" for k in kernels)


# --- rotary embedding -----------------------------------------------------------------------

ROPE_CASES = [
    (dict(), dict(rank=4, pos=True)),
    (dict(interleaved=1), dict(rank=4, pos=True)),
    (dict(rotary_embedding_dim=4), dict(rank=4, pos=True)),
    (dict(rotary_embedding_dim=4, interleaved=1, num_heads=2), dict(rank=3, pos=True)),
    (dict(num_heads=2), dict(rank=3, pos=False)),
    (dict(interleaved=1), dict(rank=4, pos=False)),
]


def rope_feeds(rng, rank, pos, attrs, b=2, n=2, s=3, d=8, max_pos=10):
    rd = attrs.get("rotary_embedding_dim") or d
    x = rng.standard_normal((b, n, s, d) if rank == 4 else (b, s, n * d)).astype(np.float32)
    lead = (max_pos,) if pos else (b, s)
    feeds = {"X": x, "cos": rng.standard_normal(lead + (rd // 2,)).astype(np.float32),
             "sin": rng.standard_normal(lead + (rd // 2,)).astype(np.float32)}
    if pos:
        feeds["pos"] = rng.integers(0, max_pos, (b, s)).astype(np.int64)
    return feeds


@pytest.mark.parametrize("attrs,opts", ROPE_CASES)
def test_rotary_reference_and_lowering(attrs, opts):
    rng = np.random.default_rng(13)
    feeds = rope_feeds(rng, opts["rank"], opts["pos"], attrs)
    model, node = one_node_model("RotaryEmbedding", feeds, ["Y"], 23, **attrs)
    (want,) = reference_eval(model, feeds)
    (got,) = lookup("RotaryEmbedding").reference(to_ir_node(node), list(feeds.values()), 23)
    assert got.shape == want.shape and not np.allclose(got, feeds["X"])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    steps, _ = lower_node(node, feeds, 23, [(DType.float32, want.shape)])
    (k,) = build_all(steps)
    assert k.params[-1].value == "Y"


# --- end to end on the host harness ---------------------------------------------------------

def with_output_shapes(model, arrays):
    """The model with its graph outputs typed by the reference's arrays (the checker wants shapes)."""
    del model.graph.output[:]
    names = [o for o in model.graph.node[0].output if o]
    model.graph.output.extend(helper.make_tensor_value_info(n, _NP2ONNX[a.dtype], a.shape)
                              for n, a in zip(names, arrays))
    return model


HOST_CASES = [
    # hidden 300: 1200 gate rows, many per warp
    ("LSTM", dict(direction="bidirectional", clip=1.5, activations=["HardSigmoid", "Tanh", "Softsign"] * 2,
                  activation_alpha=[0.3, 0.3], activation_beta=[0.45, 0.45]),
     dict(lens=True, peep=True, h0=True, c0=True), 300),
    ("LSTM", dict(direction="reverse", input_forget=1, layout=1), dict(layout=1, lens=True, h0=True), 7),
    ("GRU", dict(direction="bidirectional"), dict(lens=True, h0=True), 40),
    ("GRU", dict(direction="reverse", linear_before_reset=1, clip=0.8), dict(h0=True), 9),
    ("RNN", dict(activations=["Elu"], activation_alpha=[0.6]), dict(lens=True, bias=False), 20),
]


@pytest.mark.parametrize("form,blocks", [("block", None), ("grid", None), ("grid", 3)])
@pytest.mark.parametrize("kind,attrs,opts,hid", HOST_CASES)
def test_rnn_runs_on_host_harness(kind, attrs, opts, hid, form, blocks, monkeypatch):
    """Against the reference in both forms of the recurrence, the grid form with its default grid
    and with 3 blocks (per direction: 1), which take several slices each, grid-stride."""
    monkeypatch.setattr(rk, "recurrence_form", lambda sp, dt: form)
    if blocks:
        monkeypatch.setattr(rk, "RECURRENCE_BLOCKS", blocks)
    backend = pytest.importorskip("compiler.onnx_backend")
    rng = np.random.default_rng(21)
    dirs = 2 if attrs.get("direction") == "bidirectional" else 1
    feeds, keys = rnn_inputs(rng, kind, 5, 3, 6, hid, dirs, **opts)
    outs = ["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"]
    model, node = rnn_model(kind, feeds, keys, hid, outs, **attrs)
    want = rnn_ours(kind, node, feeds)
    rep = backend.BrickyardBackend.prepare(with_output_shapes(model, want), "CPU")
    got = rep.run([feeds[k] for k in keys if k])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    if opts.get("lens"):   # padding steps are zero, and the sequences differ in length
        assert np.any(feeds["seq_lens"] < 5) and np.any(got[0] == 0)


def test_attention_runs_on_host_harness():
    backend = pytest.importorskip("compiler.onnx_backend")
    rng = np.random.default_rng(23)
    feeds = attention_feeds(rng, past=3, sq=2, skv=3, mask="bool")
    model, node, present = attention_model(feeds, ["Y", "PK", "PV", "QK"], is_causal=1,
                                           qk_matmul_output_mode=3, softcap=3.0)
    want = lookup("Attention").reference(to_ir_node(node), [feeds[k] if k else None for k in node.input], 23)
    got = backend.BrickyardBackend.prepare(with_output_shapes(model, want), "CPU").run(list(present.values()))
    assert len(got) == 4
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
