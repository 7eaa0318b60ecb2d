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


# --- QMoE: 2-, 4- and 8-bit experts ---------------------------------------------------------------------------

def qmoe_case(T, H, I, E, k, block, zero_points=False, bits=4):
    """(model bytes, feeds): one QMoE node, SwiGLU with interleaved rows, `bits`-bit weights (8 // bits
    a byte) with scales per row (block 0) or per block along the input features, zero points optional
    (packed like the weights)."""
    from compiler.ops.contrib_quant import pack_bits
    top = 1 << bits

    def quantized(rows, cols, name):
        q = RNG.integers(0, top, (E, rows, cols)).astype(np.uint8)
        shape = (E, rows, cols // block) if block else (E, rows)
        arrays = {name: np.stack([pack_bits(q[e], bits) for e in range(E)]),
                  name + "_scales": (RNG.random(shape) * 0.05 * 16 / top + 0.01).astype(np.float32)}
        if zero_points:
            z = RNG.integers(0, top, shape).astype(np.uint8)
            arrays[name + "_zp"] = (np.stack([pack_bits(z[e], bits) for e in range(E)]) if block else
                                    np.stack([pack_bits(z[e][None], bits)[0] for e in range(E)]))
        return arrays
    inits = {**quantized(2 * I, H, "w1"), **quantized(H, I, "w2")}
    names = ["x", "r", "w1", "w1_scales", "", "w2", "w2_scales"] + [""] * 4 + \
            (["w1_zp", "w2_zp"] if zero_points else [])
    attrs = dict(k=k, activation_type="swiglu", swiglu_fusion=1, expert_weight_bits=bits, normalize_routing_weights=1,
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


@pytest.mark.parametrize("bits", [2, 4, 8])
@pytest.mark.parametrize("block,zero_points", [(32, False), (0, False), (32, True), (0, True)])
def test_qmoe_against_onnxruntime(block, zero_points, bits, monkeypatch):
    """The lowering and the reference (the dequantized weights through MoE's) against onnxruntime.
    onnxruntime's CPU kernel multiplies 8-bit block-wise experts with int8-quantized activations
    unless ORT_QMOE_CPU_QNBIT_GEMM=fp32 (the exact product of the dequantized weights), so it runs so."""
    monkeypatch.setenv("ORT_QMOE_CPU_QNBIT_GEMM", "fp32")
    data, feeds = qmoe_case(4, 64, 32, 4, 2, block, zero_points, bits)
    want = ort_run(data, feeds)["y"]
    np.testing.assert_allclose(_reference("QMoE", data, feeds), want, rtol=0, atol=2e-6 * float(np.abs(want).max()))
    art = compile(data, "h100", CompileOptions(build=False))
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y"]
        np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * float(np.abs(want).max()), err_msg=mode)


def test_qmoe_refuses_what_is_not_2_4_or_8_bit_integers():
    data, _ = qmoe_case(2, 64, 32, 4, 2, 32)
    m = onnx.load_from_string(data)
    for attr, value, match in (("expert_weight_bits", 3, r"expert_weight_bits=3 is not supported \(only 2, 4 and 8\)"),
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
    assert not [x for x in art.report["kernels"] if x["name"].startswith("expert_slot")], "a decode step groups"


# --- grouped experts: the pairs sorted by expert (compiler/ops/moe_groups.py) ------------------------

GROUPED = {
    # 128 pairs of 4 experts: groups of 32 rows
    "gpt_oss_swiglu": dict(T=64, H=32, I=16, E=4, k=2, **GPT_OSS),
    # 50 pairs: groups of 16, an expert's last group part-filled; 3-D tokens; the sort's chunks of 8
    # tokens leave a last chunk of 2
    "relu_top1_batch_sequence": dict(T=50, H=16, I=8, E=4, k=1, act="relu", bias=False, three_d=True),
    "fp16": dict(T=64, H=64, I=48, E=4, k=2, dtype=np.float16, **GPT_OSS),
}


def _kernels(art, prefix: str) -> list[dict]:
    return [x for x in art.report["kernels"] if x["name"].startswith(prefix)]


# a kernel only each sort emits (compiler/ops/moe_groups.py)
SORT_MARKS = {"rank": "expert_rank", "scan": "expert_within_chunk"}


@pytest.fixture(params=list(SORT_MARKS))
def grouped_by(request, monkeypatch):
    """Layers this small are priced faster in the pair layout (test_small_layers_keep_the_pair_layout),
    so to run the grouped kernels on the harness at these sizes, the lowering's pricing is replaced by
    one that prefers the plan with the given sort's kernels; what is checked is that plan's result.
    Yields the sort's name."""
    import compiler.pipeline as pipeline
    mark = SORT_MARKS[request.param]
    monkeypatch.setattr(pipeline, "_lowering_price", lambda ctx: lambda plan, copies=1: 0.0 if any(
        getattr(st.expr, "name", "") == mark for spec in plan.specs() for st in getattr(spec, "stages", ()))
        else 1.0)
    return request.param


@pytest.mark.parametrize("name", list(GROUPED))
@pytest.mark.parametrize("starved", [False, True])
def test_grouped_experts_against_onnxruntime(name, starved, grouped_by):
    """A prompt's pairs sorted into groups, against onnxruntime, in both thread orders; `starved`:
    the router never picks the last expert, so it has no group."""
    case = GROUPED[name]
    data, feeds = moe_case(**case)
    if starved:
        feeds["r"][:, -1] = -30.0
    want = ort_run(data, feeds)["y"]
    half = case.get("dtype") is np.float16
    art = compile(data, "h100", CompileOptions(build=False, precision="fp16" if half else "fp32"))
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "grouped experts"]
    assert _kernels(art, "expert_slot_token")
    assert tech["effect"]["priced"][0]["chosen"] == f"grouped ({grouped_by} sort)"
    tol = 2e-2 if half else 2e-6
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y"]
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0,
                                   atol=tol * max(1.0, float(np.abs(want).max())), err_msg=mode)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_grouped_on_tensor_cores_where_it_pays(dtype):
    """128 tokens, 2 of 4 experts of 512 x 512 at --precision fp16 (an fp16 model, and an fp32 one
    whose weights the precision stage converts): priced faster grouped, so grouped (the report says
    so), each FC a tc_gemm whose token rows (read at their slots) and expert weights (at the group's
    expert) both load by cp.async, right against onnxruntime in both thread orders."""
    data, feeds = moe_case(T=128, H=512, I=512, E=4, k=2, dtype=dtype, **GPT_OSS)
    want = ort_run(data, feeds)["y"]
    art = compile(data, "h100", CompileOptions(build=False, precision="fp16"))
    assert _kernels(art, "expert_slot_token")
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "grouped experts"]
    assert tech["enabled"] and tech["effect"]["moe_nodes"] == 1 and tech["effect"]["grouped"] == 1
    (priced,) = tech["effect"]["priced"]
    ways = priced["predicted_us"]
    assert priced["chosen"].startswith("grouped") and ways[priced["chosen"]] == min(ways.values()) < ways["pairs"]
    # the fp32 model's tokens are fp32: the vector loader rounds them to half on the way (gathered
    # rows too); FC2's rows are the activation, stored in half (half_storage) either way
    tokens = "async" if dtype is np.float16 else "vector"
    for fc, load_a in (("expert_fc1", tokens), ("expert_fc2", "async")):
        (kern,) = _kernels(art, fc)
        tiles = kern["config"]["tiles"]
        assert tiles.startswith("tc_gemm:") and f"load_a={load_a}" in tiles and "load_b=async" in tiles, tiles
    for mode in ("default", "shuffle"):
        got = Executor(art.plan, make_backend("host", mode=mode)).run(feeds)["y"]
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=0,
                                   atol=2e-2 * float(np.abs(want).max()), err_msg=mode)


