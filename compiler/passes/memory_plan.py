"""Memory plan: one arena for all intermediates, offsets assigned by liveness (first fit)."""
from __future__ import annotations

import dataclasses

from ..ir.dataflow import map_bodies, reads, writes
from ..ir.plan import AliasStep, LoopStep, Plan, ScanStep

ALIGN = 256


def plan_memory(plan: Plan) -> Plan:
    """Gives every intermediate (not an input, constant or dynamically sized value) an arena offset."""
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, plan_memory) for s in plan.steps))
    types = dict(plan.types)
    consts = {n for n, _ in plan.constants}
    external = set(plan.inputs) | consts | set(plan.outer) | {out for out, _ in plan.donated}   # donated: the input's buffer
    dynamic = _dynamic_values(plan)

    # Aliases share their root's buffer, so a root lives until its aliases' last use.
    root: dict[str, str] = {}
    def find(n: str) -> str:
        while n in root:
            n = root[n]
        return n
    for s in plan.steps:
        if isinstance(s, AliasStep):
            root[s.dst] = s.src

    first: dict[str, int] = {}
    last: dict[str, int] = {}
    end = len(plan.steps)
    for i, s in enumerate(plan.steps):
        for n in writes(s):
            r = find(n)
            first.setdefault(r, i)
            last[r] = max(last.get(r, i), i)
        for n in reads(s):
            r = find(n)
            last[r] = max(last.get(r, i), i)
    for n in plan.outputs:
        first.setdefault(find(n), 0)  # an output no step writes (an empty one) still needs a buffer
        last[find(n)] = end
    for _, n, _ in plan.output_lengths:   # read on return, to trim its output
        last[find(n)] = end

    # A zero-size value holds no bytes: it needs no writer and takes no arena space (offset 0).
    named = set(first) | {find(n) for s in plan.steps for n in reads(s)}
    empty = {r for r in named if r not in external and r not in dynamic and r in types and types[r].nbytes == 0}
    live = sorted((first[r], last[r], r) for r in first
                  if r not in external and r not in dynamic and r in types and r not in empty)
    placed: list[tuple[int, int, int, int]] = []  # (start, end, offset, size)
    offsets: dict[str, int] = dict.fromkeys(empty, 0)
    top = 0
    for start, stop, name in sorted(live, key=lambda x: -types[x[2]].nbytes):
        size = _round(max(types[name].nbytes, 1))
        busy = sorted((o, o + sz) for s0, e0, o, sz in placed if not (e0 < start or s0 > stop))
        off = 0
        for lo, hi in busy:
            if off + size <= lo:
                break
            off = max(off, _round(hi))
        offsets[name] = off
        placed.append((start, stop, off, size))
        top = max(top, off + size)
    return dataclasses.replace(plan, arena=tuple(sorted(offsets.items(), key=lambda kv: kv[1])), arena_bytes=top)


def _round(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def _dynamic_values(plan: Plan) -> set[str]:
    """Loop scan outputs: their leading dimension is only known at run time."""
    out: set[str] = set()
    for s in plan.steps:
        if isinstance(s, LoopStep) and s.n_scan > 0:
            out |= set(s.outputs[len(s.outputs) - s.n_scan:])
        if isinstance(s, ScanStep):
            out |= set(s.outputs[s.n_state:])
    return out

