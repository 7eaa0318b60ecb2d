"""Kind `resident_rows`: a row chain as one kernel whose blocks own whole rows (Welder's
shared-memory level; AStitch's regional scheme for reductions with broadcasts).

A *row chain* is a multi-stage spec of these roles (ir/spec.py levels say which is which):

- **resident rows** (carried SHARED): a contraction or map whose output is rows x N (rows = any
  shape R, N its row length), read along the row by a later stage's reduction. A block computes
  its rows of it once into shared memory: QK^T for attention, the MatMul of MatMul -> Softmax, an
  MLP's hidden rows, a residual sum that a LayerNorm reduces. No R x N matrix in DRAM, unless a
  later kernel reads it too: then it is written to global memory as well (a pre-norm
  transformer's residual stream);
- **row statistics** (carried SHARED): one-axis reductions whose output is R (a row max, a sum of
  exponentials, a mean, a variance). A warp per row reduces with shuffles; the value stays in
  shared memory for the stages after it (and is written to global memory too where a later
  kernel reads it: an unrolled scan's y_t);
- **maps** (carried REGISTER): composed into the stages that read them (ir/compose.py), so an
  element is computed where it is used (exp(s - max) / sum, masks, NaN guards);
- the **final** stage, written to global memory: a map over the rows (softmax's output), a row
  statistic, or a contraction over the row axis (P.V for attention), indexed freely otherwise
  (a transposed output, a reshaped V).

Resident rows and statistics are *phases* computed in stage order, each reading those before it:
so a GEMM + residual -> LayerNorm -> GEMM + GELU -> GEMM + residual -> LayerNorm is one chain of
three resident phases and four statistics. The chain's J is the last resident rows' length (or,
without any, the statistics'). Every stage reads resident rows at (row..., j) and a statistic at
(row...), where `row...` are plain index variables of the reader (which of its output axes are
the row's is read off those loads) and `j` its reduction variable or one of its own output
variables over that row's length: what a block owns is then exactly what it reads. Anything else
declines, with the reason. Rows longer than shared memory holds decline too
(kinds/flash_attention.py takes attention of any row length). A chain of statistics alone whose
row fits registers is kinds/register_rows.py's (the row read once, not once per phase).

The kernel: a block of THREADS threads owns up to MAX_ROWS_PER_BLOCK consecutive rows. Each phase
in order, a barrier after each: resident rows a thread per element (the contraction's loop
inline); a statistic a warp per row, lanes striding the row, shuffles combining (when the block
has fewer rows than warps, `warps_per_row` warps share a row and one thread combines their
partials). Then the final stage: a row of at least 32 columns a warp (or several) with lanes over
its columns, shorter rows threads over (row, column); either way consecutive threads write
consecutive columns. Indices are 32-bit where every stage stays within them. Values are kept in the compute type (float for half types) after rounding to
their element type, as a store and a load would."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from ..codegen.block_function import BLOCK_X
from ..codegen.cuda import ExprRenderer, combine, contiguous_strides, decompose_index, index_ctype
from ..codegen.block_function import finish_kernel
from ..codegen.tiled import TileList
from ..ir.compose import NotComposable, compose
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.kernel import MAX_POINTER_PARAMS, Kernel, KernelParam
from ..ir.spec import KernelSpec, Level
from ..analysis.dependence import extents_of, loads_of
from ..analysis.views import vars_of
from ..ir.texpr import ACC, FOLD_OPS, Const, Expr, Load, TensorExpr, Var, reduce_identity, replace_loads, value_ops

NAME = "resident_rows"
TIER = None                 # not tiled by Roller: its block shape follows the rows
THREADS = 256
WARPS = THREADS // 32
MAX_ROWS_PER_BLOCK = 16
SHARED_LIMIT = 48 * 1024    # bytes of shared memory a block may take (no opt-in needed)
BLOCKS_WANTED = 128         # about one block per SM of a large GPU before rows share a block
_ROW = Var("by_rl")         # a block's local row, the index of shared buffers


@dataclass(frozen=True)
class Reader:
    """A stage as the kernel evaluates it: composed with the maps it reads, and where its rows are."""

    expr: TensorExpr              # inputs: external values and shared values, in `values` order
    values: tuple[str, ...]
    output: str
    row_axes: tuple[int, ...]     # the output axes that index the row (in R's order)
    length: int | None = None     # resident rows: the row's length (None: a statistic, the final)


@dataclass(frozen=True)
class ColumnWalk:
    """SparTA inside a row chain (passes/sparta_rows.py finds it): `value`, resident rows or the
    final stage, a sum of products over one reduction axis with a constant operand `input` holding
    zero blocks, read at (k, column). The constant's column is the phase's output variables `columns` (row-major: the
    head and the position in it for a per-head projection). The elements of column tile c (of
    `col_tile` columns) step only through the k tiles `tiles` lists for it
    (ktiles[offsets[c]:offsets[c + 1]], each `k_tile` long; BCSR over [columns, K]), baked into
    the kernel's source. A tile is listed when any of its elements is non-zero, so what is skipped
    adds exact zeros (as the block-sparse GEMMs: an inf or NaN against a skipped zero is not seen)."""

    value: str
    input: str
    columns: tuple[tuple[str, int], ...]
    col_tile: int
    k_tile: int
    tiles: TileList
    walked: int          # k steps summed over the phase's elements (output size x K when nothing is skipped)
    skipped_bytes: int   # of the constant: elements in no listed tile, never read

    def column(self) -> str:
        """The C expression of an element's column of the constant (its output variables in scope)."""
        expr = ""
        for name, extent in self.columns:
            expr = f"({expr}) * {extent} + {name}" if expr else name
        return expr


