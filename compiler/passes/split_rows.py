"""Normalisations over a few long rows run as their stages apart (part of the welder stage, before
the groups are chosen): AStitch's adaptive mapping for rows too long and too few for one block each.

The lowering makes every normalisation one row chain (ops/normalization.py `_normalise_rows`: the
row statistics, then the map that normalises), which a block per row renders. GroupNorm at batch 1
has as many rows as groups: 32 rows of C/32 x H x W, a million elements each at a VAE decoder's
512 x 512 output, so 32 blocks stream the whole tensor two or three times while most SMs idle.
Apart, each statistic is a reduction that `reduce_split` spreads over many blocks per row (the row's
last block combining the slices), and the normalising map is an elementwise kernel that fills the
GPU; the register level then composes the maps after it (GroupNorm's per-channel scale and shift,
a SiLU) into that map, through the reshape between them.

Which way is decided per chain by the cost model, both ways rendered as they would be placed and
priced as the report prices them (`kernel_us`, plus a launch each): only chains of fewer rows than
the target has SMs are looked at, and a chain stays whole unless its stages apart are predicted
faster. `fusion.split_rows` records each chain looked at, both predictions and the choice."""
from __future__ import annotations

import dataclasses

from ..analysis.views import gemm_view
from ..ir.dataflow import map_bodies
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec
from ..roller.cost_model import LAUNCH_US, kernel_us
from ..targets import Target
from .render import render_spec
from .roller import tile_spec


def split_rows_plan(plan: Plan, target: Target) -> tuple[Plan, list[dict]]:
    """The plan with each row chain of statistics over fewer rows than `target` has SMs replaced by
    its stages, one spec each, where that is predicted faster; a record entry per chain priced."""
    record: list[dict] = []
    return _plan(plan, target, record), record


def _plan(plan: Plan, target: Target, record: list[dict]) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, lambda b: _plan(b, target, record)) for s in plan.steps))
    types = dict(plan.types)
    steps = []
    for s in plan.steps:
        apart = _apart(s, types, target, record)
        steps += apart if apart is not None else [s]
    return dataclasses.replace(plan, steps=tuple(steps))


def statistics_chain(spec: KernelSpec) -> bool:
    """A lowered row chain of statistics: row reductions that are no contraction, then one map,
    every stage but the last carried (nothing else written), no kind chosen yet."""
    *stats, last = spec.stages
    return (len(spec.stages) > 1 and spec.kind is None and not spec.workspace
            and set(spec.written) == {last.output} and last.expr.reduce is None
            and all(st.expr.reduce is not None and gemm_view(st.expr) is None for st in stats))


def _apart(step, types: dict, target: Target, record: list[dict]) -> list | None:
    if not (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec) and statistics_chain(step.spec)):
        return None
    spec = step.spec
    rows = spec.stages[0].expr.output.size
    if rows >= target.sms:
        return None
    whole = rendered_us(spec, types, target)
    parts = [KernelSpec(stages=(st,), ops=spec.ops) for st in spec.stages]
    trial = dict(types)      # a split configuration's workspace, for pricing only (the roller adds its own)
    split = sum(rendered_us(tile_spec(p, target, types=trial), trial, target) for p in parts)
    entry = {"ops": list(spec.ops), "rows": rows, "row_length": spec.stages[0].expr.reduce.extent,
             "statistics": [st.output for st in spec.stages[:-1]],
             "predicted_us": {"whole": round(whole, 3), "apart": round(split, 3)}, "split": split < whole}
    record.append(entry)
    if not entry["split"]:
        return None
    return [ComputeStep(p) for p in parts]     # untiled: the register level composes the maps after


def rendered_us(spec: KernelSpec, types: dict, target: Target) -> float:
    """The spec's launches as the render stage would place them, as the report prices them."""
    return sum(kernel_us(k, types, target) + LAUNCH_US for k in render_spec(spec, target))
