"""The launch record: a rendered kernel's CUDA C source (written against the prelude), its parameters and
launch shape. Made only by rendering; the plan's launch steps hold it."""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from .graph import _fields_key
from .texpr import TensorExpr

@dataclass(frozen=True)
class KernelParam:
    """A pointer parameter bound to a graph value (or a temporary) by name."""

    ctype: str      # element C type, e.g. "float"
    value: str      # graph value name the runtime binds
    output: bool    # written by the kernel


BODY_SUFFIX = "_body"   # a rendered kernel's block function is `<entry>_body` (codegen/block_function.py)

# Pointer parameters one launch may pass: CUDA's 4 KB of kernel parameters, 8 bytes a pointer,
# less room for tensor maps and the runtime's scalars. A kernel that writes one output per
# step of an unrolled loop (a scan's) meets it; a co-launch adds its members' together.
MAX_POINTER_PARAMS = 384

TMA_DTYPES = {"float16": 2, "bfloat16": 2}   # element types a tensor map may describe (bytes)


@dataclass(frozen=True)
class TensorMapDecl:
    """A tensor map (TMA descriptor) the runtime builds from pointer parameter `param` and passes by
    value after all pointer parameters, in declaration order, as `const __grid_constant__
    by_tensor_map` (cuTensorMapEncodeTiled on a GPU, an emulated map on the host harness)."""

    param: int                    # index into Kernel.params of the tensor the map describes
    dtype: str                    # element DType name (TMA_DTYPES)
    dims: tuple[int, ...]         # global extents in elements, innermost first
    strides: tuple[int, ...]      # byte strides of dims[1:] (dims[0] is contiguous)
    box: tuple[int, ...]          # the box one copy moves, innermost first
    swizzle: int = 128            # bytes of the shared-memory swizzle pattern (128), or 0

    def __post_init__(self):
        rank = len(self.dims)
        if not 1 <= rank <= 5 or len(self.box) != rank or len(self.strides) != rank - 1:
            raise ValueError(f"tensor map of rank {rank}: {len(self.box)} box extents, {len(self.strides)} strides")
        if self.dtype not in TMA_DTYPES or self.swizzle not in (0, 128):
            raise ValueError(f"tensor map of {self.dtype} with swizzle {self.swizzle}")
        if any(s % 16 for s in self.strides) or any(not 1 <= b <= 256 for b in self.box):
            raise ValueError(f"tensor map strides {self.strides} (multiples of 16 bytes), box {self.box} (1..256)")

    @property
    def elem_bytes(self) -> int:
        return TMA_DTYPES[self.dtype]


@dataclass(frozen=True)
class Kernel:
    """One kernel launch: source, entry point, parameters (all pointers, in order) and launch shape."""

    entry: str
    source: str
    params: tuple[KernelParam, ...]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int = 0
    cooperative: bool = False            # needs all blocks resident (grid-wide barrier)
    ops: tuple[str, ...] = ()            # names of the graph nodes it implements
    config: tuple[tuple[str, Any], ...] = ()
    tensor_maps: tuple[TensorMapDecl, ...] = ()
    arch_specific: bool = False          # needs the arch-specific target (sm_90a: wgmma)
    carried: tuple[tuple[str, str], ...] = ()   # values its fused stages pass inside it, and their level
    arrivals: int = 0                    # counters its blocks arrive on (by_block.arrivals; split-K: one per tile)
    expr: TensorExpr | None = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the source: names the kernel in the cache and the artifact."""
        return hashlib.sha256(self.source.encode()).hexdigest()

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    @functools.cached_property
    def body(self) -> str | None:
        """The block function the entry wraps (`<entry>_body`: the kernel's params, then a
        by_block_index), which a co-launching or persistent wrapper calls with block indices of its
        own over this kernel's grid, at this kernel's block shape and shared memory; None for a
        source without one (a hand-written kernel). Derived from entry and source, so it is in no
        key and survives an artifact's round trip."""
        name = self.entry + BODY_SUFFIX
        return name if re.search(rf"\bBY_DEVICE void {name}\(", self.source) else None

    @property
    def blocks(self) -> int:
        """Blocks the launch runs (the grid's extent)."""
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads(self) -> int:
        """Threads per block (the block's extent)."""
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def uses_block_sync(self) -> bool:
        return bool(re.search(r"__syncthreads|__syncwarp|__shfl|__ballot|__any_sync|__all_sync|__activemask|__reduce_\w+_sync|by_ldmatrix|by_mma|by_grid_sync|by_part_sync|by_wgmma|by_mbar|by_tma|by_step_",
                              self.source))
