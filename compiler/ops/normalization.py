"""Softmax family and normalisations: Softmax, LogSoftmax, Hardmax, LayerNormalization,
RMSNormalization, BatchNormalization, InstanceNormalization, GroupNormalization,
LpNormalization, MeanVarianceNormalization, LRN.

Softmax over the last axis and layer/RMS/instance/group norm lower to *row chains*: tensor
expressions for the row statistics (kept in shared memory) and the elementwise part, in one
kernel (compiler/kinds/resident_rows.py), so that fusion sees every stage. Softmax over several
contiguous trailing axes and LayerNormalization asked for its training outputs run as a
hand-written row kernel (compiler/kinds/row.py). Other axes are decomposed into TensorExprs over
keepdims temporaries: statistics first, then the elementwise part."""
from __future__ import annotations

import math

import numpy as np

from ..analysis.dependence import reshape_index
from ..codegen.cuda import contiguous_strides
from ..kinds.row import RowOperand, accumulator_dtype, render_row_kernel
from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.texpr import (Reduce, TensorExpr, Var, binary, broadcast_index, cast, const, load, out_vars,
                        reduce_vars, select, unary)
from .reduce import index_of_reduced, keepdims_index, kept_shape, math_dtype, normalize_axis
from .registry import LowerCtx, register


def _row_operand(ctx: LowerCtx, i: int) -> RowOperand:
    return RowOperand(ctx.input(i).dtype, ctx.in_name(i))


def _out_operand(ctx: LowerCtx, i: int) -> RowOperand:
    return RowOperand(ctx.out_types[i].dtype, ctx.out_name(i))


def affine_index_c(x_shape: tuple[int, ...], p_shape: tuple[int, ...], n: int) -> str:
    """C offset into a parameter of p_shape broadcast (NumPy rules) to x_shape, at row `row`, element `j`.

    Rows are the last n elements of x; the common case (the parameter is the trailing dims) is `j`."""
    dims = list(p_shape)
    while dims and dims[0] == 1:
        dims.pop(0)
    size = math.prod(dims)
    if size == 1:
        return "0"
    if tuple(dims) == tuple(x_shape[len(x_shape) - len(dims):]) and n % size == 0:
        return "j" if size == n else f"(j % {size}ll)"
    lin = f"(row * {n}ll + j)"
    off = len(x_shape) - len(p_shape)
    xs, ps = contiguous_strides(x_shape), contiguous_strides(p_shape)
    terms = [f"({lin} / {xs[off + k]}ll % {x_shape[off + k]}ll) * {ps[k]}ll"
             for k, d in enumerate(p_shape) if d != 1]
    return " + ".join(terms)


def _math_np(x: np.ndarray) -> np.ndarray:
    """x in the reference's computation type: float32 for 16-bit floats, float64 for double."""
    return x.astype(np.float64 if x.dtype == np.float64 else np.float32)


# --- Softmax, LogSoftmax, Hardmax ----------------------------------------------------------------

def softmax_axes(node: Node, opset: int, rank: int) -> tuple[int, ...]:
    """The axes a softmax-like op normalises over: trailing from `axis` (opset < 13) or `axis` alone."""
    if opset < 13:
        axis = normalize_axis(node.attr("axis", 1), rank)
        return tuple(range(axis, rank))
    return (normalize_axis(node.attr("axis", -1), rank),)


