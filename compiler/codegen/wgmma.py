"""Hopper contraction kernels (wgmma + the bulk tensor copy engine) of Roller kind "wgmma_gemm".

batch x (M x K).(K x N) for operands that are plain strided loads of fp16/bf16 storage ("tma":
the copy engine fills them) or of fp32 storage rounded to fp16/bf16 ("vector": activations under
--precision; the block's threads load them with 16-byte vector loads, convert in registers and
store them with by_st_shared into the same swizzled layout, then fence.proxy.async before the
barrier that precedes their wgmma). Every other operand stays on the mma.sync path
(compiler/codegen/tensor_core.py). A block is 1-2
warpgroups, each computing 64 rows x BN of the block's BM x BN tile with one
wgmma.m64n<BN>k16 per 16 k; all warpgroups compute, thread 0 also issues the copies. K is
walked in 64-wide tiles (128 bytes of a 16-bit row: the 128-byte swizzle) through `stages`
shared buffers, each filled by TMA and completed on its own mbarrier:

  fill stages 0..S-1;  every k-tile i: wait full[i % S] (parity (i / S) & 1);
  fence; 4 wgmma; commit; wait 1 (k-tile i - 1's group retired, i's in flight); __syncthreads
  (all warpgroups are done with k-tile i - 1's stage); refill that stage with k-tile i - 1 + S:
  thread 0 issues the copies, every thread loads, converts and stores its share of the "vector"
  operands while k-tile i's wgmma runs.  After the loop: wait 0, then the epilogue.

The register-staged stores for k-tile j = i - 1 + S are made after iteration i's barrier and read
by iteration j's wgmma; with S >= 3 iteration i + 1's barrier lies between (the fence precedes it),
so a kernel with a "vector" operand has S >= 3 unless no stage is ever refilled (k-tiles <= S). The
prologue's stores are followed by one barrier of their own. Without a "tma" operand there are no
mbarriers.

An operand whose innermost axis is K is copied as one box of 64 k x rows ("K-major" for wgmma);
one whose innermost axis is M (N) as boxes of 64 rows x 64 k ("MN-major", the transpose bit).
The copy engine zero-fills boxes past the tensor's edges, so ragged M, N, K need no guard until
the epilogue, which is tiled.py's (bias, activation, casts) with stores guarded at M and N, staged
through the stages' shared memory where the output allows (codegen/staged_epilogue.py)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.texpr import TensorExpr
from ..analysis.views import GemmView, TcOperand, tc_operand
from ..ir.tiles import KernelConfig
from .block_function import BLOCK_X, finish_kernel
from ..ir.kernel import Kernel, TensorMapDecl
from .staged_epilogue import copy_out, declare_tile, stage_value, tile_bytes, tile_pitch
from .tensor_core import split_k_index_type, split_k_range, split_k_slice, split_k_sum
from .tiled import _decompose, _epilogue, _unit_vars, split_params

BK = 64                       # k per stage: 64 16-bit elements = one 128-byte swizzled row
SLAB = 64 * 128               # bytes of a 64-row (or 64 k-row) block of 128-byte rows
WGMMA_N = (64, 128, 256)      # instruction widths the prelude wraps
WGMMA_KIND = {"float16": "f16", "bfloat16": "bf16"}
MAX_BATCH_DIMS = 2            # tensor maps of rank <= 4 (by_tma_load_2d..4d)
PACK = {"float16": "by_pack_half2", "bfloat16": "by_pack_bf162"}
FILL_UNROLL = 4               # 16-byte chunks whose two float4 loads a thread has in flight at once


@dataclass(frozen=True)
class WgmmaPlan:
    """What the renderer and the construction need to know about one wgmma_gemm configuration."""

    elem: str
    BM: int
    BN: int
    stages: int
    a: TcOperand
    b: TcOperand
    load_a: str = "tma"        # "tma" or "vector"
    load_b: str = "tma"
    out_tile_bytes: int = 0    # the staged output tile (codegen/staged_epilogue.py), 0: direct stores
    split_k: int = 1           # slices of K, each a block's; the tile's last block sums them (split-K)

    @property
    def warpgroups(self) -> int:
        return self.BM // 64

    @property
    def threads(self) -> int:
        return 128 * self.warpgroups

    @property
    def stage_bytes(self) -> int:
        return (self.BM + self.BN) * 128

    @property
    def barrier_offset(self) -> int:
        """Where the mbarriers start: after the stages, which the staged output tile reuses."""
        return max(self.stages * self.stage_bytes, self.out_tile_bytes)

    @property
    def shared_bytes(self) -> int:
        # 1024 bytes of slack to align the stages on a swizzle atom, then one mbarrier per stage
        return 1024 + self.barrier_offset + 8 * self.stages

    def mn_major(self, side: str) -> bool:
        return (self.a if side == "a" else self.b).inner == "r"

    def load(self, side: str) -> str:
        return self.load_a if side == "a" else self.load_b

    @property
    def tma_bytes(self) -> int:
        """Bytes the copy engine brings per stage (the mbarrier's transaction count)."""
        return 128 * ((self.BM if self.load_a == "tma" else 0) + (self.BN if self.load_b == "tma" else 0))

    @property
    def has_vector(self) -> bool:
        return "vector" in (self.load_a, self.load_b)


TMA_COORD_LIMIT = 2**31 - 1   # the copy engine's box coordinates are signed 32-bit


def coordinate_limit(view: GemmView) -> str | None:
    """Why the wgmma kind cannot take a GEMM whose extents its 32-bit tensor-map coordinates (and
    k-tile counter) cannot reach, else None: such specs stay with the 64-bit-indexed kinds."""
    for name, ext in (("M", view.M), ("N", view.N), ("K", view.K), *((v, e) for v, e in view.batch)):
        # the last tile's coordinate is rounded up to the tile (at most 256)
        if ext + 256 > TMA_COORD_LIMIT:
            return (f"wgmma_gemm declined: {name} = {ext} exceeds its 32-bit tensor-map coordinates; "
                    "a 64-bit-indexed kind takes it")
    return None


def stages_allowed(stages: int, k_tiles: int, has_vector: bool) -> bool:
    """Whether a pipeline depth is legal: register-staged stores need a barrier between them and
    their wgmma, which refills at S = 2 would lack (module docstring)."""
    return not has_vector or stages >= 3 or k_tiles <= stages


def wgmma_loader(view: GemmView, op: TcOperand | None, elem: str) -> str | None:
    """"tma" for a plain strided load of `elem` storage a tensor map can describe (rows 16-byte
    aligned, at most MAX_BATCH_DIMS batch axes); "vector" for a plain strided fp32 load rounded to
    `elem` with 16-byte aligned rows; else None."""
    if op is None or not op.direct or op.gathered:   # a tensor map addresses strided operands only
        return None
    if op.storage == elem and op.aligned(8) and len(_batch_vars(view, op)) <= MAX_BATCH_DIMS:
        return "tma"
    if op.storage == "float32" and not op.stored and op.aligned(4):
        return "vector"
    return None


def wgmma_operands(te: TensorExpr, view: GemmView, elem: str) -> tuple[TcOperand, TcOperand, str, str] | None:
    """(A, B, A's loader, B's loader) when both operands can reach shared memory for wgmma, else None."""
    ops = (tc_operand(te, view, "a", elem), tc_operand(te, view, "b", elem))
    loads = tuple(wgmma_loader(view, op, elem) for op in ops)
    if None in loads:
        return None
    return (*ops, *loads)


def _batch_vars(view: GemmView, op: TcOperand) -> list[tuple[str, int]]:
    """The batch axes (var, extent) the operand's address depends on, innermost first."""
    extents = dict(view.batch)
    return [(v, extents[v]) for v, _ in reversed(op.strides) if v in extents]


def wgmma_plan(te: TensorExpr, view: GemmView, cfg: KernelConfig) -> WgmmaPlan:
    """The WgmmaPlan of a configuration of kind wgmma_gemm."""
    blk = cfg.tile("block")
    elem = cfg.param("elem")
    ops = wgmma_operands(te, view, elem)
    if ops is None:
        raise ValueError(f"{te.name}: operands cannot reach shared memory for wgmma as {elem}")
    a, b, la, lb = ops
    why = coordinate_limit(view)
    if why is not None:
        raise ValueError(f"{te.name}: {why}")
    if (cfg.param("load_a", "tma"), cfg.param("load_b", "tma")) != (la, lb):
        raise ValueError(f"{te.name}: configuration loaders differ from the operands' ({la}, {lb})")
    BM, BN = blk.size("m"), blk.size("n")
    split = cfg.split_k
    p = WgmmaPlan(elem, BM, BN, int(cfg.param("stages")), a, b, la, lb,
                  tile_bytes(te, view, BM, BN) if split == 1 else 0, split)
    if not stages_allowed(p.stages, math.ceil(math.ceil(view.K / BK) / split), p.has_vector):
        raise ValueError(f"{te.name}: {p.stages} stages with a register-staged operand need >= 3")
    return p


def tensor_map(view: GemmView, p: WgmmaPlan, side: str) -> TensorMapDecl:
    """The tensor map of one operand: innermost axis first, then the other of (rows, k), then batch."""
    op = p.a if side == "a" else p.b
    row_var, rows_ext = (view.m[0][0], view.M) if side == "a" else (view.n[0][0], view.N)
    k_var = view.k[0][0]
    strides = dict(op.strides)
    eb = 2
    tile_rows = p.BM if side == "a" else p.BN
    if op.inner == "k":
        dims, box, outer = [view.K, rows_ext], [BK, tile_rows], row_var
    else:
        dims, box, outer = [rows_ext, view.K], [64, BK], k_var
    byte_strides = [strides[outer] * eb]
    for v, e in _batch_vars(view, op):
        dims.append(e)
        box.append(1)
        byte_strides.append(strides[v] * eb)
    return TensorMapDecl(op.arg, p.elem, tuple(dims), tuple(byte_strides), tuple(box), 128)


def _copies(view: GemmView, p: WgmmaPlan, side: str, map_name: str) -> list[str]:
    """Statements of thread 0 that copy one operand's k-tile `kt` into the stage at `dst`."""
    op = p.a if side == "a" else p.b
    row0 = "by_m0" if side == "a" else "by_n0"
    rows = p.BM if side == "a" else p.BN
    batch = [f"(int){v}" for v, _ in _batch_vars(view, op)]
    rank = 2 + len(batch)
    dst = f"by_s{side}"
    out = []
    if op.inner == "k":
        coords = ["kt * 64", f"(int){row0}"] + batch
        out.append(f"      by_tma_load_{rank}d({dst}, &{map_name}, {', '.join(coords)}, bar);")
    else:
        for j in range(rows // 64):
            coords = [f"(int){row0} + {64 * j}", "kt * 64"] + batch
            out.append(f"      by_tma_load_{rank}d({dst} + {j * SLAB}, &{map_name}, {', '.join(coords)}, bar);")
    return out


def _fill(view: GemmView, p: WgmmaPlan, side: str, it: str) -> list[str]:
    """Statements of every thread that store one fp32 operand's k-tile `kt`, rounded to p.elem,
    into the stage at `dst` (the layout the copy engine would give): 16-byte shared chunks of 8
    elements along the operand's innermost axis, each from two float4 loads, zero past the edges."""
    op = p.a if side == "a" else p.b
    rows, ext, row0 = (p.BM, view.M, "by_m0") if side == "a" else (p.BN, view.N, "by_n0")
    K, T, mn = view.K, p.threads, op.inner == "r"
    group_var, k_var = (view.m if side == "a" else view.n)[0][0], view.k[0][0]
    per_row = rows // 8 if mn else 8                 # chunks per shared row (k-row if MN-major)
    total = 64 * rows // 8
    outer_ext, inner_ext = (K, ext) if mn else (ext, K)
    outer_guard = (K % BK != 0) if mn else (ext % rows != 0)
    inner_guard = (ext % rows != 0) if mn else (K % BK != 0)
    terms = []
    for v, s in op.strides:
        name = "gr" if v == group_var else ("gk" if v == k_var else v)
        terms.append(f"({name})*{s}" if s != 1 else f"({name})")
    offset = " + ".join(terms)
    U = max(1, min(FILL_UNROLL, total // T))
    full = total % (U * T) == 0
    if mn:   # k-row o, rows 8j..8j+7 of 64-row slab j / 8
        where = ["const int o = c / %d, j = c %% %d;" % (per_row, per_row),
                 f"const {it} gk = ({it})kt * {BK} + o;", f"const {it} gr = {row0} + 8 * j;"]
        dst = f"by_s{side} + (j >> 3) * {SLAB} + by_swizzle_128b(o, 16 * (j & 7))"
    else:    # row o, k 8j..8j+7
        where = ["const int o = c >> 3, j = c & 7;",
                 f"const {it} gr = {row0} + o;", f"const {it} gk = ({it})kt * {BK} + 8 * j;"]
        dst = f"by_s{side} + by_swizzle_128b(o, 16 * j)"
    opos, ipos = ("gk", "gr") if mn else ("gr", "gk")
    ok = [f"c < {total}"] if not full else []
    if outer_guard:
        ok.append(f"{opos} < {outer_ext}")
    load = [f"      const float* const src = in{op.arg} + {offset};"]
    for q in (0, 1):
        pos = f"{ipos} + {4 * q}"
        if inner_guard:
            load += [f"      if ({pos} + 4 <= {inner_ext}) v[u][{q}] = by_ld_global_v4(src + {4 * q});",
                     f"      else for (int e = 0; e < 4 && {pos} + e < {inner_ext}; ++e) "
                     f"(&v[u][{q}].x)[e] = src[{4 * q} + e];"]
        else:
            load.append(f"      v[u][{q}] = by_ld_global_v4(src + {4 * q});")
    pk = PACK[p.elem]
    L = [f"    {{  // operand {side.upper()}: fp32 -> {p.elem}, {'k x rows' if mn else 'rows x k'}",
         f"    for (int c0 = tid; c0 < {total}; c0 += {U * T}) {{",
         f"      float4 v[{U}][2];",
         "      #pragma unroll",
         f"      for (int u = 0; u < {U}; ++u) {{  // every load first: {U} chunks in flight",
         f"        const int c = c0 + u * {T};",
         *("        " + x for x in where),
         "        v[u][0] = v[u][1] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);"]
    L += [f"        if ({' && '.join(ok)}) {{" if ok else "        {"] + ["  " + x for x in load] + ["        }", "      }"]
    L += ["      #pragma unroll",
          f"      for (int u = 0; u < {U}; ++u) {{",
          f"        const int c = c0 + u * {T};"]
    if not full:
        L.append(f"        if (c >= {total}) break;")
    L += [f"        {where[0]}",
          f"        by_st_shared(reinterpret_cast<uint4*>({dst}),",
          f"                     make_uint4({pk}(v[u][0].x, v[u][0].y), {pk}(v[u][0].z, v[u][0].w), "
          f"{pk}(v[u][1].x, v[u][1].y), {pk}(v[u][1].z, v[u][1].w)));",
          "      }", "    }", "    }"]
    return L


def _descriptor(p: WgmmaPlan, side: str, base: str) -> str:
    """The descriptor of the k16 step `kk` of operand `side` whose 64-row slice starts at `base`."""
    if p.mn_major(side):
        return f"by_wgmma_desc({base} + 2048u * kk, {SLAB}u, 1024u, BY_WGMMA_SWIZZLE_128B)"
    return f"by_wgmma_desc({base} + 32u * kk, 16u, 1024u, BY_WGMMA_SWIZZLE_128B)"


def _pipeline_head(view: GemmView, p: WgmmaPlan, it: str, nk: int, tma_sides: list[str]) -> list[str]:
    """mbarrier set-up, the `by_load(stage, kt)` lambda every thread calls (thread 0 issues the
    copies, all threads store their share of the register-staged operands) and the prologue (of
    the block's slice of K under split-K: `nloc` k tiles from `kt_begin`)."""
    S = p.stages
    L = []
    if tma_sides:
        L += ["  if (tid == 0)", f"    for (int s = 0; s < {S}; ++s) by_mbar_init(&by_full[s], 1);", "  __syncthreads();"]
    L += ["  auto by_load = [&](int stage, int kt) {  // one k-tile of A and B into `stage`",
          f"    unsigned char* const by_sa = by_base + stage * {p.stage_bytes};",
          f"    unsigned char* const by_sb = by_sa + {p.BM * 128};"]
    if tma_sides:
        L += ["    if (tid == 0) {",
              "      unsigned long long* const bar = &by_full[stage];",
              f"      by_mbar_arrive_expect_tx(bar, {p.tma_bytes}u);"]
        for sd in tma_sides:
            L += ["  " + x for x in _copies(view, p, sd, f"by_tm{sd}")]
        L.append("    }")
    for sd in ("a", "b"):
        if p.load(sd) == "vector":
            L += _fill(view, p, sd, it)
    if p.has_vector:
        L.append("    by_fence_proxy_async();  // this thread's stores, before the barrier its wgmma readers pass")
    L += ["    (void)by_sa; (void)by_sb;", "  };"]
    if p.split_k > 1:
        L.append(f"  for (int s = 0; s < {S}; ++s) if (s < nloc) by_load(s, kt_begin + s);")
    else:
        L.append(f"  for (int s = 0; s < {min(S, nk)}; ++s) by_load(s, s);")
    if p.has_vector:
        L.append("  __syncthreads();  // the prologue's register-staged stores, before the first wgmma")
    return L


def render_wgmma_gemm(te: TensorExpr, view: GemmView, cfg: KernelConfig, prefix: str, out_value: str,
                      in_values, workspace: str = "") -> Kernel:
    """The wgmma kernel of one wgmma_gemm configuration (operands by TMA or register-staged); with
    split_k > 1 each block reduces its slice of K into `workspace` (fp32 [split_k][outputs]) and
    the tile's last block sums the slices with the epilogue, in the same launch (tc_gemm's scheme:
    codegen/tensor_core.py `split_k_sum`)."""
    p = wgmma_plan(te, view, cfg)
    SK = p.split_k
    if SK > 1 and not workspace:
        raise ValueError(f"{te.name}: a split-K configuration needs its workspace")
    M, N, K = view.M, view.N, view.K
    mt, nt, nk = math.ceil(M / p.BM), math.ceil(N / p.BN), math.ceil(K / BK)
    S, T, BN = p.stages, p.threads, p.BN
    it = split_k_index_type(te, SK)
    tma_sides = [sd for sd in ("a", "b") if p.load(sd) == "tma"]
    decl, params = split_params(te, out_value, in_values, workspace if SK > 1 else "")
    sig = decl + [f"const __grid_constant__ by_tensor_map by_tm{sd}" for sd in tma_sides]
    ta, tb = int(p.mn_major("a")), int(p.mn_major("b"))
    mma = f"by_wgmma_m64n{BN}k16_{WGMMA_KIND[p.elem]}<{ta}, {tb}>"
    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  // stages start on a 1024-byte swizzle atom (the dynamic buffer is only 16-byte aligned)",
         "  unsigned char* const by_base = by_smem + ((1024u - (by_smem_addr(by_smem) & 1023u)) & 1023u);",
         f"  unsigned long long* const by_full = reinterpret_cast<unsigned long long*>(by_base + {p.barrier_offset});",
         "  (void)by_full;",
         "  const int tid = threadIdx.x, by_wg = tid >> 7, by_w = (tid >> 5) & 3, lane = tid & 31;",
         "  const int by_g = lane >> 2, by_t = lane & 3;",
         f"  {it} by_blk = {BLOCK_X};",
         f"  const {it} by_n0 = (by_blk % {nt}) * {p.BN}; by_blk /= {nt};",
         f"  const {it} by_m0 = (by_blk % {mt}) * {p.BM}; by_blk /= {mt};"]
    L += split_k_slice(SK, mt * nt)
    _unit_vars(L, "  ", it, view.unit)
    _decompose(L, "  ", it, "by_blk", view.batch, "by_rb")
    if SK > 1:
        L += split_k_range(SK, nk)
    kt_end, kt0 = ("nloc", "kt_begin + ") if SK > 1 else (str(nk), "")
    L += _pipeline_head(view, p, it, nk, tma_sides)
    L += [f"  float by_acc[{BN // 2}];",
          "  #pragma unroll",
          f"  for (int i = 0; i < {BN // 2}; ++i) by_acc[i] = 0.0f;",
          f"  for (int i = 0; i < {kt_end}; ++i) {{",
          f"    const int s = i % {S};"]
    if tma_sides:
        L.append(f"    by_mbar_wait(&by_full[s], (unsigned)(i / {S}) & 1u);")
    L += [f"    const unsigned by_a0 = by_smem_addr(by_base + s * {p.stage_bytes}) + by_wg * {SLAB}u;",
          f"    const unsigned by_b0 = by_smem_addr(by_base + s * {p.stage_bytes}) + {p.BM * 128}u;",
          "    by_wgmma_fence();",
          "    #pragma unroll",
          f"    for (unsigned kk = 0; kk < {BK // 16}; ++kk)",
          f"      {mma}(by_acc, {_descriptor(p, 'a', 'by_a0')}, {_descriptor(p, 'b', 'by_b0')}, 1);",
          "    by_wgmma_commit();",
          "    by_wgmma_wait<1>();  // k-tile i - 1's group has retired, k-tile i's stays in flight",
          "    __syncthreads();     // every warpgroup is done with k-tile i - 1's stage: refill it",
          f"    if (i >= 1 && i - 1 + {S} < {kt_end}) by_load((i - 1) % {S}, {kt0}i - 1 + {S});",
          "  }",
          "  by_wgmma_wait<0>();"]
    if p.out_tile_bytes:
        L += ["  __syncthreads();  // every warpgroup's wgmma has read its last stage: the tile reuses them",
              declare_tile(te, "by_base")]
    conds = [c for c, need in ((f"gm < {M}", M % p.BM != 0), (f"gn < {N}", N % p.BN != 0)) if need]

    def each_accumulator(inner: list[str]) -> list[str]:
        # accumulator i of lane (g, t) in warp w: row 16w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2t + i % 2
        out = ["  #pragma unroll",
               f"  for (int i = 0; i < {BN // 2}; ++i) {{",
               f"    const {it} gm = by_m0 + by_wg * 64 + by_w * 16 + by_g + 8 * ((i >> 1) & 1);",
               f"    const {it} gn = by_n0 + 8 * (i >> 2) + 2 * by_t + (i & 1);"]
        if conds:
            out.append(f"    if (!({' && '.join(conds)})) continue;")
        _decompose(out, "    ", it, "gm", view.m, "by_em")
        _decompose(out, "    ", it, "gn", view.n, "by_en")
        return out + inner + ["  }"]

    body: list[str] = []
    if SK > 1:
        tail, total = split_k_sum(te, it, SK, each_accumulator, "by_acc[i]")
        _epilogue(te, body, "    ", it, "by_sum", te.body.dtype)
        L += tail + each_accumulator(total + body)
    elif p.out_tile_bytes:
        stage_value(te, body, "    ", it, "by_acc[i]", tile_pitch(te, BN))
        L += each_accumulator(body) + ["  __syncthreads();"] + copy_out(te, view, p.BM, BN, T, it)
    else:
        _epilogue(te, body, "    ", it, "by_acc[i]", te.body.dtype)
        L += each_accumulator(body)
    tiles = view.B * mt * nt
    arrivals = tiles if SK > 1 else 0
    entry, source = finish_kernel(prefix, sig, L, launch_bounds=(T, 1), arrivals=arrivals)
    maps = tuple(tensor_map(view, p, sd) for sd in tma_sides)
    return Kernel(entry=entry, source=source, params=params, grid=(tiles * SK, 1, 1), block=(T, 1, 1),
                  shared_bytes=p.shared_bytes, expr=te, tensor_maps=maps, arch_specific=True, arrivals=arrivals)
