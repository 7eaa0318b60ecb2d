"""Hopper contraction kernels (wgmma + the bulk tensor copy engine) of Roller kind "wgmma_gemm".

batch x (M x K).(K x N) for operands that are plain strided loads of fp16/bf16 storage (every
other operand stays on the mma.sync path, compiler/codegen/tensor_core.py). A block is 1-2
warpgroups, each computing 64 rows x BN of the block's BM x BN tile with one
wgmma.m64n<BN>k16 per 16 k; all warpgroups compute, thread 0 also issues the copies. K is
walked in 64-wide tiles (128 bytes of a 16-bit row: the 128-byte swizzle) through `stages`
shared buffers, each filled by TMA and completed on its own mbarrier:

  thread 0: fill stages 0..S-1;  every k-tile i: wait full[i % S] (parity (i / S) & 1);
  fence; 4 wgmma; commit; wait 1 (k-tile i - 1's group retired, i's in flight); __syncthreads
  (all warpgroups are done with k-tile i - 1's stage); thread 0 refills that stage with k-tile
  i - 1 + S.  After the loop: wait 0, then the epilogue.

An operand whose innermost axis is K is copied as one box of 64 k x rows ("K-major" for wgmma);
one whose innermost axis is M (N) as boxes of 64 rows x 64 k ("MN-major", the transpose bit).
The copy engine zero-fills boxes past the tensor's edges, so ragged M, N, K need no guard until
the epilogue, which is tiled.py's (bias, activation, casts) with stores guarded at M and N."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.texpr import TensorExpr
from ..roller.pattern import GemmView, TcOperand, tc_operand
from ..roller.rtile import KernelConfig
from .kernel import NAME_PLACEHOLDER, Kernel, KernelParam, TensorMapDecl, finish_source
from .tensor_core import _signature
from .tiled import _decompose, _epilogue, index_ctype

BK = 64                       # k per stage: 64 16-bit elements = one 128-byte swizzled row
SLAB = 64 * 128               # bytes of a 64-row (or 64 k-row) block of 128-byte rows
WGMMA_N = (64, 128, 256)      # instruction widths the prelude wraps
WGMMA_KIND = {"float16": "f16", "bfloat16": "bf16"}
MAX_BATCH_DIMS = 2            # tensor maps of rank <= 4 (by_tma_load_2d..4d)


@dataclass(frozen=True)
class WgmmaPlan:
    """What the renderer and the construction need to know about one wgmma_gemm configuration."""

    elem: str
    BM: int
    BN: int
    stages: int
    a: TcOperand
    b: TcOperand

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
    def shared_bytes(self) -> int:
        # 1024 bytes of slack to align the stages on a swizzle atom, then one mbarrier per stage
        return 1024 + self.stages * self.stage_bytes + 8 * self.stages

    def mn_major(self, side: str) -> bool:
        return (self.a if side == "a" else self.b).inner == "r"


def wgmma_operands(te: TensorExpr, view: GemmView, elem: str) -> tuple[TcOperand, TcOperand] | None:
    """(A, B) when both are plain strided loads of `elem` storage that a tensor map can describe
    (rows 16-byte aligned, at most MAX_BATCH_DIMS batch axes), else None."""
    ops = (tc_operand(te, view, "a", elem), tc_operand(te, view, "b", elem))
    for op in ops:
        if op is None or not op.direct or op.storage != elem or not op.aligned(8):
            return None
        if len(_batch_vars(view, op)) > MAX_BATCH_DIMS:
            return None
    return ops


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
        raise ValueError(f"{te.name}: operands are not TMA-loadable {elem} tensors")
    return WgmmaPlan(elem, blk.size("m"), blk.size("n"), int(cfg.param("stages")), *ops)


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


def _descriptor(p: WgmmaPlan, side: str, base: str) -> str:
    """The descriptor of the k16 step `kk` of operand `side` whose 64-row slice starts at `base`."""
    if p.mn_major(side):
        return f"by_wgmma_desc({base} + 2048u * kk, {SLAB}u, 1024u, BY_WGMMA_SWIZZLE_128B)"
    return f"by_wgmma_desc({base} + 32u * kk, 16u, 1024u, BY_WGMMA_SWIZZLE_128B)"


def render_wgmma_gemm(te: TensorExpr, view: GemmView, cfg: KernelConfig, prefix: str, out_value: str,
                      in_values) -> Kernel:
    """The wgmma + TMA kernel of one wgmma_gemm configuration."""
    p = wgmma_plan(te, view, cfg)
    M, N, K = view.M, view.N, view.K
    mt, nt, nk = math.ceil(M / p.BM), math.ceil(N / p.BN), math.ceil(K / BK)
    S, T, BN = p.stages, p.threads, p.BN
    it = index_ctype(te)
    sig = _signature(te, te.output.dtype.ctype) + ["const __grid_constant__ by_tensor_map by_tma",
                                                   "const __grid_constant__ by_tensor_map by_tmb"]
    ta, tb = int(p.mn_major("a")), int(p.mn_major("b"))
    mma = f"by_wgmma_m64n{BN}k16_{WGMMA_KIND[p.elem]}<{ta}, {tb}>"
    L = [f"BY_KERNEL void __launch_bounds__({T}, 1) {NAME_PLACEHOLDER}({', '.join(sig)}) {{",
         "  BY_SHARED_BUFFER(by_smem);",
         "  // stages start on a 1024-byte swizzle atom (the dynamic buffer is only 16-byte aligned)",
         "  unsigned char* const by_base = by_smem + ((1024u - (by_smem_addr(by_smem) & 1023u)) & 1023u);",
         f"  unsigned long long* const by_full = reinterpret_cast<unsigned long long*>(by_base + {S * p.stage_bytes});",
         "  const int tid = threadIdx.x, by_wg = tid >> 7, by_w = (tid >> 5) & 3, lane = tid & 31;",
         "  const int by_g = lane >> 2, by_t = lane & 3;",
         f"  {it} by_blk = blockIdx.x;",
         f"  const {it} by_n0 = (by_blk % {nt}) * {p.BN}; by_blk /= {nt};",
         f"  const {it} by_m0 = (by_blk % {mt}) * {p.BM}; by_blk /= {mt};"]
    for v in view.unit:
        L.append(f"  const {it} {v} = 0;")
    _decompose(L, "  ", it, "by_blk", view.batch, "by_rb")
    L += ["  if (tid == 0)",
          f"    for (int s = 0; s < {S}; ++s) by_mbar_init(&by_full[s], 1);",
          "  __syncthreads();",
          "  auto by_load = [&](int stage, int kt) {  // thread 0: one k-tile of A and B into `stage`",
          f"    unsigned char* const by_sa = by_base + stage * {p.stage_bytes};",
          f"    unsigned char* const by_sb = by_sa + {p.BM * 128};",
          "    unsigned long long* const bar = &by_full[stage];",
          f"    by_mbar_arrive_expect_tx(bar, {p.stage_bytes}u);"]
    L += _copies(view, p, "a", "by_tma") + _copies(view, p, "b", "by_tmb")
    L += ["  };",
          "  if (tid == 0)",
          f"    for (int s = 0; s < {min(S, nk)}; ++s) by_load(s, s);",
          f"  float by_acc[{BN // 2}];",
          "  #pragma unroll",
          f"  for (int i = 0; i < {BN // 2}; ++i) by_acc[i] = 0.0f;",
          f"  for (int i = 0; i < {nk}; ++i) {{",
          f"    const int s = i % {S};",
          f"    by_mbar_wait(&by_full[s], (unsigned)(i / {S}) & 1u);",
          f"    const unsigned by_a0 = by_smem_addr(by_base + s * {p.stage_bytes}) + by_wg * {SLAB}u;",
          f"    const unsigned by_b0 = by_smem_addr(by_base + s * {p.stage_bytes}) + {p.BM * 128}u;",
          "    by_wgmma_fence();",
          "    #pragma unroll",
          f"    for (unsigned kk = 0; kk < {BK // 16}; ++kk)",
          f"      {mma}(by_acc, {_descriptor(p, 'a', 'by_a0')}, {_descriptor(p, 'b', 'by_b0')}, 1);",
          "    by_wgmma_commit();",
          "    by_wgmma_wait<1>();  // k-tile i - 1's group has retired, k-tile i's stays in flight",
          "    __syncthreads();     // every warpgroup is done with k-tile i - 1's stage: refill it",
          f"    if (tid == 0 && i >= 1 && i - 1 + {S} < {nk}) by_load((i - 1) % {S}, i - 1 + {S});",
          "  }",
          "  by_wgmma_wait<0>();",
          # accumulator i of lane (g, t) in warp w: row 16w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2t + i % 2
          "  #pragma unroll",
          f"  for (int i = 0; i < {BN // 2}; ++i) {{",
          f"    const {it} gm = by_m0 + by_wg * 64 + by_w * 16 + by_g + 8 * ((i >> 1) & 1);",
          f"    const {it} gn = by_n0 + 8 * (i >> 2) + 2 * by_t + (i & 1);"]
    conds = [c for c, need in ((f"gm < {M}", M % p.BM != 0), (f"gn < {N}", N % p.BN != 0)) if need]
    if conds:
        L.append(f"    if (!({' && '.join(conds)})) continue;")
    _decompose(L, "    ", it, "gm", view.m, "by_em")
    _decompose(L, "    ", it, "gn", view.n, "by_en")
    _epilogue(te, L, "    ", it, "by_acc[i]", te.body.dtype)
    L += ["  }", "}"]
    entry, source = finish_source(prefix, "\n".join(L) + "\n")
    params = tuple(KernelParam(t.dtype.ctype, v, False) for t, v in zip(te.inputs, in_values))
    params += (KernelParam(te.output.dtype.ctype, out_value, True),)
    maps = (tensor_map(view, p, "a"), tensor_map(view, p, "b"))
    return Kernel(entry=entry, source=source, params=params, grid=(view.B * mt * nt, 1, 1), block=(T, 1, 1),
                  shared_bytes=p.shared_bytes, expr=te, tensor_maps=maps, arch_specific=True)
