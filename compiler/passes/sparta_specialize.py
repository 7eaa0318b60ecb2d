"""sparta.specialize (SparTA, OSDI'22): contractions over a constant operand with zero tiles get
a block-sparse kind, their k loops walking only the non-zero tiles: `block_sparse_gemm` for the
SIMT `gemm` kind (kinds/block_sparse_gemm.py), `block_sparse_tc_gemm` for the tensor-core kinds
(tc_gemm, wgmma_gemm: tf32, fp16, bf16; kinds/block_sparse_tc_gemm.py, tc_gemm's tilings).

For each spec Roller gave one of those kinds, the constant operand (a weight, through whatever
index map the texpr reads it with: a transpose, a reshape) is evaluated at every (row, k); each of
the kind's tile configurations is re-priced with the share of its (row tile, k tile) blocks that
hold a non-zero (FLOPs, loads and shared-memory traffic scale with it), and the best of them
replaces the dense choice only where the micro-model predicts it faster. So a dense model, or a
weight whose zeros do not line up with any tile, keeps its kernels exactly (--disable sparta
gives the same plan). The choice of block size is the choice of tile: BCSR at the rTile's
granularity, as SparTA transforms a weight to the block size its kernel template wants."""
from __future__ import annotations

import dataclasses
import functools
import heapq
import math

import numpy as np

from ..analysis.evaluate import evaluate, grid_env
from ..analysis.views import GemmView, gemm_view, vars_of
from ..ir.dataflow import all_plans, rewrite
from ..ir.plan import ComputeStep, Plan
from ..ir.spec import KernelSpec
from ..ir.texpr import Load, TensorExpr, replace_loads, walk
from ..ir.tiles import KernelConfig, Workload, serial_steps
from ..codegen.staged_epilogue import l2_store_bytes
from ..kinds import block_sparse_gemm, block_sparse_tc_gemm, gemm, tc_gemm, wgmma_gemm
from ..kinds.gemm import gemm_candidates
from ..kinds.tc_gemm import SPLIT_K_STEPS
from ..roller.construct import dram_bytes, io_sizes, offered
from ..roller.cost_model import expr_flops
from ..roller.micro_model import predict, predict_workload
from ..targets import Target
from .roller import tile_spec, with_workspace

MIN_ZERO_SHARE = 0.05        # an operand with fewer zeros than this is not worth pricing
MAX_OPERAND_ELEMENTS = 1 << 26   # the operand is evaluated whole; beyond this it stays dense
# the dense kinds Roller chooses -> the block-sparse kind whose tilings are priced against them (a
# wgmma_gemm is priced against tc_gemm's tilings walking the listed tiles: no sparse wgmma yet)
SPARSE_KIND = {gemm.NAME: block_sparse_gemm.NAME, tc_gemm.NAME: block_sparse_tc_gemm.NAME,
               wgmma_gemm.NAME: block_sparse_tc_gemm.NAME}


def sparta_specialize(plan: Plan, target: Target, memo: dict | None = None) -> tuple[Plan, dict]:
    """The plan with each contraction that pays as block-sparse re-kinded; the record lists every
    contraction over a constant operand with zeros: its pattern, and the dense and sparse prices.
    `memo`: the choices already made for the same expressions (welder's pricing asks first)."""
    constants = {n: c for p in all_plans(plan) for n, c in p.constants}
    record: dict = {"kernels": []}
    memo = {} if memo is None else memo

    def one(step, types):
        if not (isinstance(step, ComputeStep) and isinstance(step.spec, KernelSpec)):
            return step
        spec, entry = specialize(step.spec, constants, target, memo)
        if entry is not None:
            record["kernels"].append(entry)
        return ComputeStep(with_workspace(spec, types))    # a split dense kernel's, dropped where it went sparse

    plan = rewrite(plan, one)
    record["sparse_kernels"] = sum(e["chosen"] == "block_sparse" for e in record["kernels"])
    return plan, record


