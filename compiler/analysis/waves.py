"""The step graph of a plan and its waves (Rammer, OSDI'20; issue 14 item 1).

A plan's values are mostly written once (the memory plan, which shares the arena, runs after the
rammer stage), so a step depends on the steps that write what it reads; a value written in
steps (a scatter's copy, then its updates in place) also orders its writers, and each after the
readers of what the one before wrote.
A step's wave is its depth in that graph: the breadth-first frontier it belongs to. Steps of one
wave are independent of each other, so they may run in any order, or at once in one launch."""
from __future__ import annotations

from ..ir.dataflow import reads, writes
from ..ir.plan import Plan


def step_dependencies(plan: Plan) -> list[set[int]]:
    """For each top-level step, the indices of the earlier steps it reads a value from."""
    writer: dict[str, int] = {}
    readers: dict[str, set[int]] = {}       # of each value since its last write
    deps: list[set[int]] = []
    for k, s in enumerate(plan.steps):
        r, w = reads(s), writes(s)
        d = {writer[v] for v in r | w if v in writer}
        d |= {j for v in w for j in readers.get(v, ())}
        deps.append(d - {k})
        for v in r:
            readers.setdefault(v, set()).add(k)
        for v in w:
            writer[v] = k
            readers[v] = set()
    return deps


def waves(plan: Plan) -> list[int]:
    """Each top-level step's wave: 0 when it reads only the plan's inputs, constants and outer
    values, else one more than the latest wave it reads from."""
    level: list[int] = []
    for d in step_dependencies(plan):
        level.append(1 + max((level[k] for k in d), default=-1))
    return level
