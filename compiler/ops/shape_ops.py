"""Shape ops: Shape, Size, ConstantOfShape, Range, Constant.

The frontend folds them with these references whenever their inputs are constant. The lowerings
cover the rest: Shape and Size depend on static shapes, so they write known values, except of a
value whose extent on one axis is known only at run time (passes/bounded_rows.py), where they read
the scalar holding it;
ConstantOfShape fills its static output, or, where its shape is the Shape of a value of run-time
length (bounded: frontend/element_bounds.py), an output of run-time length on that axis; Range
with runtime inputs has a data-dependent length."""
from __future__ import annotations

import math

import numpy as np
import onnx

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import TensorExpr, binary, const, eq, load, maximum, minimum, out_vars, select
from .movement import attr_array, emit_expr, emit_values
from .registry import Inferred, LowerCtx, bounded_result, register


def _shape_range(node, rank, opset):
    start, end = (node.attr("start", 0), node.attr("end")) if opset >= 15 else (0, None)
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = rank if end is None else min(max(end + rank if end < 0 else end, 0), rank)
    return start, max(start, end)


def _ref_shape(node, inputs, opset):
    x = inputs[0]
    s, e = _shape_range(node, x.ndim, opset)
    return [np.array(x.shape[s:e], dtype=np.int64)]


@register("Shape", reference=_ref_shape)
def lower_shape(ctx: LowerCtx) -> None:
    x = ctx.input(0)
    s, e = _shape_range(ctx.node, x.rank, ctx.opset)
    run_time = ctx.run_time_extent(0)
    if run_time is None or not s <= run_time[1] < e:
        emit_values(ctx, np.array(x.shape[s:e], dtype=np.int64))
        return
    count, axis = run_time
    i = out_vars(1)[0]
    body = load(0, TensorType(DType.int64, ()), ())
    for a in range(s, e):        # the static extents, the run-time one read
        if a != axis:
            body = select(eq(i, a - s), const(x.shape[a], DType.int64), body)
    ctx.emit(TensorExpr("shape", (TensorType(DType.int64, ()),), ctx.out_types[0], body), [count], ctx.out_name())


def _ref_size(node, inputs, opset):
    return [np.array(inputs[0].size, dtype=np.int64)]


@register("Size", reference=_ref_size)
def lower_size(ctx: LowerCtx) -> None:
    x = ctx.input(0)
    run_time = ctx.run_time_extent(0)
    if run_time is None:
        emit_values(ctx, np.array(x.size, dtype=np.int64))
        return
    count, axis = run_time
    others = math.prod(n for a, n in enumerate(x.shape) if a != axis)
    body = binary("mul", load(0, TensorType(DType.int64, ()), ()), others)
    ctx.emit(TensorExpr("size", (TensorType(DType.int64, ()),), ctx.out_types[0], body), [count], ctx.out_name())


def _fill_value(node) -> np.ndarray:
    v = attr_array(node.attr("value"))
    return np.zeros(1, dtype=np.float32) if v is None else v.reshape(-1)


def _ref_constant_of_shape(node, inputs, opset):
    v = _fill_value(node)
    return [np.full([int(d) for d in inputs[0].reshape(-1)], v[0], dtype=v.dtype)]


def _ref_bounded_constant_of_shape(node, inputs, opset):
    exact = _ref_constant_of_shape(node, inputs, opset)[0]
    if node.attr("run_time_axis") is None:
        return [exact]
    return bounded_result(node, exact, node.attr("run_time_axis"))


def _infer_constant_of_shape(pn, in_types: list, consts: list, bounds: list) -> Inferred | None:
    """A shape known only at run time whose elements are bounded (frontend/element_bounds.py: the
    Shape of a value of run-time length, `torch.full_like(boxes[:, :1], i)`): the output at the
    upper bounds. Where every element not pinned is an extent of a value (its source), the output
    has the real extent of the one the lowering finds run-time (`extent_sources`: (output axis,
    value, the value's axis) triples; the same count, so the two compute together; the import
    cannot always tell which of a value's axes is the run-time one).
    Else, with one element not pinned, that axis (`run_time_axis`) has its real extent as one more
    output (OpDef.bounded). Else None: ONNX's inference (a constant shape, or one unbounded, which
    it refuses)."""
    b = bounds[0]
    if consts[0] is not None or b is None or not np.all(np.isfinite(b[1])):
        return None
    lower, upper, source = (np.asarray(x).reshape(-1) for x in b)
    free = [a for a in range(upper.size) if lower[a] != upper[a]]
    if not free:      # pinned: ONNX's inference has its value
        return None
    value = next((onnx.numpy_helper.to_array(a.t) for a in pn.attribute if a.name == "value"), None)
    dt = DType.float32 if value is None else DType.from_numpy(value.dtype)
    shape = tuple(max(int(u), 0) for u in upper)
    if all(source[a] is not None for a in free):   # values' extents: the run-time one's count, shared
        found = tuple((a, source[a][0], int(source[a][1])) for a in free)
        return Inferred([TensorType(dt, shape)], (("extent_sources", found),),
                        run_time=((0, max(shape[a] for a in free)),))
    if len(free) != 1:     # two axes of run-time length: refused by ONNX's inference
        return None
    return Inferred([TensorType(dt, shape), TensorType(DType.int64, ())], (("run_time_axis", free[0]),))


def _constant_of_shape_bounded(node, in_types) -> tuple[tuple[int, int], ...]:
    return ((0, node.attr("run_time_axis")),) if node.attr("run_time_axis") is not None else ()


@register("ConstantOfShape", reference=_ref_bounded_constant_of_shape, infer=_infer_constant_of_shape,
          infer_bounds=True, bounded=_constant_of_shape_bounded)
