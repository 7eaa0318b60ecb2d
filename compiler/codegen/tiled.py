"""Tiled kernels rendered from a Roller configuration (compiler/roller): contractions as block /
thread tiles through shared memory, reductions with adaptive thread mapping, elementwise maps with
several coalesced elements per thread. Every kernel guards its boundary tiles, so any shape works.

Only the prelude's portable features are used (BY_SHARED_BUFFER, __syncthreads, warp shuffles),
so the same source runs on NVRTC and on the host harness."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from ..ir.dtypes import DType
from ..ir.graph import sha256_of
from ..ir.texpr import ACC, Expr, TensorExpr
from ..analysis.vector_loads import CHUNK, chunked
from ..analysis.views import ElementwiseView, GemmView, ReduceView
from ..ir.tiles import KernelConfig
from .cuda import INT32_LIMIT, ExprRenderer, SubstRenderer, combine, contiguous_strides, index_ctype
from .block_function import BLOCK_X, GRID_X, finish_kernel
from ..ir.kernel import Kernel, KernelParam

FULL_MASK = "0xFFFFFFFFu"


def gemm_shared_bytes(block_m: int, block_n: int, block_k: int, pad_a: int, pad_b: int, stages: int,
                      itemsize: int) -> int:
    """Dynamic shared memory of a GEMM configuration: `stages` copies of the A and B tiles."""
    return stages * block_k * ((block_m + pad_a) + (block_n + pad_b)) * itemsize


def _signature(te: TensorExpr, out_ctype: str | None = None) -> list[str]:
    """A rendered kernel's parameters: inputs in0.., then out (of `out_ctype`, by default the
    output's type)."""
    params = [f"const {t.dtype.ctype}* __restrict__ in{k}" for k, t in enumerate(te.inputs)]
    params.append(f"{out_ctype or te.output.dtype.ctype}* __restrict__ out")
    return params


def _kparams(te: TensorExpr, out_value: str, in_values, out_ctype: str | None = None) -> tuple[KernelParam, ...]:
    """The KernelParams of a kernel with _signature(te, out_ctype)."""
    kp = tuple(KernelParam(t.dtype.ctype, v, False) for t, v in zip(te.inputs, in_values))
    return kp + (KernelParam(out_ctype or te.output.dtype.ctype, out_value, True),)


def split_params(te: TensorExpr, out_value: str, in_values, workspace: str) -> tuple[list[str], tuple]:
    """(declarations, KernelParams) of a kernel that may split its reduction across blocks (split-K,
    a split reduction): inputs, the fp32 workspace `by_ws` of the partials when split (written,
    and read back in the launch), then the output."""
    params = _signature(te)
    kparams = _kparams(te, out_value, in_values)
    if workspace:
        params.insert(-1, "float* __restrict__ by_ws")
        kparams = kparams[:-1] + (KernelParam("float", workspace, True),) + kparams[-1:]
    return params, kparams


def _unit_vars(L: list[str], ind: str, it: str, unit) -> None:
    """Declares the output vars of extent 1 (always 0)."""
    for v in unit:
        L.append(f"{ind}const {it} {v} = 0;")


def _decompose(lines: list[str], ind: str, it: str, lin: str, group, tmp: str) -> None:
    """Declares the vars of a fused group from its linear index `lin` (last var fastest)."""
    if not group:
        return
    if len(group) == 1:
        lines.append(f"{ind}const {it} {group[0][0]} = {lin};")
        return
    lines.append(f"{ind}{it} {tmp} = {lin};")
    for k in range(len(group) - 1, -1, -1):
        v, e = group[k]
        if k == 0:
            lines.append(f"{ind}const {it} {v} = {tmp};")
        else:
            lines.append(f"{ind}const {it} {v} = {tmp} % {e}; {tmp} /= {e};")


def _render(te: TensorExpr, e: Expr, lines: list[str], ind: str, it: str) -> str:
    rend = ExprRenderer([f"in{k}" for k in range(len(te.inputs))],
                        [contiguous_strides(t.shape) for t in te.inputs], it)
    rend.lines = []
    val = rend.render(e, ind)
    lines.extend(rend.lines)
    return val


def _store(te: TensorExpr, lines: list[str], ind: str, result: str, result_dt: DType) -> None:
    """out[linear output index] = result, converted to the output type."""
    strides = contiguous_strides(te.output.shape)
    terms = [f"(i{d})*{s}" if s != 1 else f"(i{d})" for d, (s, n) in enumerate(zip(strides, te.output.shape)) if n != 1]
    off = " + ".join(terms) if terms else "0"
    if te.output.dtype is DType.bool and result_dt is not DType.bool:
        lines.append(f"{ind}out[{off}] = (({result}) != 0);")
    else:
        lines.append(f"{ind}out[{off}] = ({te.output.dtype.ctype})({result});")


