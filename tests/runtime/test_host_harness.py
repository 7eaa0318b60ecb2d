"""The host harness runs the same CUDA sources as NVRTC on the CPU: results, barriers, faults, cache."""
from __future__ import annotations

import dataclasses
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from compiler.codegen.cuda import render_texpr
from compiler.ir.kernel import Kernel, KernelParam
from compiler.errors import CudaCompileError, RuntimeFault
from compiler.ir.dtypes import DType
from compiler.ir.graph import TensorType
from compiler.ir.texpr import (Reduce, TensorExpr, binary, broadcast_index, const, load, out_vars,
                               reduce_vars, select, unary)
from compiler.runtime.host_harness import (HarnessFault, build_host_module, host_build_stats,
                                           run_kernels_asan)

REPO = Path(__file__).resolve().parents[2]
FULL = "0xFFFFFFFFu"


def P(ctype: str, name: str, output: bool = False) -> KernelParam:
    return KernelParam(ctype, name, output)


# ---- hand-written kernels (each also built with NVRTC below) -----------------------------------

# Sum of each row: block-stride loop, warp shuffles, per-warp partials in shared memory. Works for
# any block shape whose thread count is a multiple of 32 (2-D and 3-D blocks included).
ROW_SUM = r"""
BY_DEVICE float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xFFFFFFFFu, v, o);
  return v;
}
BY_KERNEL void row_sum(const float* __restrict__ x, float* __restrict__ out, const int* __restrict__ ncols) {
  BY_SHARED_BUFFER(smem);
  float* partial = reinterpret_cast<float*>(smem);
  const int n = *ncols;
  const int nthreads = blockDim.x * blockDim.y * blockDim.z;
  const int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const float* row = x + (long long)blockIdx.x * n;
  float acc = 0.0f;
  for (int c = t; c < n; c += nthreads) acc += row[c];
  acc = warp_sum(acc);
  if ((t & 31) == 0) partial[t >> 5] = acc;
  __syncthreads();
  if (t < 32) {
    float v = t < nthreads / 32 ? partial[t] : 0.0f;
    v = warp_sum(v);
    if (t == 0) out[blockIdx.x] = v;
  }
}
"""

# Writes, then reads the left neighbour's value: correct only with the barrier in between.
NEIGHBOUR_SYNCED = r"""
BY_KERNEL void neighbour_synced(const float* __restrict__ x, float* __restrict__ out) {
  BY_SHARED_BUFFER(smem);
  float* s = reinterpret_cast<float*>(smem);
  const int t = threadIdx.x;
  s[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = t > 0 ? s[t - 1] : s[t];
}
"""
NEIGHBOUR_RACY = NEIGHBOUR_SYNCED.replace("neighbour_synced", "neighbour_racy").replace(
    "  __syncthreads();\n  out[blockIdx.x * blockDim.x + t] = t > 0 ? s[t - 1] : s[t];\n",
    "  out[blockIdx.x * blockDim.x + t] = t > 0 ? s[t - 1] : s[t];\n  __syncthreads();  // too late\n")

VOTES = r"""
BY_KERNEL void votes(const float* __restrict__ x, unsigned int* __restrict__ ballots,
                     int* __restrict__ anys, int* __restrict__ alls) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = x[i];
  const unsigned b = __ballot_sync(0xFFFFFFFFu, v > 0.0f);
  const int any_big = __any_sync(0xFFFFFFFFu, v > 2.0f);
  const int all_pos = __all_sync(0xFFFFFFFFu, v > -3.0f);
  if ((threadIdx.x & 31) == 0) {
    const int w = i >> 5;
    ballots[w] = b;
    anys[w] = any_big;
    alls[w] = all_pos;
  }
}
"""

SHUFFLES = r"""
BY_KERNEL void shuffles(const float* __restrict__ xf, const int* __restrict__ xi, const double* __restrict__ xd,
                        float* __restrict__ idx8, int* __restrict__ up3, double* __restrict__ down2,
                        float* __restrict__ xor5, long long* __restrict__ bcast) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  idx8[i] = __shfl_sync(0xFFFFFFFFu, xf[i], lane * 3 + 1, 8);
  up3[i] = __shfl_up_sync(0xFFFFFFFFu, xi[i], 3, 16);
  down2[i] = __shfl_down_sync(0xFFFFFFFFu, xd[i], 2, 8);
  xor5[i] = __shfl_xor_sync(0xFFFFFFFFu, xf[i], 5);
  bcast[i] = __shfl_sync(0xFFFFFFFFu, (long long)xi[i] * 1000000007ll, 7);
}
"""