def lower_constant_of_shape(ctx: LowerCtx) -> None:
    """A fill with the attribute value over the static (inferred) shape. Where the shape measures
    values of run-time length (`extent_sources`), the fill takes the count of the one that is
    run-time here, so it computes together with that value; where one axis is otherwise known
    only at run time (`run_time_axis`), the shape's element is read on the device (clamped to
    [0, bound]) and written as the fill's own count."""
    y = ctx.out_types[0]
    v = _fill_value(ctx.node)[0]
    value = float(v) if y.dtype.is_float else (bool(v) if y.dtype is DType.bool else int(v))
    emit_expr(ctx, "constant_of_shape", [], const(value, y.dtype))
    if ctx.attr("extent_sources") is not None:     # Shapes of values of run-time length: their counts
        run_time = []
        for out_axis, value, value_axis in ctx.attr("extent_sources"):
            found = ctx.run_time_extent_of(value)
            if found is not None and found[1] == value_axis:
                run_time.append((out_axis, found[0]))
        if len(run_time) > 1:
            raise ShapeError(f"ConstantOfShape's shape has {len(run_time)} extents known only at run time "
                             f"(axes {[a for a, _ in run_time]}): a value has at most one", node=ctx.node.name)
        if run_time:
            ctx.set_run_time_extent(0, run_time[0][1], run_time[0][0])
        return      # else every extent it reads is static here: so is the output's
    axis = ctx.attr("run_time_axis")
    if axis is None:
        return
    st = ctx.input(0)
    real = load(0, st, (const(axis, DType.int64),))
    count = maximum(minimum(real, const(y.shape[axis], DType.int64)), const(0, DType.int64))
    ctx.emit(TensorExpr("constant_of_shape_extent", (st,), ctx.out_types[1], count), [ctx.in_name(0)], ctx.out_name(1))


def _ref_range(node, inputs, opset):
    start, limit, delta = (np.asarray(a).reshape(()) for a in inputs)
    n = max(int(math.ceil((float(limit) - float(start)) / float(delta))), 0)
    dt = start.dtype
    if np.issubdtype(dt, np.integer):
        return [(int(start) + int(delta) * np.arange(n, dtype=np.int64)).astype(dt)]
    return [(start + (delta * np.arange(n, dtype=dt)).astype(dt)).astype(dt)]


def _infer_range(pn, in_types: list, consts: list, bounds: list) -> Inferred | None:
    """A limit known only at run time that is a value's extent (frontend/element_bounds.py:
    torchvision's `torch.arange(num_classes)` of a Shape the import cannot pin), start and delta
    constant: the range to the limit's upper bound (`limit_at_bound`), its one axis of the
    run-time length where the extent measured is run-time (`extent_sources`, as ConstantOfShape's).
    Else None: ONNX's inference."""
    if consts[0] is None or consts[2] is None or consts[1] is not None or bounds[1] is None:
        return None
    lower, upper, source = (np.asarray(v).reshape(-1) for v in bounds[1])
    if upper.size != 1 or source[0] is None or not np.isfinite(float(upper[0])):
        return None
    limit = np.asarray(upper[0]).astype(consts[0].dtype)
    n = _ref_range(None, [consts[0], limit, consts[2]], 11)[0].size
    return Inferred([TensorType(in_types[0].dtype, (n,))],
                    (("limit_at_bound", float(upper[0])), ("extent_sources", ((0, source[0][0], int(source[0][1])),))),
                    run_time=((0, n),))


@register("Range", reference=_ref_range, infer=_infer_range, infer_bounds=True)
def lower_range(ctx: LowerCtx) -> None:
    """The values, computed at compile time. A limit bounded by a value's extent (_infer_range): the
    range to the bound, which where that extent is run-time takes its count (0, 1, ... is the same
    at every length), as long as it starts at 0 in steps of 1."""
    consts = [ctx.const(k) for k in range(3)]
    at_bound = ctx.attr("limit_at_bound")
    if at_bound is not None and consts[0] is not None and consts[2] is not None:
        consts[1] = np.asarray(at_bound).astype(consts[0].dtype)
        for _, value, value_axis in ctx.attr("extent_sources"):
            found = ctx.run_time_extent_of(value)
            if found is None or found[1] != value_axis:
                continue     # a static extent: the range to it
            if float(consts[0]) != 0 or float(consts[2]) != 1:
                raise ShapeError(f"Range to the run-time length of '{value}' (axis {value_axis}) from "
                                 f"{consts[0].item()} in steps of {consts[2].item()}: its length would be a "
                                 "count of its own", node=ctx.node.name)
            ctx.set_run_time_extent(0, found[0], 0)
    if any(c is None for c in consts):
        raise ctx.unsupported("data-dependent output shape (start, limit, delta must be constants)")
    emit_values(ctx, _ref_range(ctx.node, consts, ctx.opset)[0])


def _ref_constant(node, inputs, opset):
    for name, kind in (("value", None), ("value_float", np.float32), ("value_floats", np.float32),
                       ("value_int", np.int64), ("value_ints", np.int64)):
        v = node.attr(name)
        if v is not None:
            return [attr_array(v) if kind is None else np.array(v, dtype=kind)]
    for name in ("value_string", "value_strings", "sparse_value"):
        if node.attr(name) is not None:
            from ..errors import UnsupportedOp
            raise UnsupportedOp("Constant", node=node.name, detail=f"{name} attribute")
    raise ValueError("Constant without a value")


@register("Constant", reference=_ref_constant)
def lower_constant(ctx: LowerCtx) -> None:
    """Normally folded by the frontend; small values can also be written by a kernel."""
    emit_values(ctx, _ref_constant(ctx.node, [], ctx.opset)[0])


__all__ = ["lower_shape", "lower_size", "lower_constant_of_shape", "lower_range", "lower_constant"]
