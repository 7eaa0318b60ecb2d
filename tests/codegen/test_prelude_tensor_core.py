"""The preludes' contraction features (vector memory, cp.async, ldmatrix, mma.sync, swizzles):
the same kernel sources build with NVRTC (sm_75 fallbacks, sm_80, sm_90) and run on the host
harness with the PTX ISA's fragment layouts, checked against NumPy.

The fragment layouts are checked three independent ways: ldmatrix against the PTX rule written in
NumPy below, mma against fragments that a kernel loads itself with the PTX tables' row/column
formulas, and whole GEMMs (ldmatrix + mma) against NumPy matmul."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from compiler.ir.kernel import Kernel, KernelParam
from compiler.codegen.naming import finish_source
from compiler.runtime.host_harness import HarnessFault, build_host_module

ARCHS = ("sm_75", "sm_80", "sm_90")


def P(ctype: str, name: str, output: bool = False) -> KernelParam:
    return KernelParam(ctype, name, output)


def make(prefix: str, text: str, params, grid, block, shared_bytes: int = 0) -> Kernel:
    entry, src = finish_source(prefix, text)
    return Kernel(entry, src, tuple(params), grid=grid, block=block, shared_bytes=shared_bytes)


def aligned(a: np.ndarray, align: int = 64) -> np.ndarray:
    """A C-contiguous copy of `a` whose data starts on an `align`-byte boundary."""
    raw = np.zeros(a.nbytes + align, np.uint8)
    off = (-raw.ctypes.data) % align
    out = raw[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def tf32_round(x: np.ndarray) -> np.ndarray:
    """cvt.rna.tf32.f32 in NumPy: add half an ulp of tf32 to finite values' bits, drop 13 bits."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).copy()
    finite = (u & 0x7FFFFFFF) < 0x7F800000
    u[finite] += np.uint32(0x1000)
    return (u & np.uint32(0xFFFFE000)).view(np.float32)


# ---- kernels ------------------------------------------------------------------------------------

VECTOR = r"""
BY_KERNEL void BY_KERNEL_NAME(const float* __restrict__ x, const int* __restrict__ xi, const by_half* __restrict__ h,
                              float* __restrict__ y, int* __restrict__ yi, by_half* __restrict__ hy,
                              float* __restrict__ y2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = by_ld_global_v4(x + 4 * i);
  v.x = v.x * 2.0f + 1.0f; v.y = v.y - 3.0f; v.z = -v.z; v.w = v.w * v.w;
  by_st_global_v4(y + 4 * i, v);
  int4 w = by_ld_global_v4(xi + 4 * i);
  w.x += 1; w.y -= 2; w.z *= 3; w.w ^= 5;
  by_st_global_v4(yi + 4 * i, w);
  const uint4 q = by_ld_global_b128(h + 8 * i);
  by_st_global_b128(hy + 8 * i, make_uint4(q.w, q.z, q.y, q.x));
  const float2 p = by_ld_global_v2(x + 2 * i);
  by_st_global_v2(y2 + 2 * i, make_float2(p.y, p.x));
}
"""
K_VECTOR = make("vec", VECTOR, (P("float", "x"), P("int", "xi"), P("by_half", "h"), P("float", "y", True),
                                P("int", "yi", True), P("by_half", "hy", True), P("float", "y2", True)),
                grid=(3, 1, 1), block=(64, 1, 1))

MISALIGNED = r"""
BY_KERNEL void BY_KERNEL_NAME(const float* __restrict__ x, float* __restrict__ y) {
  by_st_global_v4(y + 4 * threadIdx.x, by_ld_global_v4(x + 4 * threadIdx.x + 1));
}
"""
K_MISALIGNED = make("vec_misaligned", MISALIGNED, (P("float", "x"), P("float", "y", True)), (1, 1, 1), (32, 1, 1))

