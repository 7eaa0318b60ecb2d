"""onnxruntime's com.microsoft operators that its transformer optimizer writes into models
(`python -m onnxruntime.transformers.optimizer`), with their meaning from onnxruntime's
ContribOperators.md: the GELU forms, BiasAdd, the skip (residual) layer norms, plain and
simplified (RMS), BERT's embedding layer norm, and SimplifiedLayerNormalization, which onnxruntime
defines in the ONNX domain itself (its LLaMA-family optimizations write it; ONNX has no such op,
so the frontend checks such a node as onnxruntime's). (The fused attention nodes are in
contrib_attention.py.) ONNX has no schema for them, so each says its own output types (`infer`); each
lowers to the tensor expressions of its standard counterpart (a sum, then the normalisation's row
chain of compiler/ops/normalization.py), so fusion treats an optimized model as the plain one.

The training outputs (a skip norm's mean and inverse standard deviation) are refused; the sum of
input, skip and bias, which the optimizer asks of a norm whose sum a later residual reads, is
written."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Reduce, TensorExpr, binary, broadcast_index, cast, const, load, out_vars, reduce_vars, unary
from .elementwise import gelu, gelu_np
from .movement import index_value, wrap_index
from .normalization import _normalise_rows
from .reduce import math_dtype
from .registry import LowerCtx, register

MS = "com.microsoft"
SKIP_NORM_EPSILON = 1e-12     # the skip norms' default epsilon in onnxruntime's schema


class ProtoNode:
    """A NodeProto's attributes read as an IR node's (`attr`: strings decoded, lists as tuples),
    for the `infer` rules of ops ONNX has no schema for (they see the NodeProto)."""

    def __init__(self, pn: onnx.NodeProto):
        self.name = pn.name
        self.values = {}
        for a in pn.attribute:
            v = helper.get_attribute_value(a)
            self.values[a.name] = v.decode() if isinstance(v, bytes) else tuple(v) if isinstance(v, list) else v

    def attr(self, name: str, default=None):
        return self.values.get(name, default)


def _like_input(node: onnx.NodeProto, in_types, consts) -> list:
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


# --- embedding layer norm ------------------------------------------------------------------------

_IDS, _SEGMENT_IDS, _WORD, _POSITION, _SEGMENT, _GAMMA, _BETA, _EMB_MASK, _POSITION_IDS = range(9)


def _infer_embed(pn, in_types, consts) -> list:
    """output and embedding_sum (B, S, hidden) of the word table's type; mask_index (B) int32."""
    ids, word = in_types[_IDS], in_types[_WORD]
    if ids is None or word is None or ids.rank != 2 or word.rank != 2:
        raise ShapeError("EmbedLayerNormalization needs (batch, sequence) input_ids and a (vocabulary, hidden) "
                         "word_embedding", node=pn.name)
    (b, s), h = ids.shape, word.shape[1]
    outs = [TensorType(word.dtype, (b, s, h)), TensorType(DType.int32, (b,)), TensorType(word.dtype, (b, s, h))]
    return [t if o else None for t, o in zip(outs, pn.output)]


def _ref_embed(node, inputs, opset):
    ins = (list(inputs) + [None] * 9)[:9]
    ids = ins[_IDS].astype(np.int64)
    s = ids.shape[1]
    pos = np.arange(s)[None, :] if ins[_POSITION_IDS] is None else ins[_POSITION_IDS].astype(np.int64)
    word = ins[_WORD]
    total = _np_math(word[ids]) + _np_math(ins[_POSITION][pos])
    if ins[_SEGMENT] is not None and ins[_SEGMENT_IDS] is not None:
        total = total + _np_math(ins[_SEGMENT][ins[_SEGMENT_IDS].astype(np.int64)])
    eps = float(node.attr("epsilon", SKIP_NORM_EPSILON))
    d = total - total.mean(axis=-1, keepdims=True)
    y = d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + total.dtype.type(eps)) * _np_math(ins[_GAMMA]) \
        + _np_math(ins[_BETA])
    mask = ins[_EMB_MASK]
    mask_index = (mask == 1).sum(axis=1).astype(np.int32) if mask is not None else np.zeros(ids.shape[0], np.int32)
    return [y.astype(word.dtype), mask_index, total.astype(word.dtype)][:len(node.outputs)]


