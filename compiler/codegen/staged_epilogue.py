"""Tensor-core epilogues staged through shared memory, so a block's output tile leaves in 16-byte
coalesced vectors.

An mma/wgmma accumulator fragment puts lane (g, t) at row g, columns 2t and 2t + 1 of an 8x8
piece, so a warp's store of one accumulator touches 8 rows, 4 lanes each: for fp16 output 8 useful
bytes in each 32-byte sector (fp32: 16), and every sector of the tile is written 4 (2) times. On
the GPU's L2 that costs a sector transaction each. Staged, each thread writes its values (the
fused epilogue already applied, in the output type) into a shared tile, then the block copies the
tile out row by row, 16 bytes a thread: each sector written once.

This applies when the output's columns (the n group) are its innermost dimensions, so that a tile
row is one contiguous run of the output, and N is a whole number of vectors; otherwise the kernel
keeps its direct stores. Graph outputs are the caller's buffers: a block whose output pointer is
not 16-byte aligned copies element by element."""
from __future__ import annotations

from ..ir.dtypes import DType
from ..ir.texpr import TensorExpr
from ..analysis.views import GemmView
from .tiled import _decompose, _epilogue, contiguous_rows, row_offset

VECTOR_BYTES = 16
STAGED_DTYPES = (DType.float16, DType.bfloat16, DType.float32)
TILE = "by_ct"


def staged(te: TensorExpr, view: GemmView) -> bool:
    """Whether a tile row of this contraction's output is one contiguous, vector-aligned run."""
    out = te.output
    return out.dtype in STAGED_DTYPES and contiguous_rows(te, view, VECTOR_BYTES // out.dtype.itemsize)


def tile_pitch(te: TensorExpr, BN: int) -> int:
    """Elements per shared tile row: BN and one vector of padding (rows stay 16-byte aligned and
    consecutive rows start 4 banks apart: a fragment store's 8 rows of 16-bit values hit 32 banks)."""
    return BN + VECTOR_BYTES // te.output.dtype.itemsize


def tile_bytes(te: TensorExpr, view: GemmView, BM: int, BN: int) -> int:
    """Shared bytes of the staged output tile, or 0 where the kernel stores directly."""
    return BM * tile_pitch(te, BN) * te.output.dtype.itemsize if staged(te, view) else 0


def l2_store_bytes(te: TensorExpr, view: GemmView) -> float:
    """Bytes of L2 sector traffic the epilogue's stores cost (the micro-model's view): the output
    once when staged; else each 32-byte sector once per fragment store that touches it."""
    out = float(te.output.size * te.output.dtype.itemsize)
    if staged(te, view):
        return out
    return out * 32.0 / (4 * te.output.dtype.itemsize)


def stage_value(te: TensorExpr, lines: list[str], ind: str, it: str, acc_expr: str, pitch: int) -> None:
    """The fused epilogue of the accumulator at (gm, gn), written into the shared tile."""
    sink = f"{TILE}[(int)(gm - by_m0) * {pitch} + (int)(gn - by_n0)]"
    _epilogue(te, lines, ind, it, acc_expr, te.body.dtype, sink=sink)


def declare_tile(te: TensorExpr, base: str) -> str:
    """The statement naming the shared tile at byte address `base`."""
    ct = te.output.dtype.ctype
    return f"  {ct}* const {TILE} = reinterpret_cast<{ct}*>({base});"


def copy_out(te: TensorExpr, view: GemmView, BM: int, BN: int, threads: int, it: str) -> list[str]:
    """Statements after the barrier that follows the staged stores: the block's tile rows, 16 bytes
    a thread, to the output (each row starts at the offset of its m vars with the n vars at 0)."""
    M, N = view.M, view.N
    itemsize = te.output.dtype.itemsize
    V = VECTOR_BYTES // itemsize
    pitch = tile_pitch(te, BN)
    chunks = BN // V
    row = row_offset(te, view)
    conds = [c for c, need in ((f"gm < {M}", M % BM != 0), (f"gn < {N}", N % BN != 0)) if need]
    L = ["  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;",
         f"  for (int c = threadIdx.x; c < {BM * chunks}; c += {threads}) {{",
         f"    const int r = c / {chunks}, q = c % {chunks};",
         f"    const {it} gm = by_m0 + r;",
         f"    const {it} gn = by_n0 + {V} * q;"]
    if conds:
        L.append(f"    if (!({' && '.join(conds)})) continue;")
    _decompose(L, "    ", it, "gm", view.m, "by_em")
    L += [f"    {te.output.dtype.ctype}* const dst = out + ({row}) + gn;",
          f"    const {te.output.dtype.ctype}* const src = {TILE} + r * {pitch} + {V} * q;",
          "    if (by_out_aligned) {",
          "      by_st_global_b128(dst, by_ld_shared_b128(src));",
          "    } else {  // rare (a caller's buffer): kept small",
          "      #pragma unroll 1",
          f"      for (int e = 0; e < {V}; ++e) dst[e] = src[e];",
          "    }",
          "  }"]
    return L
