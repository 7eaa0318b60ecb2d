"""Pooling: MaxPool (with Indices), AveragePool, LpPool and their Global forms, MaxUnpool.

Each is one TensorExpr reducing over the kernel positions of its window (the same geometry as
Conv, from contraction.window_geometry); padded positions are excluded with select()."""
from __future__ import annotations

import math

import numpy as np

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Expr, Reduce, TensorExpr, Var, binary, cast, const, load, out_vars, select, unary
from .contraction import (Window, acc_var, gather_windows, reduction_axes, window_geometry,
                          window_guard)
from .registry import LowerCtx, register


def _lowest(dt: DType):
    """The identity of max over dt: -inf for floats, the type's minimum for integers."""
    return -math.inf if dt.is_float else int(np.iinfo(dt.np).min)


def _pool_window(node, x_shape) -> Window:
    kernel = tuple(int(k) for k in node.attr("kernel_shape"))
    return window_geometry(node, x_shape[2:], kernel, ceil_mode=bool(node.attr("ceil_mode", 0)))


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) if DType.from_numpy(x.dtype).is_float else x.astype(np.int64)


def _check_window(ctx: LowerCtx, win: Window, y: TensorType) -> None:
    if tuple(win.out_shape) != tuple(y.shape[2:]):
        raise ctx.unsupported(f"output extent {y.shape[2:]} disagrees with the window geometry {win.out_shape}")


def _window_loads(x: TensorType, win: Window, op: str, fill, compute: DType | None = None):
    """(body, reduce, kernel offset exprs, their first positions): x at each window position,
    `fill` outside the input. The reduction runs over the kernel positions some output reads
    inside the input (Window.reachable); the others read `fill` for every output."""
    i = out_vars(x.rank)
    first, counts = zip(*(win.reachable(d) for d in range(len(win.kernel))))
    ks, red = reduction_axes(counts, op)
    pos = [win.position(d, i[2 + d], _from(ks[d], first[d])) for d in range(len(ks))]
    v = load(0, x, (i[0], i[1]) + tuple(pos))
    if compute is not None:
        v = cast(v, compute)
    guard = window_guard(win, pos)
    if guard is not None:
        v = select(guard, v, const(fill, v.dtype))
    return v, red, ks, first


def _from(k: Expr, first: int) -> Expr:
    """Kernel position `k` of the reduced range, counted from the window's `first` reachable one."""
    return k + first if first else k


# --- MaxPool ---------------------------------------------------------------------------------------

def _ref_maxpool(node, inputs, opset):
    x = inputs[0]
    win = _pool_window(node, x.shape)
    order = int(node.attr("storage_order", 0))
    xw = _wide(x)
    lowest = -np.inf if xw.dtype.kind == "f" else np.iinfo(x.dtype).min
    best = np.full(x.shape[:2] + win.out_shape, lowest, dtype=xw.dtype)
    arg = np.zeros(best.shape, dtype=np.int64)
    have = np.zeros(best.shape, dtype=bool)
    nd = len(win.kernel)
    plane = int(np.prod(win.in_shape))
    base = (np.arange(x.shape[0]).reshape(-1, 1) * x.shape[1] + np.arange(x.shape[1]).reshape(1, -1)) * plane
    base = base.reshape(base.shape + (1,) * nd)
    for koff, vals, valid in gather_windows(xw, win, lowest):
        flat = np.zeros(win.out_shape, dtype=np.int64)
        mult = 1
        dims = range(nd - 1, -1, -1) if order == 0 else range(nd)
        for d in dims:
            p = np.arange(win.out_shape[d]) * win.strides[d] + koff[d] * win.dilations[d] - win.pads_begin[d]
            shape = [1] * nd
            shape[d] = -1
            flat = flat + p.reshape(shape) * mult
            mult *= win.in_shape[d]
        take = valid & (~have | (vals > best))
        best = np.where(take, vals, best)
        arg = np.where(take, base + flat, arg)
        have |= valid
    outs = [best.astype(x.dtype)]
    if len(node.outputs) > 1 and node.outputs[1]:
        outs.append(arg)
    return outs


