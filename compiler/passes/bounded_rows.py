"""Values with a run-time extent, followed through the kernels that read them row by row.

An op whose output's extent on an axis is known only at run time (OpDef.bounded: NonMaxSuppression's
selected boxes, NonZero's coordinates) writes a buffer sized to the bound and the real extent to
a scalar. A value computed from it keeps the same rows, and so the same extent, when each of its
elements reads the bounded value only at its own position along that axis: the load's index on
that axis is the reader's own output variable, over an axis of at most the bound (a Gather of
the selected box indices, an elementwise op, a Concat along another axis, the first rows: a
slice from 0). Its real extent is the source's, capped by its own static one. The rows past it
are computed from padding (zeros, in range as indices) and trimmed on return like the source's.
Anything else that reads such a value (a reduction over its rows, a slice or reshape across them,
a hand-written kernel, a control-flow region) is refused at compile time, naming the node, since
its result would depend on rows that are padding.

This is the lowering's bookkeeping, from the tensor expressions alone (never the op names):
`follow` is called on each node's steps in order and records, value by value, the scalar holding
its extent and the axis; the lowering gives the graph outputs among them to Plan.output_lengths."""
from __future__ import annotations

import math

from ..errors import ShapeError
from ..ir.dataflow import reads, writes
from ..ir.plan import AliasStep, ComputeStep
from ..ir.spec import KernelSpec
from ..ir.texpr import Var

# value -> (the int64 scalar holding its extent, the axis)
Extents = dict[str, tuple[str, int]]


def follow(node, steps: list, types: dict, extents: Extents) -> None:
    """Records in `extents` each value `node`'s steps compute row by row from one with a run-time
    extent; raises ShapeError where a step reads such a value any other way."""
    for step in steps:
        read = sorted({v for v in reads(step) if v in extents})
        written = writes(step)
        if not read:
            if any(w in extents for w in written):   # an update in place of a value with run-time rows
                raise _refused(node, next(w for w in written if w in extents), extents, types,
                               "a later kernel of its op writes it again")
            continue
        if isinstance(step, AliasStep):
            length, axis = extents[step.src]
            same = view_axis(types[step.src].shape, types[step.dst].shape, axis)
            if same is None:
                raise _refused(node, step.src, extents, types, f"it is viewed as {list(types[step.dst].shape)}, "
                               "which mixes its rows")
            extents[step.dst] = (length, same)
            continue
        if not isinstance(step, ComputeStep) or not isinstance(step.spec, KernelSpec):
            raise _refused(node, read[0], extents, types, "a hand-written kernel or a region reads it")
        for stage in step.spec.stages:
            try:
                found = _row_axis(stage, extents)
            except _NotByRows as e:
                raise _refused(node, e.value, extents, types, e.why) from None
            if found is not None:
                extents[stage.output] = found


class _NotByRows(Exception):
    def __init__(self, value: str, why: str):
        self.value, self.why = value, why


def _row_axis(stage, extents: Extents) -> tuple[str, int] | None:
    """(extent value, axis) of the stage's output when it reads its inputs with run-time rows row
    by row; None when it reads none; _NotByRows when it reads one otherwise."""
    te = stage.expr
    reduced = {a for a, _ in te.reduce.axes} if te.reduce is not None else set()
    found = None
    for arg, name in enumerate(stage.inputs):
        if name not in extents:
            continue
        length, axis = extents[name]
        bound = te.inputs[arg].shape[axis]
        for ld in te.loads[arg]:
            at = ld.index[axis]
            k = int(at.name[1:]) if isinstance(at, Var) and at.name[:1] == "i" and at.name[1:].isdigit() else None
            if k is None:
                how = (f"over its reduction variable {at.name}" if isinstance(at, Var) and at.name in reduced
                       else "at a computed position")
                raise _NotByRows(name, f"its expression {te.name} reads axis {axis} {how}, not row by row")
            if te.output.shape[k] > bound:
                raise _NotByRows(name, f"its expression {te.name} reads axis {axis} at its own rows, {te.output.shape[k]} "
                                 f"of them where the value has at most {bound}")
            if found is not None and found != (length, k):
                raise _NotByRows(name, f"{te.name} reads it beside a value of another run-time length "
                                 "(or another axis) at the same rows")
            found = (length, k)
    if found is None and stage.output in extents:
        raise _NotByRows(stage.output, f"{te.name} writes it again")
    return found


def view_axis(src: tuple[int, ...], dst: tuple[int, ...], axis: int) -> int | None:
    """The axis of a view `dst` of `src`'s bytes that is `src`'s `axis` (the same elements before,
    along and after it), else None."""
    before, after = math.prod(src[:axis]), math.prod(src[axis + 1:])
    for d in range(len(dst)):
        if dst[d] == src[axis] and math.prod(dst[:d]) == before and math.prod(dst[d + 1:]) == after:
            return d
    return None


def _refused(node, value: str, extents: Extents, types: dict, why: str) -> ShapeError:
    length, axis = extents[value]
    return ShapeError(f"'{value}' has a length only known at run time on axis {axis} (at most "
                      f"{types[value].shape[axis]}, the real one in '{length}') and {node.op} {node.name} "
                      f"cannot compute with it: {why}", node=node.name,
                      hint="Brickyard computes with such a value only row by row (elementwise ops, gathers at "
                      "its rows, concatenation along another axis) and returns it trimmed")
