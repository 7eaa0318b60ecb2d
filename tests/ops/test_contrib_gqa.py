"""onnxruntime's com.microsoft GroupQueryAttention (compiler/ops/contrib_gqa.py) against
onnxruntime's own CPU kernel, on the host harness in both thread orders: the first prompt, token
generation over a ragged cache (each entry's fill from seqlens_k at run time), a prompt continued
over a past, packed and separate Q/K/V, the rotary embedding (both layouts, partial), softcap,
local windows, scale and attention_bias; the refusals; and a LLaMA built by onnxruntime-genai's
model builder, whose total_sequence_length is computed from attention_mask's shape."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.errors import CompilerError
from compiler.ir.graph import Node
from compiler.ops.registry import lookup
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

from .test_contrib_attention import check, model, ort_run

RNG = np.random.default_rng(41)
MS = "com.microsoft"
F, I32 = TensorProto.FLOAT, TensorProto.INT32
N, NK, H = 4, 2, 16


def _f(shape):
    return RNG.standard_normal(shape).astype(np.float32)


def gqa_case(B, S, P, total, seqlens, *, packed=False, rotary=None, bias=None, present=True, H=H, qk_norm=False,
             sink=False, **attrs):
    """(model bytes, feeds): one GroupQueryAttention node; `rotary` (interleaved, rotary dim) or
    None; `bias` the attention_bias shape or None; `sink` a head_sink input; total_sequence_length
    a constant."""
    names = ["query", "" if packed else "key", "" if packed else "value", "past_key" if P else "",
             "past_value" if P else "", "seqlens_k", "total_sequence_length"]
    feeds, inputs = {}, []
    q_width = (N + 2 * NK) * H if packed else N * H
    feeds["query"] = _f((B, S, q_width))
    if not packed:
        feeds["key"], feeds["value"] = _f((B, S, NK * H)), _f((B, S, NK * H))
    if P:
        feeds["past_key"], feeds["past_value"] = _f((B, NK, P, H)), _f((B, NK, P, H))
    feeds["seqlens_k"] = np.asarray(seqlens, np.int32)
    if rotary is not None:
        interleaved, rd = rotary
        angles = np.arange(total + 3)[:, None] / (100.0 ** (np.arange(rd // 2)[None, :] / (rd // 2)))
        feeds["cos_cache"], feeds["sin_cache"] = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
        names += ["cos_cache", "sin_cache"]
        attrs.update(do_rotary=1, rotary_interleaved=interleaved)
    if bias is not None or qk_norm or sink:
        names += [""] * (10 - len(names))
    if bias is not None:
        names[10:] = ["attention_bias"]
        feeds["attention_bias"] = _f(bias)
    if sink:
        # logits around the scores' own size: some heads' sinks take most of the softmax
        names += [""] * (11 - len(names)) + ["head_sink"]
        feeds["head_sink"] = (2 * _f((N,))).astype(np.float32)
    if qk_norm:
        names += [""] * (14 - len(names)) + ["q_norm", "k_norm"]
        feeds["q_norm"], feeds["k_norm"] = _f((H,)), _f((H,))
    for n in names:
        if n and n != "total_sequence_length":
            a = feeds[n]
            inputs.append((n, I32 if a.dtype == np.int32 else F, a.shape))
    outs = ["output"] + (["present_key", "present_value"] if present else [])
    node = helper.make_node("GroupQueryAttention", names, outs, domain=MS, num_heads=N, kv_num_heads=NK, **attrs)
    T = P if attrs.get("sliding_window_cache") else max(total, P)
    shapes = {"output": (B, S, N * H), "present_key": (B, NK, T, H), "present_value": (B, NK, T, H)}
    total_init = ("total_sequence_length", np.array(total, np.int32))
    return model(node, inputs, [(o, F, shapes[o]) for o in outs], [total_init]), feeds


SLIDING = dict(sliding_window_cache=1, local_window_size=8)


def resident(t: int, capacity: int, window: int) -> int:
    """The positions a window-sized cache holds after t tokens (onnxruntime's documented rule)."""
    g = capacity - window + 1
    return t if t <= capacity else t - g * -(-(t - capacity) // g)


def defined_rows(case: dict, outputs: dict) -> dict:
    """A window-sized cache's present rows past each entry's resident count are unspecified
    (onnxruntime's contract): zeroed on both sides before comparing."""
    if not case.get("sliding_window_cache"):
        return outputs
    out = dict(outputs)
    for name in ("present_key", "present_value"):
        if name in out:
            p = out[name].copy()
            for b, s in enumerate(case["seqlens"]):
                p[b, :, resident(s + 1, case["P"], case["local_window_size"]):] = 0
            out[name] = p
    return out


CASES = {
    # first prompt: every token new
    "prompt": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7]),
    "prompt_packed_rotary": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], packed=True, rotary=(0, H)),
    "prompt_rotary_interleaved_partial": dict(B=1, S=6, P=0, total=6, seqlens=[5], rotary=(1, 16), H=32),
    "prompt_without_present": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], present=False),
    # token generation: one new token over a cache whose fill differs per entry
    "decode_ragged": dict(B=3, S=1, P=10, total=11, seqlens=[10, 6, 0], rotary=(0, H)),
    "decode_packed_interleaved": dict(B=2, S=1, P=7, total=8, seqlens=[7, 3], packed=True, rotary=(1, H)),
    # a prompt continued over a past (batch 1), the past partly filled
    "continued_prompt": dict(B=1, S=4, P=10, total=14, seqlens=[13], rotary=(0, H)),
    "continued_prompt_part_filled": dict(B=1, S=4, P=10, total=14, seqlens=[9]),
    # the score's options
    "softcap_scale": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], softcap=2.0, scale=0.3),
    "local_window_decode": dict(B=2, S=1, P=12, total=13, seqlens=[12, 9], local_window_size=4),
    "local_window_prompt": dict(B=1, S=10, P=0, total=10, seqlens=[9], local_window_size=3),
    "attention_bias": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], bias=(1, N, 8, 8)),
    "attention_bias_decode": dict(B=2, S=1, P=5, total=6, seqlens=[5, 3], bias=(2, 1, 1, 6)),
    # Qwen3's per-head RMS norms of Q and K before the rotary embedding
    "qk_norm_prompt": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], packed=True, rotary=(0, H), qk_norm=True),
    "qk_norm_decode_epsilons": dict(B=2, S=1, P=7, total=8, seqlens=[7, 4], rotary=(0, H), qk_norm=True,
                                    qk_norm_epsilon=1e-3, k_norm_epsilon=0.5),
    # a window-sized cache (Gemma 2/3): capacity C = P, window W; a prompt longer than the cache,
    # steps over full and partly filled caches, with and without slack (C > W evicts C - W + 1 at once)
    "sliding_prompt": dict(B=2, S=12, P=8, total=12, seqlens=[11, 11], rotary=(0, H), **SLIDING),
    "sliding_decode": dict(B=3, S=1, P=8, total=21, seqlens=[20, 5, 8], rotary=(0, H), **SLIDING),
    "sliding_decode_slack": dict(B=3, S=1, P=12, total=17, seqlens=[14, 16, 12], **SLIDING),
    "sliding_continued_prompt": dict(B=1, S=4, P=8, total=24, seqlens=[23], rotary=(1, H), **SLIDING),
    "sliding_continued_prompt_slack": dict(B=1, S=5, P=11, total=19, seqlens=[18], **SLIDING),
    # gpt-oss: a sink logit per head shares the softmax; smooth softmax is a sink of 0
    "sink_prompt": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], packed=True, rotary=(0, H), sink=True),
    "sink_decode_ragged": dict(B=3, S=1, P=10, total=11, seqlens=[10, 6, 0], rotary=(0, H), sink=True),
    "sink_sliding_decode": dict(B=3, S=1, P=8, total=21, seqlens=[20, 5, 8], rotary=(0, H), sink=True, **SLIDING),
    "sink_continued_prompt": dict(B=1, S=4, P=10, total=14, seqlens=[13], sink=True),
    "sink_attention_bias": dict(B=2, S=8, P=0, total=8, seqlens=[7, 7], bias=(1, N, 8, 8), sink=True),
    "smooth_softmax_decode": dict(B=2, S=1, P=7, total=8, seqlens=[7, 3], smooth_softmax=1),
    "smooth_softmax_local_window_prompt": dict(B=1, S=10, P=0, total=10, seqlens=[9], local_window_size=3,
                                               smooth_softmax=1),
}