# Every ldmatrix variant; lane l names row perm[l] of a [32][8] 16-bit table in shared memory.
LDMATRIX = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned short* __restrict__ src, const int* __restrict__ perm,
                              unsigned int* __restrict__ out) {
  BY_SHARED_BUFFER(smem);
  unsigned short* s = reinterpret_cast<unsigned short*>(smem);
  const int lane = threadIdx.x;
  src += 256 * blockIdx.x;
  perm += 32 * blockIdx.x;
  out += 32 * 16 * blockIdx.x + 16 * lane;
  for (int i = lane; i < 256; i += 32) s[i] = src[i];
  __syncthreads();
  const unsigned short* row = s + 8 * perm[lane];
  unsigned int r[4];
  by_ldmatrix_x1(r, row); out[0] = r[0];
  by_ldmatrix_x2(r, row); out[1] = r[0]; out[2] = r[1];
  by_ldmatrix_x4(r, row); out[3] = r[0]; out[4] = r[1]; out[5] = r[2]; out[6] = r[3];
  by_ldmatrix_x1_trans(r, row); out[7] = r[0];
  by_ldmatrix_x2_trans(r, row); out[8] = r[0]; out[9] = r[1];
  by_ldmatrix_x4_trans(r, row); out[10] = r[0]; out[11] = r[1]; out[12] = r[2]; out[13] = r[3];
}
"""
K_LDMATRIX = make("ldm", LDMATRIX, (P("unsigned short", "src"), P("int", "perm"), P("unsigned int", "out", True)),
                  grid=(2, 1, 1), block=(32, 1, 1), shared_bytes=512)

# mma with fragments loaded straight from global memory by the PTX ISA's row/column formulas
# (written here, independently of the host emulation). One 16x8 problem per warp.
MMA_FRAG_16 = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
                              const float* __restrict__ C, float* __restrict__ D) {
  __syncwarp();
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  A += 256 * w; B += 128 * w; C += 128 * w; D += 128 * w;
  unsigned int a[4], b[2];
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) {
    unsigned int v = 0;
    for (int h = 0; h < 2; ++h) {
      const int e = 2 * i + h;  // element a_e: row groupID for e in {0,1,4,5}, else groupID+8
      const int row = (e < 2 || (e >= 4 && e < 6)) ? g : g + 8;
      const int col = 2 * t + (e & 1) + (e >= 4 ? 8 : 0);
      v |= (unsigned int)A[row * 16 + col] << (16 * h);
    }
    a[i] = v;
  }
  for (int i = 0; i < 2; ++i) {
    unsigned int v = 0;
    for (int h = 0; h < 2; ++h) {
      const int e = 2 * i + h;  // element b_e: row 2*threadID_in_group + (e&1) (+8 for e >= 2), col groupID
      const int row = 2 * t + (e & 1) + (e >= 2 ? 8 : 0);
      v |= (unsigned int)B[row * 8 + g] << (16 * h);
    }
    b[i] = v;
  }
  for (int e = 0; e < 4; ++e) c[e] = C[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)];
  MMA(d, a, b, c);
  for (int e = 0; e < 4; ++e) D[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)] = d[e];
}
"""