@register("MaxPool", reference=_ref_maxpool)
def lower_maxpool(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    win = _pool_window(ctx.node, x.shape)
    _check_window(ctx, win, y)
    body, red, ks, first = _window_loads(x, win, "max", _lowest(x.dtype))
    ctx.emit(TensorExpr("maxpool", (x,), y, body, red), [ctx.in_name(0)], ctx.out_name(0))
    if len(ctx.node.outputs) < 2 or not ctx.node.outputs[1]:
        return
    # Indices: argmax over the same window (first maximum in row-major kernel order), its
    # position decoded back to the input coordinate, flattened per storage_order.
    yi = ctx.out_types[1]
    # a padded position must lose to any real value, even an integer type's minimum
    body_i = body if x.dtype.is_float else _window_loads(x, win, "argmax", -math.inf, DType.float32)[0]
    pos = Var("acc", DType.int64)
    i = out_vars(y.rank)
    extents = [n for _, n in red.axes]
    # the reduction axes are the non-trivial kernel dims in order: decode pos by mixed radix
    radix = [d for d, kexpr in enumerate(ks) if isinstance(kexpr, Var)]
    coords = []
    kvals: list[Expr] = [const(0, DType.int64)] * len(ks)
    rest = pos
    for j in reversed(range(len(radix))):
        n = extents[j]
        kvals[radix[j]] = rest % n if j > 0 else rest
        rest = rest // n
    for d in range(len(ks)):
        coords.append(win.position(d, i[2 + d], _from(kvals[d], first[d])))
    plane = math.prod(win.in_shape)
    flat: Expr = const(0, DType.int64)
    mult = 1
    order = int(ctx.attr("storage_order", 0))
    dims = range(len(ks) - 1, -1, -1) if order == 0 else range(len(ks))
    for d in dims:
        flat = flat + coords[d] * mult
        mult *= win.in_shape[d]
    epi = (i[0] * x.shape[1] + i[1]) * plane + flat
    red_i = Reduce("argmax", red.axes)
    ctx.emit(TensorExpr("maxpool_indices", (x,), yi, body_i, red_i, epi), [ctx.in_name(0)], ctx.out_name(1))


# --- AveragePool and LpPool ------------------------------------------------------------------------

def _window_counts(win: Window, include_pad: bool) -> list[np.ndarray]:
    """Per spatial dim, how many kernel positions of each output position count (reference)."""
    counts = []
    for d in range(len(win.kernel)):
        o = np.arange(win.out_shape[d]).reshape(-1, 1)
        p = o * win.strides[d] + np.arange(win.kernel[d]).reshape(1, -1) * win.dilations[d] - win.pads_begin[d]
        lo, hi = (-win.pads_begin[d], win.in_shape[d] + win.pads_end[d]) if include_pad else (0, win.in_shape[d])
        counts.append(((p >= lo) & (p < hi)).sum(axis=1))
    return counts


def _ref_avgpool(node, inputs, opset):
    x = inputs[0]
    win = _pool_window(node, x.shape)
    total = np.zeros(x.shape[:2] + win.out_shape)
    for _, vals, _ in gather_windows(x.astype(np.float64), win, 0.0):
        total += vals
    count = np.ones(win.out_shape)
    for d, c in enumerate(_window_counts(win, bool(node.attr("count_include_pad", 0)))):
        shape = [1] * len(win.kernel)
        shape[d] = -1
        count = count * c.reshape(shape)
    return [(total / count).astype(x.dtype)]


def _count_expr(win: Window, d: int, o: Expr, include_pad: bool) -> Expr | int:
    """Number of kernel positions along dim d inside [lo, hi) for output position o (an index expr)."""
    k, s, dil, pb = win.kernel[d], win.strides[d], win.dilations[d], win.pads_begin[d]
    lo, hi = (-pb, win.in_shape[d] + win.pads_end[d]) if include_pad else (0, win.in_shape[d])
    first, last = -pb, (win.out_shape[d] - 1) * s + (k - 1) * dil - pb
    if first >= lo and last < hi:
        return k
    base = o * s - pb
    a = lo - base            # need k*dil >= a
    b = hi - 1 - base        # need k*dil <= b
    k_lo = (_imax(a, 0) + (dil - 1)) // dil
    k_hi = _imin(b // dil, k - 1)
    return select(binary("ge", b, 0), _imax(k_hi - k_lo + 1, 0), const(0, DType.int64))


# Index min/max through select: the renderer may give index variables a 32-bit C type while
# constants are 64-bit, and by_min/by_max are templates that need one argument type.
def _imin(a, b) -> Expr:
    return select(binary("lt", a, b), a, b)


def _imax(a, b) -> Expr:
    return select(binary("gt", a, b), a, b)


def _window_count(win: Window, include_pad: bool, rank: int) -> Expr | int:
    i = out_vars(rank)
    total: Expr | int = 1
    for d in range(len(win.kernel)):
        c = _count_expr(win, d, i[2 + d], include_pad)
        total = total * c if isinstance(total, int) and isinstance(c, int) else binary("mul", total, c)
    return total


@register("AveragePool", reference=_ref_avgpool)
def lower_avgpool(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    if not x.dtype.is_float:
        raise ctx.unsupported(f"AveragePool on {x.dtype.name}")
    win = _pool_window(ctx.node, x.shape)
    _check_window(ctx, win, y)
    body, red, _, _ = _window_loads(x, win, "sum", 0.0)
    count = _window_count(win, bool(ctx.attr("count_include_pad", 0)), x.rank)
    acc = acc_var(body)
    epi = acc / (float(count) if isinstance(count, int) else cast(count, acc.dtype))
    ctx.emit(TensorExpr("avgpool", (x,), y, body, red, epi), [ctx.in_name(0)], ctx.out_name(0))


def _lp_p(node) -> int:
    return int(node.attr("p", 2))


def _ref_lppool(node, inputs, opset):
    x = inputs[0]
    win = _pool_window(node, x.shape)
    p = _lp_p(node)
    total = np.zeros(x.shape[:2] + win.out_shape)
    for _, vals, _ in gather_windows(np.abs(x.astype(np.float64)), win, 0.0):
        total += vals ** p
    return [(total ** (1.0 / p)).astype(x.dtype)]


def _lp_body(v: Expr, p: int) -> Expr:
    a = unary("abs", v)
    if p == 1:
        return a
    if p == 2:
        return v * v
    return binary("pow", a, float(p))


def _lp_root(acc: Expr, p: int) -> Expr:
    if p == 1:
        return acc
    if p == 2:
        return unary("sqrt", acc)
    return binary("pow", acc, 1.0 / p)


@register("LpPool", reference=_ref_lppool)
def lower_lppool(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    if not x.dtype.is_float:
        raise ctx.unsupported(f"LpPool on {x.dtype.name}")
    win = _pool_window(ctx.node, x.shape)
    _check_window(ctx, win, y)
    p = _lp_p(ctx.node)
    v, red, _, _ = _window_loads(x, win, "sum", 0.0)
    body = _lp_body(v, p)
    ctx.emit(TensorExpr("lppool", (x,), y, body, red, _lp_root(acc_var(body), p)), [ctx.in_name(0)], ctx.out_name(0))


# --- Global pools ----------------------------------------------------------------------------------

def _global(x: np.ndarray, fn) -> np.ndarray:
    axes = tuple(range(2, x.ndim))
    return fn(x, axes)


def _ref_global_avg(node, inputs, opset):
    x = inputs[0]
    return [_global(x.astype(np.float64), lambda a, ax: a.mean(axis=ax, keepdims=True)).astype(x.dtype)]


def _ref_global_max(node, inputs, opset):
    x = inputs[0]
    return [_global(x, lambda a, ax: a.max(axis=ax, keepdims=True)).astype(x.dtype)]


def _ref_global_lp(node, inputs, opset):
    x, p = inputs[0], _lp_p(node)
    r = _global(np.abs(x.astype(np.float64)), lambda a, ax: (a ** p).sum(axis=ax, keepdims=True) ** (1.0 / p))
    return [r.astype(x.dtype)]


def _global_loads(x: TensorType, op: str):
    i = out_vars(x.rank)
    rs, red = reduction_axes(x.shape[2:], op)
    return load(0, x, (i[0], i[1]) + tuple(rs)), red


@register("GlobalAveragePool", reference=_ref_global_avg)
def lower_global_avgpool(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    body, red = _global_loads(x, "sum")
    epi = acc_var(body) / float(math.prod(x.shape[2:]))
    ctx.emit(TensorExpr("global_avgpool", (x,), y, body, red, epi), [ctx.in_name(0)], ctx.out_name(0))


@register("GlobalMaxPool", reference=_ref_global_max)
def lower_global_maxpool(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    body, red = _global_loads(x, "max")
    ctx.emit(TensorExpr("global_maxpool", (x,), y, body, red), [ctx.in_name(0)], ctx.out_name(0))


@register("GlobalLpPool", reference=_ref_global_lp)
def lower_global_lppool(ctx: LowerCtx) -> None:
    x, y = ctx.input(0), ctx.out_types[0]
    p = _lp_p(ctx.node)
    v, red = _global_loads(x, "sum")
    body = _lp_body(v, p)
    ctx.emit(TensorExpr("global_lppool", (x,), y, body, red, _lp_root(acc_var(body), p)), [ctx.in_name(0)],
             ctx.out_name(0))


# --- MaxUnpool ---------------------------------------------------------------------------------------

def _unpool_shape(node, x_shape, output_shape) -> tuple[int, ...]:
    if output_shape is not None:
        return tuple(int(d) for d in output_shape)
    n = len(x_shape) - 2
    kernel = [int(k) for k in node.attr("kernel_shape")]
    strides = list(node.attr("strides", (1,) * n))
    pads = list(node.attr("pads", (0,) * (2 * n)))
    return tuple(x_shape[:2]) + tuple((x_shape[2 + d] - 1) * strides[d] + kernel[d] - pads[d] - pads[n + d]
                                      for d in range(n))


def _ref_maxunpool(node, inputs, opset):
    x, ind = inputs[0], inputs[1]
    oshape = _unpool_shape(node, x.shape, inputs[2] if len(inputs) > 2 else None)
    y = np.zeros(math.prod(oshape), dtype=x.dtype)
    for k, j in enumerate(ind.reshape(-1)):  # in order: a repeated index keeps the last value
        y[j] = x.reshape(-1)[k]
    return [y.reshape(oshape)]


@register("MaxUnpool", reference=_ref_maxunpool)
def lower_maxunpool(ctx: LowerCtx) -> None:
    # Unoptimised gather form: each output element scans every input index for the last one
    # that names it (|Y| x |X| work), the scatter's last-write-wins semantics without atomics.
    x, ind, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    i = out_vars(y.rank)
    rs, red = reduction_axes(x.shape, "max")
    red = Reduce("max", red.axes)
    strides = [math.prod(x.shape[d + 1:]) for d in range(x.rank)]
    k_flat: Expr = const(0, DType.int64)
    for r, s in zip(rs, strides):
        k_flat = k_flat + r * s
    lin: Expr = const(0, DType.int64)
    for d in range(y.rank):
        lin = lin + i[d] * math.prod(y.shape[d + 1:])
    body = select(binary("eq", load(1, ind, tuple(rs)), lin), k_flat, const(-1, DType.int64))
    acc = Var("acc", DType.int64)
    coords = tuple((acc // s) % n if d > 0 else acc // s for d, (s, n) in enumerate(zip(strides, x.shape)))
    epi = select(binary("ge", acc, 0), load(0, x, coords), const(0, x.dtype))
    ctx.emit(TensorExpr("maxunpool", (x, ind), y, body, red, epi), [ctx.in_name(0), ctx.in_name(1)], ctx.out_name(0))
