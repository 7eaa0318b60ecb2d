"""TopK over long rows: a radix select, then only the K chosen ranked among themselves.

TopK's first form (ops/reduce.py) ranks every element against every other of its row: n^2
comparisons, nothing for a router over 64 experts, far too many for a detector's 8400 x 80
flattened scores or a sampler's vocabulary. Here, per row:

1. `topk_select` (a block per row, or per segment of a row): the K-th best key found digit by
   digit, 8 bits a pass (a histogram in shared memory of the keys that match the digits found so
   far, then the digit where the count from the top reaches what is still wanted); a pass stops
   early once every key of the chosen digit is taken. Then one pass in element order gathers the
   keys above the threshold and the first of the keys equal to it (ties to the lower index, as
   ONNX's reference), by a ballot per warp, into K slots; slots past the real count hold fillers
   (the lowest key, the index N).
   A row much longer than K is cut into S segments, each selecting its own K (the true top K
   is among their union), and the same kernel selects K again from the S x K candidates. A row of
   hundreds of thousands (a detector level's anchors x classes) is priced with two merges too:
   S1 segments, their S1 x K candidates cut into S2 segments selected again, then K from the
   S2 x K (each block's keys about (n K^2)^(1/3) where one merge reads about sqrt(n K) twice;
   RetinaNet's first level, 1.3 million scores and K = 1000: 115.5 us predicted against 179.5).
2. `topk_cand_rank` / `topk_cand_index`: tensor expressions ranking the K candidates among themselves, by
   key and then index (K^2 comparisons across the grid), and writing the index at its rank; the
   values are gathered from the input by the caller (ops/reduce.py).

Keys are the elements' bits as unsigned integers ordered as the values are (the sign flipped, a
negative's bits inverted; -0.0 as +0.0 and every NaN as one NaN above +inf, numpy's order), then
inverted for the smallest: 32 bits for types up to 4 bytes, 64 for 8-byte ones. The lowering
prices this form against the ranks (LowerCtx.cheapest); `--disable radix_topk` keeps the ranks."""
from __future__ import annotations

import math

from ..codegen.block_function import BLOCK_X, finish_kernel
from ..codegen.naming import NAME_PLACEHOLDER
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.kernel import Kernel, KernelParam
from ..ir.texpr import Reduce, TensorExpr, Var, binary, const, load, logical_and, logical_or, out_vars, select
from .recurrence_kernels import ONE_SM_ROWS_GBPS
from .registry import LowerCtx

_T = 256          # threads of a select block (a row or a segment)
_T_MERGE = 1024   # threads of a merge block (a row's candidates, one block a row: as wide as a block goes)
_UNROLL = 8       # keys each thread loads before using any: the loads of a step in flight together
MIN_AXIS = 1024   # shorter rows are ranked: n^2 comparisons across the grid cost less than the passes
_FILL_KEY = "(-9223372036854775807ll - 1)"


def key_bits(dt: DType) -> int:
    return 64 if dt.itemsize == 8 else 32


def two_merges(n: int, k: int) -> tuple[int, int] | None:
    """(S1, S2): a row of n cut into S1 segments, their S1 x K candidates into S2, then K from the
    S2 x K: each block's keys about (n K^2)^(1/3), where one merge reads sqrt(n K) (None where S2
    would be one, or S1 out of 2..256)."""
    if k <= 0:
        return None
    x = (n * k * k) ** (1 / 3)
    s1, s2 = min(256, round(n / x)), round(x / k)
    return (s1, s2) if s1 >= 2 and s2 >= 2 else None


def segments(n: int, k: int) -> int:
    """How many segments a row of n is cut into so that selecting K from each, then K from their
    S x K candidates, reads the least: S = sqrt(n / K), at most 256 (1: the row whole)."""
    if k <= 0 or n < 4 * k:
        return 1
    return max(1, min(256, round(math.sqrt(n / k))))


