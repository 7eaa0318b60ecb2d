"""Data movement computed in its readers (part of the welder stage, after the groups are chosen).

A kernel that only moves data (a transpose, a slice, a gather, a concat, a cast: every output
element is one input element) is left by the group search as a kernel of its own when other
groups read its value, or several members of one group do: groups grow forward and a consumer
joins one group, and a consumer takes in only producers it alone reads. Its recomputation costs a
load, the same load its readers make of its value, so each reader can compute it where it reads
it instead: the kernel's stages, composed into one, are prepended to every reader's, carried in
registers, and the kernel goes (Falcon's fused QKV split into K and V by a transpose and two
gathers; GPT-NeoX's split of its fused QKV projection; Swin's padded window partition).

All or nothing: a kernel goes only when every reader composes it; otherwise nothing changes (a
reader that took it in would read the same bytes from the kernel's input as from its output, and
the launch would stay). Readers read its inputs instead of its output, so where that is more bytes
(a narrowing cast: its readers would read the wider input) it goes only when the cost model
predicts the extra bytes cost less than the launch.
"""
from __future__ import annotations

import dataclasses

from ..analysis.dependence import read_reshaped, unread_bytes
from ..ir.compose import NotComposable, compose
from ..ir.dataflow import readers_of
from ..ir.plan import AliasStep, ComputeStep
from ..ir.spec import KernelSpec, Level, Stage
from ..ir.texpr import Cast, Const, Expr, Load, Select, TensorExpr
from ..roller.cost_model import LAUNCH_US
from ..targets import Target


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


# The most data-movement kernels one reader takes in: each is a stage its expression composes,
# and an unrolled loop's stack of every step's output (Mamba's scan) would otherwise take them all
# into one expression that every later analysis walks
MAX_TAKEN = 8


def duplicate_moves(steps: list, types: dict, pinned: set[str], target: Target | None) -> tuple[list, list[dict]]:
    """`steps` with every data-movement kernel that all its readers can compute in their loads
    removed, its stages prepended to theirs; and a record entry per kernel removed."""
    steps = list(steps)
    record: list[dict] = []
    taken: dict[tuple[str, ...], int] = {}     # a reader's values -> the kernels it has taken in
    readers = readers_of(steps)
    for k in range(len(steps)):
        spec = _movement(steps[k], pinned)
        rewritten = None if spec is None else _into_readers(spec, steps, readers, types, target, taken, pinned)
        if rewritten is None:
            continue
        dead = {k} | _aliases_of(spec.written[0], readers, steps)
        for r, new in rewritten.items():
            steps[r] = new
            taken[new.spec.written] = taken.get(new.spec.written, 0) + 1
        for v in spec.inputs:      # its readers read its inputs now
            readers[v] = (readers.get(v, set()) - dead) | set(rewritten)
        for j in dead:
            steps[j] = None
        record.append({"ops": list(spec.ops), "value": spec.written[0], "into": len(rewritten)})
    return [s for s in steps if s is not None], record


def _movement(step, pinned: set[str]) -> KernelSpec | None:
    """The step's spec when it is an untiled kernel that writes one value, not a plan output, and
    only moves data."""
    if not isinstance(step, ComputeStep) or not isinstance(step.spec, KernelSpec):
        return None
    spec = step.spec
    if spec.kind is not None or spec.workspace or len(spec.written) != 1 or spec.written[0] in pinned:
        return None
    try:
        te = spec.stage.expr
    except ValueError:
        return None
    return spec if moves_data(te) else None


def _aliases_of(value: str, readers: dict[str, set[int]], steps: list) -> set[int]:
    """The reshape alias steps that view `value`, transitively."""
    out: set[int] = set()
    frontier = [value]
    while frontier:
        v = frontier.pop()
        for r in readers.get(v, ()):
            if isinstance(steps[r], AliasStep) and r not in out:
                out.add(r)
                frontier.append(steps[r].dst)
    return out


def _into_readers(spec: KernelSpec, steps: list, readers: dict[str, set[int]], types: dict,
                  target: Target | None, taken: dict, pinned: set[str]) -> dict[int, ComputeStep] | None:
    """Each reader of `spec`'s value with its stage prepended, or None when one cannot take it (it
    does not compose, or has taken MAX_TAKEN already), a reshape of the value is a plan output,
    or the extra bytes its readers would read do not pay (`_pays`)."""
    value = spec.written[0]
    through: dict[int, dict[str, str]] = {}     # reader -> {alias value it reads: value}
    frontier = [value]
    while frontier:
        v = frontier.pop()
        for r in readers.get(v, ()):
            s = steps[r]
            if isinstance(s, AliasStep):
                if s.dst in pinned:
                    return None
                frontier.append(s.dst)
                continue
            through.setdefault(r, {})
            if v != value:
                through[r][v] = value
    if not through:
        return None
    if not _pays(spec, types, value, len(through), target):
        return None
    out: dict[int, ComputeStep] = {}
    for r, via in through.items():
        s = steps[r]
        if not (isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec) and s.spec.kind is None
                and not s.spec.workspace) or taken.get(s.spec.written, 0) >= MAX_TAKEN:
            return None
        new = _prepended(spec, s.spec, via, types)
        if new is None:
            return None
        out[r] = ComputeStep(new)
    return out


def _prepended(moved: KernelSpec, reader: KernelSpec, via: dict[str, str], types: dict) -> KernelSpec | None:
    """Reader `reader` computing `moved` in its loads (its reads of aliases in `via` read the moved
    value at the reshaped index), or None when the stages do not compose."""
    stages = []
    for st in reader.stages:
        te, inputs = st.expr, list(st.inputs)
        for arg, v in enumerate(st.inputs):
            if v in via:
                te = read_reshaped(te, arg, types[via[v]])
                inputs[arg] = via[v]
        stages.append(Stage(te, tuple(inputs), st.output))
    stages = [moved.stage] + stages    # one stage, one load a value: its stages composed
    carried = ((moved.stage.output, Level.REGISTER),) + reader.carried
    registers = {v for v, level in carried if level is Level.REGISTER}
    if any(level is not Level.REGISTER for _, level in carried):
        return None
    try:
        compose(tuple(stages), registers)
    except NotComposable:
        return None
    return dataclasses.replace(reader, stages=tuple(stages), carried=carried, ops=moved.ops + reader.ops,
                               precision=reader.precision or moved.precision)


def _pays(spec: KernelSpec, types: dict, value: str, n: int, target: Target | None) -> bool:
    """Whether n readers reading the kernel's inputs cost no more than the kernel's launch and
    its round trip: the inputs' bytes n times against the inputs, the output, and the output's
    bytes n times (a gathered table counts the rows its indices can name). Equal or fewer bytes
    always pay; more (a narrowing cast read by many) only when the extra bytes take less time
    than a launch."""
    nin = sum(types[v].nbytes for v in spec.inputs) - unread_bytes(spec.stages, types)
    nout = types[value].nbytes
    extra = n * nin - (nin + nout + n * nout)
    if extra <= 0:
        return True
    return target is not None and extra / (target.dram_gbps * 1e3) < LAUNCH_US
