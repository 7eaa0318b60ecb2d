"""Welder's shared-memory level (part of the welder stage): row chains grown into one kernel whose
blocks own whole rows (compiler/kinds/resident_rows.py renders them).

After the register level has made its groups, a chain grows from every kernel spec (a
contraction or reduction, whose rows become *resident*: a block computes its tile of them into
shared memory; a row chain the lowering made: softmax, the normalisations; a reduction; maps
before one). It takes each next consumer of its values while the whole is still a row chain:

- a reduction over the row (a row max, a sum of exponentials, a mean) is kept in shared memory
  as a row statistic (a keepdims reduction's size-1 axes dropped inside the chain);
- a map over the rows (a mask, exp(s - max) / sum, a NaN guard) is carried in registers, computed
  where it is read;
- a contraction over the row axis (P.V) ends the chain: it is computed from the resident rows.

A map that a contraction of the chain reads along its reduction (the probabilities P.V reads, a
LayerNorm'd row the next product reads) would be computed once per output column in registers;
carried in shared memory instead, as resident rows, it is computed once, for one more row buffer
(fewer rows to a block where they are long): the chain is priced both ways and keeps the faster
(`_computed_once`, `fused_kinds`).

So QK^T -> mask -> softmax -> NaN guard -> .V (exporters' attention, whatever ops wrote it) and
the ONNX Attention op's scores/max/sum/PV stages become one kernel with no rows x keys matrix in
DRAM, MatMul -> Softmax and GEMM -> LayerNorm one kernel with the product's rows in shared
memory, and a LayerNorm written by hand one kernel. Whether a spec is a row chain is the kind's
`analyse`, read from the tensor expressions alone. Values other than the last must have no reader
outside the group, except resident rows, which the kernel then writes too (a pre-norm
transformer's residual sum: LayerNorm'd in the chain, added again by the next sublayer), and
statistics whose outside readers wait for the chain's last value anyway (an unrolled scan's y_t,
stacked after the scan); members are dropped from the end until that holds and the rest is a
chain. A chain that is none with its maps in registers is tried with the maps a later reduction
reads kept as resident rows (`_rows_kept`): an exporter's unrolled recurrence, whose every state
is read by the next step and by its own reduction, becomes one kernel instead of a launch or two
a step. Resident rows may follow
statistics and one another, so a post-norm feed-forward sublayer (GEMM + residual -> LayerNorm
-> GEMM + GELU -> GEMM + residual -> LayerNorm) can be one kernel. A reader that reads a value
through reshape aliases (GPT-2's Conv1D views) reads it at the reshaped index instead, and the
aliases go with the chain; size-1 axes inside a chain are dropped so that 3-D and 2-D stages
read the same rows.
Each group saves its internal values' round trips through DRAM (written once, read once each)
and launches, but a block of rows computes its contraction without Roller's tiles: a chain is
kept only where the cost model (compulsory DRAM bytes over bandwidth, FLOPs at the share of the
machine the grid fills, a launch each) predicts the fused kernel faster than its members apart
(a classifier's MatMul over one row feeding a softmax stays a tiled GEMM); one that does not pay
is tried shorter. Where chains from different starts share a member, the one predicted to save
more time is kept (`saved_us`). The record gives both predictions."""
from __future__ import annotations

import dataclasses
import functools
import math
from typing import Callable

from ..analysis.dependence import extents_of, injective, injective_but_gathers, loads_of, read_reshaped, unread_bytes
from ..analysis.views import vars_of
from ..ir.dataflow import downstream, first_reader, map_bodies, readers_of, readers_through
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.plan import AliasStep, ComputeStep, Plan
from ..ir.spec import KernelSpec, Level, Stage
from ..ir.texpr import Const, Expr, Load, Var, const, replace_loads, substitute_vars
from ..kinds import flash_attention, flash_attention_simt, flash_decoding, register_rows, resident_rows
from ..roller.cost_model import LAUNCH_US, predict_us
from ..targets import Target
from .roller import tile_spec, with_workspace
from .sink_reshapes import over_source_shape
from .split_rows import rendered_us


# Members of a chain beyond which its starts inside are not tried as starts of their own
# (attention, a norm, an MLP are a few; an unrolled scan is one or two a time step)
LONG_CHAIN = 16