def _key_helper(dt: DType, largest: bool) -> str:
    """`<kernel>_key(v)`: the order-preserving unsigned key of an element (inverted for the smallest)."""
    flip = "" if largest else "~"
    if dt is DType.float64:
        body = ["  union { double d; unsigned long long u; } c; c.d = v;",
                "  unsigned long long u = c.u;",
                "  if ((u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) u = 0x7ff8000000000000ull;   // one NaN",
                "  if ((u & 0x7fffffffffffffffull) == 0ull) u = 0ull;                                   // -0 as +0",
                f"  return {flip}((u >> 63) ? ~u : (u | 0x8000000000000000ull));"]
        arg = "double v"
    elif dt.is_float:
        body = ["  unsigned int u = by_f2u((float)v);",
                "  if ((u & 0x7fffffffu) > 0x7f800000u) u = 0x7fc00000u;   // one NaN",
                "  if ((u & 0x7fffffffu) == 0u) u = 0u;                     // -0 as +0",
                f"  return (unsigned long long)({flip}((u >> 31) ? ~u : (u | 0x80000000u)));"]
        arg = f"{dt.ctype} v"
    elif dt.itemsize == 8:
        sign = " ^ 0x8000000000000000ull" if dt.is_signed else ""
        body = [f"  return {flip}((unsigned long long)v{sign});"]
        arg = f"{dt.ctype} v"
    else:
        # widened to 32 bits keeping the order: a signed type through int, its sign bit flipped
        wide = "(unsigned int)(int)v ^ 0x80000000u" if dt.is_signed else "(unsigned int)v"
        body = [f"  return (unsigned long long)({flip}({wide}));"]
        arg = f"{dt.ctype} v"
    return "\n".join([f"BY_DEVICE unsigned long long {NAME_PLACEHOLDER}_key({arg}) {{", *body, "}"]) + "\n"


def _prefix_helper(threads: int) -> str:
    """`<kernel>_prefix(flag, warp_total, &total)`: how many threads before this one (in thread
    order) have `flag` set, and how many in the block: a ballot per warp, the warps' counts in
    shared memory."""
    return "\n".join([
        f"BY_DEVICE int {NAME_PLACEHOLDER}_prefix(bool flag, int* warp_total, long long* total) {{",
        "  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;",
        "  const unsigned votes = __ballot_sync(0xffffffffu, flag);",
        "  if (lane == 0) warp_total[warp] = __popc(votes);",
        "  __syncthreads();",
        "  int at = __popc(votes & ((1u << lane) - 1u)), all = 0;",
        f"  for (int w = 0; w < {threads // 32}; ++w) {{ at += w < warp ? warp_total[w] : 0; all += warp_total[w]; }}",
        "  __syncthreads();   // warp_total is the next call's",
        "  *total = all;",
        "  return at;",
        "}"]) + "\n"


