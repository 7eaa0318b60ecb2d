"""The CUDA of kind flash_attention (compiler/kinds/flash_attention.py says what it computes).

A block owns BR query rows of one head, a warp 16 of them (an m16 tile). Its Q tile is loaded
into shared memory once, as the mma type; then, for each tile of BC keys:

1. the K and V tiles are loaded into shared memory (every operand is an expression of the
   model's values, rendered element by element: transposes, scales and reshapes are index maps);
2. S = Q.K^T: m16n8k16 mma.sync, A fragments by ldmatrix from the Q tile, B by ldmatrix from the
   K tile, fp32 accumulators: a lane holds rows g and g+8, columns 2t and 2t+1 of each n8 tile;
3. each score's epilogue (scale, mask) and logit are evaluated at its (row, key), rounded to the
   stored type as the chain would store it; keys past the end and rows past the end are -inf;
4. online softmax: the row max over the tile (a quad of lanes shares a row: two shuffles), the
   running max m~, the rescale exp(m~_old - m~_new) of the running sum l~ and of O, and the
   weights exp(a - m~) in place of the scores;
5. O += P.V: the weights' accumulators are already an m16k16 A fragment (two adjacent n8 tiles
   packed to the mma type: FlashAttention-2's register reuse); V's B fragments by ldmatrix.trans.

At the end each row's l~ is summed over its quad, the statistics the chain defines are made from
m~ and l~ (phi, psi, the shift), and the final epilogue writes O at the output's own index."""
from __future__ import annotations

from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.kernel import Kernel, KernelParam
from ..ir.spec import KernelSpec
from ..ir.texpr import Expr, Var, substitute_vars
from .block_function import BLOCK_X, finish_kernel
from .cuda import ExprRenderer, contiguous_strides, decompose_index

INDEX = "long long"
S_VALUE, M_VALUE, L_VALUE = "by_s", "by_m", "by_l"   # the C names of a score and the two statistics
_MMA = {DType.float16: ("by_half", "by_mma_m16n8k16_f16_f32", "by_pack_half2"),
        DType.bfloat16: ("by_bfloat16", "by_mma_m16n8k16_bf16_f32", "by_pack_bf162")}


def _rounded(value: str, stored: DType) -> str:
    """`value` (float) rounded to the type it would be stored in, as float."""
    if stored in (DType.float32, DType.float64):
        return f"(float)({value})"
    return f"(float)(({stored.ctype})({value}))"


class _Scope:
    """Renders one reader's expressions: its loads of the kernel's inputs, its variables in scope."""

    def __init__(self, reader, in_args: dict[str, str], prefix: str):
        te = reader.expr
        names = [in_args.get(v, "by_unused") for v in reader.values]
        strides = [contiguous_strides(t.shape) for t in te.inputs]
        self.rend = ExprRenderer(names, strides, INDEX, prefix=prefix)

    def value(self, e: Expr, ind: str, acc: str | None = None) -> tuple[list[str], str]:
        """Statements and the C value of `e` (its `acc` read as the C variable `acc`)."""
        if acc is not None:
            e = substitute_vars(e, {"acc": Var(acc, DType.float32)})
        self.rend.memo, self.rend.lines = {}, []
        v = self.rend.render(e, ind)
        return list(self.rend.lines), v


def operand_types(spec: KernelSpec) -> dict[str, TensorType]:
    """Each value the spec's stages read, with the type its first reader reads it as."""
    types: dict[str, TensorType] = {}
    for st in spec.stages:
        for v, ty in zip(st.inputs, st.expr.inputs):
            types.setdefault(v, ty)
    return types


def head_index(att, group: int = 1) -> list[str]:
    """The block's head `by_head` as its leading row axes `by_hv` (those K and V read). With a
    `group` of G > 1 (kinds/flash_decoding.py), by_head numbers groups of G consecutive heads along
    the last head axis and by_hv is the group's first head: the heads of a group read the same
    keys and values."""
    rows, last = att.chain.rows, att.heads - 1
    L = [f"  {INDEX} by_hv[{max(att.heads, 1)}] = {{0}};", f"  {INDEX} by_hrem = by_head;"]
    for p in reversed(range(att.heads)):
        n = rows[p] // group if p == last else rows[p]
        L.append(f"  by_hv[{p}] = by_hrem % {n}{f' * {group}' if p == last and group > 1 else ''}; by_hrem /= {n};")
    return L + ["  (void)by_hv; (void)by_hrem;"]