@dataclasses.dataclass(frozen=True)
class Options:
    """What the welder stage's switches and earlier parts decide for the shared level."""

    split: frozenset[str] = frozenset()   # statistics passes/split_rows.py set apart
    sink_reshapes: bool = True            # try maps read through a reshape over the rows (passes/sink_reshapes.py)
    # (spec, its chain) -> the spec with its pruned contractions walking their listed tiles, as the
    # sparta stage will make it (passes/sparta_rows.py), so that a chain is priced at that speed
    walks: Callable | None = None


def resident_plan(plan: Plan, target: Target,
                  speedup: Callable[[KernelSpec], float | None] | None = None,
                  options: Options = Options()) -> tuple[Plan, dict]:
    """The plan with its row chains as one spec each; the record lists the groups and counts the
    kernels they removed. `speedup(spec)`: how much faster a member would run alone as another
    stage will make it (SparTA's block-sparse contraction), None for not at all; a chain must beat
    its members at that speed. `options.split`: the statistics passes/split_rows.py set apart, priced
    apart as the roller will tile them (a split reduction)."""
    record: dict = {"groups": [], "declined": [], "removed": 0, "moved": []}
    return _plan(plan, record, target, speedup, options), record


@dataclasses.dataclass(frozen=True)
class _Scope:
    """One plan's steps as the chain search reads them."""

    steps: list
    readers: dict[str, set[int]]       # value -> the steps that read it
    pinned: set[str]                   # the plan's outputs: always written
    aliases: dict[int, AliasStep]      # step index -> a reshape alias there
    types: dict[str, TensorType]
    # the joined spec and its chain (or why not), per member steps: chains from every start, in
    # two rounds, grow and are cut over the same prefixes (a member's spec as the chain reads it
    # follows from the members before it, so the step indices are the key)
    memo: dict = dataclasses.field(default_factory=dict)
    apart: dict = dataclasses.field(default_factory=dict)      # step index -> its time as one launch
    kept: set = dataclasses.field(default_factory=set)         # member steps whose maps `_rows_kept` keeps
    downstream: dict = dataclasses.field(default_factory=dict)  # step index -> the steps that wait for it
    grown: dict = dataclasses.field(default_factory=dict)       # start -> the members it grew to, before cuts
    options: Options = Options()

    def apart_us(self, k: int, target: Target) -> float:
        if k not in self.apart:
            spec = self.steps[k].spec
            self.apart[k] = (_split_apart_us(spec, target, self.types) if spec.stages[-1].output in self.options.split
                             else _predict_us(spec, target))
        return self.apart[k]

    def joined(self, members: "_Members") -> tuple[KernelSpec, "resident_rows.RowChain | str"]:
        if members.key not in self.memo:
            spec = _joined(members.specs)
            # a chain whose shorter self kept its maps as rows tries that first: the same maps in
            # registers would compose the whole recurrence into each stage, only to fail
            kept = _rows_kept(spec) if members.steps[:-1] in self.kept else None
            if kept is None:
                chain = resident_rows.analyse(spec, fit=False)
                kept = _rows_kept(spec) if isinstance(chain, str) else None
            if kept is not None:
                self.kept.add(members.steps)
            spec, chain = kept or (spec, chain)
            if self.options.walks is not None and isinstance(chain, resident_rows.RowChain):
                walked = self.options.walks(spec, chain)
                again = resident_rows.analyse(walked, fit=False) if walked is not spec else chain
                if isinstance(again, resident_rows.RowChain):      # (a walk the kind declines: dense)
                    spec, chain = walked, again
            self.memo[members.key] = spec, chain
        return self.memo[members.key]

    @classmethod
    def of(cls, plan: Plan, options: Options = Options()) -> "_Scope":
        steps = list(plan.steps)
        return cls(steps, readers_of(steps), set(plan.returned),
                   {k: s for k, s in enumerate(steps) if isinstance(s, AliasStep)}, dict(plan.types), options=options)


@dataclasses.dataclass(frozen=True)
class _Members:
    """A chain's members as it reads them: step indices, each one's spec (reading group values
    through reshape aliases rewritten to read them directly), and the alias steps it looks through."""

    steps: tuple[int, ...]
    specs: tuple[KernelSpec, ...]
    aliases: tuple[frozenset[int], ...]     # per member: the alias steps its reads go through
    moved: bool = False                     # the last member is a map moved over the rows (sink_reshapes)

    def add(self, k: int, spec: KernelSpec, aliases: frozenset[int], moved: bool = False) -> "_Members":
        return _Members(self.steps + (k,), self.specs + (spec,), self.aliases + (aliases,), moved)

    def head(self, n: int) -> "_Members":
        return _Members(self.steps[:n], self.specs[:n], self.aliases[:n])

    @property
    def key(self) -> tuple:
        """What the joined spec follows from: the steps, and whether the last one was moved."""
        return self.steps, self.moved

    @property
    def alias_steps(self) -> frozenset[int]:
        return frozenset().union(*self.aliases)


