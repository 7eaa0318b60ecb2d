"""GPU backend: loads cubins with CuPy and launches them (needs a GPU; imported only when asked for)."""
from __future__ import annotations

import numpy as np

from ..errors import RuntimeFault
from ..ir.graph import TensorType


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


def _allow_dynamic_shared(fn, kernel) -> None:
    """Opt the function in to more than 48 KB of dynamic shared memory. Through the driver API:
    CuPy 14's Function has no max_dynamic_shared_size_bytes (the first GPU run, 2026-11-24, failed so)."""
    from cuda.bindings import driver
    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    err, = driver.cuFuncSetAttribute(fn.ptr, attr, kernel.shared_bytes)
    if int(err) != 0:
        raise RuntimeFault(f"{kernel.entry}: {kernel.shared_bytes} B of dynamic shared memory refused: {err}")


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
        from ..codegen.nvrtc import build_arch, build_cubin
        for k in kernels:
            if k.entry in self.functions:
                continue
            cubin = self.cubins.get(k.digest)
            if cubin is None:
                cubin = build_cubin(k.source, k.entry, build_arch(self.arch, k.arch_specific)).cubin
            mod = self.cp.cuda.function.Module()
            mod.load(cubin)
            self.modules.append(mod)
            fn = mod.get_function(k.entry)
            if k.shared_bytes > 48 * 1024:
                _allow_dynamic_shared(fn, k)
            self.functions[k.entry] = fn

    def alloc(self, nbytes: int):
        return self.cp.empty(nbytes, dtype=self.cp.uint8)

    def view(self, arena, offset: int, t: TensorType):
        return arena[offset:offset + t.nbytes].view(t.dtype.np).reshape(t.shape)

    def to_device(self, a: np.ndarray):
        return self.cp.asarray(np.require(a, requirements="C"))   # C order, rank 0 kept

    def to_host(self, a) -> np.ndarray:
        return self.cp.asnumpy(a)

    def device_array(self, a):
        """`a` as a CuPy array without a copy when it is in device memory (CuPy, or anything with
        __cuda_array_interface__: a PyTorch CUDA tensor, Numba's), else None."""
        if isinstance(a, self.cp.ndarray):
            return a
        if hasattr(a, "__cuda_array_interface__"):
            return self.cp.asarray(a)
        return None

    def on_device(self, a) -> bool:
        return isinstance(a, self.cp.ndarray)

    def same_buffer(self, a, b) -> bool:
        return a.data.ptr == b.data.ptr and a.nbytes == b.nbytes

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
        if kernel.tensor_maps:
            self._launch_with_maps(fn, kernel, ptrs)
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

    def _launch_with_maps(self, fn, kernel, args) -> None:
        # The maps follow the pointers as 128-byte by-value (__grid_constant__) parameters; CuPy
        # cannot pass those, the driver API can.
        from cuda.bindings import driver
        import ctypes
        vals: list = [ctypes.c_void_p(int(a.data.ptr)) for a in args]
        vals += [tensor_map_bytes(m, int(args[m.param].data.ptr)) for m in kernel.tensor_maps]
        ptrs = (ctypes.c_void_p * len(vals))(*[ctypes.addressof(v) for v in vals])
        err, = driver.cuLaunchKernel(fn.ptr, *kernel.grid, *kernel.block, kernel.shared_bytes,
                                     self.cp.cuda.get_current_stream().ptr, ctypes.addressof(ptrs), 0)
        if int(err) != 0:
            raise RuntimeFault(f"launch of {kernel.entry} failed: {err}")

    def synchronize(self) -> None:
        self.cp.cuda.get_current_stream().synchronize()

    # CUDA graphs: the executor captures the whole plan once on a stream of ours and replays it
    _stream = None

    def _graph_stream(self):
        if self._stream is None:
            self._stream = self.cp.cuda.Stream(non_blocking=True)
        self._stream.use()        # launches, copies and synchronize go to it from now on
        return self._stream

    def begin_capture(self) -> None:
        self._graph_stream().begin_capture()

    def end_capture(self):
        return self._graph_stream().end_capture()

    def replay(self, graph) -> None:
        graph.launch(self._graph_stream())

    def capture(self, fn):
        """fn's launches (issued on the current stream, buffers allocated before) captured once as
        a CUDA graph; returns a callable that replays it (bench/e2e.py times it so)."""
        self.synchronize()
        stream = self._graph_stream()
        stream.begin_capture()
        try:
            fn()
        finally:
            graph = stream.end_capture()
        return lambda: graph.launch(stream)

    def upload(self, dst, a: np.ndarray) -> None:
        dst.set(np.require(a, requirements="C"), stream=self._graph_stream())


_TMA_TYPES = {"float16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", "bfloat16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16"}
_map_cache: dict = {}
_MAP_CACHE_LIMIT = 4096


def tensor_map_bytes(m, address: int):
    """The 128-byte CUtensorMap of declaration `m` over the tensor at `address` (cuTensorMapEncodeTiled;
    cached per address: the same buffer is launched on again and again)."""
    import ctypes
    from cuda.bindings import driver
    key = (m, address)
    if key not in _map_cache:
        if len(_map_cache) >= _MAP_CACHE_LIMIT:    # buffers come and go (rotated inputs): start afresh
            _map_cache.clear()
        rank = len(m.dims)
        swz = driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B if m.swizzle == 128 else \
            driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE
        err, tmap = driver.cuTensorMapEncodeTiled(
            getattr(driver.CUtensorMapDataType, _TMA_TYPES[m.dtype]), rank, address,
            [driver.cuuint64_t(x) for x in m.dims], [driver.cuuint64_t(x) for x in m.strides],
            [driver.cuuint32_t(x) for x in m.box], [driver.cuuint32_t(1)] * rank,
            driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, swz,
            driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
        if int(err) != 0:
            raise RuntimeFault(f"cuTensorMapEncodeTiled({m}) failed: {err}")
        words = [int(w) for w in tmap.opaque]
        _map_cache[key] = (ctypes.c_uint64 * len(words))(*words)
    return _map_cache[key]
