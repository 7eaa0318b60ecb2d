"""Tensor-core GEMM epilogues staged through shared memory (compiler/codegen/staged_epilogue.py).

A contraction whose output rows are contiguous runs of whole 16-byte vectors writes its tile into
shared memory (the fused epilogue applied) and copies it out 16 bytes a thread; any other output
keeps the fragment layout's direct stores. Checked on the host harness, in fixed and shuffled
thread order, for mma.sync (a100) and wgmma (h100) kernels: ragged tiles, batches, a fused
epilogue, fp16 and fp32 outputs, an output pointer that is not 16-byte aligned (the element-wise
fallback), and outputs whose rows are not contiguous (direct stores). With cuobjdump, the SASS of a
staged kernel stores its tile with 128-bit stores where the direct kernel stores every accumulator
on its own."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.analysis.views import gemm_view
from compiler.codegen.nvrtc import build_arch
from compiler.codegen.staged_epilogue import l2_store_bytes, staged
from compiler.kinds import construct_rtiles, render_config
from compiler.runtime.host_harness import build_host_module
from compiler.targets import get_target
from tests.roller.single_op import lower_single, sass_of
from tests.roller.test_tensor_core import TOL_SAME, prepare, run_candidates

STAGED_READ = "by_ld_shared_b128("


def _half(rng, *shapes):
    return [rng.standard_normal(s).astype(np.float32).astype(np.float16) for s in shapes]


def _best(kernel, target, kind, precision=None):
    cfgs = [c for c in construct_rtiles(kernel.expr, get_target(target), 10**6, precision) if c.kind == kind]
    assert cfgs, f"no {kind} candidate on {target}"
    return cfgs


def _render(kernel, cfg, out="y"):
    ins = tuple(p.value for p in kernel.params[:-1])
    return render_config(kernel.expr, cfg, kernel.expr.name, out, ins)


# fp32 models under --precision fp16 (fp32 output, 4-float vectors): (op, shapes, attrs, const inputs)
FP32_CASES = [
    ("MatMul", [(70, 48), (48, 40)], {}, (1,)),               # ragged M and N, N a whole number of vectors
    ("MatMul", [(2, 3, 40, 32), (2, 3, 32, 20)], {}, ()),     # two batch axes
    ("Gemm", [(33, 64), (24, 64), (24,)], {"transB": 1, "alpha": 0.5}, (1, 2)),   # fused bias and scale
]


@pytest.mark.parametrize("target,kind", [("a100", "tc_gemm"), ("h100", "wgmma_gemm")])
@pytest.mark.parametrize("case", range(len(FP32_CASES)))
def test_staged_fp32_outputs_are_right(case, target, kind):
    op, shapes, attrs, consts = FP32_CASES[case]
    rng = np.random.default_rng(case)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    kernel, values, ref = prepare(op, arrays, attrs, "fp16", consts)
    te = kernel.expr
    assert staged(te, gemm_view(te))
    cfgs = [c for c in _best(kernel, target, kind, "fp16") if c.split_k == 1][:2]
    for c in cfgs:
        assert STAGED_READ in _render(kernel, c).source, c.text()
    assert run_candidates(kernel, values, ref, "fp16", cfgs, build=False) <= TOL_SAME["fp16"]


# native fp16 models (fp16 output, 8-half vectors): (op, shapes, attrs, staged)
HALF_CASES = [
    ("MatMul", [(72, 40), (40, 56)], {}, True),
    ("MatMul", [(3, 33, 64), (3, 64, 24)], {}, True),
    ("MatMul", [(40, 32), (32, 44)], {}, False),               # N = 44: not whole vectors, direct stores
    # the output [m, n, b]: the view's n group is (m, b), not the output's innermost axes
    ("Einsum", [(3, 24, 32), (32, 40)], {"equation": "bmk,kn->mnb"}, False),
]


def _run_half(kernel, arrays, cfgs, ref, out_offset_bytes=0):
    """Each configuration's output on the host harness, both thread orders; the output buffer starts
    `out_offset_bytes` past a 16-byte boundary."""
    launches = [_render(kernel, c) for c in cfgs]
    outs = []
    for mode in ("default", "shuffle"):
        module = build_host_module(launches, mode=mode, seed=5)
        for k in launches:
            skip = out_offset_bytes // 2
            buf = np.full(ref.size + 16, np.nan, np.float16)
            start = (-buf.ctypes.data // 2) % 8 + skip        # 16-byte aligned, then the offset
            y = buf[start:start + ref.size].reshape(ref.shape)
            assert y.ctypes.data % 16 == out_offset_bytes
            module.launch(k, arrays + [y])
            assert np.isfinite(y).all(), f"{k.entry} ({mode}) left outputs unwritten"
            outs.append(y.astype(np.float32))
    return outs


@pytest.mark.parametrize("target", ["a100", "h100"])
@pytest.mark.parametrize("case", range(len(HALF_CASES)))
def test_staged_fp16_outputs_are_right_and_only_where_rows_are_contiguous(case, target):
    op, shapes, attrs, expect = HALF_CASES[case]
    rng = np.random.default_rng(10 + case)
    arrays = _half(rng, *shapes)
    kernel, ref = lower_single(op, arrays, attrs)
    te = kernel.expr
    assert staged(te, gemm_view(te)) is expect
    cfgs = _best(kernel, target, "tc_gemm")[:2]
    # wgmma where the copy engine can read the operands (rows of 16-byte multiples)
    cfgs += [c for c in construct_rtiles(te, get_target(target), 10**6) if c.kind == "wgmma_gemm"][:1]
    for c in cfgs:
        assert (STAGED_READ in _render(kernel, c).source) is expect, c.text()
    want = ref.astype(np.float32)
    scale = max(1.0, float(np.abs(want).max()))
    for y in _run_half(kernel, arrays, cfgs, ref):
        np.testing.assert_allclose(y, want, rtol=0, atol=1e-2 * scale)


def test_unaligned_output_is_copied_element_by_element():
    """A graph output is the caller's buffer: 2 bytes past a 16-byte boundary, the staged kernels
    copy their tiles element by element and give the aligned buffer's bits."""
    rng = np.random.default_rng(3)
    arrays = _half(rng, (72, 40), (40, 56))
    kernel, ref = lower_single("MatMul", arrays, {})
    cfgs = _best(kernel, "a100", "tc_gemm")[:1] + _best(kernel, "h100", "wgmma_gemm")[:1]
    aligned = _run_half(kernel, arrays, cfgs, ref)
    shifted = _run_half(kernel, arrays, cfgs, ref, out_offset_bytes=2)
    for a, b in zip(aligned, shifted):
        np.testing.assert_array_equal(a, b)