def _ref_softmax(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    axes = softmax_axes(node, opset, x.ndim)
    xm = _math_np(x)
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(xm, axis=axes, keepdims=True) if x.size else xm
        e = np.exp(xm - m)
        s = np.sum(e, axis=axes, keepdims=True)
        if node.op == "Softmax":
            y = e / s
        else:
            y = xm - m - np.log(s)
    return [y.astype(x.dtype)]


def _ref_hardmax(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    axes = softmax_axes(node, opset, x.ndim)
    if x.size == 0:
        return [x.copy()]
    # move the normalised axes last and flatten them: the first maximum in row-major order wins
    rest = [a for a in range(x.ndim) if a not in axes]
    xt = np.transpose(x, rest + list(axes))
    flat = xt.reshape(xt.shape[:len(rest)] + (-1,))
    am = np.argmax(flat, axis=-1)
    y = np.zeros_like(flat)
    np.put_along_axis(y, am[..., None], 1, axis=-1)
    y = y.reshape(xt.shape)
    return [np.ascontiguousarray(np.transpose(y, np.argsort(rest + list(axes))))]


def _row_layout(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, int] | None:
    """(rows, n) when the axes are the contiguous tail (after dropping trailing 1s), else None."""
    first, last = axes[0], axes[-1]
    if axes != tuple(range(first, last + 1)) or any(d != 1 for d in shape[last + 1:]):
        return None
    return math.prod(shape[:first]), math.prod(shape[first:])


def lower_softmax(ctx: LowerCtx) -> None:
    """Softmax/LogSoftmax: a row kernel over contiguous rows, else max -> sum(exp) -> elementwise."""
    x, y = ctx.input(0), ctx.out_types[0]
    if x.rank == 0:
        raise ctx.unsupported("softmax of a scalar")
    if y.size == 0:
        return
    axes = softmax_axes(ctx.node, ctx.opset, x.rank)
    op = "softmax" if ctx.node.op == "Softmax" else "logsoftmax"
    mdt = math_dtype(x.dtype)
    if axes == (x.rank - 1,):
        _softmax_rows(ctx, op, mdt)
        return
    layout = _row_layout(x.shape, axes)
    if layout is not None:
        rows, n = layout
        ctx.emit_kernel(render_row_kernel(op, rows=rows, n=n, x=_row_operand(ctx, 0), y=_out_operand(ctx, 0)))
        return
    kshape = kept_shape(x.shape, axes)
    kt = TensorType(mdt, kshape)
    kv = out_vars(len(kshape))
    rv = reduce_vars(len(axes))
    red = Reduce("max", tuple((r.name, x.shape[a]) for r, a in zip(rv, axes)))
    xr = cast(load(0, x, index_of_reduced(x.rank, axes, True, kv, rv)), mdt)
    mx = ctx.temp(kt, "max")
    ctx.emit(TensorExpr(f"{op}_max", (x,), kt, xr, red), [ctx.in_name(0)], mx)
    sm = ctx.temp(kt, "sum")
    ctx.emit(TensorExpr(f"{op}_sum", (x, kt), kt, unary("exp", xr - load(1, kt, kv)), Reduce("sum", red.axes)),
             [ctx.in_name(0), mx], sm)
    iv = out_vars(x.rank)
    xv = cast(load(0, x, iv), mdt)
    m, s = load(1, kt, keepdims_index(x.rank, axes, iv)), load(2, kt, keepdims_index(x.rank, axes, iv))
    body = unary("exp", xv - m) / s if op == "softmax" else xv - m - unary("log", s)
    ctx.emit(TensorExpr(op, (x, kt, kt), y, body), [ctx.in_name(0), mx, sm], ctx.out_name(0))


def _softmax_rows(ctx: LowerCtx, op: str, mdt: DType) -> None:
    """Softmax over the last axis as tensor expressions in one kernel: the row max and the row sum
    of exponentials kept in shared memory, then the elementwise part (kinds/resident_rows.py), so
    that fusion can see every stage (a MatMul before it, masks and NaN guards around it)."""
    x, y = ctx.input(0), ctx.out_types[0]
    rows, n = x.shape[:-1], x.shape[-1]
    rt = TensorType(mdt, rows)
    iv = out_vars(len(rows))
    (r,) = reduce_vars(1)
    xr = cast(load(0, x, iv + (r,)), mdt)
    red = (("r0", n),)
    mx, sm = ctx.temp(rt, "max"), ctx.temp(rt, "sum")
    ov = out_vars(x.rank)
    xv = cast(load(0, x, ov), mdt)
    m, s = load(1, rt, ov[:-1]), load(2, rt, ov[:-1])
    body = unary("exp", xv - m) / s if op == "softmax" else xv - m - unary("log", s)
    ctx.emit_stages([(TensorExpr(f"{op}_max", (x,), rt, xr, Reduce("max", red)), [ctx.in_name(0)], mx),
                     (TensorExpr(f"{op}_sum", (x, rt), rt, unary("exp", xr - load(1, rt, iv)), Reduce("sum", red)),
                      [ctx.in_name(0), mx], sm),
                     (TensorExpr(op, (x, rt, rt), y, body), [ctx.in_name(0), mx, sm], ctx.out_name(0))],
                    shared=(mx, sm))


register("Softmax", reference=_ref_softmax)(lower_softmax)
register("LogSoftmax", reference=_ref_softmax)(lower_softmax)


@register("Hardmax", reference=_ref_hardmax)
def lower_hardmax(ctx: LowerCtx) -> None:
    """argmax over the axes into a temporary, then 1 where the position matches."""
    x, y = ctx.input(0), ctx.out_types[0]
    if x.rank == 0:
        raise ctx.unsupported("Hardmax of a scalar")
    if y.size == 0:
        return
    axes = softmax_axes(ctx.node, ctx.opset, x.rank)
    kshape = kept_shape(x.shape, axes)
    kt = TensorType(DType.int64, kshape)
    kv, rv = out_vars(len(kshape)), reduce_vars(len(axes))
    red = Reduce("argmax", tuple((r.name, x.shape[a]) for r, a in zip(rv, axes)))
    am = ctx.temp(kt, "argmax")
    ctx.emit(TensorExpr("hardmax_argmax", (x,), kt, load(0, x, index_of_reduced(x.rank, axes, True, kv, rv)), red),
             [ctx.in_name(0)], am)
    iv = out_vars(x.rank)
    pos = const(0, DType.int64)
    for a in axes:   # row-major position within the normalised axes, as the argmax loop counts
        pos = pos * x.shape[a] + iv[a]
    hit = binary("eq", pos, load(1, kt, keepdims_index(x.rank, axes, iv)))
    ctx.emit(TensorExpr("hardmax", (x, kt), y, select(hit, const(1, x.dtype), const(0, x.dtype))),
             [ctx.in_name(0), am], ctx.out_name(0))


# --- LayerNormalization, RMSNormalization -----------------------------------------------------------

def _stash_np(node: Node) -> np.dtype:
    return DType.from_onnx(int(node.attr("stash_type", 1))).np


def _ref_layernorm(node: Node, inputs: list, opset: int) -> list:
    x, scale = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    eps = float(node.attr("epsilon", 1e-5))
    axes = tuple(range(axis, x.ndim))
    xm = _math_np(x)
    mean = np.mean(xm, axis=axes, keepdims=True)
    d = xm - mean
    var = np.mean(d * d, axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + xm.dtype.type(eps))
    y = d * inv * _math_np(scale)
    if bias is not None:
        y = y + _math_np(bias)
    st = _stash_np(node)
    return [y.astype(x.dtype), mean.astype(st), inv.astype(st)][:max(1, len(node.outputs))]


def _check_stash(ctx: LowerCtx) -> None:
    st = DType.from_onnx(int(ctx.attr("stash_type", 1)))
    if st is not DType.float32 and st is not accumulator_dtype(ctx.input(0).dtype):
        raise ctx.unsupported(f"stash_type {st.name}: row kernels accumulate in "
                              f"{accumulator_dtype(ctx.input(0).dtype).name}")


def _check_param(ctx: LowerCtx, i: int) -> None:
    """Scale or bias `i`, when given, broadcasts to x (NumPy rules)."""
    if not ctx.has_input(i):
        return
    x, p = ctx.input(0), ctx.input(i)
    if len(p.shape) > len(x.shape) or any(d not in (1, xd) for d, xd in zip(reversed(p.shape), reversed(x.shape))):
        raise ctx.unsupported(f"input {i} of shape {p.shape} does not broadcast to {x.shape}")


def _affine(ctx: LowerCtx, i: int, n: int) -> tuple[RowOperand | None, str]:
    if not ctx.node.has_input(i):
        return None, "j"
    _check_param(ctx, i)
    return _row_operand(ctx, i), affine_index_c(ctx.input(0).shape, ctx.input(i).shape, n)


def _ref_rmsnorm(node: Node, inputs: list, opset: int) -> list:
    x, scale = inputs[0], inputs[1]
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    eps = float(node.attr("epsilon", 1e-5))
    xm = _math_np(x)
    ms = np.mean(xm * xm, axis=tuple(range(axis, x.ndim)), keepdims=True)
    y = xm * (1 / np.sqrt(ms + xm.dtype.type(eps))) * _math_np(scale)
    return [y.astype(x.dtype)]


def _normalise_rows(ctx: LowerCtx, *, view: tuple[int, ...], row_rank: int, x_index, affine,
                    center: bool, out: str, source: tuple[TensorType, str] | None = None,
                    epsilon: float | None = None) -> None:
    """A normalisation over rows as one row chain (kinds/resident_rows.py): x seen as `view`,
    whose first `row_rank` axes are the rows and the rest one row of J elements; statistics
    s1 = sum x and s2 = sum (x - s1/J)^2 (or sum x^2 without `center`), kept in shared memory;
    then y = (x - s1/J) / sqrt(s2/J + eps), times the scale and plus the bias that
    `affine(output index)` lists as (input number, "mul" or "add", its index). As tensor expressions, fusion sees every stage: the GEMM
    before a LayerNorm joins it when a block holds whole rows (Welder), and the maps around it
    are composed in (AStitch). `x_index(view index)` is where x holds an element of the view;
    the chain writes `out` (of the view's shape). `source` (type, value): x when it is not the
    node's first input (a sum the lowering emitted first: compiler/ops/contrib.py); `epsilon`: the
    node's attribute's default where it is not ONNX's 1e-5."""
    x, x_name = source if source is not None else (ctx.input(0), ctx.in_name(0))
    mdt = math_dtype(x.dtype)
    rows, tail = view[:row_rank], view[row_rank:]
    length = math.prod(tail)
    rt = TensorType(mdt, rows)
    (r,) = reduce_vars(1)
    iv = out_vars(row_rank)
    j_index = reshape_index((r,), (length,), tail, {r.name: length})   # the row element r in the view
    xr = cast(load(0, x, x_index(tuple(iv) + j_index)), mdt)
    red = Reduce("sum", (("r0", length),))
    n = const(float(length), mdt)
    s1, s2 = ctx.temp(rt, "sum"), ctx.temp(rt, "sumsq")
    stages = []
    if center:
        stages.append((TensorExpr("norm_sum", (x,), rt, xr, red), [x_name], s1))
        d = xr - load(1, rt, iv) / n
        stages.append((TensorExpr("norm_sumsq", (x, rt), rt, d * d, red), [x_name, s1], s2))
    else:
        stages.append((TensorExpr("norm_sumsq", (x,), rt, xr * xr, red), [x_name], s2))
    ov = out_vars(len(view))
    xv = cast(load(0, x, x_index(ov)), mdt)
    ins, names = [x], [x_name]
    if center:
        ins.append(rt)
        names.append(s1)
        xv = xv - load(1, rt, ov[:row_rank]) / n
    ins.append(rt)
    names.append(s2)
    eps = const(float(ctx.attr("epsilon", 1e-5 if epsilon is None else epsilon)), mdt)
    v = xv * (const(1.0, mdt) / unary("sqrt", load(len(ins) - 1, rt, ov[:row_rank]) / n + eps))
    for i, op, index in affine(ov):
        t = ctx.input(i)
        ins.append(t)
        names.append(ctx.in_name(i))
        p = cast(load(len(ins) - 1, t, index), mdt)
        v = v * p if op == "mul" else v + p
    y = TensorType(ctx.out_types[0].dtype, view)
    stages.append((TensorExpr("layernorm" if center else "rmsnorm", tuple(ins), y, cast(v, y.dtype)), names, out))
    ctx.emit_stages(stages, shared=tuple(st[2] for st in stages[:-1]))


@register("LayerNormalization", reference=_ref_layernorm)
@register("RMSNormalization", reference=_ref_rmsnorm)
def lower_layer_rms_norm(ctx: LowerCtx) -> None:
    """Rows are the leading dims, a row the dims from `axis` on: one row chain of tensor
    expressions (`_normalise_rows`), or, when the training outputs mean and inv_std_dev are asked
    for, the hand-written row kernel that writes them. RMSNormalization is LayerNormalization
    without the mean (and without bias, mean and inv_std_dev)."""
    x = ctx.input(0)
    _check_stash(ctx)
    axis = normalize_axis(ctx.attr("axis", -1), x.rank)
    rows, n = math.prod(x.shape[:axis]), math.prod(x.shape[axis:])
    if rows == 0 or n == 0:
        return
    layer = ctx.node.op == "LayerNormalization"
    if not (layer and (ctx.node.has_output(1) or ctx.node.has_output(2))):
        _check_param(ctx, 1)
        if layer:
            _check_param(ctx, 2)

        def affine(ov):
            return [(i, op, broadcast_index(x.shape, ctx.input(i).shape, ov))
                    for i, op in ((1, "mul"), (2, "add")) if ctx.has_input(i)]
        _normalise_rows(ctx, view=x.shape, row_rank=axis, x_index=lambda idx: idx, affine=affine,
                        center=layer, out=ctx.out_name(0))
        return
    # the training outputs (mean, inverse standard deviation) are written by the row kernel
    scale, sidx = _affine(ctx, 1, n)
    bias, bidx = _affine(ctx, 2, n) if layer else (None, sidx)
    if bias is not None and bidx != sidx:
        raise ctx.unsupported("scale and bias broadcast differently")
    mean = _out_operand(ctx, 1) if layer and ctx.node.has_output(1) else None
    inv = _out_operand(ctx, 2) if layer and ctx.node.has_output(2) else None
    ctx.emit_kernel(render_row_kernel("layernorm" if layer else "rmsnorm", rows=rows, n=n,
                                      x=_row_operand(ctx, 0), y=_out_operand(ctx, 0),
                                      scale=scale, bias=bias, mean=mean, invstd=inv,
                                      epsilon=float(ctx.attr("epsilon", 1e-5)), affine_index=sidx))


# --- InstanceNormalization, GroupNormalization -------------------------------------------------------

def _channel_param(p: np.ndarray, rank: int) -> np.ndarray:
    return _math_np(p).reshape((-1,) + (1,) * (rank - 2))


def _ref_instancenorm(node: Node, inputs: list, opset: int) -> list:
    x, scale, bias = inputs[:3]
    eps = float(node.attr("epsilon", 1e-5))
    axes = tuple(range(2, x.ndim))
    xm = _math_np(x)
    mean = np.mean(xm, axis=axes, keepdims=True)
    d = xm - mean
    var = np.mean(d * d, axis=axes, keepdims=True)
    y = d / np.sqrt(var + xm.dtype.type(eps)) * _channel_param(scale, x.ndim) + _channel_param(bias, x.ndim)
    return [y.astype(x.dtype)]


@register("InstanceNormalization", reference=_ref_instancenorm)
def lower_instancenorm(ctx: LowerCtx) -> None:
    """A row chain (`_normalise_rows`): one row per (n, c), scale and bias indexed by the channel."""
    x = ctx.input(0)
    if x.rank < 2:
        raise ctx.unsupported("InstanceNormalization needs rank >= 2")
    c = x.shape[1]
    rows, n = x.shape[0] * c, math.prod(x.shape[2:])
    if rows == 0 or n == 0:
        return
    _normalise_rows(ctx, view=x.shape, row_rank=2, x_index=lambda idx: idx,
                    affine=lambda ov: [(1, "mul", (ov[1],)), (2, "add", (ov[1],))], center=True,
                    out=ctx.out_name(0))


def _ref_groupnorm(node: Node, inputs: list, opset: int) -> list:
    x, scale, bias = inputs[:3]
    g = int(node.attr("num_groups"))
    eps = float(node.attr("epsilon", 1e-5))
    n, c = x.shape[0], x.shape[1]
    xm = _math_np(x).reshape((n, g, -1))
    mean = np.mean(xm, axis=2, keepdims=True)
    d = xm - mean
    var = np.mean(d * d, axis=2, keepdims=True)
    yn = (d / np.sqrt(var + xm.dtype.type(eps))).reshape(x.shape)
    if opset < 21:   # scale and bias per group
        s = np.repeat(_math_np(scale), c // g)
        b = np.repeat(_math_np(bias), c // g)
    else:
        s, b = _math_np(scale), _math_np(bias)
    y = yn * s.reshape((-1,) + (1,) * (x.ndim - 2)) + b.reshape((-1,) + (1,) * (x.ndim - 2))
    return [y.astype(x.dtype)]


@register("GroupNormalization", reference=_ref_groupnorm)
def lower_groupnorm(ctx: LowerCtx) -> None:
    """A row chain (`_normalise_rows`): one row per (n, group); scale/bias per group (opset 18) or
    channel (21)."""
    x = ctx.input(0)
    if ctx.opset >= 21:
        _check_stash(ctx)
    if x.rank < 2:
        raise ctx.unsupported("GroupNormalization needs rank >= 2")
    g = int(ctx.attr("num_groups"))
    c = x.shape[1]
    if g <= 0 or c % g:
        raise ctx.unsupported(f"{c} channels do not split into {g} groups")
    spatial = math.prod(x.shape[2:])
    rows, n = x.shape[0] * g, (c // g) * spatial
    if rows == 0 or n == 0:
        return
    per = c // g
    # x seen as (N, G, C/G, spatial...): the rows (n, g) are plain indices of the chain's output,
    # which is y's bytes under that shape
    view = (x.shape[0], g, per) + x.shape[2:]

    def affine(ov):
        channel = (ov[1],) if ctx.opset < 21 else (ov[1] * per + ov[2],)
        return [(1, "mul", channel), (2, "add", channel)]
    grouped = ctx.temp(TensorType(ctx.out_types[0].dtype, view), "grouped")
    _normalise_rows(ctx, view=view, row_rank=2, x_index=lambda idx: (idx[0], idx[1] * per + idx[2]) + tuple(idx[3:]),
                    affine=affine, center=True, out=grouped)
    ctx.alias(ctx.out_name(0), grouped)


# --- BatchNormalization ------------------------------------------------------------------------------

def _bn_training(node: Node, opset: int) -> bool:
    if opset >= 14:
        return bool(node.attr("training_mode", 0))
    if opset <= 6 and node.has_attr("is_test"):
        return not node.attr("is_test") and sum(1 for o in node.outputs if o) > 1
    return sum(1 for o in node.outputs if o) > 1


def _bn_param(p: np.ndarray, rank: int) -> np.ndarray:
    """A per-channel parameter (shape (C,)), or (opset < 9, spatial=0) one of shape (C, D1, ..)."""
    p = _math_np(p)
    return p.reshape((-1,) + (1,) * (rank - 2)) if p.ndim == 1 else p


def _ref_batchnorm(node: Node, inputs: list, opset: int) -> list:
    x, scale, bias, mean, var = inputs[:5]
    eps = float(node.attr("epsilon", 1e-5))
    xm = _math_np(x)
    r = x.ndim
    if not _bn_training(node, opset):
        y = (xm - _bn_param(mean, r)) / np.sqrt(_bn_param(var, r) + xm.dtype.type(eps)) \
            * _bn_param(scale, r) + _bn_param(bias, r)
        return [y.astype(x.dtype)]
    # training: normalise with the batch statistics and update the running ones
    mom = float(node.attr("momentum", 0.9))
    axes = tuple(a for a in range(r) if a != 1)
    bmean, bvar = np.mean(xm, axis=axes), np.var(xm, axis=axes)
    y = (xm - _bn_param(bmean, r)) / np.sqrt(_bn_param(bvar, r) + xm.dtype.type(eps)) \
        * _bn_param(scale, r) + _bn_param(bias, r)
    run_mean = _math_np(mean) * mom + bmean * (1 - mom)
    run_var = _math_np(var) * mom + bvar * (1 - mom)
    outs = [y, run_mean, run_var, bmean, bvar]
    return [o.astype(x.dtype) for o in outs[:len(node.outputs)]]


@register("BatchNormalization", reference=_ref_batchnorm)
def lower_batchnorm(ctx: LowerCtx) -> None:
    """Inference: y = (x - mean) / sqrt(var + eps) * scale + bias, one elementwise kernel; training
    mode with the batch's statistics (_lower_batchnorm_training)."""
    x, y = ctx.input(0), ctx.out_types[0]
    if x.rank < 2:
        raise ctx.unsupported("BatchNormalization needs rank >= 2")
    if y.size == 0:
        return
    if _bn_training(ctx.node, ctx.opset):
        _lower_batchnorm_training(ctx)
        return
    mdt = math_dtype(x.dtype)
    iv = out_vars(x.rank)
    ps = [ctx.input(k) for k in range(1, 5)]

    def param(k: int):
        t = ps[k - 1]
        idx = (iv[1],) if t.rank == 1 else broadcast_index(x.shape[1:], t.shape, iv[1:])
        return cast(load(k, t, idx), mdt)

    eps = const(float(ctx.attr("epsilon", 1e-5)), mdt)
    body = (cast(load(0, x, iv), mdt) - param(3)) / unary("sqrt", param(4) + eps) * param(1) + param(2)
    ctx.emit(TensorExpr("batchnorm", (x, *ps), y, body), [ctx.in_name(k) for k in range(5)], ctx.out_name(0))


def _lower_batchnorm_training(ctx: LowerCtx) -> None:
    """Training mode: normalised by the batch's own mean and (biased) variance over every axis but
    the channels, as MeanVarianceNormalization is, then scaled and shifted. A weight standardised
    in the graph (NFNet's convolutions: batch_norm(w.reshape(1, C, -1), training=True)) exports
    this way. The running statistics (opset 14+: outputs 1 and 2, momentum-weighted with the
    inputs') and, before opset 14, the batch's own (outputs 3 and 4) where a reader asks."""
    x = ctx.input(0)
    if any(ctx.input(k).rank != 1 for k in range(1, 5)):
        raise ctx.unsupported("training mode with per-position parameters (spatial=0)")
    mdt = math_dtype(x.dtype)
    axes = (0,) + tuple(range(2, x.rank))
    mean, var, kt = _moments(ctx, axes, "bn_batch")
    iv = out_vars(x.rank)
    ki = keepdims_index(x.rank, axes, iv)
    scale, bias = ctx.input(1), ctx.input(2)
    eps = const(float(ctx.attr("epsilon", 1e-5)), mdt)
    body = ((cast(load(0, x, iv), mdt) - load(1, kt, ki)) / unary("sqrt", load(2, kt, ki) + eps)
            * cast(load(3, scale, (iv[1],)), mdt) + cast(load(4, bias, (iv[1],)), mdt))
    ctx.emit(TensorExpr("bn_training", (x, kt, kt, scale, bias), ctx.out_types[0], body),
             [ctx.in_name(0), mean, var, ctx.in_name(1), ctx.in_name(2)], ctx.out_name(0))
    c = out_vars(1)[0]
    at_channel = tuple(c if a == 1 else 0 for a in range(x.rank))
    momentum = float(ctx.attr("momentum", 0.9))
    for k, (batch, running) in enumerate(((mean, 3), (var, 4)), start=1):
        if ctx.node.has_output(k):      # running = input * momentum + batch * (1 - momentum)
            t = ctx.out_types[k]
            run = (cast(load(0, ctx.input(running), (c,)), mdt) * const(momentum, mdt)
                   + load(1, kt, at_channel) * const(1.0 - momentum, mdt))
            ctx.emit(TensorExpr("bn_running", (ctx.input(running), kt), t, cast(run, t.dtype)),
                     [ctx.in_name(running), batch], ctx.out_name(k))
        if ctx.opset < 14 and ctx.node.has_output(k + 2):     # saved mean and variance: the batch's
            t = ctx.out_types[k + 2]
            ctx.emit(TensorExpr("bn_saved", (kt,), t, cast(load(0, kt, at_channel), t.dtype)), [batch],
                     ctx.out_name(k + 2))


# --- LpNormalization, MeanVarianceNormalization ------------------------------------------------------

def _ref_lpnorm(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    axis = normalize_axis(node.attr("axis", -1), x.ndim)
    p = int(node.attr("p", 2))
    xm = _math_np(x)
    if p == 1:
        norm = np.sum(np.abs(xm), axis=axis, keepdims=True)
    elif p == 2:
        norm = np.sqrt(np.sum(xm * xm, axis=axis, keepdims=True))
    else:
        raise ValueError(f"LpNormalization p must be 1 or 2, got {p}")
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(norm == 0, 0, xm / norm)
    return [y.astype(x.dtype)]


@register("LpNormalization", reference=_ref_lpnorm)
def lower_lpnorm(ctx: LowerCtx) -> None:
    """The norm into a keepdims temporary, then x / norm (0 where the norm is 0)."""
    x, y = ctx.input(0), ctx.out_types[0]
    axis = normalize_axis(ctx.attr("axis", -1), x.rank)
    p = int(ctx.attr("p", 2))
    if p not in (1, 2):
        raise ctx.unsupported(f"p={p} (the specification allows 1 and 2)")
    if y.size == 0:
        return
    mdt = math_dtype(x.dtype)
    kt = TensorType(mdt, kept_shape(x.shape, (axis,)))
    kv, rv = out_vars(x.rank), reduce_vars(1)
    xr = cast(load(0, x, index_of_reduced(x.rank, (axis,), True, kv, rv)), mdt)
    body = unary("abs", xr) if p == 1 else xr * xr
    acc = Var("acc", mdt)
    epi = None if p == 1 else unary("sqrt", acc)
    norm = ctx.temp(kt, "norm")
    ctx.emit(TensorExpr("lpnorm_norm", (x,), kt, body, Reduce("sum", (("r0", x.shape[axis]),)), epi),
             [ctx.in_name(0)], norm)
    iv = out_vars(x.rank)
    nv = load(1, kt, keepdims_index(x.rank, (axis,), iv))
    out = select(binary("eq", nv, const(0, mdt)), const(0, mdt), cast(load(0, x, iv), mdt) / nv)
    ctx.emit(TensorExpr("lpnorm", (x, kt), y, out), [ctx.in_name(0), norm], ctx.out_name(0))


def _moments(ctx: LowerCtx, axes: tuple[int, ...], prefix: str) -> tuple[str, str, TensorType]:
    """Input 0's mean and biased variance over `axes`, each a keepdims temporary of the math type
    (two reductions: the variance reads the mean): (mean, var, their type). MeanVarianceNormalization
    and BatchNormalization in training mode share them."""
    x = ctx.input(0)
    mdt = math_dtype(x.dtype)
    kt = TensorType(mdt, kept_shape(x.shape, axes))
    kv, rv = out_vars(x.rank), reduce_vars(len(axes))
    count = math.prod(x.shape[a] for a in axes)
    red = Reduce("sum", tuple((r.name, x.shape[a]) for r, a in zip(rv, axes)))
    xr = cast(load(0, x, index_of_reduced(x.rank, axes, True, kv, rv)), mdt)
    acc = Var("acc", mdt)
    mean = ctx.temp(kt, f"{prefix}_mean")
    ctx.emit(TensorExpr(f"{prefix}_mean", (x,), kt, xr, red, acc / const(count, mdt)), [ctx.in_name(0)], mean)
    d = xr - load(1, kt, kv)
    var = ctx.temp(kt, f"{prefix}_var")
    ctx.emit(TensorExpr(f"{prefix}_var", (x, kt), kt, d * d, red, acc / const(count, mdt)),
             [ctx.in_name(0), mean], var)
    return mean, var, kt


MVN_EPSILON = 1e-9   # the function body's constant


def _ref_mvn(node: Node, inputs: list, opset: int) -> list:
    x = inputs[0]
    axes = tuple(normalize_axis(a, x.ndim) for a in node.attr("axes", (0, 2, 3)))
    xm = _math_np(x)
    mean = np.mean(xm, axis=axes, keepdims=True)
    d = xm - mean
    std = np.sqrt(np.mean(d * d, axis=axes, keepdims=True))
    return [(d / (std + xm.dtype.type(MVN_EPSILON))).astype(x.dtype)]


@register("MeanVarianceNormalization", reference=_ref_mvn)
def lower_mvn(ctx: LowerCtx) -> None:
    """Mean and variance into keepdims temporaries, then (x - mean) / (sqrt(var) + 1e-9)."""
    x, y = ctx.input(0), ctx.out_types[0]
    axes = tuple(sorted({normalize_axis(a, x.rank) for a in ctx.attr("axes", (0, 2, 3))}))
    if y.size == 0:
        return
    mdt = math_dtype(x.dtype)
    mean, var, kt = _moments(ctx, axes, "mvn")
    iv = out_vars(x.rank)
    ki = keepdims_index(x.rank, axes, iv)
    body = (cast(load(0, x, iv), mdt) - load(1, kt, ki)) / (unary("sqrt", load(2, kt, ki)) + const(MVN_EPSILON, mdt))
    ctx.emit(TensorExpr("mvn", (x, kt, kt), y, body), [ctx.in_name(0), mean, var], ctx.out_name(0))


# --- LRN ----------------------------------------------------------------------------------------

def _lrn_window(size: int) -> tuple[int, int]:
    """Channels [c - before, c + after] take part, per the spec's floor/ceil of (size-1)/2."""
    return (size - 1) // 2, math.ceil((size - 1) / 2)


def _ref_lrn(node: Node, inputs, opset):
    x = inputs[0]
    size = int(node.attr("size"))
    alpha, beta, bias = node.attr("alpha", 1e-4), node.attr("beta", 0.75), node.attr("bias", 1.0)
    before, after = _lrn_window(size)
    xf = x.astype(np.float64)
    sq = np.zeros_like(xf)
    c = x.shape[1]
    for k in range(c):
        lo, hi = max(0, k - before), min(c - 1, k + after)
        sq[:, k] = np.sum(xf[:, lo:hi + 1] ** 2, axis=1)
    return [(xf / (bias + alpha / size * sq) ** beta).astype(x.dtype)]


@register("LRN", reference=_ref_lrn)
def lower_lrn(ctx: LowerCtx) -> None:
    """Sum of squares over a channel window as a reduction; the normalisation in the epilogue."""
    x, y = ctx.input(0), ctx.out_types[0]
    size = int(ctx.attr("size"))
    alpha, beta, bias = float(ctx.attr("alpha", 1e-4)), float(ctx.attr("beta", 0.75)), float(ctx.attr("bias", 1.0))
    before, _ = _lrn_window(size)
    i = out_vars(y.rank)
    r = Var("r0")
    ch = i[1] - before + r
    idx = (i[0], ch) + tuple(i[2:])
    v = load(0, x, idx)
    body = select(binary("and", binary("ge", ch, 0), binary("lt", ch, x.shape[1])), v * v, const(0.0, x.dtype))
    acc = Var("acc", x.dtype)
    denom = binary("pow", const(bias, x.dtype) + acc * (alpha / size), const(beta, x.dtype))
    epilogue = load(0, x, i) / denom
    ctx.emit(TensorExpr("lrn", (x,), y, body, Reduce("sum", (("r0", size),)), epilogue),
             [ctx.in_name(0)], ctx.out_name(0))