def test_small_layers_keep_the_pair_layout():
    """64 tokens of 4 experts 32 wide: enough pairs per expert to group, but the sort's kernels cost
    more than the pairs' products save, so the micro-model keeps the pair layout."""
    data, _ = moe_case(**GROUPED["gpt_oss_swiglu"])
    art = compile(data, "h100", CompileOptions(build=False))
    assert not _kernels(art, "expert_slot")
    (tech,) = [t for t in art.report["techniques"] if t["name"] == "grouped experts"]
    assert tech["enabled"] and tech["effect"]["moe_nodes"] == 1 and tech["effect"]["grouped"] == 0
    (priced,) = tech["effect"]["priced"]
    ways = priced["predicted_us"]
    assert priced["chosen"] == "pairs" and ways["pairs"] == min(ways.values()) and len(ways) == 3, priced
    from compiler.report_html import technique_sentence
    assert "0 of 1 MoE nodes" in technique_sentence(tech) and "1 priced their ways" in technique_sentence(tech)


@pytest.mark.parametrize("bits", [2, 4, 8])
def test_qmoe_grouped_against_onnxruntime(bits, grouped_by, monkeypatch):
    """Quantized experts at a prompt: the grouped FCs dequantize the group's expert's blocks."""
    monkeypatch.setenv("ORT_QMOE_CPU_QNBIT_GEMM", "fp32")      # as in test_qmoe_against_onnxruntime
    data, feeds = qmoe_case(64, 64, 32, 4, 2, 32, zero_points=True, bits=bits)
    want = ort_run(data, feeds)["y"]
    art = compile(data, "h100", CompileOptions(build=False))
    assert _kernels(art, "expert_slot_token")
    got = Executor(art.plan, make_backend("host", mode="shuffle")).run(feeds)["y"]
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6 * float(np.abs(want).max()))


