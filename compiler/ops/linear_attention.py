"""LinearAttention (ONNX opset 27): attention as a recurrence over a state matrix per key/value head,
the form of linear-attention, RetNet, GLA, DeltaNet and gated DeltaNet layers.

Per batch element b and key/value head h, the state S is d_k x d_v (past_state, else zeros). Each
step t, with k, v the head's key and value at t, q the query of every query head sharing h (GQA),
g the decay (log space; one per head, or one per key dimension) and beta the update rate:

    gated, gated_delta:  S <- diag(exp(g)) S
    linear, gated:       S <- S + k v^T
    delta, gated_delta:  S <- S + beta k (v - S^T k)^T      (S already decayed)
    output:              o_q = scale q^T S                  (scale 0: 1 / sqrt(d_k))

and present_state is the last S. Heads are packed in the last axis of the 3-D inputs.

The kernel (one launch, all steps on the device) gives a block to each (b, h) and a thread to each
column j of S: the thread keeps S[:, j] in registers, so the decay, the update and every q^T S
product are its own, with no reduction across threads; a step's k, q, g and beta are staged in
shared memory for the block, with a barrier before and after. Accumulation is in fp32 (fp64 for
double inputs), as the reference computes it."""
from __future__ import annotations

import math

import numpy as np

from ..codegen.block_function import BLOCK_X, finish_kernel
from ..codegen.cuda import c_const
from ..ir.dtypes import DType
from ..ir.kernel import Kernel, KernelParam
from .registry import LowerCtx, register

RULES = ("linear", "gated", "delta", "gated_delta")
_PAST, _DECAY, _BETA = 3, 4, 5       # the optional inputs
MAX_DV = 1024                          # a thread per column of the state
MAX_DK = 512                           # a column of the state in one thread's registers (or local memory)


def _config(node, q_shape, k_shape, v_shape, decay_last, beta_last):
    """(rule, Hq, Hkv, d_k, d_v, scale, per-key decay?) from the node's attributes and shapes, or
    ValueError naming what the specification does not allow."""
    rule = str(node.attr("update_rule", "gated_delta"))     # (IR attributes are decoded strings)
    if rule not in RULES:
        raise ValueError(f"update_rule '{rule}' is not one of {', '.join(RULES)}")
    hq, hkv = node.attr("q_num_heads"), node.attr("kv_num_heads")
    if hq is None or hkv is None:
        raise ValueError("q_num_heads and kv_num_heads are required")
    hq, hkv = int(hq), int(hkv)
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise ValueError(f"q_num_heads ({hq}) must be a positive multiple of kv_num_heads ({hkv})")
    for name, shape, heads in (("query", q_shape, hq), ("key", k_shape, hkv), ("value", v_shape, hkv)):
        if len(shape) != 3 or shape[2] % heads:
            raise ValueError(f"{name} must be (B, T, heads * d) with its last axis a multiple of {heads}, "
                             f"not {tuple(shape)}")
    dk, dv = q_shape[2] // hq, v_shape[2] // hkv
    if k_shape[2] // hkv != dk:
        raise ValueError(f"key's head size {k_shape[2] // hkv} differs from query's {dk}")
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if gating != (decay_last is not None):
        raise ValueError(f"update_rule '{rule}' {'needs' if gating else 'takes no'} decay")
    if delta != (beta_last is not None):
        raise ValueError(f"update_rule '{rule}' {'needs' if delta else 'takes no'} beta")
    if decay_last is not None and decay_last not in (hkv, hkv * dk):
        raise ValueError(f"decay's last axis must be kv_num_heads ({hkv}) or kv_num_heads * d_k ({hkv * dk}), "
                         f"not {decay_last}")
    if beta_last is not None and beta_last not in (hkv, 1):
        raise ValueError(f"beta's last axis must be kv_num_heads ({hkv}) or 1, not {beta_last}")
    scale = float(node.attr("scale", 0.0) or 0.0) or 1.0 / math.sqrt(dk)
    return rule, hq, hkv, dk, dv, scale, decay_last is not None and decay_last == hkv * dk and dk != 1


