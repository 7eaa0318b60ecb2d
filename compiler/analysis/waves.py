"""The step graph of a plan and its waves (Rammer, OSDI'20; issue 14 item 1).

A plan's values are written once (single assignment until the memory plan shares the arena, which
runs after the rammer stage), so a step depends exactly on the steps that write what it reads.
A step's wave is its depth in that graph: the breadth-first frontier it belongs to. Steps of one
wave are independent of each other, so they may run in any order, or at once in one launch."""
from __future__ import annotations

from ..ir.dataflow import reads, writes
from ..ir.plan import Plan


def step_dependencies(plan: Plan) -> list[set[int]]:
    """For each top-level step, the indices of the earlier steps it reads a value from."""
    writer: dict[str, int] = {}
    deps: list[set[int]] = []
    for k, s in enumerate(plan.steps):
        deps.append({writer[v] for v in reads(s) if v in writer})
        for v in writes(s):
            writer[v] = k
    return deps


def waves(plan: Plan) -> list[int]:
    """Each top-level step's wave: 0 when it reads only the plan's inputs, constants and outer
    values, else one more than the latest wave it reads from."""
    level: list[int] = []
    for d in step_dependencies(plan):
        level.append(1 + max((level[k] for k in d), default=-1))
    return level
