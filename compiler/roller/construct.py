"""rTile construction (Roller): hardware-aligned tiles grown in the order of their reuse score.

For a contraction the block tile (shared memory) grows from the smallest warp-aligned tile along
the axis whose growth saves the most global traffic per byte of footprint (Roller's reuse score
S = dQ / dF), under the target's shared-memory, register and thread limits; every tile on the way
is a candidate. The kinds (rtile.KernelConfig.kind), each rendered by compiler/codegen:

- contractions: "gemm" (SIMT: thread tiles in registers, k steps, 1-2 shared stages);
  "tc_gemm" (mma.sync tensor cores, tf32/fp16/bf16: warp tiles of m16n8 mma tiles, swizzled or
  padded conflict-free shared tiles, 1-4 stages, split-K into an fp32 workspace plus a second
  summing kernel when the output tiles cannot fill the SMs); "wgmma_gemm" (sm_90 warpgroup mma
  with TMA or register-staged operands);
- reductions: "reduce" (how many threads share one output: adaptive thread mapping) and
  "reduce_split" (few long rows: slices reduced by separate blocks, combined by a second kernel);
- elementwise maps: "elementwise" (outputs per thread), "elementwise_vec" (16-byte vectors of
  the contiguous operands) and "transpose" (through a padded shared tile, when the output's fast
  axis reads an input with a large stride).

Every candidate is ranked by the micro-model and the top K are kept. Deterministic: no
randomness, ties broken by a total order on the configuration."""
from __future__ import annotations

import dataclasses
import math

from ..codegen.cuda import MAX_GRID_X
from ..codegen.memory_bound import split_chunk, transpose_tile_bytes
from ..codegen.tiled import ctype_size, gemm_shared_bytes
from ..ir.texpr import Binary, Load, TensorExpr, Unary, walk
from ..targets import Target
from .micro_model import WGMMA_PIPELINE_EFFICIENCY, blocks_per_sm, predict, wgmma_fill_efficiency
from ..analysis.views import MMA_ELEMS, ElementwiseView, GemmView, ReduceView, TcOperand, TransposeView, VectorView, decompose, elementwise_view, gemm_view, reduce_view, sectors_per_request, tc_operand, transpose_view, vector_view, VECTOR_BYTES
from ..ir.tiles import KernelConfig, RTile, Workload

BLOCK_SIZES = (1, 2, 4, 8, 16, 32, 64, 128)
THREAD_SIZES = (1, 2, 4, 8)
K_STEPS = (8, 16, 32)
MIN_THREADS, MAX_THREADS = 32, 512
SECTOR = 32


def pow2_ceil(n: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(1, n))))


def classify(te: TensorExpr):
    """(kind, view) for the tiled kernels, or None when only the naive kernel applies."""
    v = gemm_view(te)
    if v is not None:
        return "gemm", v
    v = reduce_view(te)
    if v is not None:
        return "reduce", v
    v = elementwise_view(te)
    if v is not None:
        return "elementwise", v
    return None


def view_for(te: TensorExpr, kind: str):
    """The view a configuration of `kind` renders from."""
    return {"gemm": gemm_view, "tc_gemm": gemm_view, "wgmma_gemm": gemm_view, "reduce": reduce_view,
            "reduce_split": reduce_view, "elementwise": elementwise_view, "elementwise_vec": vector_view,
            "transpose": transpose_view}[kind](te)


def construct_rtiles(te: TensorExpr, target: Target, k: int = 8, precision: str | None = None) -> list[KernelConfig]:
    """The top-k configurations for `te` on `target`, best predicted first (empty when none apply).

    With precision tf32/fp16/bf16, contractions also get tensor-core candidates (fp32 never does).
    None: fp16/bf16 when the precision stage rounded both operands to that type, else fp32 (tf32
    leaves no trace in the expression: callers pass the kernel's config["precision"])."""
    c = classify(te)
    if c is None:
        return []
    kind, view = c
    if precision is None:
        precision = inferred_precision(te, view) if kind == "gemm" else "fp32"
    if kind == "gemm":
        cands = gemm_candidates(te, view, target) + tc_candidates(te, view, target, precision) \
            + wgmma_candidates(te, view, target, precision)
        if not cands:       # no aligned tile fits: reduce it like any other reduction
            view = reduce_view(te)
            cands = reduce_candidates(te, view, target) if view is not None else []
    elif kind == "reduce":
        cands = reduce_candidates(te, view, target) + split_reduce_candidates(te, view, target)
    else:
        cands = elementwise_candidates(te, view, target)
        vv, tv = vector_view(te), transpose_view(te, SECTOR)
        if vv is not None:
            cands += vector_candidates(te, vv, target)
        if tv is not None:
            cands += transpose_candidates(te, tv, target)
    # equal predicted times (the same bound level): the one that issues less work first
    scored = sorted(((p.us, p.compute_us, _order(cfg), cfg) for cfg in cands for p in (predict(cfg, target),)),
                    key=lambda x: (x[0], x[1], x[2]))
    out, seen = [], set()
    for us, _, order, cfg in scored:
        if math.isinf(us) or order in seen:
            continue
        seen.add(order)
        out.append(cfg)
        if len(out) == k:
            break
    return out


