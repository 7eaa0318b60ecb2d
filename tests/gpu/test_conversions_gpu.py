"""On a GPU: the device's half and bfloat16 conversions (the prelude's one-instruction cvt) give the
bits of the host harness's software conversions (`*_sw`), for every half value and for floats
around every rounding boundary: the harness proves kernels with the software, the GPU runs the
cvt, so the two must round alike. NaNs need only stay NaN (which NaN is not specified)."""
from __future__ import annotations

import numpy as np

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from compiler.codegen.naming import finish_source  # noqa: E402
from compiler.ir.kernel import Kernel, KernelParam  # noqa: E402

N_FLOATS = 1 << 22
THREADS = 256

SOURCE = """BY_KERNEL void BY_KERNEL_NAME(const unsigned short* h, const float* f, float* h2f, float* h2f_sw,
    unsigned short* f2h, unsigned short* f2h_sw, unsigned short* f2b, unsigned short* f2b_sw) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) {
    h2f[i] = by_f16_bits_to_f32(h[i]);
    h2f_sw[i] = by_f16_bits_to_f32_sw(h[i]);
  }
  if (i < %d) {
    f2h[i] = by_f32_to_f16_bits(f[i]);
    f2h_sw[i] = by_f32_to_f16_bits_sw(f[i]);
    f2b[i] = by_f32_to_bf16_bits(f[i]);
    f2b_sw[i] = by_f32_to_bf16_bits_sw(f[i]);
  }
}
""" % N_FLOATS


def _floats(rng) -> np.ndarray:
    """Floats at and beside every half rounding boundary and bfloat16 tie, overflow, subnormals,
    infinities, NaNs and random bit patterns."""
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    halves = halves[np.isfinite(halves)]
    mids = ((halves[:-1].astype(np.float64) + halves[1:]) / 2).astype(np.float32)   # ties of half rounding
    bits = mids.view(np.uint32)
    near = np.concatenate([bits - 1, bits, bits + 1]).view(np.float32)
    ties = (rng.integers(0, 1 << 16, 1 << 16, dtype=np.uint32) << 16 | 0x8000).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65519.99, 65520.0, 1e-8, 6e-8, 3e-8],
                       np.float32)
    rest = rng.integers(0, 1 << 32, N_FLOATS, dtype=np.uint64).astype(np.uint32).view(np.float32)
    f = np.concatenate([halves, near, ties, special, rest])[:N_FLOATS]
    assert f.size == N_FLOATS
    return f


def _same(hw: np.ndarray, sw: np.ndarray, as_float) -> None:
    nan = np.isnan(as_float(sw))
    assert np.array_equal(np.isnan(as_float(hw)), nan)
    bad = np.flatnonzero((hw != sw) & ~nan)
    assert bad.size == 0, f"{bad.size} differ, first at {bad[:5]}: {hw[bad[:5]]} vs {sw[bad[:5]]}"


def conversion_kernel() -> tuple[Kernel, list[np.ndarray]]:
    """The kernel and its arrays (inputs, then zeroed outputs)."""
    entry, src = finish_source("cvt_check", SOURCE)
    names = ["h", "f", "h2f", "h2f_sw", "f2h", "f2h_sw", "f2b", "f2b_sw"]
    ctypes = ["unsigned short", "float", "float", "float"] + ["unsigned short"] * 4
    params = tuple(KernelParam(c, n, k >= 2) for k, (c, n) in enumerate(zip(ctypes, names)))
    kernel = Kernel(entry, src, params, grid=(N_FLOATS // THREADS, 1, 1), block=(THREADS, 1, 1))
    arrays = [np.arange(65536, dtype=np.uint16), _floats(np.random.default_rng(0)),
              np.zeros(65536, np.float32), np.zeros(65536, np.float32)] + \
        [np.zeros(N_FLOATS, np.uint16) for _ in range(4)]
    return kernel, arrays


def check_conversions(f: np.ndarray, outputs: list[np.ndarray]) -> None:
    h2f, h2f_sw, f2h, f2h_sw, f2b, f2b_sw = outputs
    _same(h2f.view(np.uint32), h2f_sw.view(np.uint32), lambda b: b.view(np.float32))
    _same(f2h, f2h_sw, lambda b: b.view(np.float16))
    import ml_dtypes
    _same(f2b, f2b_sw, lambda b: b.view(ml_dtypes.bfloat16).astype(np.float32))
    # and the software is IEEE round-to-nearest-even, as NumPy converts
    finite = np.isfinite(f)
    with np.errstate(over="ignore"):
        assert np.array_equal(f2h_sw[finite], f[finite].astype(np.float16).view(np.uint16))


def test_device_conversions_round_like_the_harness():
    from compiler.runtime.gpu import GpuBackend
    kernel, arrays = conversion_kernel()
    be = GpuBackend(cubins={}, arch="sm_%s" % cupy.cuda.Device().compute_capability)
    be.prepare([kernel])
    dev = [cupy.asarray(a) for a in arrays]
    be.launch(kernel, dev)
    be.synchronize()
    check_conversions(arrays[1], [cupy.asnumpy(d) for d in dev[2:]])
