"""Kind `wgmma_gemm`: Hopper warpgroup mma with TMA or register-staged operands (codegen/wgmma.py).

sm_90 only (wgmma is sm_90a-only; sm_100+ has its own tcgen05), fp16/bf16. Declines contractions
whose extents exceed the tensor map's 32-bit coordinates, and says so (`declined`)."""
from __future__ import annotations

import math

from ..analysis.views import MMA_ELEMS, GemmView, gemm_view, inferred_precision
from ..codegen.wgmma import (BK, FILL_UNROLL, WGMMA_N, WgmmaPlan, coordinate_limit, render_wgmma_gemm, stages_allowed,
                             wgmma_operands)
from ..codegen.staged_epilogue import l2_store_bytes, tile_bytes
from ..roller.construct import dram_bytes, io_sizes, pow2_ceil
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, RTile, Workload
from .tc_gemm import split_k_factors, split_k_terms
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "wgmma_gemm"
TIER = 0            # contractions
TENSOR_CORE = True   # its arithmetic runs on tensor cores (the report's compute ceiling)


# The wgmma kernels keep one wgmma group in flight but meet at a block barrier once per 64-wide
# k tile (to refill a stage) with no producer/consumer specialisation: this fraction of the peak.
WGMMA_PIPELINE_EFFICIENCY = 0.8
# A register-staged wgmma operand (fp32 activations rounded in the kernel) is loaded, converted and
# stored by the block's threads between one k tile's wgmma issue and the next, while only that
# one group is in flight. Each thread keeps FILL_UNROLL 16-byte chunks (two float4 loads each) in
# flight, so a fill of c chunks per thread costs ceil(c / FILL_UNROLL) DRAM round trips, plus
# these issue slots per chunk (2 LDG.128, 4 conversions, 1 STS.128, addressing; an estimate).
FILL_CHUNK_INSTRUCTIONS = 14
# Instructions per cycle an SM's 4 schedulers issue, and an assumed SM clock (estimates, unmeasured).
SM_ISSUE_PER_CYCLE = 4
SM_CLOCK_GHZ_ESTIMATE = 1.7


def wgmma_fill_efficiency(target: Target, elem: str, bm: int, bn: int, vector_rows: int, threads: int) -> float:
    """The fraction of a k tile's time its wgmma group keeps the tensor cores busy when
    `vector_rows` (of bm + bn) operand rows per 64-wide k tile are register-staged: the fill of
    the next stage overlaps the group in flight, and whichever is longer sets the pace."""
    if not vector_rows:
        return 1.0
    chunks = 8 * vector_rows                                     # 16-byte shared chunks per k tile
    per_thread = math.ceil(chunks / threads)
    rounds = math.ceil(per_thread / FILL_UNROLL)
    issue_us = chunks * FILL_CHUNK_INSTRUCTIONS / 32 / SM_ISSUE_PER_CYCLE / (SM_CLOCK_GHZ_ESTIMATE * 1e3)
    fill_us = rounds * target.dram_latency_ns * 1e-3 + issue_us
    mma_us = 2.0 * bm * bn * 64 / (target.tensor_core_tflops(elem) * 1e6 / target.sms)
    return min(1.0, mma_us / fill_us)


def view(te: TensorExpr) -> GemmView | None:
    return gemm_view(te)


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a contraction")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else wgmma_candidates(te, v, target, precision or inferred_precision(te, v))


def declined(te: TensorExpr, target: Target, precision: str | None = None) -> str | None:
    """Why this kind offers no candidate for a contraction it would otherwise take, else None."""
    v = view(te)
    return None if v is None else wgmma_declined(te, v, target, precision or inferred_precision(te, v))


WGMMA_BM = (64, 128)               # 1 or 2 warpgroups of 64 rows
WGMMA_STAGES = (2, 3, 4)


WGMMA_BASE_REGISTERS = 48          # per thread besides the BN/2 accumulators (estimate; ptxas reports)
WGMMA_FILL_REGISTERS = 40          # a register-staged fill's FILL_UNROLL x 8 floats and addresses (estimate)


