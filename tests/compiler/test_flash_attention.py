"""Kind flash_attention (compiler/kinds/flash_attention.py, compiler/codegen/flash_attention.py):
attention as one kernel with an online softmax over key tiles on tensor cores (mma.sync fp16 and
bf16), recognised from the tensor expressions of the row chain Welder's shared-memory level makes.
Run on the host harness, whose mma and ldmatrix are exact emulations, against NumPy over sequence
lengths 1..512 (and one longer than shared memory holds), head sizes 32..256, with and without
causal and padding masks, for exporters' pattern and the ONNX Attention op."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from compiler import compile
from compiler.ir.dtypes import DType
from compiler.ir.spec import KernelSpec
from compiler.kinds import flash_attention, flash_attention_simt, resident_rows
from compiler.pipeline import CompileOptions, plan_before

from .test_resident import (ONNX_TYPE, TOL, attention_feeds, attention_np, exported_attention, force_fused_kind,
                            make_model, run, softmax_np)


def flash_kernels(report) -> list[dict]:
    return [k for k in report["kernels"] if k["config"].get("schedule") == flash_attention.NAME]


def row_chains(data: bytes) -> list[KernelSpec]:
    """The specs the welder stage made row chains of (fp16: the mark tensor cores take)."""
    plan = plan_before("roller", data, "h100", CompileOptions(build=False, precision="fp16"))
    return [s.spec for s in plan.steps if isinstance(getattr(s, "spec", None), KernelSpec)
            and not s.spec.composable and isinstance(resident_rows.analyse(s.spec, fit=False), resident_rows.RowChain)]


@pytest.fixture
def flash_only(monkeypatch):
    """The cost model's choice forced to this kind (where it applies), to check its kernel over
    sizes where the rows kernel or the members apart are predicted faster."""
    force_fused_kind(monkeypatch, flash_attention.NAME)


CASES = [
    # (batch, heads, seq, head size, dtype, mask)
    (1, 2, 1, 32, "float16", "none"),
    (2, 2, 7, 64, "float16", "padding"),
    (1, 2, 64, 32, "bfloat16", "causal"),
    (2, 2, 33, 64, "float16", "padding"),
    (1, 2, 130, 96, "bfloat16", "causal"),
    (1, 1, 200, 128, "float16", "padding"),
    (1, 1, 300, 256, "float16", "none"),
    (1, 1, 512, 64, "float16", "causal"),
    (1, 1, 512, 128, "bfloat16", "none"),
]


@pytest.mark.parametrize("b,h,s,d,dtype,mask", CASES)
def test_exported_attention_on_tensor_cores_is_right(b, h, s, d, dtype, mask, flash_only):
    rng = np.random.default_rng(s * 7 + d)
    feeds = attention_feeds(rng, b, h, s, d, dtype, mask)
    art, got = run(exported_attention(b, h, s, d, dtype, mask), feeds,
                   modes=("default",) if s > 64 else ("default", "shuffle"))
    want = attention_np(feeds, d)
    for g in got:
        assert g.dtype == DType[dtype].np
        np.testing.assert_allclose(g.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    rep = art.report
    assert rep["launches_per_inference"] == 1
    (k,) = flash_kernels(rep)
    cfg = k["config"]
    assert (cfg["row_length"], cfg["head_dim"], cfg["value_dim"], cfg["elem"]) == (s, d, d, dtype)
    assert cfg["heads"] == b * h and cfg["rows"] == b * h * s
    assert k["grid"][0] == b * h * -(-s // cfg["rows_per_block"])
    assert k["shared_bytes"] <= flash_attention.SHARED_LIMIT
    assert k["roofline"]["ceiling"].startswith("tensor core")
    assert {c["level"] for c in k["carried"]} == {"shared", "register"}


def test_a_fully_masked_row_gives_zeros_through_the_nan_guard(flash_only):
    rng = np.random.default_rng(5)
    b, h, s, d = 2, 2, 40, 32
    feeds = attention_feeds(rng, b, h, s, d, "float16", "padding")
    feeds["mask"][1] = -np.inf                      # batch 1: every key masked
    art, got = run(exported_attention(b, h, s, d, "float16", "padding"), feeds)
    assert flash_kernels(art.report)
    for g in got:
        assert np.all(g[1] == 0) and np.all(np.isfinite(g.astype(np.float32)))
        np.testing.assert_allclose(g.astype(np.float32), attention_np(feeds, d), rtol=1e-2, atol=1e-2)


def test_the_attention_op_zeroes_a_fully_masked_row_through_the_zero_sum_guard(flash_only):
    """The Attention op's probabilities are l == 0 ? 0 : exp(s - m) / l: with every key of a row
    masked (a boolean mask all false) the tensor-core kernel writes zeros there, as the op says."""
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    rng = np.random.default_rng(9)
    b, h, s, d = 2, 2, 40, 32
    feeds = {n: rng.standard_normal((b, h, s, d)).astype(np.float16) for n in ("q", "k", "v")}
    feeds["mask"] = rng.random((b, 1, s, s)) > 0.3
    feeds["mask"][1, 0, 5] = False                  # batch 1, query 5: no key
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"])
    data = make_model([node], [(n, TensorProto.FLOAT16, [b, h, s, d]) for n in ("q", "k", "v")]
                      + [("mask", TensorProto.BOOL, [b, 1, s, s])], [("y", TensorProto.FLOAT16, [b, h, s, d])], opset=23)
    art, got = run(data, feeds)
    assert flash_kernels(art.report)
    ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v", "mask"), outputs=("y",))
    (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v", "mask")], 23)
    for g in got:
        assert np.all(g[1, :, 5] == 0) and np.all(np.isfinite(g.astype(np.float32)))
        np.testing.assert_allclose(g.astype(np.float32), want.astype(np.float32), rtol=TOL["float16"],
                                   atol=TOL["float16"])


def long_rows_model(sq: int, sk: int, d: int) -> bytes:
    """softmax(q.k^T / sqrt(d)).v in fp16, sq queries over sk keys, one head."""
    t = TensorProto.FLOAT16
    scale = helper.make_tensor("scale", t, [], [1 / np.sqrt(d)])
    nodes = [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["qk"]), helper.make_node("Mul", ["qk", "scale"], ["sc"]),
             helper.make_node("Softmax", ["sc"], ["p"], axis=-1), helper.make_node("MatMul", ["p", "v"], ["y"])]
    return make_model(nodes, [("q", t, [1, 1, sq, d]), ("k", t, [1, 1, sk, d]), ("v", t, [1, 1, sk, d])],
                      [("y", t, [1, 1, sq, d])], [scale])


def test_rows_longer_than_shared_memory_holds_are_walked_in_tiles(flash_only):
    """Two queries over 13000 keys: a row of 13000 fp32 scores is more than the rows kernel's
    48 KiB, so the rows kernel cannot hold QK^T; the online softmax walks the keys in tiles (204
    of 64) and no kernel writes a score. (Forced: with one block for the whole row the cost model
    rightly prefers the tiled GEMM apart, see the next test; splitting the keys over blocks,
    flash-decoding, is not built.)"""
    rng = np.random.default_rng(9)
    sq, sk, d = 2, 13000, 32
    data = long_rows_model(sq, sk, d)
    feeds = {"q": rng.standard_normal((1, 1, sq, d)).astype(np.float16),
             "k": rng.standard_normal((1, 1, sk, d)).astype(np.float16),
             "v": rng.standard_normal((1, 1, sk, d)).astype(np.float16)}
    (spec,) = row_chains(data)
    assert "does not fit" in resident_rows.analyse(spec)
    assert spec.kind == flash_attention.NAME
    art, (got,) = run(data, feeds, modes=("default",))
    q, k, v = (feeds[n].astype(np.float32) for n in ("q", "k", "v"))
    want = softmax_np((q @ k.transpose(0, 1, 3, 2)) / np.sqrt(d)) @ v
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=1e-2, atol=1e-2)
    (kern,) = flash_kernels(art.report)
    assert art.report["launches_per_inference"] == 1 and kern["config"]["row_length"] == sk


@pytest.mark.parametrize("s,d,causal,dtype", [(40, 64, 1, "float16"), (130, 128, 0, "bfloat16"),
                                              (1, 32, 1, "float16")])
def test_onnx_attention_op_on_tensor_cores(s, d, causal, dtype, flash_only):
    """The Attention op's lowering writes softmax another way (the max's -inf -> 0 guard, the
    division by the sum in the product's epilogue): the same kind takes it."""
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    rng = np.random.default_rng(s + d)
    b, h = 2, 2
    t = ONNX_TYPE[dtype]
    feeds = {n: rng.standard_normal((b, h, s, d)).astype(np.float32).astype(DType[dtype].np) for n in ("q", "k", "v")}
    feeds["mask"] = np.where(rng.random((s, s)) < 0.2, -np.inf, 0).astype(DType[dtype].np)
    feeds["mask"][:, 0] = 0
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"], is_causal=causal)
    data = make_model([node], [(n, t, [b, h, s, d]) for n in ("q", "k", "v")] + [("mask", t, [s, s])],
                      [("y", t, [b, h, s, d])], opset=23)
    art, got = run(data, feeds, modes=("default", "shuffle") if s <= 64 else ("default",))
    ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v", "mask"), outputs=("y",),
                   attrs=(("is_causal", causal),))
    (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v", "mask")], 23)
    for g in got:
        np.testing.assert_allclose(g.astype(np.float32), want.astype(np.float32), rtol=TOL[dtype], atol=TOL[dtype])
    assert art.report["launches_per_inference"] == 1
    assert flash_kernels(art.report)


def test_three_d_attention_fuses_as_the_four_d_one():
    """Heads folded into the hidden axis (B, S, H * D), as 3-D Attention and onnxruntime's
    attention ops write them: P.V is computed per head and transposed into that layout, a
    permutation folded into the kernel's store, so the whole op is one tensor-core kernel with the
    4-D form's launches and DRAM bytes, unforced (before, the 3-D output read the statistics at a
    divided index, the chain stopped there, and P.V ran apart)."""
    b, h, s, d = 1, 12, 256, 64
    rng = np.random.default_rng(3)
    reports = {}
    for rank in (3, 4):
        shape = [b, s, h * d] if rank == 3 else [b, h, s, d]
        feeds = {n: rng.standard_normal(shape).astype(np.float16) for n in ("q", "k", "v")}
        attrs = {"q_num_heads": h, "kv_num_heads": h} if rank == 3 else {}
        node = helper.make_node("Attention", ["q", "k", "v"], ["y"], is_causal=1, **attrs)
        data = make_model([node], [(n, TensorProto.FLOAT16, shape) for n in ("q", "k", "v")],
                          [("y", TensorProto.FLOAT16, shape)], opset=23)
        art, (got,) = run(data, feeds, modes=("default",))
        from compiler.ir.graph import Node
        from compiler.ops.registry import lookup
        ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v"), outputs=("y",),
                       attrs=(("is_causal", 1),) + tuple(attrs.items()))
        (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v")], 23)
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=TOL["float16"],
                                   atol=TOL["float16"])
        assert flash_kernels(art.report)
        reports[rank] = art.report
    for key in ("launches_per_inference",):
        assert reports[3][key] == reports[4][key] == 1
    assert reports[3]["traffic"]["dram_bytes"] == reports[4]["traffic"]["dram_bytes"]