def _plan(plan: Plan, record: dict, target: Target, speedup=None, options: Options = Options()) -> Plan:
    plan = dataclasses.replace(plan, steps=tuple(map_bodies(s, lambda b: _plan(b, record, target, speedup, options))
                                                 for s in plan.steps))
    scope = _Scope.of(plan, options)
    steps = scope.steps
    # every chain that pays, from every start: with row statistics (attention, softmax, norms) and
    # back-to-back contractions (an MLP's hidden rows); where two share a member, the one predicted
    # to save more time is kept (a GEMM -> LayerNorm against the MLP that GEMM ends). A start
    # inside a long chain already grown (an unrolled recurrence) is not tried again: its chain is
    # a suffix of that one, saving less, and trying each would be quadratic in the chain's length
    chains, inside = [], set()
    for statistics in (True, False):
        for k, s in enumerate(steps):
            if not _member(s) or k in inside:
                continue
            c = _candidate(k, scope, record, target, statistics, speedup)
            if c:
                chains.append(c)
            # (the members kept, or where none were, all the start grew through)
            covered = c["members"] if c else scope.grown[k]
            if len(covered) > LONG_CHAIN:
                inside.update(covered[1:])
    taken: set[int] = set()
    dropped: set[int] = set()
    placed: dict[int, ComputeStep] = {}
    types = dict(plan.types)        # gains the workspace of a kind that splits (flash_decoding)
    for c in sorted(chains, key=lambda c: (-c["gain"], c["members"])):
        if taken & set(c["members"]):
            if not set(c["members"]) <= taken:
                record["declined"].append({"ops": list(c["spec"].ops), "predicted_us": c["predicted"],
                                           "reason": "shares a member with a chain predicted to save more"})
            continue
        taken.update(c["members"])
        dropped.update(c["members"][:-1])
        dropped.update(c["aliases"])      # read through by the chain: nothing else reads them
        last = steps[c["members"][-1]].spec.stages[-1].output
        placed[c["members"][-1]] = [ComputeStep(with_workspace(c["spec"], types))]
        record["removed"] += len(c["members"]) - 1
        group = {"ops": list(c["spec"].ops), "carried": {v: lvl.value for v, lvl in c["spec"].carried},
                 "level": "shared", "stopped": c["stop"], "predicted_us": c["predicted"]}
        if c["moved"]:     # its last map computed over the rows: its value is a view of theirs
            rows = c["spec"].stages[-1]
            types[rows.output] = rows.expr.output
            placed[c["members"][-1]].append(AliasStep(last, rows.output))
            record["moved"].append({"ops": list(steps[c["members"][-1]].spec.ops),
                                    "shape": list(rows.expr.output.shape), "from": list(types[last].shape)})
        if c["aliases"]:
            group["through_aliases"] = [steps[a].dst for a in c["aliases"]]
        record["groups"].append(group)
    out = [x for k, s in enumerate(steps) if k not in dropped for x in placed.get(k, [s])]
    return dataclasses.replace(plan, steps=tuple(out), types=tuple(types.items()))


