"""sparta.cover (SparTA's weighted cover): a constant operand whose non-zeros fill some tiles and
are scattered elsewhere is split in two parts whose products are added in one kernel.

Block-sparse alone (sparta_specialize) must walk every tile that holds a single non-zero, so a
block-pruned weight that kept a few outliers, or a weight pruned element by element, is as
dense as it was. The cover splits the operand W (its [rows, K] values, through whatever index
map the expression reads it with) into

    W = W_tiles + W_rest

- `W_tiles`: the (row tile, k tile) blocks holding at least `t` non-zeros, a new constant in the
  operand's layout (zeros elsewhere), walked by the `block_sparse_gemm` kind's k loop (BCSR);
- `W_rest`: every other non-zero, as ELL: per sparse row, its k indices (int32) and values,
  padded with zeros to the longest row's count J, stored [J, rows]; the kernel's epilogue adds
  sum_{j<J} other[.., idx[r, j]] * val[r, j] to the accumulator (a Fold, rendered by every kind),
  before the expression's own epilogue (bias, activation, residual) runs.

The plan stays an exact description of what runs: the expression reads the two parts, and the
dense weight leaves the plan when nothing else reads it. SparTA's WeightedBlockCover chooses the
cover greedily from profiled per-block costs; here the micro-model weighs it: for every tile
configuration of the `gemm` kind and every threshold `t` (the distinct counts of non-zeros per
block, or quantiles of them, and "no block": ELL only), the block part is priced as
sparta_specialize prices BCSR, and the remainder as J multiply-adds per output, each issuing five
instructions where a tiled one issues about one (ELL_ISSUE_EFFICIENCY), with its gathered loads
from L2. The cheapest replaces the spec only where it is predicted COVER_MARGIN times faster than
what the spec already is (dense or block-sparse), so a weight whose zeros are whole tiles, or a
dense one, keeps its kernel exactly."""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..analysis.views import GemmView, gemm_view
from ..ir.dataflow import map_bodies, with_steps
from ..ir.dtypes import DType
from ..ir.graph import Constant
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec, Stage
from ..ir.texpr import (ACC, Expr, Fold, Load, TensorExpr, Var, binary, cast, fold_axes, map_children, substitute,
                        substitute_vars, walk)
from ..ir.tiles import KernelConfig
from ..kinds import block_sparse_gemm, gemm
from ..roller.construct import dram_bytes, io_sizes
from ..roller.cost_model import expr_flops
from ..roller.micro_model import predict, predict_workload
from ..targets import Target
from .roller import tile_spec, with_workspace
from .sparse24 import drop_unused_inputs, linear_index
from .sparta_specialize import MaskTiles, bcsr_workload, dense_candidates, operand_mask, operand_values

THRESHOLDS = 8          # at most this many block-count thresholds are priced per tile shape
ELL_AXIS = "ell_j"       # the remainder's fold axis (fold axis names are unique in an expression)
INDEX = DType.int32
# A remainder multiply-add issues about five instructions (index load, value load, address
# arithmetic, gathered load, the FMA) where the tiled loop issues about one per FMA: it runs at
# this share of the issue rate. An estimate from the instruction count; the GPU run calibrates it.
ELL_ISSUE_EFFICIENCY = 0.2
# The cover replaces a kernel only when predicted this many times faster: its remainder's price
# rests on the estimate above, and a gathering kernel that wins by less is within its error.
COVER_MARGIN = 1.25


@dataclasses.dataclass(frozen=True)
class Cover:
    """One priced cover: the block part's configuration (kind block_sparse_gemm, its BCSR tables
    over the kept blocks), the kept-block mask [row tiles, k tiles], the ELL width and the time."""

    config: KernelConfig
    kept: np.ndarray
    row_tile: int
    k_tile: int
    ell: int
    us: float


def cover_plan(plan: Plan, target: Target, record: dict, memo: dict) -> Plan:
    """The plan with each SIMT contraction whose cover is predicted faster rewritten to it; the
    record's entry for that kernel (sparta_specialize's) gains the cover's price and choice, and
    its `sparse_kernels` counts the covers too."""
    entries = {(e["kernel"], tuple(e["ops"])): e for e in record["kernels"]}
    plan = _plan(plan, target, entries, memo)
    record["sparse_kernels"] = sum(e["chosen"] in ("block_sparse", "cover") for e in record["kernels"])
    return plan


