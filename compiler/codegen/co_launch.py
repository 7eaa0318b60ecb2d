"""Rammer's co-launch (issue 14 item 2): the block functions of independent kernels run by one
launch. The hardware blocks are the members' virtual grids laid end to end; the co-launch's own
body is a dispatcher that calls one member's body per block, with that member's block index and
grid (codegen/block_function.py: bodies read their position only through by_block). So a
co-launch is itself one body and one wrapper, which a persistent kernel could call in turn.
Members share a block shape (threadIdx and blockDim stay the hardware's), or are all
one-dimensional: then the launch's block is the widest member's and a narrower member runs on
its first threads, the others idle for its blocks; its body sees its own width (blockDim.x) and
syncs its own threads on hardware barrier 1 instead of __syncthreads (`narrowed`). Shared memory
is the largest member's; identical member sources are included once (their names are content
hashes, so distinct sources never clash; a narrowed body is renamed for its width). A member whose
blocks count arrivals (Kernel.arrivals: split-K) gets counters of its own from the co-launch.

The barrier variant (`co_launch(parts, waits=...)`) also runs members that depend on each other:
a block of a member first waits on the step counters (prelude: by_step_wait) of the members it
reads from, and every block signals its member's counter when done. That is only safe when every
block of the launch is resident at once, so the kernel is cooperative (the launch fails rather
than hang where they are not) and its launch bounds ask for the blocks per SM it needs. Member
bodies lose `__restrict__` there: a value written by one member is read by another in the same
launch, which the read-only data path must not cache."""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from ..ir.kernel import Kernel, KernelParam
from .block_function import (BLOCK_X, arrivals_array, can_run_narrowed, definitions, finish_kernel, narrowed_source,
                             split_wrapper)
from .naming import NAME_PLACEHOLDER

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


def launch_block(parts: Sequence[Kernel]) -> tuple[int, int, int] | None:
    """The block a co-launch of `parts` runs: their common shape, or, when they are all
    one-dimensional and each narrower one can run on the first threads of a wider block
    (`can_run_narrowed`), the widest; else None."""
    shapes = {k.block for k in parts}
    if len(shapes) == 1:
        return next(iter(shapes))
    if any(k.block[1:] != (1, 1) for k in parts):
        return None
    widest = max(k.threads for k in parts)
    if any(k.threads < widest and not can_run_narrowed(k) for k in parts):
        return None
    return (widest, 1, 1)


def narrowed(body_source: str, k: Kernel) -> str:
    """k's body (and its helpers) as run by the first k.threads threads of a wider block: renamed
    for its width, its blockDim its own, its barriers over its own threads (hardware barrier 1)."""
    source = re.sub(rf"\b{re.escape(k.entry)}", f"{k.entry}_w{k.threads}", body_source)
    return narrowed_source(source, k.threads, "1u")


