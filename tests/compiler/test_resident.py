"""Welder's shared-memory level (passes/resident.py, kinds/resident_rows.py): row chains as one
kernel whose blocks keep rows in shared memory. The Welder paper's MatMul -> Softmax example and
attention as exporters write it (MatMul, scale, mask, Softmax, NaN guard, MatMul, Transpose) and
as the ONNX Attention op, compiled with fusion on and off, run on the host harness against NumPy
in fp32, fp16 and bf16, over sequence lengths 1..512 and head sizes 32..128."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.kinds import flash_attention_simt, resident_rows
from compiler.passes import resident
from compiler.pipeline import CompileOptions
from compiler.runtime.executor import Executor, make_backend

ONNX_TYPE = {"float32": TensorProto.FLOAT, "float16": TensorProto.FLOAT16, "bfloat16": TensorProto.BFLOAT16}
TOL = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 2e-2}


def make_model(nodes, inputs, outputs, inits=(), opset=18) -> bytes:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    onnx.checker.check_model(m)
    return m.SerializeToString()


def run(data: bytes, feeds: dict, *, disable=(), modes=("default", "shuffle")):
    art = compile(data, "h100", CompileOptions(build=False, disable=disable))
    outs = [Executor(art.plan, make_backend("host", mode=mode)).run(feeds) for mode in modes]
    return art, [o[art.plan.outputs[0]] for o in outs]


@pytest.fixture
def rows_kernel_only(monkeypatch):
    """The online-softmax kinds left out of the welder stage's choice (kinds/flash_attention_simt.py
    takes fp32 attention too): the tests that use it check the rows kernel's own pricing."""
    kinds = resident.fused_kinds
    monkeypatch.setattr(resident, "fused_kinds", lambda spec, target: {
        k: v for k, v in kinds(spec, target).items() if k != flash_attention_simt.NAME})


def force_fused_kind(monkeypatch, name: str) -> None:
    """The welder stage's choice forced to kind `name` wherever it applies (every chain kept, the
    longest first), to check its kernel at sizes where another kind or the members apart are
    predicted faster."""
    kinds = resident.fused_kinds
    monkeypatch.setattr(resident, "pays", lambda fused, apart: True)
    monkeypatch.setattr(resident, "saved_us", lambda fused, apart: apart)
    monkeypatch.setattr(resident, "fused_kinds", lambda spec, target: {
        k: v for k, v in kinds(spec, target).items() if k == name} or kinds(spec, target))


def fused_kernels(report) -> list[dict]:
    return [k for k in report["kernels"] if k["config"].get("schedule") == resident_rows.NAME]


def softmax_np(x: np.ndarray) -> np.ndarray:
    m = x.max(-1, keepdims=True)
    e = np.exp(x - np.where(np.isneginf(m), 0, m))
    return e / e.sum(-1, keepdims=True)


# --- the Welder paper's micro-example ----------------------------------------------------------

def test_matmul_softmax_is_one_kernel_with_the_product_in_shared_memory():
    rng = np.random.default_rng(3)
    m = 96
    w = (rng.standard_normal((64, 128)) / 8).astype(np.float32)
    data = make_model([helper.make_node("MatMul", ["x", "w"], ["s"]), helper.make_node("Softmax", ["s"], ["y"])],
                      [("x", TensorProto.FLOAT, [m, 64])], [("y", TensorProto.FLOAT, [m, 128])],
                      [numpy_helper.from_array(w, "w")])
    x = rng.standard_normal((m, 64)).astype(np.float32)
    want = softmax_np(x @ w)
    art, got = run(data, {"x": x})
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
    rep = art.report
    assert rep["launches_per_inference"] == 1
    (k,) = fused_kernels(rep)
    assert k["config"]["resident"] and k["config"]["row_length"] == 128
    assert {c["value"]: c["level"] for c in k["carried"]}["s"] == "shared"
    assert k["shared_bytes"] >= k["config"]["rows_per_block"] * 128 * 4
    assert rep["fusion"]["kernels_before"] == 2 and rep["fusion"]["kernels_after"] == 1
    # apart: the product goes through DRAM
    art2, got2 = run(data, {"x": x}, disable=("welder",), modes=("default",))
    np.testing.assert_allclose(got2[0], want, rtol=1e-5, atol=1e-6)
    assert art2.report["launches_per_inference"] == 2
    assert rep["traffic"]["dram_bytes"] < art2.report["traffic"]["dram_bytes"] - 4 * m * 128
    # the register level alone (`--disable shared_level`): the product goes through DRAM too, and
    # the Softmax's own reductions stay the register level's kernels
    art3, got3 = run(data, {"x": x}, disable=("shared_level",), modes=("default",))
    np.testing.assert_allclose(got3[0], want, rtol=1e-5, atol=1e-6)
    fusion = art3.report["fusion"]
    assert (fusion["enabled"], fusion["shared_level"], fusion["prologue"]) == (True, False, True)
    assert not [g for g in fusion["groups"] if g.get("level") == "shared"]
    assert art3.report["launches_per_inference"] == 2