def _candidate(k, scope: _Scope, record, target, statistics: bool, speedup=None) -> dict | None:
    """The chain grown from step k, as the kind predicted fastest, when that beats its members
    apart (else shorter ones, each declined recorded): its members, the aliases it reads through,
    spec, predictions, why it stopped and the time it saves."""
    steps = scope.steps
    members, kinds, stop = _grow(k, scope, statistics, target)
    while kinds:
        faster = [(speedup(steps[m].spec) if speedup else None) or 1.0 for m in members.steps]
        # a sparse member's work is faster, its launch is not
        apart = sum((scope.apart_us(m, target) - LAUNCH_US) / f + LAUNCH_US
                    for m, f in zip(members.steps, faster))
        kind = min(kinds, key=lambda n: kinds[n][0])
        fused, spec = kinds[kind]
        predicted = {"fused": round(fused, 3), "apart": round(apart, 3), "kind": kind}
        if len(kinds) > 1:
            predicted["kinds"] = {n: round(us, 3) for n, (us, _) in kinds.items()}
        if any(f > 1.0 for f in faster):
            predicted["apart_with_sparse_members"] = sum(f > 1.0 for f in faster)
        if pays(fused, apart):
            break
        # a shorter chain may still pay (a LayerNorm stitched, without the GEMM after it)
        record["declined"].append({"ops": list(spec.ops), "reason": "the cost model predicts no gain",
                                   "predicted_us": predicted})
        members, kinds, stop = _cut(members.head(len(members.steps) - 1), scope, statistics, target,
                                    f"{steps[members.steps[-1]].spec.name}: the chain with it predicted no gain")
    if not kinds:
        return None
    return {"members": list(members.steps), "aliases": sorted(members.alias_steps), "spec": spec,
            "predicted": predicted, "stop": stop, "gain": saved_us(fused, apart), "moved": members.moved}


def _member(step) -> bool:
    return (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec) and step.spec.kind is None
            and not step.spec.workspace)


def _stages_of(spec: KernelSpec):
    """The spec's stages and carried levels as a group member: composed into one stage when its
    values are all in registers, else as they are (a row chain's)."""
    if spec.composable:
        return (spec.stage,), ()
    return spec.stages, spec.carried


def _joined(members: list[KernelSpec]) -> KernelSpec:
    """The members as one spec: each member's last value carried in shared memory when it reduces
    (resident rows, statistics), in registers when it is a map."""
    stages, carried, ops = [], [], []
    for n, m in enumerate(members):
        st, car = _stages_of(m)
        stages += st
        carried += car
        ops += [op for op in m.ops if op not in ops]   # data movement duplicated into two members is one op
        if n < len(members) - 1:
            last = st[-1]
            carried.append((last.output, Level.SHARED if last.expr.reduce is not None else Level.REGISTER))
    stages = _without_unit_axes(stages)
    return KernelSpec(stages=tuple(stages), carried=tuple(carried), ops=tuple(ops),
                      precision=next((m.precision for m in members if m.precision), None))


def _rows_kept(spec: KernelSpec) -> "tuple[KernelSpec, resident_rows.RowChain] | None":
    """The spec with every register map that a later stage reads along its reduction carried in
    shared memory instead, as resident rows, and its chain; None when there is no such map or the
    result is no chain of statistics either. A recurrence an exporter unrolled (a state h_t = a_t * h_t-1 + b_t,
    read by a reduction y_t = sum_n h_t[n] c_t[n] and by the next step, as a selective scan is
    written) is no chain with its states in registers: each state composed into the next would
    recompute the whole history, and the next step reads no row value. Kept as rows, each state
    is computed once, from the one before."""
    kept = _kept_as_rows(spec, lambda te: True)
    if kept is None:
        return None
    chain = resident_rows.analyse(kept, fit=False)
    # (a map kept only for a contraction after it, with no statistic, is the second round's MLP
    # form or no chain: not this one)
    return (kept, chain) if isinstance(chain, resident_rows.RowChain) and chain.stats else None


def _without_unit_axes(stages: list[Stage]) -> list[Stage]:
    """The stages with the size-1 axes of each value inside the chain dropped, and its readers'
    index at those axes with it (the only index a size-1 axis has is 0): a ReduceMean with
    keepdims (as exporters write LayerNorm by hand: mean of shape (rows, 1)), a batch of one, the
    3-D activations a 2-D Conv1D view reads (1, T, H as T, H). The values are internal to the
    chain, so their shapes are the chain's to choose; every stage then indexes the same rows by
    plain variables (`_unit_axes` says which go). The last stage's output is the kernel's."""
    squeezed = _unit_axes(stages)     # value -> the axes dropped
    return [_squeezed(st, tuple(squeezed.get(v, ()) for v in st.inputs), squeezed.get(st.output, ()))
            for st in stages]


