"""Kind `row`: hand-written row kernels: softmax, log-softmax, layer and RMS normalisation over contiguous rows.

Written when their op is lowered (their form follows the op's attributes, not a tensor
expression) and carried as an `ExternSpec`, which the `extern` kind renders.

A row is `n` consecutive elements; the tensor is `rows` such rows. Short rows (n <= WARP_ROW_LIMIT)
get one warp each, several rows per block, reduced with warp shuffles only. Long rows get one
block each: threads stride the row, each warp reduces with shuffles and the per-warp partials meet
in shared memory. Half and bfloat16 inputs accumulate in float, double in double."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..ir.dtypes import DType
from ..codegen.block_function import BLOCK_X, finish_kernel
from ..codegen.cuda import MAX_GRID_X, c_const
from ..codegen.naming import NAME_PLACEHOLDER
from ..ir.kernel import Kernel, KernelParam

ROW_OPS = ("softmax", "logsoftmax", "layernorm", "rmsnorm")
WARP_ROW_LIMIT = 1024       # rows up to this length get one warp each
WARP_ROWS_PER_BLOCK = 4


@dataclass(frozen=True)
class RowOperand:
    """A pointer the row kernel reads or writes: its element type and the graph value it binds."""

    dtype: DType
    value: str


def accumulator_dtype(x: DType) -> DType:
    """The type a row is reduced in: double for double input, float for everything else."""
    return DType.float64 if x is DType.float64 else DType.float32


def default_block_threads(n: int) -> int:
    """Threads per row for long rows: about eight elements per thread, 128..1024 threads."""
    want = max(128, 1 << max(0, math.ceil(math.log2(max(1, math.ceil(n / 8))))))
    return min(1024, want)


def render_row_kernel(op: str, *, rows: int, n: int, x: RowOperand, y: RowOperand,
                      scale: RowOperand | None = None, bias: RowOperand | None = None,
                      mean: RowOperand | None = None, invstd: RowOperand | None = None,
                      epsilon: float = 0.0, affine_index: str = "j",
                      block_threads: int | None = None, warp_per_row: bool | None = None,
                      prefix: str | None = None) -> Kernel:
    """One row kernel: `op` over `rows` rows of `n` contiguous elements of x, written to y.

    `affine_index` is a C expression over `row` and `j` (both long long) that indexes scale and bias
    (per element by default; InstanceNormalization passes `row % C`). mean/invstd, when given, get
    one value per row (layernorm only)."""
    if op not in ROW_OPS:
        raise ValueError(f"unknown row op {op}")
    if rows <= 0 or n <= 0:
        raise ValueError("row kernel needs at least one non-empty row")
    if (mean is not None or invstd is not None) and op != "layernorm":
        raise ValueError("mean/invstd outputs exist only for layernorm")
    if op in ("softmax", "logsoftmax") and (scale is not None or bias is not None):
        raise ValueError(f"{op} takes no scale or bias")
    if op == "rmsnorm" and bias is not None:
        raise ValueError("rmsnorm takes no bias")
    if warp_per_row is None:
        warp_per_row = n <= WARP_ROW_LIMIT
    acc = accumulator_dtype(x.dtype)
    act = acc.ctype
    if warp_per_row:
        threads = 32 * (block_threads // 32 if block_threads else WARP_ROWS_PER_BLOCK)
        rows_per_block = threads // 32
        grid = math.ceil(rows / rows_per_block)
        shared = 0
    else:
        threads = block_threads or default_block_threads(n)
        if threads % 32 or not 32 <= threads <= 1024:
            raise ValueError(f"block_threads must be a multiple of 32 in 32..1024, got {threads}")
        rows_per_block = 1
        grid = rows
        shared = (threads // 32) * acc.itemsize
    if grid > MAX_GRID_X:
        raise ValueError(f"{rows} rows exceed one grid")

    def lit(v: float) -> str:
        return c_const(v, acc)

    kinds = ("sum", "max") if op in ("softmax", "logsoftmax") else ("sum",)
    helper = _reduce_helpers(act, warp_per_row, threads // 32, kinds)
    params: list[tuple[RowOperand, bool, str]] = [(x, False, "x")]
    if scale is not None:
        params.append((scale, False, "scale"))
    if bias is not None:
        params.append((bias, False, "bias"))
    params.append((y, True, "y"))
    if mean is not None:
        params.append((mean, True, "mean_out"))
    if invstd is not None:
        params.append((invstd, True, "invstd_out"))
    sig = ", ".join(f"{'' if out else 'const '}{p.dtype.ctype}* __restrict__ {name}"
                    for p, out, name in params)
    L: list[str] = []
    if warp_per_row:
        L += [f"  const long long row = (long long){BLOCK_X} * {rows_per_block} + (threadIdx.x >> 5);",
              f"  if (row >= {rows}ll) return;  // the whole warp leaves together",
              "  const int tid = threadIdx.x & 31;",
              "  const int nthreads = 32;",
              f"  {act}* part = 0;"]
    else:
        L += ["  BY_SHARED_BUFFER(by_smem);",
              f"  {act}* part = ({act}*)by_smem;",
              f"  const long long row = {BLOCK_X};",
              "  const int tid = threadIdx.x;",
              f"  const int nthreads = {threads};"]
    L += [f"  const {x.dtype.ctype}* xr = x + row * {n}ll;",
          f"  {y.dtype.ctype}* yr = y + row * {n}ll;"]
    loop = f"for (long long j = tid; j < {n}ll; j += nthreads)"
    xj = f"(({act})xr[j])"
    yt = y.dtype.ctype
    if op in ("softmax", "logsoftmax"):
        L += [f"  {act} m = {lit(-math.inf)};",
              f"  {loop} m = by_max(m, {xj});",
              f"  m = {NAME_PLACEHOLDER}_max(m, part);",
              f"  {act} s = {lit(0)};",
              f"  {loop} s += by_exp({xj} - m);",
              f"  s = {NAME_PLACEHOLDER}_sum(s, part);"]
        if op == "softmax":
            L.append(f"  {loop} yr[j] = ({yt})(by_exp({xj} - m) / s);")
        else:
            L += [f"  const {act} ls = by_log(s);",
                  f"  {loop} yr[j] = ({yt})({xj} - m - ls);"]
    elif op == "layernorm":
        L += [f"  {act} s = {lit(0)};",
              f"  {loop} s += {xj};",
              f"  const {act} mu = {NAME_PLACEHOLDER}_sum(s, part) / {lit(n)};",
              f"  {act} q = {lit(0)};",
              f"  {loop} {{ const {act} d = {xj} - mu; q += d * d; }}",
              f"  const {act} var = {NAME_PLACEHOLDER}_sum(q, part) / {lit(n)};",
              f"  const {act} inv = {lit(1)} / by_sqrt(var + {lit(epsilon)});",
              f"  {loop} {{",
              f"    {act} v = ({xj} - mu) * inv;"]
        if scale is not None:
            L.append(f"    v = v * (({act})scale[{affine_index}]);")
        if bias is not None:
            L.append(f"    v = v + (({act})bias[{affine_index}]);")
        L += [f"    yr[j] = ({yt})v;", "  }"]
        if mean is not None or invstd is not None:
            L.append("  if (tid == 0) {")
            if mean is not None:
                L.append(f"    mean_out[row] = ({mean.dtype.ctype})mu;")
            if invstd is not None:
                L.append(f"    invstd_out[row] = ({invstd.dtype.ctype})inv;")
            L.append("  }")
    else:  # rmsnorm
        L += [f"  {act} q = {lit(0)};",
              f"  {loop} {{ const {act} v = {xj}; q += v * v; }}",
              f"  const {act} inv = {lit(1)} / by_sqrt({NAME_PLACEHOLDER}_sum(q, part) / {lit(n)} + {lit(epsilon)});",
              f"  {loop} {{",
              f"    {act} v = {xj} * inv;"]
        if scale is not None:
            L.append(f"    v = v * (({act})scale[{affine_index}]);")
        L += [f"    yr[j] = ({yt})v;", "  }"]
    entry, source = finish_kernel(prefix or f"row_{op}", sig, L, launch_bounds=(threads,), helpers=helper)
    kparams = tuple(KernelParam(p.dtype.ctype, p.value, out) for p, out, _ in params)
    schedule = "row_warp" if warp_per_row else "row_block"
    return Kernel(entry=entry, source=source, params=kparams, grid=(grid, 1, 1), block=(threads, 1, 1),
                  shared_bytes=shared,
                  config=(("schedule", schedule), ("row_op", op), ("block_threads", threads),
                          ("rows", rows), ("row_length", n)))


def _reduce_helpers(act: str, warp_only: bool, warps: int, kinds: tuple[str, ...]) -> str:
    """Device functions `<entry>_sum` and `<entry>_max`: a value reduced over the row's threads."""
    out = []
    for kind in kinds:
        combine = {"sum": "v + o", "max": "by_max(v, o)"}[kind]
        lines = [f"BY_DEVICE {act} {NAME_PLACEHOLDER}_{kind}({act} v, {act}* part) {{",
                 "  for (int d = 16; d > 0; d >>= 1) {",
                 f"    const {act} o = __shfl_xor_sync(0xffffffffu, v, d);",
                 f"    v = {combine};",
                 "  }"]
        if warp_only:
            lines.append("  (void)part;")
        else:
            # Every thread sums the partials in the same order, so all agree bit for bit; the
            # second barrier keeps the next reduction from overwriting partials still being read.
            lines += ["  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;",
                      "  __syncthreads();",
                      "  v = part[0];",
                      f"  for (int w = 1; w < {warps}; ++w) {{ const {act} o = part[w]; v = {combine}; }}",
                      "  __syncthreads();"]
        lines += ["  return v;", "}"]
        out.append("\n".join(lines))
    return "\n".join(out)
