"""Kind flash_attention_simt (compiler/kinds/flash_attention_simt.py,
compiler/codegen/flash_attention_simt.py): attention as one kernel with an online softmax over key
tiles on SIMT lanes in fp32, recognised by the same reader of the tensor expressions as the
tensor-core kind. Run on the host harness against NumPy over sequence lengths 1..512 (and one
longer than shared memory holds), head sizes 32..256, with and without causal and padding masks,
in fp32 and with 16-bit inputs, over every block shape the kind offers; and its price against the
rows kernel and the members apart."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.kinds import flash_attention, flash_attention_simt as simt, resident_rows
from compiler.pipeline import CompileOptions, plan_before

from .test_resident import (ONNX_TYPE, TOL, attention_feeds, attention_np, exported_attention, force_fused_kind,
                            make_model, run, softmax_np)


def simt_kernels(report) -> list[dict]:
    return [k for k in report["kernels"] if k["config"].get("schedule") == simt.NAME]


@pytest.fixture
def simt_only(monkeypatch):
    """The welder stage's choice forced to this kind where it applies, to check its kernel at
    sizes where another kind or the members apart are predicted faster."""
    force_fused_kind(monkeypatch, simt.NAME)


CASES = [
    # (batch, heads, seq, head size, dtype, mask)
    (1, 2, 1, 32, "float32", "none"),
    (2, 2, 7, 64, "float32", "padding"),
    (1, 2, 33, 32, "float32", "causal"),
    (2, 1, 64, 48, "float32", "padding"),
    (1, 2, 130, 96, "float32", "causal"),
    (1, 1, 200, 128, "float32", "padding"),
    (1, 1, 300, 256, "float32", "none"),
    (1, 1, 512, 64, "float32", "causal"),
    (1, 2, 70, 64, "float16", "padding"),
    (1, 1, 130, 128, "bfloat16", "causal"),
]


@pytest.mark.parametrize("b,h,s,d,dtype,mask", CASES)
def test_exported_attention_on_simt_lanes_is_right(b, h, s, d, dtype, mask, simt_only):
    rng = np.random.default_rng(s * 11 + d)
    feeds = attention_feeds(rng, b, h, s, d, dtype, mask)
    art, got = run(exported_attention(b, h, s, d, dtype, mask), feeds,
                   modes=("default",) if s > 64 else ("default", "shuffle"))
    want = attention_np(feeds, d)
    for g in got:
        assert g.dtype == DType[dtype].np
        np.testing.assert_allclose(g.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    rep = art.report
    assert rep["launches_per_inference"] == 1
    (k,) = simt_kernels(rep)
    cfg = k["config"]
    assert (cfg["row_length"], cfg["head_dim"], cfg["value_dim"], cfg["elem"]) == (s, d, d, "float32")
    assert cfg["heads"] == b * h and cfg["rows"] == b * h * s
    assert k["grid"][0] == b * h * -(-s // cfg["rows_per_block"]) and k["block"][0] == simt.THREADS
    assert k["roofline"]["ceiling"] == "fp32 SIMT"
    assert {c["level"] for c in k["carried"]} == {"shared", "register"}


def test_every_block_shape_is_right(monkeypatch, simt_only):
    """Each block shape the kind can choose (rows a lane 1..8, keys a lane 1..4), over a head
    size that is not a multiple of the lanes (40: three output columns a lane, the last partly
    past the end) and a sequence that leaves every tile partial (70 queries and keys)."""
    b, h, s, d = 2, 1, 70, 40
    rng = np.random.default_rng(21)
    feeds = attention_feeds(rng, b, h, s, d, "float32", "padding")
    data = exported_attention(b, h, s, d, "float32", "padding")
    want = attention_np(feeds, d)
    seen = set()
    for br in simt.ROW_BLOCKS:
        for bc in simt.KEY_TILES:
            t = simt.Tiling(br, bc, d, d)
            monkeypatch.setattr(simt, "configuration", lambda att, spec, target, t=t: simt._config(
                t, simt.workload(att, spec, t)))
            art, (got,) = run(data, feeds, modes=("default",))
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
            (k,) = simt_kernels(art.report)
            assert (k["config"]["rows_per_block"], k["config"]["key_tile"]) == (br, bc)
            assert k["shared_bytes"] == t.shared_bytes()
            seen.add((t.tr, t.tc))
    assert seen == {(tr, tc) for tr in (1, 2, 4, 8) for tc in (1, 2, 4)}


def test_a_fully_masked_row_gives_zeros_through_the_nan_guard(simt_only):
    rng = np.random.default_rng(5)
    b, h, s, d = 2, 2, 40, 32
    feeds = attention_feeds(rng, b, h, s, d, "float32", "padding")
    feeds["mask"][1] = -np.inf                      # batch 1: every key masked
    art, got = run(exported_attention(b, h, s, d, "float32", "padding"), feeds)
    assert simt_kernels(art.report)
    for g in got:
        assert np.all(g[1] == 0) and np.all(np.isfinite(g))
        np.testing.assert_allclose(g, attention_np(feeds, d), rtol=1e-4, atol=1e-4)


def test_rows_longer_than_shared_memory_holds_are_walked_in_tiles(simt_only):
    """Two queries over 13000 fp32 keys: more than the rows kernel's 48 KiB holds; this kernel
    keeps one key tile of scores at a time, and being the one launch, writes no score to DRAM."""
    from onnx import TensorProto
    rng = np.random.default_rng(9)
    sq, sk, d = 2, 13000, 32
    t = TensorProto.FLOAT
    scale = helper.make_tensor("scale", t, [], [1 / np.sqrt(d)])
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]), helper.make_node("Mul", ["qk", "scale"], ["sc"]),
             helper.make_node("Softmax", ["sc"], ["p"], axis=-1), helper.make_node("MatMul", ["p", "v"], ["y"])]
    data = make_model(nodes, [("q", t, [1, 1, sq, d]), ("k", t, [1, 1, sk, d]), ("v", t, [1, 1, sk, d])],
                      [("y", t, [1, 1, sq, d])], [scale])
    feeds = {n: rng.standard_normal((1, 1, n_, d)).astype(np.float32) for n, n_ in (("q", sq), ("k", sk), ("v", sk))}
    art, (got,) = run(data, feeds, modes=("default",))
    q, k, v = feeds["q"], feeds["k"], feeds["v"]
    want = softmax_np((q @ k.transpose(0, 1, 3, 2)) / np.sqrt(d)) @ v
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    (kern,) = simt_kernels(art.report)
    assert art.report["launches_per_inference"] == 1 and kern["config"]["row_length"] == sk


@pytest.mark.parametrize("s,d,causal", [(40, 64, 1), (130, 128, 0), (1, 32, 1)])
def test_onnx_attention_op_on_simt_lanes(s, d, causal, simt_only):
    """The Attention op's lowering (the max's -inf -> 0 guard, the division by the sum in the
    product's epilogue) in fp32: the same kind takes it."""
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    rng = np.random.default_rng(s + d)
    b, h = 2, 2
    t = ONNX_TYPE["float32"]
    feeds = {n: rng.standard_normal((b, h, s, d)).astype(np.float32) for n in ("q", "k", "v")}
    feeds["mask"] = np.where(rng.random((s, s)) < 0.2, -np.inf, 0).astype(np.float32)
    feeds["mask"][:, 0] = 0
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"], is_causal=causal)
    data = make_model([node], [(n, t, [b, h, s, d]) for n in ("q", "k", "v")] + [("mask", t, [s, s])],
                      [("y", t, [b, h, s, d])], opset=23)
    art, got = run(data, feeds, modes=("default", "shuffle") if s <= 64 else ("default",))
    ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v", "mask"), outputs=("y",),
                   attrs=(("is_causal", causal),))
    (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v", "mask")], 23)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4)
    assert art.report["launches_per_inference"] == 1
    assert simt_kernels(art.report)


def test_the_block_shape_is_the_micro_models_choice_within_the_targets_shared_memory():
    """BERT-base's fp32 attention at batch 1 takes this kind unforced on h100 and a100 (the
    record prices the rows kernel too, and the faster is kept); its block shape is the predicted
    fastest of those that fit. Shapes past 48 KiB count on the runtime's opt-in, within the
    target's per-block limit."""
    from compiler.roller.micro_model import predict
    from compiler.targets import get_target
    for name in ("h100", "a100"):
        art = compile(exported_attention(1, 12, 128, 64, "float32", "padding"), name, CompileOptions(build=False))
        (g,) = [g for g in art.report["fusion"]["groups"] if g.get("level") == "shared"]
        kinds = g["predicted_us"]["kinds"]
        assert set(kinds) == {simt.NAME, resident_rows.NAME}
        assert g["predicted_us"]["kind"] == min(kinds, key=kinds.get)
        if g["predicted_us"]["kind"] != simt.NAME:
            continue
        (k,) = simt_kernels(art.report)
        target = get_target(name)
        plan = plan_before("roller", exported_attention(1, 12, 128, 64, "float32", "padding"), name,
                           CompileOptions(build=False))
        (spec,) = [s.spec for s in plan.steps if getattr(getattr(s, "spec", None), "kind", None) == simt.NAME]
        att = simt.analyse(spec)
        shapes = simt.tilings(att, target.shared_per_block)
        assert all(t.shared_bytes() <= target.shared_per_block for t in shapes)
        best = min(predict(simt._config(t, simt.workload(att, spec, t)), target).us for t in shapes)
        assert k["config"]["predicted_us"] == round(best, 4)


def test_long_fp32_attention_is_priced_and_kept_apart_when_the_products_are_faster_tiled():
    """32 heads x 2048 tokens x 128 in fp32: both products are compute-bound on SIMT lanes, where
    Roller's tiled GEMMs issue more FMAs per shared load than this kernel's register tiles; the
    record holds this kind's price, and the chain is kept only if it is below the members'."""
    art = compile(exported_attention(1, 32, 2048, 128, "float32", "padding"), "h100", CompileOptions(build=False))
    fusion = art.report["fusion"]
    (g,) = [g for g in fusion["groups"] + fusion["declined"] if "MatMul_7" in g["ops"] and "MatMul_1" in g["ops"]
            and "kinds" in g.get("predicted_us", {})]       # the whole chain, QK^T to the output
    pred = g["predicted_us"]
    assert pred["kind"] == simt.NAME and simt.NAME in pred["kinds"] and resident_rows.NAME in pred["kinds"]
    assert pred["kinds"][simt.NAME] < pred["kinds"][resident_rows.NAME]
    kept = g in fusion["groups"]
    assert kept == (pred["fused"] < pred["apart"])
    assert bool(simt_kernels(art.report)) == kept


def test_a_row_chain_that_is_not_attention_is_refused_with_the_reason():
    """MatMul -> Softmax (the Welder example) has no P.V."""
    from .test_flash_attention import row_chains
    from .test_resident import numpy_helper
    from onnx import TensorProto
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((64, 128)) / 8).astype(np.float32)
    data = make_model([helper.make_node("MatMul", ["x", "w"], ["s"]), helper.make_node("Softmax", ["s"], ["y"])],
                      [("x", TensorProto.FLOAT, [96, 64])], [("y", TensorProto.FLOAT, [96, 128])],
                      [numpy_helper.from_array(w, "w")])
    (spec,) = row_chains(data)
    why = simt.analyse(spec)
    assert isinstance(why, str) and "final" in why
    assert simt.applies(spec) == why and flash_attention.recognise(spec) == why
