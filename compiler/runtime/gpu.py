"""GPU backend: loads cubins with CuPy and launches them (needs a GPU; imported only when asked for)."""
from __future__ import annotations

import numpy as np

from ..errors import RuntimeFault
from ..ir.graph import TensorType
from .executor import _contiguous



def _cupy():
    try:
        import cupy
    except ImportError as e:
        raise RuntimeFault("the gpu device needs CuPy (pip install cupy-cuda13x)") from e
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver / no device
        raise RuntimeFault(f"no usable GPU: {e}", hint="use --device host") from None
    return cupy


def device_arch() -> str:
    """sm_XY of the current GPU."""
    cp = _cupy()
    cc = cp.cuda.Device().compute_capability
    return f"sm_{cc}"


class GpuBackend:
    """Kernels from cubins (built for this GPU's arch, or built now with NVRTC if missing)."""

    name = "gpu"

    def __init__(self, cubins: dict[str, bytes] | None = None, arch: str | None = None):
        self.cp = _cupy()
        self.arch = arch or device_arch()
        self.cubins = dict(cubins or {})
        self.functions: dict[str, object] = {}
        self.modules = []

    def prepare(self, kernels) -> None:
        from ..codegen.nvrtc import build_cubin
        for k in kernels:
            if k.entry in self.functions:
                continue
            cubin = self.cubins.get(k.digest)
            if cubin is None:
                cubin = build_cubin(k.source, k.entry, self.arch).cubin
            mod = self.cp.cuda.function.Module()
            mod.load(cubin)
            self.modules.append(mod)
            fn = mod.get_function(k.entry)
            if k.shared_bytes > 48 * 1024:
                fn.max_dynamic_shared_size_bytes = k.shared_bytes
            self.functions[k.entry] = fn

    def alloc(self, nbytes: int):
        return self.cp.empty(nbytes, dtype=self.cp.uint8)

    def view(self, arena, offset: int, t: TensorType):
        return arena[offset:offset + t.nbytes].view(t.dtype.np).reshape(t.shape)

    def to_device(self, a: np.ndarray):
        return self.cp.asarray(_contiguous(a))

    def to_host(self, a) -> np.ndarray:
        return self.cp.asnumpy(a)

    def reshape(self, a, t: TensorType):
        if a.nbytes != t.nbytes:
            raise RuntimeFault(f"alias of {a.nbytes} bytes as {t}")
        return a.reshape(-1).view(t.dtype.np).reshape(t.shape)

    def shape(self, a):
        return tuple(a.shape)

    def copy(self, dst, src) -> None:
        dst[...] = src.reshape(dst.shape)

    def clone(self, a):
        return a.copy()

    def stack(self, parts):
        return self.cp.stack(parts, axis=0)

    def launch(self, kernel, args) -> None:
        fn = self.functions[kernel.entry]
        ptrs = tuple(a for a in args)
        if kernel.cooperative:
            self._launch_cooperative(fn, kernel, ptrs)
            return
        fn(kernel.grid, kernel.block, ptrs, shared_mem=kernel.shared_bytes)

    def _launch_cooperative(self, fn, kernel, args) -> None:
        # CuPy has no cooperative launch; the driver API does (all blocks resident, grid barrier safe).
        from cuda.bindings import driver
        import ctypes
        vals = [ctypes.c_void_p(int(a.data.ptr)) for a in args]
        ptrs = (ctypes.c_void_p * len(vals))(*[ctypes.addressof(v) for v in vals])
        err, = driver.cuLaunchCooperativeKernel(fn.ptr, *kernel.grid, *kernel.block, kernel.shared_bytes,
                                                self.cp.cuda.get_current_stream().ptr, ctypes.addressof(ptrs))
        if int(err) != 0:
            raise RuntimeFault(f"cooperative launch of {kernel.entry} failed: {err}")

    def synchronize(self) -> None:
        self.cp.cuda.get_current_stream().synchronize()