def _select_body(*, threads: int, length: int, seg: int, per_row: int, kcap: int, bits: int, read: list[str],
                 wanted: str, end: str, key_out: str, index_of: str, fill_index: int) -> list[str]:
    """The select kernel's body: block b takes segment b % per_row of row b / per_row (`length`
    keys, `seg` a segment) and writes its `wanted` best (min(K, its real keys)) to slots
    [b * kcap, b * kcap + kcap): out_key (`key_out`, the key u as a signed integer) and out_idx
    (`index_of`, of the position p); the slots past them the lowest key and `fill_index`. `read`
    are lines setting `ok` and `u` (the key) of position p of the row, `end` the row's real length."""
    return [
        f"  constexpr long long L = {length}, SEG = {seg}, S = {per_row}, KCAP = {kcap}, T = {threads}, U = {_UNROLL};",
        f"  const long long b = {BLOCK_X}, row = b / S, lo = (b % S) * SEG;",
        "  BY_SHARED_BUFFER(smem);",
        "  unsigned int* hist = (unsigned int*)smem;                  // a count per digit",
        "  long long* pick = (long long*)(smem + 256 * 4);            // the chosen digit, the counts above it and at it",
        "  int* warp_total = (int*)(smem + 256 * 4 + 3 * 8);          // a count per warp (the prefix helper's)",
        f"  const long long end = by_min(lo + SEG, {end});",
        f"  const long long need_all = by_max(0ll, by_min({wanted}, end - lo));",
        "  // 1. the threshold: the keys above it and the first `need` equal to it are the best need_all",
        "  unsigned long long prefix = 0ull, mask = 0ull;",
        "  long long need = need_all;",
        f"  for (int shift = {bits - 8}; shift >= 0 && need > 0; shift -= 8) {{",
        "    for (int d = threadIdx.x; d < 256; d += T) hist[d] = 0u;",
        "    __syncthreads();",
        "    for (long long p0 = lo + threadIdx.x; p0 < end; p0 += T * U) {",
        "      unsigned long long us[U];",
        "      bool oks[U];",
        "#pragma unroll",
        "      for (int q = 0; q < U; ++q) {",
        "        const long long p = p0 + q * T;",
        "        bool ok = p < end;",
        "        unsigned long long u = 0ull;",
        *("        " + line for line in read),
        "        us[q] = u; oks[q] = ok;",
        "      }",
        "#pragma unroll",
        "      for (int q = 0; q < U; ++q)",
        "        if (oks[q] && (us[q] & mask) == prefix) atomicAdd(&hist[(us[q] >> shift) & 255ull], 1u);",
        "    }",
        "    __syncthreads();",
        "    if (threadIdx.x == 0) {",
        "      long long above = 0;",
        "      int d = 255;",
        "      while (d > 0 && above + (long long)hist[d] < need) { above += hist[d]; --d; }",
        "      pick[0] = d; pick[1] = above; pick[2] = hist[d];",
        "    }",
        "    __syncthreads();",
        "    prefix |= (unsigned long long)pick[0] << shift;",
        "    mask |= 255ull << shift;",
        "    need -= pick[1];",
        "    const bool all_taken = pick[2] == need;",
        "    __syncthreads();   // pick read by all before the next pass writes it",
        "    if (all_taken) break;   // every key of this digit is taken: no tie left to break",
        "  }",
        "  // 2. the chosen keys gathered in element order, ties to the lower index",
        "  long long* dst_key = out_key + b * KCAP;",
        "  long long* dst_idx = out_idx + b * KCAP;",
        "  long long out = 0, ties = 0;",
        "  for (long long p0 = lo; p0 < end && out < need_all; p0 += T * U) {",
        "    unsigned long long us[U];",
        "    bool oks[U];",
        "#pragma unroll",
        "    for (int q = 0; q < U; ++q) {",
        "      const long long p = p0 + q * T + threadIdx.x;",
        "      bool ok = p < end;",
        "      unsigned long long u = 0ull;",
        *("      " + line for line in read),
        "      us[q] = u; oks[q] = ok;",
        "    }",
        "    for (int q = 0; q < U; ++q) {",
        "      const long long p = p0 + q * T + threadIdx.x;",
        "      const unsigned long long top = us[q] & mask;",
        "      const bool above = oks[q] && top > prefix, equal = oks[q] && top == prefix;",
        "      long long n_equal, n_take;",
        f"      const long long tie = ties + {NAME_PLACEHOLDER}_prefix(equal, warp_total, &n_equal);",
        "      const bool take = above || (equal && tie < need);",
        f"      const long long at = out + {NAME_PLACEHOLDER}_prefix(take, warp_total, &n_take);",
        f"      if (take) {{ dst_key[at] = {key_out.format(u='us[q]')}; dst_idx[at] = {index_of}; }}",
        "      out += n_take; ties += n_equal;",
        "    }",
        "  }",
        f"  for (long long q = out + threadIdx.x; q < KCAP; q += T) {{ dst_key[q] = {_FILL_KEY}; dst_idx[q] = {fill_index}ll; }}"]


