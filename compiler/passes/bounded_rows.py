"""Values with a run-time extent, followed through the kernels that read them row by row.

An op whose output's extent on an axis is known only at run time (OpDef.bounded: NonMaxSuppression's
selected boxes, NonZero's coordinates) writes a buffer sized to the bound and the real extent to
a scalar. A value computed from it keeps the same rows, and so the same extent, when each of its
elements reads the bounded value only at its own position along that axis: the load's index on
that axis is the reader's own output variable, over an axis of at most the bound (a Gather of
the selected box indices, an elementwise op, a Concat along another axis, the first rows: a
slice from 0). Its real extent is the source's, capped by its own static one. The rows past it
are computed from padding (zeros, in range as indices) and trimmed on return like the source's.
A reduction over such an axis (the load's index on it a reduction variable) is masked: the
stage reads the extent's scalar too, each term past it is the combiner's identity, and a mean's
divisor (the reduced extent, a constant in the epilogue) becomes the run-time one. A gather at
positions the model computed reads rows in range (ONNX requires it), a negative one wrapped by
the real extent. A hand-written kernel may read such a value only together with its extent (it
honours it: NonMaxSuppression of run-time boxes). A control-flow region's bodies are lowered
knowing the extents of what they read from outside (lower_graph's outer_extents). Anything else
that reads such a value (a slice from an offset or a reshape across its rows, a region taking it
as its condition or a carried or scanned value) is refused at compile time, naming the node,
since its result would depend on rows that are padding.

This is the lowering's bookkeeping, from the tensor expressions alone (never the op names):
`follow` is called on each node's steps in order, records value by value the scalar holding its
extent and the axis, and returns the steps with their reductions masked and gathers wrapped; the
lowering gives the graph outputs among them to Plan.output_lengths."""
from __future__ import annotations

import dataclasses
import math

from ..errors import ShapeError
from ..ir.dataflow import reads, writes
from ..ir.dtypes import DType
from ..ir.graph import view_axis
from ..ir.plan import REGIONS, AliasStep, ComputeStep, IfStep, LoopStep
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import (Binary, Const, Expr, Load, TensorExpr, Var, binary, cast, const, load, logical_and,
                        map_children, maximum, minimum, reduce_identity, replace_loads, select, substitute, walk)

# value -> (the int64 scalar holding its extent, the axis)
Extents = dict[str, tuple[str, int]]


def follow(node, steps: list, types: dict, extents: Extents, handled: frozenset[str] = frozenset()) -> list:
    """Records in `extents` each value `node`'s steps compute row by row from one with a run-time
    extent; returns the steps, a reduction over such a value's rows masked to its extent; raises
    ShapeError where a step reads such a value any other way. The stages writing a value in
    `handled` are the lowering's own business: it gave that value its extent (LowerCtx.set_run_time_extent)."""
    out = []
    for step in steps:
        out.append(step)
        read = sorted({v for v in reads(step) if v in extents})
        written = writes(step)
        if not read:
            if any(w in extents for w in written):   # an update in place of a value with run-time rows
                raise _refused(node, next(w for w in written if w in extents), extents, types,
                               "a later kernel of its op writes it again")
            continue
        if isinstance(step, AliasStep):
            if step.dst in handled:     # the lowering gave the view its own length (merged rows)
                continue
            length, axis = extents[step.src]
            same = view_axis(types[step.src].shape, types[step.dst].shape, axis)
            if same is None:
                raise _refused(node, step.src, extents, types, f"it is viewed as {list(types[step.dst].shape)}, "
                               "which mixes its rows")
            extents[step.dst] = (length, same)
            continue
        if isinstance(step, REGIONS):
            # its bodies were lowered knowing what they read from outside (lower_graph's outer_extents);
            # what it takes as its condition, trip count, carried or scanned values they would not
            taken = sorted(set(read) & direct_reads(step))
            if taken:
                raise _refused(node, taken[0], extents, types,
                               "a control-flow region takes it as an input of its body")
            continue
        if not isinstance(step, ComputeStep):
            raise _refused(node, read[0], extents, types, "a step of unknown kind reads it")
        if not isinstance(step.spec, KernelSpec):
            # a hand-written kernel given the extent too honours it (its op's lowering passed it)
            blind = [v for v in read if extents[v][0] not in reads(step)]
            if blind:
                raise _refused(node, blind[0], extents, types, "a hand-written kernel reads it without its length")
            continue
        stages = []
        for stage in step.spec.stages:
            if stage.output in handled:
                stages.append(stage)
                continue
            try:
                stage, found = _row_axis(stage, extents, types)
            except _NotByRows as e:
                raise _refused(node, e.value, extents, types, e.why) from None
            if found is not None:
                extents[stage.output] = found
            stages.append(stage)
        if tuple(stages) != step.spec.stages:
            out[-1] = dataclasses.replace(step, spec=dataclasses.replace(step.spec, stages=tuple(stages)))
    return out


