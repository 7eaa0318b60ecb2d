"""Kind `reduce_split`: few long rows, each split into slices reduced by separate blocks into an
fp32 workspace; the last block of a row to arrive combines its slices and applies the epilogue, in
the same launch (codegen/memory_bound.py).

Not for contractions: their k is split by tc_gemm's split-K."""
from __future__ import annotations

import math

from ..analysis.views import ReduceView, decompose, gemm_view, reduce_view, sectors_per_request
from ..codegen.memory_bound import render_split_reduce, split_chunk
from ..roller.construct import SECTOR, dram_bytes, io_sizes, load_count, ops_per_element, shared_input_bytes
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, RTile, Workload
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "reduce_split"
TIER = 1            # reductions


def view(te: TensorExpr) -> ReduceView | None:
    return reduce_view(te) if gemm_view(te) is None else None


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a reduction, or a contraction (split-K is tc_gemm's)")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else split_reduce_candidates(te, v, target)


SPLIT_THREADS = (256, 512, 1024)
SPLITS = tuple(2 ** e for e in range(1, 12))


SPLIT_MIN_PER_THREAD = 4          # elements each thread reduces at least (else the split is too fine)


def split_reduce_candidates(te: TensorExpr, view: ReduceView, target: Target) -> list[KernelConfig]:
    """Reductions of rows too few to fill the SMs with one block each: `split_k` slices per row
    reduced by separate blocks into an fp32 workspace, which the row's last block combines (one
    warp reading the row's partials back from L2)."""
    if te.body.dtype.compute_ctype != "float" or view.R >= target.sms:
        return []
    R, K = view.R, view.K
    sizes, shared = io_sizes(te), shared_input_bytes(te)
    n_loads = max(1, load_count(te.body))
    ops = ops_per_element(te.body)
    out = []
    for T in SPLIT_THREADS:
        if T > target.max_threads_per_block:
            continue
        max_blocks = target.sms * max(1, target.max_threads_per_sm // T) * 4
        for S in SPLITS:
            chunk, slices = split_chunk(K, S)
            if slices < 2 or chunk < SPLIT_MIN_PER_THREAD * T or R * slices > max_blocks:
                continue
            envs = []
            mid = (R // 2)
            for lane in range(32):
                env = decompose(mid, view.rows)
                env.update(decompose(min(chunk // 2 + lane, K - 1), view.k))
                envs.append(env)
            sectors = sectors_per_request(te.body, te.inputs, envs, SECTOR) or 1.0
            requests = R * slices * math.ceil(chunk / T) * T / 32 * n_loads
            ws = 2 * 4.0 * R * slices       # each partial written, and read back by the row's last block
            l2 = requests * sectors * SECTOR + ws
            blocks = R * slices
            w = Workload(blocks=blocks, threads=T, shared_bytes=(T // 32) * 8, registers=32,
                         flops=float(R * K * ops + blocks * T * 2 + R * slices), compute_dtype=te.body.dtype.name,
                         dram_bytes=dram_bytes(sizes, l2 - ws, target, shared) + ws, l2_bytes=l2,
                         shared_bytes_moved=blocks * (T // 32) * 8.0, ilp=1.0, issue_efficiency=0.5)
            tiles = (RTile("block", (("rows", 1), ("k", chunk))), RTile("warp", (("rows", 1), ("k", 32))),
                     RTile("thread", (("rows", 1), ("k", 1))))
            out.append(KernelConfig("reduce_split", tiles,
                                    (("block_threads", T), ("split_k", slices), ("chunk", chunk),
                                     ("ws_elems", R * slices), ("out_bytes", te.output.nbytes)), w))
    return out


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values,
                  workspace: str = "") -> Kernel:
    """The kernel of one configuration, its partial sums in `workspace`."""
    return render_split_reduce(te, view(te), cfg, prefix, out_value, in_values, workspace)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config, workspace_in_launch=True)