def emit_radix_topk(ctx: LowerCtx, x: tuple[str, TensorType], yi: tuple[str, TensorType], axis: int,
                    largest: bool, per_row: int, merge_segments: int = 1) -> None:
    """The indices (into `yi`) of the yi.shape[axis] largest (or smallest) elements of x along
    `axis`, ties to the lower index, by a radix select (`per_row` segments a row, then again over
    their candidates when more than one: in `merge_segments` segments, then once more whole, where
    more than one) and the candidates ranked among themselves. Reads K (where a graph input gives
    it) and the real length of a row of run-time length (ops/reduce.py)."""
    (x_name, xt), (yi_name, yt) = x, yi
    n, kcap = xt.shape[axis], yt.shape[axis]
    outer, inner = math.prod(xt.shape[:axis]), math.prod(xt.shape[axis + 1:])
    rows, bits = outer * inner, key_bits(xt.dtype)
    # what bounds the selection: K (a constant, or the input K's value) and the row's real length
    scalars, decl = [], []
    wanted, end = f"{kcap}ll", f"{n}ll"
    if ctx.attr("max_extent") is not None:
        kt = ctx.input(1)
        scalars.append(KernelParam(kt.dtype.ctype, ctx.in_name(1), False))
        decl.append(f"const {kt.dtype.ctype}* __restrict__ k_in")
        wanted = f"by_min((long long)k_in[0], {kcap}ll)"
    real = ctx.run_time_extent(0)
    if real is not None and real[1] == axis:
        scalars.append(KernelParam("long long", real[0], False))
        decl.append("const long long* __restrict__ live")
        end = f"by_min(live[0], {n}ll)"
    cand_t = TensorType(DType.int64, (rows, kcap))
    # a key as the signed integer the ranks compare: a 64-bit one with its top bit flipped
    key_out = "(long long)({u})" if bits == 32 else "(long long)({u} ^ 0x8000000000000000ull)"

    def kernel(prefix: str, params: list[KernelParam], pdecl: list[str], read: list[str], *, length: int, seg: int,
               segs: int, end: str, index_of: str, out_rows: int, item_bytes: int, threads: int) -> tuple[str, str]:
        keys, idx = ctx.temp(TensorType(DType.int64, (out_rows, kcap)), f"{prefix}_keys"), \
            ctx.temp(TensorType(DType.int64, (out_rows, kcap)), f"{prefix}_ids")
        body = _select_body(threads=threads, length=length, seg=seg, per_row=segs, kcap=kcap, bits=bits,
                            read=read, wanted=wanted, end=end, key_out=key_out, index_of=index_of, fill_index=n)
        entry, source = finish_kernel(prefix, pdecl + decl + ["long long* __restrict__ out_key",
                                                              "long long* __restrict__ out_idx"], body,
                                      launch_bounds=(threads,), helpers=_key_helper(xt.dtype, largest) + _prefix_helper(threads))
        # worst case: every pass runs; a step is T x U keys loaded together (one DRAM round trip);
        # a pass has 4 barriers, the gather 4 a sub-chunk (two block-wide prefix counts), U a step
        steps_per_pass = -(-seg // (threads * _UNROLL))
        passes = bits // 8
        steps = steps_per_pass * (passes + 1)
        syncs = 4 * passes + 4 * _UNROLL * steps_per_pass
        ctx.emit_kernel(Kernel(
            entry=entry, source=source,
            params=tuple(params) + tuple(scalars) + (KernelParam("long long", keys, True), KernelParam("long long", idx, True)),
            grid=(out_rows, 1, 1), block=(threads, 1, 1), shared_bytes=256 * 4 + 3 * 8 + 4 * (threads // 32),
            config=(("schedule", prefix), ("sequential_steps", steps),
                    ("flops", out_rows * seg * (passes + 1) * 4),
                    ("rows_bytes_per_step", threads * _UNROLL * item_bytes), ("rows_gbps", ONE_SM_ROWS_GBPS),
                    ("grid_syncs_per_step", 0),
                    ("block_syncs_per_step", -(-syncs // steps)),
                    ("dependent_loads", steps))))
        return keys, idx

    # stage 1: the input's rows (or their segments)
    at = f"(row / {inner}ll * L + p) * {inner}ll + row % {inner}ll" if inner > 1 else "row * L + p"
    read = [f"if (ok) u = {NAME_PLACEHOLDER}_key(x[{at}]);"]
    seg = -(-n // per_row)
    keys, idx = kernel("topk_select", [KernelParam(xt.dtype.ctype, x_name, False)],
                       [f"const {xt.dtype.ctype}* __restrict__ x"], read, length=n, seg=seg, segs=per_row, end=end,
                       # along an inner axis a thread's element is `inner` apart: a sector read for each
                       index_of="p", out_rows=rows * per_row, item_bytes=xt.dtype.itemsize * min(inner, 8), threads=_T)
    # K again from a row's candidate lists (fillers skipped): in segments, then whole (the real
    # candidates lie in index order, so a tie still goes to the lower index)
    merges = () if per_row == 1 else (merge_segments, 1) if merge_segments > 1 else (1,)
    groups = per_row      # candidate lists a row has
    for segs in merges:
        length = groups * kcap
        if bits == 32:   # a filler's key (negative) is below every real one: the key alone tells it
            read = ["const long long key = ok ? cand_key[row * L + p] : -1ll;",
                    "ok = key >= 0;",
                    "if (ok) u = (unsigned long long)key;"]
        else:            # every 64-bit key is some element's: a filler is told by its index
            read = [f"if (ok) ok = cand_idx[row * L + p] < {n}ll;",
                    "if (ok) u = (unsigned long long)cand_key[row * L + p] ^ 0x8000000000000000ull;"]
        keys, idx = kernel("topk_merge", [KernelParam("long long", keys, False), KernelParam("long long", idx, False)],
                           ["const long long* __restrict__ cand_key", "const long long* __restrict__ cand_idx"],
                           read, length=length, seg=-(-length // segs), segs=segs, end=f"{length}ll",
                           index_of="cand_idx[row * L + p]", out_rows=rows * segs, item_bytes=8 if bits == 32 else 16,
                           threads=_T_MERGE if segs == 1 else _T)
        groups = segs
    # the K candidates of a row ranked by key, then index; each index written at its rank
    r, iv = Var("r0"), out_vars(2)
    ck_r, ck_j = load(0, cand_t, (iv[0], r)), load(0, cand_t, iv)
    ci_r, ci_j = load(1, cand_t, (iv[0], r)), load(1, cand_t, iv)
    beats = logical_or(binary("gt", ck_r, ck_j), logical_and(binary("eq", ck_r, ck_j), binary("lt", ci_r, ci_j)))
    rank = ctx.temp(cand_t, "topk_cand_rank")
    ctx.emit(TensorExpr("topk_cand_rank", (cand_t, cand_t), cand_t,
                        select(beats, const(1, DType.int64), const(0, DType.int64)), _sum_over(kcap)),
             [keys, idx], rank)
    ov = out_vars(yt.rank)
    flat = const(0, DType.int64)     # the output's row: its position along the other axes
    for a in range(yt.rank):
        if a != axis:
            flat = flat * xt.shape[a] + ov[a]
    at_r = (flat, r)
    hit = logical_and(binary("eq", load(0, cand_t, at_r), ov[axis]), binary("lt", load(1, cand_t, at_r), n))
    ctx.emit(TensorExpr("topk_cand_index", (cand_t, cand_t), yt, select(hit, load(1, cand_t, at_r), const(0, DType.int64)),
                        _sum_over(kcap)), [rank, idx], yi_name)


def _sum_over(k: int) -> Reduce:
    return Reduce("sum", (("r0", k),))