HISTOGRAM = r"""
BY_KERNEL void histogram(const int* __restrict__ x, const float* __restrict__ w, unsigned int* __restrict__ hist,
                         float* __restrict__ total, int* __restrict__ biggest) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&hist[x[i] & 15], 1u);
  atomicAdd(total, w[i]);
  atomicMax(biggest, x[i]);
}
"""

# Phase 1: each block sums its chunk; grid barrier; phase 2: each block scales by the next block's sum.
TWO_PHASE = r"""
BY_KERNEL void two_phase(const float* __restrict__ x, float* __restrict__ partial, float* __restrict__ out) {
  BY_SHARED_BUFFER(smem);
  float* s = reinterpret_cast<float*>(smem);
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  s[t] = x[i];
  __syncthreads();
  if (t == 0) {
    float acc = 0.0f;
    for (int k = 0; k < (int)blockDim.x; ++k) acc += s[k];
    partial[blockIdx.x] = acc;
  }
  by_grid_sync();
  out[i] = x[i] * partial[(blockIdx.x + 1) % gridDim.x];
}
"""

HALF_BF16 = r"""
BY_KERNEL void half_bf16(const float* __restrict__ x, by_half* __restrict__ h, float* __restrict__ h_back,
                         by_bfloat16* __restrict__ b, float* __restrict__ b_back,
                         const unsigned short* __restrict__ all_bits, float* __restrict__ all_half) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const by_half hv = by_half(x[i]);
  h[i] = hv;
  h_back[i] = (float)hv;
  const by_bfloat16 bv = by_bfloat16(x[i]);
  b[i] = bv;
  b_back[i] = (float)bv;
  for (int k = i; k < 65536; k += gridDim.x * blockDim.x) all_half[k] = by_f16_bits_to_f32(all_bits[k]);
}
"""

MISC = r"""
BY_KERNEL void misc_intrinsics(const int* __restrict__ x, int* __restrict__ out, unsigned int* __restrict__ counters,
                               int* __restrict__ extremes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = x[i];
  int* o = out + 8 * i;
  o[0] = __syncthreads_count(v > 0);
  o[1] = __syncthreads_and(v > -900);
  o[2] = __syncthreads_or(v > 900);
  __syncwarp();
  o[3] = __reduce_add_sync(0xFFFFFFFFu, v);
  o[4] = __reduce_max_sync(0xFFFFFFFFu, v);
  o[5] = __popc((unsigned)v) + min(v, 7) + max(v, -7);
  o[6] = (int)__activemask();
  o[7] = 0;
  if ((threadIdx.x & 31) < 10) o[7] = (int)__activemask();  // the other lanes went on to the barrier
  __syncthreads();
  atomicInc(&counters[0], 6u);
  atomicCAS(&counters[1], 0u, (unsigned)i + 1u);
  atomicMin(&extremes[0], v);
  atomicMax(&extremes[1], v);
}
"""

# Threads past `n` leave before the barrier; the others must still get through it.
EARLY_EXIT = r"""
BY_KERNEL void early_exit(const float* __restrict__ x, float* __restrict__ out, const int* __restrict__ n) {
  BY_SHARED_BUFFER(smem);
  float* s = reinterpret_cast<float*>(smem);
  const int t = threadIdx.x;
  if (t >= *n) return;
  s[t] = x[t];
  __syncthreads();
  out[t] = s[*n - 1 - t];
  __syncwarp();
  __syncthreads();
}
"""

DEADLOCK = r"""
BY_KERNEL void deadlock(float* __restrict__ out) {
  if (threadIdx.x < 16) __syncthreads(); else __syncwarp();
  out[threadIdx.x] = 1.0f;
}
"""

TRAP = r"""
BY_KERNEL void trap_once(float* __restrict__ out) {
  if (blockIdx.x == 1 && threadIdx.x == 3) __trap();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}
"""

WILD_WRITE = r"""
BY_KERNEL void wild_write(float* __restrict__ out) {
  float* volatile wild = reinterpret_cast<float*>(16ull);
  wild[threadIdx.x] = out[threadIdx.x];
}
"""

# A big local array: needs more than the default 64 KiB fiber stack.
BIG_FRAME = r"""
BY_KERNEL void big_frame(const float* __restrict__ x, float* __restrict__ out) {
  volatile float buf[30000];
  const int t = threadIdx.x;
  for (int k = 0; k < 30000; ++k) buf[k] = x[t] + (float)k;
  __syncthreads();
  out[t] = buf[29999];
}
"""

