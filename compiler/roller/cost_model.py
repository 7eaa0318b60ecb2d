"""Fallback time estimate for kernels the roller stage did not tile: the larger of a kernel's
compulsory DRAM traffic and its compute at the SIMT share its grid occupies.

Tiled kernels carry the micro-model's prediction (micro_model.py: per-level traffic, occupancy
and waves) as config["predicted_us"]; the report (report.make_report) uses this estimate only
for the others (naive and hand-written kernels), and adds LAUNCH_US per launch for all, so
every kernel has a prediction to check against measurements."""
from __future__ import annotations

import json
import math

from ..analysis.views import gemm_view
from ..ir.kernel import Kernel
from ..ir.texpr import TensorExpr, fold_flops
from ..targets import Target
from .micro_model import resident_blocks

LAUNCH_US = 2.0  # host launch overhead per kernel, typical for a plain launch
# one grid-wide barrier of a persistent kernel: every block's arrival through an atomic and the
# poll that sees the last (an estimate until a GPU run measures it)
GRID_SYNC_US = 1.5
# one barrier of a block whose threads reach it together, with the step's shared-memory reads
# around it (a few dozen cycles; an estimate until a GPU run measures it: tests/gpu's detection test)
BLOCK_SYNC_US = 0.02
# one dependent step of a single warp (a shuffle, a test and a branch: about 20 cycles; an estimate
# until a GPU run measures it: the bitmask NonMaxSuppression's scan, ops/nms_bitmask.py)
WARP_STEP_US = 0.012


def kernel_bytes(kernel: Kernel, types: dict) -> int:
    """Compulsory DRAM traffic: every parameter buffer read or written once, less what the kernel
    never reads (a block-sparse operand's zero tiles, a gathered table's unnamed rows, what a
    slice leaves)."""
    return sum(types[p.value].nbytes for p in kernel.params if p.value in types) - kernel_skipped_bytes(kernel)


def kernel_flops(kernel: Kernel) -> int:
    """A kernel's FLOPs: its config's count when its kind gave one (a fused chain), else its
    tensor expression's (2 per output element and reduction step), else 0 (hand-written)."""
    given = dict(kernel.config).get("flops")
    if given is not None:
        return int(given)
    te = kernel.expr
    if te is None:
        return 0
    return expr_flops(te)


def kernel_flops_dense(kernel: Kernel) -> int:
    """The FLOPs the kernel would execute dense: a block-sparse kernel's dense count (SparTA)."""
    given = dict(kernel.config).get("flops_dense")
    return int(given) if given is not None else kernel_flops(kernel)


def kernel_skipped_bytes(kernel: Kernel) -> int:
    """Bytes of its inputs a kernel never reads (its config's count): the zero tiles of a
    block-sparse operand (SparTA), the rows of a gathered table no index can name and what a slice
    leaves of its input (the render stage's count, analysis/dependence.py `unread_by_value`); 0 for
    every other kernel."""
    return int(dict(kernel.config).get("skipped_bytes", 0))


def members_totals(kernels, params, types: dict) -> tuple[tuple[str, int], ...]:
    """The config entries of a launch holding several kernels (a co-launch, whose `params` are the
    members' without repeats) that the report sums over its members: FLOPs executed and dense, and
    the bytes its members skip (when some do). An input several members take is one parameter of
    the launch: of the bytes each leaves unread (config `unread`, per input: slices of one tensor),
    the launch skips only what none of them reads; the other skipped bytes (a sparse operand's
    zero tiles) are the member's own."""
    skipped, unread, takers = 0, {}, {}
    for k in kernels:
        own = dict(dict(k.config).get("unread", ()))
        skipped += kernel_skipped_bytes(k) - sum(own.values())
        for p in {p.value for p in k.params if p.value in types}:
            unread[p] = unread.get(p, 0) + own.get(p, 0)     # bytes of p not read, summed over takers
            takers[p] = takers.get(p, 0) + 1
    left = {v: max(0, types[v].nbytes - (takers[v] * types[v].nbytes - unread[v]))
            for v in {p.value for p in params} if unread.get(v)}
    left = {v: b for v, b in left.items() if b}
    skipped += sum(left.values())
    # each member's kind, element type and FLOPs: the report's compute ceiling of the launch is its
    # members' (tensor-core GEMMs co-launched run at the tensor-core peak, not at SIMT's)
    math_ = tuple((str(dict(k.config).get("schedule", "")), str(dict(k.config).get("elem", "")), kernel_flops(k))
                  for k in kernels)
    return (("flops", sum(kernel_flops(k) for k in kernels)),
            ("flops_dense", sum(kernel_flops_dense(k) for k in kernels)), ("member_math", math_)) + (
        (("skipped_bytes", skipped),) if skipped else ()) + ((("unread", tuple(sorted(left.items()))),) if left else ())