class _NotByRows(Exception):
    def __init__(self, value: str, why: str):
        self.value, self.why = value, why


def _row_axis(stage: Stage, extents: Extents, types: dict) -> tuple[Stage, tuple[str, int] | None]:
    """The stage (its reduction masked where it runs over run-time rows) and the (extent value,
    axis) of its output when it reads its inputs with run-time rows row by row; None when it reads
    none; _NotByRows when it reads one otherwise."""
    te = stage.expr
    reduced = dict(te.reduce.axes) if te.reduce is not None else {}
    found = None
    masks: dict[str, set[str]] = {}     # reduction variable -> the extents bounding it
    gathered: dict[int, tuple[int, str]] = {}   # input read at positions it loads -> (axis, extent)
    for arg, name in enumerate(stage.inputs):
        if name not in extents:
            continue
        length, axis = extents[name]
        bound = te.inputs[arg].shape[axis]
        for ld in te.loads[arg]:
            at = ld.index[axis]
            if isinstance(at, Var) and at.name in reduced and reduced[at.name] <= bound:
                masks.setdefault(at.name, set()).add(length)
                continue
            if any(isinstance(x, Load) for x in walk(at)):
                # a gather at indices the model computed: in range of the real rows, as ONNX requires,
                # a negative one wrapped by the real extent
                if any(isinstance(x, Const) and x.value == bound - 1 and bound > 1 for x in walk(at)):
                    raise _NotByRows(name, f"its expression {te.name} clamps its positions on axis {axis} to the bound")
                gathered[arg] = (axis, length)
                continue
            if isinstance(at, Const) and 0 <= at.value < bound:
                # one row at a position from the front (x[0], SequenceAt(list, 0)): in range of the
                # real rows, as ONNX requires (ops/indexing.py leaves a negative one to the gather above)
                continue
            k = int(at.name[1:]) if isinstance(at, Var) and at.name[:1] == "i" and at.name[1:].isdigit() else None
            if k is None:
                raise _NotByRows(name, f"its expression {te.name} reads axis {axis} at a computed position, "
                                 "not row by row")
            if te.output.shape[k] > bound:
                raise _NotByRows(name, f"its expression {te.name} reads axis {axis} at its own rows, {te.output.shape[k]} "
                                 f"of them where the value has at most {bound}")
            if found is not None and found != (length, k):
                raise _NotByRows(name, f"{te.name} reads it beside a value of another run-time length "
                                 "(or another axis) at the same rows")
            found = (length, k)
    if found is None and not masks and not gathered and stage.output in extents:
        raise _NotByRows(stage.output, f"{te.name} writes it again")
    if not masks and not gathered:
        return stage, found
    # the extents' scalars, read by the stage as inputs of its own
    counts = sorted(set().union(*masks.values(), (c for _, c in gathered.values())))
    at = {c: load(len(te.inputs) + k, types[c], ()) for k, c in enumerate(counts)}
    te = te.replace(inputs=te.inputs + tuple(types[c] for c in counts))
    if gathered:
        te = _wrapped_by_extent(te, gathered, at)
    if masks:
        te = _masked(te, masks, at, next(n for n in stage.inputs if n in extents))
    return Stage(te, stage.inputs + tuple(counts), stage.output), found