def _epilogue(te: TensorExpr, lines: list[str], ind: str, it: str, acc_expr: str, acc_dt: DType,
              sink: str | None = None) -> None:
    """The accumulator's fused epilogue, stored to the output at the current index vars, or with
    `sink` (an lvalue of the output's type, never bool) assigned there instead."""
    lines.append(f"{ind}const {acc_dt.compute_ctype} {ACC} = {acc_expr};")
    val, dt = (_render(te, te.epilogue, lines, ind, it), te.epilogue.dtype) if te.epilogue is not None else (ACC, acc_dt)
    if sink is not None:
        lines.append(f"{ind}{sink} = ({te.output.dtype.ctype})({val});")
    else:
        _store(te, lines, ind, val, dt)


# ---- contractions ----------------------------------------------------------------------------

@dataclass(frozen=True)
class TileList:
    """The k tiles a block visits (SparTA's BCSR at the block tile's granularity): the block row
    of `operand` ("a": M tiles, "b": N tiles) r visits k tiles ktiles[offsets[r]:offsets[r + 1]]."""

    operand: str
    offsets: tuple[int, ...]
    ktiles: tuple[int, ...]

    @property
    def name(self) -> str:
        """The tables' name in C, after their content (two kernels walking one pattern share it)."""
        return f"by_bcsr_{sha256_of((self.offsets, self.ktiles))[:12]}"

    def table(self) -> str:
        """The two tables as device constants, baked into the kernel's source."""
        def arr(suffix, vals):
            return f"BY_DEVICE_CONST int {self.name}_{suffix}[{max(len(vals), 1)}] = {{{', '.join(map(str, vals or (0,)))}}};"
        return arr("off", self.offsets) + "\n" + arr("kt", self.ktiles)

    def walk(self, split: int, row: str) -> tuple[list[str], str, str, Callable[[str], str]]:
        """How a block walks its row's listed k tiles, for a renderer's k loop: (the lines that
        find them, the tables' source for the kernel's helpers, the count of steps, the k tile of
        step t). `row`: the block's row tile of `operand`. A split block walks its slice's share,
        ceil(count / split) of them (the last slices fewer or none)."""
        table = self.name
        lines = [f"  const int by_kt0 = {table}_off[{row}], by_nkt = {table}_off[{row} + 1] - by_kt0;"]
        if split == 1:
            return lines, self.table(), "by_nkt", lambda t: f"{table}_kt[by_kt0 + ({t})]"
        lines += [f"  const int by_per = (by_nkt + {split - 1}) / {split}, kt_begin = by_ks * by_per;",
                  "  const int nloc = by_nkt - kt_begin < by_per ? by_nkt - kt_begin : by_per;"]
        return lines, self.table(), "nloc", lambda t: f"{table}_kt[by_kt0 + kt_begin + ({t})]"


def row_tile(operand: str, BM: int, BN: int) -> str:
    """The block's row tile of the sparse operand (its N tile for B, its M tile for A)."""
    return f"(int)(by_{'n0' if operand == 'b' else 'm0'} / {BN if operand == 'b' else BM})"


VEC = 4     # a thread's fragment reads and output stores take 4 consecutive 4-byte values at once


def contiguous_rows(te: TensorExpr, view: GemmView, width: int) -> bool:
    """Whether the output's columns (the view's n group) are its innermost dimensions, in order,
    and N a whole number of `width`-element runs: every run of `width` columns starting at a
    multiple of `width` is then `width` consecutive output elements, as aligned as the row."""
    if not view.n:
        return False
    dims = [f"i{d}" for d, e in enumerate(te.output.shape) if e != 1]
    n_vars = [v for v, _ in view.n]
    return dims[len(dims) - len(n_vars):] == n_vars and view.N % width == 0


def row_offset(te: TensorExpr, view: GemmView) -> str:
    """Where `contiguous_rows` holds: the output offset of the current row (its m and batch vars
    declared), to which a column's gn adds."""
    terms, stride = [], 1
    n_vars = {v for v, _ in view.n}
    for d in range(len(te.output.shape) - 1, -1, -1):
        if te.output.shape[d] != 1 and f"i{d}" not in n_vars:
            terms.append(f"(i{d})*{stride}" if stride != 1 else f"(i{d})")
        stride *= te.output.shape[d]
    return " + ".join(reversed(terms)) if terms else "0"


def vector_stores(te: TensorExpr, view: GemmView) -> bool:
    """Whether the SIMT epilogue can store a thread's 4 consecutive columns as one 16-byte vector:
    an fp32 output whose rows are runs of whole vectors."""
    return te.output.dtype is DType.float32 and contiguous_rows(te, view, VEC)


