"""On a GPU: the register_rows kernels (a row's lanes load it once into registers, reduce it by
shuffles) against NumPy, over the cases tests/compiler/test_register_rows.py runs on the host
harness, with every buffer 16-byte aligned (vector loads and stores) and one element past it
(element loads: a misaligned vector access would fault here, where the harness only reports it).
Each case's time per launch is printed beside the shared-memory form's (resident_rows), which
reads the row once per phase."""
from __future__ import annotations

import numpy as np
import pytest

from tests.gpu import gpu_module

cupy, pytestmark = gpu_module()

from tests.compiler.test_register_rows import CASES, TARGET, _row_spec  # noqa: E402


def _device(a: np.ndarray, offset: int):
    """`a` on the device, starting `offset` elements past a 16-byte boundary."""
    buf = cupy.empty(a.size + 16, a.dtype)
    start = (-buf.data.ptr // a.itemsize) % (16 // a.itemsize) + offset
    view = buf[start:start + a.size].reshape(a.shape)
    view.set(np.ascontiguousarray(a))
    return view


def _launch_args(kernel, feeds, ref, dtype, offset):
    args = []
    for p in kernel.params:
        a = np.full(ref.shape, np.nan, dtype) if p.output else feeds[p.value]
        args.append(_device(a, offset))
    return args


def _time_us(be, kernel, args, reps=50) -> float:
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    for _ in range(3):
        be.launch(kernel, args)
    start.record()
    for _ in range(reps):
        be.launch(kernel, args)
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) * 1e3 / reps


# vectors of halves, an odd row, add + LayerNorm on 2 warps, a transposed output, rows on 8 warps
# (tests/gpu shares make gpu-check's deadline with the shared models: not every host case)
@pytest.mark.parametrize("case", [1, 2, 3, 7, 8, 9])
def test_register_rows_on_gpu(case):
    from compiler.kinds import register_rows, resident_rows
    from compiler.runtime.gpu import GpuBackend
    make, shape, dtype, *_ = CASES[case]
    model, feeds, ref = make(shape, dtype)
    spec = _row_spec(model)
    (k,) = register_rows.render(spec, TARGET)
    (shared,) = resident_rows.render(spec, TARGET)
    be = GpuBackend()
    be.prepare([k, shared])
    tol = 2e-3 if dtype == "float16" else 2e-5
    scale = max(1.0, float(np.abs(ref).max()))
    for offset in (0, 1):
        args = _launch_args(k, feeds, ref, dtype, offset)
        be.launch(k, args)
        be.synchronize()
        np.testing.assert_allclose(cupy.asnumpy(args[-1]).astype(np.float64), ref, rtol=tol, atol=tol * scale,
                                   err_msg=f"offset {offset}")
    args = _launch_args(k, feeds, ref, dtype, 0)
    print(f"register_rows {make.__name__} {shape} {dtype}: {_time_us(be, k, args):.2f} us a launch, "
          f"resident_rows {_time_us(be, shared, _launch_args(shared, feeds, ref, dtype, 0)):.2f} us "
          f"({dict(k.config)['warps_per_row']} warp(s) a row, width {dict(k.config)['width']})")


def test_an_unrolled_scan_on_gpu():
    """The unrolled selective scan of tests/compiler/test_scan_chain.py (10 steps): register_rows
    (the states in a lane's registers) and resident_rows (a phase at a time through shared
    memory) write every y_t and the last state, against NumPy; each one's time per launch is
    printed (the pay check prices neither's per-phase latency: this is the measurement)."""
    from compiler.kinds import register_rows, resident_rows
    from compiler.runtime.gpu import GpuBackend
    from tests.compiler.test_scan_chain import _scan_spec, scan_model
    steps, (b, d, n) = 10, (2, 16, 8)
    _, feeds = scan_model(b, d, steps, n)
    spec = _scan_spec(steps)
    h = feeds["h0"].astype(np.float64)
    want = {}
    for t in range(steps):
        h = feeds["a"][:, :, t].astype(np.float64) * h + feeds["x"][:, :, t]
        want[f"y{t}"] = np.einsum("bdn,bn->bd", h, feeds["c"][:, t].astype(np.float64))
    want[f"h{steps}"] = h
    kernels = register_rows.render(spec, TARGET) + resident_rows.render(spec, TARGET)
    be = GpuBackend()
    be.prepare(kernels)
    types = spec.types
    for k in kernels:
        args = [cupy.full(types[p.value].shape, np.nan, np.float32) if p.output else cupy.asarray(feeds[p.value])
                for p in k.params]
        be.launch(k, args)
        be.synchronize()
        for p, a in zip(k.params, args):
            if p.output:
                w = want[p.value]
                np.testing.assert_allclose(cupy.asnumpy(a).astype(np.float64).reshape(w.shape), w,
                                           rtol=1e-5, atol=1e-5, err_msg=f"{k.entry} {p.value}")
        print(f"scan of {steps} steps, {dict(k.config)['schedule']}: {_time_us(be, k, args):.2f} us a launch")
