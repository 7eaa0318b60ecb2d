"""SparTA inside row chains: the pruned contractions a resident_rows kernel computes walk only
their non-zero tiles.

Welder's shared-memory level (passes/resident.py) joins a GEMM with the LayerNorm or softmax
after it, and an MLP's GEMMs with each other, into one resident_rows kernel whose blocks own
whole rows and compute each row's elements a thread each, summing over K. A pruned weight in such
a chain ran dense: the block-sparse kinds tile single contractions only. Here each resident phase
that sums products with a constant operand holding zero blocks, read at (k, column), gets a
ColumnWalk (kinds/resident_rows.py), and so does the final stage when it is such a product (an
MLP's second GEMM): the columns of each column tile step only through the k
tiles where one of their weights is non-zero, the tables baked into the kernel as the block-sparse
GEMMs bake theirs. A tile is skipped only when every element in it is exactly zero.

Granularity: a column tile is a warp's columns (COLUMN_TILE), since the lanes of a warp hold
consecutive columns and run one loop: a finer table would skip no step of the warp's. The k tile
is the one of K_TILES that the fewest instructions walk, each listed tile costing TILE_STEP_OPS
(its table entry, bounds and branch) besides its multiply-adds. A walk is kept where it skips at
least MIN_ZERO_SHARE of the k steps and the chain's kernel is then predicted faster (as the report
prices it: its FLOPs executed and bytes read).

Welder's shared-memory level prices a chain it considers with these walks (chain_walks, its
Options.walks), so a pruned GEMM joins a chain where the walking chain beats the block-sparse
GEMM and the rest apart. Not here: a constant read at (row, k) (the weight on the left of the
product), a register map's product composed into a later stage (computed per element that
reads it), and 2:4 weights (no zero tiles at these granularities)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..analysis.views import gemm_view
from ..codegen.tiled import TileList
from ..ir.dataflow import all_plans, rewrite
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec
from ..ir.texpr import Load, value_ops, walk
from ..kinds import register_rows, resident_rows
from ..targets import Target
from ..roller.cost_model import kernel_us
from .render import render_spec
from .sparta_specialize import MIN_ZERO_SHARE, bcsr_of, nonzeros, numbered, operand_mask

COLUMN_TILE = 32             # a warp's lanes: consecutive columns of the resident phase
K_TILES = (4, 8, 16, 32, 64)
TILE_STEP_OPS = 6            # instructions per listed tile besides its products (an estimate)


def sparta_rows(plan: Plan, target: Target, memo: dict) -> tuple[Plan, list[dict]]:
    """The plan with every row chain's pruned contractions walking their listed tiles, where that
    pays; one record entry per contraction over a constant with zeros (as sparta_specialize's)."""
    constants = {n: c for p in all_plans(plan) for n, c in p.constants}
    entries: list[dict] = []

    def one(step, types):
        if not (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec)) or step.spec.kind is not None:
            return step
        spec = dataclasses.replace(step.spec, sparsity=tuple(      # as Welder priced it: walked again here
            x for x in step.spec.sparsity if not isinstance(x, resident_rows.ColumnWalk)))
        chain = resident_rows.analyse(spec)
        if isinstance(chain, str) or register_rows.applies(spec) is None:
            return step
        found = walks_of(chain, constants, memo)
        if not found:
            return ComputeStep(spec)
        sparse = dataclasses.replace(spec, sparsity=spec.sparsity + tuple(w for w, _ in found.values()))
        if isinstance(resident_rows.analyse(sparse), str):     # a walk the kind declines: stays dense
            return ComputeStep(spec)
        dense_us, sparse_us = _rendered_us(spec, types, target), _rendered_us(sparse, types, target)
        prices = {"dense": round(dense_us, 3), "block_sparse": round(sparse_us, 3)}
        keep = sparse_us < dense_us
        for r in chain.residents() + (chain.final,):
            if r.output not in found:
                continue
            w, zero_share = found[r.output]
            steps = r.expr.output.size * r.expr.reduce.extent
            entry = {"kernel": r.expr.name, "ops": list(spec.ops), "operand": "b", "input": w.input,
                     "zero_share": zero_share, "chosen": "block_sparse" if keep else "dense",
                     "format": "bcsr", "block": [w.col_tile, w.k_tile], "density": round(w.walked / steps, 4),
                     "flops_dense": 2 * steps, "flops_executed": 2 * w.walked,
                     "chain": {"kernel": spec.name, "walks": len(found), "predicted_us": prices}}
            if keep:
                entry["kind"] = resident_rows.NAME
            else:
                entry["why"] = "the cost model predicts the chain no faster walking the listed tiles"
            entries.append(entry)
        return ComputeStep(sparse if keep else spec)

    return rewrite(plan, one), entries


