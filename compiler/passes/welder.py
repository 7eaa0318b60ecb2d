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
- a consumer that joins also takes in the maps that make its other operands, where nothing else
  reads them: any map it reads one-to-one (the two halves of a rotary embedding's rotate-half,
  meeting in a Concat and an Add), and otherwise (a contraction's operand, re-read per tile) a map
  that only moves data or costs a few operations (K split from a fused QKV projection, reshaped,
  transposed and scaled, beside the group of Q). Groups grow forward, and a consumer joins one
  group only, so without this a consumer's other producers stay kernels of their own;
- a map that is the epilogue of a contraction whose group has not grown yet is left to it: not
  taken in as another consumer's operand, and (of an integer contraction's chain, or a float
  one's with `float_epilogues`) a group of maps stops before it, so that the contraction's group
  takes it with the map group as its operand (`_epilogue_of_a_reduction`). Whether float chains
  pay depends on the model; the pipeline prices the plan both ways (pipeline._welder);
- a map that reads a reduction's group one-to-one but has more elements than the reduction (a
  concat's other parts, a pad's border) would make the reduction run where it is not read: by
  `part_reads`, never taken, taken where those FLOPs cost less than the reduced value's DRAM round
  trip (a depthwise window, not a conv over its channels), or always; the pipeline prices the
  plans the policies make (pipeline._welder);
- a consumer reading the group through reshape aliases reads the group's value through the
  reshaped index instead (the alias steps go);
- a group's values other than its last are read by nobody else (the group writes one value);
- one reduction per group is its anchor; a second, small one (at most FOLD_EXTENT steps) may be
  *folded*: recomputed where it is read, as a Fold inside the anchor's expression. Two ways: a
  reducing consumer takes a group that reduces into its loads (a depthwise conv into the
  pointwise conv after it: recomputed once per block along the other GEMM side), and a group
  takes a reduction its epilogue reads one-to-one (a shortcut conv added to a conv: no
  recomputation at all; the smaller of the two is folded). A fold adds FLOPs, so it is kept only
  where the cost model predicts the fused kernel faster than the two apart (`fold_pays`).

After the groups are chosen, a kernel that only moves data and that every reader can compute in
its loads is prepended to each (passes/duplicate.py): groups grow forward, so a value several
groups read stays written otherwise.

