"""Reductions: Reduce*, ArgMax/ArgMin, CumSum and TopK.

Simple reductions are one TensorExpr each (one thread per output element, a serial loop over the
reduced axes); ReduceLogSumExp takes the maximum first in its own kernel. CumSum (a guarded sum
over the whole axis) and TopK's ranks (counted) cost O(n^2) per row: correct for any axis; a long
TopK row is also priced as a radix select (ops/topk_select.py), a long CumSum has no other form yet."""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.texpr import (Binary, Expr, Reduce, TensorExpr, Var, binary, cast, const, load,
                        logical_and, logical_or, maximum, minimum, out_vars, reduce_vars, select, unary)
from . import topk_select
from .registry import LowerCtx, register

HALVES = (DType.float16, DType.bfloat16)


# --- shared helpers ------------------------------------------------------------------------------

def math_dtype(dt: DType) -> DType:
    """The type transcendental math is done in: float for float/half types, double otherwise."""
    return DType.float32 if dt in HALVES or dt is DType.float32 else DType.float64


def _acc_np(x: np.ndarray) -> np.dtype:
    """Accumulator dtype of a reference: float32 for 16-bit floats, else the input's own."""
    if x.dtype == np.float16 or DType.from_numpy(x.dtype) is DType.bfloat16:
        return np.dtype(np.float32)
    return x.dtype


def normalize_axis(axis: int, rank: int, what: str = "axis") -> int:
    """axis in [-rank, rank) to [0, rank)."""
    a = int(axis)
    if not -rank <= a < max(rank, 1):
        raise ValueError(f"{what} {axis} out of range for rank {rank}")
    return a + rank if a < 0 else a


def reduce_axes(node: Node, opset: int, rank: int, axes_input) -> tuple[int, ...]:
    """The reduced axes (sorted, non-negative) of a Reduce* node; () means no reduction (noop)."""
    as_input = opset >= (13 if node.op == "ReduceSum" else 18)
    axes = axes_input if as_input else node.attr("axes")
    axes = [] if axes is None else [int(a) for a in np.asarray(axes).reshape(-1)]
    if not axes:
        return () if as_input and node.attr("noop_with_empty_axes", 0) else tuple(range(rank))
    return tuple(sorted({normalize_axis(a, rank, "axes") for a in axes}))


def kept_shape(shape, axes) -> tuple[int, ...]:
    """shape with the axes in `axes` set to 1 (keepdims)."""
    return tuple(1 if k in axes else d for k, d in enumerate(shape))


def index_of_reduced(rank: int, axes: tuple[int, ...], keepdims: bool, ivars, rvars) -> tuple[Expr, ...]:
    """Input index of a reduction: reduced axes read r0.., kept axes read the output variables."""
    idx, o, r = [], 0, 0
    for k in range(rank):
        if k in axes:
            idx.append(rvars[r]); r += 1
            if keepdims:
                o += 1
        else:
            idx.append(ivars[o]); o += 1
    return tuple(idx)


def keepdims_index(rank: int, axes, ivars) -> tuple[Expr, ...]:
    """Index into a keepdims temporary from a full-rank index: reduced axes read 0."""
    return tuple(const(0, DType.int64) if k in axes else ivars[k] for k in range(rank))


def _int64_min() -> Expr:
    # -2^63 has no C literal; build it as (-2^63 + 1) - 1 without constant folding.
    return Binary("sub", const(-2**63 + 1, DType.int64), const(1, DType.int64), DType.int64)


def _extreme(dt: DType, lowest: bool) -> Expr:
    """The identity of max (lowest=True) or min over dt."""
    if dt is DType.bool:
        return const(not lowest, dt)
    if dt.is_float:
        return const(-math.inf if lowest else math.inf, dt)
    info = np.iinfo(dt.np)
    if lowest and dt is DType.int64:
        return _int64_min()
    return const(info.min if lowest else info.max, dt)


# --- Reduce* ------------------------------------------------------------------------------------

def _to_math(e: Expr) -> Expr:
    return cast(e, math_dtype(e.dtype))


def _back(e: Expr, dt: DType) -> Expr:
    return cast(e, dt) if not dt.is_float else e