def _order(cfg: KernelConfig) -> tuple:
    """A total, process-independent order on configurations (ties in predicted time)."""
    return (cfg.kind, tuple((t.level, t.axes, t.padding) for t in cfg.tiles), cfg.params)


# ---- shared helpers ----------------------------------------------------------------------------

def _ops_per_element(e) -> int:
    return max(1, sum(1 for x in walk(e) if isinstance(x, (Binary, Unary))))


def _loads(e) -> int:
    return sum(1 for x in walk(e) if isinstance(x, Load))


def _sizes(te: TensorExpr) -> tuple[int, int, int]:
    """(input bytes, output bytes, largest input item size) of an expression."""
    ins = sum(t.nbytes for t in te.inputs)
    return ins, te.output.nbytes, max([t.dtype.itemsize for t in te.inputs] + [1])


def _dram(sizes: tuple[int, int, int], l2_loads: float, target: Target) -> float:
    """Compulsory bytes; repeated loads also reach DRAM in the measure the inputs overflow L2."""
    ins, outb, _ = sizes
    unique = ins + outb
    spill = max(0.0, 1.0 - target.l2_bytes / max(1, 2 * ins))
    return unique + max(0.0, l2_loads - ins) * spill


# ---- contractions ------------------------------------------------------------------------------

def bank_conflict_ways(addrs_words: list[int], banks: int = 32) -> int:
    """The largest number of distinct words one bank serves for one warp's access."""
    per_bank: dict[int, set] = {}
    for a in addrs_words:
        per_bank.setdefault(a % banks, set()).add(a)
    return max(len(s) for s in per_bank.values()) if per_bank else 1


