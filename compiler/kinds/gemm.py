"""Kind `gemm`: the SIMT tiled contraction (codegen/tiled.py renders it).

Thread tiles of outputs in registers, k steps through 1-2 shared-memory stages (two: the next k
tile is prefetched into registers). The block tile grows from the smallest warp-aligned tile along
Roller's growth path (roller/construct.py); each operand's shared tile row is padded so that the
loader's stores conflict least, keeping rows 16-byte aligned where a thread reads its fragment in
16-byte vectors (codegen/tiled.py gemm_vector_reads): the model counts those reads as one issue
slot per 4 values."""
from __future__ import annotations

import functools
import math
from typing import Iterable, Iterator

from ..analysis.views import GemmView, gemm_view, inferred_precision
from ..codegen.tiled import VEC, ctype_size, gemm_shared_bytes, gemm_vector_reads, render_gemm, vector_stores
from ..roller.construct import bank_conflict_ways, dram_bytes, growth_path, io_sizes, loader_sectors, pow2_ceil
from ..roller.micro_model import sm_rate
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, RTile, Workload, serial_steps
from ..targets import Target
from ._tiled import one_stage, render_tiled
from .tc_gemm import split_k_factors, split_k_terms

NAME = "gemm"
TIER = 0            # contractions (kinds/__init__.py TIERS)

BLOCK_SIZES = (1, 2, 4, 8, 16, 32, 64, 128)
THREAD_SIZES = (1, 2, 4, 8)
K_STEPS = (8, 16, 32)
MIN_THREADS, MAX_THREADS = 32, 512


def view(te: TensorExpr) -> GemmView | None:
    return gemm_view(te)


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a contraction")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else gemm_candidates(te, v, target, split=splits_k(te, v, precision))


def lower_bound(te: TensorExpr, target: Target, precision: str | None = None) -> float:
    """Microseconds no candidate of this kind is predicted below (roller/construct.py asks for its
    candidates only where they could place): the longest of the contraction's FLOPs at the SMs'
    whole SIMT rate, its compulsory bytes at DRAM's whole bandwidth and, unsplit, the k loop's
    round trips at the largest k step, with the shortest latency term (half a DRAM round trip).
    Each candidate's workload counts at least those FLOPs (whole tiles), those bytes
    (`dram_bytes`) and those k tiles, and the micro-model divides them by at most those rates."""
    v = view(te)
    if v is None:
        return math.inf
    rate, _ = sm_rate(te.body.dtype.name, target)
    ins, outb, _ = io_sizes(te)
    flops = 2.0 * v.B * v.M * v.N * v.K
    levels = [flops / (target.sms * rate), (ins + outb) / (target.dram_gbps * 1e3)]
    if not splits_k(te, v, precision):      # every candidate walks all of K, a k step at a time
        k_tiles = math.ceil(v.K / min(max(K_STEPS), pow2_ceil(v.K)))
        levels.append(max(0.0, serial_steps(k_tiles, 2) - 1.0) * target.l2_latency_ns * 1e-3)
    return max(levels) + 0.5 * target.dram_latency_ns * 1e-3


def splits_k(te: TensorExpr, v: GemmView, precision: str | None = None) -> bool:
    """Whether the kind offers split-K for the contraction: where it computes in exact fp32, which
    no tensor-core kind takes. At tf32, fp16 and bf16 tc_gemm and wgmma_gemm split K themselves;
    a split SIMT kernel there would only compete with them at sizes where both sit at the
    micro-model's latency floor. An integer contraction splits exactly, also where the imma
    stage marks it `int8` (the SIMT kernel stays a candidate beside the integer mma)."""
    return (precision or inferred_precision(te, v)) in ("fp32", "int8")


PADS = (0, 1, 2, 4)
VECTOR_PADS = (0, 4, 8, 12)     # keep tile rows 16-byte aligned for the fragments' vector reads