Register-level fusion never adds DRAM traffic: the fused kernel reads a subset of its members'
external inputs once and writes one value, and the one-to-one rules exclude recomputing a
reduction outside a priced fold. So every admissible fusion without a fold is kept; the record
lists each group, its folds with both predictions, and the edge that stopped it, and the report's
`traffic` compares the plans."""
from __future__ import annotations

import dataclasses
import functools

from ..analysis.dependence import dependence, extents_of, injective, loads_of, read_reshaped, reads_once
from ..analysis.views import gemm_view
from ..ir.compose import NotComposable, compose
from ..ir.dataflow import first_reader, map_bodies, readers_of, readers_through, sole_source
from ..ir.plan import AliasStep, ComputeStep, Plan
from ..ir.spec import KernelSpec, Level, Stage
from ..ir.texpr import FOLD_OPS, Binary, Expr, Load, Select, TensorExpr, Unary, children, value_ops, walk
from ..roller.cost_model import LAUNCH_US, expr_flops, predict_us
from ..targets import Target
from .duplicate import duplicate_moves, moves_data

# The most reduction steps a fold may run per evaluation: a fold is a serial loop in one thread;
# a longer reduction is a contraction that belongs in a tiled kernel of its own.
FOLD_EXTENT = 64


# What a reducing group does with a map that reads it in part (`_reads_in_part`)
PART_READS = ("never", "cheap", "always")


def welder_plan(plan: Plan, target: Target | None = None, float_epilogues: bool = False,
                part_reads: str = "cheap") -> tuple[Plan, dict]:
    """The plan with its fusion groups as multi-stage specs; the record lists the groups. Folds
    are priced on `target`: without one, none is made. `float_epilogues`: a float contraction's
    epilogue is kept for it as an integer one's is (`_epilogue_of_a_reduction`); the record's
    `float_epilogues` counts the decisions that changed (0: the plan is as without).
    `part_reads` (PART_READS): the policy for a map that reads a reduction in part; the record's
    `part_reads` counts the maps met (0: every policy makes the same plan), `part_taken` those
    taken (none: `never` makes the same plan; all: `always` does)."""
    if part_reads not in PART_READS:
        raise ValueError(f"part_reads must be one of {PART_READS}, not {part_reads!r}")
    record: dict = {"groups": [], "duplicated": [], "kernels_before": 0, "kernels_after": 0, "float_epilogues": 0,
                    "part_reads": 0, "part_taken": 0}
    return _plan(plan, record, target, float_epilogues, part_reads), record


@dataclasses.dataclass
class _Scope:
    """One plan's steps as the group search sees them (built once per plan)."""

    steps: list
    types: dict
    readers: dict[str, set[int]]       # value -> the steps that read it
    producer: dict[str, int]           # value -> the fusable step that writes it
    alias_of: dict[int, AliasStep]
    pinned: set[str]                   # the plan's outputs: always written
    constants: set[str]                # weights: a fold may re-read them freely
    target: Target | None              # what folds are priced on (none: no fold)
    float_epilogues: bool              # a float contraction's epilogue chain is kept for it too
    part_reads: str                    # PART_READS: a map that reads a reduction in part
    taken: set[int] = dataclasses.field(default_factory=set)   # steps already in a group
    float_decisions: int = 0           # decisions float_epilogues changed (the record sums them)
    part_decisions: int = 0            # maps met that read a reduction in part (the record sums them)
    part_taken: int = 0                # of them, those taken

    @functools.cached_property
    def alias_by_dst(self) -> dict[str, int]:
        """Reshape alias value -> the alias step that makes it."""
        return {a.dst: k for k, a in self.alias_of.items()}

    @classmethod
    def of(cls, plan: Plan, target: Target | None, float_epilogues: bool, part_reads: str) -> "_Scope":
        steps = list(plan.steps)
        return cls(steps, dict(plan.types), readers_of(steps),
                   {s.spec.stages[0].output: k for k, s in enumerate(steps) if _fusable(s)},
                   {k: s for k, s in enumerate(steps) if isinstance(s, AliasStep)}, set(plan.returned),
                   {name for name, _ in plan.constants}, target, float_epilogues, part_reads)

    def kept_for(self, p: int, producer: Stage, start: int, deep: bool) -> bool:
        """Whether map `p` is left to a contraction's group that has not grown yet (its epilogue):
        `_epilogue_of_a_reduction` of an integer contraction, and of a float one to depth 0 when
        `deep` is false, else to EPILOGUE_DEPTH when float_epilogues is on. A decision the float
        rule changes is counted."""
        base = 0 if deep else -1
        kept = _epilogue_of_a_reduction(p, producer, start, self, float_depth=base)
        if not kept and self.float_epilogues and _epilogue_of_a_reduction(p, producer, start, self,
                                                                          float_depth=EPILOGUE_DEPTH):
            self.float_decisions += 1
            return True
        return kept


def _plan(plan: Plan, record: dict, target: Target | None, float_epilogues: bool, part_reads: str) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(
        map_bodies(s, lambda b: _plan(b, record, target, float_epilogues, part_reads)) for s in plan.steps))
    scope = _Scope.of(plan, target, float_epilogues, part_reads)
    steps = scope.steps
    placed: dict[int, ComputeStep] = {}
    dropped: set[int] = set()
    record["kernels_before"] += sum(1 for s in steps if isinstance(s, ComputeStep))
    for k, s in enumerate(steps):
        if k in scope.taken or not _fusable(s):
            continue
        group = _grow(k, scope)
        if len(group.members) == 1:
            continue
        scope.taken.update(group.members)
        dropped.update(group.members[:-1])
        dropped.update(group.aliases)
        placed[group.members[-1]] = ComputeStep(group.spec())   # the group runs where its last member did
        record["groups"].append(group.summary())
    out = [placed.get(k, s) for k, s in enumerate(steps) if k not in dropped]
    out, duplicated = duplicate_moves(out, scope.types, scope.pinned, target)
    record["duplicated"].extend(duplicated)
    record["kernels_after"] += sum(1 for s in out if isinstance(s, ComputeStep))
    record["float_epilogues"] += scope.float_decisions
    record["part_reads"] += scope.part_decisions
    record["part_taken"] += scope.part_taken
    return dataclasses.replace(plan, steps=tuple(out))


def _fusable(step) -> bool:
    return (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec) and len(step.spec.stages) == 1
            and step.spec.kind is None and not step.spec.workspace)


CHEAP_OPS = 4   # arithmetic operations per element a map may cost to be recomputed in a contraction's loads


