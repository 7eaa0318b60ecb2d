"""The welder stage (Plan -> Plan): fusion groups, and the memory level of each value carried
inside a group (Welder, OSDI'23; AStitch's local scheme; DESIGN section 2, stages 6-7).

Today's level is the register level: a group's carried values are never stored, each is
recomputed where it is read (ir/compose.py makes the group one tensor expression, which every
kind renders as it renders any other). Groups are grown in plan order from each kernel through its
consumers (Welder's search from a compute-intensive op outwards), by these rules, all from the
tensor expressions (analysis/dependence.py), never from op names:

- a map consumer joins any group: it becomes the epilogue of a contraction or reduction (bias,
  activation, residual add, casts) or is composed with the maps before it. When the group reduces,
  the consumer must read the group at an index that is one-to-one over its own output (the
  reduction's element, or a permutation or reshape of it): the reduction is never computed twice;
- a reducing consumer (contraction, convolution, reduction) joins a group of maps: a group that
  only moves data (transposes, reshapes, slices, casts) is folded into its loads, and one whose
  elements the consumer reads once each (injective index) is computed in its loads;
- a consumer reading the group through reshape aliases reads the group's value through the
  reshaped index instead (the alias steps go);
- a group's values other than its last are read by nobody else (the group writes one value);
- one reduction per group (two need the shared-memory level: later).

Register-level fusion never adds DRAM traffic: the fused kernel reads a subset of its members'
external inputs once and writes one value, and the one-to-one rules exclude recomputing a
reduction. So every admissible fusion is kept; the record lists each group and the edge that
stopped it, and the report's `traffic` compares the plans."""
from __future__ import annotations

import dataclasses

from ..analysis.dependence import dependence, extents_of, injective, loads_of, reshape_index
from ..analysis.views import gemm_view
from ..ir.compose import NotComposable, compose
from ..ir.dataflow import map_bodies, reads
from ..ir.plan import AliasStep, ComputeStep, Plan
from ..ir.spec import KernelSpec, Level, Stage
from ..ir.dtypes import DType
from ..ir.texpr import Binary, Cast, Const, Expr, Load, Select, TensorExpr, Unary, replace_loads, walk


def welder_plan(plan: Plan) -> tuple[Plan, dict]:
    """The plan with its fusion groups as multi-stage specs; the record lists the groups."""
    record: dict = {"groups": [], "kernels_before": 0, "kernels_after": 0}
    return _plan(plan, record), record


def _plan(plan: Plan, record: dict) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, lambda b: _plan(b, record)) for s in plan.steps))
    steps = list(plan.steps)
    types = dict(plan.types)
    readers: dict[str, set[int]] = {}
    for k, s in enumerate(steps):
        for v in reads(s):
            readers.setdefault(v, set()).add(k)
    alias_of = {k: s for k, s in enumerate(steps) if isinstance(s, AliasStep)}
    pinned = set(plan.outputs)
    taken: set[int] = set()
    placed: dict[int, ComputeStep] = {}
    dropped: set[int] = set()
    record["kernels_before"] += sum(1 for s in steps if isinstance(s, ComputeStep))
    for k, s in enumerate(steps):
        if k in taken or not _fusable(s):
            continue
        group = _grow(k, steps, readers, alias_of, pinned, types, taken)
        if len(group.members) == 1:
            continue
        taken.update(group.members)
        dropped.update(group.members[:-1])
        dropped.update(group.aliases)
        placed[group.members[-1]] = ComputeStep(group.spec())   # the group runs where its last member did
        record["groups"].append(group.summary())
    out = [placed.get(k, s) for k, s in enumerate(steps) if k not in dropped]
    record["kernels_after"] += sum(1 for s in out if isinstance(s, ComputeStep))
    return dataclasses.replace(plan, steps=tuple(out))


def _fusable(step) -> bool:
    return (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec) and len(step.spec.stages) == 1
            and step.spec.kind is None and not step.spec.workspace)


def moves_data(te: TensorExpr) -> bool:
    """Whether every output element is some input element (or a constant), converted at most: a
    transpose, slice, concat, pad or cast, whose recomputation costs a load."""
    def value(e: Expr) -> bool:
        if isinstance(e, (Load, Const)):
            return True
        if isinstance(e, Cast):
            return value(e.x)
        if isinstance(e, Select):
            return value(e.a) and value(e.b)
        return False
    return te.reduce is None and value(te.body)


CHEAP_OPS = 4   # arithmetic operations per element a map may cost to be recomputed in a contraction's loads


def cheap(te: TensorExpr) -> bool:
    """Whether a map costs a few adds and multiplies per element (a scale, a bias, a cast): a
    contraction recomputes it in each tile that loads the element, which costs less than the
    DRAM round trip of its result."""
    if te.reduce is not None:
        return False
    ops = [e for e in walk(te.body) if isinstance(e, (Unary, Binary))]
    return (len(ops) <= CHEAP_OPS and all(isinstance(e, Binary) and e.fn in ("add", "sub", "mul") or
                                          isinstance(e, Unary) and e.fn == "neg" for e in ops if not _is_index(e)))


def _is_index(e: Expr) -> bool:
    return e.dtype is DType.int64 and not any(isinstance(x, Load) for x in walk(e))


