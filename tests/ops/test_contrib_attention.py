"""onnxruntime's com.microsoft Attention and MultiHeadAttention (compiler/ops/contrib_attention.py)
against onnxruntime's own CPU kernels, on the host harness in both thread orders: the packed
projection with and without bias, every mask-index form, unidirectional, past and present,
attention_bias, scale and mask_filter_value; MultiHeadAttention with separate, packed and per-head
inputs; and the optimizer's BERT attention fused as the plain graph is."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import CompilerError
from compiler.ir.graph import Node
from compiler.ops.registry import lookup
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

RNG = np.random.default_rng(23)
MS = "com.microsoft"
B, S, HID, N = 2, 16, 64, 4
D = HID // N


def _f(shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def model(node, inputs, outputs, inits=()) -> bytes:
    """One com.microsoft node; inputs and outputs as (name, elem type, shape)."""
    vi = helper.make_tensor_value_info
    g = helper.make_graph([node], "ms_attention", [vi(n, t, s) for n, t, s in inputs],
                          [vi(n, t, s) for n, t, s in outputs], [numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid(MS, 1)])
    m.ir_version = 9
    return m.SerializeToString()


def ort_run(data: bytes, feeds: dict) -> dict:
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    sess = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))


def check(data: bytes, feeds: dict, tol: float = 1e-5, want: dict | None = None):
    """The compiled plan against onnxruntime's CPU kernel (or `want`), every output, both thread
    orders."""
    want = ort_run(data, feeds) if want is None else want
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)
        for name, w in want.items():
            np.testing.assert_allclose(got[name], w, rtol=0, atol=tol * max(1.0, np.abs(w).max()),
                                       err_msg=f"{name} ({mode})")
    return art


F, I32 = TensorProto.FLOAT, TensorProto.INT32


def _masks():
    lengths = np.array([S, 9], np.int32)
    raw = (RNG.random((B, S)) > 0.3).astype(np.int32)
    raw[:, 0] = 1
    return {
        "none": None,
        "key_lengths": lengths,
        "end_start": np.array([S, 12, 0, 3], np.int32),
        "raw_2d": raw,
        "raw_3d": (RNG.random((B, S, S)) > 0.3).astype(np.int32),
        "all_masked_row": np.array([S, 0], np.int32),     # mask_filter_value is finite: a uniform softmax
    }


@pytest.mark.parametrize("mask_kind", list(_masks()))
@pytest.mark.parametrize("causal", [0, 1])
def test_attention_masks(mask_kind, causal):
    mask = _masks()[mask_kind]
    w, bias = _f((HID, 3 * HID), 0.2), _f((3 * HID,))
    ins = ["x", "w", "bias"] + (["mask"] if mask is not None else [])
    node = helper.make_node("Attention", ins, ["y"], domain=MS, num_heads=N, unidirectional=causal)
    inputs = [("x", F, [B, S, HID])] + ([("mask", I32, list(mask.shape))] if mask is not None else [])
    feeds = {"x": _f((B, S, HID))} | ({"mask": mask} if mask is not None else {})
    check(model(node, inputs, [("y", F, [B, S, HID])], [("w", w), ("bias", bias)]), feeds)


@pytest.mark.parametrize("extra", ["past", "attention_bias"])
def test_attention_past_or_bias_scale(extra):
    """past (2, B, N, P, D) in front and present out, or attention_bias added (onnxruntime takes
    one or the other); scale and mask_filter_value given; a raw 2-D mask over past and new keys."""
    P = 5 if extra == "past" else 0
    T = P + S
    w = _f((HID, 3 * HID), 0.2)
    names = ["x", "w", "", "mask", "past" if P else "", "" if P else "abias"]
    node = helper.make_node("Attention", names, ["y", "present"] if P else ["y"], domain=MS,
                            num_heads=N, scale=0.3, mask_filter_value=-500.0, unidirectional=1)
    mask = (RNG.random((B, T)) > 0.2).astype(np.int32)
    feeds = {"x": _f((B, S, HID)), "mask": mask} | ({"past": _f((2, B, N, P, D))} if P else {"abias": _f((1, N, S, T))})
    inputs = [(n, I32 if n == "mask" else F, list(a.shape)) for n, a in feeds.items()]
    outputs = [("y", F, [B, S, HID])] + ([("present", F, [2, B, N, T, D])] if P else [])
    check(model(node, inputs, outputs, [("w", w)]), feeds)


def test_attention_past_needs_equal_head_sizes():
    """One past buffer holds K and V: a V head wider than K's is refused with a past."""
    P, hv = 5, 2 * HID
    node = helper.make_node("Attention", ["x", "w", "", "", "past"], ["y"], domain=MS, num_heads=N,
                            qkv_hidden_sizes=[HID, HID, hv])
    data = model(node, [("x", F, [B, S, HID]), ("past", F, [2, B, N, P, D])], [("y", F, [B, S, hv])],
                 [("w", _f((HID, 2 * HID + hv)))])
    with pytest.raises(CompilerError, match="past"):
        compile(data, "h100", CompileOptions(build=False))