MMA_FRAG_TF32 = r"""
BY_KERNEL void BY_KERNEL_NAME(const float* __restrict__ A, const float* __restrict__ B,
                              const float* __restrict__ C, float* __restrict__ D) {
  __syncwarp();
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  A += 128 * w; B += 64 * w; C += 128 * w; D += 128 * w;
  unsigned int a[4], b[2];
  float c[4], d[4];
  for (int e = 0; e < 4; ++e) {  // a_e: row groupID for a0, a2, else +8; col threadID_in_group (+4 for a2, a3)
    const int row = (e == 0 || e == 2) ? g : g + 8;
    const int col = e < 2 ? t : t + 4;
    a[e] = by_float_to_tf32(A[row * 8 + col]);
  }
  for (int e = 0; e < 2; ++e) b[e] = by_float_to_tf32(B[(e == 0 ? t : t + 4) * 8 + g]);  // b_e: row t (+4), col g
  for (int e = 0; e < 4; ++e) c[e] = C[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)];
  by_mma_m16n8k8_tf32_f32(d, a, b, c);
  for (int e = 0; e < 4; ++e) D[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)] = d[e];
}
"""
NWARPS_FRAG = 4
K_FRAG = {
    "f16": make("mma_frag_f16", MMA_FRAG_16.replace("MMA(", "by_mma_m16n8k16_f16_f32("),
                (P("unsigned short", "A"), P("unsigned short", "B"), P("float", "C"), P("float", "D", True)),
                grid=(NWARPS_FRAG, 1, 1), block=(32, 1, 1)),
    "bf16": make("mma_frag_bf16", MMA_FRAG_16.replace("MMA(", "by_mma_m16n8k16_bf16_f32("),
                 (P("unsigned short", "A"), P("unsigned short", "B"), P("float", "C"), P("float", "D", True)),
                 grid=(NWARPS_FRAG, 1, 1), block=(32, 1, 1)),
    # two warps per block here: the warp index comes from the block and the thread
    "tf32": make("mma_frag_tf32", MMA_FRAG_TF32,
                 (P("float", "A"), P("float", "B"), P("float", "C"), P("float", "D", True)),
                 grid=(NWARPS_FRAG // 2, 1, 1), block=(64, 1, 1)),
}

# One 16x8x16 mma from shared tiles filled by cp.async and read by ldmatrix (A: x4, B: x2.trans).
MMA_SHARED = r"""
BY_KERNEL void BY_KERNEL_NAME(const by_half* __restrict__ A, const by_half* __restrict__ B, float* __restrict__ D) {
  BY_SHARED_BUFFER(smem);
  by_half* As = reinterpret_cast<by_half*>(smem);  // [16][16]
  by_half* Bs = As + 256;                            // [16 k][8 n]
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  by_cp_async_16(As + 8 * lane, A + 8 * lane);
  if (lane < 16) by_cp_async_16(Bs + 8 * lane, B + 8 * lane);
  by_cp_async_commit();
  by_cp_async_wait_all();
  __syncthreads();
  unsigned int a[4], b[2];
  by_ldmatrix_x4(a, As + 16 * ((lane & 7) + 8 * ((lane >> 3) & 1)) + 8 * (lane >> 4));
  by_ldmatrix_x2_trans(b, Bs + 8 * (lane & 15));
  const float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float d[4];
  by_mma_m16n8k16_f16_f32(d, a, b, c);
  D[g * 8 + 2 * t] = d[0];
  D[g * 8 + 2 * t + 1] = d[1];
  D[(g + 8) * 8 + 2 * t] = d[2];
  D[(g + 8) * 8 + 2 * t + 1] = d[3];
}
"""
K_MMA_SHARED = make("mma_shared", MMA_SHARED, (P("by_half", "A"), P("by_half", "B"), P("float", "D", True)),
                    grid=(1, 1, 1), block=(32, 1, 1), shared_bytes=768)

# Tiled GEMM C[M,N] = A[M,K] * B (B as [K,N] "kn" or [N,K] "nk"), f32 accumulation. Block tile
# 32x32, 4 warps of 16x16 (two m16n8 tiles each); every shared tile is 32 rows of 64 bytes with
# the 64-byte swizzle; two stages filled by cp.async (zero-fill past the edges) while the other
# is multiplied.
GEMM = r"""
BY_KERNEL void BY_KERNEL_NAME(const ELEM* __restrict__ A, const ELEM* __restrict__ B, float* __restrict__ C,
                              const int* __restrict__ dims) {
  BY_SHARED_BUFFER(smem);
  constexpr int EB = (int)sizeof(ELEM);  // element bytes
  constexpr int BK = 64 / EB;            // k per stage
  constexpr int CH = 16 / EB;            // elements per 16-byte chunk
  constexpr int KSTEP = MMA_K;
  constexpr int STAGE = 32 * 64;
  constexpr bool B_KN = B_IS_KN;
  const int M = dims[0], N = dims[1], K = dims[2];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 1, wn = warp & 1, g = lane >> 2, t = lane & 3;
  const int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  unsigned char* As = smem;
  unsigned char* Bs = smem + 2 * STAGE;
  auto load = [&](int stage, int kt) {
    const int row = tid >> 2, chunk = tid & 3;
    const int k0 = kt * BK;
    {
      const int m = m0 + row, k = k0 + chunk * CH;
      const bool ok = m < M && k < K;
      by_cp_async_16_zfill(As + stage * STAGE + by_swizzle_64b(row, 16 * chunk), ok ? A + (long long)m * K + k : A,
                           ok ? 16 : 0);
    }
    if (B_KN) {  // tile row = k, 32 n per row
      const int k = k0 + row, n = n0 + chunk * CH;
      const bool ok = k < K && n < N;
      by_cp_async_16_zfill(Bs + stage * STAGE + by_swizzle_64b(row, 16 * chunk), ok ? B + (long long)k * N + n : B,
                           ok ? 16 : 0);
    } else {     // tile row = n, BK k per row
      const int n = n0 + row, k = k0 + chunk * CH;
      const bool ok = n < N && k < K;
      by_cp_async_16_zfill(Bs + stage * STAGE + by_swizzle_64b(row, 16 * chunk), ok ? B + (long long)n * K + k : B,
                           ok ? 16 : 0);
    }
  };
  float acc[2][4];
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  const int nk = (K + BK - 1) / BK;
  load(0, 0);
  by_cp_async_commit();
  for (int kt = 0; kt < nk; ++kt) {
    if (kt + 1 < nk) load((kt + 1) & 1, kt + 1);
    by_cp_async_commit();
    by_cp_async_wait<1>();
    __syncthreads();
    const unsigned char* as = As + (kt & 1) * STAGE;
    const unsigned char* bs = Bs + (kt & 1) * STAGE;
    for (int ks = 0; ks < BK / KSTEP; ++ks) {
      unsigned int a[4], b[4];
      const int j = lane >> 3;
      by_ldmatrix_x4(a, as + by_swizzle_64b(wm * 16 + (lane & 7) + 8 * (j & 1), 16 * (2 * ks + (j >> 1))));
      if (B_KN)
        by_ldmatrix_x4_trans(b, bs + by_swizzle_64b(ks * KSTEP + 8 * (j & 1) + (lane & 7), 16 * (2 * wn + (j >> 1))));
      else
        by_ldmatrix_x4(b, bs + by_swizzle_64b(wn * 16 + 8 * (j >> 1) + (lane & 7), 16 * (2 * ks + (j & 1))));
      if (TF32) {
        for (int i = 0; i < 4; ++i) a[i] = by_float_to_tf32(by_u2f(a[i]));
        for (int i = 0; i < 4; ++i) b[i] = by_float_to_tf32(by_u2f(b[i]));
      }
      MMA(acc[0], a, b, acc[0]);
      MMA(acc[1], a, b + 2, acc[1]);
    }
    __syncthreads();
  }
  for (int nt = 0; nt < 2; ++nt) {
    const int row = m0 + wm * 16 + g, col = n0 + wn * 16 + nt * 8 + 2 * t;
    for (int e = 0; e < 4; ++e) {
      const int r = row + (e < 2 ? 0 : 8), c = col + (e & 1);
      if (r < M && c < N) C[(long long)r * N + c] = acc[nt][e];
    }
  }
}
"""

GEMM_TYPES = {  # name: (C element type, mma, k per mma, tf32 rounding)
    "f16": ("by_half", "by_mma_m16n8k16_f16_f32", 16, False),
    "bf16": ("by_bfloat16", "by_mma_m16n8k16_bf16_f32", 16, False),
    "tf32": ("float", "by_mma_m16n8k8_tf32_f32", 8, True),
}


def gemm_kernel(dtype: str, b_layout: str, m: int, n: int) -> Kernel:
    elem, mma, kstep, tf32 = GEMM_TYPES[dtype]
    text = (GEMM.replace("ELEM", elem).replace("MMA_K", str(kstep)).replace("MMA(", mma + "(")
            .replace("B_IS_KN", "true" if b_layout == "kn" else "false").replace("TF32", "true" if tf32 else "false"))
    return make(f"gemm_{dtype}_{b_layout}", text, (P(elem, "A"), P(elem, "B"), P("float", "C", True), P("int", "dims")),
                grid=((n + 31) // 32, (m + 31) // 32, 1), block=(128, 1, 1), shared_bytes=4 * 32 * 64)


GEMM_CASES = [("f16", "kn", 64, 64, 64), ("f16", "nk", 64, 64, 64), ("bf16", "kn", 64, 64, 64),
              ("bf16", "nk", 64, 64, 64), ("tf32", "nk", 64, 64, 64),
              # edges: rows, columns and the last k stage zero-filled
              ("f16", "kn", 40, 24, 48), ("tf32", "nk", 50, 40, 36)]
K_GEMM = {(d, lay, m, n, k): gemm_kernel(d, lay, m, n) for d, lay, m, n, k in GEMM_CASES}

SWIZZLE = r"""
BY_KERNEL void BY_KERNEL_NAME(int* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // 0..1023: (row, col_bytes) of a 1024-byte tile
  out[4 * i + 0] = by_swizzle_128b(i >> 7, i & 127);
  out[4 * i + 1] = by_swizzle_64b(i >> 6, i & 63);
  out[4 * i + 2] = by_swizzle_32b(i >> 5, i & 31);
  out[4 * i + 3] = by_swizzle_bits(i, 2, 3, 5);
}
"""
K_SWIZZLE = make("swizzle", SWIZZLE, (P("int", "out", True),), (8, 1, 1), (128, 1, 1))

CONVERT = r"""
BY_KERNEL void BY_KERNEL_NAME(const float* __restrict__ x, unsigned int* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[3 * i + 0] = by_pack_half2(x[2 * i], x[2 * i + 1]);
  out[3 * i + 1] = by_pack_bf162(x[2 * i], x[2 * i + 1]);
  out[3 * i + 2] = by_float_to_tf32(x[2 * i]);
}
"""
K_CONVERT = make("convert", CONVERT, (P("float", "x"), P("unsigned int", "out", True)), (4, 1, 1), (64, 1, 1))

# Warp-wide instructions with a partial warp, and ldmatrix from global memory: harness faults.
PARTIAL_WARP = r"""
BY_KERNEL void BY_KERNEL_NAME(float* __restrict__ out) {
  __syncthreads();
  const unsigned int a[4] = {0u, 0u, 0u, 0u}, b[2] = {0u, 0u};
  const float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  float d[4];
  by_mma_m16n8k16_f16_f32(d, a, b, c);
  out[threadIdx.x] = d[0];
}
"""
K_PARTIAL = make("partial_warp", PARTIAL_WARP, (P("float", "out", True),), (1, 1, 1), (48, 1, 1))
LDM_GLOBAL = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned short* __restrict__ x, unsigned int* __restrict__ out) {
  __syncthreads();
  unsigned int r[1];
  by_ldmatrix_x1(r, x + 8 * (threadIdx.x & 7));
  out[threadIdx.x] = r[0];
}
"""
K_LDM_GLOBAL = make("ldm_global", LDM_GLOBAL, (P("unsigned short", "x"), P("unsigned int", "out", True)),
                    (1, 1, 1), (32, 1, 1), shared_bytes=256)

ALL = [K_VECTOR, K_MISALIGNED, K_LDMATRIX, *K_FRAG.values(), K_MMA_SHARED, *K_GEMM.values(), K_SWIZZLE,
       K_CONVERT, K_PARTIAL, K_LDM_GLOBAL]


@pytest.fixture(scope="module")
def module():
    return build_host_module(ALL)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


# ---- vector memory ------------------------------------------------------------------------------

def test_vector_loads_and_stores(module):
    g = rng(1)
    n = 3 * 64
    x = aligned(g.standard_normal(4 * n).astype(np.float32))
    xi = aligned(g.integers(-1000, 1000, 4 * n).astype(np.int32))
    h = aligned(g.standard_normal(8 * n).astype(np.float16))
    y, yi, hy, y2 = (aligned(np.zeros(4 * n, np.float32)), aligned(np.zeros(4 * n, np.int32)),
                     aligned(np.zeros(8 * n, np.float16)), aligned(np.zeros(2 * n, np.float32)))
    module.launch(K_VECTOR, [x, xi, h, y, yi, hy, y2])
    v = x.reshape(-1, 4)
    np.testing.assert_array_equal(y.reshape(-1, 4), np.stack([v[:, 0] * 2 + 1, v[:, 1] - 3, -v[:, 2],
                                                              v[:, 3] * v[:, 3]], 1))
    w = xi.reshape(-1, 4)
    np.testing.assert_array_equal(yi.reshape(-1, 4), np.stack([w[:, 0] + 1, w[:, 1] - 2, w[:, 2] * 3, w[:, 3] ^ 5], 1))
    # the four 32-bit words of each 16 bytes reversed
    np.testing.assert_array_equal(hy.view(np.uint32).reshape(-1, 4), h.view(np.uint32).reshape(-1, 4)[:, ::-1])
    np.testing.assert_array_equal(y2.reshape(-1, 2), x[:2 * n].reshape(-1, 2)[:, ::-1])


def test_misaligned_vector_load_faults(module):
    x = aligned(np.arange(256, dtype=np.float32))
    y = aligned(np.zeros(128, np.float32))
    with pytest.raises(HarnessFault, match="not 16-byte aligned"):
        module.launch(K_MISALIGNED, [x, y])


# ---- ldmatrix -----------------------------------------------------------------------------------

def _ptx_fragment(mat: np.ndarray) -> np.ndarray:
    """PTX ldmatrix: lane l holds row l/4, columns 2(l%4) and 2(l%4)+1 of an 8x8 b16 matrix."""
    lanes = np.arange(32)
    lo = mat[lanes // 4, 2 * (lanes % 4)].astype(np.uint32)
    hi = mat[lanes // 4, 2 * (lanes % 4) + 1].astype(np.uint32)
    return lo | (hi << 16)


def test_ldmatrix_all_variants_follow_the_isa_layout(module):
    g = rng(2)
    src = g.integers(0, 65536, (2, 32, 8)).astype(np.uint16)
    perm = np.stack([g.permutation(32) for _ in range(2)]).astype(np.int32)
    out = np.zeros((2, 32, 16), np.uint32)
    module.launch(K_LDMATRIX, [src, perm, out])
    for blk in range(2):
        # matrix j is made of the rows that lanes 8j..8j+7 name, in lane order
        mats = [src[blk][perm[blk][8 * j:8 * j + 8]] for j in range(4)]
        want = {0: [0], 1: [0, 1], 3: [0, 1, 2, 3]}
        cols = iter(range(14))
        for trans in (False, True):
            for first in (0, 1, 3):
                for j in want[first]:
                    m = mats[j].T if trans else mats[j]
                    np.testing.assert_array_equal(out[blk, :, next(cols)], _ptx_fragment(m),
                                                  err_msg=f"x{len(want[first])} trans={trans} matrix {j}")


def test_ldmatrix_outside_shared_memory_faults(module):
    x = aligned(np.zeros(64, np.uint16))
    out = np.zeros(32, np.uint32)
    with pytest.raises(HarnessFault, match="not in the block's shared memory"):
        module.launch(K_LDM_GLOBAL, [x, out])


# ---- mma.sync -----------------------------------------------------------------------------------

def _inputs_16(g, dtype):
    npt = np.float16 if dtype == "f16" else ml_dtypes.bfloat16
    a = g.standard_normal((NWARPS_FRAG, 16, 16)).astype(npt)
    b = g.standard_normal((NWARPS_FRAG, 16, 8)).astype(npt)
    return a, b


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_mma_m16n8k16_with_isa_table_fragments(module, dtype):
    g = rng(3)
    a, b = _inputs_16(g, dtype)
    c = g.standard_normal((NWARPS_FRAG, 16, 8)).astype(np.float32)
    d = np.zeros_like(c)
    module.launch(K_FRAG[dtype], [a.view(np.uint16), b.view(np.uint16), c, d])
    ref = a.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(d, ref, rtol=1e-6, atol=1e-6)


def test_mma_m16n8k8_tf32_with_isa_table_fragments(module):
    g = rng(4)
    a = g.standard_normal((NWARPS_FRAG, 16, 8)).astype(np.float32)
    b = g.standard_normal((NWARPS_FRAG, 8, 8)).astype(np.float32)
    c = g.standard_normal((NWARPS_FRAG, 16, 8)).astype(np.float32)
    d = np.zeros_like(c)
    module.launch(K_FRAG["tf32"], [a, b, c, d])
    ref = tf32_round(a).astype(np.float64) @ tf32_round(b).astype(np.float64) + c
    np.testing.assert_allclose(d, ref, rtol=1e-6, atol=1e-6)
    # rounding to tf32 matters at this tolerance: the unrounded product is measurably different
    assert np.abs(a.astype(np.float64) @ b + c - ref).max() > 1e-5


def test_mma_from_cp_async_and_ldmatrix_shared_tiles(module):
    g = rng(5)
    a = aligned(g.standard_normal((16, 16)).astype(np.float16))
    b = aligned(g.standard_normal((16, 8)).astype(np.float16))
    d = np.zeros((16, 8), np.float32)
    module.launch(K_MMA_SHARED, [a, b, d])
    np.testing.assert_allclose(d, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-6, atol=1e-6)


def test_mma_needs_the_whole_warp(module):
    with pytest.raises(HarnessFault, match="all 32 lanes"):
        module.launch(K_PARTIAL, [np.zeros(48, np.float32)])


# ---- GEMM: cp.async double buffering + swizzled shared tiles + ldmatrix + mma.sync ------------

def _gemm_inputs(dtype, layout, m, n, k, seed):
    g = rng(seed)
    a = g.standard_normal((m, k)).astype(np.float32)
    b = g.standard_normal((k, n)).astype(np.float32)
    if dtype == "f16":
        a, b = a.astype(np.float16), b.astype(np.float16)
        ref = a.astype(np.float64) @ b.astype(np.float64)
    elif dtype == "bf16":
        a, b = a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16)
        ref = a.astype(np.float64) @ b.astype(np.float64)
    else:
        ref = tf32_round(a).astype(np.float64) @ tf32_round(b).astype(np.float64)
    b_arg = b if layout == "kn" else np.ascontiguousarray(b.T)
    if dtype == "bf16":
        a, b_arg = a.view(np.uint16), b_arg.view(np.uint16)
    return aligned(a), aligned(b_arg), ref


@pytest.mark.parametrize("case", GEMM_CASES, ids=lambda c: "-".join(map(str, c)))
def test_gemm_matches_numpy(module, case):
    dtype, layout, m, n, k = case
    a, b, ref = _gemm_inputs(dtype, layout, m, n, k, seed=10 + GEMM_CASES.index(case))
    c = np.full((m, n), np.nan, np.float32)
    module.launch(K_GEMM[case], [a, b, c, np.array([m, n, k], np.int32)])
    # inputs are exact in their type; what is left is float accumulation over k
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", [GEMM_CASES[0], GEMM_CASES[4]], ids=["f16", "tf32"])
def test_gemm_in_shuffle_mode(case):
    shuffled = build_host_module([K_GEMM[case]], mode="shuffle", seed=7)
    dtype, layout, m, n, k = case
    a, b, ref = _gemm_inputs(dtype, layout, m, n, k, seed=99)
    for _ in range(2):
        c = np.full((m, n), np.nan, np.float32)
        shuffled.launch(K_GEMM[case], [a, b, c, np.array([m, n, k], np.int32)])
        np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)


# ---- pure helpers ------------------------------------------------------------------------------

def test_swizzles_are_bijections_without_bank_conflicts(module):
    out = np.zeros((1024, 4), np.int32)
    module.launch(K_SWIZZLE, [out])
    i = np.arange(1024)
    for col, row_bytes in ((0, 128), (1, 64), (2, 32)):
        row, cb = i // row_bytes, i % row_bytes
        chunk_bits = {128: 7, 64: 3, 32: 1}[row_bytes]
        expect = row * row_bytes + ((cb // 16) ^ ((i >> 7) & chunk_bits)) * 16 + cb % 16
        np.testing.assert_array_equal(out[:, col], expect)
        assert sorted(out[:, col]) == list(range(1024))
        # 8 consecutive rows, one 16-byte chunk each (an ldmatrix): 8 different 4-bank groups
        for r0 in range(0, 1024 // row_bytes, 8):
            for c in range(0, row_bytes, 16):
                groups = {(out[(r0 + r) * row_bytes + c, col] // 16) % 8 for r in range(8)}
                assert len(groups) == 8, (row_bytes, r0, c)
    np.testing.assert_array_equal(out[:, 3], i ^ ((i >> 5) & (3 << 3)))


def test_conversions_match_numpy(module):
    g = rng(6)
    x = g.standard_normal(512).astype(np.float32) * np.float32(3.0)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, 65504.0, 70000.0, 1e-8, 3.4e38]
    x[8] = np.float32(1.0) + np.float32(2.0 ** -11)        # a tf32 tie: away from zero
    x[9] = -(np.float32(1.0) + np.float32(2.0 ** -11))
    out = np.zeros((256, 3), np.uint32)
    module.launch(K_CONVERT, [x, out])
    pairs = x.reshape(-1, 2)
    with np.errstate(over="ignore"):  # 70000 and 3.4e38 overflow to inf on purpose
        h = pairs.astype(np.float16).view(np.uint16).astype(np.uint32)
    np.testing.assert_array_equal(out[:, 0], h[:, 0] | (h[:, 1] << 16))
    bf = pairs.astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint32)
    np.testing.assert_array_equal(out[:, 1], bf[:, 0] | (bf[:, 1] << 16))
    np.testing.assert_array_equal(out[:, 2], tf32_round(pairs[:, 0]).view(np.uint32))
    assert out[4, 2] == 0x3F802000 and out[4, 2] == tf32_round(x[8:9]).view(np.uint32)[0]


# ---- NVRTC ----------------------------------------------------------------------------------------

def _ptx(source: str, arch: str) -> str:
    from compiler.codegen.nvrtc import _nvrtc, device_prelude
    nvrtc = _nvrtc()
    err, prog = nvrtc.nvrtcCreateProgram((device_prelude() + "\n" + source).encode(), b"k.cu", 0, [], [])
    opts = [f"-arch=compute_{arch[3:]}", "-std=c++17", "-default-device"]
    try:
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        assert res[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
        _, n = nvrtc.nvrtcGetPTXSize(prog)
        buf = b" " * n
        nvrtc.nvrtcGetPTX(prog, buf)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    return buf.rstrip(b"\x00 ").decode()


NVRTC_KERNELS = [K_VECTOR, K_LDMATRIX, *K_FRAG.values(), K_MMA_SHARED, K_GEMM[GEMM_CASES[0]],
                 K_GEMM[GEMM_CASES[3]], K_GEMM[GEMM_CASES[4]], K_SWIZZLE, K_CONVERT]


@pytest.mark.parametrize("arch", ARCHS)
def test_nvrtc_builds_every_kernel(arch):
    from compiler.codegen.nvrtc import build_cubin
    for k in NVRTC_KERNELS:
        res = build_cubin(k.source, k.entry, arch)
        assert res.cubin and res.spills == 0, (k.entry, arch, res.log)


def test_ptx_uses_the_hardware_instructions_from_sm_80_and_falls_back_below():
    gemm = K_GEMM[GEMM_CASES[0]].source
    for arch in ("sm_80", "sm_90"):
        ptx = _ptx(gemm, arch)
        for needle in ("cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group 1",
                       "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                       "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"):
            assert needle in ptx, (arch, needle)
    assert "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in _ptx(K_GEMM[GEMM_CASES[4]].source, "sm_80")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in _ptx(K_GEMM[GEMM_CASES[3]].source, "sm_90")
    old = _ptx(gemm, "sm_75")
    assert "cp.async" not in old and "mma.sync" not in old and "shfl.sync" in old
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in old