def _store_padding(rows: int, bk: int, k_fast: bool, words_per_item: int, target: Target) -> int:
    """Smallest padding of a [BK][rows] tile row that makes the loader's stores conflict-free."""
    best = (math.inf, 0)
    for pad in (0, 1, 2, 4):
        ld = rows + pad
        addrs = []
        for lane in range(target.warp_size):
            kk, rr = (lane % bk, lane // bk) if k_fast else (lane // rows, lane % rows)
            addrs.append((kk * ld + rr) * words_per_item)
        ways = bank_conflict_ways(addrs, target.shared_banks)
        if ways < best[0]:
            best = (ways, pad)
    return best[1]


def _loader_sectors(te: TensorExpr, view: GemmView, expr, group, rows: int, bk: int, k_fast: bool,
                    extent: int) -> float:
    """Sectors per warp-wide load of one operand tile, relative to perfectly coalesced loads."""
    base = (extent // 2) // max(1, rows) * rows
    kbase = (view.K // 2) // bk * bk
    envs = []
    for lane in range(32):
        kk, rr = (lane % bk, lane // bk) if k_fast else (lane // rows, lane % rows)
        env = decompose(min(base + rr, extent - 1), group)
        env.update(decompose(min(kbase + kk, view.K - 1), view.k))
        envs.append(env)
    s = sectors_per_request(expr, te.inputs, envs, SECTOR)
    item = te.body.dtype.itemsize if te.body.dtype.itemsize else 4
    ideal = max(1.0, 32 * item / SECTOR)
    return max(1.0, s / ideal) if s else 1.0


def gemm_workload(te: TensorExpr, view: GemmView, bm: int, bn: int, bk: int, tm: int, tn: int, pad_a: int,
                  pad_b: int, stages: int, target: Target, infl_a: float, infl_b: float,
                  sizes: tuple[int, int, int]) -> Workload:
    item = ctype_size(te.body.dtype.compute_ctype)
    M, N, K = view.M, view.N, view.K
    mt, nt, kt = math.ceil(M / bm), math.ceil(N / bn), math.ceil(K / bk)
    blocks = view.B * mt * nt
    threads = (bm // tm) * (bn // tn)
    _, out_bytes, in_item = sizes
    loads = blocks * kt * bk * (bm * infl_a + bn * infl_b) * in_item
    l2 = loads + out_bytes
    smem_moved = blocks * kt * bk * ((bm + bn) * item + threads * (tm + tn) * item)
    regs = (tm * tn + tm + tn) * (2 if item == 8 else 1) + 28
    ilp = tm * tn
    return Workload(blocks=blocks, threads=threads,
                    shared_bytes=gemm_shared_bytes(bm, bn, bk, pad_a, pad_b, stages, item), registers=regs,
                    flops=2.0 * blocks * bm * bn * kt * bk, compute_dtype=te.body.dtype.name,
                    dram_bytes=_dram(sizes, loads, target), l2_bytes=l2, shared_bytes_moved=smem_moved, ilp=ilp,
                    issue_efficiency=ilp / (ilp + tm + tn + 2.0))


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
    return _growth_path(ms, ns, i, j, traffic, footprint, target)


def _growth_path(ms: list[int], ns: list[int], i: int, j: int, traffic, footprint,
                 target: Target) -> list[tuple[int, int]]:
    """Block tiles (ms[i], ns[j]) onward along Roller's growth path: each step doubles the side
    with the best reuse score S = dQ / dF (global traffic saved per shared footprint added) while
    double-buffered shared memory fits; then every tile one step off the path."""
    path = [(ms[i], ns[j])]
    side = []
    while True:
        cur = (ms[i], ns[j])
        steps = []
        for di, dj in ((1, 0), (0, 1)):
            if i + di >= len(ms) or j + dj >= len(ns):
                continue
            nxt = (ms[i + di], ns[j + dj])
            if footprint(*nxt) * 2 > target.shared_per_block:
                continue
            dq = traffic(*cur) - traffic(*nxt)
            df = footprint(*nxt) - footprint(*cur)
            steps.append((-(dq / df), di, dj, nxt))     # best reuse score first; m before n on ties
        if not steps:
            break
        steps.sort()
        _, di, dj, nxt = steps[0]
        side += [s[3] for s in steps[1:]]
        i, j = i + di, j + dj
        path.append(nxt)
    out = []
    for t in path + side:
        if t not in out:
            out.append(t)
    return out


def gemm_candidates(te: TensorExpr, view: GemmView, target: Target) -> list[KernelConfig]:
    item = ctype_size(te.body.dtype.compute_ctype)
    words = max(1, item // 4)
    ks = sorted({min(s, pow2_ceil(view.K)) for s in K_STEPS})
    out = []
    memo: dict = {}
    sizes = _sizes(te)
    for bm, bn in grow_block_tiles(view, item, target):
        for tm in THREAD_SIZES:
            for tn in THREAD_SIZES:
                if bm % tm or bn % tn:
                    continue
                threads = (bm // tm) * (bn // tn)
                if threads % target.warp_size or not MIN_THREADS <= threads <= MAX_THREADS:
                    continue
                for bk in ks:
                    if ("a", bm, bk) not in memo:
                        memo["a", bm, bk] = (
                            _store_padding(bm, bk, view.a_k_fastest, words, target),
                            _loader_sectors(te, view, view.a, view.m, bm, bk, view.a_k_fastest, view.M))
                    if ("b", bn, bk) not in memo:
                        memo["b", bn, bk] = (
                            _store_padding(bn, bk, view.b_k_fastest, words, target),
                            _loader_sectors(te, view, view.b, view.n, bn, bk, view.b_k_fastest, view.N))
                    (pad_a, infl_a), (pad_b, infl_b) = memo["a", bm, bk], memo["b", bn, bk]
                    for stages in (1, 2):
                        if stages == 2 and view.K <= bk:
                            continue
                        w = gemm_workload(te, view, bm, bn, bk, tm, tn, pad_a, pad_b, stages, target,
                                          infl_a, infl_b, sizes)
                        if w.shared_bytes > target.shared_per_block or w.registers > target.max_registers_per_thread:
                            continue
                        wm = tm * max(1, target.warp_size // max(1, bn // tn))
                        wn = tn * min(bn // tn, target.warp_size)
                        tiles = (RTile("block", (("m", bm), ("n", bn), ("k", bk)), (("a", pad_a), ("b", pad_b))),
                                 RTile("warp", (("m", min(wm, bm)), ("n", min(wn, bn)))),
                                 RTile("thread", (("m", tm), ("n", tn), ("k", 1))))
                        out.append(KernelConfig("gemm", tiles, (("stages", stages),), w))
    return out


# ---- reductions --------------------------------------------------------------------------------

def reduce_candidates(te: TensorExpr, view: ReduceView, target: Target) -> list[KernelConfig]:
    R, K = view.R, view.K
    sizes = _sizes(te)
    kmax = pow2_ceil(K)
    n_loads = max(1, _loads(te.body))
    ops = _ops_per_element(te.body)
    out = []
    for tpr in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024):
        if tpr > max(1, kmax) and tpr > 1:
            continue
        for T in ((128, 256) if tpr <= 32 else (tpr,)):
            if T > target.max_threads_per_block:
                continue
            rpb = max(1, T // tpr)
            blocks = math.ceil(R / rpb)
            envs = []
            mid = (R // 2) // rpb * rpb
            for lane in range(32):
                env = decompose(min(mid + lane // tpr, max(R - 1, 0)), view.rows)
                env.update(decompose(min(lane % tpr, K - 1), view.k))
                envs.append(env)
            sectors = sectors_per_request(te.body, te.inputs, envs, SECTOR) or 1.0
            requests = R * math.ceil(K / tpr) * tpr / 32 * n_loads
            l2 = requests * sectors * SECTOR + te.output.nbytes
            item = ctype_size(te.body.dtype.compute_ctype)
            w = Workload(blocks=blocks, threads=T, shared_bytes=(T // 32) * (item + 4) if tpr > 32 else 0,
                         registers=32, flops=float(R * K * ops + R * tpr * 2), compute_dtype=te.body.dtype.name,
                         dram_bytes=_dram(sizes, l2, target), l2_bytes=l2,
                         shared_bytes_moved=blocks * (T // 32) * item * 2 if tpr > 32 else 0.0,
                         ilp=1.0, issue_efficiency=0.5)
            tiles = (RTile("block", (("rows", rpb), ("k", tpr))), RTile("warp", (("rows", max(1, 32 // tpr)), ("k", min(tpr, 32)))),
                     RTile("thread", (("rows", 1), ("k", 1))))
            out.append(KernelConfig("reduce", tiles, (("block_threads", T), ("threads_per_row", tpr)), w))
    return out


SPLIT_THREADS = (256, 512, 1024)
SPLITS = tuple(2 ** e for e in range(1, 12))
SPLIT_MIN_PER_THREAD = 4          # elements each thread reduces at least (else the split is too fine)


def split_reduce_candidates(te: TensorExpr, view: ReduceView, target: Target) -> list[KernelConfig]:
    """Two-pass reductions for rows too few to fill the SMs with one block each: `split_k` slices
    per row reduced by separate blocks into an fp32 workspace, combined by a second kernel."""
    if te.body.dtype.compute_ctype != "float" or view.R >= target.sms:
        return []
    R, K = view.R, view.K
    sizes = _sizes(te)
    n_loads = max(1, _loads(te.body))
    ops = _ops_per_element(te.body)
    out = []
    for T in SPLIT_THREADS:
        if T > target.max_threads_per_block:
            continue
        max_blocks = target.sms * max(1, target.max_threads_per_sm // T) * 4
        for S in SPLITS:
            chunk, slices = split_chunk(K, S)
            if chunk < SPLIT_MIN_PER_THREAD * T or R * slices > max_blocks:
                continue
            envs = []
            mid = (R // 2)
            for lane in range(32):
                env = decompose(mid, view.rows)
                env.update(decompose(min(chunk // 2 + lane, K - 1), view.k))
                envs.append(env)
            sectors = sectors_per_request(te.body, te.inputs, envs, SECTOR) or 1.0
            requests = R * slices * math.ceil(chunk / T) * T / 32 * n_loads
            ws = 4.0 * R * slices
            l2 = requests * sectors * SECTOR + ws
            blocks = R * slices
            w = Workload(blocks=blocks, threads=T, shared_bytes=(T // 32) * 8, registers=32,
                         flops=float(R * K * ops + blocks * T * 2), compute_dtype=te.body.dtype.name,
                         dram_bytes=_dram(sizes, l2 - ws, target) + ws, l2_bytes=l2,
                         shared_bytes_moved=blocks * (T // 32) * 8.0, ilp=1.0, issue_efficiency=0.5)
            tiles = (RTile("block", (("rows", 1), ("k", chunk))), RTile("warp", (("rows", 1), ("k", 32))),
                     RTile("thread", (("rows", 1), ("k", 1))))
            out.append(KernelConfig("reduce_split", tiles,
                                    (("block_threads", T), ("split_k", slices), ("chunk", chunk),
                                     ("ws_elems", R * slices), ("out_bytes", te.output.nbytes)), w))
    return out


# ---- elementwise -------------------------------------------------------------------------------

def _index_instructions(rank: int, loads: int) -> int:
    """Integer instructions per computed element or vector besides the math: the index split
    (a multiply-shift and a subtract per axis), one per access, the loop."""
    return 2 * rank + loads + 1 + 4


def _flow_dtype(te: TensorExpr) -> str:
    return te.output.dtype.name if te.output.dtype.is_float else "int32"


def elementwise_candidates(te: TensorExpr, view: ElementwiseView, target: Target) -> list[KernelConfig]:
    n = view.n
    sizes = _sizes(te)
    group = tuple((f"i{d}", e) for d, e in enumerate(te.output.shape) if e != 1)
    mid = n // 2 // 32 * 32
    envs = [decompose(min(mid + lane, n - 1), group) for lane in range(32)]
    sectors = sectors_per_request(te.body, te.inputs, envs, SECTOR) or 1.0
    n_loads = _loads(te.body)
    ops = _ops_per_element(te.body)
    # one element's loads and store in flight per thread: the bounds check before each step
    # keeps the compiler from issuing the next step's loads early
    inflight = float(sum(x.dtype.itemsize for x in walk(te.body) if isinstance(x, Load)) + te.output.dtype.itemsize)
    out = []
    for T in (128, 256, 512):
        for V in (1, 2, 4, 8):
            per_block = T * V
            blocks = math.ceil(n / per_block)
            cap = target.sms * max(1, target.max_threads_per_sm // T) * 4
            blocks = max(1, min(blocks, cap))
            l2 = math.ceil(n / 32) * n_loads * sectors * SECTOR + te.output.nbytes
            w = Workload(blocks=blocks, threads=T, shared_bytes=0, registers=24 + 4 * V,
                         flops=float(n * (ops + _index_instructions(len(group), n_loads))),
                         compute_dtype=_flow_dtype(te), dram_bytes=_dram(sizes, l2, target), l2_bytes=l2,
                         shared_bytes_moved=0.0, ilp=float(V), issue_efficiency=0.5, bytes_in_flight=inflight)
            tiles = (RTile("block", (("elems", per_block),)), RTile("warp", (("elems", 32 * V),)),
                     RTile("thread", (("elems", V),)))
            out.append(KernelConfig("elementwise", tiles, (("block_threads", T), ("per_thread", V)), w))
    return out


VECTORS_PER_THREAD = (1, 2, 4)


def _sectors_of(offsets_bytes) -> int:
    return len({o // SECTOR for o in offsets_bytes})


def vector_candidates(te: TensorExpr, view: VectorView, target: Target) -> list[KernelConfig]:
    """Vectorised maps: 128-512 threads, 1-4 independent 16-byte vectors per thread and step."""
    n, V = view.n, view.width
    nvec = n // V
    sizes = _sizes(te)
    axes = view.outer + view.group
    mid = (nvec // 2) // 32 * 32
    envs = [decompose(min(mid + lane, nvec - 1) * V, axes) for lane in range(32)]
    # contiguous operands: whole sectors, every byte used; broadcast ones: one load per vector
    uni_sectors = sum(sectors_per_request(ld, te.inputs, envs, SECTOR) or 1.0 for ld in view.uniform)
    loads_item = sum(x.dtype.itemsize for x in walk(te.body) if isinstance(x, Load))
    l2 = (sum(float(n) * te.inputs[ld.arg].dtype.itemsize for ld in view.vector)
          + math.ceil(nvec / 32) * uni_sectors * SECTOR + (n % V) * loads_item + te.output.nbytes)
    ops = _ops_per_element(te.body)
    n_acc = len(view.vector) + len(view.uniform)
    flops = float(n * ops + nvec * _index_instructions(len(axes), n_acc) + (n % V) * _index_instructions(len(axes), n_acc))
    out = []
    for T in (128, 256, 512):
        for U in VECTORS_PER_THREAD:
            inflight = float(U * (VECTOR_BYTES * (len(view.vector) + 1)
                                  + sum(ld.dtype.itemsize for ld in view.uniform)))
            # index and pointer registers as in the scalar kernel, plus 4 per 16-byte vector held
            w = Workload(blocks=1, threads=T, shared_bytes=0, registers=24 + U * 4 * (len(view.vector) + 1),
                         flops=flops, compute_dtype=_flow_dtype(te), dram_bytes=_dram(sizes, l2, target), l2_bytes=l2,
                         shared_bytes_moved=0.0, ilp=float(V * U), issue_efficiency=0.5, bytes_in_flight=inflight)
            # a grid-stride grid of four rounds of the blocks that can be resident
            cap = target.sms * max(1, blocks_per_sm(w, target)) * 4
            w = dataclasses.replace(w, blocks=max(1, min(math.ceil(nvec / (T * U)), cap)))
            tiles = (RTile("block", (("vectors", T * U),)), RTile("warp", (("vectors", 32 * U),)),
                     RTile("thread", (("elems", V * U),)))
            out.append(KernelConfig("elementwise_vec", tiles,
                                    (("block_threads", T), ("vectors_per_thread", U), ("width", V)), w))
    return out


TRANSPOSE_SHAPES = ((32, 128), (32, 256), (64, 256), (64, 512))     # (tile, threads)
TRANSPOSE_PADS = (0, 1, 2, 4)


def transpose_padding(tile: int, words: int, target: Target) -> tuple[int, int]:
    """(padding in elements, worst bank-conflict ways) of a [tile][tile + pad] shared tile written
    with lanes along its rows' index and read with lanes along its columns (by simulation)."""
    best = None
    per_phase = target.warp_size // words        # 8-byte elements: a warp's access is two half-warp phases
    for pad in TRANSPOSE_PADS:
        p = tile + pad
        ways = 1
        for ph in range(words):
            lanes = range(ph * per_phase, (ph + 1) * per_phase)
            write = [lane * p * words + w for lane in lanes for w in range(words)]     # lanes along a
            read = [lane * words + w for lane in lanes for w in range(words)]          # lanes along b
            ways = max(ways, bank_conflict_ways(write, target.shared_banks),
                       bank_conflict_ways(read, target.shared_banks))
        if best is None or ways < best[1]:
            best = (pad, ways)
    return best


def _tile_env(view: TransposeView, a: int, b: int, outer: int, unit) -> dict[str, int]:
    env = decompose(outer, view.outer)
    env.update(decompose(a, view.a))
    env[view.b[0][0]] = b
    env.update({v: 0 for v in unit})
    return env


def transpose_candidates(te: TensorExpr, view: TransposeView, target: Target) -> list[KernelConfig]:
    """Shared-memory transposes: tiles of 32 or 64 square, padded against bank conflicts."""
    from ..analysis.views import distinct_loads
    A, B, O = view.A, view.B, view.outer_size
    n = te.output.size
    sizes = _sizes(te)
    direct = [ld for ld in distinct_loads(te.body) if ld not in view.staged]
    ops = _ops_per_element(te.body)
    rank = len(view.a) + len(view.b) + len(view.outer)
    staged_item = sum(te.inputs[ld.arg].dtype.itemsize for ld in view.staged)
    direct_item = sum(te.inputs[ld.arg].dtype.itemsize for ld in direct) + te.output.dtype.itemsize
    words = max(ctype_size(ld.dtype.compute_ctype) for ld in view.staged) // 4
    out_strides = dict(zip((f"i{d}" for d in range(te.output.rank)), _contiguous(te.output.shape)))
    out = []
    for tile, T in TRANSPOSE_SHAPES:
        if T > target.max_threads_per_block or (tile > 32 and max(A, B) <= 32):
            continue
        pad, ways = transpose_padding(tile, words, target)
        shared = sum(transpose_tile_bytes(view, tile, pad))
        if shared > target.shared_per_block:
            continue
        ta, tb = math.ceil(A / tile), math.ceil(B / tile)
        blocks = ta * tb * O
        if blocks > MAX_GRID_X:          # every tile on grid.x
            continue
        a0, b0 = (ta // 2) * tile, (tb // 2) * tile
        # sectors per element actually moved: staged loads with lanes along a, the rest along b
        lanes_a = [_tile_env(view, a0 + l, b0, O // 2, view.unit) for l in range(32) if a0 + l < A]
        lanes_b = [_tile_env(view, a0, b0 + l, O // 2, view.unit) for l in range(32) if b0 + l < B]
        per_elem = sum(sectors_per_request(ld, te.inputs, lanes_a, SECTOR) / len(lanes_a) for ld in view.staged)
        per_elem += sum(sectors_per_request(ld, te.inputs, lanes_b, SECTOR) / len(lanes_b) for ld in direct)
        store = _sectors_of([sum(env.get(v, 0) * st for v, st in out_strides.items()) * te.output.dtype.itemsize
                             for env in lanes_b])
        per_elem += store / len(lanes_b)
        l2 = n * per_elem * SECTOR
        padded = blocks * tile * tile
        per_thread = tile * tile / T
        w = Workload(blocks=blocks, threads=T, shared_bytes=shared, registers=32 + 2 * int(per_thread),
                     flops=float(n * ops + padded * (_index_instructions(rank, len(view.staged))
                                                     + _index_instructions(rank, len(direct) + 1))),
                     compute_dtype=_flow_dtype(te), dram_bytes=_dram(sizes, l2, target), l2_bytes=l2,
                     shared_bytes_moved=2.0 * n * len(view.staged) * words * 4 * ways,
                     ilp=per_thread, issue_efficiency=0.5,
                     bytes_in_flight=per_thread * max(staged_item, direct_item))
        tiles = (RTile("block", (("a", tile), ("b", tile)), (("tile", pad),)),
                 RTile("warp", (("a", 32), ("b", 1))), RTile("thread", (("a", 1), ("b", 1))))
        out.append(KernelConfig("transpose", tiles, (("block_threads", T), ("tile", tile), ("pad", pad)), w))
    return out


def _contiguous(shape) -> tuple[int, ...]:
    strides, s = [], 1
    for d in reversed(shape):
        strides.append(s)
        s *= d
    return tuple(reversed(strides))


# ---- tensor-core contractions ------------------------------------------------------------------

TC_BLOCK = (16, 32, 64, 128)
TC_WARP = (16, 32, 64)
TC_BK = {"float32": (8, 16, 32), "float16": (16, 32, 64), "bfloat16": (16, 32, 64)}
TC_SPLITS = (2, 4, 8, 16)
TC_PADS = (0, 16, 32, 48)          # bytes: whole 16-byte chunks, so cp.async stays aligned
MMA_ISSUE_SLOTS = 4                # instructions a scheduler may issue per mma at tensor-core peak


def inferred_precision(te: TensorExpr, view: GemmView) -> str:
    """fp16 or bf16 when both operands of the contraction are rounded to that type, else fp32."""
    for p in ("fp16", "bf16"):
        a, b = tc_operand(te, view, "a", MMA_ELEMS[p]), tc_operand(te, view, "b", MMA_ELEMS[p])
        if a is not None and b is not None:
            return p
    return "fp32"


def tc_loader(op: TcOperand, elem: str, k_fast: bool, target: Target) -> tuple[str, str]:
    """(loader kind, shared orientation) of one operand: async, vector or generic; "k" or "r"."""
    from ..codegen.tensor_core import ELEMS
    eb = ELEMS[elem][1]
    if op.direct:
        if target.has_cp_async and op.storage == elem and op.aligned(16 // eb):
            return "async", op.inner
        if elem != "float32" and op.storage == "float32" and op.aligned(4):
            return "vector", op.inner
        return "generic", op.inner
    return "generic", "k" if k_fast else "r"


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
    from ..codegen.tensor_core import ELEMS, smem_tile
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

    return _growth_path(ms, ns, 0, 0, traffic, footprint, target)


def tc_candidates(te: TensorExpr, view: GemmView, target: Target, precision: str) -> list[KernelConfig]:
    """Tensor-core (mma.sync) configurations: block tiles grown by reuse score, warp tiles of m16n8
    mma tiles, k steps of the mma's k, 1-4 shared stages (cp.async on sm_80+), split-K when the
    output tiles cannot fill the SMs. None for fp32, and none where the prelude has no native mma
    of the type (sm_75: m16n8k16 and tf32 are emulated there)."""
    from ..codegen.tensor_core import ELEMS
    elem = MMA_ELEMS.get(precision)
    if elem is None or target.sm_version < 80 or target.tensor_core_tflops(elem) <= 0:
        return []
    _, eb, _, kmma, _ = ELEMS[elem]
    if target.mma_shape(elem) != (16, 8, kmma):
        return []
    a, b = tc_operand(te, view, "a", elem), tc_operand(te, view, "b", elem)
    if a is None or b is None:
        return []
    (load_a, oa), (load_b, ob) = tc_loader(a, elem, view.a_k_fastest, target), tc_loader(b, elem, view.b_k_fastest, target)
    has_async = "async" in (load_a, load_b)
    sizes = _sizes(te)
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
            cost[side] = 8.0 + _ops_per_element(op.source) + 4 * _loads(op.source)
    tiles_memo: dict = {}
    sect_memo: dict = {}
    out = []
    for BM, BN in _tc_block_tiles(view, eb, bks[0], target):
        mt, nt = math.ceil(M / BM), math.ceil(N / BN)
        blocks_mn = view.B * mt * nt
        for WM in TC_WARP:
            for WN in TC_WARP:
                if BM % WM or BN % WN:
                    continue
                warps = (BM // WM) * (BN // WN)
                if warps not in (1, 2, 4, 8):
                    continue
                MI, NI = WM // 16, WN // 8
                for BK in bks:
                    nk = math.ceil(K / BK)
                    ta = _tc_tile(tiles_memo, elem, oa, BM, BK, target)
                    tb = _tc_tile(tiles_memo, elem, ob, BN, BK, target)
                    infl = {}
                    for side, kind, expr, group, rows, k_fast, ext in (
                            ("a", load_a, view.a, view.m, BM, view.a_k_fastest, M),
                            ("b", load_b, view.b, view.n, BN, view.b_k_fastest, N)):
                        if kind != "generic":
                            infl[side] = 1.0
                            continue
                        key = (side, rows, BK)
                        if key not in sect_memo:
                            sect_memo[key] = _loader_sectors(te, view, expr, group, rows, BK, k_fast, ext)
                        infl[side] = sect_memo[key]
                    splits = [1]
                    if blocks_mn < target.sms:
                        splits += [s for s in TC_SPLITS if nk >= 2 * s and blocks_mn * s <= 2 * target.sms]
                    for SK in splits:
                        nk_split = math.ceil(nk / SK)
                        stage_opts = ((2, 3, 4) if nk_split >= 2 else (1,)) if has_async else \
                            ((1, 2) if nk_split >= 2 else (1,))
                        for S in stage_opts:
                            if S > max(1, nk_split):
                                continue
                            shared = S * (ta.stage_bytes + tb.stage_bytes)
                            if shared > target.shared_per_block:
                                continue
                            w = _tc_workload(te, view, sizes, target, elem, BM, BN, BK, MI, NI, warps, SK, shared,
                                             infl, src_item, cost, kmma, eb)
                            pads = tuple((s, t.pad) for s, t in (("a", ta), ("b", tb)) if t.pad)
                            tiles = (RTile("block", (("m", BM), ("n", BN), ("k", BK)), pads),
                                     RTile("warp", (("m", WM), ("n", WN))),
                                     RTile("thread", (("m", 16), ("n", 8), ("k", kmma))))
                            params = [("elem", elem), ("precision", precision), ("stages", S), ("split_k", SK),
                                      ("load_a", load_a), ("load_b", load_b), ("layout_a", oa), ("layout_b", ob),
                                      ("smem", "swizzle" if (ta.swizzle or tb.swizzle) else "pad")]
                            if SK > 1:
                                params.append(("ws_elems", SK * te.output.size))
                            out.append(KernelConfig("tc_gemm", tiles, tuple(params), w))
    return out


def _tc_workload(te, view, sizes, target, elem, BM, BN, BK, MI, NI, warps, SK, shared, infl, src_item, cost,
                 kmma, eb) -> Workload:
    M, N, K = view.M, view.N, view.K
    mt, nt, nk = math.ceil(M / BM), math.ceil(N / BN), math.ceil(K / BK)
    blocks_mn = view.B * mt * nt
    T = 32 * warps
    loads = blocks_mn * nk * BK * (BM * infl["a"] * src_item["a"] + BN * infl["b"] * src_item["b"])
    ws = 2.0 * SK * te.output.size * 4 if SK > 1 else 0.0
    l2 = loads + sizes[1] + ws
    smem = blocks_mn * nk * BK * ((BM + BN) * eb + warps * (MI * 16 + NI * 8) * eb)
    n_ks = BK // kmma
    mma_i = MI * NI * n_ks
    frag_i = (MI + NI / 2) * n_ks if eb == 2 else (MI * 4 + NI * 2) * 2 * n_ks
    loader_i = (BM * BK * cost["a"] + BN * BK * cost["b"]) / T
    eff = min(1.0, MMA_ISSUE_SLOTS * mma_i / (mma_i + frag_i + loader_i + 4.0))
    regs = MI * NI * 4 + MI * 4 + NI * 2 + 40
    return Workload(blocks=blocks_mn * SK, threads=T, shared_bytes=shared, registers=regs,
                    flops=2.0 * blocks_mn * BM * BN * nk * BK, compute_dtype=f"tc:{elem}",
                    dram_bytes=_dram(sizes, loads, target) + ws, l2_bytes=l2, shared_bytes_moved=smem,
                    ilp=float(MI * NI), issue_efficiency=eff)


# ---- Hopper warpgroup contractions (wgmma + TMA) ---------------------------------------------

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
    from ..codegen.wgmma import BK, WGMMA_N, WgmmaPlan, coordinate_limit, stages_allowed
    elem, ops = _wgmma_operands(te, view, target, precision)
    if ops is None or coordinate_limit(view) is not None:     # declined: see wgmma_declined
        return []
    sizes = _sizes(te)
    nk = math.ceil(view.K / BK)
    out = []
    for BM in WGMMA_BM:
        if BM > max(64, pow2_ceil(view.M)):
            continue
        for BN in WGMMA_N:
            if BN > max(64, pow2_ceil(view.N)):
                continue
            for S in WGMMA_STAGES:
                p = WgmmaPlan(elem, BM, BN, S, *ops)
                if S > max(2, nk) or not stages_allowed(S, nk, p.has_vector):
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
                          ("major_a", "mn" if p.mn_major("a") else "k"), ("major_b", "mn" if p.mn_major("b") else "k"),
                          ("load_a", p.load_a), ("load_b", p.load_b))
                out.append(KernelConfig("wgmma_gemm", tiles, params, w))
    return out


def _wgmma_operands(te: TensorExpr, view: GemmView, target: Target, precision: str):
    """(element type, the operands' shared-memory forms) where wgmma_gemm applies, else (elem, None):
    fp16/bf16 inputs on sm_90 with tensor cores and operands it can stage."""
    from ..codegen.wgmma import wgmma_operands
    elem = MMA_ELEMS.get(precision)
    if elem not in ("float16", "bfloat16") or target.sm_version != 90 or target.tensor_core_tflops(elem) <= 0:
        return elem, None
    return elem, wgmma_operands(te, view, elem)


def wgmma_declined(te: TensorExpr, view: GemmView, target: Target, precision: str) -> str | None:
    """Why a contraction wgmma_gemm would otherwise take gets no wgmma candidates (its extents
    exceed the 32-bit tensor-map coordinates), else None."""
    from ..codegen.wgmma import coordinate_limit
    return None if _wgmma_operands(te, view, target, precision)[1] is None else coordinate_limit(view)


def declined(te: TensorExpr, target: Target, precision: str | None = None) -> tuple[str, ...]:
    """The kinds that would apply to `te` but decline it, each with its reason (for the kernel's
    config: why the choice was made among fewer kinds)."""
    c = classify(te)
    if c is None or c[0] != "gemm":
        return ()
    view = c[1]
    if precision is None:
        precision = inferred_precision(te, view)
    why = wgmma_declined(te, view, target, precision)
    return (why,) if why else ()


def _wgmma_workload(te, view, sizes, target, elem, p, regs) -> Workload:
    from ..codegen.wgmma import BK
    mt, nt, nk = math.ceil(view.M / p.BM), math.ceil(view.N / p.BN), math.ceil(view.K / BK)
    blocks = view.B * mt * nt
    # a register-staged operand is read as fp32: twice a 16-bit operand's global bytes
    src = {side: 4.0 if p.load(side) == "vector" else 2.0 for side in ("a", "b")}
    loads = blocks * nk * BK * (p.BM * src["a"] + p.BN * src["b"])
    # the copy engine or the threads write each stage once; every warpgroup's wgmma reads its A
    # slice and all of B
    smem = blocks * nk * BK * 2.0 * ((p.BM + p.BN) + p.warpgroups * (64 + p.BN))
    vec_rows = (p.BM if p.load_a == "vector" else 0) + (p.BN if p.load_b == "vector" else 0)
    eff = WGMMA_PIPELINE_EFFICIENCY * wgmma_fill_efficiency(target, elem, p.BM, p.BN, vec_rows, p.threads)
    return Workload(blocks=blocks, threads=p.threads, shared_bytes=p.shared_bytes, registers=regs,
                    flops=2.0 * blocks * p.BM * p.BN * nk * BK, compute_dtype=f"wgmma:{elem}",
                    dram_bytes=_dram(sizes, loads, target), l2_bytes=loads + sizes[1], shared_bytes_moved=smem,
                    ilp=float(p.BN // 8), issue_efficiency=eff)