def specialize(spec: KernelSpec, constants: dict, target: Target, memo: dict):
    """(spec, record entry or None): the spec re-kinded when the sparse kernel is predicted faster."""
    if spec.kind not in SPARSE_KIND or spec.config is None or not spec.composable:
        return spec, None
    te, ins = spec.stage.expr, spec.stage.inputs
    # the tensor-core kinds' tilings at the spec's precision, the SIMT kind's for `gemm`
    precision = None if spec.kind == gemm.NAME else spec.precision or spec.config.param("precision")
    if precision == "int8":     # the imma stage's integer contractions: no block-sparse int8 kernel is tested
        return spec, None
    choices = memo.setdefault("choices", {})
    if (te, ins, precision) not in choices:
        choices[te, ins, precision] = _sparse_choice(te, ins, constants, target, memo, precision)
    choice = choices[te, ins, precision]
    if choice is None:
        return spec, None
    dense_us = predict(spec.config, target).us
    entry = {"kernel": te.name, "ops": list(spec.ops), "operand": choice["operand"], "input": choice["input"],
             "zero_share": choice["zero_share"], "predicted_us": {"dense": round(dense_us, 3)}, "chosen": "dense"}
    if choice["best"] is None:
        entry["why"] = "no tile configuration has a zero block"
        return spec, entry
    cfg, sparse_us, density, unsplit = choice["best"]
    entry["predicted_us"]["block_sparse"] = round(sparse_us, 3)
    entry.update(format="bcsr", block=[cfg.tile("block").size("n" if choice["operand"] == "b" else "m"),
                                       cfg.tile("block").size("k")], density=round(density, 4),
                 flops_dense=int(cfg.param("flops_dense")), flops_executed=int(cfg.param("flops")))
    if sparse_us >= dense_us:
        entry["why"] = "the micro-model predicts the dense kernel at least as fast"
        return spec, entry
    entry.update(chosen="block_sparse", kind=cfg.kind)
    return dataclasses.replace(spec, kind=cfg.kind, config=cfg,
                               candidates=(cfg,) if unsplit is None else (cfg, unsplit)), entry


def sparse_speedup(spec: KernelSpec, constants: dict, target: Target, memo: dict) -> float | None:
    """How many times faster the micro-model predicts `spec` (a contraction not yet tiled) as a
    block-sparse kernel than as its dense best; None where it would stay dense. Welder's
    shared-memory level asks before fusing a contraction into a row chain, where it runs on SIMT
    lanes (walking its listed tiles: passes/sparta_rows.py); `memo` is then the one the sparta
    stage reuses."""
    if not spec.composable or spec.kind is not None or gemm_view(spec.expr) is None:
        return None
    tiled = tile_spec(spec, target)
    _, entry = specialize(tiled, constants, target, memo)
    if entry is None or entry["chosen"] != "block_sparse":
        return None
    return entry["predicted_us"]["dense"] / entry["predicted_us"]["block_sparse"]


def _sparse_choice(te: TensorExpr, ins: tuple[str, ...], constants: dict, target: Target, memo: dict,
                   precision: str | None = None) -> dict | None:
    """For an expression with a constant operand holding zeros: that operand, its input, its share
    of zeros, and the fastest block-sparse configuration (config, predicted us, block density;
    None when no tiling has a zero block) among the SIMT tilings, or with `precision` the
    tensor-core ones. None: no such operand."""
    view = gemm_view(te)
    if view is None:
        return None
    found = _constant_operand(te, view, [constants[v].array() if v in constants else None for v in ins], ins, memo)
    if found is None:
        return None
    operand, mask = found
    return {"operand": operand, "input": ins[_operand_input(view, operand)],
            "zero_share": round(mask.zero_share, 4),
            "best": _best_sparse(te, view, operand, mask, target, memo, precision)}