def _head_rms(x, w, heads, eps):
    h = x.astype(np.float32).reshape(x.shape[0], x.shape[1], heads, -1)
    return (h / np.sqrt((h * h).mean(-1, keepdims=True) + eps) * w).reshape(x.shape).astype(x.dtype)


def onnxruntime_want(case: dict, data: bytes, feeds: dict) -> dict:
    """onnxruntime's outputs. Its CPU kernel has no q/k norm inputs (its CUDA kernel has): for those
    cases it runs the same node without them on Q and K RMS-normalised per head beforehand, as
    onnxruntime-genai's CPU models do with separate nodes."""
    if not case.get("qk_norm"):
        return ort_run(data, feeds)
    m = onnx.load_from_string(data)
    node = m.graph.node[0]
    del node.input[14:]
    for vi in [vi for vi in m.graph.input if vi.name in ("q_norm", "k_norm")]:
        m.graph.input.remove(vi)
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    eps = attrs.get("qk_norm_epsilon", 1e-6)
    q_eps, k_eps = attrs.get("q_norm_epsilon", eps), attrs.get("k_norm_epsilon", eps)
    for a in [a for a in node.attribute if "norm_epsilon" in a.name]:
        node.attribute.remove(a)
    fed = {k: v for k, v in feeds.items() if k not in ("q_norm", "k_norm")}
    h = feeds["q_norm"].shape[0]
    if case.get("packed"):
        q, k, v = np.split(feeds["query"], [N * h, (N + NK) * h], axis=2)
        fed["query"] = np.concatenate([_head_rms(q, feeds["q_norm"], N, q_eps),
                                       _head_rms(k, feeds["k_norm"], NK, k_eps), v], axis=2)
    else:
        fed["query"] = _head_rms(feeds["query"], feeds["q_norm"], N, q_eps)
        fed["key"] = _head_rms(feeds["key"], feeds["k_norm"], NK, k_eps)
    return ort_run(m.SerializeToString(), fed)


