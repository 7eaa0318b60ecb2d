"""Sparse tensor-core contraction kernels (mma.sp, 2:4) rendered from a configuration of kind
"sparse24_gemm" (kinds/sparse24_gemm.py; passes/sparse24.py compresses the weight).

The constant operand, the "sparse side" ("b": its rows are the view's n; "a": the view's m), is
stored compressed: `values` [R, K/2], the two kept values of every 4-wide chunk along k, and
`meta` [R, K/4], a byte per chunk holding the kept positions p0 < p1 as p0 | p1 << 2. mma.sp
takes the structured operand as its A, so the sparse rows are the mma's M and the dense rows its
N: a block computes BR sparse rows x BD dense rows, warps WR x WD of m16n8k32 tiles.

- the dense operand is staged exactly as tc_gemm stages it (codegen/tensor_core.py's loaders:
  cp.async, vector or generic; swizzled or padded tiles) and read with ldmatrix x4 (k-major
  tiles) or x4.trans (row-major tiles): register i of a lane holds k = 2t + 8i, +1 of its column;
- the compressed values by 16-byte cp.async into a swizzled tile, read with ldmatrix x4 as the
  dense m16n8k16 A fragment they are for the compressed 16 x 16;
- the metadata bytes by 4-byte loads (rows past the end get positions 0 and 1, of zeros); lanes
  t = 0 and 1 of each quad pack their rows' four bytes into the nibbles of the mma's 16-bit rows
  (sparsity selector 0: the other lanes' metadata is not read)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..analysis.views import GemmView, TcOperand
from ..ir.kernel import Kernel
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig
from .block_function import BLOCK_X, finish_kernel
from .tensor_core import (ELEMS, SmemTile, TcPlan, _loader, fragment_loop, smem_tile, split_k_index_type,
                          split_k_sum)
from .tiled import _decompose, _epilogue, _unit_vars, split_k_range, split_k_slice, split_params

MMA_SP = {"float16": "by_mma_sp_m16n8k32_f16_f32", "bfloat16": "by_mma_sp_m16n8k32_bf16_f32"}
MMA_K = 32                      # logical k per mma.sp
EMPTY_ROW_META = "0x04040404u"  # positions 0 and 1 in every chunk: valid ordered metadata


@dataclass(frozen=True)
class Sp24Plan:
    """Everything the renderer needs about one sparse24_gemm configuration."""

    elem: str
    side: str            # the sparse operand: "a" or "b"
    BR: int              # sparse rows per block (mma M)
    BD: int              # dense rows per block (mma N)
    BK: int              # logical k per stage
    WR: int
    WD: int
    stages: int
    dense: TcOperand
    load_dense: str      # "async", "vector" or "generic" (tc_gemm's loaders)
    orient_dense: str    # "k": rows x k, "r": k x rows
    tile_dense: SmemTile
    tile_values: SmemTile
    values_arg: int      # input numbers of the compressed values and metadata
    meta_arg: int

    @property
    def dense_side(self) -> str:
        return "a" if self.side == "b" else "b"

    @property
    def warps(self) -> int:
        return (self.BR // self.WR) * (self.BD // self.WD)

    @property
    def meta_pitch(self) -> int:
        return self.BK // 4

    @property
    def meta_stage_bytes(self) -> int:
        return -(-self.BR * self.meta_pitch // 128) * 128

    @property
    def shared_bytes(self) -> int:
        return self.stages * (self.tile_dense.stage_bytes + self.tile_values.stage_bytes + self.meta_stage_bytes)


def values_tile(BR: int, BK: int, elem_bytes: int) -> SmemTile:
    """The compressed values' shared tile: BR rows of BK/2 elements, swizzled when the rows allow."""
    return smem_tile("k", BR, BK // 2, elem_bytes, 16, True)


def sp24_plan(te: TensorExpr, view: GemmView, cfg: KernelConfig, dense: TcOperand) -> Sp24Plan:
    blk, warp = cfg.tile("block"), cfg.tile("warp")
    elem, side = cfg.param("elem"), cfg.param("operand")
    eb = ELEMS[elem][1]
    BK = blk.size("k")
    sparse_ax, dense_ax = ("n", "m") if side == "b" else ("m", "n")
    BR, BD = blk.size(sparse_ax), blk.size(dense_ax)
    orient = cfg.param("layout_dense")
    pad = dict(blk.padding).get("dense", 0)
    return Sp24Plan(elem, side, BR, BD, BK, warp.size(sparse_ax), warp.size(dense_ax), int(cfg.param("stages")),
                    dense, cfg.param("load_dense"), orient,
                    smem_tile(orient, BD, BK, eb, pad, cfg.param("smem") == "swizzle"), values_tile(BR, BK, eb),
                    int(cfg.param("values_arg")), int(cfg.param("meta_arg")))


def _dense_tc_plan(p: Sp24Plan) -> TcPlan:
    """A TcPlan whose dense side is this kernel's dense operand, so tc_gemm's loader stages it (the
    other side's fields are never read)."""
    if p.dense_side == "a":
        return TcPlan(p.elem, p.BD, p.BR, p.BK, p.WD, p.WR, p.stages, 1, p.dense, p.dense, p.load_dense, "generic",
                      p.orient_dense, "k", p.tile_dense, p.tile_dense)
    return TcPlan(p.elem, p.BR, p.BD, p.BK, p.WR, p.WD, p.stages, 1, p.dense, p.dense, "generic", p.load_dense,
                  "k", p.orient_dense, p.tile_dense, p.tile_dense)


def _sparse_loader(p: Sp24Plan, view: GemmView, it: str, T: int, R: int) -> list[str]:
    """Statements of the stage loader that fill one stage of the compressed values and metadata."""
    K = view.K
    per_row = p.BK // 16          # 16-byte chunks of values per row; also 4-byte metadata words per row
    total = p.BR * per_row
    guard = R % p.BR != 0
    r0 = "by_n0" if p.side == "b" else "by_m0"
    loop = f"for (int c = tid; c < {total}; c += {T})" if total % T else \
        f"#pragma unroll\n      for (int c = tid; c < {total}; c += {T})"
    vals, meta = f"in{p.values_arg}", f"in{p.meta_arg}"
    ok = f"gr < {R}" if guard else "true"
    return [
        "    {  // compressed values: 16-byte cp.async; metadata: 4-byte loads",
        f"      unsigned char* const dv = by_sv + stage * {p.tile_values.stage_bytes};",
        f"      unsigned char* const dm = by_sm + stage * {p.meta_stage_bytes};",
        f"      {loop} {{",
        f"        const int o = c / {per_row}, j = c % {per_row};",
        f"        const {it} gr = {r0} + o;",
        f"        const int nb = {ok} ? 16 : 0;",
        f"        by_cp_async_16_zfill(dv + {p.tile_values.off('o', 'j * 16')}, "
        f"nb ? (const void*)({vals} + gr * {K // 2} + ({it})kt * {p.BK // 2} + j * 8) : (const void*){vals}, nb);",
        f"        unsigned int w = {EMPTY_ROW_META};",
        f"        if ({ok}) w = *reinterpret_cast<const unsigned int*>({meta} + gr * {K // 4} + ({it})kt * {p.BK // 4} + j * 4);",
        f"        *reinterpret_cast<unsigned int*>(dm + o * {p.meta_pitch} + j * 4) = w;",
        "      }",
        "    }"]


def _fragments(p: Sp24Plan) -> list[str]:
    """Statements loading one k32 step's sparse A fragments a[MI][4] with metadata e[MI], and
    dense B fragments b[NI][4], from stage `vs`/`ms`/`ds`."""
    MI, NI = p.WR // 16, p.WD // 8
    tv, td = p.tile_values, p.tile_dense
    L = [f"        unsigned a[{MI}][4], e[{MI}], b[{NI}][4];",
         "        #pragma unroll", f"        for (int mi = 0; mi < {MI}; ++mi) {{",
         f"          by_ldmatrix_x4(a[mi], vs + {tv.off('wr0 + mi * 16 + by_lr', '((kk >> 1) + by_lc) * 2')});",
         f"          const unsigned char* const mr = ms + (wr0 + mi * 16 + by_g) * {p.meta_pitch} + (kk >> 2) + 4 * (by_t & 1);",
         f"          e[mi] = by_nibbles(*reinterpret_cast<const unsigned int*>(mr)) |",
         f"                  (by_nibbles(*reinterpret_cast<const unsigned int*>(mr + {8 * p.meta_pitch})) << 16);",
         "        }",
         "        #pragma unroll", f"        for (int ni = 0; ni < {NI}; ++ni)"]
    if p.orient_dense == "k":
        L.append(f"          by_ldmatrix_x4(b[ni], ds + {td.off('wd0 + ni * 8 + (lane & 7)', '(kk + 8 * (lane >> 3)) * 2')});")
    else:
        L.append(f"          by_ldmatrix_x4_trans(b[ni], ds + {td.off('kk + 8 * (lane >> 3) + (lane & 7)', '(wd0 + ni * 8) * 2')});")
    return L


def render_sp24_gemm(te: TensorExpr, view: GemmView, cfg: KernelConfig, dense: TcOperand, prefix: str,
                     out_value: str, in_values, workspace: str = "") -> Kernel:
    """The mma.sp kernel of one sparse24_gemm configuration; split-K as tc_gemm's (its partial
    sums in `workspace`, summed by each tile's last block in the same launch)."""
    p = sp24_plan(te, view, cfg, dense)
    SK = cfg.split_k
    if SK > 1 and not workspace:
        raise ValueError(f"{te.name}: a split-K configuration needs its workspace")
    mma = MMA_SP[p.elem]
    MI, NI = p.WR // 16, p.WD // 8
    WGD = p.BD // p.WD
    T = 32 * p.warps
    M, N, K = view.M, view.N, view.K
    BMv, BNv = (p.BD, p.BR) if p.side == "b" else (p.BR, p.BD)
    mt, nt, nk = math.ceil(M / BMv), math.ceil(N / BNv), K // p.BK
    R, D = (N, M) if p.side == "b" else (M, N)
    r0, d0 = ("by_n0", "by_m0") if p.side == "b" else ("by_m0", "by_n0")
    it = split_k_index_type(te, SK)
    S = p.stages
    sd = p.dense_side
    L = ["  BY_SHARED_BUFFER(by_smem);",
         f"  unsigned char* const by_s{sd} = by_smem;",
         f"  unsigned char* const by_sv = by_smem + {S * p.tile_dense.stage_bytes};",
         f"  unsigned char* const by_sm = by_sv + {S * p.tile_values.stage_bytes};",
         "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;",
         "  const int by_g = lane >> 2, by_t = lane & 3;",
         "  const int by_lr = (lane & 7) + 8 * ((lane >> 3) & 1), by_lc = 8 * (lane >> 4);",
         f"  const int wr0 = (warp / {WGD}) * {p.WR}, wd0 = (warp % {WGD}) * {p.WD};",
         "  // a metadata word's four chunk bytes (p0 | p1 << 2 each) as the mma's four nibbles",
         "  auto by_nibbles = [](unsigned int w) {",
         "    return (w & 0xFu) | ((w >> 4) & 0xF0u) | ((w >> 8) & 0xF00u) | ((w >> 12) & 0xF000u);",
         "  };",
         f"  {it} by_blk = {BLOCK_X};",
         f"  const {it} by_n0 = (by_blk % {nt}) * {BNv}; by_blk /= {nt};",
         f"  const {it} by_m0 = (by_blk % {mt}) * {BMv}; by_blk /= {mt};"]
    L += split_k_slice(SK, mt * nt)
    _unit_vars(L, "  ", it, view.unit)
    _decompose(L, "  ", it, "by_blk", view.batch, "by_rb")
    L.append("  (void)by_lr; (void)by_lc; (void)by_g; (void)by_t;")
    L += [f"  float by_acc[{MI}][{NI}][4];",
          "  #pragma unroll", f"  for (int mi = 0; mi < {MI}; ++mi)",
          "    #pragma unroll", f"    for (int ni = 0; ni < {NI}; ++ni)",
          "      #pragma unroll", "      for (int q = 0; q < 4; ++q) by_acc[mi][ni][q] = 0.0f;"]
    L += split_k_range(SK, nk)
    L += ["  auto by_load = [&](int stage, int kt) {",
          f"    const {it} k0 = ({it})kt * {p.BK};",
          "    (void)k0;"]
    L += _loader(te, view, _dense_tc_plan(p), sd, it, T)
    L += _sparse_loader(p, view, it, T, R)
    L.append("  };")

    def compute(stage: str, ind: str) -> list[str]:
        out = [f"{ind}{{",
               f"{ind}  const unsigned char* const ds = by_s{sd} + ({stage}) * {p.tile_dense.stage_bytes};",
               f"{ind}  const unsigned char* const vs = by_sv + ({stage}) * {p.tile_values.stage_bytes};",
               f"{ind}  const unsigned char* const ms = by_sm + ({stage}) * {p.meta_stage_bytes};",
               f"{ind}  #pragma unroll",
               f"{ind}  for (int kk = 0; kk < {p.BK}; kk += {MMA_K}) {{"]
        out += [ind + x[4:] for x in _fragments(p)]
        out += [f"{ind}    #pragma unroll", f"{ind}    for (int mi = 0; mi < {MI}; ++mi)",
                f"{ind}      #pragma unroll", f"{ind}      for (int ni = 0; ni < {NI}; ++ni)",
                f"{ind}        {mma}(by_acc[mi][ni], a[mi], b[ni], by_acc[mi][ni], e[mi]);",
                f"{ind}  }}", f"{ind}}}"]
        return out

    if S == 1:
        L += ["  for (int i = 0; i < nloc; ++i) {", "    by_load(0, kt_begin + i);",
              "    by_cp_async_commit();", "    by_cp_async_wait_all();",
              "    __syncthreads();"] + compute("0", "    ") + ["    __syncthreads();", "  }"]
    else:
        # as tc_gemm: S-1 tiles in flight; each iteration waits for its tile, refills the stage the
        # previous iteration read (every warp is past the barrier) and multiplies
        L += [f"  for (int s = 0; s < {S - 1}; ++s) {{", "    if (s < nloc) by_load(s, kt_begin + s);",
              "    by_cp_async_commit();", "  }",
              "  for (int i = 0; i < nloc; ++i) {",
              f"    by_cp_async_wait<{S - 2}>();",
              "    __syncthreads();",
              f"    if (i + {S - 1} < nloc) by_load((i + {S - 1}) % {S}, kt_begin + i + {S - 1});",
              "    by_cp_async_commit();"]
        L += compute(f"i % {S}", "    ") + ["  }", "  by_cp_async_wait_all();"]

    # the mma's rows are the sparse operand's (gs), its columns the dense one's (gd)
    gm, gn = ("gd", "gs") if p.side == "b" else ("gs", "gd")
    index_vars: list[str] = []
    _decompose(index_vars, "        ", it, gm, view.m, "by_em")
    _decompose(index_vars, "        ", it, gn, view.n, "by_en")
    guards = [c for c, need in ((f"gs < {R}", R % p.BR != 0), (f"gd < {D}", D % p.BD != 0)) if need]

    def each_fragment(inner: list[str]) -> list[str]:
        return fragment_loop(it, MI, NI, ("gs", f"{r0} + wr0"), ("gd", f"{d0} + wd0"), guards, index_vars, inner)

    acc, total = "by_acc[mi][ni][q]", []
    if SK > 1:
        tail, total = split_k_sum(te, it, SK, each_fragment, acc)
        L += tail
        acc = "by_sum"
    sum_lines: list[str] = []
    _epilogue(te, sum_lines, "        ", it, acc, te.body.dtype)
    L += each_fragment(total + sum_lines)
    params, kparams = split_params(te, out_value, in_values, workspace if SK > 1 else "")
    tiles = view.B * mt * nt
    entry, source = finish_kernel(prefix, params, L, launch_bounds=(T,), arrivals=tiles if SK > 1 else 0)
    return Kernel(entry=entry, source=source, params=kparams, grid=(tiles * SK, 1, 1), block=(T, 1, 1),
                  shared_bytes=p.shared_bytes, expr=te, arrivals=tiles if SK > 1 else 0)