def _plan(plan: Plan, target: Target, entries: dict, memo: dict) -> Plan:
    consts, types = dict(plan.constants), dict(plan.types)
    steps = []
    for s in plan.steps:
        if isinstance(s, ComputeStep) and isinstance(s.spec, KernelSpec):
            spec = specialize(s.spec, consts, types, target, entries, memo)
            s = ComputeStep(spec) if spec is not None else s
        else:   # a body keeps its own constants
            s = map_bodies(s, lambda body: _plan(body, target, entries, memo))
        steps.append(s)
    if all(a is b for a, b in zip(steps, plan.steps)):
        return plan
    return with_steps(plan, steps, consts, types)


def cover_speedup(spec: KernelSpec, constants: dict, target: Target, memo: dict) -> float | None:
    """How many times faster the micro-model predicts `spec` (a contraction not yet tiled) as its
    best cover than as its dense best; None where no cover pays. Welder's shared-memory level
    asks before fusing a contraction into a row chain (where a cover's scattered remainder is
    not walked: its whole tiles are, passes/sparta_rows.py)."""
    if not spec.composable or spec.kind is not None or gemm_view(spec.expr) is None:
        return None
    tiled = tile_spec(spec, target)
    if tiled.kind != gemm.NAME or tiled.config is None:
        return None
    found = _choice(tiled, constants, target, memo)
    if found is None:
        return None
    dense_us = predict(tiled.config, target).us
    return dense_us / found[0].us if found[0].us * COVER_MARGIN < dense_us else None


def specialize(spec: KernelSpec, consts: dict, types: dict, target: Target, entries: dict,
               memo: dict) -> KernelSpec | None:
    """The spec rewritten to its cover (the parts added to `consts`/`types`) when that is
    predicted faster than the spec as it is; None when it stays."""
    if spec.kind not in (gemm.NAME, block_sparse_gemm.NAME) or spec.config is None:
        return None
    found = _choice(spec, consts, target, memo)
    if found is None:
        return None
    cover, side, values = found
    now_us = predict(spec.config, target).us
    entry = entries.get((spec.stage.expr.name, tuple(spec.ops)))
    if entry is not None:
        entry["predicted_us"]["cover"] = round(cover.us, 3)
        entry["cover"] = {"block": [cover.row_tile, cover.k_tile], "ell": cover.ell,
                          "block_density": cover.config.param("block_density"),
                          "density": cover.config.param("density")}
    if cover.us * COVER_MARGIN >= now_us:
        if entry is not None and entry["chosen"] == "dense":
            entry["why"] = f"the micro-model predicts no cover {COVER_MARGIN}x faster than the dense kernel"
        return None
    te, ins = spec.stage.expr, spec.stage.inputs
    view = gemm_view(te)
    names = _add_parts(te, ins, view, side, values, cover, consts, types)
    new_te, new_ins = cover_expr(te, ins, view, side, names, types)
    if entry is not None:
        entry.update(chosen="cover", format="bcsr+ell", density=cover.config.param("density"),
                     flops_executed=int(cover.config.param("flops")),
                     flops_dense=int(cover.config.param("flops_dense")))
        entry.pop("why", None)
    return with_workspace(dataclasses.replace(spec, stages=(Stage(new_te, new_ins, spec.stage.output),), carried=(),
                                              kind=block_sparse_gemm.NAME, config=cover.config,
                                              candidates=(cover.config,), declined=()), types)   # (a split's dropped)


def _choice(spec: KernelSpec, consts: dict, target: Target, memo: dict):
    """(best Cover, side, operand values [rows, K]) for a one-stage SIMT contraction over a
    constant operand with zeros; None when there is none or no cover is possible."""
    if not spec.composable or spec.outputs not in ((), (spec.stage.output,)):
        return None
    te, ins = spec.stage.expr, spec.stage.inputs
    covers = memo.setdefault("cover", {})
    if (te, ins) not in covers:
        covers[te, ins] = _search(te, ins, consts, target, memo)
    return covers[te, ins]


