"""Newer ops a deployed graph can hold: CumProd, SwiGLU, TensorScatter and DeformConv.

CumProd is CumSum's guarded full reduction with the product (O(n^2) per row, any axis).
TensorScatter (a KV-cache write) is one gather per output element: a position on the sequence
axis takes the update element that lands there, else the past cache's; under --kv-cache in-place
the output is the past's buffer and only the update is written (ops/cache_update.py). DeformConv is the usual
deformable im2col followed by a grouped contraction: a temporary of bilinearly sampled (and
masked) input values per (n, channel, kernel position, output position), then one reduction over
a group's channels and the kernel positions. Sampling points outside the input read zeros."""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, cast, const, in_range, load, logical_and,
                        out_vars, reduce_vars, select, unary)
from .cache_update import tensor_scatter_kernel
from .reduce import _acc_np, _lower_cumulative, _ref_cumulative, math_dtype, normalize_axis
from .movement import opt
from .registry import LowerCtx, register


# --- CumProd ------------------------------------------------------------------------------------

def _ref_cumprod(node: Node, inputs: list, opset: int) -> list:
    return _ref_cumulative(node, inputs, np.cumprod, 1)


@register("CumProd", reference=_ref_cumprod)
def lower_cumprod(ctx: LowerCtx) -> None:
    """out[i] = product of x over the positions before (or after) i on the axis (1 elsewhere)."""
    if ctx.input(0).dtype is DType.bool and ctx.out_types[0].size:
        raise ctx.unsupported("CumProd of bool")
    _lower_cumulative(ctx, "prod", 1, "cumprod")


# --- SwiGLU -------------------------------------------------------------------------------------

def _alpha(node: Node) -> float:
    return float(np.float32(node.attr("alpha", 1.0)))


def _ref_swiglu(node: Node, inputs: list, opset: int) -> list:
    a, b = inputs[0], inputs[1]
    if a.shape != b.shape:
        raise ValueError(f"SwiGLU inputs differ in shape: {a.shape} vs {b.shape}")
    acc = _acc_np(a)
    aa, ba = a.astype(acc), b.astype(acc)
    with np.errstate(over="ignore"):
        gate = aa / (1 + np.exp(-(aa * acc.type(_alpha(node)))))
    return [(gate * ba).astype(a.dtype)]


@register("SwiGLU", reference=_ref_swiglu)
def lower_swiglu(ctx: LowerCtx) -> None:
    a, b, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    if a.shape != b.shape or not a.dtype.is_float:
        raise ctx.unsupported("SwiGLU takes two float inputs of one shape")
    if y.size == 0:
        return
    iv = out_vars(y.rank)
    av, bv = load(0, a, iv), load(1, b, iv)
    body = av * unary("sigmoid", av * _alpha(ctx.node)) * bv
    ctx.emit(TensorExpr("swiglu", (a, b), y, body), [ctx.in_name(0), ctx.in_name(1)], ctx.out_name(0))


# --- TensorScatter ------------------------------------------------------------------------------

def _scatter_axis(node: Node, rank: int) -> int:
    axis = normalize_axis(node.attr("axis", -2), rank)
    if axis == 0:
        raise ValueError("TensorScatter's axis cannot be the batch axis")
    return axis


def _ref_tensor_scatter(node: Node, inputs: list, opset: int) -> list:
    past, upd, wi = inputs[0], inputs[1], opt(inputs, 2)
    axis = _scatter_axis(node, past.ndim)
    mode = node.attr("mode", "linear")
    if mode not in ("linear", "circular"):
        raise ValueError(f"unknown mode {mode!r}")
    big, seq = past.shape[axis], upd.shape[axis]
    out = np.array(past, copy=True)
    for bi in range(past.shape[0]):
        w = 0 if wi is None else int(wi[bi])
        for j in range(seq):
            s = w + j
            if mode == "circular":
                s %= big
            if 0 <= s < big:   # a linear write past the end is undefined: dropped
                lead = (bi,) + (slice(None),) * (axis - 1)
                out[lead + (s,)] = upd[lead + (j,)]
    return [out]


