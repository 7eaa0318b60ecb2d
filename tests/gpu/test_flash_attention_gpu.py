"""On an sm_80+ GPU: the flash_attention kernel (online softmax over key tiles, mma.sync), its
SIMT fp32 sibling flash_attention_simt and the decoding kind flash_decoding (keys split across
blocks) against NumPy, over the cases tests/compiler/test_flash_attention.py,
test_flash_attention_simt.py and test_flash_decoding.py run on the host harness.

What the host harness cannot prove: that the hardware's ldmatrix and mma fragments are laid out as
its emulation assumes where this kernel relies on it most (S's accumulators reused as P.V's A
fragments without a trip through shared memory), and that the kernel is as fast as the
micro-model prices it (the report's predicted_us is printed beside the measured time)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module(min_capability=80)

from tests.compiler.test_flash_attention import CASES, flash_kernels, flash_only  # noqa: E402,F401  (fixture)
from tests.compiler.test_flash_attention_simt import CASES as SIMT_CASES, simt_kernels, simt_only  # noqa: E402,F401
from tests.compiler.test_flash_decoding import (CASES as DECODING_CASES, decoding_attention,  # noqa: E402,F401
                                                 decoding_feeds, decoding_kernels, decoding_np, decoding_only)
from tests.compiler.test_resident import TOL, attention_feeds, attention_np, exported_attention  # noqa: E402


def _target():
    from compiler.runtime.gpu import device_arch
    from compiler.targets import get_target
    return dataclasses.replace(get_target("h100"), arch=device_arch())


# every other host case (tests/gpu shares make gpu-check's 180 s with the shared models), and two
# sizes the host harness would take minutes over
@pytest.mark.parametrize("b,h,s,d,dtype,mask", CASES[::2] + [(1, 12, 128, 64, "float16", "padding"),
                                                          (8, 16, 512, 64, "bfloat16", "causal")])
def test_flash_attention_on_gpu(b, h, s, d, dtype, mask, flash_only):
    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    rng = np.random.default_rng(s * 7 + d)
    feeds = attention_feeds(rng, b, h, s, d, dtype, mask)
    tgt = _target()
    art = compiler.compile(exported_attention(b, h, s, d, dtype, mask), tgt, CompileOptions())
    (k,) = flash_kernels(art.report)
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch))
    got = ex.run(feeds)[art.plan.outputs[0]]
    np.testing.assert_allclose(got.astype(np.float32), attention_np(feeds, d), rtol=TOL[dtype], atol=TOL[dtype])
    print(f"flash_attention {b}x{h}x{s}x{d} {dtype} {mask}: {_per_run_us(ex, feeds):.1f} us a run with copies "
          f"(kernel predicted {k['predicted_us']} us, {k['registers']} registers)")


def _per_run_us(ex, feeds) -> float:
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(3):
        ex.run(feeds)
    start.record()
    for _ in range(20):
        ex.run(feeds)
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) * 1e3 / 20


# the SIMT kind (fp32): every other host case, BERT-base's attention, and a long fp32 sequence
# whose S x S scores would take 512 MiB apart (forced: the micro-model keeps it apart)
@pytest.mark.parametrize("b,h,s,d,dtype,mask", SIMT_CASES[::2] + [(1, 12, 128, 64, "float32", "padding"),
                                                               (1, 32, 2048, 128, "float32", "causal")])
def test_flash_attention_simt_on_gpu(b, h, s, d, dtype, mask, simt_only):
    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    rng = np.random.default_rng(s * 11 + d)
    feeds = attention_feeds(rng, b, h, s, d, dtype, mask)
    tgt = _target()
    art = compiler.compile(exported_attention(b, h, s, d, dtype, mask), tgt, CompileOptions())
    (k,) = simt_kernels(art.report)
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch))
    got = ex.run(feeds)[art.plan.outputs[0]]
    np.testing.assert_allclose(got.astype(np.float32), attention_np(feeds, d), rtol=TOL[dtype], atol=TOL[dtype])
    print(f"flash_attention_simt {b}x{h}x{s}x{d} {dtype} {mask} {k['config']['tiles']}: "
          f"{_per_run_us(ex, feeds):.1f} us a run with copies "
          f"(kernel predicted {k['predicted_us']} us, {k['registers']} registers, {k['spills']} spill bytes)")


# the decoding kind (keys split across blocks, the last block of a head combining them): every
# other host case, forced, and two decoder steps unforced at sizes a 7B decoder has (32 heads x
# 128 against 2048 and 16384 cached keys), where the micro-model picks it
@pytest.mark.parametrize("b,h,sq,sk,d,dv,dtype,mask,forced", [c + (True,) for c in DECODING_CASES[::2]] + [
    (1, 32, 1, 2048, 128, 128, "float16", "padding", False), (1, 32, 1, 16384, 128, 128, "float32", "none", False)])
def test_flash_decoding_on_gpu(b, h, sq, sk, d, dv, dtype, mask, forced, request):
    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    if forced:
        request.getfixturevalue("decoding_only")
    rng = np.random.default_rng(sk * 7 + d + sq)
    feeds = decoding_feeds(rng, b, h, sq, sk, d, dv, dtype, mask)
    tgt = _target()
    art = compiler.compile(decoding_attention(b, h, sq, sk, d, dv, dtype, mask), tgt, CompileOptions())
    (k,) = decoding_kernels(art.report)
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch))
    got = ex.run(feeds)[art.plan.outputs[0]]
    np.testing.assert_allclose(got.astype(np.float32), decoding_np(feeds, d), rtol=TOL[dtype], atol=TOL[dtype])
    print(f"flash_decoding {b}x{h}x{sq}x{sk}x{d} {dtype} {mask} chunk {k['config']['key_chunk']} x "
          f"{k['config']['key_splits']} splits: {_per_run_us(ex, feeds):.1f} us a run with copies "
          f"(kernel predicted {k['predicted_us']} us, {k['registers']} registers, {k['spills']} spill bytes)")


# grouped-query heads (repeat_kv's Expand/Reshape) in one block: each group forced at a small size,
# and a Llama-3-8B step unforced (32 query heads over 8 key heads, 4096 keys), where the
# micro-model picks a group over one head a block; the time printed beside the prediction
@pytest.mark.parametrize("h,kv,sq,sk,dtype,group", [
    (8, 2, 1, 700, "float32", 4), (8, 4, 3, 300, "float16", 2), (32, 8, 1, 4096, "float16", None)])
def test_grouped_query_decoding_on_gpu(h, kv, sq, sk, dtype, group, monkeypatch):
    import compiler
    from compiler.context import CompileOptions
    from compiler.kinds import flash_decoding as fd
    from compiler.runtime.executor import Executor, make_backend
    from tests.compiler.test_flash_decoding import force_group, gqa_decoding_attention
    from tests.compiler.test_resident import force_fused_kind
    d = 128 if group is None else 64
    if group is not None:
        force_fused_kind(monkeypatch, fd.NAME)
        force_group(monkeypatch, group)
    rng = np.random.default_rng(h * sk + sq)
    feeds = decoding_feeds(rng, 1, kv, sq, sk, d, d, dtype, "padding")
    feeds["q"] = rng.standard_normal((1, h, sq, d)).astype(np.float32).astype(feeds["k"].dtype)
    tgt = _target()
    art = compiler.compile(gqa_decoding_attention(1, h, kv, sq, sk, d, dtype, "padding", "expand"), tgt,
                           CompileOptions())
    (k,) = decoding_kernels(art.report)
    assert k["config"]["head_group"] == group if group is not None else k["config"]["head_group"] > 1
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch))
    got = ex.run(feeds)[art.plan.outputs[0]]
    want = decoding_np({**feeds, "k": np.repeat(feeds["k"], h // kv, 1), "v": np.repeat(feeds["v"], h // kv, 1)}, d)
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    print(f"flash_decoding GQA {h}/{kv} heads x{sq}x{sk}x{d} {dtype} group {k['config']['head_group']} chunk "
          f"{k['config']['key_chunk']} x {k['config']['key_splits']}: {_per_run_us(ex, feeds):.1f} us a run with "
          f"copies (kernel predicted {k['predicted_us']} us, {k['registers']} registers)")


# the ONNX Attention op (opset 23), as tests/compiler/test_resident.py builds it: at 130 x 128 fp16
# the micro-model picks flash_attention; at 40 x 64 fp32 one of the SIMT kinds (the test prints which)
@pytest.mark.parametrize("s,d,causal,dtype", [(130, 128, 1, "float16"), (40, 64, 1, "float32")])
def test_onnx_attention_op_on_gpu(s, d, causal, dtype):
    import compiler
    from onnx import helper
    from compiler.context import CompileOptions
    from compiler.ir.dtypes import DType
    from compiler.ir.graph import Node
    from compiler.ops.registry import lookup
    from compiler.runtime.executor import Executor, make_backend
    from tests.compiler.test_resident import ONNX_TYPE, make_model
    rng = np.random.default_rng(s + d + 1)
    b, h, t = 1, 2, ONNX_TYPE[dtype]
    feeds = {n: rng.standard_normal((b, h, s, d)).astype(np.float32).astype(DType[dtype].np) for n in ("q", "k", "v")}
    feeds["mask"] = np.where(rng.random((s, s)) < 0.2, -np.inf, 0).astype(DType[dtype].np)
    feeds["mask"][:, 0] = 0
    node = helper.make_node("Attention", ["q", "k", "v", "mask"], ["y"], is_causal=causal)
    data = make_model([node], [(n, t, [b, h, s, d]) for n in ("q", "k", "v")] + [("mask", t, [s, s])],
                      [("y", t, [b, h, s, d])], opset=23)
    tgt = _target()
    art = compiler.compile(data, tgt, CompileOptions())
    assert art.report["launches_per_inference"] == 1
    got = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch)).run(feeds)[art.plan.outputs[0]]
    ir_node = Node(op="Attention", name="a", inputs=("q", "k", "v", "mask"), outputs=("y",),
                   attrs=(("is_causal", causal),))
    (want,) = lookup("Attention").reference(ir_node, [feeds[n] for n in ("q", "k", "v", "mask")], 23)
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=TOL[dtype], atol=TOL[dtype])
    (k,) = art.report["kernels"]
    print(f"ONNX Attention {s}x{d} {dtype}: {k['config']['schedule']} (predicted {k['predicted_us']} us)")


# operand prologues (passes/prologue.py): Q rotated in the decoding kernel's load, and a SiLU'd
# Q in the prefill kinds'; one launch, matched against NumPy on the device
@pytest.mark.parametrize("b,h,sq,sk,d,dtype,how", [
    (1, 32, 1, 4096, 128, "float16", "rotary"), (2, 2, 1, 300, 128, "float16", "rotary"),
    (1, 8, 256, 256, 64, "float32", "silu"), (1, 2, 256, 256, 64, "float16", "silu")])
def test_query_prologue_on_gpu(b, h, sq, sk, d, dtype, how):
    import compiler
    from compiler.context import CompileOptions
    from compiler.runtime.executor import Executor, make_backend
    from tests.compiler.test_prologue import feeds_and_want, mapped_attention
    data, cos, sin = mapped_attention(b, h, sq, sk, d, dtype, how)
    feeds, want = feeds_and_want(b, h, sq, sk, d, dtype, how, cos, sin)
    tgt = _target()
    art = compiler.compile(data, tgt, CompileOptions())
    assert [j["joined"] for j in art.report["fusion"]["prologues"]] == [True]
    (k,) = art.report["kernels"]
    ex = Executor(art.plan, make_backend("gpu", cubins=art.cubins, arch=tgt.arch))
    got = ex.run(feeds)[art.plan.outputs[0]]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=TOL[dtype], atol=TOL[dtype])
    print(f"{k['config']['schedule']} with Q {how} {b}x{h}x{sq}x{sk}x{d} {dtype}: {_per_run_us(ex, feeds):.1f} us a run "
          f"with copies (kernel predicted {k['predicted_us']} us)")
