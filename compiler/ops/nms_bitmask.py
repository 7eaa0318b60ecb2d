"""NonMaxSuppression over many candidates of one class: the overlap tests as a bit matrix.

The greedy kernel (ops/detection.py) gives each batch and class one block, which sorts its
candidates and walks them one box a step: fine for many classes of a few hundred candidates, but
a detector's postprocess as torchvision writes it (`batched_nms`: every class's boxes offset apart,
one NonMaxSuppression over thousands of them) leaves one block with tens of thousands of steps.
Here the work that does not depend on earlier decisions runs across the grid first:

1. `nms_candidates` (a block per batch and class): the boxes scored above the threshold (and
   below the real number of boxes, when that is known only at run time) gathered in box order
   by a ballot per warp;
2. `nms_rank` (the grid): each candidate's rank among its class's (the candidates with a higher
   score, or an equal score and a lower box: the reference's order), the box index written at
   it. Up to 1024 candidates it is counted, pairwise; beyond, `nms_sort_runs` first sorts runs of
   1024 in shared memory (bitonic) and a rank is the sum over the runs of the entries before the
   candidate, each a binary search of the run staged in shared memory;
3. `nms_mask` (a block per 64x64 tile of ranked candidates, upper triangle only): bit j of row i's
   word set when ranked box j > i overlaps box i by more than the threshold;
4. `nms_scan` (a block per batch and class): the greedy decisions, 64 ranked boxes (a chunk) at a
   time, 8 chunks a batch. A batch starts with one round trip: its rows' words of the batch
   (each from its own chunk on) into shared memory, and, loaded alongside, the words of the batch
   of every box taken before it, ORed into the batch's removed bits. Then per chunk one warp takes
   boxes from its removed bits and own words (a shuffle a taken box: the removed ones are skipped
   by their bits), and the block ORs the taken boxes' words of the batch's later chunks from
   shared memory: no round trip on a chunk's path. The eager scan, priced against it (the
   lowering keeps the cheaper), reads instead the taken rows' later words when a chunk takes a
   box, a round trip each, and 32 chunks' own words at once: fewer round trips where few boxes
   are taken of many chunks. Both stop at the most boxes a class takes (which the import caps at
   the rows the selection's readers read: frontend/selection_caps.py).

The result (each class's taken boxes in order, and their count) is what the greedy kernel leaves
for the placing kernel. The matrix costs batches x classes x n x ceil(n / 64) words of scratch,
so this form is offered only under MASK_BUDGET_BYTES; the lowering prices both and keeps the
cheaper (LowerCtx.cheapest)."""
from __future__ import annotations

from ..codegen.block_function import BLOCK_X, finish_kernel
from ..codegen.naming import NAME_PLACEHOLDER
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.kernel import Kernel, KernelParam
from .recurrence_kernels import ONE_SM_ROWS_GBPS
from .registry import LowerCtx

MASK_BUDGET_BYTES = 256 * 1024 * 1024   # the bit matrix's scratch, at most
_T = 128                                 # threads of the candidates, sort, rank and scan blocks
_RUN = 1024                              # candidates a block sorts in shared memory (8 KiB)
_DIAG_CHUNKS = 32                        # chunks whose own tiles the eager scan loads at once (16 KiB)
_SCAN_BATCH = _T // 16                   # chunks the batched scan loads at once: 16 threads a word (32 KiB)
_PICKED_SHARED = 3072                    # the most taken ranks the batched scan keeps in shared memory