# Two kernels with a helper of the same name: each kernel is its own namespace on the host.
HELPER_A = r"""
BY_DEVICE float helper(float v) { return v + 1.0f; }
BY_KERNEL void use_helper_a(const float* __restrict__ x, float* __restrict__ out) {
  out[threadIdx.x] = helper(x[threadIdx.x]);
}
"""
HELPER_B = r"""
BY_DEVICE float helper(float v) { return v * 3.0f; }
BY_KERNEL void use_helper_b(const float* __restrict__ x, float* __restrict__ out) {
  out[threadIdx.x] = helper(x[threadIdx.x]);
}
"""

SHARED_OOB = r"""
BY_KERNEL void shared_oob(const float* __restrict__ x, float* __restrict__ out) {
  BY_SHARED_BUFFER(smem);
  float* s = reinterpret_cast<float*>(smem);
  s[threadIdx.x + 1] = x[threadIdx.x];  // the block's buffer has blockDim.x floats
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""

OOB_WRITE = r"""
BY_KERNEL void oob_write(const float* __restrict__ x, float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i + 3] = x[i];
}
"""

NROWS, NCOLS = 37, 1000


def row_sum_kernel(block) -> Kernel:
    nthreads = int(np.prod(block))
    return Kernel("row_sum", ROW_SUM, (P("float", "x"), P("float", "out", True), P("int", "ncols")),
                  grid=(NROWS, 1, 1), block=block, shared_bytes=4 * (nthreads // 32))


K_SYNCED = Kernel("neighbour_synced", NEIGHBOUR_SYNCED, (P("float", "x"), P("float", "out", True)),
                  grid=(3, 1, 1), block=(128, 1, 1), shared_bytes=128 * 4)
K_RACY = Kernel("neighbour_racy", NEIGHBOUR_RACY, (P("float", "x"), P("float", "out", True)),
                grid=(3, 1, 1), block=(128, 1, 1), shared_bytes=128 * 4)
K_VOTES = Kernel("votes", VOTES, (P("float", "x"), P("unsigned int", "ballots", True), P("int", "anys", True),
                                  P("int", "alls", True)), grid=(3, 1, 1), block=(64, 1, 1))
K_SHUFFLES = Kernel("shuffles", SHUFFLES, (P("float", "xf"), P("int", "xi"), P("double", "xd"),
                                           P("float", "idx8", True), P("int", "up3", True),
                                           P("double", "down2", True), P("float", "xor5", True),
                                           P("long long", "bcast", True)), grid=(2, 1, 1), block=(96, 1, 1))
K_HIST = Kernel("histogram", HISTOGRAM, (P("int", "x"), P("float", "w"), P("unsigned int", "hist", True),
                                         P("float", "total", True), P("int", "biggest", True)),
                grid=(16, 1, 1), block=(128, 1, 1))
K_TWO_PHASE = Kernel("two_phase", TWO_PHASE, (P("float", "x"), P("float", "partial", True), P("float", "out", True)),
                     grid=(8, 1, 1), block=(64, 1, 1), shared_bytes=64 * 4, cooperative=True)
K_HALF = Kernel("half_bf16", HALF_BF16, (P("float", "x"), P("by_half", "h", True), P("float", "h_back", True),
                                         P("by_bfloat16", "b", True), P("float", "b_back", True),
                                         P("unsigned short", "all_bits"), P("float", "all_half", True)),
                grid=(8, 1, 1), block=(128, 1, 1))
K_MISC = Kernel("misc_intrinsics", MISC, (P("int", "x"), P("int", "out", True), P("unsigned int", "counters", True),
                                          P("int", "extremes", True)), grid=(3, 1, 1), block=(64, 1, 1))
K_EARLY = Kernel("early_exit", EARLY_EXIT, (P("float", "x"), P("float", "out", True), P("int", "n")),
                 grid=(1, 1, 1), block=(96, 1, 1), shared_bytes=96 * 4)
K_DEADLOCK = Kernel("deadlock", DEADLOCK, (P("float", "out", True),), grid=(1, 1, 1), block=(64, 1, 1))
K_TRAP = Kernel("trap_once", TRAP, (P("float", "out", True),), grid=(2, 1, 1), block=(32, 1, 1))
K_WILD = Kernel("wild_write", WILD_WRITE, (P("float", "out", True),), grid=(1, 1, 1), block=(32, 1, 1))
K_BIG = Kernel("big_frame", BIG_FRAME, (P("float", "x"), P("float", "out", True)), grid=(1, 1, 1), block=(4, 1, 1))
K_HELPER_A = Kernel("use_helper_a", HELPER_A, (P("float", "x"), P("float", "out", True)), (1, 1, 1), (32, 1, 1))
K_HELPER_B = Kernel("use_helper_b", HELPER_B, (P("float", "x"), P("float", "out", True)), (1, 1, 1), (32, 1, 1))
K_SHARED_OOB = Kernel("shared_oob", SHARED_OOB, (P("float", "x"), P("float", "out", True)), grid=(2, 1, 1),
                      block=(64, 1, 1), shared_bytes=64 * 4)
K_OOB = Kernel("oob_write", OOB_WRITE, (P("float", "x"), P("float", "out", True)), grid=(4, 1, 1), block=(64, 1, 1))

BLOCK_SHAPES = [(256, 1, 1), (32, 8, 1), (16, 4, 4)]


def elementwise_kernel() -> Kernel:
    """out = x * tanh(y) + (x > 0 ? 0.5 : -y), x float16 [33, 70], y float32 [70] broadcast."""
    tx, ty = TensorType(DType.float16, (33, 70)), TensorType(DType.float32, (70,))
    to = TensorType(DType.float32, (33, 70))
    i = out_vars(2)
    xv = load(0, tx, i)
    yv = load(1, ty, broadcast_index(to.shape, ty.shape, i))
    body = binary("add", binary("mul", xv, unary("tanh", yv)),
                  select(binary("gt", xv, const(0.0, DType.float32)), const(0.5, DType.float32), unary("neg", yv)))
    te = TensorExpr("ew", (tx, ty), to, body)
    # Few blocks, so every thread runs several iterations of the grid-stride loop.
    return render_texpr(te, "ew", "out", ("x", "y"), block_threads=128, max_blocks=5)


def reduce_kernel() -> Kernel:
    """out[i] = max over r of x[i, r] * 2, x float32 [19, 45]."""
    tx, to = TensorType(DType.float32, (19, 45)), TensorType(DType.float32, (19,))
    (i0,), (r0,) = out_vars(1), reduce_vars(1)
    te = TensorExpr("rmax", (tx,), to, binary("mul", load(0, tx, (i0, r0)), const(2.0, DType.float32)),
                    reduce=Reduce("max", (("r0", 45),)))
    return render_texpr(te, "rmax", "out", ("x",), block_threads=64)


K_EW = elementwise_kernel()
K_RMAX = reduce_kernel()
ALL_KERNELS = [row_sum_kernel(BLOCK_SHAPES[0]), K_SYNCED, K_RACY, K_VOTES, K_SHUFFLES, K_HIST,
               K_TWO_PHASE, K_HALF, K_MISC, K_EARLY, K_DEADLOCK, K_TRAP, K_WILD, K_BIG, K_HELPER_A, K_HELPER_B,
               K_SHARED_OOB, K_OOB, K_EW, K_RMAX]


@pytest.fixture(scope="module")
def module():
    return build_host_module(ALL_KERNELS)


@pytest.fixture(scope="module")
def asan_module():
    return build_host_module([row_sum_kernel(BLOCK_SHAPES[1]), K_OOB, K_SHARED_OOB, K_TWO_PHASE, K_DEADLOCK],
                             mode="asan")


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---- results -----------------------------------------------------------------------------------

def test_elementwise_texpr_matches_numpy(module):
    g = rng(1)
    x = g.standard_normal((33, 70)).astype(np.float16)
    y = g.standard_normal(70).astype(np.float32)
    out = np.full((33, 70), 7.0, np.float32)
    module.launch(K_EW, [x, y, out])
    xf = x.astype(np.float32)
    want = xf * np.tanh(y) + np.where(xf > 0, np.float32(0.5), -y)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)


def test_reduction_texpr_matches_numpy(module):
    x = rng(2).standard_normal((19, 45)).astype(np.float32)
    out = np.zeros(19, np.float32)
    module.launch(K_RMAX, [x, out])
    np.testing.assert_array_equal(out, (x * 2).max(axis=1))


@pytest.mark.parametrize("mode", ["default", "shuffle"])
@pytest.mark.parametrize("block", BLOCK_SHAPES)
def test_block_reduction_with_shared_memory_and_shuffles(module, mode, block):
    # One built function serves every block shape: the launch shape is a run-time argument.
    m = module if mode == "default" else build_host_module(ALL_KERNELS, mode="shuffle", seed=3)
    k = row_sum_kernel(block)
    x = rng(3).standard_normal((NROWS, NCOLS)).astype(np.float32)
    out = np.zeros(NROWS, np.float32)
    m.launch(k, [x, out, np.array([NCOLS], np.int32)])
    np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-4, atol=1e-3)


def test_warp_votes(module):
    x = (rng(4).standard_normal(192) * 1.5).astype(np.float32)
    x[64:96] = np.abs(x[64:96]) + 0.1  # one warp where every vote is true
    ballots, anys, alls = np.zeros(6, np.uint32), np.zeros(6, np.int32), np.zeros(6, np.int32)
    module.launch(K_VOTES, [x, ballots, anys, alls])
    w = x.reshape(6, 32)
    want_ballots = [sum(1 << l for l in range(32) if w[k, l] > 0) for k in range(6)]
    assert ballots.tolist() == want_ballots
    assert anys.tolist() == [int((w[k] > 2).any()) for k in range(6)]
    assert alls.tolist() == [int((w[k] > -3).all()) for k in range(6)]
    assert ballots[2] == 0xFFFFFFFF


def test_warp_shuffles_with_widths(module):
    g = rng(5)
    n = 192
    xf = g.standard_normal(n).astype(np.float32)
    xi = g.integers(-1000, 1000, n).astype(np.int32)
    xd = g.standard_normal(n)
    outs = [np.zeros(n, np.float32), np.zeros(n, np.int32), np.zeros(n, np.float64), np.zeros(n, np.float32),
            np.zeros(n, np.int64)]
    module.launch(K_SHUFFLES, [xf, xi, xd, *outs])
    lane = np.arange(n) % 32
    base = np.arange(n) - lane
    idx8 = xf[base + (lane & ~7) + ((lane * 3 + 1) & 7)]
    up3 = np.where((lane & 15) < 3, xi, xi[np.maximum(np.arange(n) - 3, 0)])
    down2 = np.where((lane & 7) + 2 >= 8, xd, xd[np.minimum(np.arange(n) + 2, n - 1)])
    xor5 = xf[base + (lane ^ 5)]
    bcast = xi[base + 7].astype(np.int64) * 1000000007
    np.testing.assert_array_equal(outs[0], idx8)
    np.testing.assert_array_equal(outs[1], up3)
    np.testing.assert_array_equal(outs[2], down2)
    np.testing.assert_array_equal(outs[3], xor5)
    np.testing.assert_array_equal(outs[4], bcast)


def test_atomics_across_blocks(module):
    g = rng(6)
    x = g.integers(0, 10**6, 16 * 128).astype(np.int32)
    w = g.random(16 * 128).astype(np.float32)
    hist, total, biggest = np.zeros(16, np.uint32), np.zeros(1, np.float32), np.zeros(1, np.int32)
    module.launch(K_HIST, [x, w, hist, total, biggest])
    np.testing.assert_array_equal(hist, np.bincount(x & 15, minlength=16))
    np.testing.assert_allclose(total[0], w.sum(dtype=np.float64), rtol=1e-5)
    assert biggest[0] == x.max()


@pytest.mark.parametrize("mode", ["default", "shuffle"])
def test_cooperative_grid_sync(module, mode):
    m = module if mode == "default" else build_host_module(ALL_KERNELS, mode="shuffle", seed=11)
    x = rng(7).standard_normal(8 * 64).astype(np.float32)
    partial, out = np.zeros(8, np.float32), np.zeros(8 * 64, np.float32)
    m.launch(K_TWO_PHASE, [x, partial, out])
    sums = x.reshape(8, 64).sum(axis=1)
    np.testing.assert_allclose(partial, sums, rtol=1e-5, atol=1e-5)
    want = x.reshape(8, 64) * np.roll(sums, -1)[:, None]
    np.testing.assert_allclose(out, want.reshape(-1), rtol=1e-5, atol=1e-5)


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return int(f.read().split("VmRSS:")[1].split()[0]) / 1024


def test_a_cooperative_launch_gives_its_fiber_stacks_back(module):
    """64 blocks x 1024 threads alive at once: 65536 fiber stacks, whose touched pages the module
    kept until the process ended (a test run of random control-flow models grew past 24 GB and
    was killed); now a pool past one block's threads is released after the launch."""
    wide = dataclasses.replace(K_TWO_PHASE, grid=(64, 1, 1), block=(1024, 1, 1), shared_bytes=1024 * 4)
    x = rng(8).standard_normal(64 * 1024).astype(np.float32)
    partial, out = np.zeros(64, np.float32), np.zeros(64 * 1024, np.float32)
    before = _rss_mb()
    module.launch(wide, [x, partial, out])
    assert _rss_mb() - before < 64
    np.testing.assert_allclose(partial, x.reshape(64, 1024).sum(axis=1), rtol=1e-4, atol=1e-3)