def test_the_model_charges_scattered_stores():
    """The micro-model's L2 store bytes: the output once when staged; a fragment store's sectors
    (4 per useful 8 bytes of fp16) when not."""
    rng = np.random.default_rng(0)
    for shapes, factor in (([(72, 40), (40, 56)], 1.0), ([(40, 32), (32, 44)], 4.0)):
        kernel, ref = lower_single("MatMul", _half(rng, *shapes), {})
        te = kernel.expr
        assert l2_store_bytes(te, gemm_view(te)) == factor * ref.size * 2


def _store_counts(kernel, arch):
    fn = sass_of(kernel, arch)
    wide = len(fn.having("STG", "128"))
    return wide, len(fn.having("STG")) - wide


@pytest.mark.parametrize("target,kind,module", [("a100", "tc_gemm", "tensor_core"), ("h100", "wgmma_gemm", "wgmma")])
def test_staged_kernels_store_128_bit_vectors(target, kind, module, monkeypatch):
    """In SASS: a staged kernel has 128-bit global stores and fewer narrow ones (its unaligned
    fallback) than the accumulators a thread holds; the same configuration rendered with staging
    off stores every accumulator (or a pair of them) narrowly and has no 128-bit store."""
    import importlib
    rng = np.random.default_rng(1)
    arrays = _half(rng, (512, 256), (256, 1024))
    kernel, _ = lower_single("MatMul", arrays, {})
    cfg = _best(kernel, target, kind)[0]
    counts = []
    for off in (False, True):
        if off:
            monkeypatch.setattr(importlib.import_module(f"compiler.codegen.{module}"), "tile_bytes", lambda *a: 0)
        k = _render(kernel, cfg)
        assert (STAGED_READ in k.source) is not off
        accumulators = cfg.tile("block").size("m") * cfg.tile("block").size("n") // k.block[0]
        arch = build_arch(get_target(target).arch, k.arch_specific)
        counts.append((*_store_counts(k, arch), accumulators))
    (wide, narrow, acc), (wide_off, narrow_off, _) = counts
    assert wide >= 1 and narrow < acc // 2, counts
    assert wide_off == 0 and narrow_off >= acc // 2, counts