def gemm_vector_reads(te: TensorExpr, view: GemmView, tm: int, tn: int, lda: int, ldb: int) -> tuple[bool, bool]:
    """(A, B): whether a thread reads that operand's fragment from shared memory 4 values at a
    time (LDS.128): float compute values, a thread tile of whole vectors, 16-byte tile rows. A
    thread then owns runs of 4 consecutive rows (columns) instead of every TCM-th; for B that
    makes its columns runs of 4, which the epilogue then stores as one vector, so B is vectorized
    only where `vector_stores` holds."""
    floats = te.body.dtype.compute_ctype == "float"
    vec_a = floats and tm % VEC == 0 and lda % VEC == 0
    vec_b = floats and tn % VEC == 0 and ldb % VEC == 0 and vector_stores(te, view)
    return vec_a, vec_b


def _owned(var: str, tid: str, threads: int, vec: bool) -> str:
    """Offset in the block tile of a thread's `var`-th row (column): runs of 4 when `vec`, else
    every `threads`-th."""
    if vec:
        return f"(({var}) >> 2) * {threads * VEC} + {tid} * {VEC} + (({var}) & 3)"
    return f"{tid} + ({var}) * {threads}"


def render_gemm(te: TensorExpr, view: GemmView, cfg: KernelConfig, prefix: str, out_value: str,
                in_values, tiles: TileList | None = None, workspace: str = "") -> Kernel:
    """batch x (M x K).(K x N) with block tiles in shared memory and thread tiles in registers;
    with `tiles`, each block's k loop visits only its listed k tiles (the others hold zeros).

    Split-K (the configuration's `split_k` slices): each tile's k tiles are divided among that
    many blocks; each writes its accumulators to the fp32 `workspace` (a slot per slice, tile,
    accumulator and thread), and the last of the tile's blocks to arrive sums the slices in a
    fixed order and runs the epilogue.

    With two stages the next k tile is fetched into registers before the current one is
    computed and stored to shared memory after it, so the global loads' latency hides behind
    the FMAs. Fragments are read 16 bytes at a time where `gemm_vector_reads` allows, and the
    epilogue then stores a thread's 4 consecutive columns as one 16-byte vector."""
    blk, thr = cfg.tile("block"), cfg.tile("thread")
    SK = cfg.split_k
    if SK > 1 and not workspace:
        raise ValueError(f"{prefix}: a split-K configuration needs its workspace")
    BM, BN, BK = blk.size("m"), blk.size("n"), blk.size("k")
    TM, TN = thr.size("m"), thr.size("n")
    pad = dict(blk.padding)
    PA, PB = pad.get("a", 0), pad.get("b", 0)
    stages = int(cfg.param("stages", 1))
    TCM, TCN = BM // TM, BN // TN        # thread grid: TCN threads along n (fastest), TCM along m
    T = TCM * TCN
    LDA, LDB = BM + PA, BN + PB
    M, N, K = view.M, view.N, view.K
    it = index_ctype(te)
    vt = te.body.dtype.compute_ctype
    vec_a, vec_b = gemm_vector_reads(te, view, TM, TN, LDA, LDB)
    mt, nt = math.ceil(M / BM), math.ceil(N / BN)
    blocks = view.B * mt * nt
    if SK > 1 and SK * blocks * BM * BN >= INT32_LIMIT:
        it = "long long"           # the workspace's slots
    # Small thread tiles build best without bounds (ptxas's cap for 1024 threads, 64 registers, is
    # plenty); with bounds of T threads alone ptxas sometimes squeezes to 32 registers and spills.
    bounds = () if TM * TN <= 16 else (T, 1)
    L: list[str] = ["  BY_SHARED_BUFFER(by_smem);",
                    f"  {vt}* const by_as = reinterpret_cast<{vt}*>(by_smem);",
                    f"  {vt}* const by_bs = by_as + {stages * BK * LDA};",
                    "  const int tid = threadIdx.x;",
                    f"  const int tx = tid % {TCN};",
                    f"  const int ty = tid / {TCN};",
                    f"  {it} by_blk = {BLOCK_X};",
                    f"  const {it} by_n0 = (by_blk % {nt}) * {BN}; by_blk /= {nt};",
                    f"  const {it} by_m0 = (by_blk % {mt}) * {BM}; by_blk /= {mt};"]
    L += split_k_slice(SK, mt * nt)          # the block's slice of K and its tile (split-K)
    _unit_vars(L, "  ", it, view.unit)
    _decompose(L, "  ", it, "by_blk", view.batch, "by_rb")
    L.append(f"  {vt} by_acc[{TM}][{TN}];")
    L.append(f"  #pragma unroll\n  for (int i = 0; i < {TM}; ++i)\n    #pragma unroll\n"
             f"    for (int j = 0; j < {TN}; ++j) by_acc[i][j] = 0;")
    operands = (("as", view.a, view.m, BM, LDA, view.a_k_fastest, M),
                ("bs", view.b, view.n, BN, LDB, view.b_k_fastest, N))

    def element(name, rows, k_fast, i2) -> list[str]:
        """The tile coordinates (kk, rr) of element e of an operand's k tile."""
        if k_fast:
            return [f"{i2}const int kk = e % {BK}; const int rr = e / {BK};"]
        return [f"{i2}const int rr = e % {rows}; const int kk = e / {rows};"]

    def fetch(k0: str, ind: str, into: dict | None) -> list[str]:
        """Each thread's elements of the k tile at `k0`: into registers by_p<name>[r] (`into`),
        else straight into stage 0's shared tiles."""
        out: list[str] = []
        for name, expr, group, rows, ld, k_fast, extent in operands:
            total = rows * BK
            if into is not None:
                R = math.ceil(total / T)
                into[name] = R
                out.append(f"{ind}#pragma unroll")
                out.append(f"{ind}for (int r = 0; r < {R}; ++r) {{")
                out.append(f"{ind}  const int e = tid + r * {T};")
                if total % T:
                    out.append(f"{ind}  if (e >= {total}) break;")
            else:
                out.append(f"{ind}for (int e = tid; e < {total}; e += {T}) {{")
            i2 = ind + "  "
            out += element(name, rows, k_fast, i2)
            out.append(f"{i2}const {it} gr = by_{name[0]}r0 + rr; const {it} gk = {k0} + kk;")
            out.append(f"{i2}{vt} v = 0;")
            conds = []
            if extent % rows:
                conds.append(f"gr < {extent}")
            if K % BK:
                conds.append(f"gk < {K}")
            out.append(f"{i2}if ({' && '.join(conds)}) {{" if conds else f"{i2}{{")
            i3 = i2 + "  "
            _decompose(out, i3, it, "gr", group, "by_rm")
            _decompose(out, i3, it, "gk", view.k, "by_rk")
            val = _render(te, expr, out, i3, it)
            out.append(f"{i3}v = {val};")
            out.append(f"{i2}}}")
            out.append(f"{i2}by_p{name}[r] = v;" if into is not None else f"{i2}by_{name}[kk * {ld} + rr] = v;")
            out.append(f"{ind}}}")
        return out

    def store(stage: str, ind: str, regs: dict) -> list[str]:
        """The registers fetched by `fetch` into the shared tiles of `stage`."""
        out: list[str] = []
        for name, _, _, rows, ld, k_fast, _ in operands:
            total = rows * BK
            out += [f"{ind}#pragma unroll", f"{ind}for (int r = 0; r < {regs[name]}; ++r) {{",
                    f"{ind}  const int e = tid + r * {T};"]
            if total % T:
                out.append(f"{ind}  if (e >= {total}) break;")
            out += element(name, rows, k_fast, ind + "  ")
            out += [f"{ind}  by_{name}[({stage}) * {BK * ld} + kk * {ld} + rr] = by_p{name}[r];", f"{ind}}}"]
        return out

    L.append(f"  const {it} by_ar0 = by_m0, by_br0 = by_n0;")
    helpers: list[str] = []
    if tiles is None and SK > 1:
        L += split_k_range(SK, math.ceil(K / BK))
        ktiles = "nloc"
        k_at = lambda t: f"({it})(kt_begin + {t}) * {BK}"   # noqa: E731
    elif tiles is None:
        ktiles = str(math.ceil(K / BK))
        k_at = {"0": "0", "kt": f"kt * {BK}", "kt + 1": f"(kt + 1) * {BK}"}.get   # the k offset of step t
    else:
        lines, table, ktiles, tile_at = tiles.walk(SK, row_tile(tiles.operand, BM, BN))
        L += lines
        helpers.append(table)
        k_at = lambda t: f"({it}){tile_at(t)} * {BK}"   # noqa: E731
    regs: dict = {}
    if stages == 2:
        body = fetch(k_at("0"), "    ", regs)
        for name in ("as", "bs"):
            L.append(f"  {vt} by_p{name}[{regs[name]}];")
        L.append(f"  if ({ktiles} > 0) {{" if tiles is not None or SK > 1 else "  {")   # a block row (a slice) may have no k tile
        L += body + store("0", "    ", regs) + ["  }", "  __syncthreads();"]
    L.append(f"  for ({it} kt = 0; kt < {ktiles}; ++kt) {{")
    if stages == 2:
        L.append("    const int cur = (int)(kt & 1);")
        L.append(f"    if (kt + 1 < {ktiles}) {{")
        L.extend(fetch(k_at("kt + 1"), "      ", regs))
        L.append("    }")
    else:
        L.append("    const int cur = 0;")
        L.extend(fetch(k_at("kt"), "    ", None))
        L.append("    __syncthreads();")
    L += [f"    const {vt}* const as = by_as + cur * {BK * LDA};",
          f"    const {vt}* const bs = by_bs + cur * {BK * LDB};",
          "    #pragma unroll",
          f"    for (int kk = 0; kk < {BK}; ++kk) {{",
          f"      {vt} a[{TM}], b[{TN}];"]
    for frag, vec, n, ld, tid, threads in (("a", vec_a, TM, LDA, "ty", TCM), ("b", vec_b, TN, LDB, "tx", TCN)):
        src = "as" if frag == "a" else "bs"
        if vec:
            L += ["      #pragma unroll", f"      for (int g = 0; g < {n // VEC}; ++g) {{",
                  f"        const float4 q = by_ld_shared_v4({src} + kk * {ld} + g * {threads * VEC} + {tid} * {VEC});",
                  f"        {frag}[4 * g] = q.x; {frag}[4 * g + 1] = q.y; {frag}[4 * g + 2] = q.z; {frag}[4 * g + 3] = q.w;",
                  "      }"]
        else:
            L += ["      #pragma unroll",
                  f"      for (int i = 0; i < {n}; ++i) {frag}[i] = {src}[kk * {ld} + {_owned('i', tid, threads, False)}];"]
    L += ["      #pragma unroll",
          f"      for (int i = 0; i < {TM}; ++i)",
          "        #pragma unroll",
          f"        for (int j = 0; j < {TN}; ++j) by_acc[i][j] += a[i] * b[j];",
          "    }"]
    if stages == 2:
        L += [f"    if (kt + 1 < {ktiles}) {{"] + store("cur ^ 1", "      ", regs) + ["    }"]
    L += ["    __syncthreads();", "  }"]
    if SK > 1:
        L += _split_k_sum(SK, blocks, T, TM, TN, it, vt)
    # epilogue: thread (ty, tx) holds the rows and columns _owned says
    if vec_b:     # rows start at multiples of N, a whole number of vectors: the base decides
        L.append("  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;")
    L += ["  #pragma unroll", f"  for (int i = 0; i < {TM}; ++i) {{",
          f"    const {it} gm = by_m0 + {_owned('i', 'ty', TCM, vec_a)};"]
    if M % BM:
        L.append(f"    if (gm >= {M}) continue;")
    _decompose(L, "    ", it, "gm", view.m, "by_em")
    if vec_b:
        L += _vector_epilogue(te, view, it, TN, TCN, N % BN != 0)
    else:
        L += ["    #pragma unroll", f"    for (int j = 0; j < {TN}; ++j) {{",
              f"      const {it} gn = by_n0 + {_owned('j', 'tx', TCN, False)};"]
        if N % BN:
            L.append(f"      if (gn >= {N}) continue;")
        _decompose(L, "      ", it, "gn", view.n, "by_en")
        _epilogue(te, L, "      ", it, "by_acc[i][j]", te.body.dtype)
        L.append("    }")
    L.append("  }")
    signature, params = split_params(te, out_value, in_values, workspace if SK > 1 else "")
    arrivals = blocks if SK > 1 else 0
    entry, source = finish_kernel(prefix, signature, L, launch_bounds=bounds, helpers=helpers, arrivals=arrivals)
    shared = gemm_shared_bytes(BM, BN, BK, PA, PB, stages, ctype_size(vt))
    return Kernel(entry=entry, source=source, params=params, grid=(blocks * SK, 1, 1),
                  block=(T, 1, 1), shared_bytes=shared, config=(), expr=te, arrivals=arrivals)


