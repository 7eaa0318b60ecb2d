"""The CUDA of kind flash_decoding (compiler/kinds/flash_decoding.py says what it computes and why
its blocks split the keys).

Block b is split s = b % S of head b / S: all Q queries of the head against keys
[s CH, min((s + 1) CH, J)). With a head group of G (grouped-query attention whose keys are
repeated per query head), "head" is a group of G heads that read the same keys and values, and
its Q rows are the G heads' queries, head by head (codegen/flash_attention.py head_index).
Its Q rows are loaded into shared memory once, in fp32; then

1. scores: warp w takes keys w, w + WARPS, ...; lane l reads the key's elements l, l + 32, ...
   (each operand is an expression of the model's values, rendered element by element:
   transposes, scales and reshapes are index maps), multiplies them with each query's, and the
   warp sums over a shuffle tree; lane a then evaluates row a's score epilogue and logit, rounded
   to the stored type as the chain would store it, into the chunk's row of shared memory;
2. each row's max over the chunk (a warp a row), then its weights exp(a - max) in place of the
   logits and their sum;
3. O += P.V: thread t owns value columns t % CL, + CL, ... of every query and walks keys
   t / CL, + KG, ...; the KG key groups' sums are added through shared memory.

With one split the closing follows at once. With S splits each block writes its (O_s, m_s, l_s)
rows to the workspace, and the last of the head's blocks to arrive (by_arrive, the launch's own
counters) combines the S partials in split order: M = max m_s, l = sum l_s exp(m_s - M),
O = sum O_s exp(m_s - M). The closing is the other attention kernels' (codegen/flash_attention.py):
the chain's statistics from M and l, the final epilogue at the output's own index."""
from __future__ import annotations

from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from .block_function import BLOCK_X, finish_kernel
from .cuda import decompose_index
from .flash_attention import (INDEX, S_VALUE, _rounded, _Scope, head_index, head_rows, kernel_params, operand_types,
                              output_write, row_statistics)

THREADS = 128
WARPS = THREADS // 32
QK_UNROLL = 4               # keys a warp has in flight in the scores' loop
PV_UNROLL = 8               # keys a thread has in flight in O's loop


def _warp(combine: str, var: str) -> list[str]:
    """`var` combined over a warp's 32 lanes: `combine` formats the new value from {v} and {other}."""
    return [f"{var} = " + combine.format(v=var, other=f"__shfl_xor_sync(0xffffffffu, {var}, {o})") + ";"
            for o in (16, 8, 4, 2, 1)]