# op -> (body of a loaded value, combiner, epilogue of (acc, count), value over an empty set)
_REDUCES: dict[str, tuple[Callable, str, Callable, object]] = {
    "ReduceSum": (lambda v: v, "sum", lambda a, n: a, 0),
    "ReduceMean": (lambda v: v, "sum", lambda a, n: a / const(n, a.dtype), 0),   # 0 over nothing, as onnxruntime
    "ReduceMax": (lambda v: v, "max", lambda a, n: a, "lowest"),
    "ReduceMin": (lambda v: v, "min", lambda a, n: a, "highest"),
    "ReduceProd": (lambda v: v, "prod", lambda a, n: a, 1),
    "ReduceL1": (lambda v: unary("abs", v), "sum", lambda a, n: a, 0),
    "ReduceL2": (lambda v: v * v, "sum", lambda a, n: _back(unary("sqrt", _to_math(a)), a.dtype), 0),
    "ReduceSumSquare": (lambda v: v * v, "sum", lambda a, n: a, 0),
    "ReduceLogSum": (lambda v: v, "sum", lambda a, n: _back(unary("log", _to_math(a)), a.dtype), -math.inf),
}


def _ref_reduce(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    axes = reduce_axes(node, opset, x.ndim, inputs[1] if len(inputs) > 1 else None)
    keep = bool(node.attr("keepdims", 1))
    op = node.op
    acc = _acc_np(x)
    xa = x.astype(acc)
    if op == "ReduceLogSumExp":
        if x.size == 0 or any(x.shape[a] == 0 for a in axes):
            shape = np.sum(xa, axis=axes, keepdims=keep).shape   # -inf; an integer type's lowest value
            r = np.full(shape, -np.inf) if x.dtype.kind == "f" else np.full(shape, np.iinfo(x.dtype).min, x.dtype)
        else:
            xm = xa.astype(np.float64) if x.dtype.kind in "iu" else xa
            m = np.max(xm, axis=axes, keepdims=True)
            r = np.log(np.sum(np.exp(xm - m), axis=axes, keepdims=True)) + m
            if not keep:
                r = np.squeeze(r, axis=axes)
        return [np.asarray(r).astype(x.dtype)]
    empty = any(x.shape[a] == 0 for a in axes)
    if op in ("ReduceMax", "ReduceMin"):
        if empty:
            shape = np.sum(np.zeros(x.shape, np.int8), axis=axes, keepdims=keep).shape
            if x.dtype == np.bool_:
                fill = op == "ReduceMin"
            elif x.dtype.kind in "iu":
                info = np.iinfo(x.dtype)
                fill = info.min if op == "ReduceMax" else info.max
            else:
                fill = -np.inf if op == "ReduceMax" else np.inf
            return [np.full(shape, fill, dtype=x.dtype)]
        f = np.maximum if op == "ReduceMax" else np.minimum
        return [np.asarray(f.reduce(x, axis=axes, keepdims=keep)).astype(x.dtype)]
    if op == "ReduceProd":
        return [np.asarray(np.prod(xa, axis=axes, keepdims=keep, dtype=acc)).astype(x.dtype)]
    if op == "ReduceL1":
        xa = np.abs(xa)
    elif op in ("ReduceL2", "ReduceSumSquare"):
        xa = xa * xa
    s = np.sum(xa, axis=axes, keepdims=keep, dtype=acc)
    if op == "ReduceMean":
        n = math.prod(x.shape[a] for a in axes)
        if n == 0:   # ONNX leaves the mean of nothing undefined; onnxruntime gives 0
            s = np.zeros_like(s)
        else:
            s = s / n if acc.kind == "f" else np.trunc(s.astype(np.float64) / n)
    elif op == "ReduceL2":
        s = np.sqrt(s.astype(np.float64) if acc.kind in "iu" else s)
    elif op == "ReduceLogSum":
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.log(s.astype(np.float64) if acc.kind in "iu" else s)
        if acc.kind in "iu":   # log(0) = -inf: an integer type's lowest value, as onnxruntime
            s = np.where(np.isneginf(s), np.iinfo(x.dtype).min, s)
    return [np.asarray(s).astype(x.dtype)]


def _lower_reduce(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    op = ctx.node.op
    axes_in = None
    as_input = ctx.opset >= (13 if op == "ReduceSum" else 18)
    if as_input and ctx.node.has_input(1):
        axes_in = ctx.require_const(1, "axes")
    axes = reduce_axes(ctx.node, ctx.opset, x.rank, axes_in)
    keep = bool(ctx.attr("keepdims", 1))
    if y.size == 0:
        return
    count = math.prod(x.shape[a] for a in axes)
    iv = out_vars(y.rank)
    if count == 0:
        _lower_empty_reduce(ctx, op, y)
        return
    rv = reduce_vars(len(axes))
    idx = index_of_reduced(x.rank, axes, keep, iv, rv)
    v = load(0, x, idx)
    name = op.lower()
    if op == "ReduceLogSumExp":
        _lower_logsumexp(ctx, x, y, axes, keep, iv, rv, idx)
        return
    body_fn, combiner, epi_fn, _ = _REDUCES[op]
    body = body_fn(v)
    if not axes:   # noop_with_empty_axes: the per-element part of the op, nothing reduced
        ctx.emit(TensorExpr(name, (x,), y, epi_fn(body, 1)), [ctx.in_name(0)], ctx.out_name(0))
        return
    red = Reduce(combiner, tuple((r.name, x.shape[a]) for r, a in zip(rv, axes)))
    acc = Var("acc", body.dtype)
    epi = epi_fn(acc, count)
    ctx.emit(TensorExpr(name, (x,), y, body, red, None if epi is acc else epi),
             [ctx.in_name(0)], ctx.out_name(0))


def _lower_empty_reduce(ctx: LowerCtx, op: str, y: TensorType) -> None:
    """A reduction over an empty set: every output is the combiner's identity."""
    dt = y.dtype
    ident = {"ReduceMax": "lowest", "ReduceMin": "highest", "ReduceLogSumExp": -math.inf}.get(
        op, _REDUCES[op][3] if op in _REDUCES else 0)
    if ident == "lowest":
        val = _extreme(dt, True)
    elif ident == "highest":
        val = _extreme(dt, False)
    elif dt.is_float or not isinstance(ident, float):
        val = const(ident, dt)
    else:
        val = _extreme(dt, True)   # -inf of an integer type (log of 0): its lowest value, as onnxruntime
    ctx.emit(TensorExpr(f"{op.lower()}_empty", (), y, val), [], ctx.out_name(0))


def _lower_logsumexp(ctx, x, y, axes, keep, iv, rv, idx) -> None:
    """log(sum(exp(x - max))) + max, the max taken first in its own kernel."""
    mdt = math_dtype(x.dtype)
    xv = cast(load(0, x, idx), mdt)
    red_axes = tuple((r.name, x.shape[a]) for r, a in zip(rv, axes))
    if not axes:   # noop: log(exp(x - x)) + x
        ctx.emit(TensorExpr("reducelogsumexp", (x,), y, xv),
                 [ctx.in_name(0)], ctx.out_name(0))
        return
    mt = TensorType(mdt, y.shape)
    mx = ctx.temp(mt, "max")
    ctx.emit(TensorExpr("reducelogsumexp_max", (x,), mt, xv, Reduce("max", red_axes)),
             [ctx.in_name(0)], mx)
    m = load(1, mt, iv)
    body = unary("exp", xv - m)
    acc = Var("acc", mdt)
    epi = unary("log", acc) + load(1, mt, iv)
    ctx.emit(TensorExpr("reducelogsumexp", (x, mt), y, body, Reduce("sum", red_axes), epi),
             [ctx.in_name(0), mx], ctx.out_name(0))


for _op in list(_REDUCES) + ["ReduceLogSumExp"]:
    register(_op, reference=_ref_reduce)(_lower_reduce)


# --- ArgMax / ArgMin ----------------------------------------------------------------------------

def _ref_arg(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    axis = normalize_axis(node.attr("axis", 0), x.ndim)
    keep = bool(node.attr("keepdims", 1))
    last = bool(node.attr("select_last_index", 0))
    f = np.argmax if node.op == "ArgMax" else np.argmin
    if last:
        flipped = np.flip(x, axis)
        r = x.shape[axis] - 1 - f(flipped, axis=axis)
    else:
        r = f(x, axis=axis)
    if keep:
        r = np.expand_dims(r, axis)
    return [np.asarray(r).astype(np.int64)]


def _lower_arg(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    axis = normalize_axis(ctx.attr("axis", 0), x.rank)
    keep = bool(ctx.attr("keepdims", 1))
    if x.shape[axis] == 0:
        raise ctx.empty_error(f"{ctx.node.op} over an empty axis has no index to return")
    if y.size == 0:
        return
    rv = reduce_vars(1)
    idx = index_of_reduced(x.rank, (axis,), keep, out_vars(y.rank), rv)
    op = "argmax" if ctx.node.op == "ArgMax" else "argmin"
    if ctx.attr("select_last_index", 0):
        op += "_last"
    ctx.emit(TensorExpr(op, (x,), y, load(0, x, idx), Reduce(op, ((rv[0].name, x.shape[axis]),))),
             [ctx.in_name(0)], ctx.out_name(0))


register("ArgMax", reference=_ref_arg)(_lower_arg)
register("ArgMin", reference=_ref_arg)(_lower_arg)


# --- CumSum -------------------------------------------------------------------------------------

def _ref_cumulative(node: Node, inputs: list, np_scan, identity) -> list:
    """CumSum / CumProd reference: `np_scan` (np.cumsum / np.cumprod) with the exclusive and
    reverse attributes; an exclusive scan starts from `identity`."""
    x, axis = inputs[0], int(np.asarray(inputs[1]).reshape(-1)[0])
    axis = normalize_axis(axis, x.ndim)
    acc = _acc_np(x)
    xa = x.astype(acc)
    rev, excl = bool(node.attr("reverse", 0)), bool(node.attr("exclusive", 0))
    if rev:
        xa = np.flip(xa, axis)
    r = np_scan(xa, axis=axis, dtype=acc)
    n = x.shape[axis]
    if excl and n:
        first = np.full_like(np.take(r, [0], axis=axis), identity)
        r = np.concatenate([first, np.take(r, np.arange(n - 1), axis=axis)], axis=axis)
    if rev:
        r = np.flip(r, axis)
    return [np.ascontiguousarray(r).astype(x.dtype)]


def _ref_cumsum(node: Node, inputs: list, opset: int) -> list:
    return _ref_cumulative(node, inputs, np.cumsum, 0)


def _lower_cumulative(ctx: LowerCtx, red: str, identity, name: str) -> None:
    """out[i] = `red` ("sum" / "prod") of x over the positions before (or after) i on the axis
    (`identity` elsewhere): a guarded full reduction. A constant axis gives one expression (kernel
    `name`); an axis known only at run time selects among all axes (kernel `name`_any_axis)."""
    x, y = ctx.input(0), ctx.out_types[0]
    if y.size == 0:
        return
    iv = out_vars(y.rank)
    r = Var("r0")
    exclusive, reverse = bool(ctx.attr("exclusive", 0)), bool(ctx.attr("reverse", 0))
    fn = {(False, False): "le", (True, False): "lt", (False, True): "ge", (True, True): "gt"}[(exclusive, reverse)]

    def along(axis: int) -> Expr:
        return load(0, x, tuple(r if k == axis else iv[k] for k in range(x.rank)))

    axis_value = ctx.const(1)
    if axis_value is not None:
        axis = normalize_axis(int(np.asarray(axis_value).reshape(-1)[0]), x.rank)
        v = along(axis)
        body = select(binary(fn, r, iv[axis]), v, const(identity, v.dtype))
        ctx.emit(TensorExpr(name, (x,), y, body, Reduce(red, (("r0", x.shape[axis]),))),
                 [ctx.in_name(0)], ctx.out_name(0))
        return
    at = ctx.input(1)
    a = cast(load(1, at, (0,) * at.rank), DType.int64)
    a = select(binary("lt", a, 0), a + x.rank, a)
    body = const(identity, x.dtype)
    for axis in reversed(range(x.rank)):
        take = logical_and(logical_and(binary("eq", a, axis), binary("lt", r, x.shape[axis])),
                           binary(fn, r, iv[axis]))
        body = select(take, along(axis), body)
    ctx.emit(TensorExpr(f"{name}_any_axis", (x, at), y, body, Reduce(red, (("r0", max(x.shape)),))),
             [ctx.in_name(0), ctx.in_name(1)], ctx.out_name(0))


@register("CumSum", reference=_ref_cumsum)
def lower_cumsum(ctx: LowerCtx) -> None:
    """out[i] = sum of x over the positions before (or after) i on the axis."""
    _lower_cumulative(ctx, "sum", 0, "cumsum")


# --- TopK ---------------------------------------------------------------------------------------

def _topk_k(node: Node, inputs: list, opset: int) -> int:
    if opset < 10:
        return int(node.attr("k"))
    return int(np.asarray(inputs[1]).reshape(-1)[0])


def _ref_topk(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    k = _topk_k(node, inputs, opset)
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    largest = bool(node.attr("largest", 1)) if opset >= 11 else True
    n = x.shape[axis]
    # ml_dtypes' bfloat16 has no sort of its own (its argsort leaves values out of order): sort the
    # exact float32 values
    keys = x.astype(np.float32) if DType.from_numpy(x.dtype) is DType.bfloat16 else x
    if largest:
        # stable ascending sort of the reversed axis, reversed back: descending, ties by lower index
        order = np.flip(np.argsort(np.flip(keys, axis), axis=axis, kind="stable"), axis)
        order = n - 1 - order
    else:
        order = np.argsort(keys, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    values, idx = np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)
    if node.attr("max_extent") is None:
        return [values, idx]
    # K known only at run time: both outputs at the bound, zeros past K, and K (OpDef.bounded)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, node.attr("max_extent") - k)
    return [np.pad(values, pad), np.pad(idx, pad), np.array(k, np.int64)]


def _infer_topk(pn, in_types: list, consts: list, bounds: list) -> list[TensorType]:
    """K from its input (opset 10 on) or attribute; where K is known only at run time, both outputs
    at its upper bound (frontend/element_bounds.py: torchvision's min(1000, n) is at most 1000) or
    the axis's whole extent, and one more output, the real K (OpDef.bounded)."""
    x = in_types[0]
    attrs = {a.name: a for a in pn.attribute}
    axis = normalize_axis(attrs["axis"].i if "axis" in attrs else -1, x.rank)
    n, bound = x.shape[axis], None
    if len(pn.input) > 1 and pn.input[1]:
        k = None if consts[1] is None else int(np.asarray(consts[1]).reshape(-1)[0])
        if k is None and bounds[1] is not None and np.isfinite(bounds[1][1]).all():
            bound = int(np.max(bounds[1][1]))
    else:
        k = attrs["k"].i
    if k is not None and not 0 <= k <= n:
        raise ShapeError(f"TopK's K is {k}, outside [0, {n}] (the axis's extent)", node=pn.name)
    extent = k if k is not None else min(n, max(bound, 0)) if bound is not None else n
    out = x.shape[:axis] + (extent,) + x.shape[axis + 1:]
    types = [TensorType(x.dtype, out), TensorType(DType.int64, out)]
    return types if k is not None or extent == 0 else types + [TensorType(DType.int64, ())]


def _topk_bounded(node, in_types: list) -> tuple[tuple[int, int], ...]:
    axis = normalize_axis(node.attr("axis", -1), in_types[0].rank)
    return ((0, axis), (1, axis))


def emit_topk_indices(ctx: LowerCtx, x: tuple[str, TensorType], yi: tuple[str, TensorType], axis: int,
                      largest: bool) -> None:
    """The indices (into `yi`) of the yi.shape[axis] largest (or smallest) elements of x along
    `axis`, ties to the lower index: rank[j] = how many elements come before x[j]; output p takes
    the j whose rank is p."""
    (x_name, xt), (yi_name, yt) = x, yi
    n = xt.shape[axis]
    iv = out_vars(xt.rank)
    r = Var("r0")
    at_r = tuple(r if a == axis else iv[a] for a in range(xt.rank))
    xr, xi = load(0, xt, at_r), load(0, xt, iv)
    beats = binary("gt" if largest else "lt", xr, xi)
    same = binary("eq", xr, xi)
    if xt.dtype.is_float:
        # NaN in numpy's order (the reference's): above +inf, so first of the largest, last of the
        # smallest; NaNs tie with each other (lower index first)
        nan_r, nan_i = unary("isnan", xr), unary("isnan", xi)
        beats = logical_or(beats, logical_and(nan_r, unary("not", nan_i)) if largest
                           else logical_and(unary("not", nan_r), nan_i))
        same = logical_or(same, logical_and(nan_r, nan_i))
    tie_first = logical_and(same, binary("lt", r, iv[axis]))
    body = select(logical_or(beats, tie_first), const(1, DType.int64), const(0, DType.int64))
    rank_t = TensorType(DType.int64, xt.shape)
    rank = ctx.temp(rank_t, "rank")
    ctx.emit(TensorExpr("topk_rank", (xt,), rank_t, body, Reduce("sum", (("r0", n),))), [x_name], rank)
    ov = out_vars(yt.rank)
    at_r = tuple(r if a == axis else ov[a] for a in range(xt.rank))
    pick = select(binary("eq", load(0, rank_t, at_r), ov[axis]), r, const(0, DType.int64))
    ctx.emit(TensorExpr("topk_index", (rank_t,), yt, pick, Reduce("sum", (("r0", n),))), [rank], yi_name)


@register("TopK", reference=_ref_topk, infer=_infer_topk, bounded=_topk_bounded, infer_bounds=True)
def lower_topk(ctx: LowerCtx) -> None:
    """rank[j] = how many elements come before x[j]; output p takes the j whose rank is p. Over a
    value of run-time length the ranks count its real elements only (the lowering masks the
    reductions: passes/bounded_rows.py); a K known only at run time sizes the outputs to its upper
    bound (or the axis) and writes min(K, the real extent) as their run-time length. A row of at
    least topk_select.MIN_AXIS elements, K fewer, is also priced as a radix select of the K best
    (ops/topk_select.py), and lowered the cheaper way."""
    x, yv, yi = ctx.input(0), ctx.out_types[0], ctx.out_types[1]
    axis = normalize_axis(ctx.attr("axis", -1), x.rank)
    largest = bool(ctx.attr("largest", 1)) if ctx.opset >= 11 else True
    if yv.size == 0:
        return
    n, kcap = x.shape[axis], yi.shape[axis]
    ways = {"ranks": lambda: emit_topk_indices(ctx, (ctx.in_name(0), x), (ctx.out_name(1), yi), axis, largest)}
    if n >= topk_select.MIN_AXIS and kcap < n and ctx.enabled("radix_topk"):
        # a radix select of the K best, only they ranked (ops/topk_select.py), a row whole or in segments
        def radix(per_row: int, merge_segments: int = 1):
            return lambda: topk_select.emit_radix_topk(ctx, (ctx.in_name(0), x), (ctx.out_name(1), yi), axis,
                                                       largest, per_row, merge_segments)
        ways["radix select"] = radix(1)
        segs = topk_select.segments(n, kcap)
        if segs > 1:
            ways["segmented radix select"] = radix(segs)
        two = topk_select.two_merges(n, kcap)
        if two is not None:
            ways["segmented radix select, two merges"] = radix(*two)
    ctx.cheapest(ways)
    ov = out_vars(yi.rank)
    at_i = tuple(load(1, yi, ov) if a == axis else ov[a] for a in range(x.rank))
    ctx.emit(TensorExpr("topk_value", (x, yi), yv, load(0, x, at_i)),
             [ctx.in_name(0), ctx.out_name(1)], ctx.out_name(0))
    if ctx.attr("max_extent") is None:
        return
    kt, n = ctx.input(1), x.shape[axis]
    real = ctx.run_time_extent(0)
    args, names = [kt], [ctx.in_name(1)]
    extent = const(n, DType.int64)
    if real is not None and real[1] == axis:
        args.append(TensorType(DType.int64, ()))
        names.append(real[0])
        extent = minimum(extent, load(1, args[1], ()))
    k = cast(load(0, kt, (const(0, DType.int64),) * kt.rank), DType.int64)
    ctx.emit(TensorExpr("topk_count", tuple(args), ctx.out_types[2], maximum(minimum(k, extent), 0)),
             names, ctx.out_name(2))