def split_k_range(split: int, k_tiles: int) -> list[str]:
    """The k tiles the block's slice reduces: `nloc` of them from `kt_begin` (all of them unsplit)."""
    if split == 1:
        return ["  const int kt_begin = 0;", f"  const int nloc = {k_tiles};"]
    per = math.ceil(k_tiles / split)
    return [f"  const int kt_begin = by_ks * {per};",
            f"  const int nloc = {k_tiles} - kt_begin < {per} ? {k_tiles} - kt_begin : {per};"]


def split_k_slice(split: int, tiles_per_batch: int) -> list[str]:
    """After the tile's position is taken from by_blk: the block's slice `by_ks` and its tile's
    counter `by_tile` (block order: tiles fastest, then slices, then batch)."""
    if split == 1:
        return []
    return [f"  const int by_ks = (int)(by_blk % {split}); by_blk /= {split};",
            f"  const unsigned int by_tile = {BLOCK_X} % {tiles_per_batch}u + "
            f"{BLOCK_X} / {tiles_per_batch * split}u * {tiles_per_batch}u;"]


def _split_k_sum(SK: int, tiles: int, T: int, TM: int, TN: int, it: str, vt: str = "float") -> list[str]:
    """After a split-K block's k loop: its accumulators to its slots of the workspace, its arrival;
    every block but its tile's last returns, and that one sums the slices into by_acc, slice 0
    first, so the epilogue after it runs as unsplit. An int accumulator's bits go through the
    float workspace as they are (`vt` int), so an integer contraction's sum stays exact."""
    if vt not in ("float", "int"):
        raise ValueError(f"split-K sums float or int accumulators, not {vt}")
    # a slot per slice, tile, accumulator and thread, the threads fastest: a warp's stores coalesce
    slot = f"((({it})by_ks * {tiles} + by_tile) * {TM * TN} + i * {TN} + j) * {T} + tid"
    at_k = f"((({it})k * {tiles} + by_tile) * {TM * TN} + i * {TN} + j) * {T} + tid"
    put, get = "by_acc[i][j]", f"__ldcg(&by_ws[{at_k}])"
    if vt == "int":
        put, get = f"__int_as_float({put})", f"__float_as_int({get})"
    return ["  #pragma unroll", f"  for (int i = 0; i < {TM}; ++i)", "    #pragma unroll",
            f"    for (int j = 0; j < {TN}; ++j) by_ws[{slot}] = {put};",
            "  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives",
            "  __syncthreads();",
            "  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done",
            f"  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], {SK}u);",
            "  __syncthreads();",
            "  if (!*by_last) return;",
            "  __threadfence();   // the other slices are read after their arrivals were seen",
            "  #pragma unroll", f"  for (int i = 0; i < {TM}; ++i)", "    #pragma unroll",
            f"    for (int j = 0; j < {TN}; ++j) by_acc[i][j] = 0;",
            # slices outermost and rolled: each element sums them in slice order as before, with a
            # slice's TM x TN loads in flight at once; the loop unrolled inside each element
            # (SK x TM x TN loads) was slow for ptxas and took all 255 registers
            "  #pragma unroll 1", f"  for (int k = 0; k < {SK}; ++k)",
            "    #pragma unroll", f"    for (int i = 0; i < {TM}; ++i)", "      #pragma unroll",
            f"      for (int j = 0; j < {TN}; ++j) by_acc[i][j] += {get};"]


