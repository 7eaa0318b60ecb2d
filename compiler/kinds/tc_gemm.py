"""Kind `tc_gemm`: mma.sync tensor-core contractions, tf32/fp16/bf16 (codegen/tensor_core.py).

Warp tiles of m16n8 mma tiles, swizzled or padded conflict-free shared tiles, 1-4 stages (cp.async
on sm_80+), and split-K when the output tiles cannot fill the SMs: partial sums into an fp32
workspace, summed by the last block of each tile in the same launch. Block tiles grow along
Roller's growth path by reuse score."""
from __future__ import annotations

import math

from ..analysis.views import MMA_ELEMS, GemmView, TcOperand, gemm_view, inferred_precision, int8_elems, tc_operand
from ..codegen.staged_epilogue import l2_store_bytes
from ..codegen.tensor_core import ELEMS, INT_ELEMS, VEC, out_tile_bytes, render_tc_gemm, smem_tile
from ..roller.construct import (bank_conflict_ways, dram_bytes, growth_path, io_sizes, load_count, loader_sectors,
                                ops_per_element, pow2_ceil)
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..analysis.quasi_affine import gemm_vector_sources
from ..ir.texpr import Binary, Load, TensorExpr, Unary, walk
from ..ir.tiles import KernelConfig, RTile, Workload, serial_steps
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "tc_gemm"
TIER = 0            # contractions
TENSOR_CORE = True   # its arithmetic runs on tensor cores (the report's compute ceiling)


def view(te: TensorExpr) -> GemmView | None:
    return gemm_view(te)


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a contraction")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else tc_candidates(te, v, target, precision or inferred_precision(te, v))


TC_BLOCK = (16, 32, 64, 128)
TC_WARP = (16, 32, 64)


TC_BK = {"float32": (8, 16, 32), "float16": (16, 32, 64), "bfloat16": (16, 32, 64), "int8": (32, 64, 128),
         "uint8": (32, 64, 128)}
TC_SPLITS = (2, 4, 8, 16)
# the dependent L2 round trips split-K adds after a block's k-loop: the fence and the arrival's
# atomic (its answer decides who sums), then the last block's read-back of the slices
SPLIT_K_STEPS = 2.0