def _search(te: TensorExpr, ins, consts: dict, target: Target, memo: dict):
    view = gemm_view(te)
    if view is None or ELL_AXIS in fold_axes(te.body, te.epilogue):
        return None
    data = [consts[v].array() if v in consts else None for v in ins]
    for side, expr, group in (("b", view.b, view.n), ("a", view.a, view.m)):
        loads = [x for x in walk(expr) if isinstance(x, Load)]
        if not loads or any(data[x.arg] is None for x in loads):
            continue
        if not any(e == expr for e in walk(te.body)):
            return None     # its factors are interleaved with the other operand's: no one subtree to swap
        # the block-sparse search's mask: None where the operand has too few zeros (a dense weight
        # is then not evaluated again), is too large, or cannot be evaluated
        mask = operand_mask(expr, view, group, data, ins, memo)
        if mask is None:
            return None
        values = operand_values(expr, view, group, data)
        if values is None or values.shape[0] != 1:     # too large, or one per batch
            return None
        values = np.asarray(values[0])      # (its zeros are the mask's: MIN_ZERO_SHARE at least)
        if not np.isfinite(values).all():
            return None
        best = _best_cover(te, view, side, values, target, _cover_candidates(te, view, target, memo), mask)
        return None if best is None else (best, side, values)
    return None


def _thresholds(counts: np.ndarray) -> list[int]:
    """Block counts worth trying as "keep a block with at least this many non-zeros": the distinct
    counts above the smallest (which keeps every non-zero block: plain BCSR), or quantiles of them,
    and one past the largest (no block: ELL only)."""
    nz = np.unique(counts[counts > 0])
    if len(nz) > THRESHOLDS:
        nz = np.unique(np.quantile(nz, np.linspace(0, 1, THRESHOLDS), method="nearest"))
    return [int(t) for t in nz[1:]] + [int(counts.max()) + 1]


def _best_cover(te: TensorExpr, view: GemmView, side: str, values: np.ndarray, target: Target,
                candidates: list[KernelConfig], mask: MaskTiles | None = None) -> Cover | None:
    """The fastest cover of the [rows, K] operand `values` among `candidates` (_cover_candidates)
    (`mask`: its non-zeros' MaskTiles, when the compilation has them)."""
    R, K = values.shape
    mask = MaskTiles(values != 0) if mask is None else mask
    sizes = io_sizes(te)
    dense_flops = expr_flops(te)
    contraction = 2 * view.B * view.M * view.N * view.K
    item = sizes[2]
    tile_item = (view.b if side == "b" else view.a).dtype.itemsize     # the tiles constant's element
    sparse_bytes = sum(te.inputs[a].nbytes for a in {x.arg for x in walk(view.b if side == "b" else view.a)
                                                     if isinstance(x, Load)})

    def priced(cfg: KernelConfig, offsets, ktiles, ell: int, lower_bound: bool) -> tuple[KernelConfig | None, float]:
        """(config, predicted us) of the blocks kept plus the remainder; a lower bound prices the
        workload alone (no config)."""
        w, block_density = bcsr_workload(cfg, view, side, offsets, ktiles, sizes, sparse_bytes, target, lower_bound)
        block_density = round(block_density, 4)
        blk = cfg.tile("block")
        other_tiles = math.ceil((view.M if side == "b" else view.N) / blk.size("m" if side == "b" else "n"))
        # the remainder: J multiply-adds per output, the other operand gathered from L2, the
        # index and value tables read once per tile of the other operand's rows
        ell_flops = 2.0 * view.B * view.M * view.N * ell
        tables = R * ell * (INDEX.itemsize + item)
        ell_l2 = view.B * view.M * view.N * ell * item + view.B * other_tiles * tables
        ins = sizes[0] - sparse_bytes * (1.0 - block_density) + tables
        # priced as FLOPs issued at the tiled loop's efficiency: the remainder's own is lower
        issued = ell_flops * max(0.05, w.issue_efficiency) / ELL_ISSUE_EFFICIENCY
        w = dataclasses.replace(w, flops=w.flops + issued, l2_bytes=w.l2_bytes + ell_l2,
                                dram_bytes=dram_bytes((ins, sizes[1], item), w.l2_bytes - sizes[1] + ell_l2, target))
        if lower_bound:
            return None, predict_workload(w, target).us
        executed = dense_flops - contraction + round(contraction * block_density) + ell_flops
        config = KernelConfig(block_sparse_gemm.NAME, cfg.tiles, cfg.params + (
            ("operand", side), ("format", "bcsr+ell"), ("density", round(executed / max(dense_flops, 1), 4)),
            ("block_density", block_density), ("ell", ell),
            ("flops", int(executed)), ("flops_dense", dense_flops),
            ("skipped_bytes", round(R * K * tile_item * (1.0 - block_density))),
            ("bcsr_offsets", tuple(offsets)), ("bcsr_ktiles", tuple(ktiles))), w)
        return config, predict(config, target).us

    # a remainder of J per output issues J / ELL_ISSUE_EFFICIENCY slots where the dense kernel
    # issues about K: one that cannot leave the dense kernel COVER_MARGIN faster is not priced
    widest = view.K * ELL_ISSUE_EFFICIENCY / COVER_MARGIN
    shapes: dict = {}
    bounded = []
    for cfg in candidates:
        blk = cfg.tile("block")
        row_tile, k_tile = blk.size("n" if side == "b" else "m"), blk.size("k")
        if (row_tile, k_tile) not in shapes:
            shapes[row_tile, k_tile] = [s for s in _splits(mask, row_tile, k_tile) if s[3] < widest]
        for split in shapes[row_tile, k_tile]:
            _, us = priced(cfg, split[1], split[2], split[3], lower_bound=True)
            bounded.append((us, len(bounded), cfg, split, row_tile, k_tile))
    # then exactly (the busiest SM simulated), cheapest bound first, until no bound can beat the
    # best: the predicted time grows with the busiest SM's share, so the result is the same as
    # pricing every split exactly, at a fraction of the simulations
    best, first = None, None        # the fastest, and its place in pricing order (the earlier wins a tie)
    for bound, n, cfg, (kept, offsets, ktiles, ell), row_tile, k_tile in sorted(bounded, key=lambda b: b[:2]):
        if best is not None and (bound, n) >= (best.us, first):
            break
        config, us = priced(cfg, offsets, ktiles, ell, lower_bound=False)
        if best is None or (us, n) < (best.us, first):
            best, first = Cover(config, kept, row_tile, k_tile, ell, us), n
    return best


