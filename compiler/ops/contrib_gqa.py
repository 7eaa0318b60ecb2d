"""onnxruntime's com.microsoft GroupQueryAttention: the attention node of the LLMs that
onnxruntime-genai's model builder writes (LLaMA, Mistral, Phi, Qwen, Gemma, ...), with its KV cache,
its rotary embedding and grouped K/V heads, with the meaning of onnxruntime's CPU kernel.

Per batch entry b the kernel reads the cache's fill from the run-time `seqlens_k` (the entry's
total length minus one): on the first prompt (the new tokens are the whole sequence:
sequence_length == total_sequence_length) nothing comes from the past; otherwise the
`past_len_b = seqlens_k[b] + 1 - S` first rows of past_key/past_value are kept and the S new ones
written after them, so the entries of a batch may have different lengths. The present K and V are
(B, kv_heads, max(total_sequence_length, past buffer length), H), zero after the entry's rows.
With q_norm_weight and k_norm_weight (Qwen3) Q and K are first RMS-normalised per head. Query row s
sits at position past_len_b + s: that is its rotary position (do_rotary, cos/sin caches gathered at
run time) and its causal frontier; `local_window_size` W keeps the W keys up to
and including it (positions past_len_b + s - W + 1 ... past_len_b + s); `softcap` caps the scaled
scores (cap * tanh(score / cap)); `attention_bias` is added after. Query head h reads K/V head
h // (num_heads / kv_num_heads).

`total_sequence_length` sizes the present outputs, so Brickyard needs its value at compile time:
onnxruntime-genai's models compute it from attention_mask's shape, which `--input-shape` fixes.
`head_sink` (gpt-oss) gives each head a logit that takes a share of the softmax's denominator and
no value: softmax over [scores, sink_h] with the sink's column dropped; `smooth_softmax` is a sink
of 0 for every head. The quantized KV cache, position ids, query_seqlens, non-causal attention and
the QK output are refused by name.

The lowering is tensor expressions: the rotary embedding the ONNX RotaryEmbedding's (position ids
made from seqlens_k), the present K/V one map each, then the scores and the softmax and P.V chain
of the ONNX Attention op (ops/attention.py softmax_pv), so the fusion stages make one attention
kernel of it as of the standard op. Under `--kv-cache in-place`, a full-length past as long as the
present becomes the present's buffer (LowerCtx.donate) and only the new rows are written into it
(ops/cache_update.py); attention reads the cache from there."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import Node, TensorType
from ..ir.texpr import Reduce, TensorExpr, Var, binary, broadcast_index, cast, const, load, minimum, out_vars, \
    reduce_vars, select, unary
from .attention import softmax_pv
from .cache_update import NewRows, cache_update_kernel
from .contrib import MS, ProtoNode
from .contrib_attention import ExprArgs, math_type, split_heads
from .registry import LowerCtx, lookup, register

(_QUERY, _KEY, _VALUE, _PAST_K, _PAST_V, _SEQLENS, _TOTAL, _COS, _SIN, _POS_IDS, _ABIAS, _HEAD_SINK, _K_SCALE,
 _V_SCALE, _Q_NORM, _K_NORM, _QUERY_SEQLENS) = range(17)

_REFUSED_INPUTS = {_POS_IDS: "position_ids", _K_SCALE: "k_scale (a quantized KV cache)",
                   _V_SCALE: "v_scale (a quantized KV cache)", _QUERY_SEQLENS: "query_seqlens"}
_REFUSED_FLAGS = ("qk_output", "kv_cache_bit_width")


class GqaShape:
    """The static sizes of one GroupQueryAttention node."""

    def __init__(self, attr, shapes: list, total: int):
        q, k, v, past_k, past_v = shapes[:5]
        self.heads = int(attr("num_heads", 0) or 0)
        self.kv_heads = int(attr("kv_num_heads", 0) or 0)
        if self.heads <= 0 or self.kv_heads <= 0 or self.heads % self.kv_heads:
            raise ValueError(f"num_heads {self.heads} is not a positive multiple of kv_num_heads {self.kv_heads}")
        if len(q) != 3:
            raise ValueError(f"query {q} is not (batch, sequence, hidden)")
        self.batch, self.q_len = q[0], q[1]
        self.packed = k is None
        if self.packed:
            if v is not None:
                raise ValueError("value without key: give both, or neither for a packed QKV query")
            parts = self.heads + 2 * self.kv_heads
            if q[2] % parts:
                raise ValueError(f"packed QKV width {q[2]} is not (num_heads + 2 kv_num_heads) = {parts} heads")
            self.head = q[2] // parts
        else:
            if q[2] % self.heads:
                raise ValueError(f"query width {q[2]} is not a multiple of num_heads {self.heads}")
            self.head = q[2] // self.heads
            want = (self.batch, self.q_len, self.kv_heads * self.head)
            if v is None or tuple(k) != want or tuple(v) != want:
                raise ValueError(f"key {k} and value {v} are not {want}")
        if (past_k is None) != (past_v is None):
            raise ValueError("past_key and past_value must be given together")
        self.past = 0
        if past_k is not None:
            self.past = past_k[2]
            want = (self.batch, self.kv_heads, self.past, self.head)
            if tuple(past_k) != want or tuple(past_v) != want:
                raise ValueError(f"past_key {past_k} and past_value {past_v} are not (batch, kv_num_heads, "
                                 f"past length, head size) = {want}")
        self.total = total
        if total < 1:
            raise ValueError(f"total_sequence_length {total} is not positive")
        self.window = int(attr("local_window_size", -1))
        # a window-sized cache (Gemma 2/3's sliding layers): past and present hold the last
        # resident(T) positions of capacity C, see resident()
        self.sliding = bool(int(attr("sliding_window_cache", 0) or 0))
        if self.sliding and not (0 < self.window <= self.past):
            raise ValueError(f"sliding_window_cache=1 needs local_window_size > 0 ({self.window}) and a past of at "
                             f"least that many positions (capacity {self.past})")
        self.present = self.past if self.sliding else max(total, self.past)
        # the first prompt: every token is new, nothing is read from the past
        self.first_prompt = self.q_len == total
        if not self.first_prompt:
            if self.past == 0:
                raise ValueError(f"sequence_length {self.q_len} is not total_sequence_length {total}, "
                                 f"so the past is read, but no past_key is given")
            if self.q_len > 1 and self.batch != 1:
                raise ValueError(f"a prompt continued over a past ({self.q_len} new tokens, total {total}) "
                                 f"needs batch size 1, not {self.batch}")
        self.group = self.heads // self.kv_heads

    def resident(self, t):
        """How many positions a window-sized cache of capacity C holds after t tokens (onnxruntime's
        rule: all up to C, then it evicts G = C - W + 1 at once); works on ints and expressions."""
        C, G = self.past, self.past - self.window + 1
        if isinstance(t, (int, np.integer)):
            return t if t <= C else t - G * ((t - C + G - 1) // G)
        return select(binary("le", t, C), t, t - ((t - C + G - 1) // G) * G)


def _total(value) -> int:
    if value is None:
        raise ValueError("total_sequence_length is only known at run time; it sizes the present outputs, so "
                         "Brickyard needs it at compile time (onnxruntime-genai's models compute it from "
                         "attention_mask's shape: fix that with --input-shape)")
    if value.size != 1:
        raise ValueError(f"total_sequence_length of shape {value.shape} is not one element")
    return int(value.reshape(-1)[0])


def _shapes(types) -> list:
    return [tuple(t.shape) if t is not None else None for t in (list(types) + [None] * 5)[:5]]


def _infer_gqa(pn, in_types, consts) -> list:
    types = list(in_types) + [None] * 17
    try:
        sh = GqaShape(ProtoNode(pn).attr, _shapes(types), _total(consts[_TOTAL] if len(consts) > _TOTAL else None))
    except ValueError as e:
        raise ShapeError(f"com.microsoft GroupQueryAttention: {e}", node=pn.name,
                         hint="fix the inputs' shapes with --input-shape") from None
    dt = types[_QUERY].dtype
    cache = TensorType(dt, (sh.batch, sh.kv_heads, sh.present, sh.head))
    outs = [TensorType(dt, (sh.batch, sh.q_len, sh.heads * sh.head)), cache, cache]
    return [t if o else None for t, o in zip(outs, pn.output)] + [None] * max(0, len(pn.output) - 3)


def _norm_epsilons(attr) -> tuple[float, float]:
    """(Q's, K's) epsilon of the per-head RMS norms: qk_norm_epsilon unless overridden."""
    eps = float(attr("qk_norm_epsilon", 1e-6))
    return float(attr("q_norm_epsilon", eps)), float(attr("k_norm_epsilon", eps))


def _ref_head_norm(x: np.ndarray, w: np.ndarray, heads: int, eps: float) -> np.ndarray:
    ct = math_type(x.dtype)
    h = x.astype(ct).reshape(x.shape[0], x.shape[1], heads, -1)
    y = h / np.sqrt((h * h).mean(-1, keepdims=True) + ct(eps)) * w.astype(ct)
    return y.reshape(x.shape).astype(x.dtype)


def _rotary_node(node, rotary_dim: int, heads: int) -> Node:
    return Node("RotaryEmbedding", node.name, ("x", "cos", "sin", "pos"), ("y",),
                (("interleaved", int(node.attr("rotary_interleaved", 0) or 0)),
                 ("rotary_embedding_dim", rotary_dim), ("num_heads", heads)))


def _ref_gqa(node, inputs, opset):
    ins = (list(inputs) + [None] * 17)[:17]
    sh = GqaShape(node.attr, [None if a is None else a.shape for a in ins[:5]], _total(ins[_TOTAL]))
    N, Nk, H, S, B, T = sh.heads, sh.kv_heads, sh.head, sh.q_len, sh.batch, sh.present
    query = ins[_QUERY]
    ct = math_type(query.dtype)
    if sh.packed:
        q, k, v = np.split(query, [N * H, (N + Nk) * H], axis=2)
    else:
        q, k, v = query, ins[_KEY], ins[_VALUE]
    past_len = np.zeros(B, np.int64) if sh.first_prompt else ins[_SEQLENS].astype(np.int64) + 1 - S
    if ins[_Q_NORM] is not None:
        q_eps, k_eps = _norm_epsilons(node.attr)
        q, k = _ref_head_norm(q, ins[_Q_NORM], N, q_eps), _ref_head_norm(k, ins[_K_NORM], Nk, k_eps)
    if int(node.attr("do_rotary", 0) or 0):
        cos, sin = ins[_COS], ins[_SIN]
        pos = np.minimum(past_len[:, None] + np.arange(S)[None, :], cos.shape[0] - 1)
        rotary = lookup("RotaryEmbedding").reference
        q = rotary(_rotary_node(node, 2 * cos.shape[1], N), [q, cos, sin, pos], 23)[0]
        k = rotary(_rotary_node(node, 2 * cos.shape[1], Nk), [k, cos, sin, pos], 23)[0]
    q, k, v = split_heads(q.astype(ct), N), split_heads(k, Nk), split_heads(v, Nk)
    # the keys and values attention reads: each entry's kept past rows, then its new ones
    kept = [int(min(max(sh.resident(int(t)) if sh.sliding else t, 0), sh.past)) for t in past_len]
    J = sh.past + S
    keys, present = [], []
    for new, past in ((k, ins[_PAST_K]), (v, ins[_PAST_V])):
        seq = np.zeros((B, Nk, J, H), query.dtype)
        p = np.zeros((B, Nk, T, H), query.dtype)
        for b in range(B):
            if kept[b]:
                seq[b, :, :kept[b]] = past[b, :, :kept[b]]
            seq[b, :, kept[b]:kept[b] + S] = new[b]
            if sh.sliding:        # the last resident(T_b) positions, from row 0
                n = sh.resident(int(past_len[b]) + S)
                p[b, :, :n] = seq[b, :, kept[b] + S - n:kept[b] + S]
            else:                 # rows at their positions, the new ones after the past's
                start = int(max(past_len[b], 0))
                p[b, :, :kept[b]] = seq[b, :, :kept[b]]
                p[b, :, start:start + S] = new[b, :, :max(0, min(S, T - start))]
        keys.append(seq)
        present.append(p)
    kk, vv = (np.repeat(s.astype(ct), sh.group, axis=1) for s in keys)
    scale = float(node.attr("scale", 0.0) or 0.0) or 1 / math.sqrt(H)
    scores = (q @ kk.transpose(0, 1, 3, 2)) * ct(scale)
    cap = float(node.attr("softcap", 0.0) or 0.0)
    if cap > 0:
        scores = cap * np.tanh(scores / cap)
    if ins[_ABIAS] is not None:
        bias = ins[_ABIAS].astype(ct)
        scores[..., :min(J, bias.shape[-1])] += bias[..., :J]
    # each query row's key: kept + s (the keys' row of the query's own position)
    at = np.asarray(kept)[:, None, None, None] + np.arange(S)[None, None, :, None]
    key = np.arange(J)[None, None, None, :]
    allowed = key <= at
    if sh.window > 0:
        allowed &= key > at - sh.window
    scores = np.where(allowed, scores, -np.inf)
    sink = _sink_of(node.attr, ins[_HEAD_SINK])
    if sink is None:
        e = np.exp(scores - scores.max(-1, keepdims=True))
        y = (e / e.sum(-1, keepdims=True)) @ vv
    else:       # the sink's column joins the softmax, then is dropped
        z = np.broadcast_to(np.asarray(sink, ct).reshape(1, -1, 1, 1), scores.shape[:3] + (1,))
        top = np.maximum(scores.max(-1, keepdims=True), z)
        e = np.exp(scores - top)
        y = (e / (e.sum(-1, keepdims=True) + np.exp(z - top))) @ vv
    y = y.transpose(0, 2, 1, 3).reshape(B, S, N * H).astype(query.dtype)
    return [y, *present][:len(node.outputs)]


def _sink_of(attr, head_sink):
    """The per-head sink logits (an array, 0.0 for smooth_softmax) or None."""
    if head_sink is not None:
        return head_sink
    return 0.0 if int(attr("smooth_softmax", 0) or 0) else None


@register("GroupQueryAttention", reference=_ref_gqa, domain=MS, infer=_infer_gqa)
def lower_group_query_attention(ctx: LowerCtx) -> None:
    """Q, K and V (sliced from a packed QKV), rotated at their run-time positions, the past's kept
    rows and the new ones as present K/V, then attention over them, K/V heads shared by groups."""
    for k, what in _REFUSED_INPUTS.items():
        if ctx.has_input(k):
            raise ctx.unsupported(f"input {k} ({what}) is not supported", feature=True)
    for a in _REFUSED_FLAGS:
        if int(ctx.attr(a, 0) or 0):
            raise ctx.unsupported(f"attribute {a}={ctx.attr(a)} is not supported", feature=True)
    for a in ("k_quant_type", "v_quant_type"):
        if (ctx.attr(a, "NONE") or "NONE") not in ("NONE", b"NONE"):
            raise ctx.unsupported(f"attribute {a} (a quantized KV cache) is not supported", feature=True)
    if not int(ctx.attr("causal", 1)):
        raise ctx.unsupported("causal=0 (bidirectional attention) is not supported", feature=True)
    if ctx.node.has_output(3):
        raise ctx.unsupported("output 3 (output_qk) is not supported", feature=True)
    qt = ctx.input(_QUERY)
    if not qt.dtype.is_float:
        raise ctx.unsupported(f"GroupQueryAttention on {qt.dtype.name}")
    try:
        sh = GqaShape(ctx.attr, _shapes([ctx.input(k) if ctx.has_input(k) else None for k in range(5)]),
                      _total(ctx.const(_TOTAL)))
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if sh.past and ctx.input(_PAST_K).dtype is not qt.dtype:
        raise ctx.unsupported(f"a {ctx.input(_PAST_K).dtype.name} KV cache with a {qt.dtype.name} query")
    seq_t = ctx.input(_SEQLENS)
    if seq_t.shape != (sh.batch,) or seq_t.dtype.is_float:
        raise ctx.unsupported(f"seqlens_k of shape {seq_t.shape} is not ({sh.batch},) integers")
    N, Nk, H, S, B, T = sh.heads, sh.kv_heads, sh.head, sh.q_len, sh.batch, sh.present

    def past_len(b, args: ExprArgs):
        """Entry b's rows kept from the past: 0 on the first prompt, else seqlens_k[b] + 1 - S
        (seqlens_k an input of the expression `args` lists)."""
        if sh.first_prompt:
            return const(0, DType.int64)
        return cast(load(args.arg(ctx.in_name(_SEQLENS), seq_t), seq_t, (b,)), DType.int64) + (1 - S)

    # --kv-cache in-place on a full-length cache: the present K/V are the past's buffers, and
    # only the new rows are written (ops/cache_update.py); the new rows are read where they are
    in_place = not sh.sliding and not sh.first_prompt and sh.past == T and \
        ctx.donate([(_PAST_K, 1), (_PAST_V, 2)])
    transformed_k = ctx.has_input(_K_NORM) or bool(int(ctx.attr("do_rotary", 0) or 0))

    # 1) Q, K and V as (B, S, heads * H), each sliced from a packed QKV by a map fusion folds in
    if sh.packed:
        def part(offset: int, heads: int) -> tuple[str, TensorType]:
            t = TensorType(qt.dtype, (B, S, heads * H))
            name = ctx.temp(t, "qkv_part")
            b, s, c = out_vars(3)
            ctx.emit(TensorExpr("slice", (qt,), t, load(0, qt, (b, s, c + offset))), [ctx.in_name(_QUERY)], name)
            return name, t
        q = part(0, N)
        k_new = part(N * H, Nk) if transformed_k or not in_place else None
        v_new = part((N + Nk) * H, Nk) if not in_place else None
    else:
        q, k_new, v_new = ((ctx.in_name(i), ctx.input(i)) for i in (_QUERY, _KEY, _VALUE))

    # 2) Qwen3's per-head RMS norms (the ONNX RMSNormalization's lowering over a per-head view),
    #    then the rotary embedding at each row's position past_len_b + s (the ONNX op's)
    if ctx.has_input(_Q_NORM) != ctx.has_input(_K_NORM):
        raise ctx.unsupported("q_norm_weight and k_norm_weight must be given together", feature=True)
    if ctx.has_input(_Q_NORM):
        q_eps, k_eps = _norm_epsilons(ctx.attr)

        def head_norm(x, heads: int, w_at: int, eps: float):
            name, t = x
            if ctx.input(w_at).shape != (H,):
                raise ctx.unsupported(f"input {w_at} of shape {ctx.input(w_at).shape} is not ({H},)")
            per_head = TensorType(t.dtype, (B, S, heads, H))
            view, normed = ctx.temp(per_head, "heads_view"), ctx.temp(t, "head_norm")
            ctx.alias(view, name)
            out = ctx.lower_as("RMSNormalization", ((view, per_head), w_at), per_head,
                               [("axis", -1), ("epsilon", eps)], opset=23)
            ctx.alias(normed, out)
            return normed, t
        q, k_new = head_norm(q, N, _Q_NORM, q_eps), head_norm(k_new, Nk, _K_NORM, k_eps)
    if int(ctx.attr("do_rotary", 0) or 0):
        if not (ctx.has_input(_COS) and ctx.has_input(_SIN)):
            raise ctx.unsupported("do_rotary=1 without cos_cache and sin_cache")
        cos_t = ctx.input(_COS)
        if cos_t.rank != 2 or ctx.input(_SIN).shape != cos_t.shape or 2 * cos_t.shape[1] > H:
            raise ctx.unsupported(f"cos/sin caches of shapes {cos_t.shape}, {ctx.input(_SIN).shape} are not "
                                  f"(positions, at most head size / 2 = {H // 2})")
        if cos_t.shape[0] < sh.total:
            raise ctx.unsupported(f"cos/sin caches of {cos_t.shape[0]} positions are shorter than "
                                  f"total_sequence_length {sh.total}")
        pos_t = TensorType(DType.int64, (B, S))
        pos = ctx.temp(pos_t, "position_ids")
        b, s = out_vars(2)
        args = ExprArgs()
        args.arg(ctx.in_name(_SEQLENS), seq_t)
        ctx.emit(TensorExpr("position_ids", tuple(args.types), pos_t,
                            minimum(past_len(b, args) + s, cos_t.shape[0] - 1)), args.names, pos)
        attrs = [("interleaved", int(ctx.attr("rotary_interleaved", 0) or 0)),
                 ("rotary_embedding_dim", 2 * cos_t.shape[1])]

        def rotated(x, heads):
            return ctx.lower_as("RotaryEmbedding", (x, _COS, _SIN, (pos, pos_t)), x[1],
                                attrs + [("num_heads", heads)], opset=23), x[1]
        q, k_new = rotated(q, N), rotated(k_new, Nk)
    elif ctx.has_input(_COS) or ctx.has_input(_SIN):
        raise ctx.unsupported("cos_cache/sin_cache given with do_rotary=0")

    # 3) the keys and values attention reads, and the present outputs
    def kept_rows(b, args: ExprArgs):
        """The past rows entry b keeps in front of its new ones: all its past_len_b, or of a
        window-sized cache the resident ones."""
        t = past_len(b, args)
        return sh.resident(t) if sh.sliding and not sh.first_prompt else t

    def cache_rows(new, past_at: int, length: int, dst: str):
        """(B, Nk, length, H) into `dst`: the kept past rows, the new rows after them, zeros after."""
        name, t = new
        pt = TensorType(qt.dtype, (B, Nk, length, H))
        b, g, j, d = out_vars(4)
        args = ExprArgs()
        start = kept_rows(b, args)
        row = j - start if S > 1 else const(0, DType.int64)     # one new row: always row 0
        body = select(binary("lt", j, start + S), load(args.arg(name, t), t, (b, row, g * H + d)),
                      const(0.0, qt.dtype))
        body = select(binary("ge", j, start), body, const(0.0, qt.dtype))
        if sh.past and not sh.first_prompt:
            kept = select(binary("lt", j, sh.past),
                          load(args.arg(ctx.in_name(past_at), ctx.input(past_at)), ctx.input(past_at), (b, g, j, d)),
                          const(0.0, qt.dtype))
            body = select(binary("lt", j, start), kept, body)
        ctx.emit(TensorExpr("attention_present", tuple(args.types), pt, body), args.names, dst)
        return dst, pt, lambda b_, g_, j_, d_: (b_, g_, j_, d_)

    def keys_and_present(new, past_at: int, out_at: int):
        """The keys (or values) as (name, type, at(b, g, j, d)); the present output written."""
        name, t = new
        in_place = (name, t, lambda b_, g_, j_, d_: (b_, j_, g_ * H + d_))      # the new rows, read in place
        wanted = ctx.node.has_output(out_at)
        if not sh.sliding:
            # the present output is what attention reads: past rows, then the new ones at their positions
            if sh.first_prompt and T == S and not wanted:
                return in_place
            dst = ctx.out_name(out_at) if wanted else ctx.temp(TensorType(qt.dtype, (B, Nk, T, H)), f"present{out_at}")
            return cache_rows(new, past_at, T, dst)
        keys = in_place if sh.first_prompt else \
            cache_rows(new, past_at, sh.past + S, ctx.temp(TensorType(qt.dtype, (B, Nk, sh.past + S, H)), "keys"))
        if wanted:
            # a window-sized present: the last resident(T_b) of those rows, from row 0, zeros after
            kn, kt, kat = keys
            b, g, i, d = out_vars(4)
            args = ExprArgs()
            if sh.first_prompt:
                kept, n = 0, sh.resident(S)
            else:
                kept, n = kept_rows(b, args), sh.resident(past_len(b, args) + S)
            body = select(binary("lt", i, n), load(args.arg(kn, kt), kt, kat(b, g, i + kept + S - n, d)),
                          const(0.0, qt.dtype))
            pt = TensorType(qt.dtype, (B, Nk, T, H))
            ctx.emit(TensorExpr("attention_present", tuple(args.types), pt, body), args.names, ctx.out_name(out_at))
        return keys

    if in_place:
        def new_rows(x, packed_offset: int) -> NewRows:
            return NewRows(*x, 0) if x is not None else NewRows(ctx.in_name(_QUERY), qt, packed_offset)
        cache_t = TensorType(qt.dtype, (B, Nk, T, H))
        ctx.emit_kernel(cache_update_kernel((ctx.in_name(_SEQLENS), seq_t),
                                            (new_rows(k_new, N * H), new_rows(v_new, (N + Nk) * H)),
                                            (ctx.out_name(1), ctx.out_name(2)), cache_t))
        k, v = ((ctx.out_name(o), cache_t, lambda b_, g_, j_, d_: (b_, g_, j_, d_)) for o in (1, 2))
    else:
        k = keys_and_present(k_new, _PAST_K, 1)
        v = keys_and_present(v_new, _PAST_V, 2)
    T_keys = k[1].shape[2] if k[1].rank == 4 else S

    # 4) scores (B, N, S, T_keys): scaled q.k, softcap, bias; -inf outside the causal (and local) window
    acc = DType.float64 if qt.dtype is DType.float64 else DType.float32
    st_t = TensorType(acc, (B, N, S, T_keys))
    b, h, i, j = out_vars(4)
    (r,) = reduce_vars(1)
    args = ExprArgs()
    qa, ka = args.arg(q[0], q[1]), args.arg(k[0], k[1])
    dot = load(qa, q[1], (b, i, h * H + r)) * load(ka, k[1], k[2](b, h // sh.group, j, r))
    scale = float(ctx.attr("scale", 0.0) or 0.0) or 1 / math.sqrt(H)
    score = Var("acc", acc) * scale
    cap = float(ctx.attr("softcap", 0.0) or 0.0)
    if cap > 0:
        score = unary("tanh", score / cap) * cap
    if ctx.has_input(_ABIAS):
        if sh.sliding:
            raise ctx.unsupported("attention_bias with sliding_window_cache=1", feature=True)
        bt = ctx.input(_ABIAS)
        if bt.rank != 4 or bt.shape[0] not in (1, B) or bt.shape[1] not in (1, N) or bt.shape[2] != S \
                or bt.shape[3] > T_keys:
            raise ctx.unsupported(f"attention_bias of shape {bt.shape} is not (batch or 1, heads or 1, {S}, "
                                  f"total_sequence_length)")
        full = (B, N, S, bt.shape[3])
        bias = cast(load(args.arg(ctx.in_name(_ABIAS), bt), bt, broadcast_index(full, bt.shape, (b, h, i, j))), acc)
        score = score + (bias if bt.shape[3] == T_keys else select(binary("lt", j, bt.shape[3]), bias, 0.0))
    at = kept_rows(b, args) + i                 # the query's own position among the keys
    allowed = binary("le", j, at)
    window = int(ctx.attr("local_window_size", -1))
    if window > 0:
        allowed = binary("and", allowed, binary("gt", j, at - window))
    score = select(allowed, score, const(-math.inf, acc))
    scores = ctx.temp(st_t, "scores")
    ctx.emit(TensorExpr("attention_scores", tuple(args.types), st_t, dot, Reduce("sum", (("r0", H),)), score),
             args.names, scores)

    # 5) softmax and P.V, query head h reading K/V head h // group; a head's sink logit
    sink = _sink_of(ctx.attr, None)
    if ctx.has_input(_HEAD_SINK):
        zt = ctx.input(_HEAD_SINK)
        if zt.shape != (N,) or not zt.dtype.is_float:
            raise ctx.unsupported(f"head_sink of shape {zt.shape} ({zt.dtype.name}) is not ({N},) floats")
        sink = (ctx.in_name(_HEAD_SINK), zt, lambda b_, h_: (h_,))
    v_at = v[2]
    softmax_pv(ctx, scores, st_t, (v[0], v[1], lambda b_, h_, j_, d_: v_at(b_, h_ // sh.group, j_, d_)),
               ctx.out_types[0], ctx.out_name(0), sink=sink)