def _operand_input(view: GemmView, operand: str) -> int:
    """The input the operand loads (its first load: a weight, perhaps scaled by another constant)."""
    expr = view.b if operand == "b" else view.a
    return next(x.arg for x in walk(expr) if isinstance(x, Load))


def operand_values(expr, view: GemmView, rows, data) -> np.ndarray | None:
    """The values [batch, rows, K] of a contraction operand whose loads all read constant data
    (`data`: each input's array, None where it is not a constant), through whatever index map the
    expression reads them with; batch is 1 when the operand has no batch axis. None where an input
    is not constant, the operand is larger than MAX_OPERAND_ELEMENTS, or it cannot be evaluated."""
    loads = [x for x in walk(expr) if isinstance(x, Load)]
    if not loads or any(data[x.arg] is None for x in loads):
        return None
    batch = view.batch if vars_of(expr) & {v for v, _ in view.batch} else ()
    B, R = math.prod(e for _, e in batch), math.prod(e for _, e in rows)
    if B * R * view.K > MAX_OPERAND_ELEMENTS:
        return None
    values = evaluate(expr, grid_env([batch, rows, view.k]), data)
    return None if values is None else np.broadcast_to(values, (B, R, view.K))


def _constant_operand(te: TensorExpr, view: GemmView, data, ins: tuple[str, ...],
                      memo: dict) -> tuple[str, MaskTiles] | None:
    """("a" or "b", its non-zero mask [rows, K] over every batch) for an operand whose loads all
    read constant data and that has zeros; else None."""
    for operand, expr, rows in (("b", view.b, view.n), ("a", view.a, view.m)):
        loads = [x for x in walk(expr) if isinstance(x, Load)]
        if not loads or any(data[x.arg] is None for x in loads):
            continue
        mask = operand_mask(expr, view, rows, data, ins, memo)
        return None if mask is None else (operand, mask)
    return None


def operand_mask(expr, view: GemmView, rows, data, ins: tuple[str, ...], memo: dict) -> MaskTiles | None:
    """The non-zeros [rows, K] over every batch of a constant operand (operand_values), once per
    compilation for the same operand read the same way (the block-sparse and the cover searches
    both ask, for every expression that contracts it); None where it is not constant, too large,
    or has fewer than MIN_ZERO_SHARE zeros (only sparse weights' masks are kept). The key numbers
    the operand's loads in order: the same weight read the same way by expressions whose inputs
    are listed differently (a GEMM alone, a row chain) is one key."""
    key = (*numbered(expr, ins), tuple(rows), view.k, view.batch)
    masks = memo.setdefault("masks", {})
    if key not in masks and isinstance(expr, Load) and data[expr.arg] is not None \
            and nonzeros(ins[expr.arg], data[expr.arg], memo) == data[expr.arg].size:
        masks[key] = None       # a plain read of a constant without zeros: nothing to evaluate (dense models)
    if key not in masks:
        values = operand_values(expr, view, rows, data)
        nonzero = None if values is None else (values != 0).any(axis=0)
        masks[key] = None if nonzero is None or 1.0 - nonzero.mean() < MIN_ZERO_SHARE else MaskTiles(nonzero)
    return masks[key]


def nonzeros(name: str, array: np.ndarray, memo: dict) -> int:
    """The non-zero elements of constant `name` (its `array`), counted once per compilation
    (`memo`): Welder's questions, the row chains' and the searches ask it of the same weights.
    By name, as the masks are: a name holds one constant for the whole compilation."""
    counts = memo.setdefault("nonzeros", {})
    if name not in counts:
        counts[name] = int(np.count_nonzero(array))
    return counts[name]