def test_a_softmax_over_one_long_row_of_a_skinny_product_stays_apart():
    """One row of 1000 logits from a 1x768 MatMul: one block would compute the whole product, so
    the cost model keeps the tiled GEMM and the softmax apart (still right)."""
    rng = np.random.default_rng(4)
    w = (rng.standard_normal((768, 1000)) / 28).astype(np.float32)
    data = make_model([helper.make_node("MatMul", ["x", "w"], ["s"]), helper.make_node("Softmax", ["s"], ["y"])],
                      [("x", TensorProto.FLOAT, [1, 768])], [("y", TensorProto.FLOAT, [1, 1000])],
                      [numpy_helper.from_array(w, "w")])
    x = rng.standard_normal((1, 768)).astype(np.float32)
    art, (got,) = run(data, {"x": x}, modes=("default",))
    np.testing.assert_allclose(got, softmax_np(x @ w), rtol=1e-4, atol=1e-6)
    assert art.report["launches_per_inference"] == 2
    assert not any(k["config"].get("resident") for k in art.report["kernels"])


# --- attention as exporters write it -------------------------------------------------------------

def exported_attention(b, h, s, d, dtype, mask: str) -> bytes:
    """Q.K^T * scale (+ mask) -> Softmax -> Where(IsNaN, 0) -> .V -> transpose to (b, s, h, d)."""
    t = ONNX_TYPE[dtype]
    scale = numpy_helper.from_array(np.array(1 / np.sqrt(d), DType[dtype].np), "scale")
    zero = numpy_helper.from_array(np.array(0, DType[dtype].np), "zero")
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]),
             helper.make_node("Mul", ["qk", "scale"], ["scores"])]
    inputs = [("q", t, [b, h, s, d]), ("k", t, [b, h, s, d]), ("v", t, [b, h, s, d])]
    logits = "scores"
    if mask == "padding":
        inputs.append(("mask", t, [b, 1, 1, s]))
        nodes.append(helper.make_node("Add", ["scores", "mask"], ["masked"]))
        logits = "masked"
    elif mask == "causal":
        inputs.append(("mask", t, [s, s]))
        nodes.append(helper.make_node("Add", ["scores", "mask"], ["masked"]))
        logits = "masked"
    nodes += [helper.make_node("Softmax", [logits], ["p"], axis=-1),
              helper.make_node("IsNaN", ["p"], ["nan"]),
              helper.make_node("Where", ["nan", "zero", "p"], ["pz"]),
              helper.make_node("MatMul", ["pz", "v"], ["o"]),
              helper.make_node("Transpose", ["o"], ["y"], perm=[0, 2, 1, 3])]
    return make_model(nodes, inputs, [("y", t, [b, s, h, d])], [scale, zero])


