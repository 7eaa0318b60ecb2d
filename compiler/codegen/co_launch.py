"""Rammer's co-launch (issue 14 item 2): the block functions of independent kernels run by one
launch. The hardware blocks are the members' virtual grids laid end to end; the co-launch's own
body is a dispatcher that calls one member's body per block, with that member's block index and
grid (codegen/block_function.py: bodies read their position only through by_block). So a
co-launch is itself one body and one wrapper, which a persistent kernel could call in turn.
Members share a block shape (threadIdx and blockDim stay the hardware's); shared memory is the
largest member's; identical member sources are included once (their names are content hashes,
so distinct sources never clash)."""
from __future__ import annotations

import re

from ..ir.kernel import Kernel, KernelParam
from .block_function import BLOCK_X, finish_kernel, split_wrapper

_PARAM_NAME = re.compile(r"([A-Za-z_]\w*)\s*$")


def can_co_launch(k: Kernel) -> str | None:
    """Why kernel k cannot be a member of a co-launch, or None."""
    if k.body is None:
        return "no block function"
    if k.cooperative:
        return "a cooperative launch (grid-wide barrier)"
    if k.tensor_maps or k.arch_specific:
        return "tensor maps / arch-specific (wgmma) code"
    return None


def co_launch(parts: list[Kernel]) -> Kernel:
    """One kernel running `parts` (at least two, one block shape, each co-launchable), each on its
    own range of hardware blocks; its params are the parts' params in order."""
    if len(parts) < 2 or len({k.block for k in parts}) != 1:
        raise ValueError("a co-launch runs two or more kernels of one block shape")
    for k in parts:
        why = can_co_launch(k)
        if why is not None:
            raise ValueError(f"{k.entry} cannot be co-launched: {why}")
    decls: list[str] = []
    helpers: dict[str, None] = {}
    lines = [f"  const unsigned int by_b = {BLOCK_X};"]
    start = 0
    for j, k in enumerate(parts):
        body_source, params = split_wrapper(k.source, k.entry)
        helpers[body_source] = None
        ours = []
        for d in params:
            name = _PARAM_NAME.search(d).group(1)
            decls.append(_PARAM_NAME.sub(f"m{j}_{name}", d))
            ours.append(f"m{j}_{name}")
        n = k.grid[0] * k.grid[1] * k.grid[2]
        gx, gy, gz = k.grid
        lines.append(f"  {'if' if j == 0 else 'else if'} (by_b < {start + n}u) "
                     f"{k.body}({', '.join(ours + [f'by_block_at(by_b - {start}u, dim3({gx}, {gy}, {gz}))'])});")
        start += n
    threads = parts[0].block[0] * parts[0].block[1] * parts[0].block[2]
    entry, source = finish_kernel("colaunch", decls, lines, launch_bounds=(threads,),
                                  helpers="".join(helpers).rstrip("\n"))
    params: tuple[KernelParam, ...] = tuple(p for k in parts for p in k.params)
    return Kernel(entry=entry, source=source, params=params, grid=(start, 1, 1), block=parts[0].block,
                  shared_bytes=max(k.shared_bytes for k in parts), ops=tuple(op for k in parts for op in k.ops),
                  carried=tuple(c for k in parts for c in k.carried))
