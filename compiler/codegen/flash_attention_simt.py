"""The CUDA of kind flash_attention_simt (compiler/kinds/flash_attention_simt.py says what it
computes and why its block is shaped so).

A block owns BR query rows of one head; lane t of row group g (thread 16 g + t) holds rows
g, g + 8, ... (TR of them) and, in a key tile, keys t, t + 16, ... (TC). Its Q tile is loaded
into shared memory once, in fp32; then, for each tile of BC keys:

1. the K and V tiles are loaded into shared memory together, one round trip (each operand is an
   expression of the model's values, rendered element by element: transposes, scales and
   reshapes are index maps);
2. S = Q.K^T: a TR x TC register tile per lane, one d at a time;
3. each score's epilogue (scale, mask) and logit are evaluated at its (row, key), rounded to the
   stored type as the chain would store it; keys and rows past the end are -inf;
4. online softmax per row: the tile's row max over the half-warp (four shuffles), the running max
   m~, the rescale exp(m~_old - m~_new) of the lane's running sum l~ and of its O columns, and
   the weights exp(a - m~), written to shared memory;
5. O += P.V: lane t's columns t, t + 16, ... of its rows, reading the weights by row.

At the end each row's l~ is summed over its half-warp, the statistics the chain defines are made
from m~ and l~ (phi, psi, the shift), and the final epilogue writes O at the output's own index:
the same closing as the tensor-core kernel (codegen/flash_attention.py)."""
from __future__ import annotations

from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from .block_function import BLOCK_X, finish_kernel
from .cuda import decompose_index
from .flash_attention import (INDEX, S_VALUE, _rounded, _Scope, head_index, head_rows, kernel_params, operand_types,
                              output_write, row_statistics)

THREADS = 128
LANES = 16                  # lanes that share a row: a half-warp
ROW_GROUPS = THREADS // LANES


def _half_warp(combine: str, var: str) -> list[str]:
    """`var` combined over the 16 lanes of a half-warp (xor offsets below 16 stay in it):
    `combine` formats the new value from {v} and {other}."""
    return [f"{var} = " + combine.format(v=var, other=f"__shfl_xor_sync(0xffffffffu, {var}, {o})") + ";"
            for o in (8, 4, 2, 1)]