def attention_feeds(rng, b, h, s, d, dtype, mask):
    np_t = DType[dtype].np
    feeds = {n: rng.standard_normal((b, h, s, d)).astype(np.float32).astype(np_t) for n in ("q", "k", "v")}
    if mask == "padding":
        m = np.zeros((b, 1, 1, s), np.float32)
        for i in range(b):
            m[i, ..., s - i * max(1, s // 3):] = -np.inf   # batch i pads its last i*s/3 keys
        m[0, ..., :] = 0
        feeds["mask"] = m.astype(np_t)
    elif mask == "causal":
        feeds["mask"] = np.triu(np.full((s, s), -np.inf, np.float32), 1).astype(np_t)
    return feeds


def attention_np(feeds, d) -> np.ndarray:
    q, k, v = (feeds[n].astype(np.float32) for n in ("q", "k", "v"))
    scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1 / np.sqrt(d))
    if "mask" in feeds:
        scores = scores + feeds["mask"].astype(np.float32)
    with np.errstate(invalid="ignore"):
        p = np.exp(scores - scores.max(-1, keepdims=True))
        p = p / p.sum(-1, keepdims=True)
    p = np.where(np.isnan(p), 0, p)
    return (p @ v).transpose(0, 2, 1, 3)


ATTENTION_CASES = [
    # (batch, heads, seq, head size, dtype, mask)
    (1, 2, 1, 32, "float32", "none"),
    (2, 2, 7, 64, "float32", "padding"),
    (1, 2, 64, 32, "float32", "causal"),
    (1, 1, 200, 128, "float32", "padding"),
    (1, 1, 512, 64, "float32", "causal"),
    (1, 1, 512, 128, "float32", "none"),
    (2, 2, 33, 64, "float16", "padding"),
    (1, 2, 128, 128, "float16", "causal"),
    (1, 1, 512, 32, "float16", "none"),
    (2, 2, 17, 32, "bfloat16", "causal"),
    (1, 2, 96, 64, "bfloat16", "padding"),
    (1, 1, 256, 128, "bfloat16", "none"),
]


@pytest.mark.parametrize("b,h,s,d,dtype,mask", ATTENTION_CASES)
def test_exported_attention_is_one_kernel_and_right(b, h, s, d, dtype, mask, monkeypatch):
    """The fused kernel over the whole range. The cost model declines it for long single-head
    sequences (its SIMT product fills too little of the GPU: test_the_cost_model_decides below),
    and prefers the tensor-core kernel at fp16/bf16 where it is faster (test_flash_attention.py
    checks that one), so its decision is forced here to check this kernel itself."""
    monkeypatch.setattr(resident, "pays", lambda fused, apart: True)
    monkeypatch.setattr(resident, "saved_us", lambda fused, apart: apart)   # the longest chain first
    only_rows = resident.fused_kinds
    monkeypatch.setattr(resident, "fused_kinds", lambda spec, target: {
        k: v for k, v in only_rows(spec, target).items() if k == resident_rows.NAME})
    rng = np.random.default_rng(s * 131 + d)
    feeds = attention_feeds(rng, b, h, s, d, dtype, mask)
    art, got = run(exported_attention(b, h, s, d, dtype, mask), feeds, modes=("default",) if s > 64 else
                   ("default", "shuffle"))
    want = attention_np(feeds, d)
    tol = TOL[dtype]
    for g in got:
        assert g.dtype == DType[dtype].np
        np.testing.assert_allclose(g.astype(np.float32), want, rtol=tol, atol=tol)
    rep = art.report
    assert rep["launches_per_inference"] == 1, [k["ops"] for k in rep["kernels"]]
    (k,) = fused_kernels(rep)
    assert k["config"]["resident"] and k["config"]["statistics"] == 2 and k["config"]["row_length"] == s
    levels = {c["value"]: c["level"] for c in k["carried"]}
    # scores, max and sum in shared memory; the probabilities too where P.V would recompute them
    # for each of its columns and the rows still fit (test_probabilities_are_computed_once)
    assert [lvl for v, lvl in levels.items() if v != "p"] == ["shared"] * 3 and levels["p"] in ("shared", "register")


def test_probabilities_are_computed_once(monkeypatch):
    """P.V reads each probability once per column of V: carried in registers, exp(s - max) / sum
    would be computed d times over; the chain keeps P in shared memory instead (one more row
    buffer), so the final loop reads it, and the kernel's FLOPs count each exp once per element."""
    rng = np.random.default_rng(12)
    b, h, s, d = 1, 4, 64, 64
    feeds = attention_feeds(rng, b, h, s, d, "float32", "causal")
    art, got = run(exported_attention(b, h, s, d, "float32", "causal"), feeds)
    for g in got:           # in fixed and shuffled thread order
        np.testing.assert_allclose(g, attention_np(feeds, d), rtol=1e-4, atol=1e-4)
    (k,) = fused_kernels(art.report)
    assert {c["value"]: c["level"] for c in k["carried"]}["p"] == "shared"
    (kernel,) = [x for x in art.plan.kernels() if x.entry == k["name"]]
    final = kernel.source[kernel.source.rindex("__syncthreads();"):]
    assert "by_exp" in kernel.source and "by_exp" not in final        # the last phase reads P
    monkeypatch.setattr(resident, "_computed_once", lambda spec, chain: None)   # P composed into P.V again
    recomputed, _ = run(exported_attention(b, h, s, d, "float32", "causal"), feeds, modes=("default",))
    (r,) = fused_kernels(recomputed.report)
    # the exp, subtract and divide: once per element, not once per element and column of V
    assert k["flops"]["executed"] < r["flops"]["executed"] - 3 * b * h * s * s * (d - 1)


def test_computing_probabilities_once_is_kept_with_fewer_rows_to_a_block_when_it_pays(monkeypatch, rows_kernel_only):
    """512 keys: one more row buffer for P leaves room for fewer rows to a block (16 -> 11), yet
    computing exp(s - max) / sum once per element instead of once per column of V is predicted
    faster; the chain is priced both ways and keeps the faster, and stays right."""
    rng = np.random.default_rng(15)
    b, h, s, d = 1, 16, 512, 64
    data = exported_attention(b, h, s, d, "float32", "padding")
    feeds = attention_feeds(rng, b, h, s, d, "float32", "padding")
    priced = []
    predict = resident._predict_us
    monkeypatch.setattr(resident, "_predict_us", lambda spec, target, chain=None: priced.append(
        (spec, resident_rows.analyse(spec), predict(spec, target, chain))) or priced[-1][2])
    art, got = run(data, feeds)
    for g in got:
        np.testing.assert_allclose(g, attention_np(feeds, d), rtol=1e-4, atol=1e-4)
    whole = max(len(spec.stages) for spec, _, _ in priced)      # the chain from QK^T to the output
    ways = {dict(spec.carried)["p"].value: (chain.rows_per_block, us) for spec, chain, us in priced
            if len(spec.stages) == whole and isinstance(chain, resident_rows.RowChain)}
    assert ways["shared"][0] < ways["register"][0] and ways["shared"][1] < ways["register"][1]
    (k,) = fused_kernels(art.report)
    assert {c["value"]: c["level"] for c in k["carried"]}["p"] == "shared"
    assert k["config"]["rows_per_block"] == ways["shared"][0]
    assert art.report["launches_per_inference"] == 1


def test_the_cost_model_decides_and_the_report_says_why():
    """Many heads at a short sequence: fused. One head at 512: computing QK^T in blocks of rows
    fills a fraction of the GPU, predicted slower than the tiled GEMM apart: that chain is
    declined, both predictions in the report."""
    rng = np.random.default_rng(8)
    for (b, h, s, d), fused in (((1, 4, 64, 64), True), ((1, 1, 512, 128), False)):
        feeds = attention_feeds(rng, b, h, s, d, "float32", "none")
        art, (got,) = run(exported_attention(b, h, s, d, "float32", "none"), feeds, modes=("default",))
        np.testing.assert_allclose(got, attention_np(feeds, d), rtol=1e-4, atol=1e-4)
        fusion = art.report["fusion"]
        shared = [g for g in fusion["groups"] if g.get("level") == "shared"]
        if fused:
            (g,) = shared
            assert g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
            assert art.report["launches_per_inference"] == 1
        else:   # QK^T stays a tiled GEMM; the softmax and .V may still join (no product recomputed)
            assert not any("MatMul_1" in g["ops"] for g in shared)
            # each chain from QK^T was declined, longest first (then shorter ones were tried)
            declined = [d for d in fusion["declined"] if "MatMul_1" in d["ops"]]
            assert declined and all(d["predicted_us"]["fused"] >= d["predicted_us"]["apart"] for d in declined)
            assert [len(d["ops"]) for d in declined] == sorted((len(d["ops"]) for d in declined), reverse=True)
            assert art.report["launches_per_inference"] > 1


def test_a_fully_masked_row_gives_zeros_through_the_nan_guard():
    rng = np.random.default_rng(5)
    b, h, s, d = 2, 2, 16, 32
    feeds = attention_feeds(rng, b, h, s, d, "float32", "padding")
    feeds["mask"][1] = -np.inf                      # batch 1: every key masked
    _, (got, _) = run(exported_attention(b, h, s, d, "float32", "padding"), feeds)
    assert np.all(got[1] == 0) and np.all(np.isfinite(got))
    np.testing.assert_allclose(got, attention_np(feeds, d), rtol=1e-4, atol=1e-4)


def test_attention_without_fusion_is_right_and_writes_the_scores():
    rng = np.random.default_rng(6)
    b, h, s, d = 1, 2, 48, 32
    feeds = attention_feeds(rng, b, h, s, d, "float32", "causal")
    data = exported_attention(b, h, s, d, "float32", "causal")
    fused, (g1,) = run(data, feeds, modes=("default",))
    apart, (g2,) = run(data, feeds, disable=("welder",), modes=("default",))
    want = attention_np(feeds, d)
    np.testing.assert_allclose(g1, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(g2, want, rtol=1e-4, atol=1e-4)
    assert apart.report["launches_per_inference"] >= 5
    # the b x h x s x s scores (and probabilities) no longer go through DRAM
    saved = apart.report["traffic"]["dram_bytes"] - fused.report["traffic"]["dram_bytes"]
    assert saved >= 4 * b * h * s * s * 4


# --- the ONNX Attention op ------------------------------------------------------------------------

@pytest.mark.parametrize("s,d,causal,dtype", [(1, 32, 0, "float32"), (40, 64, 1, "float32"),
                                              (130, 128, 1, "float16")])
def test_onnx_attention_op_is_one_kernel(s, d, causal, dtype):
    from compiler.ops.registry import lookup
    from compiler.ir.graph import Node
    rng = np.random.default_rng(s + d)
    b, h = 1, 2
    t = ONNX_TYPE[dtype]
    feeds = {n: rng.standard_normal((b, h, s, d)).astype(np.float32).astype(DType[dtype].np) for n in ("q", "k", "v")}
    feeds["mask"] = np.where(rng.random((s, s)) < 0.2, -np.inf, 0).astype(DType[dtype].np)
    feeds["mask"][:, 0] = 0
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"], is_causal=causal)
    data = make_model([node], [(n, t, [b, h, s, d]) for n in ("q", "k", "v")] + [("mask", t, [s, s])],
                      [("y", t, [b, h, s, d])], opset=23)
    art, got = run(data, feeds, modes=("default",))
    ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v", "mask"), outputs=("y",),
                   attrs=(("is_causal", causal),))
    (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v", "mask")], 23)
    tol = TOL[dtype]
    np.testing.assert_allclose(got[0].astype(np.float32), want.astype(np.float32), rtol=tol, atol=tol)
    assert art.report["launches_per_inference"] == 1
    # the kind predicted fastest: blocks of resident rows, or (fp16) the online softmax on tensor cores
    (k,) = art.report["kernels"]
    (g,) = art.report["fusion"]["groups"]
    kinds = g["predicted_us"].get("kinds", {g["predicted_us"]["kind"]: g["predicted_us"]["fused"]})
    assert k["config"]["schedule"] == min(kinds, key=kinds.get)
    assert k["config"].get("resident") or dtype == "float16"


# --- back-to-back contractions: an MLP's hidden rows in shared memory ------------------------------

def mlp_model(m: int, d: int, hidden: int, rng) -> tuple[bytes, dict]:
    """x -> MatMul W1 + b1 -> GELU (erf, as exporters write it) -> MatMul W2 + b2 -> + x."""
    w1 = (rng.standard_normal((d, hidden)) / np.sqrt(d)).astype(np.float32)
    b1 = rng.standard_normal(hidden).astype(np.float32)
    w2 = (rng.standard_normal((hidden, d)) / np.sqrt(hidden)).astype(np.float32)
    b2 = rng.standard_normal(d).astype(np.float32)
    return mlp_of(m, {"w1": w1, "b1": b1, "w2": w2, "b2": b2})


def mlp_of(m: int, weights: dict) -> tuple[bytes, dict]:
    """The MLP of mlp_model over m tokens with the given w1, b1, w2, b2."""
    consts = dict(weights, sqrt2=np.float32(np.sqrt(2)), one=np.float32(1), half=np.float32(0.5))
    d = weights["w1"].shape[0]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]), helper.make_node("Add", ["h0", "b1"], ["h"]),
             helper.make_node("Div", ["h", "sqrt2"], ["hs"]), helper.make_node("Erf", ["hs"], ["he"]),
             helper.make_node("Add", ["he", "one"], ["h1"]), helper.make_node("Mul", ["h", "h1"], ["h2"]),
             helper.make_node("Mul", ["h2", "half"], ["g"]),
             helper.make_node("MatMul", ["g", "w2"], ["o0"]), helper.make_node("Add", ["o0", "b2"], ["o"]),
             helper.make_node("Add", ["o", "x"], ["y"])]
    data = make_model(nodes, [("x", TensorProto.FLOAT, [1, m, d])], [("y", TensorProto.FLOAT, [1, m, d])],
                      [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()])
    return data, consts


