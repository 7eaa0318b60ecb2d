"""The com.microsoft operators onnxruntime's own graph optimizer writes when a session saves its
optimized model (`SessionOptions.optimized_model_filepath`, level ORT_ENABLE_EXTENDED): FusedConv
(a Conv, an optional residual Z and an activation) and FusedMatMul (a MatMul of transposed
operands, scaled). Each is its standard op lowered as such (`LowerCtx.lower_as`) and a map: fusion
puts the activation, the residual and the scale back into the product's epilogue and the
transposes into its loads, so a saved optimized model compiles as its original.

The level above, ORT_ENABLE_ALL, writes com.microsoft.nchwc operators: onnxruntime's CPU blocked
layout, hardware-specific by its own warning; the frontend refuses them and says to save at
ORT_ENABLE_EXTENDED or upload the original."""
from __future__ import annotations

import numpy as np
from onnx import helper

from ..errors import ShapeError
from ..ir.graph import TensorType
from ..ir.texpr import TensorExpr, binary, broadcast_index, const, load, out_vars, select, unary
from .contraction import conv_window, conv_reference
from .contrib import MS
from .registry import LowerCtx, register

_CONV_ATTRS = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")


class _ProtoAttrs:
    """A NodeProto's attributes read as an IR node's (strings decoded, lists as tuples)."""

    def __init__(self, pn):
        self.values = {}
        for a in pn.attribute:
            v = helper.get_attribute_value(a)
            self.values[a.name] = v.decode() if isinstance(v, bytes) else tuple(v) if isinstance(v, list) else v

    def attr(self, name, default=None):
        return self.values.get(name, default)


# --- FusedConv ---------------------------------------------------------------------------------------

ACTIVATIONS = ("", "Relu", "Tanh", "Sigmoid", "LeakyRelu", "Clip", "HardSigmoid")


def _activation_params(node) -> tuple[str, tuple[float, ...]]:
    act = node.attr("activation", "") or ""
    act = act.decode() if isinstance(act, bytes) else act
    params = tuple(float(p) for p in (node.attr("activation_params", ()) or ()))
    if act not in ACTIVATIONS:
        raise ValueError(f"activation {act!r} is not one of {', '.join(a for a in ACTIVATIONS if a)}")
    need = {"LeakyRelu": 1, "Clip": 2, "HardSigmoid": 2}.get(act, 0)
    if len(params) < need:
        raise ValueError(f"activation {act} needs {need} activation_params, {len(params)} given")
    return act, params


def activate(act: str, params: tuple[float, ...], x):
    """The activation of an expression (fp32 math)."""
    if act == "Relu":
        return binary("max", x, 0.0)
    if act == "Tanh":
        return unary("tanh", x)
    if act == "Sigmoid":
        return unary("sigmoid", x)
    if act == "LeakyRelu":
        return select(binary("ge", x, 0.0), x, x * params[0])
    if act == "Clip":
        return binary("min", binary("max", x, params[0]), params[1])
    if act == "HardSigmoid":
        return binary("max", 0.0, binary("min", 1.0, x * params[0] + params[1]))
    return x


def _activate_np(act: str, params, x: np.ndarray) -> np.ndarray:
    if act == "Relu":
        return np.maximum(x, 0)
    if act == "Tanh":
        return np.tanh(x)
    if act == "Sigmoid":
        return 1 / (1 + np.exp(-x))
    if act == "LeakyRelu":
        return np.where(x >= 0, x, x * params[0])
    if act == "Clip":
        return np.minimum(np.maximum(x, params[0]), params[1])
    if act == "HardSigmoid":
        return np.maximum(0, np.minimum(1, x * params[0] + params[1]))
    return x


def _infer_conv(pn, in_types) -> list:
    x, w = in_types[0], in_types[1]
    if x is None or w is None or x.rank != w.rank or x.rank < 3:
        raise ShapeError("FusedConv needs an input and a weight of the same rank, at least 3", node=pn.name)
    try:
        win = conv_window(_ProtoAttrs(pn), x.shape, w.shape)
    except ValueError as e:
        raise ShapeError(f"FusedConv: {e}", node=pn.name) from None
    return [TensorType(x.dtype, (x.shape[0], w.shape[0]) + tuple(win.out_shape))]


