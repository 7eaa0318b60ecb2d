"""Tests that need a CUDA GPU (`make gpu-check` runs them on the device machine)."""
from __future__ import annotations

import pytest


def gpu_module(min_capability: int = 0, only_capability: int | None = None):
    """(cupy, pytestmark) for a tests/gpu module: the module is skipped where CuPy is missing, and
    its tests where no GPU (of compute capability at least `min_capability`, or exactly
    `only_capability`) answers."""
    cupy = pytest.importorskip("cupy", reason="tests/gpu needs CuPy and a GPU")
    try:
        have = cupy.cuda.runtime.getDeviceCount() > 0
        cc = int(cupy.cuda.Device().compute_capability) if have else 0
    except Exception:  # noqa: BLE001 - no driver
        have, cc = False, 0
    ok = have and cc >= min_capability and (only_capability is None or cc == only_capability)
    what = (f"sm_{only_capability} GPU" if only_capability else
            f"sm_{min_capability}+ GPU" if min_capability else "CUDA GPU")
    return cupy, [pytest.mark.gpu, pytest.mark.skipif(not ok, reason=f"no {what} on this machine")]


def timed_us(ex, inputs: dict, reps: int = 20, on_device: bool = False) -> float:
    """Microseconds an inference of executor `ex` takes on the device: one warm-up run, then the
    mean of `reps` between two CUDA events (`on_device`: inputs given as device arrays and outputs
    kept there, so no host copy is timed)."""
    import cupy
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    ex.run(inputs, on_device=on_device)
    start.record()
    for _ in range(reps):
        ex.run(inputs, on_device=on_device)
    end.record()
    end.synchronize()
    return cupy.cuda.get_elapsed_time(start, end) * 1e3 / reps
