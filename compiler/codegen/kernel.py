"""A generated kernel: CUDA C source written against the prelude, its parameters and launch shape."""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..ir.graph import _fields_key
from ..ir.texpr import TensorExpr

NAME_PLACEHOLDER = "BY_KERNEL_NAME"


@dataclass(frozen=True)
class KernelParam:
    """A pointer parameter bound to a graph value (or a temporary) by name."""

    ctype: str      # element C type, e.g. "float"
    value: str      # graph value name the runtime binds
    output: bool    # written by the kernel


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
    expr: TensorExpr | None = field(default=None, compare=False, repr=False)

    @functools.cached_property
    def digest(self) -> str:
        """sha256 of the source: names the kernel in the cache and the artifact."""
        return hashlib.sha256(self.source.encode()).hexdigest()

    @functools.cached_property
    def key(self) -> str:
        return _fields_key(self)

    @property
    def uses_block_sync(self) -> bool:
        return bool(re.search(r"__syncthreads|__syncwarp|__shfl|__ballot|__any_sync|__all_sync|__activemask|__reduce_\w+_sync|by_ldmatrix|by_mma|by_grid_sync",
                              self.source))


def finish_source(prefix: str, source: str) -> tuple[str, str]:
    """Names a kernel after its content: replaces the placeholder by prefix_<sha256[:16]>."""
    h = hashlib.sha256(source.encode()).hexdigest()[:16]
    entry = f"{re.sub(r'[^A-Za-z0-9_]', '_', prefix)}_{h}"
    return entry, source.replace(NAME_PLACEHOLDER, entry)