def chain_walks(plan: Plan, memo: dict):
    """For Welder's shared-memory level (passes/resident.py Options.walks): (spec, chain) -> the
    spec with the column walks this stage will give it, or the spec itself where there are none.
    Only chains reading a constant with zeros are looked at (a dense model's chains are not)."""
    constants = {n: c for p in all_plans(plan) for n, c in p.constants}
    zeros: dict[str, bool] = {}

    def has_zeros(v: str) -> bool:
        if v not in zeros:
            a = constants[v].array() if v in constants else None
            zeros[v] = a is not None and a.ndim >= 2 and nonzeros(v, a, memo) <= (1.0 - MIN_ZERO_SHARE) * a.size
        return zeros[v]

    def walks(spec: KernelSpec, chain: "resident_rows.RowChain") -> KernelSpec:
        if not any(has_zeros(v) for v in spec.inputs):
            return spec
        found = walks_of(chain, constants, memo)
        return dataclasses.replace(spec, sparsity=spec.sparsity + tuple(w for w, _ in found.values())) \
            if found else spec
    return walks


def walks_of(chain: "resident_rows.RowChain", constants: dict, memo: dict) -> dict:
    """The chain's products (resident rows, the final stage) -> (their column walk, the constant's
    share of zeros), for those that have one; none for a chain that already walks."""
    if chain.walks:
        return {}
    found = {r.output: column_walk(r, chain, constants, memo) for r in chain.residents() + (chain.final,)}
    return {v: w for v, w in found.items() if w is not None}


def _rendered_us(spec: KernelSpec, types: dict, target: Target) -> float:
    """The spec's kernels' predicted time as the report prices them (no launch overhead)."""
    return sum(kernel_us(k, types, target) for k in render_spec(spec, target))


def column_walk(r: "resident_rows.Reader", chain: "resident_rows.RowChain", constants: dict,
                memo: dict) -> "tuple[resident_rows.ColumnWalk, float] | None":
    """(the walk, the constant's share of zeros) of resident rows or the final stage `r` when its
    sum of products reads a constant with zeros at (k, column) and some k tile skips enough; else
    None. (The column is the constant's row of the view, over the reader's output variables.)"""
    key = (r.expr, r.values, r.output)
    found = memo.setdefault("column_walks", {})     # Welder asks again for each chain a phase is in
    if key not in found:
        found[key] = _walk(r, constants, memo)
    if found[key] is None:
        return None
    walk_, zero_share = found[key]
    # the elements in no listed tile are never read: the bytes a dense read of the constant skips,
    # where this phase alone reads it and reads each of its elements once
    weight = constants[walk_.input].array()
    cells = math.prod(e for _, e in walk_.columns) * r.expr.reduce.extent
    if sum(walk_.input in p.values for p in chain.phases + (chain.final,)) > 1 or weight.size != cells:
        walk_ = dataclasses.replace(walk_, skipped_bytes=0)
    return walk_, zero_share


