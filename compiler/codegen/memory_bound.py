"""Memory-bound kernels rendered from a Roller configuration (compiler/roller/construct.py):

- "elementwise_vec": an elementwise map `width` outputs at a time, 16-byte loads and stores of
  the contiguous operands, one scalar load per vector of those constant along it (broadcasts),
  a scalar tail, and a scalar path for buffers that are not 16-byte aligned (checked at run
  time: graph inputs come from the caller, whose alignment the compiler does not know);
- "transpose": an elementwise map whose output's fast axis reads an input with a large stride;
  a TILE x TILE tile is read coalesced along the input's fast axis into padded shared memory and
  written coalesced along the output's fast axis;
- "reduce_split": few long rows, each split into slices reduced by separate blocks into an fp32
  workspace [rows][splits]; the last block of a row to arrive combines the row's slices in a fixed
  order (deterministic: no atomics on the values) and applies the epilogue, in the same launch.

Only the prelude's portable features are used, so the same source runs on NVRTC and the host
harness (which checks the alignment of every vector access)."""
from __future__ import annotations

import math

from ..ir.texpr import Expr, Load, TensorExpr
from ..analysis.views import ReduceView, TransposeView, VectorView
from ..ir.tiles import KernelConfig
from .cuda import INT32_LIMIT, SubstRenderer, contiguous_strides
from .block_function import BLOCK_X, GRID_X, finish_kernel
from ..ir.kernel import Kernel
from .tiled import (_INIT, _decompose, _epilogue, _kparams, _signature, _store, _unit_vars, accumulate,
                    combine_partials, index_ctype, split_params)


def _render_with(te: TensorExpr, e: Expr, subst: dict[Load, str], lines: list[str], ind: str, it: str) -> str:
    rend = SubstRenderer(te, it, subst)
    rend.lines = []
    val = rend.render(e, ind)
    lines.extend(rend.lines)
    return val


def _offset(te: TensorExpr, ld: Load, it: str) -> str:
    """C expression: the element offset of load `ld` at the current index vars."""
    rend = SubstRenderer(te, it, {})
    rend.hoist = set()
    terms = [f"({rend.r(i)})*{s}" if s != 1 else f"({rend.r(i)})"
             for i, s in zip(ld.index, contiguous_strides(te.inputs[ld.arg].shape))]
    return " + ".join(terms) if terms else "0"


def _scalar_element(te: TensorExpr, L: list[str], ind: str, it: str, lin: str, axes) -> None:
    """One output element at linear index `lin` (the plain elementwise kernel's step)."""
    _decompose(L, ind, it, lin, axes, "by_rem")
    val = _render_with(te, te.body, {}, L, ind, it)
    _store(te, L, ind, val, te.body.dtype)


# ---- vectorised elementwise ---------------------------------------------------------------------

def render_vector_elementwise(te: TensorExpr, view: VectorView, cfg: KernelConfig, prefix: str, out_value: str,
                              in_values) -> Kernel:
    """`vectors_per_thread` vectors of `width` outputs per thread and grid-stride step."""
    T = int(cfg.param("block_threads"))
    U = int(cfg.param("vectors_per_thread"))
    V = view.width
    blocks = int(cfg.workload.blocks)
    it = index_ctype(te)
    n = view.n
    nvec = n // V
    axes = view.outer + view.group
    oct_ = te.output.dtype.ctype
    vec_args = sorted({ld.arg for ld in view.vector})
    ptrs = " | ".join(f"(unsigned long long)(in{a})" for a in vec_args)
    ptrs = "(unsigned long long)(out)" + (f" | {ptrs}" if ptrs else "")
    L = [# graph inputs are the caller's buffers: vectors only where every one is 16-byte aligned
         f"  const bool by_aligned = (({ptrs}) & 15ull) == 0ull;",
         f"  const {it} by_tid = ({it}){BLOCK_X} * {T} + threadIdx.x;",
         f"  const {it} by_step = ({it}){GRID_X} * {T};"]
    _unit_vars(L, "  ", it, view.unit)
    L += ["  if (by_aligned) {",
          f"    for ({it} by_v0 = ({it}){BLOCK_X} * {T * U} + threadIdx.x; by_v0 < {nvec}; "
          f"by_v0 += ({it}){GRID_X} * {T * U}) {{"]
    for u in range(U):
        # independent scopes; __restrict__ lets the compiler issue all U vectors' loads first
        ind = "      "
        L.append(f"{ind}{{")
        ind2 = ind + "  "
        L.append(f"{ind2}const {it} by_q = by_v0 + {u * T};")
        if u:
            L.append(f"{ind2}if (by_q < {nvec}) {{")
            ind2 += "  "
        L.append(f"{ind2}const {it} by_lin = by_q * {V};")
        _decompose(L, ind2, it, "by_lin", axes, "by_rem")
        subst: dict[Load, str] = {}
        for j, ld in enumerate(view.vector):
            ct = ld.dtype.ctype
            L.append(f"{ind2}const uint4 by_r{j} = by_ld_global_b128(in{ld.arg} + ({_offset(te, ld, it)}));")
            L.append(f"{ind2}const {ct}* const by_e{j} = reinterpret_cast<const {ct}*>(&by_r{j});")
            subst[ld] = f"by_e{j}[by_j]"
        for j, ld in enumerate(view.uniform):
            val = _render_with(te, ld, {}, L, ind2, it)
            L.append(f"{ind2}const {ld.dtype.compute_ctype} by_s{j} = {val};")
            subst[ld] = f"by_s{j}"
        L += [f"{ind2}uint4 by_o;", f"{ind2}{oct_}* const by_oe = reinterpret_cast<{oct_}*>(&by_o);",
              f"{ind2}#pragma unroll", f"{ind2}for (int by_j = 0; by_j < {V}; ++by_j) {{"]
        val = _render_with(te, te.body, subst, L, ind2 + "  ", it)
        L.append(f"{ind2}  by_oe[by_j] = ({oct_})({val});")
        L += [f"{ind2}}}", f"{ind2}by_st_global_b128(out + by_lin, by_o);"]
        if u:
            L.append(f"{ind}  }}")
        L.append(f"{ind}}}")
    L.append("    }")
    if n % V:
        L.append(f"    for ({it} by_lin = {nvec * V} + by_tid; by_lin < {n}; by_lin += by_step) {{")
        _scalar_element(te, L, "      ", it, "by_lin", axes)
        L.append("    }")
    L += ["  } else {", f"    for ({it} by_lin = by_tid; by_lin < {n}; by_lin += by_step) {{"]
    _scalar_element(te, L, "      ", it, "by_lin", axes)
    L += ["    }", "  }"]
    entry, source = finish_kernel(prefix, _signature(te), L, launch_bounds=(T,))
    return Kernel(entry=entry, source=source, params=_kparams(te, out_value, in_values), grid=(blocks, 1, 1),
                  block=(T, 1, 1), expr=te)