def mlp_np(x, c) -> np.ndarray:
    from math import erf
    h = x @ c["w1"] + c["b1"]
    g = 0.5 * h * (1 + np.vectorize(erf)(h / np.sqrt(2)))
    return (g @ c["w2"] + c["b2"] + x).astype(np.float32)


def test_a_small_mlp_is_one_kernel_with_its_hidden_rows_in_shared_memory():
    """ViT's MLP at batch 1 (17 tokens, 128 -> 512 -> 128): no row statistic, but the hidden rows
    (bias and GELU composed into the second product's loads) never reach DRAM: one launch."""
    rng = np.random.default_rng(11)
    data, c = mlp_model(17, 128, 512, rng)
    x = rng.standard_normal((1, 17, 128)).astype(np.float32)
    art, got = run(data, {"x": x})
    want = mlp_np(x, c)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)
    rep = art.report
    assert rep["launches_per_inference"] == 1
    (k,) = fused_kernels(rep)
    assert k["config"]["resident"] and k["config"]["statistics"] == 0 and k["config"]["row_length"] == 512
    assert [c["level"] for c in k["carried"]].count("shared") == 1, k["carried"]
    (g,) = [g for g in rep["fusion"]["groups"] if g.get("level") == "shared"]
    assert g["predicted_us"]["fused"] < g["predicted_us"]["apart"]
    apart, (got2,) = run(data, {"x": x}, disable=("welder",), modes=("default",))
    np.testing.assert_allclose(got2, want, rtol=1e-4, atol=1e-4)
    # the 17 x 512 hidden activation is written and read once less
    assert rep["traffic"]["dram_bytes"] <= apart.report["traffic"]["dram_bytes"] - 2 * 17 * 512 * 4


