"""The preludes' Hopper features (mbarriers, the bulk tensor copy engine, warpgroup mma): the
same kernel sources build with NVRTC for sm_90a and run on the host harness, checked against NumPy.

Descriptor bits are checked against an encoding written here from the PTX ISA's table
("Asynchronous Warpgroup Level Matrix Shared Memory Layout: Matrix Descriptor"); wgmma against
NumPy on tiles the test kernel stores itself in the 128-byte swizzled K-major / MN-major
layouts and reads back through the accumulator fragment formula of the ISA ("wgmma .m64nNk16
register fragment of D"); TMA boxes against a NumPy zero-padded slice put through the 128-byte
swizzle. The harness's strictness (faults and NaNs for misuse) is checked kernel by kernel."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from compiler.ir.kernel import Kernel, KernelParam, TensorMapDecl
from compiler.codegen.naming import finish_source
from compiler.codegen.nvrtc import build_arch, build_cubin
from compiler.runtime.host_harness import HarnessFault, build_host_module

HALF = {"f16": (np.float16, "by_half"), "bf16": (ml_dtypes.bfloat16, "by_bfloat16")}


def P(ctype: str, name: str, output: bool = False) -> KernelParam:
    return KernelParam(ctype, name, output)


def make(prefix, text, params, grid, block, shared_bytes=0, maps=()) -> Kernel:
    entry, src = finish_source(prefix, text)
    return Kernel(entry, src, tuple(params), grid=grid, block=block, shared_bytes=shared_bytes,
                  tensor_maps=tuple(maps), arch_specific=True)


def swizzle128(off: np.ndarray) -> np.ndarray:
    """TMA SWIZZLE_128B / wgmma 128-byte swizzle of shared byte addresses: bits 4-6 ^= bits 7-9."""
    return off ^ (((off >> 7) & 7) << 4)


# ---- descriptors --------------------------------------------------------------------------------

DESC = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned int* __restrict__ in, unsigned long long* __restrict__ out) {
  __syncthreads();
  const int i = threadIdx.x;
  out[i] = by_wgmma_desc(in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]);
}
"""
K_DESC = make("wgdesc", DESC, (P("unsigned int", "in"), P("unsigned long long", "out", True)), (1, 1, 1), (64, 1, 1))


def isa_descriptor(addr: int, lbo: int, sbo: int, mode: int) -> int:
    """PTX ISA matrix descriptor: 14-bit fields (value >> 4) at bits 0, 16, 32; swizzle mode at 62."""
    enc = lambda v: ((v & 0x3FFFF) >> 4) & 0x3FFF
    return enc(addr) | (enc(lbo) << 16) | (enc(sbo) << 32) | ((mode & 3) << 62)


# ---- wgmma --------------------------------------------------------------------------------------

