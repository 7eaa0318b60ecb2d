"""Property tests: every candidate Roller constructs builds with NVRTC within the target's limits
and computes the op's result on the host harness (fixed and shuffled thread order)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.roller.single_op import candidate_kernels, check_builds, lower_single, run_on_host

FAST = settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
SLOW = settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _f(rng, shape):
    return rng.standard_normal(shape).astype(np.float32)


@st.composite
def matmuls(draw):
    m, n, k = (draw(st.integers(1, 40)) for _ in range(3))
    batch = draw(st.sampled_from([(), (2,), (3,), (2, 2)]))
    b_batched = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = _f(rng, batch + (m, k))
    b = _f(rng, (batch if b_batched else ()) + (k, n))
    return "MatMul", [a, b], {}, {}


@st.composite
def gemms(draw):
    m, n, k = (draw(st.integers(1, 33)) for _ in range(3))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    a = _f(rng, (k, m) if ta else (m, k))
    b = _f(rng, (n, k) if tb else (k, n))
    c = _f(rng, draw(st.sampled_from([(n,), (m, n), (1, n)])))
    return "Gemm", [a, b, c], {"transA": int(ta), "transB": int(tb), "alpha": 0.5, "beta": 2.0}, {}


@st.composite
def convs(draw):
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 5))
    h, w = draw(st.integers(3, 9)), draw(st.integers(3, 9))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    depthwise = draw(st.booleans())
    m = c if depthwise else draw(st.integers(1, 6))
    group = c if depthwise else 1
    stride, pad = draw(st.integers(1, 2)), draw(st.integers(0, 1))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = _f(rng, (n, c, h, w))
    wt = _f(rng, (m, c // group, kh, kw))
    arrays = [x, wt] + ([_f(rng, (m,))] if draw(st.booleans()) else [])
    return "Conv", arrays, {"strides": [stride, stride], "pads": [pad] * 4, "group": group}, {}


@st.composite
def reductions(draw):
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 37)) for _ in range(rank))
    axes = sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1)))
    op = draw(st.sampled_from(["ReduceSum", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceProd"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = _f(rng, shape)
    if op == "ReduceProd":
        x = (1.0 + 0.05 * x).astype(np.float32)
    ax = np.array(axes, np.int64)
    return op, [x, ax], {"keepdims": draw(st.integers(0, 1))}, {1: ax}


@st.composite
def elementwise(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.integers(1, 19)) for _ in range(rank))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    if draw(st.booleans()):
        perm = draw(st.permutations(range(rank)))
        return "Transpose", [_f(rng, shape)], {"perm": list(perm)}, {}
    bshape = tuple(d if draw(st.booleans()) else 1 for d in shape[draw(st.integers(0, rank - 1)):])
    return "Add", [_f(rng, shape), _f(rng, bshape)], {}, {}


def _check(case, expect_kind=None, tol=1e-4):
    op, arrays, attrs, consts = case
    kernel, ref = lower_single(op, arrays, attrs, consts)
    kind, cands = candidate_kernels(kernel)
    if expect_kind is not None:
        assert kind in expect_kind, f"{op} became {kind}"
    kernels = [k for _, k in cands]
    check_builds(kernels)
    inputs = [a for i, a in enumerate(arrays) if i not in consts]
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    run_on_host(kernels, inputs, ref, rtol=tol, atol=tol * scale)
    return kind


@FAST
@given(matmuls())
def test_matmul_candidates(case):
    assert _check(case, expect_kind=("gemm", "reduce")) in ("gemm", "reduce")


@FAST
@given(gemms())
def test_gemm_candidates(case):
    _check(case, expect_kind=("gemm", "reduce"))


@FAST
@given(convs())
def test_conv_candidates(case):
    _check(case, expect_kind=("gemm", "reduce"))


@FAST
@given(reductions())
def test_reduce_candidates(case):
    _check(case, expect_kind=("reduce",), tol=1e-4)


@FAST
@given(elementwise())
def test_elementwise_candidates(case):
    _check(case, expect_kind=("elementwise", "elementwise_vec", "transpose"))


@pytest.mark.slow
@SLOW
@given(st.one_of(matmuls(), gemms(), convs(), reductions(), elementwise()))
def test_all_candidates_many_shapes(case):
    _check(case)


def test_matmul_is_a_gemm_with_aligned_tiles():
    """A plain MatMul is seen as a GEMM; its tiles are warp multiples and transaction-wide along N."""
    rng = np.random.default_rng(3)
    kernel, _ = lower_single("MatMul", [_f(rng, (70, 50)), _f(rng, (50, 90))], {})
    kind, cands = candidate_kernels(kernel, k=8)
    assert kind == "gemm"
    for cfg, k in cands:
        blk, thr = cfg.tile("block"), cfg.tile("thread")
        threads = (blk.size("m") // thr.size("m")) * (blk.size("n") // thr.size("n"))
        assert threads % 32 == 0 and k.block == (threads, 1, 1)
        assert blk.size("n") * 4 >= 32


def test_batched_matmul_batch_axes():
    """Batched MatMul: the head axis both operands read becomes the batch, M and N stay separate."""
    from compiler.analysis.views import gemm_view
    rng = np.random.default_rng(4)
    kernel, _ = lower_single("MatMul", [_f(rng, (1, 2, 8, 16)), _f(rng, (1, 2, 16, 8))], {})
    v = gemm_view(kernel.expr)
    assert [a for a, _ in v.batch] == ["i1"] and [a for a, _ in v.m] == ["i2"] and [a for a, _ in v.n] == ["i3"]
    assert v.unit == ("i0",) and v.a_k_fastest and not v.b_k_fastest


def test_conv_is_an_implicit_gemm():
    """Conv: output channels on one side, (batch, rows, cols) on the other, (C, kh, kw) as K."""
    from compiler.analysis.views import gemm_view
    rng = np.random.default_rng(5)
    kernel, _ = lower_single("Conv", [_f(rng, (2, 3, 8, 8)), _f(rng, (4, 3, 3, 3))], {"pads": [1, 1, 1, 1]})
    v = gemm_view(kernel.expr)
    assert [a for a, _ in v.m] == ["i1"] and [a for a, _ in v.n] == ["i0", "i2", "i3"]
    assert v.K == 27 and not v.batch
