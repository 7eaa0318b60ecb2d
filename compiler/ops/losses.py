"""Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Both read input (N, C, d1..dk) and target (N, d1..dk). The per-position loss is
-w[t] * value[n, t, d..] (value = input for NLL, log_softmax(input) for SCE), zero where the
target equals `ignore_index`. `reduction` none keeps it per position; sum adds it up; mean divides
the sum by the sum of the applied weights (ones without `weight`: the number of positions not
ignored). Targets are clamped to [0, C) before any load, so an out-of-range ignored target reads
nothing outside the tensors. SCE's log-softmax is max -> log(sum(exp)) + max as temporaries (the
same scheme as ReduceLogSumExp), read by the loss and by the optional log_prob output."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, cast, const, load, maximum, minimum,
                        out_vars, reduce_vars, select, unary)
from .reduce import _acc_np, math_dtype
from .registry import LowerCtx, register


# --- references ---------------------------------------------------------------------------------

def _nll_from_values(vals: np.ndarray, target: np.ndarray, weight, node: Node, out_dtype) -> np.ndarray:
    """The loss from per-class values (N, C, d..) (already in the accumulation type)."""
    if vals.ndim < 2:
        raise ValueError("loss input must have rank >= 2")
    c = vals.shape[1]
    ii = node.attr("ignore_index", None)
    t = target.astype(np.int64)
    valid = np.ones(t.shape, bool) if ii is None else t != int(ii)
    tc = np.clip(t, 0, c - 1)
    picked = np.take_along_axis(vals, tc[:, None], axis=1)[:, 0]
    w = np.ones(t.shape, vals.dtype) if weight is None else weight.astype(vals.dtype)[tc]
    w = np.where(valid, w, 0).astype(vals.dtype)
    loss = np.where(valid, -picked * w, 0).astype(vals.dtype)
    red = node.attr("reduction", "mean")
    if red == "none":
        return loss.astype(out_dtype)
    s = loss.sum(dtype=vals.dtype)
    if red == "sum":
        return np.asarray(s).astype(out_dtype)
    if red != "mean":
        raise ValueError(f"unknown reduction {red!r}")
    if loss.size == 0:   # the mean of nothing: 0, as onnxruntime
        return np.zeros((), out_dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(s / w.sum(dtype=vals.dtype)).astype(out_dtype)


def _ref_nll(node: Node, inputs: list, opset: int) -> list:
    x, target = inputs[0], inputs[1]
    weight = inputs[2] if len(inputs) > 2 else None
    return [_nll_from_values(x.astype(_acc_np(x)), target, weight, node, x.dtype)]


def _log_softmax_axis1(x: np.ndarray) -> np.ndarray:
    xa = x.astype(_acc_np(x))
    m = np.max(xa, axis=1, keepdims=True)
    return xa - (np.log(np.sum(np.exp(xa - m), axis=1, keepdims=True)) + m)


def _wants_log_prob(node: Node) -> bool:
    return node.has_output(1)


def _ref_sce(node: Node, inputs: list, opset: int) -> list:
    x, target = inputs[0], inputs[1]
    weight = inputs[2] if len(inputs) > 2 else None
    logp = _log_softmax_axis1(x)
    out = [_nll_from_values(logp, target, weight, node, x.dtype)]
    if _wants_log_prob(node):
        out.append(logp.astype(x.dtype))
    return out


# --- lowering -----------------------------------------------------------------------------------

def _emit_loss(ctx: LowerCtx, name: str, types: list[TensorType], names: list[str], w_arg: int | None,
               picked: Callable[[Expr, tuple], Expr], mdt: DType) -> None:
    """Emits output 0. Kernel input 1 is the target; `picked(class, position)` is the (math-typed)
    per-class value at a position (n, d1..) whose negation is the unweighted loss."""
    x, t, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    red = ctx.attr("reduction", "mean")
    if red not in ("none", "sum", "mean"):
        raise ctx.unsupported(f"reduction {red!r}")
    if x.rank < 2 or t.rank != x.rank - 1:
        raise ctx.unsupported("input must be (N, C, d..) and target (N, d..)")
    if not x.dtype.is_float:
        raise ctx.unsupported(f"input type {x.dtype}")
    ii = ctx.attr("ignore_index", None)
    n_cls = x.shape[1]
    has_den = w_arg is not None or ii is not None

    def parts(pos):
        tv = cast(load(1, t, pos), DType.int64)
        tc = minimum(maximum(tv, 0), n_cls - 1) if n_cls > 0 else tv
        w = const(1, mdt) if w_arg is None else cast(load(w_arg, types[w_arg], (tc,)), mdt)
        loss = -(picked(tc, pos) * w)
        if ii is None:
            return loss, w
        keep = binary("ne", tv, const(int(ii), DType.int64))
        return select(keep, loss, const(0, mdt)), select(keep, w, const(0, mdt))

    if red == "none":
        if y.size and n_cls == 0:
            raise ctx.unsupported("no classes to pick a target from")
        if y.size:
            ctx.emit(TensorExpr(name, tuple(types), y, parts(out_vars(t.rank))[0]), names, ctx.out_name(0))
        return
    if t.size == 0 or n_cls == 0:   # nothing to add up: sum 0, mean 0 (as onnxruntime; 0/0 in ONNX)
        ctx.emit(TensorExpr(f"{name}_empty", (), y, const(0, mdt)),
                 [], ctx.out_name(0))
        return
    rv = reduce_vars(t.rank)
    axes = Reduce("sum", tuple((r.name, d) for r, d in zip(rv, t.shape)))
    loss, w = parts(rv)
    acc = Var("acc", mdt)
    if red == "sum":
        ctx.emit(TensorExpr(name, tuple(types), y, loss, axes), names, ctx.out_name(0))
        return
    if not has_den:
        ctx.emit(TensorExpr(name, tuple(types), y, loss, axes, acc / const(t.size, mdt)), names, ctx.out_name(0))
        return
    den_t = TensorType(mdt, ())
    den = ctx.temp(den_t, "weight_sum")
    ctx.emit(TensorExpr(f"{name}_weight_sum", tuple(types), den_t, w, axes), names, den)
    k = len(types)
    ctx.emit(TensorExpr(name, tuple(types) + (den_t,), y, loss, axes, acc / load(k, den_t, ())),
             names + [den], ctx.out_name(0))


def _weight_arg(ctx: LowerCtx, types: list, names: list) -> int | None:
    if not ctx.has_input(2):
        return None
    types.append(ctx.input(2))
    names.append(ctx.in_name(2))
    return len(types) - 1


def _at_class(cls: Expr, pos: tuple) -> tuple:
    """Index (n, cls, d1..) of the input from a position (n, d1..)."""
    return (pos[0], cls) + tuple(pos[1:])


@register("NegativeLogLikelihoodLoss", reference=_ref_nll)
def lower_nll(ctx: LowerCtx) -> None:
    x, t = ctx.input(0), ctx.input(1)
    mdt = math_dtype(x.dtype)
    types, names = [x, t], [ctx.in_name(0), ctx.in_name(1)]
    w_arg = _weight_arg(ctx, types, names)
    _emit_loss(ctx, "nll_loss", types, names, w_arg,
               lambda cls, pos: cast(load(0, x, _at_class(cls, pos)), mdt), mdt)


@register("SoftmaxCrossEntropyLoss", reference=_ref_sce)
def lower_sce(ctx: LowerCtx) -> None:
    x, t = ctx.input(0), ctx.input(1)
    if x.rank < 2 or t.rank != x.rank - 1:
        raise ctx.unsupported("input must be (N, C, d..) and target (N, d..)")
    if not x.dtype.is_float:
        raise ctx.unsupported(f"input type {x.dtype}")
    mdt = math_dtype(x.dtype)
    n_cls = x.shape[1]
    lse_t = TensorType(mdt, t.shape)     # log(sum(exp(x))) over the classes, per position
    if t.size and n_cls:
        pos = out_vars(t.rank)
        r = Var("r0")
        xv = cast(load(0, x, _at_class(r, pos)), mdt)
        mx = ctx.temp(lse_t, "max")
        ctx.emit(TensorExpr("sce_max", (x,), lse_t, xv, Reduce("max", (("r0", n_cls),))), [ctx.in_name(0)], mx)
        m = load(1, lse_t, pos)
        lse = ctx.temp(lse_t, "logsumexp")
        ctx.emit(TensorExpr("sce_logsumexp", (x, lse_t), lse_t, unary("exp", xv - m), Reduce("sum", (("r0", n_cls),)),
                            unary("log", Var("acc", mdt)) + m), [ctx.in_name(0), mx], lse)
    else:
        lse = None
    if _wants_log_prob(ctx.node):
        lp = ctx.out_types[1]
        if lp.size:
            iv = out_vars(lp.rank)
            body = cast(load(0, x, iv), mdt) - load(1, lse_t, (iv[0],) + tuple(iv[2:]))
            ctx.emit(TensorExpr("sce_log_prob", (x, lse_t), lp, body), [ctx.in_name(0), lse], ctx.out_name(1))
    types, names = [x, t, lse_t], [ctx.in_name(0), ctx.in_name(1), lse or ctx.in_name(0)]
    w_arg = _weight_arg(ctx, types, names)
    _emit_loss(ctx, "sce_loss", types, names, w_arg,
               lambda cls, pos: cast(load(0, x, _at_class(cls, pos)), mdt) - load(2, lse_t, pos), mdt)