def render_flash_decoding(spec: KernelSpec, att, t, config: tuple) -> Kernel:
    chain = att.chain
    res, mx, fin = chain.resident, chain.stats[0], chain.final
    ext = spec.inputs
    types = operand_types(spec)
    in_args = {v: f"in{j}" for j, v in enumerate(ext)}
    rows, heads = chain.rows, att.heads
    n = len(rows) + 1                       # the resident stage's rank: rows, then the key
    J, D, DV, Q, G = chain.length, att.head_dim, att.value_dim, t.q, t.group
    blocks_heads = att.head_count // G      # the grid's heads: groups of G
    S, CH, DL, CL, KG, CM, WR = t.splits, t.ch, t.dl, t.col_lanes, t.key_groups, t.cm, t.ws_row
    s_vars = [f"i{a}" for a in range(n - 1)]                   # resident/statistics rows
    f_vars = [f"i{a}" for a in fin.row_axes]                   # the final's rows
    fte = fin.expr
    r_var = res.expr.reduce.axes[0][0]
    j_final = fte.reduce.axes[0][0]
    col_names = [f"i{a}" for a in att.cols]
    col_shape = tuple(fte.output.shape[a] for a in att.cols)
    sh = t.shared_floats()

    def rows_decl(ind: str, names: list[str], q: str) -> list[str]:
        return head_rows(att, ind, names, q, G)

    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  float* const by_qs = reinterpret_cast<float*>(by_smem);",
         f"  float* const by_ps = by_qs + {sh['q']};",
         f"  float* const by_st = by_ps + {sh['p']};   // the rows' max, then their sum",
         f"  float* const by_os = by_st + {sh['stat']};",
         f"  int* const by_flag = reinterpret_cast<int*>(by_os + {sh['o']});",
         "  (void)by_os; (void)by_flag;",
         "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;",
         f"  const {INDEX} by_split = ({INDEX}){BLOCK_X} % {S};",
         f"  const {INDEX} by_head = ({INDEX}){BLOCK_X} / {S};",
         f"  const {INDEX} by_j0 = by_split * {CH};",
         f"  const int by_n = (int)({J} - by_j0 < {CH} ? {J} - by_j0 : {CH});   // the chunk's keys",
         "  (void)lane; (void)warp;"] + head_index(att, G)

    # the queries, once
    qs = _Scope(res, in_args, "tq")
    body, x = qs.value(att.q, "    ")
    L += [f"  for (int by_lin = tid; by_lin < {Q * D}; by_lin += {THREADS}) {{",
          f"    const int by_q = by_lin / {D}, by_dd = by_lin % {D};"]
    L += rows_decl("    ", s_vars, "by_q")
    L += [f"    const {INDEX} {r_var} = by_dd;"] + body + [f"    by_qs[by_lin] = (float)({x});", "  }",
                                                     "  __syncthreads();"]

    # 1. scores, a warp a key
    ks = _Scope(res, in_args, "tk")
    k_body, y = ks.value(att.k, "        ")
    ss = _Scope(res, in_args, "ts")
    ls = _Scope(mx, in_args, "tl")
    ind = "      "
    s_body, s_val = ss.value(att.score, ind, acc="by_mine") if att.score is not None else ([], "by_mine")
    l_body, l_val = ls.value(att.logit, ind)
    L += [f"  #pragma unroll {QK_UNROLL}",
          f"  for (int by_jl = warp; by_jl < by_n; by_jl += {WARPS}) {{",
          f"    const {INDEX} by_j = by_j0 + by_jl;",
          f"    float by_acc[{Q}];",
          "    #pragma unroll", f"    for (int a = 0; a < {Q}; ++a) by_acc[a] = 0.0f;",
          "    #pragma unroll", f"    for (int u = 0; u < {DL}; ++u) {{",
          "      const int by_dd = lane + 32 * u;"]
    if D % 32:
        L.append(f"      if (by_dd >= {D}) break;")
    L += ["      {"]
    L += [f"        const {INDEX} {s_vars[p]} = by_hv[{p}];" for p in range(heads)]
    L += [f"        const {INDEX} i{n - 1} = by_j;", f"        const {INDEX} {r_var} = by_dd;"]
    L += k_body + [f"        const float by_k = (float)({y});",
                   "        #pragma unroll", f"        for (int a = 0; a < {Q}; ++a) "
                   f"by_acc[a] = fmaf(by_qs[a * {D} + by_dd], by_k, by_acc[a]);", "      }", "    }"]
    L += ["    float by_mine = 0.0f;   // lane a keeps query a's score (a select: the sums stay in registers)",
          "    #pragma unroll", f"    for (int a = 0; a < {Q}; ++a) {{"]
    L += ["      " + s for s in _warp("{v} + {other}", "by_acc[a]")]
    L += ["      if (lane == a) by_mine = by_acc[a];", "    }",
          f"    if (lane < {Q}) {{"]
    L += rows_decl(ind, s_vars, "lane")
    L += [f"{ind}const {INDEX} i{n - 1} = by_j;", f"{ind}const {INDEX} {att.key_var} = by_j;",
          f"{ind}(void)i{n - 1}; (void){att.key_var};"]
    L += s_body + [f"{ind}const float {S_VALUE} = {_rounded(s_val, res.expr.output.dtype)};"]
    L += l_body + [f"{ind}by_ps[lane * {CH} + by_jl] = (float)({l_val});", "    }", "  }",
                   "  __syncthreads();"]

    # 2. the chunk's softmax, a warp a row
    L += [f"  for (int a = warp; a < {Q}; a += {WARPS}) {{",
          "    float by_mx = -by_inf_f();",
          f"    for (int by_jl = lane; by_jl < by_n; by_jl += 32) by_mx = fmaxf(by_mx, by_ps[a * {CH} + by_jl]);"]
    L += ["    " + s for s in _warp("fmaxf({v}, {other})", "by_mx")]
    L += ["    const float by_muse = by_mx == -by_inf_f() ? 0.0f : by_mx;",
          "    float by_l = 0.0f;",
          "    for (int by_jl = lane; by_jl < by_n; by_jl += 32) {",
          f"      const float p = expf(by_ps[a * {CH} + by_jl] - by_muse);",
          f"      by_ps[a * {CH} + by_jl] = p;", "      by_l += p;", "    }"]
    L += ["    " + s for s in _warp("{v} + {other}", "by_l")]
    L += [f"    if (lane == 0) {{ by_st[a] = by_mx; by_st[{Q} + a] = by_l; }}", "  }", "  __syncthreads();"]

    # 3. O += P.V: a thread a column (CM of them), the key groups over the chunk's keys
    vs = _Scope(fin, in_args, "tv")
    v_body, v = vs.value(att.v, "        ")
    L += [f"  const int by_c0 = tid % {CL}, by_kg = tid / {CL};",
          f"  float by_o[{Q}][{CM}];",
          "  #pragma unroll", f"  for (int a = 0; a < {Q}; ++a)",
          "    #pragma unroll", f"    for (int c = 0; c < {CM}; ++c) by_o[a][c] = 0.0f;",
          f"  #pragma unroll {PV_UNROLL}",
          f"  for (int by_jl = by_kg; by_jl < by_n; by_jl += {KG}) {{",
          f"    const {INDEX} by_j = by_j0 + by_jl;",
          f"    float by_vv[{CM}];",
          "    #pragma unroll", f"    for (int c = 0; c < {CM}; ++c) {{",
          f"      const {INDEX} by_cc = by_c0 + {CL} * c;",
          "      by_vv[c] = 0.0f;",
          f"      if (by_cc < {DV}) {{"]
    L += [f"        const {INDEX} {f_vars[p]} = by_hv[{p}];" for p in range(heads)]
    L += decompose_index("        ", "by_cc", col_shape, col_names, "by_crem", INDEX)
    L += [f"        const {INDEX} {j_final} = by_j;"]
    L += v_body + [f"        by_vv[c] = (float)({v});", "      }", "    }",
                   "    #pragma unroll", f"    for (int a = 0; a < {Q}; ++a) {{",
                   f"      const float p = by_ps[a * {CH} + by_jl];",
                   "      #pragma unroll", f"      for (int c = 0; c < {CM}; ++c) by_o[a][c] = fmaf(p, by_vv[c], by_o[a][c]);",
                   "    }", "  }"]
    if KG > 1:      # the key groups' sums, added by group 0
        L += ["  #pragma unroll", f"  for (int a = 0; a < {Q}; ++a)",
              "    #pragma unroll", f"    for (int c = 0; c < {CM}; ++c) by_os[(a * {CM} + c) * {THREADS} + tid] = by_o[a][c];",
              "  __syncthreads();",
              "  if (by_kg == 0) {",
              "    #pragma unroll", f"    for (int a = 0; a < {Q}; ++a)",
              "      #pragma unroll", f"      for (int c = 0; c < {CM}; ++c)",
              f"        for (int g = 1; g < {KG}; ++g) by_o[a][c] += by_os[(a * {CM} + c) * {THREADS} + tid + {CL} * g];",
              "  }"]

    def closing(ind: str, q: str) -> list[str]:
        """Finishes query `q`'s column by_cc from by_mfin, by_lsum and by_sum (O's accumulator)."""
        return output_write(att, in_args, ind, rows_decl(ind, f_vars, q) +
                            decompose_index(ind, "by_cc", col_shape, col_names, "by_crem", INDEX))

    if S == 1:
        L += ["  if (by_kg != 0) return;",
              "  #pragma unroll", f"  for (int a = 0; a < {Q}; ++a) {{",
              "    const float by_mfin = by_st[a], by_lsum = by_st[" + str(Q) + " + a];",
              f"    const {INDEX} by_q = a;"]
        L += row_statistics(att, in_args, rows_decl("      ", s_vars, "by_q"))
        L += ["    #pragma unroll", f"    for (int c = 0; c < {CM}; ++c) {{",
              f"      const {INDEX} by_cc = by_c0 + {CL} * c;",
              f"      if (by_cc >= {DV}) continue;",
              "      float by_sum = by_o[a][c] * by_scale;"]
        L += closing("      ", "by_q") + ["    }", "  }"]
    else:
        # this split's partial, then the head's last block combines all of them
        L += [f"  float* const by_wp = by_ws + (by_head * {S} + by_split) * {Q * WR};",
              "  if (by_kg == 0) {",
              "    #pragma unroll", f"    for (int a = 0; a < {Q}; ++a)",
              "      #pragma unroll", f"      for (int c = 0; c < {CM}; ++c) {{",
              f"        const int by_cc = by_c0 + {CL} * c;",
              f"        if (by_cc < {DV}) by_wp[a * {WR} + by_cc] = by_o[a][c];", "      }", "  }",
              f"  if (tid < {Q}) {{ by_wp[tid * {WR} + {DV}] = by_st[tid]; "
              f"by_wp[tid * {WR} + {DV + 1}] = by_st[{Q} + tid]; }}",
              "  __threadfence();   // the partial is visible device-wide before the block arrives",
              "  __syncthreads();",
              f"  if (tid == 0) *by_flag = by_arrive(&by_block.arrivals[by_head], {S}u);",
              "  __syncthreads();",
              "  if (!*by_flag) return;",
              "  __threadfence();   // the other splits are read after their arrivals were seen",
              f"  const float* const by_hp = by_ws + by_head * {S * Q * WR};",
              f"  for (int by_lin = tid; by_lin < {Q * DV}; by_lin += {THREADS}) {{",
              f"    const int a = by_lin / {DV};",
              f"    const {INDEX} by_cc = by_lin % {DV};",
              "    float by_mfin = -by_inf_f();",
              f"    for (int s = 0; s < {S}; ++s) by_mfin = fmaxf(by_mfin, __ldcg(&by_hp[(s * {Q} + a) * {WR} + {DV}]));",
              "    const float by_mall = by_mfin == -by_inf_f() ? 0.0f : by_mfin;",
              "    float by_lsum = 0.0f, by_osum = 0.0f;",
              f"    for (int s = 0; s < {S}; ++s) {{",
              f"      const float* const by_row = by_hp + (s * {Q} + a) * {WR};",
              f"      const float by_e = expf(__ldcg(&by_row[{DV}]) - by_mall);",
              f"      by_lsum = fmaf(__ldcg(&by_row[{DV + 1}]), by_e, by_lsum);",
              "      by_osum = fmaf(__ldcg(&by_row[by_cc]), by_e, by_osum);", "    }",
              f"    const {INDEX} by_q = a;"]
        L += row_statistics(att, in_args, rows_decl("      ", s_vars, "by_q"))
        L += ["    float by_sum = by_osum * by_scale;"]
        L += closing("    ", "by_q") + ["  }"]

    params, kparams = kernel_params(spec, types, in_args, workspace=S > 1)
    entry, source = finish_kernel(spec.name + "_flash_decoding", params, L, launch_bounds=(THREADS,),
                                  arrivals=blocks_heads if S > 1 else 0)
    return Kernel(entry=entry, source=source, params=kparams, grid=(blocks_heads * S, 1, 1),
                  block=(THREADS, 1, 1), shared_bytes=t.shared_bytes(), ops=spec.ops, config=config,
                  arrivals=blocks_heads if S > 1 else 0)