def head_rows(att, ind: str, names: list[str], q: str, group: int = 1) -> list[str]:
    """Declarations of a row's variables `names`: the head's axes from by_hv, the others from
    query `q` of the head. With a `group` of G heads (head_index), q runs over the group's G x
    queries rows, head by head."""
    rows, heads = att.chain.rows, att.heads
    if group == 1:
        out = [f"{ind}const {INDEX} {names[p]} = by_hv[{p}];" for p in range(heads)]
        return out + decompose_index(ind, q, rows[heads:], names[heads:], "by_qrem", INDEX)
    per_head = att.queries
    out = [f"{ind}const {INDEX} {names[p]} = by_hv[{p}];" for p in range(heads - 1)]
    out.append(f"{ind}const {INDEX} {names[heads - 1]} = by_hv[{heads - 1}] + ({INDEX})({q}) / {per_head};")
    return out + decompose_index(ind, f"(({INDEX})({q}) % {per_head})", rows[heads:], names[heads:], "by_qrem", INDEX)


def render_flash_attention(spec: KernelSpec, att, t, config: tuple) -> Kernel:
    chain = att.chain
    res, mx, fin = chain.resident, chain.stats[0], chain.final
    ext = spec.inputs
    types = operand_types(spec)
    in_args = {v: f"in{j}" for j, v in enumerate(ext)}
    elem_ct, mma, pack = _MMA[att.elem]
    rows, heads = chain.rows, att.heads
    n = len(rows) + 1                       # the resident stage's rank: rows, then the key
    J, D, DV = chain.length, att.head_dim, att.value_dim
    Q = att.queries
    qtiles = -(-Q // t.br)
    T = 32 * t.warps
    NS, NV = t.bc // 8, t.dv16 // 8
    QPB, VPB = 2 * t.q_pitch, 2 * t.v_pitch        # bytes a shared row takes
    s_vars = [f"i{a}" for a in range(n - 1)]                   # resident/statistics rows
    f_vars = [f"i{a}" for a in fin.row_axes]                   # the final's rows
    cols = att.cols
    fte = fin.expr
    r_var = res.expr.reduce.axes[0][0]
    j_final = fte.reduce.axes[0][0]

    def rows_decl(ind: str, names: list[str], q: str) -> list[str]:
        return head_rows(att, ind, names, q)

    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  unsigned char* const by_qb = by_smem;",
         f"  unsigned char* const by_kb = by_smem + {t.br * QPB};",
         f"  unsigned char* const by_vb = by_smem + {(t.br + t.bc) * QPB};",
         f"  {elem_ct}* const by_qs = reinterpret_cast<{elem_ct}*>(by_qb);",
         f"  {elem_ct}* const by_ks = reinterpret_cast<{elem_ct}*>(by_kb);",
         f"  {elem_ct}* const by_vs = reinterpret_cast<{elem_ct}*>(by_vb);",
         "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;",
         "  const int by_g = lane >> 2, by_t = lane & 3;",
         "  const int by_lr = (lane & 7) + 8 * ((lane >> 3) & 1), by_lc = 8 * (lane >> 4), by_lh = 8 * ((lane >> 3) & 1);",
         f"  const {INDEX} by_q0 = ({INDEX})({BLOCK_X} % {qtiles}) * {t.br};",
         f"  const {INDEX} by_head = ({INDEX})({BLOCK_X} / {qtiles});"]
    # the block's head: its leading row axes, shared by the K and V reads
    L += head_index(att)

    # 1. the Q tile, once
    qs = _Scope(res, in_args, "tq")
    body, x = qs.value(att.q, "      ")
    L += [f"  for (int by_lin = tid; by_lin < {t.br * t.d16}; by_lin += {T}) {{",
          f"    const int by_rl = by_lin / {t.d16}, by_dd = by_lin % {t.d16};",
          f"    const {INDEX} by_q = by_q0 + by_rl;",
          "    float by_x = 0.0f;",
          f"    if (by_q < {Q} && by_dd < {D}) {{"]
    L += rows_decl("      ", s_vars, "by_q")
    L += [f"      const {INDEX} {r_var} = by_dd;"] + body + [f"      by_x = (float)({x});", "    }",
                                                          f"    by_qs[by_rl * {t.q_pitch} + by_dd] = {elem_ct}(by_x);",
                                                          "  }"]
    L += ["  float by_mrun[2] = {-by_inf_f(), -by_inf_f()}, by_lrun[2] = {0.0f, 0.0f};",
          f"  float by_o[{NV}][4];",
          "  #pragma unroll", f"  for (int nv = 0; nv < {NV}; ++nv)",
          "    #pragma unroll", "    for (int c = 0; c < 4; ++c) by_o[nv][c] = 0.0f;",
          f"  for (int by_kt = 0; by_kt < {-(-J // t.bc)}; ++by_kt) {{",
          f"    const {INDEX} by_j0 = ({INDEX})by_kt * {t.bc};",
          "    __syncthreads();   // the previous tile's K and V are read"]

    # 2. the K and V tiles
    ks = _Scope(res, in_args, "tk")
    body, y = ks.value(att.k, "        ")
    L += [f"    for (int by_lin = tid; by_lin < {t.bc * t.d16}; by_lin += {T}) {{",
          f"      const int by_jl = by_lin / {t.d16}, by_dd = by_lin % {t.d16};",
          "      const long long by_j = by_j0 + by_jl;",
          "      float by_x = 0.0f;",
          f"      if (by_j < {J} && by_dd < {D}) {{"]
    L += [f"        const {INDEX} {s_vars[p]} = by_hv[{p}];" for p in range(heads)]
    L += [f"        const {INDEX} i{n - 1} = by_j;", f"        const {INDEX} {r_var} = by_dd;"]
    L += body + [f"        by_x = (float)({y});", "      }",
                 f"      by_ks[by_jl * {t.q_pitch} + by_dd] = {elem_ct}(by_x);", "    }"]
    vs = _Scope(fin, in_args, "tv")
    body, v = vs.value(att.v, "        ")
    col_names = [f"i{a}" for a in cols]
    col_shape = tuple(fte.output.shape[a] for a in cols)
    L += [f"    for (int by_lin = tid; by_lin < {t.bc * t.dv16}; by_lin += {T}) {{",
          f"      const int by_jl = by_lin / {t.dv16}, by_cc = by_lin % {t.dv16};",
          "      const long long by_j = by_j0 + by_jl;",
          "      float by_x = 0.0f;",
          f"      if (by_j < {J} && by_cc < {DV}) {{"]
    L += [f"        const {INDEX} {f_vars[p]} = by_hv[{p}];" for p in range(heads)]
    L += decompose_index("        ", "by_cc", col_shape, col_names, "by_crem", INDEX)
    L += [f"        const {INDEX} {j_final} = by_j;"]
    L += body + [f"        by_x = (float)({v});", "      }",
                 f"      by_vs[by_jl * {t.v_pitch} + by_cc] = {elem_ct}(by_x);", "    }",
                 "    __syncthreads();"]

    # 3. S = Q.K^T on tensor cores
    L += [f"    float by_sc[{NS}][4];",
          "    #pragma unroll", f"    for (int ni = 0; ni < {NS}; ++ni)",
          "      #pragma unroll", "      for (int c = 0; c < 4; ++c) by_sc[ni][c] = 0.0f;",
          "    #pragma unroll", f"    for (int kk = 0; kk < {t.d16}; kk += 16) {{",
          "      unsigned a[4];",
          f"      by_ldmatrix_x4(a, by_qb + (warp * 16 + by_lr) * {QPB} + (kk + by_lc) * 2);",
          "      #pragma unroll", f"      for (int nj = 0; nj < {NS // 2}; ++nj) {{",
          "        unsigned b[4];",
          f"        by_ldmatrix_x4(b, by_kb + (nj * 16 + by_lc + (lane & 7)) * {QPB} + (kk + by_lh) * 2);",
          f"        {mma}(by_sc[2 * nj], a, b, by_sc[2 * nj]);",
          f"        {mma}(by_sc[2 * nj + 1], a, b + 2, by_sc[2 * nj + 1]);",
          "      }", "    }"]

    # 4. scores -> logits -> online softmax, per row half (rows g and g + 8)
    ss = _Scope(res, in_args, "ts")
    ls = _Scope(mx, in_args, "tl")
    ind = "            "
    s_body, s_val = ss.value(att.score, ind, acc="by_acc") if att.score is not None else ([], "by_acc")
    l_body, l_val = ls.value(att.logit, ind)
    L += ["    #pragma unroll", "    for (int by_h = 0; by_h < 2; ++by_h) {",
          f"      const {INDEX} by_q = by_q0 + warp * 16 + by_g + 8 * by_h;",
          f"      const bool by_qok = by_q < {Q};",
          "      float by_mx = -by_inf_f();",
          "      {"]
    L += rows_decl("        ", s_vars, "(by_qok ? by_q : 0)")
    L += ["        #pragma unroll", f"        for (int ni = 0; ni < {NS}; ++ni)",
          "          #pragma unroll", "          for (int c = 0; c < 2; ++c) {",
          "            const long long by_j = by_j0 + ni * 8 + 2 * by_t + c;",
          "            float by_a = -by_inf_f();",
          f"            if (by_qok && by_j < {J}) {{",
          f"              const {INDEX} i{n - 1} = by_j;", f"              const {INDEX} {att.key_var} = by_j;",
          f"              (void)i{n - 1}; (void){att.key_var};",
          "              const float by_acc = by_sc[ni][2 * by_h + c];"]
    L += ["  " + x for x in s_body]
    L.append(f"              const float {S_VALUE} = {_rounded(s_val, res.expr.output.dtype)};")
    L += ["  " + x for x in l_body]
    L += [f"              by_a = (float)({l_val});", "            }",
          "            by_sc[ni][2 * by_h + c] = by_a;",
          "            by_mx = fmaxf(by_mx, by_a);", "          }", "      }",
          "      by_mx = fmaxf(by_mx, __shfl_xor_sync(0xffffffffu, by_mx, 1));",
          "      by_mx = fmaxf(by_mx, __shfl_xor_sync(0xffffffffu, by_mx, 2));",
          "      const float by_mnew = fmaxf(by_mrun[by_h], by_mx);",
          "      const float by_muse = by_mnew == -by_inf_f() ? 0.0f : by_mnew;",
          "      const float by_corr = expf(by_mrun[by_h] - by_muse);",
          "      by_lrun[by_h] *= by_corr;",
          "      #pragma unroll", f"      for (int nv = 0; nv < {NV}; ++nv) {{",
          "        by_o[nv][2 * by_h] *= by_corr;", "        by_o[nv][2 * by_h + 1] *= by_corr;", "      }",
          "      #pragma unroll", f"      for (int ni = 0; ni < {NS}; ++ni)",
          "        #pragma unroll", "        for (int c = 0; c < 2; ++c) {",
          "          const float p = expf(by_sc[ni][2 * by_h + c] - by_muse);",
          "          by_sc[ni][2 * by_h + c] = p;", "          by_lrun[by_h] += p;", "        }",
          "      by_mrun[by_h] = by_mnew;", "    }"]

    # 5. O += P.V, P from the accumulators
    L += ["    #pragma unroll", f"    for (int kc = 0; kc < {t.bc // 16}; ++kc) {{",
          f"      const unsigned a[4] = {{{pack}(by_sc[2 * kc][0], by_sc[2 * kc][1]), {pack}(by_sc[2 * kc][2], by_sc[2 * kc][3]),",
          f"                             {pack}(by_sc[2 * kc + 1][0], by_sc[2 * kc + 1][1]), {pack}(by_sc[2 * kc + 1][2], by_sc[2 * kc + 1][3])}};",
          "      #pragma unroll", f"      for (int nj = 0; nj < {NV // 2}; ++nj) {{",
          "        unsigned b[4];",
          f"        by_ldmatrix_x4_trans(b, by_vb + (kc * 16 + by_lh + (lane & 7)) * {VPB} + (nj * 16 + by_lc) * 2);",
          f"        {mma}(by_o[2 * nj], a, b, by_o[2 * nj]);",
          f"        {mma}(by_o[2 * nj + 1], a, b + 2, by_o[2 * nj + 1]);",
          "      }", "    }", "  }"]

    # the statistics the chain defines, from m~ and l~; the final epilogue at the output's index
    L += ["  #pragma unroll", "  for (int by_h = 0; by_h < 2; ++by_h) {",
          "    float by_lsum = by_lrun[by_h];",
          "    by_lsum += __shfl_xor_sync(0xffffffffu, by_lsum, 1);",
          "    by_lsum += __shfl_xor_sync(0xffffffffu, by_lsum, 2);",
          f"    const {INDEX} by_q = by_q0 + warp * 16 + by_g + 8 * by_h;",
          f"    if (by_q >= {Q}) continue;",
          "    const float by_mfin = by_mrun[by_h];"]
    L += row_statistics(att, in_args, rows_decl("      ", s_vars, "by_q"))
    ind = "        "
    L += ["    #pragma unroll", f"    for (int nv = 0; nv < {NV}; ++nv)",
          "      #pragma unroll", "      for (int c = 0; c < 2; ++c) {",
          "        const long long by_cc = nv * 8 + 2 * by_t + c;",
          f"        if (by_cc >= {DV}) continue;",
          "        float by_sum = by_o[nv][2 * by_h + c] * by_scale;"]
    L += output_write(att, in_args, ind, rows_decl(ind, f_vars, "by_q") +
                      decompose_index(ind, "by_cc", col_shape, col_names, "by_crem", INDEX))
    L += ["      }", "  }"]

    params, kparams = kernel_params(spec, types, in_args)
    entry, source = finish_kernel(spec.name + "_flash", params, L, launch_bounds=(T,))
    return Kernel(entry=entry, source=source, params=kparams, grid=(att.head_count * qtiles, 1, 1), block=(T, 1, 1),
                  shared_bytes=t.shared_bytes(), ops=spec.ops, config=config)