def cheap(te: TensorExpr) -> bool:
    """Whether a map costs a few adds and multiplies per element (a scale, a bias, a cast; index
    arithmetic, as a reshape composes into the loads, is not counted: `texpr.value_ops`): a
    contraction recomputes it in each tile that loads the element, which costs less than the
    DRAM round trip of its result."""
    if te.reduce is not None:
        return False
    ops = [e for e in walk(te.body) if isinstance(e, (Unary, Binary)) and not _is_index(e)]
    return (value_ops(te.body) <= CHEAP_OPS and all(isinstance(e, Binary) and e.fn in ("add", "sub", "mul") or
                                                    isinstance(e, Unary) and e.fn == "neg" for e in ops))


def _is_index(e: Expr) -> bool:
    """Index arithmetic and its comparisons (a concat's or a pad's choice of source), constants:
    nothing that depends on a loaded value."""
    return not any(isinstance(x, Load) for x in walk(e))


@dataclasses.dataclass
class _Group:
    members: list[int]                 # step indices, in plan order
    stages: list[Stage]
    ops: list[tuple[str, ...]]         # per member
    precision: str | None
    aliases: set[int]                  # alias steps its members read through (removed with the group)
    member_aliases: dict[int, set[int]]
    stop: str = ""
    folds: list[dict] = dataclasses.field(default_factory=list)   # each fold's value and predictions

    @property
    def reduces(self) -> bool:
        return any(st.expr.reduce is not None for st in self.stages)

    @property
    def reductions(self) -> int:
        return sum(st.expr.reduce is not None for st in self.stages)

    def spec(self) -> KernelSpec:
        carried = tuple((st.output, Level.REGISTER) for st in self.stages[:-1])
        return KernelSpec(stages=tuple(self.stages), carried=carried, ops=self.all_ops, precision=self.precision)

    @property
    def all_ops(self) -> tuple[str, ...]:
        return tuple(op for ops in self.ops for op in ops)

    def summary(self) -> dict:
        out = {"ops": list(self.all_ops), "carried": {st.output: Level.REGISTER.value for st in self.stages[:-1]},
               "stopped": self.stop}
        if self.folds:
            out["folded"] = self.folds
        return out


def _grow(start: int, scope: _Scope) -> _Group:
    """The group grown from step `start` through its consumers."""
    steps = scope.steps
    first = steps[start].spec
    g = _Group([start], [first.stages[0]], [first.ops], first.precision, set(), {})
    while True:
        if len(g.stages) >= MAX_GROUP_STAGES:
            g.stop = f"the group has {len(g.stages)} stages, the most one kernel takes"
            break
        values = {st.output for st in g.stages}
        nxt = _next_reader(g, scope, values)
        if nxt is None:
            break
        c, via = nxt
        if not g.reduces and scope.kept_for(c, steps[c].spec.stages[0], start, deep=False):
            # a residual add of a map and a contraction not grown yet: the contraction's group
            # takes it, this map with it as its operand (a map group alone is not kept taken)
            g.stop = f"{steps[c].spec.name}: left to the group of the contraction it adds"
            break
        stage, why = _admit(g, steps[c].spec, values, via, scope)
        if stage is None:
            g.stop = f"{steps[c].spec.name}: {why}"
            break
        leak = _never_closes(g, scope)
        if leak is not None:     # _close would cut the group back to before this value
            g.stop = f"{leak} is read outside the group"
            break
        stage = _take_producers(g, c, stage, scope)
        g.members.append(c)
        g.stages.append(stage)
        g.ops.append(steps[c].spec.ops)
        g.precision = g.precision or steps[c].spec.precision
        g.member_aliases[c] = {a for hops, _ in via.values() for a in hops}
        g.aliases |= g.member_aliases[c]
    _close(g, scope)
    if scope.target is not None and len(g.members) > 1:
        _absorb(g, scope)
    return g


# The most stages one group takes: composing a group costs more than linearly in its stages, and a
# detector's postprocess exported per class (torchvision's SSD: ninety chains of gathers after one
# split) would otherwise grow one group of hundreds, whose every composition took minutes. RWKV's
# unrolled time mixing, among the largest groups of the architectures bench, stays under it
# (architectures-20261129T204427Z.json: its rows as before the cap).
MAX_GROUP_STAGES = 128

