"""Linear quantisation: QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear.

Scales and zero points are per tensor (a scalar or a one-element tensor), per axis (a vector
along `axis`) or blocked (same rank as x, `block_size` consecutive elements along `axis` share
one entry). Each op is one elementwise TensorExpr; DynamicQuantizeLinear first reduces x to its
minimum and maximum. Q and DQ are registered unfoldable: a quantised constant (an int8 weight
and its DequantizeLinear) then stays stored at its own bit width and is dequantised by a kernel
at run time, rather than being folded into a float constant four times its size.

Arithmetic follows the ONNX reference: Quantize divides in the promoted type of x and the scale
(or the `precision` attribute), rounds half to even, adds the zero point and saturates;
Dequantize subtracts the zero point from x converted to float32 and multiplies by the scale."""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedOp
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import (Expr, Reduce, TensorExpr, Var, binary, cast, const, load, maximum, minimum,
                        out_vars, select, unary)
from .movement import opt
from .registry import LowerCtx, dtype_of_code, register

# Integer types a quantised tensor may have here (float8, int4 and int2 are not Brickyard dtypes).
QUANT_RANGES = {
    DType.uint8: (0, 255), DType.int8: (-128, 127),
    DType.uint16: (0, 65535), DType.int16: (-32768, 32767),
}
_HALVES = (DType.float16, DType.bfloat16)


# --- shared helpers ------------------------------------------------------------------------------

def _axis(node, opset: int, rank: int) -> int:
    a = int(node.attr("axis", 1)) if opset >= 13 else 1
    return a + rank if a < 0 else a


def _block_size(node, opset: int) -> int:
    return int(node.attr("block_size", 0)) if opset >= 21 else 0


def _unsupported(node, why: str) -> UnsupportedOp:
    return UnsupportedOp(node.op, node=node.name, detail=why)


def _ref_param(v: np.ndarray, shape: tuple[int, ...], axis: int, block: int) -> np.ndarray:
    """A scale / zero point broadcastable to x's shape (per tensor, per axis or blocked)."""
    v = np.asarray(v)
    if v.ndim == 0 or v.size == 1:
        return v.reshape(())
    if block > 0:
        if v.ndim != len(shape):
            raise ValueError(f"blocked parameter of shape {v.shape} for x of shape {shape}")
        return np.repeat(v, block, axis=axis).take(range(shape[axis]), axis=axis)
    if v.ndim != 1 or v.size != shape[axis]:
        raise ValueError(f"per-axis parameter of shape {v.shape} for x of shape {shape}, axis {axis}")
    dims = [1] * len(shape)
    dims[axis] = v.size
    return v.reshape(dims)