def _reference(node, inputs, opset):
    q, k, v, past, decay, beta = (list(inputs) + [None] * 6)[:6]
    rule, hq, hkv, dk, dv, scale, _ = _config(node, q.shape, k.shape, v.shape,
                                               None if decay is None else decay.shape[-1],
                                               None if beta is None else beta.shape[-1])
    b, t = q.shape[:2]
    f = np.float64 if q.dtype == np.float64 else np.float32
    heads = lambda x, n: x.astype(f).reshape(b, t, n, -1)      # (B, T, heads, d)
    qh, kh, vh = heads(q, hq), heads(k, hkv), heads(v, hkv)
    g = None if decay is None else heads(decay, hkv)            # (B, T, Hkv, 1 or d_k)
    bt = None if beta is None else beta.astype(f).reshape(b, t, -1)   # (B, T, Hkv or 1)
    state = np.zeros((b, hkv, dk, dv), f) if past is None else past.astype(f).copy()
    group = hq // hkv
    out = np.zeros((b, t, hq, dv), f)
    for s in range(t):
        if g is not None:
            state *= np.exp(g[:, s])[..., None]                     # rows of S by exp(g)
        ks, vs = kh[:, s], vh[:, s]                                 # (B, Hkv, d)
        if bt is not None:
            recalled = np.einsum("bhkv,bhk->bhv", state, ks)
            rate = np.broadcast_to(bt[:, s], (b, hkv))[..., None]
            state += np.einsum("bhk,bhv->bhkv", ks, rate * (vs - recalled))
        else:
            state += np.einsum("bhk,bhv->bhkv", ks, vs)
        shared = np.repeat(state, group, axis=1)                    # query head -> its key/value head
        out[:, s] = scale * np.einsum("bhk,bhkv->bhv", qh[:, s], shared)
    state_dtype = past.dtype if past is not None else q.dtype
    return [out.reshape(b, t, hq * dv).astype(q.dtype), state.astype(state_dtype)][:len(node.outputs)]