# The most steps a consumer takes in from its other operands' producers (a split's part, its
# reshapes and transposes, a scale: attention's K as exporters write it is four; a rotary
# embedding's halves, negation and products with cos and sin, five)
MAX_OPERAND_STEPS = 8


def _take_producers(g: _Group, c: int, stage: Stage, scope: _Scope) -> Stage:
    """A consumer joining the group also takes in the maps that make its other operands, where
    nothing else reads them: a map it reads one-to-one at any cost (it is computed once either
    way), one it re-reads (a contraction's operand, once per tile; a broadcast) only if it moves
    data or costs a few operations per element. Without this, a consumer's other producers stay
    kernels of their own that write their values to DRAM for it to read (attention's K beside Q's
    group; the negated half of a rotate-half beside the other half's group). They become stages
    before the consumer; returns its stage reading their values."""
    taken: list[tuple[int, Stage, set[int]]] = []
    group_values = {st.output for st in g.stages}

    def pull(st: Stage, reader: int, recomputed: bool) -> Stage:
        te, inputs = st.expr, list(st.inputs)
        for arg, v in enumerate(st.inputs):
            if v in group_values:
                continue
            src, hops = _sole_source(v, reader, scope)
            p = scope.producer.get(src) if src is not None else None
            if (p is None or p in scope.taken or p in g.members or p in {q for q, _, _ in taken}
                    or len(taken) >= MAX_OPERAND_STEPS):
                continue
            producer = scope.steps[p].spec.stages[0]
            if producer.expr.reduce is not None or scope.kept_for(p, producer, g.members[0], deep=True):
                continue
            again = recomputed or not reads_once(te, arg)
            if again and not (moves_data(producer.expr) or cheap(producer.expr)):
                continue
            mark = len(taken)
            made = pull(producer, p, again)        # its own producers first
            trial = read_reshaped(te, arg, scope.types[src]) if hops else te
            reading = Stage(trial, (*inputs[:arg], src, *inputs[arg + 1:]), st.output)
            earlier = tuple(t for _, t, _ in taken) + (made,)
            try:      # the consumer must compose with what it takes in
                compose(earlier + (reading,), {t.output for t in earlier})
            except NotComposable:
                del taken[mark:]
                continue
            taken.append((p, made, hops))
            te, inputs[arg] = trial, src
        return Stage(te, tuple(inputs), st.output)

    stage = pull(stage, c, False)
    for p, st, hops in taken:
        g.members.append(p)
        g.stages.append(st)
        g.ops.append(scope.steps[p].spec.ops)
        g.precision = g.precision or scope.steps[p].spec.precision
        g.member_aliases[p] = hops
        g.aliases |= hops
    return stage


# How many maps back, each its producer's only reader, a map is still an integer contraction's
# epilogue: a QDQ model's (frontend/qdq_integer.py) is read through its cast, scale, bias,
# QuantizeLinear and DequantizeLinear, five
EPILOGUE_DEPTH = 8


def _epilogue_of_a_reduction(p: int, producer: Stage, start: int, scope: _Scope, depth: int = 0,
                             float_depth: int = 0) -> bool:
    """Whether map `p` is the only reader of a reduction whose group has not grown yet (groups grow
    in plan order; this one from `start`): its epilogue when that group grows (a bias add stays
    with its GEMM, not with the GEMM's reader). Of an integer contraction (int32 sums) also
    through maps that are each their producer's only reader: its cast, scale, bias and
    requantization stay with it. A float contraction's counts through `float_depth` such maps
    (-1: not at all): deeper float chains pay on some models and not on others, so the pipeline
    prices the plan both ways (pipeline._welder)."""
    for v in producer.inputs:
        src, _ = _sole_source(v, p, scope)
        r = scope.producer.get(src) if src is not None else None
        if r is None or r in scope.taken or r <= start:
            continue
        expr = scope.steps[r].spec.stages[0].expr
        if expr.reduce is not None:
            if depth <= float_depth or not expr.body.dtype.is_float:
                return True
        elif depth + 1 < EPILOGUE_DEPTH and scope.readers.get(src) == {p} \
                and _epilogue_of_a_reduction(r, scope.steps[r].spec.stages[0], start, scope, depth + 1, float_depth):
            return True
    return False


def _sole_source(v: str, reader: int, scope: _Scope) -> tuple[str | None, set[int]]:
    """ir/dataflow.sole_source over the scope's plan."""
    return sole_source(v, reader, scope.readers, scope.pinned, scope.alias_by_dst, scope.steps)


