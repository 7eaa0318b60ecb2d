"""Kind `sparse24_gemm` (SparTA's 2:4 format on sparse tensor cores): a contraction whose constant
operand keeps at most two of every four consecutive k, multiplied by mma.sp (sm_80+, fp16/bf16)
from its compressed values and metadata (codegen/sparse_tensor_core.py).

Roller never offers this kind: compiler/passes/sparse24.py compresses the operand, rewrites the
expression to read the compressed form, and chooses the fastest of `candidates` where the
micro-model predicts it faster than the dense tensor-core kernel Roller chose. The configuration
names the compressed inputs (params values_arg, meta_arg) and the sparse side (operand)."""
from __future__ import annotations

import math

from ..analysis.views import GemmView, TcOperand, gemm_view, tc_operand
from ..codegen.sparse_tensor_core import MMA_K, MMA_SP, render_sp24_gemm, values_tile
from ..codegen.tensor_core import ELEMS
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, RTile, Workload
from ..roller.construct import dram_bytes, io_sizes, load_count, loader_sectors, ops_per_element, pow2_ceil
from ..targets import Target
from ._tiled import render_tiled
from .tc_gemm import MMA_ISSUE_SLOTS, _tc_tile, split_k_factors, split_k_terms, tc_loader

NAME = "sparse24_gemm"
TIER = None          # chosen by passes/sparse24.py, never by Roller's construction
TENSOR_CORE = True   # its arithmetic runs on tensor cores (the report's compute ceiling)

SPARSE_ROWS = (16, 32, 64, 128)
DENSE_ROWS = (16, 32, 64, 128)
WARP_SPARSE = (16, 32, 64)
WARP_DENSE = (8, 16, 32, 64)
BKS = (32, 64)
STAGES = (1, 2, 3, 4)


def view(te: TensorExpr) -> GemmView | None:
    return gemm_view(te)


def applies(spec) -> str | None:
    if not isinstance(spec, KernelSpec) or spec.config is None or spec.config.kind != NAME:
        return "only passes/sparse24.py's configurations (a compressed 2:4 operand) render as this kind"
    return None


def dense_operand(te: TensorExpr, v: GemmView, side: str, elem: str) -> TcOperand | None:
    """The tensor-core view of the operand that is not `side` (the sparse one)."""
    return tc_operand(te, v, "a" if side == "b" else "b", elem)