def test_a_wide_mlp_declines_because_every_block_would_read_both_weights():
    """BERT-base's MLP over 128 tokens (768 -> 3072 -> 768): blocks of rows without Roller's tiles
    would each read 19 MB of weights through L2, predicted slower than two tiled GEMMs: declined,
    with both predictions, and the L2 term is what decides it."""
    rng = np.random.default_rng(12)
    data, _ = mlp_model(128, 768, 3072, rng)
    art = compile(data, "h100", CompileOptions(build=False))
    fusion = art.report["fusion"]
    assert not [g for g in fusion["groups"] if g.get("level") == "shared"]
    (d,) = fusion["declined"]
    assert d["predicted_us"]["fused"] >= d["predicted_us"]["apart"]
    assert art.report["launches_per_inference"] == 2
    # what decides it: 128 blocks each reading both weights (19 MB) through L2
    from compiler.ir.plan import ComputeStep
    from compiler.pipeline import plan_before
    plan = plan_before("roller", data, "h100", CompileOptions(build=False))
    specs = [s.spec for s in plan.steps if isinstance(s, ComputeStep)]
    chain = resident_rows.analyse(resident._joined(specs))
    assert resident_rows.block_reads(chain) >= 2 * 768 * 3072 * 4
    assert chain.row_count // chain.rows_per_block >= 64


