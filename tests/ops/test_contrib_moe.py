"""onnxruntime's com.microsoft MoE (compiler/ops/contrib_moe.py), as onnxruntime-genai's builder writes
it for LFM2-MoE and gpt-oss, against onnxruntime's own CPU kernel on the host harness in both thread
orders: top-k routing with and without renormalised weights, SwiGLU with interleaved gate/up rows,
its alpha, beta and limit, relu, silu, gelu (tanh, as onnxruntime computes it), identity, biases,
packed and 3-D tokens, fp16, one decode token; the layouts onnxruntime's CPU kernel lacks
(swiglu_fusion 0 with FC3, 2) against the reference; the refusals."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from compiler import compile
from compiler.errors import CompilerError
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

from .test_contrib_attention import ort_run

RNG = np.random.default_rng(53)


def moe_case(T, H, I, E, k, act="swiglu", fusion=1, bias=True, three_d=False, dtype=np.float32, **attrs):
    """(model bytes, feeds): one MoE node, its expert weights constants, tokens and router logits inputs."""
    gated = act == "swiglu" and fusion in (1, 2)
    w = {"w1": (E, (2 if gated else 1) * I, H), "w2": (E, H, I)}
    if bias:
        w.update(b1=(E, w["w1"][1]), b2=(E, H))
    if act == "swiglu" and fusion == 0:
        w.update(w3=(E, I, H), **({"b3": (E, I)} if bias else {}))
    inits = [onnx.numpy_helper.from_array((RNG.standard_normal(s) * 0.3).astype(dtype), n) for n, s in w.items()]
    names = [n if n in w else "" for n in ("x", "r", "w1", "b1", "w2", "b2", "w3", "b3")]
    names[0], names[1] = "x", "r"
    while not names[-1]:
        names.pop()
    if act == "swiglu":
        attrs["swiglu_fusion"] = fusion
    node = helper.make_node("MoE", names, ["y"], domain="com.microsoft", k=k, activation_type=act, **attrs)
    xs = (2, T // 2, H) if three_d else (T, H)
    et = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    g = helper.make_graph([node], "moe", [helper.make_tensor_value_info("x", et, xs),
                                          helper.make_tensor_value_info("r", et, (T, E))],
                          [helper.make_tensor_value_info("y", et, xs)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m.SerializeToString(), {"x": RNG.standard_normal(xs).astype(dtype), "r": RNG.standard_normal((T, E)).astype(dtype)}


GPT_OSS = dict(activation_alpha=1.702, activation_beta=1.0, swiglu_limit=7.0, normalize_routing_weights=1)
CASES = {
    "gpt_oss_swiglu": dict(T=6, H=16, I=8, E=4, k=2, **GPT_OSS),
    "lfm2_swiglu": dict(T=6, H=16, I=8, E=4, k=2, activation_alpha=1.0, activation_beta=0.0,
                        normalize_routing_weights=1),
    "relu_top1": dict(T=5, H=8, I=4, E=4, k=1, act="relu", bias=False),
    "silu_normalized": dict(T=5, H=8, I=4, E=6, k=2, act="silu", normalize_routing_weights=1),
    "gelu_tanh": dict(T=5, H=8, I=4, E=4, k=2, act="gelu", bias=False, normalize_routing_weights=1),
    "identity_top3": dict(T=5, H=8, I=4, E=4, k=3, act="identity"),
    "batch_sequence": dict(T=8, H=16, I=8, E=4, k=2, three_d=True, **GPT_OSS),
    "decode_one_token": dict(T=1, H=32, I=16, E=8, k=2, **GPT_OSS),
    "fp16": dict(T=4, H=16, I=8, E=4, k=2, dtype=np.float16, **GPT_OSS),
}


@pytest.mark.parametrize("name", list(CASES))
def test_against_onnxruntime(name):
    case = CASES[name]
    data, feeds = moe_case(**case)
    want = ort_run(data, feeds)["y"]
    art = compile(data, "h100", CompileOptions(build=False))
    tol = 2e-2 if case.get("dtype") is np.float16 else 2e-6
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y"]
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0,
                                   atol=tol * max(1.0, float(np.abs(want).max())), err_msg=mode)


@pytest.mark.parametrize("fusion", [0, 2])
def test_layouts_onnxruntimes_cpu_kernel_lacks_against_the_reference(fusion):
    """swiglu_fusion 0 (FC3 gives the linear half) and 2 (gate and up concatenated): onnxruntime's CPU
    kernel refuses both, so the compiled plan is checked against the reference, which the cases above
    check against onnxruntime for the interleaved layout."""
    data, feeds = moe_case(6, 16, 8, 4, 2, fusion=fusion, **GPT_OSS)
    want = _reference("MoE", data, feeds)
    got = Executor(compile(data, "h100", CompileOptions(build=False)).plan, make_backend("host")).run(feeds)["y"]
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * max(1.0, float(np.abs(want).max())))


@pytest.mark.parametrize("change,match", [
    (dict(use_sparse_mixer=1), "use_sparse_mixer=1 is not supported"),
    (dict(act="geglu"), "activation_type 'geglu' is not one of"),
    (dict(k=5), "k 5 is not between 1 and the 4 experts"),
])
def test_refusals_name_what_is_not_supported(change, match):
    data, _ = moe_case(**{**dict(T=4, H=8, I=4, E=4, k=2), **change})
    with pytest.raises(CompilerError, match=match):
        compile(data, "h100", CompileOptions(build=False))


# --- QMoE: 4-bit experts ---------------------------------------------------------------------------

def qmoe_case(T, H, I, E, k, block, zero_points=False):
    """(model bytes, feeds): one QMoE node, SwiGLU with interleaved rows, 4-bit weights packed two a
    byte with scales per row (block 0) or per block along the input features, zero points optional."""
    from compiler.ops.contrib_quant import pack_bits

    def quantized(rows, cols, name):
        q = RNG.integers(0, 16, (E, rows, cols)).astype(np.uint8)
        shape = (E, rows, cols // block) if block else (E, rows)
        arrays = {name: np.stack([pack_bits(q[e], 4) for e in range(E)]),
                  name + "_scales": (RNG.random(shape) * 0.05 + 0.01).astype(np.float32)}
        if zero_points:
            z = RNG.integers(0, 16, shape).astype(np.uint8)
            arrays[name + "_zp"] = (np.stack([pack_bits(z[e], 4) for e in range(E)]) if block else
                                    np.stack([pack_bits(z[e][None], 4)[0] for e in range(E)]))
        return arrays
    inits = {**quantized(2 * I, H, "w1"), **quantized(H, I, "w2")}
    names = ["x", "r", "w1", "w1_scales", "", "w2", "w2_scales"] + [""] * 4 + \
            (["w1_zp", "w2_zp"] if zero_points else [])
    attrs = dict(k=k, activation_type="swiglu", swiglu_fusion=1, expert_weight_bits=4, normalize_routing_weights=1,
                 **({"block_size": block} if block else {}))
    node = helper.make_node("QMoE", names, ["y"], domain="com.microsoft", **attrs)
    f32 = onnx.TensorProto.FLOAT
    g = helper.make_graph([node], "qmoe", [helper.make_tensor_value_info("x", f32, (T, H)),
                                           helper.make_tensor_value_info("r", f32, (T, E))],
                          [helper.make_tensor_value_info("y", f32, (T, H))],
                          [onnx.numpy_helper.from_array(v, n) for n, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 10
    return m.SerializeToString(), {"x": RNG.standard_normal((T, H)).astype(np.float32),
                                   "r": RNG.standard_normal((T, E)).astype(np.float32)}


def _reference(op: str, data: bytes, feeds: dict) -> np.ndarray:
    """The registered reference of the model's one node on `feeds` and its constants."""
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    m = onnx.load_from_string(data)
    consts = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    pn = m.graph.node[0]
    node = Node(op, pn.name, tuple(pn.input), tuple(pn.output),
                tuple((a.name, helper.get_attribute_value(a)) for a in pn.attribute), domain="com.microsoft")
    return lookup(op, "com.microsoft").reference(node, [feeds.get(n, consts.get(n)) if n else None
                                                        for n in pn.input], 21)[0]


