"""Kind `elementwise_vec`: a map over 16-byte vectors of its contiguous operands (broadcast ones
loaded once per vector), 1-4 vectors per thread (codegen/memory_bound.py)."""
from __future__ import annotations

import dataclasses
import math

from ..analysis.views import VECTOR_BYTES, VectorView, decompose, elementwise_view, sectors_per_request, vector_view
from ..codegen.memory_bound import render_vector_elementwise
from ..roller.construct import SECTOR, dram_bytes, flow_dtype, index_instructions, io_sizes, ops_per_element
from ..roller.micro_model import blocks_per_sm
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import Load, TensorExpr, walk
from ..ir.tiles import KernelConfig, RTile, Workload
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "elementwise_vec"
TIER = 2            # maps


def view(te: TensorExpr) -> VectorView | None:
    return vector_view(te) if elementwise_view(te) is not None else None


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a map of 16-byte vectors")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else vector_candidates(te, v, target)


VECTORS_PER_THREAD = (1, 2, 4)


def vector_candidates(te: TensorExpr, view: VectorView, target: Target) -> list[KernelConfig]:
    """Vectorised maps: 128-512 threads, 1-4 independent 16-byte vectors per thread and step."""
    n, V = view.n, view.width
    nvec = n // V
    sizes = io_sizes(te)
    axes = view.outer + view.group
    mid = (nvec // 2) // 32 * 32
    envs = [decompose(min(mid + lane, nvec - 1) * V, axes) for lane in range(32)]
    # contiguous operands: whole sectors, every byte used; broadcast ones: one load per vector
    uni_sectors = sum(sectors_per_request(ld, te.inputs, envs, SECTOR) or 1.0 for ld in view.uniform)
    loads_item = sum(x.dtype.itemsize for x in walk(te.body) if isinstance(x, Load))
    l2 = (sum(float(n) * te.inputs[ld.arg].dtype.itemsize for ld in view.vector)
          + math.ceil(nvec / 32) * uni_sectors * SECTOR + (n % V) * loads_item + te.output.nbytes)
    ops = ops_per_element(te.body)
    n_acc = len(view.vector) + len(view.uniform)
    flops = float(n * ops + nvec * index_instructions(len(axes), n_acc) + (n % V) * index_instructions(len(axes), n_acc))
    out = []
    for T in (128, 256, 512):
        for U in VECTORS_PER_THREAD:
            inflight = float(U * (VECTOR_BYTES * (len(view.vector) + 1)
                                  + sum(ld.dtype.itemsize for ld in view.uniform)))
            # index and pointer registers as in the scalar kernel, plus 4 per 16-byte vector held
            w = Workload(blocks=1, threads=T, shared_bytes=0, registers=24 + U * 4 * (len(view.vector) + 1),
                         flops=flops, compute_dtype=flow_dtype(te), dram_bytes=dram_bytes(sizes, l2, target), l2_bytes=l2,
                         shared_bytes_moved=0.0, ilp=float(V * U), issue_efficiency=0.5, bytes_in_flight=inflight)
            # a grid-stride grid of four rounds of the blocks that can be resident
            cap = target.sms * max(1, blocks_per_sm(w, target)) * 4
            w = dataclasses.replace(w, blocks=max(1, min(math.ceil(nvec / (T * U)), cap)))
            tiles = (RTile("block", (("vectors", T * U),)), RTile("warp", (("vectors", 32 * U),)),
                     RTile("thread", (("elems", V * U),)))
            out.append(KernelConfig("elementwise_vec", tiles,
                                    (("block_threads", T), ("vectors_per_thread", U), ("width", V)), w))
    return out


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values) -> Kernel:
    """The kernel of one configuration (the tuner renders its candidates through the kind's `render`)."""
    return render_vector_elementwise(te, vector_view(te), cfg, prefix, out_value, in_values)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config)