def test_attention_unequal_v_hidden():
    hv = 2 * HID
    w, bias = _f((HID, 2 * HID + hv), 0.2), _f((2 * HID + hv,))
    node = helper.make_node("Attention", ["x", "w", "bias"], ["y"], domain=MS, num_heads=N,
                            qkv_hidden_sizes=[HID, HID, hv])
    check(model(node, [("x", F, [B, S, HID])], [("y", F, [B, S, hv])], [("w", w), ("bias", bias)]),
          {"x": _f((B, S, HID))})


def _mha_inputs(form: str, L: int):
    if form == "separate":
        return {"q": _f((B, S, HID)), "k": _f((B, L, HID)), "v": _f((B, L, HID))}
    if form == "bnsh":
        return {"q": _f((B, S, HID)), "k": _f((B, N, L, D)), "v": _f((B, N, L, D))}
    if form == "packed_kv":
        return {"q": _f((B, S, HID)), "k": _f((B, L, N, 2, D))}
    return {"q": _f((B, S, N, 3, D))}


def _as_separate(feeds: dict) -> dict:
    """The same Q, K and V as (B, seq, N * D) each: onnxruntime's CPU kernel has no packed forms."""
    if "v" in feeds:
        return feeds
    if "k" in feeds:
        kv = feeds["k"]
        return {"q": feeds["q"], "k": kv[:, :, :, 0].reshape(B, -1, HID), "v": kv[:, :, :, 1].reshape(B, -1, HID)}
    qkv = feeds["q"]
    return {n: qkv[:, :, :, t].reshape(B, -1, HID) for t, n in enumerate("qkv")}


# a bias with per-head K and V is refused (test_refusals), so "bnsh" runs without one
@pytest.mark.parametrize("form,with_bias", [(f, b) for f in ("separate", "bnsh", "packed_kv", "packed_qkv")
                                            for b in (False, True) if not (b and f == "bnsh")])
def test_mha_forms(form, with_bias):
    """Each layout of Q, K and V; the packed ones against onnxruntime on the same values unpacked."""
    L = S if form == "packed_qkv" else 11
    feeds = _mha_inputs(form, L)
    inits = [("bias", _f((3 * HID,)))] if with_bias else []

    def mha(fd):
        names = ["q", "k" if "k" in fd else "", "v" if "v" in fd else "", "bias" if with_bias else ""]
        node = helper.make_node("MultiHeadAttention", names, ["y"], domain=MS, num_heads=N)
        return model(node, [(n, F, list(a.shape)) for n, a in fd.items()], [("y", F, [B, S, HID])], inits)
    unpacked = _as_separate(feeds)
    check(mha(feeds), feeds, want=ort_run(mha(unpacked), unpacked))


@pytest.mark.parametrize("mask_kind", ["key_lengths", "raw_2d", "raw_3d"])
def test_mha_past_present_mask_causal(mask_kind):
    P = 6
    T = P + S
    mask = {"key_lengths": np.array([T, 13], np.int32), "raw_2d": (RNG.random((B, T)) > 0.3).astype(np.int32),
            "raw_3d": (RNG.random((B, S, T)) > 0.3).astype(np.int32)}[mask_kind]
    feeds = {"q": _f((B, S, HID)), "k": _f((B, S, HID)), "v": _f((B, S, HID)), "mask": mask,
             "abias": _f((B, 1, S, T)), "pk": _f((B, N, P, D)), "pv": _f((B, N, P, D))}
    node = helper.make_node("MultiHeadAttention", ["q", "k", "v", "bias", "mask", "abias", "pk", "pv"],
                            ["y", "present_k", "present_v"], domain=MS, num_heads=N, unidirectional=1)
    inputs = [(n, I32 if n == "mask" else F, list(a.shape)) for n, a in feeds.items()]
    outputs = [("y", F, [B, S, HID]), ("present_k", F, [B, N, T, D]), ("present_v", F, [B, N, T, D])]
    check(model(node, inputs, outputs, [("bias", _f((3 * HID,)))]), feeds)


@pytest.mark.parametrize("case,match", [
    ("rotary", "do_rotary"), ("mask4d", "mask index"), ("bias_bnsh", "per head"), ("heads", "heads"),
])
def test_refusals(case, match):
    """What is not supported is refused by name, before any kernel is built."""
    if case == "rotary":
        node = helper.make_node("Attention", ["x", "w"], ["y"], domain=MS, num_heads=N, do_rotary=1)
        data = model(node, [("x", F, [B, S, HID])], [("y", F, [B, S, HID])], [("w", _f((HID, 3 * HID)))])
    elif case == "mask4d":
        node = helper.make_node("Attention", ["x", "w", "", "m"], ["y"], domain=MS, num_heads=N)
        data = model(node, [("x", F, [B, S, HID]), ("m", I32, [B, 1, S, S])], [("y", F, [B, S, HID])],
                     [("w", _f((HID, 3 * HID)))])
    elif case == "bias_bnsh":
        node = helper.make_node("MultiHeadAttention", ["q", "k", "v", "bias"], ["y"], domain=MS, num_heads=N)
        data = model(node, [("q", F, [B, S, HID]), ("k", F, [B, N, S, D]), ("v", F, [B, N, S, D])],
                     [("y", F, [B, S, HID])], [("bias", _f((3 * HID,)))])
    else:
        node = helper.make_node("MultiHeadAttention", ["q", "k", "v"], ["y"], domain=MS, num_heads=5)
        data = model(node, [("q", F, [B, S, HID]), ("k", F, [B, S, HID]), ("v", F, [B, S, HID])],
                     [("y", F, [B, S, HID])])
    with pytest.raises(CompilerError, match=match):
        compile(data, "h100", CompileOptions(build=False))


