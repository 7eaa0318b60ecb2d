"""Tensor-core contraction kernels (mma.sync) rendered from a Roller configuration of kind "tc_gemm".

batch x (M x K).(K x N), the GEMM view of any contraction (MatMul, Gemm, implicit-GEMM Conv):
each block computes a BM x BN output tile with warps of WM x WN, each warp a grid of m16n8 mma
tiles accumulating in fp32 registers. Operands are staged through `stages` shared-memory buffers:

- "async": a plain strided load whose storage is the mma element type (fp16/bf16 weights the
  precision pass converted, fp32 for tf32): 16-byte cp.async, zero-filled past the edges;
- "vector": a plain fp32 load rounded to fp16/bf16: 16-byte vector loads, converted in registers;
- "generic": any operand expression (implicit-GEMM gathers, fused scales): one element per step;
- "generic_vec": an operand expression whose consecutive values along the tile's inner axis share
  work (a packed quantized weight: one byte for two 4-bit values, one scale for a block; the loop's
  own index work): VEC of them per thread, the expressions unrolled and simplified so that what they
  share is one computation, one 16-byte shared store.

Shared tiles keep each operand's global innermost axis innermost ("k": rows x BK, "r": BK x rows);
16-bit fragments come from ldmatrix (.trans for "r"), tf32 fragments from 32-bit loads rounded
with cvt.rna. Tiles of 32/64/128-byte rows are swizzled, others padded (bank-conflict-free
fragment reads, checked by simulation in compiler/roller/construct.py). With split_k > 1 each
block reduces a slice of K into an fp32 workspace and arrives on its output tile's counter; the
last of the tile's blocks to arrive sums the slices in a fixed order and applies the epilogue, in
the same launch (one atomic per block; the sum's order is fixed, so results are deterministic).

8-bit integer operands (passes/imma.py: s8 or u8 on each side) multiply with m16n8k32 into int32
accumulators; their tiles are always k-major ("k"), whose fragments ldmatrix loads as it loads
16-bit ones (four bytes a register at the same byte positions), and a split's int32 partial sums
pass through the fp32 workspace bit for bit."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.texpr import TensorExpr, Var, substitute
from ..analysis.quasi_affine import gemm_vector_sources
from ..analysis.views import GemmView, TcOperand, tc_operand, vars_of
from ..ir.tiles import KernelConfig
from .cuda import INT32_LIMIT
from .block_function import BLOCK_X, finish_kernel
from ..ir.kernel import Kernel
from .staged_epilogue import copy_out, declare_tile, stage_value, tile_bytes, tile_pitch
from .tiled import (TileList, _decompose, _epilogue, _render, _unit_vars, index_ctype, row_tile, split_k_range,
                    split_k_slice, split_params)

VEC = 8      # k values per thread in the generic_vec loader: 8 halves, one 16-byte shared chunk

# mma element type -> (C type in shared memory, bytes, mma function, k per mma, f32x2 packer)
ELEMS = {
    "float16": ("by_half", 2, "by_mma_m16n8k16_f16_f32", 16, "by_pack_half2"),
    "bfloat16": ("by_bfloat16", 2, "by_mma_m16n8k16_bf16_f32", 16, "by_pack_bf162"),
    "float32": ("float", 4, "by_mma_m16n8k8_tf32_f32", 8, None),
    # 8-bit integers: m16n8k32, s32 accumulators; the mma's name depends on both sides' signedness
    "int8": ("signed char", 1, None, 32, None),
    "uint8": ("unsigned char", 1, None, 32, None),
}
INT_ELEMS = ("int8", "uint8")


def mma_function(elem: str, elem_b: str) -> str:
    """The prelude's mma.sync wrapper for A of type `elem` and B of type `elem_b`."""
    if elem in INT_ELEMS:
        sign = {"int8": "s8", "uint8": "u8"}
        return f"by_mma_m16n8k32_{sign[elem]}{sign[elem_b]}_s32"
    return ELEMS[elem][2]