def kernel_params(spec: KernelSpec, types: dict[str, TensorType], in_args: dict[str, str],
                  workspace: bool = False) -> tuple[list[str], tuple[KernelParam, ...]]:
    """An attention kernel's C parameters and the plan values they bind: the inputs (in_args' C
    names), the fp32 workspace `by_ws` where it has one, the output `out`."""
    out_t = spec.stages[-1].expr.output
    params = [f"const {types[v].dtype.ctype}* __restrict__ {in_args[v]}" for v in spec.inputs]
    kparams = tuple(KernelParam(types[v].dtype.ctype, v, False) for v in spec.inputs)
    if workspace:
        params.append("float* __restrict__ by_ws")
        kparams += (KernelParam("float", spec.workspace, True),)
    params.append(f"{out_t.dtype.ctype}* __restrict__ out")
    return params, kparams + (KernelParam(out_t.dtype.ctype, spec.stages[-1].output, True),)


def row_statistics(att, in_args: dict[str, str], rows: list[str]) -> list[str]:
    """A row's closing statements, where `by_lsum` and `by_mfin` hold its summed running sum l~
    and its running max m~ and `rows` declares its row variables: by_mst and by_lst, the chain's
    own statistics (phi, psi, stored types), and by_scale = exp(m~ - m), the shift between them."""
    mx, sm = att.chain.stats
    ms, lsum = _Scope(mx, in_args, "tm"), _Scope(sm, in_args, "tn")
    ind = "      "
    m_body, m_val = ms.value(att.max_epilogue, ind, acc="by_mfin") if att.max_epilogue is not None else ([], "by_mfin")
    n_body, n_val = lsum.value(att.sum_epilogue, ind, acc="by_lacc") if att.sum_epilogue is not None else ([], "by_lacc")
    return (["    const float by_muse = by_mfin == -by_inf_f() ? 0.0f : by_mfin;",
             "    float by_mst, by_lst, by_scale;", "    {"] + rows
            + m_body + [f"{ind}by_mst = {_rounded(m_val, mx.expr.output.dtype)};",
                        f"{ind}by_scale = expf(by_muse - by_mst);",
                        f"{ind}const float by_lacc = by_lsum * by_scale;"]
            + n_body + [f"{ind}by_lst = {_rounded(n_val, sm.expr.output.dtype)};", "    }", "    (void)by_lst;"])