@dataclass(frozen=True)
class RowChain:
    """What `analyse` read from a spec: the rows, the shared phases in order (resident rows and
    statistics), the final, and the products among them that walk a sparse constant's listed tiles."""

    rows: tuple[int, ...]         # R
    length: int                   # J: the row the last resident stage keeps (or the statistics reduce)
    phases: tuple[Reader, ...]    # the shared values, in the order the kernel computes them
    final: Reader
    rows_per_block: int
    walks: tuple[ColumnWalk, ...] = ()

    def walk(self, value: str) -> ColumnWalk | None:
        return next((w for w in self.walks if w.value == value), None)

    @property
    def row_count(self) -> int:
        return math.prod(self.rows)

    def residents(self) -> tuple[Reader, ...]:
        return tuple(p for p in self.phases if p.length is not None)

    @property
    def resident(self) -> Reader | None:
        """The last resident rows (the only ones, in a chain of one: attention's scores)."""
        res = self.residents()
        return res[-1] if res else None

    @property
    def stats(self) -> tuple[Reader, ...]:
        return tuple(p for p in self.phases if p.length is None)

    def shared_values(self) -> tuple[str, ...]:
        return tuple(p.output for p in self.phases)


def applies(spec) -> str | None:
    """None when this kind renders `spec`, else why not."""
    if not isinstance(spec, KernelSpec):
        return "not a kernel spec"
    chain = analyse(spec)
    return chain if isinstance(chain, str) else None