@register("EmbedLayerNormalization", reference=_ref_embed, domain=MS, infer=_infer_embed)
def lower_embed_layer_norm(ctx: LowerCtx) -> None:
    """LayerNorm(word[input_ids] + position[position_ids or s] (+ segment[segment_ids])) * gamma +
    beta; mask_index the count of ones in each mask row (0 without a mask); embedding_sum the sum."""
    ids, word, pos = ctx.input(_IDS), ctx.input(_WORD), ctx.input(_POSITION)
    if not ctx.has_input(_BETA):
        raise ctx.unsupported("beta is required")
    if ctx.has_input(_SEGMENT) != ctx.has_input(_SEGMENT_IDS):
        raise ctx.unsupported("segment_ids and segment_embedding must be given together")
    B, S = ids.shape
    H = word.shape[1]
    if pos.shape[1] != H:
        raise ctx.unsupported(f"position_embedding {pos.shape} is not {H} wide like word_embedding {word.shape}")
    if not ctx.has_input(_POSITION_IDS) and pos.shape[0] < S:
        raise ctx.unsupported(f"position_embedding has {pos.shape[0]} rows for a sequence of {S}")
    x_t = TensorType(word.dtype, (B, S, H))
    mdt = math_dtype(word.dtype)
    b, s, h = out_vars(3)

    ins, names = [], []

    def arg(i: int) -> int:
        ins.append(ctx.input(i))
        names.append(ctx.in_name(i))
        return len(ins) - 1

    def gathered(table: int, index):
        """table[index, h], the id read at run time and wrapped as Gather wraps it."""
        t = ctx.input(table)
        return cast(load(arg(table), t, (wrap_index(index_value(index), t.shape[0]), h)), mdt)

    total = gathered(_WORD, load(arg(_IDS), ids, (b, s)))
    if ctx.has_input(_POSITION_IDS):
        pt = ctx.input(_POSITION_IDS)
        p_index = load(arg(_POSITION_IDS), pt, (b if pt.shape[0] == B else const(0, DType.int64), s))
    else:
        p_index = s
    total = total + gathered(_POSITION, p_index)
    if ctx.has_input(_SEGMENT):
        total = total + gathered(_SEGMENT, load(arg(_SEGMENT_IDS), ctx.input(_SEGMENT_IDS), (b, s)))
    summed = ctx.out_name(2) if ctx.node.has_output(2) else ctx.temp(x_t, "sum")
    ctx.emit(TensorExpr("embedding_sum", tuple(ins), x_t, cast(total, word.dtype)), names, summed)
    _normalise_rows(ctx, view=x_t.shape, row_rank=2, x_index=lambda idx: idx,
                    affine=lambda ov: [(_GAMMA, "mul", (ov[2],)), (_BETA, "add", (ov[2],))],
                    center=True, out=ctx.out_name(0), source=(x_t, summed), epsilon=SKIP_NORM_EPSILON)
    if ctx.node.has_output(1):
        (mb,) = out_vars(1)
        mi_t = TensorType(DType.int32, (B,))
        if ctx.has_input(_EMB_MASK):
            (r,) = reduce_vars(1)
            mt = ctx.input(_EMB_MASK)
            ones = cast(binary("eq", load(0, mt, (mb, r)), 1), DType.int32)
            ctx.emit(TensorExpr("mask_index", (mt,), mi_t, ones, Reduce("sum", (("r0", S),))),
                     [ctx.in_name(_EMB_MASK)], ctx.out_name(1))
        else:
            ctx.emit(TensorExpr("mask_index", (), mi_t, const(0, DType.int32)), [], ctx.out_name(1))


# --- SimplifiedLayerNormalization (onnxruntime's, in the ONNX domain) ---------------------------

def _ref_simplified_norm(node, inputs, opset):
    from ..ir.graph import Node
    from .registry import lookup
    rms = Node("RMSNormalization", node.name, node.inputs[:2], node.outputs[:1],
               tuple((k, v) for k, v in node.attrs if k in ("axis", "epsilon", "stash_type")))
    return lookup("RMSNormalization").reference(rms, list(inputs[:2]), 23)


def _infer_simplified_norm(pn, in_types, consts) -> list:
    """Y of X's type; inv_std_var float with the normalised axes of extent 1."""
    x = in_types[0]
    axis = int(ProtoNode(pn).attr("axis", -1)) % x.rank
    inv = TensorType(DType.float32, x.shape[:axis] + (1,) * (x.rank - axis))
    return [x, inv][:len(pn.output)]


@register("SimplifiedLayerNormalization", reference=_ref_simplified_norm, infer=_infer_simplified_norm)
def lower_simplified_norm(ctx: LowerCtx) -> None:
    """RMSNormalization by another name: X / sqrt(mean(X^2 over the axes from `axis`) + epsilon) *
    scale. The inverse standard deviation output (training) is refused."""
    if ctx.node.has_output(1):
        raise ctx.unsupported("output 1 (inv_std_var, for training) is not supported")
    attrs = [(k, v) for k, v in ctx.node.attrs if k in ("axis", "epsilon", "stash_type")]
    ctx.lower_as("RMSNormalization", (0, 1), ctx.out_types[0], attrs, out=ctx.out_name(0), opset=23)


ORT_ONNX_DOMAIN_OPS = ("SimplifiedLayerNormalization",)    # ops onnxruntime adds to the ONNX domain

__all__ = ["MS", "ORT_ONNX_DOMAIN_OPS", "ProtoNode"]