# One warpgroup: D (64 x N) = A (64 x 64, K-major) * B (64 x N) + C as four k16 wgmmas in one group.
# A and B are stored by ordinary shared stores (by_st_shared, which the harness tracks) in the 128-byte swizzled layout (B K-major: N rows
# of 64 k; MN-major: N/64 slabs of 64 k-rows of 64 n), then fence.proxy.async and a barrier.
WGMMA = r"""
BY_KERNEL void BY_KERNEL_NAME(const ELEM* __restrict__ A, const ELEM* __restrict__ B, const float* __restrict__ C,
                              float* __restrict__ D, const int* __restrict__ flags) {
  BY_SHARED_BUFFER(smem);
  unsigned char* const base = smem + ((1024u - (by_smem_addr(smem) & 1023u)) & 1023u);
  unsigned char* const As = base;
  unsigned char* const Bs = base + 8192;
  const int tid = threadIdx.x;
  for (int e = tid; e < 64 * 64; e += 128) {  // A[m][k]: row m of 128 bytes
    const int m = e / 64, k = e % 64;
    by_st_shared(reinterpret_cast<ELEM*>(As + by_swizzle_128b(m, 2 * k)), A[e]);
  }
  for (int e = tid; e < 64 * NN; e += 128) {  // B[k][n]
    const int k = e / NN, n = e % NN;
    if (TB == 0) by_st_shared(reinterpret_cast<ELEM*>(Bs + by_swizzle_128b(n, 2 * k)), B[e]);
    else by_st_shared(reinterpret_cast<ELEM*>(Bs + (n / 64) * 8192 + by_swizzle_128b(k, 2 * (n % 64))), B[e]);
  }
  const int w = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  float acc[NN / 2];
  for (int i = 0; i < NN / 2; ++i) {  // D fragment: row 16w + g + 8 ((i/2)%2), col 8 (i/4) + 2t + i%2
    const int row = 16 * w + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * t + (i & 1);
    acc[i] = C[row * NN + col];
  }
  by_fence_proxy_async();
  __syncthreads();
  by_wgmma_fence();
  for (int j = 0; j < 4; ++j) {
    const unsigned long long da = by_wgmma_desc(by_smem_addr(As) + 32 * j, 16, 1024, BY_WGMMA_SWIZZLE_128B);
    const unsigned long long db = TB == 0 ? by_wgmma_desc(by_smem_addr(Bs) + 32 * j, 16, 1024, BY_WGMMA_SWIZZLE_128B)
                                          : by_wgmma_desc(by_smem_addr(Bs) + 2048 * j, 8192, 1024, BY_WGMMA_SWIZZLE_128B);
    by_wgmma_m64nNNk16_KIND<0, TB>(acc, da, db, j > 0 || flags[0]);
  }
  by_wgmma_commit();
  if (flags[1]) D[tid] = acc[0];  // misuse on purpose: reads an accumulator before the wait
  by_wgmma_wait<0>();
  for (int i = 0; i < NN / 2; ++i) {
    const int row = 16 * w + g + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * t + (i & 1);
    if (!flags[1]) D[row * NN + col] = acc[i];
  }
}
"""
WGMMA_CASES = [(n, kind, tb) for n in (64, 128, 256) for kind in ("f16", "bf16") for tb in (0, 1)]


def wgmma_kernel(n: int, kind: str, tb: int, text: str = WGMMA, block: int = 128) -> Kernel:
    elem = HALF[kind][1]
    src = (text.replace("ELEM", elem).replace("NN", str(n)).replace("KIND", kind).replace("TB", str(tb)))
    return make(f"wgmma_{n}_{kind}_{tb}", src, (P(elem, "A"), P(elem, "B"), P("float", "C"), P("float", "D", True),
                                                  P("int", "flags")),
                (1, 1, 1), (block, 1, 1), shared_bytes=1024 + 8192 + 128 * n)


K_WGMMA = {c: wgmma_kernel(*c) for c in WGMMA_CASES}
# misuse: no fence before the first wgmma; a block of 96 threads; a start address off the atom
K_NOFENCE = wgmma_kernel(64, "f16", 0, WGMMA.replace("  by_wgmma_fence();\n", ""))
K_PARTIAL_WG = wgmma_kernel(64, "f16", 0, WGMMA.replace("e += 128", "e += 96"), block=96)
K_BAD_DESC = wgmma_kernel(64, "f16", 0, WGMMA.replace("by_smem_addr(As) + 32 * j", "by_smem_addr(As) + 128 + 32 * j"))
# the async-proxy check: no fence.proxy.async in the writers; A's tile stored by plain C++ stores;
# the last warp's writers fence only after the barrier (misplaced: caught when a reader issues first)
K_NOPROXY = wgmma_kernel(64, "f16", 0, WGMMA.replace("  by_fence_proxy_async();\n", ""))
K_PLAIN_STORE = wgmma_kernel(64, "f16", 0, WGMMA.replace(
    "by_st_shared(reinterpret_cast<ELEM*>(As + by_swizzle_128b(m, 2 * k)), A[e]);",
    "*reinterpret_cast<ELEM*>(As + by_swizzle_128b(m, 2 * k)) = A[e];"))
K_LATE_PROXY = wgmma_kernel(64, "f16", 0, WGMMA.replace(
    "  by_fence_proxy_async();\n  __syncthreads();\n",
    "  if (tid < 96) by_fence_proxy_async();\n  __syncthreads();\n  if (tid >= 96) by_fence_proxy_async();\n"))


# ---- TMA + mbarrier -----------------------------------------------------------------------------