PER_BLOCK_TILE = 2      # configurations priced per block tile: the dense kernel's best at that tile


def _cover_candidates(te: TensorExpr, view: GemmView, target: Target, memo: dict) -> list[KernelConfig]:
    """The `gemm` kind's configurations a cover of `te` is priced with, once per compile (`memo`:
    every weight of the expression's shape asks): _per_block_tile of the unsplit ones (the
    remainder runs in the epilogue, which a split-K tile's last block alone would run, and the
    pricing spreads it over every block)."""
    found = memo.setdefault("cover_candidates", {})
    if te not in found:
        found[te] = _per_block_tile([c for c in dense_candidates(te, view, target, memo) if c.split_k == 1], target)
    return found[te]


def _per_block_tile(candidates: list[KernelConfig], target: Target) -> list[KernelConfig]:
    """The PER_BLOCK_TILE configurations of each block tile the dense kernel runs fastest: the
    cover scales a configuration's work by the share of its tiles each block walks, which its block
    tile sets, so thread tiles and pipeline depths keep their dense order."""
    by_tile: dict = {}
    for cfg in candidates:
        by_tile.setdefault(cfg.tile("block"), []).append((predict(cfg, target).us, cfg))
    return [cfg for group in by_tile.values() for _, cfg in sorted(group, key=lambda g: g[0])[:PER_BLOCK_TILE]]


def _splits(nonzero: np.ndarray | MaskTiles, row_tile: int, k_tile: int) -> list[tuple]:
    """(kept blocks mask, BCSR offsets, k tiles, ELL width) for each threshold of the [rows, K]
    mask at (row_tile, k_tile) blocks."""
    tiles = nonzero if isinstance(nonzero, MaskTiles) else MaskTiles(nonzero)
    per_row = tiles.padded_row_counts(row_tile, k_tile)                     # [rows, k tiles]
    counts = tiles.block_counts(row_tile, k_tile)                           # [row tiles, k tiles]
    out = []
    for t in _thresholds(counts):
        kept = counts >= t
        rest = (per_row * ~np.repeat(kept, row_tile, axis=0)).sum(axis=1)
        offsets = np.concatenate([[0], np.cumsum(kept.sum(axis=1))])
        out.append((kept, tuple(int(x) for x in offsets), tuple(int(x) for x in np.nonzero(kept)[1]),
                    int(rest.max())))
    return out