# A chain is joined again at every member it grows by, and its stages' drops mostly stay as they
# were: each stage's rewrite is remembered by what it follows from.
@functools.lru_cache(maxsize=1 << 14)
def _squeezed(st: Stage, input_drops: tuple[tuple[int, ...], ...], drop: tuple[int, ...]) -> Stage:
    """Stage `st` with the axes `input_drops` (per input) gone from its loads and `drop` from its output."""
    if not drop and not any(input_drops):
        return st
    te = st.expr
    inputs = [t if not d else TensorType(t.dtype, tuple(n for k, n in enumerate(t.shape) if k not in d))
              for t, d in zip(te.inputs, input_drops)]

    def one(ld: Load) -> Expr:
        d = input_drops[ld.arg]
        return ld if not d else Load(ld.arg, tuple(i for k, i in enumerate(ld.index) if k not in d), ld.dtype)
    body = replace_loads(te.body, one)
    epilogue = None if te.epilogue is None else replace_loads(te.epilogue, one)
    output = te.output
    if drop:
        keep = [k for k in range(output.rank) if k not in drop]
        rename = {f"i{k}": const(0, DType.int64) for k in drop}
        rename.update({f"i{k}": Var(f"i{n}") for n, k in enumerate(keep)})
        body = substitute_vars(body, rename)
        epilogue = None if epilogue is None else substitute_vars(epilogue, rename)
        output = TensorType(output.dtype, tuple(output.shape[k] for k in keep))
    return Stage(te.replace(inputs=tuple(inputs), body=body, epilogue=epilogue, output=output), st.inputs, st.output)


def _unit_axes(stages: list[Stage]) -> dict[str, tuple[int, ...]]:
    """Value -> its size-1 axes to drop: those every reader in the chain indexes with a constant,
    or with its own output variable there where the reader drops that axis too (or is the last
    stage, whose axis of extent 1 is always 0). An axis a reader walks with a reduction variable
    stays (the row of resident rows, however short). A value no stage reads (a statistic written
    out) drops all of them. Decided from the last stage back, since a reader's own drops turn its
    variables into constants."""
    drops: dict[str, tuple[int, ...]] = {}
    final = stages[-1]
    reads: dict[str, list[tuple[Stage, int]]] = {}      # value -> (reader, argument), in stage order
    for r in stages:
        for a, v in enumerate(r.inputs):
            reads.setdefault(v, []).append((r, a))
    for st in reversed(stages[:-1]):
        axes = [k for k, d in enumerate(st.expr.output.shape) if d == 1]
        for r, a in reads.get(st.output, ()) if axes else ():
            own = set(range(r.expr.output.rank)) if r is final else set(drops.get(r.output, ()))
            for ld in loads_of(r.expr, a):
                axes = [k for k in axes if isinstance(ld.index[k], Const) or
                        (isinstance(ld.index[k], Var) and ld.index[k].name.startswith("i")
                         and ld.index[k].name[1:].isdigit() and int(ld.index[k].name[1:]) in own)]
        if axes:     # (a value no stage reads is written: its unit axes add nothing to its offsets)
            drops[st.output] = tuple(axes)
    return drops


def _grow(start: int, scope: _Scope, statistics: bool, target: Target):
    """(members, the kinds that render them as one kernel (`fused_kinds`), why growth stopped);
    no kinds when no useful chain forms. A chain longer than any kind renders is cut back."""
    steps = scope.steps
    members = _Members((start,), (steps[start].spec,), (frozenset(),))
    stop = ""
    while True:
        values = {st.output for spec in members.specs for st in spec.stages}
        nxt = first_reader(values, members.steps[-1], scope.readers, scope.aliases)
        if nxt is None:
            break
        c, via = nxt
        if not _member(steps[c]):
            stop = f"step {c} reads the group and is no kernel spec it can take"
            break
        spec = read_through(steps[c].spec, via, scope.types)
        through = frozenset(a for hops, _ in via.values() for a in hops)
        grown = members.add(c, spec, through)
        joined, why = scope.joined(grown)
        if isinstance(why, str) and via and scope.options.sink_reshapes:
            # a map reading the chain through a reshape at its own index, computed over the rows
            # instead (GroupNorm's scale, shift and SiLU after InstanceNormalization's reshape)
            moved = over_source_shape(steps[c].spec, {a: v for a, (_, v) in via.items()}, scope.types)
            if moved is not None:
                tried = members.add(c, moved, through, moved=True)
                _, tried_why = scope.joined(tried)
                if not isinstance(tried_why, str):
                    members = tried
                    stop = f"{steps[c].spec.name}: computed over the rows, its readers read it through a view"
                    break
        # maps then a reduction is no chain yet, but becomes one when a later stage reads the
        # reduction as a row statistic (a residual add before a LayerNorm written by hand)
        pending = all(lvl is Level.REGISTER for _, lvl in joined.carried) and _reads_once(joined.stages[-1], values)
        if isinstance(why, str) and not pending:
            stop = f"{steps[c].spec.name}: {why}"
            break
        members = grown
    scope.grown[start] = members.steps
    return _cut(members, scope, statistics, target, stop)


