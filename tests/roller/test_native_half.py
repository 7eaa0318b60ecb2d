"""Contractions (MatMul, Gemm) of the model's own fp16/bf16 tensors (no --precision needed) get
tensor-core kernels:
mma.sync everywhere, wgmma on sm_90 where the model prefers it; each computes the op on the host
harness, like the naive kernel, and builds with NVRTC."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from compiler.codegen.nvrtc import build_arch, build_cubin
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.kinds import render_config
from compiler.kinds import construct_rtiles
from compiler.runtime.host_harness import build_host_module
from compiler.targets import get_target
from tests.roller.single_op import lower_single, lower_types

HALF = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}  # ml_dtypes: a dependency of onnx


def _arrays(rng, dtype, *shapes):
    return [rng.standard_normal(s).astype(np.float32).astype(HALF[dtype]) for s in shapes]


CASES = [  # (op, shapes, attrs, wgmma too on sm_90): ragged sizes, a batch, a transposed Gemm with bias
    ("MatMul", [(72, 40), (40, 56)], {}, True),
    ("MatMul", [(3, 33, 64), (3, 64, 24)], {}, True),
    ("Gemm", [(48, 80), (40, 80), (40,)], {"transB": 1, "alpha": 0.5}, True),
    # implicit-GEMM Conv: the activation operand is a guarded gather (zero padding) of the half
    # input, which wgmma's TMA cannot read; the weight's (c, kh, kw) is one contiguous k
    ("Conv", [(2, 8, 9, 9), (12, 8, 3, 3)], {"pads": [1, 1, 1, 1], "strides": [2, 1]}, False),
    # a pointwise Conv at batch 1: both operands are plain strided loads ((h, w) one row axis)
    ("Conv", [(1, 32, 6, 8), (24, 32, 1, 1)], {}, True),
]


@pytest.mark.parametrize("dtype", sorted(HALF))
@pytest.mark.parametrize("target", ["a100", "h100"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_native_half_contractions_use_tensor_cores_and_compute_the_op(case, target, dtype):
    op, shapes, attrs, wgmma = CASES[case]
    rng = np.random.default_rng(case)
    arrays = _arrays(rng, dtype, *shapes)
    kernel, ref = lower_single(op, arrays, attrs)
    cfgs = construct_rtiles(kernel.expr, get_target(target), 10**6)
    tensor = [c for c in cfgs if c.kind in ("tc_gemm", "wgmma_gemm")]
    assert tensor, [c.kind for c in cfgs]
    picked = []  # the best mma.sync and, on sm_90, the best wgmma configuration
    for kind in ("tc_gemm", "wgmma_gemm"):
        best = next((c for c in tensor if c.kind == kind), None)
        if best is not None:
            picked.append(best)
    if target == "h100" and wgmma:
        assert {c.kind for c in picked} == {"tc_gemm", "wgmma_gemm"}
    if op == "Conv":   # the weight [F, C, kh, kw] is a plain F x (C kh kw) matrix: cp.async, not a gather
        assert picked[0].param("load_a") == "async", picked[0].params
    ins = tuple(p.value for p in kernel.params[:-1])
    # a split-K configuration is one launch too: its partial sums in a workspace before the output
    split = {c.key: int(c.param("ws_elems", 0) or 0) if c.split_k > 1 else 0 for c in picked}
    launches = [render_config(kernel.expr, c, kernel.expr.name, "y", ins, **({"workspace": "ws"} if split[c.key] else {}))
                for c in picked]
    ws_elems = {k.entry: split[c.key] for k, c in zip(launches, picked)}
    assert launches
    for k in launches:
        r = build_cubin(k.source, k.entry, build_arch(get_target(target).arch, k.arch_specific))
        assert r.spills == 0
    module = build_host_module(launches, mode="shuffle", seed=5)
    want = ref.astype(np.float64)
    for k in launches:
        out = np.full(ref.shape, np.nan, dtype=ref.dtype)
        ws = [np.full(ws_elems[k.entry], np.nan, np.float32)] if ws_elems[k.entry] else []
        module.launch(k, [np.ascontiguousarray(a) for a in arrays] + ws + [out])
        err = np.abs(out.astype(np.float64) - want).max() / np.abs(want).max()
        # fp32 accumulation; the output is rounded to the half type once
        assert err < (1e-2 if dtype == "bfloat16" else 2e-3), (k.entry, dict(k.config).get("tiles"), err)


def test_large_native_fp16_matmul_picks_wgmma_on_h100_and_mma_sync_on_a100():
    half = lambda *shape: TensorType(DType.float16, shape)
    te = lower_types("MatMul", [half(4096, 1024), half(1024, 2048)], half(4096, 2048), {}).expr
    assert construct_rtiles(te, get_target("h100"), 1)[0].kind == "wgmma_gemm"
    assert construct_rtiles(te, get_target("a100"), 1)[0].kind == "tc_gemm"