def _wrapped_by_extent(te: TensorExpr, gathered: dict[int, tuple[int, str]], at: dict[str, Expr]) -> TensorExpr:
    """`te` with a gathered position's wrap of a negative index (position + the static extent) by
    the run-time extent."""
    def fn(ld: Load) -> Expr:
        if ld.arg not in gathered:
            return ld
        axis, count = gathered[ld.arg]
        bound = te.inputs[ld.arg].shape[axis]
        def swap(x: Expr) -> Expr:
            x = map_children(x, swap)
            return at[count] if isinstance(x, Const) and not x.dtype.is_float and x.value == bound else x
        return Load(ld.arg, ld.index[:axis] + (swap(ld.index[axis]),) + ld.index[axis + 1:], ld.dtype)
    return te.replace(body=replace_loads(te.body, fn),
                      epilogue=None if te.epilogue is None else replace_loads(te.epilogue, fn))


def _masked(te: TensorExpr, masks: dict[str, set[str]], at: dict[str, Expr], value: str) -> TensorExpr:
    """`te` with each term of its reduction past a run-time extent the combiner's identity, and a
    mean's divisor (the reduced extent, a constant of its epilogue) the run-time one."""
    op = te.reduce.op
    ident = reduce_identity({"argmax": "max", "argmin": "min"}.get(op, op), te.body.dtype)
    if ident is None:
        raise _NotByRows(value, f"{te.name}'s reduction {op} over its run-time rows has no identity to mask with")
    if op.endswith("_last"):
        raise _NotByRows(value, f"{te.name}'s reduction {op} over its run-time rows would take padding "
                         "tied with its last value")
    live = None
    for var in sorted(masks):
        for c in sorted(masks[var]):
            term = binary("lt", Var(var), at[c])
            live = term if live is None else logical_and(live, term)
    body = select(live, te.body, ident)
    # the number of terms at run time: a masked axis's extent capped by its run-time one
    static = math.prod(n for _, n in te.reduce.axes)
    terms: Expr = const(1, DType.int64)
    for var, n in te.reduce.axes:
        axis_terms: Expr = const(n, terms.dtype)
        for c in sorted(masks.get(var, ())):
            axis_terms = minimum(axis_terms, at[c])
        terms = binary("mul", terms, axis_terms)
    epilogue = te.epilogue
    if epilogue is not None and static > 1:
        epilogue = _runtime_divisor(epilogue, static, Var(_TERMS))
        if any(isinstance(x, Const) and x.dtype is not DType.bool and x.value in (static, 1.0 / static)
               for x in walk(epilogue)):
            raise _NotByRows(value, f"{te.name}'s epilogue uses the reduced extent {static} other than as "
                             "a mean's divisor")
        # a mean of nothing is 0, as the static empty reduction's (compiler/ops/reduce.py)
        epilogue = substitute(epilogue, _TERMS, maximum(terms, 1))
    return te.replace(body=body, epilogue=epilogue)


_TERMS = "by_terms"   # the run-time number of terms, while the epilogue is rewritten


def _runtime_divisor(e: Expr, static: int, terms: Expr) -> Expr:
    """`e` with each division by the reduced extent `static` (x / n, x * (1/n)) a division by
    `terms`, its run-time value."""
    def swap(x: Expr) -> Expr:
        x = map_children(x, swap)
        if isinstance(x, Binary) and isinstance(x.b, Const) and x.dtype is not DType.bool:
            if x.fn in ("div", "idiv") and x.b.value == static:
                return Binary(x.fn, x.a, cast(terms, x.dtype), x.dtype)
            if x.fn == "mul" and x.dtype.is_float and x.b.value == 1.0 / static:
                return Binary("div", x.a, cast(terms, x.dtype), x.dtype)
        return x
    return swap(e)


def direct_reads(step) -> set[str]:
    """What a region takes as its own inputs, not through its bodies' outer reads."""
    if isinstance(step, IfStep):
        return {step.cond}
    if isinstance(step, LoopStep):
        return {n for n in (step.trip_count, step.cond, *step.carried_in) if n}
    return set(step.state_in) | set(step.scan_in)


def _refused(node, value: str, extents: Extents, types: dict, why: str) -> ShapeError:
    length, axis = extents[value]
    return ShapeError(f"'{value}' has a length only known at run time on axis {axis} (at most "
                      f"{types[value].shape[axis]}, the real one in '{length}') and {node.op} {node.name} "
                      f"cannot compute with it: {why}", node=node.name,
                      hint="Brickyard computes with such a value only row by row (elementwise ops, gathers at "
                      "its rows, concatenation along another axis) and returns it trimmed")