def mask_words(n: int) -> int:
    return -(-n // 64)


def fits(bc: int, n: int) -> bool:
    """Whether the bit matrix of `bc` batches x classes of `n` boxes fits the budget."""
    return bc * n * mask_words(n) * 8 <= MASK_BUDGET_BYTES


def eager_fits(n: int) -> bool:
    """Whether the eager scan's removed bits (a bit a box) fit its shared memory."""
    return _eager_shared_bytes(n) <= 48 * 1024


def _eager_shared_bytes(n: int) -> int:
    # the removed bits, the chunk's taken bits and _DIAG_CHUNKS chunks' own tiles
    return mask_words(n) * 8 + 8 + _DIAG_CHUNKS * 64 * 8


def _batched_shared_bytes(taken_max: int) -> int:
    # a batch's block of words, its removed bits, the chunk's taken bits and (few) the taken ranks
    d = _SCAN_BATCH
    return d * 64 * d * 8 + d * 8 + 8 + (4 * taken_max if taken_max <= _PICKED_SHARED else 0)


def gather_candidates(candidate: str) -> list[str]:
    """C lines gathering the boxes p for which `candidate` holds into key[] (their scores sc[p])
    and id[] (p), in box order, and their number into k: a ballot per warp, the warps' counts in
    warp_total[] (shared memory, a word a warp of the T threads)."""
    return ["  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;",
            "  long long k = 0;",
            "  for (long long p0 = 0; p0 < N; p0 += T) {",
            "    const long long p = p0 + threadIdx.x;",
            f"    const bool is = {candidate};",
            "    const unsigned votes = __ballot_sync(0xffffffffu, is);",
            "    if (lane == 0) warp_total[warp] = __popc(votes);",
            "    __syncthreads();",
            "    int at = __popc(votes & ((1u << lane) - 1u)), total = 0;",
            "    for (int w = 0; w < T / 32; ++w) { at += w < warp ? warp_total[w] : 0; total += warp_total[w]; }",
            "    if (is) { key[k + at] = sc[p]; id[k + at] = p; }",
            "    k += total;",
            "    __syncthreads();   // warp_total is the next run's",
            "  }"]


def bitonic_sort(key: str, id: str, id_type: str, width: str) -> list[str]:
    """C lines sorting `width` (a power of two) entries of key[] (float) and id[] (`id_type`) in
    place by descending key, ties to the lower id: the reference's order. The T threads of the
    block take the pairs of each pass, a barrier between passes."""
    return [f"  for (long long size = 2; size <= {width}; size <<= 1) {{",
            "    for (long long stride = size >> 1; stride > 0; stride >>= 1) {",
            f"      for (long long e = threadIdx.x; e < {width}; e += T) {{",
            "        const long long o = e ^ stride;",
            "        if (o <= e) continue;",
            f"        const float ke = {key}[e], ko = {key}[o];",
            f"        const {id_type} ie = {id}[e], io = {id}[o];",
            "        const bool o_first = ko > ke || (ko == ke && io < ie);",
            "        const bool e_first = ke > ko || (ke == ko && ie < io);",
            f"        if ((e & size) == 0 ? o_first : e_first) {{ {key}[e] = ko; {key}[o] = ke; {id}[e] = io; {id}[o] = ie; }}",
            "      }",
            "      __syncthreads();",
            "    }",
            "  }"]


def emit_bitmask_nms(ctx: LowerCtx, every: tuple[list[KernelParam], list[str]],
                     scalars: tuple[list[KernelParam], list[str]], *, b: int, c: int, n: int,
                     in_range: str, score_min: str, iou: str, limit: str, helper: str,
                     taken: str, counts: str, batched: bool = True) -> None:
    """The five kernels writing `taken` ([b * c, cap] box indices in selection order) and `counts`
    ([b * c]): `every` (params, declarations) are the boxes, scores, real number of boxes and the
    thresholds read at run time, `scalars` the last of them alone (the scan reads only those);
    `in_range` tests a box position p against the real number of boxes, `score_min` is the
    threshold (empty: none), `limit` the most boxes a class takes, `iou` the overlap threshold,
    `helper` the overlap test; `batched`: the scan a batch of chunks a round trip (_scan_batched),
    else a round trip a chunk that takes a box (_scan_eager)."""
    inputs, decl = every
    bc, words = b * c, mask_words(n)
    cand_keys = ctx.temp(TensorType(DType.float32, (bc, n)), "nms_cand_keys")
    cand_ids = ctx.temp(TensorType(DType.int64, (bc, n)), "nms_cand_ids")
    ncand = ctx.temp(TensorType(DType.int64, (bc,)), "nms_candidates")
    order = ctx.temp(TensorType(DType.int64, (bc, n)), "nms_order")
    mask = ctx.temp(TensorType(DType.int64, (bc, n, words)), "nms_mask")
    cap = ctx.out_types[0].shape[0] // bc
    candidate = f"{in_range} && sc[p] > {score_min}" if score_min else in_range

    # 1. the candidates, in box order
    body = [f"  constexpr long long N = {n}, T = {_T};",
            f"  const long long bc = {BLOCK_X};",
            "  BY_SHARED_BUFFER(smem);",
            "  int* warp_total = (int*)smem;",
            "  const float* sc = scores + bc * N;",
            "  float* key = cand_keys + bc * N;",
            "  long long* id = cand_ids + bc * N;",
            *gather_candidates(candidate),
            "  if (threadIdx.x == 0) ncand[bc] = k;"]
    entry, source = finish_kernel("nms_candidates", decl + ["float* __restrict__ cand_keys",
                                                            "long long* __restrict__ cand_ids",
                                                            "long long* __restrict__ ncand"], body,
                                  launch_bounds=(_T,))
    steps = -(-n // _T)
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=tuple(inputs) + (
        KernelParam("float", cand_keys, True), KernelParam("long long", cand_ids, True),
        KernelParam("long long", ncand, True)), grid=(bc, 1, 1), block=(_T, 1, 1), shared_bytes=4 * (_T // 32),
        config=(("schedule", "nms_candidates"), ("sequential_steps", steps), ("flops", bc * n * 4),
                ("rows_bytes_per_step", 0), ("grid_syncs_per_step", 0), ("block_syncs_per_step", 2))))

    # 2. each candidate's rank among its class's, its box index written there
    ranks = _rank_by_counting if n <= _RUN else _rank_by_runs
    ranks(ctx, bc, n, cand_keys, cand_ids, ncand, order)

    # 3. the overlap bits of each ranked candidate against the later ones, a 64x64 tile a block
    body = [f"  constexpr long long N = {n}, W = {words};",
            f"  const long long bc = {BLOCK_X} / (W * W), rb = ({BLOCK_X} / W) % W, cb = {BLOCK_X} % W;",
            "  const long long k = ncand[bc];",
            "  if (cb < rb || rb * 64 >= k || cb * 64 >= k) return;   // nothing later in this tile",
            "  BY_SHARED_BUFFER(smem);",
            "  float* cols = (float*)smem;",
            f"  const float* bx = boxes + (bc / {c}) * N * 4;",
            "  const long long j = cb * 64 + threadIdx.x, i = rb * 64 + threadIdx.x;",
            "  if (j < k) {",
            "    const long long at = order[bc * N + j];",
            "    for (int d = 0; d < 4; ++d) cols[threadIdx.x * 4 + d] = bx[at * 4 + d];",
            "  }",
            "  __syncthreads();",
            "  if (i >= k) return;",
            "  const float* mine = bx + order[bc * N + i] * 4;",
            f"  const float t = {iou};",
            "  unsigned long long bits = 0ull;",
            "  const long long last = by_min(64ll, k - cb * 64);",
            "  for (long long q = 0; q < last; ++q)",
            f"    if (cb * 64 + q > i && {NAME_PLACEHOLDER}_suppress(mine, cols + q * 4, t)) bits |= 1ull << q;",
            "  mask[(bc * N + i) * W + cb] = (long long)bits;"]
    entry, source = finish_kernel("nms_mask", decl + ["const long long* __restrict__ ncand",
                                                      "const long long* __restrict__ order",
                                                      "long long* __restrict__ mask"], body,
                                  launch_bounds=(64,), helpers=helper)
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=tuple(inputs) + (
        KernelParam("long long", ncand, False), KernelParam("long long", order, False),
        KernelParam("long long", mask, True)),
        grid=(bc * words * words, 1, 1), block=(64, 1, 1), shared_bytes=64 * 16,
        # at most every box a candidate: the upper triangle's pairs, an overlap test (about 20
        # operations) each
        config=(("schedule", "nms_mask"), ("flops", bc * (n * n // 2) * 20))))

    # 4. the greedy decisions, a 64-box chunk at a time
    scan = _scan_batched if batched else _scan_eager
    scan(ctx, scalars, bc=bc, n=n, cap=cap, limit=limit, ncand=ncand, order=order, mask=mask, taken=taken,
         counts=counts)


def _decide_chunk(own_word: str, removed_word: str, pad: str) -> list[str]:
    """C lines (indented by `pad`) in which one warp takes chunk c's boxes into `chunk[0]`'s bits:
    lane l holds the own words of the chunk's boxes l and l + 32 (`own_word` with `{lane}`),
    `removed_word` the chunk's removed bits, `kept` and `limit` the boxes taken so far and the most."""
    lines = [
        "if (threadIdx.x < 32) {   // one warp decides the chunk, a step a taken box",
        f"  const unsigned long long m0 = {own_word.format(lane='threadIdx.x')}, "
        f"m1 = {own_word.format(lane='threadIdx.x + 32')};",
        "  const unsigned long long valid = k - c * 64 >= 64 ? ~0ull : (1ull << (k - c * 64)) - 1ull;",
        f"  unsigned long long word = {removed_word}, taken_bits = 0ull;",
        "  long long n_kept = kept;",
        "  // the lowest box neither removed nor passed is taken, and its row removes the later ones it",
        "  // overlaps: a step a taken box (the same in every lane), none for the removed ones",
        "  for (unsigned long long open = valid & ~word; open != 0ull && n_kept < limit; open = valid & ~word) {",
        "    const int q = __ffsll((long long)open) - 1;",
        "    const unsigned long long m = __shfl_sync(0xffffffffu, q < 32 ? m0 : m1, q & 31);",
        "    taken_bits |= 1ull << q; word |= m | ((2ull << q) - 1ull); ++n_kept;   // 2 << 63 is 0: all passed",
        "  }",
        "  if (threadIdx.x == 0) chunk[0] = taken_bits;",
        "}"]
    return [pad + line for line in lines]


def _scan_eager(ctx: LowerCtx, scalars: tuple[list[KernelParam], list[str]], *, bc: int, n: int, cap: int,
                limit: str, ncand: str, order: str, mask: str, taken: str, counts: str) -> None:
    """The decisions chunk by chunk, each chunk that takes a box ORing the taken rows' later words
    into the removed bits (a round trip on the path), the own words of _DIAG_CHUNKS chunks loaded
    together: fewer round trips than batches where few boxes are taken of many chunks."""
    words = mask_words(n)
    body = [f"  constexpr long long N = {n}, W = {words}, CAP = {cap}, T = {_T}, D = {_DIAG_CHUNKS};",
            f"  const long long bc = {BLOCK_X};",
            "  BY_SHARED_BUFFER(smem);",
            "  unsigned long long* removed = (unsigned long long*)smem;   // a bit per ranked box, set once suppressed",
            "  unsigned long long* chunk = removed + W;                  // the chunk's taken boxes",
            "  unsigned long long* diag = chunk + 1;                     // D chunks' own tiles",
            "  const long long k = ncand[bc];",
            f"  const long long limit = {limit};",
            "  for (long long w = threadIdx.x; w < W; w += T) removed[w] = 0ull;",
            "  __syncthreads();",
            "  // every thread counts the taken boxes itself, so the loop's test is the same in all of them",
            "  // whatever the decider warp writes meanwhile",
            "  long long kept = 0;",
            "  for (long long c = 0; c * 64 < k && kept < limit; ++c) {",
            "    if (c % D == 0) {   // the next D chunks' own tiles (each row's bits against its chunk's later",
            "      // boxes), loaded together: one round trip for D chunks, none on a chunk's own path",
            "      for (long long e = threadIdx.x; e < D * 64; e += T) {",
            "        const long long r = c * 64 + e;",
            "        diag[e] = r < k ? (unsigned long long)mask[(bc * N + r) * W + r / 64] : 0ull;",
            "      }",
            "      __syncthreads();",
            "    }",
            *_decide_chunk("diag[(c % D) * 64 + {lane}]", "removed[c]", "    "),
            "    __syncthreads();",
            "    const unsigned long long taken_bits = chunk[0];",
            "    for (int q = threadIdx.x; q < 64; q += T)",
            "      if ((taken_bits >> q) & 1ull)",
            "        taken[bc * CAP + kept + __popcll(taken_bits & ((1ull << q) - 1ull))] = order[bc * N + c * 64 + q];",
            "    // the taken boxes suppress the later chunks' boxes they overlap: a word of the removed bits a",
            "    // thread, its loads of the taken rows independent of one another (one round trip a chunk)",
            "    if (taken_bits != 0ull)",
            "      for (long long w = c + 1 + threadIdx.x; w < W; w += T) {",
            "        const long long* rows = mask + (bc * N + c * 64) * W + w;",
            "        unsigned long long any = 0ull;",
            "        #pragma unroll",
            "        for (int q = 0; q < 64; ++q)",
            "          if ((taken_bits >> q) & 1ull) any |= (unsigned long long)rows[q * W];",
            "        removed[w] |= any;",
            "      }",
            "    kept += __popcll(taken_bits);",
            "    __syncthreads();   // removed is the next chunk's, chunk read by all",
            "  }",
            "  if (threadIdx.x == 0) counts[bc] = kept;"]
    scan_inputs, scan_decl = tuple(scalars[0]), list(scalars[1])
    entry, source = finish_kernel("nms_scan", scan_decl + ["const long long* __restrict__ ncand",
                                                           "const long long* __restrict__ order",
                                                           "const long long* __restrict__ mask",
                                                           "long long* __restrict__ taken",
                                                           "long long* __restrict__ counts"], body,
                                  launch_bounds=(_T,))
    taken_max = min(cap, n)
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=scan_inputs + (
        KernelParam("long long", ncand, False), KernelParam("long long", order, False),
        KernelParam("long long", mask, False), KernelParam("long long", taken, True),
        KernelParam("long long", counts, True)),
        grid=(bc, 1, 1), block=(_T, 1, 1), shared_bytes=_eager_shared_bytes(n),
        # at most min(cap, n) boxes taken, cap the most a class takes: a chunk a step, a warp's
        # dependent shuffle a taken box and one more a chunk, every taken row's later words (half
        # the row on average) read and ORed, each block through its own SM at once; a DRAM round
        # trip on the path per chunk with a box taken (its rows' loads) and per _DIAG_CHUNKS chunks
        # (their own tiles' words)
        config=(("schedule", "nms_scan"), ("sequential_steps", words),
                ("flops", bc * (taken_max * max(words // 2, 1) + words + taken_max)),
                ("dependent_loads", -(-words // _DIAG_CHUNKS) + min(words, taken_max)),
                ("rows_bytes_per_step", -(-taken_max * max(words // 2, 1) * 8 // words)),
                ("rows_gbps", ONE_SM_ROWS_GBPS), ("grid_syncs_per_step", 0), ("block_syncs_per_step", 2),
                ("warp_steps_per_step", 1 + -(-taken_max // words)))))


def _scan_batched(ctx: LowerCtx, scalars: tuple[list[KernelParam], list[str]], *, bc: int, n: int, cap: int,
                  limit: str, ncand: str, order: str, mask: str, taken: str, counts: str) -> None:
    """The decisions a batch of _SCAN_BATCH chunks at a time: one round trip loads the batch's
    block and the earlier taken boxes' words of it, and the chunks are decided from shared memory."""
    words = mask_words(n)
    taken_max = min(cap, n)
    picked_shared = taken_max <= _PICKED_SHARED
    picked_scratch = None if picked_shared else ctx.temp(TensorType(DType.int32, (bc, taken_max)), "nms_picked")
    D = _SCAN_BATCH
    body = [f"  constexpr long long N = {n}, W = {words}, CAP = {cap}, T = {_T}, D = {D}, L = {taken_max};",
            f"  const long long bc = {BLOCK_X};",
            "  BY_SHARED_BUFFER(smem);",
            "  unsigned long long* blk = (unsigned long long*)smem;   // the batch's rows x the batch's words",
            "  unsigned long long* removed = blk + D * 64 * D;        // the batch's removed bits",
            "  unsigned long long* chunk = removed + D;               // the chunk's taken boxes",
            # the ranks of the boxes taken so far: in shared memory, or (many) the block's own scratch
            "  int* picked = " + ("(int*)(chunk + 1);" if picked_shared else "picked_scratch + bc * L;"),
            "  const long long k = ncand[bc];",
            f"  const long long limit = {limit};",
            "  const int w16 = threadIdx.x / 16, s16 = threadIdx.x % 16;   // 16 threads a word of the batch",
            "  long long kept = 0;",
            "  for (long long c0 = 0; c0 * 64 < k && kept < limit; c0 += D) {",
            "    const long long nd = by_min(D, W - c0);",
            "    // the batch's own block (each row's words of the batch from its own chunk on: the later boxes)",
            "    // and the earlier taken boxes' words of the batch: loads independent of one another, one round",
            "    // trip a batch where a word at a time would be one a chunk that takes a box",
            "    for (long long e = threadIdx.x; e < D * 64 * D; e += T) {",
            "      const long long r = e / D, w = e % D, row = c0 * 64 + r;",
            "      blk[e] = w < nd && w >= r / 64 && row < k ? (unsigned long long)mask[(bc * N + row) * W + c0 + w] : 0ull;",
            "    }",
            "    {",
            "      unsigned long long any = 0ull;",
            "      if (w16 < nd)",
            "        for (long long t = s16; t < kept; t += 16) any |= (unsigned long long)mask[(bc * N + picked[t]) * W + c0 + w16];",
            "      for (int o = 8; o > 0; o >>= 1) any |= __shfl_xor_sync(0xffffffffu, any, o);",
            "      if (s16 == 0) removed[w16] = any;",
            "    }",
            "    __syncthreads();",
            "    for (long long cc = 0; cc < nd && (c0 + cc) * 64 < k && kept < limit; ++cc) {",
            "      const long long c = c0 + cc;",
            *_decide_chunk("blk[(cc * 64 + {lane}) * D + cc]", "removed[cc]", "      "),
            "      __syncthreads();",
            "      const unsigned long long taken_bits = chunk[0];",
            "      for (int q = threadIdx.x; q < 64; q += T)",
            "        if ((taken_bits >> q) & 1ull) {",
            "          const long long at = kept + __popcll(taken_bits & ((1ull << q) - 1ull));",
            "          taken[bc * CAP + at] = order[bc * N + c * 64 + q];",
            "          picked[at] = (int)(c * 64 + q);",
            "        }",
            "      if (taken_bits != 0ull) {   // they suppress the batch's later boxes they overlap, from the block",
            "        unsigned long long any = 0ull;",
            "        if (w16 > cc && w16 < nd)",
            "          for (int q = s16; q < 64; q += 16)",
            "            if ((taken_bits >> q) & 1ull) any |= blk[(cc * 64 + q) * D + w16];",
            "        for (int o = 8; o > 0; o >>= 1) any |= __shfl_xor_sync(0xffffffffu, any, o);",
            "        if (s16 == 0 && w16 > cc && w16 < nd) removed[w16] |= any;",
            "      }",
            "      kept += __popcll(taken_bits);",
            "      __syncthreads();   // removed and picked are the next chunk's, chunk read by all",
            "    }",
            "  }",
            "  if (threadIdx.x == 0) counts[bc] = kept;"]
    scan_inputs, scan_decl = tuple(scalars[0]), list(scalars[1])
    extra_decl = [] if picked_shared else ["int* __restrict__ picked_scratch"]
    entry, source = finish_kernel("nms_scan", scan_decl + ["const long long* __restrict__ ncand",
                                                           "const long long* __restrict__ order",
                                                           "const long long* __restrict__ mask",
                                                           "long long* __restrict__ taken",
                                                           "long long* __restrict__ counts"] + extra_decl, body,
                                  launch_bounds=(_T,))
    extra = () if picked_shared else (KernelParam("int", picked_scratch, True),)
    batches = -(-words // D)
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=scan_inputs + (
        KernelParam("long long", ncand, False), KernelParam("long long", order, False),
        KernelParam("long long", mask, False), KernelParam("long long", taken, True),
        KernelParam("long long", counts, True)) + extra,
        grid=(bc, 1, 1), block=(_T, 1, 1), shared_bytes=_batched_shared_bytes(taken_max),
        # at most min(cap, n) boxes taken, cap the most a class takes: a chunk a step, a warp's
        # dependent shuffle a taken box and one more a chunk, and the suppression's four a chunk that
        # takes a box; a batch's block (its rows' words of the batch from their own chunk on: about
        # half) and the earlier taken boxes' words of the batch (half the taken boxes, on average)
        # read through the block's SM; a DRAM round trip on the path per batch (two where the taken
        # ranks are in scratch: read back, then their words)
        config=(("schedule", "nms_scan"), ("sequential_steps", words),
                ("flops", bc * (words * (32 * D + taken_max) + taken_max)),
                ("dependent_loads", batches * (1 if picked_shared else 2)),
                ("rows_bytes_per_step", 64 * (D + 1) // 2 * 8 + taken_max * 4),
                ("rows_gbps", ONE_SM_ROWS_GBPS), ("grid_syncs_per_step", 0), ("block_syncs_per_step", 2),
                ("warp_steps_per_step", -(-(words + taken_max + 4 * min(words, taken_max)) // words)))))


def _rank_by_counting(ctx: LowerCtx, bc: int, n: int, cand_keys: str, cand_ids: str, ncand: str, order: str) -> None:
    """A candidate's rank counted: the candidates with a higher score, or an equal one and a lower
    box, a tile of them staged in shared memory at a time (one kernel; n comparisons a thread)."""
    blocks = -(-n // _T)
    body = [f"  constexpr long long N = {n}, T = {_T}, B = {blocks};",
            f"  const long long bc = {BLOCK_X} / B, i = ({BLOCK_X} % B) * T + threadIdx.x;",
            "  const long long k = ncand[bc];",
            "  if ((i - threadIdx.x) >= k) return;   // the whole block past the candidates",
            "  BY_SHARED_BUFFER(smem);",
            "  float* tile = (float*)smem;",
            "  const float mine = i < k ? cand_keys[bc * N + i] : 0.0f;",
            "  long long rank = 0;",
            "  for (long long j0 = 0; j0 < k; j0 += T) {",
            "    __syncthreads();   // the tile before is read",
            "    tile[threadIdx.x] = j0 + threadIdx.x < k ? cand_keys[bc * N + j0 + threadIdx.x] : 0.0f;",
            "    __syncthreads();",
            "    const long long m = by_min(T, k - j0);",
            "    for (long long q = 0; q < m; ++q) {",
            "      const float key = tile[q];",
            "      rank += (key > mine || (key == mine && j0 + q < i)) ? 1 : 0;",
            "    }",
            "  }",
            "  if (i < k) order[bc * N + rank] = cand_ids[bc * N + i];"]
    entry, source = finish_kernel("nms_rank", ["const float* __restrict__ cand_keys",
                                               "const long long* __restrict__ cand_ids",
                                               "const long long* __restrict__ ncand",
                                               "long long* __restrict__ order"], body, launch_bounds=(_T,))
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=(
        KernelParam("float", cand_keys, False), KernelParam("long long", cand_ids, False),
        KernelParam("long long", ncand, False), KernelParam("long long", order, True)),
        grid=(bc * blocks, 1, 1), block=(_T, 1, 1), shared_bytes=4 * _T,
        # at most every box a candidate: a comparison (a few operations) per pair
        config=(("schedule", "nms_rank"), ("flops", bc * n * n * 4))))


def _rank_by_runs(ctx: LowerCtx, bc: int, n: int, cand_keys: str, cand_ids: str, ncand: str, order: str) -> None:
    """A candidate's rank from runs of _RUN candidates sorted in shared memory: the sum over the runs
    of the entries before it, each found by a binary search of the run staged in shared memory
    (two kernels; n / _RUN runs of log2(_RUN) steps a thread, where counting takes n steps)."""
    run = _RUN
    runs, passes = -(-n // run), run.bit_length() * (run.bit_length() - 1) // 2
    run_keys = ctx.temp(TensorType(DType.float32, (bc, n)), "nms_run_keys")
    run_pos = ctx.temp(TensorType(DType.int32, (bc, n)), "nms_run_positions")
    body = [f"  constexpr long long N = {n}, T = {_T}, S = {run}, R = {runs};",
            f"  const long long bc = {BLOCK_X} / R, lo = ({BLOCK_X} % R) * S;",
            "  const long long k = ncand[bc];",
            "  if (lo >= k) return;   // the whole block past the candidates",
            "  const long long len = by_min(S, k - lo);",
            "  BY_SHARED_BUFFER(smem);",
            "  float* key = (float*)smem;",
            "  int* pos = (int*)(smem + S * 4);",
            "  for (long long e = threadIdx.x; e < S; e += T) {   // padded with entries that sort last",
            "    key[e] = e < len ? cand_keys[bc * N + lo + e] : -by_inf_f();",
            "    pos[e] = e < len ? (int)(lo + e) : 0x7fffffff;",
            "  }",
            "  __syncthreads();",
            "  // bitonic: by descending score, ties to the lower position (the lower box)",
            *bitonic_sort("key", "pos", "int", "S"),
            "  for (long long e = threadIdx.x; e < len; e += T) {",
            "    run_keys[bc * N + lo + e] = key[e];",
            "    run_pos[bc * N + lo + e] = pos[e];",
            "  }"]
    entry, source = finish_kernel("nms_sort_runs", ["const float* __restrict__ cand_keys",
                                                    "const long long* __restrict__ ncand",
                                                    "float* __restrict__ run_keys",
                                                    "int* __restrict__ run_pos"], body, launch_bounds=(_T,))
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=(
        KernelParam("float", cand_keys, False), KernelParam("long long", ncand, False),
        KernelParam("float", run_keys, True), KernelParam("int", run_pos, True)),
        grid=(bc * runs, 1, 1), block=(_T, 1, 1), shared_bytes=run * 8,
        # the sort's passes one after another, a block barrier each; at most every box a candidate
        config=(("schedule", "nms_sort_runs"), ("sequential_steps", passes),
                ("flops", bc * runs * run * passes * 4), ("rows_bytes_per_step", 0),
                ("grid_syncs_per_step", 0), ("block_syncs_per_step", 1))))

    blocks = -(-n // _T)
    body = [f"  constexpr long long N = {n}, T = {_T}, B = {blocks}, S = {run};",
            f"  const long long bc = {BLOCK_X} / B, i = ({BLOCK_X} % B) * T + threadIdx.x;",
            "  const long long k = ncand[bc];",
            "  if ((i - threadIdx.x) >= k) return;   // the whole block past the candidates",
            "  BY_SHARED_BUFFER(smem);",
            "  float* key = (float*)smem;",
            "  int* pos = (int*)(smem + S * 4);",
            "  const float mine = i < k ? cand_keys[bc * N + i] : 0.0f;",
            "  long long rank = 0;",
            "  for (long long lo = 0; lo < k; lo += S) {",
            "    const long long len = by_min(S, k - lo);",
            "    __syncthreads();   // the run before is read",
            "    for (long long e = threadIdx.x; e < len; e += T) {",
            "      key[e] = run_keys[bc * N + lo + e];",
            "      pos[e] = run_pos[bc * N + lo + e];",
            "    }",
            "    __syncthreads();",
            "    // the run's entries before mine (a higher score, or an equal one at a lower position) are",
            "    // a prefix of it: its length by binary search",
            "    long long a = 0, z = len;",
            "    while (a < z) {",
            "      const long long m = (a + z) >> 1;",
            "      if (key[m] > mine || (key[m] == mine && pos[m] < i)) a = m + 1; else z = m;",
            "    }",
            "    rank += a;",
            "  }",
            "  if (i < k) order[bc * N + rank] = cand_ids[bc * N + i];"]
    entry, source = finish_kernel("nms_rank", ["const float* __restrict__ cand_keys",
                                               "const long long* __restrict__ cand_ids",
                                               "const long long* __restrict__ ncand",
                                               "const float* __restrict__ run_keys",
                                               "const int* __restrict__ run_pos",
                                               "long long* __restrict__ order"], body, launch_bounds=(_T,))
    ctx.emit_kernel(Kernel(entry=entry, source=source, params=(
        KernelParam("float", cand_keys, False), KernelParam("long long", cand_ids, False),
        KernelParam("long long", ncand, False), KernelParam("float", run_keys, False),
        KernelParam("int", run_pos, False), KernelParam("long long", order, True)),
        grid=(bc * blocks, 1, 1), block=(_T, 1, 1), shared_bytes=run * 8,
        # at most every box a candidate: a run a step, streamed through each block's SM, then a
        # binary search (a dependent shared-memory read a halving)
        config=(("schedule", "nms_rank"), ("sequential_steps", runs),
                ("flops", bc * n * runs * (run.bit_length() + 1) * 4), ("rows_bytes_per_step", run * 8),
                ("rows_gbps", ONE_SM_ROWS_GBPS), ("grid_syncs_per_step", 0), ("block_syncs_per_step", 2),
                ("warp_steps_per_step", run.bit_length()))))