@pytest.mark.parametrize("case", list(CASES))
def test_gqa_against_onnxruntime(case):
    data, feeds = gqa_case(**CASES[case])
    want = defined_rows(CASES[case], onnxruntime_want(CASES[case], data, feeds))
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = defined_rows(CASES[case], Executor(art.plan, make_backend("host", mode=mode)).run(feeds))
        for name, w in want.items():
            np.testing.assert_allclose(got[name], w, rtol=0, atol=2e-5 * max(1.0, np.abs(w).max()),
                                       err_msg=f"{name} ({mode})")


@pytest.mark.parametrize("case", ["prompt_packed_rotary", "decode_ragged", "continued_prompt_part_filled",
                                  "local_window_decode", "softcap_scale", "qk_norm_decode_epsilons",
                                  "sliding_decode_slack", "sliding_continued_prompt", "sink_prompt",
                                  "sink_sliding_decode", "smooth_softmax_decode"])
def test_gqa_reference_matches_onnxruntime(case):
    """The registry's NumPy reference (constant folding) means what onnxruntime's kernel does."""
    data, feeds = gqa_case(**CASES[case])
    want = onnxruntime_want(CASES[case], data, feeds)
    m = onnx.load_from_string(data)
    pn = m.graph.node[0]
    node = Node(pn.op_type, pn.name, tuple(pn.input), tuple(pn.output),
                tuple((a.name, helper.get_attribute_value(a)) for a in pn.attribute), domain=MS)
    ins = [feeds.get(n) if n != "total_sequence_length" else np.array(CASES[case]["total"], np.int32)
           for n in pn.input]
    got = lookup("GroupQueryAttention", MS).reference(node, [None if not n else a for n, a in zip(pn.input, ins)], 1)
    got = defined_rows(CASES[case], dict(zip(pn.output, got)))
    want = defined_rows(CASES[case], want)
    for name, g in got.items():
        np.testing.assert_allclose(g, want[name], rtol=0, atol=2e-5 * max(1.0, np.abs(want[name]).max()),
                                   err_msg=name)