@pytest.mark.parametrize("s,hid,n", [(64, 128, 2), (128, 256, 4), (512, 768, 12)])
def test_an_optimized_attention_fuses_like_the_plain_graph(s, hid, n):
    """One Attention node (as onnxruntime's optimizer writes BERT's self-attention) and the plain
    ops it stands for compile to the same launches, DRAM bytes and predicted time in fp16: the
    projection one GEMM, the attention one kernel (tensor-core flash attention at BERT-base's
    width). The small one also runs on the host against onnxruntime."""
    from bench.attention_forms import self_attention
    plain, opt = self_attention(_f((hid, 3 * hid), 0.1), _f((3 * hid,)), s, n, "float32", mask=True)
    if s == 64:
        mask = np.ones((1, s), np.int32)
        mask[0, 40:] = 0
        feeds = {"x": _f((1, s, hid)), "mask": mask}
        check(opt, feeds, want=ort_run(plain, feeds))
    a, b = (compile(d, "h100", CompileOptions(build=False, precision="fp16")).report for d in (opt, plain))
    assert a["launches_per_inference"] == b["launches_per_inference"] == 2
    assert a["traffic"]["dram_bytes"] == b["traffic"]["dram_bytes"]
    assert a["latency"]["predicted_us"] == pytest.approx(b["latency"]["predicted_us"], rel=0.02)
    if s == 512:
        assert [k for k in a["kernels"] if k["config"].get("schedule") == "flash_attention"]


@pytest.mark.parametrize("layout,pos,attrs", [
    ("bsh", "ids", dict(num_heads=N)),
    ("bsh", "offset", dict(num_heads=N, interleaved=1)),
    ("bsh", "ids", dict()),                                    # heads read off the caches
    ("bnsh", "offset", dict()),
    ("bsh", "ids", dict(num_heads=N, rotary_embedding_dim=D // 2)),
])
def test_ms_rotary_embedding(layout, pos, attrs):
    """com.microsoft RotaryEmbedding (input, position_ids, cos_cache, sin_cache): position ids
    (B, S) or a start offset, interleaved or halves, partial rotary, 3-D or 4-D input."""
    rd = attrs.get("rotary_embedding_dim") or D
    shape = [B, S, HID] if layout == "bsh" else [B, N, S, D]
    feeds = {"x": _f(shape), "cos": _f((40, rd // 2)), "sin": _f((40, rd // 2)),
             "pos": RNG.integers(0, 40 - S, (B, S)) if pos == "ids" else np.array([7])}
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"], domain=MS, **attrs)
    inputs = [(n, TensorProto.INT64 if n == "pos" else F, list(a.shape)) for n, a in feeds.items()]
    data = model(node, inputs, [("y", F, shape)])
    art = check(data, feeds)
    assert art.report["launches_per_inference"] == 1
    # the registry's reference (constant folding uses it) gives onnxruntime's answer too
    ir_node = Node("RotaryEmbedding", "r", ("x", "pos", "cos", "sin"), ("y",), tuple(attrs.items()), MS)
    (ref,) = lookup("RotaryEmbedding", MS).reference(ir_node, [feeds[n] for n in ("x", "pos", "cos", "sin")], 1)
    np.testing.assert_allclose(ref, ort_run(data, feeds)["y"], rtol=0, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_every_form_of_one_attention_compiles_alike(dtype):
    """The same attention as exporters write it, as the ONNX Attention op on 4-D and 3-D inputs and
    as com.microsoft MultiHeadAttention (bench/attention_forms.py): one launch each, the same kind
    and DRAM bytes, predicted within 1% (the ONNX op's sqrt(scale) on each operand is applied to
    the accumulator instead: one multiply a score, not two a product)."""
    from bench.attention_forms import forms
    reps = {name: compile(data, "h100", CompileOptions(build=False)).report
            for name, data in forms(12, 512, 64, dtype).items() if "projection" not in name}
    base = reps["exported (B,H,S,D)"]
    for name, r in reps.items():
        assert r["launches_per_inference"] == base["launches_per_inference"] == 1, name
        assert r["traffic"]["dram_bytes"] == base["traffic"]["dram_bytes"], name
        assert [k["config"].get("schedule") for k in r["kernels"]] == [k["config"].get("schedule") for k in base["kernels"]]
        assert r["latency"]["predicted_us"] == pytest.approx(base["latency"]["predicted_us"], rel=0.01), name