def test_grid_sync_needs_a_cooperative_launch(module):
    x = rng(8).standard_normal(8 * 64).astype(np.float32)
    with pytest.raises(HarnessFault, match="not launched cooperatively"):
        module.launch(dataclasses.replace(K_TWO_PHASE, cooperative=False),
                      [x, np.zeros(8, np.float32), np.zeros(8 * 64, np.float32)])


def test_half_and_bfloat16_conversions_match_numpy(module):
    g = rng(9)
    n = 8 * 128
    x = np.concatenate([
        g.standard_normal(400) * np.exp2(g.integers(-30, 30, 400)),       # wide exponent range
        g.uniform(-6.2e-5, 6.2e-5, 200),                                   # half subnormals
        g.uniform(-1, 1, 100) * 1e-39,                                     # float32 subnormals
        g.uniform(65000, 66000, 100) * g.choice([-1, 1], 100),            # around half's overflow
        [np.inf, -np.inf, np.nan, 0.0, -0.0, 65504.0, 65519.99, 65520.0, 2.0**-24, 2.0**-25, 3 * 2.0**-26],
    ]).astype(np.float32)
    x = np.concatenate([x, g.standard_normal(n - x.size).astype(np.float32)])
    h, b = np.zeros(n, np.float16), np.zeros(n, ml_dtypes.bfloat16)
    h_back, b_back = np.zeros(n, np.float32), np.zeros(n, np.float32)
    all_bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    all_half = np.zeros(65536, np.float32)
    module.launch(K_HALF, [x, h, h_back, b, b_back, all_bits, all_half])

    def same_bits(got, want, view):
        nan = np.isnan(want.astype(np.float32))
        assert np.array_equal(np.isnan(got.astype(np.float32)), nan)
        np.testing.assert_array_equal(got.view(view)[~nan], want.view(view)[~nan])

    with np.errstate(over="ignore"):  # the overflow to inf is what is being checked
        h_want = x.astype(np.float16)
    same_bits(h, h_want, np.uint16)
    same_bits(h_back, h_want.astype(np.float32), np.uint32)
    same_bits(b, x.astype(ml_dtypes.bfloat16), np.uint16)
    same_bits(b_back, x.astype(ml_dtypes.bfloat16).astype(np.float32), np.uint32)
    same_bits(all_half, all_bits.view(np.float16).astype(np.float32), np.uint32)