def co_launch(parts: list[Kernel], *, waits: Sequence[Sequence[int]] | None = None,
              blocks_per_sm: int = 1) -> Kernel:
    """One kernel running `parts` (at least two, of one block shape or all one-dimensional: see
    `launch_block`; each co-launchable), each on its own range of hardware blocks; its params are
    the parts' params in order. With `waits` (for each part, the earlier parts whose blocks must
    all be done before any of its blocks start), the barrier variant: cooperative, with launch
    bounds of `blocks_per_sm` blocks per SM."""
    block = launch_block(parts)
    if len(parts) < 2 or block is None:
        raise ValueError("a co-launch runs two or more kernels of one block shape, or one-dimensional ones")
    for k in parts:
        why = can_co_launch(k)
        if why is not None:
            raise ValueError(f"{k.entry} cannot be co-launched: {why}")
    if waits is not None and (len(waits) != len(parts) or any(w >= j or w < 0 for j, ws in enumerate(waits) for w in ws)):
        raise ValueError("waits: one list per part, of earlier parts only")
    decls: list[str] = []
    helpers: dict[str, None] = {}
    lines = [f"  const unsigned int by_b = {BLOCK_X};"]
    steps = None
    states: list[str] = []
    if waits is not None:   # one counter per part and one of finished blocks; named after the launch
        steps = "by_steps_" + hashlib.sha256(repr([(k.entry, k.grid) for k in parts] + [list(w) for w in waits])
                                             .encode()).hexdigest()[:16]
    start = 0
    # (body, grid, width) -> its members' (index, first block, params, counters)
    calls: dict[tuple, list[tuple[int, int, list[str], str]]] = {}
    for j, k in enumerate(parts):
        body_source, params = split_wrapper(k.source, k.entry)
        body = k.body
        if k.threads < block[0]:
            body_source = narrowed(body_source, k)
            body = f"{k.entry}_w{k.threads}_body"
        if steps is not None:
            body_source = body_source.replace("__restrict__", "")
        for chunk in definitions(body_source):     # (a table two members walk: defined once)
            helpers[chunk] = None
        ours = []
        for d in params:
            name = _PARAM_NAME.search(d).group(1)
            decl = " ".join(d.replace("__restrict__", "").split()) if steps is not None else d
            decls.append(_PARAM_NAME.sub(f"m{j}_{name}", decl))
            ours.append(f"m{j}_{name}")
        n = k.blocks
        gx, gy, gz = k.grid
        at = f"by_b - {start}u, dim3({gx}, {gy}, {gz})"
        state = ""
        if k.arrivals:     # this member's own counters (a body may be a member twice)
            decl, state = arrivals_array(f"{NAME_PLACEHOLDER}_m{j}", k.arrivals)
            states.append(decl)
            at += f", {state}"
        if steps is None:
            calls.setdefault((body, k.grid, k.threads), []).append((j, start, ours, state))
        else:
            call = f"{body}({', '.join(ours + [f'by_block_at({at})'])});"
            if k.threads < block[0]:
                call = f"{{ if (threadIdx.x < {k.threads}u) {call} }}"   # braced: the dispatch's else is not its
            test = f"{'if' if j == 0 else 'else if'} (by_b < {start + n}u)"
            lines.append(f"  {test} {{")
            for w in waits[j]:
                lines.append(f"    by_step_wait(&{steps}[{w}], {parts[w].blocks}u);")
            lines += [f"    {call}", f"    by_step_signal(&{steps}[{j}]);", "  }"]
        start += n
    if steps is None:
        lines += _dispatch(calls, start, block[0])
    threads = block[0] * block[1] * block[2]
    bounds: tuple[int, ...] = (threads,)
    helper_text = "\n".join(t for t in ["".join(helpers).rstrip("\n"), *states] if t)
    if steps is not None:
        lines.append(f"  by_steps_reset({steps}, {len(parts)}, {start}u);")
        bounds = (threads, max(1, blocks_per_sm))
        helper_text = f"__device__ unsigned int {steps}[{len(parts) + 1}];\n" + helper_text
    entry, source = finish_kernel("colaunch" if steps is None else "barrier", decls, lines, launch_bounds=bounds,
                                  helpers=helper_text)
    params: tuple[KernelParam, ...] = tuple(p for k in parts for p in k.params)
    return Kernel(entry=entry, source=source, params=params, grid=(start, 1, 1), block=block,
                  shared_bytes=max(k.shared_bytes for k in parts), ops=tuple(op for k in parts for op in k.ops),
                  carried=tuple(c for k in parts for c in k.carried), cooperative=steps is not None)


def _dispatch(calls: dict, blocks: int, width: int) -> list[str]:
    """The dispatcher's lines: each distinct body called (inlined) once, however many members run
    it. Members of one body (a head applied to two levels of one size, two branches alike) differ
    only in their pointers, first block and counters, which the call selects by member: ptxas
    compiles each body once, not once per member that inlines it."""
    bodies = sorted(calls.items(), key=lambda c: c[1][0][0])       # by first member
    members = sorted((m for _, ms in bodies for m in ms), key=lambda m: m[0])
    bounds = {m[0]: (members[i + 1][1] if i + 1 < len(members) else blocks) for i, m in enumerate(members)}

    def call(body, grid, threads, args, first, state) -> str:
        at = f"by_b - {first}, dim3({grid[0]}, {grid[1]}, {grid[2]})" + (f", {state}" if state else "")
        text = f"{body}({', '.join(args + [f'by_block_at({at})'])});"
        # braced: the dispatch's else is not the width test's
        return f"{{ if (threadIdx.x < {threads}u) {text} }}" if threads < width else text

    if all(len(ms) == 1 for _, ms in bodies):       # each member its own body: a range each
        return [f"  {'if' if n == 0 else 'else if'} (by_b < {bounds[j]}u) "
                + call(body, grid, threads, ours, f"{start}u", state)
                for n, ((body, grid, threads), [(j, start, ours, state)]) in enumerate(bodies)]
    out = ["  unsigned int by_m = 0u, by_first = 0u;   // the block's member and that member's first block"]
    out += [f"  {'if' if n == 0 else 'else if'} (by_b >= {start}u) {{ by_m = {j}u; by_first = {start}u; }}"
            for n, (j, start, _, _) in enumerate(m for m in reversed(members) if m[0] > 0)]
    for n, ((body, grid, threads), ms) in enumerate(bodies):
        def pick(values: list[str]) -> str:
            """The block's member's value among this body's members' (the first one's otherwise)."""
            text = values[0]
            for (j, _, _, _), v in zip(ms[1:], values[1:]):
                text = f"by_m == {j}u ? {v} : {text}"
            return text if len(values) == 1 else f"({text})"
        args = [pick([m[2][a] for m in ms]) for a in range(len(ms[0][2]))]
        test = " || ".join(f"by_m == {j}u" for j, _, _, _ in ms)
        out.append(f"  {'if' if n == 0 else 'else if'} ({test}) "
                   + call(body, grid, threads, args, "by_first", pick([m[3] for m in ms]) if ms[0][3] else ""))
    return out