def _vector_epilogue(te: TensorExpr, view: GemmView, it: str, TN: int, TCN: int, ragged_n: bool) -> list[str]:
    """Inside the row loop (gm and the m vars declared): each run of 4 columns a thread owns, its
    fused epilogue into 4 registers, then one 16-byte store (element stores where the output
    pointer is not 16-byte aligned: a caller's buffer; `by_out_aligned` says)."""
    L = [f"    float* const by_orow = out + ({row_offset(te, view)});",
         "    #pragma unroll", f"    for (int g = 0; g < {TN // VEC}; ++g) {{",
         f"      const {it} gn0 = by_n0 + g * {TCN * VEC} + tx * {VEC};"]
    if ragged_n:
        L.append(f"      if (gn0 >= {view.N}) continue;")   # N is whole runs of 4: a run is in or out
    L.append(f"      float by_ov[{VEC}];")
    for q in range(VEC):
        L.append("      {")
        L.append(f"        const {it} gn = gn0 + {q};")
        _decompose(L, "        ", it, "gn", view.n, "by_en")
        _epilogue(te, L, "        ", it, f"by_acc[i][4 * g + {q}]", te.body.dtype, sink=f"by_ov[{q}]")
        L.append("      }")
    L += ["      if (by_out_aligned) {",
          "        const float4 by_v = {by_ov[0], by_ov[1], by_ov[2], by_ov[3]};",
          "        by_st_global_v4(by_orow + gn0, by_v);",
          "      } else {",
          f"        for (int q = 0; q < {VEC}; ++q) by_orow[gn0 + q] = by_ov[q];",
          "      }",
          "    }"]
    return L