@register("LinearAttention", reference=_reference)
def lower_linear_attention(ctx: LowerCtx) -> None:
    """One device loop over the steps: a block per (batch element, key/value head), a thread per
    state column (module docstring)."""
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    has = {i: ctx.has_input(i) for i in (_PAST, _DECAY, _BETA)}
    if not (q.dtype.is_float and k.dtype is q.dtype and v.dtype is q.dtype):
        raise ctx.unsupported(f"LinearAttention on {q.dtype.name}, {k.dtype.name}, {v.dtype.name}")
    for i in (_DECAY, _BETA):
        if has[i] and (ctx.input(i).dtype is not q.dtype or ctx.input(i).rank != 3):
            raise ctx.unsupported(f"input {i} must be (B, T, n) of the query's type")
    try:
        rule, hq, hkv, dk, dv, scale, per_key = _config(
            ctx.node, q.shape, k.shape, v.shape,
            ctx.input(_DECAY).shape[-1] if has[_DECAY] else None, ctx.input(_BETA).shape[-1] if has[_BETA] else None)
    except ValueError as e:
        raise ctx.unsupported(str(e)) from None
    if dv > MAX_DV or dk > MAX_DK:
        raise ctx.unsupported(f"head sizes d_k {dk}, d_v {dv}: the kernel holds d_k <= {MAX_DK} values a "
                              f"thread and d_v <= {MAX_DV} threads")
    b, t = q.shape[:2]
    acc = DType.float64 if q.dtype is DType.float64 else DType.float32
    T, CT = q.dtype.ctype, acc.ctype
    state_t = ctx.out_types[1] if len(ctx.out_types) > 1 else None
    ST = state_t.dtype.ctype if state_t is not None else (ctx.input(_PAST).dtype.ctype if has[_PAST] else T)
    lit = lambda x: c_const(x, acc)

    params = [KernelParam(T, ctx.in_name(0), False), KernelParam(T, ctx.in_name(1), False),
              KernelParam(T, ctx.in_name(2), False)]
    decl = [f"const {T}* __restrict__ q", f"const {T}* __restrict__ k", f"const {T}* __restrict__ v"]
    if has[_PAST]:
        pt = ctx.input(_PAST)
        if pt.shape != (b, hkv, dk, dv) or not pt.dtype.is_float:
            raise ctx.unsupported(f"past_state must be float ({b}, {hkv}, {dk}, {dv}), not {pt}")
        params.append(KernelParam(pt.dtype.ctype, ctx.in_name(_PAST), False))
        decl.append(f"const {pt.dtype.ctype}* __restrict__ past")
    for i, name in ((_DECAY, "decay"), (_BETA, "beta")):
        if has[i]:
            params.append(KernelParam(T, ctx.in_name(i), False))
            decl.append(f"const {T}* __restrict__ {name}")
    params.append(KernelParam(T, ctx.out_name(0), True))
    decl.append(f"{T}* __restrict__ out")
    if ctx.node.has_output(1):
        params.append(KernelParam(ST, ctx.out_name(1), True))
        decl.append(f"{ST}* __restrict__ present")

    group = hq // hkv
    threads = max(32, -(-dv // 32) * 32)
    ng = dk if per_key else 1
    nb = 1 if not has[_BETA] else ctx.input(_BETA).shape[-1]
    # shared: this step's k (d_k), the group's queries (group * d_k), the decay (1 or d_k), beta
    k_at, q_at, g_at, b_at = 0, dk, dk + group * dk, dk + group * dk + ng
    smem = (b_at + 1) * acc.itemsize
    L = [f"  constexpr int T_ = {t}, HQ = {hq}, HKV = {hkv}, DK = {dk}, DV = {dv}, GROUP = {group};",
         "  BY_SHARED_BUFFER(smem);",
         f"  {CT}* sh = ({CT}*)smem;",
         f"  const int bh = {BLOCK_X};",
         "  const int bi = bh / HKV, h = bh % HKV;",
         "  const int j = threadIdx.x;",
         "  const bool col = j < DV;",
         f"  {CT} s[DK];",
         "  #pragma unroll",
         "  for (int i = 0; i < DK; ++i)",
         (f"    s[i] = col ? ({CT})past[(((long long)bi * HKV + h) * DK + i) * DV + j] : {lit(0.0)};"
          if has[_PAST] else f"    s[i] = {lit(0.0)};"),
         "  for (int t = 0; t < T_; ++t) {",
         "    const long long row = (long long)bi * T_ + t;",
         "    for (int e = threadIdx.x; e < DK; e += blockDim.x)",
         f"      sh[{k_at} + e] = ({CT})k[row * HKV * DK + (long long)h * DK + e];",
         "    for (int e = threadIdx.x; e < GROUP * DK; e += blockDim.x)",
         f"      sh[{q_at} + e] = ({CT})q[row * HQ * DK + ((long long)h * GROUP) * DK + e];"]
    if has[_DECAY]:
        src = "row * HKV * DK + (long long)h * DK + e" if per_key else "row * HKV + h"
        L += [f"    for (int e = threadIdx.x; e < {ng}; e += blockDim.x)",
              f"      sh[{g_at} + e] = by_exp(({CT})decay[{src}]);"]
    if has[_BETA]:
        L += ["    if (threadIdx.x == 0)",
              f"      sh[{b_at}] = ({CT})beta[row * {nb} + {'h' if nb > 1 else '0'}];"]
    L += ["    __syncthreads();",
          "    if (col) {"]
    if has[_DECAY]:
        L += ["      #pragma unroll",
              "      for (int i = 0; i < DK; ++i)",
              f"        s[i] *= sh[{g_at} + {'i' if per_key else '0'}];"]
    L.append(f"      const {CT} vj = ({CT})v[row * HKV * DV + (long long)h * DV + j];")
    if has[_BETA]:
        L += [f"      {CT} recalled = {lit(0.0)};",
              "      #pragma unroll",
              "      for (int i = 0; i < DK; ++i)",
              f"        recalled += s[i] * sh[{k_at} + i];",
              f"      const {CT} w = sh[{b_at}] * (vj - recalled);"]
    else:
        L.append(f"      const {CT} w = vj;")
    L += ["      #pragma unroll",
          "      for (int i = 0; i < DK; ++i)",
          f"        s[i] += sh[{k_at} + i] * w;",
          "      for (int gq = 0; gq < GROUP; ++gq) {",
          f"        {CT} o = {lit(0.0)};",
          "        #pragma unroll",
          "        for (int i = 0; i < DK; ++i)",
          f"          o += sh[{q_at} + gq * DK + i] * s[i];",
          f"        out[row * HQ * DV + ((long long)h * GROUP + gq) * DV + j] = ({T})({lit(scale)} * o);",
          "      }",
          "    }",
          "    __syncthreads();",
          "  }"]
    if ctx.node.has_output(1):
        L += ["  if (col) {",
              "    #pragma unroll",
              "    for (int i = 0; i < DK; ++i)",
              f"      present[(((long long)bi * HKV + h) * DK + i) * DV + j] = ({ST})(s[i]);",
              "  }"]
    entry, source = finish_kernel("linear_attention", decl, L, launch_bounds=(threads,))
    flops = b * t * hkv * dk * dv * (2 + (2 if has[_DECAY] else 0) + (2 if has[_BETA] else 0)) + 2 * b * t * hq * dk * dv
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=tuple(params), grid=(b * hkv, 1, 1),
                           block=(threads, 1, 1), shared_bytes=smem,
                           config=(("block_threads", threads), ("schedule", "device_loop_linear_attention"),
                                   ("update_rule", rule), ("flops", flops), ("sequential_steps", t),
                                   ("grid_syncs_per_step", 0),
                                   ("rows_bytes_per_step", (hq * dk + hkv * (dk + dv)) * q.dtype.itemsize))))