def test_few_queries_over_many_keys_split_the_keys_across_blocks():
    """The same shape unforced: this kind's one block a head would walk all 13000 keys on one SM,
    so the micro-model prices it slower than the members apart; kind flash_decoding splits the
    keys across blocks and is priced faster than both, so the chain is one kernel of that kind
    (tests/compiler/test_flash_decoding.py checks its results)."""
    from compiler.kinds import flash_decoding
    sq, sk, d = 2, 13000, 32
    data = long_rows_model(sq, sk, d)
    art = compile(data, "h100", CompileOptions(build=False))
    (g,) = [g for g in art.report["fusion"]["groups"] if "MatMul_4" in g["ops"]]     # the whole chain
    pred = g["predicted_us"]
    assert pred["kind"] == flash_decoding.NAME == min(pred["kinds"], key=pred["kinds"].get)
    assert pred["kinds"][flash_attention.NAME] > pred["apart"] > pred["fused"]
    assert not flash_kernels(art.report) and art.report["launches_per_inference"] == 1
    (k,) = art.report["kernels"]
    assert k["config"]["schedule"] == flash_decoding.NAME and k["config"]["key_splits"] > 1


def test_the_cost_model_chooses_among_the_kernels_and_records_each():
    """Twelve heads of 128 tokens (BERT-base's attention): at fp16 the tensor-core kernel is
    predicted faster than the rows kernel and the SIMT online softmax, and every prediction is in
    the record; at fp32 the tensor-core kernel does not apply, and the faster of the other two is
    chosen."""
    b, h, s, d = 1, 12, 128, 64
    for dtype in ("float16", "float32"):
        art = compile(exported_attention(b, h, s, d, dtype, "padding"), "h100", CompileOptions(build=False))
        (g,) = [g for g in art.report["fusion"]["groups"] if g.get("level") == "shared"]
        pred = g["predicted_us"]
        kinds = pred["kinds"]
        assert pred["kind"] == min(kinds, key=kinds.get) and pred["fused"] == kinds[pred["kind"]]
        assert pred["fused"] < pred["apart"]
        chosen = [k for k in art.report["kernels"] if k["config"].get("schedule") == pred["kind"]]
        assert len(chosen) == 1 and art.report["launches_per_inference"] == 1
        if dtype == "float16":
            assert set(kinds) == {flash_attention.NAME, flash_attention_simt.NAME, resident_rows.NAME}
            assert pred["kind"] == flash_attention.NAME
            (k,) = flash_kernels(art.report)
            assert k["prediction"] == "micro-model" and k["predicted_us"] > 0
        else:
            assert set(kinds) == {flash_attention_simt.NAME, resident_rows.NAME}
            assert not flash_kernels(art.report)


