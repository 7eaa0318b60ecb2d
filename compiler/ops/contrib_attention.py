"""onnxruntime's com.microsoft Attention and MultiHeadAttention: the fused attention nodes its
transformer optimizer writes for BERT-, GPT-2-, ViT- and LLaMA-like models (and that Hugging Face
Optimum's "optimized" exports carry), and the rotary embedding it puts before them, with their
meaning from onnxruntime's ContribOperators.md and its CPU kernels.

- `Attention`: the Q, K and V projections as one packed GEMM (input x weights + bias), then
  multi-head attention over the packed result, with the optional past (2, B, N, P, H) concatenated
  in front of the new keys and values and returned as `present`.
- `MultiHeadAttention`: attention over Q, K and V projected elsewhere: (B, S, hidden) each, packed
  QKV (B, S, N, 3, H), packed KV (B, L, N, 2, H), or K and V already per head (B, N, L, H) (cross
  attention); the bias is added to Q, K and V; past_key/past_value in front of the new keys and
  values, present_key/present_value returned.

Both mask the way onnxruntime's CPU kernels do (checked against them in
tests/ops/test_contrib_attention.py): a key the mask index masks (1-D: key lengths (B), or end
and start positions (2B); 2-D raw (B, T) and 3-D (B, S, T) masks where 0 masks) gets
`mask_filter_value` (-10000 by default) added to its score, not -inf, so a row whose keys are all
masked is a softmax of finite values, as there; with `unidirectional`, a key after the query's
position is left out of the softmax (-inf). `attention_bias` (B|1, N|1, S, T) is added after.

Each lowers to tensor expressions: the projection a GEMM, the bias adds elementwise maps (folded
into their producers' epilogues by fusion), the scores a contraction whose epilogue scales and
masks, then the softmax and P.V chain of the ONNX Attention op (ops/attention.py softmax_pv), so
the fusion stages make one attention kernel of it as of the standard op. Rotary embeddings inside
the node (do_rotary), a shared past/present buffer, beam-search cache indirection and the QK output
are refused with a clear error."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.texpr import Reduce, TensorExpr, Var, binary, broadcast_index, cast, const, load, out_vars, reduce_vars, select
from .attention import softmax_pv
from .contraction import acc_var, reduction_axes
from .contrib import MS, ProtoNode
from .registry import LowerCtx, register

MASK_FILTER_VALUE = -10000.0      # onnxruntime's default mask_filter_value


def math_type(dtype) -> type:
    return np.float64 if dtype == np.float64 else np.float32


# --- masks -----------------------------------------------------------------------------------------

def mask_check(mask_shape: tuple[int, ...] | None, B: int, S: int, T: int, *, start_positions: bool) -> str | None:
    """Why a mask index of this shape cannot be read (None when it can): (B) key lengths, (2B) end
    and start positions (Attention only), (B, T) or (B, S, T) 0/1 masks."""
    if mask_shape is None:
        return None
    if len(mask_shape) == 1 and (mask_shape[0] == B or (start_positions and mask_shape[0] == 2 * B)):
        return None
    if tuple(mask_shape) in ((B, T), (B, S, T)):
        return None
    forms = f"({B},) key lengths" + (f", ({2 * B},) end and start positions" if start_positions else "")
    return f"mask index of shape {tuple(mask_shape)} is not {forms}, ({B}, {T}) or ({B}, {S}, {T})"


def _ref_masked(mask, B: int, S: int, T: int) -> np.ndarray:
    """(B, S, T) bool: which scores the mask index masks."""
    masked = np.zeros((B, S, T), bool)
    keys = np.arange(T)
    if mask is not None:
        if mask.ndim == 1:
            masked |= keys[None, None, :] >= mask[:B, None, None]
            if mask.shape[0] == 2 * B:
                masked |= keys[None, None, :] < mask[B:, None, None]
        elif mask.ndim == 2:
            masked |= (mask <= 0)[:, None, :]
        else:
            masked |= mask <= 0
    return masked


def _ref_attend(q, k, v, *, scale, mask, causal, past_len, mfv, attention_bias, dtype) -> np.ndarray:
    """q (B, N, S, D), k (B, N, T, D), v (B, N, T, Dv) in the math type: Y (B, S, N * Dv)."""
    B, N, S, _ = q.shape
    T = k.shape[2]
    scores = (q @ k.transpose(0, 1, 3, 2)) * scale
    scores = scores + np.where(_ref_masked(mask, B, S, T), mfv, 0.0)[:, None].astype(q.dtype)
    if attention_bias is not None:
        scores = scores + attention_bias.astype(q.dtype)
    if causal:
        scores = np.where(np.arange(T)[None, :] > past_len + np.arange(S)[:, None], -np.inf, scores)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    y = (e / e.sum(-1, keepdims=True)) @ v
    return y.transpose(0, 2, 1, 3).reshape(B, S, -1).astype(dtype)


def split_heads(x: np.ndarray, n: int) -> np.ndarray:
    """(B, S, n * H) -> (B, n, S, H)."""
    return x.reshape(x.shape[0], x.shape[1], n, -1).transpose(0, 2, 1, 3)


def _mask_term(args, mask: tuple[str, TensorType] | None, b, i, j, *, B: int, mfv: float, acc: DType):
    """The score's mask term: mask_filter_value where the mask index masks a key, else 0 (None
    without a mask). `args` gives the mask its load argument."""
    conds = []
    if mask is not None:
        name, mt = mask
        a = args.arg(name, mt)
        if mt.rank == 1:
            conds.append(binary("ge", j, cast(load(a, mt, (b,)), DType.int64)))
            if mt.shape[0] == 2 * B:
                conds.append(binary("lt", j, cast(load(a, mt, (b + B,)), DType.int64)))
        else:
            idx = (b, j) if mt.rank == 2 else (b, i, j)
            conds.append(binary("le", cast(load(a, mt, idx), DType.int64), 0))
    if not conds:
        return None
    term = const(0.0, acc)
    for c in conds:
        term = select(c, const(mfv, acc), term)
    return term


class ExprArgs:
    """The inputs of one tensor expression, each value once."""

    def __init__(self):
        self.names: list[str] = []
        self.types: list[TensorType] = []

    def arg(self, name: str, t: TensorType) -> int:
        if name not in self.names:
            self.names.append(name)
            self.types.append(t)
        return self.names.index(name)


def _emit_attention(ctx: LowerCtx, *, q, k, v, B: int, N: int, S: int, T: int, D: int, P: int, scale: float,
                    causal: bool, mask, attention_bias, y_t: TensorType, out: str) -> None:
    """Scores = scale * q.k + mask term + attention_bias (-inf after the query's position when
    causal), then softmax and P.V into `out`
    (B, S, N * Dv). q, k and v are (name, type, at(b, h, s, d) -> index)."""
    acc = DType.float64 if q[1].dtype is DType.float64 else DType.float32
    st_t = TensorType(acc, (B, N, S, T))
    b, h, i, j = out_vars(4)
    (r,) = reduce_vars(1)
    args = ExprArgs()
    qa, ka = args.arg(q[0], q[1]), args.arg(k[0], k[1])
    dot = load(qa, q[1], q[2](b, h, i, r)) * load(ka, k[1], k[2](b, h, j, r))
    score = Var("acc", acc) * scale
    term = _mask_term(args, mask, b, i, j, B=B, mfv=float(ctx.attr("mask_filter_value", MASK_FILTER_VALUE)), acc=acc)
    if term is not None:
        score = score + term
    if attention_bias is not None:
        name, bt = attention_bias
        score = score + cast(load(args.arg(name, bt), bt, broadcast_index(st_t.shape, bt.shape, (b, h, i, j))), acc)
    if causal:
        score = select(binary("gt", j, i + P), const(-math.inf, acc), score)
    scores = ctx.temp(st_t, "scores")
    ctx.emit(TensorExpr("attention_scores", tuple(args.types), st_t, dot, Reduce("sum", (("r0", D),)), score),
             args.names, scores)
    softmax_pv(ctx, scores, st_t, v, y_t, out)


def _check_bias(ctx: LowerCtx, at: int, B: int, N: int, S: int, T: int):
    """attention_bias (input `at`) as (name, type) when given, checked to broadcast to (B, N, S, T)."""
    if not ctx.has_input(at):
        return None
    t = ctx.input(at)
    if t.rank != 4 or t.shape[2:] != (S, T) or t.shape[0] not in (1, B) or t.shape[1] not in (1, N):
        raise ctx.unsupported(f"attention_bias of shape {t.shape} does not broadcast to {(B, N, S, T)}")
    return ctx.in_name(at), t


def _scale(ctx: LowerCtx, D: int) -> float:
    s = ctx.attr("scale", 0.0)
    return float(s) if s else 1 / math.sqrt(D)


def _refuse(ctx: LowerCtx, attrs: tuple[str, ...], inputs: dict[int, str], outputs: dict[int, str]) -> None:
    for a in attrs:
        if int(ctx.attr(a, 0) or 0):
            raise ctx.unsupported(f"attribute {a}=1 is not supported", feature=True)
    for k, what in inputs.items():
        if ctx.has_input(k):
            raise ctx.unsupported(f"input {k} ({what}) is not supported", feature=True)
    for k, what in outputs.items():
        if ctx.node.has_output(k):
            raise ctx.unsupported(f"output {k} ({what}) is not supported", feature=True)


# --- Attention (packed projection) ---------------------------------------------------------------

def _packed_sizes(attr, w_shape) -> tuple[int, tuple[int, int, int]]:
    """(num_heads, (q, k, v hidden sizes)) of an Attention node; ValueError when inconsistent."""
    n = int(attr("num_heads", 0) or 0)
    if n <= 0:
        raise ValueError("num_heads must be positive")
    if len(w_shape) != 2:
        raise ValueError(f"weights of rank {len(w_shape)}, expected (input_hidden, q + k + v hidden)")
    sizes = tuple(int(s) for s in (attr("qkv_hidden_sizes", None) or ()))
    if not sizes:
        if w_shape[1] % 3:
            raise ValueError(f"weights' {w_shape[1]} columns are not three equal parts (give qkv_hidden_sizes)")
        sizes = (w_shape[1] // 3,) * 3
    if len(sizes) != 3 or sum(sizes) != w_shape[1] or sizes[0] != sizes[1] or any(s % n for s in sizes):
        raise ValueError(f"qkv_hidden_sizes {sizes} do not split the weights' {w_shape[1]} columns into "
                         f"Q and K of equal size and V, each a multiple of num_heads {n}")
    return n, sizes


def _infer_attention(pn, in_types, consts) -> list:
    x, w = in_types[0], in_types[1]
    if x is None or w is None or x.rank != 3:
        raise ShapeError("com.microsoft Attention needs a (batch, sequence, hidden) input and weights", node=pn.name)
    try:
        n, (hq, _, hv) = _packed_sizes(ProtoNode(pn).attr, w.shape)
    except ValueError as e:
        raise ShapeError(f"com.microsoft Attention: {e}", node=pn.name) from None
    past = in_types[4] if len(in_types) > 4 else None
    total = x.shape[1] + (past.shape[3] if past is not None else 0)
    outs = [TensorType(x.dtype, (x.shape[0], x.shape[1], hv)),
            TensorType(x.dtype, (2, x.shape[0], n, total, hq // n))]
    return [t if o else None for t, o in zip(outs, pn.output)]


def _ref_attention(node, inputs, opset):
    x, w, bias, mask, past, abias = (list(inputs) + [None] * 6)[:6]
    n, (hq, hk, hv) = _packed_sizes(node.attr, w.shape)
    ct = math_type(x.dtype)
    qkv = x.astype(ct) @ w.astype(ct)
    if bias is not None:
        qkv = qkv + bias.astype(ct)
    q, k, v = split_heads(qkv[..., :hq], n), split_heads(qkv[..., hq:hq + hk], n), split_heads(qkv[..., hq + hk:], n)
    P = 0
    if past is not None:
        P = past.shape[3]
        k = np.concatenate([past[0].astype(ct), k], axis=2)
        v = np.concatenate([past[1].astype(ct), v], axis=2)
    scale = float(node.attr("scale", 0.0) or 0.0) or 1 / math.sqrt(hq // n)
    y = _ref_attend(q, k, v, scale=scale, mask=mask, causal=bool(node.attr("unidirectional", 0)), past_len=P,
                    mfv=float(node.attr("mask_filter_value", MASK_FILTER_VALUE)), attention_bias=abias, dtype=x.dtype)
    return [y, np.stack([k, v]).astype(x.dtype)][:len(node.outputs)]


@register("Attention", reference=_ref_attention, domain=MS, infer=_infer_attention)
def lower_attention(ctx: LowerCtx) -> None:
    """The packed QKV GEMM (+ bias), the past in front of the new keys and values, then attention."""
    _refuse(ctx, ("do_rotary", "past_present_share_buffer"), {6: "past_sequence_length"}, {})
    x, w = ctx.input(0), ctx.input(1)
    if not x.dtype.is_float:
        raise ctx.unsupported(f"Attention on {x.dtype.name}")
    try:
        N, (hq, hk, hv) = _packed_sizes(ctx.attr, w.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    B, S, Din = x.shape
    D, Dv = hq // N, hv // N
    past = ctx.input(4) if ctx.has_input(4) else None
    if past is not None and (past.rank != 5 or past.shape[:3] != (2, B, N) or past.shape[4] != D or D != Dv):
        raise ctx.unsupported(f"past of shape {past.shape} is not (2, {B}, {N}, past length, {D}) "
                              f"with equal K and V head sizes")
    P = past.shape[3] if past is not None else 0
    T = P + S
    mask = (ctx.in_name(3), ctx.input(3)) if ctx.has_input(3) else None
    why = mask_check(mask[1].shape if mask else None, B, S, T, start_positions=True)
    if why:
        raise ctx.unsupported(why)

    # 1) Q, K and V projected together: one GEMM over the packed weights, the bias in its epilogue
    qkv_t = TensorType(x.dtype, (B, S, hq + hk + hv))
    b, s, c = out_vars(3)
    (kv,), red = reduction_axes([Din])
    body = load(0, x, (b, s, kv)) * load(1, w, (kv, c))
    epi, types, names = acc_var(body), [x, w], [ctx.in_name(0), ctx.in_name(1)]
    if ctx.has_input(2):
        epi = epi + load(2, ctx.input(2), (c,))
        types.append(ctx.input(2))
        names.append(ctx.in_name(2))
    qkv = ctx.temp(qkv_t, "qkv")
    ctx.emit(TensorExpr("gemm", tuple(types), qkv_t, body, red, epi), names, qkv)

    # 2) keys and values: read in place, or past ++ new as present (2, B, N, T, D)
    q = (qkv, qkv_t, lambda b_, h_, s_, d_: (b_, s_, h_ * D + d_))
    if past is None and not ctx.node.has_output(1):
        k = (qkv, qkv_t, lambda b_, h_, s_, d_: (b_, s_, hq + h_ * D + d_))
        v = (qkv, qkv_t, lambda b_, h_, s_, d_: (b_, s_, hq + hk + h_ * Dv + d_))
    else:
        pt = TensorType(x.dtype, (2, B, N, T, D))
        present = ctx.out_name(1) if ctx.node.has_output(1) else ctx.temp(pt, "present")
        which, pb, ph, ps, pd = out_vars(5)
        fresh = load(0, qkv_t, (pb, ps - P, hq + which * hk + ph * D + pd))
        if past is not None:
            body_p = select(ps < P, load(1, past, (which, pb, ph, ps, pd)), fresh)
            ctx.emit(TensorExpr("attention_present", (qkv_t, past), pt, body_p), [qkv, ctx.in_name(4)], present)
        else:
            ctx.emit(TensorExpr("attention_present", (qkv_t,), pt, fresh), [qkv], present)
        k = (present, pt, lambda b_, h_, s_, d_: (0, b_, h_, s_, d_))
        v = (present, pt, lambda b_, h_, s_, d_: (1, b_, h_, s_, d_))

    # 3-4) scores, softmax, P.V
    _emit_attention(ctx, q=q, k=k, v=v, B=B, N=N, S=S, T=T, D=D, P=P, scale=_scale(ctx, D),
                    causal=bool(ctx.attr("unidirectional", 0)), mask=mask,
                    attention_bias=_check_bias(ctx, 5, B, N, S, T), y_t=ctx.out_types[0], out=ctx.out_name(0))


# --- MultiHeadAttention (projected elsewhere) ----------------------------------------------------

_QUERY, _KEY, _VALUE, _BIAS, _MASK, _ABIAS, _PAST_K, _PAST_V = range(8)


def _mha_form(attr, shapes) -> tuple[str, int, int, int, int, int, int]:
    """(form, B, S, L, N, D, Dv) from the input shapes (None where absent): form is 'separate'
    (B, S, hidden) each, 'packed_qkv' (B, S, N, 3, H), 'packed_kv' (B, L, N, 2, H) or 'bnsh' (K and
    V as (B, N, L, H)); ValueError for anything else."""
    q, k, v = shapes[_QUERY], shapes[_KEY], shapes[_VALUE]
    n = int(attr("num_heads", 0) or 0)
    if n <= 0:
        raise ValueError("num_heads must be positive")
    if len(q) == 5:
        if k is not None or v is not None or q[2] != n or q[3] != 3:
            raise ValueError(f"packed QKV query {q} is not (batch, sequence, {n}, 3, head size) without key and value")
        return "packed_qkv", q[0], q[1], q[1], n, q[4], q[4]
    if len(q) != 3 or q[2] % n:
        raise ValueError(f"query {q} is not (batch, sequence, hidden) with hidden a multiple of {n} heads")
    D = q[2] // n
    if k is None:
        raise ValueError("key is required unless the query is packed QKV")
    if len(k) == 5:
        if v is not None or k[0] != q[0] or k[2] != n or k[3] != 2 or k[4] != D:
            raise ValueError(f"packed KV key {k} is not ({q[0]}, kv sequence, {n}, 2, {D}) without value")
        return "packed_kv", q[0], q[1], k[1], n, D, D
    if v is None or len(k) != len(v) or k[0] != q[0] or v[0] != q[0]:
        raise ValueError(f"key {k} and value {v} do not match query {q}")
    if len(k) == 4:
        if k[1] != n or v[1] != n or k[3] != D or k[2] != v[2]:
            raise ValueError(f"key {k} and value {v} are not ({q[0]}, {n}, kv sequence, head size)")
        return "bnsh", q[0], q[1], k[2], n, D, v[3]
    if len(k) != 3 or k[2] != q[2] or k[1] != v[1] or v[2] % n:
        raise ValueError(f"key {k} and value {v} are not ({q[0]}, kv sequence, {q[2]}) and ({q[0]}, kv sequence, "
                         f"a multiple of {n})")
    return "separate", q[0], q[1], k[1], n, D, v[2] // n


def _shapes(types) -> list:
    return [tuple(t.shape) if t is not None else None for t in (list(types) + [None] * 8)[:8]]


def _infer_mha(pn, in_types, consts) -> list:
    types = list(in_types) + [None] * 8
    if types[_QUERY] is None:
        raise ShapeError("com.microsoft MultiHeadAttention needs a query", node=pn.name)
    try:
        form, B, S, L, N, D, Dv = _mha_form(ProtoNode(pn).attr, _shapes(types))
    except ValueError as e:
        raise ShapeError(f"com.microsoft MultiHeadAttention: {e}", node=pn.name) from None
    past = types[_PAST_K]
    T = L + (past.shape[2] if past is not None else 0)
    dt = types[_QUERY].dtype
    outs = [TensorType(dt, (B, S, N * Dv)), TensorType(dt, (B, N, T, D)), TensorType(dt, (B, N, T, Dv))]
    return [t if o else None for t, o in zip(outs, pn.output)] + [None] * max(0, len(pn.output) - 3)


def _ref_mha(node, inputs, opset):
    ins = (list(inputs) + [None] * 8)[:8]
    form, B, S, L, N, D, Dv = _mha_form(node.attr, [None if a is None else a.shape for a in ins])
    ct = math_type(ins[_QUERY].dtype)
    q, k, v, bias = ins[_QUERY].astype(ct), ins[_KEY], ins[_VALUE], ins[_BIAS]
    if form == "packed_qkv":
        q, k, v = (q[:, :, :, t].transpose(0, 2, 1, 3) for t in range(3))
    elif form == "packed_kv":
        q = split_heads(q, N)
        k, v = (k.astype(ct)[:, :, :, t].transpose(0, 2, 1, 3) for t in range(2))
    elif form == "bnsh":
        q, k, v = split_heads(q, N), k.astype(ct), v.astype(ct)
    else:
        q, k, v = split_heads(q, N), split_heads(k.astype(ct), N), split_heads(v.astype(ct), N)
    if bias is not None:
        bq, bk, bv = np.split(bias.astype(ct), [N * D, 2 * N * D])
        q = q + bq.reshape(N, 1, D)
        k = k + bk.reshape(N, 1, D)
        v = v + bv.reshape(N, 1, Dv)
    P = 0
    if ins[_PAST_K] is not None:
        P = ins[_PAST_K].shape[2]
        k = np.concatenate([ins[_PAST_K].astype(ct), k], axis=2)
        v = np.concatenate([ins[_PAST_V].astype(ct), v], axis=2)
    scale = float(node.attr("scale", 0.0) or 0.0) or 1 / math.sqrt(D)
    dt = ins[_QUERY].dtype
    y = _ref_attend(q, k, v, scale=scale, mask=ins[_MASK], causal=bool(node.attr("unidirectional", 0)), past_len=P,
                    mfv=float(node.attr("mask_filter_value", MASK_FILTER_VALUE)), attention_bias=ins[_ABIAS], dtype=dt)
    return [y, k.astype(dt), v.astype(dt)][:len(node.outputs)]


def _biased(ctx: LowerCtx, name: str, t: TensorType, bias_at) -> str:
    """`name` + the bias element `bias_at(out vars)` (an index into input _BIAS), as a new value."""
    out = ctx.temp(t, "biased")
    ov = out_vars(t.rank)
    bt = ctx.input(_BIAS)
    ctx.emit(TensorExpr("bias_add", (t, bt), t, load(0, t, ov) + cast(load(1, bt, (bias_at(ov),)), t.dtype)),
             [name, ctx.in_name(_BIAS)], out)
    return out


@register("MultiHeadAttention", reference=_ref_mha, domain=MS, infer=_infer_mha)
def lower_multi_head_attention(ctx: LowerCtx) -> None:
    """Q, K and V (+ bias) read in their layout, the past in front of the new keys and values,
    then attention."""
    _refuse(ctx, (), {8: "past_sequence_length", 9: "cache_indirection"}, {3: "qk"})
    if not ctx.input(_QUERY).dtype.is_float:
        raise ctx.unsupported(f"MultiHeadAttention on {ctx.input(_QUERY).dtype.name}")
    try:
        form, B, S, L, N, D, Dv = _mha_form(ctx.attr, _shapes([ctx.input(k) if ctx.has_input(k) else None
                                                               for k in range(8)]))
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    has_bias = ctx.has_input(_BIAS)
    if has_bias and ctx.input(_BIAS).shape != (2 * N * D + N * Dv,):
        raise ctx.unsupported(f"bias of shape {ctx.input(_BIAS).shape} is not ({2 * N * D + N * Dv},)")
    if has_bias and form == "bnsh":
        raise ctx.unsupported("a bias with key and value already per head (batch, heads, sequence, size)")
    if ctx.has_input(_PAST_K) != ctx.has_input(_PAST_V):
        raise ctx.unsupported("past_key and past_value must be given together")
    past_k = ctx.input(_PAST_K) if ctx.has_input(_PAST_K) else None
    P = past_k.shape[2] if past_k is not None else 0
    if past_k is not None:
        if form == "bnsh":
            raise ctx.unsupported("past_key/past_value with key and value already per head")
        for at, size in ((_PAST_K, D), (_PAST_V, Dv)):
            if ctx.input(at).shape != (B, N, P, size):
                raise ctx.unsupported(f"input {at} of shape {ctx.input(at).shape} is not {(B, N, P, size)}")
    T = P + L
    mask = (ctx.in_name(_MASK), ctx.input(_MASK)) if ctx.has_input(_MASK) else None
    why = mask_check(mask[1].shape if mask else None, B, S, T, start_positions=False)
    if why:
        raise ctx.unsupported(why)

    # each operand as (name, type, at(b, h, s, d)), the bias added by its own elementwise map
    qn, qt = ctx.in_name(_QUERY), ctx.input(_QUERY)
    if form == "packed_qkv":
        if has_bias:
            qn = _biased(ctx, qn, qt, lambda o: o[3] * N * D + o[2] * D + o[4])
        q = (qn, qt, lambda b, h, s, d: (b, s, h, 0, d))
        k_new = (qn, qt, lambda b, h, s, d: (b, s, h, 1, d))
        v_new = (qn, qt, lambda b, h, s, d: (b, s, h, 2, d))
    else:
        if has_bias:
            qn = _biased(ctx, qn, qt, lambda o: o[2])
        q = (qn, qt, lambda b, h, s, d: (b, s, h * D + d))
        kn, kt = ctx.in_name(_KEY), ctx.input(_KEY)
        if form == "packed_kv":
            if has_bias:
                kn = _biased(ctx, kn, kt, lambda o: N * D + o[3] * N * D + o[2] * D + o[4])
            k_new = (kn, kt, lambda b, h, s, d: (b, s, h, 0, d))
            v_new = (kn, kt, lambda b, h, s, d: (b, s, h, 1, d))
        elif form == "bnsh":
            k_new = (kn, kt, lambda b, h, s, d: (b, h, s, d))
            vt = ctx.input(_VALUE)
            v_new = (ctx.in_name(_VALUE), vt, lambda b, h, s, d: (b, h, s, d))
        else:
            vn, vt = ctx.in_name(_VALUE), ctx.input(_VALUE)
            if has_bias:
                kn = _biased(ctx, kn, kt, lambda o: N * D + o[2])
                vn = _biased(ctx, vn, vt, lambda o: 2 * N * D + o[2])
            k_new = (kn, kt, lambda b, h, s, d: (b, s, h * D + d))
            v_new = (vn, vt, lambda b, h, s, d: (b, s, h * Dv + d))

    def present(new, past_at: int, out_at: int, size: int):
        """past ++ new as (B, N, T, size), written to output `out_at` when asked for."""
        if past_k is None and not ctx.node.has_output(out_at):
            return new
        name, t, at = new
        pt = TensorType(t.dtype, (B, N, T, size))
        dst = ctx.out_name(out_at) if ctx.node.has_output(out_at) else ctx.temp(pt, f"present{out_at}")
        b, h, s, d = out_vars(4)
        fresh = load(0, t, at(b, h, s - P, d))
        if past_k is not None:
            body = select(s < P, load(1, ctx.input(past_at), (b, h, s, d)), fresh)
            ctx.emit(TensorExpr("attention_present", (t, ctx.input(past_at)), pt, body),
                     [name, ctx.in_name(past_at)], dst)
        else:
            ctx.emit(TensorExpr("attention_present", (t,), pt, fresh), [name], dst)
        return dst, pt, lambda b_, h_, s_, d_: (b_, h_, s_, d_)

    k = present(k_new, _PAST_K, 1, D)
    v = present(v_new, _PAST_V, 2, Dv)
    _emit_attention(ctx, q=q, k=k, v=v, B=B, N=N, S=S, T=T, D=D, P=P, scale=_scale(ctx, D),
                    causal=bool(ctx.attr("unidirectional", 0)), mask=mask,
                    attention_bias=_check_bias(ctx, _ABIAS, B, N, S, T), y_t=ctx.out_types[0], out=ctx.out_name(0))


# --- RotaryEmbedding (com.microsoft) -------------------------------------------------------------

def _ms_rotary_attrs(attr, x_shape, cos_shape) -> list[tuple[str, object]]:
    """The ONNX RotaryEmbedding's attributes for a com.microsoft one: its num_heads, or for 3-D
    input with none the head size read off the caches (rotary over the whole head)."""
    rd = int(attr("rotary_embedding_dim", 0) or 0)
    attrs = [("interleaved", int(attr("interleaved", 0) or 0)), ("rotary_embedding_dim", rd)]
    if len(x_shape) == 3:
        heads = int(attr("num_heads", 0) or 0)
        if not heads:
            if rd:
                raise ValueError("3-D input with rotary_embedding_dim needs num_heads")
            heads = x_shape[2] // (2 * cos_shape[1])
        attrs.append(("num_heads", heads))
    return attrs


def _ms_positions(pos: np.ndarray, b: int, s: int) -> np.ndarray:
    """(B, S) position ids: as given, or from a one-element start offset."""
    return pos.reshape(1, 1) + np.arange(s).reshape(1, s) + np.zeros((b, 1), pos.dtype) if pos.size == 1 else pos


def _ref_ms_rotary(node, inputs, opset):
    from ..ir.graph import Node
    from .registry import lookup
    x, pos, cos, sin = inputs[:4]
    b, s = (x.shape[0], x.shape[1]) if x.ndim == 3 else (x.shape[0], x.shape[2])
    attrs = tuple(_ms_rotary_attrs(node.attr, x.shape, cos.shape))
    onnx_node = Node("RotaryEmbedding", node.name, ("x", "cos", "sin", "pos"), ("y",), attrs)
    return lookup("RotaryEmbedding").reference(onnx_node, [x, cos, sin, _ms_positions(pos, b, s)], 23)


def _infer_ms_rotary(pn, in_types, consts) -> list:
    return [in_types[0]]


@register("RotaryEmbedding", reference=_ref_ms_rotary, domain=MS, infer=_infer_ms_rotary)
def lower_ms_rotary_embedding(ctx: LowerCtx) -> None:
    """The ONNX RotaryEmbedding over (input, cos_cache, sin_cache, position_ids), the position ids
    made from a start offset when one is given."""
    if int(ctx.attr("is_packed_batching", 0) or 0):
        raise ctx.unsupported("is_packed_batching=1 is not supported")
    x, pt, ct = ctx.input(0), ctx.input(1), ctx.input(2)
    try:
        attrs = _ms_rotary_attrs(ctx.attr, x.shape, ct.shape)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    b, s = (x.shape[0], x.shape[1]) if x.rank == 3 else (x.shape[0], x.shape[2])
    pos = 1
    if pt.size == 1:
        full = TensorType(DType.int64, (b, s))
        name = ctx.temp(full, "position_ids")
        _, sv = out_vars(2)
        ctx.emit(TensorExpr("position_ids", (pt,), full,
                            cast(load(0, pt, (const(0, DType.int64),) * pt.rank), DType.int64) + sv),
                 [ctx.in_name(1)], name)
        pos = (name, full)
    elif pt.shape != (b, s):
        raise ctx.unsupported(f"position_ids of shape {pt.shape} are neither ({b}, {s}) nor a start offset")
    ctx.lower_as("RotaryEmbedding", (0, 2, 3, pos), x, attrs, out=ctx.out_name(0), opset=23)