def _add_parts(te, ins, view, side, values: np.ndarray, cover: Cover, consts: dict, types: dict):
    """The cover's constants (tiles in the operand's layout; ELL indices and values), added to
    `consts`/`types`: their names (tiles, index, values)."""
    R, K = values.shape
    keep = np.repeat(np.repeat(cover.kept, cover.row_tile, axis=0), cover.k_tile, axis=1)[:R, :K]
    operand = view.b if side == "b" else view.a
    dtype = operand.dtype
    tiles = np.where(keep, values, 0).astype(dtype.np)
    if not (view.b_k_fastest if side == "b" else view.a_k_fastest):
        tiles = np.ascontiguousarray(tiles.T)          # [K, rows]: the layout the operand was read in
    rest = np.where(keep, 0, values)
    # [J, rows]: a warp's lanes hold consecutive rows of the operand (the output's fast axis when
    # it is B), so they read consecutive entries
    idx = np.zeros((max(cover.ell, 1), R), INDEX.np)
    val = np.zeros((max(cover.ell, 1), R), dtype.np)
    for r in range(R):
        ks = np.nonzero(rest[r])[0]
        idx[:len(ks), r] = ks
        val[:len(ks), r] = rest[r, ks]
    base = ins[next(x.arg for x in walk(operand) if isinstance(x, Load))]
    names = []
    for suffix, data in (("cover_tiles", tiles), ("cover_idx", idx), ("cover_val", val)):
        name, n = f"{base}.{suffix}", 1
        while name in consts or name in types:
            name, n = f"{base}.{suffix}.{n}", n + 1
        consts[name] = Constant.from_array(data)
        types[name] = consts[name].type
        names.append(name)
    return tuple(names)


def cover_expr(te: TensorExpr, ins, view: GemmView, side: str, names, types: dict):
    """The expression reading its operand from the cover: the tiles part in the contraction, the
    ELL part folded into the epilogue; (expression, input names), inputs no longer read dropped."""
    tiles, idx, val = names
    operand, other = (view.b, view.a) if side == "b" else (view.a, view.b)
    group = view.n if side == "b" else view.m
    r, k = linear_index(group), linear_index(view.k)
    nt, ni, nv = len(te.inputs), len(te.inputs) + 1, len(te.inputs) + 2
    k_fast = view.b_k_fastest if side == "b" else view.a_k_fastest
    read = Load(nt, (r, k) if k_fast else (k, r), types[tiles].dtype)
    read = read if read.dtype is operand.dtype else cast(read, operand.dtype)

    def swap(e: Expr) -> Expr:
        return read if e == operand else map_children(e, swap)

    body = swap(te.body)
    j = Var(ELL_AXIS)
    at = cast(Load(ni, (j, r), INDEX), DType.int64)
    other_at = substitute_vars(other, _decompose(at, view.k))
    value = Load(nv, (j, r), types[val].dtype)
    acc_dt = te.body.dtype
    term = binary("mul", other_at, value if value.dtype is operand.dtype else cast(value, operand.dtype))
    term = term if term.dtype is acc_dt else cast(term, acc_dt)
    ell = types[idx].shape[0]
    summed = binary("add", Var(ACC, acc_dt), Fold("sum", ((ELL_AXIS, ell),), term, acc_dt))
    epilogue = summed if te.epilogue is None else substitute(te.epilogue, ACC, summed)
    new = te.replace(inputs=te.inputs + tuple(types[n] for n in names), body=body, epilogue=epilogue)
    return drop_unused_inputs(new, tuple(ins) + tuple(names))


def _decompose(linear: Expr, group) -> dict[str, Expr]:
    """Each variable of `group` ((var, extent), last fastest) from its row-major linear index."""
    out: dict[str, Expr] = {}
    stride = 1
    for k in range(len(group) - 1, -1, -1):
        v, e = group[k]
        q = binary("idiv", linear, stride) if stride > 1 else linear
        out[v] = q if k == 0 else binary("imod", q, e)
        stride *= e
    return out