def ctype_size(ctype: str) -> int:
    """Bytes of a compute C type the tiled kernels stage."""
    return {"float": 4, "int": 4, "double": 8, "long long": 8}[ctype]


# ---- reductions --------------------------------------------------------------------------------

_INIT = {"sum": "0", "prod": "1", "max": "0", "min": "0"}


def _shuffle_lines(L: list[str], op: str, vt: str, flag: bool, width: int, ind: str) -> None:
    """An xor-shuffle tree over `width` lanes (a fixed order: the result is deterministic)."""
    o = width // 2
    L.append(f"{ind}for (int o = {o}; o > 0; o >>= 1) {{")
    L.append(f"{ind}  const {vt} other = __shfl_xor_sync({FULL_MASK}, by_racc, o);")
    if flag:
        L.append(f"{ind}  const int other_have = __shfl_xor_sync({FULL_MASK}, have, o);")
        L.append(f"{ind}  if (other_have) {{ by_racc = have ? {combine(op, 'by_racc', 'other')} : other; have = 1; }}")
    else:
        L.append(f"{ind}  by_racc = {combine(op, 'by_racc', 'other')};")
    L.append(f"{ind}}}")


def accumulate(op: str, flag: bool, ind: str = "    ") -> str:
    """The line folding `v` into a thread's partial `by_racc` (for max/min, `flag`: the first
    value taken as it is, `have` set)."""
    if flag:
        return f"{ind}by_racc = have ? {combine(op, 'by_racc', 'v')} : v; have = 1;"
    return f"{ind}by_racc = {combine(op, 'by_racc', 'v')};"


