"""Stitched maps (part of the welder stage, after the prologues): maps the register level left
apart because a value of theirs has several readers, joined into one kernel that computes each
value once per element (kinds/stitched_maps.py; AStitch's local stitching with several outputs).

The register level composes a producer into its consumer only when the consumer is its sole
reader: a composed value is recomputed at every load. An unrolled elementwise recurrence (RWKV's
time mixing: per step a running maximum, two exponentials, numerator and denominator states,
each read by the next step and by the step's output) therefore stays a launch per step. Here a
group grows from each map spec through later map specs of the same output shape that read a
group value at their own index (a one-to-one edge: a register, no recomputation, no halo):

- a step that reads a group value otherwise (a reduction, a broadcast, a reshape alias, an
  in-place update: ir/dataflow.readers_of) is *downstream* of the group, and so is every step
  that reads what such a step writes; a map reading a downstream value cannot join (the group
  would depend on itself through it);
- the group runs where its last member ran; the downstream steps between its first and last
  member move after it, in their order, and the rest stay before it;
- a value read outside the group, or a plan output, is written; the others stay in registers;
- maps inside the window that read no group value but that members read at their own index
  (the k_t + u a step's states meet) join too: siblings, computed once beside the states;
- a group passes at most the kernel parameter budget's pointers (ir/kernel.MAX_POINTER_PARAMS);
- in a loop body, work that does not depend on the iteration (the grinder stage hoists it out
  of the loop) and work that does are never one group.

Joining pays by construction (each value computed once, fewer bytes and launches); the record
keeps both predictions for the report (the group by the micro-model, its members apart by the
fallback model of their bytes and FLOPs, a launch each). The groups' windows do not
overlap: a step inside an earlier group's window joins no later group."""
from __future__ import annotations

import dataclasses
import math

from ..analysis.dependence import input_bytes
from ..ir.dataflow import bodies, map_bodies, readers_of, writes
from ..ir.kernel import MAX_POINTER_PARAMS
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Level
from ..kinds import stitched_maps
from ..roller.cost_model import LAUNCH_US, expr_flops, predict_us
from ..roller.micro_model import predict
from ..targets import Target


def stitch_maps_plan(plan: Plan, target: Target) -> tuple[Plan, dict]:
    """The plan with its stitched map groups as one spec each; the record lists the groups and
    counts the kernels they removed."""
    record: dict = {"groups": [], "removed": 0}
    return _plan(plan, record, target), record


def _member(step) -> bool:
    """A map spec the register level left as it is: no kind yet, one expression, no reduction."""
    if not (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec)):
        return False
    spec = step.spec
    if spec.kind is not None or spec.workspace or not spec.composable:
        return False
    te = spec.expr
    return te.reduce is None and te.epilogue is None


@dataclasses.dataclass
class _Group:
    members: list[int]
    values: set[str]          # what the members define
    downstream: set[str]      # values of non-members that depend on the group
    moved: list[int]          # the non-members between the members that depend on the group


def _plan(plan: Plan, record: dict, target: Target) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, lambda b: _plan(b, record, target))
                                                 for s in plan.steps))
    steps = list(plan.steps)
    readers = readers_of(steps)
    reads: list[set[str]] = [set() for _ in steps]
    for v, rs in readers.items():
        for r in rs:
            reads[r].add(v)
    last_read = {v: max(rs) for v, rs in readers.items()}
    pinned = set(plan.returned)
    varies = _varying(steps, reads, plan)
    groups: list[_Group] = []
    closed = -1          # the last step of the latest group's window
    for k in range(len(steps)):
        if k <= closed or not _member(steps[k]):
            continue
        g = _grow(k, steps, reads, readers, last_read, pinned, varies)
        if len(g.members) > 1:
            groups.append(g)
            closed = g.members[-1]
    if not groups:
        return plan
    out: list = []
    by_last = {g.members[-1]: g for g in groups}
    skip = {m for g in groups for m in g.members[:-1]} | {m for g in groups for m in g.moved}
    for k, s in enumerate(steps):
        if k in by_last:
            g = by_last[k]
            spec, summary = _spec(g, steps, readers, pinned, target)
            out.append(ComputeStep(spec))
            out.extend(steps[m] for m in g.moved)
            record["groups"].append(summary)
            record["removed"] += len(g.members) - 1
        elif k not in skip:
            out.append(s)
    return dataclasses.replace(plan, steps=tuple(out))


def _varying(steps, reads, plan: Plan) -> list[bool]:
    """Per step, whether it depends on the plan's inputs (a loop body's iteration values), where
    the others read only values from outside the body and constants: the grinder stage hoists
    those out of the loop, so a group never mixes the two."""
    varying = set(plan.inputs)
    out = []
    for k, s in enumerate(steps):
        v = bool(reads[k] & varying) or bool(bodies(s))
        if v:
            varying |= writes(s)
        out.append(v)
    return out