def read_through(spec: KernelSpec, via: dict, types: dict) -> KernelSpec:
    """`spec` with its reads of alias values (`via`: alias value -> (alias steps, group value))
    rewritten to read the group's value at the reshaped index."""
    if not via:
        return spec
    stages = []
    for st in spec.stages:
        te, inputs = st.expr, list(st.inputs)
        for arg, v in enumerate(st.inputs):
            if v in via:
                src = via[v][1]
                te = read_reshaped(te, arg, types[src])
                inputs[arg] = src
        stages.append(Stage(te, tuple(inputs), st.output))
    return dataclasses.replace(spec, stages=tuple(stages))


def _reads_once(stage: Stage, values: set[str]) -> bool:
    """Whether `stage` reduces and reads each element of the group's values once (a row sum, not
    a contraction, which would recompute a map composed into its loads once per output column)."""
    te = stage.expr
    if te.reduce is None:
        return False
    ext = extents_of(te)
    return all(injective(ld.index, te.inputs[a].shape, ext)
               for a, v in enumerate(stage.inputs) if v in values for ld in loads_of(te, a))


def _cut(members: _Members, scope: _Scope, statistics: bool, target: Target, stop: str = ""):
    """`members` dropped from the end until only the last value leaves the group, it is a useful
    chain and some kind renders it (rows that fit in shared memory, or attention on tensor
    cores): (members, kinds, why the rest went); no kinds when nothing useful is left."""
    while len(members.steps) > 1:
        spec, chain = scope.joined(members)
        inside = set(members.steps) | members.alias_steps
        inner = {st.output for m in members.specs[:-1] for st in m.stages}
        inner |= {scope.aliases[a].dst for a in members.alias_steps}
        leaks = sorted(v for v in inner if v in scope.pinned or not scope.readers.get(v, set()) <= inside)
        if leaks and not isinstance(chain, str) and set(leaks) <= set(chain.shared_values()) \
                and _no_reader_delayed(leaks, chain, members, scope):
            # resident rows and statistics read outside too are written as well (a pre-norm
            # transformer's residual sum, LayerNorm'd here and added again by the next sublayer;
            # an unrolled scan's outputs, one statistic a step)
            spec = dataclasses.replace(spec, outputs=tuple(st.output for st in spec.stages if st.output in leaks)
                                       + (spec.stages[-1].output,))
            chain, leaks = resident_rows.analyse(spec, fit=False), []
        useful = not leaks and not isinstance(chain, str) and _useful(chain, statistics)
        kinds = fused_kinds(spec, target) if useful else {}
        if kinds:
            return members, kinds, stop
        stop = (f"{', '.join(leaks)} is read outside the group" if leaks else
                chain if isinstance(chain, str) else "no rows kept resident" if not useful else
                "its rows do not fit in shared memory and it is not attention the tensor cores take")
        members = members.head(len(members.steps) - 1)
    return members, {}, stop


def _no_reader_delayed(leaks, chain: resident_rows.RowChain, members: _Members, scope: _Scope) -> bool:
    """Whether every outside reader of a statistic the chain would write waits for the chain's
    last value anyway (reads it, or what is computed from it): written by the chain, a statistic
    is ready only when the whole chain is, so a reader that could have run beside the stages
    after it would be put a wave behind (DynamicQuantizeLinear's min, read by its scale, fused
    with the y that also reads the max). Resident rows written too are a chain's own case (a
    pre-norm residual), decided as before."""
    stats = {s.output for s in chain.stats} & set(leaks)
    if not stats:
        return True
    last = members.steps[-1]
    if last not in scope.downstream:
        scope.downstream[last] = downstream(last, scope.steps, scope.readers)
    inside = set(members.steps) | members.alias_steps
    return all(r in scope.downstream[last] for v in stats for r in readers_through(v, scope.readers, scope.aliases)
               if r not in inside)