def _ref_conv(node, inputs, opset):
    x, w = inputs[0], inputs[1]
    b = inputs[2] if len(inputs) > 2 else None
    z = inputs[3] if len(inputs) > 3 else None
    y = conv_reference(x, w, b, node)
    if z is not None:
        y = y + z.astype(np.float64)
    act, params = _activation_params(node)
    return [_activate_np(act, params, y).astype(x.dtype)]


@register("FusedConv", reference=_ref_conv, domain=MS, infer=_infer_conv)
def lower_fused_conv(ctx: LowerCtx) -> None:
    """activation(Conv(X, W, B) + Z)."""
    try:
        act, params = _activation_params(ctx.node)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    y = ctx.out_types[0]
    if not y.dtype.is_float:
        raise ctx.unsupported(f"FusedConv on {y.dtype.name}")
    attrs = [(k, v) for k, v in ctx.node.attrs if k in _CONV_ATTRS]
    conv = ctx.lower_as("Conv", (0, 1, 2), y, attrs)
    i = out_vars(y.rank)
    v = load(0, y, i)
    ins, names = [y], [conv]
    if ctx.has_input(3):
        zt = ctx.input(3)
        v = v + load(1, zt, broadcast_index(y.shape, zt.shape, i))
        ins.append(zt)
        names.append(ctx.in_name(3))
    ctx.emit(TensorExpr("fused_conv_activation", tuple(ins), y, activate(act, params, v)), names, ctx.out_name(0))


# --- FusedMatMul -------------------------------------------------------------------------------------

def _operand_shape(shape: tuple[int, ...], trans: bool) -> tuple[int, ...]:
    return shape[:-2] + (shape[-1], shape[-2]) if trans else shape


def _check_matmul(attr, a_shape, b_shape) -> tuple[bool, bool, float]:
    if int(attr("transBatchA", 0) or 0) or int(attr("transBatchB", 0) or 0):
        raise ValueError("transBatchA/transBatchB are not supported")
    ta, tb = bool(attr("transA", 0)), bool(attr("transB", 0))
    if (ta and len(a_shape) < 2) or (tb and len(b_shape) < 2):
        raise ValueError("a transposed operand needs two dimensions at least")
    return ta, tb, float(attr("alpha", 1.0))


def _infer_matmul(pn, in_types) -> list:
    a, b = in_types[0], in_types[1]
    try:
        ta, tb, _ = _check_matmul(_ProtoAttrs(pn).attr, a.shape, b.shape)
        sa, sb = _operand_shape(a.shape, ta), _operand_shape(b.shape, tb)
        shape = np.matmul(np.empty(sa, np.int8), np.empty(sb, np.int8)).shape
    except ValueError as e:
        raise ShapeError(f"FusedMatMul: {e} (A {a.shape}, B {b.shape})", node=pn.name) from None
    return [TensorType(a.dtype, tuple(int(d) for d in shape))]


def _ref_matmul(node, inputs, opset):
    a, b = inputs[0], inputs[1]
    ta, tb, alpha = _check_matmul(node.attr, a.shape, b.shape)
    a64 = np.swapaxes(a, -1, -2) if ta else a
    b64 = np.swapaxes(b, -1, -2) if tb else b
    return [(np.matmul(a64.astype(np.float64), b64.astype(np.float64)) * alpha).astype(a.dtype)]


@register("FusedMatMul", reference=_ref_matmul, domain=MS, infer=_infer_matmul)
def lower_fused_matmul(ctx: LowerCtx) -> None:
    """alpha * op(A) @ op(B), op a transpose of the last two axes where transA/transB say."""
    a, b, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    try:
        ta, tb, alpha = _check_matmul(ctx.attr, a.shape, b.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if not y.dtype.is_float:
        raise ctx.unsupported(f"FusedMatMul on {y.dtype.name}")
    operands = []
    for k, t, trans in ((0, a, ta), (1, b, tb)):
        if trans:
            perm = tuple(range(t.rank - 2)) + (t.rank - 1, t.rank - 2)
            tt = TensorType(t.dtype, _operand_shape(t.shape, True))
            operands.append((ctx.lower_as("Transpose", (k,), tt, [("perm", perm)]), tt))
        else:
            operands.append(k)
    if alpha == 1.0:
        ctx.lower_as("MatMul", operands, y, out=ctx.out_name(0))
        return
    prod = ctx.lower_as("MatMul", operands, y)
    i = out_vars(y.rank)
    ctx.emit(TensorExpr("scale", (y,), y, load(0, y, i) * const(alpha, y.dtype)), [prod], ctx.out_name(0))