@register("TensorScatter", reference=_ref_tensor_scatter)
def lower_tensor_scatter(ctx: LowerCtx) -> None:
    past, upd, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    if y.size == 0:
        return
    try:
        axis = _scatter_axis(ctx.node, past.rank)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    mode = ctx.attr("mode", "linear")
    if mode not in ("linear", "circular"):
        raise ctx.unsupported(f"mode {mode!r}")
    big, seq = past.shape[axis], upd.shape[axis]
    if ctx.donate([(0, 0)]):     # --kv-cache in-place: the update rows written into the past's buffer
        if seq:
            ctx.emit_kernel(tensor_scatter_kernel((ctx.in_name(1), upd),
                                                  (ctx.in_name(2), ctx.input(2)) if ctx.has_input(2) else None,
                                                  ctx.out_name(0), y, axis, mode == "circular"))
        return
    iv = out_vars(y.rank)
    types, names = [past, upd], [ctx.in_name(0), ctx.in_name(1)]
    s = iv[axis]
    if ctx.has_input(2):
        wt = ctx.input(2)
        types.append(wt)
        names.append(ctx.in_name(2))
        j = s - cast(load(2, wt, (iv[0],)), DType.int64)
    else:
        j = s
    if mode == "circular":
        j = binary("pymod", j, const(big, DType.int64))
        hit = binary("lt", j, seq)
    else:
        hit = logical_and(binary("ge", j, 0), binary("lt", j, seq))
    if seq == 0:
        body = load(0, past, iv)
    else:
        body = select(hit, load(1, upd, tuple(j if k == axis else iv[k] for k in range(y.rank))), load(0, past, iv))
    ctx.emit(TensorExpr("tensor_scatter", tuple(types), y, body), names, ctx.out_name(0))


# --- DeformConv ---------------------------------------------------------------------------------

def _deform_geometry(node: Node, x_shape, w_shape):
    """(kernel, strides, pads_begin, dilations, group, offset_group, output spatial shape)."""
    d = len(x_shape) - 2
    if d < 1:
        raise ValueError("DeformConv input must have rank >= 3")
    kernel = tuple(int(k) for k in (node.attr("kernel_shape", None) or w_shape[2:]))
    if kernel != tuple(w_shape[2:]):
        raise ValueError(f"DeformConv kernel_shape {list(kernel)} contradicts W's spatial shape {list(w_shape[2:])}")
    strides = tuple(int(s) for s in (node.attr("strides", None) or [1] * d))
    pads = tuple(int(p) for p in (node.attr("pads", None) or [0] * (2 * d)))
    dil = tuple(int(v) for v in (node.attr("dilations", None) or [1] * d))
    group, og = int(node.attr("group", 1)), int(node.attr("offset_group", 1))
    c, oc = x_shape[1], w_shape[0]
    if c != w_shape[1] * group or oc % group or c % og:
        raise ValueError(f"DeformConv channels: X {x_shape}, W {w_shape}, group {group}, offset_group {og}")
    out = tuple((x_shape[2 + k] + pads[k] + pads[d + k] - ((kernel[k] - 1) * dil[k] + 1)) // strides[k] + 1
                for k in range(d))
    return kernel, strides, pads[:d], dil, group, og, out


def _ref_deform_conv(node: Node, inputs: list, opset: int) -> list:
    x, w, off = inputs[0], inputs[1], inputs[2]
    b, mask = opt(inputs, 3), opt(inputs, 4)
    kernel, strides, pads, dil, group, og, out = _deform_geometry(node, x.shape, w.shape)
    acc = _acc_np(x)
    n, c = x.shape[:2]
    sp = x.shape[2:]
    d, kp = len(sp), math.prod(kernel)
    if tuple(off.shape) != (n, og * kp * d) + out:
        raise ValueError(f"offset shape {off.shape} does not fit output {out}")
    off = off.astype(acc).reshape((n, og, kp, d) + out)
    mask = (np.ones((n, og, kp) + out, acc) if mask is None else mask.astype(acc).reshape((n, og, kp) + out))
    ch_og = np.arange(c) // (c // og)
    xa = x.astype(acc)
    grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
    n_ix = np.arange(n).reshape((n, 1) + (1,) * d)
    c_ix = np.arange(c).reshape((1, c) + (1,) * d)
    cols = np.zeros((n, c, kp) + out, acc)
    for kk, kidx in enumerate(np.ndindex(*kernel)):
        pos = [(grids[k] * strides[k] - pads[k] + kidx[k] * dil[k]).astype(acc) + off[:, ch_og, kk, k]
               for k in range(d)]                       # each (n, c, *out)
        fl = [np.floor(p) for p in pos]
        val = np.zeros((n, c) + out, acc)
        for bits in itertools.product((0, 1), repeat=d):
            idx = [fl[k].astype(np.int64) + bits[k] for k in range(d)]
            ok = np.ones(val.shape, bool)
            wgt = np.ones(val.shape, acc)
            for k in range(d):
                ok &= (idx[k] >= 0) & (idx[k] < sp[k])
                frac = pos[k] - fl[k]
                wgt = wgt * (frac if bits[k] else 1 - frac)
            got = xa[(n_ix, c_ix) + tuple(np.clip(i, 0, s - 1) for i, s in zip(idx, sp))]
            val += np.where(ok, got * wgt, 0)
        cols[:, :, kk] = val * mask[:, ch_og, kk]
    oc = w.shape[0]
    cg, ocg = c // group, oc // group
    wa = w.astype(acc).reshape(oc, cg, kp)
    y = np.zeros((n, oc) + out, acc)
    for g in range(group):
        y[:, g * ocg:(g + 1) * ocg] = np.einsum("ock,nck...->no...", wa[g * ocg:(g + 1) * ocg],
                                                 cols[:, g * cg:(g + 1) * cg])
    if b is not None:
        y += b.astype(acc).reshape((1, oc) + (1,) * d)
    return [y.astype(x.dtype)]