# Thread 0 copies one 64 x ROWS box at (c0, c1) into 1024-aligned shared memory; every thread waits
# on the mbarrier, then the raw shared bytes are written out. EXPECT: bytes announced.
TMA = r"""
BY_KERNEL void BY_KERNEL_NAME(const by_half* __restrict__ X, const int* __restrict__ coords,
                              unsigned short* __restrict__ out, const __grid_constant__ by_tensor_map tm) {
  BY_SHARED_BUFFER(smem);
  unsigned char* const base = smem + ((1024u - (by_smem_addr(smem) & 1023u)) & 1023u);
  unsigned long long* const bar = reinterpret_cast<unsigned long long*>(base + 64 * ROWS * 2);
  if (threadIdx.x == 0) by_mbar_init(bar, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    by_mbar_arrive_expect_tx(bar, EXPECT);
    by_tma_load_2d(base, &tm, coords[0], coords[1], bar);
  }
  by_mbar_wait(bar, 0);
  const unsigned short* s = reinterpret_cast<const unsigned short*>(base);
  for (int i = threadIdx.x; i < 64 * ROWS; i += blockDim.x) out[i] = s[i];
  (void)X;
}
"""
TMA_H, TMA_W, TMA_ROWS = 40, 72, 32


def tma_kernel(expect: int | None = None, text: str = TMA) -> Kernel:
    expect = 64 * TMA_ROWS * 2 if expect is None else expect
    src = text.replace("ROWS", str(TMA_ROWS)).replace("EXPECT", str(expect))
    m = TensorMapDecl(0, "float16", (TMA_W, TMA_H), (TMA_W * 2,), (64, TMA_ROWS), 128)
    return make("tma", src, (P("by_half", "X"), P("int", "coords"), P("unsigned short", "out", True)),
                (1, 1, 1), (64, 1, 1), shared_bytes=1024 + 64 * TMA_ROWS * 2 + 16, maps=(m,))


K_TMA = tma_kernel()
K_TMA_SHORT = tma_kernel(expect=64 * TMA_ROWS * 2 - 128)      # announces fewer bytes than the copy brings
K_TMA_LONG = tma_kernel(expect=64 * TMA_ROWS * 2 + 128)       # more: the phase never completes
K_TMA_NOINIT = tma_kernel(text=TMA.replace("by_mbar_init(bar, 1)", "(void)0"))

ALL = [K_DESC, *K_WGMMA.values(), K_NOFENCE, K_PARTIAL_WG, K_BAD_DESC, K_NOPROXY, K_PLAIN_STORE, K_LATE_PROXY, K_TMA, K_TMA_SHORT, K_TMA_LONG, K_TMA_NOINIT]


@pytest.fixture(scope="module")
def module():
    return build_host_module(ALL)


def _wgmma_inputs(n: int, kind: str, seed: int):
    g = np.random.default_rng(seed)
    dt = HALF[kind][0]
    a = g.standard_normal((64, 64)).astype(dt)
    b = g.standard_normal((64, n)).astype(dt)
    c = g.standard_normal((64, n)).astype(np.float32)
    return a, b, c


def test_descriptor_bits_follow_the_isa(module):
    g = np.random.default_rng(1)
    vals = np.stack([g.integers(0, 1 << 18, 64), g.integers(0, 1 << 18, 64), g.integers(0, 1 << 18, 64),
                     g.integers(0, 4, 64)], 1).astype(np.uint32)
    out = np.zeros(64, np.uint64)
    module.launch(K_DESC, [vals.reshape(-1).copy(), out])
    want = [isa_descriptor(*map(int, v)) for v in vals]
    assert [int(x) for x in out] == want
    # a hand-checked value: address 0x400, LBO 8192, SBO 1024, 128-byte swizzle
    assert isa_descriptor(0x400, 8192, 1024, 1) == 0x4000_0040_0200_0040


@pytest.mark.parametrize("n,kind,tb", WGMMA_CASES)
def test_wgmma_tile_against_numpy(module, n, kind, tb):
    a, b, c = _wgmma_inputs(n, kind, 10 + n + tb)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    for scale_d in (1, 0):
        d = np.full((64, n), np.nan, np.float32)
        module.launch(K_WGMMA[n, kind, tb], [a, b, c, d, np.array([scale_d, 0], np.int32)])
        ref = want if scale_d else want - c
        np.testing.assert_allclose(d, ref, rtol=1e-5, atol=1e-4)