@dataclass(frozen=True)
class SmemTile:
    """One operand's shared tile: `outer` rows of `inner` elements of `elem_bytes`, padded or swizzled."""

    outer: int
    inner: int
    elem_bytes: int
    pad: int = 0          # bytes after each row
    swizzle: int = 0      # 32, 64 or 128 (row bytes) for by_swizzle_<n>b, else 0

    @property
    def pitch(self) -> int:
        return self.inner * self.elem_bytes + self.pad

    @property
    def stage_bytes(self) -> int:
        return -(-self.outer * self.pitch // 128) * 128

    def off(self, o: str, ib: str) -> str:
        """C expression: byte offset of row `o`, byte `ib` within the row."""
        if self.swizzle:
            return f"by_swizzle_{self.swizzle}b({o}, {ib})"
        return f"({o}) * {self.pitch} + ({ib})"

    def offset(self, o: int, ib: int) -> int:
        """The same offset in Python (bank-conflict simulation)."""
        if self.swizzle:
            off = o * self.swizzle + ib
            bits = {128: 3, 64: 2, 32: 1}[self.swizzle]
            return off ^ ((off >> 3) & (((1 << bits) - 1) << 4))
        return o * self.pitch + ib


def smem_tile(orient: str, rows: int, bk: int, elem_bytes: int, pad: int, swizzle: bool) -> SmemTile:
    """The shared tile of an operand with `rows` (BM or BN) rows and orientation "k" or "r"."""
    outer, inner = (rows, bk) if orient == "k" else (bk, rows)
    row_bytes = inner * elem_bytes
    if swizzle and elem_bytes in (1, 2) and row_bytes in (32, 64, 128) and outer % 8 == 0:
        return SmemTile(outer, inner, elem_bytes, 0, row_bytes)
    return SmemTile(outer, inner, elem_bytes, pad, 0)


@dataclass(frozen=True)
class TcPlan:
    """Everything the renderer and the construction need to know about one tc_gemm configuration."""

    elem: str
    BM: int
    BN: int
    BK: int
    WM: int
    WN: int
    stages: int
    split_k: int
    a: TcOperand
    b: TcOperand
    load_a: str
    load_b: str
    orient_a: str
    orient_b: str
    tile_a: SmemTile
    tile_b: SmemTile
    out_tile_bytes: int = 0    # the staged output tile over the stages (codegen/staged_epilogue.py)
    elem_b: str = ""           # B's mma type where it differs from A's (u8 x s8 integer mma), else elem

    @property
    def integer(self) -> bool:
        return self.elem in INT_ELEMS

    @property
    def warps(self) -> int:
        return (self.BM // self.WM) * (self.BN // self.WN)

    @property
    def shared_bytes(self) -> int:
        return max(self.stages * (self.tile_a.stage_bytes + self.tile_b.stage_bytes), self.out_tile_bytes)


def out_tile_bytes(te: TensorExpr, view: GemmView, BM: int, BN: int, split_k: int) -> int:
    """The staged output tile's bytes; a split-K partial kernel writes the fp32 workspace directly."""
    return tile_bytes(te, view, BM, BN) if split_k == 1 else 0


def tc_plan(te: TensorExpr, view: GemmView, cfg: KernelConfig) -> TcPlan:
    """The TcPlan of a configuration of kind tc_gemm."""
    blk, warp = cfg.tile("block"), cfg.tile("warp")
    elem = cfg.param("elem")
    elem_b = cfg.param("elem_b", elem)
    eb = ELEMS[elem][1]
    pad = dict(blk.padding)
    a, b = tc_operand(te, view, "a", elem), tc_operand(te, view, "b", elem_b)
    oa, ob = cfg.param("layout_a"), cfg.param("layout_b")
    swz = cfg.param("smem") == "swizzle"
    BM, BN, BK = blk.size("m"), blk.size("n"), blk.size("k")
    SK = cfg.split_k
    return TcPlan(elem, BM, BN, BK, warp.size("m"), warp.size("n"), int(cfg.param("stages")),
                  SK, a, b, cfg.param("load_a"), cfg.param("load_b"), oa, ob,
                  smem_tile(oa, BM, BK, eb, pad.get("a", 0), swz), smem_tile(ob, BN, BK, eb, pad.get("b", 0), swz),
                  out_tile_bytes(te, view, BM, BN, SK), elem_b)


def _out_offset(te: TensorExpr) -> str:
    strides, s = [], 1
    for d in reversed(te.output.shape):
        strides.append(s)
        s *= d
    strides.reverse()
    terms = [f"(i{d})*{st}" if st != 1 else f"(i{d})" for d, (st, n) in enumerate(zip(strides, te.output.shape)) if n != 1]
    return " + ".join(terms) if terms else "0"


def _loader(te: TensorExpr, view: GemmView, p: TcPlan, side: str, it: str, T: int, hoist: bool = False) -> list[str]:
    """Statements of the lambda body that fills one stage of operand `side` for k-tile `kt`
    (`hoist`: a gather whose rows are fixed per thread reads the vars `gather_rows` declared)."""
    op, kind, orient, tile = ((p.a, p.load_a, p.orient_a, p.tile_a) if side == "a"
                              else (p.b, p.load_b, p.orient_b, p.tile_b))
    rows, group, extent, row0 = ((p.BM, view.m, view.M, "by_m0") if side == "a" else (p.BN, view.n, view.N, "by_n0"))
    K, BK = view.K, p.BK
    ctype, eb, _, _, pack = ELEMS[p.elem if side == "a" else (p.elem_b or p.elem)]
    zero = "int v = 0;" if p.integer else "float v = 0.0f;"     # an 8-bit operand is an integer value
    base = f"by_s{side} + stage * {tile.stage_bytes}"
    L = [f"    {{  // operand {side.upper()}: {kind}, {'rows x k' if orient == 'k' else 'k x rows'}",
         f"      unsigned char* const dst = {base};"]
    # outer/inner: tile axes; which global axis each is and its bounds
    outer_ext, inner_ext = (extent, K) if orient == "k" else (K, extent)
    outer_tile, inner_tile = (rows, BK) if orient == "k" else (BK, rows)
    outer_guard = outer_ext % outer_tile != 0
    inner_guard = inner_ext % inner_tile != 0

    def globals_(o: str, i: str) -> list[str]:
        if orient == "k":
            return [f"const {it} gr = {row0} + {o};", f"const {it} gk = k0 + {i};"]
        return [f"const {it} gk = k0 + {o};", f"const {it} gr = {row0} + {i};"]

    opos, ipos = ("gr", "gk") if orient == "k" else ("gk", "gr")
    if kind in ("async", "vector"):
        width = 16 // (eb if kind == "async" else 4)          # elements per 16-byte access
        src_eb = eb if kind == "async" else 4
        per_row = inner_tile // width
        total = outer_tile * per_row
        terms = []
        for v, s in op.strides:
            name = "gr" if v == group[0][0] else ("gk" if v == view.k[0][0] else v)
            if v in dict(op.gathered):
                name = _gathered_name(side, v)
            terms.append(f"({name})*{s}" if s != 1 else f"({name})")
        offset = " + ".join(terms)
        loop = f"for (int c = tid; c < {total}; c += {T})" if total % T else \
            f"#pragma unroll\n      for (int c = tid; c < {total}; c += {T})"
        L += [f"      {loop} {{",
              f"        const int o = c / {per_row}, j = c % {per_row};",
              *("        " + x for x in globals_("o", f"j * {width}"))]
        L += _gathered_rows(te, op, side, group[0][0], extent, it, "        ")
        ok = f"{opos} < {outer_ext}" if outer_guard else "true"
        if kind == "async":
            if inner_guard and outer_guard:
                L.append(f"        const {it} rem = {ok} ? {inner_ext} - {ipos} : 0;")
                L.append(f"        const int nb = rem >= {width} ? 16 : (rem > 0 ? (int)rem * {src_eb} : 0);")
            elif inner_guard:
                L.append(f"        const {it} rem = {inner_ext} - {ipos};")
                L.append(f"        const int nb = rem >= {width} ? 16 : (rem > 0 ? (int)rem * {src_eb} : 0);")
            else:
                L.append(f"        const int nb = {ok} ? 16 : 0;")
            L.append(f"        by_cp_async_16_zfill(dst + {tile.off('o', 'j * 16')}, "
                     f"nb ? (const void*)(in{op.arg} + {offset}) : (const void*)in{op.arg}, nb);")
        else:
            L.append("        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);")
            L.append(f"        const float* const src = in{op.arg};")
            if inner_guard:
                full = " && ".join(x for x in (ok if outer_guard else "", f"{ipos} + 4 <= {inner_ext}") if x)
                L.append(f"        if ({full}) v = by_ld_global_v4(src + {offset});")
                L.append(f"        else if ({ok}) {{")
                for q, f in enumerate("xyzw"):
                    L.append(f"          if ({ipos} + {q} < {inner_ext}) v.{f} = src[{offset} + {q}];")
                L.append("        }")
            elif outer_guard:
                L.append(f"        if ({ok}) v = by_ld_global_v4(src + {offset});")
            else:
                L.append(f"        v = by_ld_global_v4(src + {offset});")
            L.append(f"        *reinterpret_cast<uint2*>(dst + {tile.off('o', 'j * 8')}) = "
                     f"make_uint2({pack}(v.x, v.y), {pack}(v.z, v.w));")
        L.append("      }")
    elif kind == "generic_vec":
        L += _vector_loader(te, view, p, side, it, T)
    elif hoist and _fixed_rows(p, side, T):
        L += _gather_by_k(te, view, p, side, it, T)
    else:
        total = outer_tile * inner_tile
        loop = f"for (int c = tid; c < {total}; c += {T})"
        L += [f"      {loop} {{",
              f"        const int o = c / {inner_tile}, ii = c % {inner_tile};",
              *("        " + x for x in globals_("o", "ii")),
              f"        {zero}"]
        conds = [c for c, need in ((f"gr < {extent}", extent % rows != 0), (f"gk < {K}", K % BK != 0)) if need]
        L.append(f"        if ({' && '.join(conds)}) {{" if conds else "        {")
        body: list[str] = []
        _decompose(body, "          ", it, "gr", group, "by_rm")
        _decompose(body, "          ", it, "gk", view.k, "by_rk")
        val = _render(te, op.source, body, "          ", it)
        L += body + [f"          v = {val};", "        }"]
        L.append(f"        *reinterpret_cast<{ctype}*>(dst + {tile.off('o', f'ii * {eb}')}) = {_narrow(ctype)};")
        L.append("      }")
    L.append("    }")
    return L


def _narrow(ctype: str) -> str:
    """`v` converted to the shared tile's type (a C cast where the type is two words: unsigned char)."""
    return f"({ctype})(v)" if " " in ctype else f"{ctype}(v)"


def _gathered_name(side: str, key: str) -> str:
    return f"by_{side}_gathered{key[1:]}"


def gathered_bases(te: TensorExpr, view: GemmView, p: TcPlan, it: str) -> list[str]:
    """Kernel-scope statements: each direct operand's gathered index of batch vars only (an expert's
    weights), read once per block."""
    rows = {"a": view.m[0][0], "b": view.n[0][0]}
    L: list[str] = []
    for side, op, kind in (("a", p.a, p.load_a), ("b", p.b, p.load_b)):
        if kind not in ("async", "vector"):
            continue
        for key, e in op.gathered:
            if rows[side] not in vars_of(e):
                val = _render(te, e, L, "  ", it)
                L.append(f"  const {it} {_gathered_name(side, key)} = {val};")
    return L


def _gathered_rows(te: TensorExpr, op: TcOperand, side: str, row_var: str, extent: int, it: str,
                   ind: str) -> list[str]:
    """Loop statements: the operand's gathered index of the row var (a gathered row) at the tile row
    `gr`, clamped into the rows so a ragged tile's zero-filled rows read an index that exists."""
    L: list[str] = []
    for key, e in op.gathered:
        if row_var in vars_of(e):
            L.append(f"{ind}const {it} by_grc = gr < {extent} ? gr : {extent - 1};")
            val = _render(te, substitute(e, row_var, Var("by_grc")), L, ind, it)
            L.append(f"{ind}const {it} {_gathered_name(side, key)} = {val};")
    return L


def _vector_loader(te: TensorExpr, view: GemmView, p: TcPlan, side: str, it: str, T: int) -> list[str]:
    """The generic_vec loader: a thread computes VEC consecutive values along the tile's inner axis
    (k of a rows x k tile, rows of a k x rows one), the operand unrolled there (shared
    sub-expressions, a packed byte or a block's scale, are the same text, computed once by the
    compiler), and stores them as one 16-byte chunk."""
    op, tile, orient = (p.a, p.tile_a, p.orient_a) if side == "a" else (p.b, p.tile_b, p.orient_b)
    rows, group, extent, row0 = ((p.BM, view.m, view.M, "by_m0") if side == "a" else (p.BN, view.n, view.N, "by_n0"))
    pack = ELEMS[p.elem][4]
    exprs = gemm_vector_sources(view, op.source, side, VEC, orient)
    if orient == "k":      # outer: rows, inner: k
        outer, per, vec_var, vec_ext, vec_tile = rows, p.BK // VEC, "gk", view.K, p.BK
        head = [f"        const {it} gr = {row0} + o;", f"        const {it} gk = k0 + j * {VEC};"]
        outer_ok = f"gr < {extent}" if extent % rows else ""
    else:                  # outer: k, inner: rows
        outer, per, vec_var, vec_ext, vec_tile = p.BK, rows // VEC, "gr", extent, rows
        head = [f"        const {it} gk = k0 + o;", f"        const {it} gr = {row0} + j * {VEC};"]
        outer_ok = f"gk < {view.K}" if view.K % p.BK else ""
    L = [f"      for (int c = tid; c < {outer * per}; c += {T}) {{",
         f"        const int o = c / {per}, j = c % {per};", *head,
         f"        float v[{VEC}] = {{{', '.join(['0.0f'] * VEC)}}};",
         f"        if ({outer_ok}) {{" if outer_ok else "        {"]
    if orient == "k":
        _decompose(L, "          ", it, "gr", group, "by_rm")
    else:
        _decompose(L, "          ", it, "gk", view.k, "by_rk")
    L.append(f"          const {it} by_vv = {vec_var} / {VEC};")
    for q, e in enumerate(exprs):
        body: list[str] = []
        val = _render(te, e, body, "            ", it)
        L += [f"          if ({vec_var} + {q} < {vec_ext}) {{" if vec_ext % vec_tile else "          {", *body,
              f"            v[{q}] = {val};", "          }"]
    L.append("        }")
    for h in range(VEC // 4):
        L.append(f"        *reinterpret_cast<uint2*>(dst + {tile.off('o', f'j * {VEC * 2} + {8 * h}')}) = "
                 f"make_uint2({pack}(v[{4 * h}], v[{4 * h + 1}]), {pack}(v[{4 * h + 2}], v[{4 * h + 3}]));")
    L.append("      }")
    return L


# An implicit-GEMM gather (a Conv's activations, k x rows with the rows innermost) decomposes a
# row index into its vars (n, h, w) with divisions: per element of every k-tile that costs more
# instructions than the mma work. When every thread keeps the same rows of the tile for the whole
# kernel, those vars are computed once, before the k loop, and the k vars once per tile row.

def _fixed_rows(p: TcPlan, side: str, T: int) -> int:
    """Rows of the tile each thread keeps for the whole kernel (a k x rows gather whose rows a
    whole number of threads covers), else 0."""
    orient, kind = (p.orient_a, p.load_a) if side == "a" else (p.orient_b, p.load_b)
    rows = p.BM if side == "a" else p.BN
    if kind != "generic" or orient != "r":
        return 0
    if rows % T == 0:
        return rows // T
    return 1 if T % rows == 0 and p.BK % (T // rows) == 0 else 0


def gather_rows(view: GemmView, p: TcPlan, side: str, it: str, T: int) -> list[str]:
    """Kernel-scope statements: the row vars of each row this thread loads, and whether it exists."""
    Q = _fixed_rows(p, side, T)
    if not Q:
        return []
    rows, group, extent, row0 = ((p.BM, view.m, view.M, "by_m0") if side == "a" else (p.BN, view.n, view.N, "by_n0"))
    pre = f"by_g{side}"
    L = [f"  {it} {', '.join(f'{pre}_{v}[{Q}]' for v, _ in group)};",
         f"  bool {pre}_ok[{Q}];",
         "  #pragma unroll",
         f"  for (int q = 0; q < {Q}; ++q) {{",
         f"    const {it} gr = {row0} + {'tid % ' + str(rows) if Q == 1 else f'tid + q * {T}'};",
         f"    {pre}_ok[q] = gr < {extent};"]
    body: list[str] = []
    _decompose(body, "    ", it, "gr", group, "by_rm")
    L += body + [f"    {pre}_{v}[q] = {v};" for v, _ in group] + ["  }"]
    return L


def _gather_by_k(te: TensorExpr, view: GemmView, p: TcPlan, side: str, it: str, T: int) -> list[str]:
    """The loader of a fixed-rows gather: per tile row (a k), its k vars, then the thread's rows."""
    op, tile = (p.a, p.tile_a) if side == "a" else (p.b, p.tile_b)
    rows, group = (p.BM, view.m) if side == "a" else (p.BN, view.n)
    ctype, eb = ELEMS[p.elem][0], ELEMS[p.elem][1]
    Q = _fixed_rows(p, side, T)
    pre = f"by_g{side}"
    first, step = ("0", 1) if Q > 1 or T == rows else (f"tid / {rows}", T // rows)
    col = f"tid + q * {T}" if Q > 1 else f"tid % {rows}"
    L = [f"      for (int o = {first}; o < {p.BK}; o += {step}) {{",
         f"        const {it} gk = k0 + o;"]
    body: list[str] = []
    _decompose(body, "        ", it, "gk", view.k, "by_rk")
    L += body + ["        #pragma unroll", f"        for (int q = 0; q < {Q}; ++q) {{"]
    L += [f"          const {it} {v} = {pre}_{v}[q];" for v, _ in group]
    ragged = (view.M % p.BM) if side == "a" else (view.N % p.BN)
    conds = [f"{pre}_ok[q]"] if ragged else []
    if view.K % p.BK:
        conds.append(f"gk < {view.K}")
    L.append("          float v = 0.0f;")
    L.append(f"          if ({' && '.join(conds)}) {{" if conds else "          {")
    body = []
    val = _render(te, op.source, body, "            ", it)
    L += body + [f"            v = {val};", "          }",
                 f"          *reinterpret_cast<{ctype}*>(dst + {tile.off('o', f'({col}) * {eb}')}) = {_narrow(ctype)};",
                 "        }", "      }"]
    return L


def _fragments(p: TcPlan) -> list[str]:
    """Statements that load one k-step's A and B fragments (a[MI][4], b[NI][2]) from stage `as`/`bs`."""
    MI, NI = p.WM // 16, p.WN // 8
    ta, tb = p.tile_a, p.tile_b
    L = [f"        unsigned a[{MI}][4], b[{NI}][2];"]
    # kk counts elements: the k step's first byte in a row; by_lc and by_lh count 16-bit units (an
    # 8-bit fragment holds four bytes a register at the byte positions of a 16-bit one's two values)
    a_col, b_col = (("(kk + by_lc) * 2", "(kk + by_lh) * 2") if ELEMS[p.elem][1] == 2
                    else ("kk + by_lc * 2", "kk + by_lh * 2"))
    if p.elem != "float32":
        # lane l names row (l % 8) + 8 * ((l / 8) % 2) and column 8 * (l / 16) of a 16x16 A tile, etc.
        if p.orient_a == "k":
            L += ["        #pragma unroll", f"        for (int mi = 0; mi < {MI}; ++mi)",
                  f"          by_ldmatrix_x4(a[mi], as + {ta.off('wm0 + mi * 16 + by_lr', a_col)});"]
        else:
            L += ["        #pragma unroll", f"        for (int mi = 0; mi < {MI}; ++mi)",
                  f"          by_ldmatrix_x4_trans(a[mi], as + {ta.off('kk + by_lc + (lane & 7)', '(wm0 + mi * 16 + by_lh) * 2')});"]
        if p.orient_b == "k":
            L += ["        #pragma unroll", f"        for (int nj = 0; nj < {NI // 2}; ++nj)",
                  f"          by_ldmatrix_x4(&b[2 * nj][0], bs + {tb.off('wn0 + nj * 16 + by_lc + (lane & 7)', b_col)});"]
        else:
            L += ["        #pragma unroll", f"        for (int nj = 0; nj < {NI // 2}; ++nj)",
                  f"          by_ldmatrix_x4_trans(&b[2 * nj][0], bs + {tb.off('kk + by_lh + (lane & 7)', '(wn0 + nj * 16 + by_lc) * 2')});"]
    else:
        def fa(m: str, k: str) -> str:
            o, i = (m, k) if p.orient_a == "k" else (k, m)
            return f"by_float_to_tf32(*reinterpret_cast<const float*>(as + {ta.off(o, f'({i}) * 4')}))"

        def fb(k: str, n: str) -> str:
            o, i = (n, k) if p.orient_b == "k" else (k, n)
            return f"by_float_to_tf32(*reinterpret_cast<const float*>(bs + {tb.off(o, f'({i}) * 4')}))"
        L += ["        #pragma unroll", f"        for (int mi = 0; mi < {MI}; ++mi) {{",
              "          const int r0 = wm0 + mi * 16 + by_g;",
              f"          a[mi][0] = {fa('r0', 'kk + by_t')};",
              f"          a[mi][1] = {fa('r0 + 8', 'kk + by_t')};",
              f"          a[mi][2] = {fa('r0', 'kk + by_t + 4')};",
              f"          a[mi][3] = {fa('r0 + 8', 'kk + by_t + 4')};",
              "        }",
              "        #pragma unroll", f"        for (int ni = 0; ni < {NI}; ++ni) {{",
              "          const int c0 = wn0 + ni * 8 + by_g;",
              f"          b[ni][0] = {fb('kk + by_t', 'c0')};",
              f"          b[ni][1] = {fb('kk + by_t + 4', 'c0')};",
              "        }"]
    return L


def render_tc_gemm(te: TensorExpr, view: GemmView, cfg: KernelConfig, prefix: str, out_value: str,
                   in_values, workspace: str = "", tiles: TileList | None = None) -> Kernel:
    """The tensor-core kernel of one tc_gemm configuration; with split_k > 1 its blocks write
    partial sums to `workspace` (fp32 [split_k][output elements]) and the last block of each
    output tile sums them into `out_value` with the epilogue, in the same launch. With `tiles`
    (block_sparse_tc_gemm), each block's k loop visits only its row's listed k tiles."""
    if cfg.split_k > 1 and not workspace:
        raise ValueError(f"{te.name}: a split-K configuration needs its workspace")
    p = tc_plan(te, view, cfg)
    ctype, eb, _, kmma, _ = ELEMS[p.elem]
    mma = mma_function(p.elem, p.elem_b or p.elem)
    if p.integer and "r" in (p.orient_a, p.orient_b):
        raise ValueError(f"{te.name}: 8-bit operands are staged k-major (ldmatrix .trans moves 16-bit values)")
    acc_t, acc_0 = ("int", "0") if p.integer else ("float", "0.0f")
    MI, NI = p.WM // 16, p.WN // 8
    WGN = p.BN // p.WN
    T = 32 * p.warps
    M, N, K = view.M, view.N, view.K
    mt, nt, nk = math.ceil(M / p.BM), math.ceil(N / p.BN), math.ceil(K / p.BK)
    SK = p.split_k
    it = split_k_index_type(te, SK)
    S = p.stages
    has_async = "async" in (p.load_a, p.load_b)
    L = ["  BY_SHARED_BUFFER(by_smem);",
         "  unsigned char* const by_sa = by_smem;",
         f"  unsigned char* const by_sb = by_smem + {S * p.tile_a.stage_bytes};",
         "  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;",
         "  const int by_g = lane >> 2, by_t = lane & 3;",
         "  const int by_lr = (lane & 7) + 8 * ((lane >> 3) & 1), by_lc = 8 * (lane >> 4), by_lh = 8 * ((lane >> 3) & 1);",
         f"  const int wm0 = (warp / {WGN}) * {p.WM}, wn0 = (warp % {WGN}) * {p.WN};",
         f"  {it} by_blk = {BLOCK_X};",
         f"  const {it} by_n0 = (by_blk % {nt}) * {p.BN}; by_blk /= {nt};",
         f"  const {it} by_m0 = (by_blk % {mt}) * {p.BM}; by_blk /= {mt};"]
    L += split_k_slice(SK, mt * nt)
    _unit_vars(L, "  ", it, view.unit)
    _decompose(L, "  ", it, "by_blk", view.batch, "by_rb")
    L += gathered_bases(te, view, p, it)
    L.append("  (void)by_lr; (void)by_lc; (void)by_lh; (void)by_g; (void)by_t;")
    L += [f"  {acc_t} by_acc[{MI}][{NI}][4];",
          "  #pragma unroll", f"  for (int mi = 0; mi < {MI}; ++mi)",
          "    #pragma unroll", f"    for (int ni = 0; ni < {NI}; ++ni)",
          "      #pragma unroll", f"      for (int q = 0; q < 4; ++q) by_acc[mi][ni][q] = {acc_0};"]
    helpers: list[str] = []
    if tiles is None:
        L += split_k_range(SK, nk)
        count, tile = "nloc", (lambda t: f"kt_begin + {t}")      # the k tile of step t
    else:
        lines, table, count, tile = tiles.walk(SK, row_tile(tiles.operand, p.BM, p.BN))
        L += lines
        helpers.append(table)
    L += gather_rows(view, p, "a", it, T) + gather_rows(view, p, "b", it, T)
    L.append("  auto by_load = [&](int stage, int kt) {")
    L.append(f"    const {it} k0 = ({it})kt * {p.BK};")
    L += _loader(te, view, p, "a", it, T, hoist=True)
    L += _loader(te, view, p, "b", it, T, hoist=True)
    L.append("  };")
    commit = "    by_cp_async_commit();" if has_async else None

    def compute(stage: str, ind: str) -> list[str]:
        out = [f"{ind}{{",
               f"{ind}  const unsigned char* const as = by_sa + ({stage}) * {p.tile_a.stage_bytes};",
               f"{ind}  const unsigned char* const bs = by_sb + ({stage}) * {p.tile_b.stage_bytes};",
               f"{ind}  #pragma unroll",
               f"{ind}  for (int kk = 0; kk < {p.BK}; kk += {kmma}) {{"]
        out += [ind + x[4:] for x in _fragments(p)]
        out += [f"{ind}    #pragma unroll", f"{ind}    for (int mi = 0; mi < {MI}; ++mi)",
                f"{ind}      #pragma unroll", f"{ind}      for (int ni = 0; ni < {NI}; ++ni)",
                f"{ind}        {mma}(by_acc[mi][ni], a[mi], b[ni], by_acc[mi][ni]);",
                f"{ind}  }}", f"{ind}}}"]
        return out

    if S == 1:
        L += [f"  for (int i = 0; i < {count}; ++i) {{", f"    by_load(0, {tile('i')});"]
        if has_async:
            L += ["    by_cp_async_commit();", "    by_cp_async_wait_all();"]
        L += ["    __syncthreads();"] + compute("0", "    ") + ["    __syncthreads();", "  }"]
    else:
        # prologue: S-1 tiles in flight; then each iteration waits for its tile, refills the stage
        # the previous iteration read (every warp is past the barrier) and multiplies
        L += [f"  for (int s = 0; s < {S - 1}; ++s) {{", f"    if (s < {count}) by_load(s, {tile('s')});"]
        if commit:
            L.append(commit)
        L += ["  }", f"  for (int i = 0; i < {count}; ++i) {{"]
        if has_async:
            L.append(f"    by_cp_async_wait<{S - 2}>();")
        L += ["    __syncthreads();",
              f"    if (i + {S - 1} < {count}) by_load((i + {S - 1}) % {S}, {tile(f'i + {S - 1}')});"]
        if commit:
            L.append(commit)
        L += compute(f"i % {S}", "    ") + ["  }"]
        if has_async:
            L.append("  by_cp_async_wait_all();")
    if p.out_tile_bytes:
        L += ["  __syncthreads();  // every warp has read its last stage: the output tile reuses them",
              declare_tile(te, "by_smem")]

    index_vars: list[str] = []
    _decompose(index_vars, "        ", it, "gm", view.m, "by_em")
    _decompose(index_vars, "        ", it, "gn", view.n, "by_en")
    guards = [c for c, need in ((f"gm < {M}", M % p.BM != 0), (f"gn < {N}", N % p.BN != 0)) if need]

    def each_fragment(inner: list[str]) -> list[str]:
        return fragment_loop(it, MI, NI, ("gm", "by_m0 + wm0"), ("gn", "by_n0 + wn0"), guards, index_vars, inner)

    acc, total = "by_acc[mi][ni][q]", []
    if SK > 1:
        tail, total = split_k_sum(te, it, SK, each_fragment, acc, acc_t)
        L += tail
        acc = "by_sum"
    if p.out_tile_bytes:
        L += each_fragment(total + _stage_value_lines(te, it, acc, tile_pitch(te, p.BN)))
        L += ["  __syncthreads();"] + copy_out(te, view, p.BM, p.BN, T, it)
    else:
        L += each_fragment(total + _epilogue_lines(te, it, acc))
    params, kparams = split_params(te, out_value, in_values, workspace if SK > 1 else "")
    out_tiles = view.B * mt * nt
    entry, source = finish_kernel(prefix, params, L, launch_bounds=(T,), helpers=helpers,
                                  arrivals=out_tiles if SK > 1 else 0)
    return Kernel(entry=entry, source=source, params=kparams, grid=(out_tiles * SK, 1, 1), block=(T, 1, 1),
                  shared_bytes=p.shared_bytes, expr=te, arrivals=out_tiles if SK > 1 else 0)


def fragment_loop(it: str, MI: int, NI: int, rows: tuple[str, str], cols: tuple[str, str], guards: list[str],
                  index_vars: list[str], inner: list[str]) -> list[str]:
    """`inner` at every accumulator of the thread's MI x NI m16n8 mma tiles (lane (g, t) holds rows
    g, g+8 and columns 2t, 2t+1 of each): `rows`/`cols` are (the variable declared, the C expression
    of the warp tile's first row/column); `guards` skip elements past the edges; `index_vars`
    declare the output's index vars from them."""
    (rv, r0), (cv, c0) = rows, cols
    out = ["  #pragma unroll", f"  for (int mi = 0; mi < {MI}; ++mi)",
           "    #pragma unroll", f"    for (int ni = 0; ni < {NI}; ++ni)",
           "      #pragma unroll", "      for (int q = 0; q < 4; ++q) {",
           f"        const {it} {rv} = {r0} + mi * 16 + by_g + (q >> 1) * 8;",
           f"        const {it} {cv} = {c0} + ni * 8 + 2 * by_t + (q & 1);"]
    if guards:
        out.append(f"        if (!({' && '.join(guards)})) continue;")
    return out + index_vars + inner + ["      }"]


# ---- split-K in one launch (tc_gemm, sparse24_gemm) ----------------------------------------------
# Block (tile, slice) reduces its slice of K and writes the partial sums to the fp32 workspace
# [split][outputs]; the last of the tile's blocks to arrive (by_arrive, on the launch's counters)
# sums the slices in slice order, so the result does not depend on which block is last, and
# applies the epilogue. Its own slice is read back too (each thread reads what it wrote): taking
# it from registers instead makes ptxas spill on sm_90.

def split_k_index_type(te: TensorExpr, split: int) -> str:
    """The kernel's index type: the expression's, or 64-bit where the workspace [split][outputs]
    passes 2^31 elements."""
    if split > 1 and split * te.output.size * 2 >= INT32_LIMIT:
        return "long long"
    return index_ctype(te)


def split_k_sum(te: TensorExpr, it: str, split: int, each_fragment, acc: str,
                acc_t: str = "float") -> tuple[list[str], list[str]]:
    """(the partial sums written and the block's arrival, where all but the last block return;
    the lines that set `by_sum` at an output element). `each_fragment(lines)` runs lines at every
    accumulator of the thread, its output index vars declared; shared memory's first bytes are
    free (every stage has been read). An int accumulator's bits go through the float workspace as
    they are, so the integer sum stays exact."""
    n = te.output.size
    put, get = acc, f"__ldcg(&by_ws[({it})k * {n} + {_out_offset(te)}])"
    if acc_t == "int":
        put, get = f"__int_as_float({acc})", f"__float_as_int({get})"
    tail = each_fragment([f"        by_ws[({it})by_ks * {n} + {_out_offset(te)}] = {put};"])
    tail += ["  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives",
             "  __syncthreads();",
             "  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done",
             f"  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], {split}u);",
             "  __syncthreads();",
             "  if (!*by_last) return;",
             "  __threadfence();   // the other slices are read after their arrivals were seen"]
    total = [f"        {acc_t} by_sum = {'0' if acc_t == 'int' else '0.0f'};",
             f"        for (int k = 0; k < {split}; ++k)",
             f"          by_sum += {get};"]
    return tail, total


def _stage_value_lines(te: TensorExpr, it: str, value: str, pitch: int) -> list[str]:
    """`value` (with the epilogue) into the staged output tile, at the fragment loop's indent."""
    out: list[str] = []
    stage_value(te, out, "        ", it, value, pitch)
    return out


def _epilogue_lines(te: TensorExpr, it: str, value: str) -> list[str]:
    """`value` with the epilogue, stored to the output, at the fragment loop's indent."""
    out: list[str] = []
    _epilogue(te, out, "        ", it, value, te.body.dtype)
    return out