def test_block_and_warp_intrinsics_and_atomics(module):
    x = rng(21).integers(-1000, 1000, 192).astype(np.int32)
    out, counters = np.zeros((192, 8), np.int32), np.zeros(2, np.uint32)
    extremes = np.array([2**31 - 1, -2**31], np.int32)
    module.launch(K_MISC, [x, out, counters, extremes])
    blocks, warps = x.reshape(3, 64), x.reshape(6, 32)
    np.testing.assert_array_equal(out[:, 0], np.repeat((blocks > 0).sum(1), 64))
    np.testing.assert_array_equal(out[:, 1], np.repeat((blocks > -900).all(1), 64))
    np.testing.assert_array_equal(out[:, 2], np.repeat((blocks > 900).any(1), 64))
    np.testing.assert_array_equal(out[:, 3], np.repeat(warps.sum(1), 32))
    np.testing.assert_array_equal(out[:, 4], np.repeat(warps.max(1), 32))
    popc = np.array([bin(int(v) & 0xFFFFFFFF).count("1") for v in x])
    np.testing.assert_array_equal(out[:, 5], popc + np.minimum(x, 7) + np.maximum(x, -7))
    assert (out[:, 6] == -1).all()
    np.testing.assert_array_equal(out[:, 7], np.where(np.arange(192) % 32 < 10, 0x3FF, 0))
    assert counters[0] == 192 % 7 and 1 <= counters[1] <= 192
    assert extremes.tolist() == [x.min(), x.max()]