def test_wgmma_accumulators_are_nan_before_the_wait(module):
    a, b, c = _wgmma_inputs(64, "f16", 3)
    d = np.zeros((64, 64), np.float32)
    module.launch(K_WGMMA[64, "f16", 0], [a, b, c, d, np.array([1, 1], np.int32)])
    assert np.isnan(d.reshape(-1)[:128]).all()


@pytest.mark.parametrize("kernel,match", [
    ("nofence", "without by_wgmma_fence"),
    ("partial", "not whole warpgroups"),
    ("baddesc", "not within the first 128 bytes of a 1024-byte swizzle atom"),
    ("noproxy", "with no by_fence_proxy_async by that thread"),
    ("plain", "neither the copy engine nor a by_st_shared store")])
def test_wgmma_misuse_faults(module, kernel, match):
    k = {"nofence": K_NOFENCE, "partial": K_PARTIAL_WG, "baddesc": K_BAD_DESC, "noproxy": K_NOPROXY,
         "plain": K_PLAIN_STORE}[kernel]
    a, b, c = _wgmma_inputs(64, "f16", 4)
    with pytest.raises(HarnessFault, match=match):
        module.launch(k, [a, b, c, np.zeros((64, 64), np.float32), np.array([1, 0], np.int32)])


def test_a_fence_after_the_barrier_faults(module):
    """Writers (warp 3) that fence only after the barrier: their fence is not ordered before the
    barrier the readers passed, whichever order the threads run in."""
    a, b, c = _wgmma_inputs(64, "f16", 5)
    with pytest.raises(HarnessFault, match="whose by_fence_proxy_async came after its last __syncthreads"):
        module.launch(K_LATE_PROXY, [a, b, c, np.zeros((64, 64), np.float32), np.array([1, 0], np.int32)])


@pytest.mark.parametrize("c0,c1", [(0, 0), (8, 16), (-8, -4), (24, 20)])
def test_tma_box_is_a_swizzled_zero_padded_slice(module, c0, c1):
    g = np.random.default_rng(abs(c0 * 100 + c1) + 7)
    x = g.standard_normal((TMA_H, TMA_W)).astype(np.float16)
    x[x == 0] = 1.0
    out = np.full(64 * TMA_ROWS, 0xFFFF, np.uint16)  # a NaN pattern: the copy must write the padding's zeros
    module.launch(K_TMA, [x, np.array([c0, c1], np.int32), out])
    box = np.zeros((TMA_ROWS, 64), np.float16)
    for r in range(TMA_ROWS):
        for col in range(64):
            y, xx = c1 + r, c0 + col
            if 0 <= y < TMA_H and 0 <= xx < TMA_W:
                box[r, col] = x[y, xx]
    logical = np.arange(64 * TMA_ROWS) * 2
    want = np.zeros(64 * TMA_ROWS, np.uint16)
    want[swizzle128(logical) // 2] = box.reshape(-1).view(np.uint16)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("kernel,match", [
    ("short", "more transaction bytes arrived"),
    ("long", "by_mbar_wait"),
    ("noinit", "was not initialised")])
def test_mbarrier_misuse_faults(module, kernel, match):
    k = {"short": K_TMA_SHORT, "long": K_TMA_LONG, "noinit": K_TMA_NOINIT}[kernel]
    x = np.ones((TMA_H, TMA_W), np.float16)
    with pytest.raises(HarnessFault, match=match):
        module.launch(k, [x, np.array([0, 0], np.int32), np.zeros(64 * TMA_ROWS, np.uint16)])


def test_every_kernel_builds_for_sm90a():
    """wgmma needs sm_90a (NVRTC rejects it for sm_90); TMA and mbarriers are plain sm_90."""
    assert build_arch("sm_90", True) == "sm_90a" and build_arch("sm_90", False) == "sm_90"
    for k in [K_DESC, K_TMA, *K_WGMMA.values()]:
        r = build_cubin(k.source, k.entry, build_arch("sm_90", k.arch_specific))
        assert r.spills == 0 and 0 < r.registers <= 255, (k.entry, r.registers, r.spills)
