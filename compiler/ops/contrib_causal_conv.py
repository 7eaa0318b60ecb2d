"""onnxruntime's com.microsoft CausalConvWithState: a stateful causal depthwise 1-D convolution, the
short convolution of hybrid LLMs (LFM2's conv layers; Mamba's and Gated DeltaNet's
preprocessing) as onnxruntime-genai's model builder writes them, with the meaning of onnxruntime's
CPU kernel.

Per channel c the padded sequence is the past state (state_length L = (k - 1) * dilation
positions; zeros without one) followed by the input's S positions. Output position t is
act(bias[c] + sum over i < k of weight[c, 0, i] * padded[t + i * dilation]), act SiLU (`silu`,
`swish`) or none; the present state is the padded sequence's last L positions. Both outputs are
one tensor expression each (a reduction over the k taps, and a map), so fusion joins them with
their neighbours like any convolution's.

The layouts and modes onnxruntime's CUDA kernel alone has (channels_last, state_window,
state_length, input_channels, input_channel_offset, state_update_capacity, state_channels_last)
and ndim other than 1 are refused by name."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Reduce, TensorExpr, Var, cast, const, load, out_vars, reduce_vars, select, binary, unary
from .contrib import MS, ProtoNode
from .movement import text
from .reduce import math_dtype
from .registry import LowerCtx, register

_X, _W, _BIAS, _PAST = range(4)
ACTIVATIONS = ("none", "silu", "swish")
# attribute -> the value onnxruntime's CPU kernel (and this lowering) needs
_CPU_ONLY = {"ndim": 1, "channels_last": 0, "state_window": 0, "state_length": 0, "input_channels": 0,
             "input_channel_offset": 0, "state_update_capacity": 0, "state_channels_last": -1}


def _geometry(attr, x_shape, w_shape) -> tuple[int, int, int, str]:
    """(channels, taps k, dilation, activation), or ValueError naming what is not supported."""
    for name, want in _CPU_ONLY.items():
        got = attr(name, want)
        if got is not None and int(got) != want:
            raise ValueError(f"attribute {name}={got} is not supported (only {name}={want})")
    act = text(attr("activation", "none") or "none")
    if act not in ACTIVATIONS:
        raise ValueError(f"activation '{act}' is not one of {', '.join(ACTIVATIONS)}")
    dilation = int(attr("dilation", 1) or 1)
    if dilation < 1:
        raise ValueError(f"dilation {dilation} is not at least 1")
    if len(x_shape) != 3:
        raise ValueError(f"input {tuple(x_shape)} is not (batch, channels, length)")
    C = x_shape[1]
    if len(w_shape) != 3 or w_shape[0] != C or w_shape[1] != 1 or w_shape[2] < 1:
        raise ValueError(f"weight {tuple(w_shape)} is not (channels {C}, 1, k)")
    return C, w_shape[2], dilation, act


def _infer(pn, in_types, consts) -> list:
    x, w = in_types[_X], in_types[_W]
    try:
        C, k, dil, _ = _geometry(ProtoNode(pn).attr, x.shape, w.shape)
    except ValueError as e:
        raise ShapeError(f"com.microsoft CausalConvWithState: {e}", node=pn.name) from None
    outs = [x, TensorType(x.dtype, (x.shape[0], C, (k - 1) * dil))]
    return [t if o else None for t, o in zip(outs, pn.output)]


def _ref(node, inputs, opset):
    ins = list(inputs) + [None] * 4
    x, w, bias, past = ins[:4]
    C, k, dil, act = _geometry(node.attr, x.shape, w.shape)
    L, S = (k - 1) * dil, x.shape[2]
    ct = np.float64 if x.dtype == np.float64 else np.float32
    state = np.zeros((x.shape[0], C, L), ct) if past is None else past.astype(ct)
    padded = np.concatenate([state, x.astype(ct)], axis=2)
    y = sum(w[:, 0, i].astype(ct)[None, :, None] * padded[:, :, i * dil:i * dil + S] for i in range(k))
    if bias is not None:
        y = y + bias.astype(ct)[None, :, None]
    if act != "none":
        y = y / (1 + np.exp(-y))
    return [y.astype(x.dtype), padded[:, :, S:].astype(x.dtype)][:len(node.outputs)]


@register("CausalConvWithState", reference=_ref, domain=MS, infer=_infer)
def lower_causal_conv_with_state(ctx: LowerCtx) -> None:
    xt, wt = ctx.input(_X), ctx.input(_W)
    if not xt.dtype.is_float:
        raise ctx.unsupported(f"CausalConvWithState on {xt.dtype.name}")
    try:
        C, k, dil, act = _geometry(ctx.attr, xt.shape, wt.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e), feature=True) from None
    B, S, L = xt.shape[0], xt.shape[2], (k - 1) * dil
    past = ctx.has_input(_PAST)
    if past and ctx.input(_PAST).shape != (B, C, L):
        raise ctx.unsupported(f"past_state {ctx.input(_PAST).shape} is not (batch, channels, (k - 1) * dilation) = "
                              f"{(B, C, L)}")
    if ctx.has_input(_BIAS) and ctx.input(_BIAS).shape != (C,):
        raise ctx.unsupported(f"bias {ctx.input(_BIAS).shape} is not (channels,) = ({C},)")
    acc = math_dtype(xt.dtype)
    names, types = [ctx.in_name(_X), ctx.in_name(_W)], [xt, wt]
    if past:
        names.append(ctx.in_name(_PAST))
        types.append(ctx.input(_PAST))

    def padded(b, c, p):
        """Position p of channel c's padded sequence: the past state's, then the input's."""
        xs = cast(load(0, xt, (b, c, p - L)), acc)
        if not L:
            return xs
        before = cast(load(2, types[2], (b, c, p)), acc) if past else const(0.0, acc)
        return select(binary("lt", p, L), before, xs)

    b, c, t = out_vars(3)
    (r,) = reduce_vars(1)
    body = cast(load(1, wt, (c, const(0, DType.int64), r)), acc) * padded(b, c, t + r * dil)
    y = Var("acc", acc)
    if ctx.has_input(_BIAS):
        names.append(ctx.in_name(_BIAS))
        types.append(ctx.input(_BIAS))
        y = y + cast(load(len(types) - 1, ctx.input(_BIAS), (c,)), acc)
    if act != "none":
        y = y * unary("sigmoid", y)
    ctx.emit(TensorExpr("causal_conv", tuple(types), ctx.out_types[0], body, Reduce("sum", (("r0", k),)),
                        cast(y, xt.dtype)), names, ctx.out_name(0))
    if ctx.node.has_output(1) and L:
        st = ctx.out_types[1]
        b, c, j = out_vars(3)
        state_names, state_types = [ctx.in_name(_X)], [xt]
        if past:
            state_names.append(ctx.in_name(_PAST))
            state_types.append(ctx.input(_PAST))
        p = j + S                                   # the state's slot j is padded position S + j
        xs = load(0, xt, (b, c, p - L))
        keep = load(1, ctx.input(_PAST), (b, c, p)) if past else const(0.0, xt.dtype)
        ctx.emit(TensorExpr("causal_conv_state", tuple(state_types), st, select(binary("lt", p, L), keep, xs)),
                 state_names, ctx.out_name(1))