def test_exited_threads_do_not_block_later_barriers(module):
    x = rng(10).standard_normal(96).astype(np.float32)
    out = np.full(96, -5.0, np.float32)
    module.launch(K_EARLY, [x, out, np.array([50], np.int32)])
    np.testing.assert_array_equal(out[:50], x[:50][::-1])
    assert (out[50:] == -5.0).all()


def test_kernels_keep_their_own_helpers(module):
    x = rng(12).standard_normal(32).astype(np.float32)
    a, b = np.zeros(32, np.float32), np.zeros(32, np.float32)
    module.launch(K_HELPER_A, [x, a])
    module.launch(K_HELPER_B, [x, b])
    np.testing.assert_array_equal(a, x + 1)
    np.testing.assert_array_equal(b, x * 3)


# ---- shuffle mode ------------------------------------------------------------------------------

def test_shuffle_mode_exposes_a_missing_syncthreads(module):
    x = rng(13).standard_normal(3 * 128).astype(np.float32)
    rows = x.reshape(3, 128)
    want = np.concatenate([rows[:, :1], rows[:, :-1]], axis=1).reshape(-1)

    def run(kernel, m):
        out = np.zeros_like(x)
        m.launch(kernel, [x, out])
        return np.array_equal(out, want)

    # In the fixed order every left neighbour has written before it is read: the bug hides.
    assert run(K_RACY, module)
    assert run(K_SYNCED, module)
    seeds = range(6)
    shuffled = [build_host_module(ALL_KERNELS, mode="shuffle", seed=s) for s in seeds]
    assert all(run(K_SYNCED, m) for m in shuffled)
    assert not all(run(K_RACY, m) for m in shuffled)