# A tiled contraction's block extent along M and N, for counting how often an operand computed in
# its loads is recomputed before Roller has chosen the tiles (the tiles it picks are 16 to 128).
TILE_ESTIMATE = 64


def expr_flops(te: TensorExpr) -> int:
    """FLOPs of a tensor expression as the kinds evaluate it: 2 per output element and reduction
    step, plus the work of its folds (reductions inside the expression) where they run: in the
    epilogue once per output element; in a contraction's operand once per operand element and
    block along the other side (operands are staged in shared memory per block); elsewhere in
    the body once per output element and reduction step."""
    steps = te.reduce.extent if te.reduce is not None else 1
    flops = 2 * te.output.size * steps + te.output.size * fold_flops(te.epilogue)
    view = gemm_view(te)
    if view is None:
        return flops + te.output.size * steps * fold_flops(te.body)
    a_blocks, b_blocks = math.ceil(view.N / TILE_ESTIMATE), math.ceil(view.M / TILE_ESTIMATE)
    return (flops + view.B * view.K * (view.M * a_blocks * fold_flops(view.a)
                                       + view.N * b_blocks * fold_flops(view.b)))


def predict_kernel_us(kernel: Kernel, types: dict, target: Target) -> float:
    """Predicted microseconds on `target`, without launch overhead."""
    threads = kernel.blocks * kernel.threads
    cfg = dict(kernel.config)
    steps = int(cfg.get("sequential_steps", 0))
    # a hand-written kernel whose threads each wait on a chain of dependent DRAM loads (an index,
    # then what it points at) declares the chain's length: each link is a round trip
    chain_us = int(cfg.get("dependent_loads", 0)) * target.dram_latency_ns * 1e-3
    if steps:   # a time loop on the device (ops/recurrence_kernels.py): each step its weight rows from L2,
        # its share of the FLOPs at the grid's occupancy, and its grid or block barriers; blocks past
        # what the device holds at once run their steps in a later wave
        rows_gbps = float(cfg.get("rows_gbps", target.l2_gbps))   # one SM's stream, or the grid's
        per_step = max(int(cfg["rows_bytes_per_step"]) / (rows_gbps * 1e3),
                       predict_us(0, kernel_flops(kernel) // steps, threads, target))
        syncs = (int(cfg["grid_syncs_per_step"]) * GRID_SYNC_US + int(cfg.get("block_syncs_per_step", 0)) * BLOCK_SYNC_US
                 + int(cfg.get("warp_steps_per_step", 0)) * WARP_STEP_US)
        waves = -(-kernel.blocks // (target.sms * resident_per_sm(kernel, target)))
        return predict_us(kernel_bytes(kernel, types), 0, threads, target) + waves * (steps * (per_step + syncs) + chain_us)
    return predict_us(kernel_bytes(kernel, types), kernel_flops(kernel), threads, target) + chain_us


def kernel_us(kernel: Kernel, types: dict, target: Target) -> float:
    """A kernel's predicted microseconds without launch overhead: the micro-model's where Roller
    tiled it (config predicted_us), else the fallback estimate above."""
    cfg = dict(kernel.config)
    return float(cfg["predicted_us"]) if "predicted_us" in cfg else predict_kernel_us(kernel, types, target)


def resident_per_sm(kernel: Kernel, target: Target) -> int:
    """Blocks of a kernel one SM holds at once: the micro-model's count where Roller tiled it (its
    register estimate included), else by threads and shared memory alone (registers are only
    known after the build)."""
    model = dict(kernel.config).get("model")
    if model:
        return max(1, int(json.loads(model)["blocks_per_sm"]))
    return max(1, resident_blocks(kernel.threads, kernel.shared_bytes, 0, target))


def predict_us(nbytes: int, flops: int, threads: int, target: Target, tflops: float | None = None) -> float:
    """The larger of `nbytes` over DRAM bandwidth and `flops` at the share `threads` fill of the
    peak (fp32 SIMT unless `tflops` says another: a tensor-core GEMM's); a grid smaller than the
    machine only gets its share of the throughput."""
    occupancy = min(1.0, threads / (target.sms * target.max_threads_per_sm))
    peak = tflops or target.fp32_tflops
    return max(nbytes / (target.dram_gbps * 1e3), flops / (peak * 1e6 * max(occupancy, 1e-3)))