def _useful(chain: resident_rows.RowChain, statistics: bool) -> bool:
    """A chain is worth its kernel when it computes row statistics (a softmax, a normalisation,
    however written: the lowering's row chains, or ReduceMean/Sub/Pow/ReduceMean/Div by hand)
    and keeps what they are computed from on chip: the rows of a contraction (resident), or the
    maps before and after them (AStitch's stitching: a residual add, the normalisation's
    elementwise part); in the second round (statistics False), when a contraction's rows feed a
    contraction over them with no statistic between (a back-to-back MLP: the hidden rows stay in
    shared memory). The cost model then weighs that against the members apart, Roller's tiles
    among them, whose absence makes every block read the whole of both weights
    (`resident_rows.block_reads`)."""
    if not statistics:
        return not chain.stats and chain.resident is not None and chain.final.expr.reduce is not None
    return bool(chain.stats) and (chain.resident is not None or all(_memory_bound(s) for s in chain.stats))


def _memory_bound(stat: resident_rows.Reader) -> bool:
    """Whether a row statistic reads its operands along the row once each (a sum, a max, a mean
    of what the row holds, an embedding row gathered by its token id) rather than contracting them
    with an operand every row reads again (a conv's or GEMM's weight): a block computes a
    contraction without Roller's tiles, which only a resident stage's removed round trip is
    worth."""
    te = stat.expr
    ext = extents_of(te)
    (j, _), = te.reduce.axes
    for a, v in enumerate(stat.values):
        for ld in loads_of(te, a):
            along = any(j in vars_of(i) for i in ld.index)
            if along and not (injective(ld.index, te.inputs[a].shape, ext) or injective_but_gathers(ld.index, ext)):
                return False
    return True


def fused_kinds(spec: KernelSpec, target: Target) -> dict[str, tuple[float, KernelSpec]]:
    """The kinds that can render the chain as one kernel: each one's predicted time and the spec
    as it would be placed. Blocks owning whole rows (the spec as it is) when the rows fit in
    shared memory, or in registers for a chain of statistics alone (register_rows); the online
    softmax over key tiles on tensor cores (the spec with that kind and its configuration) when
    the chain is attention in fp16/bf16 and the target has mma.sync, and on SIMT lanes in fp32
    when it is attention of any float type; with its keys split across blocks when the queries
    a head are few (decoding)."""
    out = {}
    chain = resident_rows.analyse(spec)
    if isinstance(chain, resident_rows.RowChain):
        # the spec as it is: in registers when it is statistics over rows that fit them
        if isinstance(register_rows.analyse(spec, chain), register_rows.RegisterRows):
            out[register_rows.NAME] = (_predict_us(spec, target, chain), spec)
        else:       # with the maps a contraction re-reads computed once, or as it is: the faster
            # (once first: a tie, where FLOPs are not what bounds the chain, goes to fewer FLOPs)
            ways = [w for w in [_computed_once(spec, chain)] if w is not None] + [(spec, chain)]
            out[resident_rows.NAME] = min(((_predict_us(w, target, c), w) for w, c in ways), key=lambda p: p[0])
    found = flash_attention.recognise(spec)       # once for both online-softmax kinds
    if isinstance(found, str):
        return out
    att = flash_attention.narrow(found)
    if isinstance(att, flash_attention.Attention) and flash_attention.available(target, att):
        cfg = flash_attention.configuration(att, spec)
        out[flash_attention.NAME] = (flash_attention.predict_us(cfg, target),
                                     dataclasses.replace(spec, kind=flash_attention.NAME, config=cfg))
    for kind in (flash_attention_simt, flash_decoding):     # SIMT lanes, any float type and target
        att = kind.narrow(found)
        if isinstance(att, flash_attention.Attention):
            cfg = kind.configuration(att, spec, target)
            if cfg is not None:     # (flash_decoding: None where every tiling splits and splits are off)
                out[kind.NAME] = (flash_attention.predict_us(cfg, target),     # the micro-model's, as above
                                  dataclasses.replace(spec, kind=kind.NAME, config=cfg))
    return out


def _computed_once(spec: KernelSpec, chain: "resident_rows.RowChain"
                   ) -> "tuple[KernelSpec, resident_rows.RowChain] | None":
    """A map that a contraction of the chain reads along its reduction is computed for every
    output column of a row when carried in registers (softmax's exp(s - max) / sum once per column
    of P.V, a LayerNorm'd row once per column of the next product): carried in shared memory
    instead, as resident rows, each element is computed once, for one more row buffer in shared
    memory (fewer rows to a block where they are long). That spec and its chain, when it is still
    a chain; None when there is no such map."""
    # (a reduction with one output per row reads each element once: nothing recomputed)
    once = _kept_as_rows(spec, lambda te: te.output.size > chain.row_count)
    if once is None:
        return None
    again = resident_rows.analyse(once)
    return (once, again) if isinstance(again, resident_rows.RowChain) else None