@functools.lru_cache(maxsize=4096)
def _store_padding(rows: int, bk: int, k_fast: bool, words_per_item: int, target: Target,
                   pads: tuple[int, ...] = PADS) -> int:
    """The padding of a [BK][rows] tile row, among `pads`, whose loader stores conflict least
    (remembered: every contraction of a model asks of the same few tile shapes)."""
    best = (math.inf, 0)
    for pad in pads:
        ld = rows + pad
        addrs = []
        for lane in range(target.warp_size):
            kk, rr = (lane % bk, lane // bk) if k_fast else (lane // rows, lane % rows)
            addrs.append((kk * ld + rr) * words_per_item)
        ways = bank_conflict_ways(addrs, target.shared_banks)
        if ways < best[0]:
            best = (ways, pad)
    return best[1]


def gemm_workloads(te: TensorExpr, view: GemmView, bm: int, bn: int, bk: int, tm: int, tn: int, pad_a: int,
                   pad_b: int, target: Target, infl_a: float, infl_b: float, sizes: tuple[int, int, int],
                   forms: Iterable[tuple[int, int]], vec: tuple[bool, bool]) -> Iterator[tuple[int, int, Workload]]:
    """The micro-model's (stages, split, workload) of one tiling in each of its `forms`: `split`
    slices of K, each a block of its own, whose partial tiles the last block of each tile sums
    (split-K, as tc_gemm's). What the forms share is computed once (the search prices thousands);
    `vec`: gemm_vector_reads of the tiling."""
    item = ctype_size(te.body.dtype.compute_ctype)
    M, N, K = view.M, view.N, view.K
    mt, nt, kt = math.ceil(M / bm), math.ceil(N / bn), math.ceil(K / bk)
    blocks = view.B * mt * nt
    threads = (bm // tm) * (bn // tn)
    _, out_bytes, in_item = sizes
    loads = blocks * kt * bk * (bm * infl_a + bn * infl_b) * in_item
    dram = dram_bytes(sizes, loads, target)
    smem_moved = blocks * kt * bk * ((bm + bn) * item + threads * (tm + tn) * item)
    flops = 2.0 * blocks * bm * bn * kt * bk
    ilp = tm * tn
    reads = (tm // VEC if vec[0] else tm) + (tn // VEC if vec[1] else tn)     # shared loads per k step
    issue = ilp / (ilp + reads + 2.0)
    dtype = te.body.dtype.name
    for stages, split in forms:
        _, steps = split_k_terms(te, split, kt, stages)
        # the slices' partial tiles (whole tiles: a ragged edge's too), written and read back
        ws = 2.0 * split * blocks * bm * bn * 4 if split > 1 else 0.0
        # the k tile prefetched into registers while the current one is computed (two stages)
        prefetch = math.ceil(bm * bk / threads) + math.ceil(bn * bk / threads) if stages == 2 else 0
        regs = (tm * tn + tm + tn + prefetch) * (2 if item == 8 else 1) + 28
        yield stages, split, Workload(
            blocks=blocks * split, threads=threads,
            shared_bytes=gemm_shared_bytes(bm, bn, bk, pad_a, pad_b, stages, item), registers=regs,
            flops=flops, compute_dtype=dtype, dram_bytes=dram, l2_bytes=loads + out_bytes + ws,
            shared_bytes_moved=smem_moved, ilp=ilp, issue_efficiency=issue, serial_steps=steps)


def grow_block_tiles(view: GemmView, item: int, target: Target) -> list[tuple[int, int]]:
    """Block tiles (BM, BN) along Roller's growth path, plus every tile one step off it."""
    # innermost (N) side: at least one memory transaction wide when the axis allows it; tiny
    # problems may overhang their extent so that a block still holds a whole warp
    n_min = min(pow2_ceil(view.N), max(1, target.transaction_bytes // item))
    ns = [s for s in BLOCK_SIZES if n_min <= s <= max(pow2_ceil(view.N), 8)]
    ms = [s for s in BLOCK_SIZES if s <= max(pow2_ceil(view.M), MIN_THREADS // ns[-1], 1)]
    K = view.K

    def traffic(bm, bn):            # global loads of the whole grid (per batch)
        return math.ceil(view.M / bm) * math.ceil(view.N / bn) * (bm + bn) * K * item

    def footprint(bm, bn):          # shared memory of one block at the smallest k step
        return (bm + bn) * min(K_STEPS[0], K) * item

    i, j = 0, 0
    # start from the smallest tile that still gives one warp of threads at the largest thread tile
    while ms[i] * ns[j] < MIN_THREADS and (i + 1 < len(ms) or j + 1 < len(ns)):
        if j + 1 < len(ns) and (ns[j] <= ms[i] or i + 1 >= len(ms)):
            j += 1
        else:
            i += 1
    return growth_path(ms, ns, i, j, traffic, footprint, target)


def gemm_candidates(te: TensorExpr, view: GemmView, target: Target, split: bool = True) -> list[KernelConfig]:
    """The configurations Roller ranks; with `split`, also split-K ones where the output tiles
    cannot fill the SMs (fp32 or int32 accumulation: the partial sums go through the 4-byte slots
    of the workspace, an int32's bits stored as they are, so an integer contraction sums exactly)."""
    item = ctype_size(te.body.dtype.compute_ctype)
    words = max(1, item // 4)
    ks = sorted({min(s, pow2_ceil(view.K)) for s in K_STEPS})
    out = []
    sizes = io_sizes(te)
    floats = te.body.dtype.compute_ctype == "float"
    b_vector_ok = floats and vector_stores(te, view)

    @functools.cache
    def sectors(side: str, rows: int, bk: int) -> float:
        """The loader's sectors per request of one operand's tile (loader_sectors)."""
        k_fast, expr, group, extent = ((view.a_k_fastest, view.a, view.m, view.M) if side == "a"
                                       else (view.b_k_fastest, view.b, view.n, view.N))
        return loader_sectors(te, view, expr, group, rows, bk, k_fast, extent)

    def operand(side: str, rows: int, bk: int, pads: tuple[int, ...]) -> tuple[int, float]:
        """(store padding, loader sectors) of one operand's tile."""
        k_fast = view.a_k_fastest if side == "a" else view.b_k_fastest
        return _store_padding(rows, bk, k_fast, words, target, pads), sectors(side, rows, bk)

    @functools.cache
    def splits(bm: int, bn: int, bk: int) -> tuple[int, list[int]]:
        blocks_mn = view.B * math.ceil(view.M / bm) * math.ceil(view.N / bn)
        factors = split_k_factors(blocks_mn, math.ceil(view.K / bk), target, waves=True) \
            if split and te.body.dtype.compute_ctype in ("float", "int") else [1]
        return blocks_mn, factors

    vector_reads = functools.cache(lambda tm, tn, lda, ldb: gemm_vector_reads(te, view, tm, tn, lda, ldb))

    for bm, bn in grow_block_tiles(view, item, target):
        for tm in THREAD_SIZES:
            for tn in THREAD_SIZES:
                if bm % tm or bn % tn:
                    continue
                threads = (bm // tm) * (bn // tn)
                if threads % target.warp_size or not MIN_THREADS <= threads <= MAX_THREADS:
                    continue
                pads_a = VECTOR_PADS if floats and tm % VEC == 0 else PADS
                pads_b = VECTOR_PADS if b_vector_ok and tn % VEC == 0 else PADS
                wm = tm * max(1, target.warp_size // max(1, bn // tn))
                wn = tn * min(bn // tn, target.warp_size)
                warp = RTile("warp", (("m", min(wm, bm)), ("n", min(wn, bn))))
                thread = RTile("thread", (("m", tm), ("n", tn), ("k", 1)))
                for bk in ks:
                    (pad_a, infl_a), (pad_b, infl_b) = operand("a", bm, bk, pads_a), operand("b", bn, bk, pads_b)
                    blocks_mn, factors = splits(bm, bn, bk)
                    forms = [(stages, sk) for stages in (1, 2) if stages == 1 or view.K > bk for sk in factors]
                    vec = vector_reads(tm, tn, bm + pad_a, bn + pad_b)
                    block = RTile("block", (("m", bm), ("n", bn), ("k", bk)), (("a", pad_a), ("b", pad_b)))
                    for stages, sk, w in gemm_workloads(te, view, bm, bn, bk, tm, tn, pad_a, pad_b, target,
                                                        infl_a, infl_b, sizes, forms, vec):
                        if w.shared_bytes > target.shared_per_block or w.registers > target.max_registers_per_thread:
                            continue
                        params = (("stages", stages),) if sk == 1 else \
                            (("stages", stages), ("split_k", sk), ("ws_elems", sk * blocks_mn * bm * bn))
                        out.append(KernelConfig("gemm", (block, warp, thread), params, w))
    return out


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    """The kernel of one configuration (the tuner renders its candidates through the kind's `render`)."""
    return render_gemm(te, view(te), cfg, prefix, out_value, in_values, workspace=workspace)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
