"""On an sm_90 GPU: the Hopper prelude and the wgmma_gemm kernels against NumPy and cuBLAS.

What the host harness cannot prove: that the emulated descriptor decoding, the 128-byte swizzle,
the accumulator fragment layout and the TMA boxes are the hardware's, that cuTensorMapEncodeTiled
accepts the maps the kernels declare, and that the by-value __grid_constant__ parameters and the
dynamic shared-memory opt-in work. The same kernels and expectations as the host tests run here."""
from __future__ import annotations

import time

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module(only_capability=90)

from tests.codegen.test_prelude_hopper import WGMMA_CASES  # noqa: E402  (kernels only: no GPU needed)


def _backend():
    from compiler.runtime.gpu import GpuBackend
    return GpuBackend(cubins={}, arch="sm_90")


def _run(kernel, arrays):
    be = _backend()
    be.prepare([kernel])
    dev = [cupy.asarray(a) for a in arrays]
    be.launch(kernel, dev)
    be.synchronize()
    return [cupy.asnumpy(d) for d in dev]


@pytest.mark.parametrize("n,kind,tb", WGMMA_CASES)
def test_wgmma_tile_on_gpu(n, kind, tb):
    from tests.codegen.test_prelude_hopper import K_WGMMA, _wgmma_inputs
    a, b, c = _wgmma_inputs(n, kind, 10 + n + tb)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    d = np.full((64, n), np.nan, np.float32)
    out = _run(K_WGMMA[n, kind, tb], [a, b, c, d, np.array([1, 0], np.int32)])[3]
    np.testing.assert_allclose(out, want, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("c0,c1", [(0, 0), (8, 16), (-8, -4), (24, 20)])
def test_tma_box_on_gpu(c0, c1):
    from tests.codegen import test_prelude_hopper as h
    g = np.random.default_rng(abs(c0 * 100 + c1) + 7)
    x = g.standard_normal((h.TMA_H, h.TMA_W)).astype(np.float16)
    host = np.full(64 * h.TMA_ROWS, 0xFFFF, np.uint16)  # NaN patterns: the padding's zeros must be written
    from compiler.runtime.host_harness import build_host_module
    build_host_module([h.K_TMA]).launch(h.K_TMA, [x, np.array([c0, c1], np.int32), host])
    out = _run(h.K_TMA, [x, np.array([c0, c1], np.int32), np.full_like(host, 0xFFFF)])[2]
    np.testing.assert_array_equal(out, host)


@pytest.mark.parametrize("shape,precision,trans", [((1000, 1032, 520), "fp16", (0, 0)), ((2048, 2048, 2048), "bf16", (0, 1)),
                                                   ((520, 264, 1000), "fp16", (1, 0)), ((4096, 4096, 4096), "fp16", (1, 1)),
                                                   ((512, 768, 3072), "fp16", (0, 0))])   # few tiles: split-K
def test_wgmma_gemm_against_cublas(shape, precision, trans):
    """Every block tile of the wgmma candidates, split-K and not, vs cuBLAS on the same half inputs;
    times printed (speed is judged in bench/, never asserted here)."""
    from compiler.kinds import construct_rtiles
    from compiler.targets import get_target
    from tests.roller.test_tensor_core import _f, launches, prepare
    m, n, k = shape
    rng = np.random.default_rng(1)
    a = _f(rng, (k, m) if trans[0] else (m, k))
    b = _f(rng, (n, k) if trans[1] else (k, n))
    kernel, values, _ = prepare("Gemm", [a, b, _f(rng, (n,))], {"transA": trans[0], "transB": trans[1]},
                                precision, (0, 1))
    cfgs = [c for c in construct_rtiles(kernel.expr, get_target("h100"), 10**6, precision) if c.kind == "wgmma_gemm"]
    assert cfgs, "no wgmma candidate for this shape"
    names = [p.value for p in kernel.params[:-1]]
    ha, hb, bias = (values[x] for x in names)
    ga = cupy.asarray(ha).astype(cupy.float32)
    gb = cupy.asarray(hb).astype(cupy.float32)
    ref = (ga.T if trans[0] else ga) @ (gb.T if trans[1] else gb) + cupy.asarray(bias)
    half = cupy.asarray(ha), cupy.asarray(hb)
    cublas = _time(lambda: (half[0].T if trans[0] else half[0]) @ (half[1].T if trans[1] else half[1]))
    seen = set()
    for c in cfgs:
        key = (c.tile("block").size("m"), c.tile("block").size("n"), c.split_k > 1)
        if key in seen:
            continue
        seen.add(key)
        (kern, _), = launches(kernel, c)
        be = _backend()
        be.prepare([kern])
        ws = [cupy.full(c.param("ws_elems"), cupy.nan, cupy.float32)] if c.split_k > 1 else []
        args = [cupy.asarray(values[x]) for x in names] + ws + [cupy.full((m, n), cupy.nan, cupy.float32)]
        us = _time(lambda: be.launch(kern, args))
        err = float(cupy.abs(args[-1] - ref).max() / cupy.abs(ref).max())
        print(f"{shape} {precision} {c.text()}: {us:.1f} us (cuBLAS half {cublas:.1f} us), rel err {err:.2e}")
        assert err < 1e-2
    assert seen


def _time(fn, reps: int = 20) -> float:
    fn()
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    cupy.cuda.Device().synchronize()
    return (time.perf_counter() - t) / reps * 1e6