# ---- faults ------------------------------------------------------------------------------------

def test_deadlock_is_reported(module):
    with pytest.raises(HarnessFault, match="deadlock") as e:
        module.launch(K_DEADLOCK, [np.zeros(64, np.float32)])
    assert "16 wait at __syncthreads" in str(e.value)


def test_trap_is_reported_with_its_thread(module):
    with pytest.raises(HarnessFault, match=r"block \(1,0,0\) thread \(3,0,0\): __trap"):
        module.launch(K_TRAP, [np.zeros(64, np.float32)])


def test_wild_write_becomes_a_fault_and_the_module_still_works(module):
    with pytest.raises(HarnessFault, match="SIGSEGV"):
        module.launch(K_WILD, [np.ones(32, np.float32)])
    x = rng(14).standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    module.launch(K_HELPER_A, [x, out])
    np.testing.assert_array_equal(out, x + 1)


def test_fiber_stack_overflow_is_caught_and_a_larger_stack_works():
    x = rng(15).standard_normal(4).astype(np.float32)
    out = np.zeros(4, np.float32)
    with pytest.raises(HarnessFault, match="stack"):
        build_host_module(ALL_KERNELS).launch(K_BIG, [x, out])
    build_host_module(ALL_KERNELS, stack_bytes=512 * 1024).launch(K_BIG, [x, out])
    np.testing.assert_array_equal(out, x + np.float32(29999))


def test_harness_fault_pickles():
    e = pickle.loads(pickle.dumps(HarnessFault("kernel k: deadlock", report="full text")))
    assert isinstance(e, HarnessFault) and isinstance(e, RuntimeFault)
    assert e.message == "kernel k: deadlock" and e.report == "full text"


def test_launch_checks_shape_and_arguments(module):
    x, out = np.zeros(32, np.float32), np.zeros(32, np.float32)
    with pytest.raises(RuntimeFault, match="block"):
        module.launch(dataclasses.replace(K_HELPER_A, block=(1025, 1, 1)), [x, out])
    with pytest.raises(RuntimeFault, match="takes 2 arguments"):
        module.launch(K_HELPER_A, [x])
    with pytest.raises(RuntimeFault, match="dtype"):
        module.launch(K_HELPER_A, [x.astype(np.float64), out])
    with pytest.raises(RuntimeFault, match="contiguous"):
        module.launch(K_HELPER_A, [np.zeros(64, np.float32)[::2], out])
    with pytest.raises(RuntimeFault, match="not in this host module"):
        module.launch(dataclasses.replace(K_HELPER_A, entry="absent"), [x, out])


# ---- AddressSanitizer ----------------------------------------------------------------------------

