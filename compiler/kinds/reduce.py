"""Kind `reduce`: one or more threads per output of a reduction (codegen/tiled.py).

Adaptive thread mapping: how many threads share one row (1 to 1024; over 32 the warps meet in
shared memory), or consecutive rows across a warp's lanes with the rows' k split among thread
groups (`column_candidates`: k strided, outputs contiguous), chosen by the coalescing of the loads
each mapping makes."""
from __future__ import annotations

import math

from ..analysis.vector_loads import CHUNK, VECTOR_BYTES, chunked
from ..analysis.views import ReduceView, decompose, eval_index, reduce_view, sectors_per_request
from ..codegen.tiled import ctype_size, render_reduce, render_reduce_columns
from ..roller.construct import SECTOR, dram_bytes, io_sizes, load_count, ops_per_element, pow2_ceil, shared_input_bytes
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import Binary, Load, TensorExpr, Unary, walk
from ..ir.tiles import KernelConfig, RTile, Workload
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "reduce"
TIER = 1            # reductions: also a contraction no aligned tile fits


def view(te: TensorExpr) -> ReduceView | None:
    return reduce_view(te)


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a reduction")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else reduce_candidates(te, v, target)


def reduce_candidates(te: TensorExpr, view: ReduceView, target: Target) -> list[KernelConfig]:
    R, K = view.R, view.K
    sizes, shared = io_sizes(te), shared_input_bytes(te)
    kmax = pow2_ceil(K)
    n_loads = max(1, load_count(te.body))
    ops = ops_per_element(te.body)
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
                         dram_bytes=dram_bytes(sizes, l2, target, shared), l2_bytes=l2,
                         shared_bytes_moved=blocks * (T // 32) * item * 2 if tpr > 32 else 0.0,
                         ilp=1.0, issue_efficiency=0.5)
            tiles = (RTile("block", (("rows", rpb), ("k", tpr))), RTile("warp", (("rows", max(1, 32 // tpr)), ("k", min(tpr, 32)))),
                     RTile("thread", (("rows", 1), ("k", 1))))
            out.append(KernelConfig("reduce", tiles, (("block_threads", T), ("threads_per_row", tpr)), w))
    return out + column_candidates(te, view, target) + chunk_candidates(te, view, target)


CHUNK_WIDTHS = (8, 16, 32)
CHUNK_LANES = (4, 8, 16, 32)
# the least input bytes a chunked reduction is offered for: below a megabyte a step is latency-bound
# whatever its loads, and the unrolled analysis costs compile time every reduction would pay
CHUNK_MIN_BYTES = 1 << 20


def chunk_candidates(te: TensorExpr, view: ReduceView, target: Target) -> list[KernelConfig]:
    """Threads along k taking `k_vec` consecutive k a step with 16-byte vector loads of the runs
    they read (analysis/vector_loads.py; codegen/tiled.py renders it): a decoder step's product
    with a packed int4 weight loads each byte, block scale and 8 activations once instead of per k.
    Priced by the sectors a warp's requests touch, each vector or distinct scalar load one request
    a step, and the step's distinct operations (what its k share is computed once)."""
    out = []
    sizes, shared = io_sizes(te), shared_input_bytes(te)
    if sizes[0] < CHUNK_MIN_BYTES:
        return out
    for width in CHUNK_WIDTHS:
        found = chunked(te, view, width)
        if found is None:
            continue
        chunk, _, vectors, where = found
        scalars = [ld for ld in _loads(chunk) if ld not in where]
        ops = len({x.key for x in walk(chunk) if isinstance(x, (Binary, Unary))})
        steps = view.K // width
        for tpr in CHUNK_LANES:
            if tpr > steps:
                continue
            envs = []
            mid = (view.R // 2) // max(1, 32 // tpr) * max(1, 32 // tpr)
            for lane in range(32):
                env = decompose(min(mid + lane // tpr, view.R - 1), view.rows)
                env[CHUNK] = min(steps // 2 // tpr * tpr + lane % tpr, steps - 1)
                envs.append(env)
            sectors = _vector_sectors(vectors, te.inputs, envs) + sum(
                sectors_per_request(ld, te.inputs, envs, SECTOR) for ld in scalars)
            warp_steps = view.R * steps / 32
            l2 = warp_steps * sectors * SECTOR + te.output.nbytes
            for T in (128, 256):
                rpb = T // tpr
                blocks = math.ceil(view.R / rpb)
                w = Workload(blocks=blocks, threads=T, shared_bytes=0, registers=64,
                             flops=float(view.R * steps * ops + view.R * tpr * 2), compute_dtype=te.body.dtype.name,
                             dram_bytes=dram_bytes(sizes, l2, target, shared), l2_bytes=l2, shared_bytes_moved=0.0,
                             ilp=float(len(vectors) + len(scalars)), issue_efficiency=0.5)
                tiles = (RTile("block", (("rows", rpb), ("k", tpr * width))),
                         RTile("warp", (("rows", 32 // tpr), ("k", tpr * width))), RTile("thread", (("rows", 1), ("k", width))))
                out.append(KernelConfig("reduce", tiles, (("block_threads", T), ("threads_per_row", tpr),
                                                          ("k_vec", width)), w))
    return out


def _loads(e) -> list[Load]:
    return list(dict.fromkeys(x for x in walk(e) if isinstance(x, Load)))


def _vector_sectors(vectors, inputs, envs) -> int:
    """32-byte sectors a warp's 16-byte loads touch, summed over the step's vectors."""
    total = 0
    for vec in vectors:
        item = inputs[vec.arg].dtype.itemsize
        touched = set()
        for env in envs:
            start = eval_index(vec.start, env)
            if start is not None:
                touched.update(range(start * item // SECTOR, (start * item + VECTOR_BYTES - 1) // SECTOR + 1))
        total += len(touched)
    return total


COLUMN_LANES = (32, 64, 128)
COLUMN_GROUPS = (2, 4, 8, 16, 32)


def column_candidates(te: TensorExpr, view: ReduceView, target: Target) -> list[KernelConfig]:
    """Consecutive outputs across lanes, each output's k split among G thread groups of the block
    (codegen/tiled.py render_reduce_columns): for outputs contiguous in memory with k strided, a
    warp's load reads 32 neighbouring outputs' elements, and the groups give a few hundred outputs
    (a decoder step's x . W) enough warps to keep DRAM busy."""
    R, K = view.R, view.K
    sizes, shared = io_sizes(te), shared_input_bytes(te)
    n_loads = max(1, load_count(te.body))
    ops = ops_per_element(te.body)
    item = ctype_size(te.body.dtype.compute_ctype)
    out = []
    for RL in COLUMN_LANES:
        if RL > 32 and RL > R:
            continue
        envs = []
        mid = (R // 2) // RL * RL
        for lane in range(32):
            env = decompose(min(mid + lane, max(R - 1, 0)), view.rows)
            env.update(decompose(K // 2, view.k))
            envs.append(env)
        sectors = sectors_per_request(te.body, te.inputs, envs, SECTOR) or 1.0
        for G in COLUMN_GROUPS:
            T = RL * G
            if G > K or T > target.max_threads_per_block:
                continue
            blocks = math.ceil(R / RL)
            requests = blocks * (RL / 32) * K * n_loads
            l2 = requests * sectors * SECTOR + te.output.nbytes
            w = Workload(blocks=blocks, threads=T, shared_bytes=T * item, registers=32,
                         flops=float(R * K * ops + R * G), compute_dtype=te.body.dtype.name,
                         dram_bytes=dram_bytes(sizes, l2, target, shared), l2_bytes=l2,
                         shared_bytes_moved=blocks * T * item * 2.0, ilp=1.0, issue_efficiency=0.5)
            tiles = (RTile("block", (("rows", RL), ("k", G))), RTile("warp", (("rows", 32), ("k", 1))),
                     RTile("thread", (("rows", 1), ("k", 1))))
            out.append(KernelConfig("reduce", tiles, (("block_threads", T), ("rows_across_lanes", RL),
                                                      ("k_groups", G)), w))
    return out


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values) -> Kernel:
    """The kernel of one configuration (the tuner renders its candidates through the kind's `render`)."""
    if cfg.param("k_groups"):
        return render_reduce_columns(te, view(te), cfg, prefix, out_value, in_values)
    return render_reduce(te, view(te), cfg, prefix, out_value, in_values)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config)
