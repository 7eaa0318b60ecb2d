"""The preludes' sparse tensor-core mma (mma.sp m16n8k32, 2:4, fp16 and bf16): the host emulation
against NumPy, with every fragment loaded by a kernel from the PTX ISA's row/column formulas for
sparse mma (written here, independently of the emulation), and metadata made in NumPy by the
ISA's encoding; NVRTC builds it for sm_80 and sm_90a as the mma.sp instruction."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from compiler.codegen.naming import finish_source
from compiler.ir.kernel import Kernel, KernelParam
from compiler.runtime.host_harness import HarnessFault, build_host_module

NWARPS = 4

# One 16x8x32 problem per warp. A: the compressed 16x16 (2 kept of every 4 along k), E: metadata
# [16 rows][2] 16-bit words (word h: chunks 4h..4h+3, a nibble each), B: 32x8, C and D: 16x8.
MMA_SP_FRAG = r"""
BY_KERNEL void BY_KERNEL_NAME(const unsigned short* __restrict__ A, const unsigned short* __restrict__ E,
                              const unsigned short* __restrict__ B, const float* __restrict__ C,
                              float* __restrict__ D) {
  __syncwarp();
  const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
  A += 256 * w; E += 32 * w; B += 256 * w; C += 128 * w; D += 128 * w;
  unsigned int a[4], b[4], e = 0;
  float c[4], d[4];
  for (int i = 0; i < 4; ++i) {
    unsigned int v = 0;
    for (int h = 0; h < 2; ++h) {
      // element a_j (j = 2i + h): row groupID for j in {0,1,4,5}, else groupID + 8; the kept pair
      // of the chunk at firstcol = 4 * threadID_in_group (+16 for j >= 4): compressed column
      // 2 * chunk + (j & 1)
      const int j = 2 * i + h;
      const int row = (j < 2 || (j >= 4 && j < 6)) ? g : g + 8;
      const int col = 2 * (t + (j >= 4 ? 4 : 0)) + (j & 1);
      v |= (unsigned int)A[row * 16 + col] << (16 * h);
    }
    a[i] = v;
  }
  for (int i = 0; i < 4; ++i) {
    unsigned int v = 0;
    for (int h = 0; h < 2; ++h) {
      // element b_j (j = 2i + h): row 2 * threadID_in_group + (j & 1) + 8 * (j >> 1), column groupID
      const int j = 2 * i + h;
      v |= (unsigned int)B[(2 * t + (j & 1) + 8 * (j >> 1)) * 8 + g] << (16 * h);
    }
    b[i] = v;
  }
  // sparsity selector 0: threads 0 and 1 of each quad give the metadata (k 0-15, k 16-31) of rows
  // groupID (low half) and groupID + 8 (high half); the others' is not read (0: invalid if it were)
  if (t < 2) e = (unsigned int)E[g * 2 + t] | ((unsigned int)E[(g + 8) * 2 + t] << 16);
  for (int q = 0; q < 4; ++q) c[q] = C[(q < 2 ? g : g + 8) * 8 + 2 * t + (q & 1)];
  MMA(d, a, b, c, e);
  for (int q = 0; q < 4; ++q) D[(q < 2 ? g : g + 8) * 8 + 2 * t + (q & 1)] = d[q];
}
"""

TYPES = {"f16": (np.float16, "by_mma_sp_m16n8k32_f16_f32"), "bf16": (ml_dtypes.bfloat16, "by_mma_sp_m16n8k32_bf16_f32")}


def _kernel(dtype: str) -> Kernel:
    entry, src = finish_source(f"mma_sp_{dtype}", MMA_SP_FRAG.replace("MMA(", TYPES[dtype][1] + "("))
    params = (KernelParam("unsigned short", "A", False), KernelParam("unsigned short", "E", False),
              KernelParam("unsigned short", "B", False), KernelParam("float", "C", False),
              KernelParam("float", "D", True))
    return Kernel(entry, src, params, grid=(NWARPS, 1, 1), block=(32, 1, 1))


KERNELS = {d: _kernel(d) for d in TYPES}


@pytest.fixture(scope="module")
def module():
    return build_host_module(list(KERNELS.values()))


def two_four(rng, rows: int, k: int, npt, *, fewer: bool = False):
    """(dense [rows, k] with at most 2 non-zeros per 4-wide chunk, compressed [rows, k/2],
    metadata words [rows, k/16]) by the ISA's encoding: per chunk, positions p0 < p1 as a nibble
    p0 | p1 << 2, four chunks per 16-bit word, chunk 0 lowest. `fewer`: some chunks keep one or
    no non-zero (their kept slots hold zeros)."""
    dense = np.zeros((rows, k), np.float32)
    comp = np.zeros((rows, k // 2), np.float32)
    words = np.zeros((rows, k // 16), np.uint16)
    for r in range(rows):
        for c in range(k // 4):
            p0, p1 = sorted(rng.choice(4, 2, replace=False))
            v = rng.standard_normal(2).astype(npt).astype(np.float32)
            if fewer and rng.random() < 0.3:
                v[rng.integers(2)] = 0.0
            if fewer and rng.random() < 0.1:
                v[:] = 0.0
            dense[r, 4 * c + p0], dense[r, 4 * c + p1] = v
            comp[r, 2 * c:2 * c + 2] = v
            words[r, c // 4] |= np.uint16((p0 | (p1 << 2)) << (4 * (c % 4)))
    return dense, comp.astype(npt), words


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize("fewer", [False, True])
def test_mma_sp_m16n8k32_against_numpy(module, dtype, fewer):
    npt = TYPES[dtype][0]
    rng = np.random.default_rng(11)
    dense, comp, words = zip(*(two_four(rng, 16, 32, npt, fewer=fewer) for _ in range(NWARPS)))
    dense, comp, words = np.stack(dense), np.stack(comp), np.stack(words)
    b = rng.standard_normal((NWARPS, 32, 8)).astype(npt)
    c = rng.standard_normal((NWARPS, 16, 8)).astype(np.float32)
    d = np.zeros_like(c)
    module.launch(KERNELS[dtype], [comp.view(np.uint16), words, b.view(np.uint16), c, d])
    ref = dense.astype(np.float64) @ b.astype(np.float64) + c
    np.testing.assert_allclose(d, ref, rtol=1e-6, atol=1e-6)
    # the positions matter: the same values at the first two positions of each chunk differ
    packed = np.zeros_like(dense)
    packed.reshape(NWARPS, 16, 8, 4)[..., :2] = comp.astype(np.float32).reshape(NWARPS, 16, 8, 2)
    assert np.abs(packed.astype(np.float64) @ b.astype(np.float64) + c - ref).max() > 1e-2


def test_mma_sp_faults_on_metadata_that_is_not_ordered(module):
    rng = np.random.default_rng(12)
    _, comp, words = two_four(rng, 16, 32, np.float16)
    words = np.tile(words, (NWARPS, 1, 1))
    words[0, 3, 1] = (words[0, 3, 1] & ~np.uint16(0xF)) | np.uint16(0b0001)     # p0 = 1, p1 = 0
    args = [np.tile(comp, (NWARPS, 1, 1)).view(np.uint16), words, np.zeros((NWARPS, 32, 8), np.uint16),
            np.zeros((NWARPS, 16, 8), np.float32), np.zeros((NWARPS, 16, 8), np.float32)]
    with pytest.raises(HarnessFault, match="ordered metadata"):
        module.launch(KERNELS["f16"], args)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_nvrtc_builds_mma_sp(arch):
    from compiler.codegen.nvrtc import build_cubin
    from tests.codegen.test_prelude_tensor_core import _ptx
    for k in KERNELS.values():
        res = build_cubin(k.source, k.entry, arch)
        assert res.cubin and res.spills == 0, (k.entry, arch, res.log)
    want = {"f16": "f16.f16", "bf16": "bf16.bf16"}
    for dtype, k in KERNELS.items():
        ptx = _ptx(k.source, arch)
        assert f"mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.{want[dtype]}.f32" in ptx, arch