def test_a_small_mlp_at_fp16_stays_two_tensor_core_gemms():
    """The same small MLP at fp16: apart, Roller tiles both GEMMs on tensor cores, which the cost
    model weighs against the fused kernel's SIMT lanes: declined."""
    rng = np.random.default_rng(13)
    data, _ = mlp_model(17, 128, 512, rng)
    art = compile(data, "h100", CompileOptions(build=False, precision="fp16"))
    fusion = art.report["fusion"]
    assert not [g for g in fusion["groups"] if g.get("level") == "shared"]
    (d,) = fusion["declined"]
    assert d["predicted_us"]["fused"] >= d["predicted_us"]["apart"]


def test_a_chain_counts_the_arithmetic_on_values_not_the_reshapes_index_arithmetic():
    """Exporters reach attention's heads through Transpose and Reshape: composed into the loads, a
    reshape that merges the batch and head axes of a transposed tensor adds divisions and
    remainders to every index, which are address arithmetic, not work on values. The same graph
    whose reshape keeps the shape (batch 1 given as the head axis) computes as many FLOPs."""
    rng = np.random.default_rng(13)
    b, h, s, d = 2, 2, 32, 16
    feeds = attention_feeds(rng, 1, b * h, s, d, "float32", "none")
    g = onnx.load_from_string(exported_attention(1, b * h, s, d, "float32", "none")).graph
    shape = numpy_helper.from_array(np.array([1, b * h, s, d], np.int64), "heads_shape")
    heads = [helper.make_node("Transpose", [f"{n}_bshd"], [f"{n}_bhsd"], perm=[0, 2, 1, 3]) for n in "qkv"]
    heads += [helper.make_node("Reshape", [f"{n}_bhsd", "heads_shape"], [n]) for n in "qkv"]
    kernels = []
    for bb, hh in ((1, b * h), (b, h)):
        data = make_model(heads + list(g.node), [(f"{n}_bshd", TensorProto.FLOAT, [bb, s, hh, d]) for n in "qkv"],
                          [("y", TensorProto.FLOAT, [1, s, b * h, d])], list(g.initializer) + [shape])
        inputs = {f"{n}_bshd": feeds[n].reshape(bb, hh, s, d).transpose(0, 2, 1, 3).copy() for n in "qkv"}
        art, got = run(data, inputs)
        for y in got:
            np.testing.assert_allclose(y, attention_np(feeds, d), rtol=1e-4, atol=1e-4)
        kernels += fused_kernels(art.report)
    same, merged = kernels
    assert merged["ops"] == same["ops"] and merged["config"] == same["config"]
    assert merged["flops"]["executed"] == same["flops"]["executed"]