def test_a_target_without_fp16_mma_keeps_the_rows_kernel():
    """sm_75 (T4) has no m16n8k16 bf16 mma and this kind is written for sm_80+: bf16 attention
    compiled for it stays on the rows kernel."""
    art = compile(exported_attention(1, 4, 64, 64, "bfloat16", "none"), "t4", CompileOptions(build=False))
    assert not flash_kernels(art.report)
    assert [k for k in art.report["kernels"] if k["config"].get("schedule") == resident_rows.NAME]


def test_a_row_chain_that_is_not_attention_is_refused_with_the_reason():
    """MatMul -> Softmax (the Welder example) has no P.V; a softmax whose statistics are not a
    max and a sum of exponentials of the same logits is not one either."""
    from .test_resident import numpy_helper
    rng = np.random.default_rng(3)
    w = (rng.standard_normal((64, 128)) / 8).astype(np.float16)
    data = make_model([helper.make_node("MatMul", ["x", "w"], ["s"]), helper.make_node("Softmax", ["s"], ["y"])],
                      [("x", TensorProto.FLOAT16, [96, 64])], [("y", TensorProto.FLOAT16, [96, 128])],
                      [numpy_helper.from_array(w, "w")])
    (spec,) = row_chains(data)
    why = flash_attention.analyse(spec)
    assert isinstance(why, str) and "final" in why
    assert spec.kind is None
    art, (got,) = run(data, {"x": rng.standard_normal((96, 64)).astype(np.float16)}, modes=("default",))
    assert not flash_kernels(art.report)