@dataclasses.dataclass
class _Group:
    members: list[int]                 # step indices, in plan order
    stages: list[Stage]
    ops: list[tuple[str, ...]]         # per member
    precision: str | None
    aliases: set[int]                  # alias steps its members read through (removed with the group)
    member_aliases: dict[int, set[int]]
    stop: str = ""

    @property
    def reduces(self) -> bool:
        return any(st.expr.reduce is not None for st in self.stages)

    def spec(self) -> KernelSpec:
        carried = tuple((st.output, Level.REGISTER) for st in self.stages[:-1])
        return KernelSpec(stages=tuple(self.stages), carried=carried, ops=self.all_ops, precision=self.precision)

    @property
    def all_ops(self) -> tuple[str, ...]:
        return tuple(op for ops in self.ops for op in ops)

    def summary(self) -> dict:
        return {"ops": list(self.all_ops), "carried": {st.output: Level.REGISTER.value for st in self.stages[:-1]},
                "stopped": self.stop}


def _grow(start: int, steps, readers, alias_of, pinned, types, taken) -> _Group:
    first = steps[start].spec
    g = _Group([start], [first.stages[0]], [first.ops], first.precision, set(), {})
    while True:
        values = {st.output for st in g.stages}
        nxt = _next_reader(g, steps, readers, alias_of, values, taken)
        if nxt is None:
            break
        c, via = nxt
        stage, why = _admit(g, steps[c].spec, values, via, types)
        if stage is None:
            g.stop = f"{steps[c].spec.name}: {why}"
            break
        g.members.append(c)
        g.stages.append(stage)
        g.ops.append(steps[c].spec.ops)
        g.precision = g.precision or steps[c].spec.precision
        g.member_aliases[c] = {a for hops, _ in via.values() for a in hops}
        g.aliases |= g.member_aliases[c]
    _close(g, readers, pinned, alias_of)
    return g


def _next_reader(g: _Group, steps, readers, alias_of, values, taken):
    """The first later step that reads a group value (directly, or through reshape aliases each
    read by the next alone), with how it reads them: {value it reads: (alias steps, group value)};
    None when there is none, or it is not a kernel spec the group could take."""
    best: tuple[int, dict] | None = None
    for v in values:
        frontier = [(v, ())]
        while frontier:
            value, hops = frontier.pop()
            for r in readers.get(value, ()):
                if r in alias_of:   # its other readers must join too (_close checks)
                    frontier.append((alias_of[r].dst, hops + (r,)))
                    continue
                if r <= g.members[-1]:
                    continue     # a member, or an earlier reader (which _close finds)
                if best is None or r < best[0]:
                    best = (r, {})
                if r == best[0] and hops:
                    best[1][value] = (hops, v)
    if best is None:
        return None
    r, via = best
    if r in taken or not _fusable(steps[r]):
        return None
    return r, via


def _admit(g: _Group, spec: KernelSpec, values: set[str], via: dict, types) -> tuple[Stage | None, str]:
    """Consumer `spec`'s stage as the group's next (reading group values directly), or why not."""
    st = spec.stages[0]
    te, inputs = st.expr, list(st.inputs)
    for arg, v in enumerate(st.inputs):
        if v in via:   # read through aliases: read the group's value at the reshaped index
            src = via[v][1]
            te = _read_reshaped(te, arg, types[src])
            inputs[arg] = src
    stage = Stage(te, tuple(inputs), st.output)
    ext = extents_of(te)
    group_args = [a for a, v in enumerate(inputs) if v in values]
    if te.reduce is not None:
        if g.reduces:
            return None, "a second reduction (needs the shared-memory level)"
        # a group that only moves data is folded into the consumer's loads at the cost of a load;
        # one that computes must not be recomputed
        if not all(moves_data(s.expr) for s in g.stages):
            if gemm_view(te) is not None:
                if not all(cheap(s.expr) for s in g.stages):
                    return None, "a contraction's operand that computes more than a few operations (recomputed per tile)"
            else:
                for a in group_args:
                    if not all(injective(ld.index, te.inputs[a].shape, ext) for ld in loads_of(te, a)):
                        return None, f"reads {inputs[a]} more than once per element (recomputed)"
    elif g.reduces:
        out_ext = {f"i{d}": n for d, n in enumerate(te.output.shape)}
        for a in group_args:
            if not all(injective(ld.index, te.inputs[a].shape, out_ext) for ld in loads_of(te, a)):
                return None, f"reads {inputs[a]} ({dependence(te, a).value}) not one-to-one (reduction recomputed)"
    try:
        compose(tuple(g.stages) + (stage,), {s.output for s in g.stages})
    except NotComposable as e:
        return None, str(e)
    return stage, ""


def _read_reshaped(te: TensorExpr, arg: int, src_type) -> TensorExpr:
    """`te` reading input `arg` through its reshape's source type instead."""
    shape = te.inputs[arg].shape
    ext = extents_of(te)

    def one(ld: Load) -> Expr:
        if ld.arg != arg:
            return ld
        return Load(arg, reshape_index(ld.index, shape, src_type.shape, ext), ld.dtype)

    ins = list(te.inputs)
    ins[arg] = src_type
    body = replace_loads(te.body, one)
    epilogue = None if te.epilogue is None else replace_loads(te.epilogue, one)
    return te.replace(inputs=tuple(ins), body=body, epilogue=epilogue)


def _close(g: _Group, readers, pinned, alias_of) -> None:
    """Drops members from the end until only the last member's value leaves the group."""
    while len(g.members) > 1:
        inside = set(g.members) | g.aliases
        inner = [st.output for st in g.stages[:-1]] + [alias_of[a].dst for a in sorted(g.aliases)]
        leaks = [v for v in inner if v in pinned or not readers.get(v, set()) <= inside]
        if not leaks:
            return
        c = g.members.pop()
        g.stages.pop()
        g.ops.pop()
        g.aliases -= g.member_aliases.pop(c, set())
        g.stop = f"{', '.join(leaks)} is read outside the group"