def test_asan_passes_a_correct_kernel_and_writes_outputs_back(asan_module):
    k = row_sum_kernel(BLOCK_SHAPES[1])
    x = rng(16).standard_normal((NROWS, NCOLS)).astype(np.float32)
    out = np.zeros(NROWS, np.float32)
    asan_module.launch(k, [x, out, np.array([NCOLS], np.int32)])
    np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-4, atol=1e-3)
    xc = rng(17).standard_normal(8 * 64).astype(np.float32)
    partial, y = np.zeros(8, np.float32), np.zeros(8 * 64, np.float32)
    asan_module.launch(K_TWO_PHASE, [xc, partial, y])
    np.testing.assert_allclose(partial, xc.reshape(8, 64).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_asan_reports_an_out_of_bounds_global_write(asan_module):
    x = rng(18).standard_normal(256).astype(np.float32)
    with pytest.raises(HarnessFault, match=r"heap-buffer-overflow.*WRITE.*buffer out@oob_write.*oob_write\.cu:4") as e:
        asan_module.launch(K_OOB, [x, np.zeros(256, np.float32)])
    assert "ERROR: AddressSanitizer" in e.value.report


def test_asan_reports_an_out_of_bounds_shared_memory_write(asan_module):
    x = rng(19).standard_normal(128).astype(np.float32)
    with pytest.raises(HarnessFault, match=r"heap-buffer-overflow.*256-byte shared memory"):
        asan_module.launch(K_SHARED_OOB, [x, np.zeros(128, np.float32)])


def test_asan_reports_a_deadlock(asan_module):
    with pytest.raises(HarnessFault, match="deadlock"):
        asan_module.launch(K_DEADLOCK, [np.zeros(64, np.float32)])


def test_run_kernels_asan_chains_launches_through_shared_buffers():
    k = row_sum_kernel(BLOCK_SHAPES[1])
    g = rng(20)
    x = g.standard_normal((NROWS, NCOLS)).astype(np.float32)
    sums, rows = np.zeros(NROWS, np.float32), np.zeros(NROWS, np.float32)
    # The second launch reads the first one's output: the driver must keep it as one buffer.
    k2 = dataclasses.replace(k, grid=(1, 1, 1))
    run_kernels_asan([(k, [x, sums, np.array([NCOLS], np.int32)]),
                      (k2, [sums, rows[:1], np.array([NROWS], np.int32)])])
    np.testing.assert_allclose(rows[0], x.sum(dtype=np.float64), rtol=1e-4, atol=1e-2)


# ---- build -------------------------------------------------------------------------------------

def test_nvrtc_accepts_the_same_sources():
    from compiler.codegen.nvrtc import build_cubin
    for k in {k.entry: k for k in ALL_KERNELS}.values():
        res = build_cubin(k.source, k.entry, "sm_80")
        assert res.cubin, k.entry


_CACHE_PROBE = """
import json, sys
sys.path.insert(0, {repo!r})
import numpy as np
from compiler.ir.kernel import Kernel, KernelParam
from compiler.runtime.host_harness import build_host_module, host_build_stats
k = Kernel("probe_scale", {src!r}, (KernelParam("float", "x", False), KernelParam("float", "y", True)),
           (2, 1, 1), (32, 1, 1))
m = build_host_module([k])
x = np.arange(64, dtype=np.float32)
y = np.zeros(64, np.float32)
m.launch(k, [x, y])
print(json.dumps({{"stats": host_build_stats(), "ok": bool((y == 3 * x).all())}}))
"""


def test_build_cache_second_process_does_not_compile(tmp_path):
    src = "BY_KERNEL void probe_scale(const float* x, float* y) { int i = blockIdx.x * blockDim.x + threadIdx.x; y[i] = 3.0f * x[i]; }\n"
    script = _CACHE_PROBE.format(repo=str(REPO), src=src)
    env = dict(os.environ, BRICKYARD_CACHE_DIR=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True,
                                      text=True).stdout) for _ in range(2)]
    assert runs[0]["ok"] and runs[1]["ok"]
    assert runs[0]["stats"]["gxx_runs"] == 1
    assert runs[1]["stats"]["gxx_runs"] == 0 and runs[1]["stats"]["disk_hits"] == 1
    assert len(list((tmp_path / "host").glob("*.so"))) == 1
    assert not list((tmp_path / "host").glob(".*.tmp"))


def test_in_process_rebuild_is_a_memory_hit(module):
    before = host_build_stats()
    again = build_host_module(list(reversed(ALL_KERNELS)))  # order and duplicates do not matter
    after = host_build_stats()
    assert again.path == module.path
    assert after["gxx_runs"] == before["gxx_runs"] and after["memory_hits"] == before["memory_hits"] + 1


def test_compile_error_carries_log_and_repro(tmp_path, monkeypatch):
    monkeypatch.setenv("BRICKYARD_CACHE_DIR", str(tmp_path))
    bad = Kernel("bad_kernel", "BY_KERNEL void bad_kernel(float* y) { y[0] = undefined_name; }\n",
                 (P("float", "y", True),), (1, 1, 1), (1, 1, 1))
    with pytest.raises(CudaCompileError) as e:
        build_host_module([bad])
    err = e.value
    assert "bad_kernel" in err.message and "undefined_name" in err.log
    assert err.repro.startswith("g++") and "prelude" not in err.repro and "bad_kernel" in err.source
    assert pickle.loads(pickle.dumps(err)).log == err.log