def _walk(r: "resident_rows.Reader", constants: dict, memo: dict):
    te = r.expr
    view = gemm_view(te) if te.reduce is not None else None
    if view is None or len(view.k) != 1 or view.batch or view.k[0][0] != te.reduce.axes[0][0]:
        return None
    loads = [x for x in walk(view.b) if isinstance(x, Load)]
    if not loads or any(r.values[x.arg] not in constants for x in loads):
        return None
    # the same weight read the same way is one key in every chain Welder tries it in
    operand, names = numbered(view.b, r.values)
    body = max(2, value_ops(te.body) + 1)      # per k step, as resident_rows.chain_flops counts it
    key = (operand, view.n, view.k, names, body)
    found = memo.setdefault("column_tiles", {})
    if key not in found:
        found[key] = _tiles(operand, view, names, body, constants, memo)
    if found[key] is None:
        return None
    col_tile, k_tile, tiles, walked, zero_share = found[key]
    N, K = view.N, view.K
    each = te.output.size // N          # the elements that share a column (its rows)
    skipped = int(constants[names[0]].array().nbytes * (1.0 - walked / (N * K)))
    return resident_rows.ColumnWalk(r.output, names[0], view.n, col_tile, k_tile, tiles,
                                    walked * each, skipped), zero_share


def _tiles(operand, view, names: tuple[str, ...], body: int, constants: dict, memo: dict):
    """(column tile, k tile, the listed tiles, k steps summed over the columns, the share of zeros)
    of the cheapest walk of `operand` ([columns, K]), or None where none skips enough."""
    mask = operand_mask(operand, view, view.n, [constants[n].array() for n in names], names, memo)
    if mask is None:
        return None
    N, K = view.N, view.K
    col_tile = min(COLUMN_TILE, N)
    # (the column tiles' non-zeros once: each k tile tried is a reduction of them, not of the mask)
    cols = column_nonzeros(mask.nonzero, col_tile)
    best = None
    for k_tile in (t for t in K_TILES if t < K):
        walked, tiles = walked_steps(cols, N, K, col_tile, k_tile)
        cost = walked * body + tiles * TILE_STEP_OPS
        if walked <= (1.0 - MIN_ZERO_SHARE) * N * K and (best is None or cost < best[0]):
            best = (cost, k_tile, walked)
    if best is None:
        return None
    _, k_tile, walked = best
    return col_tile, k_tile, TileList("b", *bcsr_of(_listed(cols, k_tile))), walked, round(mask.zero_share, 4)


def column_nonzeros(nonzero: np.ndarray, col_tile: int) -> np.ndarray:
    """[column tiles, K]: whether any column of the tile has a non-zero at k (the last tile ragged)."""
    N, K = nonzero.shape
    padded = np.zeros((-(-N // col_tile) * col_tile, K), dtype=bool)
    padded[:N] = nonzero
    return padded.reshape(-1, col_tile, K).any(axis=1)


def _listed(cols: np.ndarray, k_tile: int) -> np.ndarray:
    """[column tiles, k tiles]: the tiles holding a non-zero."""
    C, K = cols.shape
    padded = np.zeros((C, -(-K // k_tile) * k_tile), dtype=bool)
    padded[:, :K] = cols
    return padded.reshape(C, -1, k_tile).any(axis=2)


def walked_steps(cols: np.ndarray, N: int, K: int, col_tile: int, k_tile: int) -> tuple[int, int]:
    """(k steps, listed tiles) summed over the columns, walking the (col_tile x k_tile) tiles that
    hold a non-zero (`cols`: column_nonzeros)."""
    listed = _listed(cols, k_tile)
    lengths = np.minimum(K, (np.arange(listed.shape[1]) + 1) * k_tile) - np.arange(listed.shape[1]) * k_tile
    widths = np.minimum(N, (np.arange(listed.shape[0]) + 1) * col_tile) - np.arange(listed.shape[0]) * col_tile
    return int(widths @ (listed @ lengths)), int(widths @ listed.sum(axis=1))
