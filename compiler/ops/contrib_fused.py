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

from ..errors import ShapeError
from ..ir.graph import Node, TensorType
from ..ir.texpr import TensorExpr, const, load, out_vars
from .contraction import conv_window, conv_reference
from .contrib import MS, ProtoNode
from .registry import LowerCtx, lookup, register

_CONV_ATTRS = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")


# --- FusedConv ---------------------------------------------------------------------------------------

# activation -> (the standard op, its attributes from activation_params in order, that op's opset:
# Clip's bounds are attributes before opset 11)
ACTIVATIONS = {"Relu": ("Relu", (), 18), "Tanh": ("Tanh", (), 18), "Sigmoid": ("Sigmoid", (), 18),
               "LeakyRelu": ("LeakyRelu", ("alpha",), 18), "HardSigmoid": ("HardSigmoid", ("alpha", "beta"), 18),
               "Clip": ("Clip", ("min", "max"), 6)}


def _activation(node) -> tuple[str, tuple, int] | None:
    """(standard op, its attributes, opset) of the node's activation, None without one."""
    act = node.attr("activation", "") or ""
    act = act.decode() if isinstance(act, bytes) else act
    if not act:
        return None
    if act not in ACTIVATIONS:
        raise ValueError(f"activation {act!r} is not one of {', '.join(ACTIVATIONS)}")
    op, names, opset = ACTIVATIONS[act]
    params = tuple(float(p) for p in (node.attr("activation_params", ()) or ()))
    if len(params) < len(names):
        raise ValueError(f"activation {act} needs {len(names)} activation_params, {len(params)} given")
    return op, tuple(zip(names, params)), opset


def _infer_conv(pn, in_types, consts) -> list:
    x, w = in_types[0], in_types[1]
    if x is None or w is None or x.rank != w.rank or x.rank < 3:
        raise ShapeError("FusedConv needs an input and a weight of the same rank, at least 3", node=pn.name)
    try:
        win = conv_window(ProtoNode(pn), x.shape, w.shape)
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
    act = _activation(node)
    if act is not None:         # the standard op's own reference
        op, attrs, act_opset = act
        (y,) = lookup(op).reference(Node(op, node.name, ("y",), ("a",), attrs), [y], act_opset)
    return [y.astype(x.dtype)]


@register("FusedConv", reference=_ref_conv, domain=MS, infer=_infer_conv)
def lower_fused_conv(ctx: LowerCtx) -> None:
    """activation(Conv(X, W, B) + Z): the standard Conv, Add and activation op, one after another
    (fusion makes the Add and the activation the Conv's epilogue)."""
    try:
        act = _activation(ctx.node)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    y = ctx.out_types[0]
    if not y.dtype.is_float:
        raise ctx.unsupported(f"FusedConv on {y.dtype.name}")
    last = act is None and not ctx.has_input(3)
    value = ctx.lower_as("Conv", (0, 1, 2), y, [(k, v) for k, v in ctx.node.attrs if k in _CONV_ATTRS],
                         out=ctx.out_name(0) if last else None)
    if ctx.has_input(3):
        value = ctx.lower_as("Add", ((value, y), 3), y, out=ctx.out_name(0) if act is None else None)
    if act is not None:
        op, attrs, opset = act
        ctx.lower_as(op, ((value, y),), y, attrs, out=ctx.out_name(0), opset=opset)


# --- FusedMatMul -------------------------------------------------------------------------------------

def _operand_perm(rank: int, trans: bool, trans_batch: bool) -> tuple[int, ...]:
    """The axes an operand is read in: transBatch moves its first axis to the second-to-last place
    (onnxruntime's [d0, d1, .., dn-2, dn-1] read as [d1, .., dn-2, d0, dn-1]), then trans swaps the
    last two."""
    perm = list(range(rank))
    if trans_batch:
        perm = perm[1:rank - 1] + [0, rank - 1]
    if trans:
        perm[-2], perm[-1] = perm[-1], perm[-2]
    return tuple(perm)


def _check_matmul(attr, a_shape, b_shape) -> tuple[tuple[int, ...], tuple[int, ...], float]:
    """Each operand's axis order (_operand_perm) and alpha."""
    perms = []
    for shape, t, tb in ((a_shape, "transA", "transBatchA"), (b_shape, "transB", "transBatchB")):
        trans, batch = bool(attr(t, 0)), bool(int(attr(tb, 0) or 0))
        if (trans or batch) and len(shape) < 2:
            raise ValueError("a transposed operand needs two dimensions at least")
        perms.append(_operand_perm(len(shape), trans, batch))
    return perms[0], perms[1], float(attr("alpha", 1.0))


def _infer_matmul(pn, in_types, consts) -> list:
    a, b = in_types[0], in_types[1]
    try:
        pa, pb, _ = _check_matmul(ProtoNode(pn).attr, a.shape, b.shape)
        sa, sb = tuple(a.shape[p] for p in pa), tuple(b.shape[p] for p in pb)
        shape = np.matmul(np.empty(sa, np.int8), np.empty(sb, np.int8)).shape
    except ValueError as e:
        raise ShapeError(f"FusedMatMul: {e} (A {a.shape}, B {b.shape})", node=pn.name) from None
    return [TensorType(a.dtype, tuple(int(d) for d in shape))]


def _ref_matmul(node, inputs, opset):
    a, b = inputs[0], inputs[1]
    pa, pb, alpha = _check_matmul(node.attr, a.shape, b.shape)
    a64, b64 = np.transpose(a, pa), np.transpose(b, pb)
    return [(np.matmul(a64.astype(np.float64), b64.astype(np.float64)) * alpha).astype(a.dtype)]


@register("FusedMatMul", reference=_ref_matmul, domain=MS, infer=_infer_matmul)
def lower_fused_matmul(ctx: LowerCtx) -> None:
    """alpha * op(A) @ op(B), op a transpose where transA/transB (the last two axes) and
    transBatchA/transBatchB (the first axis to the second-to-last place) say: a Transpose map,
    which fusion takes into the contraction's loads."""
    a, b, y = ctx.input(0), ctx.input(1), ctx.out_types[0]
    try:
        pa, pb, alpha = _check_matmul(ctx.attr, a.shape, b.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if not y.dtype.is_float:
        raise ctx.unsupported(f"FusedMatMul on {y.dtype.name}")
    operands = []
    for k, t, perm in ((0, a, pa), (1, b, pb)):
        if perm != tuple(range(t.rank)):
            tt = TensorType(t.dtype, tuple(t.shape[p] for p in perm))
            operands.append((ctx.lower_as("Transpose", (k,), tt, [("perm", perm)]), tt))
        else:
            operands.append(k)
    if alpha == 1.0:
        ctx.lower_as("MatMul", operands, y, out=ctx.out_name(0))
        return
    prod = ctx.lower_as("MatMul", operands, y)
    i = out_vars(y.rank)
    ctx.emit(TensorExpr("scale", (y,), y, load(0, y, i) * const(alpha, y.dtype)), [prod], ctx.out_name(0))
