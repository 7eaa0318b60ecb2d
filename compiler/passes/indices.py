"""Index canonicalisation (Plan -> Plan): every kernel spec's index arithmetic with fewer integer
divisions and remainders, where the variables' bounds prove them away (analysis/quasi_affine.py).

Reshapes, expands and window partitions lower to linearised offsets taken apart again by / and %:
a grouped-query model's repeated keys read K[(r + 128 j + 524288 h) / 2097152 % 8, (r + 128 j +
524288 h) / 128 % 4096, (r + ...) % 128], which is K[(...) / 2097152, j, r]. Each division is 64-bit
arithmetic in every thread for every element (a sequence of instructions, not one), and a kind that looks
for affine loads (coalescing, vector access, the attention kinds' operands) sees through fewer of
them. The rewrite keeps a sub-expression unless its form has fewer divisions, so a spec without
any provably redundant division is the same spec (its key and kernel unchanged).

Run by the welder stage after its register level: lowering keeps a reshape as an alias and each
op's own index affine; the divisions appear where a consumer composed with its producers reads
through the alias. It is canonicalisation, exact within the bounds, not a technique with a
trade-off: no switch of its own (with `--disable welder` nothing is composed and there is nothing
to remove)."""
from __future__ import annotations

import dataclasses

from ..analysis.dependence import extents_of
from ..analysis.quasi_affine import divisions, fewer_divisions
from ..ir.dataflow import map_bodies, with_steps
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import TensorExpr


def simplify_plan(plan: Plan) -> tuple[Plan, dict]:
    """The plan with its specs' index arithmetic simplified; stats: the divisions and remainders
    before and after, and the specs changed."""
    stats = {"before": 0, "after": 0, "specs_changed": 0}
    return _plan(plan, stats), stats


def _plan(plan: Plan, stats: dict) -> Plan:
    steps = []
    for s in plan.steps:
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            spec = simplify_spec(s.spec, stats)
            s = s if spec is s.spec else ComputeStep(spec)
        else:
            s = map_bodies(s, lambda body: _plan(body, stats))
        steps.append(s)
    return with_steps(plan, steps, dict(plan.constants), dict(plan.types))


def simplify_spec(spec: KernelSpec, stats: dict | None = None) -> KernelSpec:
    """`spec` with each stage's expression simplified (the spec itself when nothing changed)."""
    stages = tuple(_stage(st, stats) for st in spec.stages)
    if all(a is b for a, b in zip(stages, spec.stages)):     # no stage changed
        return spec
    if stats is not None:
        stats["specs_changed"] += 1
    return dataclasses.replace(spec, stages=stages)


def _stage(st: Stage, stats: dict | None) -> Stage:
    te = st.expr
    bounds = {v: (0, n - 1) for v, n in extents_of(te).items()}
    body = fewer_divisions(te.body, bounds)
    epilogue = fewer_divisions(te.epilogue, bounds) if te.epilogue is not None else None
    if stats is not None:
        stats["before"] += divisions(te.body) + (divisions(te.epilogue) if te.epilogue is not None else 0)
        stats["after"] += divisions(body) + (divisions(epilogue) if epilogue is not None else 0)
    if body == te.body and epilogue == te.epilogue:
        return st
    return dataclasses.replace(st, expr=TensorExpr(te.name, te.inputs, te.output, body, te.reduce, epilogue))