def render_flash_attention_simt(spec: KernelSpec, att, t, config: tuple) -> Kernel:
    chain = att.chain
    res, mx, fin = chain.resident, chain.stats[0], chain.final
    ext = spec.inputs
    types = operand_types(spec)
    in_args = {v: f"in{j}" for j, v in enumerate(ext)}
    rows, heads = chain.rows, att.heads
    n = len(rows) + 1                       # the resident stage's rank: rows, then the key
    J, D, DV = chain.length, att.head_dim, att.value_dim
    Q = att.queries
    qtiles = -(-Q // t.br)
    TR, TC, CM = t.tr, t.tc, t.cm
    DP, VP, PP = t.d_pitch, t.v_pitch, t.p_pitch
    s_vars = [f"i{a}" for a in range(n - 1)]                   # resident/statistics rows
    f_vars = [f"i{a}" for a in fin.row_axes]                   # the final's rows
    cols = att.cols
    fte = fin.expr
    r_var = res.expr.reduce.axes[0][0]
    j_final = fte.reduce.axes[0][0]
    col_names = [f"i{a}" for a in cols]
    col_shape = tuple(fte.output.shape[a] for a in cols)

    def rows_decl(ind: str, names: list[str], q: str) -> list[str]:
        return head_rows(att, ind, names, q)

    def row_of(a: str) -> str:            # the block-local row of a lane's row a
        return f"(by_g + {ROW_GROUPS} * {a})"

    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  float* const by_qs = reinterpret_cast<float*>(by_smem);",
         f"  float* const by_ks = by_qs + {t.br * DP};",
         f"  float* const by_vs = by_ks + {t.bc * DP};",
         f"  float* const by_ps = by_vs + {t.bc * VP};",
         "  const int tid = threadIdx.x;",
         f"  const int by_g = tid / {LANES}, by_t = tid % {LANES};",
         f"  const {INDEX} by_q0 = ({INDEX})({BLOCK_X} % {qtiles}) * {t.br};",
         f"  const {INDEX} by_head = ({INDEX})({BLOCK_X} / {qtiles});",
         ] + head_index(att)

    # the Q tile, once
    qs = _Scope(res, in_args, "tq")
    body, x = qs.value(att.q, "      ")
    L += [f"  for (int by_lin = tid; by_lin < {t.br * D}; by_lin += {THREADS}) {{",
          f"    const int by_rl = by_lin / {D}, by_dd = by_lin % {D};",
          f"    const {INDEX} by_q = by_q0 + by_rl;",
          "    float by_x = 0.0f;",
          f"    if (by_q < {Q}) {{"]
    L += rows_decl("      ", s_vars, "by_q")
    L += [f"      const {INDEX} {r_var} = by_dd;"] + body + [
        f"      by_x = (float)({x});", "    }", f"    by_qs[by_rl * {DP} + by_dd] = by_x;", "  }"]
    L += [f"  float by_mrun[{TR}], by_lrun[{TR}], by_o[{TR}][{CM}];",
          "  #pragma unroll", f"  for (int a = 0; a < {TR}; ++a) {{",
          "    by_mrun[a] = -by_inf_f(); by_lrun[a] = 0.0f;",
          "    #pragma unroll", f"    for (int c = 0; c < {CM}; ++c) by_o[a][c] = 0.0f;", "  }",
          f"  for (int by_kt = 0; by_kt < {-(-J // t.bc)}; ++by_kt) {{",
          f"    const {INDEX} by_j0 = ({INDEX})by_kt * {t.bc};",
          "    __syncthreads();   // the previous tile's V and weights are read"]

    # 1. the K and V tiles, one round trip
    ks = _Scope(res, in_args, "tk")
    body, y = ks.value(att.k, "        ")
    L += [f"    for (int by_lin = tid; by_lin < {t.bc * D}; by_lin += {THREADS}) {{",
          f"      const int by_jl = by_lin / {D}, by_dd = by_lin % {D};",
          f"      const {INDEX} by_j = by_j0 + by_jl;",
          "      float by_x = 0.0f;",
          f"      if (by_j < {J}) {{"]
    L += [f"        const {INDEX} {s_vars[p]} = by_hv[{p}];" for p in range(heads)]
    L += [f"        const {INDEX} i{n - 1} = by_j;", f"        const {INDEX} {r_var} = by_dd;"]
    L += body + [f"        by_x = (float)({y});", "      }", f"      by_ks[by_jl * {DP} + by_dd] = by_x;", "    }"]
    vs = _Scope(fin, in_args, "tv")
    body, v = vs.value(att.v, "        ")
    L += [f"    for (int by_lin = tid; by_lin < {t.bc * VP}; by_lin += {THREADS}) {{",
          f"      const int by_jl = by_lin / {VP}, by_cc = by_lin % {VP};",
          f"      const {INDEX} by_j = by_j0 + by_jl;",
          "      float by_x = 0.0f;",
          f"      if (by_j < {J} && by_cc < {DV}) {{"]
    L += [f"        const {INDEX} {f_vars[p]} = by_hv[{p}];" for p in range(heads)]
    L += decompose_index("        ", "by_cc", col_shape, col_names, "by_crem", INDEX)
    L += [f"        const {INDEX} {j_final} = by_j;"]
    L += body + [f"        by_x = (float)({v});", "      }", f"      by_vs[by_jl * {VP} + by_cc] = by_x;", "    }",
                 "    __syncthreads();"]

    # 2. S = Q.K^T, a register tile a lane
    L += [f"    float by_sc[{TR}][{TC}];",
          "    #pragma unroll", f"    for (int a = 0; a < {TR}; ++a)",
          "      #pragma unroll", f"      for (int b = 0; b < {TC}; ++b) by_sc[a][b] = 0.0f;",
          f"    for (int by_d = 0; by_d < {D}; ++by_d) {{",
          f"      float by_qv[{TR}], by_kr[{TC}];",
          "      #pragma unroll", f"      for (int a = 0; a < {TR}; ++a) by_qv[a] = by_qs[{row_of('a')} * {DP} + by_d];",
          "      #pragma unroll", f"      for (int b = 0; b < {TC}; ++b) by_kr[b] = by_ks[(by_t + {LANES} * b) * {DP} + by_d];",
          "      #pragma unroll", f"      for (int a = 0; a < {TR}; ++a)",
          "        #pragma unroll", f"        for (int b = 0; b < {TC}; ++b) by_sc[a][b] = fmaf(by_qv[a], by_kr[b], by_sc[a][b]);",
          "    }"]

    # 3-4. scores -> logits -> online softmax, a row at a time; the weights to shared memory
    ss = _Scope(res, in_args, "ts")
    ls = _Scope(mx, in_args, "tl")
    ind = "          "
    s_body, s_val = ss.value(att.score, ind, acc="by_acc") if att.score is not None else ([], "by_acc")
    l_body, l_val = ls.value(att.logit, ind)
    L += ["    #pragma unroll", f"    for (int a = 0; a < {TR}; ++a) {{",
          f"      const {INDEX} by_q = by_q0 + {row_of('a')};",
          f"      const bool by_qok = by_q < {Q};",
          "      float by_mx = -by_inf_f();",
          "      {"]
    L += rows_decl("        ", s_vars, "(by_qok ? by_q : 0)")
    L += ["        #pragma unroll", f"        for (int b = 0; b < {TC}; ++b) {{",
          f"          const {INDEX} by_j = by_j0 + by_t + {LANES} * b;",
          "          float by_a = -by_inf_f();",
          f"          if (by_qok && by_j < {J}) {{",
          f"            const {INDEX} i{n - 1} = by_j;", f"            const {INDEX} {att.key_var} = by_j;",
          f"            (void)i{n - 1}; (void){att.key_var};",
          "            const float by_acc = by_sc[a][b];"]
    L += ["  " + s for s in s_body]
    L.append(f"            const float {S_VALUE} = {_rounded(s_val, res.expr.output.dtype)};")
    L += ["  " + s for s in l_body]
    L += [f"            by_a = (float)({l_val});", "          }",
          "          by_sc[a][b] = by_a;",
          "          by_mx = fmaxf(by_mx, by_a);", "        }", "      }"]
    L += ["      " + s for s in _half_warp("fmaxf({v}, {other})", "by_mx")]
    L += ["      const float by_mnew = fmaxf(by_mrun[a], by_mx);",
          "      const float by_muse = by_mnew == -by_inf_f() ? 0.0f : by_mnew;",
          "      const float by_corr = expf(by_mrun[a] - by_muse);",
          "      by_lrun[a] *= by_corr;",
          "      #pragma unroll", f"      for (int c = 0; c < {CM}; ++c) by_o[a][c] *= by_corr;",
          "      #pragma unroll", f"      for (int b = 0; b < {TC}; ++b) {{",
          "        const float p = expf(by_sc[a][b] - by_muse);",
          "        by_lrun[a] += p;",
          f"        by_ps[{row_of('a')} * {PP} + by_t + {LANES} * b] = p;", "      }",
          "      by_mrun[a] = by_mnew;", "    }",
          "    __syncthreads();   // the weights are written"]

    # 5. O += P.V
    L += [f"    for (int by_jl = 0; by_jl < {t.bc}; ++by_jl) {{",
                 f"      float by_pv[{TR}], by_vv[{CM}];",
                 "      #pragma unroll", f"      for (int a = 0; a < {TR}; ++a) by_pv[a] = by_ps[{row_of('a')} * {PP} + by_jl];",
                 "      #pragma unroll", f"      for (int c = 0; c < {CM}; ++c) by_vv[c] = by_vs[by_jl * {VP} + by_t + {LANES} * c];",
                 "      #pragma unroll", f"      for (int a = 0; a < {TR}; ++a)",
                 "        #pragma unroll", f"        for (int c = 0; c < {CM}; ++c) by_o[a][c] = fmaf(by_pv[a], by_vv[c], by_o[a][c]);",
                 "    }", "  }"]

    # the statistics the chain defines, from m~ and l~; the final epilogue at the output's index
    L += ["  #pragma unroll", f"  for (int a = 0; a < {TR}; ++a) {{",
          "    float by_lsum = by_lrun[a];"]
    L += ["    " + s for s in _half_warp("{v} + {other}", "by_lsum")]
    L += [f"    const {INDEX} by_q = by_q0 + {row_of('a')};",
          f"    if (by_q >= {Q}) continue;",
          "    const float by_mfin = by_mrun[a];"]
    L += row_statistics(att, in_args, rows_decl("      ", s_vars, "by_q"))
    ind = "      "
    L += ["    #pragma unroll", f"    for (int c = 0; c < {CM}; ++c) {{",
          f"      const {INDEX} by_cc = by_t + {LANES} * c;",
          f"      if (by_cc >= {DV}) continue;",
          "      float by_sum = by_o[a][c] * by_scale;"]
    L += output_write(att, in_args, ind, rows_decl(ind, f_vars, "by_q") +
                      decompose_index(ind, "by_cc", col_shape, col_names, "by_crem", INDEX))
    L += ["    }", "  }"]

    params, kparams = kernel_params(spec, types, in_args)
    entry, source = finish_kernel(spec.name + "_flash_simt", params, L, launch_bounds=(THREADS,))
    return Kernel(entry=entry, source=source, params=kparams, grid=(att.head_count * qtiles, 1, 1),
                  block=(THREADS, 1, 1), shared_bytes=t.shared_bytes(), ops=spec.ops, config=config)