def split_k_factors(blocks_mn: int, k_tiles: int, target: Target, waves: bool = False) -> list[int]:
    """How many slices K may be split into: 1, and when the output tiles cannot fill the SMs, each
    split of at least two k tiles a slice that stays within two blocks an SM: the powers of two,
    and with `waves` the splits that fill one or two waves of a block an SM (and one fewer slice,
    whose slices may divide the k tiles better). A power of two leaves a wave part empty wherever
    the tile count is not one too: BERT-base's 24 output tiles of 128 x 128 fill 264 of 264 block
    slots split 11 ways, 192 of them split 8 ways. The SIMT `gemm` asks for them (full-size fp32
    BERT 772.7 -> 661.5 us predicted: bench/results/switch-20261130T041404Z.json against
    -052507Z.json); the tensor-core kinds keep the powers of two (a trial that offered them these
    too, not kept, moved their predictions little for more candidates to price)."""
    if blocks_mn >= target.sms:
        return [1]
    extra = {w * target.sms // blocks_mn - d for w in (1, 2) for d in (0, 1)} if waves else set()
    return [1] + sorted(s for s in set(TC_SPLITS) | extra
                        if 2 <= s <= max(TC_SPLITS) and k_tiles >= 2 * s and blocks_mn * s <= 2 * target.sms)


def split_k_terms(te: TensorExpr, split: int, k_tiles: int, stages: int) -> tuple[float, float]:
    """(the workspace bytes a split moves: its slices written and read back by each tile's last
    block; the k-loop's serial round trips plus the split's own) for the micro-model."""
    if split == 1:
        return 0.0, serial_steps(k_tiles, stages)
    return 2.0 * split * te.output.size * 4, serial_steps(math.ceil(k_tiles / split), stages) + SPLIT_K_STEPS


TC_PADS = (0, 16, 32, 48)          # bytes: whole 16-byte chunks, so cp.async stays aligned
MMA_ISSUE_SLOTS = 4                # instructions a scheduler may issue per mma at tensor-core peak


def tc_loader(op: TcOperand, elem: str, k_fast: bool, target: Target) -> tuple[str, str]:
    """(loader kind, shared orientation) of one operand: async, vector or generic; "k" or "r"."""
    eb = ELEMS[elem][1]
    if elem in INT_ELEMS:
        # 8-bit tiles are k-major whatever the global order: their fragments come from ldmatrix
        # without .trans, which would move 16-bit values (passes/imma.py stores weights k-major)
        if op.direct and op.inner == "k" and target.has_cp_async and op.storage == elem and op.aligned(16):
            return "async", "k"
        return "generic", "k"
    if op.direct:
        if target.has_cp_async and op.storage == elem and op.aligned(16 // eb):
            return "async", op.inner
        if elem != "float32" and op.storage == "float32" and op.aligned(4):
            return "vector", op.inner
        return "generic", op.inner
    return "generic", "k" if k_fast else "r"


def vector_cost(view: GemmView, op: TcOperand, side: str, orient: str) -> float | None:
    """Issue slots per element of the generic_vec loader: a thread computes VEC consecutive values
    along the tile's inner axis (k of one row, or rows of one k), so what its elements share (a
    packed byte, a block's scale and zero point, their index arithmetic: the same expressions after
    `unrolled`) is computed once, the loop's own work once per VEC, and the VEC values go to shared
    memory in one 16-byte store (16-bit elements only). None where the inner axis is several
    variables."""
    if op.source is None:
        return None
    exprs = gemm_vector_sources(view, op.source, side, VEC, orient)
    if exprs is None:
        return None
    nodes = {n for e in exprs for n in walk(e)}
    loads = sum(isinstance(n, Load) for n in nodes)
    ops = sum(isinstance(n, (Binary, Unary)) for n in nodes)
    return (8.0 + 4 * loads + ops) / VEC + 1.0         # + the conversion and pack of each element


def fragment_conflicts(tile, elem: str, orient: str, banks: int = 32) -> int:
    """Worst bank-conflict ways of one warp's fragment reads from a shared tile (ldmatrix phases of
    8 rows x 16 bytes for 16-bit types, 32-bit loads of lanes (g, t) for tf32)."""
    if elem != "float32":
        # every 8x8 matrix of an ldmatrix is 8 consecutive tile rows at one 16-byte column
        worst = 1
        for ib in range(0, tile.inner * tile.elem_bytes, 16):
            addrs = [tile.offset(o, ib) // 4 + w for o in range(min(8, tile.outer)) for w in range(4)]
            worst = max(worst, bank_conflict_ways(addrs, banks))
        return worst
    addrs = []
    for lane in range(32):
        g, t = lane // 4, lane % 4
        # "k" tiles are read at (row g, k t), "r" tiles at (k t, row g)
        o, i = (g, t) if orient == "k" else (t, g)
        addrs.append(tile.offset(o, 4 * i) // 4)
    return bank_conflict_ways(addrs, banks)


def _tc_tile(memo: dict, elem: str, orient: str, rows: int, bk: int, target: Target):
    """The conflict-free shared tile (swizzled when its rows allow, else the smallest good padding)."""
    key = (orient, rows, bk)
    if key not in memo:
        eb = ELEMS[elem][1]
        t = smem_tile(orient, rows, bk, eb, 0, True)
        if not t.swizzle:
            best = None
            for pad in TC_PADS:
                cand = smem_tile(orient, rows, bk, eb, pad, False)
                ways = fragment_conflicts(cand, elem, orient, banks=target.shared_banks)
                if best is None or ways < best[0]:
                    best = (ways, cand)
            t = best[1]
        memo[key] = t
    return memo[key]


def _tc_block_tiles(view: GemmView, item: int, bk0: int, target: Target) -> list[tuple[int, int]]:
    """Block tiles along Roller's growth path by reuse score (traffic saved per footprint added)."""
    ms = [s for s in TC_BLOCK if s <= max(16, pow2_ceil(view.M))]
    ns = [s for s in TC_BLOCK if s <= max(16, pow2_ceil(view.N))]

    def traffic(bm, bn):
        return math.ceil(view.M / bm) * math.ceil(view.N / bn) * (bm + bn) * view.K * item

    def footprint(bm, bn):
        return (bm + bn) * bk0 * item

    return growth_path(ms, ns, 0, 0, traffic, footprint, target)


def tc_candidates(te: TensorExpr, view: GemmView, target: Target, precision: str) -> list[KernelConfig]:
    """Tensor-core (mma.sync) configurations: block tiles grown by reuse score, warp tiles of m16n8
    mma tiles, k steps of the mma's k, 1-4 shared stages (cp.async on sm_80+), split-K when the
    output tiles cannot fill the SMs. None for fp32, and none where the prelude has no native mma
    of the type (sm_75: m16n8k16 and tf32 are emulated there). `int8` (passes/imma.py): both
    operands 8-bit integers (s8 or u8 each), m16n8k32 into int32 accumulators."""
    if precision == "int8":
        elem, elem_b = int8_elems(view) or (None, None)
    else:
        elem = elem_b = MMA_ELEMS.get(precision)
    if elem is None or target.sm_version < 80 or target.tensor_core_tflops(elem) <= 0:
        return []
    _, eb, _, kmma, _ = ELEMS[elem]
    if target.mma_shape(elem) != (16, 8, kmma):
        return []
    a, b = tc_operand(te, view, "a", elem), tc_operand(te, view, "b", elem_b)
    if a is None or b is None:
        return []
    (load_a, oa), (load_b, ob) = (tc_loader(a, elem, view.a_k_fastest, target),
                                  tc_loader(b, elem_b, view.b_k_fastest, target))
    has_async = "async" in (load_a, load_b)
    sizes = io_sizes(te)
    M, N, K = view.M, view.N, view.K
    bks = sorted({min(s, max(kmma, pow2_ceil(K))) for s in TC_BK[elem]})
    src_item = {"a": te.inputs[a.arg].dtype.itemsize if a.direct else sizes[2],
                "b": te.inputs[b.arg].dtype.itemsize if b.direct else sizes[2]}
    cost = {}
    for side, op, kind in (("a", a, load_a), ("b", b, load_b)):
        if kind == "async":
            cost[side] = 2.0 / (16 // eb)
        elif kind == "vector":
            cost[side] = 1.5
        else:
            cost[side] = 8.0 + ops_per_element(op.source) + 4 * load_count(op.source)
            vec = vector_cost(view, op, side, (oa, ob)[side == "b"]) if eb == 2 else None
            if vec is not None and vec < cost[side]:
                cost[side] = vec
                if side == "a":
                    load_a = "generic_vec"
                else:
                    load_b = "generic_vec"
    tiles_memo: dict = {}
    sect_memo: dict = {}
    # what every tiling shares: the epilogue's store traffic (l2_store_bytes)
    store_l2 = l2_store_bytes(te, view)
    thread = RTile("thread", (("m", 16), ("n", 8), ("k", kmma)))
    out = []
    for BM, BN in _tc_block_tiles(view, eb, bks[0], target):
        mt, nt = math.ceil(M / BM), math.ceil(N / BN)
        blocks_mn = view.B * mt * nt
        out_tile = out_tile_bytes(te, view, BM, BN, 1)       # (a split kernel stages none)
        for WM in TC_WARP:
            for WN in TC_WARP:
                if BM % WM or BN % WN:
                    continue
                warps = (BM // WM) * (BN // WN)
                if warps not in (1, 2, 4, 8):
                    continue
                MI, NI = WM // 16, WN // 8
                warp = RTile("warp", (("m", WM), ("n", WN)))
                for BK in bks:
                    nk = math.ceil(K / BK)
                    ta = _tc_tile(tiles_memo, elem, oa, BM, BK, target)
                    tb = _tc_tile(tiles_memo, elem, ob, BN, BK, target)
                    pads = tuple((s, t.pad) for s, t in (("a", ta), ("b", tb)) if t.pad)
                    block = RTile("block", (("m", BM), ("n", BN), ("k", BK)), pads)
                    stage_bytes = ta.stage_bytes + tb.stage_bytes
                    infl = {}
                    for side, kind, expr, group, rows, k_fast, ext in (
                            ("a", load_a, view.a, view.m, BM, view.a_k_fastest, M),
                            ("b", load_b, view.b, view.n, BN, view.b_k_fastest, N)):
                        if kind not in ("generic", "generic_vec"):
                            infl[side] = 1.0
                            continue
                        key = (side, rows, BK)
                        if key not in sect_memo:
                            sect_memo[key] = loader_sectors(te, view, expr, group, rows, BK, k_fast, ext)
                        infl[side] = sect_memo[key]
                    for SK in split_k_factors(blocks_mn, nk, target):
                        nk_split = math.ceil(nk / SK)
                        stage_opts = ((2, 3, 4) if nk_split >= 2 else (1,)) if has_async else \
                            ((1, 2) if nk_split >= 2 else (1,))
                        for S in stage_opts:
                            if S > max(1, nk_split):
                                continue
                            shared = max(S * stage_bytes, out_tile if SK == 1 else 0)
                            if shared > target.shared_per_block:
                                continue
                            w = _tc_workload(te, view, sizes, target, elem, BM, BN, BK, MI, NI, warps, SK, S, shared,
                                             infl, src_item, cost, kmma, eb, store_l2, out_tile)
                            tiles = (block, warp, thread)
                            params = [("elem", elem), ("precision", precision), ("stages", S), ("split_k", SK),
                                      ("load_a", load_a), ("load_b", load_b), ("layout_a", oa), ("layout_b", ob),
                                      ("smem", "swizzle" if (ta.swizzle or tb.swizzle) else "pad")]
                            if elem in INT_ELEMS:
                                params.append(("elem_b", elem_b))
                            if SK > 1:
                                params.append(("ws_elems", SK * te.output.size))
                            out.append(KernelConfig("tc_gemm", tiles, tuple(params), w))
    return out


def _tc_workload(te, view, sizes, target, elem, BM, BN, BK, MI, NI, warps, SK, S, shared, infl, src_item, cost,
                 kmma, eb, store_l2, out_tile) -> Workload:
    """`store_l2`: l2_store_bytes of the expression; `out_tile`: its staged tile's bytes unsplit."""
    M, N, K = view.M, view.N, view.K
    mt, nt, nk = math.ceil(M / BM), math.ceil(N / BN), math.ceil(K / BK)
    blocks_mn = view.B * mt * nt
    T = 32 * warps
    loads = blocks_mn * nk * BK * (BM * infl["a"] * src_item["a"] + BN * infl["b"] * src_item["b"])
    ws, steps = split_k_terms(te, SK, nk, S)
    l2 = loads + (sizes[1] + ws if SK > 1 else store_l2)
    smem = blocks_mn * nk * BK * ((BM + BN) * eb + warps * (MI * 16 + NI * 8) * eb)
    if SK == 1 and out_tile:    # the staged epilogue: the tile in and out
        smem += 2.0 * blocks_mn * BM * BN * te.output.dtype.itemsize
    n_ks = BK // kmma
    mma_i = MI * NI * n_ks
    frag_i = (MI + NI / 2) * n_ks if eb <= 2 else (MI * 4 + NI * 2) * 2 * n_ks
    loader_i = (BM * BK * cost["a"] + BN * BK * cost["b"]) / T
    eff = min(1.0, MMA_ISSUE_SLOTS * mma_i / (mma_i + frag_i + loader_i + 4.0))
    regs = MI * NI * 4 + MI * 4 + NI * 2 + 40
    return Workload(blocks=blocks_mn * SK, threads=T, shared_bytes=shared, registers=regs,
                    flops=2.0 * blocks_mn * BM * BN * nk * BK, compute_dtype=f"tc:{elem}",
                    dram_bytes=dram_bytes(sizes, loads, target) + ws, l2_bytes=l2, shared_bytes_moved=smem,
                    ilp=float(MI * NI), issue_efficiency=eff,
                    serial_steps=steps)


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    """The kernel of one configuration (a split-K one writes its partial sums to `workspace`)."""
    return render_tc_gemm(te, view(te), cfg, prefix, out_value, in_values, workspace)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
