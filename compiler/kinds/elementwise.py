"""Kind `elementwise`: a map, several outputs per thread in a grid-stride loop (codegen/tiled.py)."""
from __future__ import annotations

import math

from ..analysis.views import ElementwiseView, decompose, elementwise_view, sectors_per_request
from ..codegen.tiled import render_elementwise
from ..roller.construct import SECTOR, dram_bytes, flow_dtype, index_instructions, io_sizes, load_count, ops_per_element
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import Load, TensorExpr, walk
from ..ir.tiles import KernelConfig, RTile, Workload
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "elementwise"
TIER = 2            # maps


def view(te: TensorExpr) -> ElementwiseView | None:
    return elementwise_view(te)


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a map (it reduces)")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else elementwise_candidates(te, v, target)


def elementwise_candidates(te: TensorExpr, view: ElementwiseView, target: Target) -> list[KernelConfig]:
    n = view.n
    sizes = io_sizes(te)
    group = tuple((f"i{d}", e) for d, e in enumerate(te.output.shape) if e != 1)
    mid = n // 2 // 32 * 32
    envs = [decompose(min(mid + lane, n - 1), group) for lane in range(32)]
    sectors = sectors_per_request(te.body, te.inputs, envs, SECTOR) or 1.0
    n_loads = load_count(te.body)
    ops = ops_per_element(te.body)
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
                         flops=float(n * (ops + index_instructions(len(group), n_loads))),
                         compute_dtype=flow_dtype(te), dram_bytes=dram_bytes(sizes, l2, target), l2_bytes=l2,
                         shared_bytes_moved=0.0, ilp=float(V), issue_efficiency=0.5, bytes_in_flight=inflight)
            tiles = (RTile("block", (("elems", per_block),)), RTile("warp", (("elems", 32 * V),)),
                     RTile("thread", (("elems", V),)))
            out.append(KernelConfig("elementwise", tiles, (("block_threads", T), ("per_thread", V)), w))
    return out


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values) -> Kernel:
    """The kernel of one configuration (the tuner renders its candidates through the kind's `render`)."""
    return render_elementwise(te, view(te), cfg, prefix, out_value, in_values)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config)