def wgmma_candidates(te: TensorExpr, view: GemmView, target: Target, precision: str) -> list[KernelConfig]:
    """wgmma_gemm configurations on sm_90 (wgmma is sm_90a-only; sm_100+ has its own tcgen05): for
    fp16/bf16 contractions whose operands are TMA-loadable fp16/bf16 tensors or fp32 loads rounded
    to the type (register-staged). Block tiles of 64 or 128 rows (1-2 warpgroups) by 64-256
    columns, k tiles of 64, 2-4 stages (3-4 with a register-staged operand, codegen/wgmma.py),
    within the target's shared memory and registers."""
    elem, ops = _wgmma_operands(te, view, target, precision)
    if ops is None or coordinate_limit(view) is not None:     # declined: see wgmma_declined
        return []
    sizes = io_sizes(te)
    nk = math.ceil(view.K / BK)
    out = []
    for BM in WGMMA_BM:
        if BM > max(64, pow2_ceil(view.M)):
            continue
        for BN in WGMMA_N:
            if BN > max(64, pow2_ceil(view.N)):
                continue
            blocks_mn = view.B * math.ceil(view.M / BM) * math.ceil(view.N / BN)
            for SK in split_k_factors(blocks_mn, nk, target):
                nk_split = math.ceil(nk / SK)
                for S in WGMMA_STAGES:
                    p = WgmmaPlan(elem, BM, BN, S, *ops, tile_bytes(te, view, BM, BN) if SK == 1 else 0, SK)
                    if S > max(2, nk_split) or not stages_allowed(S, nk_split, p.has_vector):
                        continue
                    regs = BN // 2 + WGMMA_BASE_REGISTERS + (WGMMA_FILL_REGISTERS if p.has_vector else 0)
                    if p.shared_bytes > target.shared_per_block or regs > target.max_registers_per_thread \
                            or regs * p.threads > target.registers_per_block:
                        continue
                    w = _wgmma_workload(te, view, sizes, target, elem, p, regs)
                    tiles = (RTile("block", (("m", BM), ("n", BN), ("k", BK))),
                             RTile("warp", (("m", 64), ("n", BN))),            # one warpgroup's tile
                             RTile("thread", (("m", 64), ("n", BN), ("k", 16))))  # one wgmma
                    params = (("elem", elem), ("precision", precision), ("stages", S),
                              ("major_a", "mn" if p.mn_major("a") else "k"),
                              ("major_b", "mn" if p.mn_major("b") else "k"),
                              ("load_a", p.load_a), ("load_b", p.load_b))
                    if SK > 1:
                        params += (("split_k", SK), ("ws_elems", SK * te.output.size))
                    out.append(KernelConfig("wgmma_gemm", tiles, params, w))
    return out


def _wgmma_operands(te: TensorExpr, view: GemmView, target: Target, precision: str):
    """(element type, the operands' shared-memory forms) where wgmma_gemm applies, else (elem, None):
    fp16/bf16 inputs on sm_90 with tensor cores and operands it can stage."""
    elem = MMA_ELEMS.get(precision)
    if elem not in ("float16", "bfloat16") or target.sm_version != 90 or target.tensor_core_tflops(elem) <= 0:
        return elem, None
    return elem, wgmma_operands(te, view, elem)


def wgmma_declined(te: TensorExpr, view: GemmView, target: Target, precision: str) -> str | None:
    """Why a contraction wgmma_gemm would otherwise take gets no wgmma candidates (its extents
    exceed the 32-bit tensor-map coordinates), else None."""
    return None if _wgmma_operands(te, view, target, precision)[1] is None else coordinate_limit(view)


def _wgmma_workload(te, view, sizes, target, elem, p, regs) -> Workload:
    mt, nt, nk = math.ceil(view.M / p.BM), math.ceil(view.N / p.BN), math.ceil(view.K / BK)
    blocks = view.B * mt * nt          # output tiles; each is p.split_k blocks of a slice of K each
    ws, steps = split_k_terms(te, p.split_k, nk, p.stages)
    # a register-staged operand is read as fp32: twice a 16-bit operand's global bytes
    src = {side: 4.0 if p.load(side) == "vector" else 2.0 for side in ("a", "b")}
    loads = blocks * nk * BK * (p.BM * src["a"] + p.BN * src["b"])
    # the copy engine or the threads write each stage once; every warpgroup's wgmma reads its A
    # slice and all of B
    smem = blocks * nk * BK * 2.0 * ((p.BM + p.BN) + p.warpgroups * (64 + p.BN))
    if p.out_tile_bytes:    # the staged epilogue writes and reads the output tile once each
        smem += 2.0 * blocks * p.BM * p.BN * te.output.dtype.itemsize
    vec_rows = (p.BM if p.load_a == "vector" else 0) + (p.BN if p.load_b == "vector" else 0)
    eff = WGMMA_PIPELINE_EFFICIENCY * wgmma_fill_efficiency(target, elem, p.BM, p.BN, vec_rows, p.threads)
    l2_out = sizes[1] + ws if p.split_k > 1 else l2_store_bytes(te, view)
    return Workload(blocks=blocks * p.split_k, threads=p.threads, shared_bytes=p.shared_bytes, registers=regs,
                    flops=2.0 * blocks * p.BM * p.BN * nk * BK, compute_dtype=f"wgmma:{elem}",
                    dram_bytes=dram_bytes(sizes, loads, target) + ws, l2_bytes=loads + l2_out,
                    shared_bytes_moved=smem, ilp=float(p.BN // 8), issue_efficiency=eff,
                    serial_steps=steps)


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    """The kernel of one configuration (a split-K one writes its partial sums to `workspace`)."""
    return render_wgmma_gemm(te, view(te), cfg, prefix, out_value, in_values, workspace)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
