"""onnxruntime's com.microsoft MoE: a mixture of experts, as onnxruntime-genai's model builder writes
it for LFM2-MoE and gpt-oss, with the meaning of onnxruntime's CPU kernel.

Per token (a row of the input, 2-D packed or 3-D) the router's logits pick the k experts of the
largest softmax probability (ties to the lower expert). Their weights are those probabilities, or
with normalize_routing_weights the probabilities renormalised over the k (the softmax of the k
logits). Each picked expert runs its FFN: FC1 (+ bias), the activation, FC2 (+ bias). The token's
output is the weighted sum of the k results. Activations: relu, gelu (tanh approximation, as
onnxruntime's CPU kernel computes it), silu, identity, and swiglu:
G * sigmoid(alpha * G) * (L + beta), with G = min(g, limit) and L = clamp(l, -limit, limit) where
swiglu_limit is given, g and l from FC1's rows interleaved (swiglu_fusion=1), concatenated (2), or
g from FC1 and l from FC3 (0).

The lowering is tensor expressions: the top-k indices (ops/reduce.py emit_topk_indices), the
routing weights, then each FC a reduction whose weight rows are gathered at the token's expert
index, so a token reads only its k experts' weights (a decoder step reads k/num_experts of them),
and the weighted sum. At a prompt the pairs may first be sorted by expert into groups
(moe_groups.py), so each FC is a batched GEMM whose weight tile serves every token of a group; the
micro-model picks the faster way. use_sparse_mixer, swiglu_limit_after_activation and the
CUDA-only activations (geglu, relu2) are refused by name."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Reduce, TensorExpr, Var, cast, const, load, maximum, minimum, out_vars, reduce_vars, unary
from .contrib import MS, ProtoNode
from .contrib_attention import ExprArgs
from .contrib_quant import packed_field, unpack_bits
from .moe_groups import SORTS, Rows, group_rows, grouped_rows, pair_rows
from .movement import text
from .reduce import emit_topk_indices, math_dtype
from .registry import LowerCtx, register

_X, _ROUTER = 0, 1
ACTIVATIONS = ("relu", "gelu", "silu", "swiglu", "identity")


@dataclass(frozen=True)
class FcInputs:
    """Where one expert FC's inputs are in the node: weights, bias and, for QMoE, scales and zero
    points (-1: the op has no such input)."""

    weights: int
    bias: int
    scales: int = -1
    zero_points: int = -1


# MoE: input, router_probs, fc1 weights, bias, fc2 weights, bias, fc3 weights, bias
MOE_FCS = (FcInputs(2, 3), FcInputs(4, 5), FcInputs(6, 7))
# QMoE: input, router_probs, then per FC weights, scales, bias (fc1 2-4, fc2 5-7, fc3 8-10), zero points 11-13
QMOE_FCS = (FcInputs(2, 4, 3, 11), FcInputs(5, 7, 6, 12), FcInputs(8, 10, 9, 13))


class MoeShape:
    """The static sizes and options of one MoE node, or ValueError naming what is not supported."""

    def __init__(self, attr, shapes: list, fcs: tuple[FcInputs, ...] = MOE_FCS, bits: int = 0):
        shapes = list(shapes) + [None] * 16
        x, router = shapes[_X], shapes[_ROUTER]
        w1, w2, w3 = (_logical(shapes[fc.weights], bits) for fc in fcs)
        self.act = text(attr("activation_type", "relu") or "relu")
        if self.act not in ACTIVATIONS:
            raise ValueError(f"activation_type '{self.act}' is not one of {', '.join(ACTIVATIONS)}")
        for name in ("use_sparse_mixer", "swiglu_limit_after_activation"):
            if int(attr(name, 0) or 0):
                raise ValueError(f"attribute {name}={attr(name)} is not supported")
        self.k = int(attr("k", 1))
        self.normalize = bool(int(attr("normalize_routing_weights", 0) or 0))
        self.fusion = int(attr("swiglu_fusion", 0) or 0) if self.act == "swiglu" else 0
        if self.fusion not in (0, 1, 2):
            raise ValueError(f"swiglu_fusion {self.fusion} is not 0, 1 or 2")
        self.alpha = float(attr("activation_alpha", 1.0))
        self.beta = float(attr("activation_beta", 0.0))
        limit = attr("swiglu_limit", None)
        self.limit = None if limit is None else float(limit)
        if x is None or len(x) not in (2, 3):
            raise ValueError(f"input {x} is not (tokens, hidden) or (batch, sequence, hidden)")
        self.tokens, self.hidden = math.prod(x[:-1]), x[-1]
        if router is None or len(router) != 2 or router[0] != self.tokens:
            raise ValueError(f"router_probs {router} is not (tokens {self.tokens}, experts)")
        self.experts = router[1]
        if not 1 <= self.k <= self.experts:
            raise ValueError(f"k {self.k} is not between 1 and the {self.experts} experts")
        if w2 is None or len(w2) != 3 or tuple(w2[:2]) != (self.experts, self.hidden):
            raise ValueError(f"fc2_experts_weights {w2} is not (experts {self.experts}, hidden {self.hidden}, inter)")
        self.inter = w2[2]
        self.gated_fc1 = self.act == "swiglu" and self.fusion in (1, 2)
        rows = (2 if self.gated_fc1 else 1) * self.inter
        if w1 is None or tuple(w1) != (self.experts, rows, self.hidden):
            raise ValueError(f"fc1_experts_weights {w1} is not (experts, {rows}, hidden) = "
                             f"{(self.experts, rows, self.hidden)}")
        self.fc3 = self.act == "swiglu" and self.fusion == 0
        if self.fc3 != (w3 is not None):
            raise ValueError("fc3_experts_weights are needed by swiglu_fusion=0 and by nothing else")
        if w3 is not None and tuple(w3) != (self.experts, self.inter, self.hidden):
            raise ValueError(f"fc3_experts_weights {w3} is not {(self.experts, self.inter, self.hidden)}")


def _logical(shape, bits: int):
    """A weight's (experts, rows, columns): a QMoE weight's last axis packs 8 / bits columns a byte."""
    if shape is None or not bits:
        return shape
    return (*shape[:-1], shape[-1] * 8 // bits)


def _shapes(types) -> list:
    return [None if t is None else tuple(t.shape) for t in (list(types) + [None] * 16)[:16]]


def _infer(pn, in_types, consts) -> list:
    attr = ProtoNode(pn).attr
    try:
        if pn.op_type == "QMoE":
            MoeShape(attr, _shapes(in_types), QMOE_FCS, _quant_bits(attr))
        else:
            MoeShape(attr, _shapes(in_types))
    except ValueError as e:
        raise ShapeError(f"com.microsoft {pn.op_type}: {e}", node=pn.name) from None
    return [in_types[_X]]


# QMoE's inputs past the three FCs': router_weights, global scales, activation scales (FP4/FP8 modes)
_QMOE_REFUSED_INPUTS = {14: "router_weights", 15: "fc1_global_scale", 16: "fc2_global_scale", 17: "fc1_act_scale",
                        18: "fc2_act_scale", 19: "fc1_act_block_scale", 20: "fc2_act_block_scale"}


def _quant_bits(attr) -> int:
    """QMoE's weight bits, or ValueError for what is not supported: integer 2-, 4- or 8-bit weights (per
    row or in blocks, zero points optional), not prepacked."""
    if text(attr("quant_type", "int") or "int") != "int":
        raise ValueError(f"quant_type '{text(attr('quant_type'))}' is not supported (only 'int')")
    bits = int(attr("expert_weight_bits", 4))
    for name in ("fc1_expert_weight_bits", "fc2_expert_weight_bits", "fc3_expert_weight_bits"):
        if attr(name, None) is not None and int(attr(name)) != bits:
            raise ValueError(f"attribute {name}={attr(name)} differing from expert_weight_bits is not supported")
    if bits not in (2, 4, 8):
        raise ValueError(f"expert_weight_bits={bits} is not supported (only 2, 4 and 8)")
    if int(attr("weights_prepacked", 0) or 0):
        raise ValueError(f"attribute weights_prepacked={attr('weights_prepacked')} is not supported")
    return bits


def _gelu_tanh_np(h):
    return 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))


def _activate_np(sh: MoeShape, h, h3):
    if sh.act == "swiglu":
        g, l_ = {1: (h[..., 0::2], h[..., 1::2]), 2: (h[..., :sh.inter], h[..., sh.inter:])}.get(sh.fusion, (h, h3))
        if sh.limit is not None:
            g, l_ = np.minimum(g, sh.limit), np.clip(l_, -sh.limit, sh.limit)
        return g / (1 + np.exp(-sh.alpha * g)) * (l_ + sh.beta)
    return {"relu": lambda: np.maximum(h, 0), "gelu": lambda: _gelu_tanh_np(h), "silu": lambda: h / (1 + np.exp(-h)),
            "identity": lambda: h}[sh.act]()


def _dequantized_np(packed, scales, zero_points, bits: int, block: int) -> np.ndarray:
    """A QMoE weight (experts, rows, columns): (q - zero point) * scale, with scales (E, rows) per
    row or (E, rows, groups) per block of `block` columns; zero points packed like the values, 2^(bits-1)
    where absent."""
    E, rows, _ = packed.shape
    cols = packed.shape[2] * 8 // bits
    q = unpack_bits(packed, bits, cols).astype(np.float64)
    groups = scales.shape[2] if scales.ndim == 3 else 1
    if zero_points is None:
        z = np.full((E, rows, groups), float(1 << (bits - 1)))
    elif scales.ndim == 3:        # per block: each row's group zero points packed in its row
        z = unpack_bits(zero_points, bits, groups).astype(np.float64)
    else:                         # per row: an expert's rows' zero points packed in one row
        z = unpack_bits(zero_points, bits, rows).astype(np.float64).reshape(E, rows, 1)
    span = block if scales.ndim == 3 else cols

    def spread(a):
        return np.repeat(a, span, axis=2)[..., :cols]
    return (q - spread(z)) * spread(scales.astype(np.float64).reshape(E, rows, groups))


def _ref_qmoe(node, inputs, opset):
    ins = (list(inputs) + [None] * 16)[:16]
    bits, block = _quant_bits(node.attr), int(node.attr("block_size", 0) or 0)
    plain = [ins[_X], ins[_ROUTER]]
    for fc in QMOE_FCS:
        w = ins[fc.weights]
        plain += [None if w is None else _dequantized_np(w, ins[fc.scales], ins[fc.zero_points], bits, block)
                  .astype(ins[_X].dtype), ins[fc.bias]]
    return _ref(node, plain, opset)


def _ref(node, inputs, opset):
    ins = (list(inputs) + [None] * 8)[:8]
    sh = MoeShape(node.attr, [None if a is None else a.shape for a in ins])
    x, router = ins[_X], ins[_ROUTER]
    ct = np.float64 if x.dtype == np.float64 else np.float32
    xx, r = x.reshape(sh.tokens, sh.hidden).astype(ct), router.astype(ct)
    p = np.exp(r - r.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    idx = np.argsort(-p, axis=-1, kind="stable")[:, :sh.k]
    w = np.take_along_axis(p, idx, -1)
    if sh.normalize:
        w = w / w.sum(-1, keepdims=True)
    out = np.zeros_like(xx)

    def fc(weights, bias, e, v):
        return v @ weights[e].astype(ct).T + (0 if bias is None else bias[e].astype(ct))
    for e in range(sh.experts):            # each expert over the tokens that picked it (once each)
        t, j = np.nonzero(idx == e)
        if not len(t):
            continue
        h = fc(ins[2], ins[3], e, xx[t])
        h3 = fc(ins[6], ins[7], e, xx[t]) if sh.fc3 else None
        out[t] += w[t, j][:, None] * fc(ins[4], ins[5], e, _activate_np(sh, h, h3))
    return [out.reshape(x.shape).astype(x.dtype)]


@register("MoE", reference=_ref, domain=MS, infer=_infer)
def lower_moe(ctx: LowerCtx) -> None:
    _lower(ctx, quantized=False)


@register("QMoE", reference=_ref_qmoe, domain=MS, infer=_infer)
def lower_qmoe(ctx: LowerCtx) -> None:
    _lower(ctx, quantized=True)


def _lower(ctx: LowerCtx, quantized: bool) -> None:
    xt = ctx.input(_X)
    if not xt.dtype.is_float:
        raise ctx.unsupported(f"{ctx.node.op} on {xt.dtype.name}")
    shapes = _shapes([ctx.input(i) if ctx.has_input(i) else None for i in range(16)])
    try:
        if quantized:
            for i, what in _QMOE_REFUSED_INPUTS.items():
                if ctx.has_input(i):
                    raise ValueError(f"input {i} ({what}) is not supported")
            bits, block = _quant_bits(ctx.attr), int(ctx.attr("block_size", 0) or 0)
            sh = MoeShape(ctx.attr, shapes, QMOE_FCS, bits)
            for fc_at in QMOE_FCS:
                if ctx.has_input(fc_at.weights) and not ctx.has_input(fc_at.scales):
                    raise ValueError(f"input {fc_at.weights} has no scales (input {fc_at.scales})")
                if block and ctx.has_input(fc_at.scales) and ctx.input(fc_at.scales).rank != 3:
                    raise ValueError(f"block_size {block} with scales of shape {ctx.input(fc_at.scales).shape}")
        else:
            bits, block = 0, 0
            sh = MoeShape(ctx.attr, shapes)
    except ValueError as e:
        raise ctx.unsupported(str(e), feature=True) from None
    T, H, I, E, K = sh.tokens, sh.hidden, sh.inter, sh.experts, sh.k
    acc = math_dtype(xt.dtype)
    x2 = TensorType(xt.dtype, (T, H))
    xn = ctx.temp(x2, "tokens")
    ctx.alias(xn, ctx.in_name(_X))
    rt = ctx.input(_ROUTER)

    # 1) each token's k experts, and their routing weights from the router's logits
    idx_t = TensorType(DType.int64, (T, K))
    idx = ctx.temp(idx_t, "experts")
    emit_topk_indices(ctx, (ctx.in_name(_ROUTER), rt), (idx, idx_t), axis=1, largest=True)
    row_t = TensorType(acc, (T,))
    rmax = ctx.temp(row_t, "router_max")
    t, = out_vars(1)
    (r,) = reduce_vars(1)
    ctx.emit(TensorExpr("router_max", (rt,), row_t, cast(load(0, rt, (t, r)), acc), Reduce("max", (("r0", E),))),
             [ctx.in_name(_ROUTER)], rmax)
    den = ctx.temp(row_t, "router_sum")
    if sh.normalize:     # over the k picked: the softmax of their logits
        logit = cast(load(0, rt, (t, load(2, idx_t, (t, r)))), acc)
        ctx.emit(TensorExpr("router_sum", (rt, row_t, idx_t), row_t, unary("exp", logit - load(1, row_t, (t,))),
                            Reduce("sum", (("r0", K),))), [ctx.in_name(_ROUTER), rmax, idx], den)
    else:                # over every expert: the softmax's probabilities
        ctx.emit(TensorExpr("router_sum", (rt, row_t), row_t,
                            unary("exp", cast(load(0, rt, (t, r)), acc) - load(1, row_t, (t,))),
                            Reduce("sum", (("r0", E),))), [ctx.in_name(_ROUTER), rmax], den)
    w_t = TensorType(acc, (T, K))
    weights = ctx.temp(w_t, "routing_weights")
    t, j = out_vars(2)
    ctx.emit(TensorExpr("routing_weights", (rt, row_t, row_t, idx_t), w_t,
                        unary("exp", cast(load(0, rt, (t, load(3, idx_t, (t, j)))), acc) - load(1, row_t, (t,)))
                        / load(2, row_t, (t,))), [ctx.in_name(_ROUTER), rmax, den, idx], weights)

    # 2)-4) the experts' FCs and the weighted sums over `rows`: each pair (t, j) its own
    # matrix-vector product, or the pairs sorted by expert into groups (moe_groups.py)
    def experts(rows: Rows) -> None:
        A, B = rows.shape

        def fc(at: FcInputs, src: tuple[str, TensorType], width: int, hint: str) -> tuple[str, TensorType]:
            """(A, B, width): sum over the source's last axis of src[row's token, c] (a (tokens, c) source)
            or src[a, b, c] times W[row's expert, n, c], + b[expert, n]."""
            name, st = src
            out_t = TensorType(acc, (A, B, width))
            a, b, n = out_vars(3)
            (c,) = reduce_vars(1)
            args = ExprArgs()
            e = rows.expert(args, a, b)
            v = load(args.arg(name, st), st, (rows.token(args, a, b), c) if st.rank == 2 else (a, b, c))
            body = cast(v, acc) * weight(at, args, e, n, c)
            epi = Var("acc", acc)
            if ctx.has_input(at.bias):
                bt = ctx.input(at.bias)
                epi = epi + cast(load(args.arg(ctx.in_name(at.bias), bt), bt, (e, n)), acc)
            dst = ctx.temp(out_t, hint)
            ctx.emit(TensorExpr(hint, tuple(args.types), out_t, body, Reduce("sum", (("r0", st.shape[-1]),)), epi),
                     args.names, dst)
            return dst, out_t

        def weight(at: FcInputs, args: ExprArgs, e, n, c):
            """Expert e's weight at (n, c) in the math type: loaded, or a QMoE's 2-, 4- or 8-bit value unpacked
            and dequantized, (q - zero point) * scale, its block's (or its row's)."""
            wt = ctx.input(at.weights)
            w_arg = args.arg(ctx.in_name(at.weights), wt)
            if not bits:
                return cast(load(w_arg, wt, (e, n, c)), acc)
            q = cast(packed_field(load(w_arg, wt, (e, n, c * bits // 8)), c, bits), acc)
            st = ctx.input(at.scales)
            group = (c // block,) if st.rank == 3 else ()
            scale = cast(load(args.arg(ctx.in_name(at.scales), st), st, (e, n, *group)), acc)
            if ctx.has_input(at.zero_points):
                zt = ctx.input(at.zero_points)
                z_arg = args.arg(ctx.in_name(at.zero_points), zt)
                pos = c // block if st.rank == 3 else n          # the zero point's place in its packed row
                zb = load(z_arg, zt, (e, n, pos * bits // 8) if zt.rank == 3 else (e, pos * bits // 8))
                zero = cast(packed_field(zb, pos, bits), acc)
            else:
                zero = const(float(1 << (bits - 1)), acc)
            return (q - zero) * scale
        fcs = QMOE_FCS if bits else MOE_FCS
        h1 = fc(fcs[0], (xn, x2), (2 if sh.gated_fc1 else 1) * I, "expert_fc1")
        h3 = fc(fcs[2], (xn, x2), I, "expert_fc3") if sh.fc3 else None

        # 3) the activation, (A, B, I)
        a_t = TensorType(acc, (A, B, I))
        t, j, i = out_vars(3)
        args, names = [h1[1]], [h1[0]]
        if sh.act == "swiglu":
            if sh.fusion == 1:
                g, lin = load(0, h1[1], (t, j, i * 2)), load(0, h1[1], (t, j, i * 2 + 1))
            elif sh.fusion == 2:
                g, lin = load(0, h1[1], (t, j, i)), load(0, h1[1], (t, j, i + I))
            else:
                args.append(h3[1])
                names.append(h3[0])
                g, lin = load(0, h1[1], (t, j, i)), load(1, h3[1], (t, j, i))
            if sh.limit is not None:
                g = minimum(g, const(sh.limit, acc))
                lin = maximum(minimum(lin, const(sh.limit, acc)), const(-sh.limit, acc))
            body = g * unary("sigmoid", g * sh.alpha) * (lin + sh.beta)
        else:
            h = load(0, h1[1], (t, j, i))
            body = {"relu": lambda: maximum(h, const(0.0, acc)),
                    "gelu": lambda: h * 0.5 * (unary("tanh", (h + h * h * h * 0.044715) * math.sqrt(2 / math.pi))
                                               + 1.0),
                    "silu": lambda: h * unary("sigmoid", h), "identity": lambda: h}[sh.act]()
        act = ctx.temp(a_t, "expert_act")
        ctx.emit(TensorExpr("expert_activation", tuple(args), a_t, body), names, act)

        # 4) FC2, then the tokens' weighted sums over their experts
        y2 = fc(fcs[1], (act, a_t), H, "expert_fc2")
        out2 = TensorType(xt.dtype, (T, H))
        summed = ctx.temp(out2, "moe_out")
        t, n = out_vars(2)
        (r,) = reduce_vars(1)
        args = ExprArgs()
        wa = args.arg(weights, w_t)
        ya = args.arg(*y2)
        ra, rb = rows.at(args, t, r)
        ctx.emit(TensorExpr("expert_sum", tuple(args.types), out2, load(wa, w_t, (t, r)) * load(ya, y2[1], (ra, rb, n)),
                            Reduce("sum", (("r0", K),)), cast(Var("acc", acc), xt.dtype)), args.names, summed)
        ctx.alias(ctx.out_name(0), summed)

    # where the experts get enough pairs, whichever way the micro-model prices fastest
    R = group_rows(T, K, E) if ctx.enabled("grouped_experts") else None
    ways = {"pairs": lambda: experts(pair_rows(idx, idx_t))}
    if R is not None:
        for sort in SORTS:
            ways[f"grouped ({sort} sort)"] = lambda sort=sort: experts(grouped_rows(ctx, idx, idx_t, E, R, sort))
    ctx.cheapest(ways)
