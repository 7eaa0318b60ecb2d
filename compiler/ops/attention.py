"""Attention (opset 23) and RotaryEmbedding (opset 23).

Attention is lowered as tensor expressions: the KV-cache concatenation (present_key/value), the
scaled scores Q·K^T with softcap and the additive bias (mask, causal frontier) in the epilogue,
then a numerically safe softmax over the key axis as a row max and a row sum of exponentials,
and finally P·V with the normalisation folded into the epilogue. GQA maps query head h to key/value
head h // (q_heads / kv_heads)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import (Reduce, TensorExpr, Var, binary, cast, const, load, out_vars, reduce_vars,
                        select, unary)
from .registry import LowerCtx, register

_MASK, _PAST_K, _PAST_V, _NONPAD = 3, 4, 5, 6


@dataclass(frozen=True)
class AttentionShape:
    """Sizes of one Attention node after 3-D inputs are read as (batch, heads, seq, head_size)."""

    batch: int
    q_heads: int
    kv_heads: int
    q_len: int
    kv_len: int       # new keys only
    past_len: int
    qk_size: int
    v_size: int
    rank: int         # 3 or 4, of Q/K/V and Y

    @property
    def total_len(self) -> int:
        return self.past_len + self.kv_len

    @property
    def group(self) -> int:
        return self.q_heads // self.kv_heads


def attention_shape(node, q_shape, k_shape, v_shape, past_shape) -> AttentionShape:
    """Reads head counts and sizes from the inputs (and q/kv_num_heads for 3-D inputs)."""
    rank = len(q_shape)
    if rank == 4:
        b, hq, sq, dqk = q_shape
        hkv, skv, dv = k_shape[1], k_shape[2], v_shape[3]
    elif rank == 3:
        hq, hkv = node.attr("q_num_heads"), node.attr("kv_num_heads")
        if not hq or not hkv:
            raise ValueError("3-D Attention needs q_num_heads and kv_num_heads")
        b, sq = q_shape[0], q_shape[1]
        dqk, skv, dv = q_shape[2] // hq, k_shape[1], v_shape[2] // hkv
    else:
        raise ValueError(f"Attention on rank-{rank} inputs")
    if hq % hkv:
        raise ValueError(f"q heads {hq} not a multiple of kv heads {hkv}")
    past = past_shape[2] if past_shape is not None else 0
    return AttentionShape(int(b), int(hq), int(hkv), int(sq), int(skv), int(past), int(dqk), int(dv), rank)


def _to_4d(x: np.ndarray, heads: int) -> np.ndarray:
    return x if x.ndim == 4 else x.reshape(x.shape[0], x.shape[1], heads, -1).transpose(0, 2, 1, 3)


def attention_bias(mask, *, causal: bool, left: int, right: int, q_len: int, total: int, offset,
                   nonpad, dtype) -> np.ndarray:
    """The additive bias (.., q_len, total): the mask (padded with -inf to `total` keys), then -inf
    wherever the causal frontier j <= i + offset, the sliding window or the key padding forbid.
    `offset` is the past length, or per batch nonpad_kv_seqlen - q_len for an external cache."""
    bias = np.zeros((q_len, total), dtype)
    if mask is not None:
        if mask.dtype == np.bool_:
            mask = np.where(mask, dtype(0), dtype(-np.inf))
        pad = total - mask.shape[-1]
        if pad > 0:
            mask = np.concatenate([mask, np.full(mask.shape[:-1] + (pad,), -np.inf, mask.dtype)], -1)
        bias = bias + mask.astype(dtype)
    off = np.asarray(offset).reshape(-1, 1, 1, 1) if np.ndim(offset) else int(offset)
    diff = np.arange(q_len)[:, None] + off - np.arange(total)[None, :]
    allowed = np.ones(np.shape(diff), bool)
    if causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    if nonpad is not None:
        allowed = allowed & (np.arange(total) < nonpad.reshape(-1, 1, 1, 1))
    return bias + np.where(allowed, dtype(0), dtype(-np.inf))


def _ref_attention(node, inputs, opset):
    inputs = list(inputs) + [None] * (7 - len(inputs))
    Q, K, V, mask, past_k, past_v, nonpad = inputs[:7]
    sh = attention_shape(node, Q.shape, K.shape, V.shape, None if past_k is None else past_k.shape)
    ct = np.float64 if Q.dtype == np.float64 else np.float32
    q, k, v = _to_4d(Q, sh.q_heads), _to_4d(K, sh.kv_heads), _to_4d(V, sh.kv_heads)
    if past_k is not None:
        k = np.concatenate([past_k, k], axis=2)
        v = np.concatenate([past_v, v], axis=2)
    present_k, present_v = k, v
    scale = node.attr("scale")
    scale = 1 / math.sqrt(sh.qk_size) if scale is None else float(scale)
    root = float(Q.dtype.type(math.sqrt(scale)))      # Q and K are each scaled by sqrt(scale)
    kk = np.repeat(k, sh.group, axis=1).astype(ct)
    vv = np.repeat(v, sh.group, axis=1).astype(ct)
    raw = (q.astype(ct) * root) @ (kk * root).transpose(0, 1, 3, 2)
    cap = float(node.attr("softcap", 0.0) or 0.0)
    capped = np.tanh(raw / cap) * cap if cap > 0 else raw
    offset = nonpad.astype(np.int64) - sh.q_len if nonpad is not None and past_k is None else sh.past_len
    bias = attention_bias(mask, causal=bool(node.attr("is_causal", 0)), left=int(node.attr("left_window_size", -1)),
                          right=int(node.attr("right_window_size", -1)), q_len=sh.q_len, total=sh.total_len,
                          offset=offset, nonpad=nonpad, dtype=ct)
    scores = capped + bias
    m = scores.max(-1, keepdims=True)
    e = np.exp(scores - np.where(np.isneginf(m), 0, m))
    s = e.sum(-1, keepdims=True)
    probs = np.where(s == 0, 0, e / np.where(s == 0, 1, s))
    y = probs @ vv
    if sh.rank == 3:
        y = y.transpose(0, 2, 1, 3).reshape(sh.batch, sh.q_len, -1)
    mode = int(node.attr("qk_matmul_output_mode", 0))
    qk = {0: raw, 1: capped, 2: scores, 3: probs}[mode]
    dt = Q.dtype
    outs = [y.astype(dt), present_k.astype(dt), present_v.astype(dt),
            np.broadcast_to(qk, (sh.batch, sh.q_heads, sh.q_len, sh.total_len)).astype(dt)]
    return outs[:len(node.outputs)]


def _idx(rank: int, b, h, s, dd, size: int):
    """Index of (batch, head, seq, dim) in a 4-D tensor or a 3-D (batch, seq, heads*size) one."""
    return (b, h, s, dd) if rank == 4 else (b, s, h * size + dd)


@register("Attention", reference=_ref_attention)
def lower_attention(ctx: LowerCtx) -> None:
    """Attention as KV concat, scores (+softcap, mask, causal), row max, row sum, P·V."""
    Q, K, V = ctx.input(0), ctx.input(1), ctx.input(2)
    if not Q.dtype.is_float:
        raise ctx.unsupported(f"Attention on {Q.dtype.name}")
    if ctx.has_input(_PAST_K) != ctx.has_input(_PAST_V):
        raise ctx.unsupported("past_key and past_value must be given together")
    try:
        sh = attention_shape(ctx.node, Q.shape, K.shape, V.shape,
                             ctx.input(_PAST_K).shape if ctx.has_input(_PAST_K) else None)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    acc = DType.float64 if Q.dtype is DType.float64 else DType.float32
    B, Hq, Sq, T = sh.batch, sh.q_heads, sh.q_len, sh.total_len

    # 1) present key/value: past ++ new along the sequence axis, always 4-D
    def kv_source(new: int, past: int, out: int, size: int):
        t_new = ctx.input(new)
        if not ctx.has_input(past) and not ctx.node.has_output(out):
            return ctx.in_name(new), t_new, sh.rank          # read K/V where they are
        pt = TensorType(t_new.dtype, (B, sh.kv_heads, T, size))
        name = ctx.out_name(out) if ctx.node.has_output(out) else ctx.temp(pt, f"present{out}")
        b, h, s, dd = out_vars(4)
        fresh = load(0, t_new, _idx(sh.rank, b, h, s - sh.past_len, dd, size))
        if ctx.has_input(past):
            body = select(s < sh.past_len, load(1, ctx.input(past), (b, h, s, dd)), fresh)
            ins, names = (t_new, ctx.input(past)), [ctx.in_name(new), ctx.in_name(past)]
        else:
            body, ins, names = fresh, (t_new,), [ctx.in_name(new)]
        ctx.emit(TensorExpr("attention_present", ins, pt, body), names, name)
        return name, pt, 4

    k_name, k_t, k_rank = kv_source(1, _PAST_K, 1, sh.qk_size)
    v_name, v_t, v_rank = kv_source(2, _PAST_V, 2, sh.v_size)

    # 2) scores[b, h, i, j] = softcap(q.k * scale) + bias
    scale = ctx.attr("scale")
    scale = 1 / math.sqrt(sh.qk_size) if scale is None else float(scale)
    root = float(Q.dtype.np.type(math.sqrt(scale))) if Q.dtype is not DType.bfloat16 else math.sqrt(scale)
    cap = float(ctx.attr("softcap", 0.0) or 0.0)
    mask_t = ctx.input(_MASK) if ctx.has_input(_MASK) else None
    causal = bool(ctx.attr("is_causal", 0))
    st_t = TensorType(acc, (B, Hq, Sq, T))
    b, h, i, j = out_vars(4)
    (r,) = reduce_vars(1)
    qv = load(0, Q, _idx(sh.rank, b, h, i, r, sh.qk_size))
    kv = load(1, k_t, _idx(k_rank, b, h // sh.group, j, r, sh.qk_size))
    # the spec scales Q and K each by sqrt(scale) (its root rounded to Q's type, as the reference
    # does); the product of the unscaled operands times root^2 is the same in the fp32 accumulator
    # and costs one multiply a score instead of two a product
    dot = qv * kv
    a = Var("acc", acc) * (root * root)
    capped = unary("tanh", a / cap) * cap if cap > 0 else a
    ninf = const(-math.inf, acc)

    ins, names = [Q, k_t], [ctx.in_name(0), k_name]
    mask_arg = nonpad_arg = None
    if mask_t is not None:
        mask_arg = len(ins)
        ins.append(mask_t)
        names.append(ctx.in_name(_MASK))
    nonpad_t = ctx.input(_NONPAD) if ctx.has_input(_NONPAD) else None
    if nonpad_t is not None:
        nonpad_arg = len(ins)
        ins.append(nonpad_t)
        names.append(ctx.in_name(_NONPAD))
    left, right = int(ctx.attr("left_window_size", -1)), int(ctx.attr("right_window_size", -1))

    def biased(x):
        """x plus the mask, then -inf where the causal frontier, the window or the padding forbid."""
        if mask_t is not None:
            mr = mask_t.rank
            full = (b, h, i, j)
            dims = (B, Hq, Sq, T)
            midx = tuple(const(0, DType.int64) if mask_t.shape[k] == 1 and dims[4 - mr + k] != 1 and k < mr - 1
                         else full[4 - mr + k] for k in range(mr))
            mv = load(mask_arg, mask_t, midx)
            if mask_t.dtype is DType.bool:
                term = select(mv, x, ninf)
            else:
                term = x + cast(mv, acc)
            x = term if mask_t.shape[-1] >= T else select(j < mask_t.shape[-1], term, ninf)
        kv_valid = cast(load(nonpad_arg, nonpad_t, (b,)), DType.int64) if nonpad_t is not None else None
        offset = kv_valid - Sq if kv_valid is not None and not ctx.has_input(_PAST_K) else sh.past_len
        diff = i + offset - j
        if causal:
            x = select(binary("ge", diff, 0), x, ninf)
        if left >= 0:
            x = select(binary("le", diff, left), x, ninf)
        if right >= 0:
            x = select(binary("le", -diff, right), x, ninf)
        if kv_valid is not None:
            x = select(binary("lt", j, kv_valid), x, ninf)
        return x

    red = Reduce("sum", (("r0", sh.qk_size),))
    scores = ctx.temp(st_t, "scores")
    ctx.emit(TensorExpr("attention_scores", tuple(ins), st_t, dot, red, biased(capped)), names, scores)

    mode = int(ctx.attr("qk_matmul_output_mode", 0))
    if ctx.node.has_output(3) and mode in (0, 1, 2):
        qo_t = TensorType(Q.dtype, st_t.shape)
        epi = {0: a, 1: capped, 2: biased(capped)}[mode]
        ctx.emit(TensorExpr("attention_qk", tuple(ins), qo_t, dot, red, epi), names, ctx.out_name(3))

    # 3-4) softmax over the key axis, then P.V
    v_at = lambda b_, h_, j_, d_: _idx(v_rank, b_, h_ // sh.group, j_, d_, sh.v_size)  # noqa: E731
    rmax, rsum = softmax_pv(ctx, scores, st_t, (v_name, v_t, v_at), ctx.out_types[0], ctx.out_name(0))

    if ctx.node.has_output(3) and mode == 3:
        row_t = TensorType(acc, (B, Hq, Sq))
        l_ = load(2, row_t, (b, h, i))
        p = unary("exp", load(0, st_t, (b, h, i, j)) - load(1, row_t, (b, h, i))) / l_
        ctx.emit(TensorExpr("attention_probs", (st_t, row_t, row_t), TensorType(Q.dtype, st_t.shape),
                            select(binary("eq", l_, 0.0), 0.0, p)), [scores, rmax, rsum], ctx.out_name(3))


def softmax_pv(ctx: LowerCtx, scores: str, st_t: TensorType, v, y_t: TensorType, out: str,
               sink=None) -> tuple[str, str]:
    """The softmax over the last axis of `scores` (batch, heads, q, keys), as a row max and a row
    sum of exponentials, then Y = sum_j exp(s - max) V / sum, zero for a fully masked row (max
    -inf, sum 0). `v` is (name, type, at(b, h, j, d) -> index into V); Y (`out`, of type `y_t`) is
    (B, H, S, Dv) or (B, S, H * Dv). Returns the row max's and row sum's names. This is the chain
    kinds/flash_attention.py reads off the expressions, whichever attention op wrote it.

    `sink` adds a logit per head that takes a share of the softmax and no value (gpt-oss's
    attention sinks): (name, type, at(b, h) -> index) of a tensor, or a constant (0.0 is
    onnxruntime's smooth softmax). The statistics stay the keys' own, so the attention kinds'
    online softmax is untouched; Y's epilogue divides by l + exp(sink - m), both terms scaled by
    exp(-max(m, sink)) so that neither overflows."""
    acc = st_t.dtype
    B, H, Sq, T = st_t.shape
    (r,) = reduce_vars(1)
    row_t = TensorType(acc, (B, H, Sq))
    rb, rh, ri = out_vars(3)
    s_row = load(0, st_t, (rb, rh, ri, r))
    rmax = ctx.temp(row_t, "rowmax")
    am = Var("acc", acc)
    ctx.emit(TensorExpr("attention_rowmax", (st_t,), row_t, s_row, Reduce("max", (("r0", T),)),
                        select(unary("isneginf", am), 0.0, am)), [scores], rmax)
    rsum = ctx.temp(row_t, "rowsum")
    ctx.emit(TensorExpr("attention_rowsum", (st_t, row_t), row_t,
                        unary("exp", s_row - load(1, row_t, (rb, rh, ri))), Reduce("sum", (("r0", T),))),
             [scores, rmax], rsum)

    v_name, v_t, v_at = v
    # P.V per head (B, H, S, Dv): the statistics are read at the row's own index, which the fusion
    # stages need to keep the chain in one kernel. A (B, S, H * Dv) output is that transposed to
    # (B, S, H, Dv), a permutation fusion folds into the kernel's store, and reshaped (no kernel).
    Dv = y_t.shape[-1] if y_t.rank == 4 else y_t.shape[-1] // H
    o_t = TensorType(y_t.dtype, (B, H, Sq, Dv))
    o = out if y_t.rank == 4 else ctx.temp(o_t, "heads")
    yb, yh, yi, yd = out_vars(4)

    def normalised(m, l_, at: int, names: list[str], types: list[TensorType]):
        """acc / l, zero in a fully masked row; with a sink acc / (l + exp(sink - m)) in a stable
        form (the sink read as input `at`, or a constant)."""
        a = Var("acc", acc)
        if sink is None:
            return select(binary("eq", l_, 0.0), 0.0, a / l_)
        if isinstance(sink, (int, float)):
            z = const(float(sink), acc)
        else:
            z_name, z_t, z_at = sink
            names.append(z_name)
            types.append(z_t)
            z = cast(load(at, z_t, z_at(yb, yh)), acc)
        top = binary("max", m, z)
        kept = unary("exp", m - top)
        return a * kept / (l_ * kept + unary("exp", z - top))

    if T > 1:
        # the probabilities once per score, as Softmax writes them (a fused kernel keeps them in
        # shared memory or, on the online-softmax kinds, a key tile at a time in registers), zero
        # in a fully masked row; computed inside P.V they would be once per score and column.
        # With a sink the division moves to P.V's epilogue, beside the sink's share.
        pb, ph, pi, pj = out_vars(4)
        l_ = load(2, row_t, (pb, ph, pi))
        e = unary("exp", load(0, st_t, (pb, ph, pi, pj)) - load(1, row_t, (pb, ph, pi)))
        probs = ctx.temp(st_t, "probs")
        ctx.emit(TensorExpr("attention_probs", (st_t, row_t, row_t), st_t,
                            select(binary("eq", l_, 0.0), 0.0, e / l_) if sink is None else e),
                 [scores, rmax, rsum], probs)
        vv = cast(load(1, v_t, v_at(yb, yh, r, yd)), acc)
        names, types = [probs, v_name], [st_t, v_t]
        epilogue = None
        if sink is not None:
            names += [rmax, rsum]
            types += [row_t, row_t]
            epilogue = normalised(load(2, row_t, (yb, yh, yi)), load(3, row_t, (yb, yh, yi)), 4, names, types)
        ctx.emit(TensorExpr("attention_pv", tuple(types), o_t, load(0, st_t, (yb, yh, yi, r)) * vv,
                            Reduce("sum", (("r0", T),)), epilogue), names, o)
    else:
        # one key: a probabilities map would take the one-key sum inlined by fusion (a reduction over
        # one element is a map), hiding the softmax from the attention kinds; nothing to recompute
        l_ = load(2, row_t, (yb, yh, yi))
        e = unary("exp", load(0, st_t, (yb, yh, yi, r)) - load(1, row_t, (yb, yh, yi)))
        names, types = [scores, rmax, rsum, v_name], [st_t, row_t, row_t, v_t]
        epilogue = normalised(load(1, row_t, (yb, yh, yi)), l_, 4, names, types)
        ctx.emit(TensorExpr("attention_pv", tuple(types), o_t, e * load(3, v_t, v_at(yb, yh, r, yd)),
                            Reduce("sum", (("r0", T),)), epilogue), names, o)
    if y_t.rank == 3:
        t_t = TensorType(y_t.dtype, (B, Sq, H, Dv))
        tb, ts, th, td = out_vars(4)
        merged = ctx.temp(t_t, "merged")
        ctx.emit(TensorExpr("transpose", (o_t,), t_t, load(0, o_t, (tb, th, ts, td))), [o], merged)
        ctx.alias(out, merged)
    return rmax, rsum


# --- RotaryEmbedding ------------------------------------------------------------------------

def _rotary_dims(node, x_shape):
    if len(x_shape) == 4:
        heads, head = x_shape[1], x_shape[3]
    else:
        heads = node.attr("num_heads")
        if not heads:
            raise ValueError("3-D RotaryEmbedding needs num_heads")
        head = x_shape[2] // heads
    rd = int(node.attr("rotary_embedding_dim", 0) or 0) or head
    return int(heads), int(head), rd


def _ref_rotary(node, inputs, opset):
    x, cos, sin = inputs[:3]
    pos = inputs[3] if len(inputs) > 3 else None
    heads, head, rd = _rotary_dims(node, x.shape)
    xs = x.transpose(0, 2, 1, 3) if x.ndim == 4 else x.reshape(x.shape[0], x.shape[1], heads, head)
    if pos is not None:
        cos, sin = cos[pos], sin[pos]
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]    # (batch, seq, 1, rd/2)
    ct = np.float64 if x.dtype == np.float64 else np.float32
    rot = xs[..., :rd].astype(ct)
    if int(node.attr("interleaved", 0)):
        x1, x2 = rot[..., 0::2], rot[..., 1::2]
    else:
        x1, x2 = rot[..., :rd // 2], rot[..., rd // 2:]
    re = cos * x1 - sin * x2
    im = sin * x1 + cos * x2
    out = xs.astype(ct).copy()
    if int(node.attr("interleaved", 0)):
        out[..., 0:rd:2], out[..., 1:rd:2] = re, im
    else:
        out[..., :rd // 2], out[..., rd // 2:rd] = re, im
    out = out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(x.shape)
    return [out.astype(x.dtype)]


@register("RotaryEmbedding", reference=_ref_rotary)
def lower_rotary_embedding(ctx: LowerCtx) -> None:
    """RotaryEmbedding as one elementwise expression (cos/sin gathered by position id)."""
    X, cos_t, sin_t = ctx.input(0), ctx.input(1), ctx.input(2)
    try:
        heads, head, rd = _rotary_dims(ctx.node, X.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    half = rd // 2
    has_pos = ctx.has_input(3)
    v = out_vars(X.rank)
    if X.rank == 4:
        bv, sv, dv = v[0], v[2], v[3]
        at = lambda dd: (v[0], v[1], v[2], dd)  # noqa: E731
    else:
        bv, sv = v[0], v[1]
        dv = v[2] % head
        base = v[2] - dv
        at = lambda dd: (v[0], v[1], base + dd)  # noqa: E731
    x = lambda dd: load(0, X, at(dd))  # noqa: E731

    def cache(arg, t, p):
        if has_pos:
            pid = cast(load(3, ctx.input(3), (bv, sv)), DType.int64)
            return load(arg, t, (pid, p))
        return load(arg, t, (bv, sv, p))

    if int(ctx.attr("interleaved", 0)):
        p = dv // 2
        odd = binary("eq", dv % 2, 1)
        even_val = x(dv) * cache(1, cos_t, p) - x(dv + 1) * cache(2, sin_t, p)
        odd_val = x(dv - 1) * cache(2, sin_t, p) + x(dv) * cache(1, cos_t, p)
        rotated = select(odd, odd_val, even_val)
    else:
        lo = dv < half
        first = x(dv) * cache(1, cos_t, dv) - x(dv + half) * cache(2, sin_t, dv)
        second = x(dv - half) * cache(2, sin_t, dv - half) + x(dv) * cache(1, cos_t, dv - half)
        rotated = select(lo, first, second)
    body = rotated if rd >= head else select(dv < rd, rotated, x(dv))
    ins = [X, cos_t, sin_t] + ([ctx.input(3)] if has_pos else [])
    names = [ctx.in_name(k) for k in range(len(ins))]
    ctx.emit(TensorExpr("rotary_embedding", tuple(ins), ctx.out_types[0], body), names, ctx.out_name(0))