# ---- transposes through shared memory -----------------------------------------------------------

def transpose_tile_bytes(view: TransposeView, tile: int, pad: int) -> list[int]:
    """Bytes of each staged load's shared tile: TILE rows (a) of TILE + pad elements (b)."""
    from .tiled import ctype_size
    return [tile * (tile + pad) * ctype_size(ld.dtype.compute_ctype) for ld in view.staged]


def render_transpose(te: TensorExpr, view: TransposeView, cfg: KernelConfig, prefix: str, out_value: str,
                     in_values) -> Kernel:
    """One TILE x TILE tile of (a, b) per block: staged loads read with lanes along a (the input's
    fast axis) into shared tiles [a][b + pad], the body computed and stored with lanes along b."""
    TILE = int(cfg.param("tile"))
    T = int(cfg.param("block_threads"))
    pad = int(cfg.param("pad"))
    P = TILE + pad
    it = index_ctype(te)
    A, B = view.A, view.B
    ta, tb = math.ceil(A / TILE), math.ceil(B / TILE)
    blocks = ta * tb * view.outer_size
    sizes = transpose_tile_bytes(view, TILE, pad)
    L = ["  BY_SHARED_BUFFER(by_smem);"]
    off = 0
    for j, ld in enumerate(view.staged):
        ct = ld.dtype.compute_ctype
        L.append(f"  {ct}* const by_t{j} = reinterpret_cast<{ct}*>(by_smem + {off});")
        off += sizes[j]
    L += [f"  {it} by_blk = {BLOCK_X};",
          f"  const {it} by_b0 = (by_blk % {tb}) * {TILE}; by_blk /= {tb};",
          f"  const {it} by_a0 = (by_blk % {ta}) * {TILE}; by_blk /= {ta};"]
    _unit_vars(L, "  ", it, view.unit)
    _decompose(L, "  ", it, "by_blk", view.outer, "by_ro")
    bvar = view.b[0][0]
    guard = [c for c, need in ((f"by_ga < {A}", A % TILE != 0), (f"by_gb < {B}", B % TILE != 0)) if need]
    cond = " && ".join(guard)

    def phase(fast: str, lines_body) -> None:
        slow = "by_bl" if fast == "by_al" else "by_al"
        L.append("  #pragma unroll")
        L.append(f"  for (int by_e = threadIdx.x; by_e < {TILE * TILE}; by_e += {T}) {{")
        L.append(f"    const int {fast} = by_e % {TILE}, {slow} = by_e / {TILE};")
        L.append(f"    const {it} by_ga = by_a0 + by_al, by_gb = by_b0 + by_bl;")
        ind = "    "
        if cond:
            L.append(f"    if ({cond}) {{")
            ind = "      "
        _decompose(L, ind, it, "by_ga", view.a, "by_ra")
        L.append(f"{ind}const {it} {bvar} = by_gb;")
        lines_body(ind)
        if cond:
            L.append("    }")
        L.append("  }")

    def stage(ind: str) -> None:       # lanes along a: coalesced reads of the staged inputs
        for j, ld in enumerate(view.staged):
            val = _render_with(te, ld, {}, L, ind, it)
            L.append(f"{ind}by_t{j}[by_al * {P} + by_bl] = {val};")

    subst = {ld: f"by_t{j}[by_al * {P} + by_bl]" for j, ld in enumerate(view.staged)}

    def write(ind: str) -> None:       # lanes along b: coalesced writes (and direct reads)
        val = _render_with(te, te.body, subst, L, ind, it)
        _store(te, L, ind, val, te.body.dtype)

    phase("by_al", stage)
    L.append("  __syncthreads();")
    phase("by_bl", write)
    entry, source = finish_kernel(prefix, _signature(te), L, launch_bounds=(T,))
    return Kernel(entry=entry, source=source, params=_kparams(te, out_value, in_values), grid=(blocks, 1, 1),
                  block=(T, 1, 1), shared_bytes=sum(sizes), expr=te)