@pytest.mark.parametrize("case", ["prompt_packed_rotary", "decode_ragged", "continued_prompt", "qk_norm_prompt",
                                  "sink_prompt", "sink_decode_ragged"])
def test_gqa_fp16(case):
    data, feeds = half(*gqa_case(**CASES[case]))
    check(data, feeds, tol=4e-3, want=onnxruntime_want(CASES[case], data, feeds))


def half(data: bytes, feeds: dict) -> tuple[bytes, dict]:
    """The case in fp16: its float inputs and outputs, and its feeds."""
    m = onnx.load_from_string(data)
    for vi in list(m.graph.input) + list(m.graph.output):
        if vi.type.tensor_type.elem_type == F:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT16
    return m.SerializeToString(), {k: v.astype(np.float16) if v.dtype == np.float32 else v for k, v in feeds.items()}


# gpt-oss's shapes of head (64) at a prompt of 128 and a step over 1024 cached positions
SINK_KINDS = {"prompt": (dict(B=1, S=128, P=0, total=128, seqlens=[127], H=64, packed=True, rotary=(0, 64), sink=True),
                         "flash_attention"),
              "decode": (dict(B=1, S=1, P=1024, total=1025, seqlens=[1024], H=64, rotary=(0, 64), sink=True),
                         "flash_decoding")}


@pytest.mark.parametrize("step", list(SINK_KINDS))
def test_head_sinks_stay_in_the_fused_attention_kernels(step):
    """The sink's share is an epilogue of P.V (ops/attention.py softmax_pv), not a column of the
    scores, so the tensor-core attention kinds take a sink chain as they take a plain one: one
    kernel, and onnxruntime's output on the host harness."""
    kw, kind = SINK_KINDS[step]
    data, feeds = half(*gqa_case(**kw))
    art = compile(data, "h100", CompileOptions(build=False))
    assert kind in [dict(k.config).get("schedule") for k in art.plan.kernels()]
    want = ort_run(data, feeds)["output"].astype(np.float32)
    got = Executor(art.plan, make_backend("host")).run(feeds)["output"].astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=0, atol=4e-3 * np.abs(want).max())


def _with(data: bytes, *, attrs=(), inputs=()) -> bytes:
    """The case's model with attributes set and extra inputs (position, name, (type, shape)) wired."""
    m = onnx.load_from_string(data)
    node = m.graph.node[0]
    for k, v in attrs:
        node.attribute.append(helper.make_attribute(k, v))
    for at, name, (t, shape) in inputs:
        while len(node.input) <= at:
            node.input.append("")
        node.input[at] = name
        m.graph.input.append(helper.make_tensor_value_info(name, t, shape))
    return m.SerializeToString()


@pytest.mark.parametrize("change,match", [
    (dict(attrs=[("causal", 0)]), "causal=0"),
    (dict(inputs=[(9, "position_ids", (TensorProto.INT64, (2, 8)))]), "position_ids"),
    (dict(inputs=[(12, "k_scale", (F, (1,)))]), "quantized KV cache"),
    (dict(inputs=[(14, "q_norm", (F, (H,)))]), "given together"),
])
def test_gqa_refusals(change, match):
    data, _ = gqa_case(**CASES["prompt"])
    with pytest.raises(CompilerError, match=match):
        compile(_with(data, **change), "h100", CompileOptions(build=False))


