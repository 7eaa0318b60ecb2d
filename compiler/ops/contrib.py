"""onnxruntime's com.microsoft operators that its transformer optimizer writes into models
(`python -m onnxruntime.transformers.optimizer`), with their meaning from onnxruntime's
ContribOperators.md: the GELU forms, BiasAdd, and the skip (residual) layer norms, plain and
simplified (RMS). (onnxruntime's SimplifiedLayerNormalization sits in the default domain, which the
ONNX checker refuses, so it is not among them.) ONNX has no schema for them, so each says its own output types (`infer`); each
lowers to the tensor expressions of its standard counterpart (a sum, then the normalisation's row
chain of compiler/ops/normalization.py), so fusion treats an optimized model as the plain one.

The training outputs (a skip norm's mean and inverse standard deviation) are refused; the sum of
input, skip and bias, which the optimizer asks of a norm whose sum a later residual reads, is
written."""
from __future__ import annotations


import numpy as np
import onnx

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import TensorExpr, broadcast_index, cast, load, out_vars, unary
from .elementwise import gelu, gelu_np
from .normalization import _normalise_rows
from .reduce import math_dtype
from .registry import LowerCtx, register

MS = "com.microsoft"
SKIP_NORM_EPSILON = 1e-12     # the skip norms' default epsilon in onnxruntime's schema


def _like_input(node: onnx.NodeProto, in_types) -> list:
    """The frontend's output types: output 0 (and the skip norms' output 3, the sum) of the first
    input's type; the skip norms' training statistics (1, 2) float per row, which lowering refuses."""
    x = in_types[0]
    stats = TensorType(DType.float32, x.shape[:-1] + (1,))
    return [None if not o else (x if k in (0, 3) else stats) for k, o in enumerate(node.output)]


def _np_math(x):
    return x.astype(np.float64 if x.dtype == np.float64 else np.float32)


# --- GELU forms, BiasAdd -------------------------------------------------------------------------

def _sum_of_inputs(ctx: LowerCtx, args: tuple[int, ...]):
    """(loads of the given inputs summed in the math type, the input indices read), each input
    broadcast to output 0's shape (a bias along the last axis)."""
    y = ctx.out_types[0]
    mdt = math_dtype(y.dtype)
    iv = out_vars(y.rank)
    used = [a for a in args if ctx.has_input(a)]
    total = None
    for k, a in enumerate(used):
        t = ctx.input(a)
        v = cast(load(k, t, broadcast_index(y.shape, t.shape, iv)), mdt)
        total = v if total is None else total + v
    return total, used


def _emit_map(ctx: LowerCtx, name: str, args: tuple[int, ...], fn) -> None:
    x, used = _sum_of_inputs(ctx, args)
    y = ctx.out_types[0]
    te = TensorExpr(name, tuple(ctx.input(a) for a in used), y, cast(fn(x), y.dtype))
    ctx.emit(te, [ctx.in_name(a) for a in used], ctx.out_name(0))


def _ref_sum(inputs):
    xs = [_np_math(a) for a in inputs if a is not None]
    total = xs[0]
    for a in xs[1:]:
        total = total + a
    return total


def _ref_gelu(node, inputs, opset):
    return [gelu_np(_ref_sum(inputs)).astype(inputs[0].dtype)]


def _ref_fast_gelu(node, inputs, opset):
    return [gelu_np(_ref_sum(inputs), tanh=True).astype(inputs[0].dtype)]


def _ref_quick_gelu(node, inputs, opset):
    x = _np_math(inputs[0])
    a = float(node.attr("alpha", 1.702))
    return [(x / (1 + np.exp(-a * x))).astype(inputs[0].dtype)]


def _ref_bias_add(node, inputs, opset):
    return [_ref_sum(inputs).astype(inputs[0].dtype)]


@register("Gelu", reference=_ref_gelu, domain=MS, infer=_like_input)
def lower_ms_gelu(ctx: LowerCtx) -> None:
    """0.5 x (1 + erf(x / sqrt 2))."""
    _emit_map(ctx, "gelu", (0,), gelu)