def _grow(k: int, steps, reads, readers, last_read, pinned, varies) -> _Group:
    """The group from map step k: every later map of its shape that reads a group value, only at
    its own index, and nothing downstream of the group, while the parameters fit."""
    first = steps[k].spec
    shape = first.expr.output.shape
    g = _Group([k], {first.stage.output}, set(), [])
    inputs = set(first.stage.inputs)
    end = last_read.get(first.stage.output, k)
    j = k
    while j < end:
        j += 1
        s = steps[j]
        if writes(s) & inputs - g.values:    # an input rewritten in place: later members would read it after
            break
        touches = reads[j] & (g.values | g.downstream)
        if not touches:
            continue
        if varies[j] == varies[k] and _joins(s, j, g, shape, reads, readers, inputs, pinned):
            g.members.append(j)
            g.values.add(s.spec.stage.output)
            inputs |= set(s.spec.stage.inputs)
            end = max(end, last_read.get(s.spec.stage.output, j))
            continue
        g.downstream |= writes(s)
        g.moved.append(j)
        end = max([end] + [last_read.get(v, j) for v in writes(s)])
    last = g.members[-1]
    g.moved = [m for m in g.moved if m < last]       # those after the group stay where they are
    _take_siblings(g, k, steps, reads, readers, pinned, varies)
    return g


def _take_siblings(g: _Group, k: int, steps, reads, readers, pinned, varies) -> None:
    """The maps inside the group's window that read no group value but that members read at
    their own index (a step's k_t + u beside the states it meets) join it too, where they read
    nothing downstream of the group and nothing rewritten before the group runs, and no step that
    stays before the group reads them."""
    shape = steps[k].spec.expr.output.shape
    last = g.members[-1]
    moved = set(g.moved)
    for p in range(k + 1, last):
        s = steps[p]
        if (p in g.members or p in moved or varies[p] != varies[k] or not _member(s)
                or s.spec.expr.output.shape != shape):
            continue
        out = s.spec.stage.output
        takers = readers.get(out, set()) & set(g.members)
        if not takers or reads[p] & g.downstream:
            continue
        # a reader that stays before the group would read it before the group computes it
        if any(r < last and r not in g.members and r not in moved for r in readers.get(out, set())):
            continue
        if not all(stitched_maps.own_index_only(steps[m].spec.stage.expr, arg)
                   for m in takers for arg, v in enumerate(steps[m].spec.stage.inputs) if v == out):
            continue
        if any(writes(steps[q]) & reads[p] for q in range(p + 1, last + 1) if q not in g.members):
            continue
        members = sorted(g.members + [p])
        values = g.values | {out}
        outside = {v for v in values if v in pinned or not readers.get(v, set()) <= set(members)}
        ins = {v for m in members for v in steps[m].spec.stage.inputs} - values
        if len(ins) + len(outside) > MAX_POINTER_PARAMS:
            continue
        g.members, g.values = members, values


def _joins(step, j: int, g: _Group, shape, reads, readers, inputs: set[str], pinned) -> bool:
    if not _member(step) or reads[j] & g.downstream:
        return False
    stage = step.spec.stage
    te = stage.expr
    if te.output.shape != shape:
        return False
    for arg, v in enumerate(stage.inputs):
        if v in g.values and not stitched_maps.own_index_only(te, arg):
            return False
    members = set(g.members) | {j}
    values = g.values | {stage.output}
    outside = {v for v in values if v in pinned or not readers.get(v, set()) <= members}
    ins = (inputs | set(stage.inputs)) - values
    return len(ins) + len(outside) + 1 <= MAX_POINTER_PARAMS   # (+1: a value outside may yet be read)


def _spec(g: _Group, steps, readers, pinned, target: Target) -> tuple[KernelSpec, dict]:
    """The group's spec (kind stitched_maps, inner values in registers, the values read outside
    written) and its record."""
    members = set(g.members)
    specs = [steps[m].spec for m in g.members]
    stages = tuple(s.stage for s in specs)
    written = tuple(st.output for st in stages if st.output in pinned or not readers.get(st.output, set()) <= members)
    carried = tuple((st.output, Level.REGISTER) for st in stages[:-1] if st.output not in written)
    ops = tuple(op for s in specs for op in s.ops)
    spec = KernelSpec(stages, carried=carried, outputs=written, ops=ops, kind=stitched_maps.NAME)
    spec = dataclasses.replace(spec, config=stitched_maps.configuration(spec))
    fused = predict(spec.config, target).us + LAUNCH_US
    # apart: each member by the fallback model (the bytes it reads and writes, its FLOPs), and a launch each
    n = math.prod(stages[0].expr.output.shape)
    apart = sum(predict_us(input_bytes(st.expr) + st.expr.output.nbytes, expr_flops(st.expr), n, target) + LAUNCH_US
                for st in stages)
    return spec, {"ops": list(ops), "carried": {v: lvl.value for v, lvl in carried}, "level": "register",
                  "kind": stitched_maps.NAME, "written": list(written),
                  "predicted_us": {"fused": round(fused, 3), "apart": round(apart, 3)}}