def test_gqa_needs_total_sequence_length_at_compile_time():
    """A total_sequence_length only known at run time sizes the present outputs: refused with the
    way out (a static attention_mask shape, which genai's models compute it from)."""
    data, _ = gqa_case(**CASES["decode_ragged"])
    m = onnx.load_from_string(data)
    del m.graph.initializer[:]
    m.graph.input.append(helper.make_tensor_value_info("total_sequence_length", I32, ()))
    with pytest.raises(CompilerError, match="compile time"):
        compile(m.SerializeToString(), "h100", CompileOptions(build=False))


def test_gqa_continued_prompt_needs_batch_one():
    data, _ = gqa_case(B=2, S=4, P=10, total=14, seqlens=[13, 13])
    with pytest.raises(CompilerError, match="batch size 1"):
        compile(data, "h100", CompileOptions(build=False))


def genai_decoder(layers: int = 2, hidden: int = 64, vocab: int = 100) -> bytes:
    """A decoder laid out as onnxruntime-genai's model builder writes one: seqlens_k and
    total_sequence_length computed from attention_mask (ReduceSum - 1, and its shape), each layer
    SkipSimplifiedLayerNormalization, one packed QKV MatMul, GroupQueryAttention with the rotary
    embedding and a KV cache, the output projection and a SiLU-gated MLP; dynamic batch, sequence
    and past lengths."""
    hd = hidden // N
    init, nodes = [], []

    def w(name, shape, scale=0.2):
        init.append(numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def c(name, value):
        init.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    angles = np.arange(64)[:, None] / (10000.0 ** (np.arange(hd // 2)[None, :] / (hd // 2)))
    init += [numpy_helper.from_array(np.cos(angles).astype(np.float32), "cos_cache"),
             numpy_helper.from_array(np.sin(angles).astype(np.float32), "sin_cache")]
    one = c("one", np.array([1], np.int64))
    nodes += [helper.make_node("ReduceSum", ["attention_mask", one], ["mask_sum"], keepdims=0),
              helper.make_node("Sub", ["mask_sum", c("one_scalar", np.array(1, np.int64))], ["seqlens64"]),
              helper.make_node("Cast", ["seqlens64"], ["seqlens_k"], to=I32),
              helper.make_node("Shape", ["attention_mask"], ["mask_shape"]),
              helper.make_node("Gather", ["mask_shape", c("idx1", np.array(1, np.int64))], ["total64"], axis=0),
              helper.make_node("Cast", ["total64"], ["total"], to=I32),
              helper.make_node("Gather", [w("embed", (vocab, hidden), 1.0), "input_ids"], ["h0"])]
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"])]
    outputs = []
    residual = None
    x = "h0"
    for i in range(layers):
        norm_out, res_out = f"l{i}_norm", f"l{i}_res"
        if residual is None:
            nodes.append(helper.make_node("SimplifiedLayerNormalization", [x, w(f"l{i}_g", (hidden,), 1.0)],
                                          [norm_out], epsilon=1e-5, axis=-1))
            res_out = x
        else:
            nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [x, residual, w(f"l{i}_g", (hidden,), 1.0)],
                                          [norm_out, "", "", res_out], domain=MS, epsilon=1e-5))
        qkv_w = w(f"l{i}_qkv", (hidden, (N + 2 * NK) * hd))
        nodes.append(helper.make_node("MatMul", [norm_out, qkv_w], [f"l{i}_qkv_out"]))
        for kv in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past.{i}.{kv}", F, ["batch", NK, "past", hd]))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kv}", F, ["batch", NK, "total", hd]))
        nodes.append(helper.make_node(
            "GroupQueryAttention", [f"l{i}_qkv_out", "", "", f"past.{i}.key", f"past.{i}.value", "seqlens_k", "total",
                                    "cos_cache", "sin_cache"],
            [f"l{i}_attn", f"present.{i}.key", f"present.{i}.value"], domain=MS, num_heads=N, kv_num_heads=NK,
            do_rotary=1, scale=1 / np.sqrt(hd)))
        nodes.append(helper.make_node("MatMul", [f"l{i}_attn", w(f"l{i}_o", (N * hd, hidden))], [f"l{i}_o_out"]))
        mlp_in, res2 = f"l{i}_norm2", f"l{i}_res2"
        nodes.append(helper.make_node("SkipSimplifiedLayerNormalization",
                                      [f"l{i}_o_out", res_out, w(f"l{i}_g2", (hidden,), 1.0)],
                                      [mlp_in, "", "", res2], domain=MS, epsilon=1e-5))
        nodes += [helper.make_node("MatMul", [mlp_in, w(f"l{i}_gate", (hidden, 2 * hidden))], [f"l{i}_gate_out"]),
                  helper.make_node("Sigmoid", [f"l{i}_gate_out"], [f"l{i}_sig"]),
                  helper.make_node("Mul", [f"l{i}_gate_out", f"l{i}_sig"], [f"l{i}_silu"]),
                  helper.make_node("MatMul", [mlp_in, w(f"l{i}_up", (hidden, 2 * hidden))], [f"l{i}_up_out"]),
                  helper.make_node("Mul", [f"l{i}_silu", f"l{i}_up_out"], [f"l{i}_gated"]),
                  helper.make_node("MatMul", [f"l{i}_gated", w(f"l{i}_down", (2 * hidden, hidden))], [f"l{i}_mlp"])]
        x, residual = f"l{i}_mlp", res2
    nodes += [helper.make_node("SkipSimplifiedLayerNormalization", [x, residual, w("final_g", (hidden,), 1.0)],
                               ["final"], domain=MS, epsilon=1e-5),
              helper.make_node("MatMul", ["final", w("lm_head", (hidden, vocab))], ["logits"])]
    outputs.insert(0, helper.make_tensor_value_info("logits", F, ["batch", "seq", vocab]))
    g = helper.make_graph(nodes, "genai_decoder", inputs, outputs, init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(MS, 1)])
    m.ir_version = 10
    return m.SerializeToString()


