"""The preludes' 8-bit integer mma.sync (m16n8k32, s8/u8 on each side, s32 accumulators), which
the tc_gemm kind uses for integer contractions (passes/imma.py): on the host harness against NumPy,
with fragments a kernel loads itself by the PTX ISA's row/column formulas for m16n8k32 .s8/.u8
(written here, independently of the emulation), and through shared tiles read by ldmatrix as the
kernels do (the 8-bit fragments hold four bytes a register where the 16-bit ones hold two, at the
same byte positions); the sums wrap modulo 2^32 as the instruction does without .satfinite. NVRTC
builds the same sources for sm_75 (the shuffle fallback), sm_80 and sm_90, with the hardware
instruction from sm_80."""
from __future__ import annotations

import numpy as np
import pytest

from compiler.codegen.naming import finish_source
from compiler.ir.kernel import Kernel, KernelParam

SIGNS = {"s8": np.int8, "u8": np.uint8}
PAIRS = [(a, b) for a in SIGNS for b in SIGNS]
NWARPS = 3

FRAG = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                              const int* __restrict__ C, int* __restrict__ D) {
  __syncwarp();
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  A += 512 * w; B += 256 * w; C += 128 * w; D += 128 * w;   // A [16][32], B [32 k][8 n], C/D [16][8]
  unsigned int a[4] = {0u, 0u, 0u, 0u}, b[2] = {0u, 0u};
  for (int i = 0; i < 16; ++i) {   // a_i: row groupID for i in [0,4) and [8,12), else +8; col 4t + (i&3) (+16 from i=8)
    const int row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
    const int col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
    a[i >> 2] |= (unsigned int)A[row * 32 + col] << (8 * (i & 3));
  }
  for (int i = 0; i < 8; ++i) {    // b_i: row 4t + (i&3) (+16 from i=4), col groupID
    const int row = 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
    b[i >> 2] |= (unsigned int)B[row * 8 + g] << (8 * (i & 3));
  }
  int c[4], d[4];
  for (int e = 0; e < 4; ++e) c[e] = C[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)];
  MMA(d, a, b, c);
  for (int e = 0; e < 4; ++e) D[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)] = d[e];
}
"""

# A [16][32] and B as [8 n][32 k] (k-major, as the kernels stage 8-bit tiles) through shared memory,
# fragments by ldmatrix .x4 (A) and .x2 (B) in 16-bit units: a row's 32 bytes are two 8x8 matrices
SHARED = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned char* __restrict__ A, const unsigned char* __restrict__ B,
                              int* __restrict__ D) {
  BY_SHARED_BUFFER(smem);
  unsigned char* As = smem;          // [16][32]
  unsigned char* Bs = smem + 512;    // [8][32]
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  by_cp_async_16(As + 16 * lane, A + 16 * lane);
  if (lane < 16) by_cp_async_16(Bs + 16 * lane, B + 16 * lane);
  by_cp_async_commit();
  by_cp_async_wait_all();
  __syncthreads();
  unsigned int a[4], b[2];
  by_ldmatrix_x4(a, As + 32 * ((lane & 7) + 8 * ((lane >> 3) & 1)) + 16 * (lane >> 4));
  by_ldmatrix_x2(b, Bs + 32 * (lane & 7) + 16 * ((lane >> 3) & 1));
  const int c[4] = {0, 0, 0, 0};
  int d[4];
  MMA(d, a, b, c);
  for (int e = 0; e < 4; ++e) D[(e < 2 ? g : g + 8) * 8 + 2 * t + (e & 1)] = d[e];
}
"""


def _mma(a: str, b: str) -> str:
    return f"by_mma_m16n8k32_{a}{b}_s32"


def _kernels() -> dict:
    def P(ctype: str, name: str, output: bool = False) -> KernelParam:
        return KernelParam(ctype, name, output)
    out = {}
    for a, b in PAIRS:
        entry, src = finish_source(f"frag_{a}{b}", FRAG.replace("MMA(", _mma(a, b) + "("))
        out["frag", a, b] = Kernel(entry, src, (P("unsigned char", "A"), P("unsigned char", "B"), P("int", "C"),
                                                P("int", "D", True)), grid=(NWARPS, 1, 1), block=(32, 1, 1))
        entry, src = finish_source(f"shared_{a}{b}", SHARED.replace("MMA(", _mma(a, b) + "("))
        out["shared", a, b] = Kernel(entry, src, (P("unsigned char", "A"), P("unsigned char", "B"),
                                                  P("int", "D", True)), grid=(1, 1, 1), block=(32, 1, 1),
                                     shared_bytes=768)
    return out


KERNELS = _kernels()


@pytest.fixture(scope="module")
def module():
    from compiler.runtime.host_harness import build_host_module
    return build_host_module(list(KERNELS.values()))


def _draw(g: np.random.Generator, sign: str, shape) -> np.ndarray:
    info = np.iinfo(SIGNS[sign])
    return g.integers(info.min, info.max + 1, shape).astype(SIGNS[sign])


def _wrap(x: np.ndarray) -> np.ndarray:
    """int64 sums as int32 arithmetic gives them: modulo 2^32."""
    return ((x + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


@pytest.mark.parametrize("a_sign,b_sign", PAIRS)
def test_mma_with_isa_table_fragments(module, a_sign, b_sign):
    g = np.random.default_rng(11)
    a = _draw(g, a_sign, (NWARPS, 16, 32))
    b = _draw(g, b_sign, (NWARPS, 32, 8))
    c = g.integers(-(1 << 20), 1 << 20, (NWARPS, 16, 8)).astype(np.int32)
    c[0, 0, 0] = np.iinfo(np.int32).max      # past int32: the sum wraps
    d = np.zeros_like(c)
    module.launch(KERNELS["frag", a_sign, b_sign], [a.view(np.uint8), b.view(np.uint8), c, d])
    want = _wrap(a.astype(np.int64) @ b.astype(np.int64) + c)
    np.testing.assert_array_equal(d, want)
    # the signedness is read from the instruction: the other reading gives other sums
    if a_sign == "s8" and b_sign == "s8":
        assert (d != _wrap(a.view(np.uint8).astype(np.int64) @ b.astype(np.int64) + c)).any()


@pytest.mark.parametrize("a_sign,b_sign", PAIRS)
def test_mma_from_k_major_shared_tiles_by_ldmatrix(module, a_sign, b_sign):
    g = np.random.default_rng(12)
    a = _draw(g, a_sign, (16, 32))
    bt = _draw(g, b_sign, (8, 32))     # B stored n x k
    d = np.zeros((16, 8), np.int32)
    module.launch(KERNELS["shared", a_sign, b_sign], [a.view(np.uint8), bt.view(np.uint8), d])
    np.testing.assert_array_equal(d, a.astype(np.int64) @ bt.astype(np.int64).T)


@pytest.mark.parametrize("arch", ["sm_75", "sm_80", "sm_90"])
def test_nvrtc_builds_the_integer_mma(arch):
    from compiler.codegen.nvrtc import build_cubin
    for k in KERNELS.values():
        res = build_cubin(k.source, k.entry, arch)
        assert res.cubin and res.spills == 0, (k.entry, arch, res.log)


def test_ptx_has_the_integer_mma_from_sm_80_and_the_shuffles_below():
    from tests.codegen.test_prelude_tensor_core import _ptx
    for a, b in PAIRS:
        src = KERNELS["frag", a, b].source
        assert f"mma.sync.aligned.m16n8k32.row.col.s32.{a}.{b}.s32" in _ptx(src, "sm_80")
        old = _ptx(src, "sm_75")
        assert "mma.sync" not in old and "shfl.sync" in old