def test_disable_grouped_experts_keeps_the_pair_layout(grouped_by):
    """--disable grouped_experts: the pairs' own FCs, the same result."""
    data, feeds = moe_case(**GROUPED["gpt_oss_swiglu"])
    on = compile(data, "h100", CompileOptions(build=False))
    off = compile(data, "h100", CompileOptions(build=False, disable=("grouped_experts",)))
    assert not _kernels(off, "expert_slot") and _kernels(on, "expert_slot")
    ys = [Executor(a.plan, make_backend("host")).run(feeds)["y"] for a in (on, off)]
    np.testing.assert_allclose(ys[0], ys[1], rtol=0, atol=1e-5 * float(np.abs(ys[1]).max()))


def test_grouping_pays_at_a_prompt_in_the_micro_model():
    """512 tokens, 4 of 32 experts, fp16: the grouped FCs on tensor cores are predicted faster than
    the pairs' matrix-vector products, with the sort's kernels counted."""
    data, _ = moe_case(T=512, H=256, I=256, E=32, k=4, dtype=np.float16, **GPT_OSS)
    opts = dict(build=False, precision="fp16")
    on = compile(data, "h100", CompileOptions(**opts))
    off = compile(data, "h100", CompileOptions(**opts, disable=("grouped_experts",)))
    assert _kernels(on, "expert_slot_token") and not _kernels(off, "expert_slot")
    on_us, off_us = (a.report["latency"]["predicted_us"] for a in (on, off))
    assert on_us < off_us / 1.5, (on_us, off_us)


@pytest.mark.parametrize("tokens,k,experts,rows", [
    (1, 4, 32, None), (63, 4, 32, None), (64, 4, 32, 16), (128, 4, 32, 16), (129, 4, 32, 32),
    (512, 4, 32, 64), (4096, 4, 32, 128), (16, 2, 4, 16)])
def test_group_rows(tokens, k, experts, rows):
    """Grouped from a mean of MIN_MEAN_ROWS pairs per expert; a group's rows the smallest tile at or
    above the mean, at most 128; the bound on groups holds for routings drawn at random and for the
    one that leaves the most groups part-filled (every count one past a multiple of the rows)."""
    from compiler.ops.moe_groups import group_rows, max_groups
    assert group_rows(tokens, k, experts) == rows
    if rows:
        pairs, rng = tokens * k, np.random.default_rng(tokens)
        routings = [np.argsort(rng.random((tokens, experts)), axis=1)[:, :k] for _ in range(20)]
        counts = [np.bincount(r.reshape(-1), minlength=experts) for r in routings]
        spread = np.full(experts, pairs // experts)
        spread[: pairs % experts] += 1
        counts.append(spread)
        for c in counts:
            assert int(np.sum(-(-c // rows))) <= max_groups(pairs, experts, rows)