def _param_index(pt: TensorType, x: TensorType, i, axis: int, block: int) -> tuple[Expr, ...]:
    """Index into a scale / zero point for output (= x) index `i`."""
    if pt.rank == 0 or pt.size == 1:
        return tuple(const(0, DType.int64) for _ in pt.shape)
    if block > 0:
        if pt.rank != x.rank:
            raise ValueError(f"blocked parameter of shape {pt.shape} for x of shape {x.shape}")
        return tuple(v // block if d == axis else v for d, v in enumerate(i))
    if pt.rank != 1 or pt.shape[0] != x.shape[axis]:
        raise ValueError(f"per-axis parameter of shape {pt.shape} for x of shape {x.shape}, axis {axis}")
    return (i[axis],)


def _rounded_to(e: Expr, dt: DType) -> Expr:
    """e rounded to dt: half types compute in float32, so their results are rounded explicitly."""
    if dt in _HALVES:
        return cast(cast(e, DType.float32), dt)
    return e


def _saturate(r: Expr, out: DType) -> Expr:
    """r (float64, already rounded) clamped to out's range; NaN becomes the minimum."""
    lo, hi = QUANT_RANGES[out]
    clamped = minimum(maximum(r, float(lo)), float(hi))
    return cast(select(unary("isnan", r), const(lo, DType.float64), clamped), out)


# --- QuantizeLinear ------------------------------------------------------------------------------

def _quant_out_dtype(node, opset: int, zp) -> DType:
    if zp is not None:
        return DType.from_numpy(np.asarray(zp).dtype) if not isinstance(zp, TensorType) else zp.dtype
    code = int(node.attr("output_dtype", 0)) if opset >= 21 else 0
    return dtype_of_code(code, node) if code else DType.uint8


def _division_dtype(node, opset: int, x: DType, scale: DType) -> DType:
    """The type x / scale is computed in: `precision`, else NumPy's promotion of the two."""
    code = int(node.attr("precision", 0)) if opset >= 23 else 0
    if code:
        return dtype_of_code(code, node)
    return DType.from_numpy(np.result_type(x.np, scale.np))


def _ref_quantize(node, inputs, opset):
    x, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
    zp = opt(inputs, 2) if node.has_input(2) else None
    out = _quant_out_dtype(node, opset, zp)
    if out not in QUANT_RANGES:
        raise _unsupported(node, f"output type {out.name}")
    axis, block = _axis(node, opset, x.ndim), _block_size(node, opset)
    p = _division_dtype(node, opset, DType.from_numpy(x.dtype), DType.from_numpy(scale.dtype)).np
    with np.errstate(all="ignore"):
        q = x.astype(p) / _ref_param(scale, x.shape, axis, block).astype(p)
        r = np.rint(q).astype(np.float64)
        if zp is not None:
            r = r + _ref_param(zp, x.shape, axis, block).astype(np.float64)
        lo, hi = QUANT_RANGES[out]
        r = np.where(np.isnan(r), lo, np.clip(r, lo, hi))
    return [r.astype(out.np)]


@register("QuantizeLinear", reference=_ref_quantize, foldable=False)
def lower_quantize(ctx: LowerCtx) -> None:
    """y = saturate(rint(x / scale) + zero_point), scale and zero point per tensor, axis or block."""
    x, st, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    zt = ctx.input(2) if ctx.has_input(2) else None
    if y.dtype not in QUANT_RANGES:
        raise ctx.unsupported(f"output type {y.dtype.name}")
    if x.dtype not in (DType.float32, DType.float16, DType.bfloat16, DType.float64, DType.int32):
        raise ctx.unsupported(f"input type {x.dtype.name}")
    axis, block = _axis(ctx.node, ctx.opset, x.rank), _block_size(ctx.node, ctx.opset)
    p = _division_dtype(ctx.node, ctx.opset, x.dtype, st.dtype)
    if not p.is_float:
        raise ctx.unsupported(f"precision {p.name}")
    i = out_vars(y.rank)
    try:
        s_idx = _param_index(st, x, i, axis, block)
        z_idx = _param_index(zt, x, i, axis, block) if zt is not None else None
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    q = _rounded_to(cast(load(0, x, i), p) / cast(load(1, st, s_idx), p), p)
    r = cast(unary("round", q), DType.float64)
    types, names = [x, st], [ctx.in_name(0), ctx.in_name(1)]
    if zt is not None:
        r = r + cast(load(2, zt, z_idx), DType.float64)
        types.append(zt)
        names.append(ctx.in_name(2))
    ctx.emit(TensorExpr("quantize_linear", tuple(types), y, _saturate(r, y.dtype)), names, ctx.out_name(0))


# --- DequantizeLinear ----------------------------------------------------------------------------

def _dequant_work_dtype(x: DType) -> DType:
    """x - zero_point is taken in float32 (as the reference does), float64 for 32-bit integers."""
    return DType.float64 if x in (DType.int32, DType.uint32) else DType.float32


def _ref_dequantize(node, inputs, opset):
    x, scale = np.asarray(inputs[0]), np.asarray(inputs[1])
    zp = opt(inputs, 2) if node.has_input(2) else None
    xt = DType.from_numpy(x.dtype)
    if xt not in QUANT_RANGES and xt is not DType.int32:
        raise _unsupported(node, f"input type {xt.name}")
    code = int(node.attr("output_dtype", 0)) if opset >= 23 else 0
    out = dtype_of_code(code, node) if code else DType.from_numpy(scale.dtype)
    axis, block = _axis(node, opset, x.ndim), _block_size(node, opset)
    w = _dequant_work_dtype(xt).np
    dx = x.astype(np.float32).astype(w)
    if zp is not None:
        dx = dx - _ref_param(zp, x.shape, axis, block).astype(w)
    s = _ref_param(scale, x.shape, axis, block)
    s = s.astype(np.float32) if DType.from_numpy(s.dtype) in _HALVES else s
    return [(dx * s).astype(out.np)]


@register("DequantizeLinear", reference=_ref_dequantize, foldable=False)
def lower_dequantize(ctx: LowerCtx) -> None:
    """y = (x - zero_point) * scale, scale and zero point per tensor, axis or block."""
    x, st, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    zt = ctx.input(2) if ctx.has_input(2) else None
    if x.dtype not in QUANT_RANGES and x.dtype is not DType.int32:
        raise ctx.unsupported(f"input type {x.dtype.name}")
    if not st.dtype.is_float or not y.dtype.is_float:
        raise ctx.unsupported(f"scale type {st.dtype.name}, output type {y.dtype.name}")
    axis, block = _axis(ctx.node, ctx.opset, x.rank), _block_size(ctx.node, ctx.opset)
    i = out_vars(y.rank)
    try:
        s_idx = _param_index(st, x, i, axis, block)
        z_idx = _param_index(zt, x, i, axis, block) if zt is not None else None
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    w = _dequant_work_dtype(x.dtype)
    dx = cast(cast(load(0, x, i), DType.float32), w)
    types, names = [x, st], [ctx.in_name(0), ctx.in_name(1)]
    if zt is not None:
        dx = dx - cast(load(2, zt, z_idx), w)
        types.append(zt)
        names.append(ctx.in_name(2))
    m = DType.float64 if DType.float64 in (w, st.dtype) else DType.float32
    body = cast(dx, m) * cast(load(1, st, s_idx), m)
    ctx.emit(TensorExpr("dequantize_linear", tuple(types), y, cast(body, y.dtype)), names, ctx.out_name(0))


# --- DynamicQuantizeLinear -------------------------------------------------------------------------

def _ref_dynamic_quantize(node, inputs, opset):
    x = np.asarray(inputs[0]).astype(np.float32)
    f = np.float32
    hi = f(np.maximum(f(0), x.max())) if x.size else f(0)
    lo = f(np.minimum(f(0), x.min())) if x.size else f(0)
    scale = f(f(1) if hi == lo else f(hi - lo)) / f(255)
    zp = np.rint(np.clip(f(0) - lo / scale, f(0), f(255)))
    with np.errstate(all="ignore"):
        y = np.clip(np.rint(x / scale) + zp, 0, 255)
    return [y.astype(np.uint8), np.array(scale, np.float32), np.array(zp.astype(np.uint8))]


def _dynamic_scale_zp(lo_raw: Expr, hi_raw: Expr) -> tuple[Expr, Expr]:
    """Scale and (float) zero point from the reduced minimum and maximum (float32 throughout)."""
    hi = maximum(hi_raw, const(0.0, DType.float32))
    lo = minimum(lo_raw, const(0.0, DType.float32))
    scale = select(binary("eq", hi, lo), const(1.0, DType.float32), hi - lo) / const(255.0, DType.float32)
    zp = unary("round", minimum(maximum(const(0.0, DType.float32) - lo / scale, 0.0), 255.0))
    return scale, zp


@register("DynamicQuantizeLinear", reference=_ref_dynamic_quantize)
def lower_dynamic_quantize(ctx: LowerCtx) -> None:
    """min and max of x (two reductions), then scale, zero point and y computed from them."""
    x = ctx.input(0)
    if x.dtype is not DType.float32:
        raise ctx.unsupported(f"input type {x.dtype.name}")
    scalar = TensorType(DType.float32, ())
    axes = tuple((f"r{k}", n) for k, n in enumerate(x.shape)) or (("r0", 1),)
    ridx = tuple(Var(f"r{k}") for k in range(x.rank))
    extremes = []
    for op in ("min", "max"):
        t = ctx.temp(scalar, f"x_{op}")
        ctx.emit(TensorExpr(f"dynamic_quantize_{op}", (x,), scalar, load(0, x, ridx), Reduce(op, axes)),
                 [ctx.in_name(0)], t)
        extremes.append(t)
    lo, hi = load(0, scalar, ()), load(1, scalar, ())
    scale, zp = _dynamic_scale_zp(lo, hi)
    outs = ctx.out_types
    i = out_vars(x.rank)
    y = minimum(maximum(unary("round", load(2, x, i) / scale) + zp, 0.0), 255.0)
    ctx.emit(TensorExpr("dynamic_quantize_y", (scalar, scalar, x), outs[0], cast(y, DType.uint8)),
             extremes + [ctx.in_name(0)], ctx.out_name(0))
    if len(ctx.node.outputs) > 1 and ctx.node.outputs[1]:
        ctx.emit(TensorExpr("dynamic_quantize_scale", (scalar, scalar), outs[1], scale), extremes, ctx.out_name(1))
    if len(ctx.node.outputs) > 2 and ctx.node.outputs[2]:
        ctx.emit(TensorExpr("dynamic_quantize_zero_point", (scalar, scalar), outs[2], cast(zp, DType.uint8)),
                 extremes, ctx.out_name(2))