@register("DeformConv", reference=_ref_deform_conv)
def lower_deform_conv(ctx: LowerCtx) -> None:
    x, w, ot, y = ctx.input(0), ctx.input(1), ctx.input(2), ctx.out_types[0]
    if not x.dtype.is_float:
        raise ctx.unsupported(f"input type {x.dtype}")
    try:
        kernel, strides, pads, dil, group, og, out = _deform_geometry(ctx.node, x.shape, w.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    n, c = x.shape[:2]
    sp = x.shape[2:]
    d, kp = len(sp), math.prod(kernel)
    if tuple(y.shape[2:]) != out or tuple(ot.shape) != (n, og * kp * d) + out:
        raise ctx.unsupported(f"offset {ot.shape} / output {y.shape} do not fit the geometry")
    if y.size == 0:
        return
    mdt = math_dtype(x.dtype)
    has_mask = ctx.has_input(4)
    has_bias = ctx.has_input(3)

    # 1. cols[n, c, k, o..] = mask * bilinear(x[n, c], o * stride - pad + k * dilation + offset)
    cols_t = TensorType(mdt, (n, c, kp) + out)
    iv = out_vars(cols_t.rank)
    ni, ci, kk, ov = iv[0], iv[1], iv[2], iv[3:]
    kidx, rest = [], kk           # kernel position kk -> (k0, .., k{d-1}), row-major
    for k in reversed(range(d)):
        kidx.append(rest % kernel[k] if k else rest)
        rest = rest // kernel[k]
    kidx.reverse()
    ogi = ci // (c // og)
    types, names = [x, ot], [ctx.in_name(0), ctx.in_name(2)]
    pos, fl, frac = [], [], []
    for k in range(d):
        ch = (ogi * kp + kk) * d + k
        base = ov[k] * strides[k] - pads[k] + kidx[k] * dil[k]
        p = cast(base, mdt) + cast(load(1, ot, (ni, ch) + tuple(ov)), mdt)
        f = unary("floor", p)
        pos.append(p); fl.append(cast(f, DType.int64)); frac.append(p - f)
    val: Expr | None = None
    for bits in itertools.product((0, 1), repeat=d):
        idx = [fl[k] + bits[k] for k in range(d)]
        ok = in_range(idx[0], 0, sp[0])
        wgt = frac[0] if bits[0] else 1.0 - frac[0]
        for k in range(1, d):
            ok = logical_and(ok, in_range(idx[k], 0, sp[k]))
            wgt = wgt * (frac[k] if bits[k] else 1.0 - frac[k])
        sample = select(ok, cast(load(0, x, (ni, ci) + tuple(idx)), mdt), const(0, mdt)) * wgt
        val = sample if val is None else val + sample
    if has_mask:
        mt = ctx.input(4)
        types.append(mt)
        names.append(ctx.in_name(4))
        val = val * cast(load(2, mt, (ni, ogi * kp + kk) + tuple(ov)), mdt)
    cols = ctx.temp(cols_t, "columns")
    ctx.emit(TensorExpr("deform_conv_sample", tuple(types), cols_t, val), names, cols)

    # 2. y[n, oc, o..] = sum over the group's channels and kernel positions of w * cols (+ bias)
    oc = w.shape[0]
    cg, ocg = c // group, oc // group
    yv = out_vars(y.rank)
    rv = reduce_vars(1 + d)
    chan = (yv[1] // ocg) * cg + rv[0] if group > 1 else rv[0]
    flat = rv[1]
    for k in range(1, d):
        flat = flat * kernel[k] + rv[1 + k]
    body = load(0, cols_t, (yv[0], chan, flat) + tuple(yv[2:])) * cast(load(1, w, (yv[1], rv[0]) + tuple(rv[1:])), mdt)
    red = Reduce("sum", ((rv[0].name, cg),) + tuple((rv[1 + k].name, kernel[k]) for k in range(d)))
    ctypes, cnames = [cols_t, w], [cols, ctx.in_name(1)]
    epi = None
    if has_bias:
        bt = ctx.input(3)
        ctypes.append(bt)
        cnames.append(ctx.in_name(3))
        epi = Var("acc", mdt) + cast(load(2, bt, (yv[1],)), mdt)
    ctx.emit(TensorExpr("deform_conv", tuple(ctypes), y, body, red, epi), cnames, ctx.out_name(0))