# ---- reductions split across blocks ------------------------------------------------------------

def split_chunk(K: int, splits: int) -> tuple[int, int]:
    """(elements per slice, number of slices): every slice non-empty, so max/min need no flag."""
    chunk = math.ceil(K / splits)
    return chunk, math.ceil(K / chunk)


def render_split_reduce(te: TensorExpr, view: ReduceView, cfg: KernelConfig, prefix: str, out_value: str,
                        in_values, workspace: str) -> Kernel:
    """One launch: block (row, slice) reduces `chunk` consecutive k of its row and writes its
    partial to the fp32 workspace at [row][slice]; the last of the row's blocks to arrive (on the
    launch's counters, one per row) combines the row's partials in slice order with its first warp
    (lane-strided, then an xor tree: a fixed order, so the result does not depend on which block is
    last) and applies the epilogue."""
    T = int(cfg.param("block_threads"))
    S = cfg.split_k
    if S < 2 or not workspace:
        raise ValueError(f"{prefix}: a split reduction has two or more slices and a workspace")
    chunk = int(cfg.param("chunk"))
    op = te.reduce.op
    it = "long long" if view.R * S * 2 >= INT32_LIMIT else index_ctype(te)    # the workspace's index too
    vt = te.body.dtype.compute_ctype
    flag = op in ("max", "min")
    R, K = view.R, view.K
    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  const int tid = threadIdx.x;",
         f"  const {it} by_slice = ({it}){BLOCK_X} % {S};",
         f"  const {it} row = ({it}){BLOCK_X} / {S};",
         f"  const {it} by_k0 = by_slice * {chunk};",
         f"  const {it} by_k1 = by_k0 + {chunk} < {K} ? by_k0 + {chunk} : {K};",
         f"  {vt} by_racc = {_INIT[op]};"]
    if flag:
        L.append("  int have = 0;")
    _unit_vars(L, "  ", it, view.unit)
    _decompose(L, "  ", it, "row", view.rows, "by_rr")
    L.append(f"  for ({it} k = by_k0 + tid; k < by_k1; k += {T}) {{")
    _decompose(L, "    ", it, "k", view.k, "by_rk")
    val = _render_with(te, te.body, {}, L, "    ", it)
    L.append(f"    const {vt} v = {val};")
    L.append(accumulate(op, flag))
    L.append("  }")
    combine_partials(L, op, vt, flag, T, T)
    L += [f"  if (tid == 0) by_ws[row * {S} + by_slice] = (float)by_racc;",
          "  __threadfence();   // the partial is visible device-wide before the block arrives",
          "  __syncthreads();",
          "  int* const by_last = reinterpret_cast<int*>(by_smem);   // the partials' slots are read",
          f"  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[row], {S}u);",
          "  __syncthreads();",
          "  if (!*by_last || tid >= 32) return;",
          "  __threadfence();   // the other slices are read after their arrivals were seen",
          f"  by_racc = {_INIT[op]};"]
    if flag:
        L.append("  have = 0;")
    L.append(f"  for (int s = tid; s < {S}; s += 32) {{")
    L.append(f"    const float v = __ldcg(&by_ws[row * {S} + s]);")
    L.append(accumulate(op, flag))
    L.append("  }")
    combine_partials(L, op, vt, flag, 32, 32)
    L.append("  if (tid == 0) {")
    if flag:
        L.append("    (void)have;")
    _epilogue(te, L, "    ", it, "by_racc", te.body.dtype)
    L.append("  }")
    signature, params = split_params(te, out_value, in_values, workspace)
    entry, source = finish_kernel(prefix, signature, L, launch_bounds=(T,), arrivals=R)
    return Kernel(entry=entry, source=source, params=params, grid=(R * S, 1, 1), block=(T, 1, 1),
                  shared_bytes=(T // 32) * (4 + 4), expr=te, arrivals=R)