def candidates(te: TensorExpr, v: GemmView, side: str, values_arg: int, meta_arg: int, elem: str,
               target: Target) -> list[KernelConfig]:
    """Every configuration that fits: block and warp tiles over (sparse rows, dense rows), k steps
    of one or two mma.sp, 1-4 cp.async stages, split-K (one launch, as tc_gemm's) when the output
    tiles cannot fill the SMs; none below sm_80, for other types, or when K is not a multiple of 32."""
    if elem not in MMA_SP or target.sm_version < 80 or target.tensor_core_tflops(elem) <= 0 or v.K % MMA_K:
        return []
    dense = dense_operand(te, v, side, elem)
    if dense is None or dense.gathered:      # its loaders address plain strided operands only
        return []
    ds = "a" if side == "b" else "b"
    k_fast = v.a_k_fastest if ds == "a" else v.b_k_fastest
    load, orient = tc_loader(dense, elem, k_fast, target)
    eb = ELEMS[elem][1]
    R, D = (v.N, v.M) if side == "b" else (v.M, v.N)
    dense_group, dense_expr = (v.m, v.a) if ds == "a" else (v.n, v.b)
    sizes = io_sizes(te)
    src_item = te.inputs[dense.arg].dtype.itemsize if dense.direct else sizes[2]
    if load == "async":
        cost = 2.0 / (16 // eb)
    elif load == "vector":
        cost = 1.5
    else:
        cost = 8.0 + ops_per_element(dense.source) + 4 * load_count(dense.source)
    sparse_ax, dense_ax = ("n", "m") if side == "b" else ("m", "n")
    tiles_memo: dict = {}
    sect_memo: dict = {}
    out = []
    for BR in (s for s in SPARSE_ROWS if s <= max(16, pow2_ceil(R))):
        for BD in (s for s in DENSE_ROWS if s <= max(16, pow2_ceil(D))):
            for WR in WARP_SPARSE:
                for WD in WARP_DENSE:
                    if BR % WR or BD % WD or (BR // WR) * (BD // WD) not in (1, 2, 4, 8):
                        continue
                    for BK in BKS:
                        if v.K % BK:
                            continue
                        td = _tc_tile(tiles_memo, elem, orient, BD, BK, target)
                        tv = values_tile(BR, BK, eb)
                        if load == "generic":
                            key = (BD, BK)
                            if key not in sect_memo:
                                sect_memo[key] = loader_sectors(te, v, dense_expr, dense_group, BD, BK, k_fast, D)
                            infl = sect_memo[key]
                        else:
                            infl = 1.0
                        nk = v.K // BK
                        splits = split_k_factors(v.B * math.ceil(R / BR) * math.ceil(D / BD), nk, target)
                        for SK, S in ((sk, st) for sk in splits for st in STAGES):
                            if S > max(1, math.ceil(nk / SK)):
                                continue
                            meta_stage = -(-BR * (BK // 4) // 128) * 128
                            shared = S * (td.stage_bytes + tv.stage_bytes + meta_stage)
                            if shared > target.shared_per_block:
                                continue
                            w = _workload(te, v, sizes, target, elem, R, D, BR, BD, BK, WR, WD, S, SK, shared, infl,
                                          src_item, cost)
                            pads = (("dense", td.pad),) if td.pad else ()
                            tiles = (RTile("block", ((sparse_ax, BR), (dense_ax, BD), ("k", BK)), pads),
                                     RTile("warp", ((sparse_ax, WR), (dense_ax, WD))),
                                     RTile("thread", ((sparse_ax, 16), (dense_ax, 8), ("k", MMA_K))))
                            params = (("elem", elem), ("operand", side), ("stages", S), ("split_k", SK),
                                      ("load_dense", load), ("layout_dense", orient),
                                      ("smem", "swizzle" if td.swizzle else "pad"),
                                      ("values_arg", values_arg), ("meta_arg", meta_arg))
                            if SK > 1:
                                params += (("ws_elems", SK * te.output.size),)
                            out.append(KernelConfig(NAME, tiles, params, w))
    return out


def _workload(te: TensorExpr, v: GemmView, sizes, target: Target, elem: str, R: int, D: int, BR: int, BD: int,
              BK: int, WR: int, WD: int, S: int, SK: int, shared: int, infl: float, src_item: float,
              cost: float) -> Workload:
    """tc_gemm's model with the sparse operand at half the values plus a byte per 4 k, and half the
    multiply-adds (mma.sp does a dense mma's work per executed flop, on half of them); split-K's
    partial sums and their read-back as tc_gemm's."""
    eb = ELEMS[elem][1]
    rt, dt, nk = math.ceil(R / BR), math.ceil(D / BD), v.K // BK
    blocks = v.B * rt * dt
    warps = (BR // WR) * (BD // WD)
    T = 32 * warps
    MI, NI = WR // 16, WD // 8
    sparse_tile = BR * BK // 2 * eb + BR * BK // 4
    loads = blocks * nk * (BD * BK * infl * src_item + sparse_tile)
    smem = blocks * nk * (BD * BK * eb + sparse_tile + warps * BK * (MI * 16 * eb // 2 + NI * 8 * eb + MI * 4))
    steps = BK // MMA_K
    mma_i = MI * NI * steps
    frag_i = (MI * 8 + NI) * steps           # ldmatrix, two metadata loads and the nibble packing per mi
    loader_i = (BD * BK * cost + BR * BK // 2 * 2.0 / (16 // eb) + BR * BK / 4) / T
    eff = min(1.0, MMA_ISSUE_SLOTS * mma_i / (mma_i + frag_i + loader_i + 4.0))
    ws, steps = split_k_terms(te, SK, nk, S)
    return Workload(blocks=blocks * SK, threads=T, shared_bytes=shared, registers=MI * NI * 4 + MI * 5 + NI * 4 + 40,
                    flops=float(blocks * BR * BD * nk * BK), compute_dtype=f"tc:{elem}",
                    dram_bytes=dram_bytes(sizes, loads, target) + ws, l2_bytes=loads + sizes[1] + ws,
                    shared_bytes_moved=smem, ilp=float(MI * NI), issue_efficiency=eff,
                    serial_steps=steps)


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    """The kernel of one configuration (a split-K one writes its partial sums to `workspace`)."""
    v = view(te)
    dense = dense_operand(te, v, cfg.param("operand"), cfg.param("elem"))
    return render_sp24_gemm(te, v, cfg, dense, prefix, out_value, in_values, workspace)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