def numbered(expr, ins: tuple[str, ...]) -> tuple:
    """(`expr` with its loads numbered in the order they are read, the values they read in that
    order): the same operand read the same way, whatever the inputs of the expression it is in."""
    order: dict[int, int] = {}
    for x in walk(expr):
        if isinstance(x, Load):
            order.setdefault(x.arg, len(order))
    return (replace_loads(expr, lambda x: Load(order[x.arg], x.index, x.dtype)),
            tuple(ins[a] for a in sorted(order, key=order.get)))


class MaskTiles:
    """The non-zero counts of a [rows, K] mask per row and k tile, summed over the mask once per
    k tile: the searches try every block shape (row tile x k tile) of every configuration, and a
    block's count is then a sum over its rows' counts, not over the mask again."""

    def __init__(self, nonzero: np.ndarray):
        # kept a bit an element (a compilation keeps every sparse weight's: operand_mask)
        self.shape = nonzero.shape
        self.nonzeros = int(np.count_nonzero(nonzero))
        self.zero_share = 1.0 - self.nonzeros / nonzero.size if nonzero.size else 0.0
        # row-major whatever the mask's layout (a transposed weight's is column-major): unpacked
        # along the rows, column-major bits cost tens of times more
        self._bits = np.ascontiguousarray(np.packbits(nonzero, axis=1))
        self._rows: dict[int, np.ndarray] = {}

    @property
    def nonzero(self) -> np.ndarray:
        """The [rows, K] mask."""
        return np.unpackbits(self._bits, axis=1, count=self.shape[1]).view(bool)    # (bits are 0 or 1)

    def row_counts(self, k_tile: int) -> np.ndarray:
        """[rows, k tiles]: each row's non-zeros in each k tile (the last one padded with zeros);
        from a finer k tile's counts where one divides it (the searches' k tiles are powers of two)."""
        if k_tile not in self._rows:
            rows, k = self.shape
            kt = math.ceil(k / k_tile)
            finer = max((f for f in self._rows if f < k_tile and k_tile % f == 0), default=None)
            if finer is None:
                padded = np.zeros((rows, kt * k_tile), dtype=bool)
                padded[:, :k] = self.nonzero
                self._rows[k_tile] = padded.reshape(rows, kt, k_tile).sum(axis=2, dtype=np.int32)
            else:       # whole groups of the finer tiles, zero tiles past the end
                per = k_tile // finer
                counts = np.zeros((rows, kt * per), dtype=np.int32)
                fine = self._rows[finer]
                counts[:, :fine.shape[1]] = fine[:, :kt * per]
                self._rows[k_tile] = counts.reshape(rows, kt, per).sum(axis=2, dtype=np.int32)
        return self._rows[k_tile]

    def padded_row_counts(self, row_tile: int, k_tile: int) -> np.ndarray:
        """row_counts with zero rows added up to whole row tiles."""
        per_row = self.row_counts(k_tile)
        rows = per_row.shape[0]
        padded = np.zeros((math.ceil(rows / row_tile) * row_tile, per_row.shape[1]), dtype=np.int64)
        padded[:rows] = per_row
        return padded

    def block_counts(self, row_tile: int, k_tile: int) -> np.ndarray:
        """[row tiles, k tiles]: the non-zeros of each block."""
        padded = self.padded_row_counts(row_tile, k_tile)
        return padded.reshape(padded.shape[0] // row_tile, row_tile, -1).sum(axis=1)


def bcsr(nonzero: np.ndarray | MaskTiles, row_tile: int, k_tile: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(offsets, k tiles) of the [rows, K] mask at (row_tile, k_tile) blocks: block row r holds a
    non-zero in k tiles ktiles[offsets[r]:offsets[r + 1]]."""
    tiles = nonzero if isinstance(nonzero, MaskTiles) else MaskTiles(nonzero)
    return bcsr_of(tiles.block_counts(row_tile, k_tile) > 0)


def bcsr_of(blocks: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(offsets, k tiles) of a [block rows, k tiles] mask of the blocks holding a non-zero."""
    offsets = np.concatenate([[0], np.cumsum(blocks.sum(axis=1))])
    return tuple(int(x) for x in offsets), tuple(int(x) for x in np.nonzero(blocks)[1])


def block_work(batch: int, m_tiles: int, n_tiles: int, operand: str, offsets: tuple[int, ...],
               split: int = 1) -> list[int]:
    """Non-zero k tiles each block walks, in launch order (the tiled kinds' block index runs over
    n tiles fastest, then m tiles, then the slices of a split K, then the batch). A split row's
    listed tiles go ceil(count / split) to a slice, as codegen/tiled.py divides them."""
    per_row = np.diff(np.asarray(offsets, dtype=np.int64))
    one = np.tile(per_row[:n_tiles], m_tiles) if operand == "b" else np.repeat(per_row[:m_tiles], n_tiles)
    if split > 1:
        per = -(-one // split)
        one = np.concatenate([np.clip(one - s * per, 0, per) for s in range(split)])
    return np.tile(one, batch).tolist()


SIMULATED_BLOCKS = 1 << 14    # beyond this many blocks the list-scheduling bound replaces the simulation


def busiest_share(work: list[int], sms: int, k_tiles: int) -> float:
    """The busiest SM's k tiles over what it would walk dense: blocks go, in order, to the SM with
    the least work so far (as the hardware hands a freed SM the next block), each block walking
    its own tiles sparse or all `k_tiles` dense. Equal rows give about the density; one dense row
    tile among empty ones gives more, down to one block's worth when the grid is one wave."""
    if not work:
        return 0.0
    dense = math.ceil(len(work) / sms) * k_tiles
    if len(work) > SIMULATED_BLOCKS:     # greedy list scheduling is within one block of this
        return min(1.0, (sum(work) / sms + max(work)) / dense)
    loads = [0] * min(sms, len(work))
    for w in work:
        heapq.heapreplace(loads, loads[0] + w)
    return max(loads) / dense


@functools.lru_cache(maxsize=4096)
def grid_busiest_share(batch: int, m_tiles: int, n_tiles: int, operand: str, offsets: tuple[int, ...], sms: int,
                       k_tiles: int, split: int = 1) -> float:
    """busiest_share of a grid's blocks, once per grid and pattern: configurations that differ only
    in thread tiles or pipeline depth, and welder's repeated questions, share it. Split into
    `split` slices of K, a dense block walks ceil(k_tiles / split) of them."""
    return busiest_share(block_work(batch, m_tiles, n_tiles, operand, offsets, split), sms, -(-k_tiles // split))


def dense_candidates(te: TensorExpr, view: GemmView, target: Target, memo: dict,
                     precision: str | None = None) -> list[KernelConfig]:
    """The `gemm` kind's configurations of `te` (with `precision`, the `tc_gemm` kind's at it),
    computed once per compile (`memo`): the block-sparse and cover searches both re-price them."""
    found = memo.setdefault("candidates", {})
    if (te, precision) not in found:
        found[te, precision] = offered(gemm_candidates(te, view, target, split=gemm.splits_k(te, view))
                                       if precision is None else tc_gemm.candidates(te, target, precision))
    return found[te, precision]


def _best_sparse(te: TensorExpr, view: GemmView, operand: str, nonzero: "np.ndarray | MaskTiles", target: Target,
                 memo: dict | None = None, precision: str | None = None):
    """(config, predicted us, block density, the best unsplit config where the best splits K) of
    the fastest block-sparse configuration among the dense candidates (dense_candidates: the `gemm`
    kind's, with `precision` the `tc_gemm` kind's at it), or None when no tiling has a zero block.

    Best first: each candidate is priced with a floor that depends on the mask's count of
    non-zeros alone (_floors, kept in `memo`), then with the lower bound of the mask's own BCSR
    table (the busiest SM's share bounded by the average), then exactly (the busiest SM
    simulated), the cheapest price in hand always refined next: the first exact price to come out
    is the best, as pricing every candidate exactly would find it (each price is at most the
    next; ties to the earlier candidate). Where the best splits K, the search goes on for the best
    unsplit one (the rammer stage may co-launch it instead: render.unsplit_form); configurations
    are made for those two only."""
    memo = {} if memo is None else memo
    mask = nonzero if isinstance(nonzero, MaskTiles) else MaskTiles(nonzero)
    sizes = io_sizes(te)
    sparse_bytes = te.inputs[_operand_input(view, operand)].nbytes
    tables: dict = {}

    def table(row_tile: int, k_tile: int):
        """The mask's BCSR at the block shape; None where it lists every tile."""
        if (row_tile, k_tile) not in tables:
            offsets, ktiles = bcsr(mask, row_tile, k_tile)
            listed = len(ktiles) < (len(offsets) - 1) * math.ceil(view.K / k_tile)
            tables[row_tile, k_tile] = (offsets, ktiles) if listed else None
        return tables[row_tile, k_tile]

    queue = list(_floors(te, view, operand, mask, target, memo, precision))    # sorted: a heap already
    best = unsplit = None       # (us, n, config, (row tile, k tile), extras)
    while queue:
        price, n, stage, cfg, shape, extras = heapq.heappop(queue)
        if best is not None and cfg.split_k > 1:
            continue            # past the best, only an unsplit one is wanted
        if stage == FLOOR:
            found = table(*shape)
            if found is not None and sliced_evenly(cfg, found[0]):
                w, _ = bcsr_workload(cfg, view, operand, *found, sizes, sparse_bytes, target, True, extras)
                heapq.heappush(queue, (predict_workload(w, target).us, n, BOUND, cfg, shape, extras))
        elif stage == BOUND:
            w, _ = bcsr_workload(cfg, view, operand, *table(*shape), sizes, sparse_bytes, target, extras=extras)
            heapq.heappush(queue, (predict_workload(w, target).us, n, EXACT, cfg, shape, extras))
        else:       # the cheapest left, priced exactly
            priced = (price, n, cfg, shape, extras)
            best = priced if best is None else best
            if cfg.split_k == 1:
                unsplit = priced
                break
    if best is None:
        return None

    def made(priced) -> KernelConfig:
        _, _, cfg, shape, extras = priced
        return bcsr_config(cfg, view, operand, *table(*shape), sizes, sparse_bytes, expr_flops(te), target, extras)
    config = made(best)
    return config, best[0], config.param("density"), \
        made(unsplit) if config.split_k > 1 and unsplit is not None else None


FLOOR, BOUND, EXACT = range(3)      # _best_sparse's prices of a configuration, each at most the next
FLOOR_GRAIN = 128       # masks whose non-zeros round down to the same 1/FLOOR_GRAIN of the operand share floors


def _floors(te: TensorExpr, view: GemmView, operand: str, mask: MaskTiles, target: Target, memo: dict,
            precision: str | None) -> list[tuple]:
    """The dense candidates as (floor, n, FLOOR, config, its (row tile, k tile), its dense_extras),
    sorted: the floor is the lower bound of bcsr_workload for the lightest table a mask of as many
    non-zeros can have at the configuration's block shape (fewest_tiles), under that of the mask's
    own table (the bound grows with the tiles listed and the longest row's). It depends on the
    count alone, so it is computed once per compilation for the masks of an expression's operand
    whose counts round down alike (the layers of a model pruned alike): with the count rounded
    down, still a floor."""
    rows, size = mask.shape[0], mask.shape[0] * mask.shape[1]
    grain = mask.nonzeros * FLOOR_GRAIN // max(1, size)
    key = (te, precision, operand, grain)
    floors = memo.setdefault("floors", {})
    if key not in floors:
        count = grain * size // FLOOR_GRAIN
        sizes = io_sizes(te)
        sparse_bytes = te.inputs[_operand_input(view, operand)].nbytes
        lightest: dict = {}
        ranked = []
        for n, cfg in enumerate(dense_candidates(te, view, target, memo, precision)):
            blk = cfg.tile("block")
            shape = (blk.size("n" if operand == "b" else "m"), blk.size("k"))
            if shape not in lightest:
                lightest[shape] = fewest_tiles(count, rows, view.K, *shape)
            extras = dense_extras(cfg, te, view, sizes)
            w, _ = bcsr_workload(cfg, view, operand, *lightest[shape], sizes, sparse_bytes, target, True, extras)
            ranked.append((predict_workload(w, target).us, n, FLOOR, cfg, shape, extras))
        floors[key] = sorted(ranked, key=lambda f: f[:2])
    return floors[key]


def fewest_tiles(nonzeros: int, rows: int, k: int, row_tile: int, k_tile: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(offsets, k tiles) of the lightest BCSR table a [rows, k] mask with `nonzeros` non-zeros can
    have at (row_tile, k_tile) blocks: as few blocks as hold them, spread evenly over the block rows
    (no table of such a mask lists fewer tiles, nor a longest row shorter)."""
    block_rows, k_tiles = -(-rows // row_tile), -(-k // k_tile)
    per_row, longer = divmod(-(-nonzeros // (row_tile * k_tile)), block_rows)
    counts = per_row + (np.arange(block_rows) < longer)
    return bcsr_of(np.arange(k_tiles)[None, :] < counts[:, None])


def least_busiest_share(batch: int, m_tiles: int, n_tiles: int, operand: str, offsets: tuple[int, ...],
                        sms: int, k_tiles: int, split: int = 1) -> float:
    """A lower bound of `grid_busiest_share` without the simulation: the SMs' average share (the
    busiest has at least the average). The time a configuration is predicted grows with the
    share, so a search may skip the simulation of a configuration this bound already prices out."""
    rows, other = (n_tiles, m_tiles) if operand == "b" else (m_tiles, n_tiles)
    blocks = batch * m_tiles * n_tiles * split
    if blocks == 0:
        return 0.0
    # the first `rows` block rows' listed tiles: a difference of offsets (the search asks this of
    # every candidate configuration)
    work = batch * other * (offsets[min(rows, len(offsets) - 1)] - offsets[0])
    return work / (min(sms, blocks) * math.ceil(blocks / sms) * -(-k_tiles // split))


def sliced_evenly(cfg: KernelConfig, offsets) -> bool:
    """Whether a split configuration's slices each get one of the longest block row's listed
    tiles at least: more slices would only add empty blocks and partial sums."""
    return cfg.split_k <= _longest_row(tuple(offsets))


@functools.lru_cache(maxsize=4096)
def _longest_row(offsets: tuple[int, ...]) -> int:
    """The most k tiles one block row lists."""
    return max((offsets[r + 1] - offsets[r] for r in range(len(offsets) - 1)), default=0)


def dense_extras(cfg: KernelConfig, te: TensorExpr | None, view: GemmView, sizes) -> tuple[float, float]:
    """(L2 bytes, DRAM bytes) of a dense contraction configuration's workload besides its operand
    loads, whatever the density: the output's stores and a split's partial tiles, as the kind
    counts them (kinds/gemm.py: whole tiles through L2; kinds/tc_gemm.py: the output's elements,
    through DRAM too (`split_k_terms`), and unsplit the staged epilogue's stores, which need `te`)."""
    split = cfg.split_k
    if cfg.kind == gemm.NAME:
        blk = cfg.tile("block")
        tiles = view.B * math.ceil(view.M / blk.size("m")) * math.ceil(view.N / blk.size("n"))
        return sizes[1] + (2.0 * split * tiles * blk.size("m") * blk.size("n") * 4 if split > 1 else 0.0), 0.0
    if split == 1:
        return l2_store_bytes(te, view), 0.0
    ws = 2.0 * split * te.output.size * 4
    return sizes[1] + ws, ws


def bcsr_workload(cfg: KernelConfig, view: GemmView, operand: str, offsets, ktiles, sizes, sparse_bytes: int,
                  target: Target, lower_bound: bool = False,
                  extras: tuple[float, float] | None = None) -> tuple[Workload, float]:
    """(workload, block density) of the dense `gemm` or `tc_gemm` configuration `cfg` walking only
    the listed k tiles: FLOPs and shared-memory traffic scaled by the busiest SM's share of them,
    L2 loads and the sparse operand's DRAM bytes by the block density. `lower_bound`: the share
    bounded from below (`least_busiest_share`), for a search to discard configurations cheaply (it
    prices the workload alone: no configuration is made). `extras`: dense_extras of `cfg` (a
    `gemm` configuration's without them)."""
    blk = cfg.tile("block")
    k_tiles = math.ceil(view.K / blk.size("k"))
    density = len(ktiles) / ((len(offsets) - 1) * k_tiles)
    w = cfg.workload
    split = cfg.split_k
    mt, nt = math.ceil(view.M / blk.size("m")), math.ceil(view.N / blk.size("n"))
    if extras is None:
        extras = dense_extras(cfg, None, view, sizes)
    stored, ws_dram = extras
    loads = max(0.0, w.l2_bytes - stored)
    ins = sizes[0] - sparse_bytes * (1.0 - density)
    # the busiest SM's share of the dense work, not the average: row tiles differ in their
    # non-zero tiles, and the kernel lasts as long as the SM with the most of them
    share = least_busiest_share if lower_bound else grid_busiest_share
    offsets = tuple(offsets)
    busy = share(view.B, mt, nt, operand, offsets, target.sms, k_tiles, split)
    # the k loop's serial round trips: the longest block row's listed tiles (a slice of them)
    longest = _longest_row(offsets)
    steps = w.serial_steps * longest / k_tiles if split == 1 else \
        serial_steps(-(-longest // split), int(cfg.param("stages", 1))) + SPLIT_K_STEPS
    # (the constructor, not dataclasses.replace: a search makes this for thousands of configurations)
    w = Workload(blocks=w.blocks, threads=w.threads, shared_bytes=w.shared_bytes, registers=w.registers,
                 flops=w.flops * busy, compute_dtype=w.compute_dtype,
                 dram_bytes=dram_bytes((ins, sizes[1], sizes[2]), loads * density, target) + ws_dram,
                 l2_bytes=loads * density + stored, shared_bytes_moved=w.shared_bytes_moved * busy,
                 ilp=w.ilp, issue_efficiency=w.issue_efficiency, bytes_in_flight=w.bytes_in_flight,
                 serial_steps=steps)
    return w, density


def bcsr_config(cfg: KernelConfig, view: GemmView, operand: str, offsets, ktiles, sizes, sparse_bytes: int,
                dense_flops: float, target: Target, extras: tuple[float, float] | None = None) -> KernelConfig:
    """The block-sparse configuration (SPARSE_KIND) of the dense configuration `cfg` walking only
    the listed k tiles (its workload: bcsr_workload's, the busiest SM simulated)."""
    w, density = bcsr_workload(cfg, view, operand, offsets, ktiles, sizes, sparse_bytes, target, extras=extras)
    contraction = 2 * view.B * view.M * view.N * view.K
    flops = dense_flops - contraction + round(contraction * density)
    return KernelConfig(SPARSE_KIND[cfg.kind], cfg.tiles, cfg.params + (
        ("operand", operand), ("format", "bcsr"), ("density", round(density, 4)),
        ("flops", flops), ("flops_dense", dense_flops), ("skipped_bytes", round(sparse_bytes * (1.0 - density))),
        ("bcsr_offsets", tuple(offsets)), ("bcsr_ktiles", tuple(ktiles))), w)
