"""Kind `transpose`: a map whose output's fast axis reads an input with a large stride, staged
through a padded shared tile of 32 or 64 square (codegen/memory_bound.py)."""
from __future__ import annotations

import math

from ..analysis.views import TransposeView, decompose, distinct_loads, elementwise_view, sectors_per_request, transpose_view
from ..codegen.cuda import MAX_GRID_X
from ..codegen.memory_bound import render_transpose, transpose_tile_bytes
from ..codegen.tiled import ctype_size
from ..roller.construct import (SECTOR, bank_conflict_ways, dram_bytes, flow_dtype, index_instructions, io_sizes,
                                ops_per_element)
from ..ir.kernel import Kernel
from ..ir.spec import KernelSpec
from ..ir.texpr import TensorExpr
from ..ir.tiles import KernelConfig, RTile, Workload
from ..targets import Target
from ._tiled import one_stage, render_tiled

NAME = "transpose"
TIER = 2            # maps


def view(te: TensorExpr) -> TransposeView | None:
    return transpose_view(te, SECTOR) if elementwise_view(te) is not None else None


def applies(spec) -> str | None:
    return one_stage(spec, view, "not a strided map")


def candidates(te: TensorExpr, target: Target, precision: str | None = None) -> list[KernelConfig]:
    v = view(te)
    return [] if v is None else transpose_candidates(te, v, target)


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
    A, B, O = view.A, view.B, view.outer_size
    n = te.output.size
    sizes = io_sizes(te)
    direct = [ld for ld in distinct_loads(te.body) if ld not in view.staged]
    ops = ops_per_element(te.body)
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
                     flops=float(n * ops + padded * (index_instructions(rank, len(view.staged))
                                                     + index_instructions(rank, len(direct) + 1))),
                     compute_dtype=flow_dtype(te), dram_bytes=dram_bytes(sizes, l2, target), l2_bytes=l2,
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


def _sectors_of(offsets_bytes) -> int:
    return len({o // SECTOR for o in offsets_bytes})


def render_config(te: TensorExpr, cfg: KernelConfig, prefix: str, out_value: str, in_values) -> Kernel:
    """The kernel of one configuration (the tuner renders its candidates through the kind's `render`)."""
    return render_transpose(te, transpose_view(te), cfg, prefix, out_value, in_values)


def render(spec: KernelSpec, target: Target | None = None) -> list[Kernel]:
    return render_tiled(spec, target, render_config)