def _kept_as_rows(spec: KernelSpec, reader: Callable) -> KernelSpec | None:
    """`spec` with each register map that a reducing stage (of those `reader(expr)` admits) reads
    along its reduction carried in shared memory instead, as resident rows; None when there is
    no such map."""
    levels = dict(spec.carried)
    maps = set()
    for st in spec.stages:
        te = st.expr
        if te.reduce is None or not reader(te):
            continue
        along = {name for name, _ in te.reduce.axes}
        maps |= {v for a, v in enumerate(st.inputs) if levels.get(v) is Level.REGISTER and
                 any(ld.index and isinstance(ld.index[-1], Var) and ld.index[-1].name in along
                     for ld in loads_of(te, a))}
    if not maps:
        return None
    return dataclasses.replace(spec, carried=tuple((v, Level.SHARED if v in maps else lvl) for v, lvl in spec.carried))


def saved_us(fused_us: float, apart_us: float) -> float:
    """What a chain saves, by which chains that share a member are ranked."""
    return apart_us - fused_us


def pays(fused_us: float, apart_us: float) -> bool:
    """Whether a chain is kept: the fused kernel is predicted faster than its members apart."""
    return fused_us < apart_us


def _split_apart_us(spec: KernelSpec, target: Target, types: dict) -> float:
    """A statistic passes/split_rows.py set apart, priced as it will be rendered (the roller's split
    reduction): the roofline at a thread per row would price it as if its rows were a block each
    again, and regrow the chain that pass predicted slower."""
    return rendered_us(tile_spec(spec, target, types=dict(types)), types, target)


def apart_us(spec: KernelSpec, target: Target) -> float:
    """A spec's time as a launch of its own, as members apart are priced (passes/prologue.py)."""
    return _predict_us(spec, target)


def _predict_us(spec: KernelSpec, target: Target, chain=None) -> float:
    """The cost model's time of one spec as one launch: compulsory bytes over DRAM bandwidth, its
    FLOPs at the SIMT share its threads fill, or (a row chain) what its blocks read through L2 at
    the share of L2 bandwidth its grid draws, whichever is largest, plus the launch."""
    types = spec.types
    nbytes = (sum(types[v].nbytes for v in spec.inputs) - unread_bytes(spec.stages, types)
              + sum(types[v].nbytes for v in spec.written))
    if chain is None and len(spec.stages) > 1:      # (the caller's, where it has analysed it)
        chain = resident_rows.analyse(spec)
    if isinstance(chain, resident_rows.RowChain):
        threads = math.ceil(chain.row_count / chain.rows_per_block) * resident_rows.THREADS
    else:
        threads = types[spec.written[0]].size      # a tiled kind's threads cover its output, about
    if isinstance(chain, resident_rows.RowChain):   # as the kernel computes it, maps where they are read
        flops = resident_rows.chain_flops(chain)
    else:
        flops = sum(2 * st.expr.output.size * (st.expr.reduce.extent if st.expr.reduce else 1) for st in spec.stages)
    l2_us = 0.0
    if isinstance(chain, resident_rows.RowChain):   # every block reads what its rows need through L2
        blocks = math.ceil(chain.row_count / chain.rows_per_block)
        l2_us = blocks * resident_rows.block_reads(chain) / (target.l2_gbps * 1e3 * min(1.0, blocks / target.sms))
    return max(predict_us(nbytes, flops, threads, target, _tensor_core_tflops(spec, chain, target)), l2_us) + LAUNCH_US


# the precision stage's marks and the input type whose tensor-core peak a tiled GEMM of that mark gets
_TC_INPUT = {"fp16": "float16", "bf16": "bfloat16", "tf32": "float32"}


def _tensor_core_tflops(spec: KernelSpec, chain, target: Target) -> float | None:
    """The tensor-core peak a member apart gets (Roller tiles a marked contraction with mma), so
    that a chain computed on SIMT lanes is weighed against it fairly; None for SIMT."""
    if isinstance(chain, resident_rows.RowChain) or spec.precision not in _TC_INPUT:
        return None
    return target.tensor_core_tflops(_TC_INPUT[spec.precision]) or None