def output_write(att, in_args: dict[str, str], ind: str, index: list[str]) -> list[str]:
    """The statements that finish one output element from `by_sum` (O's accumulator times
    by_scale): divided by l, zeroed where the chain's NaN guard zeroes every weight, then the final
    epilogue (reading m and l) stored at the output's index, which `index` declares."""
    fin = att.chain.final
    out_t = fin.expr.output
    off = " + ".join(f"i{a} * {s}" for a, s in enumerate(contiguous_strides(out_t.shape))) or "0"
    if att.epilogue is not None:
        e = substitute_vars(att.epilogue, {"acc": Var("by_sum", DType.float32)})
        e_body, e_val = _Scope(fin, in_args, "tf").value(e, ind)
    else:
        e_body, e_val = [], "by_sum"
    L = []
    if att.divided:
        L.append(f"{ind}by_sum = by_sum / by_lst;")
    if att.guarded:   # every weight NaN (the max infinite, or 0/0): the guard made each 0
        zero = "!isfinite(by_mst)" + (" || !(by_lst > 0.0f)" if att.divided else "")
        L.append(f"{ind}if ({zero}) by_sum = 0.0f;")
    L += index
    L += [f"{ind}const float {M_VALUE} = by_mst, {L_VALUE} = by_lst;", f"{ind}(void){M_VALUE}; (void){L_VALUE};"]
    return L + e_body + [f"{ind}out[{off}] = ({out_t.dtype.ctype})({e_val});"]