def test_the_pay_check_prices_the_arithmetic_the_kernel_does(monkeypatch, rows_kernel_only):
    """A chain is weighed with the FLOPs it computes (maps recomputed where read included), the
    same count the report gives: when that count is large enough, the chain is declined."""
    rng = np.random.default_rng(14)
    b, h, s, d = 1, 4, 64, 64
    data = exported_attention(b, h, s, d, "float32", "none")
    feeds = attention_feeds(rng, b, h, s, d, "float32", "none")
    art, _ = run(data, feeds, modes=("default",))
    (g,) = [g for g in art.report["fusion"]["groups"] if g.get("level") == "shared"]
    # the chain's own count a thousandfold (its members apart that are row chains too: a stitched
    # softmax, a small share of the chain's FLOPs)
    counted = resident_rows.chain_flops
    monkeypatch.setattr(resident_rows, "chain_flops", lambda chain: 1000 * counted(chain))
    slow, (got,) = run(data, feeds, modes=("default",))
    np.testing.assert_allclose(got, attention_np(feeds, d), rtol=1e-4, atol=1e-4)
    assert not [g for g in slow.report["fusion"]["groups"] if g.get("level") == "shared"]
    assert any(x["ops"] == g["ops"] and x["reason"] == "the cost model predicts no gain"
               for x in slow.report["fusion"]["declined"])