def _next_reader(g: _Group, scope: _Scope, values):
    """The first later step that reads a group value (directly, or through reshape aliases each
    read by the next alone), with how it reads them: {value it reads: (alias steps, group value)};
    None when there is none, or it is not a kernel spec the group could take."""
    found = first_reader(values, g.members[-1], scope.readers, scope.alias_of)
    if found is None:
        return None
    r, via = found
    if r in scope.taken or not _fusable(scope.steps[r]):
        return None
    return r, via


def _admit(g: _Group, spec: KernelSpec, values: set[str], via: dict, scope: _Scope) -> tuple[Stage | None, str]:
    """Consumer `spec`'s stage as the group's next (reading group values directly), or why not."""
    st = spec.stages[0]
    te, inputs = st.expr, list(st.inputs)
    for arg, v in enumerate(st.inputs):
        if v in via:   # read through aliases: read the group's value at the reshaped index
            src = via[v][1]
            te = read_reshaped(te, arg, scope.types[src])
            inputs[arg] = src
    stage = Stage(te, tuple(inputs), st.output)
    ext = extents_of(te)
    group_args = [a for a, v in enumerate(inputs) if v in values]
    if te.reduce is not None:
        if g.reduces:
            why = _fold_consumer(g, stage, scope)
            return (stage, "") if why is None else (None, why)
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
        why = _reads_in_part([s for s in g.stages if s.expr.reduce is not None][-1], te, scope)
        if why:
            return None, why
    try:
        te, _ = compose(tuple(g.stages) + (stage,), {s.output for s in g.stages})
    except NotComposable as e:
        return None, str(e)
    unshared, distinct = tree_sizes(te.body)
    if unshared >= RECOMPUTE_LIMIT * distinct:
        return None, (f"its expression would evaluate {unshared} nodes for {distinct} distinct ones "
                      "(values read more than once recomputed)")
    return stage, ""


def _reads_in_part(anchor: Stage, te: TensorExpr, scope: _Scope) -> str:
    """Why a map that reads the group's reduction one-to-one but has more elements than it (a
    concat's other parts, a pad's border) is not taken, or "" (counted in scope.part_decisions).
    Composed, the reduction runs over the map's whole extent (ir/compose.py `_guarded`), so each
    point the map does not read it at costs the reduction's work for nothing, where taking the map
    saves the reduced value's DRAM round trip and a launch. `cheap` takes it where those FLOPs cost
    less than the round trip: a depthwise window (a few FLOPs a point), not a conv's or a GEMM's
    reduction over its channels (Inception's concats: up to 30% of a model's FLOPs). Either way
    the group's kernel now waits for the map's other operands (the other branches) instead of
    running beside them, which only rammer's waves price: hence the pipeline's choice of policy."""
    extra = te.output.size - anchor.expr.output.size
    if extra <= 0:
        return ""
    scope.part_decisions += 1
    if scope.part_reads == "always":
        scope.part_taken += 1
        return ""
    if scope.part_reads == "never":
        return (f"its {te.output.size} elements are more than {anchor.output}'s {anchor.expr.output.size}: "
                "the reduction would run where it is not read (part_reads never)")
    target = scope.target
    if target is None:
        return "reads a reduction in part (no target to price the points it does not read)"
    wasted = expr_flops(anchor.expr) / anchor.expr.output.size * extra
    saved = 2 * anchor.expr.output.nbytes          # written by the group, read back by the map
    balance = target.fp32_tflops * 1e3 / target.dram_gbps   # FLOPs that cost as much as a byte
    if wasted <= balance * saved:
        scope.part_taken += 1
        return ""
    return (f"its {te.output.size} elements are more than {anchor.output}'s {anchor.expr.output.size}: "
            f"the reduction would run where it is not read ({wasted:.0f} FLOPs for {saved} bytes)")


# A value the composed expression reads twice is computed twice where the renderer cannot share
# it (under a Select's branch: a scatter's or a concat's choice of source). An unrolled
# recurrence whose state each step reads several times grows that geometrically, so a group
# stops before its expression, unshared, counts this many times its distinct nodes (no group of
# the shared or architecture models reaches it); passes/stitch_maps.py computes such maps once.
RECOMPUTE_LIMIT = 8