@pytest.mark.parametrize("block,zero_points", [(32, False), (0, False), (32, True), (0, True)])
def test_qmoe_against_onnxruntime(block, zero_points):
    """The lowering and the reference (the dequantized weights through MoE's) against onnxruntime."""
    data, feeds = qmoe_case(4, 64, 32, 4, 2, block, zero_points)
    want = ort_run(data, feeds)["y"]
    np.testing.assert_allclose(_reference("QMoE", data, feeds), want, rtol=0, atol=2e-6 * float(np.abs(want).max()))
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * float(np.abs(want).max()), err_msg=mode)


def test_qmoe_refuses_what_is_not_4_bit_integers():
    data, _ = qmoe_case(2, 64, 32, 4, 2, 32)
    m = onnx.load_from_string(data)
    for attr, value, match in (("expert_weight_bits", 8, "expert_weight_bits=8 is not supported"),
                               ("quant_type", "fp4", "quant_type 'fp4' is not supported")):
        changed = onnx.ModelProto()
        changed.CopyFrom(m)
        node = changed.graph.node[0]
        for a in [a for a in node.attribute if a.name == attr]:
            node.attribute.remove(a)
        node.attribute.append(helper.make_attribute(attr, value))
        with pytest.raises(CompilerError, match=match):
            compile(changed.SerializeToString(), "h100", CompileOptions(build=False))


def test_a_decode_token_reads_its_k_experts():
    """One token, 2 of 8 experts: each FC's predicted DRAM bytes are about 2/8 of its weights (the
    gathered expert index names at most tokens x k of them), plus the small operands."""
    case = CASES["decode_one_token"]
    data, _ = moe_case(**case)
    art = compile(data, "h100", CompileOptions(build=False))
    m = onnx.load_from_string(data)
    weights = {t.name: t.dims for t in m.graph.initializer}
    E, k = case["E"], case["k"]
    for name, w in (("expert_fc1", "w1"), ("expert_fc2", "w2")):
        whole = int(np.prod(weights[w])) * 4
        (kern,) = [x for x in art.report["kernels"] if x["name"].startswith(name)]
        assert whole * k // E <= kern["dram_bytes"] < whole * k // E + whole // 8, (name, kern["dram_bytes"], whole)