def analyse(spec: KernelSpec, fit: bool = True) -> RowChain | str:
    """The spec's row chain, or why it is not one. `fit` False: a chain whose rows do not fit in
    shared memory is still one (kinds/flash_attention.py walks its rows in tiles)."""
    if len(spec.stages) < 2:
        return "one stage"
    if len(spec.inputs) + len(spec.written) > MAX_POINTER_PARAMS // 2:    # half: room to co-launch
        return f"passes {len(spec.inputs) + len(spec.written)} tensors, more than half a launch's " \
               f"{MAX_POINTER_PARAMS} pointers"
    if spec.written[-1] != spec.stages[-1].output:
        return "does not write its last stage's value last"
    stages = list(spec.stages)
    for st in stages[:-1]:
        lvl = spec.level(st.output)
        if lvl is Level.GLOBAL:
            return f"{st.output} is carried in global memory"
        if lvl is Level.REGISTER and st.expr.reduce is not None:
            return f"{st.output} reduces but is carried in registers"
    maps = {st.output for st in stages[:-1] if spec.level(st.output) is Level.REGISTER}
    shared = [k for k, st in enumerate(stages[:-1]) if spec.level(st.output) is Level.SHARED]
    composed: dict[int, Reader] = {}
    for k in shared + [len(stages) - 1]:
        r = _composed(stages, k, maps)
        if isinstance(r, str):
            return r
        composed[k] = r
    # a shared stage is resident rows when a later stage reads it along that stage's reduction
    # (S in sum_j S.V; an MLP's hidden rows in its second product; a residual sum in its
    # LayerNorm's mean); the others are row statistics
    along: dict[str, int] = {}       # value -> the last stage that reads it along its reduction
    for j, r in composed.items():
        for v in _read_along_reduction(r):
            along[v] = max(j, along.get(v, -1))
    res_ks = [k for k in shared if along.get(stages[k].output, -1) > k]
    stat_ks = [k for k in shared if k not in res_ks]
    for k in res_ks:
        red = stages[k].expr.reduce
        if red is not None and red.op not in FOLD_OPS:    # arg max/min keep an index too
            return f"{stages[k].expr.name}: resident reduction {red.op}"
    for k in stat_ks:
        te = stages[k].expr
        if te.reduce is None or len(te.reduce.axes) != 1:
            return f"{te.name} is carried in shared memory but is neither resident rows nor a row statistic"
        if te.reduce.op not in FOLD_OPS or not te.body.dtype.is_float:
            return f"{te.name}: reduction {te.reduce.op} over {te.body.dtype.name}"
    if res_ks:
        shape = stages[res_ks[-1]].expr.output.shape
        rows, length = shape[:-1], shape[-1]
    elif stat_ks:
        e = stages[stat_ks[0]].expr
        rows, length = e.output.shape, e.reduce.extent
    else:
        return "no row values in shared memory"
    for k in res_ks:
        if stages[k].expr.output.shape[:-1] != rows:
            return f"{stages[k].expr.name}: resident rows of shape {stages[k].expr.output.shape[:-1]}, not {rows}"
    res_lengths = {stages[k].output: stages[k].expr.output.shape[-1] for k in res_ks}
    for k in stat_ks:
        e = stages[k].expr
        # a statistic walks the row of the resident rows it reads, else the chain's
        if e.output.shape != rows or (not res_ks and e.reduce.extent != length):
            return f"{e.name}: a statistic of shape {e.output.shape} over {e.reduce.extent}, not {rows} over {length}"
    stat_values = {stages[k].output for k in stat_ks}
    checked = {}
    for k, r in composed.items():
        r = _rows_of(r, res_lengths, stat_values, rows)
        if isinstance(r, str):
            return r
        checked[k] = r
    if set(spec.written[:-1]) - set(res_lengths) - stat_values:
        return f"writes {sorted(set(spec.written[:-1]) - set(res_lengths) - stat_values)}, " \
               "which are neither resident rows nor statistics"
    final = checked[len(stages) - 1]
    last = stages[-1].expr
    if last.reduce is not None and last.reduce.op not in FOLD_OPS:   # arg max/min keep an index too
        return f"{last.name}: final reduction {last.reduce.op}"
    if not set(final.values) & (stat_values | set(res_lengths)):
        return "the final stage reads no row value"
    acc = 8 if any(stages[k].expr.output.dtype is DType.float64 for k in shared) else 4
    per_row = acc * (sum(res_lengths.values()) + len(stat_ks))
    # rows per block: enough blocks (BLOCKS_WANTED) to spread over the SMs first, then as many rows
    # as allowed, so that what every row reads (K, V) is read by fewer blocks
    want = 1 << max(0, (math.prod(rows) // BLOCKS_WANTED).bit_length() - 1)
    bm = min(want, MAX_ROWS_PER_BLOCK, SHARED_LIMIT // per_row)
    if bm < 1:
        if fit:
            return f"a row of {length} does not fit in shared memory (an online softmax over tiles takes attention)"
        bm = 1
    phases = tuple(dataclasses.replace(checked[k], length=res_lengths.get(stages[k].output)) for k in shared)
    walks = tuple(w for w in spec.sparsity if isinstance(w, ColumnWalk))
    products = {p.output: p for p in phases if p.length is not None} | {final.output: final}
    for w in walks:
        why = walk_declined(products.get(w.value), w)
        if why:
            return why
    return RowChain(rows, length, phases, final, bm, walks)


def walk_declined(r: Reader | None, w: ColumnWalk) -> str | None:
    """Why resident rows or the final stage `r` cannot walk `w`'s tiles (None: it can): one summed
    reduction axis, columns that are its output's axes, a table entry for every column tile."""
    if r is None:
        return f"a column walk of {w.value}, which is neither resident rows nor the final stage"
    red = r.expr.reduce
    if red is None or red.op != "sum" or len(red.axes) != 1:
        return f"a column walk of {w.value}, which is not a sum over one axis"
    out = {f"i{a}": n for a, n in enumerate(r.expr.output.shape)}
    if any(out.get(name) != extent for name, extent in w.columns):
        return f"a column walk of {w.value} over {w.columns}, not its output's axes"
    tiles = -(-math.prod(e for _, e in w.columns) // w.col_tile)
    if len(w.tiles.offsets) != tiles + 1:
        return f"a column walk of {w.value} with {len(w.tiles.offsets) - 1} column tiles, not {tiles}"
    return None


def _composed(stages, k: int, maps: set[str]) -> Reader | str:
    """Stage k composed with the register maps it reads (transitively)."""
    st = stages[k]
    if not set(st.inputs) & maps and len(set(st.inputs)) == len(st.inputs):
        return Reader(st.expr, st.inputs, st.output, ())     # composing one stage changes nothing
    producer = {st.output: j for j, st in enumerate(stages)}
    need, todo = {k}, [k]
    while todo:
        j = todo.pop()
        for v in stages[j].inputs:
            if v in maps and producer[v] not in need:
                need.add(producer[v])
                todo.append(producer[v])
    part = [stages[j] for j in sorted(need)]
    try:
        te, values = compose(part, {st.output for st in part[:-1]})
    except NotComposable as e:
        return f"{stages[k].expr.name}: {e}"
    return Reader(te, values, stages[k].output, ())


def _read_along_reduction(r: Reader) -> set[str]:
    """The values `r` reads along its reduction (its last index a reduced variable)."""
    if r.expr.reduce is None:
        return set()
    red = {a for a, _ in r.expr.reduce.axes}
    return {v for a, v in enumerate(r.values)
            if any(e.index and isinstance(e.index[-1], Var) and e.index[-1].name in red for e in loads_of(r.expr, a))}


def _rows_of(r: Reader, res_lengths: dict[str, int], stat_values: set[str], rows) -> Reader | str:
    """`r` with its row axes found from its loads of shared values (`res_lengths`: the resident
    values and their row lengths), or why they do not say."""
    te = r.expr
    out_names = [f"i{d}" for d in range(te.output.rank)]
    found: set[tuple[int, ...]] = set()
    for e in (e for a, v in enumerate(r.values) if v in stat_values or v in res_lengths for e in loads_of(te, a)):
        value = r.values[e.arg]
        row_index = e.index if value in stat_values else e.index[:-1]
        if not all(isinstance(i, Var) and i.name in out_names for i in row_index) or \
                len({i.name for i in row_index}) != len(row_index):
            return f"{te.name} reads {value} at an index that is not its own output's"
        axes = tuple(out_names.index(i.name) for i in row_index)
        if tuple(te.output.shape[a] for a in axes) != rows:
            return f"{te.name} reads {value} over rows of another shape"
        if value in res_lengths and not _along_row(e.index[-1], te, axes, res_lengths[value]):
            return f"{te.name} reads {value} along its row at {e.index[-1]}"
        found.add(axes)
    if r.output in stat_values:     # its rows are its output, in order (phase 2 decomposes them so)
        own = tuple(range(te.output.rank))
        if found - {own}:
            return f"{te.name} reads a row value at rows permuted"
        return Reader(te, r.values, r.output, own)
    if r.output in res_lengths:     # its rows are its leading axes (the resident phase computes them so)
        if found - {tuple(range(te.output.rank - 1))}:
            return f"{te.name} reads a row value at rows permuted"
        return Reader(te, r.values, r.output, ())
    if len(found) != 1:
        return f"{te.name} reads its rows at {len(found)} different indices"
    return Reader(te, r.values, r.output, found.pop())


def _along_row(j: Expr, te: TensorExpr, row_axes: tuple[int, ...], length: int) -> bool:
    """Whether a resident load's last index walks the row: the reader's reduction variable over
    the row's length, one of its own non-row output variables of that extent, or 0 when J is 1."""
    if isinstance(j, Const):
        return j.value == 0 and length == 1
    if not isinstance(j, Var):
        return False
    if te.reduce is not None and j.name in dict(te.reduce.axes):
        return dict(te.reduce.axes)[j.name] == length
    axis = int(j.name[1:]) if j.name.startswith("i") and j.name[1:].isdigit() else -1
    return 0 <= axis < te.output.rank and axis not in row_axes and te.output.shape[axis] == length


def render(spec: KernelSpec, target=None) -> list[Kernel]:
    chain = analyse(spec)
    if isinstance(chain, str):
        raise ValueError(f"spec {spec.name}: {NAME} does not apply: {chain}")
    ext = spec.inputs
    types: dict[str, TensorType] = {}
    for st in spec.stages:
        for v, t in zip(st.inputs, st.expr.inputs):
            types.setdefault(v, t)
    it = chain_index_ctype(spec, chain)
    in_args = {v: f"in{j}" for j, v in enumerate(ext)}
    out_args = {v: f"out{j}" for j, v in enumerate(spec.written[:-1])}   # resident rows, statistics written too
    bm, J, nrows = chain.rows_per_block, chain.length, chain.row_count
    stored = {st.output: st.expr.output.dtype for st in spec.stages}
    # float values kept in fp32 (fp64 kept); integers in their own type: a top-k's index is read
    # as an index, which C takes from no float
    buf_type = {v: (stored[v] if stored[v].is_int else DType.float64 if stored[v] is DType.float64
                    else DType.float32) for v in chain.shared_values()}
    names = {}
    lengths = {r.output: r.length for r in chain.residents()}     # a resident buffer's row pitch
    L = ["  BY_SHARED_BUFFER(by_smem_raw);"]
    offset = 0
    for v in chain.shared_values():
        name = ("by_res" if v == chain.resident.output else f"by_res{len(names)}") if v in lengths \
            else f"by_st{len(names)}"
        names[v] = name
        count = bm * lengths.get(v, 1)
        ct = buf_type[v].ctype
        L.append(f"  {ct}* const {name} = reinterpret_cast<{ct}*>(by_smem_raw + {offset});")
        offset += count * buf_type[v].itemsize
        offset = -(-offset // 16) * 16
    L += [f"  const {it} by_row0 = ({it}){BLOCK_X} * {bm};",
          "  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;",
          "  (void)by_lane; (void)by_warp;"]

    wpr = warps_per_row(chain)
    ctx = _Phase(chain, names, in_args, out_args, buf_type, stored, lengths, wpr, offset, it)
    for ph in chain.phases:     # in order: each reads the shared values before it
        L += _resident_phase(ph, ctx) if ph.length is not None else _statistic_phase(ph, ctx)
    if wpr > 1:   # the partials' scratch, after the buffers
        offset += bm * wpr * 8

    L += _final_phase(ctx)
    out_t = chain.final.expr.output
    params = [f"const {types[v].dtype.ctype}* __restrict__ {in_args[v]}" for v in ext]
    params += [f"{stored[v].ctype}* __restrict__ {out_args[v]}" for v in out_args]
    params.append(f"{out_t.dtype.ctype}* __restrict__ out")
    helpers = sorted({w.tiles.table() for w in chain.walks})
    entry, source = finish_kernel(spec.name + "_rows", params, L, launch_bounds=(THREADS,), helpers=helpers)
    kparams = tuple(KernelParam(types[v].dtype.ctype, v, False) for v in ext)
    kparams += tuple(KernelParam(stored[v].ctype, v, True) for v in out_args)
    kparams += (KernelParam(out_t.dtype.ctype, spec.stages[-1].output, True),)
    grid = math.ceil(nrows / bm)
    return [Kernel(entry=entry, source=source, params=kparams, grid=(grid, 1, 1), block=(THREADS, 1, 1),
                   shared_bytes=offset, ops=spec.ops,
                   config=(("schedule", NAME), ("rows_per_block", bm), ("row_length", J), ("rows", nrows),
                           ("resident", chain.resident is not None), ("statistics", len(chain.stats)),
                           ("warps_per_row", wpr),
                           ("flops", chain_flops(chain)))
                   + ((("resident_stages", len(chain.residents())),) if len(chain.residents()) > 1 else ())
                   + ((("flops_dense", chain_flops(dataclasses.replace(chain, walks=()))),
                       ("column_walks", len(chain.walks)),
                       ("skipped_bytes", sum(w.skipped_bytes for w in chain.walks))) if chain.walks else ()))]


@dataclass(frozen=True)
class _Phase:
    """What every phase's code reads: the chain, the buffers' names and types, the parameters."""

    chain: RowChain
    names: dict          # shared value -> its buffer
    in_args: dict
    out_args: dict       # resident rows and statistics written to global memory too -> their parameter
    buf_type: dict
    stored: dict         # value -> its element type
    lengths: dict        # resident value -> its row length
    wpr: int             # warps per row of a statistic
    scratch: int         # byte offset of the statistics' partials
    it: str              # the C type of indices


def _final_phase(c: _Phase) -> list[str]:
    """The final stage, written to global memory. Rows of at least a warp's width: `wpr` warps a
    row (the statistics' mapping), lanes over its columns, the row's index decomposed once a row
    (an element's share of the index arithmetic was most of a short kernel's instructions).
    Shorter rows: threads over (row, column), so that a warp still writes consecutive columns."""
    chain, it, bm, nrows = c.chain, c.it, c.chain.rows_per_block, c.chain.row_count
    f = chain.final
    te = f.expr
    cols = [a for a in range(te.output.rank) if a not in f.row_axes]
    ncols = math.prod(te.output.shape[a] for a in cols)
    rend = _renderer(f, c.names, c.in_args, c.buf_type, c.lengths, bm, it)
    col_vars = [f"i{a}" for a in cols]
    col_shape = tuple(te.output.shape[a] for a in cols)
    if ncols >= 32:
        # the block's warps left idle by its rows share a row, each lane still writing two columns
        wpr = 1 << (max(1, min(WARPS // bm, ncols // 64)).bit_length() - 1)
        L = [f"  for ({it} by_rl = by_warp / {wpr}; by_rl < {bm}; by_rl += {WARPS // wpr}) {{",
             f"    const {it} by_row = by_row0 + by_rl;",
             f"    if (by_row >= {nrows}) break;"]
        L += decompose_index("    ", "by_row", chain.rows, [f"i{a}" for a in f.row_axes], "by_rrem", it)
        lane = "by_lane" if wpr == 1 else f"(by_lane + 32 * (by_warp % {wpr}))"
        L += [f"    for ({it} by_col = {lane}; by_col < {ncols}; by_col += {32 * wpr}) {{"]
        L += decompose_index("      ", "by_col", col_shape, col_vars, "by_crem", it)
        ind = "      "
    else:
        L = [f"  for ({it} by_lin = threadIdx.x; by_lin < {bm * ncols}; by_lin += {THREADS}) {{",
             f"    const {it} by_rl = by_lin / {ncols};",
             f"    const {it} by_row = by_row0 + by_rl;",
             f"    if (by_row >= {nrows}) break;"]
        L += decompose_index("    ", "by_row", chain.rows, [f"i{a}" for a in f.row_axes], "by_rrem", it)
        L += decompose_index("    ", f"(by_lin % {ncols})", col_shape, col_vars, "by_crem", it)
        ind = "    "
    body, result = _value(rend, ind, walk=chain.walk(f.output))
    strides = contiguous_strides(te.output.shape)
    off = " + ".join(f"i{a} * {s}" for a, s in enumerate(strides)) or "0"
    L += body + [f"{ind}out[{off}] = ({te.output.dtype.ctype})({result});"]
    return L + (["    }", "  }"] if ncols >= 32 else ["  }"])


def chain_index_ctype(spec: KernelSpec, chain: RowChain) -> str:
    """`int` when every stage, as written and as the kernel composes it, indexes within 32 bits."""
    exprs = [st.expr for st in spec.stages] + [r.expr for r in chain.phases + (chain.final,)]
    return "int" if all(index_ctype(e) == "int" for e in exprs) else "long long"


def _resident_phase(r: Reader, c: _Phase) -> list[str]:
    """A block's rows of resident rows into shared memory, a thread per element (and to global
    memory too when a later kernel reads them)."""
    chain, n, bm, nrows, it = c.chain, r.length, c.chain.rows_per_block, c.chain.row_count, c.it
    rend = _renderer(r, c.names, c.in_args, c.buf_type, c.lengths, bm, it)
    L = [f"  for ({it} by_lin = threadIdx.x; by_lin < {bm * n}; by_lin += {THREADS}) {{",
         f"    const {it} by_rl = by_lin / {n};",
         f"    const {it} by_row = by_row0 + by_rl;",
         f"    if (by_row >= {nrows}) break;"]
    L += decompose_index("    ", "by_row", chain.rows, [f"i{a}" for a in range(len(chain.rows))], "by_rrem", it)
    L.append(f"    const {it} i{len(chain.rows)} = by_lin % {n};")
    body, result = _value(rend, "    ", walk=chain.walk(r.output))
    buf = c.names[r.output]
    L += body + [f"    {buf}[by_lin] = {rounded(result, c.stored[r.output], c.buf_type[r.output])};"]
    if r.output in c.out_args:
        L.append(f"    {c.out_args[r.output]}[by_row * {n} + i{len(chain.rows)}] = "
                 f"({c.stored[r.output].ctype})({buf}[by_lin]);")
    return L + ["  }", "  __syncthreads();"]


def _statistic_phase(s: Reader, c: _Phase) -> list[str]:
    """A row statistic into shared memory: a warp per row reducing with shuffles, or `wpr` warps
    per row whose partials one thread per row combines."""
    chain, bm, nrows, wpr, it = c.chain, c.chain.rows_per_block, c.chain.row_count, c.wpr, c.it
    rend = _renderer(s, c.names, c.in_args, c.buf_type, c.lengths, bm, it)
    row_vars = [f"i{a}" for a in range(len(chain.rows))]
    L = [f"  for ({it} by_rl = by_warp / {wpr}; by_rl < {bm}; by_rl += {WARPS // wpr}) {{",
         f"    const {it} by_row = by_row0 + by_rl;",
         f"    if (by_row >= {nrows}) break;"]
    L += decompose_index("    ", "by_row", chain.rows, row_vars, "by_rrem", it)
    if wpr == 1:
        body, result = _value(rend, "    ", lanes=("by_lane", 32))
        return L + body + [f"    if (by_lane == 0) {c.names[s.output]}[by_rl] = "
                           f"{rounded(result, c.stored[s.output], c.buf_type[s.output])};"] + \
            _written_statistic(s, c, "by_lane == 0") + ["  }", "  __syncthreads();"]
    # several warps share a row: each leaves its partial in shared memory, then one thread per
    # row combines them in warp order (the same order every run) and applies the epilogue
    vct = s.expr.body.dtype.compute_ctype
    body, _ = _value(rend, "    ", lanes=(f"by_lane + 32 * (by_warp % {wpr})", 32 * wpr), epilogue=False)
    L += [f"    {vct}* const by_part = reinterpret_cast<{vct}*>(by_smem_raw + {c.scratch});"]
    L += body + [f"    if (by_lane == 0) by_part[by_rl * {wpr} + by_warp % {wpr}] = acc;", "  }",
                 "  __syncthreads();",
                 f"  for ({it} by_rl = threadIdx.x; by_rl < {bm}; by_rl += {THREADS}) {{",
                 f"    const {it} by_row = by_row0 + by_rl;",
                 f"    if (by_row >= {nrows}) break;",
                 f"    const {vct}* const by_part = reinterpret_cast<const {vct}*>(by_smem_raw + {c.scratch});"]
    L += decompose_index("    ", "by_row", chain.rows, row_vars, "by_rrem", it)
    L += [f"    {vct} acc = by_part[by_rl * {wpr}];",
          f"    for (int by_w = 1; by_w < {wpr}; ++by_w) acc = {combine(s.expr.reduce.op, 'acc', f'by_part[by_rl * {wpr} + by_w]')};"]
    body, result = _epilogue(rend, "    ")
    return L + body + [f"    {c.names[s.output]}[by_rl] = {rounded(result, c.stored[s.output], c.buf_type[s.output])};"] + \
        _written_statistic(s, c, None) + ["  }", "  __syncthreads();"]


def _written_statistic(s: Reader, c: _Phase, who: str | None) -> list[str]:
    """A statistic a later kernel reads too, written at its row (its output is the rows, in
    order; size-1 axes add nothing to the offset) by the thread `who` says (None: this one)."""
    if s.output not in c.out_args:
        return []
    store = f"{c.out_args[s.output]}[by_row] = ({c.stored[s.output].ctype})({c.names[s.output]}[by_rl]);"
    return [f"    if ({who}) {store}" if who else f"    {store}"]


def chain_flops(chain: RowChain) -> int:
    """The arithmetic of every phase as the kernel computes it: per evaluation of a phase's body
    (each reduction step), its operations with the register maps composed into it (computed
    where read, so once per read) and the reduction's combine, at least two (a multiply-add);
    then its epilogue's, once per output element. Only arithmetic on values counts
    (`texpr.value_ops`): the index arithmetic of the maps' reshapes is address computation."""
    def of(r: Reader, count: int) -> int:
        steps = r.expr.reduce.extent if r.expr.reduce else 1
        body = max(2, value_ops(r.expr.body) + (1 if r.expr.reduce else 0))
        return count * (steps * body + value_ops(r.expr.epilogue))

    def walked(r: Reader, w: ColumnWalk) -> int:     # the listed k steps only (SparTA)
        body = max(2, value_ops(r.expr.body) + 1)
        return w.walked * body + r.expr.output.size * value_ops(r.expr.epilogue)
    n = chain.row_count
    total = sum(of(r, n * r.length) if chain.walk(r.output) is None else walked(r, chain.walk(r.output))
                for r in chain.residents())
    total += sum(of(s, n) for s in chain.stats)
    f, fw = chain.final, chain.walk(chain.final.output)
    return total + (of(f, f.expr.output.size) if fw is None else walked(f, fw))


def block_reads(chain: RowChain) -> int:
    """Bytes one block reads of the values outside the kernel: the part of a row-indexed input its
    rows own, and all of what every row reads (a weight, a head's K and V). The grid reads blocks
    times this through L2: the price of computing a product without Roller's tiles, which is what
    makes a wide GEMM -> GEMM chain decline."""
    readers = [(r, tuple(range(len(chain.rows)))) for r in chain.residents()]
    readers += [(s, s.row_axes) for s in chain.stats] + [(chain.final, chain.final.row_axes)]
    shared = set(chain.shared_values())
    footprint: dict[str, int] = {}
    for r, row_axes in readers:
        te = r.expr
        ext = extents_of(te)
        row_var = {f"i{a}": p for p, a in enumerate(row_axes)}
        for a, v in enumerate(r.values):
            if v in shared:
                continue
            t = te.inputs[a]
            for ld in loads_of(te, a):
                used = set().union(*(vars_of(i) for i in ld.index)) if ld.index else set()
                rows = sorted(row_var[u] for u in used if u in row_var)
                elems = math.prod(ext[u] for u in used if u not in row_var)
                if rows:     # distinct row positions a block's consecutive rows span, on the axes read
                    inner = math.prod(chain.rows[rows[-1] + 1:])
                    elems *= min(math.prod(chain.rows[p] for p in rows), -(-chain.rows_per_block // inner))
                read = min(t.nbytes, elems * t.dtype.itemsize)
                w = chain.walk(r.output)
                if w is not None and v == w.input:
                    read = read * w.walked // (r.expr.output.size * r.expr.reduce.extent)   # the listed tiles'
                footprint[v] = max(footprint.get(v, 0), read)
    return sum(footprint.values())


def _renderer(r: Reader, names: dict, in_args: dict, buf_type: dict, lengths: dict, bm: int,
              it: str = "long long") -> "_Renderer":
    """A renderer of r's expression whose shared values read the block's buffers at its local row
    (`lengths`: the resident values' row lengths; the others are statistics, one per row)."""
    te = r.expr
    arg_names, strides, inputs = [], [], list(te.inputs)
    for a, v in enumerate(r.values):
        if v in names:
            arg_names.append(names[v])
            n = lengths.get(v)
            strides.append((n, 1) if n else (1,))
            inputs[a] = TensorType(buf_type[v], (bm, n) if n else (bm,))
        else:
            arg_names.append(in_args[v])
            strides.append(contiguous_strides(te.inputs[a].shape))

    def local(ld: Load) -> Expr:
        if r.values[ld.arg] not in names:
            return ld
        idx = (_ROW, ld.index[-1]) if r.values[ld.arg] in lengths else (_ROW,)
        return Load(ld.arg, idx, ld.dtype)

    body = replace_loads(te.body, local)
    epilogue = None if te.epilogue is None else replace_loads(te.epilogue, local)
    return _Renderer(te.replace(inputs=tuple(inputs), body=body, epilogue=epilogue), arg_names, strides, it)


class _Renderer(ExprRenderer):
    """An expression renderer that keeps the expression it renders (shared values read locally)."""

    def __init__(self, expr: TensorExpr, arg_names: list[str], strides: list, it: str = "long long"):
        super().__init__(arg_names, strides, it)
        self.expr = expr


def warps_per_row(chain: RowChain) -> int:
    """Warps that reduce one row's statistics together: the block's warps left idle by its rows
    (a power of two), as long as each lane still gets at least two elements (AStitch's adaptive
    mapping: many short rows a warp each, few long rows a block's worth of warps each)."""
    if not chain.stats:
        return 1
    spare = WARPS // chain.rows_per_block
    useful = -(-max(s.expr.reduce.extent for s in chain.stats) // 64)
    return 1 << (max(1, min(spare, useful)).bit_length() - 1)


def _epilogue(rend: "_Renderer", ind: str) -> tuple[list[str], str]:
    """Statements computing the renderer's reduction epilogue from `acc` in scope, and its C result."""
    te = rend.expr
    if te.epilogue is None:
        return [], ACC
    rend.memo, rend.lines = {}, []
    v = rend.render(te.epilogue, ind)
    return list(rend.lines), v


def _value(rend: "_Renderer", ind: str, *, lanes: tuple[str, int] | None = None,
           epilogue: bool = True, walk: ColumnWalk | None = None) -> tuple[list[str], str]:
    """Statements computing the renderer's expression at the index in scope, and its C result.
    A reduction loops serially, or (lanes: the first index and the stride of this lane) over
    lanes and combines the warp's by shuffles; `epilogue` False leaves `acc` the warp's value.
    `walk`: the reduction steps through the k tiles listed for the element's column tile only."""
    te = rend.expr
    rend.memo, rend.lines = {}, []
    if te.reduce is None:
        v = rend.render(te.body, ind)
        return list(rend.lines), v
    red = te.reduce
    vt = te.body.dtype
    vct = vt.compute_ctype
    # lanes past the row's end hold the identity, so the shuffles may combine every lane
    L = [f"{ind}{vct} acc = {rend.render(reduce_identity(red.op, vt), ind)};"]
    inner = ind
    loops = len(red.axes)
    if walk is not None:        # (walk_declined: one axis)
        (name, extent), = red.axes
        table, it = walk.tiles.name, rend.index_ctype
        end = f"by_kb + {walk.k_tile}" if extent % walk.k_tile == 0 else \
            f"(by_kb + {walk.k_tile} < {extent} ? by_kb + {walk.k_tile} : {extent})"
        L += [f"{ind}const int by_ct = (int)(({walk.column()}) / {walk.col_tile});",
              f"{ind}for (int by_t = {table}_off[by_ct]; by_t < {table}_off[by_ct + 1]; ++by_t) {{",
              f"{ind}  const {it} by_kb = ({it}){table}_kt[by_t] * {walk.k_tile};",
              f"{ind}  for ({it} {name} = by_kb; {name} < {end}; ++{name}) {{"]
        inner, loops = ind + "    ", 2
    for k, (name, extent) in enumerate(red.axes if walk is None else ()):
        start, step = lanes if (lanes is not None and k == 0) else ("0", "1")
        L.append(f"{inner}for ({rend.index_ctype} {name} = {start}; {name} < {extent}; {name} += {step}) {{")
        inner += "  "
    rend.memo, rend.lines = {}, []
    v = rend.render(te.body, inner)
    L += rend.lines + [f"{inner}const {vct} v = {v};", f"{inner}acc = {combine(red.op, 'acc', 'v')};"]
    for _ in range(loops):
        inner = inner[:-2]
        L.append(f"{inner}}}")
    if lanes is not None:
        L += [f"{ind}for (int by_d = 16; by_d > 0; by_d >>= 1) {{",
              f"{ind}  const {vct} o = __shfl_xor_sync(0xffffffffu, acc, by_d);",
              f"{ind}  acc = {combine(red.op, 'acc', 'o')};",
              f"{ind}}}"]
    if not epilogue:
        return L, ACC
    more, v = _epilogue(rend, ind)
    return L + more, v


def rounded(value: str, stored: DType, buf: DType) -> str:
    """`value` rounded to the stored element type, kept in the buffer's type."""
    if stored.ctype == buf.ctype:
        return f"({buf.ctype})({value})"
    return f"({buf.ctype})(({stored.ctype})({value}))"