def tree_sizes(e: Expr) -> tuple[int, int]:
    """(value nodes `e` evaluates: every copy and every shared use counted, the larger branch of a
    Select; distinct value nodes by value). A value node depends on a load; index arithmetic is
    left out (the renderer shares it, and it is cheap). Each node is numbered by its own fields
    and its children's numbers (linear time)."""
    numbers: dict = {}
    values: set[int] = set()
    seen: dict[int, tuple[int, int, bool]] = {}     # id -> (number, value nodes under it, is a value)

    def visit(x: Expr) -> tuple[int, int, bool]:
        if id(x) not in seen:
            kids = [visit(c) for c in children(x)]
            own = tuple((f.name, v) for f in dataclasses.fields(x) for v in [getattr(x, f.name)]
                        if not isinstance(v, Expr) and not (isinstance(v, tuple) and any(isinstance(i, Expr) for i in v)))
            number = numbers.setdefault((type(x), own, tuple(n for n, _, _ in kids)), len(numbers))
            value = isinstance(x, Load) or any(v for _, _, v in kids)
            if value:
                values.add(number)
            under = [size for _, size, _ in kids]
            if isinstance(x, Select):       # one branch runs
                under = [under[0], max(under[1], under[2])]
            seen[id(x)] = (number, int(value) + sum(under), value)
        return seen[id(x)]
    return visit(e)[1], max(1, len(values))


def _never_closes(g: _Group, scope: _Scope) -> str | None:
    """A group value that leaks from any longer group, or None. Once another member joins, every
    value the group has now is inner, and `_close` cuts back everything from where one is read
    outside: where one is a graph output, or is read by a step that can never join (another
    group's, or one no group takes; alias steps join with their readers), or the steps outside
    that read them outnumber the stages the group has left (each joins as a stage at least),
    growing further only composes stages that are thrown away (torchvision's SSD: a split read
    by ninety per-class chains of three stages grew to the stage cap, then was cut back to 34)."""
    inside = set(g.members)
    outside: set[int] = set()
    for st in g.stages:
        v = st.output
        if ({v} | {scope.alias_of[a].dst for a in _aliases_of(v, scope)}) & scope.pinned:
            return v
        theirs = readers_through(v, scope.readers, scope.alias_of) - inside
        if any(r in scope.taken or not _fusable(scope.steps[r]) for r in theirs):
            return v
        outside |= theirs
        if len(outside) > MAX_GROUP_STAGES + MAX_OPERAND_STEPS - len(g.stages):
            return v
    return None


def _aliases_of(v: str, scope: _Scope) -> set[int]:
    """The alias steps that view `v`, and those that view them."""
    out, todo = set(), [v]
    while todo:
        for r in scope.readers.get(todo.pop(), ()):
            if r in scope.alias_of and r not in out:
                out.add(r)
                todo.append(scope.alias_of[r].dst)
    return out


def _close(g: _Group, scope: _Scope) -> None:
    """Drops members from the end until only the last member's value leaves the group."""
    while len(g.members) > 1:
        inside = set(g.members) | g.aliases
        inner = [st.output for st in g.stages[:-1]] + [scope.alias_of[a].dst for a in sorted(g.aliases)]
        leaks = [v for v in inner if v in scope.pinned or not scope.readers.get(v, set()) <= inside]
        if not leaks:
            return
        c = g.members.pop()
        g.stages.pop()
        g.ops.pop()
        g.aliases -= g.member_aliases.pop(c, set())
        g.stop = f"{', '.join(leaks)} is read outside the group"


# ---- folds: a second, small reduction recomputed where it is read --------------------------------

def _foldable(stage: Stage, constants: set[str]) -> str | None:
    """Why reduction `stage` cannot be folded, or None. A fold re-reads its inputs at every
    evaluation, so it reads one activation at most, the rest weights (a conv); a reduction over
    two activations (attention's P.V) is left to the shared-memory level, which keeps one of them
    resident."""
    te = stage.expr
    if te.reduce.op not in FOLD_OPS:
        return f"a {te.reduce.op} cannot be folded"
    if te.reduce.extent > FOLD_EXTENT:
        return f"a reduction over {te.reduce.extent} steps (a fold runs at most {FOLD_EXTENT})"
    if len(set(stage.inputs) - constants) > 1:
        return "a reduction over two activations (the shared-memory level's)"
    return None