@register("BiasGelu", reference=_ref_gelu, domain=MS, infer=_like_input)
def lower_bias_gelu(ctx: LowerCtx) -> None:
    """Gelu(A + B), B a bias along the last axis."""
    _emit_map(ctx, "bias_gelu", (0, 1), gelu)


@register("FastGelu", reference=_ref_fast_gelu, domain=MS, infer=_like_input)
def lower_fast_gelu(ctx: LowerCtx) -> None:
    """The tanh approximation of GELU of X (+ bias)."""
    _emit_map(ctx, "fast_gelu", (0, 1), lambda x: gelu(x, tanh=True))


@register("QuickGelu", reference=_ref_quick_gelu, domain=MS, infer=_like_input)
def lower_quick_gelu(ctx: LowerCtx) -> None:
    """x sigmoid(alpha x) (CLIP's GELU approximation; alpha 1.702 by default)."""
    alpha = float(ctx.attr("alpha", 1.702))
    _emit_map(ctx, "quick_gelu", (0,), lambda x: x * unary("sigmoid", x * alpha))


@register("BiasAdd", reference=_ref_bias_add, domain=MS, infer=_like_input)
def lower_bias_add(ctx: LowerCtx) -> None:
    """X + bias + skip (bias along the last axis)."""
    _emit_map(ctx, "bias_add", (0, 1, 2), lambda x: x)


# --- skip and simplified layer norms -------------------------------------------------------------

def _ref_skip_norm(center: bool):
    def ref(node, inputs, opset):
        x = inputs[0]
        bias_at = 4 if center else 3
        s = _ref_sum([x, inputs[1]] + ([inputs[bias_at]] if len(inputs) > bias_at and inputs[bias_at] is not None else []))
        eps = float(node.attr("epsilon", SKIP_NORM_EPSILON))
        mean = s.mean(axis=-1, keepdims=True) if center else np.zeros_like(s[..., :1])
        d = s - mean
        inv = 1 / np.sqrt((d * d).mean(axis=-1, keepdims=True) + s.dtype.type(eps))
        y = d * inv * _np_math(inputs[2])
        if center and len(inputs) > 3 and inputs[3] is not None:
            y = y + _np_math(inputs[3])
        return [y.astype(x.dtype), mean, inv, s.astype(x.dtype)]
    return ref


def _lower_skip_norm(ctx: LowerCtx, center: bool) -> None:
    """output = norm(input + skip (+ bias)) * gamma (+ beta), over the last axis; output 3, when
    asked for, is the sum itself."""
    for k in (1, 2):
        if ctx.node.has_output(k):
            raise ctx.unsupported(f"output {k} (the training statistics) is not supported")
    x = ctx.input(0)
    bias_at = 4 if center else 3
    total, used = _sum_of_inputs(ctx, (0, 1, bias_at))
    summed = ctx.out_name(3) if ctx.node.has_output(3) else ctx.temp(x, "sum")
    ctx.emit(TensorExpr("skip_sum", tuple(ctx.input(a) for a in used), x, cast(total, x.dtype)),
             [ctx.in_name(a) for a in used], summed)

    def affine(ov):
        return [(i, op, broadcast_index(x.shape, ctx.input(i).shape, ov))
                for i, op in ((2, "mul"), (3, "add")) if ctx.has_input(i) and (center or op == "mul")]
    _normalise_rows(ctx, view=x.shape, row_rank=x.rank - 1, x_index=lambda idx: idx, affine=affine,
                    center=center, out=ctx.out_name(0), source=(x, summed), epsilon=SKIP_NORM_EPSILON)


@register("SkipLayerNormalization", reference=_ref_skip_norm(True), domain=MS, infer=_like_input)
def lower_skip_layer_norm(ctx: LowerCtx) -> None:
    """LayerNorm(input + skip + bias) * gamma + beta (inputs: input, skip, gamma, beta, bias)."""
    _lower_skip_norm(ctx, center=True)


@register("SkipSimplifiedLayerNormalization", reference=_ref_skip_norm(False), domain=MS, infer=_like_input)
def lower_skip_simplified_norm(ctx: LowerCtx) -> None:
    """RMSNorm(input + skip + bias) * gamma (inputs: input, skip, gamma, bias)."""
    _lower_skip_norm(ctx, center=False)


__all__ = ["MS"]