def combine_partials(L: list[str], op: str, vt: str, flag: bool, T: int, tpr: int) -> None:
    """Combines the `tpr` threads' partials `by_racc` (and flags `have`) of each output: shuffles
    within a warp, then (tpr > 32) one partial per warp through shared memory `by_smem`."""
    if tpr > 1:
        _shuffle_lines(L, op, vt, flag, min(tpr, 32), "  ")
    if tpr > 32:
        warps = T // 32
        L += [f"  {vt}* const part = reinterpret_cast<{vt}*>(by_smem);",
              f"  int* const part_have = reinterpret_cast<int*>(part + {warps});",
              "  if ((tid & 31) == 0) {", "    part[tid >> 5] = by_racc;"]
        L.append(f"    part_have[tid >> 5] = {'have' if flag else '1'};")
        L += ["  }", "  __syncthreads();", "  if (tid < 32) {",
              f"    by_racc = tid < {warps} ? part[tid] : ({vt}){_INIT[op]};"]
        if flag:
            L.append(f"    have = tid < {warps} ? part_have[tid] : 0;")
        _shuffle_lines(L, op, vt, flag, 32, "    ")
        L.append("  }")


def render_reduce(te: TensorExpr, view: ReduceView, cfg: KernelConfig, prefix: str, out_value: str,
                  in_values) -> Kernel:
    """Each output reduced by `threads_per_row` threads: a sub-warp with shuffles, or a whole block."""
    tpr = int(cfg.param("threads_per_row"))
    T = int(cfg.param("block_threads"))
    op = te.reduce.op
    it = index_ctype(te)
    vt = te.body.dtype.compute_ctype
    flag = op in ("max", "min")   # an empty partial is not an identity for max/min: carry a flag
    rpb = max(1, T // tpr)
    R, K = view.R, view.K
    blocks = math.ceil(R / rpb)
    block_wide = tpr > 32
    L = []
    if block_wide:
        L.append("  BY_SHARED_BUFFER(by_smem);")
    L += ["  const int tid = threadIdx.x;",
          f"  const int lane = tid % {tpr};",
          f"  const {it} row = ({it}){BLOCK_X} * {rpb} + tid / {tpr};",
          f"  const bool active = row < {R};",
          f"  {vt} by_racc = {_INIT[op]};"]
    if flag:
        L.append("  int have = 0;")
    _unit_vars(L, "  ", it, view.unit)
    L.append(f"  const {it} rowc = active ? row : 0;")
    _decompose(L, "  ", it, "rowc", view.rows, "by_rr")
    width = int(cfg.param("k_vec") or 0)
    if width:   # vectors where every buffer they read is 16-byte aligned (graph inputs are the caller's)
        args = sorted({vec.arg for vec in _chunked(te, view, width)[2]})
        ptrs = " | ".join(f"(unsigned long long)(in{a})" for a in args)
        L.append(f"  if ((({ptrs}) & 15ull) == 0ull) {{")
        _chunk_loop(te, view, width, tpr, L, it, vt)
        L.append("  } else {")
    L.append(f"  if (active) for ({it} k = lane; k < {K}; k += {tpr}) {{")
    _decompose(L, "    ", it, "k", view.k, "by_rk")
    val = _render(te, te.body, L, "    ", it)
    L.append(f"    const {vt} v = {val};")
    L.append(accumulate(op, flag))
    L.append("  }")
    if width:
        L.append("  }")

    combine_partials(L, op, vt, flag, T, tpr)
    L.append("  if (active && lane == 0) {")
    acc_dt = te.body.dtype
    if flag:
        L.append("    (void)have;")
    _epilogue(te, L, "    ", it, "by_racc", acc_dt)
    L += ["  }"]
    entry, source = finish_kernel(prefix, _signature(te), L, launch_bounds=(T,))
    shared = (T // 32) * (ctype_size(vt) + 4) if block_wide else 0
    return Kernel(entry=entry, source=source, params=_kparams(te, out_value, in_values), grid=(blocks, 1, 1),
                  block=(T, 1, 1), shared_bytes=shared, expr=te)


def _chunked(te: TensorExpr, view: ReduceView, width: int):
    found = chunked(te, view, width)
    if found is None:
        raise ValueError(f"no {width}-wide vector loads for this reduction")
    return found


def _chunk_loop(te: TensorExpr, view: ReduceView, width: int, tpr: int, L: list[str], it: str, vt: str) -> None:
    """A lane's k loop taking `width` consecutive k a step (analysis/vector_loads.py): each run of
    consecutive elements the step reads is one 16-byte load, the rest scalar loads computed once
    where the elements share them (a block's scale), then the step's sum is accumulated."""
    chunk, _, vectors, where = _chunked(te, view, width)
    L.append(f"  if (active) for ({it} {CHUNK} = lane; {CHUNK} < {view.K // width}; {CHUNK} += {tpr}) {{")
    rend = SubstRenderer(te, it, {})
    rend.hoist = set()
    for j, vec in enumerate(vectors):
        ct = te.inputs[vec.arg].dtype.ctype
        L.append(f"    const uint4 by_r{j} = by_ld_global_b128(in{vec.arg} + ({rend.r(vec.start)}));")
        L.append(f"    const {ct}* const by_e{j} = reinterpret_cast<const {ct}*>(&by_r{j});")
    subst = {ld: f"by_e{j}[{q}]" for ld, (j, q) in where.items()}
    body = SubstRenderer(te, it, subst)
    val = body.render(chunk, "    ")
    L.extend(body.lines)
    L.append(f"    const {vt} v = {val};")
    L.append(accumulate("sum", False))
    L.append("  }")


def render_reduce_columns(te: TensorExpr, view: ReduceView, cfg: KernelConfig, prefix: str, out_value: str,
                          in_values) -> Kernel:
    """Consecutive outputs across a warp's lanes (`rows_across_lanes` a block), each output's
    reduction split among `k_groups` thread groups (group g takes k = g, g + G, ...): one load
    instruction reads RL consecutive outputs' elements at one k, coalesced where the outputs are
    contiguous and k strided (a matrix-vector product x . W with W stored k-major, as exporters
    write a Linear; a column sum). The groups' partials meet in shared memory and group 0 combines
    them in group order (deterministic). Every group has a k (G <= K), so max/min need no flag
    across groups."""
    RL = int(cfg.param("rows_across_lanes"))
    G = int(cfg.param("k_groups"))
    T = RL * G
    op = te.reduce.op
    it = index_ctype(te)
    vt = te.body.dtype.compute_ctype
    flag = op in ("max", "min")
    R, K = view.R, view.K
    if G > K:
        raise ValueError(f"{prefix}: {G} k groups for a reduction over {K}")
    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  const int tid = threadIdx.x;",
         f"  const int by_r = tid % {RL}, by_g = tid / {RL};",
         f"  const {it} row = ({it}){BLOCK_X} * {RL} + by_r;",
         f"  const bool active = row < {R};",
         f"  {vt} by_racc = {_INIT[op]};"]
    if flag:
        L.append("  int have = 0;")
    _unit_vars(L, "  ", it, view.unit)
    L.append(f"  const {it} rowc = active ? row : 0;")
    _decompose(L, "  ", it, "rowc", view.rows, "by_rr")
    L += ["  if (active) {", "    #pragma unroll 4", f"    for ({it} k = by_g; k < {K}; k += {G}) {{"]
    _decompose(L, "      ", it, "k", view.k, "by_rk")
    val = _render(te, te.body, L, "      ", it)
    L.append(f"      const {vt} v = {val};")
    L.append(accumulate(op, flag, "      "))
    L += ["    }", "  }"]
    if flag:
        L.append("  (void)have;")
    L += [f"  {vt}* const part = reinterpret_cast<{vt}*>(by_smem);",
          "  part[tid] = by_racc;",
          "  __syncthreads();",
          "  if (by_g != 0 || !active) return;",
          f"  for (int g = 1; g < {G}; ++g) {{",
          f"    const {vt} other = part[g * {RL} + by_r];",
          f"    by_racc = {combine(op, 'by_racc', 'other')};",
          "  }"]
    _epilogue(te, L, "  ", it, "by_racc", te.body.dtype)
    entry, source = finish_kernel(prefix, _signature(te), L, launch_bounds=(T,))
    return Kernel(entry=entry, source=source, params=_kparams(te, out_value, in_values),
                  grid=(math.ceil(R / RL), 1, 1), block=(T, 1, 1), shared_bytes=T * ctype_size(vt), expr=te)


# ---- elementwise -------------------------------------------------------------------------------

def render_elementwise(te: TensorExpr, view: ElementwiseView, cfg: KernelConfig, prefix: str, out_value: str,
                       in_values) -> Kernel:
    """`per_thread` outputs per thread, each step of a warp covering consecutive outputs."""
    T = int(cfg.param("block_threads"))
    V = int(cfg.param("per_thread"))
    blocks = int(cfg.workload.blocks)
    it = index_ctype(te)
    n = view.n
    L = [f"  for ({it} base = ({it}){BLOCK_X} * {T * V} + threadIdx.x; base < {n}; "
         f"base += ({it}){GRID_X} * {T * V}) {{",
         "    #pragma unroll",
         f"    for (int u = 0; u < {V}; ++u) {{",
         f"      const {it} lin = base + u * {T};",
         f"      if (lin >= {n}) break;"]
    group = tuple((f"i{d}", e) for d, e in enumerate(te.output.shape))
    for v, e in group:
        if e == 1:
            L.append(f"      const {it} {v} = 0;")
    _decompose(L, "      ", it, "lin", tuple(g for g in group if g[1] != 1), "by_rem")
    val = _render(te, te.body, L, "      ", it)
    _store(te, L, "      ", val, te.body.dtype)
    L += ["    }", "  }"]
    entry, source = finish_kernel(prefix, _signature(te), L, launch_bounds=(T,))
    return Kernel(entry=entry, source=source, params=_kparams(te, out_value, in_values), grid=(blocks, 1, 1),
                  block=(T, 1, 1), expr=te)