@pytest.mark.parametrize("B,S,P,short", [(2, 8, 0, 0), (2, 1, 11, 3), (1, 5, 9, 0)])
def test_a_genai_laid_out_decoder(B, S, P, short):
    """The prompt (P = 0, an empty past), token generation with entry 1's cache `short` positions
    less filled (its attention_mask's last ones cleared), and a prompt continued over a past: each
    compiled for its input shapes (total_sequence_length folds from attention_mask's), against
    onnxruntime; the attention of each layer is one fused kernel."""
    data = genai_decoder()
    T = P + S
    mask = np.ones((B, T), np.int64)
    if short:
        mask[1, T - short:] = 0
    feeds = {"input_ids": RNG.integers(0, 100, (B, S)).astype(np.int64), "attention_mask": mask}
    for i in range(2):
        for kv in ("key", "value"):
            feeds[f"past.{i}.{kv}"] = _f((B, NK, P, 64 // N))
    want = ort_run(data, feeds)
    shapes = tuple((k, v.shape) for k, v in feeds.items())
    art = compile(data, "h100", CompileOptions(build=False, input_shapes=shapes))
    got = Executor(art.plan, make_backend("host")).run(feeds)
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w, rtol=0, atol=2e-5 * max(1.0, np.abs(w).max()), err_msg=name)
    # one kernel a layer keeps the scores, the softmax's statistics and the probabilities on chip
    carried = [{c["value"].rsplit("/", 1)[-1] for c in k["carried"]} for k in art.report["kernels"]]
    attention = [c for c in carried if {"scores", "rowmax", "rowsum", "probs"} <= c]
    assert len(attention) == 2, carried


def test_a_refused_attribute_is_named_even_beside_an_empty_past():
    """A first prompt feeds an empty past (B, kv_heads, 0, H): a refusal of an attribute must say
    so, not blame the zero-size tensor."""
    data, _ = gqa_case(B=2, S=8, P=0, total=8, seqlens=[7, 7])
    m = onnx.load_from_string(_with(data, attrs=[("qk_output", 1)]))
    node = m.graph.node[0]
    node.input[3], node.input[4] = "past_key", "past_value"
    m.graph.input.extend([helper.make_tensor_value_info(n, F, (2, NK, 0, H)) for n in ("past_key", "past_value")])
    with pytest.raises(CompilerError, match="qk_output") as e:
        compile(m.SerializeToString(), "h100", CompileOptions(build=False))
    assert "zero-size" not in str(e.value)


LAYERS, HD = 2, 64 // N     # genai_decoder()'s layers and head size


def decoder_feeds(ids, mask, past) -> dict:
    """genai_decoder()'s inputs: token ids, attention mask, each layer's (key, value) past."""
    f = {"input_ids": ids, "attention_mask": mask}
    for i, (k, v) in enumerate(past):
        f[f"past.{i}.key"], f[f"past.{i}.value"] = k, v
    return f


def loop_feeds(prompt: np.ndarray, M: int) -> tuple[dict, dict]:
    """(the prompt's feeds, a generation step's feeds over a cache of M positions): what the two
    artifacts of a fixed-shape loop are compiled for (docs/llm.md)."""
    empty = [(np.zeros((1, NK, 0, HD), np.float32),) * 2] * LAYERS
    first = decoder_feeds(prompt, np.ones(prompt.shape, np.int64), empty)
    cache = [(np.zeros((1, NK, M, HD), np.float32),) * 2] * LAYERS
    return first, decoder_feeds(np.zeros((1, 1), np.int64), np.zeros((1, M), np.int64), cache)


def generation_loop(run_prompt, run_step, prompt: np.ndarray, M: int, steps: int) -> tuple[list[int], np.ndarray]:
    """Greedy tokens and last-position logits of a loop: the prompt, then `steps` fixed-shape steps,
    the mask M long with zeros after the tokens so far, each step's present the next one's past
    (the prompt's padded to M rows)."""
    first, _ = loop_feeds(prompt, M)
    n = prompt.shape[1]
    out = run_prompt(first)
    logits, tokens, past = [out["logits"][0, -1]], [int(out["logits"][0, -1].argmax())], []
    for i in range(LAYERS):
        kv = [np.zeros((1, NK, M, HD), np.float32) for _ in range(2)]
        kv[0][:, :, :n], kv[1][:, :, :n] = out[f"present.{i}.key"], out[f"present.{i}.value"]
        past.append(tuple(kv))
    for t in range(steps):
        mask = np.zeros((1, M), np.int64)
        mask[0, :n + t + 1] = 1
        out = run_step(decoder_feeds(np.array([[tokens[-1]]], np.int64), mask, past))
        logits.append(out["logits"][0, -1])
        tokens.append(int(out["logits"][0, -1].argmax()))
        past = [(out[f"present.{i}.key"], out[f"present.{i}.value"]) for i in range(LAYERS)]
    return tokens, np.stack(logits)


def test_a_generation_loop_with_one_fixed_shape_step():
    """The prompt compiled at its length, then one decode step compiled at a fixed cache length M
    (attention_mask M long with zeros after the tokens so far, the past M rows): each step's
    present is the next step's past as it is, so one artifact runs every step. Greedy tokens and
    logits match onnxruntime's over the loop."""
    data, M = genai_decoder(), 16
    prompt = RNG.integers(0, 100, (1, 5)).astype(np.int64)

    def host(f):
        art = compile(data, "h100", CompileOptions(build=False, input_shapes=tuple((k, v.shape) for k, v in f.items())))
        return Executor(art.plan, make_backend("host")).run
    theirs = generation_loop(lambda f: ort_run(data, f), lambda f: ort_run(data, f), prompt, M, 6)
    ours = generation_loop(*(host(f) for f in loop_feeds(prompt, M)), prompt, M, 6)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=2e-5 * np.abs(theirs[1]).max())