def _fold_consumer(g: _Group, stage: Stage, scope: _Scope) -> str | None:
    """A reducing consumer takes the group, whose one reduction is folded into its loads: None
    when admitted (the fold recorded), else why not."""
    if g.reductions > 1:
        return "a third reduction"
    if scope.target is None:
        return "a second reduction (no target to price a fold)"
    folded = next(st for st in g.stages if st.expr.reduce is not None)
    why = _foldable(folded, scope.constants)
    if why is not None:
        return f"a second reduction: {why}"
    try:
        fused, _ = compose(tuple(g.stages) + (stage,), {s.output for s in g.stages})
        group_te, _ = compose(tuple(g.stages), {s.output for s in g.stages[:-1]})
    except NotComposable as e:
        return str(e)
    decision = fold_pays(fused, (group_te, stage.expr), scope.target)
    if not decision["kept"]:
        return (f"folding {folded.output} does not pay ({decision['fused_us']} us fused, {decision['apart_us']} us "
                f"apart; {decision['fold_flops']} FLOPs recomputed for {decision['anchor_flops']})")
    g.folds.append(dict(decision, value=folded.output))
    return None


def _absorb(g: _Group, scope: _Scope) -> None:
    """Folds into the group a reduction its epilogue reads one-to-one and nobody else reads (a
    shortcut conv added to the conv the group grew from): the smaller of the two reductions is
    folded, evaluated once per output element, and the larger is the anchor."""
    if g.reductions != 1:
        return
    steps = scope.steps
    anchor = next(k for k, st in enumerate(g.stages) if st.expr.reduce is not None)
    inside = set(g.members)
    values = {st.output for st in g.stages}
    for j in range(anchor + 1, len(g.stages)):
        st = g.stages[j]
        out_ext = {f"i{d}": n for d, n in enumerate(st.expr.output.shape)}
        for arg, v in enumerate(st.inputs):
            p = scope.producer.get(v)
            if (p is None or p in scope.taken or p in inside or v in scope.pinned
                    or not scope.readers.get(v, set()) <= inside):
                continue
            cand = steps[p].spec.stages[0]
            if cand.expr.reduce is None or set(cand.inputs) & values:
                continue
            if not all(injective(ld.index, st.expr.inputs[arg].shape, out_ext) for ld in loads_of(st.expr, arg)):
                continue
            small_first = cand.expr.reduce.extent <= g.stages[anchor].expr.reduce.extent
            folded = cand if small_first else g.stages[anchor]
            if _foldable(folded, scope.constants) is not None:
                continue
            at = 0 if small_first else anchor + 1    # the last reducing stage is the anchor
            stages = g.stages[:at] + [cand] + g.stages[at:]
            try:
                fused, _ = compose(tuple(stages), {s.output for s in stages[:-1]})
                group_te, _ = compose(tuple(g.stages), {s.output for s in g.stages[:-1]})
            except NotComposable:
                continue
            decision = fold_pays(fused, (group_te, cand.expr), scope.target)
            if not decision["kept"]:
                continue
            g.stages.insert(at, cand)
            g.members.insert(at, p)
            g.ops.insert(at, steps[p].spec.ops)
            g.precision = g.precision or steps[p].spec.precision
            g.folds.append(dict(decision, value=folded.output))
            return


def fold_pays(fused: TensorExpr, apart: tuple[TensorExpr, ...], target: Target) -> dict:
    """The cost model's verdict on a fold. The fused expression as one launch must be predicted
    faster than the parts as one launch each, each the larger of its compulsory bytes over DRAM
    bandwidth and its FLOPs (folds counted where they run: roller.cost_model.expr_flops) at the
    SIMT share its output's threads fill, plus the launch. And the recomputation must not exceed
    the anchor's own work: at batch 1 nearly everything is memory-bound and the first rule alone
    would fold a 1x1 conv into the 3x3 window of a depthwise conv after it (9 evaluations of each
    element), which is the wrong one of two folds and grows with the model's width."""
    def us(te: TensorExpr) -> float:
        nbytes = sum(t.nbytes for t in te.inputs) + te.output.nbytes
        return predict_us(nbytes, expr_flops(te), te.output.size, target) + LAUNCH_US
    fused_us, apart_us = us(fused), sum(us(te) for te in apart)
    anchor_flops = 2 * fused.output.size * (fused.reduce.extent if fused.reduce is not None else 1)
    recompute = expr_flops(fused) - anchor_flops
    return {"kept": fused_us < apart_us and recompute <= anchor_flops, "fused_us": round(fused_us, 3),
            "apart_us": round(apart_us, 3), "fold_flops": recompute, "anchor_flops": anchor_flops}
